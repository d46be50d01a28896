"""Shapes behind the dev misses of the fresh-2026-12yr batch (lead69, bench/realcode/README.md):
programs whose set-up a setting picks at run time.

Programs written for these tests; no third-party code.

- Mappings filled in a loop over names read from a setting (``optimizers[name] =
  cfg.build(["optimizers", name], nets[name].parameters())``) and read back by a literal key
  (``self.optimizers["net"]``): the entry is what the loop stored. Before, the literal key
  found nothing, and a factory handed ``nets[name].parameters()`` (no dotted name) was not seen
  building an optimizer: a checkpoint holding the optimizers but no scheduler (LRD007) went
  unreported.
- A scheduler whose class a setting picks from ``torch.optim.lr_scheduler`` (``getattr(
  lr_scheduler, name)(opt)``, or a factory handed that module: ``cfg.build("sched",
  torch.optim.lr_scheduler, opt)``) is one of torch's classes: ``step(epoch)`` on it is the
  deprecated call (LRD006) unless the argument is a fractional epoch (the documented use of
  CosineAnnealingWarmRestarts) or the step sits under ``isinstance(s, ReduceLROnPlateau)``.
- A class a setting picks from a package of the project (``getattr(trainers, cfg["type"])(
  ...)``), when exactly one class of the package takes the call's arguments, is that class:
  its methods run with the arguments given.
- A classmethod's alternate constructor (``Config.from_args(parser)`` ending in ``return
  cls(settings)``) builds an instance of the class, whose methods then run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings, messages, project_codes

SETTINGS = """
import importlib


class Settings:
    def __init__(self, tree):
        self.tree = tree

    def __getitem__(self, key):
        return self.tree[key]

    def build(self, keys, *args, **kwargs):
        entry = self.tree
        for k in keys:
            entry = entry[k]
        module = importlib.import_module(entry["module"])
        return getattr(module, entry["type"])(*args, **entry["kwargs"], **kwargs)
"""

LOOP_BUILT = """
import torch

from settings import Settings


class Runner:
    def __init__(self, nets, optimizers, schedulers, batches, epochs=20):
        self.nets = nets
        self.optimizers = optimizers
        self.schedulers = schedulers
        self.net = self.nets["net"]
        self.optimizer = self.optimizers["net"]
        self.scheduler = self.schedulers["net"]
        self.batches = batches
        self.epochs = epochs

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.batches:
                self.optimizer.zero_grad()
                self.net(x).mean().backward()
                self.optimizer.step()
            self.scheduler.step()
            state = {{
                "epoch": epoch,
                "nets": {{k: v.state_dict() for k, v in self.nets.items()}},
                "optimizers": {{k: v.state_dict() for k, v in self.optimizers.items()}},{extra}
            }}
            torch.save(state, "last.pt")


def main(settings, batches):
    nets = {{"net": torch.nn.Linear(4, 1)}}
    optimizers = {{}}
    for name in settings["optimizers"]:
        optimizers[name] = settings.build(["optimizers", name], nets[name].parameters())
    schedulers = {{}}
    for name in settings["schedulers"]:
        schedulers[name] = settings.build(["schedulers", name], optimizers[name])
    Runner(nets, optimizers, schedulers, batches).fit()
"""


def test_mapping_filled_by_name_then_read_by_literal_key(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "settings.py": SETTINGS, "run.py": LOOP_BUILT.format(extra="")})
    assert "LRD007" in project_codes(found)


def test_mapping_filled_by_name_saved_whole_is_silent(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    extra = '\n                "schedulers": {k: v.state_dict() for k, v in self.schedulers.items()},'
    found = check_project(tmp_path, monkeypatch, {
        "settings.py": SETTINGS, "run.py": LOOP_BUILT.format(extra=extra)})
    assert "LRD007" not in project_codes(found)


PICKED_STEP = """
import torch
from torch.optim import lr_scheduler
from torch.optim.lr_scheduler import ReduceLROnPlateau


def fit(net, batches, kind, epochs, evaluate):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = getattr(lr_scheduler, kind)(opt, **{{}})
    for epoch in range(epochs):
        for i, x in enumerate(batches):
            opt.zero_grad()
            net(x).mean().backward()
            opt.step()
        {step}
"""


def test_class_picked_from_torch_module_stepped_with_epoch() -> None:
    source = PICKED_STEP.format(step="sched.step(epoch)")
    assert ("LRD006", 15) in findings(source)
    assert any("the class of torch.optim.lr_scheduler that the setting picks" in m
               for m in messages(source))


@pytest.mark.parametrize("step", [
    "sched.step(epoch + i / len(batches))",
    "sched.step()",
    "if isinstance(sched, ReduceLROnPlateau):\n            sched.step(evaluate(net))\n"
    "        else:\n            sched.step()",
    "if isinstance(sched, ReduceLROnPlateau):\n            sched.step(epoch)",
])
def test_class_picked_from_torch_module_silent_twins(step: str) -> None:
    assert "LRD006" not in [c for c, _ in findings(PICKED_STEP.format(step=step))]


TRAINER_PACKAGE_INIT = """
from .plain import PlainTrainer
"""

TRAINER_PLAIN = """
class PlainTrainer:
    def __init__(self, net, optimizer, batches, lr_scheduler=None, epochs=10):
        self.net = net
        self.optimizer = optimizer
        self.batches = batches
        self.lr_scheduler = lr_scheduler
        self.epochs = epochs

    def run_epoch(self, epoch):
        for x in self.batches:
            self.optimizer.zero_grad()
            self.net(x).mean().backward()
            self.optimizer.step()
        if self.lr_scheduler is not None:
            self.lr_scheduler.{step}

    def train(self):
        for epoch in range(1, self.epochs + 1):
            self.run_epoch(epoch)
"""

DRIVER = """
import argparse

import torch

import trainers as trainer_module
from config_parser import Config


def main(config, net, batches):
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    lr_scheduler = config.make("lr_scheduler", torch.optim.lr_scheduler, optimizer)
    trainer = {build}
    trainer.train()


if __name__ == "__main__":
    cfg = Config.from_args(argparse.ArgumentParser())
    main(cfg, torch.nn.Linear(3, 1), [])
"""

CONFIG_PARSER = """
import json


class Config:
    def __init__(self, tree):
        self.tree = tree

    def __getitem__(self, name):
        return self.tree[name]

    @classmethod
    def from_args(cls, parser):
        parser.add_argument("--config", default="config.json")
        args = parser.parse_args()
        with open(args.config) as f:
            tree = json.load(f)
        return cls(tree)

    def make(self, name, module, *args, **kwargs):
        entry = self[name]
        kwargs.update(entry["args"])
        return getattr(module, entry["type"])(*args, **kwargs)
"""


@pytest.mark.parametrize("build", [
    "config.make('trainer', trainer_module, net, optimizer, batches, lr_scheduler=lr_scheduler)",
    "getattr(trainer_module, config['trainer']['type'])(net, optimizer, batches, "
    "lr_scheduler=lr_scheduler)",
])
def test_trainer_picked_from_package_by_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                build: str) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "config_parser.py": CONFIG_PARSER,
        "trainers/__init__.py": TRAINER_PACKAGE_INIT,
        "trainers/plain.py": TRAINER_PLAIN.format(step="step(epoch)"),
        "train.py": DRIVER.format(build=build),
    })
    assert ("trainers/plain.py", 16, "LRD006") in found


def test_trainer_picked_from_package_bare_step_is_silent(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "config_parser.py": CONFIG_PARSER,
        "trainers/__init__.py": TRAINER_PACKAGE_INIT,
        "trainers/plain.py": TRAINER_PLAIN.format(step="step()"),
        "train.py": DRIVER.format(build="config.make('trainer', trainer_module, net, optimizer, "
                                        "batches, lr_scheduler=lr_scheduler)"),
    })
    assert found == []


def test_two_fitting_classes_pick_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With two classes that could take the call, which one runs is the setting's: neither is
    traced as if it were the one (the step(epoch) is still seen in the class's own trace only
    when its scheduler is known, which it is not here)."""
    other = TRAINER_PLAIN.replace("PlainTrainer", "OtherTrainer").format(step="step()")
    found = check_project(tmp_path, monkeypatch, {
        "config_parser.py": CONFIG_PARSER,
        "trainers/__init__.py": TRAINER_PACKAGE_INIT + "from .other import OtherTrainer\n",
        "trainers/plain.py": TRAINER_PLAIN.format(step="step(epoch)"),
        "trainers/other.py": other,
        "train.py": DRIVER.format(build="config.make('trainer', trainer_module, net, optimizer, "
                                        "batches, lr_scheduler=lr_scheduler)"),
    })
    assert ("trainers/plain.py", 16, "LRD006") not in found


FULL_BATCH = """
import torch
from torch.utils.data import DataLoader, TensorDataset


def fit(x, y, net, epochs=300, batch_size=None):
    table = TensorDataset(x, y)
    loader = DataLoader(table, batch_size={size}, shuffle=True)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.1,
                                              total_iters=int(epochs * 0.9))
    for epoch in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(xb), yb).backward()
            opt.step()
            sched.step()
"""


def test_full_batch_loader_steps_once_per_epoch() -> None:
    """(FPHUNT lead68, revisited) A loader whose batch is the whole dataset
    (`batch_size=len(table)`) makes one pass per epoch: a per-batch step of an epoch-sized
    LinearLR is a per-epoch step. Three findings of the lead68 hunt were this shape."""
    assert "LRD002" not in [c for c, _ in findings(FULL_BATCH.format(size="len(table)"))]


@pytest.mark.parametrize("size", ["64", "batch_size", "len(table) // 8"])
def test_mini_batch_loader_still_reported(size: str) -> None:
    assert "LRD002" in [c for c, _ in findings(FULL_BATCH.format(size=size))]
