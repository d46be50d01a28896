"""Shapes real projects use that the checker did not model, by the general shape (devmiss18).

Programs written for these tests; no third-party code.

1. A PPO-style ``while global_step < total_timesteps:`` loop that advances its counter by one
   rollout per pass (``global_step += num_envs`` in ``for step in range(num_steps):``, or
   ``global_step += batch_size``) and steps a scheduler sized ``total_timesteps //
   (num_steps * num_envs)`` once per pass: the loop makes exactly that many passes, so the
   schedule is stepped in its own units (no LRD003), as the ``for update in
   range(num_updates):`` spelling already was. Its twins: a horizon that also counts the
   minibatch updates, and a counter advanced only under a branch, are still reported.
2. Records that hold the optimizer / scheduler, built the ways real code builds them besides
   ``@dataclass`` and ``class X(NamedTuple)``: ``collections.namedtuple("State", [...])`` (and
   ``typing.NamedTuple("State", [("a", T), ...])``), an ``attrs`` class (``@attrs.define``,
   ``@attr.s(auto_attribs=True)``), and a copy with some fields given anew
   (``dataclasses.replace(state, scheduler=s)``, ``attrs.evolve``, ``state._replace(...)``).
   Each stores its arguments as the fields of their names, so a scheduler stepped through
   ``state.scheduler`` is the one built. Twins: the same record stepped once per epoch stays
   silent; attrs classes whose ``__init__`` renames a field (``_private``) and a ``@attr.s``
   class of ``attr.ib()`` attributes are not modelled (silent, as before).
3. ``getattr(self, f"_{phase}_epoch")()`` (``getattr(self, phase)()``, ``phase + "_epoch"``)
   inside ``for phase in ("train", "val"):`` over literal strings: one pass of that loop
   calls each method the phases name, in their order, so the batch loop in
   ``_train_epoch`` is traced. Twins: the scheduler stepped once per epoch stays silent; a
   phase that names no method of the class, or a loop that rebinds its target, is not
   followed.
4. A checkpoint dict built by a comprehension over known entries: ``{k: v.state_dict() for
   k, v in parts.items()}`` of a dict (or a helper's ``**parts``) whose keys are all known,
   and ``{name: getattr(self, name).state_dict() for name in ("model", "optimizer")}``: the
   dict it builds, key by key, so LRD007 sees what is stored. Twins: the same with the
   scheduler among the entries stays silent.
"""

from __future__ import annotations

import pytest

from .helpers import codes

# 1. A PPO while loop paced by rollouts ------------------------------------------------

PPO_WHILE = """
import torch
from transformers import get_linear_schedule_with_warmup


def train(agent, total_timesteps, num_steps, num_envs, update_epochs, minibatches):
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4)
    batch_size = num_steps * num_envs
    num_updates = {horizon}
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, num_updates)
    global_step = 0
    while global_step < total_timesteps:
        for step in range({steps}):
            global_step += num_envs
        for epoch in range(update_epochs):
            for mb in minibatches:
                loss = agent(mb).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        scheduler.step()
"""


def test_while_loop_paced_by_rollouts_counts_its_passes() -> None:
    source = PPO_WHILE.format(horizon="total_timesteps // batch_size", steps="num_steps")
    assert codes(source) == []


def test_while_loop_paced_by_rollouts_with_a_zero_start_range() -> None:
    source = PPO_WHILE.format(horizon="total_timesteps // batch_size", steps="0, num_steps")
    assert codes(source) == []


def test_while_loop_paced_by_rollouts_written_inline() -> None:
    source = PPO_WHILE.format(horizon="int(total_timesteps // (num_envs * num_steps))",
                              steps="num_steps")
    assert codes(source) == []


def test_twin_horizon_counting_the_minibatch_updates_is_still_reported() -> None:
    source = PPO_WHILE.format(
        horizon="total_timesteps // batch_size * update_epochs * len(minibatches)",
        steps="num_steps")
    assert codes(source) == ["LRD003"]


PPO_WHOLE_ROLLOUT = """
import torch
from torch.optim.lr_scheduler import OneCycleLR


def train(agent, total_timesteps, num_steps, num_envs, update_epochs, minibatches):
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4)
    batch_size = num_envs * num_steps
    scheduler = OneCycleLR(optimizer, max_lr=3e-4, total_steps=total_timesteps // {size})
    global_step = 0
    while global_step < total_timesteps:
{advance}
        for epoch in range(update_epochs):
            for mb in minibatches:
                loss = agent(mb).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        scheduler.step()
"""


def test_while_loop_advanced_by_the_whole_rollout() -> None:
    source = PPO_WHOLE_ROLLOUT.format(size="batch_size",
                                      advance="        global_step += batch_size")
    assert codes(source) == []


def test_twin_counter_advanced_under_a_branch_is_left_to_the_rule() -> None:
    source = PPO_WHOLE_ROLLOUT.format(
        size="batch_size",
        advance="        if update_epochs:\n            global_step += batch_size")
    assert codes(source) == ["LRD003"]


def test_twin_horizon_divided_by_another_size_is_still_reported() -> None:
    source = PPO_WHOLE_ROLLOUT.format(size="num_envs",
                                      advance="        global_step += batch_size")
    assert codes(source) == ["LRD003"]


# 2. Records: namedtuple, attrs, replace ------------------------------------------------

RECORD_LOOP = """
import collections
import dataclasses
import typing

import attr
import attrs
import torch
from torch.optim.lr_scheduler import StepLR

{record}


def train(loader, epochs):
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
{build}
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(st.model(x), y)
            st.optimizer.zero_grad()
            loss.backward()
            st.optimizer.step()
{step}
"""

PER_BATCH = "            st.scheduler.step()"
PER_EPOCH = "        st.scheduler.step()"

NAMEDTUPLE_LIST = 'State = collections.namedtuple("State", ["model", "optimizer", "scheduler"])'
NAMEDTUPLE_TEXT = 'State = collections.namedtuple("State", "model, optimizer scheduler")'
TYPING_FUNCTIONAL = ('State = typing.NamedTuple("State", [("model", object), '
                     '("optimizer", object), ("scheduler", object)])')
ATTRS_DEFINE = """
@attrs.define
class State:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: object = None
"""
ATTR_S = """
@attr.s(auto_attribs=True)
class State:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    scheduler: object = attr.ib(default=None)
"""
DATACLASS = """
@dataclasses.dataclass
class State:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer = None
    scheduler: object = None
"""
BUILD_ALL = "    st = State(model, opt, StepLR(opt, step_size=30))"


@pytest.mark.parametrize("record", [NAMEDTUPLE_LIST, NAMEDTUPLE_TEXT, TYPING_FUNCTIONAL,
                                    ATTRS_DEFINE, ATTR_S],
                         ids=["namedtuple-list", "namedtuple-text", "typing-functional",
                              "attrs-define", "attr-s-auto-attribs"])
def test_record_class_holds_the_scheduler_it_is_given(record: str) -> None:
    bad = RECORD_LOOP.format(record=record, build=BUILD_ALL, step=PER_BATCH)
    assert codes(bad) == ["LRD002"]


@pytest.mark.parametrize("record", [NAMEDTUPLE_LIST, TYPING_FUNCTIONAL, ATTRS_DEFINE],
                         ids=["namedtuple", "typing-functional", "attrs-define"])
def test_twin_record_stepped_per_epoch_is_silent(record: str) -> None:
    good = RECORD_LOOP.format(record=record, build=BUILD_ALL, step=PER_EPOCH)
    assert codes(good) == []


REPLACED = """
    st = State(model, opt)
    st = {copy}(st, scheduler=StepLR(opt, step_size=30))"""


@pytest.mark.parametrize(("record", "copy"), [(DATACLASS, "dataclasses.replace"),
                                              (ATTRS_DEFINE, "attrs.evolve")],
                         ids=["dataclasses-replace", "attrs-evolve"])
def test_record_copied_with_a_new_scheduler(record: str, copy: str) -> None:
    bad = RECORD_LOOP.format(record=record, build=REPLACED.format(copy=copy), step=PER_BATCH)
    assert codes(bad) == ["LRD002"]
    good = RECORD_LOOP.format(record=record, build=REPLACED.format(copy=copy), step=PER_EPOCH)
    assert codes(good) == []


def test_named_tuple_replace_method() -> None:
    build = ("    st = State(model, opt, None)\n"
             "    st = st._replace(scheduler=StepLR(opt, step_size=30))")
    bad = RECORD_LOOP.format(record=NAMEDTUPLE_LIST, build=build, step=PER_BATCH)
    assert codes(bad) == ["LRD002"]
    good = RECORD_LOOP.format(record=NAMEDTUPLE_LIST, build=build, step=PER_EPOCH)
    assert codes(good) == []


def test_copy_keeps_the_fields_it_does_not_replace() -> None:
    build = ("    st = State(model, opt, StepLR(opt, step_size=30))\n"
             "    st = dataclasses.replace(st, model=model)")
    bad = RECORD_LOOP.format(record=DATACLASS, build=build, step=PER_BATCH)
    assert codes(bad) == ["LRD002"]


ATTRS_PRIVATE = """
@attrs.define
class State:
    model: torch.nn.Module
    optimizer: torch.optim.Optimizer
    _scheduler: object = None

    @property
    def scheduler(self):
        return self._scheduler
"""
ATTR_IB = """
@attr.s
class State:
    model = attr.ib()
    optimizer = attr.ib()
    scheduler = attr.ib(default=None)
"""


@pytest.mark.parametrize("record", [ATTRS_PRIVATE, ATTR_IB], ids=["private-field", "attr-ib"])
def test_twin_attrs_shapes_not_modelled_stay_silent(record: str) -> None:
    source = RECORD_LOOP.format(record=record, build=BUILD_ALL, step=PER_BATCH)
    assert codes(source) == []


# 3. getattr dispatch by phase ---------------------------------------------------------

PHASES = """
import torch
from torch.optim.lr_scheduler import StepLR


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=30)

    def {train}(self):
        for x, y in self.loader:
            loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
{batch_step}

    def {val}(self):
        pass

    def fit(self, epochs):
        for epoch in range(epochs):
            for phase in ("train", "val"):
                getattr(self, {spelled})()
{epoch_step}


def make_loader():
    return torch.utils.data.DataLoader(range(8), batch_size=2)


if __name__ == "__main__":
    Trainer(torch.nn.Linear(4, 2), make_loader()).fit(10)
"""

BATCH_STEP = "            self.scheduler.step()"
EPOCH_STEP = "            self.scheduler.step()"


@pytest.mark.parametrize(("train", "val", "spelled"), [
    ("_train_epoch", "_val_epoch", 'f"_{phase}_epoch"'),
    ("train", "val", "phase"),
    ("train_epoch", "val_epoch", 'phase + "_epoch"'),
], ids=["f-string", "plain", "concatenated"])
def test_phase_dispatch_reaches_the_batch_loop(train: str, val: str, spelled: str) -> None:
    bad = PHASES.format(train=train, val=val, spelled=spelled, batch_step=BATCH_STEP,
                        epoch_step="")
    assert codes(bad) == ["LRD002"]
    good = PHASES.format(train=train, val=val, spelled=spelled, batch_step="",
                         epoch_step=EPOCH_STEP)
    assert codes(good) == []


def test_twin_phase_naming_no_method_is_not_followed() -> None:
    source = PHASES.format(train="_train_epoch", val="_valid_epoch",
                           spelled='f"_{phase}_epoch"', batch_step=BATCH_STEP, epoch_step="")
    assert codes(source) == []


# 4. Checkpoint dicts built by comprehensions -----------------------------------------

HELPER_SAVE = """
import torch
from torch.optim.lr_scheduler import StepLR


def save_checkpoint(path, **parts):
    torch.save({{name: part.state_dict() for name, part in parts.items()}}, path)


def train(loader, epochs):
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        save_checkpoint("ckpt.pt", {given})
"""

LOCAL_SAVE = """
import torch
from torch.optim.lr_scheduler import StepLR


def train(loader, epochs):
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = StepLR(opt, step_size=30)
    parts = {{{parts}}}
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        torch.save({{k: v.state_dict() for k, v in parts.items()}}, "ckpt.pt")
"""

NAMED_SAVE = """
import torch
from torch.optim.lr_scheduler import StepLR


class Trainer:
    def __init__(self, loader):
        self.loader = loader
        self.model = torch.nn.Linear(4, 2)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scheduler = StepLR(self.optimizer, step_size=30)

    def save(self, path):
        torch.save({{name: getattr(self, name).state_dict() for name in ({names})}}, path)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.scheduler.step()
            self.save("ckpt.pt")
"""


def test_helper_saving_its_keyword_parts_by_comprehension() -> None:
    assert codes(HELPER_SAVE.format(given="model=model, optimizer=opt")) == ["LRD007"]
    assert codes(HELPER_SAVE.format(
        given="model=model, optimizer=opt, scheduler=sched")) == []


def test_local_dict_saved_by_comprehension() -> None:
    assert codes(LOCAL_SAVE.format(parts='"model": model, "optimizer": opt')) == ["LRD007"]
    assert codes(LOCAL_SAVE.format(
        parts='"model": model, "optimizer": opt, "scheduler": sched')) == []


def test_named_attributes_saved_by_comprehension() -> None:
    assert codes(NAMED_SAVE.format(names='"model", "optimizer"')) == ["LRD007"]
    assert codes(NAMED_SAVE.format(names='"model", "optimizer", "scheduler"')) == []
