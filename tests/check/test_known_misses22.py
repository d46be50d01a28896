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


# 2. A non-finite guard that is switched by an opt-in setting. The loop leaves the update
#    (and the scheduler's step) when the gradients are not finite, but only when the user
#    asked for the check: an argparse `store_true` flag (off unless given), copied into a
#    config object the trainer reads. In the run as written, the guard never fires, and the
#    per-update scheduler steps after every GradScaler step, skipped or not (LRD005). The
#    twin whose flag defaults to on keeps the guard, and stays silent.

GUARDED_BY_A_SETTING = """
import argparse

import torch
import torch.nn.functional as F


class RunConfig:
    def __init__(self, epochs, check_grads):
        self.epochs = epochs
        self.check_grads = check_grads


def options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--check-grads", {flag})
    args = parser.parse_args()
    return RunConfig(epochs=args.epochs, check_grads=args.check_grads)


def main():
    cfg = options()
    model = torch.nn.Linear(8, 1).cuda()
    loader = torch.utils.data.DataLoader(torch.randn(64, 9), batch_size=8)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=1e-3, total_steps=cfg.epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(cfg.epochs):
        for batch in loader:
            batch = batch.cuda()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.mse_loss(model(batch[:, :8]), batch[:, 8:])
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.unscale_(opt)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            if {test}:
                scaler.update()
                continue
            scaler.step(opt)
            scaler.update()
            sched.step()


if __name__ == "__main__":
    main()
"""

_OPT_IN = 'action="store_true"'
_OPT_OUT = 'action=argparse.BooleanOptionalAction, default=True'
_CONFIG_TEST = "cfg.check_grads and not torch.isfinite(norm)"


def test_nonfinite_guard_behind_an_opt_in_setting_does_not_guard_the_scheduler() -> None:
    source = GUARDED_BY_A_SETTING.format(flag=_OPT_IN, test=_CONFIG_TEST)
    assert "LRD005" in codes(source)


def test_nonfinite_guard_behind_a_setting_that_is_on_by_default_stays_silent() -> None:
    source = GUARDED_BY_A_SETTING.format(flag=_OPT_OUT, test=_CONFIG_TEST)
    assert "LRD005" not in codes(source)


def test_nonfinite_guard_without_a_setting_stays_silent() -> None:
    source = GUARDED_BY_A_SETTING.format(flag=_OPT_IN, test="not torch.isfinite(norm)")
    assert "LRD005" not in codes(source)

