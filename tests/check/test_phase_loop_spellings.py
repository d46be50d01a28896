"""The transfer-learning tutorial's phase loop, as real code varies it: phases in a list or a
tuple, named "train"/"val" or "train"/"valid", the test spelled `==`, `in`, or through a
variable. Stepping the scheduler on the training phase before its batches is LRD001; after
them it is correct."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch
from torch.optim import lr_scheduler

def train_model(model, criterion, dataloaders, num_epochs=25):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    scheduler = lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
    for epoch in range(num_epochs):
        for phase in {phases}:
{before}
            for inputs, labels in dataloaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    loss = criterion(model(inputs), labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
{after}
"""

_PHASES = {
    "list": '["train", "val"]',
    "tuple_valid": "('train', 'valid')",
}

_TESTS = {
    "equals": 'phase == "train"',
    "in_a_list": 'phase in ["train"]',
    "through_a_variable": "is_train",
}


def _script(phases: str, test: str, before: bool) -> str:
    condition = _TESTS[test]
    setup = '            is_train = phase == "train"\n' if test == "through_a_variable" else ""
    step = (f"            if {condition}:\n                scheduler.step()\n"
            "                model.train()\n            else:\n                model.eval()")
    after = f"            if {condition}:\n                scheduler.step()"
    return _SCRIPT.format(phases=_PHASES[phases], before=setup + (step if before else ""),
                          after=after if not before else "")


@pytest.mark.parametrize("test", sorted(_TESTS))
@pytest.mark.parametrize("phases", sorted(_PHASES))
def test_scheduler_stepped_before_the_training_batches_is_lrd001(phases: str, test: str) -> None:
    assert codes(_script(phases, test, before=True)) == ["LRD001"]


@pytest.mark.parametrize("test", sorted(_TESTS))
@pytest.mark.parametrize("phases", sorted(_PHASES))
def test_scheduler_stepped_after_the_training_batches_is_correct(phases: str, test: str) -> None:
    assert codes(_script(phases, test, before=False)) == []
