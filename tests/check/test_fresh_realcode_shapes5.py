"""Shapes met in the fresh real-code batch "fresh-2026-12h" of issue 7 (bench/realcode, dev
half: notebooks, older NLP scripts, GAN / RL / recommender trainers): each test is the general
shape in our own words, next to the control that must still be reported (or stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes, findings

# -- a schedule phase that starts at a step is not where a resumed run starts -------------------
# A project scheduler (a subclass of torch's base) is built from settings that name the steps
# at which its phases begin (`decay_start_step`: the step the decay starts). A checkpoint keeps
# the optimizer but not the scheduler, and a resume restores the optimizer: the schedule starts
# over. A name such as `start_step` alone is where a resumed run starts (a scheduler sized from
# it is rebuilt for the rest of the run); qualified by a phase of the schedule it is a setting
# of the schedule, and says nothing about a resume.

_PHASED = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class PhasedLR(_LRScheduler):
    def __init__(self, optimizer, ramp_steps, fall_from, fall_steps):
        self.ramp_steps = ramp_steps
        self.fall_from = fall_from
        self.fall_steps = fall_steps
        super().__init__(optimizer)

    def get_lr(self):
        n = self._step_count
        if n < self.ramp_steps:
            return [lr * n / self.ramp_steps for lr in self.base_lrs]
        if n >= self.fall_from:
            left = max(0.0, 1.0 - (n - self.fall_from) / self.fall_steps)
            return [lr * left * left for lr in self.base_lrs]
        return list(self.base_lrs)


def run(opts, net, batches):
    optimizer = torch.optim.SGD(net.parameters(), lr=opts.lr)
    schedule = PhasedLR(optimizer, opts.warmup_steps, {FALL_FROM}, opts.decay_steps)
    done = 0
    if opts.restore:
        saved = torch.load(opts.restore)
        net.load_state_dict(saved["weights"])
        optimizer.load_state_dict(saved["optim"])
        done = saved["epoch"]
    for epoch in range(done, opts.epochs):
        for x in batches:
            optimizer.zero_grad()
            net(x).mean().backward()
            optimizer.step()
            schedule.step()
        record = {"epoch": epoch + 1, "weights": net.state_dict()}
        record["optim"] = optimizer.state_dict()
        torch.save(record, opts.out)
"""


def test_phase_start_setting_does_not_hide_a_lost_scheduler() -> None:
    source = _PHASED.replace("{FALL_FROM}", "opts.lr_decay_start_step")
    assert findings(source) == [("LRD007", 30), ("LRD007", 40)]


def test_warmup_begin_setting_does_not_hide_a_lost_scheduler() -> None:
    source = _PHASED.replace("{FALL_FROM}", "opts.cosine_warmup_begin_iter")
    assert codes(source) == ["LRD007", "LRD007"]


def test_scheduler_sized_from_the_resumed_start_step_is_still_silent() -> None:
    # control: a scheduler built from where the resumed run starts is rebuilt for the rest of
    # the run; its lost state moves nothing
    source = _PHASED.replace("{FALL_FROM}", "opts.start_step")
    assert codes(source) == []


# -- the project's own scheduler class with one horizon in batches and one in epochs -----------
# A subclass of torch's scheduler base keeps torch's step() and computes the LR in get_lr() from
# the step count and two constructor settings: a warm-up length and a cosine length. The script
# sizes the cosine in batches (epochs times batches per epoch) and steps it every batch, but
# passes the warm-up in epochs: the warm-up ends after a handful of batches.

_TWO_PHASE = """
import math
import torch
from torch.optim.lr_scheduler import _LRScheduler


class RampThenCosine(_LRScheduler):
    def __init__(self, optimizer, total, ramp=0, floor=0.0, last_epoch=-1):
        self.total = total
        self.ramp = {STORE}
        self.floor = floor
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch < self.ramp:
            return [self.last_epoch / self.ramp * lr for lr in self.base_lrs]
        done = (self.last_epoch - self.ramp) / (self.total - self.ramp)
        return [self.floor + (lr - self.floor) * (1 + math.cos(math.pi * done)) / 2
                for lr in self.base_lrs]


def fit_one_epoch(net, train_loader, optimizer, schedule):
    for x, y in train_loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(net(x), y).backward()
        optimizer.step()
        {STEP_IN_BATCH}


def main(args, net, train_loader):
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
    schedule = RampThenCosine(optimizer, total=args.epochs * len(train_loader), ramp={RAMP})
    for epoch in range(args.epochs):
        fit_one_epoch(net, train_loader, optimizer, schedule)
        {STEP_IN_EPOCH}
"""


def _two_phase(ramp: str, store: str = "ramp", per_batch: bool = True) -> str:
    return (_TWO_PHASE.replace("{RAMP}", ramp).replace("{STORE}", store)
            .replace("{STEP_IN_BATCH}", "schedule.step()" if per_batch else "pass")
            .replace("{STEP_IN_EPOCH}", "pass" if per_batch else "schedule.step()"))


def test_project_scheduler_with_a_warmup_in_epochs_stepped_per_batch_is_lrd002() -> None:
    assert findings(_two_phase("args.epochs // 20")) == [("LRD002", 27)]


def test_project_scheduler_with_a_warmup_setting_named_in_epochs_is_lrd002() -> None:
    assert codes(_two_phase("args.warmup_epochs")) == ["LRD002"]


def test_project_scheduler_with_both_horizons_in_train_loader_is_silent() -> None:
    # control: the warm-up sized in train_loader as well
    assert codes(_two_phase("args.warmup_epochs * len(train_loader)")) == []


def test_project_scheduler_that_scales_its_setting_itself_is_silent() -> None:
    # control: the class turns the epochs it is given into steps; the setting is not used as is
    assert codes(_two_phase("args.warmup_epochs", store="ramp * 100")) == []


def test_project_scheduler_with_only_epoch_horizons_is_not_judged() -> None:
    # control: nothing in the call says the class counts train_loader
    source = _two_phase("args.warmup_epochs").replace(
        "total=args.epochs * len(train_loader)", "total=args.epochs")
    assert codes(source) == []


def test_project_scheduler_stepped_per_epoch_is_silent() -> None:
    # control: stepped once per epoch, the cosine in train_loader would be LRD003 for a torch class;
    # for a class of the project's own nothing is claimed
    assert codes(_two_phase("args.epochs // 20", per_batch=False)) == []
