"""A shape found by the fresh-2026-12yp batch (rcnew62, bench/realcode/README.md).

Programs written for these tests; no third-party code.

A per-batch schedule whose horizon is written as a few epochs of the loader's batches
(``T_max=cfg.cycle * len(loader)`` with ``cycle = 4``) while the epoch loop runs more epochs
than that (``range(cfg.epochs)`` with ``epochs = 20``): the horizon is spent after ``cycle``
epochs and every later batch steps the schedule past its end (LRD010: a cosine climbs back,
a linear decay sits at zero). lrdoctor compared such counts for OneCycleLR(epochs=...) only.
Silent twins: a horizon of the loop's own epochs, a horizon longer than the loop, a loop that
may stop early, a schedule restarted inside the epoch loop, a restarting scheduler, a step
under an accumulation test, a count the file does not state.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings

SETTINGS = """
class Cfg:
    cycle = 4
    epochs = 20
    lr = 1e-3
"""

PROGRAM = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from settings import Cfg


def run(net, loader):
    n_epochs = Cfg.epochs
    per_epoch = len(loader)
    opt = torch.optim.AdamW(net.parameters(), lr=Cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=Cfg.cycle * per_epoch)
    for epoch in range(n_epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()


if __name__ == "__main__":
    data = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    run(torch.nn.Linear(4, 1), DataLoader(data, batch_size=8))
"""


def test_cosine_over_a_config_cycle_shorter_than_the_run_across_modules(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"settings.py": SETTINGS, "train.py": PROGRAM})
    assert [(path, line, code) for path, line, code in found if code == "LRD010"] == [
        ("train.py", 18, "LRD010")]


def test_cycle_equal_to_the_run_is_silent(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    settings = SETTINGS.replace("cycle = 4", "cycle = 20")
    found = check_project(tmp_path, monkeypatch, {"settings.py": settings, "train.py": PROGRAM})
    assert "LRD010" not in [code for _, _, code in found]


def test_cycle_longer_than_the_run_is_silent(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    settings = SETTINGS.replace("cycle = 4", "cycle = 30")
    found = check_project(tmp_path, monkeypatch, {"settings.py": settings, "train.py": PROGRAM})
    assert "LRD010" not in [code for _, _, code in found]


SINGLE = """
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import get_linear_schedule_with_warmup

DECAY_EPOCHS = 3
EPOCHS = 12

data = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
loader = DataLoader(data, batch_size=8, shuffle=True)
net = torch.nn.Linear(4, 1)
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
total = len(loader) * DECAY_EPOCHS
{build}
for epoch in range({loop}):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(net(x), y)
        loss.backward()
        opt.step()
{step}
        opt.zero_grad()
{tail}
"""

LINEAR = "sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=10, num_training_steps=total)"
POLY = "sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=total, power=1.0)"
RESTARTS = "sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=total)"
STEP = "        sched.step()"


def _single(build: str = LINEAR, loop: str = "EPOCHS", step: str = STEP, tail: str = "") -> str:
    return SINGLE.format(build=build, loop=loop, step=step, tail=tail)


def test_linear_decay_over_fewer_epochs_than_the_loop() -> None:
    assert ("LRD010", 20) in findings(_single())


def test_polynomial_decay_over_fewer_epochs_than_the_loop() -> None:
    assert ("LRD010", 20) in findings(_single(build=POLY))


def test_loop_over_the_same_count_is_silent() -> None:
    assert "LRD010" not in codes(_single(loop="DECAY_EPOCHS"))


def test_restarting_scheduler_is_silent() -> None:
    assert "LRD010" not in codes(_single(build=RESTARTS))


def test_early_stopping_loop_is_silent() -> None:
    tail = "    if loss.item() < 1e-3:\n        break"
    assert "LRD010" not in codes(_single(tail=tail))


def test_schedule_rebuilt_every_cycle_is_silent() -> None:
    tail = "    if (epoch + 1) % DECAY_EPOCHS == 0:\n        " + LINEAR
    assert "LRD010" not in codes(_single(tail=tail))


def test_step_under_an_accumulation_test_is_silent() -> None:
    step = "        if (epoch + 1) % 2 == 0:\n            sched.step()"
    assert "LRD010" not in codes(_single(step=step))


def test_count_the_file_does_not_state_is_silent() -> None:
    source = _single().replace("DECAY_EPOCHS = 3", "import sys\nDECAY_EPOCHS = int(sys.argv[1])")
    assert "LRD010" not in codes(source)
