"""LRD007 when a checkpoint holds a number the program counts itself under a key that names the
schedule (``"schedule_index": stage``, read back with ``stage = ckpt["schedule_index"]``): a
count is no scheduler's state, so the scheduler it leaves out is still lost (reported), while a
checkpoint that does hold the scheduler's state, or a resume that positions the schedule with
the count, stays silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

HEAD = """
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default="")
parser.add_argument("--epochs", type=int, default=90)
args = parser.parse_args()

loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])


def train_one_epoch():
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
"""

RESUME = """
start_epoch = 0
{init}
if args.resume:
    checkpoint = torch.load(args.resume)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    {restore}
    start_epoch = checkpoint["epoch"]
"""

LOOP = """
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    {advance}
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                {extra}"epoch": epoch + 1}}, "checkpoint.pth.tar")
"""


def program(init: str, restore: str, advance: str, extra: str) -> str:
    return (HEAD + RESUME.format(init=init, restore=restore)
            + LOOP.format(advance=advance, extra=extra))


def lrd007(src: str) -> list[str]:
    return [c for c in codes(src) if c == "LRD007"]


# ---- the bug: a count under a schedule-like key, the scheduler itself not saved ----

@pytest.mark.parametrize("init, restore, advance, extra", [
    # a stage index the program advances at its milestones
    ("schedule_index = 1", 'schedule_index = checkpoint["schedule_index"]',
     "if epoch in (30, 60):\n        schedule_index += 1",
     '"schedule_index": schedule_index, '),
    # read back through int()
    ("sched_stage = 0", 'sched_stage = int(checkpoint["sched_stage"])',
     "if epoch in (30, 60):\n        sched_stage += 1", '"sched_stage": sched_stage, '),
    # a count set once and never advanced (a stage picked by the run)
    ("schedule_phase = 1", 'schedule_phase = checkpoint["schedule_phase"]', "pass",
     '"schedule_phase": schedule_phase, '),
])
def test_a_count_named_for_the_schedule_is_not_its_state(init: str, restore: str, advance: str,
                                                         extra: str) -> None:
    found = lrd007(program(init, restore, advance, extra))
    # the save and the resume both lose the MultiStepLR
    assert len(found) == 2


def test_a_count_saved_but_not_read_back_is_not_the_state_either() -> None:
    src = program("schedule_index = 1", "pass",
                  "if epoch in (30, 60):\n        schedule_index += 1",
                  '"schedule_index": schedule_index, ')
    # the resume restores the optimizer alone, and the save leaves the scheduler out
    assert len(lrd007(src)) == 2


# ---- correct twins: silent ----

def test_the_scheduler_saved_beside_the_count_is_silent() -> None:
    src = program("schedule_index = 1",
                  'schedule_index = checkpoint["schedule_index"]\n'
                  '    scheduler.load_state_dict(checkpoint["scheduler"])',
                  "if epoch in (30, 60):\n        schedule_index += 1",
                  '"schedule_index": schedule_index, "scheduler": scheduler.state_dict(), ')
    assert lrd007(src) == []


def test_the_count_positions_the_schedule_on_resume_is_silent() -> None:
    # the saved count is the scheduler's step count and the resume fast-forwards with it
    src = program("sched_steps = 0",
                  'sched_steps = checkpoint["sched_steps"]\n'
                  "    for _ in range(sched_steps):\n"
                  "        scheduler.step()",
                  "sched_steps += 1", '"sched_steps": sched_steps, ')
    assert lrd007(src) == []


def test_the_count_written_into_the_scheduler_is_silent() -> None:
    src = program("sched_epoch = 0",
                  'sched_epoch = checkpoint["sched_epoch"]\n'
                  "    scheduler.last_epoch = sched_epoch",
                  "sched_epoch += 1", '"sched_epoch": sched_epoch, ')
    assert lrd007(src) == []


def test_the_scheduler_state_under_a_schedule_key_is_silent() -> None:
    # the value is the state itself, read back by a route of the program's own
    src = program("sched_state = None",
                  'sched_state = checkpoint["sched_state"]\n'
                  "    scheduler.load_state_dict(sched_state)",
                  "pass", '"sched_state": scheduler.state_dict(), ')
    assert lrd007(src) == []


def test_the_count_read_by_a_lambdalr_factor_is_silent() -> None:
    # the LambdaLR's factor reads the restored count: the program positions the warm-up itself
    src = HEAD.replace(
        "scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])\n", ""
    ) + """
sched_step = 0
start_epoch = 0
if args.resume:
    checkpoint = torch.load(args.resume)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    sched_step = checkpoint["sched_step"]
    start_epoch = checkpoint["epoch"]
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: min(1.0, (s + sched_step + 1) / 500))
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "sched_step": sched_step + epoch + 1, "epoch": epoch + 1}, "last.pth")
"""
    assert lrd007(src) == []


def test_the_count_logged_and_tested_is_still_a_count() -> None:
    # printing it, formatting it and testing it position nothing: the MultiStepLR is lost
    src = program("schedule_index = 1", 'schedule_index = checkpoint["schedule_index"]',
                  "if epoch in (30, 60) and schedule_index < 3:\n"
                  "        schedule_index += 1\n"
                  "        print(f'stage {schedule_index}')\n"
                  "        print('stage', schedule_index)",
                  '"schedule_index": schedule_index, ')
    assert len(lrd007(src)) == 2
