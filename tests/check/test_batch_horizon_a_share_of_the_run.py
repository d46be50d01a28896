"""LRD010 for a per-batch schedule sized `E * len(loader) // k` (k > 1 written there) stepped
after every batch of E epochs where every batch updates the optimizer: the schedule ends after
1/k of the run (OneCycleLR raises). Silent twins: the updates wait for k batches (the k is the
accumulation; LRD017's business when the step is not under it), the step is under its own
test, the loop runs E // 2 epochs, the batch loop leaves after half the loader, and the
horizon without the division. (lead55 saw `total_steps = E * len(loader) // 2` in real code;
fixed in lead56.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

SCRIPT = """
import argparse
import torch
from torch import nn

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=30)
args = p.parse_args()
model = nn.Linear(4, 2)
train_loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.{built}
for epoch in range({count}):
    for i, (x, y) in enumerate(train_loader):
{body}
"""

PLAIN = """\
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        scheduler.step()"""

ONECYCLE = "OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(train_loader) // 2)"
COSINE = "CosineAnnealingLR(optimizer, T_max=len(train_loader) * args.epochs / 4)"


@pytest.mark.parametrize("built", [ONECYCLE, COSINE])
def test_a_share_of_the_runs_batches_stepped_every_batch_is_reported(built: str) -> None:
    assert codes(SCRIPT.format(built=built, count="args.epochs", body=PLAIN)) == ["LRD010"]


def test_the_message_names_the_division() -> None:
    (message,) = messages(SCRIPT.format(built=ONECYCLE, count="args.epochs", body=PLAIN))
    assert "spans 1/2 of the run's batches" in message and "OneCycleLR raises" in message


SILENT_BODIES = {
    "updates every 2 batches, scheduler with them": """\
        nn.functional.cross_entropy(model(x), y).backward()
        if (i + 1) % 2 == 0:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()""",
    "scheduler under its own test": """\
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        if i % 2 == 0:
            scheduler.step()""",
    "leaves after half the loader": """\
        if i >= len(train_loader) // 2:
            break
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        scheduler.step()""",
}


@pytest.mark.parametrize("body", SILENT_BODIES.values(), ids=SILENT_BODIES.keys())
def test_a_share_that_the_loop_spends_in_time_is_silent(body: str) -> None:
    assert "LRD010" not in codes(SCRIPT.format(built=ONECYCLE, count="args.epochs", body=body))


def test_a_loop_over_half_the_epochs_or_an_undivided_horizon_is_silent() -> None:
    assert codes(SCRIPT.format(built=ONECYCLE, count="args.epochs // 2", body=PLAIN)) == []
    whole = "OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(train_loader))"
    assert codes(SCRIPT.format(built=whole, count="args.epochs", body=PLAIN)) == []
