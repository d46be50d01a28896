"""LRD001 and the guards real epoch loops put around a scheduler step at the top of the loop:
a guard false on the first pass (`epoch > 0`, `epoch != 0`, `if epoch:`, past an argparse
warm-up) keeps the first LR value; one true on the first pass (`epoch % 10 == 0`,
`epoch >= 0`) or no guard at all skips it, however the epoch loop is spelled."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import argparse
import torch
from torch.optim.lr_scheduler import MultiStepLR

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--warmup-epochs", type=int, default=5)
parser.add_argument("--start-epoch", type=int, default=0)
args = parser.parse_args()

def train(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = MultiStepLR(optimizer, milestones=[30, 60])
    for epoch in {epochs}:
{guard}
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
"""

_EPOCH_LOOPS = {
    "range_of_the_setting": "range(args.epochs)",
    "range_from_the_start_epoch": "range(args.start_epoch, args.epochs)",
    "range_from_one": "range(1, args.epochs + 1)",
}

_KEEPS_FIRST = {
    "greater_than_zero": "        if epoch > 0:\n            scheduler.step()",
    "not_equal_zero": "        if epoch != 0:\n            scheduler.step()",
    "past_an_argparse_warmup": ("        if epoch >= args.warmup_epochs:\n"
                                "            scheduler.step()"),
    "past_the_start_epoch": "        if epoch > args.start_epoch:\n            scheduler.step()",
}

_SKIPS_FIRST = {
    "unguarded": "        scheduler.step()",
    "every_tenth_epoch_from_zero": ("        if epoch % 10 == 0:\n"
                                    "            scheduler.step()"),
    "at_or_after_the_start_epoch": ("        if epoch >= args.start_epoch:\n"
                                    "            scheduler.step()"),
}


@pytest.mark.parametrize("guard", sorted(_KEEPS_FIRST))
def test_guard_false_on_the_first_epoch_is_correct(guard: str) -> None:
    src = _SCRIPT.format(epochs=_EPOCH_LOOPS["range_from_the_start_epoch"]
                         if guard == "past_the_start_epoch" else "range(args.epochs)",
                         guard=_KEEPS_FIRST[guard])
    assert codes(src) == []


def test_truthy_epoch_counted_from_zero_is_correct() -> None:
    src = _SCRIPT.format(epochs="range(args.epochs)",
                         guard="        if epoch:\n            scheduler.step()")
    assert codes(src) == []


_FIRST_PASS_STEPS = [
    ("range_of_the_setting", "unguarded"),
    ("range_from_the_start_epoch", "unguarded"),
    ("range_from_one", "unguarded"),
    ("range_of_the_setting", "every_tenth_epoch_from_zero"),
    ("range_from_the_start_epoch", "at_or_after_the_start_epoch"),
]


@pytest.mark.parametrize("epochs,guard", _FIRST_PASS_STEPS)
def test_step_that_runs_before_the_first_update_is_lrd001(epochs: str, guard: str) -> None:
    src = _SCRIPT.format(epochs=_EPOCH_LOOPS[epochs], guard=_SKIPS_FIRST[guard])
    assert codes(src) == ["LRD001"]


def test_every_tenth_epoch_from_a_resumable_start_is_left_alone() -> None:
    # whether the first epoch of the run is a multiple of ten depends on where it resumes
    src = _SCRIPT.format(epochs=_EPOCH_LOOPS["range_from_the_start_epoch"],
                         guard=_SKIPS_FIRST["every_tenth_epoch_from_zero"])
    assert codes(src) == []


_WHILE = """
import torch
from torch.optim.lr_scheduler import StepLR

def train(model, loader, max_epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=30)
    epoch = 0
    while epoch < max_epochs:
{top}
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
{bottom}
        epoch += 1
"""


def test_while_epoch_loop_stepping_at_the_top_is_lrd001() -> None:
    assert codes(_WHILE.format(top="        scheduler.step()", bottom="")) == ["LRD001"]


def test_while_epoch_loop_stepping_after_the_batches_is_correct() -> None:
    assert codes(_WHILE.format(top="", bottom="        scheduler.step()")) == []


_TRAIN_CALL = """
import torch
from torch.optim.lr_scheduler import StepLR

def train_one_epoch(model, loader, optimizer):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()

def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=30)
    for epoch in range(epochs):
{body}
"""


def test_step_before_the_epoch_function_is_lrd001() -> None:
    body = ("        scheduler.step()\n"
            "        train_one_epoch(model, loader, optimizer)")
    assert codes(_TRAIN_CALL.format(body=body)) == ["LRD001"]


def test_step_after_the_epoch_function_is_correct() -> None:
    body = ("        train_one_epoch(model, loader, optimizer)\n"
            "        scheduler.step()")
    assert codes(_TRAIN_CALL.format(body=body)) == []


def test_step_after_the_epoch_function_and_an_evaluation_is_correct() -> None:
    body = ("        train_one_epoch(model, loader, optimizer)\n"
            "        with torch.no_grad():\n"
            "            for x in loader:\n"
            "                model(x)\n"
            "        scheduler.step()")
    assert codes(_TRAIN_CALL.format(body=body)) == []
