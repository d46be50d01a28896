"""False alarms of fphunt47's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. A training function that learns whether its scheduler is stepped per epoch from the
   scheduler's class name: ``per_epoch = any(s in str(sched.__class__) for s in
   EPOCH_SCHEDULERS)`` (or ``type(sched).__name__ in EPOCH_SCHEDULERS``) with a module-level
   list of names, then hands the scheduler to the batch step only when the flag is false and
   steps it after the epoch only when it is true. For a OneCycleLR (not in the list) the flag
   is false: it is stepped per batch. LRD003 ("stepped once per epoch") read neither the
   constant list nor the substring test, nor a flag bound to them. Still reported: a list
   that names the class (the epoch step then runs), and an epoch-sized StepLR left out of
   the list (then stepped per batch: LRD002).
2. A plateau stepped with ``loss``, bound to the validation loss when the run has validation
   data and to the training loss only otherwise (``if len(meters["eval"]): loss =
   meters["eval"][...] else: loss = meters["train"][...]``). LRD004 ("stepped with the
   training loss while a validation metric exists") took the fallback for the rule. Still
   reported: the same choice made by a test that says nothing of validation data, or both
   branches reading the training loss.
3. A scheduler stepped inside the batch loop under ``i % (eval_interval * (accum + 1)) == 0``
   (once per evaluation, every ``eval_interval`` updates) beside GradScaler: LRD005 read the
   accumulation count in the period as the accumulation boundary and said the scheduler
   "runs every batch" ahead of skipped updates. Still reported: a step under the
   accumulation boundary itself.
4. A warm-up wrapper that writes the LR while ``self.epoch < self.warmup`` and steps its
   inner cosine otherwise (in ``step()``), and puts the warm-up LR back in
   ``load_state_dict()`` under the same test: LRD008 saw the restore's write and the cosine's
   step in different ``if`` statements as competing. Still reported: a restore that writes
   the LR whatever the phase.
5. (E999) An R (IRkernel) notebook was parsed as Python: its cells are not Python code and
   are not checked, as ruff skips such notebooks. A Python notebook with a syntax error is
   still reported.
6. (E999 message) A PEP 701 f-string whose replacement field runs over several lines joined
   by backslashes was called broken without the hint that Python 3.12 accepts it: the error
   is reported at the field's last line, more lines below the f-string's opening than the
   hint looked back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.engine import check_source
from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, project_codes

# -- 1. a flag from the scheduler's class name ---------------------------------------------------

BY_NAME = """
import torch
from torch.optim.lr_scheduler import OneCycleLR, StepLR

PER_EPOCH = ["ReduceLROnPlateau", "StepLR", "MultiStepLR", "ExponentialLR"]


def batch_update(net, batch, opt, sched):
    opt.zero_grad()
    net(batch).pow(2).mean().backward()
    opt.step()
    if sched is not None:
        sched.step()


def fit(net, loader, opt, sched, epochs):
    per_epoch = {flag}
    for epoch in range(epochs):
        for batch in loader:
            if per_epoch:
                batch_update(net, batch, opt, None)
            else:
                batch_update(net, batch, opt, sched)
        if sched and per_epoch:
            sched.step()


def main(loader):
    net = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = {build}
    fit(net, loader, opt, sched, 20)
"""

ONE_CYCLE = "OneCycleLR(opt, max_lr=0.1, steps_per_epoch=len(loader), epochs=20)"
SUBSTRING = "any(s in str(sched.__class__) for s in PER_EPOCH)"


def by_name(flag: str = SUBSTRING, build: str = ONE_CYCLE, names: str = "") -> str:
    src = BY_NAME.replace("{flag}", flag).replace("{build}", build)
    return src.replace('"ReduceLROnPlateau",', f'"ReduceLROnPlateau",{names}')


def test_one_cycle_left_out_of_a_class_name_list_is_stepped_per_batch() -> None:
    assert codes(by_name()) == []


@pytest.mark.parametrize("flag", [
    "type(sched).__name__ in PER_EPOCH",
    "any(s in type(sched).__name__ for s in PER_EPOCH)",
    'sched.__class__.__name__ in ("StepLR", "LambdaLR")',
    "any(s in str(type(sched)) for s in PER_EPOCH)",
])
def test_other_spellings_of_the_class_name_flag(flag: str) -> None:
    assert codes(by_name(flag)) == []


def test_control_list_that_names_one_cycle_steps_it_per_epoch() -> None:
    assert codes(by_name(names=' "OneCycleLR",')) == ["LRD003"]


def test_control_substring_that_every_torch_class_holds_steps_it_per_epoch() -> None:
    flag = 'any(s in str(sched.__class__) for s in ["lr_scheduler"])'
    assert codes(by_name(flag)) == ["LRD003"]


def test_control_epoch_sized_step_lr_left_out_of_the_list_is_stepped_per_batch() -> None:
    src = by_name(build="StepLR(opt, step_size=30)").replace('"StepLR", ', "")
    assert codes(src) == ["LRD002"]


def test_flag_in_a_helper_module_called_from_the_script(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    helper = BY_NAME.split("def main")[0].replace("{flag}", SUBSTRING)
    script = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR
    from tools.loop import fit

    def main(loader):
        net = torch.nn.Linear(3, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        sched = OneCycleLR(opt, max_lr=0.1, steps_per_epoch=len(loader), epochs=20)
        fit(net, loader, opt, sched, 20)
    """
    files = {"tools/__init__.py": "", "tools/loop.py": helper, "train.py": script}
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == []


# -- 2. the training loss as the fallback of runs without validation data --------------------------

FALLBACK = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Regressor:
    def __init__(self, net):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters(), lr=1e-3)
        self.plateaus = [ReduceLROnPlateau(self.opt, patience=2)]
        self.history = {"train": [], "eval": []}

    def fit(self, loader, eval_loader=None, epochs=10):
        for epoch in range(epochs):
            total = 0.0
            for x, y in loader:
                self.opt.zero_grad()
                loss = torch.nn.functional.l1_loss(self.net(x), y)
                loss.backward()
                self.opt.step()
                total += loss.item()
            self.history["train"].append(total)
            if eval_loader is not None:
                val_loss = self.score(eval_loader)
                self.history["eval"].append(val_loss)
            self.adjust()

    def score(self, loader):
        with torch.no_grad():
            return sum(torch.nn.functional.l1_loss(self.net(x), y).item() for x, y in loader)

    def adjust(self):
        for plateau in self.plateaus:
{choice}
            plateau.step(loss)
"""

IF_ELSE = """\
            if len(self.history["eval"]) > 0:
                loss = self.history["eval"][-1]
            else:
                loss = self.history["train"][-1]"""


def test_training_loss_only_when_no_validation_data_is_not_lrd004() -> None:
    assert codes(FALLBACK.replace("{choice}", IF_ELSE)) == []


def test_same_fallback_as_a_conditional_expression() -> None:
    choice = ('            loss = self.history["eval"][-1] if self.history["eval"] '
              'else self.history["train"][-1]')
    assert codes(FALLBACK.replace("{choice}", choice)) == []


def test_control_choice_by_a_test_that_names_no_validation_data_is_lrd004() -> None:
    choice = IF_ELSE.replace('len(self.history["eval"]) > 0', "self.use_recent")
    assert codes(FALLBACK.replace("{choice}", choice)) == ["LRD004"]


def test_control_validation_loss_only_on_evaluation_epochs_is_lrd004() -> None:
    # the plateau gets the training loss on every epoch that does not evaluate, while a
    # validation loss exists: the test is a period, not whether validation data is there
    choice = IF_ELSE.replace('len(self.history["eval"]) > 0', "len(self.history['train']) % self.eval_every == 0")
    assert codes(FALLBACK.replace("{choice}", choice)) == ["LRD004"]


def test_control_both_sides_reading_the_training_loss_is_lrd004() -> None:
    choice = IF_ELSE.replace('loss = self.history["eval"][-1]', 'loss = self.history["train"][-2]')
    assert codes(FALLBACK.replace("{choice}", choice)) == ["LRD004"]


# -- 3. a scheduler stepped once per evaluation, counted in updates --------------------------------

EVAL_PERIOD = """
import torch


def train(net, loader, val_loader, eval_every, accum, horizon):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=horizon)
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        if {period}:
            with torch.no_grad():
                print(sum(torch.nn.functional.mse_loss(net(a), b).item() for a, b in val_loader))
            sched.step()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(net(x), y) / accum
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
"""


def test_step_once_per_evaluation_period_counted_in_updates_is_not_lrd005() -> None:
    assert codes(EVAL_PERIOD.replace("{period}", "(i + 1) % (eval_every * accum) == 0")) == []


def test_control_step_at_every_update_under_the_scaler_is_lrd005() -> None:
    src = EVAL_PERIOD.replace("{period}", "(i + 1) % accum == 0")
    src = src.replace("        scaler.scale(loss).backward()\n        if (i + 1) % accum == 0:\n",
                      "        scaler.scale(loss).backward()\n        if i >= 0:\n")
    assert "LRD005" in codes(src)


# -- 4. a warm-up wrapper that puts the warm-up LR back on load -------------------------------------

WRAPPER = """
import torch


class WarmThenCosine:
    def __init__(self, opt, warmup, total, peak):
        self.opt = opt
        self.warmup = warmup
        self.peak = peak
        self.epoch = 0
        self.cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total - warmup)

    def step(self):
        if self.epoch < self.warmup:
            for group in self.opt.param_groups:
                group["lr"] = self.peak * (self.epoch + 1) / self.warmup
        else:
            self.cosine.step()
        self.epoch += 1

    def state_dict(self):
        return {"epoch": self.epoch, "cosine": self.cosine.state_dict()}

    def load_state_dict(self, state):
        self.epoch = state["epoch"]
        self.cosine.load_state_dict(state["cosine"])
{restore}


def test_restore_gives_the_same_rates():
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1)
    sched = WarmThenCosine(opt, 5, 50, 0.1)
    for _ in range(8):
        sched.step()
    other_opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(2))], lr=0.1)
    other = WarmThenCosine(other_opt, 5, 50, 0.1)
    other.load_state_dict(sched.state_dict())
    sched.step()
    other.step()
    assert opt.param_groups[0]["lr"] == other_opt.param_groups[0]["lr"]
"""

PHASED = """\
        if self.epoch < self.warmup:
            for group in self.opt.param_groups:
                group["lr"] = self.peak * self.epoch / self.warmup
        else:
            for group in self.opt.param_groups:
                group["lr"] = self.cosine.get_last_lr()[0]"""


def test_warm_up_lr_put_back_on_load_is_not_lrd008() -> None:
    assert codes(WRAPPER.replace("{restore}", PHASED)) == []


def test_control_restore_that_writes_the_lr_whatever_the_phase_is_lrd008() -> None:
    restore = "        for group in self.opt.param_groups:\n            group[\"lr\"] = self.peak"
    assert codes(WRAPPER.replace("{restore}", restore)) == ["LRD008"]


# -- 5. notebooks of another language ----------------------------------------------------------------


def _notebook(source: str, language: str) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                   "outputs": [], "source": source.splitlines(True)}],
        "metadata": {"kernelspec": {"display_name": language, "language": language,
                                    "name": language.lower()},
                     "language_info": {"name": language}},
        "nbformat": 4, "nbformat_minor": 5,
    })


R_CELL = "library(dplyr)\nratings <- read.csv('ratings.csv') %>% filter(n > 5)\n"


def test_r_notebook_is_not_parsed_as_python(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"analysis.ipynb": _notebook(R_CELL, "R")}
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == []


def test_control_python_notebook_with_the_same_text_is_e999(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "analysis.ipynb").write_text(_notebook(R_CELL, "python"))
    monkeypatch.chdir(tmp_path)
    report = check_files(["analysis.ipynb"], frozenset(CATALOG), jobs=1)
    assert len(report.errors) == 1 and "syntax error" in report.errors[0]


# -- 6. the PEP 701 hint for a long replacement field -----------------------------------------------

LONG_FIELD = """
def report(cfg):
    print(
        f"cache size: {\\
        (cfg.layers * \\
        cfg.pages * \\
        cfg.page_size * \\
        2 * cfg.heads * \\
        cfg.head_dim * 2) / (1024. ** 3) \\
        } GiB."
    )
"""


def test_backslashes_over_many_lines_of_a_field_are_checked() -> None:
    # (fphunt68) valid on Python 3.12+, and now checked on older Pythons too: the f-string is
    # rewritten into one they parse (`lrdoctor.check.pep701`)
    problems = [p.message for p in check_source(LONG_FIELD, "report.py").problems
                if p.code == "E999"]
    assert problems == []
