"""The model of the program holds when the code is laid out as real projects lay it out, round
15 (meta15): projects split over modules. A trainer class in one module and the driver in
another, re-exported by a package ``__init__``; a base class owning the epoch loop and a
subclass owning the scheduler (and the hooks it steps in); a scheduler factory in its own
module returning ``(optimizer, scheduler)`` or a dict; settings held in a dataclass, a copy of
an argparse ``Namespace`` (``vars(args)``, ``copy.deepcopy(args)``), a ``SimpleNamespace`` or
an OmegaConf config (``cfg.train.lr``); the train step in a helper module called through
``functools.partial``; a ``while True`` loop over an iterator that restarts on
``StopIteration``; a scheduler stepped under ``if accelerator.sync_gradients``; a checkpoint
saved by a helper module through ``torch.save({**state, ...})`` and resumed by another; AMP
switched by ``dtype = torch.float16 if args.fp16 else torch.float32``.

Thirteen pairs were wrong on main (e167e6a), three of them false alarms on the correct twin;
twelve are fixed, by the semantics (one stays ``xfail(strict=True)``, the reason at it): ``x is None`` / ``x is not None`` decided for an object a
constructor built (a save helper's ``else`` branch the caller never takes); a ``while`` loop
whose ``except StopIteration:`` handler restarts the loader's iterator read as a loop over
passes around the batches of one pass; a field of an imported record-class instance no one
gave a value read as the class's default; a dtype picked by a switch (``torch.float16 if
args.fp16 else torch.float32``) float16 when the switch is on (LRD102, LRD111); a name a
project module relays from a library standing for the library's name (LRD101); a loss
function of another project module called under autocast reached by LRD103; a builder of
another module handed ``model.parameters()``, an Adam a trainer module builds right after
casting its model, and an argparse default of the module whose function parses the command
line (LRD102); ``configure_optimizers`` of a class whose bases are all the project's own or
``nn.Module`` read as the project's method, not Lightning's hook.

Each project is written once with its two twins inline, ``[[wrong||right]]`` (in any of its
files): the wrong twin must be reported with the pair's code, the right twin must give no
finding at all; the guards at the end, correct programs in the same layouts, must give
none."""

from __future__ import annotations

import re

import pytest

from .helpers import check_project, project_codes

_TWIN = re.compile(r"\[\[(.*?)\|\|(.*?)\]\]", re.S)


def assert_project_twins(tmp_path, monkeypatch, code: str, files: dict[str, str]) -> None:
    """The wrong twin of ``files`` gives ``code``, the right twin nothing (every ``.py`` file
    checked; other files, a YAML config, are there to be read)."""
    found = []
    for twin in (1, 2):
        chosen = {name: _TWIN.sub(lambda m, t=twin: m.group(t), text)
                  for name, text in files.items()}
        found.append(project_codes(check_project(
            tmp_path / str(twin), monkeypatch, chosen,
            checked=sorted(n for n in chosen if n.endswith(".py")))))
    assert code in found[0], f"the wrong twin is missed: {found[0]}"
    assert found[1] == [], f"the right twin is reported: {found[1]}"


# -- a trainer class in one module, the driver in another, a package re-export --------------

TRAINER_MODULE = {
    'trainer in a package module re-exported by __init__, StepLR per batch': ('LRD002', {
        "mypkg/__init__.py": """
            from .trainer import Trainer

            __all__ = ["Trainer"]
            """,
        "mypkg/trainer.py": """
            import torch


            class Trainer:
                def __init__(self, model, optimizer, scheduler, loader):
                    self.model = model
                    self.optimizer = optimizer
                    self.scheduler = scheduler
                    self.loader = loader

                def train_epoch(self):
                    for x, y in self.loader:
                        self.optimizer.zero_grad()
                        torch.nn.functional.mse_loss(self.model(x), y).backward()
                        self.optimizer.step()
                        [[self.scheduler.step()||pass]]

                def fit(self, epochs):
                    for epoch in range(epochs):
                        self.train_epoch()
                        [[pass||self.scheduler.step()]]
            """,
        "train.py": """
            import torch
            from torch.optim.lr_scheduler import StepLR

            from mypkg import Trainer


            def main(model, loader, epochs=90):
                opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
                sched = StepLR(opt, step_size=30, gamma=0.1)
                Trainer(model, opt, sched, loader).fit(epochs)
            """,
    }),
    'trainer module imported by a relative import, one-cycle per epoch': ('LRD003', {
        "src/__init__.py": "",
        "src/engine.py": """
            import torch


            class Engine:
                def __init__(self, model, opt, sched):
                    self.model, self.opt, self.sched = model, opt, sched

                def run(self, loader, epochs):
                    for _ in range(epochs):
                        for x, y in loader:
                            self.opt.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()
                            [[pass||self.sched.step()]]
                        [[self.sched.step()||pass]]
            """,
        "src/main.py": """
            import torch

            from .engine import Engine


            def main(model, loader, epochs=10):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(
                    opt, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(loader))
                Engine(model, opt, sched).run(loader, epochs)
            """,
    }),
    'trainer keeps its optimizer in a module, fp16 model, default Adam eps': ('LRD102', {
        "lib/__init__.py": "from .learner import Learner\n",
        "lib/learner.py": """
            import torch


            class Learner:
                def __init__(self, model, lr):
                    self.model = model.half()
                    self.opt = torch.optim.Adam(self.model.parameters(), lr=lr[[||, eps=1e-4]])

                def fit(self, loader):
                    for x, y in loader:
                        self.opt.zero_grad()
                        torch.nn.functional.mse_loss(self.model(x.half()), y.half()).backward()
                        self.opt.step()
            """,
        "run.py": """
            from lib import Learner


            def main(model, loader):
                Learner(model, lr=1e-3).fit(loader)
            """,
    }),
    'get_lr logged by a logging helper module': ('LRD015', {
        "utils/__init__.py": "",
        "utils/logging.py": """
            def log_lr(writer, scheduler, step):
                writer.add_scalar("lr", scheduler.[[get_lr||get_last_lr]]()[0], step)
            """,
        "train.py": """
            import torch
            from torch.optim.lr_scheduler import CosineAnnealingLR

            from utils.logging import log_lr


            def main(model, loader, writer, epochs=100):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = CosineAnnealingLR(opt, T_max=epochs)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    sched.step()
                    log_lr(writer, sched, epoch)
            """,
    }),
}


@pytest.mark.parametrize("name", list(TRAINER_MODULE))
def test_a_trainer_in_its_own_module_holds(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *TRAINER_MODULE[name])


# -- a base class owning the epoch loop, the subclass owning the scheduler ------------------

BASE_LOOP = {
    'base loop calls after_batch; subclass steps StepLR there': ('LRD002', {
        "base.py": """
            import torch


            class BaseTrainer:
                def __init__(self, model, loader, epochs):
                    self.model, self.loader, self.epochs = model, loader, epochs
                    self.optimizer = self.build_optimizer()
                    self.scheduler = self.build_scheduler()

                def build_optimizer(self):
                    return torch.optim.SGD(self.model.parameters(), lr=0.1)

                def build_scheduler(self):
                    return None

                def after_batch(self):
                    pass

                def after_epoch(self):
                    pass

                def fit(self):
                    for epoch in range(self.epochs):
                        for x, y in self.loader:
                            self.optimizer.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.optimizer.step()
                            self.after_batch()
                        self.after_epoch()
            """,
        "classifier.py": """
            from torch.optim.lr_scheduler import MultiStepLR

            from base import BaseTrainer


            class ClassifierTrainer(BaseTrainer):
                def build_scheduler(self):
                    return MultiStepLR(self.optimizer, milestones=[30, 60, 80], gamma=0.1)

                def [[after_batch||after_epoch]](self):
                    self.scheduler.step()


            def main(model, loader):
                ClassifierTrainer(model, loader, epochs=90).fit()
            """,
    }),
    'base loop calls on_epoch_end; subclass steps one-cycle there': ('LRD003', {
        "base.py": """
            import torch


            class Base:
                def __init__(self, model, loader, epochs):
                    self.model, self.loader, self.epochs = model, loader, epochs

                def on_step_end(self):
                    pass

                def on_epoch_end(self):
                    pass

                def train(self):
                    for epoch in range(self.epochs):
                        for x, y in self.loader:
                            self.opt.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()
                            self.on_step_end()
                        self.on_epoch_end()
            """,
        "seg.py": """
            import torch

            from base import Base


            class SegTrainer(Base):
                def __init__(self, model, loader, epochs):
                    super().__init__(model, loader, epochs)
                    self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                    self.sched = torch.optim.lr_scheduler.OneCycleLR(
                        self.opt, max_lr=1e-3, total_steps=epochs * len(loader))

                def [[on_epoch_end||on_step_end]](self):
                    self.sched.step()


            def main(model, loader):
                SegTrainer(model, loader, 20).train()
            """,
    }),
    'base loop calls on_epoch_start; subclass steps at the top of the epoch': ('LRD001', {
        "core/__init__.py": "",
        "core/base.py": """
            import torch


            class Loop:
                def __init__(self, model, loader, optimizer):
                    self.model, self.loader, self.optimizer = model, loader, optimizer

                def on_epoch_start(self, epoch):
                    pass

                def on_epoch_end(self, epoch):
                    pass

                def run(self, epochs):
                    for epoch in range(epochs):
                        self.on_epoch_start(epoch)
                        for x, y in self.loader:
                            self.optimizer.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.optimizer.step()
                        self.on_epoch_end(epoch)
            """,
        "core/scheduled.py": """
            from torch.optim.lr_scheduler import StepLR

            from .base import Loop


            class ScheduledLoop(Loop):
                def __init__(self, model, loader, optimizer):
                    super().__init__(model, loader, optimizer)
                    self.scheduler = StepLR(optimizer, step_size=10)

                def [[on_epoch_start||on_epoch_end]](self, epoch):
                    self.scheduler.step()
            """,
        "main.py": """
            import torch

            from core.scheduled import ScheduledLoop


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                ScheduledLoop(model, loader, opt).run(30)
            """,
    }),
    'base loop, subclass passes the epoch to step': ('LRD006', {
        "base.py": """
            import torch


            class Trainer:
                def __init__(self, model, loader):
                    self.model, self.loader = model, loader

                def epoch_end(self, epoch):
                    pass

                def fit(self, epochs):
                    for epoch in range(epochs):
                        for x, y in self.loader:
                            self.opt.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()
                        self.epoch_end(epoch)
            """,
        "cosine.py": """
            import torch

            from base import Trainer


            class CosineTrainer(Trainer):
                def __init__(self, model, loader, epochs):
                    super().__init__(model, loader)
                    self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
                    self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)

                def epoch_end(self, epoch):
                    self.sched.step([[epoch||]])


            def main(model, loader):
                CosineTrainer(model, loader, 50).fit(50)
            """,
    }),
    'base loop with AMP, subclass steps the scheduler after the scaler': ('LRD005', {
        "base.py": """
            import torch


            class AmpTrainer:
                def __init__(self, model, loader):
                    self.model, self.loader = model, loader
                    self.scaler = torch.amp.GradScaler("cuda")

                def scheduler_step(self):
                    pass

                def fit(self, epochs):
                    for epoch in range(epochs):
                        for x, y in self.loader:
                            self.opt.zero_grad()
                            with torch.autocast("cuda", dtype=torch.float16):
                                loss = torch.nn.functional.mse_loss(self.model(x), y)
                            self.scaler.scale(loss).backward()
                            self.scaler.step(self.opt)
                            [[self.scaler.update()
                            self.scheduler_step()||scale = self.scaler.get_scale()
                            self.scaler.update()
                            if self.scaler.get_scale() >= scale:
                                self.scheduler_step()]]
            """,
        "warm.py": """
            import torch

            from base import AmpTrainer


            class WarmTrainer(AmpTrainer):
                def __init__(self, model, loader, epochs):
                    super().__init__(model, loader)
                    self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                    self.sched = torch.optim.lr_scheduler.OneCycleLR(
                        self.opt, max_lr=1e-3, total_steps=epochs * len(loader))

                def scheduler_step(self):
                    self.sched.step()


            def main(model, loader):
                WarmTrainer(model, loader, 10).fit(10)
            """,
    }),
    'base loop accumulates; subclass steps on every micro-batch': ('LRD017', {
        "base.py": """
            import torch


            class AccumTrainer:
                accum = 4

                def __init__(self, model, loader):
                    self.model, self.loader = model, loader

                def after_update(self):
                    pass

                def after_micro_batch(self):
                    pass

                def fit(self, epochs):
                    for epoch in range(epochs):
                        for i, (x, y) in enumerate(self.loader):
                            loss = torch.nn.functional.mse_loss(self.model(x), y) / self.accum
                            loss.backward()
                            if (i + 1) % self.accum == 0:
                                self.opt.step()
                                self.opt.zero_grad()
                                self.after_update()
                            self.after_micro_batch()
            """,
        "lm.py": """
            import torch

            from base import AccumTrainer


            class LMTrainer(AccumTrainer):
                def __init__(self, model, loader, epochs):
                    super().__init__(model, loader)
                    self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                    self.sched = torch.optim.lr_scheduler.OneCycleLR(
                        self.opt, max_lr=1e-3, total_steps=epochs * len(loader) // self.accum)

                def [[after_micro_batch||after_update]](self):
                    self.sched.step()


            def main(model, loader):
                LMTrainer(model, loader, 3).fit(3)
            """,
    }),
    'base loop feeds validate(); subclass steps the plateau without the metric': ('LRD004', {
        "base.py": """
            import torch


            class Trainer:
                def __init__(self, model, loader, val_loader):
                    self.model, self.loader, self.val_loader = model, loader, val_loader

                def validate(self):
                    total = 0.0
                    with torch.no_grad():
                        for x, y in self.val_loader:
                            total += torch.nn.functional.mse_loss(self.model(x), y).item()
                    return total / len(self.val_loader)

                def end_of_epoch(self, val_loss):
                    pass

                def fit(self, epochs):
                    for epoch in range(epochs):
                        for x, y in self.loader:
                            self.opt.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()
                        self.end_of_epoch(self.validate())
            """,
        "plateau.py": """
            import torch

            from base import Trainer


            class PlateauTrainer(Trainer):
                def __init__(self, model, loader, val_loader):
                    super().__init__(model, loader, val_loader)
                    self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)
                    self.sched = torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt, patience=5)

                def end_of_epoch(self, val_loss):
                    self.sched.step([[||val_loss]])


            def main(model, loader, val_loader):
                PlateauTrainer(model, loader, val_loader).fit(100)
            """,
    }),
}


@pytest.mark.parametrize("name", list(BASE_LOOP))
def test_a_base_class_loop_with_a_subclass_scheduler_holds(name: str, tmp_path,
                                                            monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *BASE_LOOP[name])


# -- a scheduler factory in its own module --------------------------------------------------

FACTORY = {
    'factory module returns (optimizer, scheduler); StepLR per batch': ('LRD002', {
        "optim_factory.py": """
            import torch


            def build_optimizer(model, lr, epochs):
                optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
                scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=epochs // 3)
                return optimizer, scheduler
            """,
        "train.py": """
            import torch

            from optim_factory import build_optimizer


            def main(model, loader, epochs=90):
                optimizer, scheduler = build_optimizer(model, 0.1, epochs)
                for epoch in range(epochs):
                    for x, y in loader:
                        optimizer.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        optimizer.step()
                        [[scheduler.step()||pass]]
                    [[pass||scheduler.step()]]
            """,
    }),
    'factory module returns a dict; one-cycle per epoch': ('LRD003', {
        "factory.py": """
            import torch


            def make_optim(model, cfg, steps_per_epoch):
                opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
                sched = torch.optim.lr_scheduler.OneCycleLR(
                    opt, max_lr=cfg["lr"], total_steps=cfg["epochs"] * steps_per_epoch)
                return {"optimizer": opt, "scheduler": sched}
            """,
        "train.py": """
            import torch

            from factory import make_optim

            CFG = {"lr": 3e-4, "epochs": 20}


            def main(model, loader):
                parts = make_optim(model, CFG, len(loader))
                opt = parts["optimizer"]
                for epoch in range(CFG["epochs"]):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        [[pass||parts["scheduler"].step()]]
                    [[parts["scheduler"].step()||pass]]
            """,
    }),
    'factory returns a warm-up and a decay stepped side by side': ('LRD012', {
        "sched.py": """
            import torch


            def schedulers(opt, warmup, epochs):
                warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup))
                decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
                [[return warm, decay||return torch.optim.lr_scheduler.SequentialLR(
                    opt, [warm, decay], milestones=[warmup])]]
            """,
        "train.py": """
            import torch

            from sched import schedulers


            def main(model, loader, epochs=100):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                [[warm, decay||sched]] = schedulers(opt, 5, epochs)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    [[warm.step()
                    decay.step()||sched.step()]]
            """,
    }),
    'factory takes the optimizer class and eps from the caller, fp16 params': ('LRD102', {
        "factory.py": """
            import torch


            def make_optimizer(params, lr, eps):
                return torch.optim.Adam(params, lr=lr, eps=eps)
            """,
        "train.py": """
            import torch

            from factory import make_optimizer


            def main(model, loader):
                model = model.to(torch.float16)
                opt = make_optimizer(model.parameters(), 1e-3, [[1e-8||1e-4]])
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    opt.step()
            """,
    }),
    'Lightning module whose scheduler factory returns a config dict': ('LRD003', {
        "schedules.py": """
            import torch


            def one_cycle(optimizer, total_steps):
                sched = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3,
                                                            total_steps=total_steps)
                return {"scheduler": sched, "interval": [["epoch"||"step"]]}
            """,
        "model.py": """
            import lightning as L
            import torch

            from schedules import one_cycle


            class Net(L.LightningModule):
                def __init__(self, total_steps):
                    super().__init__()
                    self.layer = torch.nn.Linear(8, 1)
                    self.total_steps = total_steps

                def training_step(self, batch, batch_idx):
                    x, y = batch
                    return torch.nn.functional.mse_loss(self.layer(x), y)

                def configure_optimizers(self):
                    opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
                    return {"optimizer": opt, "lr_scheduler": one_cycle(opt, self.total_steps)}
            """,
    }),
}


@pytest.mark.parametrize("name", list(FACTORY))
def test_a_scheduler_factory_in_its_own_module_holds(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *FACTORY[name])


# -- settings records: dataclass, vars(args), deepcopy(args), SimpleNamespace, OmegaConf -----

CONFIGS = {
    'dataclass config in its own module, StepLR from its step_size per batch': ('LRD002', {
        "config.py": """
            from dataclasses import dataclass


            @dataclass
            class TrainConfig:
                lr: float = 0.1
                epochs: int = 90
                step_size: int = 30
                gamma: float = 0.1
            """,
        "train.py": """
            import torch

            from config import TrainConfig


            def main(model, loader, cfg: TrainConfig = TrainConfig()):
                opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
                sched = torch.optim.lr_scheduler.StepLR(opt, cfg.step_size, cfg.gamma)
                for epoch in range(cfg.epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        [[sched.step()||pass]]
                    [[pass||sched.step()]]
            """,
    }),
    'dataclass config with a total_steps property, cosine sized in epochs per batch': ('LRD002', {
        "config.py": """
            from dataclasses import dataclass


            @dataclass
            class Config:
                epochs: int = 100
                steps_per_epoch: int = 500

                @property
                def total_steps(self):
                    return self.epochs * self.steps_per_epoch
            """,
        "train.py": """
            import torch

            from config import Config


            def main(model, loader):
                cfg = Config(steps_per_epoch=len(loader))
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.CosineAnnealingLR(
                    opt, T_max=[[cfg.epochs||cfg.total_steps]])
                for epoch in range(cfg.epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        sched.step()
            """,
    }),
    'settings from vars(args), milestones stepped per batch': ('LRD002', {
        "train.py": """
            import argparse

            import torch


            def parse():
                p = argparse.ArgumentParser()
                p.add_argument("--lr", type=float, default=0.1)
                p.add_argument("--epochs", type=int, default=120)
                p.add_argument("--milestones", type=int, nargs="+", default=[60, 90])
                return p.parse_args()


            def main(model, loader):
                hp = vars(parse())
                opt = torch.optim.SGD(model.parameters(), lr=hp["lr"])
                sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=hp["milestones"])
                for epoch in range(hp["epochs"]):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        [[sched.step()||pass]]
                    [[pass||sched.step()]]
            """,
    }),
    'settings from a deepcopy of args, fp16 adam eps': ('LRD102', {
        "opts.py": """
            import argparse


            def get_args():
                p = argparse.ArgumentParser()
                p.add_argument("--lr", type=float, default=1e-3)
                p.add_argument("--eps", type=float, default=[[1e-8||1e-4]])
                return p.parse_args()
            """,
        "train.py": """
            import copy

            import torch

            from opts import get_args


            def main(model, loader):
                args = get_args()
                hp = copy.deepcopy(args)
                hp.lr = hp.lr * 2
                model = model.half()
                opt = torch.optim.Adam(model.parameters(), lr=hp.lr, eps=hp.eps)
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
                    opt.step()
            """,
    }),
    'SimpleNamespace config, warm-up to the total steps stepped per epoch': ('LRD003', {
        "train.py": """
            from types import SimpleNamespace

            import torch

            cfg = SimpleNamespace(lr=5e-4, epochs=30, warmup_steps=500)


            def main(model, loader):
                total = cfg.epochs * len(loader)
                opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
                sched = torch.optim.lr_scheduler.LambdaLR(
                    opt, lambda s: min((s + 1) / cfg.warmup_steps, 1.0 - s / total))
                for epoch in range(cfg.epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        [[pass||sched.step()]]
                    [[sched.step()||pass]]
            """,
    }),
    'OmegaConf nested config, cosine T_max of cfg.train.epochs per batch': ('LRD002', {
        "train.py": """
            import torch
            from omegaconf import OmegaConf

            cfg = OmegaConf.create({"train": {"lr": 0.1, "epochs": 200}, "data": {"bs": 128}})


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=cfg.train.lr)
                sched = torch.optim.lr_scheduler.CosineAnnealingLR(
                    opt, T_max=[[cfg.train.epochs||cfg.train.epochs * len(loader)]])
                for epoch in range(cfg.train.epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        sched.step()
            """,
    }),
    'OmegaConf config loaded from YAML, StepLR per batch': ('LRD002', {
        "config.yaml": """
            train:
              lr: 0.1
              epochs: 90
              step_size: 30
            """,
        "train.py": """
            import torch
            from omegaconf import OmegaConf


            def main(model, loader):
                cfg = OmegaConf.load("config.yaml")
                opt = torch.optim.SGD(model.parameters(), lr=cfg.train.lr)
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=cfg.train.step_size)
                for epoch in range(cfg.train.epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        [[sched.step()||pass]]
                    [[pass||sched.step()]]
            """,
    }),
    'dataclass config passed to a trainer module, plateau in max mode on a loss': ('LRD004', {
        "config.py": """
            from dataclasses import dataclass


            @dataclass(frozen=True)
            class Cfg:
                lr: float = 1e-3
                patience: int = 3
                mode: str = [["max"||"min"]]
            """,
        "trainer.py": """
            import torch


            def evaluate(model, loader):
                with torch.no_grad():
                    return sum(torch.nn.functional.mse_loss(model(x), y).item()
                               for x, y in loader) / len(loader)


            def fit(model, loader, val_loader, cfg, epochs):
                opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
                sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode=cfg.mode,
                                                                   patience=cfg.patience)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    val_loss = evaluate(model, val_loader)
                    sched.step(val_loss)
            """,
        "main.py": """
            from config import Cfg
            from trainer import fit


            def main(model, loader, val_loader):
                fit(model, loader, val_loader, Cfg(), epochs=50)
            """,
    }),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_settings_records_hold(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *CONFIGS[name])


# -- the step in a helper module called through functools.partial ---------------------------

PARTIAL = {
    'train step in a helper module, bound by partial, StepLR per batch': ('LRD002', {
        "steps.py": """
            import torch


            def train_step(batch, model, optimizer, scheduler):
                x, y = batch
                optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
                [[scheduler.step()||pass]]
                return loss.item()
            """,
        "train.py": """
            import functools

            import torch

            from steps import train_step


            def main(model, loader, epochs=90):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
                step = functools.partial(train_step, model=model, optimizer=opt, scheduler=sched)
                for epoch in range(epochs):
                    for batch in loader:
                        step(batch)
                    [[pass||sched.step()]]
            """,
    }),
    'AMP step in a helper module bound by partial, scheduler after the scaler': ('LRD005', {
        "amp_step.py": """
            import torch


            def amp_step(model, opt, scaler, sched, x, y):
                opt.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(opt)
                [[scaler.update()
                sched.step()||old = scaler.get_scale()
                scaler.update()
                if scaler.get_scale() >= old:
                    sched.step()]]
            """,
        "train.py": """
            import functools

            import torch

            from amp_step import amp_step


            def main(model, loader, epochs=5):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3,
                                                            total_steps=epochs * len(loader))
                scaler = torch.amp.GradScaler("cuda")
                step = functools.partial(amp_step, model, opt, scaler, sched)
                for epoch in range(epochs):
                    for x, y in loader:
                        step(x, y)
            """,
    }),
    'clip in a helper module bound by partial, before the unscale': ('LRD108', {
        "update.py": """
            import torch


            def update(model, opt, scaler, loss, max_norm):
                scaler.scale(loss).backward()
                [[||scaler.unscale_(opt)
                ]]torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
                scaler.step(opt)
                scaler.update()
                opt.zero_grad()
            """,
        "train.py": """
            import functools

            import torch

            from update import update


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda")
                do_update = functools.partial(update, model, opt, scaler, max_norm=1.0)
                for x, y in loader:
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    do_update(loss)
            """,
    }),
    'manual warm-up in a helper module bound by partial beside a scheduler': ('LRD008', {
        "lr_utils.py": """
            def warmup_lr(optimizer, step, base_lr, warmup):
                for group in optimizer.param_groups:
                    group["lr"] = base_lr * min(1.0, (step + 1) / warmup)
            """,
        "train.py": """
            import functools

            import torch

            from lr_utils import warmup_lr


            def main(model, loader, epochs=90):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = [[torch.optim.lr_scheduler.StepLR(opt, step_size=30)||None]]
                warm = functools.partial(warmup_lr, opt, base_lr=0.1, warmup=500)
                step = 0
                for epoch in range(epochs):
                    for x, y in loader:
                        warm(step)
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        step += 1
                    if sched is not None:
                        sched.step()
            """,
    }),
}


@pytest.mark.parametrize("name", list(PARTIAL))
def test_a_helper_module_step_through_partial_holds(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *PARTIAL[name])


# -- a while True loop over an iterator, restarted on StopIteration --------------------------

ITERATOR = {
    'epoch boundary in the StopIteration handler; one-cycle stepped there': ('LRD003', {
        "train.py": """
            import torch


            def main(model, loader, max_steps=10000):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=max_steps)
                it = iter(loader)
                step = 0
                while True:
                    try:
                        x, y = next(it)
                    except StopIteration:
                        it = iter(loader)
                        [[sched.step()||pass]]
                        continue
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    opt.step()
                    [[pass||sched.step()]]
                    step += 1
                    if step >= max_steps:
                        break
            """,
    }),
    'epoch boundary in the StopIteration handler; StepLR stepped per batch': ('LRD002', {
        "train.py": """
            import torch


            def main(model, loader, epochs=90):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
                it = iter(loader)
                epoch = 0
                while True:
                    try:
                        x, y = next(it)
                    except StopIteration:
                        epoch += 1
                        [[pass||sched.step()]]
                        if epoch == epochs:
                            break
                        it = iter(loader)
                        continue
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    opt.step()
                    [[sched.step()||pass]]
            """,
    }),
    'iterator loop with accumulation, scheduler on every micro-batch': ('LRD017', {
        "train.py": """
            import torch


            def main(model, loader, max_updates=2000, accum=8):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.0,
                                                          total_iters=max_updates)
                it = iter(loader)
                micro = 0
                updates = 0
                while updates < max_updates:
                    try:
                        x, y = next(it)
                    except StopIteration:
                        it = iter(loader)
                        x, y = next(it)
                    (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
                    micro += 1
                    if micro % accum == 0:
                        opt.step()
                        opt.zero_grad()
                        updates += 1
                        [[pass||sched.step()]]
                    [[sched.step()||pass]]
            """,
    }),
    'iterator in a trainer module, scheduler built by the driver': ('LRD002', {
        "loop.py": """
            import torch


            def run(model, opt, sched, loader, epochs):
                for epoch in range(epochs):
                    batches = iter(loader)
                    while True:
                        try:
                            x, y = next(batches)
                        except StopIteration:
                            break
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                        [[sched.step()||pass]]
                    [[pass||sched.step()]]
            """,
        "main.py": """
            import torch

            from loop import run


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[100, 150])
                run(model, opt, sched, loader, 200)
            """,
    }),
}


@pytest.mark.parametrize("name", list(ITERATOR))
def test_a_while_true_iterator_loop_holds(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *ITERATOR[name])


# -- Accelerate: the scheduler under ``if accelerator.sync_gradients`` -----------------------

ACCELERATE = {
    'StepLR stepped on every synced update': ('LRD002', {
        "train.py": """
            import torch
            from accelerate import Accelerator


            def main(model, loader, epochs=90):
                accelerator = Accelerator(gradient_accumulation_steps=4)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
                model, opt, loader = accelerator.prepare(model, opt, loader)
                for epoch in range(epochs):
                    for x, y in loader:
                        with accelerator.accumulate(model):
                            loss = torch.nn.functional.mse_loss(model(x), y)
                            accelerator.backward(loss)
                            opt.step()
                            opt.zero_grad()
                        if accelerator.sync_gradients:
                            [[sched.step()||pass]]
                    [[pass||sched.step()]]
            """,
    }),
    'one-cycle stepped once per epoch next to a sync_gradients counter': ('LRD003', {
        "train.py": """
            import torch
            from accelerate import Accelerator


            def main(model, loader, epochs=3, accum=4):
                accelerator = Accelerator(gradient_accumulation_steps=accum)
                opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
                sched = torch.optim.lr_scheduler.OneCycleLR(
                    opt, max_lr=1e-4, total_steps=epochs * len(loader) // accum)
                model, opt, loader = accelerator.prepare(model, opt, loader)
                completed = 0
                for epoch in range(epochs):
                    for x, y in loader:
                        with accelerator.accumulate(model):
                            accelerator.backward(torch.nn.functional.mse_loss(model(x), y))
                            opt.step()
                            opt.zero_grad()
                        if accelerator.sync_gradients:
                            completed += 1
                            [[pass||sched.step()]]
                    [[sched.step()||pass]]
            """,
    }),
    'clip under sync_gradients outside accelerator.clip_grad_norm_, with a scaler': ('LRD108', {
        "train.py": """
            import torch


            def main(model, loader, sync_every=4):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda")
                for i, (x, y) in enumerate(loader):
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = torch.nn.functional.mse_loss(model(x), y) / sync_every
                    scaler.scale(loss).backward()
                    sync_gradients = (i + 1) % sync_every == 0
                    if sync_gradients:
                        [[||scaler.unscale_(opt)
                        ]]torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                        scaler.step(opt)
                        scaler.update()
                        opt.zero_grad()
            """,
    }),
}


@pytest.mark.parametrize("name", list(ACCELERATE))
def test_a_scheduler_under_sync_gradients_holds(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *ACCELERATE[name])


# -- a checkpoint saved by a helper module, resumed by another ------------------------------

CHECKPOINT = {
    'save helper merges **extra into the state; the scheduler not passed': ('LRD007', {
        "utils/__init__.py": "",
        "utils/ckpt.py": """
            import torch


            def save_checkpoint(path, model, optimizer, epoch, **extra):
                state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                         "epoch": epoch}
                torch.save({**state, **extra}, path)
            """,
        "train.py": """
            import torch

            from utils.ckpt import save_checkpoint


            def main(model, loader, epochs=90):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    sched.step()
                    save_checkpoint("last.pt", model, opt, epoch[[||, scheduler=sched.state_dict()]])
            """,
    }),
    'save helper builds {**state, "scheduler": ...} from what it is given': ('LRD007', {
        "ckpt.py": """
            import torch


            def save(path, state, scheduler=None):
                if scheduler is not None:
                    torch.save({**state, "scheduler": scheduler.state_dict()}, path)
                else:
                    torch.save(state, path)
            """,
        "train.py": """
            import torch

            from ckpt import save


            def main(model, loader, epochs=20):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    sched.step()
                    state = {"model": model.state_dict(), "optimizer": opt.state_dict(),
                             "epoch": epoch}
                    save("last.pt", state[[||, sched]])
            """,
    }),
    'resume helper module restores the optimizer but not the scheduler': ('LRD007', {
        "resume.py": """
            import torch


            def load_checkpoint(path, model, optimizer, scheduler):
                ckpt = torch.load(path, map_location="cpu")
                model.load_state_dict(ckpt["model"])
                optimizer.load_state_dict(ckpt["optimizer"])
                [[||scheduler.load_state_dict(ckpt["scheduler"])
                ]]return ckpt["epoch"] + 1
            """,
        "save.py": """
            import torch


            def save_checkpoint(path, model, optimizer, scheduler, epoch):
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "epoch": epoch}, path)
            """,
        "train.py": """
            import torch

            from resume import load_checkpoint
            from save import save_checkpoint


            def main(model, loader, epochs=90, resume=None):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
                start = load_checkpoint(resume, model, opt, sched) if resume else 0
                for epoch in range(start, epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    sched.step()
                    save_checkpoint("last.pt", model, opt, sched, epoch)
            """,
    }),
    'checkpoint under AMP, the scaler state left out by the helper': ('LRD007', {
        "checkpointing.py": """
            import torch


            def state_of(model, opt, sched, scaler):
                return {"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "scheduler": sched.state_dict()[[||, "scaler": scaler.state_dict()]]}


            def save(path, state, **meta):
                torch.save({**state, **meta}, path)
            """,
        "train.py": """
            import torch

            import checkpointing


            def main(model, loader, epochs=10):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3,
                                                            total_steps=epochs * len(loader))
                scaler = torch.amp.GradScaler("cuda")
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        with torch.autocast("cuda", dtype=torch.float16):
                            loss = torch.nn.functional.mse_loss(model(x), y)
                        scaler.scale(loss).backward()
                        scaler.step(opt)
                        scale = scaler.get_scale()
                        scaler.update()
                        if scaler.get_scale() >= scale:
                            sched.step()
                    checkpointing.save("last.pt", checkpointing.state_of(model, opt, sched, scaler),
                                       epoch=epoch)
            """,
    }),
}


@pytest.mark.parametrize("name", list(CHECKPOINT))
def test_a_checkpoint_through_helper_modules_holds(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *CHECKPOINT[name])


# -- AMP switched by ``dtype = torch.float16 if args.fp16 else torch.float32`` ----------------

AMP_FLAG = {
    'BCELoss under autocast of the flag dtype': ('LRD103', {
        "train.py": """
            import argparse

            import torch


            def main(model, loader):
                p = argparse.ArgumentParser()
                p.add_argument("--fp16", action="store_true")
                args = p.parse_args()
                dtype = torch.float16 if args.fp16 else torch.float32
                crit = [[torch.nn.BCELoss()||torch.nn.BCEWithLogitsLoss()]]
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=dtype, enabled=args.fp16):
                        [[loss = crit(torch.sigmoid(model(x)), y)||loss = crit(model(x), y)]]
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
    }),
    'the flag dtype, scheduler stepped after a skipped update': ('LRD005', {
        "train.py": """
            import argparse

            import torch


            def main(model, loader, epochs=10):
                p = argparse.ArgumentParser()
                p.add_argument("--fp16", action="store_true")
                args = p.parse_args()
                dtype = torch.float16 if args.fp16 else torch.float32
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3,
                                                            total_steps=epochs * len(loader))
                scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        with torch.autocast("cuda", dtype=dtype, enabled=args.fp16):
                            loss = torch.nn.functional.mse_loss(model(x), y)
                        scaler.scale(loss).backward()
                        scaler.step(opt)
                        [[scaler.update()
                        sched.step()||before = scaler.get_scale()
                        scaler.update()
                        if scaler.get_scale() >= before:
                            sched.step()]]
            """,
    }),
    'the flag dtype, optimizer stepped past the scaler': ('LRD109', {
        "train.py": """
            import argparse

            import torch


            def main(model, loader):
                p = argparse.ArgumentParser()
                p.add_argument("--fp16", action="store_true")
                args = p.parse_args()
                dtype = torch.float16 if args.fp16 else torch.float32
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=dtype, enabled=args.fp16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    scaler.scale(loss).backward()
                    [[opt.step()||scaler.step(opt)]]
                    scaler.update()
            """,
    }),
    'the flag dtype chosen in a helper module, scaler.update missing': ('LRD110', {
        "amp_utils.py": """
            import torch


            def amp_dtype(fp16):
                return torch.float16 if fp16 else torch.float32
            """,
        "train.py": """
            import torch

            from amp_utils import amp_dtype


            def main(model, loader, fp16=True):
                dtype = amp_dtype(fp16)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda", enabled=fp16)
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=dtype, enabled=fp16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    [[pass||scaler.update()]]
            """,
    }),
    'the flag dtype, float16 backward with no scaler': ('LRD111', {
        "train.py": """
            import torch


            def main(model, loader, fp16=True):
                dtype = torch.float16 if fp16 else torch.float32
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                [[||scaler = torch.amp.GradScaler("cuda", enabled=fp16)
                ]]for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=dtype, enabled=fp16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    [[loss.backward()
                    opt.step()||scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()]]
            """,
    }),
    'the flag dtype casts the model; Adam eps by default': ('LRD102', {
        "train.py": """
            import torch


            def main(model, loader, half=True):
                dtype = torch.float16 if half else torch.float32
                model = model.to(dtype)
                opt = torch.optim.Adam(model.parameters(), lr=1e-3[[||, eps=1e-4 if half else 1e-8]])
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x.to(dtype)), y.to(dtype)).backward()
                    opt.step()
            """,
    }),
    'deprecated AMP classes re-exported by a project module': ('LRD101', {
        "amp.py": """
            [[from torch.cuda.amp import GradScaler, autocast||import functools

            import torch

            GradScaler = functools.partial(torch.amp.GradScaler, "cuda")
            autocast = functools.partial(torch.autocast, "cuda")]]
            """,
        "train.py": """
            import torch

            from amp import GradScaler, autocast


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = GradScaler()
                for x, y in loader:
                    opt.zero_grad()
                    with autocast(dtype=torch.float16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
    }),
}


@pytest.mark.parametrize("name", list(AMP_FLAG))
def test_amp_switched_by_a_dtype_flag_holds(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *AMP_FLAG[name])


# -- the rest of the codes across modules ----------------------------------------------------

OTHERS = {
    'trainer rebuilds its optimizer on unfreeze, the scheduler left on the old one': ('LRD014', {
        "trainer.py": """
            import torch


            class FineTuner:
                def __init__(self, model, loader, epochs):
                    self.model, self.loader, self.epochs = model, loader, epochs
                    self.setup_optim(model.head.parameters())

                def setup_optim(self, params):
                    self.opt = torch.optim.SGD(params, lr=0.01)
                    self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=self.epochs)

                def unfreeze(self):
                    [[self.opt = torch.optim.SGD(self.model.parameters(), lr=0.001)||self.setup_optim(self.model.parameters())]]

                def fit(self):
                    for epoch in range(self.epochs):
                        if epoch == 5:
                            self.unfreeze()
                        for x, y in self.loader:
                            self.opt.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()
                        self.sched.step()
            """,
        "main.py": """
            from trainer import FineTuner


            def main(model, loader):
                FineTuner(model, loader, 30).fit()
            """,
    }),
    'scheduler stepped on the main process only, the rank test in a dist module': ('LRD013', {
        "dist_utils.py": """
            import torch.distributed as dist


            def is_main_process():
                return not dist.is_initialized() or dist.get_rank() == 0
            """,
        "train.py": """
            import torch
            import torch.distributed as dist

            from dist_utils import is_main_process


            def main(model, loader, epochs=90):
                dist.init_process_group("nccl")
                model = torch.nn.parallel.DistributedDataParallel(model)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    [[if is_main_process():
                        sched.step()
                        torch.save(model.state_dict(), "last.pt")||sched.step()
                    if is_main_process():
                        torch.save(model.state_dict(), "last.pt")]]
            """,
    }),
    'log of sigmoid probabilities in a loss module under the caller autocast': ('LRD103', {
        "losses.py": """
            import torch


            def nll(logits, target):
                [[probs = torch.sigmoid(logits)
                return torch.nn.functional.nll_loss(torch.log(probs), target)||return torch.nn.functional.cross_entropy(logits, target)]]
            """,
        "train.py": """
            import torch

            from losses import nll


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda")
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = nll(model(x), y)
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
    }),
    'manual step-decay helper module beside a scheduler (the ImageNet shape)': ('LRD008', {
        "lr.py": """
            def adjust_learning_rate(optimizer, epoch, base_lr):
                lr = base_lr * (0.1 ** (epoch // 30))
                for param_group in optimizer.param_groups:
                    param_group["lr"] = lr
            """,
        "main.py": """
            import torch

            from lr import adjust_learning_rate


            def main(model, loader, epochs=90):
                opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
                [[sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
                ||]]for epoch in range(epochs):
                    adjust_learning_rate(opt, epoch, 0.1)
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    [[sched.step()||pass]]
            """,
    }),
    'base class setup() unpacks what the subclass configure method returns': ('LRD003', {
        "base.py": """
            import torch


            class BaseTrainer:
                def __init__(self, model, loader, epochs):
                    self.model, self.loader, self.epochs = model, loader, epochs
                    self.optimizer, self.scheduler = self.configure_optimizers()

                def configure_optimizers(self):
                    raise NotImplementedError

                def fit(self):
                    for epoch in range(self.epochs):
                        for x, y in self.loader:
                            self.optimizer.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.optimizer.step()
                            [[pass||self.scheduler.step()]]
                        [[self.scheduler.step()||pass]]
            """,
        "detector.py": """
            import torch

            from base import BaseTrainer


            class DetectorTrainer(BaseTrainer):
                def configure_optimizers(self):
                    opt = torch.optim.SGD(self.model.parameters(), lr=0.02, momentum=0.9)
                    total = self.epochs * len(self.loader)
                    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0 - s / total)
                    return opt, sched


            def main(model, loader):
                DetectorTrainer(model, loader, 12).fit()
            """,
    }),
    'base loop steps the scheduler per epoch, a subclass hook steps it per batch too': ('LRD012', {
        "base.py": """
            import torch


            class Trainer:
                def __init__(self, model, loader, opt, sched):
                    self.model, self.loader, self.opt, self.sched = model, loader, opt, sched

                def after_step(self):
                    pass

                def fit(self, epochs):
                    for epoch in range(epochs):
                        for x, y in self.loader:
                            self.opt.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()
                            self.after_step()
                        self.sched.step()
            """,
        "warm.py": """
            import torch

            from base import Trainer


            class WarmupTrainer(Trainer):
                def after_step(self):
                    [[self.sched.step()||pass]]


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
                WarmupTrainer(model, loader, opt, sched).fit(100)
            """,
    }),
}


@pytest.mark.parametrize("name", list(OTHERS))
def test_other_codes_across_modules_hold(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *OTHERS[name])



# -- left wrong: xfail(strict=True), the reason at each ---------------------------------------

XFAIL = {
    'the args namespace unpacked into a trainer of another module by **vars(args)': ('LRD002', {
        "trainer.py": """
            import torch


            class Trainer:
                def __init__(self, model, loader, lr=0.1, epochs=90, step_size=30, **unused):
                    self.model, self.loader, self.epochs = model, loader, epochs
                    self.opt = torch.optim.SGD(model.parameters(), lr=lr)
                    self.sched = torch.optim.lr_scheduler.StepLR(self.opt, step_size=step_size)

                def fit(self):
                    for epoch in range(self.epochs):
                        for x, y in self.loader:
                            self.opt.zero_grad()
                            torch.nn.functional.mse_loss(self.model(x), y).backward()
                            self.opt.step()
                            [[self.sched.step()||pass]]
                        [[pass||self.sched.step()]]
            """,
        "main.py": """
            import argparse

            from trainer import Trainer


            def main(model, loader):
                p = argparse.ArgumentParser()
                p.add_argument("--lr", type=float, default=0.1)
                p.add_argument("--epochs", type=int, default=90)
                p.add_argument("--step_size", type=int, default=30)
                p.add_argument("--seed", type=int, default=0)
                args = p.parse_args()
                Trainer(model, loader, **vars(args)).fit()
            """,
    }),
}

_XFAIL_REASONS = {
    'the args namespace unpacked into a trainer of another module by **vars(args)':
        "a StepLR whose step_size is a parameter its caller fills from the parsed command line "
        "(`**vars(args)`, and even `step_size=args.step_size`, in one file as well) is not "
        "judged: the parameter is not read back to the parser's default, so the horizon is "
        "unknown; reading it needs the caller's Namespace modelled as the parser's defaults, "
        "which this round did not do",
}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_XFAIL_REASONS[n]))
    for n in XFAIL
])
def test_layouts_left_wrong(name: str, tmp_path, monkeypatch) -> None:
    assert_project_twins(tmp_path, monkeypatch, *XFAIL[name])

# -- guards: the same layouts, correct, must stay silent -------------------------------------

GUARDS = {
    'a loss module function called after the autocast block': {
        "losses.py": """
            import torch


            def nll(logits, target):
                probs = torch.softmax(logits.float(), dim=-1)
                return torch.nn.functional.nll_loss(torch.log(probs), target)
            """,
        "train.py": """
            import torch

            from losses import nll


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda")
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=torch.float16):
                        logits = model(x)
                    loss = nll(logits, y)
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
    },
    'a loss module function that turns autocast off around its log': {
        "losses.py": """
            import torch


            def nll(logits, target):
                with torch.autocast("cuda", enabled=False):
                    probs = torch.softmax(logits.float(), dim=-1)
                    return torch.nn.functional.nll_loss(torch.log(probs), target)
            """,
        "train.py": """
            import torch

            from losses import nll


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda")
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=torch.float16):
                        loss = nll(model(x), y)
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
    },
    'the flag picks bfloat16 or float32 for autocast, no scaler': {
        "train.py": """
            import torch


            def main(model, loader, bf16=True):
                dtype = torch.bfloat16 if bf16 else torch.float32
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=dtype, enabled=bf16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    loss.backward()
                    opt.step()
            """,
    },
    'the flag picks float16 for autocast, the backward scaled under the same flag': {
        "train.py": """
            import torch


            def main(model, loader, fp16=True):
                dtype = torch.float16 if fp16 else torch.float32
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = torch.amp.GradScaler("cuda", enabled=fp16)
                for x, y in loader:
                    opt.zero_grad()
                    with torch.autocast("cuda", dtype=dtype, enabled=fp16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    if fp16:
                        scaler.scale(loss).backward()
                        scaler.step(opt)
                        scaler.update()
                    else:
                        loss.backward()
                        opt.step()
            """,
    },
    'the flag picks bfloat16 or float32 for the model, default Adam eps': {
        "train.py": """
            import torch


            def main(model, loader, bf16=True):
                dtype = torch.bfloat16 if bf16 else torch.float32
                model = model.to(dtype)
                opt = torch.optim.Adam(model.parameters(), lr=1e-3)
                for x, y in loader:
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x.to(dtype)), y.to(dtype)).backward()
                    opt.step()
            """,
    },
    'the save helper is handed None when no scheduler is used': {
        "ckpt.py": """
            import torch


            def save(path, state, scheduler=None):
                if scheduler is not None:
                    torch.save({**state, "scheduler": scheduler.state_dict()}, path)
                else:
                    torch.save(state, path)
            """,
        "train.py": """
            import torch

            from ckpt import save


            def main(model, loader, epochs=20):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                for epoch in range(epochs):
                    for x, y in loader:
                        opt.zero_grad()
                        torch.nn.functional.mse_loss(model(x), y).backward()
                        opt.step()
                    save("last.pt", {"model": model.state_dict(), "optimizer": opt.state_dict()},
                         None)
            """,
    },
    'the project module relays torch.amp, not torch.cuda.amp': {
        "amp_utils.py": """
            from torch.amp import GradScaler, autocast
            """,
        "train.py": """
            import torch

            from amp_utils import GradScaler, autocast


            def main(model, loader):
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                scaler = GradScaler("cuda")
                for x, y in loader:
                    opt.zero_grad()
                    with autocast("cuda", dtype=torch.float16):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
            """,
    },
    'an iterator restarted on StopIteration, the per-batch scheduler stepped per batch': {
        "train.py": """
            import torch


            def main(model, loader, max_steps=10000):
                opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.01,
                                                          total_iters=max_steps)
                it = iter(loader)
                for step in range(max_steps):
                    try:
                        x, y = next(it)
                    except StopIteration:
                        it = iter(loader)
                        x, y = next(it)
                    opt.zero_grad()
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    opt.step()
                    sched.step()
            """,
    },
    'a trainer module casts its model, the driver passes a float16-safe eps': {
        "learner.py": """
            import torch


            class Learner:
                def __init__(self, model, lr, eps=1e-8):
                    self.model = model.half()
                    self.opt = torch.optim.Adam(self.model.parameters(), lr=lr, eps=eps)

                def fit(self, loader):
                    for x, y in loader:
                        self.opt.zero_grad()
                        torch.nn.functional.mse_loss(self.model(x.half()), y.half()).backward()
                        self.opt.step()
            """,
        "run.py": """
            from learner import Learner


            def main(model, loader):
                Learner(model, lr=1e-3, eps=1e-4).fit(loader)
            """,
    },
    'a trainer module exports a float16 copy in a method of its own': {
        "learner.py": """
            import torch


            class Learner:
                def __init__(self, model, lr):
                    self.model = model
                    self.opt = torch.optim.Adam(self.model.parameters(), lr=lr)

                def fit(self, loader):
                    for x, y in loader:
                        self.opt.zero_grad()
                        torch.nn.functional.mse_loss(self.model(x), y).backward()
                        self.opt.step()

                def export(self, path):
                    torch.save(self.model.half().state_dict(), path)
            """,
        "run.py": """
            from learner import Learner


            def main(model, loader):
                learner = Learner(model, lr=1e-3)
                learner.fit(loader)
                learner.export("model_fp16.pt")
            """,
    },
}


@pytest.mark.parametrize("name", list(GUARDS))
def test_guards_stay_silent(name: str, tmp_path, monkeypatch) -> None:
    files = GUARDS[name]
    assert project_codes(check_project(
        tmp_path, monkeypatch, files,
        checked=sorted(n for n in files if n.endswith(".py")))) == []
