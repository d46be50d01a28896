"""LRD003 and a horizon read as batches only from its name: a Hugging Face warm-up schedule's
`num_training_steps` or OneCycleLR's `total_steps` given a setting whose stated default fits
the epoch loop that steps it (`--total_steps` 30 over 30 epochs) is sized in epochs whatever
the word says; a default that outlasts the run still counts batches."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import argparse
import torch
from torch import nn
from transformers import get_cosine_schedule_with_warmup, get_linear_schedule_with_warmup

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--warmup", type=int, default=3)
parser.add_argument("--total_steps", type=int, default={total})
args = parser.parse_args()
model = nn.Linear(4, 2)
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = {build}
for epoch in range(args.epochs):
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
"""

BUILDS = [
    "get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=args.warmup, "
    "num_training_steps=args.total_steps)",
    "get_linear_schedule_with_warmup(optimizer, args.warmup, args.total_steps)",
    "torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=args.total_steps)",
]


@pytest.mark.parametrize("build", BUILDS)
def test_named_total_whose_default_fits_the_epochs_is_silent(build: str) -> None:
    assert codes(SCRIPT.format(total=30, build=build)) == []


@pytest.mark.parametrize("build", BUILDS)
def test_named_total_whose_default_outlasts_the_epochs_is_reported(build: str) -> None:
    assert codes(SCRIPT.format(total=3000, build=build)) == ["LRD003"]


def test_total_computed_from_the_loader_is_reported_whatever_the_epochs() -> None:
    build = ("get_linear_schedule_with_warmup(optimizer, args.warmup, "
             "len(train_loader) * args.epochs)")
    assert codes(SCRIPT.format(total=30, build=build)) == ["LRD003"]
