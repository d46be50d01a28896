"""The per-update work moved out of the loop body the ways real code moves it: a nested
function, a closure returned by a `make_train_step` factory, a private method, a
`functools.partial`. An epoch-sized cosine stepped inside that work is LRD002; the same
helper without the scheduler step, and the step after the batches, is correct."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPTS = {
    "nested_function": """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)

    def update(x):
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
{in_helper}
    for epoch in range(epochs):
        for x in loader:
            update(x)
{after}""",
    "closure_from_a_factory": """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def make_train_step(model, optimizer, scheduler):
    def train_step(x):
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
{in_helper_deeper}
    return train_step

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
    train_step = make_train_step(model, optimizer, scheduler)
    for epoch in range(epochs):
        for x in loader:
            train_step(x)
{after}""",
    "private_method": """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

class Trainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = CosineAnnealingLR(self.optimizer, T_max=epochs)

    def _optimizer_step(self):
        self.optimizer.step()
        self.optimizer.zero_grad()
{in_helper_self}
    def train(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.model(x).sum().backward()
                self._optimizer_step()
{after_self}""",
    "functools_partial": """
import functools
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def train_step(x, model, optimizer, scheduler):
    optimizer.zero_grad()
    model(x).sum().backward()
    optimizer.step()
{in_helper_top}
def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
    step = functools.partial(train_step, model=model, optimizer=optimizer, scheduler=scheduler)
    for epoch in range(epochs):
        for x in loader:
            step(x)
{after}""",
}


def _script(name: str, in_helper: bool) -> str:
    helper = {
        "in_helper": "        scheduler.step()\n",
        "in_helper_deeper": "        scheduler.step()\n",
        "in_helper_self": "        self.scheduler.step()\n",
        "in_helper_top": "    scheduler.step()\n",
    }
    after = {"after": "        scheduler.step()\n", "after_self": "            self.scheduler.step()\n"}
    fields = {k: (v if in_helper else "") for k, v in helper.items()}
    fields.update({k: ("" if in_helper else v) for k, v in after.items()})
    return _SCRIPTS[name].format(**fields)


@pytest.mark.parametrize("name", sorted(_SCRIPTS))
def test_epoch_cosine_stepped_in_the_per_update_helper_is_lrd002(name: str) -> None:
    assert codes(_script(name, in_helper=True)) == ["LRD002"]


@pytest.mark.parametrize("name", sorted(_SCRIPTS))
def test_epoch_cosine_stepped_after_the_batches_is_correct(name: str) -> None:
    assert codes(_script(name, in_helper=False)) == []
