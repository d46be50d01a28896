"""Schedulers held on a class, and optimizers restored in a loop over columns (devmiss20).

Programs written for these tests; no third-party code.

1. A scheduler stored on the class itself (``Runner.scheduler = StepLR(...)`` in a method)
   is what every instance reads as ``self.scheduler`` until it stores its own: the restore
   ``self.scheduler.load_state_dict(...)`` restores it (main reported it lost), and one
   stepped and saved as ``Runner.scheduler`` but never restored is lost (main saw nothing).
   A class-level registry (``class Runner: schedulers = {}``, filled by a method) is one
   container shared by the class and its instances: a StepLR kept there and stepped per
   batch is LRD002, and a resume that restores the optimizer but not it is LRD007.
2. ``for opt, state in zip(optimizers, states): opt.load_state_dict(state)`` restores every
   optimizer of the column, as the same loop over schedulers already restored every
   scheduler: a resume that restores the optimizers so and never the schedulers is LRD007.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

RUNNER = """
import os

import torch
from torch import nn


class Runner:
    model = None
    optimizer = None
    scheduler = None

    def __init__(self, epochs=90):
        self.epochs = epochs

    def build(self):
        self.model = nn.Linear(4, 2)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        {holder}.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)
        self.loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)

    def resume(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
{restore}
    def train(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            {reader}.scheduler.step()
            torch.save({{"model": self.model.state_dict(),
                        "optimizer": self.optimizer.state_dict(),
                        "scheduler": {reader}.scheduler.state_dict()}}, "last.pt")


runner = Runner()
runner.build()
if os.path.exists("last.pt"):
    runner.resume("last.pt")
runner.train()
"""


def runner(holder: str, reader: str, restored_by: str | None) -> str:
    restore = "" if restored_by is None else \
        f'        {restored_by}.scheduler.load_state_dict(state["scheduler"])\n'
    return RUNNER.format(holder=holder, reader=reader, restore=restore)


def test_scheduler_stored_on_the_class_is_restored_through_self() -> None:
    assert codes(runner("Runner", "self", "self")) == []


def test_scheduler_stored_on_the_class_and_never_restored_is_reported() -> None:
    assert codes(runner("Runner", "self", None)) == ["LRD007"]


def test_scheduler_read_through_the_class_and_never_restored_is_reported() -> None:
    assert codes(runner("Runner", "Runner", None)) == ["LRD007"]


def test_scheduler_read_and_restored_through_the_class_is_silent() -> None:
    assert codes(runner("Runner", "Runner", "Runner")) == []


def test_instance_attribute_over_a_class_default_is_unchanged() -> None:
    # `scheduler = None` in the class body, `self.scheduler = ...` in build(): the instance's
    assert codes(runner("self", "self", "self")) == []
    assert codes(runner("self", "self", None)) == ["LRD007"]


REGISTRY = """
import os

import torch
from torch import nn


class Runner:
    schedulers = {{}}

    def __init__(self, epochs=90):
        self.epochs = epochs
        self.model = nn.Linear(4, 2)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)

    def build(self):
        self.schedulers["main"] = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)

    def resume(self, path):
        state = torch.load(path)
        self.optimizer.load_state_dict(state["optimizer"])
{restore}
    def train(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
{step}
            torch.save({{"optimizer": self.optimizer.state_dict(),
                        "scheduler": self.schedulers["main"].state_dict()}}, "last.pt")


runner = Runner()
runner.build()
if os.path.exists("last.pt"):
    runner.resume("last.pt")
runner.train()
"""

RESTORED = '        self.schedulers["main"].load_state_dict(state["scheduler"])\n'
PER_EPOCH = '            self.schedulers["main"].step()'
PER_BATCH = '                self.schedulers["main"].step()'


def test_class_registry_scheduler_stepped_per_epoch_and_restored_is_silent() -> None:
    assert codes(REGISTRY.format(restore=RESTORED, step=PER_EPOCH)) == []


def test_class_registry_scheduler_stepped_per_batch_is_reported() -> None:
    assert codes(REGISTRY.format(restore=RESTORED, step=PER_BATCH)) == ["LRD002"]


def test_class_registry_scheduler_never_restored_is_reported() -> None:
    assert codes(REGISTRY.format(restore="", step=PER_EPOCH)) == ["LRD007"]


def test_registry_filled_per_instance_is_not_a_class_registry() -> None:
    # `self.schedulers = {}` in __init__: the instance's own dict, as before
    source = REGISTRY.format(restore="", step=PER_EPOCH).replace(
        "    schedulers = {}\n", "").replace(
        "        self.epochs = epochs\n", "        self.epochs = epochs\n"
        "        self.schedulers = {}\n")
    assert codes(source) == ["LRD007"]


# 2. optimizers restored in a loop over columns -------------------------------------------

GAN = """
import os

import torch
from torch import nn


def main():
    gen, disc = nn.Linear(4, 4), nn.Linear(4, 1)
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
    sched_g = torch.optim.lr_scheduler.StepLR(opt_g, step_size=30)
    sched_d = torch.optim.lr_scheduler.StepLR(opt_d, step_size=30)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    if os.path.exists("last.pt"):
        state = torch.load("last.pt")
        for opt, sched, key in zip([opt_g, opt_d], [sched_g, sched_d], ["g", "d"]):
            opt.load_state_dict(state["opt_" + key])
{restore}
    for epoch in range(100):
        for x in loader:
            opt_g.zero_grad()
            opt_d.zero_grad()
            disc(gen(x)).mean().backward()
            opt_g.step()
            opt_d.step()
        sched_g.step()
        sched_d.step()
        torch.save({{"opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict(),
                    "sched_g": sched_g.state_dict(), "sched_d": sched_d.state_dict()}},
                   "last.pt")


main()
"""


def test_optimizers_restored_in_a_zip_loop_without_their_schedulers_is_reported() -> None:
    assert codes(GAN.format(restore="")) == ["LRD007"]


def test_optimizers_and_schedulers_restored_in_one_zip_loop_is_silent() -> None:
    restore = '            sched.load_state_dict(state["sched_" + key])'
    assert codes(GAN.format(restore=restore)) == []


def test_schedulers_restored_one_by_one_beside_the_zip_loop_is_silent() -> None:
    restore = ('        sched_g.load_state_dict(state["sched_g"])\n'
               '        sched_d.load_state_dict(state["sched_d"])')
    assert codes(GAN.format(restore=restore)) == []


def test_a_zip_loop_over_optimizer_states_restores_each_optimizer() -> None:
    # a list of optimizers zipped with the states read back: both restored, with both
    # schedulers restored by a second loop of the same kind
    source = GAN.format(restore="").replace(
        """        for opt, sched, key in zip([opt_g, opt_d], [sched_g, sched_d], ["g", "d"]):
            opt.load_state_dict(state["opt_" + key])""",
        """        for opt, st in zip([opt_g, opt_d], state["optimizers"]):
            opt.load_state_dict(st)
        for sched, st in zip([sched_g, sched_d], state["schedulers"]):
            sched.load_state_dict(st)""")
    assert codes(source) == []
    without = source.replace("""        for sched, st in zip([sched_g, sched_d], state["schedulers"]):
            sched.load_state_dict(st)\n""", "")
    assert codes(without) == ["LRD007"]


# the runner in a project module, driven by a script ---------------------------------------

def _split(source: str) -> dict[str, str]:
    """The runner class as `runner.py`, the driving lines as `train.py` importing it."""
    at = source.index("runner = Runner()")
    return {"runner.py": source[:at],
            "train.py": "import os\n\nfrom runner import Runner\n\n" + source[at:]}


def test_class_held_scheduler_of_a_project_module(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    lost = check_project(tmp_path / "lost", monkeypatch, _split(runner("Runner", "Runner", None)))
    kept = check_project(tmp_path / "kept", monkeypatch,
                         _split(runner("Runner", "Runner", "Runner")))
    assert project_codes(lost) == ["LRD007"] and project_codes(kept) == []


def test_class_registry_of_a_project_module(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    per_batch = check_project(tmp_path / "batch", monkeypatch,
                              _split(REGISTRY.format(restore=RESTORED, step=PER_BATCH)))
    per_epoch = check_project(tmp_path / "epoch", monkeypatch,
                              _split(REGISTRY.format(restore=RESTORED, step=PER_EPOCH)))
    assert project_codes(per_batch) == ["LRD002"] and project_codes(per_epoch) == []
