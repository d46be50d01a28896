"""The model of the program holds when the code is laid out as real projects lay it out, round
11 (meta11): optimizer, scheduler and scaler kept in a ``@dataclass`` ``TrainState`` (or a
``NamedTuple`` config) handed around; the scheduler picked by a ``match`` statement; batches
drawn through ``map(to_device, loader)``; objects read through a ``@property`` or a
``functools.cached_property``; Adam's eps kept on ``self`` or on a config record;
``functools.partial`` of a deprecated AMP class; a loss built by a one-line factory; and the
layouts that already held (the training step as a ``functools.partial`` or a lambda handed to
a runner, a ``contextlib.contextmanager`` helper, a dict of phase handlers, ``for s in
self.schedulers``, closures, ``@torch.no_grad()`` helpers, generator pipelines, staticmethods
and ``__post_init__``), kept here so that they keep holding.

Each program is written once with its two twins inline, ``[[wrong||right]]``: the wrong twin
must be reported with the pair's code, the right twin must give no finding at all."""

from __future__ import annotations

import re

import pytest

from .helpers import findings

HEAD = """
import contextlib
import functools
from dataclasses import InitVar, dataclass, field
from typing import NamedTuple

import torch
from torch.optim.lr_scheduler import (CosineAnnealingLR, LambdaLR, MultiStepLR, OneCycleLR,
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


STATE = """
@dataclass
class TrainState:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: object
    scaler: object = None
    epoch: int = 0
"""

# -- objects held by a dataclass's generated __init__ -----------------------------------------

RECORD_LOOP = """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = {build}
    for epoch in range(90):
        for x, y in loader:
            state.optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            state.optimizer.step()
            [[state.scheduler.step()||pass]]
        [[pass||state.scheduler.step()]]
"""

DATACLASS_STATE = {
    "positional, stepped per batch": ("LRD002", STATE + """
def train_epoch(state, loader):
    for x, y in loader:
        state.optimizer.zero_grad()
        torch.nn.functional.mse_loss(state.model(x), y).backward()
        state.optimizer.step()
        [[state.scheduler.step()||pass]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, StepLR(opt, step_size=30))
    for epoch in range(90):
        train_epoch(state, loader)
        [[pass||state.scheduler.step()]]
"""),
    "keywords, one-cycle stepped per epoch": ("LRD003", STATE + """
def train_epoch(state, loader):
    for x, y in loader:
        state.optimizer.zero_grad()
        torch.nn.functional.mse_loss(state.model(x), y).backward()
        state.optimizer.step()
        [[pass||state.scheduler.step()]]

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    state = TrainState(model=model, optimizer=opt, scheduler=sched)
    for epoch in range(epochs):
        train_epoch(state, loader)
        [[state.scheduler.step()||pass]]
"""),
    "scaler field, step on a skipped update": ("LRD005", STATE + """
def train_epoch(state, loader):
    for x, y in loader:
        state.optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(state.model(x), y)
        state.scaler.scale(loss).backward()
        scale = state.scaler.get_scale()
        state.scaler.step(state.optimizer)
        state.scaler.update()
        [[state.scheduler.step()||if state.scaler.get_scale() >= scale:
            state.scheduler.step()]]

def main(model, loader, epochs=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    state = TrainState(model, opt, sched, torch.amp.GradScaler("cuda"))
    for epoch in range(epochs):
        train_epoch(state, loader)
"""),
    "scaler field, the step in a closure": ("LRD005", STATE + """
def make_step(state):
    def step(x, y):
        state.optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(state.model(x), y)
        state.scaler.scale(loss).backward()
        before = state.scaler.get_scale()
        state.scaler.step(state.optimizer)
        state.scaler.update()
        [[state.scheduler.step()||if state.scaler.get_scale() >= before:
            state.scheduler.step()]]
    return step

def main(model, loader, epochs=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model=model, optimizer=opt,
                       scheduler=OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader)),
                       scaler=torch.amp.GradScaler("cuda"))
    step = make_step(state)
    for epoch in range(epochs):
        for x, y in loader:
            step(x, y)
"""),
    "deprecated epoch argument": ("LRD006", STATE + """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, MultiStepLR(opt, milestones=[3, 6]))
    for epoch in range(8):
        for x, y in loader:
            state.optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            state.optimizer.step()
        state.scheduler.step([[epoch||]])
"""),
    "manual lr write": ("LRD008", STATE + """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, StepLR(opt, step_size=2, gamma=0.5))
    for epoch in range(4):
        if epoch == 1:
            [[for group in state.optimizer.param_groups:
                group["lr"] = 0.01||print("epoch", epoch)]]
        for x, y in loader:
            state.optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            state.optimizer.step()
        state.scheduler.step()
"""),
    "inherited fields, kw_only and init=False": ("LRD002", """
@dataclass
class Base:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer

@dataclass
class TrainState(Base):
    steps: int = field(default=0, init=False)
    scheduler: object = None
    log_every: int = field(default=10, kw_only=True)

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, StepLR(opt, step_size=30), log_every=5)
    for epoch in range(90):
        for x, y in loader:
            state.optimizer.zero_grad()
            torch.nn.functional.mse_loss(state.model(x), y).backward()
            state.optimizer.step()
            [[state.scheduler.step()||pass]]
        [[pass||state.scheduler.step()]]
"""),
    "built in __post_init__ from an InitVar": ("LRD002", """
@dataclass
class Trainer:
    model: torch.nn.Module
    step_size: InitVar[int] = 30

    def __post_init__(self, step_size):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=step_size)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[self.scheduler.step()||pass]]
            [[pass||self.scheduler.step()]]

def main(model, loader):
    Trainer(model, 7).fit(loader, 90)
"""),
    "NamedTuple state": ("LRD002", """
class State(NamedTuple):
    optimizer: object
    scheduler: object
""" + RECORD_LOOP.replace("{build}", "State(opt, StepLR(opt, step_size=30))")),
    "dataclass built from a splatted dict": ("LRD002", """
@dataclass
class State:
    optimizer: object
    scheduler: object
""" + RECORD_LOOP.replace(
        "{build}", "State(**dict(optimizer=opt, scheduler=StepLR(opt, step_size=30)))")),
    "frozen dataclass with slots": ("LRD002", """
@dataclass(frozen=True, slots=True)
class State:
    optimizer: object
    scheduler: object
""" + RECORD_LOOP.replace("{build}", "State(opt, StepLR(opt, step_size=30))")),
    "dataclass trainer with its own fit": ("LRD002", """
@dataclass
class Trainer:
    model: torch.nn.Module
    optimizer: object
    scheduler: object

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[self.scheduler.step()||pass]]
            [[pass||self.scheduler.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    Trainer(model, opt, StepLR(opt, step_size=30)).fit(loader, 90)
"""),
    "dataclass state kept on the trainer": ("LRD002", STATE + """
class Trainer:
    def __init__(self, model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.state = TrainState(model, opt, StepLR(opt, step_size=30))
        self.loader = loader

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.state.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.state.model(x), y).backward()
                self.state.optimizer.step()
                [[self.state.scheduler.step()||pass]]
            [[pass||self.state.scheduler.step()]]
"""),
    "scaler field never updated": ("LRD110", """
@dataclass
class AmpState:
    scaler: object

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    amp = AmpState(scaler=torch.amp.GradScaler("cuda"))
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        amp.scaler.scale(loss).backward()
        amp.scaler.step(opt)
        [[||amp.scaler.update()]]
"""),
}


@pytest.mark.parametrize("name", list(DATACLASS_STATE))
def test_objects_held_by_a_dataclass_are_its_fields(name: str) -> None:
    assert_twins(*DATACLASS_STATE[name])


def test_a_dataclass_with_its_own_init_keeps_it() -> None:
    # the written __init__ stores the scheduler under another name: `state.scheduler` is the
    # class default None, never the StepLR handed in third
    program = """
@dataclass
class TrainState:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: object = None

    def __init__(self, model, optimizer, sched):
        self.model = model
        self.optimizer = optimizer
        self.sched = sched

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, StepLR(opt, step_size=30))
    for epoch in range(90):
        for x, y in loader:
            state.optimizer.zero_grad()
            torch.nn.functional.mse_loss(state.model(x), y).backward()
            state.optimizer.step()
            state.sched.step()
"""
    assert "LRD002" in {c for c, _ in findings(HEAD + program)}


def test_a_dataclass_built_with_more_arguments_than_fields_holds_nothing() -> None:
    # a TypeError at run time: no field is matched to a position
    program = STATE + """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, None, None, 0, StepLR(opt, step_size=30))
    for epoch in range(90):
        for x, y in loader:
            state.optimizer.zero_grad()
            torch.nn.functional.mse_loss(state.model(x), y).backward()
            state.optimizer.step()
            state.scheduler.step()
"""
    assert findings(HEAD + program) == []


# -- a match statement picks its case as an if/elif chain picks its branch ---------------------

MATCHES = {
    "builder given a literal": ("LRD002", """
def build(opt, name, steps):
    match name:
        case "step":
            return StepLR(opt, step_size=30)
        case "onecycle":
            return OneCycleLR(opt, max_lr=0.1, total_steps=steps)
        case _:
            raise ValueError(name)

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = build(opt, [["step"||"onecycle"]], epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
"""),
    "local literal": ("LRD002", """
def main(model, loader, epochs=90):
    name = "[[step||onecycle]]"
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    match name:
        case "step":
            sched = StepLR(opt, step_size=30)
        case "onecycle":
            sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
"""),
    "alternatives and a capture": ("LRD003", """
def build(opt, name, total):
    match name:
        case "onecycle" | "1cycle":
            return OneCycleLR(opt, max_lr=0.1, total_steps=total)
        case "step":
            return StepLR(opt, step_size=30)
        case other:
            raise ValueError(other)

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = build(opt, "1cycle", epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    "interval kept on self, matched in the loops": ("LRD002", """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=30)
        self.interval = "[[step||epoch]]"

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                match self.interval:
                    case "step":
                        self.scheduler.step()
            match self.interval:
                case "epoch":
                    self.scheduler.step()
"""),
    "class pattern with a guard": ("LRD002", """
def build(opt, name, steps):
    match name:
        case str() if name.startswith("cos"):
            return CosineAnnealingLR(opt, T_max=steps)
        case "step":
            return StepLR(opt, step_size=30)
    return OneCycleLR(opt, max_lr=0.1, total_steps=steps)

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = build(opt, "[[step||onecycle]]", epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
"""),
}


@pytest.mark.parametrize("name", list(MATCHES))
def test_a_match_on_a_literal_picks_its_case(name: str) -> None:
    assert_twins(*MATCHES[name])


def test_a_match_on_an_unknown_setting_may_take_any_case() -> None:
    # as `if args.sched == "step": ... elif ...`: the StepLR is one of the options, and
    # stepping it per batch is wrong whenever the setting picks it
    program = """
def main(model, loader, args, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    match args.sched:
        case "step":
            sched = StepLR(opt, step_size=30)
        case "onecycle":
            sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
"""
    assert "LRD002" in {c for c, _ in findings(HEAD + program)}


# -- batches drawn through map() -----------------------------------------------------------------

MAP_LOOP = """
def to_device(batch):
    return [t.cuda() for t in batch]

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in {iterable}:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""


@pytest.mark.parametrize("iterable", [
    "map(to_device, loader)",
    "filter(None, loader)",
    "itertools.starmap(lambda x, y: (x.cuda(), y.cuda()), loader)",
])
def test_a_loop_over_map_of_the_loader_goes_over_its_batches(iterable: str) -> None:
    assert_twins("LRD002", "import itertools\n" + MAP_LOOP.replace("{iterable}", iterable))


# -- objects read through a property ----------------------------------------------------------

PROPERTY = """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
{members}

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[self.scheduler.step()||pass]]
            [[pass||self.scheduler.step()]]
"""

PROPERTIES = {
    "property": """
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self._scheduler = StepLR(self.optimizer, step_size=30)

    @property
    def scheduler(self):
        return self._scheduler""",
    "cached_property": """

    @functools.cached_property
    def optimizer(self):
        return torch.optim.SGD(self.model.parameters(), lr=0.1)

    @functools.cached_property
    def scheduler(self):
        return StepLR(self.optimizer, step_size=30)""",
}


@pytest.mark.parametrize("kind", list(PROPERTIES))
def test_a_scheduler_read_through_a_property_is_the_one_it_returns(kind: str) -> None:
    assert_twins("LRD002", PROPERTY.replace("{members}", PROPERTIES[kind]))


def test_a_property_that_reads_itself_is_no_loop() -> None:
    program = """
class Trainer:
    @property
    def a(self):
        return self.b

    @property
    def b(self):
        return self.a

    def fit(self, model, loader):
        opt = torch.optim.SGD(model.parameters(), lr=self.a)
        for x in loader:
            opt.step()

Trainer().fit(torch.nn.Linear(2, 2), [])
"""
    assert findings(HEAD + program) == []


# -- Adam's eps held by an instance --------------------------------------------------------------

HELD_EPS = {
    "kept by __init__ as self.eps": """
class Trainer:
    def __init__(self, model, eps=[[1e-8||1e-4]]):
        self.model = model
        self.eps = eps
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3, eps=self.eps)

    def fit(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()

def main(loader):
    model = torch.nn.Linear(8, 2).half()
    Trainer(model).fit(loader)
""",
    "dataclass field default read in __post_init__": """
@dataclass
class Trainer:
    model: torch.nn.Module
    eps: float = [[1e-8||1e-4]]

    def __post_init__(self):
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3, eps=self.eps)

    def fit(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()

def main(loader):
    model = torch.nn.Linear(8, 2).half()
    Trainer(model).fit(loader)
""",
    "dataclass config given the eps": """
@dataclass
class OptimConfig:
    lr: float = 1e-3
    eps: float = 1e-4

def main(loader):
    cfg = OptimConfig(eps=[[1e-8||1e-4]])
    model = torch.nn.Linear(8, 2).half()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=cfg.eps)
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
""",
    "NamedTuple config given the eps": """
class OptimConfig(NamedTuple):
    lr: float = 1e-3
    eps: float = 1e-4

def main(loader):
    cfg = OptimConfig(1e-3, [[1e-8||1e-4]])
    model = torch.nn.Linear(8, 2).half()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=cfg.eps)
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
""",
}


@pytest.mark.parametrize("name", list(HELD_EPS))
def test_fp16_adam_eps_held_by_an_instance_is_read(name: str) -> None:
    assert_twins("LRD102", HELD_EPS[name])


def test_an_eps_attribute_stored_again_is_not_read_as_one_literal() -> None:
    wrong, _ = twins(HELD_EPS["dataclass config given the eps"].replace(
        "    model = torch.nn.Linear", "    if loader is None:\n        cfg.eps = 1e-3\n"
                                      "    model = torch.nn.Linear"))
    assert findings(wrong) == []


# -- a deprecated AMP class kept by functools.partial ---------------------------------------------

@pytest.mark.parametrize("kept", [
    "functools.partial([[torch.cuda.amp.autocast||torch.autocast]], dtype=torch.float16)",
    "functools.partial([[torch.cuda.amp.GradScaler||torch.amp.GradScaler, \"cuda\"]], "
    "init_scale=2.0 ** 14)",
])
def test_a_deprecated_amp_class_kept_by_a_partial_is_reported(kept: str) -> None:
    assert_twins("LRD101", f"\nmake = {kept}\n")


# -- a loss built by a one-line factory ---------------------------------------------------------

LOSS_FACTORY = """
def make_criterion():
    return [[torch.nn.BCELoss()||torch.nn.BCEWithLogitsLoss()]]

def main(loader):
    model = torch.nn.Sequential(torch.nn.Linear(16, 1)[[, torch.nn.Sigmoid()||]]).cuda()
    criterion = make_criterion()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(3):
        for x, y in loader:
            opt.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = criterion(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
"""


def test_bce_loss_from_a_one_line_factory_used_under_autocast_is_reported() -> None:
    assert_twins("LRD103", LOSS_FACTORY)


def test_a_factory_that_may_return_another_loss_is_not_followed() -> None:
    # which loss the call gets is not known to the syntactic rule: a miss, not a guess
    wrong, _ = twins(LOSS_FACTORY.replace(
        "def make_criterion():\n    return",
        "def make_criterion(logits=False):\n    if logits:\n"
        "        return torch.nn.BCEWithLogitsLoss()\n    return"))
    assert findings(wrong) == []


# -- layouts that already held ----------------------------------------------------------------

HELD = {
    "step as a functools.partial handed to a runner": ("LRD002", """
def train_step(batch, model, opt, sched):
    x, y = batch
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    [[sched.step()||pass]]
    return loss

def run(loader, step, epochs, sched):
    for epoch in range(epochs):
        for batch in loader:
            step(batch)
        [[pass||sched.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    step = functools.partial(train_step, model=model, opt=opt, sched=sched)
    run(loader, step, 90, sched)
"""),
    "step as a lambda handed to a runner": ("LRD002", """
def train_step(model, opt, sched, batch):
    x, y = batch
    opt.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    opt.step()
    [[sched.step()||pass]]

def run(loader, step, epochs, sched):
    for epoch in range(epochs):
        for batch in loader:
            step(batch)
        [[pass||sched.step()]]

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    run(loader, lambda b: train_step(model, opt, sched, b), 90, sched)
"""),
    "loop inside a contextmanager-using helper": ("LRD002", """
@contextlib.contextmanager
def phase(model, name):
    model.train(name == "train")
    try:
        yield
    finally:
        model.train(False)

def train_epoch(model, loader, opt, sched):
    with phase(model, "train"):
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
    "update inside a contextmanager around the batch": ("LRD003", """
@contextlib.contextmanager
def stepping(opt, sched):
    opt.zero_grad()
    yield
    opt.step()
    [[pass||sched.step()]]

def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            with stepping(opt, sched):
                torch.nn.functional.mse_loss(model(x), y).backward()
        [[sched.step()||pass]]
"""),
    "dataclass state, step before the first update": ("LRD001", STATE + """
def train_epoch(state, loader):
    for x, y in loader:
        state.optimizer.zero_grad()
        torch.nn.functional.mse_loss(state.model(x), y).backward()
        state.optimizer.step()

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, StepLR(opt, step_size=30))
    for epoch in range(90):
        [[state.scheduler.step()||pass]]
        train_epoch(state, loader)
        [[pass||state.scheduler.step()]]
"""),
    "dataclass state saved by a helper": ("LRD007", STATE + """
def save(state, path):
    torch.save({"model": state.model.state_dict(), "optimizer": state.optimizer.state_dict(),
                [["epoch": state.epoch||"scheduler": state.scheduler.state_dict(),
                "epoch": state.epoch]]}, path)

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = TrainState(model, opt, CosineAnnealingLR(opt, T_max=20))
    for epoch in range(20):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        state.scheduler.step()
        state.epoch = epoch
        save(state, "last.pt")
"""),
    "dataclass state restored by a helper": ("LRD007", STATE + """
def restore(state, path):
    ckpt = torch.load(path)
    state.model.load_state_dict(ckpt["model"])
    state.optimizer.load_state_dict(ckpt["optimizer"])
    [[||state.scheduler.load_state_dict(ckpt["scheduler"])]]
    return ckpt["epoch"] + 1

def main(model, loader, resume=None):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    state = TrainState(model, opt, CosineAnnealingLR(opt, T_max=20))
    start = restore(state, resume) if resume else 0
    for epoch in range(start, 20):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        state.scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                    "scheduler": state.scheduler.state_dict(), "epoch": epoch}, "last.pt")
"""),
    "Trainer.fit through a dict of phase handlers": ("LRD002", """
class Trainer:
    def __init__(self, model, loaders):
        self.model = model
        self.loaders = loaders
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=30)

    def _run_train(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
            [[self.scheduler.step()||pass]]

    @torch.no_grad()
    def _run_val(self, loader):
        return sum(torch.nn.functional.mse_loss(self.model(x), y).item() for x, y in loader)

    def fit(self, epochs):
        handlers = {"train": self._run_train, "val": self._run_val}
        for epoch in range(epochs):
            for phase in ("train", "val"):
                handlers[phase](self.loaders[phase])
            [[pass||self.scheduler.step()]]
"""),
    "plateau fed by @torch.no_grad() methods": ("LRD004", """
class Trainer:
    def __init__(self, model, loaders):
        self.model = model
        self.loaders = loaders
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = ReduceLROnPlateau(self.optimizer, patience=2)

    def _train(self):
        total = 0.0
        for x, y in self.loaders["train"]:
            self.optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total

    @torch.no_grad()
    def _validate(self):
        return sum(torch.nn.functional.mse_loss(self.model(x), y).item()
                   for x, y in self.loaders["val"])

    def fit(self, epochs):
        for epoch in range(epochs):
            train_loss = self._train()
            val_loss = self._validate()
            self.scheduler.step([[train_loss||val_loss]])
"""),
    "plateau mode against a @torch.no_grad() accuracy": ("LRD004", """
@torch.no_grad()
def evaluate(model, loader):
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct / len(loader.dataset)

def main(model, train_loader, val_loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = ReduceLROnPlateau(opt, mode=[["min"||"max"]], patience=2)
    for epoch in range(10):
        for x, y in train_loader:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        val_acc = evaluate(model, val_loader)
        sched.step(val_acc)
"""),
    "schedulers in self.schedulers, per batch": ("LRD002", """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.schedulers = []
        self.schedulers.append(StepLR(self.optimizer, step_size=30))

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[for s in self.schedulers:
                    s.step()||pass]]
            [[pass||for s in self.schedulers:
                s.step()]]
"""),
    "schedulers in self.schedulers, before the updates": ("LRD001", """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.schedulers = [StepLR(self.optimizer, step_size=2, gamma=0.5)]

    def fit(self, epochs):
        for epoch in range(epochs):
            [[for s in self.schedulers:
                s.step()||pass]]
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            [[pass||for s in self.schedulers:
                s.step()]]
"""),
    "schedulers in self.schedulers, with an epoch": ("LRD006", """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.schedulers = [MultiStepLR(self.optimizer, milestones=[3, 6])]

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            for s in self.schedulers:
                s.step([[epoch||]])
"""),
    "two schedulers in self.schedulers": ("LRD012", """
class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        warm = LambdaLR(self.optimizer, lambda e: min(1.0, (e + 1) / 2))
        decay = StepLR(self.optimizer, step_size=2, gamma=0.5)
        self.schedulers = [[(warm, decay)||(torch.optim.lr_scheduler.SequentialLR(
            self.optimizer, (warm, decay), milestones=(2,)),)]]

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            for s in self.schedulers:
                s.step()
"""),
    "two schedulers in a dict": ("LRD012", """
def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    schedulers = {
        "warmup": LambdaLR(opt, lambda e: min(1.0, (e + 1) / 2)),
        "decay": StepLR(opt, step_size=2, gamma=0.5),
    }
    [[||schedulers = {"all": torch.optim.lr_scheduler.SequentialLR(
        opt, list(schedulers.values()), milestones=(2,))}]]
    for epoch in range(4):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        for name, s in schedulers.items():
            s.step()
"""),
    "closure capturing the optimizer": ("LRD002", """
def make_update(opt, sched):
    def update(loss):
        opt.zero_grad()
        loss.backward()
        opt.step()
        [[sched.step()||pass]]
    return update

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    update = make_update(opt, sched)
    for epoch in range(epochs):
        for x, y in loader:
            update(torch.nn.functional.mse_loss(model(x), y))
        [[pass||sched.step()]]
"""),
    "nested function in the driver": ("LRD003", """
def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))

    def update(x, y):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        [[pass||sched.step()]]

    for epoch in range(epochs):
        for x, y in loader:
            update(x, y)
        [[sched.step()||pass]]
"""),
    "closure saving a checkpoint": ("LRD007", """
def main(model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = CosineAnnealingLR(opt, T_max=20)

    def save(epoch):
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                    [["epoch": epoch||"scheduler": sched.state_dict(), "epoch": epoch]]},
                   "last.pt")

    for epoch in range(20):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        save(epoch)
"""),
    "partial of a save helper": ("LRD007", """
def save_checkpoint(path, epoch, model, optimizer, scheduler=None):
    state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
    if scheduler is not None:
        state["scheduler"] = scheduler.state_dict()
    torch.save(state, path)

def main(model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = CosineAnnealingLR(opt, T_max=20)
    save = functools.partial(save_checkpoint, model=model, optimizer=opt[[||, scheduler=sched]])
    for epoch in range(20):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        save("last.pt", epoch)
"""),
    "lr written in a contextmanager": ("LRD008", """
@contextlib.contextmanager
def lr_scaled(opt, factor):
    saved = [g["lr"] for g in opt.param_groups]
    for g in opt.param_groups:
        g["lr"] = g["lr"] * factor
    try:
        yield
    finally:
        for g, lr in zip(opt.param_groups, saved):
            g["lr"] = lr

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=2, gamma=0.5)
    for epoch in range(4):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        [[with lr_scaled(opt, 0.1):
            model.train()||model.train()]]
"""),
    "chained generator pipeline": ("LRD002", """
def to_device(batches):
    for x, y in batches:
        yield x.cuda(), y.cuda()

def augment(batches):
    for x, y in batches:
        yield x + 0.01 * torch.randn_like(x), y

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in augment(to_device(loader)):
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    "generator expression pipeline": ("LRD003", """
def main(model, loader, epochs=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        batches = ((x.cuda(), y.cuda()) for x, y in loader)
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[pass||sched.step()]]
        [[sched.step()||pass]]
"""),
    "training generator yielding losses": ("LRD002", """
def train_iter(model, loader, opt, sched):
    for x, y in loader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        [[sched.step()||pass]]
        yield loss.item()

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for loss in train_iter(model, loader, opt, sched):
            print(loss)
        [[pass||sched.step()]]
"""),
    "staticmethod builder": ("LRD002", """
class Schedules:
    @staticmethod
    def build(opt, kind):
        if kind == "step":
            return StepLR(opt, step_size=30)
        return CosineAnnealingLR(opt, T_max=100)

def main(model, loader, epochs=90):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = Schedules.build(opt, "step")
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            [[sched.step()||pass]]
        [[pass||sched.step()]]
"""),
    "staticmethod called from __init__": ("LRD003", """
class Trainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = self.make_scheduler(self.optimizer, epochs * len(loader))

    @staticmethod
    def make_scheduler(opt, total):
        return OneCycleLR(opt, max_lr=0.1, total_steps=total)

    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[pass||self.scheduler.step()]]
            [[self.scheduler.step()||pass]]
"""),
    "dataclass trainer built in __post_init__": ("LRD002", """
@dataclass
class Trainer:
    model: torch.nn.Module
    loader: object
    epochs: int = 90
    optimizer: object = field(init=False)
    scheduler: object = field(init=False)

    def __post_init__(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=30)

    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[self.scheduler.step()||pass]]
            [[pass||self.scheduler.step()]]
"""),
    "BCELoss built in __post_init__": ("LRD103", """
@dataclass
class Trainer:
    model: torch.nn.Module
    loader: object
    criterion: object = field(init=False)

    def __post_init__(self):
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scaler = torch.amp.GradScaler("cuda")
        self.criterion = [[torch.nn.BCELoss()||torch.nn.BCEWithLogitsLoss()]]

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = self.criterion(self.model(x), y)
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
"""),
    "NamedTuple config default eps": ("LRD102", """
class OptimConfig(NamedTuple):
    lr: float = 1e-3
    eps: float = [[1e-8||1e-4]]

def main(loader, cfg=OptimConfig()):
    model = torch.nn.Linear(8, 2).half()
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, eps=cfg.eps)
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
"""),
    "NamedTuple config sizing the cosine": ("LRD010", """
from torch.utils.data import DataLoader

class Config(NamedTuple):
    epochs: int = 8
    batch_size: int = 4

def main(model, data, cfg=Config()):
    loader = DataLoader(data, batch_size=cfg.batch_size, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    total_steps = len(loader) [[// cfg.batch_size||]] * cfg.epochs
    sched = CosineAnnealingLR(opt, T_max=total_steps)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
"""),
    "staticmethod sizing the cosine": ("LRD010", """
from torch.utils.data import DataLoader

class Schedules:
    @staticmethod
    def cosine(opt, loader, batch_size, epochs):
        return CosineAnnealingLR(opt, T_max=len(loader) [[// batch_size||]] * epochs)

def main(model, data, epochs=8, batch_size=4):
    loader = DataLoader(data, batch_size=batch_size, shuffle=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = Schedules.cosine(opt, loader, batch_size, epochs)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()
"""),
    "dataclass config switching AMP, step past the scaler": ("LRD109", """
@dataclass
class Config:
    amp: bool = True

def main(model, loader, cfg=Config()):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda", enabled=cfg.amp)
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", enabled=cfg.amp):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        [[opt.step()||scaler.step(opt)]]
        scaler.update()
"""),
    "dataclass scaler field, clip before unscale": ("LRD108", """
@dataclass
class AmpState:
    scaler: object
    max_norm: float = 1.0

def main(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    amp = AmpState(torch.amp.GradScaler("cuda"))
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        amp.scaler.scale(loss).backward()
        [[||amp.scaler.unscale_(opt)]]
        torch.nn.utils.clip_grad_norm_(model.parameters(), amp.max_norm)
        amp.scaler.step(opt)
        amp.scaler.update()
"""),
    "dataclass state under accumulation": ("LRD017", """
@dataclass
class State:
    optimizer: object
    scheduler: object
    accum: int = 4

def main(model, loader, epochs=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    state = State(opt, OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader) // 4))
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            (torch.nn.functional.mse_loss(model(x), y) / state.accum).backward()
            if (i + 1) % state.accum == 0:
                state.optimizer.step()
                state.optimizer.zero_grad()
                [[pass||state.scheduler.step()]]
            [[state.scheduler.step()||pass]]
"""),
    "classmethod builder called on self": ("LRD003", """
class Trainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = self.build_scheduler(self.optimizer, epochs * len(loader))

    @classmethod
    def build_scheduler(cls, opt, total):
        return OneCycleLR(opt, max_lr=0.1, total_steps=total)

    def fit(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                [[pass||self.scheduler.step()]]
            [[self.scheduler.step()||pass]]
"""),
    "autocast chosen by a partial or nullcontext": ("LRD005", """
def main(model, loader, epochs=3, amp=True):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    ctx = (functools.partial(torch.autocast, "cuda", dtype=torch.float16) if amp
           else contextlib.nullcontext)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            with ctx():
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scale = scaler.get_scale()
            scaler.step(opt)
            scaler.update()
            [[sched.step()||if scaler.get_scale() >= scale:
                sched.step()]]
"""),
    "autocast as a forward decorator": ("LRD103", """
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(16, 1)
        self.criterion = [[torch.nn.BCELoss()||torch.nn.BCEWithLogitsLoss()]]

    @torch.autocast("cuda", dtype=torch.float16)
    def forward(self, x, y):
        return self.criterion([[torch.sigmoid(self.body(x))||self.body(x)]], y)

def main(loader):
    model = Net().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        opt.zero_grad()
        scaler.scale(model(x, y)).backward()
        scaler.step(opt)
        scaler.update()
"""),
}


@pytest.mark.parametrize("name", list(HELD))
def test_layouts_that_already_held_keep_holding(name: str) -> None:
    assert_twins(*HELD[name])
