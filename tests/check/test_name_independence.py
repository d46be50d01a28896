"""The model of the program follows what the code does, not what its values are called
(issue 7's metamorphic tests: renaming a scheduler, an optimizer or a loader to a neutral
name, or wrapping a loader in ``enumerate`` / ``iter``, must not change the findings).

Each test writes one program twice or more: with the usual names (the control, which must be
reported) and with neutral ones; and a correct or unrelated variant that must stay silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# -- a loop is a batch loop when every pass trains on one batch ----------------------------

_EPOCH_SCHED_IN_LOOP = """
import torch

def fit(model, {data}, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
    for epoch in range(epochs):
        for {target} in {over}:
            loss = model(x).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
"""


@pytest.mark.parametrize("data, target, over", [
    ("train_loader", "x", "train_loader"),  # the control: a name that says loader
    ("batches", "x", "batches"),
    ("it", "x", "it"),
    ("data", "i, x", "enumerate(data)"),
    ("source", "x", "iter(source)"),
])
def test_a_loop_that_trains_each_pass_is_a_batch_loop(data: str, target: str, over: str) -> None:
    src = _EPOCH_SCHED_IN_LOOP.format(data=data, target=target, over=over)
    assert "LRD002" in codes(src)


def test_a_loop_that_only_steps_the_scheduler_is_not_a_batch_loop() -> None:
    # `for x in items:` with no backward and no optimizer step in it says nothing about batches
    src = """
import torch

def fit(model, items, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
    for epoch in range(epochs):
        opt.step()
        for x in items:
            print(x)
        sched.step()
"""
    assert "LRD002" not in codes(src)


def test_a_full_batch_epoch_loop_stays_an_epoch_loop() -> None:
    # one update per epoch over the whole data set (a graph, a small table): the range loop
    # over epochs trains every pass, and an epoch scheduler stepped in it is right
    src = """
import torch

def fit(model, graph, epochs):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
    for _ in range(epochs):
        loss = model(graph).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
"""
    assert "LRD002" not in codes(src)


# -- a project instance rebound on one branch still holds the instance on the other ---------

_WRAPPED_RUNNER = """
import torch
from torch.nn.parallel import DistributedDataParallel

class Runner:
    def __init__(self, net):
        self.net = net
        self.amp = torch.amp.GradScaler("cuda")

    def attach(self, o, s):
        self.o = o
        self.s = s

    def one_epoch(self, batches):
        for x in batches:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.net(x).mean()
            self.o.zero_grad()
            self.amp.scale(loss).backward()
            self.amp.step(self.o)
            self.amp.update()
            {sched_step}

def main(args, net, batches):
    r = Runner(net)
{wrap}
    o = torch.optim.AdamW(net.parameters(), lr=1e-3)
    s = torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1e-3, total_steps=args.steps)
    r.attach(o, s)
    for epoch in range(args.epochs):
        r.one_epoch(batches)
"""


@pytest.mark.parametrize("wrap", [
    "",  # the control: the name holds the instance throughout
    "    if args.distributed:\n        r = DistributedDataParallel(r)",
    "    if args.distributed:\n        r = DistributedDataParallel(r)\n    else:\n        r.net.cuda()",
])
def test_an_instance_wrapped_on_one_branch_is_followed(wrap: str) -> None:
    src = _WRAPPED_RUNNER.format(wrap=wrap, sched_step="self.s.step()")
    assert "LRD005" in codes(src)


def test_an_instance_wrapped_on_one_branch_stays_silent_when_correct() -> None:
    wrap = "    if args.distributed:\n        r = DistributedDataParallel(r)"
    # the scheduler steps only when the scale did not drop (the update was not skipped)
    step = ("before = self.amp.get_scale()\n            self.amp.update()\n"
            "            if self.amp.get_scale() >= before:\n                self.s.step()")
    src = _WRAPPED_RUNNER.format(wrap=wrap, sched_step="pass").replace(
        "self.amp.update()\n            pass", step)
    assert codes(src) == []
