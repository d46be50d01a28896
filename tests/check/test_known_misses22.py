"""The dev split's remaining misses and its false alarm, by their general shapes (devmiss16).

Programs written for these tests; no third-party code."""

from __future__ import annotations

import pytest

from .helpers import codes

# 1. A trainer base class runs a validation pass after each epoch, summing what the
#    per-batch validation method returns; a subclass made for training without validation
#    overrides that method with an empty body and steps its ReduceLROnPlateau on the training
#    loss. Its validation pass computes nothing, so there is no validation metric to prefer:
#    silent. The twin whose per-batch validation returns a loss is reported (LRD004).

EPOCH_LOOP = """
import torch
import torch.nn.functional as F


class EpochLoop:
    def __init__(self, model, epochs):
        self.model = model
        self.epochs = epochs
        self.train_loss = 0.0
        self.val_loss = 0.0

    def fit(self, train_data, val_data=None):
        self.setup()
        for epoch in range(self.epochs):
            self.train_loss = self.one_epoch(train_data)
            if val_data:
                self.check_epoch(val_data)
            self.epoch_done()

    def check_epoch(self, val_data):
        total = 0
        for batch in val_data:
{accumulate}
        self.val_loss = total / len(val_data)

    def epoch_done(self):
        pass


class TrainOnlyLoop(EpochLoop):
    def setup(self):
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt, patience=3)

    def one_epoch(self, data):
        total = 0.0
        for x, y in data:
            self.opt.zero_grad()
            loss = F.mse_loss(self.model(x), y)
            loss.backward()
            self.opt.step()
            total += loss.item()
        return total / len(data)

    def check_batch(self, batch):
{check_body}

    def epoch_done(self):
        self.plateau.step(self.train_loss)
{sibling}"""

# a sibling subclass that does validate, and steps its own plateau on the validation loss
_SIBLING = """

class CheckedLoop(TrainOnlyLoop):
    def check_batch(self, batch):
        x, y = batch
        with torch.no_grad():
            return F.mse_loss(self.model(x), y).item()

    def epoch_done(self):
        self.plateau.step(self.val_loss)
"""
_TWO_STEPS = ("            part = self.check_batch(batch)\n"
              "            total += part")
_ONE_STEP = "            total += self.check_batch(batch)"

_EMPTY = "        pass\n"
_DOCSTRING = '        """No validation in this loop."""\n'
_REAL = ("        x, y = batch\n"
         "        with torch.no_grad():\n"
         "            return F.mse_loss(self.model(x), y).item()\n")


@pytest.mark.parametrize("body", [_EMPTY, _DOCSTRING])
@pytest.mark.parametrize("accumulate", [_TWO_STEPS, _ONE_STEP])
@pytest.mark.parametrize("sibling", ["", _SIBLING])
def test_plateau_on_training_loss_in_a_subclass_whose_validation_is_empty_is_silent(
        body: str, accumulate: str, sibling: str) -> None:
    source = EPOCH_LOOP.format(check_body=body, accumulate=accumulate, sibling=sibling)
    assert "LRD004" not in codes(source)


@pytest.mark.parametrize("accumulate", [_TWO_STEPS, _ONE_STEP])
@pytest.mark.parametrize("sibling", ["", _SIBLING])
def test_plateau_on_training_loss_in_a_subclass_that_validates_is_reported(
        accumulate: str, sibling: str) -> None:
    source = EPOCH_LOOP.format(check_body=_REAL, accumulate=accumulate, sibling=sibling)
    assert "LRD004" in codes(source)

