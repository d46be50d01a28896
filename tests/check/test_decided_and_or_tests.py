"""An `and` / `or` test decided from its operands (fphunt62's p04b, the Cassava-notebook
shape): `train_one_epoch(..., scheduler=scheduler, schd_batch_update=True)` with `if scheduler
is not None and schd_batch_update: scheduler.step()` in the batch loop steps an epoch-sized
cosine every batch (LRD002), as the same call with the flag alone in the test already was;
with the caller's flag False the step runs once per epoch after the loop (silent). Each
operand is decided on its own (a built object against None, a literal the caller passed) and
the whole follows. (lead55.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import torch
from torch import nn


def train_one_epoch(model, optimizer, loader, scheduler=None, schd_batch_update=False):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if {inner}:
            scheduler.step()
    if {outer}:
        scheduler.step()


EPOCHS = 10
model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)
for epoch in range(EPOCHS):
    train_one_epoch(model, optimizer, loader, scheduler=scheduler, schd_batch_update={flag})
"""

TESTS = [
    ("scheduler is not None and schd_batch_update",
     "scheduler is not None and not schd_batch_update"),
    ("schd_batch_update and scheduler is not None",
     "not (scheduler is None or schd_batch_update)"),
]


@pytest.mark.parametrize("inner, outer", TESTS)
def test_per_batch_step_chosen_by_the_callers_flag_is_reported(inner: str, outer: str) -> None:
    assert codes(SCRIPT.format(inner=inner, outer=outer, flag="True")) == ["LRD002"]


@pytest.mark.parametrize("inner, outer", TESTS)
def test_per_epoch_step_chosen_by_the_callers_flag_is_silent(inner: str, outer: str) -> None:
    assert codes(SCRIPT.format(inner=inner, outer=outer, flag="False")) == []


def test_flag_alone_was_already_decided() -> None:
    assert codes(SCRIPT.format(inner="schd_batch_update", outer="not schd_batch_update",
                               flag="True")) == ["LRD002"]
