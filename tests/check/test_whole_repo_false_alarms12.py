"""Shapes met while checking whole repositories (fphunt20): the correct variant stays quiet and
the buggy neighbour is still reported. fphunt20 found no false alarm (one finding outside LRD101,
judged real), so these guard what the checker already gets right on code of these shapes."""

from __future__ import annotations

from tests.check.helpers import codes

# -- a schedule restored from the checkpoint, or fast-forwarded by the saved epoch ------------

# A robustness-style factory: the optimizer is restored on resume, the schedule either loaded
# from the checkpoint or, when that fails (an old checkpoint without it), stepped once per
# saved epoch; it is stepped once per epoch after the batch loop. {restore} is what the
# resume does to the schedule, {save} the schedule's entry in the checkpoint.
_FAST_FORWARD = """
import torch
from torch.optim import lr_scheduler

def make(args, model, checkpoint):
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9)
    if args.step_lr:
        schedule = lr_scheduler.StepLR(optimizer, step_size=args.step_lr, gamma=0.1)
    else:
        schedule = lr_scheduler.LambdaLR(optimizer, lambda ep: 0.5 ** (ep // 30))
    if checkpoint:
        optimizer.load_state_dict(checkpoint["optimizer"])
{restore}
    return optimizer, schedule

def train(args, model, loader, checkpoint):
    optimizer, schedule = make(args, model, checkpoint)
    start = checkpoint["epoch"] if checkpoint else 0
    for epoch in range(start, args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    {save}"epoch": epoch + 1}}, "latest.pt")
        schedule.step()
"""

_LOAD_OR_FAST_FORWARD = """\
        try:
            schedule.load_state_dict(checkpoint["schedule"])
        except KeyError:
            for _ in range(checkpoint["epoch"]):
                schedule.step()"""
_FAST_FORWARD_ONLY = """\
        for _ in range(checkpoint["epoch"]):
            schedule.step()"""


def test_a_schedule_loaded_or_fast_forwarded_by_the_saved_epoch_is_quiet() -> None:
    program = _FAST_FORWARD.format(restore=_LOAD_OR_FAST_FORWARD,
                                   save='"schedule": schedule.state_dict(), ')
    assert codes(program) == []


def test_a_schedule_only_fast_forwarded_by_the_saved_epoch_is_quiet() -> None:
    # nothing of the schedule is saved, but stepping it `epoch` times puts it where it was
    assert codes(_FAST_FORWARD.format(restore=_FAST_FORWARD_ONLY, save="")) == []


def test_a_schedule_neither_saved_nor_fast_forwarded_is_lrd007() -> None:
    found = codes(_FAST_FORWARD.format(restore="        pass", save=""))
    assert found and set(found) == {"LRD007"}


# -- `step(epoch)` on a project subclass of torch's scheduler -----------------------------------

# A warm-restart cosine subclassing `_LRScheduler` (get_lr only, no closed form), stepped once
# per epoch. {override} is an own `step(epoch=None)` or nothing, {arg} the argument passed.
_WARM_RESTART = """
import math
import torch
from torch.optim.lr_scheduler import _LRScheduler

class WarmRestart(_LRScheduler):
    def __init__(self, optimizer, period, last_epoch=-1):
        self.period = period
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t = self.last_epoch % self.period
        return [base * 0.5 * (1 + math.cos(math.pi * t / self.period)) for base in self.base_lrs]
{override}

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = WarmRestart(optimizer, 10)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step({arg})
"""

_OWN_STEP = """
    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
"""


def test_step_epoch_on_a_subclass_keeping_torch_s_step_is_lrd006() -> None:
    assert codes(_WARM_RESTART.format(override="", arg="epoch")) == ["LRD006"]


def test_plain_step_on_the_same_subclass_is_quiet() -> None:
    assert codes(_WARM_RESTART.format(override="", arg="")) == []


def test_step_epoch_on_a_subclass_with_its_own_step_is_quiet() -> None:
    assert codes(_WARM_RESTART.format(override=_OWN_STEP, arg="epoch")) == []


# -- OneCycleLR rebuilt at the saved step, a step budget over epochs of batches ---------------

# An optical-flow loop: `while total_steps < num_steps` around the loader, OneCycleLR sized in
# steps and rebuilt with `last_epoch=start_step` on resume (the restored optimizer carries
# `initial_lr`). {inner} / {outer}: where the scheduler steps.
_STEP_BUDGET = """
import torch

def train(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    start_step = 0
    if args.resume:
        ckpt = torch.load(args.resume)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_step = ckpt["step"]
    last_epoch = start_step if args.resume and start_step > 0 else -1
    lr_scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, args.lr, args.num_steps + 10, pct_start=0.05,
        cycle_momentum=False, anneal_strategy="linear", last_epoch=last_epoch)
    total_steps = start_step
    epoch = 0
    while total_steps < args.num_steps:
        for img, target in loader:
            loss = (model(img) - target).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
{inner}
            total_steps += 1
            if total_steps % 10000 == 0:
                torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "step": total_steps}}, "step.pth")
            if total_steps >= args.num_steps:
                break
{outer}
        epoch += 1
"""


def test_onecycle_rebuilt_at_the_saved_step_and_stepped_per_batch_is_quiet() -> None:
    assert codes(_STEP_BUDGET.format(inner="            lr_scheduler.step()", outer="")) == []


def test_onecycle_stepped_once_per_pass_over_the_loader_is_lrd003() -> None:
    assert codes(_STEP_BUDGET.format(inner="", outer="        lr_scheduler.step()")) \
        == ["LRD003"]


# -- ReduceLROnPlateau fed a validation accuracy -------------------------------------------------

_PLATEAU_ACCURACY = """
import torch
from torch.optim import lr_scheduler

def evaluate(net, loader):
    correct = 0
    for x, y in loader:
        correct += (net(x).argmax(1) == y).sum().item()
    return correct / len(loader.dataset)

def main(net, train_loader, val_loader):
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, {mode!r}, factor=0.5, patience=25)
    for epoch in range(1000):
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(net(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        accuracy = evaluate(net, val_loader)
        scheduler.step(accuracy)
"""


def test_plateau_in_max_mode_fed_a_validation_accuracy_is_quiet() -> None:
    assert codes(_PLATEAU_ACCURACY.format(mode="max")) == []


def test_plateau_in_min_mode_fed_a_validation_accuracy_is_lrd004() -> None:
    assert codes(_PLATEAU_ACCURACY.format(mode="min")) == ["LRD004"]


# -- a runner whose step() holds the scheduler, called every `accum` micro-batches -------------

# A protein-model trainer: backward() divides the loss, step() clips, steps the optimizer and
# (or not) the LambdaLR warm-up; the epoch function calls step() every `accum` batches.
_RUNNER = """
import torch
from torch import nn
from torch.optim.lr_scheduler import LambdaLR

class Runner:
    def __init__(self, model, optimizer, accum, warmup, total):
        self.model = model
        self.optimizer = optimizer
        self.accum = accum
        self.scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, 1 - s / total))

    def backward(self, loss):
        (loss / self.accum).backward()

    def step(self):
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
{sched_in_step}
        self.optimizer.zero_grad()

def run_epoch(runner, loader, accum):
    for step, batch in enumerate(loader):
        loss = runner.model(batch).mean()
        runner.backward(loss)
        if (step + 1) % accum == 0:
            runner.step()
{sched_outside}

def main(model, loader, epochs, accum):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    total = epochs * len(loader) // accum
    runner = Runner(model, optimizer, accum, 1000, total)
    for epoch in range(epochs):
        run_epoch(runner, loader, accum)
"""


def test_a_scheduler_inside_the_runner_s_accumulated_step_is_quiet() -> None:
    program = _RUNNER.format(sched_in_step="        self.scheduler.step()", sched_outside="")
    assert codes(program) == []


def test_a_scheduler_stepped_every_micro_batch_beside_the_runner_is_lrd017() -> None:
    program = _RUNNER.format(sched_in_step="", sched_outside="        runner.scheduler.step()")
    assert codes(program) == ["LRD017"]


# -- a project schedule positioned by (epoch, batch) before each update -----------------------

# A quantisation-aware training loop: the project's own cosine sets the LR from the epoch and
# the batch index at the top of each batch (closed form, nothing skipped); a torch StepLR
# stepped at the same place is early and sized in epochs.
_POSITIONED = """
import math
import torch

class CosineLr:
    def __init__(self, optimizer, batches, epochs, lr):
        self.optimizer = optimizer
        self.total = batches * epochs
        self.batches = batches
        self.lr = lr

    def step(self, epoch, batch):
        t = epoch * self.batches + batch
        for group in self.optimizer.param_groups:
            group["lr"] = 0.5 * self.lr * (1 + math.cos(math.pi * t / self.total))

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
{make}
    for epoch in range(epochs):
        for batch_idx, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(model(x), y)
{step}
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


def test_an_own_schedule_positioned_by_epoch_and_batch_is_quiet() -> None:
    program = _POSITIONED.format(
        make="    lr_scheduler = CosineLr(optimizer, len(loader), epochs, 0.1)",
        step="            lr_scheduler.step(epoch=epoch, batch=batch_idx)")
    assert codes(program) == []


def test_a_torch_steplr_stepped_at_the_same_place_is_lrd001_and_lrd002() -> None:
    program = _POSITIONED.format(
        make="    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)",
        step="            lr_scheduler.step()")
    assert sorted(codes(program)) == ["LRD001", "LRD002"]


# -- a callback that builds the scheduler from a class and steps it at each epoch's end ------

# A skorch-style net: the callback gets the scheduler class and its arguments, builds it on
# the net's optimizer, and steps it after each epoch (with the validation loss when it is a
# plateau). {policy} / {kw}: the class and its arguments.
_CALLBACK = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau, CosineAnnealingLR

class LRCallback:
    def __init__(self, policy, **kwargs):
        self.policy = policy
        self.kwargs = kwargs

    def initialize(self, optimizer):
        self.sched = self.policy(optimizer, **self.kwargs)

    def on_epoch_end(self, history):
        if isinstance(self.sched, ReduceLROnPlateau):
            self.sched.step(history[-1]["valid_loss"])
        else:
            self.sched.step()

class Net:
    def __init__(self, module, callbacks):
        self.module = module
        self.callbacks = callbacks
        self.history = []

    def fit(self, train_loader, valid_loader, epochs):
        optimizer = torch.optim.AdamW(self.module.parameters(), lr=1e-3)
        for cb in self.callbacks:
            cb.initialize(optimizer)
        for epoch in range(epochs):
            for x, y in train_loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(self.module(x), y).backward()
                optimizer.step()
            valid = sum(torch.nn.functional.cross_entropy(self.module(x), y).item()
                        for x, y in valid_loader)
            self.history.append({{"valid_loss": valid}})
            for cb in self.callbacks:
                cb.on_epoch_end(self.history)

def main(module, train_loader, valid_loader, n_epochs):
    net = Net(module, [LRCallback({policy}, {kw})])
    net.fit(train_loader, valid_loader, n_epochs)
"""


def test_a_callback_built_cosine_stepped_per_epoch_is_quiet() -> None:
    assert codes(_CALLBACK.format(policy="CosineAnnealingLR", kw="T_max=n_epochs - 1")) == []


def test_a_callback_built_plateau_fed_the_validation_loss_is_quiet() -> None:
    assert codes(_CALLBACK.format(policy="ReduceLROnPlateau", kw="patience=3")) == []
