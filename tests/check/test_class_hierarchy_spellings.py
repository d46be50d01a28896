"""Trainer class hierarchies as real projects write them: the base class owns the epoch loop
and calls hooks the subclass defines; the scheduler reaches the base through
`super().__init__(...)`, `super(Sub, self).__init__(...)`, `Base.__init__(self, ...)`, or a
builder method the subclass overrides. An epoch-sized cosine stepped per batch is LRD002 and a
OneCycleLR stepped per epoch is LRD003, whichever way the pieces are joined."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_BASE = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, OneCycleLR

class BaseTrainer:
    def __init__(self, model, loader, epochs, optimizer=None, scheduler=None):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = optimizer
        self.scheduler = scheduler

    def fit(self):
        for epoch in range(self.epochs):
            self.train_epoch(epoch)
            self.on_epoch_end(epoch)

    def train_epoch(self, epoch):
        raise NotImplementedError

    def on_epoch_end(self, epoch):
        pass

"""

_SUBCLASSES = {
    "super_init": """
class Trainer(BaseTrainer):
    def __init__(self, model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        super().__init__(model, loader, epochs, optimizer, {build})
""",
    "old_style_super_init": """
class Trainer(BaseTrainer):
    def __init__(self, model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        super(Trainer, self).__init__(model, loader, epochs, optimizer=optimizer,
                                      scheduler={build})
""",
    "explicit_base_init": """
class Trainer(BaseTrainer):
    def __init__(self, model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        BaseTrainer.__init__(self, model, loader, epochs, optimizer, scheduler={build})
""",
    "attributes_set_after_super_init": """
class Trainer(BaseTrainer):
    def __init__(self, model, loader, epochs):
        super().__init__(model, loader, epochs)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.optimizer = optimizer
        self.scheduler = {build}
""",
}

_WORK = {
    "per_batch": """
    def train_epoch(self, epoch):
        for x in self.loader:
            self.optimizer.zero_grad()
            self.model(x).sum().backward()
            self.optimizer.step()
            self.scheduler.step()
""",
    "per_epoch_hook": """
    def train_epoch(self, epoch):
        for x in self.loader:
            self.optimizer.zero_grad()
            self.model(x).sum().backward()
            self.optimizer.step()

    def on_epoch_end(self, epoch):
        self.scheduler.step()
""",
}

_BUILDS = {
    "epoch": "CosineAnnealingLR(optimizer, T_max=epochs)",
    "batch": "OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))",
}

_DRIVER = """
def main(model, loader):
    Trainer(model, loader, epochs=90).fit()
"""


def _script(sub: str, work: str, horizon: str) -> str:
    return (_BASE + _SUBCLASSES[sub].format(build=_BUILDS[horizon]) + _WORK[work] + _DRIVER)


@pytest.mark.parametrize("sub", sorted(_SUBCLASSES))
def test_epoch_cosine_stepped_per_batch_by_the_subclass_is_lrd002(sub: str) -> None:
    assert codes(_script(sub, "per_batch", "epoch")) == ["LRD002"]


@pytest.mark.parametrize("sub", sorted(_SUBCLASSES))
def test_epoch_cosine_stepped_in_the_epoch_hook_is_correct(sub: str) -> None:
    assert codes(_script(sub, "per_epoch_hook", "epoch")) == []


@pytest.mark.parametrize("sub", sorted(_SUBCLASSES))
def test_onecycle_stepped_in_the_epoch_hook_is_lrd003(sub: str) -> None:
    assert codes(_script(sub, "per_epoch_hook", "batch")) == ["LRD003"]


@pytest.mark.parametrize("sub", sorted(_SUBCLASSES))
def test_onecycle_stepped_per_batch_by_the_subclass_is_correct(sub: str) -> None:
    assert codes(_script(sub, "per_batch", "batch")) == []


_BUILDER_METHOD = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, OneCycleLR

class BaseTrainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = self.build_optimizer()
        self.scheduler = self.build_scheduler(self.optimizer)

    def build_optimizer(self):
        return torch.optim.SGD(self.model.parameters(), lr=0.1)

    def build_scheduler(self, optimizer):
        return None

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
                if self.scheduler is not None:
                    self.scheduler.step()

class CosineTrainer(BaseTrainer):
    def build_scheduler(self, optimizer):
        return {build}

def main(model, loader):
    CosineTrainer(model, loader, 90).fit()
"""


def test_scheduler_from_an_overridden_builder_stepped_per_batch_is_lrd002() -> None:
    src = _BUILDER_METHOD.format(build="CosineAnnealingLR(optimizer, T_max=self.epochs)")
    assert codes(src) == ["LRD002"]


def test_onecycle_from_an_overridden_builder_stepped_per_batch_is_correct() -> None:
    src = _BUILDER_METHOD.format(
        build="OneCycleLR(optimizer, max_lr=0.1, total_steps=self.epochs * len(self.loader))")
    assert codes(src) == []


_BOTH_LEVELS = """
    def train_epoch(self, epoch):
        for x in self.loader:
            self.optimizer.zero_grad()
            self.model(x).sum().backward()
            self.optimizer.step()
            self.scheduler.step()

    def on_epoch_end(self, epoch):
        self.scheduler.step()
"""


@pytest.mark.parametrize("sub", sorted(_SUBCLASSES))
def test_scheduler_stepped_per_batch_and_again_in_the_epoch_hook_is_lrd012(sub: str) -> None:
    src = (_BASE + _SUBCLASSES[sub].format(build=_BUILDS["batch"]) + _BOTH_LEVELS + _DRIVER)
    assert codes(src) == ["LRD012"]
