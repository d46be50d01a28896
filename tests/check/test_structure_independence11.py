"""The model of the program holds when the code is laid out as real projects lay it out, round
14 (meta14): a checkpoint dict merged with ``|`` or grown with ``|=`` (it holds the items of
both, as ``{**a, **b}`` and ``update()`` do; a side not known here leaves it partly unknown);
a loss computed by a method called on the file's own class (``Losses.bce(...)``) under the
caller's autocast, and the rest of a ``with contextlib.ExitStack() as stack:`` block after
``stack.enter_context(torch.autocast(...))``; a named tuple a builder returns, unpacked
(``opt, sched = build(model)``) or indexed (``parts[1]``), to its fields in order;
``map(f, loader)`` and ``functools.reduce(f, loader, init)``, which run ``f`` on every batch
(over ``opt.param_groups``, on each group); a test that calls the project's one-return
predicate (``if self.should_update(i):`` returning ``(i + 1) % self.accum == 0``), read as
what it returns; ``stack.callback(sched.step)`` in ``with contextlib.ExitStack() as stack:``,
run as the block exits. And the layouts that already held, kept here so that they keep holding:
train steps as ``@staticmethod`` / ``@classmethod``, a batch function defined inside the
epoch loop, ``__enter__`` stepping at the top of the epoch, ``getattr(torch.optim.
lr_scheduler, "StepLR")`` and ``getattr(torch.optim, "Adam")`` with literal names, ``while``
loops with a manual counter and ``break`` on ``max_steps``, a step in a ``finally`` around
the batch, ``trange``/``tqdm``, checkpoints built with ``**`` merges, a resume through
``ckpt.get(...)``, callbacks dispatched by a hook name through ``getattr``, a plateau fed a
named-tuple field or a metrics dict, ``param_group.update(lr=...)``, two schedulers kept in a
list, a dataclass or built by ``getattr``, a scheduler behind a property or in a plain dict
state; and notebooks whose loop, scheduler and training functions sit in different cells.

Each program is written once with its two twins inline, ``[[wrong||right]]``: the wrong twin
must be reported with the pair's code, the right twin must give no finding at all."""

from __future__ import annotations

import re

import pytest

from .helpers import check_project, findings, notebook, project_codes

HEAD = """
import contextlib
import functools
import itertools

import torch
from torch.optim.lr_scheduler import (CosineAnnealingLR, LinearLR, MultiStepLR, OneCycleLR,
                                      StepLR)
"""

_TWIN = re.compile(r"\[\[(.*?)\|\|(.*?)\]\]", re.S)


def twins(program: str) -> tuple[str, str]:
    """The wrong and the right program written in ``program`` as ``[[wrong||right]]``."""
    return (_TWIN.sub(lambda m: m.group(1), HEAD + program),
            _TWIN.sub(lambda m: m.group(2), HEAD + program))


def assert_twins(code: str, program: str) -> None:
    wrong, right = twins(program)
    assert code in {c for c, _ in findings(wrong)}, "the wrong twin is missed"
    assert findings(right) == [], "the right twin is reported"


# -- a checkpoint dict merged with ``|`` or grown with ``|=`` ----------------------------------

MERGED = {
    'checkpoint built with | merges': ('LRD007', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        base = {"epoch": epoch, "model": model.state_dict()}
        ckpt = base | {"optimizer": opt.state_dict()}[[||| {"scheduler": sched.state_dict()}]]
        torch.save(ckpt, "last.pt")
"""),
    'checkpoint grown with |=': ('LRD007', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        ckpt = {"model": model.state_dict(), "epoch": epoch}
        ckpt |= {"optimizer": opt.state_dict()}
        [[pass||ckpt |= {"scheduler": sched.state_dict()}]]
        torch.save(ckpt, "last.pt")
"""),
}


@pytest.mark.parametrize("name", list(MERGED))
def test_a_dict_merged_with_or_holds_the_items_of_both(name: str) -> None:
    assert_twins(*MERGED[name])


# -- a loss computed by a method called on the file's own class, or under an autocast an ``ExitStack`` enters ---

CLASS_CALL = {
    'log of sigmoid in a staticmethod under autocast': ('LRD103', """
class Losses:
    @staticmethod
    def bce(logits, target):
        [[p = torch.sigmoid(logits)
        return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()||return torch.nn.functional.binary_cross_entropy_with_logits(logits, target)]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = Losses.bce(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
"""),
    'BCELoss under autocast entered by an ExitStack': ('LRD103', """
def main(model, loader, use_amp=True):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    crit = [[torch.nn.BCELoss()||torch.nn.BCEWithLogitsLoss()]]
    for x, y in loader:
        opt.zero_grad()
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.autocast("cuda", dtype=torch.float16))
            [[loss = crit(torch.sigmoid(model(x)), y)||loss = crit(model(x), y)]]
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
"""),
}


@pytest.mark.parametrize("name", list(CLASS_CALL))
def test_what_runs_under_autocast_is_followed_through_the_class_and_the_exit_stack(name: str) -> None:
    assert_twins(*CLASS_CALL[name])


# -- a named tuple a builder returns, unpacked or indexed --------------------------------------

NAMED_TUPLE = {
    'NamedTuple from a builder, unpacked': ('LRD002', """
from typing import NamedTuple

class Parts(NamedTuple):
    optimizer: torch.optim.Optimizer
    scheduler: object

def build(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return Parts(opt, StepLR(opt, step_size=30))

def main(model, loader):
    opt, sched = build(model)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'NamedTuple from a builder, indexed': ('LRD002', """
import collections

Parts = collections.namedtuple("Parts", ["optimizer", "scheduler"])

def build(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return Parts(opt, MultiStepLR(opt, milestones=[30, 60]))

def main(model, loader):
    parts = build(model)
    opt, sched = parts[0], parts[1]
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
}


@pytest.mark.parametrize("name", list(NAMED_TUPLE))
def test_a_named_tuple_unpacks_and_indexes_to_its_fields(name: str) -> None:
    assert_twins(*NAMED_TUPLE[name])


# -- ``map(f, loader)`` and ``functools.reduce(f, loader, init)`` run ``f`` on every batch -----

PER_ITEM = {
    'functools.reduce over the batches': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)

    def accumulate(total, batch):
        x, y = batch
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        [[sched.step()||pass]]
        return total + loss.item()

    for epoch in range(90):
        epoch_loss = functools.reduce(accumulate, loader, 0.0)
        [[pass||sched.step()]]
"""),
    'list(map(step, loader))': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=90)

    def train_batch(batch):
        x, y = batch
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        [[sched.step()||pass]]
        return loss.item()

    for epoch in range(90):
        losses = list(map(train_batch, loader))
        [[pass||sched.step()]]
"""),
    'lr written inside a map over param groups': ('LRD008', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)

    def set_lr(group, lr=0.01):
        group["lr"] = lr

    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        [[list(map(set_lr, opt.param_groups))||sched.step()]]
        [[sched.step()||pass]]
"""),
}


@pytest.mark.parametrize("name", list(PER_ITEM))
def test_map_and_reduce_run_the_function_per_item(name: str) -> None:
    assert_twins(*PER_ITEM[name])


# -- an accumulation boundary a one-return method tells ----------------------------------------

PREDICATE = {
    'accumulation, boundary from a method returning a bool': ('LRD017', """
class Trainer:
    def __init__(self, model, loader, accum=4, epochs=10):
        self.model, self.loader, self.accum, self.epochs = model, loader, accum, epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = OneCycleLR(self.opt, max_lr=0.1,
                                total_steps=epochs * len(loader) // accum)

    def should_update(self, i):
        return (i + 1) % self.accum == 0

    def fit(self):
        for epoch in range(self.epochs):
            for i, (x, y) in enumerate(self.loader):
                (torch.nn.functional.mse_loss(self.model(x), y) / self.accum).backward()
                if self.should_update(i):
                    self.opt.step()
                    self.opt.zero_grad()
                    [[pass||self.sched.step()]]
                [[self.sched.step()||pass]]
"""),
}


@pytest.mark.parametrize("name", list(PREDICATE))
def test_a_one_return_predicate_reads_as_what_it_returns(name: str) -> None:
    assert_twins(*PREDICATE[name])

# -- guards: what the fixes above leave alone ------------------------------------------------

GUARDS = {
    'a dict merged with something unknown is not judged': """
def main(model, loader, extra, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict()} | extra
        torch.save(ckpt, "last.pt")
""",
    'a dict grown with |= by something unknown is not judged': """
def main(model, loader, extra, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        ckpt = {"model": model.state_dict(), "optimizer": opt.state_dict()}
        ckpt |= extra
        torch.save(ckpt, "last.pt")
""",
    'a predicate for logging is no accumulation boundary': """
class Trainer:
    def __init__(self, model, loader, epochs=10):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = OneCycleLR(self.opt, max_lr=0.1, total_steps=epochs * len(loader))

    def should_log(self, i):
        return i % 100 == 0

    def fit(self):
        for epoch in range(self.epochs):
            for i, (x, y) in enumerate(self.loader):
                self.opt.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.opt.step()
                self.sched.step()
                if self.should_log(i):
                    print(loss.item())
""",
    'a static loss method called outside autocast is not under it': """
class Losses:
    @staticmethod
    def bce(logits, target):
        p = torch.sigmoid(logits)
        return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
        loss = Losses.bce(logits.float(), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
""",
    'what comes before an ExitStack enters autocast is not under it': """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    crit = torch.nn.BCELoss()
    for x, y in loader:
        opt.zero_grad()
        with contextlib.ExitStack() as stack:
            loss = crit(torch.sigmoid(model(x).float()), y)
            stack.enter_context(torch.autocast("cuda", dtype=torch.float16))
            extra = model(x).sum()
        scaler.scale(loss + extra).backward()
        scaler.step(opt)
        scaler.update()
""",
}


@pytest.mark.parametrize("name", list(GUARDS))
def test_guards_stay_silent(name: str) -> None:
    assert findings(HEAD + GUARDS[name]) == []


# -- an ExitStack's callbacks run as its block exits --------------------------------------------

EXIT_STACK = {
    'ExitStack callback steps at the end of each batch': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        [[for x, y in loader:
            with contextlib.ExitStack() as stack:
                stack.callback(sched.step)
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()||with contextlib.ExitStack() as stack:
            stack.callback(sched.step)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()]]
"""),
    'ExitStack callback steps one-cycle once per epoch': ('LRD003', """
from contextlib import ExitStack

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        [[with ExitStack() as stack:
            stack.callback(sched.step)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()||for x, y in loader:
            with ExitStack() as stack:
                stack.callback(sched.step)
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()]]
"""),
}


@pytest.mark.parametrize("name", list(EXIT_STACK))
def test_an_exit_stack_s_callbacks_run_as_its_block_exits(name: str) -> None:
    assert_twins(*EXIT_STACK[name])


# -- layouts that already held ---------------------------------------------------------------

HELD = {
    'train step as a staticmethod called on the class': ('LRD002', """
class Trainer:
    @staticmethod
    def train_step(model, opt, sched, x, y):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[sched.step()||pass]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            Trainer.train_step(model, opt, sched, x, y)
        [[pass||sched.step()]]
"""),
    'train step as a staticmethod called on self': ('LRD003', """
class Trainer:
    def __init__(self, model, loader, epochs=10):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = OneCycleLR(self.opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))

    @staticmethod
    def batch_update(model, opt, sched, x, y):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[pass||sched.step()]]

    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.batch_update(self.model, self.opt, self.sched, x, y)
            [[self.sched.step()||pass]]
"""),
    'epoch loop in a classmethod calling a classmethod step': ('LRD002', """
class Recipe:
    epochs = 90

    @classmethod
    def one_batch(cls, model, opt, x, y):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()

    @classmethod
    def run(cls, model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = MultiStepLR(opt, milestones=[30, 60])
        for epoch in range(cls.epochs):
            for x, y in loader:
                cls.one_batch(model, opt, x, y)
                [[sched.step()||pass]]
            [[pass||sched.step()]]

"""),
    'one-cycle per epoch, batches through map': ('LRD003', """
def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))

    def train_batch(batch):
        x, y = batch
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[pass||sched.step()]]

    for epoch in range(epochs):
        for _ in map(train_batch, loader):
            pass
        [[sched.step()||pass]]
"""),
    'batch function defined inside the epoch loop': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        def one(x, y):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        for x, y in loader:
            one(x, y)
        [[pass||sched.step()]]
"""),
    'NamedTuple from a builder, read by keyword fields': ('LRD003', """
from typing import NamedTuple

class Parts(NamedTuple):
    optimizer: torch.optim.Optimizer
    scheduler: object

def build(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return Parts(scheduler=OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader)),
                 optimizer=opt)

def main(model, loader, epochs=10):
    parts = build(model, loader, epochs)
    for epoch in range(epochs):
        for x, y in loader:
            parts.optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            parts.optimizer.step()
            [[pass||parts.scheduler.step()]]
        [[parts.scheduler.step()||pass]]
"""),
    'context manager whose __enter__ steps at the top of the epoch': ('LRD001', """
class EpochScope:
    def __init__(self, sched):
        self.sched = sched
    def __enter__(self):
        [[self.sched.step()||pass]]
        return self
    def __exit__(self, *exc):
        [[pass||self.sched.step()]]
        return False

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        with EpochScope(sched):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
"""),
    'scheduler class from getattr of lr_scheduler by a literal name': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    name = "StepLR"
    sched_cls = getattr(torch.optim.lr_scheduler, name)
    sched = sched_cls(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'one-cycle from getattr with keyword settings from a dict': ('LRD003', """
SCHEDULE = {"name": "OneCycleLR", "max_lr": 0.1}

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = getattr(torch.optim.lr_scheduler, SCHEDULE["name"])(
        opt, max_lr=SCHEDULE["max_lr"], epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    'fp16 adam from getattr of torch.optim': ('LRD102', """
def main(model, loader):
    model = model.half()
    opt = getattr(torch.optim, "Adam")(model.parameters(), lr=1e-3[[||, eps=1e-4]])
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        opt.step()
"""),
    'while loop over epochs with a step counter and break on max_steps': ('LRD002', """
def main(model, loader, max_steps=10000):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    step = 0
    done = False
    while not done:
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
            step += 1
            if step >= max_steps:
                done = True
                break
        [[pass||sched.step()]]
"""),
    'top-of-epoch step, while loop with a manual epoch counter': ('LRD001', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    epoch = 0
    while epoch < epochs:
        [[sched.step()||pass]]
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        [[pass||sched.step()]]
        epoch += 1
"""),
    'one-cycle per epoch, while over steps with break': ('LRD003', """
def main(model, loader, max_steps=10000):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=max_steps)
    step = 0
    while True:
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[pass||sched.step()]]
            step += 1
            if step == max_steps:
                break
        [[sched.step()||pass]]
        if step == max_steps:
            break
"""),
    'per-batch step in a finally around the batch': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            try:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
            finally:
                [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'epochs from trange': ('LRD002', """
from tqdm import tqdm, trange

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in trange(90, desc="epochs"):
        for x, y in tqdm(loader, leave=False):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'epoch argument, epochs from trange': ('LRD006', """
from tqdm.auto import trange

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in trange(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        [[sched.step(epoch)||sched.step()]]
"""),
    'one-cycle per epoch, progress bar held in a name': ('LRD003', """
from tqdm import tqdm

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        bar = tqdm(loader, total=len(loader))
        for x, y in bar:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            [[pass||sched.step()]]
            bar.set_postfix(loss=loss.item())
        [[sched.step()||pass]]
"""),
    'checkpoint built with ** merges': ('LRD007', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        weights = {"model": model.state_dict()}
        states = {"optimizer": opt.state_dict()[[||, "scheduler": sched.state_dict()]]}
        torch.save({**weights, **states, "epoch": epoch}, "last.pt")
"""),
    'resume through ckpt.get': ('LRD007', """
def main(model, loader, resume=None, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    start = 0
    if resume:
        ckpt = torch.load(resume)
        model.load_state_dict(ckpt.get("model"))
        opt.load_state_dict(ckpt.get("optimizer"))
        [[pass||sched.load_state_dict(ckpt.get("scheduler"))]]
        start = ckpt.get("epoch", 0) + 1
    for epoch in range(start, epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
"""),
    'callbacks dispatched by a hook name through getattr': ('LRD002', """
class Callback:
    def on_train_batch_end(self, trainer):
        pass
    def on_train_epoch_end(self, trainer):
        pass

class SchedulerStep(Callback):
    def [[on_train_batch_end||on_train_epoch_end]](self, trainer):
        trainer.sched.step()

class Trainer:
    def __init__(self, model, loader, callbacks):
        self.model, self.loader, self.callbacks = model, loader, callbacks
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = StepLR(self.opt, step_size=30)

    def call_hook(self, hook):
        for cb in self.callbacks:
            getattr(cb, hook)(self)

    def fit(self, epochs=90):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                self.call_hook("on_train_batch_end")
            self.call_hook("on_train_epoch_end")

def main(model, loader):
    Trainer(model, loader, [SchedulerStep()]).fit()
"""),
    'callback list stepping the plateau without a metric': ('LRD004', """
class Callback:
    def on_epoch_end(self, trainer, logs):
        pass

class PlateauStep(Callback):
    def on_epoch_end(self, trainer, logs):
        trainer.sched.step([[||logs.get("val_loss")]])

class Trainer:
    def __init__(self, model, loader, val_loader, callbacks=()):
        self.model, self.loader, self.val_loader = model, loader, val_loader
        self.callbacks = list(callbacks)
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt, mode="min")

    def fit(self, epochs=90):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            with torch.no_grad():
                val_loss = sum(torch.nn.functional.mse_loss(self.model(x), y).item()
                               for x, y in self.val_loader)
            for cb in self.callbacks:
                cb.on_epoch_end(self, {"val_loss": val_loss})

def main(model, loader, val_loader):
    Trainer(model, loader, val_loader, [PlateauStep()]).fit()
"""),
    'plateau fed a field of a NamedTuple result': ('LRD004', """
from typing import NamedTuple

class EpochResult(NamedTuple):
    train_loss: float
    val_loss: float

def run_epoch(model, opt, loader, val_loader):
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item()
    with torch.no_grad():
        val = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val_loader)
    return EpochResult(total, val)

def main(model, loader, val_loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min")
    for epoch in range(90):
        result = run_epoch(model, opt, loader, val_loader)
        sched.step(result.[[train_loss||val_loss]])
"""),
    'plateau fed from a dict of metrics': ('LRD004', """
def main(model, loader, val_loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min")
    for epoch in range(90):
        train_loss = 0.0
        for x, y in loader:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            train_loss += loss.item()
        with torch.no_grad():
            val_loss = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val_loader)
        metrics = {"train_loss": train_loss, "val_loss": val_loss}
        sched.step(metrics.get([["train_loss"||"val_loss"]]))
"""),
    'skipped update, AMP step as a staticmethod': ('LRD005', """
class Engine:
    @staticmethod
    def amp_step(model, opt, scaler, sched, x, y):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        [[sched.step()
        scaler.update()||scale = scaler.get_scale()
        scaler.update()
        if scaler.get_scale() >= scale:
            sched.step()]]

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in loader:
            Engine.amp_step(model, opt, scaler, sched, x, y)
"""),
    'skipped update, while loop with a manual counter': ('LRD005', """
def main(model, loader, max_steps=1000):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = LinearLR(opt, start_factor=0.1, total_iters=max_steps)
    scaler = torch.amp.GradScaler("cuda")
    it = iter(loader)
    step = 0
    while step < max_steps:
        x, y = next(it)
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        [[scaler.update()
        sched.step()||before = scaler.get_scale()
        scaler.update()
        if before <= scaler.get_scale():
            sched.step()]]
        step += 1
"""),
    'skipped update, autocast entered by an ExitStack': ('LRD005', """
def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            with contextlib.ExitStack() as stack:
                stack.enter_context(torch.autocast("cuda", dtype=torch.float16))
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            [[scaler.update()
            sched.step()||old = scaler.get_scale()
            scaler.update()
            if not old > scaler.get_scale():
                sched.step()]]
"""),
    'epoch argument by keyword in a classmethod': ('LRD006', """
class Loop:
    @classmethod
    def fit(cls, model, loader, epochs=90):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = StepLR(opt, step_size=30)
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
            [[sched.step(epoch=epoch)||sched.step()]]

"""),
    'epoch argument, scheduler from getattr': ('LRD006', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = getattr(torch.optim.lr_scheduler, "MultiStepLR")(opt, milestones=[30, 60])
    epoch = 0
    while epoch < 90:
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        epoch += 1
        [[sched.step(epoch)||sched.step()]]
"""),
    'lr written by dict.update on each param group': ('LRD008', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        [[for group in opt.param_groups:
            group.update(lr=0.1 * 0.95 ** epoch)||print(sched.get_last_lr())]]
"""),
    'lr written by a staticmethod helper': ('LRD008', """
class LR:
    @staticmethod
    def set(optimizer, value):
        for g in optimizer.param_groups:
            g["lr"] = value

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        [[if epoch == 0:
            LR.set(opt, 0.01)||pass]]
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
"""),
    'two schedulers from a list comprehension stepped in a loop': ('LRD012', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scheds = [torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 5)),
              StepLR(opt, step_size=30)]
    [[pass||chained = torch.optim.lr_scheduler.SequentialLR(opt, scheds, milestones=[5])]]
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        [[for s in scheds:
            s.step()||chained.step()]]
"""),
    'two schedulers in a dataclass state': ('LRD012', """
import dataclasses

@dataclasses.dataclass
class State:
    opt: torch.optim.Optimizer
    warmup: object
    decay: object

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = State(opt, torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 5)),
                  StepLR(opt, step_size=30))
    [[pass||both = torch.optim.lr_scheduler.SequentialLR(opt, [state.warmup, state.decay], milestones=[5])]]
    for epoch in range(epochs):
        for x, y in loader:
            state.opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            state.opt.step()
        [[state.warmup.step()
        state.decay.step()||both.step()]]
"""),
    'two schedulers, the second from getattr': ('LRD012', """
def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / 5))
    main_sched = getattr(torch.optim.lr_scheduler, "CosineAnnealingLR")(opt, T_max=epochs - 5)
    [[pass||sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, main_sched], milestones=[5])]]
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        [[warm.step()
        main_sched.step()||sched.step()]]
"""),
    'accumulation in a while loop with a manual micro-step counter': ('LRD017', """
def main(model, loader, accum=4, max_updates=1000):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = LinearLR(opt, start_factor=0.1, total_iters=max_updates)
    micro = 0
    it = iter(loader)
    while micro < max_updates * accum:
        x, y = next(it)
        (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
        micro += 1
        if micro % accum == 0:
            opt.step()
            opt.zero_grad()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    'accumulation, the micro-batch step as a staticmethod': ('LRD017', """
class Steps:
    @staticmethod
    def micro(model, opt, sched, x, y, i, accum):
        (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
            [[pass||sched.step()]]
        [[sched.step()||pass]]

def main(model, loader, accum=8, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader) // accum)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            Steps.micro(model, opt, sched, x, y, i, accum)
"""),
    'fp16 adam built in a staticmethod of the model': ('LRD102', """
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 1)
    def forward(self, x):
        return self.fc(x)
    @staticmethod
    def make_optimizer(params):
        return torch.optim.AdamW(params, lr=1e-3[[||, eps=1e-4]])

def main(loader):
    model = Net().to(dtype=torch.float16)
    opt = Net.make_optimizer(model.parameters())
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        opt.step()
"""),
    'fp16 adam, the eps from a NamedTuple builder result': ('LRD102', """
from typing import NamedTuple

class OptConfig(NamedTuple):
    lr: float
    eps: float

def config():
    return OptConfig(lr=1e-3, eps=[[1e-8||1e-4]])

def main(model, loader):
    model.half()
    cfg = config()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=cfg.eps)
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        opt.step()
"""),
    'binary_cross_entropy in a mapped function under autocast': ('LRD103', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")

    def batch_loss(batch):
        x, y = batch
        with torch.autocast("cuda", dtype=torch.float16):
            [[return torch.nn.functional.binary_cross_entropy(torch.sigmoid(model(x)), y)||return torch.nn.functional.binary_cross_entropy_with_logits(model(x), y)]]

    for epoch in range(10):
        for loss in map(batch_loss, loader):
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
"""),
    'top-of-epoch step, epochs from trange in a staticmethod': ('LRD001', """
from tqdm import trange

class Fit:
    @staticmethod
    def run(model, loader, opt, sched, epochs):
        for epoch in trange(epochs):
            [[sched.step()||pass]]
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
            [[pass||sched.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Fit.run(model, loader, opt, StepLR(opt, step_size=30), 90)
"""),
    'top-of-epoch step in an on_epoch_start hook dispatched by name': ('LRD001', """
class Hooks:
    def __init__(self, sched):
        self.sched = sched
    def on_epoch_start(self):
        [[self.sched.step()||pass]]
    def on_epoch_end(self):
        [[pass||self.sched.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    hooks = Hooks(StepLR(opt, step_size=30))
    for epoch in range(90):
        getattr(hooks, "on_epoch_start")()
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        getattr(hooks, "on_epoch_end")()
"""),
    'scheduler kept in a dict state passed around': ('LRD002', """
def make_state(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return {"opt": opt, "sched": StepLR(opt, step_size=30), "step": 0}

def train_batch(state, model, x, y):
    state["opt"].zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    state["opt"].step()
    state["step"] += 1
    [[state["sched"].step()||pass]]

def main(model, loader):
    state = make_state(model)
    for epoch in range(90):
        for x, y in loader:
            train_batch(state, model, x, y)
        [[pass||state["sched"].step()]]
"""),
    'scheduler behind a property of a state object, step in a helper': ('LRD003', """
class State:
    def __init__(self, model, loader, epochs):
        self._opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self._sched = OneCycleLR(self._opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    @property
    def opt(self):
        return self._opt
    @property
    def sched(self):
        return self._sched

def end_of_epoch(state):
    [[state.sched.step()||pass]]

def main(model, loader, epochs=10):
    state = State(model, loader, epochs)
    for epoch in range(epochs):
        for x, y in loader:
            state.opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            state.opt.step()
            [[pass||state.sched.step()]]
        end_of_epoch(state)
"""),
}


@pytest.mark.parametrize("name", list(HELD))
def test_layouts_that_already_held_keep_holding(name: str) -> None:
    assert_twins(*HELD[name])


# -- notebooks: the loop, the scheduler and the training functions in different cells ----------

NB_IMPORTS = """
import torch
from torch.optim.lr_scheduler import LambdaLR, OneCycleLR, ReduceLROnPlateau, StepLR
"""

NB_DATA = """
model = torch.nn.Linear(4, 1)
train_loader = torch.utils.data.DataLoader(train_set, batch_size=32, shuffle=True)
val_loader = torch.utils.data.DataLoader(val_set, batch_size=64)
"""

NOTEBOOKS = {
    'the batch step defined in a cell, the scheduler in another': ('LRD002', [NB_IMPORTS, NB_DATA, """
def train_one_epoch(model, loader, opt, sched):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[sched.step()||pass]]
""", """
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = StepLR(opt, step_size=30)
""", """
for epoch in range(90):
    train_one_epoch(model, train_loader, opt, sched)
    [[pass||sched.step()]]
"""]),
    'one-cycle built after the cell that defines the epoch': ('LRD003', [NB_IMPORTS, NB_DATA, """
EPOCHS = 10

def run_epoch():
    for x, y in train_loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[pass||sched.step()]]
""", """
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = OneCycleLR(opt, max_lr=0.1, epochs=EPOCHS, steps_per_epoch=len(train_loader))
""", """
for epoch in range(EPOCHS):
    run_epoch()
    [[sched.step()||pass]]
"""]),
    'top-of-epoch step in the loop cell, the update in a def cell': ('LRD001', [NB_IMPORTS, NB_DATA, """
def fit_batches(loader):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
""", """
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = StepLR(opt, step_size=30)
""", """
for epoch in range(90):
    [[sched.step()||pass]]
    fit_batches(train_loader)
    [[pass||sched.step()]]
"""]),
    'checkpoint saved by a def cell, the scheduler from another cell': ('LRD007', [NB_IMPORTS, NB_DATA, """
def save_checkpoint(path, epoch):
    torch.save({"epoch": epoch, "model": model.state_dict(),
                "optimizer": opt.state_dict()[[||, "scheduler": sched.state_dict()]]}, path)
""", """
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = StepLR(opt, step_size=30)
""", """
for epoch in range(90):
    for x, y in train_loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    sched.step()
    save_checkpoint("last.pt", epoch)
"""]),
    'plateau in the loop cell fed what a def cell returns': ('LRD004', [NB_IMPORTS, NB_DATA, """
def train_epoch():
    total = 0.0
    for x, y in train_loader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(train_loader)

@torch.no_grad()
def evaluate():
    return sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val_loader)
""", """
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = ReduceLROnPlateau(opt, mode="min", patience=3)
""", """
for epoch in range(90):
    train_loss = train_epoch()
    val_loss = evaluate()
    sched.step([[train_loss||val_loss]])
"""]),
    'two schedulers built in separate cells': ('LRD012', [NB_IMPORTS, NB_DATA, """
opt = torch.optim.SGD(model.parameters(), lr=0.1)
warmup = LambdaLR(opt, lambda e: min(1.0, (e + 1) / 5))
""", """
decay = StepLR(opt, step_size=30)
[[pass||sched = torch.optim.lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[5])]]
""", """
def epoch_pass():
    for x, y in train_loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
""", """
for epoch in range(90):
    epoch_pass()
    [[warmup.step()
    decay.step()||sched.step()]]
"""]),
    'skipped update, the AMP step in a def cell, the scaler in another': ('LRD005', [NB_IMPORTS, NB_DATA, """
def amp_step(x, y):
    opt.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    [[scaler.update()
    sched.step()||before = scaler.get_scale()
    scaler.update()
    if scaler.get_scale() >= before:
        sched.step()]]
""", """
EPOCHS = 10
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = OneCycleLR(opt, max_lr=0.1, total_steps=EPOCHS * len(train_loader))
scaler = torch.amp.GradScaler("cuda")
""", """
for epoch in range(EPOCHS):
    for x, y in train_loader:
        amp_step(x, y)
"""]),
    'manual lr in a def cell, the scheduler in another': ('LRD008', [NB_IMPORTS, NB_DATA, """
def set_lr(value):
    for group in opt.param_groups:
        group["lr"] = value
""", """
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = StepLR(opt, step_size=30)
""", """
for epoch in range(90):
    [[if epoch == 45:
        set_lr(0.01)||pass]]
    for x, y in train_loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    sched.step()
"""]),
}


@pytest.mark.parametrize("name", list(NOTEBOOKS))
def test_notebook_cells_hold_as_one_program(name: str, tmp_path, monkeypatch) -> None:
    code, cells = NOTEBOOKS[name]
    found = []
    for twin in (1, 2):
        text = notebook(*(_TWIN.sub(lambda m, t=twin: m.group(t), c) for c in cells))
        found.append(project_codes(check_project(tmp_path / str(twin), monkeypatch,
                                                 {"course.ipynb": text})))
    assert code in found[0], "the wrong notebook is missed"
    assert found[1] == [], "the right notebook is reported"
