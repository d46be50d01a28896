"""The model of the program holds when the code is laid out as real projects lay it out, second
round (issue 7, meta7's rewrites: inheritance, registries, callbacks, attribute tuples,
packages, and meta6's rewrites composed): a setting whose name holds a scheduler's word
(`sched_step_size`) read from a config object and handed to a builder; the eps a trainer keeps
from its constructor handed to a builder as `self.<eps>`.

Each test writes the program in the rewritten layout (which must give the finding the plain
layout gives) and a correct neighbour that must stay silent."""

from __future__ import annotations

from .helpers import check_project, codes

# -- a config field named after the scheduler it configures, handed to a builder ----------

DATACLASS_CONFIG = """
import dataclasses
import torch
from torch.optim.lr_scheduler import StepLR


@dataclasses.dataclass
class TrainConfig:
    sched_step_size: int = 7
    sched_gamma: float = 0.5


CONFIG = TrainConfig()


def make_scheduler(optimizer, *, step_size, gamma):
    return StepLR(optimizer, step_size=step_size, gamma=gamma)


def fit(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = make_scheduler(optimizer, step_size=CONFIG.sched_step_size,
                               gamma=CONFIG.sched_gamma)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            scheduler.step()


if __name__ == "__main__":
    fit(torch.nn.Linear(4, 1), torch.utils.data.DataLoader(range(8)), 3)
"""

PER_EPOCH = """            optimizer.step()
        scheduler.step()
"""


def test_epoch_horizon_from_a_config_field_named_after_the_scheduler_is_found_per_batch() -> None:
    assert "LRD002" in codes(DATACLASS_CONFIG)


def test_the_same_builder_stepped_once_per_epoch_is_silent() -> None:
    src = DATACLASS_CONFIG.replace("""            optimizer.step()
            scheduler.step()
""", PER_EPOCH)
    assert "LRD002" not in codes(src)


def test_config_field_read_into_a_local_before_the_builder_is_followed() -> None:
    src = DATACLASS_CONFIG.replace(
        "    scheduler = make_scheduler(optimizer, step_size=CONFIG.sched_step_size,\n",
        "    sched_step_size = CONFIG.sched_step_size\n"
        "    scheduler = make_scheduler(optimizer, step_size=sched_step_size,\n")
    assert "LRD002" in codes(src)


def test_an_object_attribute_named_like_a_scheduler_is_still_a_scheduler() -> None:
    # the class declares no plain field of that name: `holder.sched` is still read by its name
    src = """
import torch

class Holder:
    def __init__(self, optimizer):
        self.sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5)

def fit(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    holder = Holder(optimizer)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            holder.sched.step()
"""
    assert "LRD002" in codes(src)


# the config object reaches the function as a parameter nobody passes: its field is still the
# number the config class states
PARAM_CONFIG = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class Cfg:
    sched_T_max = 10


def make_scheduler(optimizer, *, T_max):
    return CosineAnnealingLR(optimizer, T_max=T_max)


def fit(cfg, model, loader, optimizer, epochs):
    scheduler = make_scheduler(optimizer, T_max=cfg.sched_T_max)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            scheduler.step()
"""


def test_numeric_setting_named_after_the_scheduler_on_an_unknown_holder_is_a_number() -> None:
    assert "LRD002" in codes(PARAM_CONFIG)


def test_numeric_setting_on_an_unknown_holder_stepped_per_epoch_is_silent() -> None:
    src = PARAM_CONFIG.replace("""            optimizer.step()
            scheduler.step()
""", PER_EPOCH)
    assert "LRD002" not in codes(src)


# -- the eps a trainer keeps from its constructor, handed to a builder ---------------------

TRAINER_BUILDER_HALF = """
import torch


def make_optimizer(params, *, lr, eps):
    return torch.optim.AdamW(params, lr=lr, eps=eps)


class Trainer:
    def __init__(self, loader, lr=1e-4, adam_epsilon=1e-8):
        self.loader = loader
        self.lr = lr
        self.adam_epsilon = adam_epsilon

    def run(self):
        self.model = torch.nn.Linear(8, 2).half()
        self.optimizer = make_optimizer(self.model.parameters(), lr=self.lr,
                                        eps=self.adam_epsilon)
        for x, y in self.loader:
            loss = self.model(x).sum()
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()


def main(loader, settings):
    Trainer(loader, **settings).run()
"""


def test_fp16_adam_eps_kept_by_the_constructor_and_given_to_a_builder_is_found() -> None:
    assert "LRD102" in codes(TRAINER_BUILDER_HALF)


def test_safe_eps_kept_by_the_constructor_and_given_to_a_builder_is_silent() -> None:
    assert "LRD102" not in codes(
        TRAINER_BUILDER_HALF.replace("adam_epsilon=1e-8", "adam_epsilon=1e-4"))


def test_eps_attribute_set_again_by_another_method_is_not_read_as_the_default() -> None:
    src = TRAINER_BUILDER_HALF.replace(
        "    def run(self):",
        "    def configure(self, eps):\n        self.adam_epsilon = eps\n\n    def run(self):")
    assert "LRD102" not in codes(src)


# -- a scheduler class chosen through a module-level registry of another module ------------

REGISTRY_LOOP = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, StepLR

SCHEDULERS = {"cosine": CosineAnnealingLR, "step": StepLR}


def fit(model, loader, optimizer, epochs):
    scheduler = SCHEDULERS["cosine"](optimizer, T_max=epochs)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            scheduler.step()
"""

REGISTRY_DRIVER = """
import torch
from engine.loop import fit

if __name__ == "__main__":
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    fit(model, torch.utils.data.DataLoader(range(8)), optimizer, 30)
"""


def test_scheduler_from_a_registry_of_an_imported_module_is_found_per_batch(
        tmp_path, monkeypatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "engine/__init__.py": "", "engine/loop.py": REGISTRY_LOOP, "main.py": REGISTRY_DRIVER})
    assert ("engine/loop.py", 15, "LRD002") in found


def test_registry_scheduler_stepped_per_epoch_is_silent(tmp_path, monkeypatch) -> None:
    loop = REGISTRY_LOOP.replace("""            optimizer.step()
            scheduler.step()
""", """            optimizer.step()
        scheduler.step()
""")
    found = check_project(tmp_path, monkeypatch, {
        "engine/__init__.py": "", "engine/loop.py": loop, "main.py": REGISTRY_DRIVER})
    assert not [f for f in found if f[2] == "LRD002"]


def test_registry_changed_at_run_time_is_not_read_as_written(tmp_path, monkeypatch) -> None:
    # another module puts its own class in the registry: what it holds is not the literal
    loop = REGISTRY_LOOP.replace(
        "def fit(", "def register(name, cls):\n    SCHEDULERS[name] = cls\n\n\ndef fit(")
    found = check_project(tmp_path, monkeypatch, {
        "engine/__init__.py": "", "engine/loop.py": loop, "main.py": REGISTRY_DRIVER})
    assert not [f for f in found if f[2] == "LRD002"]


# -- a scheduler stepped by a callback object, under a test that it exists ------------------

CALLBACK_LOOP = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class SchedulerCallback:
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def on_batch_end(self):
        self.scheduler.step()


class Trainer:
    def __init__(self, model, loader, optimizer, lr_scheduler=None):
        self.model = model
        self.loader = loader
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.callbacks = [SchedulerCallback(lr_scheduler)]

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                if self.lr_scheduler is not None:
                    for callback in self.callbacks:
                        callback.on_batch_end()


def main(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max=10)
    Trainer(model, loader, optimizer, scheduler).fit(10)
"""


def test_callback_stepping_an_epoch_scheduler_per_batch_under_an_existence_test_is_found() -> None:
    assert "LRD002" in codes(CALLBACK_LOOP)


def test_callback_every_hundred_batches_is_a_period_of_its_own() -> None:
    src = CALLBACK_LOOP.replace("for x, y in self.loader:", "for i, (x, y) in enumerate(self.loader):")
    src = src.replace("if self.lr_scheduler is not None:", "if i % 100 == 99:")
    assert "LRD002" not in codes(src)


def test_callback_stepping_once_per_epoch_is_silent() -> None:
    src = CALLBACK_LOOP.replace("""                self.optimizer.step()
                if self.lr_scheduler is not None:
                    for callback in self.callbacks:
                        callback.on_batch_end()
""", """                self.optimizer.step()
            if self.lr_scheduler is not None:
                for callback in self.callbacks:
                    callback.on_batch_end()
""")
    assert "LRD002" not in codes(src)


# -- a LightningModule's plateau built through a registry of classes -----------------------

LIGHTNING_REGISTRY = """
import torch
import lightning.pytorch as pl
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR

SCHEDULERS = {"plateau": ReduceLROnPlateau, "step": StepLR}


class Forecaster(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        loss = self.net(batch).mean()
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val_loss", self.net(batch).mean())

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        scheduler = SCHEDULERS["plateau"](optimizer, mode="min", patience=3)
        return {"optimizer": optimizer,
                "lr_scheduler": {"scheduler": scheduler, "monitor": "train_loss"}}
"""


def test_lightning_plateau_from_a_registry_watching_the_training_loss_is_found() -> None:
    assert "LRD004" in codes(LIGHTNING_REGISTRY)


def test_lightning_plateau_from_a_registry_watching_the_validation_loss_is_silent() -> None:
    assert "LRD004" not in codes(LIGHTNING_REGISTRY.replace('"monitor": "train_loss"',
                                                            '"monitor": "val_loss"'))
