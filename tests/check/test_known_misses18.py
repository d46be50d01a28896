"""A plateau fed the training *error* is fed the training loss (rcnew40, fresh-2026-12zt).

Scientific-ML trainers name their training loss after the quantity it measures: `train_err`
(a relative L2 error summed over the epoch), `train_mse`, `tr_nll`. A ReduceLROnPlateau
stepped with such a value while the loop computes a validation metric reacts to training
noise exactly as one stepped with `train_loss` does (LRD004). The name is read by its parts:
a training part (`train`, `training`, `tr`) and an error-like part (`err`, `error`, `mse`,
`nll`, `ppl`, ...); `strain_error` names no training split, `val_err` is a validation value.

Programs written for these tests; no third-party code."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# 1. A Trainer class that receives its scheduler from the script and narrows it to a plateau
#    with isinstance (the neuraloperator shape), stepped with the epoch's training error.

TRAINER = """
import torch


class Trainer:
    def __init__(self, model):
        self.model = model

    def train(self, train_loader, test_loaders, optimizer, scheduler, n_epochs=10):
        self.optimizer = optimizer
        self.scheduler = scheduler
        for epoch in range(n_epochs):
            {name} = self.train_one_epoch(train_loader)
            {evaluation}

    def train_one_epoch(self, loader):
        {name} = 0.0
        self.model.train()
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = ((self.model(x) - y) ** 2).mean()
            loss.backward()
            self.optimizer.step()
            {name} += loss.item()
        if isinstance(self.scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            self.scheduler.step({name})
        else:
            self.scheduler.step()
        return {name}

    def evaluate_all(self, loaders):
        self.model.eval()
        out = {{}}
        with torch.no_grad():
            for key, loader in loaders.items():
                out[key] = sum(((self.model(x) - y) ** 2).mean().item() for x, y in loader)
        return out
"""

SCRIPT = """
import torch
from trainer import Trainer

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
kind = "ReduceLROnPlateau"
if kind == "ReduceLROnPlateau":
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=5)
else:
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
Trainer(model).train(data, {"test": data}, optimizer, scheduler)
"""

EVALUATES = "eval_metrics = self.evaluate_all(test_loaders)"


def _trainer_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str,
                   evaluation: str) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": TRAINER.format(name=name, evaluation=evaluation),
        "train.py": SCRIPT,
    })
    return project_codes(found)


@pytest.mark.parametrize("name", ["train_err", "train_error", "epoch_train_errors",
                                  "trainErr", "train_mse", "tr_nll"])
def test_plateau_stepped_with_the_training_error_while_evaluating_is_lrd004(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    assert _trainer_codes(tmp_path, monkeypatch, name, EVALUATES) == ["LRD004"]


def test_plateau_on_the_training_error_without_any_evaluation_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # nothing else to watch: the training error is the only signal there is
    assert _trainer_codes(tmp_path, monkeypatch, "train_err", "pass") == []


@pytest.mark.parametrize("name", ["strain_error", "err_sum", "trainer_state", "trainValErr"])
def test_names_without_a_training_error_are_read_by_what_they_hold(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # (fphunt68, fphunt69, rcnew120) `strain_error` could be a physical strain, a bare
    # `err_sum` says no split, `trainer_state` no error, `trainValErr` the validation split;
    # but here each is a sum of the loss `train_one_epoch` backpropagates (`+= loss.item()`
    # after `loss.backward()`): the training loss, whatever its name says
    assert _trainer_codes(tmp_path, monkeypatch, name, EVALUATES) == ["LRD004"]


@pytest.mark.parametrize("name", ["strain_error", "err_sum", "trainer_state", "trainValErr"])
def test_names_without_a_training_error_holding_something_else_stay_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": TRAINER.format(name=name, evaluation=EVALUATES).replace(
            f"{name} += loss.item()", f"{name} += self.model.drift()"),
        "train.py": SCRIPT,
    })
    assert project_codes(found) == []


# 2. One script: the plateau watches the validation error (silent) or the training error.

SINGLE = """
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=3)
train = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
val = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(2)]
for epoch in range(20):
    train_mse = 0.0
    for x, y in train:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        train_mse += loss.item()
    with torch.no_grad():
        val_mse = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val)
    scheduler.step({watched})
"""


def test_a_script_stepping_its_plateau_with_the_training_mse_is_lrd004() -> None:
    assert codes(SINGLE.format(watched="train_mse")) == ["LRD004"]


def test_a_script_stepping_its_plateau_with_the_validation_mse_is_silent() -> None:
    assert codes(SINGLE.format(watched="val_mse")) == []
