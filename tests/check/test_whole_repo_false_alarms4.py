"""Whole repositories nobody here wrote (fphunt12): a finding lost, and false alarms found,
each next to a control that must stay as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import helpers


def check_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  files: dict[str, str]) -> list[tuple[str, str]]:
    """(path, code) of every finding for a project made of ``files``."""
    return [(path, code) for path, _, code in helpers.check_project(tmp_path, monkeypatch, files)]


# -- a resume offered by a library's API, never used by the callers in view ----------------------
# A fine-tuning library: the base class builds the optimizer and, when handed a saved state,
# restores it (and the weights); each task's `train` then builds a fresh warm-up schedule and
# runs the base class's loop. The library's own tests call `train` without a saved state, so
# their traces never enter the resume branch: what it does is for the users who pass one.

_LEARNER = """
import torch
from transformers import get_linear_schedule_with_warmup


class Learner:
    def __init__(self, net):
        self.net = net

    @staticmethod
    def warm_schedule(opt, warm, total):
        return get_linear_schedule_with_warmup(opt, num_warmup_steps=warm,
                                               num_training_steps=total)

    def setup(self, lr, resume_state=None):
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=lr)
        if resume_state:
            self.opt.load_state_dict(resume_state["opt"])
            self.net.load_state_dict(resume_state["net"])

    def run_steps(self, batches, total, opt=None, sched=None):
        done = 0
        while done < total:
            for x, y in batches:
                torch.nn.functional.cross_entropy(self.net(x), y).backward()
                opt.step()
                sched.step()
                opt.zero_grad()
                done += 1
"""

_TAGGER = """
from core.learner import Learner


class Tagger(Learner):
    def train(self, batches, lr=3e-5, warm=50, total=500, resume_state=None):
        self.setup(lr, resume_state=resume_state)
        sched = Learner.warm_schedule(self.opt, warm, total)
{restore}        super().run_steps(batches, total, opt=self.opt, sched=sched)
"""

_RESTORE = """        if resume_state:
            sched.load_state_dict(resume_state["sched"])
"""

_LIBRARY_TEST = """
from tasks.tagger import Tagger


def test_train_runs(net, batches):
    Tagger(net).train(batches, total={total})
"""


def _library(restore: bool, caller: str | None = "5") -> dict[str, str]:
    files = {"core/__init__.py": "", "core/learner.py": _LEARNER, "tasks/__init__.py": "",
             "tasks/tagger.py": _TAGGER.replace("{restore}", _RESTORE if restore else "")}
    if caller is not None:
        files["test_tagger.py"] = _LIBRARY_TEST.replace("{total}", caller)
    return files


def test_a_resume_the_callers_in_view_leave_out_is_still_judged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the test's trace enters `train` with its arguments but leaves `resume_state` at its
    # default: it never runs the branch that restores the optimizer, so it cannot stand in
    # for the task module's trace, which does (and builds a fresh schedule after it)
    found = check_project(tmp_path, monkeypatch, _library(restore=False))
    assert found == [("core/learner.py", "LRD007")]


def test_control_the_same_library_without_its_test_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _library(restore=False, caller=None))
    assert found == [("core/learner.py", "LRD007")]


def test_control_a_task_that_restores_its_schedule_on_resume_is_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the task module's trace runs the resume and restores the schedule; the base module's
    # own trace (the schedule known by name only) is left to it as before
    assert check_project(tmp_path / "a", monkeypatch, _library(restore=True)) == []
    assert check_project(tmp_path / "b", monkeypatch, _library(restore=True, caller=None)) == []
