"""Shapes met in the fresh real-code batch "fresh-2026-12j" of issue 7 (bench/realcode, dev
half: checkpoint/resume code and schedulers stepped at the top of the epoch, with correct code
of the same structures): each test is the general shape in our own words, next to the control
that must still be reported (or stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes

# -- `step(epoch=...)` on a choice whose project option cannot take an epoch ------------------
# A setting picks the scheduler: torch's StepLR (stepped per epoch, with the epoch passed) or a
# project warm-up class whose `step(self)` takes no argument (stepped per batch). The per-epoch
# call `step(epoch=e)` is written for the torch option alone (the project class would raise on
# it), so the deprecated epoch argument is reported. When the project class's `step` does take
# an epoch, the call is written for it too and stays silent, as before.

_CHOSEN = """
import torch
from torch.optim.lr_scheduler import StepLR


class WarmupInvSqrt:
    def __init__(self, optimizer, warmup):
        self.optimizer = optimizer
        self.warmup = warmup
        self.n = 0

    def step({STEP_PARAMS}):
        self.n += 1
        rate = min(self.n ** -0.5, self.n * self.warmup ** -1.5)
        for group in self.optimizer.param_groups:
            group["lr"] = rate


def make_schedule(cfg, optimizer):
    schedule, when = None, None
    if cfg["schedule"] == "steps":
        schedule = StepLR(optimizer, step_size=cfg.get("every", 1))
        when = "epoch"
    elif cfg["schedule"] == "inv_sqrt":
        schedule = WarmupInvSqrt(optimizer, cfg.get("warmup", 4000))
        when = "batch"
    return schedule, when


def train(cfg, net, batches):
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    schedule, when = make_schedule(cfg, optimizer)
    for epoch in range(cfg["epochs"]):
        if schedule is not None and when == "epoch":
            schedule.step(epoch=epoch)
        for x in batches:
            optimizer.zero_grad()
            net(x).mean().backward()
            optimizer.step()
            if schedule is not None and when == "batch":
                schedule.step()
"""


def test_epoch_argument_on_a_choice_whose_project_option_takes_none() -> None:
    assert "LRD006" in codes(_CHOSEN.replace("{STEP_PARAMS}", "self"))


def test_epoch_argument_written_for_the_project_option_too_stays_silent() -> None:
    assert "LRD006" not in codes(_CHOSEN.replace("{STEP_PARAMS}", "self, epoch=None"))
    assert "LRD006" not in codes(_CHOSEN.replace("{STEP_PARAMS}", "self, **kwargs"))


# -- a step guarded by the scheduler's own class ----------------------------------------------
# One helper serves every scheduler: after each update it steps the scheduler only when it is
# a OneCycleLR (`sched and isinstance(sched, OneCycleLR)`), and after the batch loop only when
# it is not (`sched and not isinstance(sched, OneCycleLR)`). With a OneCycleLR passed in, the
# per-epoch step never runs: no LRD003. The control drops the class test from the per-epoch
# step, which then runs once per epoch as well (the batch-sized schedule stepped per epoch).

_GUARDED = """
import torch
from torch.optim.lr_scheduler import OneCycleLR


def one_epoch(net, batches, optimizer, sched=None):
    for x in batches:
        optimizer.zero_grad()
        net(x).mean().backward()
        optimizer.step()
        if sched and isinstance(sched, OneCycleLR):
            sched.step()
    if {EPOCH_TEST}:
        sched.step()


def main(net, batches, epochs):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = OneCycleLR(optimizer, max_lr=0.4, epochs=epochs, steps_per_epoch=len(batches))
    for epoch in range(epochs):
        one_epoch(net, batches, optimizer, sched)
"""


def test_per_epoch_step_excluded_by_the_class_test_is_not_lrd003() -> None:
    got = codes(_GUARDED.replace("{EPOCH_TEST}", "sched and not isinstance(sched, OneCycleLR)"))
    assert "LRD003" not in got and "LRD012" not in got


def test_per_epoch_step_without_the_class_test_is_still_reported() -> None:
    got = codes(_GUARDED.replace("{EPOCH_TEST}", "sched is not None"))
    assert "LRD003" in got or "LRD012" in got
