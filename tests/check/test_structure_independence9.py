"""The model of the program holds when the code is laid out as real projects lay it out, round
12 (meta12): the optimizer, scheduler or scaler kept in a module global that an ``init()``
function sets through ``global`` (or in an enclosing function's name set through
``nonlocal``); a context manager of the project, whose ``__enter__`` runs on entry (``as``
binds what it returns) and whose ``__exit__`` runs after the block; and the layouts that already held, kept here so that they
keep holding: a Trainer split over mixins (the loop in one, the scheduler or the AMP step or
the checkpoint in another), callback objects (``self.callbacks.on_batch_end()`` stepping the
scheduler, a plateau stepped from ``on_epoch_end``, a warm-up writing ``param_group["lr"]``),
the step inside the ``with`` block of a user context manager, a generator that yields after
``optimizer.step()``, ``*args`` / ``**kwargs`` forwarded through two helpers, a settings
record built by hand (``SimpleNamespace``, ``argparse.Namespace``), objects kept on a
``SimpleNamespace``, the loop in ``__call__`` and the update in a stepper's ``__call__``,
``for epoch in itertools.count()`` and ``while True`` with a ``break``, and ``enumerate(loader,
start=1)`` with ``if step % accum == 0``.

Each program is written once with its two twins inline, ``[[wrong||right]]``: the wrong twin
must be reported with the pair's code, the right twin must give no finding at all."""

from __future__ import annotations

import re

import pytest

from .helpers import findings

HEAD = """
import argparse
import itertools
from types import SimpleNamespace

import torch
from torch.optim.lr_scheduler import (CosineAnnealingLR, MultiStepLR, OneCycleLR,
                                      ReduceLROnPlateau, StepLR)
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


# -- objects kept in a module global (or an enclosing function's name) that a function sets
#    through `global` (`nonlocal`) --------------------------------------------------------------

GLOBALS = {
    'optimizer and scheduler set by init': ('LRD002', """
optimizer = None
scheduler = None

def init(model):
    global optimizer, scheduler
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=30)

def train_epoch(model, loader):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        [[scheduler.step()||pass]]

def main(model, loader):
    init(model)
    for epoch in range(90):
        train_epoch(model, loader)
        [[pass||scheduler.step()]]
"""),
    'global one-cycle per epoch': ('LRD003', """
optimizer = None
scheduler = None

def init(model, loader, epochs):
    global optimizer, scheduler
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = OneCycleLR(optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))

def main(model, loader, epochs=10):
    init(model, loader, epochs)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            [[pass||scheduler.step()]]
        [[scheduler.step()||pass]]
"""),
    'global scaler, optimizer stepped directly': ('LRD109', """
scaler = None

def init():
    global scaler
    scaler = torch.amp.GradScaler("cuda")

def main(model, loader):
    init()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        [[opt.step()||scaler.step(opt)]]
        scaler.update()
"""),
    'global set in a method': ('LRD002', """
SCHED = None

class Setup:
    def build(self, opt):
        global SCHED
        SCHED = CosineAnnealingLR(opt, T_max=90)

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Setup().build(opt)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[SCHED.step()||pass]]
        [[pass||SCHED.step()]]
"""),
    'nonlocal in a factory': ('LRD002', """
def make_trainer(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = None
    def setup():
        nonlocal sched
        sched = StepLR(opt, step_size=30)
    def run(loader):
        setup()
        for epoch in range(90):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                [[sched.step()||pass]]
            [[pass||sched.step()]]
    return run

def main(model, loader):
    make_trainer(model)(loader)
"""),
}


@pytest.mark.parametrize("name", list(GLOBALS))
def test_a_name_declared_global_or_nonlocal_is_the_outer_scope_s(name: str) -> None:
    assert_twins(*GLOBALS[name])


GUARD = """
scheduler = None

def init(opt):
    global scheduler
    scheduler = StepLR(opt, step_size=30)

def probe(opt, loader):
    scheduler = OneCycleLR(opt, max_lr=0.1, total_steps=len(loader))
    return scheduler.get_last_lr()

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    init(opt)
    probe(opt, loader)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        scheduler.step()
"""


def test_a_function_without_the_declaration_binds_its_own_name() -> None:
    # `probe` binds a local `scheduler`: the module's stays the StepLR stepped per epoch (were
    # the one-cycle taken for it, LRD003 would be reported)
    assert findings(HEAD + GUARD) == []


def test_a_nested_function_s_declaration_is_its_own() -> None:
    # `global scheduler` in `inner` only: `init`'s own `scheduler = ...` is a local, so the
    # module's scheduler is the StepLR bound at the top and stepped per epoch
    program = """
opt0 = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
scheduler = StepLR(opt0, step_size=30)

def init(loader):
    def inner():
        global scheduler
        return scheduler
    scheduler = OneCycleLR(opt0, max_lr=0.1, total_steps=len(loader))
    return inner, scheduler

def main(loader):
    init(loader)
    for epoch in range(90):
        for x in loader:
            opt0.zero_grad()
            x.sum().backward()
            opt0.step()
        scheduler.step()
"""
    assert findings(HEAD + program) == []


# -- a context manager of the project: `__enter__` on entry (`as` binds its return), `__exit__`
#    after the block ---------------------------------------------------------------------------

MANAGERS = {
    'enter returns the optimizer': ('LRD001', """
class Opt:
    def __init__(self, opt):
        self.opt = opt
    def __enter__(self):
        self.opt.zero_grad()
        return self.opt
    def __exit__(self, *exc):
        return False

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=len(loader))
    for x, y in loader:
        with Opt(opt) as o:
            torch.nn.functional.mse_loss(model(x), y).backward()
            [[sched.step()
            o.step()||o.step()
            sched.step()]]
"""),
    'as binds what enter returns': ('LRD003', """
class Scheduled:
    def __init__(self, sched):
        self.sched = sched
    def __enter__(self):
        return self.sched
    def __exit__(self, *exc):
        return False

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with Scheduled(OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))) as sched:
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                [[pass||sched.step()]]
            [[sched.step()||pass]]
"""),
    'exit steps the scheduler': ('LRD002', """
class StepOnExit:
    def __init__(self, opt, sched):
        self.opt, self.sched = opt, sched
    def __enter__(self):
        self.opt.zero_grad()
        return self
    def __exit__(self, *exc):
        self.opt.step()
        [[self.sched.step()||pass]]
        return False

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            with StepOnExit(opt, sched):
                torch.nn.functional.mse_loss(model(x), y).backward()
        [[pass||sched.step()]]
"""),
    'exit steps one-cycle per epoch': ('LRD003', """
class Epoch:
    def __init__(self, sched):
        self.sched = sched
    def __enter__(self):
        return self
    def __exit__(self, exc_type, exc, tb):
        [[self.sched.step()||pass]]

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        with Epoch(sched):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                [[pass||sched.step()]]
"""),
}


@pytest.mark.parametrize("name", list(MANAGERS))
def test_a_project_context_manager_runs_its_enter_and_exit(name: str) -> None:
    assert_twins(*MANAGERS[name])


def test_a_library_context_manager_is_bound_as_before() -> None:
    # `torch.autocast` has no `__enter__` in the project: the block runs as written and the
    # scheduler stepped per batch inside it is still reported
    program = """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            with torch.autocast("cuda", dtype=torch.bfloat16) as ctx:
                loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
"""
    assert [c for c, _ in findings(HEAD + program)] == ["LRD002"]


# -- layouts that already held ----------------------------------------------------------------

HELD = {
    'mixins': ('LRD002', """
class LoopMixin:
    def train_epoch(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
            [[self.after_batch()||pass]]
        [[pass||self.after_batch()]]

class SchedMixin:
    def build_sched(self):
        self.scheduler = StepLR(self.optimizer, step_size=30)
    def after_batch(self):
        self.scheduler.step()

class Trainer(LoopMixin, SchedMixin):
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.build_sched()
    def fit(self, loader):
        for epoch in range(90):
            self.train_epoch(loader)
"""),
    'callback object': ('LRD002', """
class Callbacks:
    def __init__(self, scheduler):
        self.scheduler = scheduler
    def on_batch_end(self, step):
        [[self.scheduler.step()||pass]]
    def on_epoch_end(self, epoch):
        [[pass||self.scheduler.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cbs = Callbacks(CosineAnnealingLR(opt, T_max=90))
    for epoch in range(90):
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            cbs.on_batch_end(i)
        cbs.on_epoch_end(epoch)
"""),
    'callbacks on self': ('LRD003', """
class SchedHook:
    def __init__(self, sched):
        self.sched = sched
    def on_batch_end(self):
        [[pass||self.sched.step()]]
    def on_epoch_end(self):
        [[self.sched.step()||pass]]

class Trainer:
    def __init__(self, model, loader, epochs=10):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.callbacks = SchedHook(OneCycleLR(self.opt, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(loader)))
        self.loader = loader
        self.epochs = epochs
    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                self.callbacks.on_batch_end()
            self.callbacks.on_epoch_end()
"""),
    'user context manager': ('LRD002', """
class Timer:
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, milestones=[30, 60])
    for epoch in range(90):
        for x, y in loader:
            with Timer() as t:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'context manager swallowing exceptions wraps step': ('LRD002', """
class Guard:
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return True

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            with Guard():
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'generator yields after step': ('LRD002', """
def train_steps(model, opt, loader):
    for x, y in loader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        yield loss.item()

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for loss in train_steps(model, opt, loader):
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'args kwargs two levels': ('LRD002', """
def do_step(opt, sched, *args, **kwargs):
    opt.step()
    [[sched.step()||pass]]

def train_batch(*args, **kwargs):
    do_step(*args, **kwargs)

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            train_batch(opt, sched, x, verbose=False)
        [[pass||sched.step()]]
"""),
    'kwargs forwarding by keyword': ('LRD002', """
def do_step(optimizer=None, scheduler=None, **rest):
    optimizer.step()
    [[scheduler.step()||pass]]

def train_batch(**kwargs):
    return do_step(**kwargs)

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            train_batch(optimizer=opt, scheduler=sched)
        [[pass||sched.step()]]
"""),
    'SimpleNamespace config interval': ('LRD002', """
cfg = SimpleNamespace(step_size=30, interval=[["step"||"epoch"]])

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=cfg.step_size)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            if cfg.interval == "step":
                sched.step()
        if cfg.interval == "epoch":
            sched.step()
"""),
    'argparse Namespace by hand': ('LRD002', """
args = argparse.Namespace(lr=0.1, per_batch=[[True||False]])

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    sched = CosineAnnealingLR(opt, T_max=90)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            if args.per_batch:
                sched.step()
        if not args.per_batch:
            sched.step()
"""),
    'loop in __call__': ('LRD002', """
class Fit:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = StepLR(self.opt, step_size=30)
    def __call__(self, loader, epochs=90):
        for epoch in range(epochs):
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                [[self.sched.step()||pass]]
            [[pass||self.sched.step()]]

def main(model, loader):
    fit = Fit(model)
    fit(loader)
"""),
    'step in __call__ of a stepper': ('LRD002', """
class Stepper:
    def __init__(self, opt, sched):
        self.opt, self.sched = opt, sched
    def __call__(self, loss):
        loss.backward()
        self.opt.step()
        [[self.sched.step()||pass]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    step = Stepper(opt, sched)
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            step(torch.nn.functional.mse_loss(model(x), y))
        [[pass||sched.step()]]
"""),
    'itertools.count with break': ('LRD002', """
def main(model, loader, max_epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in itertools.count():
        if epoch >= max_epochs:
            break
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'itertools.count onecycle per epoch': ('LRD003', """
def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in itertools.count(1):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
        if epoch == epochs:
            break
"""),
    'enumerate start=1 accum': ('LRD017', """
def main(model, loader, accum=4, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader) // accum)
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader, start=1):
            (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
            if step % accum == 0:
                opt.step()
                opt.zero_grad()
                [[pass||sched.step()]]
            [[sched.step()||pass]]
"""),
    'while True epoch loop with break': ('LRD002', """
def main(model, loader, max_epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    epoch = 0
    while True:
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
        epoch += 1
        if epoch >= max_epochs:
            break
"""),
    'scheduler before optimizer in mixin': ('LRD001', """
class StepMixin:
    def update(self):
        [[self.sched.step()
        self.opt.step()||self.opt.step()
        self.sched.step()]]

class Trainer(StepMixin):
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = OneCycleLR(self.opt, max_lr=0.1, total_steps=1000)
    def fit(self, loader):
        for x, y in loader:
            self.opt.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.update()
"""),
    'plateau without metric via callback': ('LRD004', """
class EpochEnd:
    def __init__(self, sched):
        self.sched = sched
    def on_epoch_end(self, val_loss):
        [[self.sched.step()||self.sched.step(val_loss)]]

def main(model, loader, val):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cb = EpochEnd(ReduceLROnPlateau(opt, patience=5))
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        cb.on_epoch_end(sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val))
"""),
    'mixin clip before unscale': ('LRD108', """
class AmpMixin:
    def backward_step(self, loss):
        self.scaler.scale(loss).backward()
        [[pass||self.scaler.unscale_(self.opt)]]
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.opt)
        self.scaler.update()

class Trainer(AmpMixin):
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scaler = torch.amp.GradScaler("cuda")
    def fit(self, loader):
        for x, y in loader:
            self.opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.backward_step(loss)
"""),
    'SimpleNamespace holding objects': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    st = SimpleNamespace(opt=opt, sched=StepLR(opt, step_size=30))
    for epoch in range(90):
        for x, y in loader:
            st.opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            st.opt.step()
            [[st.sched.step()||pass]]
        [[pass||st.sched.step()]]
"""),
    'checkpoint in mixin missing scheduler': ('LRD007', """
class CkptMixin:
    def save(self, path):
        torch.save({"model": self.model.state_dict(), "optimizer": self.opt.state_dict()[[||,
                    "scheduler": self.sched.state_dict()]]}, path)

class Trainer(CkptMixin):
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = StepLR(self.opt, step_size=30)
    def fit(self, loader):
        for epoch in range(90):
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            self.sched.step()
            self.save("ckpt.pt")
"""),
    'manual lr in callback': ('LRD008', """
class Warmup:
    def __init__(self, opt):
        self.opt = opt
    def on_batch_end(self, step):
        [[for g in self.opt.param_groups:
            g["lr"] = 0.1 * min(1.0, step / 100)||pass]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    cb = Warmup(opt)
    for epoch in range(90):
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            cb.on_batch_end(i)
        sched.step()
"""),
    'generator yields then caller steps onecycle per batch': ('LRD003', """
def batches(loader, model, opt):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        yield

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        for _ in batches(loader, model, opt):
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    'callback reads trainer.scheduler': ('LRD002', """
class LRCallback:
    def on_batch_end(self, trainer):
        [[trainer.scheduler.step()||pass]]
    def on_epoch_end(self, trainer):
        [[pass||trainer.scheduler.step()]]

class Trainer:
    def __init__(self, model, callbacks):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=30)
        self.callbacks = callbacks
    def fit(self, loader):
        for epoch in range(90):
            for x, y in loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                for cb in self.callbacks:
                    cb.on_batch_end(self)
            for cb in self.callbacks:
                cb.on_epoch_end(self)

def main(model, loader):
    Trainer(model, [LRCallback()]).fit(loader)
"""),
    'self(loader) calls __call__': ('LRD003', """
class Runner:
    def __init__(self, model, loader, epochs=10):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = OneCycleLR(self.opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
        self.epochs = epochs
    def __call__(self, loader):
        for x, y in loader:
            self.opt.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.opt.step()
            [[pass||self.sched.step()]]
    def fit(self, loader):
        for epoch in range(self.epochs):
            self(loader)
            [[self.sched.step()||pass]]
"""),
    'kwargs dict splat two levels': ('LRD003', """
def update(optimizer, scheduler, per_batch):
    optimizer.step()
    if per_batch:
        scheduler.step()

def step(**kw):
    update(**kw)

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    parts = dict(optimizer=opt, scheduler=sched)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            step(per_batch=[[False||True]], **parts)
        [[sched.step()||pass]]
"""),
    'enumerate(loader, 1) positional accum': ('LRD017', """
def main(model, loader, accum=8):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = OneCycleLR(opt, max_lr=1e-3, total_steps=len(loader) // accum)
    for i, (x, y) in enumerate(loader, 1):
        (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
        [[sched.step()||pass]]
        if i % accum == 0:
            opt.step()
            opt.zero_grad()
            [[pass||sched.step()]]
"""),
    'generator method of a trainer': ('LRD002', """
class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = MultiStepLR(self.opt, milestones=[30, 60])
    def steps(self, loader):
        for x, y in loader:
            self.opt.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.opt.step()
            yield loss
    def fit(self, loader):
        for epoch in range(90):
            for loss in self.steps(loader):
                [[self.sched.step()||pass]]
            [[pass||self.sched.step()]]
"""),
}


@pytest.mark.parametrize("name", list(HELD))
def test_layouts_that_already_held_keep_holding(name: str) -> None:
    assert_twins(*HELD[name])
