"""A trainer class that picks its scheduler (or optimizer) per branch and keeps it on `self`
(`if lr_scheduler is None: self.lr_scheduler = LambdaLR(...) else: self.lr_scheduler =
lr_scheduler(self.optimizer)`): the attribute holds either option, as a local name does, so a
resume that restores `self.lr_scheduler` restores the readable option too (no LRD007), and
one that forgets it is LRD007."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loader, optimizer=None, lr_scheduler=None):
        self.model = model
        self.loader = loader
{optimizer}
{scheduler}

    def train(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                self.lr_scheduler.step()

    def load_checkpoint(self, path):
        state = torch.load(path, weights_only=True)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
{restore}
"""

OPTIMIZERS = {
    "default_or_factory": """\
        if optimizer is None:
            self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        else:
            self.optimizer = optimizer(model)""",
    "given": """\
        self.optimizer = optimizer""",
}

SCHEDULERS = {
    "default_or_factory": """\
        if lr_scheduler is None:
            self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lambda it: 1.0)
        else:
            self.lr_scheduler = lr_scheduler(self.optimizer)""",
    "factory_or_default": """\
        if lr_scheduler is not None:
            self.lr_scheduler = lr_scheduler(self.optimizer)
        else:
            self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=1000)""",
}

RESTORE = """\
        if self.lr_scheduler and "lr_scheduler" in state:
            self.lr_scheduler.load_state_dict(state["lr_scheduler"])"""


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
@pytest.mark.parametrize("scheduler", sorted(SCHEDULERS))
def test_resume_restoring_the_chosen_scheduler_attribute_is_silent(optimizer: str,
                                                                    scheduler: str) -> None:
    src = TRAINER.format(optimizer=OPTIMIZERS[optimizer], scheduler=SCHEDULERS[scheduler],
                         restore=RESTORE)
    assert codes(src) == []


@pytest.mark.parametrize("scheduler", sorted(SCHEDULERS))
def test_resume_forgetting_the_chosen_scheduler_attribute_is_lrd007(scheduler: str) -> None:
    src = TRAINER.format(optimizer=OPTIMIZERS["default_or_factory"],
                         scheduler=SCHEDULERS[scheduler], restore="")
    assert codes(src) == ["LRD007"]
