"""A scheduler step under a guard of its own (`if i == len(loader) - 1:`, `if is_last_batch
and (epoch + 1) % k == 0:`) does not run every batch nor every micro-batch: silent for LRD002
and LRD017. A guard it shares with the optimizer step (`if mode == "train":` around both)
is no guard of its own: the step still runs every micro-batch when only the optimizer step
sits under the accumulation test."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import torch

def train(model, loader, epochs, accum=4, mode="train"):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = {sched}
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            loss = torch.nn.functional.mse_loss(model(x), y) / accum
{body}
"""

STEP_EPOCHS = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)"
PER_UPDATE = "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 500))"

OWN_GUARDS = {
    "last_batch_index": """\
            loss.backward()
            if (i + 1) % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
            if i == len(loader) - 1:
                scheduler.step()""",
    "last_batch_flag_and_period": """\
            loss.backward()
            if (i + 1) % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
            is_last = i + 1 == len(loader)
            if is_last and (epoch + 1) % 2 == 0:
                scheduler.step()""",
    "last_batch_and_period_inline": """\
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if i == len(loader) - 1 and (epoch + 1) % 2 == 0:
                scheduler.step()""",
}


@pytest.mark.parametrize("spelling", sorted(OWN_GUARDS))
def test_epoch_scheduler_stepped_under_a_last_batch_guard_is_silent(spelling: str) -> None:
    assert codes(SCRIPT.format(sched=STEP_EPOCHS, body=OWN_GUARDS[spelling])) == []


SHARED_GUARDS = {
    "mode_guard_around_both": """\
            if mode == "train":
                loss.backward()
                if i % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                scheduler.step()""",
    "training_flag_around_both": """\
            if model.training:
                loss.backward()
                if (i + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
                scheduler.step()""",
}


@pytest.mark.parametrize("spelling", sorted(SHARED_GUARDS))
def test_per_update_scheduler_under_the_update_guard_only_is_lrd017(spelling: str) -> None:
    assert codes(SCRIPT.format(sched=PER_UPDATE, body=SHARED_GUARDS[spelling])) == ["LRD017"]
