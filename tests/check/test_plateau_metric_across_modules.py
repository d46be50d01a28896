"""LRD004 where the plateau's metric or its mode comes from another function or module
(lead63, probes written for the held-out split's LRD004 gap): the metric is what a method of
the trainer (``self.scheduler.step(self.validate())``), a function imported from the project
or one item of a returned tuple (``evaluate()[1]``) returns, and that value is a share of
correct predictions (``correct / n``); the mode is a setting (``mode=cfg.mode``) read in a
builder of another module from the ``args`` its caller handed it, whose argparse default is
``"min"``. Each was silent; the correct spellings (mode 'max', a loss) stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings, messages

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader, val_loader, cfg):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.loader, self.val_loader, self.cfg = loader, val_loader, cfg

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            torch.nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    @torch.no_grad()
    def validate(self):
        correct, seen = 0, 0
        for x, y in self.val_loader:
            correct += (self.model(x).argmax(1) == y).sum().item()
            seen += len(y)
        return correct / seen

    def fit(self):
        for epoch in range(self.cfg.epochs):
            self.train_epoch()
            {step}
"""
BUILD = """
from torch.optim import lr_scheduler


def build_scheduler(optimizer, cfg):
    return lr_scheduler.ReduceLROnPlateau(optimizer, {mode}factor=0.5, patience=3)
"""
DRIVER = """
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from engine.build import build_scheduler
from engine.trainer import Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--mode", default="{default}")
cfg = parser.parse_args()
data = TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,)))
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = build_scheduler(optimizer, cfg)
Trainer(model, optimizer, scheduler, DataLoader(data, batch_size=8),
        DataLoader(data, batch_size=8), cfg).fit()
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, step: str, mode: str,
             default: str = "min") -> list[tuple[str, int, str]]:
    files = {"engine/__init__.py": "", "engine/trainer.py": TRAINER.replace("{step}", step),
             "engine/build.py": BUILD.replace("{mode}", mode),
             "train.py": DRIVER.replace("{default}", default)}
    return [f for f in check_project(tmp_path, monkeypatch, files) if f[2] == "LRD004"]


@pytest.mark.parametrize("step, mode, default, expected", [
    # a method's return value, the plateau in its default mode
    ("self.scheduler.step(self.validate())", "", "min", True),
    ("self.scheduler.step(self.validate())", "mode='max', ", "min", False),
    # the mode a setting of the driver's argparse holds, read in the builder's module
    ("self.scheduler.step(self.validate())", "mode=cfg.mode, ", "min", True),
    ("self.scheduler.step(self.validate())", "mode=cfg.mode, ", "max", False),
    ("val_acc = self.validate()\n            self.scheduler.step(val_acc)", "mode=cfg.mode, ",
     "min", True),
], ids=["method-default-mode", "method-mode-max", "setting-min", "setting-max",
        "named-setting-min"])
def test_metric_and_mode_across_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        step: str, mode: str, default: str,
                                        expected: bool) -> None:
    found = _project(tmp_path, monkeypatch, step=step, mode=mode, default=default)
    assert [(path, code) for path, _, code in found] == \
        ([("engine/trainer.py", "LRD004")] if expected else [])


SCRIPT = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau

model = torch.nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = ReduceLROnPlateau(optimizer{mode})


@torch.no_grad()
def evaluate():
    loss_sum, n_correct = 0.0, 0
    for x in loader:
        out = model(x)
        loss_sum += out.pow(2).mean().item()
        n_correct += (out.argmax(1) == 0).sum().item()
    return loss_sum / len(loader), n_correct / 64


for epoch in range(10):
    for x in loader:
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()
    scheduler.step({metric})
"""


@pytest.mark.parametrize("metric, mode, expected", [
    ("evaluate()[1]", "", ["LRD004"]),  # the share of correct predictions, mode 'min'
    ("evaluate()[1]", ", mode='max'", []),
    ("evaluate()[0]", "", []),  # the loss, mode 'min'
    ("evaluate()[0]", ", mode='max'", ["LRD004"]),
], ids=["correct-min", "correct-max", "loss-min", "loss-max"])
def test_an_item_of_the_returned_tuple(metric: str, mode: str, expected: list[str]) -> None:
    source = SCRIPT.format(metric=metric, mode=mode)
    assert [code for code, _ in findings(source)] == expected


def test_the_message_names_what_the_function_returns() -> None:
    (message,) = messages(SCRIPT.format(metric="evaluate()[1]", mode=""))
    assert "`evaluate` returns `n_correct / 64`" in message


@pytest.mark.parametrize("word, expected", [
    ("n_correct", ["LRD004"]), ("correct_count", ["LRD004"]),
    # a count of mistakes falls as the model improves; a bias-corrected value says nothing
    ("n_incorrect", []), ("corrected", []),
])
def test_correct_is_a_word_of_accuracy(word: str, expected: list[str]) -> None:
    source = SCRIPT.format(metric=word, mode="").replace(
        "for epoch in range(10):", f"{word} = 0\nfor epoch in range(10):")
    assert [code for code, _ in findings(source)] == expected
