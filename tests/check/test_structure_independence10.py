"""The model of the program holds when the code is laid out as real projects lay it out, round
13 (meta13): ``setattr(obj, "name", value)`` with a literal name, which stores ``obj.name``
as the assignment does; a gradient-accumulation boundary kept in a name (``sync = (i + 1) %
accum == 0`` then ``if sync:``), read through the name; a plain function decorated by the
project's own decorators (``@scheduled(sched)``, stacked ones, a module-level wrapper), whose
wrapper runs where the function is called; and the layouts that already held, kept here so
that they keep holding: epochs drawn from a generator of the project, a ``functools.partial``
of the train step, a builder's tuple indexed or unpacked, ``itertools.islice(loader, n)``,
``zip`` of two loaders, ``while True`` over ``next(it)`` ending on ``StopIteration``, a
``functools.wraps`` decorator, phase methods through a dict of callables, ``torch.autocast``
or ``contextlib.nullcontext()`` chosen by a flag, a ``match`` on the batch, a stepping lambda,
callbacks with a no-op base, ``try``/``finally`` around the epoch, ``enumerate(..., start=1)``,
a mixin that builds the scheduler, checkpoints saved in ``finally``, by a callback, by a
decorated helper, grown by ``dict.update``, and Adam built by a ``functools.partial`` or in a
``match``.

Two pairs stay wrong (``xfail(strict=True)``, the reasons at each): a generator that steps the
scheduler before it yields each epoch, and Adam picked from a dict of classes by a key not
known here.

Each program is written once with its two twins inline, ``[[wrong||right]]``: the wrong twin
must be reported with the pair's code, the right twin must give no finding at all."""

from __future__ import annotations

import re

import pytest

from .helpers import findings

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


# -- setattr(obj, "name", value): the store obj.name = value -----------------------------------

SETATTR = {
    'setattr of the scheduler': ('LRD002', """
class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        setattr(self, "scheduler", StepLR(self.opt, step_size=30))
    def fit(self, loader):
        for epoch in range(90):
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                [[self.scheduler.step()||pass]]
            [[pass||self.scheduler.step()]]
"""),
    'setattr of optimizer and one-cycle': ('LRD003', """
class Trainer:
    def __init__(self, model, loader, epochs=10):
        self.model, self.loader, self.epochs = model, loader, epochs
        setattr(self, "optimizer", torch.optim.SGD(model.parameters(), lr=0.1))
        setattr(self, "scheduler", OneCycleLR(self.optimizer, max_lr=0.1, epochs=epochs,
                                              steps_per_epoch=len(loader)))
    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[pass||self.scheduler.step()]]
            [[self.scheduler.step()||pass]]
"""),
    'setattr on a state object handed to a loop': ('LRD002', """
class State:
    pass

def build(model):
    state = State()
    setattr(state, "opt", torch.optim.SGD(model.parameters(), lr=0.1))
    setattr(state, "sched", MultiStepLR(state.opt, milestones=[30, 60]))
    return state

def main(model, loader):
    state = build(model)
    for epoch in range(90):
        for x, y in loader:
            state.opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            state.opt.step()
            [[state.sched.step()||pass]]
        [[pass||state.sched.step()]]
"""),
}


@pytest.mark.parametrize("name", list(SETATTR))
def test_setattr_with_a_literal_name_stores_the_attribute(name: str) -> None:
    assert_twins(*SETATTR[name])


def test_setattr_with_a_computed_name_stores_nothing_known() -> None:
    # the attribute `setattr(self, kind, ...)` stores is not known here: `self.scheduler`
    # stays the one-cycle stored by name, stepped per batch as it should be
    program = """
class Trainer:
    def __init__(self, model, loader, kind, epochs=10):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = OneCycleLR(self.opt, max_lr=0.1, total_steps=epochs * len(loader))
        setattr(self, kind, StepLR(self.opt, step_size=30))
    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                self.scheduler.step()
"""
    assert findings(HEAD + program) == []


def test_a_setattr_of_the_project_is_not_python_s() -> None:
    # the module's own `setattr` stores nothing: `self.scheduler` is known by its name only
    # (no horizon), so stepping it per batch is not judged
    program = """
def setattr(obj, name, value):
    print("ignored", name)

class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        setattr(self, "scheduler", StepLR(self.opt, step_size=30))
    def fit(self, loader):
        for epoch in range(90):
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                self.scheduler.step()
"""
    assert findings(HEAD + program) == []


# -- an accumulation boundary kept in a name ---------------------------------------------------

NAMED = {
    'accumulation, boundary held in a name': ('LRD017', """
def main(model, loader, accum=4, epochs=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = OneCycleLR(opt, max_lr=1e-3, total_steps=epochs * len(loader) // accum)
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
            sync = (i + 1) % accum == 0
            if sync:
                opt.step()
                opt.zero_grad()
                [[pass||sched.step()]]
            [[sched.step()||pass]]
"""),
    'accumulation, boundary in a name, stepped before it': ('LRD017', """
def main(model, loader, grad_steps=4, epochs=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LinearLR(opt, 1.0, 0.01, total_iters=epochs * len(loader) // grad_steps)
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader):
            (torch.nn.functional.mse_loss(model(x), y) / grad_steps).backward()
            [[sched.step()||pass]]
            boundary = (step + 1) % grad_steps == 0 or step + 1 == len(loader)
            if boundary:
                opt.step()
                opt.zero_grad()
                [[pass||sched.step()]]
"""),
    'accumulation, boundary in a name of a trainer': ('LRD017', """
class Trainer:
    def __init__(self, model, loader, accumulate=8, epochs=3):
        self.model, self.loader, self.k, self.epochs = model, loader, accumulate, epochs
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.sched = OneCycleLR(self.opt, max_lr=1e-3,
                                total_steps=epochs * len(loader) // accumulate)
    def fit(self):
        for epoch in range(self.epochs):
            for i, (x, y) in enumerate(self.loader):
                (torch.nn.functional.mse_loss(self.model(x), y) / self.k).backward()
                ready = (i + 1) % self.k == 0
                if ready:
                    self.opt.step()
                    self.opt.zero_grad()
                    [[pass||self.sched.step()]]
                [[self.sched.step()||pass]]
"""),
}


@pytest.mark.parametrize("name", list(NAMED))
def test_an_accumulation_boundary_reads_the_same_through_a_name(name: str) -> None:
    assert_twins(*NAMED[name])


def test_a_name_for_a_logging_period_is_no_accumulation() -> None:
    # the optimizer and the scheduler both step on every batch; the name holds when to log
    program = """
def main(model, loader, epochs=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = OneCycleLR(opt, max_lr=1e-3, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            sched.step()
            log_now = (i + 1) % 100 == 0
            if log_now:
                print(i, float(loss))
"""
    assert findings(HEAD + program) == []


# -- a function decorated by the project's own decorators --------------------------------------

DECO = {
    'top-of-epoch step through a decorator': ('LRD001', """
def scheduled(sched):
    def wrap(fn):
        def run(*args):
            [[sched.step()||pass]]
            out = fn(*args)
            [[pass||sched.step()]]
            return out
        return run
    return wrap

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)

    @scheduled(sched)
    def train_epoch():
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()

    for epoch in range(90):
        train_epoch()
"""),
    'decorator steps after every call of the batch step': ('LRD002', """
def stepping(sched):
    def decorate(fn):
        def wrapper(*args, **kwargs):
            out = fn(*args, **kwargs)
            sched.step()
            return out
        return wrapper
    return decorate

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)

    @stepping(sched)
    def [[train_step(x, y):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()||train_epoch():
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()]]

    for epoch in range(90):
        [[for x, y in loader:
            train_step(x, y)||train_epoch()]]
"""),
    'stacked decorators, the outer one steps first': ('LRD001', """
def logged(fn):
    def inner(*args):
        print("start")
        return fn(*args)
    return inner

def with_schedule(sched):
    def decorate(fn):
        def run(*args):
            [[sched.step()||pass]]
            result = fn(*args)
            [[pass||sched.step()]]
            return result
        return run
    return decorate

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, milestones=[30, 60])

    @with_schedule(sched)
    @logged
    def train_epoch():
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()

    for epoch in range(90):
        train_epoch()
"""),
    'decorator around the AMP step steps the schedule': ('LRD005', """
def then_step(sched, scaler):
    def decorate(fn):
        def wrapper(*args):
            scale = scaler.get_scale()
            fn(*args)
            [[sched.step()||if scaler.get_scale() >= scale:
                sched.step()]]
        return wrapper
    return decorate

def main(model, loader, epochs=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda")

    @then_step(sched, scaler)
    def amp_step(x, y):
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    for epoch in range(epochs):
        for x, y in loader:
            amp_step(x, y)
"""),
    'module-level decorator with a module scheduler': ('LRD003', """
model = torch.nn.Linear(8, 1)
loader = [(torch.randn(4, 8), torch.randn(4, 1))] * 10
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = OneCycleLR(opt, max_lr=0.1, total_steps=10 * len(loader))

def per_call_schedule(fn):
    def wrapper(*args):
        fn(*args)
        sched.step()
    return wrapper

@per_call_schedule
def [[train_epoch():
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()||train_step(x, y):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()]]

for epoch in range(10):
    [[train_epoch()||for x, y in loader:
        train_step(x, y)]]
"""),
}


@pytest.mark.parametrize("name", list(DECO))
def test_a_project_decorator_s_wrapper_runs_where_the_function_is_called(name: str) -> None:
    assert_twins(*DECO[name])


def test_a_wrapper_that_calls_the_function_on_one_process_keeps_its_steps() -> None:
    # `@main_process_only`: the wrapper calls the function under a test; the right program
    # (one-cycle stepped per batch inside it) stays silent, as it is without the decorator
    program = """
RANK = 0

def main_process_only(fn):
    def wrapper(*args, **kwargs):
        if RANK == 0:
            return fn(*args, **kwargs)
        return None
    return wrapper

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))

    @main_process_only
    def train_epoch():
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()

    for epoch in range(epochs):
        train_epoch()
"""
    assert findings(HEAD + program) == []


def test_a_decorated_method_is_called_as_written() -> None:
    # methods are left as they were (the wrapper would take `self` among its arguments): the
    # body of the method is what runs, and its per-batch StepLR is reported as before
    program = """
def logged(fn):
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__)
        return fn(*args, **kwargs)
    return wrapper

class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = StepLR(self.opt, step_size=30)
    @logged
    def train_epoch(self, loader):
        for x, y in loader:
            self.opt.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.opt.step()
            self.sched.step()
    def fit(self, loader):
        for epoch in range(90):
            self.train_epoch(loader)
"""
    assert "LRD002" in {c for c, _ in findings(HEAD + program)}


# -- left wrong ----------------------------------------------------------------------------------

XFAIL = {
    'top-of-epoch step, epochs from a generator that steps before yielding': ('LRD001', """
def epochs_with_schedule(sched, n):
    for e in range(n):
        [[sched.step()||pass]]
        yield e
        [[pass||sched.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in epochs_with_schedule(sched, 90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
"""),
    'fp16 adam picked from a dict of classes': ('LRD102', """
OPTIMIZERS = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}

def main(model, loader, name="adam"):
    model = model.to(torch.float16)
    opt = OPTIMIZERS[name](model.parameters(), lr=1e-3[[||, eps=1e-4]])
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        opt.step()
"""),
}


_XFAIL_REASONS = {
    'top-of-epoch step, epochs from a generator that steps before yielding': (
        "a generator of the project is traced once, where it is called, not interleaved with "
        "the body of the loop over it at each `yield`: its step is seen in its own loop, before "
        "the consumer's; running the consumer's body at each yield changes how every project "
        "generator is traced (the loader generators of meta11/meta12 among them)"),
    'fp16 adam picked from a dict of classes': (
        "`OPTIMIZERS[name]` with a key not known here is left unknown on purpose (trace.py: a "
        "key not known picks one entry, never all of them); taking every value as a choice, as "
        "an `if`/`elif` on an unknown setting is, would report registries whose Adam entry the "
        "program never picks"),
}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_XFAIL_REASONS[n]))
    for n in XFAIL
])
def test_layouts_left_wrong(name: str) -> None:
    assert_twins(*XFAIL[name])


# -- layouts that already held ---------------------------------------------------------------

HELD = {
    'epochs from a generator of the project': ('LRD002', """
def epoch_range(n):
    for e in range(n):
        yield e

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in epoch_range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'partial of the train step holding the scheduler': ('LRD002', """
def train_step(model, x, y, opt, sched):
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    [[sched.step()||pass]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=90)
    step = functools.partial(train_step, model, opt=opt, sched=sched)
    for epoch in range(90):
        for x, y in loader:
            step(x, y)
        [[pass||sched.step()]]
"""),
    'builder tuple indexed': ('LRD002', """
def build(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    return opt, MultiStepLR(opt, milestones=[30, 60])

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
    'islice of the loader': ('LRD002', """
def main(model, loader, steps=100):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        for x, y in itertools.islice(loader, steps):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'zip of two loaders': ('LRD002', """
def main(model, labelled_loader, unlabelled_loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=90)
    for epoch in range(90):
        for (x, y), u in zip(labelled_loader, unlabelled_loader):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y) + model(u).pow(2).mean()
            loss.backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'while True over next() with StopIteration': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, milestones=[30, 60])
    for epoch in range(90):
        it = iter(loader)
        while True:
            try:
                x, y = next(it)
            except StopIteration:
                break
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'decorated train function': ('LRD002', """
def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper

@timed
def train_epoch(model, loader, opt, sched):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[sched.step()||pass]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        train_epoch(model, loader, opt, sched)
        [[pass||sched.step()]]
"""),
    'method through a dict of callables': ('LRD002', """
class Trainer:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = StepLR(self.opt, step_size=30)
    def train_epoch(self):
        for x, y in self.loader:
            self.opt.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.opt.step()
            [[self.sched.step()||pass]]
    @torch.no_grad()
    def val_epoch(self):
        for x, y in self.loader:
            self.model(x)
    def fit(self):
        for epoch in range(90):
            for phase in ("train", "val"):
                {"train": self.train_epoch, "val": self.val_epoch}[phase]()
            [[pass||self.sched.step()]]
"""),
    'autocast or nullcontext instance by a flag': ('LRD002', """
def main(model, loader, amp=False):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    ctx = torch.autocast("cuda", dtype=torch.bfloat16) if amp else contextlib.nullcontext()
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            with ctx:
                loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'match on a mapping batch': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, milestones=[30, 60])
    for epoch in range(90):
        for batch in loader:
            match batch:
                case {"input": x, "target": y}:
                    pass
                case (x, y):
                    pass
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    'lambda closure that steps': ('LRD002', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = CosineAnnealingLR(opt, T_max=90)
    advance = lambda: sched.step()
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[advance()||pass]]
        [[pass||advance()]]
"""),
    'callbacks with a no-op base': ('LRD002', """
class Callback:
    def on_batch_end(self):
        pass
    def on_epoch_end(self):
        pass

class Printer(Callback):
    def on_epoch_end(self):
        print("epoch done")

class Scheduling(Callback):
    def __init__(self, sched):
        self.sched = sched
    def [[on_batch_end||on_epoch_end]](self):
        self.sched.step()

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    callbacks = [Printer(), Scheduling(StepLR(opt, step_size=30))]
    for epoch in range(90):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            for cb in callbacks:
                cb.on_batch_end()
        for cb in callbacks:
            cb.on_epoch_end()
"""),
    'one-cycle per epoch, epochs from a generator': ('LRD003', """
def epochs_of(n):
    yield from range(n)

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in epochs_of(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    'one-cycle per epoch, while True and StopIteration': ('LRD003', """
def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
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
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    'one-cycle per epoch, builder tuple unpacked in a loop header': ('LRD003', """
def build(model, steps):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = OneCycleLR(opt, max_lr=1e-3, total_steps=steps)
    return opt, sched

def main(model, loader, epochs=10):
    opt, sched = build(model, epochs * len(loader))
    for epoch in range(epochs):
        for step, (x, y) in enumerate(loader, start=1):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    'one-cycle per epoch, step in try/finally': ('LRD003', """
def train_epoch(model, loader, opt, sched):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[pass||sched.step()]]

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        try:
            train_epoch(model, loader, opt, sched)
        finally:
            [[sched.step()||print("epoch", epoch)]]
"""),
    'one-cycle per epoch, mixin configures the scheduler': ('LRD003', """
class SchedulerMixin:
    def configure_scheduler(self, opt, total):
        return OneCycleLR(opt, max_lr=0.1, total_steps=total)

class Trainer(SchedulerMixin):
    def __init__(self, model, loader, epochs=10):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = self.configure_scheduler(self.opt, epochs * len(loader))
    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
                [[pass||self.sched.step()]]
            [[self.sched.step()||pass]]
"""),
    'one-cycle per epoch, phase handlers in a dict': ('LRD003', """
class Trainer:
    def __init__(self, model, loader, epochs=10):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = OneCycleLR(self.opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
        self.handlers = {"train": self.train_epoch, "eval": self.evaluate}
    def train_epoch(self):
        for x, y in self.loader:
            self.opt.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.opt.step()
            [[pass||self.sched.step()]]
    @torch.no_grad()
    def evaluate(self):
        return sum(float(self.model(x).mean()) for x, _ in self.loader)
    def fit(self):
        for epoch in range(self.epochs):
            self.handlers["train"]()
            self.handlers["eval"]()
            [[self.sched.step()||pass]]
"""),
    'top-of-epoch step in on_epoch_start callbacks': ('LRD001', """
class SchedulerCallback:
    def __init__(self, sched):
        self.sched = sched
    def on_epoch_start(self):
        [[self.sched.step()||pass]]
    def on_epoch_end(self):
        [[pass||self.sched.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    callbacks = [SchedulerCallback(MultiStepLR(opt, milestones=[30, 60]))]
    for epoch in range(90):
        for cb in callbacks:
            cb.on_epoch_start()
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        for cb in callbacks:
            cb.on_epoch_end()
"""),
    'top-of-epoch step, the epoch in try/finally': ('LRD001', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(90):
        [[sched.step()||pass]]
        try:
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
        finally:
            [[print("epoch", epoch)||sched.step()]]
"""),
    'top-of-epoch step in a method through a dict of callables': ('LRD001', """
class Trainer:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = StepLR(self.opt, step_size=30)
    def begin(self):
        [[self.sched.step()||pass]]
    def train(self):
        for x, y in self.loader:
            self.opt.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.opt.step()
    def end(self):
        [[pass||self.sched.step()]]
    def fit(self):
        hooks = {"begin": self.begin, "train": self.train, "end": self.end}
        for epoch in range(90):
            for phase in ("begin", "train", "end"):
                hooks[phase]()
"""),
    'skipped update, autocast instance chosen by a flag': ('LRD005', """
def main(model, loader, epochs=3, amp=True):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            with (torch.autocast("cuda", dtype=torch.float16) if amp else contextlib.nullcontext()):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scale = scaler.get_scale()
            scaler.step(opt)
            scaler.update()
            [[sched.step()||if scaler.get_scale() >= scale:
                sched.step()]]
"""),
    'skipped update, partial of the AMP step': ('LRD005', """
def amp_step(model, scaler, opt, sched, x, y):
    opt.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scale = scaler.get_scale()
    scaler.step(opt)
    scaler.update()
    [[sched.step()||if scaler.get_scale() >= scale:
        sched.step()]]

def main(model, loader, epochs=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    step = functools.partial(amp_step, model, torch.amp.GradScaler("cuda"), opt, sched)
    for epoch in range(epochs):
        for x, y in loader:
            step(x, y)
"""),
    'skipped update, callbacks after the update': ('LRD005', """
class LRCallback:
    def __init__(self, sched, scaler):
        self.sched, self.scaler = sched, scaler
        self.scale = None
    def on_before_step(self):
        self.scale = self.scaler.get_scale()
    def on_batch_end(self):
        [[self.sched.step()||if self.scaler.get_scale() >= self.scale:
            self.sched.step()]]

def main(model, loader, epochs=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    callbacks = [LRCallback(OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader)), scaler)]
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            for cb in callbacks:
                cb.on_before_step()
            scaler.step(opt)
            scaler.update()
            for cb in callbacks:
                cb.on_batch_end()
"""),
    'skipped update, zip of two loaders': ('LRD005', """
def main(model, loader_a, loader_b, epochs=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LinearLR(opt, 1.0, 0.01, total_iters=epochs * len(loader_a))
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for (xa, ya), (xb, yb) in zip(loader_a, loader_b):
            opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = (torch.nn.functional.mse_loss(model(xa), ya)
                        + torch.nn.functional.mse_loss(model(xb), yb))
            scaler.scale(loss).backward()
            scale = scaler.get_scale()
            scaler.step(opt)
            scaler.update()
            [[sched.step()||if scaler.get_scale() >= scale:
                sched.step()]]
"""),
    'skipped update, method through a dict by mode': ('LRD005', """
class Trainer:
    def __init__(self, model, loader, epochs=3):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = OneCycleLR(self.opt, max_lr=0.1, total_steps=epochs * len(loader))
        self.scaler = torch.amp.GradScaler("cuda")
    def amp_update(self, x, y):
        self.opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(self.model(x), y)
        self.scaler.scale(loss).backward()
        scale = self.scaler.get_scale()
        self.scaler.step(self.opt)
        self.scaler.update()
        [[self.sched.step()||if self.scaler.get_scale() >= scale:
            self.sched.step()]]
    def fit(self, mode="amp"):
        update = {"amp": self.amp_update}[mode]
        for epoch in range(self.epochs):
            for x, y in self.loader:
                update(x, y)
"""),
    'epoch argument through a lambda': ('LRD006', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, milestones=[3, 6])
    advance = lambda e: sched.step([[e||]])
    for epoch in range(8):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        advance(epoch)
"""),
    'epoch argument from a callback': ('LRD006', """
class SchedulerCallback:
    def __init__(self, sched):
        self.sched = sched
    def on_epoch_end(self, epoch):
        self.sched.step([[epoch||]])

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    callbacks = [SchedulerCallback(StepLR(opt, step_size=3))]
    for epoch in range(8):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        for cb in callbacks:
            cb.on_epoch_end(epoch)
"""),
    'epoch argument, epochs from enumerate start=1': ('LRD006', """
def main(model, loader, epochs=8):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=3)
    for epoch, _ in enumerate(range(epochs), start=1):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step([[epoch||]])
"""),
    'epoch argument in a finally block': ('LRD006', """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = MultiStepLR(opt, milestones=[3, 6])
    for epoch in range(8):
        try:
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
        finally:
            sched.step([[epoch||]])
"""),
    'checkpoint in a finally block': ('LRD007', """
def main(model, loader, epochs=20):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        try:
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
            sched.step()
        finally:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        [["epoch": epoch||"scheduler": sched.state_dict(),
                        "epoch": epoch]]}, "last.pt")
"""),
    'checkpoint from a callback in a list': ('LRD007', """
class Checkpoint:
    def on_epoch_end(self, trainer, epoch):
        torch.save({"model": trainer.model.state_dict(),
                    "optimizer": trainer.opt.state_dict(),
                    [["epoch": epoch||"scheduler": trainer.sched.state_dict(),
                    "epoch": epoch]]}, "last.pt")

class Trainer:
    def __init__(self, model, loader, epochs=20):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.sched = CosineAnnealingLR(self.opt, T_max=epochs)
        self.callbacks = [Checkpoint()]
    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            self.sched.step()
            for cb in self.callbacks:
                cb.on_epoch_end(self, epoch)
"""),
    'checkpoint by a decorated save helper': ('LRD007', """
def on_main_process(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper

@on_main_process
def save(path, **parts):
    torch.save({k: v.state_dict() for k, v in parts.items()}, path)

def main(model, loader, epochs=20):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        save("last.pt", model=model, optimizer=opt[[||, scheduler=sched]])
"""),
    'checkpoint dict grown by update()': ('LRD007', """
def main(model, loader, epochs=20):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = CosineAnnealingLR(opt, T_max=epochs)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        state = {"model": model.state_dict(), "epoch": epoch}
        state.update(optimizer=opt.state_dict()[[||, scheduler=sched.state_dict()]])
        torch.save(state, "last.pt")
"""),
    'checkpoint of a trainer with setattr': ('LRD007', """
class Trainer:
    def __init__(self, model, epochs=20):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        setattr(self, "sched", CosineAnnealingLR(self.opt, T_max=epochs))
        self.epochs = epochs
    def save(self, path):
        torch.save({"model": self.model.state_dict(), "optimizer": self.opt.state_dict()[[||,
                    "scheduler": self.sched.state_dict()]]}, path)
    def fit(self, loader):
        for epoch in range(self.epochs):
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            self.sched.step()
            self.save("last.pt")
"""),
    'accumulation, islice of the loader': ('LRD017', """
def main(model, loader, accum=4, steps=1000):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LinearLR(opt, 1.0, 0.01, total_iters=steps // accum)
    for i, (x, y) in enumerate(itertools.islice(loader, steps)):
        (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    'accumulation, while True with StopIteration and a counter': ('LRD017', """
def main(model, loader, accum=4, epochs=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LinearLR(opt, 1.0, 0.01, total_iters=epochs * len(loader) // accum)
    for epoch in range(epochs):
        it = iter(loader)
        i = 0
        while True:
            try:
                x, y = next(it)
            except StopIteration:
                break
            i += 1
            (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
            if i % accum == 0:
                opt.step()
                opt.zero_grad()
                [[pass||sched.step()]]
            [[sched.step()||pass]]
"""),
    'accumulation, lambda steps the scheduler': ('LRD017', """
def main(model, loader, accum=4, epochs=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LinearLR(opt, 1.0, 0.01, total_iters=epochs * len(loader) // accum)
    tick = lambda: sched.step()
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
                [[pass||tick()]]
            [[tick()||pass]]
"""),
    'accumulation, callbacks on every micro-batch': ('LRD017', """
class LRCallback:
    def __init__(self, sched):
        self.sched = sched
    def on_micro_batch_end(self):
        [[self.sched.step()||pass]]
    def on_update_end(self):
        [[pass||self.sched.step()]]

def main(model, loader, accum=4, epochs=3):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    callbacks = [LRCallback(LinearLR(opt, 1.0, 0.01, total_iters=epochs * len(loader) // accum))]
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            (torch.nn.functional.mse_loss(model(x), y) / accum).backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
                for cb in callbacks:
                    cb.on_update_end()
            for cb in callbacks:
                cb.on_micro_batch_end()
"""),
    'fp16 adam built by a partial': ('LRD102', """
def main(model, loader):
    model = model.half()
    make_opt = functools.partial(torch.optim.Adam, lr=1e-3[[||, eps=1e-4]])
    opt = make_opt(model.parameters())
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        opt.step()
"""),
    'fp16 adam, the model halved by setattr': ('LRD102', """
class Trainer:
    def __init__(self, model):
        setattr(self, "model", model.half())
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3[[||, eps=1e-4]])
    def fit(self, loader):
        for x, y in loader:
            self.opt.zero_grad()
            torch.nn.functional.mse_loss(self.model(x.half()), y.half()).backward()
            self.opt.step()
"""),
    'fp16 adam chosen by match': ('LRD102', """
def build(model, name):
    match name:
        case "adam":
            return torch.optim.Adam(model.parameters(), lr=1e-3[[||, eps=1e-4]])
        case _:
            return torch.optim.SGD(model.parameters(), lr=1e-2)

def main(model, loader):
    model = model.half()
    opt = build(model, "adam")
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        opt.step()
"""),
    'registry decorator returns the function itself': ('LRD002', """
STEPS = {}

def register(name):
    def add(fn):
        STEPS[name] = fn
        return fn
    return add

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)

    @register("train")
    def train_epoch():
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]

    for epoch in range(90):
        train_epoch()
        [[pass||sched.step()]]
"""),
}


@pytest.mark.parametrize("name", list(HELD))
def test_layouts_that_already_held_keep_holding(name: str) -> None:
    assert_twins(*HELD[name])
