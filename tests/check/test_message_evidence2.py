"""Findings that are right whose message said something wrong (fphunt33, bench/realcode/FPHUNT.md).

Programs written for these tests; no third-party code.

1. LRD006 on ``CosineAnnealingLR.step(val_loss)``: the call hands a validation loss to a
   scheduler that takes it as its epoch position. The message said it "passes an epoch"; it
   now names the value handed over and what the scheduler does with it.
2. LRD014 on a scheduler picked by a setting in another file (a constant LambdaLR or one of
   two cosine schedules) whose optimizer is rebuilt: the message named the constant option,
   which loses nothing when left behind, and gave the other file's line as a bare "line 6".
   It now names the options that lose their schedule, each line with its file; a choice whose
   only option is constant is no finding (nothing is lost).
3. LRD001 on a scheduler stepped right before its own optimizer's update (an optimizer
   lrdoctor cannot model), with a second optimizer updated later in the same pass: the
   message cited the second optimizer's update; it now cites the scheduler's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, messages
from .test_whole_repo_false_alarms23 import TWO_OPTIMIZERS


def line_of(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


# -- 1. LRD006: a validation loss handed to step() -------------------------------------------

METRIC = """
import torch


def fit(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        val_loss = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val_loader)
        scheduler.step(ARG)
"""


def test_lrd006_says_a_loss_is_taken_as_the_epoch_position() -> None:
    (message,) = messages(METRIC.replace("ARG", "val_loss"))
    assert message.startswith(
        "`scheduler.step(val_loss)` hands `val_loss` (a loss or score, not an epoch count) to "
        "CosineAnnealingLR, which takes it as its epoch position: the argument is deprecated")
    assert "passes an epoch" not in message


def test_lrd006_on_an_epoch_names_it_without_calling_it_a_loss() -> None:
    (message,) = messages(METRIC.replace("ARG", "epoch"))
    assert message.startswith(
        "`scheduler.step(epoch)` hands `epoch` to CosineAnnealingLR, which takes it as its "
        "epoch position")


# -- 2. LRD014: a scheduler choice in another file, the optimizer rebuilt ---------------------

CHOICE = """
import torch


def make_scheduler(optimizer, cfg):
    if cfg.schedule == "constant":
        return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: FACTOR)
    elif cfg.schedule == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    else:
        return torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=10)
"""

ONLY_CONSTANT = """
import torch


def make_scheduler(optimizer, cfg):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
"""

REBUILT = """
import torch

from sched_utils import make_scheduler


def train(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.head.parameters(), lr=cfg.lr)
    scheduler = make_scheduler(optimizer, cfg)
    for epoch in range(cfg.epochs):
        if epoch == cfg.unfreeze_at:
            optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
"""


def _lrd014(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, utils: str) -> list[str]:
    """The messages of LRD014 for the project; each finding at the scheduler's step."""
    found = check_project(tmp_path, monkeypatch, {"sched_utils.py": utils, "train.py": REBUILT})
    report = check_files(["sched_utils.py", "train.py"], frozenset(CATALOG), jobs=1)
    step = ("train.py", line_of(REBUILT, "scheduler.step()"), "LRD014")
    assert [f for f in found if f[2] == "LRD014"] in ([], [step])
    return [d.message for d in report.diagnostics if d.code == "LRD014"]


def test_lrd014_names_the_options_that_lose_their_schedule(tmp_path, monkeypatch) -> None:
    (message,) = _lrd014(tmp_path, monkeypatch, CHOICE.replace("FACTOR", "1.0"))
    cosine = line_of(CHOICE, "CosineAnnealingLR(")
    restarts = line_of(CHOICE, "CosineAnnealingWarmRestarts(")
    assert message.startswith(
        f"`scheduler` (CosineAnnealingLR at sched_utils.py:{cosine} or "
        f"CosineAnnealingWarmRestarts at sched_utils.py:{restarts}, whichever the setting "
        f"picks) still drives the optimizer built at line "
        f"{line_of(REBUILT, 'model.head.parameters()')}, but `optimizer` was replaced at line "
        f"{line_of(REBUILT, 'optimizer = torch.optim.AdamW(model.parameters()')}")
    assert "LambdaLR" not in message


def test_lrd014_names_a_lambda_that_changes_the_lr(tmp_path, monkeypatch) -> None:
    (message,) = _lrd014(tmp_path, monkeypatch, CHOICE.replace("FACTOR", "0.95 ** step"))
    assert message.startswith(
        f"`scheduler` (LambdaLR at sched_utils.py:{line_of(CHOICE, 'LambdaLR(')} or ")


def test_lrd014_a_constant_schedule_left_behind_loses_nothing(tmp_path, monkeypatch) -> None:
    assert _lrd014(tmp_path, monkeypatch, ONLY_CONSTANT) == []


# -- 3. LRD001: the update of the scheduler's own optimizer ----------------------------------


def test_lrd001_cites_the_update_of_the_schedulers_own_optimizer() -> None:
    source = TWO_OPTIMIZERS.replace(
        "ORDER", "self.lr_scheduler.step()\n        self.optimizer.step()")
    (message,) = messages(source)
    own = line_of(source, "        self.optimizer.step()")
    assert message.startswith(
        f"`self.lr_scheduler.step()` runs before `self.optimizer.step()` (line {own}, the "
        "update of its own optimizer) in each iteration of the batch loop")
    assert f"line {line_of(source, 'self.optimizer_pt.step()')}" not in message


# -- the loop of another file ------------------------------------------------------------------

STEP_HELPER = """
import torch


def train_step(model, optimizer, scheduler, x, y):
    loss = torch.nn.functional.mse_loss(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    scheduler.step()
    optimizer.step()
"""

CALLER = """
import torch

from steps import train_step


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            train_step(model, optimizer, scheduler, x, y)
"""


def test_lrd001_gives_the_callers_loop_with_its_file(tmp_path, monkeypatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"steps.py": STEP_HELPER, "train.py": CALLER})
    assert found == [("steps.py", line_of(STEP_HELPER, "scheduler.step()"), "LRD001")]
    (message,) = [d.message for d in check_files(["steps.py", "train.py"], frozenset(CATALOG),
                                                 jobs=1).diagnostics]
    assert f"(line {line_of(STEP_HELPER, 'optimizer.step()')}) in each iteration of the batch " \
        f"loop over `loader` (train.py:{line_of(CALLER, 'for x, y in loader')})" in message
