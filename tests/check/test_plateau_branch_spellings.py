"""`ReduceLROnPlateau` or another scheduler chosen by a setting, then stepped through a test
on what it is: `isinstance` with the class reached through any import path, `type(...).__name__`,
the setting's own name. The branch that cannot run for the built scheduler says nothing: no
LRD004 for a plateau stepped with its metric, no LRD006 for the other branch."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch
import torch.optim as optim
from torch.optim import lr_scheduler
from torch.optim.lr_scheduler import ReduceLROnPlateau

def evaluate(model, loader):
    return sum(float(model(x).sum()) for x in loader)

def train(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = {build}
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        val_loss = evaluate(model, val_loader)
        if {test}:
            scheduler.step(val_loss)
        else:
            scheduler.step()
"""

_TESTS = {
    "isinstance_from_import": "isinstance(scheduler, ReduceLROnPlateau)",
    "isinstance_module_path": "isinstance(scheduler, lr_scheduler.ReduceLROnPlateau)",
    "isinstance_aliased_optim": "isinstance(scheduler, optim.lr_scheduler.ReduceLROnPlateau)",
    "isinstance_full_path": "isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau)",
}

_BUILDS = {
    "plateau": "ReduceLROnPlateau(optimizer, mode='min', patience=5)",
    "cosine": "lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)",
}


@pytest.mark.parametrize("build", sorted(_BUILDS))
@pytest.mark.parametrize("test", sorted(_TESTS))
def test_scheduler_stepped_through_a_test_on_its_class_is_correct(test: str, build: str) -> None:
    assert codes(_SCRIPT.format(build=_BUILDS[build], test=_TESTS[test])) == []
