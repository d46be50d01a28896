"""Known misses and loose ends of `lrdoctor check` on real code (issue 7, fixes5), each fixed
by what the code means, with a control that must still be reported (or stay silent).

Programs written for these tests; no third-party code."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import codes

CODES = frozenset(CATALOG)


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str],
            main: str = "train.py") -> list[str]:
    """Lays the files out as a project (a `.git` marks its root) and checks ``main``."""
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files([main], CODES, jobs=1)
    assert report.errors == []
    return [d.code for d in report.diagnostics]


# 1. A scheduler built at a position stands only for the builds it can stand for. A choice of
# schedules by a setting, one arm of which builds a cosine at `last_epoch=epochs - 1` (a
# fixed position, not the resumed one), leaves the step schedule of the other arm to restart
# on resume.

CHOICE_OF_SCHEDULES = """
    import torch


    def build(model, mode, epochs, resume_from):
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        first = 0
        if resume_from:
            saved = torch.load(resume_from)
            opt.load_state_dict(saved["opt"])
            first = saved["epoch"]
        if mode == "step":
            sched = torch.optim.lr_scheduler.StepLR(opt, 25, 0.1)
        elif mode == "cosine":
            sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs, last_epoch={pos})
        else:
            raise ValueError(mode)
        return opt, sched, first


    def run(model, batches, mode, epochs, resume_from):
        opt, sched, first = build(model, mode, epochs, resume_from)
        for epoch in range(first, epochs):
            for x in batches:
                opt.zero_grad()
                model(x).mean().backward()
                opt.step()
            sched.step()
"""


def test_a_cosine_at_a_fixed_position_does_not_excuse_the_step_schedule_of_another_arm() -> None:
    assert "LRD007" in codes(CHOICE_OF_SCHEDULES.format(pos="epochs - 1"))


def test_control_a_fresh_choice_of_schedules_is_reported() -> None:
    assert "LRD007" in codes(CHOICE_OF_SCHEDULES.format(pos="-1"))


def test_a_build_at_the_position_read_back_stands_for_the_other_arm() -> None:
    # a position computed from the epoch the checkpoint gave back (`first = saved["epoch"]`)
    # is the resumed one: that build is the resume's rebuild, as before this fix
    source = CHOICE_OF_SCHEDULES.format(pos="first - 1")
    assert "LRD007" not in codes(source)


RESUME_OR_FRESH = """
    import torch


    def run(model, batches, epochs, ckpt_path):
        opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
        if ckpt_path:
            state = torch.load(ckpt_path)
            opt.load_state_dict(state["optimizer"])
            sched = torch.optim.lr_scheduler.MultiStepLR(opt, [30, 60], 0.1,
                                                         last_epoch={pos})
            begin = state["epoch"] + 1
        else:
            sched = torch.optim.lr_scheduler.MultiStepLR(opt, [30, 60], 0.1)
            begin = 0
        for epoch in range(begin, epochs):
            for x in batches:
                opt.zero_grad()
                model(x).mean().backward()
                opt.step()
            sched.step()
            torch.save({{"optimizer": opt.state_dict(), "epoch": epoch}}, "last.pt")
"""


def test_the_same_construction_rebuilt_at_the_loaded_epoch_stands_for_the_fresh_one() -> None:
    assert "LRD007" not in codes(RESUME_OR_FRESH.format(pos='state["epoch"]'))


def test_control_the_same_construction_rebuilt_fresh_on_resume_is_reported() -> None:
    assert "LRD007" in codes(RESUME_OR_FRESH.format(pos="-1"))
