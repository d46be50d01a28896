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


# A trainer that takes the scheduler from its caller (its class unknown here) and steps it
# under `isinstance(..., ReduceLROnPlateau)`: in that branch it is a plateau, and what it is
# given to watch is judged (LRD004), not how (its mode is not known)
_USER_CHOSEN = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, train_loader, val_loader):
        self.model, self.optimizer, self.lr_scheduler = model, optimizer, lr_scheduler
        self.train_loader, self.val_loader = train_loader, val_loader

    def evaluate(self):
        with torch.no_grad():
            return sum(self.model(x).sum().item() for x in self.val_loader)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x in self.train_loader:
                self.optimizer.zero_grad()
                loss = self.model(x).sum()
                loss.backward()
                self.optimizer.step()
            val_loss = self.evaluate()
            {branch}
"""


@pytest.mark.parametrize("branch", [
    "if isinstance(self.lr_scheduler, ReduceLROnPlateau):\n"
    "                self.lr_scheduler.step({metric})\n"
    "            elif self.lr_scheduler is not None:\n"
    "                self.lr_scheduler.step()",
    "if not isinstance(self.lr_scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):\n"
    "                self.lr_scheduler.step()\n"
    "            else:\n"
    "                self.lr_scheduler.step({metric})",
])
def test_a_scheduler_of_unknown_class_is_a_plateau_under_its_class_test(branch: str) -> None:
    wrong = _USER_CHOSEN.format(branch=branch.format(metric="loss"))
    assert codes(wrong) == ["LRD004"]
    right = _USER_CHOSEN.format(branch=branch.format(metric="val_loss"))
    assert codes(right) == []


def test_a_plateau_known_by_its_class_test_alone_is_not_judged_on_its_mode() -> None:
    # `val_acc` with the default mode would be LRD004 for a ReduceLROnPlateau built here; the
    # caller's may have been built with mode="max"
    branch = ("if isinstance(self.lr_scheduler, ReduceLROnPlateau):\n"
              "                self.lr_scheduler.step(val_acc)")
    assert codes(_USER_CHOSEN.replace("val_loss = self.evaluate()", "val_acc = self.evaluate()")
                 .format(branch=branch)) == []
