"""A literal horizon above 200 that the run's own epoch count covers, stepped every batch
(rcnew57, bench/realcode/README.md, batch fresh-2026-12yk).

Programs written for these tests; no third-party code.

A tracker's settings module builds ``MultiStepLR(optimizer, milestones=[150, 250])`` and hands
it to a trainer class whose base runs ``for epoch in range(self.epoch + 1, max_epochs + 1)``
with ``max_epochs`` 300. Put the ``step()`` in the batch loop and every milestone passes within
the first 250 batches. LRD002 read a literal horizon as epochs only up to 200 (a larger number
may count iterations); a horizon that the epoch loop around the batch loop reaches (its count
read as a number: a literal, a name or setting the file assigns one, a parameter its caller
fills with one) is sized in epochs whatever its size. Silent twins: the same scheduler stepped
once per epoch, epochs fewer than the horizon, an epoch count the code does not state, a
gentle per-step decay.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

SETUP = """
import argparse
import torch

model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = {build}
{count}
for epoch in {passes}:
    for x in loader:
        optimizer.zero_grad()
        model(torch.randn(8, 8)).sum().backward()
        optimizer.step()
{batch_step}
{epoch_step}
"""

MULTISTEP = "torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[150, 250], gamma=0.2)"
STEPLR = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=250, gamma=0.1)"
COSINE = "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=300)"
ARGPARSE = """parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=300)
args = parser.parse_args()"""


def _program(build: str, passes: str, count: str = "", per_batch: bool = True) -> str:
    return SETUP.format(
        build=build, count=count, passes=passes,
        batch_step="        scheduler.step()" if per_batch else "",
        epoch_step="" if per_batch else "    scheduler.step()",
    )


@pytest.mark.parametrize("build, passes, count", [
    (MULTISTEP, "range(300)", ""),
    (MULTISTEP, "range(1, NUM_EPOCHS + 1)", "NUM_EPOCHS = 300"),
    (STEPLR, "range(args.epochs)", ARGPARSE),
    (COSINE, "range(num_epochs)", "num_epochs = 300"),
])
def test_horizon_within_the_epochs_stepped_per_batch(build: str, passes: str,
                                                     count: str) -> None:
    assert "LRD002" in codes(_program(build, passes, count))


@pytest.mark.parametrize("build, passes, count", [
    (MULTISTEP, "range(300)", ""),
    (STEPLR, "range(args.epochs)", ARGPARSE),
])
def test_the_same_horizon_stepped_per_epoch_is_silent(build: str, passes: str,
                                                      count: str) -> None:
    assert "LRD002" not in codes(_program(build, passes, count, per_batch=False))


@pytest.mark.parametrize("build, passes, count", [
    # more milestones than epochs: the horizon may count iterations
    (MULTISTEP, "range(100)", ""),
    ("torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30000, 40000])",
     "range(300)", ""),
    # an epoch count the code does not state
    (MULTISTEP, "range(args.epochs)",
     'parser = argparse.ArgumentParser()\nparser.add_argument("--epochs", type=int)\n'
     "args = parser.parse_args()"),
    # a gentle decay every 250 steps is a plausible per-step design
    ("torch.optim.lr_scheduler.StepLR(optimizer, step_size=250, gamma=0.99)", "range(300)", ""),
])
def test_horizon_the_run_does_not_cover_is_silent(build: str, passes: str, count: str) -> None:
    assert "LRD002" not in codes(_program(build, passes, count))


SETTINGS = """
import torch
from proj.trainers import Trainer


def run(settings):
    settings.num_epochs = {epochs}
    model = torch.nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[150, 250], gamma=0.2)
    trainer = Trainer(model, [loader], optimizer, scheduler)
    trainer.train(settings.num_epochs)
"""

BASE = """
class BaseTrainer:
    def __init__(self, model, loaders, optimizer, lr_scheduler=None):
        self.model = model
        self.loaders = loaders
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.epoch = 0

    def train(self, max_epochs):
        for epoch in range(self.epoch + 1, max_epochs + 1):
            self.epoch = epoch
            self.train_epoch()
{epoch_step}

    def train_epoch(self):
        raise NotImplementedError
"""

LOOP = """
import torch
from proj.trainers import BaseTrainer


class Trainer(BaseTrainer):
    def cycle(self, loader):
        for i, x in enumerate(loader, 1):
            self.optimizer.zero_grad()
            self.model(torch.randn(8, 8)).sum().backward()
            self.optimizer.step()
{batch_step}

    def train_epoch(self):
        for loader in self.loaders:
            self.cycle(loader)
"""

RUNNER = """
import importlib
import types


def main():
    module = importlib.import_module("proj.settings.exp")
    module.run(types.SimpleNamespace())


if __name__ == "__main__":
    main()
"""


def _project(epochs: int, per_batch: bool) -> dict[str, str]:
    return {
        "proj/__init__.py": "",
        "proj/trainers/__init__.py": "from .base import BaseTrainer\nfrom .loop import Trainer\n",
        "proj/trainers/base.py": BASE.format(
            epoch_step="" if per_batch else "            self.lr_scheduler.step()"),
        "proj/trainers/loop.py": LOOP.format(
            batch_step="            self.lr_scheduler.step()" if per_batch else ""),
        "proj/settings/__init__.py": "",
        "proj/settings/exp.py": SETTINGS.format(epochs=epochs),
        "run.py": RUNNER,
    }


def test_settings_module_trainer_classes_per_batch(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _project(300, per_batch=True))
    assert ("proj/trainers/loop.py", 12, "LRD002") in found


@pytest.mark.parametrize("epochs, per_batch", [(300, False), (100, True)])
def test_settings_module_trainer_classes_twins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               epochs: int, per_batch: bool) -> None:
    found = check_project(tmp_path, monkeypatch, _project(epochs, per_batch))
    assert "LRD002" not in project_codes(found)
