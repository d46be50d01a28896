"""Shapes behind the first sight of the fresh-2026-12za batch (rcnew74, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A builder picks the scheduler class from torch's scheduler module by a setting and builds it
  straight into the mapping it returns (``{"main": getattr(lr_scheduler, cfg["name"])(
  optimizer, **kw)}``); the trainer keeps the mapping, steps ``self.schedulers["main"]`` once
  per epoch and saves a checkpoint with the optimizer but not the scheduler. lrdoctor knew such
  a picked class as a scheduler only when the call was bound to a name, so the entry of the
  mapping was nothing to it and the missing scheduler state (LRD007) went unseen. Python: the
  call builds one of torch's schedulers wherever its result goes (a mapping's entry, a list's
  element). Silent twin: the same program saving the scheduler's state.
- A base trainer class (its own file) saves the optimizer without the scheduler, and a subclass
  (another file) steps a GradScaler in its training method. The base class traced alone sees
  no scaler, the subclass's trace sees both; lrdoctor kept whichever finding at the save came
  first, the base class's, naming the scheduler only. Python: the program that runs is the
  subclass's, whose checkpoint lacks both; of two findings at one place the one naming more of
  what is missing is kept.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import codes, messages

PICKED_INTO_MAPPING = """
import torch
from torch.optim import lr_scheduler


def build_schedules(cfg, optimizer, epochs):
    kw = dict(cfg.get("params", {}), T_max=epochs)
    return {"main": getattr(lr_scheduler, cfg["name"])(optimizer, **kw)}


class Runner:
    def __init__(self, net, batches, cfg, epochs):
        self.net = net
        self.batches = batches
        self.epochs = epochs
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=3e-4)
        self.schedules = build_schedules(cfg, self.optimizer, epochs)

    def run(self):
        for epoch in range(self.epochs):
            for x, y in self.batches:
                self.optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(self.net(x), y)
                loss.backward()
                self.optimizer.step()
            self.schedules["main"].step()
            torch.save({"epoch": epoch, "net": self.net.state_dict(),
                        "optimizer": self.optimizer.state_dict(){extra}}, "last.pt")
"""

PICKED_INTO_LIST = """
import torch
import torch.optim.lr_scheduler as sched_lib


def train(net, batches, opts):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    schedules = [getattr(sched_lib, opts.sched)(optimizer, **opts.sched_kwargs)]
    for epoch in range(opts.epochs):
        for x, y in batches:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            optimizer.step()
        for s in schedules:
            s.step()
        torch.save({"net": net.state_dict(), "optimizer": optimizer.state_dict(){extra}},
                   "ckpt.pt")
"""


def test_a_picked_scheduler_built_into_a_mapping_and_left_out_of_the_checkpoint_is_found() -> None:
    src = PICKED_INTO_MAPPING.replace("{extra}", "")
    assert codes(src) == ["LRD007"]
    assert "self.schedules['main']" in messages(src)[0]


def test_a_picked_scheduler_built_into_a_mapping_and_saved_is_silent() -> None:
    src = PICKED_INTO_MAPPING.replace(
        "{extra}", ',\n                        "sched": self.schedules["main"].state_dict()')
    assert codes(src) == []


def test_a_picked_scheduler_built_into_a_list_and_left_out_of_the_checkpoint_is_found() -> None:
    assert codes(PICKED_INTO_LIST.replace("{extra}", "")) == ["LRD007"]


def test_a_picked_scheduler_built_into_a_list_and_saved_is_silent() -> None:
    src = PICKED_INTO_LIST.replace("{extra}", ', "sched": schedules[0].state_dict()')
    assert codes(src) == []


BASE = """
import torch
from torch.optim.lr_scheduler import MultiStepLR


class Fitter:
    def __init__(self, net, batches, epochs):
        self.net = net
        self.batches = batches
        self.epochs = epochs
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.05)
        self.schedule = MultiStepLR(self.optimizer, milestones=[60, 80])

    def one_epoch(self, epoch):
        raise NotImplementedError

    def fit(self):
        for epoch in range(self.epochs):
            self.one_epoch(epoch)
            self.schedule.step()
            self.keep(epoch)

    def keep(self, epoch):
        torch.save({"epoch": epoch, "net": self.net.state_dict(),
                    "optimizer": self.optimizer.state_dict(){extra}}, "last.pt")
"""

HALF = """
import torch

from fitters.base import Fitter


class HalfFitter(Fitter):
    def __init__(self, net, batches, epochs):
        super().__init__(net, batches, epochs)
        self.scaler = torch.amp.GradScaler("cuda")

    def one_epoch(self, epoch):
        for x, y in self.batches:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str) -> list[tuple[str, str]]:
    files = {"fitters/__init__.py": "", "fitters/base.py": BASE.replace("{extra}", extra),
             "fitters/half.py": HALF}
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), frozenset(CATALOG), jobs=1)
    assert report.errors == []
    return [(d.code, d.message) for d in report.diagnostics]


def test_a_base_class_checkpoint_names_what_its_subclass_leaves_out_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _project(tmp_path, monkeypatch, "")
    assert [code for code, _ in found] == ["LRD007"]
    message = found[0][1]
    assert "MultiStepLR" in message and "GradScaler" in message


def test_a_base_class_checkpoint_with_scheduler_and_scaler_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = (',\n                    "schedule": self.schedule.state_dict(),'
             '\n                    "scaler": getattr(self, "scaler", None) and '
             'self.scaler.state_dict()')
    assert _project(tmp_path, monkeypatch, extra) == []


# A base trainer class builds a GradScaler (its module has no autocast) and saves the optimizer
# and the scheduler but not the scaler; the subclass, in a module the base does not import,
# runs every forward pass under autocast to bfloat16 and steps through the scaler. bfloat16 has
# float32's exponent range: the scaled gradients never overflow and the scaler never skips, so
# its missing state loses nothing a resumed run needs, and a scheduler stepped after every
# `scaler.step()` stays in step with the updates. lrdoctor looked for the autocast only in the
# scaler's own module and its imports, saw none, and took the scaler for one that may skip
# (LRD007 naming the scaler, LRD005). Twins: the same subclass autocasting to float16.

SCALED_BASE = """
import torch
from torch.optim.lr_scheduler import OneCycleLR


class Loop:
    def __init__(self, net, batches, epochs):
        self.net = net
        self.batches = batches
        self.epochs = epochs
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
        self.schedule = OneCycleLR(self.optimizer, max_lr=1e-3,
                                   total_steps=epochs * len(batches))
        self.scaler = torch.amp.GradScaler("cuda")

    def one_epoch(self, epoch):
        raise NotImplementedError

    def fit(self):
        for epoch in range(self.epochs):
            self.one_epoch(epoch)
            torch.save({"epoch": epoch, "net": self.net.state_dict(),
                        "optimizer": self.optimizer.state_dict(),
                        "schedule": self.schedule.state_dict()}, "last.pt")
"""

CAST_SUB = """
import torch

from loops.base import Loop


class CastLoop(Loop):
    def one_epoch(self, epoch):
        for x, y in self.batches:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.{dtype}):
                loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.schedule.step()
"""


def _cast_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dtype: str) -> list[str]:
    files = {"loops/__init__.py": "", "loops/base.py": SCALED_BASE,
             "loops/cast.py": CAST_SUB.replace("{dtype}", dtype)}
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), frozenset(CATALOG), jobs=1)
    assert report.errors == []
    return sorted(d.code for d in report.diagnostics)


def test_a_scaler_used_under_bfloat16_in_a_subclass_module_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _cast_project(tmp_path, monkeypatch, "bfloat16") == []


def test_a_scaler_used_under_float16_in_a_subclass_module_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _cast_project(tmp_path, monkeypatch, "float16") == ["LRD005", "LRD007"]
