"""A shape met in the fresh-2026-12zb batch of real code (issue 7), written in our own words.

A depth-estimation trainer in the pytorch-semseg layout builds the project's own scheduler
class, a subclass of torch's scheduler base whose ``get_lr()`` returns the base learning rates
as they are (a "constant" schedule), and steps it at the top of every iteration, before the
update. The checker reported LRD001, whose harm is a first LR value never trained with; but
every position of such a schedule has the same value, so nothing is skipped. Where the
schedule stands does not matter either when a GradScaler skips an update (LRD005), when it is
stepped per micro-batch (LRD017) or when a checkpoint leaves its state out (LRD007). A project
scheduler that keeps torch's ``step()`` and whose ``get_lr()`` (and closed form, if any) is one
``return`` of ``self.base_lrs``, a copy of it, or a comprehension yielding each base LR
unchanged is now position-free for those four codes.

The controls: a project schedule that moves with ``last_epoch`` (a poly decay) is still
reported for each code, so is a factory that may return either class (the choice is made at
run time) and a comprehension that changes the values.
"""

from __future__ import annotations

from tests.check.helpers import findings

_CLASSES = """
import torch
from torch import nn
from torch.optim.lr_scheduler import _LRScheduler


class FlatLR(_LRScheduler):
    def __init__(self, optimizer, last_epoch=-1):
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        {BODY}


class PolyLR(_LRScheduler):
    def __init__(self, optimizer, max_iter, power=0.9, last_epoch=-1):
        self.max_iter = max_iter
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        factor = (1 - self.last_epoch / self.max_iter) ** self.power
        return [base_lr * factor for base_lr in self.base_lrs]
"""

_KEEPS = "return [base_lr for base_lr in self.base_lrs]"

_BEFORE = _CLASSES + """

def train(loader, iters):
    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    sched = {SCHED}
    for epoch in range(10):
        for x, y in loader:
            sched.step()
            loss = nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
"""


def _before(sched: str, body: str = _KEEPS) -> str:
    return _BEFORE.replace("{BODY}", body).replace("{SCHED}", sched)


def test_constant_project_scheduler_stepped_before_the_update_is_silent() -> None:
    assert findings(_before("FlatLR(opt)")) == []


def test_base_lrs_returned_as_they_are_or_copied() -> None:
    assert findings(_before("FlatLR(opt)", "return self.base_lrs")) == []
    assert findings(_before("FlatLR(opt)", "return list(self.base_lrs)")) == []


def test_docstring_before_the_return() -> None:
    body = '"""The LR never moves."""\n        return [lr for lr in self.base_lrs]'
    assert findings(_before("FlatLR(opt)", body)) == []


def test_control_a_schedule_that_moves_is_still_reported() -> None:
    assert findings(_before("PolyLR(opt, iters)")) == [("LRD001", 32)]


def test_control_a_comprehension_that_changes_the_values() -> None:
    body = "return [base_lr * 0.5 ** self.last_epoch for base_lr in self.base_lrs]"
    assert findings(_before("FlatLR(opt)", body)) == [("LRD001", 32)]


def test_control_a_factory_that_may_return_either_class() -> None:
    source = _before("pick(opt, kind, iters)") + """

def pick(opt, kind, iters):
    if kind == "poly":
        return PolyLR(opt, iters)
    return FlatLR(opt)
"""
    assert [c for c, _ in findings(source)] == ["LRD001"]


_AMP = _CLASSES + """

def train(loader, iters):
    net = nn.Linear(4, 2).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    sched = {SCHED}
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(10):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            sched.step()
        torch.save({"model": net.state_dict(), "optimizer": opt.state_dict(),
                    "scaler": scaler.state_dict()}, "last.pt")
"""


def _amp(sched: str) -> str:
    return _AMP.replace("{BODY}", _KEEPS).replace("{SCHED}", sched)


def test_constant_scheduler_on_skipped_updates_and_left_out_of_the_checkpoint() -> None:
    assert findings(_amp("FlatLR(opt)")) == []


def test_control_moving_schedule_on_skipped_updates_and_left_out() -> None:
    assert sorted(c for c, _ in findings(_amp("PolyLR(opt, iters)"))) == ["LRD005", "LRD007"]


_ACCUM = _CLASSES + """

def train(loader, iters, accum=4):
    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    sched = {SCHED}
    for epoch in range(10):
        for i, (x, y) in enumerate(loader):
            loss = nn.functional.mse_loss(net(x), y) / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
            sched.step()
"""


def test_constant_scheduler_per_micro_batch_is_silent() -> None:
    source = _ACCUM.replace("{BODY}", _KEEPS).replace("{SCHED}", "FlatLR(opt)")
    assert findings(source) == []


def test_control_moving_schedule_per_micro_batch() -> None:
    source = _ACCUM.replace("{BODY}", _KEEPS).replace("{SCHED}", "PolyLR(opt, iters)")
    assert [c for c, _ in findings(source)] == ["LRD017"]


_RESUME = _CLASSES + """

def train(loader, args):
    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    sched = {SCHED}
    start = 0
    if args.resume:
        state = torch.load(args.resume)
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        start = state["epoch"]
    for epoch in range(start, 10):
        for x, y in loader:
            loss = nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
"""


def test_constant_scheduler_not_restored_on_resume_is_silent() -> None:
    source = _RESUME.replace("{BODY}", _KEEPS).replace("{SCHED}", "FlatLR(opt)")
    assert findings(source) == []


def test_control_moving_schedule_not_restored_on_resume() -> None:
    source = _RESUME.replace("{BODY}", _KEEPS).replace("{SCHED}", "PolyLR(opt, 1000)")
    assert [c for c, _ in findings(source)] == ["LRD007"]
