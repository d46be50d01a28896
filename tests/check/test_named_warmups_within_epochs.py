"""LRD003 and horizons read as batches only from their names, for warm-ups, milestones written
as shares of a count, and SequentialLR: `LinearLR(total_iters=args.warmup_iters)` (default 5),
`MultiStepLR(milestones=[int(0.6 * args.num_steps), ...])` and `SequentialLR(milestones=
[args.warmup_iters])` over a warm-up and a cosine whose stated lengths fit the epoch loop that
steps them are sized in epochs; the same with defaults that outlast the run, or a member sized
from the loader, still report. (lead55 probes.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import argparse
import torch
from torch import nn

S = torch.optim.lr_scheduler
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--warmup_iters", type=int, default={warmup})
parser.add_argument("--num_steps", type=int, default={total})
args = parser.parse_args()
model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
{build}
for epoch in range(args.epochs):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
"""

BUILDS = [
    "scheduler = S.LinearLR(optimizer, start_factor=0.1, total_iters=args.warmup_iters)",
    "scheduler = S.MultiStepLR(optimizer, milestones=[int(0.6 * args.num_steps), "
    "int(0.8 * args.num_steps)])",
    "warm = S.LinearLR(optimizer, 0.1, total_iters=args.warmup_iters)\n"
    "cos = S.CosineAnnealingLR(optimizer, T_max=args.num_steps - args.warmup_iters)\n"
    "scheduler = S.SequentialLR(optimizer, [warm, cos], milestones=[args.warmup_iters])",
]


@pytest.mark.parametrize("build", BUILDS)
def test_named_lengths_that_fit_the_epochs_are_silent(build: str) -> None:
    assert codes(SCRIPT.format(warmup=5, total=100, build=build)) == []


@pytest.mark.parametrize("build", BUILDS)
def test_named_lengths_that_outlast_the_epochs_are_reported(build: str) -> None:
    assert codes(SCRIPT.format(warmup=500, total=100000, build=build)) == ["LRD003"]


def test_sequential_member_sized_from_the_loader_is_reported() -> None:
    build = BUILDS[2].replace("T_max=args.num_steps - args.warmup_iters",
                              "T_max=len(loader) * args.epochs")
    assert codes(SCRIPT.format(warmup=5, total=100, build=build)) == ["LRD003"]


def test_warmup_sized_from_the_loader_is_reported() -> None:
    build = BUILDS[0].replace("total_iters=args.warmup_iters)",
                              "total_iters=args.warmup_iters * len(loader))")
    assert codes(SCRIPT.format(warmup=5, total=100, build=build)) == ["LRD003"]


def test_share_of_the_count_stepped_per_batch_is_silent() -> None:
    per_batch = SCRIPT.replace("        optimizer.step()\n    scheduler.step()",
                               "        optimizer.step()\n        scheduler.step()")
    assert codes(per_batch.format(warmup=500, total=100000, build=BUILDS[1])) == []
