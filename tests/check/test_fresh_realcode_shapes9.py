"""Shapes met in the fresh real-code batch "fresh-2026-12l" of issue 7 (bench/realcode, dev
half: warm-up schedulers beside a main scheduler, SequentialLR recipes and warm-up wrappers):
each test is the general shape in our own words, next to the control that must still be
reported (or stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes, findings

# -- a wrapper's helper forwarding the None its caller left ----------------------------------
# A warm-up wrapper (a plain class, not an LRScheduler) holds the main scheduler and steps it
# through a private helper: `step(self, metrics=None, epoch=None)` calls
# `self._advance(epoch, metrics)`, which calls `self.inner.step(epoch)`. The loop calls
# `wrapper.step()` with nothing, so the value passed on is None and the call is `step()`: no
# deprecated epoch. When the loop does pass `epoch=...`, the epoch reaches the torch scheduler
# and LRD006 is reported as before.

_WRAPPER = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, ReduceLROnPlateau


class LinearWarmup:
    def __init__(self, optimizer, inner, warmup_steps):
        self.optimizer = optimizer
        self.inner = inner
        self.warmup_steps = warmup_steps
        self.count = 0
        self.is_plateau = isinstance(inner, ReduceLROnPlateau)

    def _advance(self, epoch, metrics):
        if self.count > self.warmup_steps:
            if self.is_plateau:
                self.inner.step(metrics, epoch)
            else:
                self.inner.step(epoch)

    def step(self, metrics=None, epoch=None):
        self.count += 1
        self._advance(epoch, metrics)


net = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = LinearWarmup(opt, CosineAnnealingLR(opt, T_max=20), warmup_steps=50)
for epoch in range(20):
    for _ in range(10):
        opt.step()
        {CALL}
"""


def test_helper_forwarding_the_callers_none_is_not_an_epoch() -> None:
    assert "LRD006" not in codes(_WRAPPER.replace("{CALL}", "sched.step()"))


def test_helper_forwarding_an_epoch_the_caller_passed_is_still_reported() -> None:
    got = findings(_WRAPPER.replace("{CALL}", "sched.step(epoch=epoch)"))
    assert ("LRD006", 19) in got


# A parameter rebound in the helper (`epoch = self.count` when None) is no longer the caller's
# None: the epoch argument is passed, and reported, whatever the caller gave.

_REBOUND = """
import torch
from torch.optim.lr_scheduler import StepLR


class Holder:
    def __init__(self, inner):
        self.inner = inner
        self.count = 0

    def _advance(self, epoch):
        if epoch is None:
            epoch = self.count
        self.inner.step(epoch)

    def step(self, epoch=None):
        self.count += 1
        self._advance(epoch)


net = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = Holder(StepLR(opt, step_size=5))
for epoch in range(20):
    opt.step()
    sched.step()
"""


def test_helper_that_rebinds_the_parameter_still_passes_an_epoch() -> None:
    assert "LRD006" in codes(_REBOUND)
