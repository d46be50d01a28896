"""rcnew86 (batch fresh-2026-12zm86: speech, sequence-to-sequence and detection trainers): a
shape of the family the batch shows, written in our own words.

Speech and translation toolkits carry their own warm-up scheduler class: a subclass of
torch's ``_LRScheduler`` that keeps torch's ``step()`` and whose ``get_lr()`` turns the step
count into a Noam / inverse-square-root factor (``step = self.last_epoch + 1``, then
``min(step ** -0.5, step * self.warmup_steps ** -1.5)``). Built with a horizon in steps
(``warmup_steps=args.warmup_steps``, ``warmup_steps=25000``) and stepped once per epoch, the
warm-up takes 25000 epochs and the LR stays near zero for the whole run (LRD003).

lrdoctor read such a class's horizons only for a step inside the batch loop (a phase sized in
epochs passing within the first batches) and for Lightning; the step once per epoch in a plain
loop asked torch's table, which does not know the class, and stayed silent. Two more things
stood in the way: ``get_lr()`` read through a local alias of the count (``step =
self.last_epoch + 1``) hid which stored attributes are set against it, and a count passed as
a literal (``warmup_steps=25000``) said no unit although the parameter's name says steps and
the number is far too large to be epochs.

Silent twins: the class stepped after every update, a horizon sized in epochs, a small
literal, a class that counts with its own ``step()``, a ``get_lr()`` that reads an attribute
of its own instead of torch's count, a horizon in steps beside one in epochs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

WARMUP_CLASS = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class InvSqrtWarmup(_LRScheduler):
    def __init__(self, optimizer, {param}={default}, last_epoch=-1):
        self.{param} = {param}
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        {body}
        return [base * scale for base in self.base_lrs]
"""

ALIASED = ("step = self.last_epoch + 1\n"
           "        scale = min(step ** -0.5, step * self.{param} ** -1.5) * self.{param} ** 0.5")
DIRECT = ("scale = min((self.last_epoch + 1) ** -0.5,\n"
          "                    (self.last_epoch + 1) * self.{param} ** -1.5) * self.{param} ** 0.5")


def _warmup_class(param: str = "warmup_steps", default: str = "4000", body: str = ALIASED) -> str:
    return WARMUP_CLASS.format(param=param, default=default, body=body.format(param=param))


PER_EPOCH = """
import argparse
import torch
from lr_warmup import InvSqrtWarmup


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--warmup_steps", type=int, default=4000)
    parser.add_argument("--warmup_epochs", type=int, default=3)
    parser.add_argument("--epochs", type=int, default=50)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 4)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = InvSqrtWarmup(opt, {argument})
    for epoch in range(args.epochs):
        for x in loader:
            opt.zero_grad()
            model(x).pow(2).mean().backward()
            opt.step()
            {per_batch}
        {per_epoch}


if __name__ == "__main__":
    main()
"""


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, argument: str,
         cls: str | None = None, per_epoch: bool = True) -> list[tuple[str, int, str]]:
    driver = PER_EPOCH.format(argument=argument,
                              per_batch="pass" if per_epoch else "sched.step()",
                              per_epoch="sched.step()" if per_epoch else "pass")
    return check_project(tmp_path, monkeypatch, {
        "lr_warmup.py": cls if cls is not None else _warmup_class(),
        "train.py": driver,
    })


def test_a_project_warmup_class_sized_by_a_setting_in_steps_stepped_per_epoch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=args.warmup_steps")
    assert project_codes(found) == ["LRD003"]
    assert found[0][:2] == ("train.py", 23)


def test_the_count_read_directly_is_the_same_shape(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=args.warmup_steps",
                 cls=_warmup_class(body=DIRECT))
    assert project_codes(found) == ["LRD003"]


def test_a_large_literal_passed_for_a_step_count_counts_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=25000")
    assert project_codes(found) == ["LRD003"]


def test_control_the_class_stepped_after_every_update_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=args.warmup_steps",
                 per_epoch=False)
    assert project_codes(found) == []


def test_control_a_warmup_sized_in_epochs_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _run(tmp_path, monkeypatch, argument="warmup_epochs=args.warmup_epochs",
                 cls=_warmup_class(param="warmup_epochs", default="3"))
    assert project_codes(found) == []


def test_control_a_small_literal_says_no_unit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=10")
    assert project_codes(found) == []


def test_control_a_class_counting_with_its_own_step_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own_step = _warmup_class() + """
    def step(self, epoch=None):
        self.calls = getattr(self, "calls", 0) + 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
"""
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=args.warmup_steps", cls=own_step)
    assert "LRD003" not in project_codes(found)


def test_control_a_get_lr_reading_its_own_counter_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the alias holds an attribute of the class's own, not torch's count
    body = ("step = self.seen + 1\n"
            "        scale = min(step ** -0.5, step * self.{param} ** -1.5)")
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=args.warmup_steps",
                 cls=_warmup_class(body=body).replace(
                     "super().__init__(optimizer, last_epoch)",
                     "self.seen = 0\n        super().__init__(optimizer, last_epoch)"))
    assert project_codes(found) == []


def test_control_an_alias_rebound_from_something_else_is_no_count(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = ("step = self.last_epoch + 1\n"
            "        if self.frozen:\n"
            "            step = self.frozen\n"
            "        scale = min(step ** -0.5, step * self.{param} ** -1.5)")
    found = _run(tmp_path, monkeypatch, argument="warmup_steps=args.warmup_steps",
                 cls=_warmup_class(body=body).replace(
                     "super().__init__(optimizer, last_epoch)",
                     "self.frozen = 0\n        super().__init__(optimizer, last_epoch)"))
    assert project_codes(found) == []


MIXED = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class WarmupCosine(_LRScheduler):
    def __init__(self, optimizer, warmup_epochs, total_steps, last_epoch=-1):
        self.warmup_epochs = warmup_epochs
        self.total_steps = total_steps
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        n = self.last_epoch
        if n < self.warmup_epochs:
            return [base * (n + 1) / self.warmup_epochs for base in self.base_lrs]
        return [base * (1 - n / self.total_steps) for base in self.base_lrs]
"""


def test_control_a_horizon_in_epochs_beside_one_in_steps_says_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "lr_warmup.py": MIXED,
        "train.py": PER_EPOCH.replace("InvSqrtWarmup", "WarmupCosine").format(
            argument="args.warmup_epochs, args.warmup_steps", per_batch="pass",
            per_epoch="sched.step()"),
    })
    assert project_codes(found) == []


# -- the same class kept by a trainer class and stepped in its epoch hook ---------------------

TRAINER = """
import torch
from torch.optim.lr_scheduler import _LRScheduler

CONFIG = {"lr": 1e-3, "warmup_steps": 8000, "epochs": 40}


class NoamWarmup(_LRScheduler):
    def __init__(self, optimizer, warmup_steps, last_epoch=-1):
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step_num = max(1, self.last_epoch)
        return [base * self.warmup_steps ** 0.5
                * min(step_num ** -0.5, step_num * self.warmup_steps ** -1.5)
                for base in self.base_lrs]


class Trainer:
    def __init__(self, model, loader, config):
        self.model = model
        self.loader = loader
        self.config = config
        self.opt = torch.optim.Adam(model.parameters(), lr=config["lr"], betas=(0.9, 0.98))
        self.sched = NoamWarmup(self.opt, warmup_steps=config["warmup_steps"])

    def train_epoch(self):
        for src, tgt in self.loader:
            self.opt.zero_grad()
            self.model(src, tgt).backward()
            self.opt.step()
            PER_BATCH

    def fit(self):
        for epoch in range(self.config["epochs"]):
            self.train_epoch()
            PER_EPOCH


Trainer(torch.nn.Bilinear(4, 4, 1), [], CONFIG).fit()
"""


def test_a_trainer_class_steps_a_noam_class_in_its_epoch_loop() -> None:
    source = TRAINER.replace("PER_BATCH", "pass").replace("PER_EPOCH", "self.sched.step()")
    assert codes(source) == ["LRD003"]
    (message,) = messages(source)
    assert message.startswith("NoamWarmup(warmup_steps=config['warmup_steps'])")


def test_control_the_trainer_class_stepping_it_with_each_update_is_silent() -> None:
    assert codes(TRAINER.replace("PER_BATCH", "self.sched.step()").replace("PER_EPOCH", "pass")) == []


# -- the same reading where Lightning steps the class: returned without "interval": "step" ----

LIGHTNING = """
import lightning as L
import torch
from torch.optim.lr_scheduler import _LRScheduler


class NoamWarmup(_LRScheduler):
    def __init__(self, optimizer, warmup_steps, last_epoch=-1):
        self.warmup_steps = warmup_steps
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step = max(1, self.last_epoch)
        return [base * min(step ** -0.5, step * self.warmup_steps ** -1.5)
                for base in self.base_lrs]


class SpeechModule(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(80, 80)

    def training_step(self, batch, batch_idx):
        return self.net(batch).pow(2).mean()

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=1.0)
        sched = NoamWarmup(opt, warmup_steps=4000)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched{interval}}}
"""


def test_lightning_steps_the_aliased_class_with_a_literal_count_once_per_epoch() -> None:
    source = LIGHTNING.replace("{interval}", "")
    assert codes(source) == ["LRD003"]
    (message,) = messages(source)
    assert message.startswith("NoamWarmup(warmup_steps=4000)")


def test_control_lightning_told_to_step_it_every_batch_is_silent() -> None:
    assert codes(LIGHTNING.replace("{interval}", ', "interval": "step"')) == []


# -- a step under a test of its own: the class may never take it ------------------------------

GUARDED = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class PolyLR(_LRScheduler):
    def __init__(self, optimizer, max_iter, power=0.9, last_epoch=-1):
        self.max_iter = max_iter
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        factor = (1 - self.last_epoch / float(self.max_iter)) ** self.power
        return [base * factor for base in self.base_lrs]


class BaseTrainer:
    def __init__(self, model, loader, config):
        self.model, self.loader, self.config = model, loader, config
        self.epochs = config["epochs"]
        self.optimizer = torch.optim.SGD(model.parameters(), lr=config["lr"])
        if config["sched"]["type"] != "PolyLR":
            kind = getattr(torch.optim.lr_scheduler, config["sched"]["type"])
            self.scheduler = kind(self.optimizer, **config["sched"]["args"])

    def train(self):
        for epoch in range(self.epochs):
            self.train_epoch()
            if self.config["sched"]["type"] != "PolyLR":
                self.scheduler.step()


class Trainer(BaseTrainer):
    def __init__(self, model, loader, config):
        super().__init__(model, loader, config)
        if config["sched"]["type"] == "PolyLR":
            self.scheduler = PolyLR(self.optimizer, self.epochs * len(loader))

    def train_epoch(self):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            self.model(x, y).backward()
            self.optimizer.step()
            if self.config["sched"]["type"] == "PolyLR":
                self.scheduler.step()
"""


def test_control_the_class_built_for_one_option_and_stepped_per_epoch_only_for_others() -> None:
    # the epoch loop steps the scheduler only when the config names another class; the
    # project's PolyLR (built when it names PolyLR) is stepped after every update instead
    assert "LRD003" not in codes(GUARDED)


def test_the_same_class_stepped_per_epoch_without_the_test_is_reported() -> None:
    source = GUARDED.replace(
        '            if self.config["sched"]["type"] != "PolyLR":\n'
        '                self.scheduler.step()',
        '            self.scheduler.step()').replace(
        '            if self.config["sched"]["type"] == "PolyLR":\n'
        '                self.scheduler.step()\n', '')
    assert "LRD003" in codes(source)


# -- names that disagree, and a total read through a local name --------------------------------

EPOCH_CLASS = """
import math
import torch
from torch.optim.lr_scheduler import _LRScheduler


class WarmupCosine(_LRScheduler):
    def __init__(self, optimizer, {warm}, total_epochs, last_epoch=-1):
        self.{warm} = {warm}
        self.total_epochs = total_epochs
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch < self.{warm}:
            return [b * (self.last_epoch + 1) / self.{warm} for b in self.base_lrs]
        done = self.last_epoch - self.{warm}
        span = self.total_epochs - self.{warm}
        return [b * 0.5 * (1 + math.cos(math.pi * done / span)) for b in self.base_lrs]


def fit(model, loader, num_epochs, {given}):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = WarmupCosine(opt, {warm}={given}, total_epochs=num_epochs)
    for epoch in range(num_epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x, y).backward()
            opt.step()
        sched.step()
"""


def test_control_a_parameter_named_in_epochs_given_a_name_in_steps_says_nothing() -> None:
    # `warmup_epochs=n_warmup_steps`: the two names disagree, neither is trusted
    source = EPOCH_CLASS.format(warm="warmup_epochs", given="n_warmup_steps")
    assert codes(source) == []


def test_control_a_total_in_epochs_read_through_a_local_name_says_nothing() -> None:
    # `span = self.total_epochs - self.warmup_steps`, set against the count through `done`:
    # a horizon in epochs beside the warm-up in steps leaves the unit unknown
    source = EPOCH_CLASS.format(warm="warmup_steps", given="warmup_steps")
    assert codes(source) == []


MULTISTEP = """
from bisect import bisect_right

import torch
from torch.optim.lr_scheduler import _LRScheduler


class WarmupMultiStep(_LRScheduler):
    def __init__(self, optimizer, milestones, gamma=0.1, warmup_iters=10, last_epoch=-1):
        self.milestones = milestones
        self.gamma = gamma
        self.warmup_iters = warmup_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        factor = 1.0
        if self.last_epoch < self.warmup_iters:
            alpha = self.last_epoch / self.warmup_iters
            factor = 0.1 * (1 - alpha) + alpha
        return [b * factor * self.gamma ** bisect_right(self.milestones, self.last_epoch)
                for b in self.base_lrs]


def fit(cfg, model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=cfg.BASE_LR)
    sched = WarmupMultiStep(opt, cfg.STEPS, cfg.GAMMA, cfg.WARMUP_EPOCHS)
    for epoch in range(cfg.MAX_EPOCHS):
        for x, y in loader:
            opt.zero_grad()
            model(x, y).backward()
            opt.step()
        sched.step()
"""


def test_control_milestones_named_steps_beside_a_warmup_in_epochs_says_nothing() -> None:
    # the re-ID baselines' WarmupMultiStepLR: `milestones=cfg.STEPS` (the decays) with the
    # warm-up given `cfg.WARMUP_EPOCHS`, stepped once per epoch as designed
    assert codes(MULTISTEP) == []
