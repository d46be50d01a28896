"""Shapes met in the fresh real-code batch "fresh-2026-12zm" of issue 7 (bench/realcode, dev
half): a trainer class whose base class (in the project, often another module) owns the
template (`train()` runs the epoch loop, `run_epoch()` the batch loop) and calls hooks on
itself that the subclass overrides (`train_batch()` makes the update, `after_epoch()` steps
the scheduler). The hooks run where the template runs them; one traced on its own first, out
of any loop, made the end-of-epoch step look like a step before the training loop (LRD001).
Each test is the shape in our own words, next to the controls that must still be reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, findings, project_codes

# the template: the epoch loop, the batch loop, the hooks it calls on itself
_BASE = """
class EpochTrainer:
    def __init__(self, epochs):
        self.epochs = epochs

    def train(self, loader):
        self.before_train()
        for epoch in range(self.epochs):
            self.run_epoch(loader)

    def run_epoch(self, loader):
        for batch in loader:
            self.train_batch(batch)
        self.after_epoch()

    def before_train(self):
        pass

    def train_batch(self, batch):
        raise NotImplementedError

    def after_epoch(self):
        pass
"""

# the subclass: hooks written before the update hook, the scheduler stepped after the epoch
_SUB = """
import torch
from base import EpochTrainer


class StepTrainer(EpochTrainer):
    def __init__(self, net, epochs):
        super().__init__(epochs)
        self.net = net
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        self.scheduler = {BUILD}
{HOOKS}
    def train_batch(self, batch):
        self.optimizer.zero_grad()
        self.net(batch).mean().backward()
        {BATCH}
"""

_STEPLR = "torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10)"

_AFTER_EPOCH = """
    def after_epoch(self):
        self.scheduler.step()
"""


def _sub(build: str = _STEPLR, hooks: str = _AFTER_EPOCH, batch: str = "self.optimizer.step()"
         ) -> str:
    return _SUB.replace("{BUILD}", build).replace("{HOOKS}", hooks).replace("{BATCH}", batch)


def test_an_end_of_epoch_hook_the_base_template_calls_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = check_project(tmp_path, monkeypatch, {"base.py": _BASE, "trainer.py": _sub()})
    assert "LRD001" not in project_codes(got)


def test_the_same_template_in_the_subclass_module_is_silent() -> None:
    source = _BASE + _sub().replace("from base import EpochTrainer\n", "")
    assert [c for c, _ in findings(source) if c == "LRD001"] == []


def test_a_base_class_named_through_its_module_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `import pkg.base` and `class StepTrainer(pkg.base.EpochTrainer)`, as a package does
    sub = _sub().replace("from base import EpochTrainer", "import pkg.base") \
        .replace("(EpochTrainer)", "(pkg.base.EpochTrainer)")
    got = check_project(tmp_path, monkeypatch, {
        "pkg/__init__.py": "", "pkg/base.py": _BASE, "pkg/trainer.py": sub})
    assert "LRD001" not in project_codes(got)


def test_a_step_in_the_hook_the_template_runs_before_its_loop_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `before_train()` runs once before the epoch loop: a step there does come before any
    # update
    hooks = """
    def before_train(self):
        self.scheduler.step()
"""
    got = check_project(tmp_path, monkeypatch, {"base.py": _BASE, "trainer.py": _sub(hooks=hooks)})
    assert ("trainer.py", 14, "LRD001") in got


def test_a_step_before_the_update_in_the_batch_hook_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    batch = "self.scheduler.step()\n        self.optimizer.step()"
    got = check_project(tmp_path, monkeypatch, {
        "base.py": _BASE, "trainer.py": _sub(hooks="", batch=batch)})
    assert ("trainer.py", 16, "LRD001") in got


def test_an_epoch_schedule_stepped_in_the_batch_hook_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # milestones in epochs, stepped by the hook the template calls once per batch
    build = "torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=[30, 60])"
    batch = "self.optimizer.step()\n        self.scheduler.step()"
    got = check_project(tmp_path, monkeypatch, {
        "base.py": _BASE, "trainer.py": _sub(build=build, hooks="", batch=batch)})
    assert ("trainer.py", 17, "LRD002") in got


def test_a_hook_the_base_overrides_away_is_still_traced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the subclass replaces the template's `run_epoch()` with its own loop that never calls
    # `after_epoch()`, but steps the scheduler before the loop itself: still reported
    sub = _sub(hooks="""
    def run_epoch(self, loader):
        self.scheduler.step()
        for batch in loader:
            self.train_batch(batch)
""")
    got = check_project(tmp_path, monkeypatch, {"base.py": _BASE, "trainer.py": sub})
    assert "LRD001" in project_codes(got)
