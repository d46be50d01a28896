"""A parameter annotated with one of the project's classes (rcnew48, fresh-2026-12yb).

A trainer often receives its settings object instead of building it:
``def prepare(self, settings: Settings, precision="fp32")`` keeps ``settings`` and calls
``settings.make_optimizer(self.net)``, a method of the project's class that builds and returns
the optimizer and its scheduler. Nobody in the traced code calls ``prepare`` with a value the
checker can follow (the driver builds the settings through a factory), so the parameter was
unknown, the method call unresolved and the scheduler untracked: a scheduler stepped after
``scaler.step`` whatever the scaler did went unreported (LRD005). The annotation says what the
parameter holds; it is now an instance of that class (its methods run on it, its ``__init__``
does not). A parameter whose name already says what it holds keeps that reading.

Programs written for these tests; no third-party code."""

from __future__ import annotations

import pytest

from .helpers import check_project, codes, project_codes

TRAINER = """
import torch
{imports}

{settings}

class Learner:
    def __init__(self, net, batches):
        self.net = net
        self.batches = batches

    def prepare(self, {param}, precision="fp32"):
        self.settings = {held}
        self.opt, self.sched = self.settings.make_optimizer(self.net)
        self.precision = precision
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.precision != "fp32")

    def finish_update(self):
        self.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), 1.0)
        self.scaler.step(self.opt)
        {sched_step}

    def fit(self):
        for inputs, targets in self.batches:
            self.opt.zero_grad()
            with torch.autocast("cuda", enabled=self.precision != "fp32"):
                loss = torch.nn.functional.mse_loss(self.net(inputs), targets)
            self.scaler.scale(loss).backward()
            self.finish_update()
"""

SETTINGS = """
class Settings:
    def __init__(self, lr=0.1, total=1000):
        self.lr = lr
        self.total = total

    def make_optimizer(self, net):
        opt = torch.optim.AdamW(net.parameters(), lr=0.001)
        warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 100))
        return opt, warm
"""

UNGUARDED = """self.scaler.update()
        self.sched.step()"""
GUARDED = """scale = self.scaler.get_scale()
        self.scaler.update()
        if self.scaler.get_scale() >= scale:
            self.sched.step()"""


def program(param: str, sched_step: str = UNGUARDED, settings: str = SETTINGS,
            imports: str = "", held: str = "") -> str:
    name = param.split(":")[0].strip()
    body = TRAINER.format(imports=imports, settings=settings, param=param,
                          held=held or name, sched_step=sched_step)
    return body


# -- the shape: fails on main ------------------------------------------------------------

def test_annotated_settings_parameter_builds_the_scheduler() -> None:
    assert "LRD005" in codes(program("settings: Settings"))


def test_optional_annotation() -> None:
    src = program("settings: Optional[Settings]", imports="from typing import Optional")
    assert "LRD005" in codes(src)


def test_union_with_none_and_string_annotation() -> None:
    assert "LRD005" in codes(program("settings: Settings | None"))
    assert "LRD005" in codes(program('settings: "Settings"'))


def test_settings_class_in_another_module(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "proj/__init__.py": "",
        "proj/settings.py": "import torch\n" + SETTINGS,
        "proj/learner.py": program("settings: Settings",
                                   imports="from proj.settings import Settings", settings=""),
    }
    found = check_project(tmp_path, monkeypatch, files)
    assert "LRD005" in project_codes(found)


# -- negative twins: silent on main and here -------------------------------------------------

def test_scheduler_step_guarded_by_the_scale_is_silent() -> None:
    assert "LRD005" not in codes(program("settings: Settings", sched_step=GUARDED))


def test_unannotated_parameter_stays_unknown() -> None:
    # no annotation, no reading of what it holds: nothing is guessed
    assert "LRD005" not in codes(program("settings"))


def test_annotation_naming_a_library_class_stays_unknown() -> None:
    src = program("settings: Namespace", imports="from argparse import Namespace")
    assert "LRD005" not in codes(src)


def test_settings_that_build_no_scheduler_are_silent() -> None:
    plain = SETTINGS.replace(
        "warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 100))",
        "warm = None",
    )
    src = program("settings: Settings", settings=plain,
                  sched_step="self.scaler.update()\n        if self.sched is not None:\n"
                             "            self.sched.step()")
    assert "LRD005" not in codes(src)
