"""Shapes met in the fresh real-code cases of issue 7 drawn from frameworks and larger code
bases where the loop is hidden (bench/realcode, batch "fresh-2026-12g", dev half): Lightning
modules, trainer classes, library schedulers chosen by a setting. Each test is the general
shape in our own words, next to the control that must stay as it is."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# -- a name that spells the scheduler's class is not a unit ---------------------------------
# `MULTISTEPLR_MILESTONES = [100, 200, 300]` names the schedule it configures: the "step" in
# "MultiStepLR" says nothing about batches. Milestones read from such a name are epochs or
# unknown, never batches (a Lightning module returning them without "interval": "step" is
# right); a name that does count iterations still makes the horizon batches.

_LIGHTNING_MILESTONES = """
import torch
import lightning.pytorch as pl

{constant}


class Net(pl.LightningModule):
    def __init__(self, params=None):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)
        self.params = params

    def training_step(self, batch, batch_idx):
        return self.layer(batch).sum()

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        if self.params is None:
            milestones = {default}
        else:
            milestones = self.params.get("milestones", {default})
        scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=milestones)
        return {{"optimizer": optimizer, "lr_scheduler": scheduler}}
"""


@pytest.mark.parametrize("constant, default", [
    ("MULTISTEPLR_MILESTONES_DEFAULT = [100, 200, 300]", "MULTISTEPLR_MILESTONES_DEFAULT"),
    ("STEPLR_MILESTONES = [30, 60]", "STEPLR_MILESTONES"),
    ("MULTISTEP_MILESTONES = [150, 250]", "MULTISTEP_MILESTONES"),
])
def test_milestones_named_after_the_class_are_not_batches(constant: str, default: str) -> None:
    src = _LIGHTNING_MILESTONES.format(constant=constant, default=default)
    assert "LRD003" not in codes(src)


def test_milestones_named_in_iterations_are_still_batches() -> None:
    src = _LIGHTNING_MILESTONES.format(constant="DECAY_ITERS = [60000, 80000]",
                                       default="DECAY_ITERS")
    assert "LRD003" in codes(src)


# -- a step under the same setting that chose the scheduler ---------------------------------
# `if args.sched == "plateau": s = ReduceLROnPlateau(...) elif args.sched == "cosine": s = ...`
# and later `if args.sched == "plateau": s.step(val_loss)`: that call only ever runs on the
# plateau, so it is not a cosine stepped with a deprecated epoch. A call under the branch of
# the cosine is the cosine's own, and one under an unrelated test may be any of them.

_CHOSEN_BY_SETTING = """
import torch


def train(args, model, loader, evaluate):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.sched == "plateau":
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")
    elif args.sched == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    elif args.sched == "step":
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        val_loss = evaluate(model)
        {epoch_end}
"""


@pytest.mark.parametrize("epoch_end", [
    'if args.sched == "plateau":\n            scheduler.step(val_loss)\n        else:\n'
    '            scheduler.step()',
    'if args.sched != "plateau":\n            scheduler.step()\n        else:\n'
    '            scheduler.step(val_loss)',
    "if 'plateau' == args.sched:\n            scheduler.step(val_loss)\n        else:\n"
    '            scheduler.step()',
])
def test_plateau_step_under_its_own_setting_is_not_an_epoch_argument(epoch_end: str) -> None:
    found = codes(_CHOSEN_BY_SETTING.format(epoch_end=epoch_end))
    assert "LRD006" not in found
    assert "LRD004" not in found


def test_epoch_argument_under_the_cosine_setting_is_still_reported() -> None:
    src = _CHOSEN_BY_SETTING.format(
        epoch_end='if args.sched == "cosine":\n            scheduler.step(epoch)')
    assert "LRD006" in codes(src)


def test_epoch_argument_under_an_unrelated_test_is_still_reported() -> None:
    src = _CHOSEN_BY_SETTING.format(
        epoch_end="if args.verbose:\n            scheduler.step(val_loss)")
    assert "LRD006" in codes(src)


# -- get_lr() on a scheduler a setting picks ----------------------------------------------
# `if opt.sched == "exp": s = ExponentialLR(...) elif opt.sched == "step": s = MultiStepLR(...)`
# then `print(s.get_lr())`: each option's get_lr() is the chainable step formula, so the value
# printed is wrong whichever the setting picks. One option whose get_lr() is closed-form
# (LambdaLR) or of the project's own class may print the LR in force: left alone.

_LOGGED_CHOICE = """
import torch


class WarmStart:
    def __init__(self, optimizer):
        self.optimizer = optimizer

    def step(self):
        pass

    def get_lr(self):
        return [g["lr"] for g in self.optimizer.param_groups]


model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
if opt.sched == "exp":
    scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.95)
elif opt.sched == "step":
    scheduler = {second}
elif opt.sched == "none":
    print("constant LR")
else:
    raise ValueError(opt.sched)
for epoch in range(opt.epochs):
    if opt.sched != "none":
        print("lr: {{}}".format(", ".join(str(v) for v in scheduler.get_lr())))
    for x, y in loader:
        optimizer.zero_grad()
        model(x).sub(y).pow(2).mean().backward()
        optimizer.step()
    if opt.sched != "none":
        scheduler.step()
"""


def test_get_lr_logged_on_a_choice_of_chainable_schedulers() -> None:
    src = _LOGGED_CHOICE.format(
        second="torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])")
    assert codes(src).count("LRD015") == 1


@pytest.mark.parametrize("second", [
    "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.95 ** e)",
    "WarmStart(optimizer)",
])
def test_get_lr_logged_on_a_choice_with_a_closed_form_option(second: str) -> None:
    assert "LRD015" not in codes(_LOGGED_CHOICE.format(second=second))


# -- a Lightning plateau monitoring a value logged in training ------------------------------
# configure_optimizers returns ReduceLROnPlateau with "monitor": "train_loss" while the module's
# validation_step logs a validation loss: Lightning feeds the plateau the training loss. A
# module that monitors its validation value, or has no validation hook logging one, is right.

_LIGHTNING_PLATEAU = """
import torch
import pytorch_lightning as pl


class Forecaster(pl.LightningModule):
    def __init__(self, net, patience=10):
        super().__init__()
        self.net = net
        self.patience = patience

    def training_step(self, batch, batch_idx):
        loss = self.net(*batch).mean()
        self.log("train_loss", loss, on_epoch=True, on_step=False)
        return loss
{validation}
    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.net.parameters(), lr=1e-3)
        return {{
            "optimizer": optimizer,
            "lr_scheduler": {{
                "scheduler": torch.optim.lr_scheduler.ReduceLROnPlateau(
                    optimizer, mode="min", factor=0.5, patience=self.patience),
                "monitor": "{monitor}",
            }},
        }}
"""

_VALIDATION_HOOK = """
    def validation_step(self, batch, batch_idx):
        loss = self.net(*batch).mean()
        {log}
        return loss
"""


@pytest.mark.parametrize("log", [
    'self.log("val_loss", loss, on_epoch=True)',
    'self.log_dict({"valid_loss": loss, "valid_mae": loss.abs()})',
])
def test_lightning_plateau_monitoring_the_training_loss(log: str) -> None:
    src = _LIGHTNING_PLATEAU.format(validation=_VALIDATION_HOOK.replace("{log}", log),
                                    monitor="train_loss")
    assert "LRD004" in codes(src)


@pytest.mark.parametrize("validation, monitor", [
    (_VALIDATION_HOOK.replace("{log}", 'self.log("val_loss", loss)'), "val_loss"),
    ("", "train_loss"),
    (_VALIDATION_HOOK.replace("{log}", "pass"), "train_loss"),
])
def test_lightning_plateau_monitoring_what_it_should(validation: str, monitor: str) -> None:
    src = _LIGHTNING_PLATEAU.format(validation=validation, monitor=monitor)
    assert "LRD004" not in codes(src)


# -- a checkpoint that keeps one scheduler's state but not the other's ----------------------
# A warm-up and a main schedule drive one optimizer; the checkpoint stores the optimizer and
# the warm-up's state while the main schedule's line is commented out: on resume the main
# schedule restarts. Storing both, or one scheduler chosen per branch under one name, loses
# nothing.

_TWO_SCHEDULES = """
import torch


def train(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    {warmup}
    main_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    step = 0
    for epoch in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
            if step < args.warmup_steps:
                warmup_scheduler.step()
            step += 1
        if step >= args.warmup_steps:
            main_scheduler.step()
        torch.save({{
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
            "warmup": warmup_scheduler.state_dict(),
            {main}
        }}, "last.pt")
"""

_ONE_WARMUP = ("warmup_scheduler = torch.optim.lr_scheduler.LambdaLR(\n"
               "        optimizer, lambda s: min(1.0, (s + 1) / args.warmup_steps))")
_CHOSEN_WARMUP = (
    "if args.linear:\n"
    "        warmup_scheduler = torch.optim.lr_scheduler.LambdaLR(\n"
    "            optimizer, lambda s: min(1.0, (s + 1) / args.warmup_steps))\n"
    "    else:\n"
    "        warmup_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)")


@pytest.mark.parametrize("warmup", [_ONE_WARMUP, _CHOSEN_WARMUP])
def test_checkpoint_keeps_the_warmup_but_not_the_main_schedule(warmup: str) -> None:
    src = _TWO_SCHEDULES.format(warmup=warmup, main='# "main": main_scheduler.state_dict(),')
    assert "LRD007" in codes(src)


@pytest.mark.parametrize("warmup", [_ONE_WARMUP, _CHOSEN_WARMUP])
def test_checkpoint_keeps_both_schedules(warmup: str) -> None:
    src = _TWO_SCHEDULES.format(warmup=warmup, main='"main": main_scheduler.state_dict(),')
    assert "LRD007" not in codes(src)


# -- step(epoch) on the project's subclass of torch's scheduler base ------------------------
# `class TableLR(_LRScheduler)` that only writes get_lr() keeps torch's step(): passing it the
# epoch takes torch's deprecated path, whatever the class (picked from a dict of such classes
# by a setting, too). A subclass that writes its own step(epoch) defines what the argument
# means: left alone.

_PROJECT_TABLE = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class TableLR(_LRScheduler):
    def __init__(self, optimizer, epochs=50, last_epoch=-1):
        self.table = [0.9 ** i for i in range(epochs)]
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * self.table[self.last_epoch] for base in self.base_lrs]
{own_step}

class HalvingLR(TableLR):
    pass


KINDS = {{"table": TableLR, "halving": HalvingLR}}


def train(cfg, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = {build}
    for epoch in range(cfg.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        scheduler.step(epoch + 1)
"""

_OWN_STEP = """
    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
"""


@pytest.mark.parametrize("build", [
    "TableLR(optimizer, epochs=cfg.epochs)",
    "KINDS[cfg.kind](optimizer, epochs=cfg.epochs)",
])
def test_epoch_argument_to_a_project_scheduler_keeping_torch_step(build: str) -> None:
    src = _PROJECT_TABLE.format(own_step="", build=build)
    assert "LRD006" in codes(src)


@pytest.mark.parametrize("build", [
    "TableLR(optimizer, epochs=cfg.epochs)",
    "KINDS[cfg.kind](optimizer, epochs=cfg.epochs)",
])
def test_epoch_argument_to_a_project_scheduler_with_its_own_step(build: str) -> None:
    src = _PROJECT_TABLE.format(own_step=_OWN_STEP, build=build)
    assert "LRD006" not in codes(src)


# -- what a guard of the step holds on the first pass ---------------------------------------
# `first = True` right before the loop, rebound inside it: on the first pass the guard reads
# True. And a warm-up built under `args.sched == "linear"` sees `args.sched == "linear"` hold
# where it is stepped. Both together make `if first and (args.sched == "linear" or step <
# warmup): warmup.step()` before optimizer.step() a step before the first update. A guard that
# is false on the first pass, or whose value the file does not state, stays silent.

_GUARDED_WARMUP = """
import torch


def train(args, model, loader, warmup_steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if args.sched == "linear":
        warmup = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: min(1.0, (s + 1) / warmup_steps))
    else:
        warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)
    step = 0
    for epoch in range(args.epochs):
        {before}
        for x, y in loader:
            optimizer.zero_grad()
            model(x, y).backward()
            if {guard}:
                warmup.step()
            optimizer.step()
            first = False
            step += 1
"""


@pytest.mark.parametrize("before, guard", [
    ("first = True", 'first and (args.sched == "linear" or step < warmup_steps)'),
    ("first = True", "first"),
    ("first = 1", 'first and args.sched != "constant"'),
])
def test_warmup_step_guarded_by_what_holds_on_the_first_pass(before: str, guard: str) -> None:
    assert "LRD001" in codes(_GUARDED_WARMUP.format(before=before, guard=guard))


@pytest.mark.parametrize("before, guard", [
    ("first = True", "not first"),
    ("first = False", "first"),
    ("first = True", "first and step > 0"),
    ("first = True", 'first and args.sched == "constant" and step < warmup_steps'),
    ("pass", "step < warmup_steps"),
])
def test_warmup_step_guard_false_or_unknown_on_the_first_pass(before: str, guard: str) -> None:
    assert "LRD001" not in codes(_GUARDED_WARMUP.format(before=before, guard=guard))


# -- a vendored copy of torch's scheduler module --------------------------------------------
# Code written when torch lacked OneCycleLR keeps a copy of lr_scheduler.py in the project:
# `class _LRScheduler(object)` with its own step(), and `class OneCycleLR(_LRScheduler)`. A class
# of a torch scheduler's name built on a base of the name of torch's scheduler base is that
# scheduler: stepped every batch under a GradScaler it is LRD005, and its horizon is read from
# its arguments. A project class that only shares the name, built on something else, is not.

_VENDORED = """
import torch


class {base}{parent}:
    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = optimizer
        self.last_epoch = last_epoch
        self.step()

    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr


class {cls}({base}):
    def __init__(self, optimizer, *args, last_epoch=-1, **kwargs):
        self.args = args
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [g["lr"] for g in self.optimizer.param_groups]


def train(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = {build}
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.amp):
            loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scheduler.step()
        scaler.update()
"""


@pytest.mark.parametrize("base, parent", [("_LRScheduler", "(object)"), ("LRScheduler", "")])
def test_vendored_onecycle_stepped_on_skipped_updates(base: str, parent: str) -> None:
    src = _VENDORED.format(base=base, parent=parent, cls="OneCycleLR",
                           build="OneCycleLR(optimizer, args.lr, args.num_steps)")
    assert "LRD005" in codes(src)


@pytest.mark.parametrize("base, cls", [
    ("RateBase", "OneCycleLR"),
    ("_LRScheduler", "WarmRestartRate"),
])
def test_project_class_that_only_shares_a_name(base: str, cls: str) -> None:
    src = _VENDORED.format(base=base, parent="(object)", cls=cls,
                           build=f"{cls}(optimizer, args.lr)")
    assert "LRD005" not in codes(src)


def test_torch_named_class_on_a_project_base_of_torch_is_custom() -> None:
    # `class LRScheduler(_LRScheduler)` of the project, then `class OneCycleLR(LRScheduler)`:
    # a custom class on torch's base, whose arguments need not be torch's
    src = _VENDORED.format(base="LRScheduler", parent="(torch.optim.lr_scheduler._LRScheduler)",
                           cls="OneCycleLR", build="OneCycleLR(optimizer, args.lr)")
    assert "LRD005" not in codes(src)
