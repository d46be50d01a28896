"""Shapes of program behind the dev split's misses (issue 7, devmiss2), each written in our own
words: the bug the model now follows, next to a control that must keep its answer."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from tests.check.helpers import codes

CODES = frozenset(CATALOG)


def run_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                files: dict[str, str]) -> list[tuple[str, int, str]]:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), CODES, jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics]


def codes_of(found: list[tuple[str, int, str]]) -> set[str]:
    return {code for _, _, code in found}


# -- a builder's own `last_epoch=-1` parameter is a fresh start unless its caller gives one ----

_SCHEDULES = """
import math
from torch.optim.lr_scheduler import LambdaLR


def _shape(step, warm, total):
    if step < warm:
        return step / max(1, warm)
    return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))


def warm_then_cosine(optim, warm, total, last_epoch=-1):
    return LambdaLR(optim, lambda s: _shape(s, warm, total){forward})
"""

_STATE = """
import os
import torch
from schedules import warm_then_cosine


class Runner:
    def __init__(self, net, batches, out, total, start=0):
        self.net = net
        self.batches = batches
        self.out = out
        self.count = start
        self.adam = torch.optim.AdamW(net.parameters(), lr=2e-4)
        self.plan = warm_then_cosine(self.adam, 500, total{position})

    def fit(self):
        for b in self.batches:
            loss = self.net(b).mean()
            self.adam.zero_grad()
            loss.backward()
            self.adam.step()
            self.plan.step()
            if self.count % 1000 == 0:
                self.dump()
            self.count += 1

    def dump(self):
        where = os.path.join(self.out, str(self.count))
        torch.save({{"net": self.net.state_dict(), "count": self.count}},
                   os.path.join(where, "net.pt"))
        state = self.adam.state_dict()
        torch.save(state, os.path.join(where, "adam.pt"))

    def restore(self, where):
        blob = torch.load(os.path.join(where, "net.pt"))
        self.net.load_state_dict(blob["net"])
        self.count = blob["count"] + 1
        adam = self.adam
        adam.load_state_dict(torch.load(os.path.join(where, "adam.pt")))
"""


@pytest.mark.parametrize("forward", [", last_epoch", ", last_epoch=last_epoch",
                                     ", last_epoch=-1"])
def test_a_builders_default_last_epoch_is_a_fresh_schedule_the_resume_loses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forward: str) -> None:
    found = run_project(tmp_path, monkeypatch, {
        "schedules.py": _SCHEDULES.format(forward=forward), "state.py": _STATE.format(position="")})
    assert "LRD007" in codes_of(found)


def test_a_builder_given_the_resumed_position_needs_no_scheduler_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: the caller hands the builder the step it resumes at
    found = run_project(tmp_path, monkeypatch, {
        "schedules.py": _SCHEDULES.format(forward=", last_epoch=last_epoch"),
        "state.py": _STATE.format(position=", start - 1")})
    assert "LRD007" not in codes_of(found)


_KEYWORD_LAST_EPOCH = """
import torch


def main(net, batches, epochs, start):
    sgd = torch.optim.SGD(net.parameters(), lr=0.1)
    decay = torch.optim.lr_scheduler.StepLR(sgd, 30, last_epoch={last_epoch})
    for epoch in range(start, epochs):
        for x in batches:
            sgd.zero_grad()
            net(x).sum().backward()
            sgd.step()
        decay.step()
        torch.save({{"net": net.state_dict(), "sgd": sgd.state_dict(), "epoch": epoch}}, "ck.pt")
"""


def test_a_literal_last_epoch_of_minus_one_by_keyword_is_a_fresh_start() -> None:
    assert "LRD007" in codes(_KEYWORD_LAST_EPOCH.format(last_epoch="-1"))


def test_a_last_epoch_read_back_by_keyword_is_a_resume_position() -> None:
    # the control: built at the resumed epoch, it needs no state of its own
    assert "LRD007" not in codes(_KEYWORD_LAST_EPOCH.format(last_epoch="start - 1"))


# -- `isinstance(x, ReduceLROnPlateau)` on an attribute that is None unless a class the user
# -- passes in builds it: in that branch it is a plateau --------------------------------------

_USER_CLASSES = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Forecaster:
    def __init__(self, net, opt_cls=torch.optim.Adam, opt_kw=None, sched_cls=None, sched_kw=None):
        self.net = net
        self.opt_cls, self.opt_kw = opt_cls, dict(opt_kw or {{}})
        self.sched_cls, self.sched_kw = sched_cls, dict(sched_kw or {{}})

    def _setup(self):
        def build(kind, settings):
            return kind(**settings)

        settings = dict(self.opt_kw)
        settings["params"] = self.net.parameters()
        self.opt = build(self.opt_cls, settings)
        if self.sched_cls is not None:
            extra = dict(self.sched_kw)
            extra["optimizer"] = self.opt
            self.sched = build(self.sched_cls, extra)
        else:
            self.sched = None

    def _fit(self, batches, held_out, epochs):
        self._setup()
        for epoch in range(epochs):
            for x, y in batches:
                loss = torch.nn.functional.mse_loss(self.net(x), y)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            if isinstance(self.sched, ReduceLROnPlateau):
                self.sched.step({metric})
            elif self.sched is not None:
                self.sched.step()
            val_loss = self._score(held_out)
            print(epoch, val_loss)

    def _score(self, held_out):
        with torch.no_grad():
            return sum(torch.nn.functional.mse_loss(self.net(x), y).item() for x, y in held_out)
"""


def test_a_plateau_known_by_isinstance_on_a_maybe_none_attribute_is_judged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = run_project(tmp_path, monkeypatch, {"model.py": _USER_CLASSES.format(metric="loss")})
    assert ("model.py", 35, "LRD004") in found


def test_a_plateau_known_by_isinstance_given_the_validation_loss_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: the same program stepping the plateau with the held-out score
    src = _USER_CLASSES.format(metric="self._score(held_out)")
    found = run_project(tmp_path, monkeypatch, {"model.py": src})
    assert "LRD004" not in codes_of(found)


# -- an Accelerator is known by its class, not by the name it is held under ---------------------

_ACCELERATED = """
import torch
from accelerate import Accelerator


class Loop:
    def __init__(self, net, batches, rounds):
        self.{acc} = Accelerator()
        self.adam = torch.optim.AdamW(net.parameters(), lr=1e-3)
        self.cycle = torch.optim.lr_scheduler.OneCycleLR(
            self.adam, max_lr=1e-3, total_steps=rounds * len(batches))
        self.net, self.adam, self.batches = self.{acc}.prepare(net, self.adam, batches)
        self.rounds = rounds

    def run(self):
        for r in range(self.rounds):
            for x in self.batches:
                out = self.net(x).mean()
                self.adam.zero_grad()
                self.{acc}.backward(out)
                self.adam.step()
                self.cycle.step()
            self.{acc}.save({{"net": self.net.state_dict(), "adam": self.adam.state_dict(){extra}}},
                           "last.pt")
"""


@pytest.mark.parametrize("acc", ["accelerator", "acc", "_runner"])
def test_a_save_through_an_accelerator_under_any_name_is_a_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, acc: str) -> None:
    found = run_project(tmp_path, monkeypatch, {"loop.py": _ACCELERATED.format(acc=acc, extra="")})
    assert "LRD007" in codes_of(found)


def test_an_accelerator_checkpoint_with_the_scheduler_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: the same save holding the scheduler's state too
    src = _ACCELERATED.format(acc="_runner", extra=', "cycle": self.cycle.state_dict()')
    found = run_project(tmp_path, monkeypatch, {"loop.py": src})
    assert "LRD007" not in codes_of(found)


def test_a_method_of_an_unknown_object_called_save_is_not_a_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: `self._runner` built by the project, not by Accelerate
    src = _ACCELERATED.format(acc="_runner", extra="").replace(
        "from accelerate import Accelerator", "from store import Accelerator")
    found = run_project(tmp_path, monkeypatch, {"loop.py": src, "store.py": """
class Accelerator:
    def prepare(self, *objects):
        return objects

    def backward(self, loss):
        loss.backward()

    def save(self, obj, path):
        print(sorted(obj), path)
"""})
    assert "LRD007" not in codes_of(found)


# -- a LightningModule's own batch hooks run where Lightning calls them ----------------------------

_LIGHTNING = """
import torch
import pytorch_lightning as pl


class Regressor({base}):
    def __init__(self, max_epochs):
        super().__init__()
        self.head = torch.nn.Linear(8, 1)
        self.max_epochs = max_epochs
        self.plan = None

    def {hook}(self, *args):
        if self.plan is not None:
            self.plan.step()

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.head(x), y)

    def configure_optimizers(self):
        sgd = torch.optim.SGD(self.parameters(), lr=0.05)
        self.plan = torch.optim.lr_scheduler.CosineAnnealingLR(sgd, T_max=self.max_epochs)
        return sgd
"""


@pytest.mark.parametrize("hook", ["on_train_batch_start", "on_batch_start"])
def test_a_scheduler_stepped_in_a_batch_start_hook_steps_every_batch_before_the_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hook: str) -> None:
    src = _LIGHTNING.format(base="pl.LightningModule", hook=hook)
    found = run_project(tmp_path, monkeypatch, {"module.py": src})
    assert {"LRD001", "LRD002"} <= codes_of(found)


def test_a_scheduler_stepped_in_a_batch_end_hook_is_per_batch_after_the_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = _LIGHTNING.format(base="pl.LightningModule", hook="on_train_batch_end")
    found = codes_of(run_project(tmp_path, monkeypatch, {"module.py": src}))
    assert "LRD002" in found and "LRD001" not in found


def test_a_scheduler_stepped_in_an_epoch_end_hook_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: once per epoch, after the epoch's updates, with a horizon in epochs
    src = _LIGHTNING.format(base="pl.LightningModule", hook="on_train_epoch_end")
    found = codes_of(run_project(tmp_path, monkeypatch, {"module.py": src}))
    assert not found & {"LRD001", "LRD002"}


def test_hooks_of_the_same_names_on_a_class_that_is_not_a_lightning_module_are_not_batches(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the control: the project's own base class, whose hooks lrdoctor cannot place
    src = _LIGHTNING.format(base="Stages", hook="on_train_batch_start").replace(
        "import pytorch_lightning as pl", "from stages import Stages")
    found = codes_of(run_project(tmp_path, monkeypatch, {
        "module.py": src, "stages.py": "class Stages:\n    pass\n"}))
    assert not found & {"LRD001", "LRD002"}
