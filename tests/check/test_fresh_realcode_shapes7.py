"""Shapes met in the fresh real-code batch "fresh-2026-12j" of issue 7 (bench/realcode, dev
half: checkpoint/resume code and schedulers stepped at the top of the epoch, with correct code
of the same structures): each test is the general shape in our own words, next to the control
that must still be reported (or stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes, findings

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


# -- a scheduler built by a method that applies a factory to the optimizer -------------------
# The trainer's scheduler comes from `build_scheduler()`, which returns a user factory (passed
# through a helper) applied to the optimizer: a scheduler of unknown class, stepped after every
# update. The class's `save_checkpoint` stores the optimizer but not it, and `load_checkpoint`
# restores the optimizer alone: LRD007 at both. The control stores and restores the scheduler.

_TRAINER = """
import torch


def fill_in(trainer, factory):
    return factory


class Trainer:
    def __init__(self, model, loss_func, optimizer):
        self.model = model
        self.loss_func = loss_func
        self.optimizer = optimizer
        self.make_scheduler = None
        self.scheduler = None

    def build_scheduler(self):
        factory = fill_in(self, self.make_scheduler)
        return factory(self.optimizer)

    def fit(self, loader, epochs, make_scheduler=None):
        self.make_scheduler = make_scheduler
        if self.make_scheduler is not None:
            self.scheduler = self.build_scheduler()
        for epoch in range(epochs):
            for x, y in loader:
                self.loss_func(self.model(x), y).backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
                if self.scheduler is not None:
                    self.scheduler.step()

    def save_checkpoint(self, path):
        state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}
        {SAVE_SCHED}
        torch.save(state, path)

    def load_checkpoint(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        {LOAD_SCHED}
"""


def test_scheduler_a_builder_method_returns_is_missing_from_the_checkpoint() -> None:
    got = findings(_TRAINER.replace("{SAVE_SCHED}", "pass").replace("{LOAD_SCHED}", "pass"))
    assert [code for code, _ in got] == ["LRD007", "LRD007"]
    assert [line for _, line in got] == [36, 41]  # the save, the optimizer restore


def test_trainer_that_stores_and_restores_its_built_scheduler_is_fine() -> None:
    got = codes(_TRAINER.replace(
        "{SAVE_SCHED}", 'state["scheduler"] = self.scheduler.state_dict()'
    ).replace("{LOAD_SCHED}", 'self.scheduler.load_state_dict(state["scheduler"])'))
    assert "LRD007" not in got
