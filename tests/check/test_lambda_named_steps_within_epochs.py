"""LRD003 and a LambdaLR factor read as batches only from the words of the settings it reads
(`lambda it: (1 - it / args.max_iter) ** 0.9`, the "poly" schedule of segmentation code):
when every such setting states a number (an argparse default, a module constant) within the
epoch loop that steps it (`--max_iter` 30 over 30 epochs), the factor is sized in epochs
whatever its words say; a default that outlasts the run, or a count of batches taken from the
loader, still says batches. (lead55, after lead54's probe of the same shape.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import argparse
import torch
from torch import nn

MAX_ITERS = {total}

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--warmup_iters", type=int, default=3)
parser.add_argument("--max_iter", type=int, default={total})
args = parser.parse_args()
model = nn.Linear(4, 2)
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def poly(it):
    return (1 - it / MAX_ITERS) ** 0.9


scheduler = {build}
for epoch in range(args.epochs):
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
"""

FACTORS = [
    "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1 - it / args.max_iter) ** 0.9)",
    "torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=poly)",
    "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: min(1.0, (it + 1) / "
    "args.warmup_iters) * (1 - it / args.max_iter))",
]


@pytest.mark.parametrize("build", FACTORS)
def test_factor_whose_settings_fit_the_epochs_is_silent(build: str) -> None:
    assert codes(SCRIPT.format(total=30, build=build)) == []


@pytest.mark.parametrize("build", FACTORS)
def test_factor_whose_setting_outlasts_the_epochs_is_reported(build: str) -> None:
    assert codes(SCRIPT.format(total=30000, build=build)) == ["LRD003"]


def test_factor_counting_the_loaders_batches_is_reported() -> None:
    build = ("torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1 - it / "
             "(len(train_loader) * args.max_iter)) ** 0.9)")
    assert codes(SCRIPT.format(total=30, build=build)) == ["LRD003"]


def test_factor_stepped_per_batch_with_a_fitting_setting_stays_silent() -> None:
    # the same factor stepped after every update is what the words say: nothing to report
    per_batch = SCRIPT.replace("        optimizer.step()\n    scheduler.step()",
                               "        optimizer.step()\n        scheduler.step()")
    assert codes(per_batch.format(
        total=30000, build=FACTORS[0])) == []
