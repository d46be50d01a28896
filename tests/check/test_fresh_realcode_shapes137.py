"""LRD014, LRD012, LRD017 and LRD003 spread across a project (probe63).

Programs written for these tests; no third-party code.

Each bug was already found when the whole program sat in one file; these are the layouts that
lost it once the pieces lived in the modules a project splits them into:

- a scheduler builder whose horizon parameter is named for updates (``def build(opt,
  total_updates)``) handed ``epochs * len(loader)`` by its caller, the scheduler stepped once
  per update under gradient accumulation (LRD003): the count is what the caller computed,
  not what the parameter is called;
- a LightningModule whose ``configure_optimizers`` (in its own module, the schedules made by
  helpers of another) returns two schedulers of one optimizer (``return [opt], [warmup,
  cosine]``): Lightning steps both at every epoch's end, and the LambdaLR warm-up recomputes
  the LR from its base value, erasing the cosine's decay (LRD012), as two ``step()`` calls
  in one loop would; a ``SequentialLR`` returned alone hands over instead;
- a LightningModule whose ``configure_optimizers`` returns the optimizer made by a helper
  and a scheduler built on a second call of that helper (or on an optimizer built inside the
  scheduler's own call): Lightning steps the returned optimizer, the schedule moves the LR of
  the other one, which nothing steps (LRD014);
- a registry of lambdas (``SCHEDULERS = {"cyclic": lambda opt, n: CyclicLR(...)}``) at the
  top of a module the checked file imports, or of the trainer's own module when a driver
  runs it: the entry the key picks builds the scheduler, as a registry of functions or of
  classes does; a CyclicLR sized in batches stepped once per epoch is LRD003;
- a warm-up handed to the epoch helper and stepped there under ``if warmup is not None:``
  on every batch, beside a cosine stepped per epoch by the driver (LRD012): the test only
  asks whether the scheduler exists, which holds on every pass, so the warm-up's LambdaLR
  still erases the decay; unless the driver's loop drops it (``warmup = None`` once the
  warm-up is over) or the helper builds it on the first epoch only, hand-overs;
- a config dataclass whose accumulation field defaults to 1 (``grad_accum_steps: int =
  1``), the scheduler stepped outside the accumulation test: as the program states its
  settings every micro-batch is an update, so no LRD017 (as LRD003 already read it), while
  a default of 4 is reported;
- one of two schedulers kept in a dict, picked by a key bound to a conditional expression
  (``key = "warmup" if epoch < n else "decay"; self.schedulers[key].step()``): one entry per
  pass, a hand-over, not the two competing (LRD012 only for a loop over the values).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project

DATA = '''
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader(batch_size):
    return DataLoader(TensorDataset(torch.randn(96, 8), torch.randn(96, 1)), batch_size=batch_size)
'''


def _codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
           ) -> list[tuple[str, str]]:
    """(path, code) of every finding of the project ``files`` (LRD101 aside)."""
    return [(path, code) for path, _, code in check_project(tmp_path, monkeypatch, files)
            if code != "LRD101"]


# -- a builder's parameter named for updates, handed a count of micro-batches -----------------

UPDATE_BUILDER = '''
from transformers import get_linear_schedule_with_warmup


def make_schedule(optimizer, planned_updates):
    return get_linear_schedule_with_warmup(optimizer, planned_updates // 20, planned_updates)
'''

ACCUMULATING_LOOP = '''
def run_epoch(net, loader, optimizer, schedule, accumulate):
    for i, (xb, yb) in enumerate(loader):
        (((net(xb) - yb) ** 2).mean() / accumulate).backward()
        if (i + 1) % accumulate == 0:
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
'''

ACCUMULATING_DRIVER = '''
import torch

from kit.data import make_loader
from kit.loop import run_epoch
from kit.schedule import make_schedule

ACCUMULATE = 8
EPOCHS = 12

net = torch.nn.Linear(8, 1)
loader = make_loader(4)
optimizer = torch.optim.AdamW(net.parameters(), lr=3e-4)
schedule = make_schedule(optimizer, HORIZON)
for epoch in range(EPOCHS):
    run_epoch(net, loader, optimizer, schedule, ACCUMULATE)
'''


def _accumulating(horizon: str) -> dict[str, str]:
    return {"kit/__init__.py": "", "kit/data.py": DATA, "kit/schedule.py": UPDATE_BUILDER,
            "kit/loop.py": ACCUMULATING_LOOP,
            "train.py": ACCUMULATING_DRIVER.replace("HORIZON", horizon)}


def test_a_parameter_named_for_updates_handed_micro_batches_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _accumulating("EPOCHS * len(loader)"))
    assert found == [("kit/loop.py", "LRD003")]


def test_control_a_parameter_named_for_updates_handed_updates_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _accumulating("EPOCHS * (len(loader) // ACCUMULATE)"))
    assert found == []


# -- Lightning: two schedulers returned side by side ------------------------------------------

SCHEDULE_HELPERS = '''
import torch


def warm_up(optimizer, epochs):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / epochs))


def anneal(optimizer, epochs):
    return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)


def halve(optimizer):
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
'''

LIGHTNING_MODULE = '''
import pytorch_lightning as pl
import torch

from kit.schedules import anneal, halve, warm_up


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        xb, yb = batch
        return ((self.net(xb) - yb) ** 2).mean()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        RETURN
'''

LIGHTNING_DRIVER = '''
import pytorch_lightning as pl

from kit.data import make_loader
from kit.module import Regressor

pl.Trainer(max_epochs=40).fit(Regressor(), make_loader(16))
'''


def _lightning(returned: str, helpers: str = SCHEDULE_HELPERS) -> dict[str, str]:
    return {"kit/__init__.py": "", "kit/data.py": DATA, "kit/schedules.py": helpers,
            "kit/module.py": LIGHTNING_MODULE.replace("RETURN", returned),
            "train.py": LIGHTNING_DRIVER}


def test_two_returned_schedulers_one_recomputing_compete(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _lightning(
        "return [opt], [warm_up(opt, 3), anneal(opt, 37)]"))
    assert found == [("kit/module.py", "LRD012")]


@pytest.mark.parametrize("returned", [
    # one scheduler handing over from the warm-up to the decay
    "return [opt], [torch.optim.lr_scheduler.SequentialLR("
    "opt, [warm_up(opt, 3), anneal(opt, 37)], milestones=[3])]",
    # two chainable classes compose as ChainedScheduler would
    "return [opt], [halve(opt), anneal(opt, 40)]",
    # a per-batch warm-up beside a per-epoch decay: different intervals, not this shape
    'return [opt], [{"scheduler": warm_up(opt, 300), "interval": "step"}, anneal(opt, 40)]',
])
def test_control_one_schedule_or_composing_ones_are_not_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, returned: str) -> None:
    found = _codes(tmp_path, monkeypatch, _lightning(returned))
    assert ("kit/module.py", "LRD012") not in found


# -- Lightning: the scheduler built on another optimizer than the one returned ----------------

OPTIMIZER_HELPER = SCHEDULE_HELPERS + '''

def make_optimizer(module):
    return torch.optim.AdamW(module.parameters(), lr=1e-3, weight_decay=0.05)
'''


@pytest.mark.parametrize("returned", [
    # the helper called again for the scheduler
    "return [make_optimizer(self)], [anneal(make_optimizer(self), 40)]",
    # the optimizer built inside the scheduler's own call
    "return [opt], [torch.optim.lr_scheduler.CosineAnnealingLR("
    "torch.optim.AdamW(self.parameters()), T_max=40)]",
])
def test_a_scheduler_on_an_optimizer_lightning_never_steps_is_stale(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, returned: str) -> None:
    files = _lightning(returned, OPTIMIZER_HELPER)
    files["kit/module.py"] = files["kit/module.py"].replace(
        "import anneal,", "import anneal, make_optimizer,")
    found = _codes(tmp_path, monkeypatch, files)
    assert found == [("kit/module.py", "LRD014")]


@pytest.mark.parametrize("returned", [
    "optimizer = make_optimizer(self)\n        return [optimizer], [anneal(optimizer, 40)]",
    # two optimizers from one helper, each returned with its own schedule
    "first, second = make_optimizer(self.net), make_optimizer(self)\n"
    "        return [first, second], [anneal(first, 40), anneal(second, 40)]",
])
def test_control_a_scheduler_on_a_returned_optimizer_is_not_stale(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, returned: str) -> None:
    files = _lightning(returned, OPTIMIZER_HELPER)
    files["kit/module.py"] = files["kit/module.py"].replace(
        "import anneal,", "import anneal, make_optimizer,")
    found = _codes(tmp_path, monkeypatch, files)
    assert ("kit/module.py", "LRD014") not in found


# -- a registry of lambdas in another module --------------------------------------------------

LAMBDA_REGISTRY = '''
import torch

SCHEDULERS = {
    "cyclic": lambda opt, n: torch.optim.lr_scheduler.CyclicLR(
        opt, base_lr=1e-3, max_lr=1e-2, step_size_up=2 * n),
    "step": lambda opt, n: torch.optim.lr_scheduler.StepLR(opt, step_size=10),
}
'''

REGISTRY_TRAINER = '''
import torch

REGISTRY


class Fitter:
    def __init__(self, net, loader, schedule="KEY"):
        self.net = net
        self.loader = loader
        self.optimizer = torch.optim.SGD(net.parameters(), lr=1e-2, momentum=0.9)
        self.scheduler = SCHEDULERS[schedule](self.optimizer, len(loader))

    def end_of_epoch(self):
        self.scheduler.step()

    def fit(self, epochs):
        for epoch in range(epochs):
            for xb, yb in self.loader:
                self.optimizer.zero_grad()
                ((self.net(xb) - yb) ** 2).mean().backward()
                self.optimizer.step()
            self.end_of_epoch()
'''

REGISTRY_DRIVER = '''
import torch

from kit.data import make_loader
from kit.fitter import Fitter

Fitter(torch.nn.Linear(8, 1), make_loader(8)).fit(30)
'''


def _registry(key: str, imported: bool) -> dict[str, str]:
    files = {"kit/__init__.py": "", "kit/data.py": DATA, "train.py": REGISTRY_DRIVER}
    if imported:
        files["kit/schedules.py"] = LAMBDA_REGISTRY
        registry = "from kit.schedules import SCHEDULERS"
    else:
        registry = LAMBDA_REGISTRY.replace("import torch", "")
    files["kit/fitter.py"] = REGISTRY_TRAINER.replace("REGISTRY", registry).replace("KEY", key)
    return files


@pytest.mark.parametrize("imported", [False, True])
def test_a_lambda_registry_entry_sized_in_batches_stepped_per_epoch_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imported: bool) -> None:
    found = _codes(tmp_path, monkeypatch, _registry("cyclic", imported))
    assert found == [("kit/fitter.py", "LRD003")]


@pytest.mark.parametrize("imported", [False, True])
def test_control_a_lambda_registry_entry_sized_in_epochs_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imported: bool) -> None:
    assert _codes(tmp_path, monkeypatch, _registry("step", imported)) == []


# -- a warm-up stepped under a test of its existence ------------------------------------------

OPTIONAL_WARMUP_LOOP = '''
def run_epoch(net, loader, optimizer, warmup=None):
    for xb, yb in loader:
        optimizer.zero_grad()
        ((net(xb) - yb) ** 2).mean().backward()
        optimizer.step()
        if warmup is not None:
            warmup.step()
'''

OPTIONAL_WARMUP_DRIVER = '''
import torch
from transformers import get_constant_schedule_with_warmup

from kit.data import make_loader
from kit.loop import run_epoch

net = torch.nn.Linear(8, 1)
loader = make_loader(8)
optimizer = torch.optim.AdamW(net.parameters(), lr=3e-4)
warm = get_constant_schedule_with_warmup(optimizer, num_warmup_steps=2 * len(loader))
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)
for epoch in range(30):
    run_epoch(net, loader, optimizer, warm)
    DROP
    cosine.step()
'''


def _optional_warmup(drop: str) -> dict[str, str]:
    return {"kit/__init__.py": "", "kit/data.py": DATA, "kit/loop.py": OPTIONAL_WARMUP_LOOP,
            "train.py": OPTIONAL_WARMUP_DRIVER.replace("DROP", drop)}


def test_a_warm_up_stepped_whenever_it_exists_competes_with_the_decay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _optional_warmup("pass"))
    assert found == [("train.py", "LRD012")]


def test_control_a_warm_up_the_driver_drops_hands_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _optional_warmup(
        "if epoch == 1:\n        warm = None"))
    assert ("train.py", "LRD012") not in found


BUILT_ON_THE_FIRST_EPOCH_LOOP = '''
import torch


def make_warmup(optimizer, iters):
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda n: min(1.0, (n + 1) / iters))


def run_epoch(net, loader, optimizer, epoch, warm_up=False):
    warmup = None
    if epoch == 0 and warm_up is True:
        warmup = make_warmup(optimizer, len(loader))
    for xb, yb in loader:
        optimizer.zero_grad()
        ((net(xb) - yb) ** 2).mean().backward()
        optimizer.step()
        if warmup is not None:
            warmup.step()
'''


def test_control_a_warm_up_the_helper_builds_on_the_first_epoch_only_hands_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _optional_warmup("pass")
    files["kit/loop.py"] = BUILT_ON_THE_FIRST_EPOCH_LOOP
    files["train.py"] = files["train.py"].replace(
        "run_epoch(net, loader, optimizer, warm)",
        "run_epoch(net, loader, optimizer, epoch, warm_up=True)")
    found = _codes(tmp_path, monkeypatch, files)
    assert ("train.py", "LRD012") not in found


# -- an accumulation count a config dataclass states as 1 -------------------------------------

ACCUM_CONFIG = '''
from dataclasses import dataclass


@dataclass
class Settings:
    epochs: int = 6
    lr: float = 1e-3
    grad_accum_steps: int = COUNT
'''

ACCUM_TRAINER = '''
class Runner:
    def __init__(self, net, loader, optimizer, scheduler, settings):
        self.net, self.loader = net, loader
        self.optimizer, self.scheduler = optimizer, scheduler
        self.settings = settings

    def epoch(self):
        for step, (xb, yb) in enumerate(self.loader):
            (((self.net(xb) - yb) ** 2).mean() / self.settings.grad_accum_steps).backward()
            if (step + 1) % self.settings.grad_accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.scheduler.step()
'''

ACCUM_DRIVER = '''
import torch

from kit.config import Settings
from kit.data import make_loader
from kit.runner import Runner

settings = Settings()
net = torch.nn.Linear(8, 1)
loader = make_loader(8)
optimizer = torch.optim.AdamW(net.parameters(), lr=settings.lr)
updates = settings.epochs * len(loader) // settings.grad_accum_steps
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.05, total_iters=updates)
runner = Runner(net, loader, optimizer, scheduler, settings)
for epoch in range(settings.epochs):
    runner.epoch()
'''


def _accumulating_config(count: str) -> dict[str, str]:
    return {"kit/__init__.py": "", "kit/data.py": DATA,
            "kit/config.py": ACCUM_CONFIG.replace("COUNT", count),
            "kit/runner.py": ACCUM_TRAINER, "train.py": ACCUM_DRIVER}


def test_an_accumulation_count_stated_as_one_is_no_accumulation(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _codes(tmp_path, monkeypatch, _accumulating_config("1")) == []


def test_control_an_accumulation_count_stated_as_four_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _accumulating_config("4"))
    assert found == [("kit/runner.py", "LRD017")]


# -- one of two schedulers picked from a dict by a conditional key ----------------------------

PICKING_TRAINER = '''
import torch


class Trainer:
    def __init__(self, net, loader, warmup_epochs=3):
        self.net, self.loader = net, loader
        self.warmup_epochs = warmup_epochs
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
        self.schedulers = {
            "warmup": torch.optim.lr_scheduler.LambdaLR(
                self.optimizer, lambda e: min(1.0, (e + 1) / warmup_epochs)),
            "decay": torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=[10, 15]),
        }

    def advance(self, epoch):
        STEP

    def fit(self, epochs):
        for epoch in range(epochs):
            for xb, yb in self.loader:
                self.optimizer.zero_grad()
                ((self.net(xb) - yb) ** 2).mean().backward()
                self.optimizer.step()
            self.advance(epoch)
'''

PICKING_DRIVER = '''
import torch

from kit.data import make_loader
from kit.trainer import Trainer

Trainer(torch.nn.Linear(8, 1), make_loader(8)).fit(20)
'''


def _picking(step: str) -> dict[str, str]:
    return {"kit/__init__.py": "", "kit/data.py": DATA, "train.py": PICKING_DRIVER,
            "kit/trainer.py": PICKING_TRAINER.replace("STEP", step)}


def test_a_scheduler_picked_by_a_conditional_key_is_one_per_pass(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _picking(
        'key = "warmup" if epoch < self.warmup_epochs else "decay"\n'
        "        self.schedulers[key].step()"))
    assert found == []


def test_control_every_scheduler_of_the_dict_stepped_competes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _picking(
        "for scheduler in self.schedulers.values():\n            scheduler.step()"))
    assert found == [("kit/trainer.py", "LRD012")]
