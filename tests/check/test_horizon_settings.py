"""Horizons taken from settings: a StepLR step size from `args.lr_step` or a variable named
`step` is not a count of batches just because its name says "step"; argparse defaults and
config constants say what the file runs with."""

from __future__ import annotations

from tests.check.helpers import codes, messages

HEADER = """
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--lr-step", type=int, default=30)
parser.add_argument("--lr-steps", type=int, nargs="+", default=[30, 60, 80])
parser.add_argument("--decay-iters", type=int, default=50000)
args = parser.parse_args()
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def per_epoch(constructor: str) -> str:
    return HEADER + f"""
scheduler = {constructor}
for epoch in range(args.epochs):
    for x in loader:
        optimizer.step()
    scheduler.step()
"""


def per_batch(constructor: str) -> str:
    return HEADER + f"""
scheduler = {constructor}
for epoch in range(args.epochs):
    for x in loader:
        optimizer.step()
        scheduler.step()
"""


def test_steplr_from_args_lr_step_stepped_per_epoch_is_fine() -> None:
    src = per_epoch("torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_step)")
    assert codes(src) == []


def test_steplr_from_a_variable_named_step_stepped_per_epoch_is_fine() -> None:
    src = per_epoch("torch.optim.lr_scheduler.StepLR(optimizer, step_size=step)").replace(
        "scheduler =", "step = args.lr_step\nscheduler =", 1
    )
    assert codes(src) == []


def test_multisteplr_from_args_lr_steps_stepped_per_epoch_is_fine() -> None:
    src = per_epoch("torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_steps)")
    assert codes(src) == []


def test_steplr_from_args_lr_step_stepped_per_batch_reads_the_default() -> None:
    src = per_batch("torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.lr_step)")
    assert codes(src) == ["LRD002"]
    assert "every 30 batches" in messages(src)[0]


def test_multisteplr_milestones_from_argparse_default_stepped_per_batch_is_reported() -> None:
    src = per_batch("torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_steps)")
    assert codes(src) == ["LRD002"]


def test_steplr_sized_in_iterations_stepped_per_epoch_is_still_reported() -> None:
    src = per_epoch("torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.decay_iters)")
    assert codes(src) == ["LRD003"]


def test_cosine_over_total_steps_stepped_per_epoch_is_still_reported() -> None:
    src = per_epoch(
        "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(loader))"
    )
    assert codes(src) == ["LRD003"]


def test_steplr_step_size_named_after_the_optimizer_it_belongs_to_is_not_batches() -> None:
    # a GAN config holds one `<net>_optimizer_step_size` per network: the key only repeats
    # StepLR's parameter name, it does not say the step size counts batches
    src = per_epoch(
        'torch.optim.lr_scheduler.StepLR(optimizer, cfg["train"]["g_optimizer_step_size"])'
    ).replace("scheduler =", 'cfg = {"train": {}}\nscheduler =', 1)
    assert codes(src) == []


def test_steplr_step_size_qualified_by_iterations_stepped_per_epoch_is_still_reported() -> None:
    src = per_epoch(
        'torch.optim.lr_scheduler.StepLR(optimizer, cfg["train"]["iter_step_size"])'
    ).replace("scheduler =", 'cfg = {"train": {}}\nscheduler =', 1)
    assert codes(src) == ["LRD003"]
