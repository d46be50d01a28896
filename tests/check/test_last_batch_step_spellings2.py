"""A scheduler stepped only on the last batch of each epoch (`if self.trainer.is_last_batch:`
in Lightning's manual optimization, `if i == len(loader) - 1:`, `if i + 1 == len(loader):`)
steps once per epoch: a schedule counted in batches (OneCycleLR over epochs * len(loader)) is
then LRD003, an epoch-sized one is right. Other guards of its own stay silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

LIGHTNING = """
import torch
import lightning as L

class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.automatic_optimization = False
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sch = self.lr_schedulers()
        loss = self.net(batch).sum()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        if self.trainer.is_last_batch:
            sch.step()
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=0.1)
        scheduler = {sched}
        return {{"optimizer": optimizer, "lr_scheduler": scheduler}}
"""

LOOP = """
import torch

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = {sched}
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            if {test}:
                scheduler.step()
"""

PER_BATCH = {
    "lightning": "torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, "
                 "total_steps=self.trainer.estimated_stepping_batches)",
    "loop": "torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, "
            "total_steps=epochs * len(loader))",
}
PER_EPOCH = {
    "lightning": "torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)",
    "loop": "torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)",
}
LAST_BATCH_TESTS = ["i == len(loader) - 1", "i + 1 == len(loader)", "len(loader) - 1 == i"]


def test_batch_sized_schedule_stepped_on_lightnings_last_batch_is_lrd003() -> None:
    assert codes(LIGHTNING.format(sched=PER_BATCH["lightning"])) == ["LRD003"]


def test_epoch_sized_schedule_stepped_on_lightnings_last_batch_is_fine() -> None:
    assert codes(LIGHTNING.format(sched=PER_EPOCH["lightning"])) == []


@pytest.mark.parametrize("test", LAST_BATCH_TESTS)
def test_batch_sized_schedule_stepped_on_the_last_batch_is_lrd003(test: str) -> None:
    assert codes(LOOP.format(sched=PER_BATCH["loop"], test=test)) == ["LRD003"]


@pytest.mark.parametrize("test", LAST_BATCH_TESTS)
def test_epoch_sized_schedule_stepped_on_the_last_batch_is_fine(test: str) -> None:
    assert codes(LOOP.format(sched=PER_EPOCH["loop"], test=test)) == []


@pytest.mark.parametrize("test", ["i == 0", "i % 2 == 0", "i > 100"])
def test_other_guards_of_its_own_are_left_alone(test: str) -> None:
    assert codes(LOOP.format(sched=PER_BATCH["loop"], test=test)) == []
