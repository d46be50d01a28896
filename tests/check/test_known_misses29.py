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
5. A LightningModule that keeps its ``__init__`` arguments with ``self.save_hyperparameters()``
   and builds ``self.hparams.optimizer(params=...)`` / ``self.hparams.scheduler(optimizer=
   ...)`` from partials it was given (lightning-hydra-template and its descendants; the
   partials come from ``functools.partial`` or a Hydra config with ``_partial_: true``):
   ``self.hparams`` holds the arguments by name (less ``ignore=[...]``; only those named when
   it names some), and ``trainer.fit(model)`` runs that instance's ``configure_optimizers``
   as Lightning does, so the scheduler the partial builds is judged. Twins: the same partial
   with ``"interval": "step"``, a ReduceLROnPlateau partial, and a scheduler argument left
   out by ``ignore`` stay silent.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

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


# 5. Lightning save_hyperparameters + partials ------------------------------------------

LIT_PARTIALS = """
import functools

import lightning as L
import torch


class LitModel(L.LightningModule):
    def __init__(self, net, optimizer, scheduler):
        super().__init__()
        self.save_hyperparameters({saved})
        self.net = net

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        optimizer = self.hparams.optimizer(params=self.parameters())
        scheduler = self.hparams.scheduler(optimizer=optimizer)
        return {{"optimizer": optimizer,
                "lr_scheduler": {{"scheduler": scheduler, "interval": "{interval}"}}}}


def main(dm):
    model = LitModel(torch.nn.Linear(4, 2),
                     optimizer=functools.partial(torch.optim.AdamW, lr=1e-3),
                     scheduler=functools.partial({scheduler}))
    L.Trainer(max_epochs=10).fit(model, dm)


if __name__ == "__main__":
    main(None)
"""

ONE_CYCLE = "torch.optim.lr_scheduler.OneCycleLR, max_lr=1e-3, total_steps=10000"


@pytest.mark.parametrize("saved", ['logger=False, ignore=["net"]', "",
                                   '"optimizer", "scheduler"'],
                         ids=["ignore", "bare", "named"])
def test_hparams_partial_built_in_configure_optimizers(saved: str) -> None:
    bad = LIT_PARTIALS.format(saved=saved, interval="epoch", scheduler=ONE_CYCLE)
    assert codes(bad) == ["LRD003"]
    good = LIT_PARTIALS.format(saved=saved, interval="step", scheduler=ONE_CYCLE)
    assert codes(good) == []


def test_twin_plateau_partial_is_silent() -> None:
    source = LIT_PARTIALS.format(
        saved="", interval="epoch",
        scheduler="torch.optim.lr_scheduler.ReduceLROnPlateau, mode='min', patience=3")
    assert codes(source) == []


def test_twin_scheduler_left_out_of_the_hyperparameters_is_not_read() -> None:
    source = LIT_PARTIALS.format(saved='ignore=["scheduler"]', interval="epoch",
                                 scheduler=ONE_CYCLE)
    assert codes(source) == []


HYDRA_TEMPLATE = {
    "configs/train.yaml": """
        defaults:
          - _self_
          - model: mnist
          - trainer: default
    """,
    "configs/model/mnist.yaml": """
        _target_: src.models.mnist_module.MNISTLitModule
        optimizer:
          _target_: torch.optim.Adam
          _partial_: true
          lr: 0.001
        scheduler:
          _target_: torch.optim.lr_scheduler.{scheduler}
          _partial_: true
        {options}
        net:
          _target_: torch.nn.Linear
          in_features: 784
          out_features: 10
    """,
    "configs/trainer/default.yaml": """
        _target_: lightning.pytorch.trainer.Trainer
        max_epochs: 10
    """,
    "src/__init__.py": "",
    "src/models/__init__.py": "",
    "src/models/mnist_module.py": """
        import torch
        from lightning import LightningModule


        class MNISTLitModule(LightningModule):
            def __init__(self, net, optimizer, scheduler):
                super().__init__()
                self.save_hyperparameters(logger=False)
                self.net = net

            def training_step(self, batch, batch_idx):
                x, y = batch
                return torch.nn.functional.cross_entropy(self.net(x), y)

            def configure_optimizers(self):
                optimizer = self.hparams.optimizer(params=self.trainer.model.parameters())
                if self.hparams.scheduler is not None:
                    scheduler = self.hparams.scheduler(optimizer=optimizer)
                    return {
                        "optimizer": optimizer,
                        "lr_scheduler": {
                            "scheduler": scheduler,
                            "monitor": "val/loss",
                            "interval": "epoch",
                            "frequency": 1,
                        },
                    }
                return {"optimizer": optimizer}
    """,
    "src/train.py": """
        import hydra
        from omegaconf import DictConfig


        def train(cfg: DictConfig):
            model = hydra.utils.instantiate(cfg.model)
            trainer = hydra.utils.instantiate(cfg.trainer)
            trainer.fit(model=model)


        @hydra.main(version_base="1.3", config_path="../configs", config_name="train.yaml")
        def main(cfg: DictConfig) -> None:
            train(cfg)


        if __name__ == "__main__":
            main()
    """,
}


PYTHON_FILES = sorted(name for name in HYDRA_TEMPLATE if name.endswith(".py"))


def _template(scheduler: str, options: dict[str, object]) -> dict[str, str]:
    files = dict(HYDRA_TEMPLATE)
    lines = "\n".join(f"  {k}: {v}" for k, v in options.items())
    model = files["configs/model/mnist.yaml"]
    files["configs/model/mnist.yaml"] = model.replace("{scheduler}", scheduler).replace(
        "        {options}", textwrap.indent(lines, "        "))
    return files


def test_hydra_template_partial_scheduler_per_epoch(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    files = _template("OneCycleLR", {"max_lr": 0.01, "total_steps": 20000})
    found = check_project(tmp_path, monkeypatch, files, PYTHON_FILES)
    assert project_codes(found) == ["LRD003"]
    assert found[0][0].endswith("mnist_module.py")


def test_twin_hydra_template_plateau_is_silent(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    files = _template("ReduceLROnPlateau", {"mode": "min", "factor": 0.1, "patience": 10})
    assert check_project(tmp_path, monkeypatch, files, PYTHON_FILES) == []
