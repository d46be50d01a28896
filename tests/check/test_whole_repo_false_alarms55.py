"""fphunt65: an LR floor written as a test of the LR against the floor.

Point-cloud trainers of the DGCNN family step a MultiStepLR only while the LR is above
1e-5 and, once it has fallen below, set every group's LR to 1e-5:
`if opt.param_groups[0]['lr'] < 1e-5: for g in opt.param_groups: g['lr'] = 1e-5`. lrdoctor
reported LRD008 (a manual LR write competing with a chainable scheduler), while the same
floor spelled `g['lr'] = max(g['lr'], 1e-5)` was already read as a clamp. A write of the
value an ordering test compares the group's current LR with (the bound on either side, an
`else:` branch, the LR read through a name) holds the schedule at the bound, whatever the
direction: the write runs only past the bound and writes the bound. Still LRD008: a restart
to another value below the floor, a write of another constant, a write that scales the LR
it reads, a write under a test of the epoch, and an unconditional one.

The clamp read through a name (`held = max(g['lr'], 1e-6)`, `current = g['lr']`) was only
resolved inside a function; a script's top-level loop now reads it too.
"""

from __future__ import annotations

from .helpers import codes

_HEAD = """
import torch
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR, MultiStepLR, StepLR

net = nn.Linear(6, 3)
batches = [(torch.randn(5, 6), torch.randint(0, 3, (5,))) for _ in range(8)]
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.CrossEntropyLoss()
"""

_EPOCHS = """
for epoch in range(200):
    for xb, yb in batches:
        opt.zero_grad()
        loss_fn(net(xb), yb).backward()
        opt.step()
"""


def _run(sched: str, tail: str) -> list[str]:
    indented = "\n".join("    " + line if line else line for line in tail.strip("\n").split("\n"))
    return codes(_HEAD + sched + _EPOCHS + indented + "\n")


_STEP = "sched = MultiStepLR(opt, [120, 160], gamma=0.1)\n"


def test_the_floor_behind_a_guarded_step_is_a_clamp() -> None:
    assert _run(_STEP, """
if opt.param_groups[0]["lr"] > 1e-5:
    sched.step()
if opt.param_groups[0]["lr"] < 1e-5:
    for g in opt.param_groups:
        g["lr"] = 1e-5
""") == []


def test_the_floor_with_the_bound_on_the_left_or_in_an_else_branch() -> None:
    cosine = "sched = CosineAnnealingLR(opt, T_max=200)\n"
    assert _run(cosine, """
sched.step()
for g in opt.param_groups:
    if 1e-4 > g["lr"]:
        g["lr"] = 1e-4
""") == []
    assert _run("floor = 1e-5\n" + _STEP, """
sched.step()
for g in opt.param_groups:
    if g["lr"] >= floor:
        pass
    else:
        g["lr"] = floor
""") == []


def test_the_floor_read_through_a_name_at_top_level() -> None:
    assert _run("low = 1e-6\nsched = StepLR(opt, step_size=30, gamma=0.5)\n", """
sched.step()
current = opt.param_groups[0]["lr"]
if current <= low:
    for g in opt.param_groups:
        g["lr"] = low
""") == []


def test_a_ceiling_is_a_clamp_too() -> None:
    assert _run("cap = 0.05\nsched = StepLR(opt, step_size=10, gamma=2.0)\n", """
sched.step()
if opt.param_groups[0]["lr"] > cap:
    for g in opt.param_groups:
        g["lr"] = cap
""") == []


def test_a_max_clamp_through_a_name_at_top_level() -> None:
    assert _run("sched = StepLR(opt, step_size=30, gamma=0.5)\n", """
sched.step()
held = max(opt.param_groups[0]["lr"], 1e-6)
for g in opt.param_groups:
    g["lr"] = held
""") == []


def test_a_floor_on_one_branch_of_a_scheduler_choice() -> None:
    source = _HEAD + """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--sched", default="cos", choices=["cos", "step"])
args = parser.parse_args()
if args.sched == "cos":
    sched = CosineAnnealingLR(opt, 250, eta_min=1e-3)
elif args.sched == "step":
    sched = MultiStepLR(opt, [140, 180], gamma=0.1)
for epoch in range(250):
    for xb, yb in batches:
        opt.zero_grad()
        loss_fn(net(xb), yb).backward()
        opt.step()
    if args.sched == "cos":
        sched.step()
    elif args.sched == "step":
        if opt.param_groups[0]["lr"] > 1e-5:
            sched.step()
        if opt.param_groups[0]["lr"] < 1e-5:
            for g in opt.param_groups:
                g["lr"] = 1e-5
"""
    assert codes(source) == []


def test_a_restart_below_the_floor_is_still_found() -> None:
    assert _run("restart = 0.1\n" + _STEP, """
sched.step()
if opt.param_groups[0]["lr"] < 1e-5:
    for g in opt.param_groups:
        g["lr"] = restart
""") == ["LRD008"]


def test_another_constant_below_the_floor_is_still_found() -> None:
    assert _run(_STEP, """
sched.step()
if opt.param_groups[0]["lr"] < 1e-5:
    for g in opt.param_groups:
        g["lr"] = 1e-4
""") == ["LRD008"]


def test_a_write_that_scales_the_lr_it_tests_is_still_found() -> None:
    assert _run(_STEP, """
sched.step()
for g in opt.param_groups:
    if g["lr"] < 1e-5:
        g["lr"] = g["lr"] * 10
""") == ["LRD008"]


def test_writes_under_an_epoch_test_or_none_are_still_found() -> None:
    assert _run(_STEP, """
sched.step()
if epoch > 100:
    for g in opt.param_groups:
        g["lr"] = 1e-5
""") == ["LRD008"]
    assert _run(_STEP, """
sched.step()
for g in opt.param_groups:
    g["lr"] = 1e-5
""") == ["LRD008"]



_FLOOR_AT = """
sched.step()
if opt.param_groups[0]["lr"] < base:
    for g in opt.param_groups:
        g["lr"] = base
"""


def test_a_floor_at_the_starting_lr_is_still_found() -> None:
    # the optimizer starts from `base`: holding the LR at or above it undoes every decay
    head = "base = 0.1\nopt = torch.optim.SGD(net.parameters(), lr=base)\n" + _STEP
    assert _run(head, _FLOOR_AT) == ["LRD008"]
    # the same test against a floor below the starting LR is a clamp
    assert _run("base = 1e-5\n" + _STEP, _FLOOR_AT) == []
