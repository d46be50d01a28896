"""Training loops spread across modules (rcnew131, batch fresh-2026-12zzzf131 in
bench/realcode/README.md).

Programs written for these tests; no third-party code.

The batch's projects split one training run over a package: a driver that builds the
optimizer and the scheduler (often through a factory module) and hands them to a trainer or
session class of another module, an engine function that takes the GradScaler as a
parameter (``scaler=None`` by default), checkpoints written and read back by helpers and
manager classes in ``utils/``, a config object (a dataclass, a namespace, a string setting
such as ``precision == "fp16"``) deciding AMP, and a base class owning the resume. lrdoctor
already followed these shapes; the tests below keep them followed (they pass before and
after this branch), in both directions: the buggy spelling reports, the correct one stays
silent.

One gap was found by the batch's spellings and fixed (the first tests below): a warm-up and a
decay sized to start after it (``CosineAnnealingLR(T_max=EPOCHS - WARM)``), both stepped from
the first epoch, were reported (LRD012) only when the subtracted length was written as the
same expression as the warm-up's horizon (``total_iters=WARM``). Written as the number the
file states for it (``total_iters=5`` beside ``WARM = 5``), as two settings that default to
the same length (``--warmup`` and ``--warmup_epochs``), or as a config dataclass's field beside
a literal, it was silent. The lengths are now compared by the whole number the file states
for each (above 1: ``T_max=epochs - 1`` beside a one-step warm-up matches by chance).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes

# -- LRD012: a decay sized to start after the warm-up, lengths stated as numbers ---------------

WARM_AND_DECAY = '''
import torch
from torch.utils.data import DataLoader, TensorDataset

EPOCHS, WARM = 40, 4
data = DataLoader(TensorDataset(torch.randn(48, 3), torch.randn(48, 1)), batch_size=6)
net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
warmup = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=WARM_LEN)
decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=DECAY_LEN)
for epoch in range(EPOCHS):
    for xb, yb in data:
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(xb), yb).backward()
        opt.step()
    warmup.step()
    decay.step()
'''


def _warm_and_decay(warm_len: str, decay_len: str) -> str:
    return WARM_AND_DECAY.replace("WARM_LEN", warm_len).replace("DECAY_LEN", decay_len)


@pytest.mark.parametrize("warm_len, decay_len", [
    ("WARM", "EPOCHS - WARM"),  # the same expression: found before too
    ("4", "EPOCHS - WARM"),
    ("WARM", "EPOCHS - 4"),
    ("2 * 2", "EPOCHS - WARM"),
])
def test_decay_sized_after_the_warm_up_stated_as_the_same_number(warm_len: str,
                                                                 decay_len: str) -> None:
    assert codes(_warm_and_decay(warm_len, decay_len)) == ["LRD012"]


@pytest.mark.parametrize("warm_len, decay_len", [
    ("4", "EPOCHS - 3"),  # another length: not sized after this warm-up
    ("4", "EPOCHS"),
    ("4", "36"),  # a bare number: sized after it or not, the file does not say
])
def test_decay_not_sized_after_the_warm_up_is_silent(warm_len: str, decay_len: str) -> None:
    assert "LRD012" not in codes(_warm_and_decay(warm_len, decay_len))


def test_a_length_of_one_is_no_evidence() -> None:
    # (the same expression on both sides, `total_iters=1` and `T_max=EPOCHS - 1`, still is)
    src = _warm_and_decay("WARM", "EPOCHS - 1").replace("EPOCHS, WARM = 40, 4",
                                                     "EPOCHS, WARM = 40, 1")
    assert "LRD012" not in codes(src)


def test_handed_over_by_sequential_lr_is_silent() -> None:
    src = _warm_and_decay("4", "EPOCHS - WARM").replace(
        "for epoch in range(EPOCHS):",
        "sched = torch.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[WARM])\n"
        "for epoch in range(EPOCHS):",
    ).replace("    warmup.step()\n    decay.step()\n", "    sched.step()\n")
    assert "LRD012" not in codes(src)


ARGPARSE_LENGTHS = '''
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--warmup", type=int, default=WARMUP_DEFAULT)
parser.add_argument("--warmup_epochs", type=int, default=6)
args = parser.parse_args()
net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
warmup = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=args.warmup)
decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=args.epochs - args.warmup_epochs)
for epoch in range(args.epochs):
    net(torch.randn(4, 3)).sum().backward()
    opt.step()
    opt.zero_grad()
    warmup.step()
    decay.step()
'''


@pytest.mark.parametrize("default, reported", [("6", True), ("3", False)])
def test_two_settings_defaulting_to_the_same_length(default: str, reported: bool) -> None:
    found = codes(ARGPARSE_LENGTHS.replace("WARMUP_DEFAULT", default))
    assert ("LRD012" in found) == reported


DATACLASS_CONFIG = '''
from dataclasses import dataclass


@dataclass
class RunConfig:
    epochs: int = 60
    warmup: int = 5
    lr: float = 0.05
'''

SCHEDULE_FACTORY = '''
import torch


def build_schedules(optimizer, cfg):
    ramp = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=5)
    tail = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs - cfg.warmup)
    return ramp, tail
'''

FACTORY_DRIVER = '''
import torch
from torch.utils.data import DataLoader, TensorDataset
from setup.config import RunConfig
from setup.schedules import build_schedules

cfg = RunConfig()
data = DataLoader(TensorDataset(torch.randn(40, 3), torch.randn(40, 1)), batch_size=8)
net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=cfg.lr)
ramp, tail = build_schedules(opt, cfg)
for epoch in range(cfg.epochs):
    for xb, yb in data:
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(xb), yb).backward()
        opt.step()
    ramp.step()
    tail.step()
'''


def test_decay_sized_after_the_warm_up_by_a_config_dataclass_of_another_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "setup/__init__.py": "",
        "setup/config.py": DATACLASS_CONFIG,
        "setup/schedules.py": SCHEDULE_FACTORY,
        "train.py": FACTORY_DRIVER,
    }
    found = [(path, code) for path, _, code in check_project(tmp_path, monkeypatch, files)]
    assert found == [("train.py", "LRD012")]


# -- the batch's cross-module shapes, kept followed -------------------------------------------

DATA = '''
import torch
from torch.utils.data import DataLoader, TensorDataset


def loaders():
    ds = TensorDataset(torch.randn(40, 3), torch.randn(40, 1))
    return DataLoader(ds, batch_size=8), DataLoader(ds, batch_size=8)
'''

# a session class whose GradScaler a string setting switches on, an engine function that takes
# the scaler as a parameter, a per-epoch checkpoint and a resume in the session itself
SESSION = '''
import torch
from torch.amp import GradScaler
from .engine import one_epoch


class Session:
    def __init__(self, net, optimizer, scheduler, settings):
        self.net, self.optimizer, self.scheduler = net, optimizer, scheduler
        self.settings = settings
        self.scaler = GradScaler() if settings.precision == "fp16" else None

    def save(self, epoch):
        torch.save({
            "net": self.net.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(),
            SAVE_SCALER
            "epoch": epoch,
        }, "last.pt")

    def restore(self):
        state = torch.load("last.pt")
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        RESTORE_SCALER
        return state["epoch"] + 1

    def run(self, loader, start=0):
        for epoch in range(start, self.settings.epochs):
            one_epoch(self.net, loader, self.optimizer, scaler=self.scaler)
            self.scheduler.step()
            self.save(epoch)

    def resume(self, loader):
        self.run(loader, start=self.restore())
'''

ENGINE = '''
import torch


def one_epoch(net, loader, optimizer, scaler=None):
    for xb, yb in loader:
        optimizer.zero_grad()
        if scaler is not None:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(net(xb), yb)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = torch.nn.functional.mse_loss(net(xb), yb)
            loss.backward()
            optimizer.step()
'''

SESSION_DRIVER = '''
import sys
import torch
from types import SimpleNamespace
from runs import Session
from runs.data import loaders

settings = SimpleNamespace(precision=sys.argv[1], epochs=20)
net = torch.nn.Linear(3, 1)
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=settings.epochs)
session = Session(net, opt, sched, settings)
session.resume(loaders()[0])
'''


@pytest.mark.parametrize("save, restore, reported", [
    ("", "pass", True),
    ('"scaler": self.scaler.state_dict() if self.scaler else None,',
     'if self.scaler is not None and state["scaler"]:\n'
     '            self.scaler.load_state_dict(state["scaler"])', False),
])
def test_session_scaler_switched_by_a_precision_setting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, save: str, restore: str,
        reported: bool) -> None:
    files = {
        "runs/__init__.py": "from .session import Session\n",
        "runs/session.py": SESSION.replace("SAVE_SCALER", save).replace("RESTORE_SCALER",
                                                                        restore),
        "runs/engine.py": ENGINE,
        "runs/data.py": DATA,
        "train.py": SESSION_DRIVER,
    }
    found = [code for _, _, code in check_project(tmp_path, monkeypatch, files)]
    assert ("LRD007" in found) == reported
    assert "LRD005" not in found  # the schedule steps once per epoch


# a checkpoint manager class in utils/ that adds the scheduler's entry only when one is given
MANAGER = '''
import os
import torch


class CheckpointManager:
    def __init__(self, folder):
        self.folder = folder

    def save(self, model, optimizer, scheduler, epoch, name="last.pth"EXTRA_ARG):
        entries = {"epoch": epoch, "model": model.state_dict(),
                   "optimizer": optimizer.state_dict()}
        if scheduler is not None:
            entries["scheduler"] = scheduler.state_dict()
        SAVE_EXTRA
        torch.save(entries, os.path.join(self.folder, name))

    def load(self, model, optimizer=None, scheduler=None, name="last.pth"EXTRA_ARG):
        entries = torch.load(os.path.join(self.folder, name), map_location="cpu")
        model.load_state_dict(entries["model"])
        if optimizer is not None:
            optimizer.load_state_dict(entries["optimizer"])
        if scheduler is not None and "scheduler" in entries:
            scheduler.load_state_dict(entries["scheduler"])
        LOAD_EXTRA
        return entries["epoch"]
'''

MANAGED_TRAINER = '''
import torch
from torch.amp import GradScaler, autocast
from utils.checkpoint import CheckpointManager


class Trainer:
    def __init__(self, model, loader, optimizer, scheduler, use_amp=True):
        self.model, self.loader = model, loader
        self.optimizer, self.scheduler = optimizer, scheduler
        self.use_amp = use_amp and torch.cuda.is_available()
        self.scaler = GradScaler("cuda", enabled=self.use_amp)
        self.manager = CheckpointManager("checkpoints")
        self.start = 0

    def resume(self):
        self.start = self.manager.load(self.model, self.optimizer, self.scheduler PASS_EXTRA)

    def fit(self, epochs):
        for epoch in range(self.start, epochs):
            for xb, yb in self.loader:
                self.optimizer.zero_grad(set_to_none=True)
                with autocast(device_type="cuda", enabled=self.use_amp):
                    loss = torch.nn.functional.mse_loss(self.model(xb), yb)
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
            if self.scheduler is not None:
                self.scheduler.step()
            self.manager.save(self.model, self.optimizer, self.scheduler, epoch + 1 PASS_EXTRA)
'''

MANAGED_DRIVER = '''
import torch
from trainers.trainer import Trainer
from data import loaders

model = torch.nn.Linear(3, 1)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30)
trainer = Trainer(model, loaders()[0], opt, sched)
trainer.resume()
trainer.fit(30)
'''


@pytest.mark.parametrize("with_scaler", [False, True])
def test_checkpoint_manager_of_another_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              with_scaler: bool) -> None:
    manager = MANAGER.replace("EXTRA_ARG", ", scaler=None" if with_scaler else "").replace(
        "SAVE_EXTRA", 'if scaler is not None:\n            entries["scaler"] = scaler.state_dict()'
        if with_scaler else "").replace(
        "LOAD_EXTRA", 'if scaler is not None and "scaler" in entries:\n'
        '            scaler.load_state_dict(entries["scaler"])' if with_scaler else "")
    trainer = MANAGED_TRAINER.replace("PASS_EXTRA", ", scaler=self.scaler" if with_scaler
                                      else "")
    files = {
        "utils/__init__.py": "",
        "utils/checkpoint.py": manager,
        "trainers/__init__.py": "",
        "trainers/trainer.py": trainer,
        "data.py": DATA,
        "train.py": MANAGED_DRIVER,
    }
    found = [code for _, _, code in check_project(tmp_path, monkeypatch, files)]
    assert ("LRD007" in found) == (not with_scaler)


# an engine function whose scaler parameter defaults to None, the driver handing one or not
PER_BATCH_ENGINE = '''
import torch


def train_one_epoch(model, optimizer, loader, lr_scheduler, scaler=None):
    for xb, yb in loader:
        with torch.autocast("cuda", enabled=scaler is not None):
            loss = torch.nn.functional.mse_loss(model(xb), yb)
        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        lr_scheduler.step()


def warmup_poly(optimizer, steps_per_epoch, epochs):
    total = steps_per_epoch * epochs
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda n: min(1.0, (n + 1) / steps_per_epoch) * (1 - n / total) ** 0.9)
'''

PER_BATCH_DRIVER = '''
import argparse
import torch
from train_utils import train_one_epoch, warmup_poly
from data import loaders

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
args = parser.parse_args()
loader = loaders()[0]
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
lr_scheduler = warmup_poly(optimizer, len(loader), 25)
SCALER
for epoch in range(25):
    train_one_epoch(model, optimizer, loader, lr_scheduler CALL_TAIL)
'''


@pytest.mark.parametrize("scaler, tail, reported", [
    ("", "", False),  # never handed a scaler: fp32
    ("scaler = None", ", scaler=scaler", False),
    ('scaler = torch.amp.GradScaler("cuda") if args.amp else None', ", scaler=scaler", True),
])
def test_engine_scaler_parameter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 scaler: str, tail: str, reported: bool) -> None:
    files = {
        "train_utils/__init__.py": "from .engine import train_one_epoch, warmup_poly\n",
        "train_utils/engine.py": PER_BATCH_ENGINE,
        "data.py": DATA,
        "train.py": PER_BATCH_DRIVER.replace("SCALER", scaler).replace("CALL_TAIL", tail),
    }
    found = [code for _, _, code in check_project(tmp_path, monkeypatch, files)]
    assert ("LRD005" in found) == reported


# a trainer that tries the validation metric first and falls back to a plain step
TRY_METRIC_TRAINER = '''
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader):
        self.model, self.optimizer, self.scheduler, self.loader = (
            model, optimizer, scheduler, loader)

    def score(self):
        with torch.no_grad():
            return {"kappa": sum(float(self.model(xb).mean()) for xb, _ in self.loader)}

    def fit(self, epochs):
        for epoch in range(epochs):
            for xb, yb in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(xb), yb).backward()
                self.optimizer.step()
            metrics = self.score()
            if self.scheduler is not None:
                try:
                    self.scheduler.step(metrics["kappa"])
                except TypeError:
                    self.scheduler.step()
'''


@pytest.mark.parametrize("built, reported", [
    ("CosineAnnealingLR(opt, T_max=30)", True),  # the kappa is taken as the epoch
    ('ReduceLROnPlateau(opt, mode="max")', False),
])
def test_metric_tried_first_on_any_scheduler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             built: str, reported: bool) -> None:
    files = {
        "fitting/__init__.py": "",
        "fitting/trainer.py": TRY_METRIC_TRAINER,
        "data.py": DATA,
        "train.py": (
            "import torch\nfrom fitting.trainer import Trainer\nfrom data import loaders\n\n"
            "model = torch.nn.Linear(3, 1)\n"
            "opt = torch.optim.AdamW(model.parameters(), lr=1e-4)\n"
            f"sched = torch.optim.lr_scheduler.{built}\n"
            "Trainer(model, opt, sched, loaders()[0]).fit(30)\n"
        ),
    }
    found = [code for _, _, code in check_project(tmp_path, monkeypatch, files)]
    assert ("LRD006" in found) == reported


# a base class that saves and resumes; the subclass adds the GradScaler and, in the correct
# spelling, hooks that put it into the checkpoint and take it back
BASE_TRAINER = '''
import torch


class BaseTrainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=epochs)
        self.start = 0

    def extra_state(self):
        return {}

    def load_extra(self, state):
        pass

    def save(self, epoch):
        state = {"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                 "scheduler": self.scheduler.state_dict(), "epoch": epoch}
        state.update(self.extra_state())
        torch.save(state, "last.pt")

    def resume(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.load_extra(state)
        self.start = state["epoch"] + 1

    def train_epoch(self):
        raise NotImplementedError

    def fit(self):
        for epoch in range(self.start, self.epochs):
            self.train_epoch()
            self.scheduler.step()
            self.save(epoch)
'''

AMP_TRAINER = '''
import torch
from .base import BaseTrainer


class AmpTrainer(BaseTrainer):
    def __init__(self, model, loader, epochs):
        super().__init__(model, loader, epochs)
        self.scaler = torch.amp.GradScaler("cuda")
HOOKS
    def train_epoch(self):
        for xb, yb in self.loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(self.model(xb), yb)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
'''

HOOKS = '''
    def extra_state(self):
        return {"scaler": self.scaler.state_dict()}

    def load_extra(self, state):
        self.scaler.load_state_dict(state["scaler"])
'''


@pytest.mark.parametrize("hooks, reported", [("", True), (HOOKS, False)])
def test_base_class_resume_and_a_subclass_scaler(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 hooks: str, reported: bool) -> None:
    files = {
        "trainers/__init__.py": "from .amp import AmpTrainer\n",
        "trainers/base.py": BASE_TRAINER,
        "trainers/amp.py": AMP_TRAINER.replace("HOOKS", hooks),
        "data.py": DATA,
        "main.py": (
            "import sys\nimport torch\nfrom trainers import AmpTrainer\n"
            "from data import loaders\n\n"
            "trainer = AmpTrainer(torch.nn.Linear(3, 1), loaders()[0], 30)\n"
            "if len(sys.argv) > 1:\n    trainer.resume(sys.argv[1])\ntrainer.fit()\n"
        ),
    }
    found = [code for _, _, code in check_project(tmp_path, monkeypatch, files)]
    assert ("LRD007" in found) == reported


# an engine package re-exported by its __init__ with relative imports, run from scripts/
RELATIVE_ENGINE = '''
import torch
import torch.optim as optim
from ..data import loaders


def run_training(cfg):
    loader, _ = loaders()
    model = torch.nn.Linear(3, 1).cuda()
    optimizer = optim.AdamW(model.parameters(), lr=cfg.lr)
    scheduler = optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=cfg.lr, steps_per_epoch=len(loader), epochs=cfg.epochs)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(cfg.epochs):
        for xb, yb in loader:
            with torch.amp.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(model(xb.cuda()), yb.cuda())
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            scheduler.step()
'''


def test_relative_engine_package_run_from_a_script(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "src/__init__.py": "",
        "src/data.py": DATA,
        "src/engine/__init__.py": "from .trainer import run_training\n",
        "src/engine/trainer.py": RELATIVE_ENGINE,
        "scripts/train.py": (
            "import os\nimport sys\nfrom types import SimpleNamespace\n\n"
            "sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n"
            "from src.engine import run_training\n\n"
            "if __name__ == \"__main__\":\n"
            "    run_training(SimpleNamespace(lr=1e-3, epochs=40))\n"
        ),
    }
    found = [(path, code) for path, _, code in check_project(tmp_path, monkeypatch, files)]
    assert found == [("src/engine/trainer.py", "LRD005")]
