"""Shapes behind the first-sight misses of batch fresh-2026-12zv (rcnew42).

1. A plateau stepped with a meter's summary (`scheduler.step(cfg.tracker.avg)`) where the
   meter lives on a settings object and the training step fills it with the loss it
   backpropagates: that is the training loss, whatever the attribute is called (LRD004 when a
   validation metric exists). The filling function may live in a module the script imports
   it from.

Programs written for these tests; no third-party code."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# 1. A settings namespace carries a running-average meter; `train_epoch` fills it with the
#    number of the loss it backpropagates; the epoch loop evaluates and steps the plateau.

METER_SCRIPT = """
import argparse
import torch


class RunningMean:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def reset(self):
        self.total, self.count = 0.0, 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def avg(self):
        return self.total / max(self.count, 1)


def train_epoch(model, loader, optimizer, cfg):
    cfg.{meter}.reset()
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        cfg.{meter}.update({recorded})


def evaluate(model, loader):
    hits = 0
    with torch.no_grad():
        for x, y in loader:
            hits += (model(x).argmax(1) == y).sum().item()
    return hits


cfg = argparse.Namespace(epochs=30, lr=1e-3)
cfg.{meter} = RunningMean()
model = torch.nn.Linear(8, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", patience=4)
train_loader = [(torch.randn(16, 8), torch.randint(0, 3, (16,))) for _ in range(5)]
val_loader = [(torch.randn(16, 8), torch.randint(0, 3, (16,))) for _ in range(2)]
for epoch in range(cfg.epochs):
    train_epoch(model, train_loader, optimizer, cfg)
    {evaluation}
    scheduler.step(cfg.{meter}.{summary})
"""

EVALUATES = "val_hits = evaluate(model, val_loader)"


def _meter_codes(meter: str = "tracker", recorded: str = "loss.item()", summary: str = "avg",
                 evaluation: str = EVALUATES) -> list[str]:
    return codes(METER_SCRIPT.format(meter=meter, recorded=recorded, summary=summary,
                                     evaluation=evaluation))


def test_plateau_on_a_meter_filled_with_the_backpropagated_loss_is_lrd004() -> None:
    assert _meter_codes() == ["LRD004"]


def test_the_meter_is_judged_by_what_fills_it_not_by_its_name() -> None:
    for meter in ("losses", "running", "stats_a"):
        assert _meter_codes(meter=meter) == ["LRD004"], meter


def test_the_recorded_number_may_be_scaled_or_converted() -> None:
    for recorded in ("float(loss)", "loss.item() * x.size(0)", "loss.detach().cpu()"):
        assert _meter_codes(recorded=recorded) == ["LRD004"], recorded


def test_a_meter_read_through_a_summary_method_is_the_same_meter() -> None:
    script = METER_SCRIPT.replace("    @property\n    def avg(self)", "    def mean(self)")
    assert codes(script.format(meter="tracker", recorded="loss.item()", summary="mean()",
                               evaluation=EVALUATES)) == ["LRD004"]


def test_a_meter_of_the_training_loss_without_any_evaluation_is_silent() -> None:
    # no validation data at all: the training loss is the only signal the loop has
    script = METER_SCRIPT.replace(
        "val_loader = [(torch.randn(16, 8), torch.randint(0, 3, (16,))) for _ in range(2)]\n",
        "")
    assert codes(script.format(meter="tracker", recorded="loss.item()", summary="avg",
                               evaluation="pass")) == []


def test_a_meter_filled_with_a_value_that_is_not_backpropagated_is_silent() -> None:
    # `accuracy` is recorded, never backpropagated: nothing says it is the training loss
    script = METER_SCRIPT.replace(
        "        cfg.{meter}.update({recorded})",
        "        accuracy = (model(x).argmax(1) == y).float().mean()\n"
        "        cfg.{meter}.update({recorded})")
    assert codes(script.format(meter="tracker", recorded="accuracy.item()", summary="avg",
                               evaluation=EVALUATES)) == []


def test_a_meter_also_filled_by_the_evaluation_is_silent() -> None:
    # filled by both loops: what the summary holds at the step is not the training loss alone
    script = METER_SCRIPT.replace(
        "            hits += (model(x).argmax(1) == y).sum().item()",
        "            hits += (model(x).argmax(1) == y).sum().item()\n"
        "            cfg.tracker.update(torch.nn.functional.cross_entropy(model(x), y).item())")
    assert codes(script.format(meter="tracker", recorded="loss.item()", summary="avg",
                               evaluation=EVALUATES)) == []


# The same meter filled by the validation loop and read by the plateau: the correct twin.

VALIDATION_METER = """
import torch


class RunningMean:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def avg(self):
        return self.total / max(self.count, 1)


class State:
    pass


def train_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def validate(model, loader, state):
    state.tracker = RunningMean()
    with torch.no_grad():
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            state.tracker.update(loss.item())


state = State()
model = torch.nn.Linear(8, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", patience=4)
train_loader = [(torch.randn(16, 8), torch.randint(0, 3, (16,))) for _ in range(5)]
val_loader = [(torch.randn(16, 8), torch.randint(0, 3, (16,))) for _ in range(2)]
for epoch in range(30):
    train_epoch(model, train_loader, optimizer)
    validate(model, val_loader, state)
    scheduler.step(state.tracker.avg)
"""


def test_a_meter_filled_by_the_validation_loop_is_silent() -> None:
    assert codes(VALIDATION_METER) == []


# The meter on the trainer object itself: filled in one method, read in another.

TRAINER_METER = """
import torch


class Averager:
    def __init__(self):
        self.values = []

    def add(self, value):
        self.values.append(value)

    def mean(self):
        return sum(self.values) / max(len(self.values), 1)


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, patience=3)

    def step(self, x, y):
        self.optimizer.zero_grad()
        objective = torch.nn.functional.mse_loss(self.model(x), y)
        objective.backward()
        self.optimizer.step()
        self.meter.add({recorded})

    def fit(self, train_data, val_data, epochs=10):
        for epoch in range(epochs):
            self.meter = Averager()
            for x, y in train_data:
                self.step(x, y)
            with torch.no_grad():
                val_error = sum(torch.nn.functional.mse_loss(self.model(x), y).item()
                                for x, y in val_data)
            self.scheduler.step(self.meter.mean())


data = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
Trainer(torch.nn.Linear(4, 1)).fit(data, data)
"""


def test_a_trainer_meter_filled_with_the_backpropagated_objective_is_lrd004() -> None:
    assert codes(TRAINER_METER.format(recorded="objective.item()")) == ["LRD004"]


def test_a_trainer_meter_filled_with_another_number_is_silent() -> None:
    # the gradient norm is recorded, not the backpropagated objective
    script = TRAINER_METER.replace(
        "        self.meter.add({recorded})",
        "        norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1e9)\n"
        "        self.meter.add({recorded})")
    assert codes(script.format(recorded="norm.item()")) == []


# The function that fills the meter lives in a module the script imports it from.

ENGINE = """
import torch


def train_epoch(model, loader, optimizer, cfg):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        {fill}
"""

DRIVER = """
import types
import torch
from meters import RunningMean
from engine import train_epoch

cfg = types.SimpleNamespace(epochs=20)
cfg.tracker = RunningMean()
model = torch.nn.Linear(8, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)
train_loader = [(torch.randn(16, 8), torch.randint(0, 3, (16,))) for _ in range(5)]
val_loader = [(torch.randn(16, 8), torch.randint(0, 3, (16,))) for _ in range(2)]
for epoch in range(cfg.epochs):
    cfg.tracker = RunningMean()
    train_epoch(model, train_loader, optimizer, cfg)
    with torch.no_grad():
        val_acc = sum((model(x).argmax(1) == y).float().mean().item() for x, y in val_loader)
    scheduler.step(cfg.tracker.avg)
"""

METERS = """
class RunningMean:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value):
        self.total += value
        self.count += 1

    @property
    def avg(self):
        return self.total / max(self.count, 1)
"""


def _engine_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fill: str) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "engine.py": ENGINE.format(fill=fill), "meters.py": METERS, "train.py": DRIVER,
    }, checked=["train.py"])
    return project_codes(found)


def test_a_meter_filled_in_an_imported_training_function_is_lrd004(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _engine_codes(tmp_path, monkeypatch, "cfg.tracker.update(loss.item())") == ["LRD004"]


def test_a_meter_filled_in_an_imported_function_with_another_number_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fill = "cfg.tracker.update(model(x).softmax(1).max(1).values.mean().item())"
    assert _engine_codes(tmp_path, monkeypatch, fill) == []
