"""Notebook shapes met in the fresh-2026-12y batch of the real-code benchmark (training
notebooks: course and book chapters, Kaggle solution notebooks). Each notebook is built here
cell by cell, in our own words, next to a control that must still be reported.

- A trainer keeps a flag that says whether its scheduler steps per batch, set from a class
  test on the scheduler it is given (``if isinstance(sched, (CyclicLR, OneCycleLR)):
  self.per_batch = True``, or ``self.per_batch = isinstance(...)``), often under a sanity
  check of its own (``if sched.optimizer is self.optimizer:``); the batch loop steps when the
  flag is set, the epoch loop when it is not. For a scheduler of known class the flag is known,
  so only one of the two steps ever runs for it.
- Methods written in later cells and attached to the class with ``setattr(Cls, "name", fn)``
  (or ``Cls.name = fn``): instances run them from then on.
- One helper that steps the scheduler it is given in a loop of its own, called once per
  scheduler (to plot each schedule): the schedulers take turns on the optimizer, one whole
  run each, and never step it in the same loop."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

CODES = frozenset(CATALOG)


def notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *cells: str,
             name: str = "course.ipynb") -> str:
    """Write the cells (a markdown cell between each two) as a notebook; its path."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    out = []
    for i, cell in enumerate(cells):
        if i:
            out.append({"cell_type": "markdown", "metadata": {},
                        "source": [f"Step {i}: what comes next\n"]})
        out.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                    "source": textwrap.dedent(cell).strip("\n").splitlines(True)})
    data = {"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / name).write_text(json.dumps(data, indent=1))
    return name


def found(*paths: str) -> list[tuple[str, int | None, int, str]]:
    report = check_files(list(paths), CODES, jobs=1)
    assert report.errors == []
    return [(d.path, d.cell, d.line, d.code) for d in report.diagnostics]


IMPORTS = """
import torch
from torch import nn, optim
from torch.optim.lr_scheduler import CyclicLR, OneCycleLR, StepLR
"""

RUNNER = """
class Runner:
    def __init__(self, net, opt):
        self.net = net
        self.opt = opt
        self.sched = None
        self.per_batch = False

    def fit(self, batches, epochs):
        for epoch in range(epochs):
            for x, y in batches:
                loss = nn.functional.mse_loss(self.net(x), y)
                loss.backward()
                self.opt.step()
                self.opt.zero_grad()
                if self.sched is not None:
                    if self.per_batch:
                        self.sched.step()
            if self.sched is not None and not self.per_batch:
                self.sched.step()
"""

# the flag, set where the trainer is given its scheduler: a method of the class, or one
# written in a later cell and attached to it
ATTACH_IF = """
def attach(self, sched):
    if sched.optimizer is self.opt:
        self.sched = sched
        if isinstance(sched, {classes}):
            self.per_batch = True
        else:
            self.per_batch = False
"""

ATTACH_ASSIGN = """
def attach(self, sched):
    self.sched = sched
    self.per_batch = isinstance(sched, {classes})
"""


def with_attach(attach: str, classes: str, where: str) -> tuple[str, str]:
    """The trainer's cell and the cell after it, with ``attach`` in the class or attached."""
    method = textwrap.dedent(attach).format(classes=classes)
    if where == "class":
        return RUNNER + textwrap.indent(method, "    "), "runner_cls = Runner"
    return RUNNER, method + '\nsetattr(Runner, "attach", attach)\n'


SPELLINGS = [pytest.param(a, w, id=f"{name}-{w}")
             for name, a in (("if", ATTACH_IF), ("assign", ATTACH_ASSIGN))
             for w in ("class", "setattr")]

RUN_CYCLIC = """
net = nn.Linear(3, 1)
data = torch.utils.data.TensorDataset(torch.randn(160, 3), torch.randn(160, 1))
batches = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)
opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
runner = Runner(net, opt)
runner.attach(CyclicLR(opt, base_lr=1e-3, max_lr=1e-2, step_size_up=len(batches)))
runner.fit(batches, 6)
"""

RUN_STEP = """
net = nn.Linear(3, 1)
data = torch.utils.data.TensorDataset(torch.randn(160, 3), torch.randn(160, 1))
batches = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)
opt = optim.SGD(net.parameters(), lr=0.1)
runner = Runner(net, opt)
runner.attach(StepLR(opt, step_size=2, gamma=0.5))
runner.fit(batches, 6)
"""

BATCH_CLASSES = "(CyclicLR, OneCycleLR)"


@pytest.mark.parametrize(("attach", "where"), SPELLINGS)
def test_batch_scheduler_behind_a_flag_set_from_its_class_is_not_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attach: str, where: str) -> None:
    path = notebook(tmp_path, monkeypatch, IMPORTS,
                    *with_attach(attach, BATCH_CLASSES, where), RUN_CYCLIC)
    assert found(path) == []


@pytest.mark.parametrize(("attach", "where"), SPELLINGS)
def test_epoch_scheduler_behind_the_same_flag_is_not_lrd002(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attach: str, where: str) -> None:
    path = notebook(tmp_path, monkeypatch, IMPORTS,
                    *with_attach(attach, BATCH_CLASSES, where), RUN_STEP)
    assert found(path) == []


@pytest.mark.parametrize(("attach", "where"), SPELLINGS)
def test_control_a_flag_that_names_the_wrong_classes_still_gets_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, attach: str, where: str) -> None:
    # the class test leaves CyclicLR out: the flag stays off and it steps once per epoch
    path = notebook(tmp_path, monkeypatch, IMPORTS,
                    *with_attach(attach, "StepLR", where), RUN_CYCLIC)
    assert found(path) == [(path, 3, 19, "LRD003")]


def test_control_a_flag_set_by_a_setting_is_not_decided(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `per_batch` comes from the caller, not from the scheduler's class: both steps may run
    attach = """
    def attach(self, sched, per_batch):
        self.sched = sched
        self.per_batch = per_batch

    setattr(Runner, "attach", attach)
    """
    run = RUN_CYCLIC.replace("len(batches)))", "len(batches)), False)")
    path = notebook(tmp_path, monkeypatch, IMPORTS, RUNNER, attach, run)
    assert found(path) == [(path, 3, 19, "LRD003")]


# methods of the trainer written in later cells (the book's way of growing a class)
HOOKED_RUNNER = """
class Runner:
    def __init__(self, net, opt):
        self.net = net
        self.opt = opt
        self.sched = None

    def fit(self, batches, epochs):
        for epoch in range(epochs):
            for x, y in batches:
                loss = nn.functional.mse_loss(self.net(x), y)
                loss.backward()
                self.opt.step()
                self.opt.zero_grad()
                self.after_batch()
            self.after_epoch()

    def after_batch(self):
        pass

    def after_epoch(self):
        pass
"""

HOOKS = """
def set_scheduler(self, sched):
    self.sched = sched

def {hook}(self):
    if self.sched is not None:
        self.sched.step()

setattr(Runner, "set_scheduler", set_scheduler)
setattr(Runner, "{hook}", {hook})
"""

RUN_HOOKED = """
net = nn.Linear(3, 1)
data = torch.utils.data.TensorDataset(torch.randn(160, 3), torch.randn(160, 1))
batches = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)
opt = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
runner = Runner(net, opt)
runner.set_scheduler({sched})
runner.fit(batches, 6)
"""

CYCLIC = "CyclicLR(opt, base_lr=1e-3, max_lr=1e-2, step_size_up=len(batches))"


def test_method_attached_in_a_later_cell_steps_where_the_loop_calls_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = notebook(tmp_path, monkeypatch, IMPORTS, HOOKED_RUNNER,
                    HOOKS.format(hook="after_batch"), RUN_HOOKED.format(sched=CYCLIC))
    assert found(path) == []


def test_control_method_attached_in_a_later_cell_stepping_per_epoch_gets_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # before, the class's own empty hook hid the step: now the attached one is what runs
    path = notebook(tmp_path, monkeypatch, IMPORTS, HOOKED_RUNNER,
                    HOOKS.format(hook="after_epoch"), RUN_HOOKED.format(sched=CYCLIC))
    assert found(path) == [(path, 5, 6, "LRD003")]


def test_control_method_attached_by_assignment_is_followed_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = HOOKS.format(hook="after_epoch").replace(
        'setattr(Runner, "after_epoch", after_epoch)', "Runner.after_epoch = after_epoch")
    path = notebook(tmp_path, monkeypatch, IMPORTS, HOOKED_RUNNER, hooks,
                    RUN_HOOKED.format(sched=CYCLIC))
    assert found(path) == [(path, 5, 6, "LRD003")]


def test_class_redefined_in_a_later_cell_drops_what_was_attached_to_the_old_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the per-epoch hook went onto the first Runner; the cell that trains defines Runner anew
    path = notebook(tmp_path, monkeypatch, IMPORTS, HOOKED_RUNNER,
                    HOOKS.format(hook="after_epoch"),
                    HOOKED_RUNNER + RUN_HOOKED.format(sched=CYCLIC).replace(
                        "runner.set_scheduler(", "runner.sched = ("))
    assert found(path) == []


# each schedule drawn by one helper, one scheduler at a time, on a throwaway optimizer
PLOT_HELPER = """
def lr_curve(opt, sched, steps=12):
    seen = []
    for _ in range(steps):
        seen.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return seen
"""

PLOT_EACH = """
param = nn.Parameter(torch.zeros(1))
opt = optim.SGD([param], lr=0.01)
first = CyclicLR(opt, base_lr=1e-4, max_lr=1e-3, step_size_up=2, mode="triangular")
second = CyclicLR(opt, base_lr=1e-4, max_lr=1e-3, step_size_up=2, mode="triangular2")
{calls}
"""


@pytest.mark.parametrize("calls", [
    pytest.param("curves = [lr_curve(opt, s) for s in (first, second)]", id="comprehension"),
    pytest.param("a = lr_curve(opt, first)\nb = lr_curve(opt, second)", id="two-calls"),
])
def test_one_helper_run_once_per_scheduler_is_not_lrd012(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, calls: str) -> None:
    path = notebook(tmp_path, monkeypatch, IMPORTS, PLOT_HELPER, PLOT_EACH.format(calls=calls))
    assert found(path) == []


def test_two_loops_one_after_the_other_hand_over_the_optimizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = """
    param = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([param], lr=0.01)
    warm = CyclicLR(opt, base_lr=1e-4, max_lr=1e-3, step_size_up=5)
    for _ in range(10):
        opt.step()
        warm.step()
    decay = StepLR(opt, step_size=5)
    for _ in range(30):
        opt.step()
        decay.step()
    """
    path = notebook(tmp_path, monkeypatch, IMPORTS, run)
    assert found(path) == []


def test_control_the_helper_run_for_both_inside_one_loop_still_gets_lrd012(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every round steps both schedulers in turn: the CyclicLR erases what the other did
    calls = "for _ in range(5):\n    lr_curve(opt, first, 1)\n    lr_curve(opt, second, 1)"
    path = notebook(tmp_path, monkeypatch, IMPORTS, PLOT_HELPER, PLOT_EACH.format(calls=calls))
    assert [code for *_, code in found(path)] == ["LRD012"]


def test_control_two_schedulers_stepped_in_one_loop_still_get_lrd012(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = """
    param = nn.Parameter(torch.zeros(1))
    opt = optim.SGD([param], lr=0.01)
    cyc = CyclicLR(opt, base_lr=1e-4, max_lr=1e-3, step_size_up=5)
    decay = StepLR(opt, step_size=5)
    for _ in range(30):
        opt.step()
        cyc.step()
        decay.step()
    """
    path = notebook(tmp_path, monkeypatch, IMPORTS, run)
    assert [code for *_, code in found(path)] == ["LRD012"]
