"""A config class's constant read through the class (``CFG.scheduler``) beside a trainer
class that stores an attribute of the same name on itself (``self.scheduler = scheduler`` in
its ``__init__``): lead60, found by metamorphic.py's ``class`` rewrite of two Kaggle
notebooks (``fetch_scheduler`` picks the scheduler by ``CFG.scheduler``). Any store of an
attribute named ``scheduler`` anywhere made ``CFG.scheduler`` unknown, so every branch of the
pick was taken as possible: an error-level LRD002 "when `CFG.scheduler ==
'CosineAnnealingWarmRestarts'`" and an LRD004 for the plateau on a program that builds a
cosine. An instance's store on itself never changes the class attribute read through the
class; a store through the class (``CFG.scheduler = ...``) still does."""

from __future__ import annotations

import pytest

from .helpers import codes

PROGRAM = """
import torch
from torch.optim import lr_scheduler


class CFG:
    epochs = 10
    scheduler = {scheduler!r}
    T_max = 5000
    T_0 = 25
    min_lr = 1e-6


def fetch_scheduler(optimizer):
    if CFG.scheduler == "CosineAnnealingLR":
        scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=CFG.T_max, eta_min=CFG.min_lr)
    elif CFG.scheduler == "CosineAnnealingWarmRestarts":
        scheduler = lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=CFG.T_0, eta_min=CFG.min_lr)
    elif CFG.scheduler == "ReduceLROnPlateau":
        scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=7)
    else:
        scheduler = None
    return scheduler


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader

    def run_epoch(self):
        for x, y in self.loader:
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if self.scheduler is not None:
                self.scheduler.step()


model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = fetch_scheduler(optimizer)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
{store}
for epoch in range(CFG.epochs):
    Trainer(model, optimizer, scheduler, loader).run_epoch()
"""


def test_the_cosine_the_class_constant_picks_is_read_beside_the_trainers_own_store() -> None:
    assert codes(PROGRAM.format(scheduler="CosineAnnealingLR", store="")) == []


def test_the_plateau_the_class_constant_picks_is_still_found_without_a_metric() -> None:
    # (stepped every batch with a patience in epochs, and with no metric)
    assert codes(PROGRAM.format(scheduler="ReduceLROnPlateau", store="")) == ["LRD002", "LRD004"]


@pytest.mark.parametrize("store", ["CFG.scheduler = 'ReduceLROnPlateau'",
                                   "setattr(CFG, 'scheduler', 'ReduceLROnPlateau')"])
def test_a_store_through_the_class_still_makes_the_pick_unknown(store: str) -> None:
    # the store may run before the pick: the plateau branch is possible again
    assert "LRD004" in codes(PROGRAM.format(scheduler="CosineAnnealingLR", store=store))
