"""Shapes behind the dev misses of the fresh-2026-12yo batch (rcnew61, bench/realcode/README.md).

Programs written for these tests; no third-party code.

A hand-written loop trains a module whose ``configure_optimizers()`` builds an optimizer and
its scheduler, and calls the hook twice: ``opt = model.configure_optimizers()["optimizer"]``,
then ``sched = model.configure_optimizers()["lr_scheduler"]["scheduler"]``. Each call builds a
new optimizer; the loop steps the first, the schedule moves the LR of the second, so the LR
being trained never changes (LRD014). lrdoctor missed it when any of these stood between:

- the config came from Hydra's compose API (``with initialize(config_path=...): cfg =
  compose(config_name=...)``) rather than ``@hydra.main``, so ``instantiate(cfg.model)`` built
  nothing known;
- ``model = model.to(device)``: torch's ``Module.to`` returns the module, lrdoctor lost it;
- the hook returns the dict only when a scheduler is configured and the bare optimizer
  otherwise, so ``f()["optimizer"]`` read the bare optimizer's (missing) entry;
- the scheduler is the project's own class with a ``step()`` that writes the LR.

Silent twins: one call of the hook whose result gives both the optimizer and the scheduler.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings, project_codes

POLICY = """
import torch
from torch import nn


class WarmupHold:
    pass


class LinearWarmup(torch.optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, peak, warmup):
        self.optimizer = optimizer
        self.peak = peak
        self.warmup = warmup
        self.count = 0

    def step(self):
        self.count += 1
        lr = self.peak * min(1.0, self.count / self.warmup)
        for group in self.optimizer.param_groups:
            group["lr"] = lr


class Policy(nn.Module):
    def __init__(self, lr=1e-4, warmup=500, with_schedule=True):
        super().__init__()
        self.body = nn.Linear(6, 3)
        self.lr = lr
        self.warmup = warmup
        self.with_schedule = with_schedule

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.lr)
        if self.with_schedule:
            schedule = {SCHEDULER}
            return {{"optimizer": optimizer, "lr_scheduler": {{"scheduler": schedule}}}}
        return optimizer
"""

TORCH_SCHEDULER = "torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=self.warmup)"
OWN_SCHEDULER = "LinearWarmup(optimizer, self.lr, self.warmup)"

CONFIG = """
epochs: 4
model:
  _target_: agent.policy.Policy
  lr: 0.0002
  warmup: 800
  with_schedule: true
"""

TWO_CALLS = """
opt = model.configure_optimizers()["optimizer"]
    sched = model.configure_optimizers()["lr_scheduler"]["scheduler"]"""
ONE_CALL = """
setup = model.configure_optimizers()
    opt = setup["optimizer"]
    sched = setup["lr_scheduler"]["scheduler"]"""

DRIVER = """
import hydra
import torch
from hydra import compose, initialize


def run(cfg):
    model = hydra.utils.instantiate(cfg.model)
    model = model.to("cuda")
    {SETUP}
    loader = torch.utils.data.DataLoader(cfg.data, batch_size=8)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model.body(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()


if __name__ == "__main__":
    with initialize(config_path="conf", job_name="train"):
        cfg = compose(config_name="train")
    run(cfg)
"""


def _python(files: dict[str, str]) -> list[str]:
    return sorted(name for name in files if name.endswith(".py"))


def _project(scheduler: str, setup: str) -> dict[str, str]:
    return {
        "agent/__init__.py": "",
        "agent/policy.py": POLICY.format(SCHEDULER=scheduler),
        "conf/train.yaml": CONFIG,
        "train.py": DRIVER.replace("{SETUP}", setup.strip("\n")),
    }


@pytest.mark.parametrize("scheduler", [TORCH_SCHEDULER, OWN_SCHEDULER])
def test_second_configure_optimizers_call_for_the_scheduler_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: str) -> None:
    files = _project(scheduler, TWO_CALLS)
    found = check_project(tmp_path, monkeypatch, files, _python(files))
    assert project_codes(found) == ["LRD014"]


@pytest.mark.parametrize("scheduler", [TORCH_SCHEDULER, OWN_SCHEDULER])
def test_one_configure_optimizers_call_for_both_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scheduler: str) -> None:
    files = _project(scheduler, ONE_CALL)
    assert check_project(tmp_path, monkeypatch, files, _python(files)) == []


def test_the_message_names_the_other_call(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files

    files = _project(OWN_SCHEDULER, TWO_CALLS)
    check_project(tmp_path, monkeypatch, files, _python(files))
    report = check_files(_python(files), frozenset(CATALOG), jobs=1)
    (message,) = [d.message for d in report.diagnostics]
    assert "another call of it" in message and "Lightning" not in message


COMPOSED = """
import hydra
import torch
from hydra import compose, initialize


def run(cfg):
    opt = hydra.utils.instantiate(cfg.optimizer, params=cfg.params)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg.step_size)
    loader = torch.utils.data.DataLoader(cfg.data, batch_size=8)
    for epoch in range(10):
        for batch in loader:
            opt.step()
            sched.step()


if __name__ == "__main__":
    with initialize(config_path="conf"):
        cfg = compose(config_name="train"{OVERRIDES})
    run(cfg)
"""

STEP_CONFIG = """
step_size: 30
optimizer:
  _target_: torch.optim.SGD
  lr: 0.1
"""


def test_compose_api_config_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # StepLR(step_size=30) from the composed config, stepped every batch
    files = {"conf/train.yaml": STEP_CONFIG,
             "train.py": COMPOSED.replace("{OVERRIDES}", "")}
    assert project_codes(check_project(tmp_path, monkeypatch, files, _python(files))) == ["LRD002"]


def test_compose_with_overrides_is_not_read(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # overrides may change any value the file states: the step size is not known
    files = {"conf/train.yaml": STEP_CONFIG,
             "train.py": COMPOSED.replace("{OVERRIDES}", ', overrides=["step_size=3000"]')}
    found = check_project(tmp_path, monkeypatch, files, _python(files))
    assert "LRD002" not in project_codes(found)


MODULE_TO = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        return opt, torch.optim.lr_scheduler.StepLR(opt, step_size=30)


def train(loader, device):
    model = Net().{MOVE}
    opt, sched = model.optimizers()
    for epoch in range(90):
        for x, y in loader:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
"""


@pytest.mark.parametrize("move", ["to(device)", "cuda()", "train()"])
def test_module_moved_to_a_device_keeps_its_methods(move: str) -> None:
    # the StepLR sized in epochs is stepped every batch: seen through `model.to(device)`
    assert [c for c, _ in findings(MODULE_TO.replace("{MOVE}", move))] == ["LRD002"]


def test_module_without_move_is_the_same_finding() -> None:
    assert [c for c, _ in findings(MODULE_TO.replace(".{MOVE}", ""))] == ["LRD002"]
