"""Shapes seen in the fresh-2026-12zu94 batch (rcnew94, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- LRD017, an optimizer step that runs on all passes but one in a period. A sparse-training
  loop replaces every k-th update with a mask update (``if use_mask and (step + 1) % k == 0:
  mask.update() else: optimizer.step()``) and steps the scheduler every batch. lrdoctor read
  any test with a remainder around the optimizer step as gradient accumulation and reported
  the scheduler as stepped once per micro-batch. Python: the ``else`` of such a test holds on
  every pass off the period, so the optimizer steps on (k-1) of every k batches and the
  scheduler follows the updates; only the branch that holds once in a period (``== 0``,
  ``not i % k``, the ``else`` of ``!= 0``) makes an update every k batches.
- LRD007, a warm-up wrapper that forwards an epoch. The vendored GradualWarmupScheduler
  family steps its wrapped scheduler as ``after.step(None)`` when it was given no epoch and
  ``after.step(epoch - warm)`` when it was. lrdoctor took any argument to ``step`` as a
  position the scheduler is moved to (which a resume restores by itself) and stayed silent
  about a checkpoint without the scheduler. Python: ``step(None)`` is ``step()``, and the
  wrapper passes an epoch on only when its caller gives one; a training loop that calls the
  wrapper's plain ``step()`` names no position, and a resume loses the schedule. When the
  caller does pass the epoch (``scheduler.step(epoch + 1)``), the schedule is positioned, as
  before.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# -- LRD017: an update on all passes but one in a period ---------------------------------------

_SPARSE_LOOP = """
import torch


def fit(net, batches, n_epochs, every, prune, pruner):
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20000, gamma=0.1)
    it = 0
    for epoch in range(n_epochs):
        for inputs, targets in batches:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(inputs), targets).backward()
{update}
            sched.step()
            it += 1
"""


def _sparse(update: str) -> str:
    return _SPARSE_LOOP.replace("{update}", textwrap.indent(textwrap.dedent(update), " " * 12))


ALL_BUT_PERIODIC = {
    "else_of_and": """
        if prune and (it + 1) % every == 0:
            pruner.regrow()
        else:
            opt.step()
    """,
    "not_equal": """
        if it % every != 0:
            opt.step()
    """,
    "not_of_and": """
        if not (prune and it % every == 0):
            opt.step()
    """,
    "bare_remainder": """
        if (it + 1) % every:
            opt.step()
    """,
    "or_not_equal": """
        if not prune or (it + 1) % every != 0:
            opt.step()
    """,
}

ONCE_PER_PERIOD = {
    "equal": """
        if (it + 1) % every == 0:
            opt.step()
    """,
    "not_remainder": """
        if not (it + 1) % every:
            opt.step()
    """,
    "else_of_not_equal": """
        if (it + 1) % every != 0:
            pass
        else:
            opt.step()
    """,
    "and_equal": """
        if prune and (it + 1) % every == 0:
            opt.step()
    """,
}


@pytest.mark.parametrize("name", sorted(ALL_BUT_PERIODIC))
def test_update_on_all_passes_but_a_period_is_not_accumulation(name: str) -> None:
    assert "LRD017" not in codes(_sparse(ALL_BUT_PERIODIC[name]))


@pytest.mark.parametrize("name", sorted(ONCE_PER_PERIOD))
def test_update_once_per_period_is_accumulation(name: str) -> None:
    assert "LRD017" in codes(_sparse(ONCE_PER_PERIOD[name]))


def test_mask_wrapper_stepping_the_optimizer_off_the_period(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """The optimizer is stepped through a project wrapper (``stepper = masker if masker
    else opt``) on the ``else`` of the period test, in a module of its own."""
    masking = """
        class Masker:
            def __init__(self, opt):
                self.opt = opt

            def step(self):
                self.opt.step()

            def regrow(self):
                pass
    """
    driver = """
        import torch
        from masking import Masker


        def fit(net, batches, n_epochs, every, sparse):
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20000)
            masker = Masker(opt) if sparse else None
            it = 0
            for epoch in range(n_epochs):
                for inputs, targets in batches:
                    opt.zero_grad()
                    torch.nn.functional.cross_entropy(net(inputs), targets).backward()
                    stepper = masker if masker else opt
                    if masker and (it + 1) % every == 0:
                        masker.regrow()
                    else:
                        stepper.step()
                    sched.step()
                    it += 1
    """
    found = check_project(tmp_path, monkeypatch, {"masking.py": masking, "train.py": driver})
    assert "LRD017" not in project_codes(found)


# -- LRD007: a warm-up wrapper that forwards an epoch --------------------------------------------

_TRAINER = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class RampThen(_LRScheduler):
    def __init__(self, optimizer, ramp, then):
        self.ramp = ramp
        self.then = then
        self.handed_over = False
        super().__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.ramp:
            self.handed_over = True
            return self.then.get_last_lr()
        return [lr * self.last_epoch / self.ramp for lr in self.base_lrs]
{state}
    def step(self, epoch=None):
        if self.handed_over:
{forward}
        else:
            return super().step(epoch)


class Runner:
    def __init__(self, net, batches, opts):
        self.net = net
        self.batches = batches
        self.opts = opts
        self.opt = torch.optim.SGD(net.parameters(), lr=opts.lr, momentum=0.9)
        drops = torch.optim.lr_scheduler.MultiStepLR(self.opt, milestones=[60, 90])
        self.sched = RampThen(self.opt, 5, drops)

    def run(self):
        first = 0
        if self.opts.resume:
            state = torch.load(self.opts.resume)
            self.net.load_state_dict(state["net"])
            self.opt.load_state_dict(state["opt"])
{load}
            first = state["epoch"] + 1
        for epoch in range(first, self.opts.epochs):
            for inputs, targets in self.batches:
                self.opt.zero_grad()
                torch.nn.functional.cross_entropy(self.net(inputs), targets).backward()
                self.opt.step()
            self.sched.step({position})
            torch.save({{"net": self.net.state_dict(), "opt": self.opt.state_dict(),
                        {saved}"epoch": epoch}}, "latest.pt")
"""

FORWARDS = {
    "none_or_shifted": """
        if epoch is None:
            self.then.step(None)
        else:
            self.then.step(epoch - self.ramp)
    """,
    "keyword": """
        self.then.step(epoch=None if epoch is None else epoch - self.ramp)
    """,
    "shifted_or_none": """
        self.then.step(epoch - self.ramp if epoch is not None else None)
    """,
}

_NESTED_STATE = """
    def state_dict(self):
        kept = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "then")}
        kept["then"] = self.then.state_dict()
        return kept

    def load_state_dict(self, kept):
        inner = kept.pop("then")
        self.__dict__.update(kept)
        self.then.load_state_dict(inner)
"""


def _trainer(forward: str, position: str = "", saved: bool = False) -> str:
    return (_TRAINER
            .replace("{state}", _NESTED_STATE if saved else "")
            .replace("{forward}", textwrap.indent(textwrap.dedent(forward).strip("\n"),
                                                  " " * 12))
            .replace("{load}", " " * 12 + 'self.sched.load_state_dict(state["sched"])'
                     if saved else "")
            .replace("{position}", position)
            .replace("{{", "{").replace("}}", "}")
            .replace("{saved}", '"sched": self.sched.state_dict(), ' if saved else ""))


@pytest.mark.parametrize("name", sorted(FORWARDS))
def test_wrapper_forwarding_no_epoch_loses_the_schedule_on_resume(name: str) -> None:
    found = codes(_trainer(FORWARDS[name]))
    assert found.count("LRD007") == 2  # the save, and the resume


@pytest.mark.parametrize("name", sorted(FORWARDS))
def test_wrapper_given_the_epoch_by_its_caller_is_positioned(name: str) -> None:
    assert "LRD007" not in codes(_trainer(FORWARDS[name], position="epoch + 1"))


@pytest.mark.parametrize("name", sorted(FORWARDS))
def test_wrapper_whose_state_holds_the_wrapped_scheduler_is_saved(name: str) -> None:
    assert "LRD007" not in codes(_trainer(FORWARDS[name], saved=True))


STEP_NONE = """
import torch


def main(net, batches, opts):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    first = 0
    if opts.resume:
        state = torch.load(opts.resume)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        first = state["epoch"] + 1
    for epoch in range(first, opts.epochs):
        for inputs, targets in batches:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(inputs), targets).backward()
            opt.step()
        sched.step({position})
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                   "latest.pt")
"""


def test_step_with_a_none_epoch_names_no_position() -> None:
    assert codes(STEP_NONE.replace("{position}", "None")).count("LRD007") == 2


def test_step_with_the_epoch_names_the_position() -> None:
    assert "LRD007" not in codes(STEP_NONE.replace("{position}", "epoch + 1"))


def test_wrapper_reexported_by_a_package(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The trainer imports the wrapper through the package's ``__init__`` (``from tools
    import RampThen``), builds it in ``__init__`` and resumes in its training method."""
    wrapper = _trainer(FORWARDS["none_or_shifted"]).split("class Runner:")[0]
    runner = "import torch\nfrom tools import RampThen\n\n\nclass Runner:" + \
        _trainer(FORWARDS["none_or_shifted"]).split("class Runner:")[1]
    files = {"tools/__init__.py": "from .schedules import RampThen\n",
             "tools/schedules.py": wrapper, "runner.py": runner}
    found = check_project(tmp_path, monkeypatch, files)
    assert project_codes(found).count("LRD007") == 2
    assert {path for path, _, code in found if code == "LRD007"} == {"runner.py"}


# -- LRD002: milestones written as a repeated list --------------------------------------------

_MILESTONES = """
import torch


def main(net, train_loader, n_epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    per_epoch = len(train_loader)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones={milestones}, gamma=0.1)
    for epoch in range(n_epochs):
        for inputs, targets in train_loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(inputs), targets).backward()
            opt.step()
{batch_step}
{epoch_step}
"""


def _milestones(milestones: str, per_batch: bool = True) -> str:
    return (_MILESTONES.replace("{milestones}", milestones)
            .replace("{batch_step}", " " * 12 + "sched.step()" if per_batch else "")
            .replace("{epoch_step}", "" if per_batch else " " * 8 + "sched.step()"))


@pytest.mark.parametrize("milestones", [
    "[30, 60] * (1 + per_epoch)",
    "(1 + per_epoch) * [30, 60]",
    "[30, 60, 90] * per_epoch",
])
def test_repeated_list_keeps_its_epoch_sized_values(milestones: str) -> None:
    """``[30, 60] * n`` repeats the list: the milestones stay 30 and 60 (each counted n times,
    one more decay at the same step per repeat), stepped every batch."""
    assert "LRD002" in codes(_milestones(milestones))


@pytest.mark.parametrize("milestones", [
    "[m * per_epoch for m in (30, 60)]",
    "[30 * per_epoch, 60 * per_epoch]",
])
def test_milestones_scaled_to_batches_are_fine(milestones: str) -> None:
    assert "LRD002" not in codes(_milestones(milestones))


def test_repeated_list_stepped_per_epoch_is_no_lrd002() -> None:
    assert "LRD002" not in codes(_milestones("[30, 60] * (1 + per_epoch)", per_batch=False))
