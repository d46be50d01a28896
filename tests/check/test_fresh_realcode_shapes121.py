"""Shapes seen in the fresh-2026-12zzt119 batch (rcnew119, bench/realcode/README.md): layered
and hand-made learning-rate control (warm-up wrappers around a torch scheduler, manual
warm-ups writing ``param_group["lr"]`` beside one, schedulers chosen by flags).

Programs written for these tests; no third-party code.

Two false alarms of the batch, fixed:

- LRD007 on a resume that restores a project warm-up wrapper (the vendored
  GradualWarmupScheduler: a subclass of torch's scheduler base holding the cosine it hands
  over to in ``self.after_scheduler``) with ``wrapper.load_state_dict(...)``. The class
  defines no ``load_state_dict``: torch's runs, ``self.__dict__.update(state)``, and the
  ``state_dict()`` it pairs with holds every attribute but the optimizer, the wrapped
  scheduler with its step count included. The tracer emitted nothing for a method the
  project class inherits from torch, so the wrapped cosine read as never restored. Such a
  restore now restores every scheduler the instance holds; a wrapper whose own
  ``load_state_dict``/``state_dict`` leave the wrapped scheduler out is traced as written.
- LRD001 on ``scheduler.step()`` run once before training in the ``else`` of ``if
  opt.warmup:`` where the parser says ``add_argument("--warmup", action="store_true",
  default=True)``: no command line turns that flag off, so the branch never runs. A step on
  a branch a store_true flag with ``default=True`` (or a store_false one with
  ``default=False``) rules out, in the module that tests it or a project module it imports,
  is no longer reported; a flag the module assigns, a plain ``default=False`` store_true and
  a ``type=bool`` option (an empty string turns it off) still are.

Probing the families in our own words (about 45 programs under /tmp/rcnew119/fam: manual
warm-ups beside StepLR, MultiStepLR, cosine, LambdaLR and ReduceLROnPlateau, an
``adjust_learning_rate`` beside a scheduler or instead of one, LinearLR/LambdaLR warm-ups
beside an epoch scheduler, SequentialLR and ChainedScheduler stepped per epoch or per batch,
stages that rebuild the optimizer with or without the scheduler, a scheduler stepped at two
loop levels, OneCycleLR beside a plateau, project GradualWarmup wrappers stepped per batch or
per epoch, pytorch_warmup's dampening, timm's step_update): three more shapes, fixed.

- LRD008 on ``adjust_learning_rate(...)`` under ``if args.manual:`` while the scheduler is
  ``None if args.manual else CosineAnnealingLR(...)``: the scheduler exists only on the arm
  the write's test rules out. A scheduler picked by a conditional expression now carries
  what its test says (as a branch's fact), and a write on the contradicting branch of the
  same flag competes with nothing (the ``if``/``else`` statement spelling already worked).
- LRD008 on a warm-up written on the batches of the first epoch only (``if epoch == 0:``)
  beside a MultiStepLR whose first milestone is 2 or more: the hand-over the rule already
  allowed for ``if step < warmup:`` windows; a test that the epoch counter equals the first
  value its loop gives it is such a window too (``if epoch == 1:`` is not; a milestone at 1
  still competes).
- Missed LRD008: a warm-up formula written on every batch, under no test, beside a
  LambdaLR (OneCycleLR, CyclicLR, CosineAnnealingWarmRestarts) stepped on every batch of the
  same loop: the rule took only chainable schedulers as drivers (a recomputing scheduler
  overwrites a value written once), but a write on every pass replaces each value the
  schedule sets before the optimizer uses it. A write under a window (``if it < warmup:``)
  or of the schedule's own value rescaled (``sched.get_last_lr()[0] * g["scale"]``) is
  still silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

WRAPPER = '''
from torch.optim.lr_scheduler import _LRScheduler


class WarmupThen(_LRScheduler):
    """Linear warm-up over `total` steps, then the scheduler it was given."""

    def __init__(self, optimizer, total, after=None):
        self.total = total
        self.after = after
        self.done = False
        super().__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.total and self.after is not None:
            if not self.done:
                self.after.base_lrs = list(self.base_lrs)
                self.done = True
            return self.after.get_last_lr()
        return [b * min(1.0, self.last_epoch / self.total) for b in self.base_lrs]

    def step(self, epoch=None):
        if self.done and self.after is not None:
            self.after.step()
        else:
            super().step()
'''

WRAPPER_OWN_STATE = WRAPPER + '''
    def state_dict(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "after")}

    def load_state_dict(self, state):
        self.__dict__.update(state)
'''

RESUME_DIRECT = '''
import torch
from torch import nn
from torch.optim import lr_scheduler

from sched_lib import WarmupThen


def train(model, loader, epochs, path, resume):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    cosine = lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    scheduler = WarmupThen(optimizer, total=3, after=cosine)
    start = 0
    if resume:
        ckpt = torch.load(path)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        RESTORE
        start = ckpt["epoch"]
    for epoch in range(start, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}, path)
'''


def _resume(restore: str) -> str:
    return RESUME_DIRECT.replace("RESTORE", restore)


def test_inherited_load_state_dict_of_a_warmup_wrapper_restores_what_it_wraps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER,
        "train.py": _resume('scheduler.load_state_dict(ckpt["scheduler"])'),
    })
    assert "LRD007" not in project_codes(found)


def test_a_wrapper_that_leaves_the_wrapped_scheduler_out_of_its_state_restores_nothing_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER_OWN_STATE,
        "train.py": _resume('scheduler.load_state_dict(ckpt["scheduler"])'),
    })
    assert "LRD007" in project_codes(found)


def test_a_resume_that_never_restores_the_wrapper_still_loses_the_cosine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER,
        "train.py": _resume("pass"),
    })
    assert "LRD007" in project_codes(found)


HELPERS = '''
import torch


def save_state(epoch, model, optimizer, scheduler, path):
    torch.save({"epoch": epoch, "model": model.state_dict(),
                "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict()}, path)


def load_state(path, model, optimizer=None, scheduler=None):
    state = torch.load(path, map_location="cpu")
    model.load_state_dict(state["model"])
    if optimizer is not None:
        optimizer.load_state_dict(state["optimizer"])
    if scheduler is not None:
        scheduler.load_state_dict(state["scheduler"])
    return state["epoch"]
'''

CHOSEN_BY_FLAGS = '''
from torch import nn
from torch.optim import Adam, lr_scheduler

import helpers
from sched_lib import WarmupThen


class Runner:
    def __init__(self, cfg, model, loader):
        self.cfg = cfg
        self.model = model
        self.loader = loader

    def fit(self):
        optimizer = Adam(self.model.parameters(), lr=self.cfg["lr"])
        scheduler = lr_scheduler.StepLR(optimizer, step_size=self.cfg["step"], gamma=0.5)
        if self.cfg.get("cosine", False):
            scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.cfg["epochs"])
        if self.cfg.get("warmup", False):
            scheduler = WarmupThen(optimizer, total=self.cfg["epochs"] // 10, after=scheduler)
        first = 1
        if self.cfg.get("resume_from"):
            first = helpers.load_state(self.cfg["resume_from"], self.model, optimizer, scheduler)
        for epoch in range(first, self.cfg["epochs"] + 1):
            for x, y in self.loader:
                optimizer.zero_grad()
                nn.functional.mse_loss(self.model(x), y).backward()
                optimizer.step()
            scheduler.step()
        helpers.save_state(epoch, self.model, optimizer, scheduler, "last.pt")
'''


def test_a_wrapper_chosen_by_a_flag_and_restored_by_a_helper(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER, "helpers.py": HELPERS, "train.py": CHOSEN_BY_FLAGS,
    })
    assert "LRD007" not in project_codes(found)


def test_the_same_helper_handed_no_scheduler_still_loses_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = CHOSEN_BY_FLAGS.replace(
        'helpers.load_state(self.cfg["resume_from"], self.model, optimizer, scheduler)',
        'helpers.load_state(self.cfg["resume_from"], self.model, optimizer)')
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER, "helpers.py": HELPERS, "train.py": source,
    })
    assert "LRD007" in project_codes(found)


PRESTEP = '''
import argparse

import torch
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR

from sched_lib import WarmupThen

PARSER

model = nn.Linear(8, 1)
loader = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(10)]
optimizer = optim.AdamW(model.parameters(), lr=2e-4)
if opt.warmup:
    cosine = optim.lr_scheduler.CosineAnnealingLR(optimizer, opt.nepoch - 3)
    scheduler = WarmupThen(optimizer, total=3, after=cosine)
    scheduler.step()
else:
    scheduler = StepLR(optimizer, step_size=50, gamma=0.5)
    scheduler.step()
for epoch in range(1, opt.nepoch + 1):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
'''

STORE_TRUE_ON = '''parser = argparse.ArgumentParser()
parser.add_argument("--nepoch", type=int, default=300)
parser.add_argument("--warmup", action="store_true", default=True)
opt = parser.parse_args()'''


def _prestep(parser: str) -> str:
    return PRESTEP.replace("PARSER", parser)


def _lines(found: list[tuple[str, int, str]], code: str) -> list[int]:
    return [line for path, line, c in found if c == code and path == "train.py"]


def test_a_pre_step_on_the_branch_a_store_true_flag_defaulting_to_true_rules_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER, "train.py": _prestep(STORE_TRUE_ON),
    })
    assert _lines(found, "LRD001") == []


def test_the_same_flag_defined_in_an_imported_options_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    options = '''
    import argparse


    class Options:
        def init(self, parser):
            parser.add_argument("--nepoch", type=int, default=300)
            parser.add_argument("--warmup", action="store_true", default=True)
            return parser
    '''
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER, "options.py": options,
        "train.py": _prestep("import options\nopt = options.Options().init("
                             "argparse.ArgumentParser()).parse_args()"),
    })
    assert _lines(found, "LRD001") == []


@pytest.mark.parametrize("parser", [
    # a plain switch, off by default: the StepLR branch is the default run
    STORE_TRUE_ON.replace('action="store_true", default=True', 'action="store_true"'),
    # type=bool: `--warmup ""` turns it off
    STORE_TRUE_ON.replace('action="store_true", default=True', "type=bool, default=True"),
    # the script turns it off itself
    STORE_TRUE_ON + "\nif opt.nepoch < 10:\n    opt.warmup = False",
])
def test_a_pre_step_on_a_branch_some_run_takes_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parser: str) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "sched_lib.py": WRAPPER, "train.py": _prestep(parser),
    })
    assert len(_lines(found, "LRD001")) == 1


def test_store_false_defaulting_to_false_rules_out_its_if_branch() -> None:
    source = '''
import argparse

import torch
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR

parser = argparse.ArgumentParser()
parser.add_argument("--keep-step", dest="keep_step", action="store_false", default=False)
opt = parser.parse_args()
model = nn.Linear(8, 1)
optimizer = optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
if opt.keep_step:
    scheduler.step()
for epoch in range(90):
    for _ in range(10):
        optimizer.zero_grad()
        model(torch.randn(4, 8)).sum().backward()
        optimizer.step()
    scheduler.step()
'''
    assert "LRD001" not in codes(source)
    assert "LRD001" in codes(source.replace('action="store_false", default=False',
                                            'action="store_false"'))


MANUAL_OR_SCHEDULER = '''
import argparse

import torch
from torch import nn
from torch.optim import lr_scheduler

parser = argparse.ArgumentParser()
parser.add_argument("--manual", action="store_true")
parser.add_argument("--no-sched", dest="no_sched", action="store_true")
args = parser.parse_args()


def adjust_learning_rate(optimizer, epoch, base=0.1):
    for group in optimizer.param_groups:
        group["lr"] = base * (0.1 ** (epoch // 30))


model = nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sched = None if PICK else lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)
for epoch in range(90):
    if WRITE:
        adjust_learning_rate(optimizer, epoch)
    for _ in range(20):
        optimizer.zero_grad()
        model(torch.randn(4, 8)).sum().backward()
        optimizer.step()
    if sched is not None:
        sched.step()
'''


def _manual(pick: str, write: str) -> str:
    return MANUAL_OR_SCHEDULER.replace("PICK", pick).replace("WRITE", write)


def test_a_manual_schedule_on_the_arm_that_builds_no_scheduler() -> None:
    assert "LRD008" not in codes(_manual("args.manual", "args.manual"))


@pytest.mark.parametrize("pick,write", [
    ("args.manual", "not args.manual"),  # the write runs exactly when the scheduler exists
    ("args.no_sched", "args.manual"),  # two flags: both can be set the other way
])
def test_a_manual_schedule_the_scheduler_can_run_beside(pick: str, write: str) -> None:
    assert "LRD008" in codes(_manual(pick, write))


FIRST_EPOCH_WARMUP = '''
import torch
from torch import nn
from torch.optim import lr_scheduler

model = nn.Linear(8, 1)
loader = [torch.randn(4, 8) for _ in range(50)]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sched = lr_scheduler.MultiStepLR(optimizer, milestones=MILESTONES, gamma=0.1)
for epoch in range(START, 90):
    for i, x in enumerate(loader):
        if epoch == WHEN:
            for group in optimizer.param_groups:
                group["lr"] = 0.1 * (i + 1) / len(loader)
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    sched.step()
'''


def _first_epoch(milestones: str = "[30, 60]", start: str = "0", when: str = "0") -> str:
    return FIRST_EPOCH_WARMUP.replace("MILESTONES", milestones).replace(
        "START", start).replace("WHEN", when)


@pytest.mark.parametrize("start,when", [("0", "0"), ("1", "1")])
def test_a_warm_up_on_the_first_epoch_hands_over_to_a_later_milestone(start: str,
                                                                      when: str) -> None:
    assert "LRD008" not in codes(_first_epoch(start=start, when=when))


@pytest.mark.parametrize("source", [
    _first_epoch(when="1"),  # not the first pass: the schedule has stepped already
    _first_epoch(milestones="[1, 60]"),  # the first step drops the LR under the warm-up
])
def test_a_write_past_the_first_pass_or_before_an_early_drop_competes(source: str) -> None:
    assert "LRD008" in codes(source)


EVERY_BATCH = '''
import torch
from torch import nn
from torch.optim import lr_scheduler

model = nn.Linear(8, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = lr_scheduler.LambdaLR(optimizer, lambda s: 0.5 ** (s // 1000))
it = 0
for epoch in range(20):
    for _ in range(100):
WRITE
        it += 1
        optimizer.zero_grad()
        model(torch.randn(4, 8)).sum().backward()
        optimizer.step()
        sched.step()
'''


def _every_batch(write: str) -> str:
    return EVERY_BATCH.replace("WRITE", write)


def test_a_warm_up_formula_written_on_every_batch_beside_a_per_batch_lambda() -> None:
    source = _every_batch(
        "        for group in optimizer.param_groups:\n"
        "            group[\"lr\"] = 1e-3 * min(1.0, (it + 1) / 200)")
    assert "LRD008" in codes(source)


@pytest.mark.parametrize("write", [
    # a window: the schedule takes over once it closes
    "        if it < 200:\n"
    "            for group in optimizer.param_groups:\n"
    "                group[\"lr\"] = 1e-3 * (it + 1) / 200",
    # the schedule's own value, rescaled per group
    "        for group in optimizer.param_groups:\n"
    "            group[\"lr\"] = sched.get_last_lr()[0] * group.get(\"scale\", 1.0)",
])
def test_a_windowed_or_derived_write_beside_a_per_batch_lambda(write: str) -> None:
    assert "LRD008" not in codes(_every_batch(write))
