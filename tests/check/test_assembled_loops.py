"""Training loops assembled from parts (issue 7, batch "fresh-2026-12v"): a runner class that
keeps its hooks or callbacks in a list and calls them at fixed points of its loop ("after
each iteration", "after each epoch"), by name (``getattr(hook, stage)()``) or directly; hooks
defined in other modules that reach the runner's optimizer and scheduler through the runner
(``self.trainer.scheduler``, a ``runner`` argument); lists filled by a builder function. Each
test is the general shape in our own words, written as a small project of several modules,
next to the control that must stay as it is."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

CODES = frozenset(CATALOG)


def check_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  files: dict[str, str]) -> list[tuple[str, str]]:
    """(path, code) of every finding for a project made of ``files``."""
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), CODES, jobs=1)
    assert report.errors == []
    return [(d.path, d.code) for d in report.diagnostics]


def codes_of(found: list[tuple[str, str]]) -> set[str]:
    return {code for _, code in found}


# -- a runner that calls its hooks by the stage's name ---------------------------------------
# The engine module knows nothing of schedulers: its loop calls every registered hook's method
# named after the point it has reached. The scheduler is stepped by a hook in another module
# that reads it through the runner it was registered with.

ENGINE_BY_NAME = """
class Hook:
    runner = None

    def after_iteration(self):
        pass

    def after_epoch(self):
        pass


class Runner:
    def __init__(self, net, opt, sched, data, epochs):
        self.net = net
        self.opt = opt
        self.sched = sched
        self.data = data
        self.epochs = epochs
        self.hooks = []

    def add_hooks(self, hooks):
        for hook in hooks:
            hook.runner = self
            self.hooks.append(hook)

    def fire(self, point):
        for hook in self.hooks:
            getattr(hook, point)()

    def run(self):
        for epoch in range(self.epochs):
            for inputs, targets in self.data:
                self.opt.zero_grad()
                loss = (self.net(inputs) - targets).pow(2).mean()
                loss.backward()
                self.opt.step()
                self.fire("after_iteration")
            self.fire("after_epoch")
"""

LR_HOOK = """
from engine import Hook


class DecayHook(Hook):
    def {method}(self):
        self.runner.sched.step()
"""

DRIVER_BY_NAME = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from engine import Runner
from lr_hooks import DecayHook


def main():
    net = torch.nn.Linear(8, 1)
    data = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    runner = Runner(net, opt, sched, data, 90)
    runner.add_hooks([DecayHook()])
    runner.run()


if __name__ == "__main__":
    main()
"""


def by_name(method: str) -> dict[str, str]:
    return {"engine.py": ENGINE_BY_NAME, "lr_hooks.py": LR_HOOK.format(method=method),
            "train.py": DRIVER_BY_NAME}


def test_hook_called_by_name_after_each_iteration_steps_an_epoch_schedule_per_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, by_name("after_iteration"))
    assert ("lr_hooks.py", "LRD002") in found


def test_control_hook_called_by_name_after_each_epoch_is_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_project(tmp_path, monkeypatch, by_name("after_epoch")) == []
