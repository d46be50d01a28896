"""Shapes met in batch fresh-2026-12p (schedulers stepped before the first update, schedulers
restored on resume by their own route, steps offered in both orders under opposite tests)."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.check.engine import check_file
from tests.check.helpers import codes, findings

# -- a package the driver puts on sys.path itself ----------------------------------------------
# `tools/train.py` imports `core.epoch_loop` while the package lives in `lib/core/`: a helper
# module (`tools/_paths.py`) adds `../lib` to sys.path at run time. The epoch function that
# steps the optimizer is only seen once the dotted import is found in the project.

EPOCH_LOOP = """
def run_one_epoch(net, batches, opt):
    net.train()
    for inputs, targets in batches:
        opt.zero_grad()
        loss = (net(inputs) - targets).pow(2).mean()
        loss.backward()
        opt.step()
"""

DRIVER = """
import torch
import _paths
from core.epoch_loop import run_one_epoch


def main(net, batches, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    decay = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[30, 60], gamma=0.1)
    for epoch in range(epochs):
{body}
"""

STEP_FIRST = """\
        decay.step()
        run_one_epoch(net, batches, opt)"""
STEP_AFTER = """\
        run_one_epoch(net, batches, opt)
        decay.step()"""

PATHS = """
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
"""

PATHS_FROM_SETTING = """
import os
import sys

sys.path.insert(0, os.environ["CODE_ROOT"])
"""


def _project(tmp_path: Path, body: str, *, twin: bool = False,
             package: bool = False, known: bool = False) -> list[tuple[str, str, int]]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "tools").mkdir()
    (tmp_path / "lib" / "core").mkdir(parents=True)
    (tmp_path / "lib" / "core" / "__init__.py").write_text("")
    if package:  # `core/epoch_loop/__init__.py` rather than `core/epoch_loop.py`
        (tmp_path / "lib" / "core" / "epoch_loop").mkdir()
        (tmp_path / "lib" / "core" / "epoch_loop" / "__init__.py").write_text(
            textwrap.dedent(EPOCH_LOOP))
    else:
        (tmp_path / "lib" / "core" / "epoch_loop.py").write_text(textwrap.dedent(EPOCH_LOOP))
    if twin:  # a second package of the same dotted name elsewhere in the project
        (tmp_path / "legacy" / "core").mkdir(parents=True)
        (tmp_path / "legacy" / "core" / "__init__.py").write_text("")
        (tmp_path / "legacy" / "core" / "epoch_loop.py").write_text(textwrap.dedent(EPOCH_LOOP))
    # with a twin, `_paths` reads its entry from a setting: the dotted path is then only found
    # by its suffix (a `lib/` entry read from the file decides it: paths2)
    (tmp_path / "tools" / "_paths.py").write_text(PATHS_FROM_SETTING if twin and not known else PATHS)
    (tmp_path / "tools" / "train.py").write_text(DRIVER.format(body=body))
    result = check_file(str(tmp_path / "tools" / "train.py"))
    assert result.errors == []
    return [(d.code, Path(d.path).name, d.line) for d in result.diagnostics]


def test_step_before_an_epoch_function_of_a_package_on_an_added_path_is_lrd001(
    tmp_path: Path,
) -> None:
    assert _project(tmp_path, STEP_FIRST) == [("LRD001", "train.py", 11)]


def test_the_same_with_the_module_a_package_is_lrd001(tmp_path: Path) -> None:
    assert _project(tmp_path, STEP_FIRST, package=True) == [("LRD001", "train.py", 11)]


def test_step_after_that_epoch_function_is_fine(tmp_path: Path) -> None:
    assert _project(tmp_path, STEP_AFTER) == []


def test_an_ambiguous_dotted_path_is_not_guessed(tmp_path: Path) -> None:
    # two `core/epoch_loop.py` in the project: which one the added path picks is not known
    assert _project(tmp_path, STEP_FIRST, twin=True) == []


def test_the_entry_the_imported_module_adds_decides_between_twins(tmp_path: Path) -> None:
    # `_paths` puts `lib/` first on sys.path: `core.epoch_loop` is lib's, not legacy's
    assert _project(tmp_path, STEP_FIRST, twin=True, known=True) == [("LRD001", "train.py", 11)]


# -- both orders offered under opposite tests --------------------------------------------------
# an iteration-based trainer written for two generations of the library: the step comes before
# the update when `modern` is false and after it when `modern` is true; only one of the two
# runs in any pass, and which one a run takes is not in the code

GATED = """
import torch


def fit(net, batches, opt, sched, modern):
    for images, targets in batches:
{before}
        loss = net(images, targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
{after}
"""

BEFORE_WHEN_OLD = """\
        if not modern:
            sched.step()"""
AFTER_WHEN_MODERN = """\
        if modern:
            sched.step()"""
AFTER_ALWAYS = """\
        sched.step()"""


def test_a_step_before_the_update_with_its_twin_after_under_the_opposite_test_is_fine() -> None:
    assert codes(GATED.format(before=BEFORE_WHEN_OLD, after=AFTER_WHEN_MODERN)) == []


def test_the_step_before_alone_under_a_setting_is_still_lrd001() -> None:
    assert findings(GATED.format(before=BEFORE_WHEN_OLD, after="")) == [("LRD001", 8)]


def test_a_second_step_after_the_update_in_the_same_passes_does_not_excuse_the_first() -> None:
    # both run when `modern` is false: the step before the update is still there
    assert "LRD001" in codes(GATED.format(before=BEFORE_WHEN_OLD, after=AFTER_ALWAYS))


# -- a schedule restored on resume by its own route ---------------------------------------------
# the optimizer state is loaded back and the scheduler is built again at the saved epoch, with
# `last_epoch` given by position, so the checkpoint needs no scheduler state

REBUILT = """
import torch


def main(net, batches, resume, total):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    begin = 0
    if resume:
        state = torch.load("last.pt")
        begin = state["epoch"]
        opt.load_state_dict(state["optimizer"])
    decay = torch.optim.lr_scheduler.MultiStepLR(opt, [30, 60], 0.1{position})
    for epoch in range(begin, total):
        for x, y in batches:
            opt.zero_grad()
            (net(x) - y).pow(2).mean().backward()
            opt.step()
        decay.step()
        torch.save({"epoch": epoch + 1, "optimizer": opt.state_dict()}, "last.pt")
"""


def test_a_scheduler_rebuilt_at_the_saved_epoch_by_position_is_restored() -> None:
    assert codes(REBUILT.replace("{position}", ", begin - 1")) == []


def test_a_scheduler_built_fresh_beside_a_restored_optimizer_is_lrd007() -> None:
    assert sorted(codes(REBUILT.replace("{position}", ""))) == ["LRD007", "LRD007"]


def test_a_literal_fresh_start_by_position_is_still_a_fresh_scheduler() -> None:
    assert sorted(codes(REBUILT.replace("{position}", ", -1"))) == ["LRD007", "LRD007"]


# a trainer class whose resume replays the scheduler's steps, and whose per-epoch method steps
# the scheduler first and then runs its batch loop (the driver calling it is another file)
REPLAYED = """
import torch


class Runner:
    def __init__(self, net, batches, opt, sched, done_epochs):
        self.net, self.batches, self.opt, self.sched = net, batches, opt, sched
        if done_epochs:
            self.opt.load_state_dict(torch.load("opt.pt"))
{replay}

    def one_epoch(self):
        self.sched.step()
        for x, y in self.batches:
            self.opt.zero_grad()
            (self.net(x) - y).pow(2).mean().backward()
            self.opt.step()

    def save(self):
        torch.save(self.opt.state_dict(), "opt.pt")
"""

REPLAY = """\
            for _ in range(done_epochs):
                self.sched.step()"""


def test_a_resume_that_replays_the_steps_of_a_scheduler_stepped_per_epoch_is_restored() -> None:
    assert "LRD007" not in codes(REPLAYED.format(replay=REPLAY))


def test_the_same_resume_without_the_replay_is_lrd007() -> None:
    assert "LRD007" in codes(REPLAYED.format(replay=""))


# -- one setting picks both the horizon's unit and where the scheduler steps --------------------

PICKED = """
import torch


def build(opt, total, warm):
    ramp = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=warm)
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total - warm)
    return torch.optim.lr_scheduler.SequentialLR(opt, [ramp, decay], milestones=[warm])


def main(net, loader, epochs, warmup_epochs, per_batch):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    total_steps = {total}
    warmup_steps = {warm}
    sched = build(opt, total_steps, warmup_steps)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            (net(x) - y).pow(2).mean().backward()
            opt.step()
            if per_batch:
                sched.step()
        if not per_batch:
            sched.step()
"""

BY_SETTING = {"total": "epochs * len(loader) if per_batch else epochs",
              "warm": "warmup_epochs * len(loader) if per_batch else warmup_epochs"}
ALWAYS_BATCHES = {"total": "epochs * len(loader)", "warm": "warmup_epochs * len(loader)"}


def test_a_horizon_whose_unit_a_setting_picks_with_the_step_level_is_fine() -> None:
    assert codes(PICKED.format(**BY_SETTING)) == []


def test_a_horizon_in_batches_either_way_stepped_per_epoch_under_the_setting_is_lrd003() -> None:
    assert codes(PICKED.format(**ALWAYS_BATCHES)) == ["LRD003"]


# -- a step in the batch loop under a test that does not move with the batches ------------------
# `if cfg.decay != "swa":` (the setting that also chose the scheduler) or `if epoch <= swa_start:`
# (the epoch, fixed for the whole batch loop) says which schedule is in force, not when to step
# it: when it holds, the scheduler steps every batch. A flag of the step's own (`if
# cfg.per_update:`) stays the author's choice of when it steps.

IN_BATCH_LOOP = """
import torch


def fit(net, loader, epochs, cfg, swa_start):
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    if cfg.decay == "cosine":
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    else:
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2 * epochs)
    seen = 0
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            (net(x) - y).pow(2).mean().backward()
            opt.step()
            seen += 1
{guard}
                sched.step()
"""


def test_an_epoch_sized_cosine_stepped_per_batch_under_its_choosing_setting_is_lrd002() -> None:
    found = codes(IN_BATCH_LOOP.format(guard='            if cfg.decay != "swa":'))
    assert found and set(found) == {"LRD002"}


def test_the_same_under_a_test_on_the_epoch_is_lrd002() -> None:
    found = codes(IN_BATCH_LOOP.format(guard="            if epoch <= swa_start:"))
    assert found and set(found) == {"LRD002"}


def test_a_flag_of_the_steps_own_is_a_choice_of_when_it_steps() -> None:
    assert codes(IN_BATCH_LOOP.format(guard="            if cfg.per_update:")) == []


def test_a_guard_on_a_count_the_batch_loop_moves_is_a_period_of_its_own() -> None:
    assert codes(IN_BATCH_LOOP.format(guard="            if seen % len(loader) == 0:")) == []


# -- an explicit position told before the updates -----------------------------------------------
# `scheduler.step(epoch)` at the top of the epoch, where the epochs count from 1: the first
# pass already sets position 1 and position 0 (the initial LR) is never trained with; counting
# from the file's own default of 0 keeps it

TOLD = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--first_epoch", type=int, default={default})
parser.add_argument("--epochs", type=int, default=90)
args = parser.parse_args()


def fit(net, loader):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    decay = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    for epoch in range({start}, args.epochs):
        decay.step(epoch)
        for x, y in loader:
            opt.zero_grad()
            (net(x) - y).pow(2).mean().backward()
            opt.step()
"""


def test_a_position_of_one_told_before_the_first_update_is_lrd001() -> None:
    assert sorted(codes(TOLD.format(default=0, start="1"))) == ["LRD001", "LRD006"]


def test_counting_from_a_default_start_plus_one_is_lrd001() -> None:
    assert sorted(codes(TOLD.format(default=0, start="args.first_epoch + 1"))) == [
        "LRD001", "LRD006"]


def test_a_position_of_zero_on_the_first_pass_keeps_the_first_value() -> None:
    assert codes(TOLD.format(default=0, start="args.first_epoch")) == ["LRD006"]


def test_a_start_the_file_does_not_state_says_nothing() -> None:
    assert codes(TOLD.format(default=0, start="first")) == ["LRD006"]
