"""fphunt53: false alarms of unseen real code (speaker-verification trainers of the
voxceleb_trainer lineage, OneCycle / cyclic-LR experiments, Kaggle solutions), each fixed by
semantics. Every false shape, written here in our own words, must be silent; a buggy twin
must still be reported.

1. LRD003, ``StepLR(opt, step_size=eval_step)`` in a trainer class whose constructor takes
   ``eval_step: int = 1`` and whose caller (another module) fills it with
   ``args.eval_every`` (an argparse ``default=1``), stepped once per epoch. StepLR's
   ``step_size`` counts calls of ``step()``; the word "step" in the parameter's name only
   echoes that, and no other word of it names a unit. lrdoctor read the word as "counted in
   batches" and reported the per-epoch step. What the file states for the value, in every
   call of the class (an argument written as a small number, or a setting stated as one, or
   the default) is a small literal: a decay every batch or two would be no schedule at all,
   so it is read as that literal, as ``StepLR(step_size=opt.lr_dc_step)`` with
   ``--lr_dc_step 3`` already was. A call that fills it with a count of batches
   (``2 * len(loader)``) keeps the finding.

2. LRD003, a per-batch-by-design schedule (OneCycleLR, a transformers warm-up) whose length
   a setting picks, and whose stepping site the same setting picks: ``total_steps =
   epochs * len(loader) if per_step else epochs`` (or ``steps_per_epoch = len(loader) if
   per_step else 1``), stepped after each update under ``if per_step:`` and once per epoch
   under ``if not per_step:``. On the branch that steps it per epoch the horizon counts
   epochs. lrdoctor fell back to "counted in batches by design" when the horizon's unit was
   not one unit, and reported the per-epoch step. A horizon whose unit a setting picks is of
   no one unit (as it already was for CosineAnnealingLR's ``T_max``); a test whose both arms
   count batches keeps the finding.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# -- 1. StepLR(step_size=<qualifier>_step) filled with a small stated literal ------------------

_TRAINER = """
import torch
from torch import nn


class Fitter:
    def __init__(self, net, batches, lr: float = 1e-3, eval_step: int = 1, kind: str = "step"):
        self.net = net
        self.batches = batches
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        if kind == "step":
            self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=eval_step, gamma=0.97)
        elif kind == "cycle":
            self.sched = torch.optim.lr_scheduler.CyclicLR(
                self.opt, base_lr=1e-6, max_lr=1e-3, step_size_up=3000, cycle_momentum=False)

    def one_pass(self):
        for x, y in self.batches:
            self.opt.zero_grad()
            nn.functional.mse_loss(self.net(x), y).backward()
            self.opt.step()
            if self.sched.__class__.__name__ != "StepLR":
                self.sched.step()
        if self.sched.__class__.__name__ == "StepLR":
            self.sched.step()
"""

# {filled}: what the driver hands the constructor's `eval_step`
_DRIVER = """
import argparse
from fitter import Fitter

parser = argparse.ArgumentParser()
parser.add_argument("--passes", type=int, default=80)
parser.add_argument("--eval_every", type=int, default=1)
parser.add_argument("--sched", default="step")
args = parser.parse_args()


def run(net, batches, evaluate):
    f = Fitter(net, batches, eval_step={filled}, kind=args.sched)
    for epoch in range(1, args.passes + 1):
        f.one_pass()
        if epoch % args.eval_every == 0:
            evaluate(net)
"""


def _stepped_per_epoch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filled: str) -> list[str]:
    files = {"fitter.py": _TRAINER, "driver.py": _DRIVER.replace("{filled}", filled)}
    return project_codes(check_project(tmp_path, monkeypatch, files))


def test_step_size_filled_with_a_small_stated_setting_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD003" not in _stepped_per_epoch(tmp_path, monkeypatch, "args.eval_every")


def test_step_size_filled_with_a_small_literal_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD003" not in _stepped_per_epoch(tmp_path, monkeypatch, "2")


def test_step_size_left_to_its_small_default_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = _DRIVER.replace("eval_step={filled}, ", "")
    files = {"fitter.py": _TRAINER, "driver.py": driver}
    assert "LRD003" not in project_codes(check_project(tmp_path, monkeypatch, files))


def test_step_size_filled_with_batches_stepped_per_epoch_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD003" in _stepped_per_epoch(tmp_path, monkeypatch, "2 * len(batches)")


def test_step_size_filled_with_a_large_stated_setting_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = _DRIVER.replace("{filled}", "args.decay_every").replace(
        'parser.add_argument("--sched", default="step")',
        'parser.add_argument("--sched", default="step")\nparser.add_argument("--decay_every", type=int, default=4000)')
    files = {"fitter.py": _TRAINER, "driver.py": driver}
    assert "LRD003" in project_codes(check_project(tmp_path, monkeypatch, files))


def test_step_size_filled_by_one_unknown_call_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = _DRIVER.replace("{filled}", "args.eval_every") + """

def again(net, batches, n):
    return Fitter(net, batches, eval_step=n)
"""
    files = {"fitter.py": _TRAINER, "driver.py": driver}
    assert "LRD003" in project_codes(check_project(tmp_path, monkeypatch, files))


# -- 2. a per-batch-by-design schedule whose length and stepping site a setting picks ---------

_PICKED = """
import torch
from torch import nn
from transformers import get_linear_schedule_with_warmup


def fit(net, batches, opts):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    {build}
    for epoch in range(opts.epochs):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            if opts.per_step:
                sched.step()
        if not opts.per_step:
            sched.step()
"""

_ONECYCLE_TOTAL = """length = opts.epochs * len(batches) if opts.per_step else opts.epochs
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=length)"""
_ONECYCLE_PER_EPOCH = """per_epoch = len(batches) if opts.per_step else 1
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=opts.epochs,
                                                steps_per_epoch=per_epoch)"""
_WARMUP = """length = opts.epochs * len(batches) if opts.per_step else opts.epochs
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=0, num_training_steps=length)"""


def _picked(build: str) -> list[str]:
    return codes(_PICKED.replace("{build}", build))


def test_onecycle_total_picked_by_the_stepping_setting_is_silent() -> None:
    assert "LRD003" not in _picked(_ONECYCLE_TOTAL)


def test_onecycle_steps_per_epoch_one_on_the_per_epoch_setting_is_silent() -> None:
    assert "LRD003" not in _picked(_ONECYCLE_PER_EPOCH)


def test_warmup_length_picked_by_the_stepping_setting_is_silent() -> None:
    assert "LRD003" not in _picked(_WARMUP)


def test_onecycle_total_in_batches_on_both_branches_is_still_lrd003() -> None:
    both = _ONECYCLE_TOTAL.replace("else opts.epochs", "else 2 * opts.epochs * len(batches)")
    assert "LRD003" in _picked(both)


def test_onecycle_steps_per_epoch_in_batches_on_both_branches_is_still_lrd003() -> None:
    both = _ONECYCLE_PER_EPOCH.replace("else 1", "else len(batches) // 2")
    assert "LRD003" in _picked(both)


def test_warmup_length_in_batches_on_both_branches_is_still_lrd003() -> None:
    both = _WARMUP.replace("else opts.epochs", "else 2 * opts.epochs * len(batches)")
    assert "LRD003" in _picked(both)
