"""False alarms found by running ``lrdoctor check`` over whole public repositories (issue 7,
bench/realcode/FPHUNT.md): each test is the general shape in our own words, with the
control that must still be reported where there is one."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.engine import check_file
from lrdoctor.check.runner import check_files
from tests.check.helpers import codes, findings

# -- a branch that returns early: what follows the `if` never shares a pass with it ----------

_ENGINE_BRANCH = """
import torch
from torch.optim.lr_scheduler import LambdaLR

def train_step(engine, model, optimizer, scheduler, batch, use_engine):
    if use_engine:
        loss = engine(batch).mean()
        engine.backward(loss)
        engine.step()
        scheduler.step()
{leave}
    optimizer.zero_grad()
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()
    scheduler.step()
    return loss.item()

def main(engine, model, loader, use_engine):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))
    for batch in loader:
        train_step(engine, model, optimizer, scheduler, batch, use_engine)
"""


def test_scheduler_step_in_an_engine_branch_that_returns_is_not_before_the_other_update() -> None:
    assert codes(_ENGINE_BRANCH.format(leave="        return loss.item()")) == []


def test_engine_branch_that_falls_through_still_steps_before_the_update() -> None:
    # without the `return` both steps run in one call: the first is before optimizer.step()
    assert codes(_ENGINE_BRANCH.format(leave="")) == ["LRD001"]


def test_scheduler_step_skipped_by_continue_is_exclusive_with_it() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    def train(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=10)
        for epoch in range(epochs):
            for x in loader:
                loss = model(x).sum()
                if not torch.isfinite(loss):
                    scheduler.step()
                    continue
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
    """
    # the step in the skipped-batch branch never runs before an update of the same pass;
    # the per-batch StepLR is another matter (a horizon rule), not an order problem
    assert "LRD001" not in codes(src)


# -- an optimizer wrapped by a master-weights wrapper updates float32 copies -------------------

_MASTER_COPIES = """
import torch
from apex.fp16_utils import FP16_Optimizer

def main(model, loader, args):
    if args.fp16:
        model = model.half()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
{wrap}
    for x in loader:
        loss = model(x).float().mean()
        if args.fp16:
            optimizer.backward(loss)
        else:
            loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""


def test_adam_wrapped_in_fp16_optimizer_updates_float32_master_weights() -> None:
    wrap = "    if args.fp16:\n        optimizer = FP16_Optimizer(optimizer, dynamic_loss_scale=True)"
    assert codes(_MASTER_COPIES.format(wrap=wrap)) == []


def test_adam_on_a_half_model_without_master_weights_is_still_lrd102() -> None:
    assert codes(_MASTER_COPIES.format(wrap="")) == ["LRD102"]


# -- a GradScaler the program never uses loses nothing on resume -------------------------------

_HELPER_SCALER = """
import torch

def make_trainer(model, optimizer, use_scaler=False):
    scaler = None
    if use_scaler:
        scaler = torch.amp.GradScaler("cuda")

    def train_step(x):
        optimizer.zero_grad()
        loss = model(x).sum()
{backward}
        return loss.item()

    return train_step, scaler

def main(model, loader, path, use_amp):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_step, scaler = make_trainer(model, optimizer, use_scaler={ask})
    for x in loader:
        train_step(x)
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict()}}, path)
"""


def test_scaler_a_helper_builds_but_nothing_uses_is_not_missing_from_the_checkpoint() -> None:
    # asked for, built, and still never used: the steps go through optimizer.step()
    backward = "        loss.backward()\n        optimizer.step()"
    assert codes(_HELPER_SCALER.format(backward=backward, ask="use_amp")) == []


def test_scaler_that_scales_the_loss_is_still_missing_from_the_checkpoint() -> None:
    backward = ("        scaler.scale(loss).backward()\n        scaler.step(optimizer)\n"
                "        scaler.update()")
    assert codes(_HELPER_SCALER.format(backward=backward, ask="use_amp")) == ["LRD007"]


# -- a guard on a counter the loop computes from its variables is a guard on the pass ----------

_DERIVED_COUNTER = """
import torch
from torch.optim.lr_scheduler import LambdaLR

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-5)
    scheduler = LambdaLR(optimizer, lambda it: 1.01 ** it)
    for epoch in range(epochs):
        for i, x in enumerate(loader):
            {counter}
            if step > 0:
                scheduler.step()
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
"""


def test_step_guarded_by_a_global_iteration_above_zero_skips_the_first_pass() -> None:
    # `step` is 0 on the first pass: the first update runs at the first LR value
    assert codes(_DERIVED_COUNTER.format(counter="step = epoch * len(loader) + i")) == []


def test_step_guarded_by_a_counter_that_is_already_positive_still_runs_first() -> None:
    assert codes(_DERIVED_COUNTER.format(counter="step = i + 1")) == ["LRD001"]


# -- an update in another branch of the chain that offers scaler.step is an alternative path ---

_STEP_CHAIN = """
import torch
import torch_xla.core.xla_model as xm

class Trainer:
    def __init__(self, model, use_amp, on_tpu):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.use_amp = use_amp
        self.on_tpu = on_tpu
        self.scaler = torch.amp.GradScaler("cuda")

    def backward(self, loss):
        if self.use_amp:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()

    def train(self, loader):
        for x in loader:
            self.backward(self.model(x).sum())
{chain}
            self.optimizer.zero_grad()
"""

_CHAIN = """\
            if self.on_tpu:
                xm.optimizer_step(self.optimizer)
            elif self.use_amp:
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                self.optimizer.step()"""


def test_tpu_step_in_the_chain_that_routes_amp_to_the_scaler_is_not_lrd109() -> None:
    assert codes(_STEP_CHAIN.format(chain=_CHAIN)) == []


def test_plain_step_after_a_scaled_backward_with_no_scaler_step_is_still_lrd109() -> None:
    chain = "            self.optimizer.step()"
    assert codes(_STEP_CHAIN.format(chain=chain)) == ["LRD109"]


# -- manual LR writes that do not compete with the scheduler -----------------------------------

_PLATEAU_WARMUP = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau

def train(model, loader, val_loss_of, base_lr, warmup_steps, eval_every):
    optimizer = torch.optim.Adam(model.parameters(), lr=base_lr)
    scheduler = ReduceLROnPlateau(optimizer, factor=0.5, patience=2)
    step = 0
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        step += 1
{write}
        if step % eval_every == 0:
            scheduler.step(val_loss_of(model))
"""


def test_warmup_written_below_its_bound_before_reduce_on_plateau_is_not_lrd008() -> None:
    write = ("        if step < warmup_steps:\n"
             "            optimizer.param_groups[0]['lr'] = base_lr * step / warmup_steps")
    assert codes(_PLATEAU_WARMUP.format(write=write)) == []


def test_lr_written_every_step_under_reduce_on_plateau_is_still_lrd008() -> None:
    # the plateau's reductions are overwritten at the next batch: it never acts
    write = "        optimizer.param_groups[0]['lr'] = base_lr * 0.999 ** step"
    assert codes(_PLATEAU_WARMUP.format(write=write)) == ["LRD008"]


def test_lr_set_once_after_resuming_before_training_is_not_lrd008() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import CosineAnnealingLR

    def main(model, loader, epochs, lr=None, checkpoint=None):
        optimizer = torch.optim.Adam(model.parameters(), lr=lr or 3e-4)
        scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
        if checkpoint is not None:
            optimizer.load_state_dict(checkpoint["optimizer"])
            scheduler.load_state_dict(checkpoint["scheduler"])
        if lr is not None:
            optimizer.param_groups[0]["lr"] = lr  # a new LR for the resumed run
        for epoch in range(epochs):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()
    """
    assert codes(src) == []


# -- a scheduler stepped only with its position loses nothing on resume ------------------------


def test_scheduler_picked_by_setting_and_stepped_with_a_fractional_epoch_is_not_lrd007() -> None:
    # the helper receives one of several schedulers (or an unknown warm-up wrapper of it) and
    # names the position at every step: a resumed run recomputes the LR from the epoch
    src = """
    import torch
    from warmup_lib import WarmupWrapper


    def run_epoch(model, loader, optimizer, epoch, scheduler=None):
        n = len(loader)
        for i, x in enumerate(loader):
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            if scheduler is not None:
                scheduler.step(epoch - 1 + float(i + 1) / n)


    def main(model, loader, cfg, path):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        if cfg["schedule"] == "cosine":
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
        else:
            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.97 ** e)
        if cfg["warmup"]:
            scheduler = WarmupWrapper(optimizer, after_scheduler=scheduler)
        for epoch in range(1, cfg["epochs"] + 1):
            run_epoch(model, loader, optimizer, epoch, scheduler=scheduler)
            state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
            torch.save(state, path)
    """
    assert codes(src) == []


def test_scheduler_stepped_plainly_by_the_helper_is_still_missing_from_the_checkpoint() -> None:
    src = """
    import torch
    from warmup_lib import WarmupWrapper


    def run_epoch(model, loader, optimizer, epoch, scheduler=None):
        n = len(loader)
        for i, x in enumerate(loader):
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            if scheduler is not None:
                scheduler.step(epoch - 1 + float(i + 1) / n)


    def main(model, loader, cfg, path):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        if cfg["schedule"] == "cosine":
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
        else:
            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.97 ** e)
        if cfg["warmup"]:
            scheduler = WarmupWrapper(optimizer, after_scheduler=scheduler)
        for epoch in range(1, cfg["epochs"] + 1):
            run_epoch(model, loader, optimizer, epoch, scheduler=scheduler)
            state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
            torch.save(state, path)
    """.replace("scheduler.step(epoch - 1 + float(i + 1) / n)", "scheduler.step()")
    assert codes(src) == ["LRD007"]


# -- an optimizer rebuilt from a live optimizer's state is not a resume ------------------------

_REBUILT = """
import torch
from torch.optim.lr_scheduler import StepLR

def rebuild(optimizer, params, path):
    state = {source}
    new_optimizer = type(optimizer)(params, **optimizer.defaults)
    new_optimizer.load_state_dict(state)
    return new_optimizer

def main(model, loader, epochs, path):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizer = rebuild(optimizer, list(model.parameters()), path)
    scheduler = StepLR(optimizer, step_size=10)
    for epoch in range(epochs):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
"""


def test_optimizer_rebuilt_from_the_live_optimizers_state_is_not_a_resume() -> None:
    assert codes(_REBUILT.format(source="optimizer.state_dict()")) == []


def test_optimizer_loaded_from_a_file_without_its_scheduler_is_still_lrd007() -> None:
    source = 'torch.load(path, weights_only=True)["optimizer"]'
    assert codes(_REBUILT.format(source=source)) == ["LRD007"]


# -- get_lr() called the way step() calls it, by code that keeps the scheduler's position ------

_OWN_POSITION = """
import torch
from torch.optim.lr_scheduler import ExponentialLR

class PositionKeeper:
    def __init__(self, optimizer):
        self.lr_scheduler = ExponentialLR(optimizer, gamma=0.9)

    def value_now(self):
{flag_on}
        values = self.lr_scheduler.get_lr()
{flag_off}
        return values[0]

    def advance(self):
        self.lr_scheduler.last_epoch += 1

def main(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    keeper = PositionKeeper(optimizer)
    for x in loader:
        for group in optimizer.param_groups:
            group["lr"] = keeper.value_now()
        model(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        keeper.advance()
"""


def test_get_lr_inside_the_within_step_flag_is_the_schedulers_own_computation() -> None:
    src = _OWN_POSITION.format(
        flag_on="        self.lr_scheduler._get_lr_called_within_step = True",
        flag_off="        self.lr_scheduler._get_lr_called_within_step = False",
    )
    assert "LRD015" not in codes(src)


def test_get_lr_read_for_logging_is_still_lrd015() -> None:
    assert "LRD015" in codes(_OWN_POSITION.format(flag_on="", flag_off=""))


def test_a_different_lr_written_once_before_a_chainable_schedule_is_still_lrd008() -> None:
    # meant as "a lower LR for the first epoch", but MultiStepLR goes on from it for good
    src = """
    import torch
    from torch.optim.lr_scheduler import MultiStepLR

    def main(model, loader, epochs, lr, deep):
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        scheduler = MultiStepLR(optimizer, milestones=[100, 150])
        if deep:
            for group in optimizer.param_groups:
                group["lr"] = lr * 0.1
        for epoch in range(epochs):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()
    """
    assert codes(src) == ["LRD008"]


# -- rcnew's scan of 30 more repositories (FPHUNT.md, "fphunt3") ----------------------------

_WRAPPER_WITH_SCALER_PARAMETER = """
import numpy as np
import torch


class WarmupOptimizer:
    def __init__(self, model, warmup_steps, d_model):
        self.optimizer = torch.optim.Adam(model.parameters(), betas=(0.9, 0.98), eps=1e-9)
        self.warmup_steps = warmup_steps
        self.scale = d_model ** -0.5
        self.current_step = 0

    def step_and_update_lr(self, scaler):
        self.current_step += 1
        lr = self.scale * np.min([self.current_step ** -0.5,
                                  self.current_step * self.warmup_steps ** -1.5])
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        scaler.step(self.optimizer)
        return lr
"""


def test_a_helper_that_steps_a_scaler_handed_in_leaves_the_update_to_its_caller() -> None:
    # the training script calls scaler.update() right after step_and_update_lr(scaler)
    assert codes(_WRAPPER_WITH_SCALER_PARAMETER) == []


def test_a_script_that_builds_the_scaler_and_never_updates_it_is_still_lrd110() -> None:
    src = _WRAPPER_WITH_SCALER_PARAMETER + """

def train(model, loader, steps):
    optimizer = WarmupOptimizer(model, 4000, 256)
    scaler = torch.amp.GradScaler("cuda")
    for batch in loader:
        with torch.autocast("cuda"):
            loss = model(batch).mean()
        scaler.scale(loss).backward()
        optimizer.step_and_update_lr(scaler)
        optimizer.optimizer.zero_grad()
"""
    assert codes(src) == ["LRD110"]


def _notebook(*cells: str) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                   "source": cell.splitlines(True)} for cell in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })


_COLAB_CELLS = (
    "%%shell\ngit clone https://example.org/project.git\ncd project\npip install -r req.txt",
    "%cd project\n\nimport torch\nmodel = torch.nn.Linear(4, 1)",
    "!python export.py \\\n    --weights weights/best.pt \\\n    --simplify\nprint('exported')",
)


def test_colab_shell_cells_and_continued_shell_escapes_are_not_syntax_errors(
    tmp_path: Path,
) -> None:
    path = tmp_path / "demo.ipynb"
    path.write_text(_notebook(*_COLAB_CELLS))
    result = check_file(str(path))
    assert result.errors == [] and result.diagnostics == []


def test_a_cell_that_really_is_broken_is_still_reported(tmp_path: Path) -> None:
    path = tmp_path / "demo.ipynb"
    path.write_text(_notebook(*_COLAB_CELLS, "def broken(:\n    pass"))
    result = check_file(str(path))
    assert len(result.errors) == 1 and "cell 4:line 1: syntax error" in result.errors[0]


# -- rcnew's second scan (23 more repositories) ----------------------------------------------

_WRAPPER_STATE = """
import torch
from torch import nn


class OptimizerWithSchedule(nn.Module):
    def __init__(self, optimizer, warmup_steps):
        super().__init__()
        self.optimizer = optimizer
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: min(1.0, (step + 1) / warmup_steps))

    def state_dict(self):
{wrapper_state}

    def load_state_dict(self, pkg):
        self.optimizer.load_state_dict(pkg["optimizer"])
        if "scheduler" in pkg:
            self.scheduler.load_state_dict(pkg["scheduler"])

    def step(self):
        self.optimizer.step()
        self.scheduler.step()


class Trainer:
    def __init__(self, model, lr=3e-4):
        self.model = model
        self.optim = OptimizerWithSchedule(torch.optim.AdamW(model.parameters(), lr=lr), 500)
        self.steps = 0

    def save(self, path):
        pkg = dict(model=self.model.state_dict(), optim=self.optim.state_dict(), steps=self.steps)
        torch.save(pkg, path)

    def load(self, path):
        pkg = torch.load(path, map_location="cpu")
        self.model.load_state_dict(pkg["model"])
        self.optim.load_state_dict(pkg["optim"])
        self.steps = pkg["steps"]

    def train(self, loader, path):
        for batch in loader:
            loss = self.model(batch).mean()
            loss.backward()
            self.optim.step()
            self.optim.optimizer.zero_grad()
            self.steps += 1
            if self.steps % 1000 == 0:
                self.save(path)
"""


def test_a_wrapper_whose_state_dict_holds_its_scheduler_saves_the_scheduler() -> None:
    src = _WRAPPER_STATE.replace("{wrapper_state}", (
        "        return dict(optimizer=self.optimizer.state_dict(),\n"
        "                    scheduler=self.scheduler.state_dict())"))
    assert codes(src) == []


def test_a_wrapper_whose_state_dict_leaves_out_its_scheduler_is_still_lrd007() -> None:
    src = _WRAPPER_STATE.replace("{wrapper_state}",
                                 "        return dict(optimizer=self.optimizer.state_dict())")
    assert codes(src) == ["LRD007"]


_BEST_WEIGHTS_BESIDE_CHECKPOINT = """
import torch


def train(model, loader, val_loader, epochs, use_amp):
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    best = float("inf")
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda", enabled=use_amp):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        val = sum(torch.nn.functional.cross_entropy(model(x), y).item() for x, y in val_loader)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
{more}                    "epoch": epoch}, "checkpoint.pt")
        if val < best:
            best = val
            torch.save({"model": model.state_dict()}, "best-model.pt")
"""


def test_a_weights_only_save_beside_a_checkpoint_is_not_a_checkpoint_to_judge() -> None:
    # the checkpoint lacks the scaler (reported once, at its own save); the best-weights file
    # written next to it holds no optimizer and is not a checkpoint to resume from
    found = codes(_BEST_WEIGHTS_BESIDE_CHECKPOINT.replace("{more}", ""))
    assert found == ["LRD007"]


def test_the_checkpoint_beside_it_is_complete_once_it_holds_the_scaler() -> None:
    src = _BEST_WEIGHTS_BESIDE_CHECKPOINT.replace(
        "{more}", '                    "scaler": scaler.state_dict(),\n')
    assert codes(src) == []


_SPLITS_OF_A_CORPUS = """
import torch
from torch.utils.data import DataLoader
from torch.optim.lr_scheduler import ReduceLROnPlateau


def train(model, corpus_splits, evaluate, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=20.0)
    scheduler = ReduceLROnPlateau(optimizer, factor=0.25, patience=3)
    splits = DataLoader(corpus_splits, shuffle=True)
    for epoch in range(epochs):
        for split in splits:
{inner}
            val_loss = evaluate(model)
            scheduler.step(val_loss)
"""


def test_a_plateau_stepped_once_per_corpus_split_is_not_stepped_per_batch() -> None:
    # each item of the outer loader is a split of the corpus; the batches are the inner loop,
    # where the optimizer steps
    inner = """\
            batches = DataLoader(split, batch_size=32)
            for batch in batches:
                loss = model(batch).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()"""
    assert codes(_SPLITS_OF_A_CORPUS.replace("{inner}", inner)) == []


def test_a_plateau_stepped_in_the_loop_that_holds_the_updates_is_still_lrd002() -> None:
    inner = """\
            loss = model(split).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()"""
    assert codes(_SPLITS_OF_A_CORPUS.replace("{inner}", inner)) == ["LRD002"]


_TWO_PROGRAMS = """
import torch


def pretrain(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        for x in loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        torch.save({"model": model.state_dict(), "opt": optimizer.state_dict(),
                    "epoch": epoch}, "latest.pth.tar")


def linear_eval(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        torch.save({"model": model.state_dict(), "opt": optimizer.state_dict(),
{scaler_saved}                    "epoch": epoch}, "linear.pth.tar")


def main(model, loader, epochs, lin_eval):
    if lin_eval:
        linear_eval(model, loader, epochs)
    else:
        pretrain(model, loader, epochs)
"""


def test_a_scaler_of_the_other_program_is_not_missing_from_this_ones_checkpoint() -> None:
    src = _TWO_PROGRAMS.replace("{scaler_saved}",
                                '                    "scaler": scaler.state_dict(),\n')
    assert codes(src) == []


def test_the_program_that_uses_the_scaler_still_has_to_save_it() -> None:
    assert codes(_TWO_PROGRAMS.replace("{scaler_saved}", "")) == ["LRD007"]


def test_pip_install_without_a_percent_sign_is_ipythons_automagic(tmp_path: Path) -> None:
    path = tmp_path / "tutorial.ipynb"
    path.write_text(_notebook("pip install -r requirements.txt",
                              "import torch\npip = torch.__version__\nprint(pip)"))
    result = check_file(str(path))
    assert result.errors == [] and result.diagnostics == []


def test_shell_typed_into_a_code_cell_without_a_bang_is_still_a_syntax_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "tutorial.ipynb"
    path.write_text(_notebook("python -u run.py --model TimesNet"))
    result = check_file(str(path))
    assert len(result.errors) == 1 and "cell 1:line 1: syntax error" in result.errors[0]


# -- fphunt4 (28 more repositories) ---------------------------------------------------------

# A cell whose code starts indented (pasted from inside a function, or typed with a stray
# leading space): IPython drops the blank lines before the code and removes the first line's
# indentation from every line that starts with it, so the cell runs.
_INDENTED_CELLS = (
    "import torch\nfrom torch import nn",
    " # a stray space before every line\n model = nn.Linear(4, 2)\n model",
    "\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "    for step in range(3):\n        opt.step()\n    scaler = torch.cuda.amp.GradScaler()",
)


def test_a_cell_whose_code_starts_indented_runs_as_ipython_dedents_it(tmp_path: Path) -> None:
    path = tmp_path / "lesson.ipynb"
    path.write_text(_notebook(*_INDENTED_CELLS))
    result = check_file(str(path))
    assert result.errors == []
    # the cell is checked, and what it holds is still found, at its own cell and line
    assert [(d.code, d.cell, d.line) for d in result.diagnostics] == [("LRD101", 3, 5)]


def test_a_line_indented_below_a_flush_first_line_is_still_a_syntax_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lesson.ipynb"
    path.write_text(_notebook("import torch", "x = torch.ones(2)\n    y = x * 2"))
    result = check_file(str(path))
    assert len(result.errors) == 1 and "cell 2:line 2: syntax error" in result.errors[0]


# `torch.GradScaler` (torch >= 2.3) is torch.amp.GradScaler at the top level: a `try` that
# imports or calls it is the new API, and the torch.cuda.amp spelling in its `except` is the
# fallback for an older torch (here chosen again by a flag the fallback sets).
_TOP_LEVEL_SCALER = """
import torch
try:
{new}
    OLD_TORCH = False
except (ImportError, AttributeError):
    from torch.cuda.amp import GradScaler
    OLD_TORCH = True


class Trainer:
    def __init__(self, device):
        self.scaler = (GradScaler() if OLD_TORCH else GradScaler("cuda")) \\
            if device.type == "cuda" else None
"""


def test_a_fallback_for_torch_without_the_top_level_grad_scaler_is_not_lrd101() -> None:
    assert codes(_TOP_LEVEL_SCALER.format(new="    from torch import GradScaler")) == []
    assert codes(_TOP_LEVEL_SCALER.format(
        new="    GradScaler = torch.GradScaler")) == []


def test_a_try_that_imports_something_else_still_leaves_the_old_spelling_lrd101() -> None:
    # the `try` does not reach the new API: its `except` is not a version fallback
    assert codes(_TOP_LEVEL_SCALER.format(new="    from torch import nn")) == [
        "LRD101", "LRD101"]


# -- fphunt5: an ExponentialLR decayed every N batches by a period of its own -----------------

_PERIODIC_DECAY = """
import torch
from torch.optim.lr_scheduler import ExponentialLR

def train(model, loader, epochs, accum):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = ExponentialLR(optimizer, 0.9)
    for epoch in range(epochs):
        for it, batch in enumerate(loader):
            loss = model(batch).mean()
            loss.backward()
{update}
{epoch_step}
"""


def test_exponential_decay_every_two_thousand_batches_is_not_stepped_per_batch() -> None:
    # the decay runs on a period of its own (no update shares the test): once per 2000
    # batches, plus once per epoch, not 0.9x every batch
    assert codes(_PERIODIC_DECAY.format(update="""\
            optimizer.step()
            optimizer.zero_grad()
            if (it + 1) % 2000 == 0:
                scheduler.step()""", epoch_step="        scheduler.step()")) == []


def test_exponential_decay_stepped_with_every_update_is_still_lrd002() -> None:
    assert codes(_PERIODIC_DECAY.format(update="""\
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()""", epoch_step="")) == ["LRD002"]
    # the period an accumulation guard shares with the update is every update, not a choice
    assert codes(_PERIODIC_DECAY.format(update="""\
            if (it + 1) % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()""", epoch_step="")) == ["LRD002"]


# -- fphunt5: a GradScaler built afresh in every call of the per-epoch function ----------------

_SCALER_PER_EPOCH = """
import torch

class Trainer:
    def __init__(self, model, use_amp):
        self.model = model
        self.use_amp = use_amp
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
{init}
    def train_epoch(self, loader):
{local}
        for x, y in loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", enabled=self.use_amp):
                loss = self.model(x, y)
            {name}.scale(loss).backward()
            {name}.step(self.optimizer)
            {name}.update()

    def save(self, path, epoch):
        torch.save({{"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()}}, path)

    def fit(self, loader, epochs, path):
        for epoch in range(epochs):
            self.train_epoch(loader)
            self.save(path, epoch)
"""


def test_a_scaler_built_afresh_every_epoch_has_no_state_for_the_checkpoint() -> None:
    # every epoch starts from a new scaler; a resumed run is no worse off than the next
    # epoch, and where the checkpoint is written no scaler exists
    assert codes(_SCALER_PER_EPOCH.format(
        init="", name="scaler",
        local='        scaler = torch.amp.GradScaler("cuda", enabled=self.use_amp)')) == []


def test_a_scaler_kept_across_epochs_is_still_missing_from_the_checkpoint() -> None:
    assert codes(_SCALER_PER_EPOCH.format(
        init='        self.scaler = torch.amp.GradScaler("cuda", enabled=use_amp)',
        name="self.scaler", local="")) == ["LRD007"]


# -- fphunt5: an optimizer put back to a snapshot its owner took of it, not a resume ----------

_SNAPSHOT_ROLLBACK = """
import copy
import torch
from torch.optim.lr_scheduler import LinearLR

class Snapshots:
    def __init__(self):
        self.kept = {{}}
    def keep(self, key, state):
        self.kept[key] = copy.deepcopy(state)
    def get(self, key):
        return self.kept[key]

class RangeTest:
    def __init__(self, model, optimizer, path):
        self.model = model
        self.optimizer = optimizer
        self.path = path
        self.snapshots = Snapshots()
        self.snapshots.keep("model", self.model.state_dict())
        self.snapshots.keep("optimizer", self.optimizer.state_dict())
        self.initial = {{"optimizer": copy.deepcopy(self.optimizer.state_dict())}}

    def restore(self):
        self.model.load_state_dict(self.snapshots.get("model"))
{restore}

    def run(self, loader, num_iter):
        schedule = LinearLR(self.optimizer, start_factor=1e-3, total_iters=num_iter)
        for step, (x, y) in enumerate(loader):
            if step == num_iter:
                break
            self.optimizer.zero_grad()
            self.model(x, y).backward()
            self.optimizer.step()
            schedule.step()
        self.restore()
"""


def test_an_optimizer_put_back_to_its_owners_snapshot_is_not_a_resume() -> None:
    # the state was taken from the live optimizer by the same object (kept through a helper,
    # or in a dict of its own): putting it back undoes a trial run, nothing is resumed
    assert codes(_SNAPSHOT_ROLLBACK.format(
        restore='        self.optimizer.load_state_dict(self.snapshots.get("optimizer"))')) == []
    assert codes(_SNAPSHOT_ROLLBACK.format(
        restore='        self.optimizer.load_state_dict(self.initial["optimizer"])')) == []


def test_an_optimizer_loaded_from_the_owners_file_path_is_still_a_resume() -> None:
    assert codes(_SNAPSHOT_ROLLBACK.format(
        restore='        self.optimizer.load_state_dict(torch.load(self.path)["optimizer"])')) \
        == ["LRD007"]
    # a store that also takes what the caller hands in (read from a file, for all it shows)
    assert codes(_SNAPSHOT_ROLLBACK.format(restore="""\
        self.optimizer.load_state_dict(self.initial["optimizer"])

    def use(self, state):
        self.initial = state""")) == ["LRD007"]


# -- fphunt5: a name looked up through a package's long `from .x import *` chain --------------

def test_modules_searched_for_a_star_imported_name_do_not_count_as_followed(
    tmp_path: Path,
) -> None:
    # `zoo/__init__.py` re-exports 70 submodules; the one function the script uses is in the
    # last. The 69 searched on the way hold nothing of it: the trace is not cut short, and the
    # schedule stepped in that function is still judged
    import textwrap

    package = tmp_path / "zoo"
    package.mkdir()
    count = 70
    (package / "__init__.py").write_text(
        "".join(f"from .part_{i} import *\n" for i in range(count)))
    for i in range(count - 1):
        (package / f"part_{i}.py").write_text(f"def helper_{i}(x):\n    return x\n")
    (package / f"part_{count - 1}.py").write_text(textwrap.dedent("""
        def train_one_epoch(model, loader, optimizer, scheduler):
            for batch in loader:
                optimizer.zero_grad()
                model(batch).sum().backward()
                optimizer.step()
                scheduler.step()
    """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""
        import torch
        from zoo import train_one_epoch

        model = torch.nn.Linear(4, 1)
        loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
        for epoch in range(90):
            train_one_epoch(model, loader, optimizer, scheduler)
    """))
    result = check_file(str(tmp_path / "train.py"))
    assert result.notes == []
    assert [d.code for d in result.diagnostics] == ["LRD002"]


# -- fphunt6: a script whose imports sit under `if __name__ == "__main__":` -------------------

_LOOP_MODULE = """
import torch


def fit(cfg, start, model, optimizer, scheduler, loader):
    scaler = torch.amp.GradScaler("cuda")
    step = start
    for epoch in range(cfg.epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            step += 1
            if step % cfg.save_every == 0:
                torch.save({"step": step, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict()}, cfg.path)
"""

_LAUNCH_SCRIPT = """
import argparse

import torch

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--variant", default="small")
    parser.add_argument("--path", default="last.pt")
    cfg = parser.parse_args()
    if cfg.variant == "small":
        from engine.loop import fit
        model = torch.nn.Linear(16, 1)
    else:
        from engine.loop import fit
        model = torch.nn.Linear(64, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    state = torch.load(cfg.path)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    start = state["step"]
    for group in optimizer.param_groups:
        group["initial_lr"] = 1e-3
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10000, gamma=0.5{position})
    loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
    fit(cfg, start, model, optimizer, scheduler, loader)
"""


def _launch_project(tmp_path: Path, position: str) -> list[tuple[str, str]]:
    import textwrap

    (tmp_path / ".git").mkdir()
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("")
    (tmp_path / "engine" / "loop.py").write_text(textwrap.dedent(_LOOP_MODULE))
    (tmp_path / "launch.py").write_text(_LAUNCH_SCRIPT.format(position=position))
    result = check_file(str(tmp_path / "launch.py"))
    return [(d.code, d.message) for d in result.diagnostics]


def test_a_trainer_imported_under_the_main_guard_is_followed_with_the_script_objects(
    tmp_path: Path,
) -> None:
    # the schedule is rebuilt at the resumed step (`last_epoch=`): the checkpoint needs no
    # scheduler state; the GradScaler's is still missing from it
    found = _launch_project(tmp_path, ", last_epoch=start - 1")
    assert [code for code, _ in found] == ["LRD005", "LRD007"]
    message = dict(found)["LRD007"]
    assert "GradScaler" in message and "scheduler's" not in message


def test_a_schedule_the_script_does_not_rebuild_is_still_missing_from_the_checkpoint(
    tmp_path: Path,
) -> None:
    # (also reported where the script restores the optimizer without a schedule)
    found = _launch_project(tmp_path, "")
    assert sorted({code for code, _ in found}) == ["LRD005", "LRD007"]
    assert any(code == "LRD007" and "scheduler's" in message and "GradScaler" in message
               for code, message in found)


# -- fphunt6: a checkpoint written in a loop over paths, after the epoch's call returned -------

_SCALER_EACH_EPOCH_CALL = """
import torch


def write_on_rank_zero(state, path):
    torch.save(state, path)


def run_epoch(model, loader, optimizer, use_amp{scaler_param}):
{scaler_made_here}
    for batch in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=use_amp):
            loss = model(batch).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def main(model, loader, epochs, use_amp, out_dir):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    schedule = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
{scaler_made_once}
    for epoch in range(epochs):
        run_epoch(model, loader, optimizer, use_amp{scaler_arg})
        schedule.step()
        targets = [out_dir + "/last.pth"]
        if epoch % 10 == 0:
            targets.append(out_dir + f"/epoch{{epoch}}.pth")
        for target in targets:
            state = {{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                     "schedule": schedule.state_dict(), "epoch": epoch}}
            write_on_rank_zero(state, target)
"""

_MAKE_AMP_SCALER = "torch.amp.GradScaler('cuda', enabled=use_amp)"


def test_a_scaler_each_epoch_call_makes_afresh_is_not_missing_from_a_checkpoint_loop() -> None:
    src = _SCALER_EACH_EPOCH_CALL.format(
        scaler_param="", scaler_made_here=f"    scaler = {_MAKE_AMP_SCALER}",
        scaler_made_once="", scaler_arg="")
    assert "LRD007" not in codes(src)


def test_a_scaler_kept_across_epochs_is_still_missing_from_a_checkpoint_loop() -> None:
    src = _SCALER_EACH_EPOCH_CALL.format(
        scaler_param=", scaler", scaler_made_here="",
        scaler_made_once=f"    scaler = {_MAKE_AMP_SCALER}", scaler_arg=", scaler")
    assert "LRD007" in codes(src)


# -- a scheduler picked by a setting, put back in place on resume through `.last_epoch` ------

_PICKED_AND_REPOSITIONED = """
import torch
from torch.optim.lr_scheduler import MultiStepLR, StepLR


class Runner:
    def __init__(self, net, batches, optimizer, schedule):
        self.net = net
        self.batches = batches
        self.optimizer = optimizer
        self.schedule = schedule
        self.epoch = 0

    def fit(self, last_epoch, resume):
        if resume:
            self.restore("state.pt")
        for epoch in range(self.epoch + 1, last_epoch + 1):
            self.epoch = epoch
            for x in self.batches:
                self.optimizer.zero_grad()
                self.net(x).sum().backward()
                self.optimizer.step()
            self.schedule.step()
            self.store("state.pt")

    def store(self, path):
        torch.save({{"epoch": self.epoch, "net": self.net.state_dict(),
                    "optimizer": self.optimizer.state_dict()}}, path)

    def restore(self, path):
        saved = torch.load(path)
        self.net.load_state_dict(saved["net"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self.epoch = saved["epoch"]
{reposition}


def run(net, batches, kind):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    if kind == "step":
        schedule = StepLR(optimizer, step_size=20)
    else:
        schedule = MultiStepLR(optimizer, milestones=[40, 70])
    Runner(net, batches, optimizer, schedule).fit(90, resume=True)
"""


def test_a_scheduler_picked_by_setting_and_repositioned_by_last_epoch_is_not_lrd007() -> None:
    # the LR is in the optimizer state, the position in `last_epoch`: whichever option the
    # setting built, the resume puts it back where it was
    src = _PICKED_AND_REPOSITIONED.format(
        reposition="        self.schedule.last_epoch = self.epoch")
    assert "LRD007" not in codes(src)


def test_a_scheduler_picked_by_setting_and_never_repositioned_is_still_lrd007() -> None:
    src = _PICKED_AND_REPOSITIONED.format(reposition="")
    assert codes(src) == ["LRD007", "LRD007"]  # the save and the resume


# -- a branch on a copy of the setting that picked the scheduler ------------------------------

_COPIED_SETTING = """
import torch
from torch.optim.lr_scheduler import MultiStepLR, StepLR


def remember(options, cfg):
    options.decay_kind = cfg.SOLVER.DECAY.KIND


def make(net, cfg):
    optimizer = torch.optim.AdamW(net.parameters(), lr=cfg.SOLVER.LR)
    if cfg.SOLVER.DECAY.KIND == "step":
        schedule = StepLR(optimizer, cfg.SOLVER.DROP_EVERY)
    elif cfg.SOLVER.DECAY.KIND == "multistep":
        schedule = MultiStepLR(optimizer, milestones=cfg.SOLVER.MILESTONES)
    else:
        raise ValueError(cfg.SOLVER.DECAY.KIND)
    return optimizer, schedule


def fit(net, batches, options, cfg):
    remember(options, cfg)
    optimizer, schedule = make(net, cfg)
    for epoch in range(1, cfg.SOLVER.EPOCHS + 1):
        for x in batches:
            optimizer.zero_grad()
            net(x).sum().backward()
            optimizer.step()
        if options.decay_kind != "{other}":
            schedule.step()
        else:
            schedule.step(epoch - 1)
"""


def test_an_epoch_step_on_a_branch_the_copied_setting_rules_out_is_not_lrd006() -> None:
    # `options.decay_kind` is `cfg.SOLVER.DECAY.KIND`: "cosine" builds no scheduler at all
    # (it raises), so `step(epoch - 1)` never reaches the StepLR or the MultiStepLR
    assert codes(_COPIED_SETTING.format(other="cosine")) == []


def test_an_epoch_step_on_a_branch_the_copied_setting_allows_is_still_lrd006() -> None:
    # "step" builds the StepLR, and that run passes it the epoch
    assert codes(_COPIED_SETTING.format(other="step")) == ["LRD006"]


# -- the constant schedule: a factor of 1 at every step ---------------------------------------

_NAMED_SCHEDULE = """
import torch
from diffusers.optimization import get_scheduler


def fit(net, batches, accumulate, warmup, total):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    schedule = get_scheduler(name={name}, optimizer=opt, num_warmup_steps=warmup * accumulate,
                             num_training_steps=total * accumulate)
    done = 0
    for x in batches:
        (net(x).mean() / accumulate).backward()
        schedule.step()
        if done % accumulate == 0 and done > 0:
            opt.step()
            opt.zero_grad()
        done += 1
"""


def test_the_constant_schedule_stepped_early_and_per_micro_batch_is_not_reported() -> None:
    # whenever and however often it steps, the LR stays the optimizer's own
    assert codes(_NAMED_SCHEDULE.format(name='"constant"')) == []


def test_a_warm_up_schedule_stepped_the_same_way_is_still_reported() -> None:
    # "constant_with_warmup" does move the LR: its first (warm-up) value is skipped
    assert codes(_NAMED_SCHEDULE.format(name='"constant_with_warmup"')) == ["LRD001"]


def test_the_constant_schedule_returned_to_lightning_without_an_interval_is_not_lrd003() -> None:
    src = """
    import lightning.pytorch as pl
    import torch
    from transformers import get_scheduler

    class Module(pl.LightningModule):
        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=1e-4)
            schedule = get_scheduler("{name}", opt, num_warmup_steps=1000,
                                     num_training_steps=self.total_steps)
            return [opt], [schedule]
    """
    assert codes(src.format(name="constant")) == []
    assert codes(src.format(name="cosine")) == ["LRD003"]


# -- code switched off by hand: `if False and ...:` -------------------------------------------

_SWITCHED_OFF = """
import torch


def fit(net, batches, epochs, use_amp):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    for epoch in range(epochs):
        for x in batches:
            opt.zero_grad()
            with torch.autocast("cuda", enabled=use_amp):
                loss = net(x).mean()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        state = {{"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch}}
        if {test}:
            torch.save({{"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch}},
                       "opt.pth")
        torch.save(state, "last.pth")
"""


def test_a_save_under_a_test_that_is_false_by_hand_never_runs() -> None:
    # only the save that runs lacks the scaler
    assert findings(_SWITCHED_OFF.format(test='False and "opt" in state')) == [("LRD007", 20)]
    assert findings(_SWITCHED_OFF.format(test="0")) == [("LRD007", 20)]


def test_a_save_under_a_test_that_can_hold_still_misses_the_scaler() -> None:
    expected = [("LRD007", 18), ("LRD007", 20)]
    assert findings(_SWITCHED_OFF.format(test='"opt" in state')) == expected
    assert findings(_SWITCHED_OFF.format(test='True or "opt" in state')) == expected


# -- a GradScaler made afresh by the per-epoch call that also saves mid-epoch -----------------

_MID_EPOCH_SAVE = """
import time

import torch


def save(net, opt, epoch, path):
    torch.save({{"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch}}, path)


def one_epoch(net, opt, batches, epoch, use_amp{scaler_param}):
{scaler_here}
    started = time.time()
    for x in batches:
        opt.zero_grad()
        with torch.autocast("cuda", enabled=use_amp):
            loss = net(x).mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if time.time() - started > 600:
            save(net, opt, epoch, "latest.pth")
            started = time.time()


def fit(net, batches, epochs, use_amp, resume):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
{scaler_once}
    start = 0
    if resume:
        state = torch.load("latest.pth")
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"]
    for epoch in range(start, epochs):
        one_epoch(net, opt, batches, epoch, use_amp{scaler_arg})
        save(net, opt, epoch + 1, f"epoch{{epoch}}.pth")
"""

_SCALER = "scaler = torch.amp.GradScaler('cuda', enabled=use_amp)"


def test_a_scaler_the_epoch_call_makes_afresh_is_not_missing_from_its_mid_epoch_save() -> None:
    # every epoch starts from a new scaler anyway: a resumed run's call makes one too
    src = _MID_EPOCH_SAVE.format(scaler_param="", scaler_here="    " + _SCALER,
                                 scaler_once="", scaler_arg="")
    assert codes(src) == []


def test_a_scaler_kept_across_epochs_is_still_missing_from_the_mid_epoch_save() -> None:
    src = _MID_EPOCH_SAVE.format(scaler_param=", scaler", scaler_here="",
                                 scaler_once="    " + _SCALER, scaler_arg=", scaler")
    assert "LRD007" in codes(src)


# -- a class test that the project's own scheduler class can never pass -----------------------

_PLATEAU_OR_OWN_WARMUP = """
import torch
from torch.optim.lr_scheduler import LambdaLR, ReduceLROnPlateau


class RampThenDecay(LambdaLR):
    def __init__(self, optimizer, ramp, total):
        super().__init__(optimizer, lambda s: min((s + 1) / ramp, max(0.0, (total - s) / total)))


def one_epoch(net, batches, optimizer, schedule, epoch, score):
    if {test}:
        schedule.step(score, epoch)
    for x in batches:
        optimizer.zero_grad()
        net(x).sum().backward()
        optimizer.step()
        if schedule is not None and not isinstance(schedule, ReduceLROnPlateau):
            schedule.step()


def main(net, batches, kind, epochs, evaluate):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    if kind == "plateau":
        schedule = ReduceLROnPlateau(optimizer, mode="max")
    elif kind == "ramp":
        schedule = RampThenDecay(optimizer, 500, epochs * len(batches))
    else:
        raise ValueError(kind)
    score = 0.0
    for epoch in range(epochs):
        one_epoch(net, batches, optimizer, schedule, epoch, score)
        score = evaluate(net)
"""


def test_a_plateau_only_branch_never_steps_the_projects_lambda_subclass() -> None:
    # `RampThenDecay` derives from LambdaLR: `isinstance(schedule, ReduceLROnPlateau)` is
    # false for it, so `step(score, epoch)` only ever reaches the plateau
    assert codes(_PLATEAU_OR_OWN_WARMUP.format(test="isinstance(schedule, ReduceLROnPlateau)")) == []


def test_a_branch_every_scheduler_takes_still_passes_the_subclass_an_epoch() -> None:
    assert codes(_PLATEAU_OR_OWN_WARMUP.format(test="schedule is not None")) == ["LRD006"]


# -- a plateau that never reduces: the LR stays put whatever it watches ----------------------

_PLATEAU_WATCHING_TRAINING_LOSS = """
import lightning.pytorch as pl
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Forecaster(pl.LightningModule):
    def training_step(self, batch, idx):
        loss = self.model(batch).mean()
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, idx):
        self.log("valid_loss", self.model(batch).mean())

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        plateau = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience={patience})
        return [optimizer], {{"scheduler": plateau, "monitor": "train_loss"}}
"""


def test_a_plateau_with_endless_patience_watching_the_training_loss_is_not_lrd004() -> None:
    # the LR can only drop after `patience` bad epochs: a trillion never come
    assert codes(_PLATEAU_WATCHING_TRAINING_LOSS.format(patience="int(1e12)")) == []
    assert codes(_PLATEAU_WATCHING_TRAINING_LOSS.format(patience='float("inf")')) == []


def test_a_plateau_with_a_real_patience_watching_the_training_loss_is_still_lrd004() -> None:
    assert codes(_PLATEAU_WATCHING_TRAINING_LOSS.format(patience="10")) == ["LRD004"]


def test_a_plateau_that_never_reduces_in_a_loop_watching_accuracy_with_min_is_not_lrd004() -> None:
    src = """
    import torch

    def fit(net, batches, epochs, validate):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, "min", factor={factor})
        for epoch in range(epochs):
            for x in batches:
                opt.zero_grad()
                net(x).sum().backward()
                opt.step()
            val_acc = validate(net)
            plateau.step(val_acc)
    """
    assert codes(src.format(factor="1.0")) == []
    assert codes(src.format(factor="0.1")) == ["LRD004"]


# -- a resume that moves the schedule to the start epoch with one step ------------------------

_RESUMED_BY_ONE_STEP = """
import math

import torch


def fit(net, batches, args):
    opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda epoch: math.pow(1 - epoch / args.max_epoch, 0.9))
    start = 0
    if args.resume:
        state = torch.load(args.resume)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
{position}
    for epoch in range(start, args.max_epoch):
        for x in batches:
            opt.zero_grad()
            net(x).sum().backward()
            opt.step()
        schedule.step()
        torch.save({{"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch}},
                   "last.pth")
"""


def test_a_schedule_moved_to_the_resumed_epoch_by_one_step_is_not_lrd007() -> None:
    # `step(start)` sets the LambdaLR's counter to the resumed epoch (LRD006 still says the
    # argument is deprecated); nothing of the schedule is lost with its state
    src = _RESUMED_BY_ONE_STEP.format(position="    if start:\n        schedule.step(start)")
    assert codes(src) == ["LRD006"]


def test_a_schedule_the_resume_leaves_at_zero_is_still_lrd007() -> None:
    assert codes(_RESUMED_BY_ONE_STEP.format(position="")) == ["LRD007", "LRD007"]
    # `step(0)` names no resumed position
    src = _RESUMED_BY_ONE_STEP.format(position="    schedule.step(0)")
    assert codes(src).count("LRD007") == 2


# -- a factor counting epochs whose body also reads a setting named in steps -----------------

_TWO_PHASE_POLY = """
import math

import torch


def fit(net, batches, args):
    opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)

    def two_phase({param}):
        power = args.power if {param} < args.phase_step else 2 * args.power
        return math.pow(1 - {param} / args.max_epoch, power)

    schedule = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=two_phase)
    for epoch in range(args.max_epoch):
        for x in batches:
            opt.zero_grad()
            net(x).sum().backward()
            opt.step()
        schedule.step()
"""


def test_an_epoch_counter_with_settings_of_both_units_is_not_called_per_batch() -> None:
    # `phase_step` is compared with the epoch, `max_epoch` is the horizon: which unit the
    # factor counts is not known, so stepping it per epoch is not LRD003
    assert codes(_TWO_PHASE_POLY.format(param="epoch")) == []


def test_a_step_counter_with_settings_of_both_units_is_still_lrd003() -> None:
    assert codes(_TWO_PHASE_POLY.format(param="step")) == ["LRD003"]


# -- a warm-up written per batch below `len(loader) * W`, a scheduler stepped once `epoch > W` --

_RAMP_THEN_COSINE = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def ramp_lr(opt, peak, seen, ramp_iters):
    if seen < ramp_iters:
        for group in opt.param_groups:
            group["lr"] = peak * float(seen) / ramp_iters


def one_pass(net, opt, batches, peak, seen, ramp_iters):
    for x in batches:
        ramp_lr(opt, peak, {counter}, ramp_iters)
        opt.zero_grad()
        net(x).sum().backward()
        opt.step()
        seen += 1
    return seen


def fit(net, batches, cfg):
    opt = torch.optim.Adamax(net.parameters(), lr=cfg.peak)
    decay = CosineAnnealingLR(opt, float(cfg.epochs - cfg.ramp_epochs - 1))
    ramp_iters = {bound}
    seen = 0
    for epoch in range(cfg.epochs):
        if {gate}:
            decay.step()
        seen = one_pass(net, opt, batches, cfg.peak, seen, ramp_iters)
"""


def _ramp(counter: str = "seen", bound: str = "len(batches) * cfg.ramp_epochs",
          gate: str = "epoch > cfg.ramp_epochs") -> str:
    return _RAMP_THEN_COSINE.format(counter=counter, bound=bound, gate=gate)


def test_a_warm_up_in_batches_handing_over_to_a_schedule_gated_on_the_epoch_is_not_lrd008() -> None:
    # the write runs while the running batch count is below `len(batches) * W`, that is in
    # epochs 0 .. W-1; the cosine steps only from epoch W+1 on (in another function): the
    # two never drive the LR in the same epoch
    assert codes(_ramp()) == []
    assert codes(_ramp(gate="epoch >= cfg.ramp_epochs")) == []
    assert codes(_ramp(bound="cfg.ramp_epochs * len(batches)")) == []


def test_a_schedule_gated_one_epoch_early_still_competes_with_the_warm_up() -> None:
    # stepped from epoch W-1 on, while the warm-up still writes in epoch W-1: LRD008
    assert codes(_ramp(gate="epoch >= cfg.ramp_epochs - 1")) == ["LRD008"]
    # stepped every epoch: LRD008
    assert "LRD008" in codes(_ramp(gate="True or epoch"))


def test_a_warm_up_bound_not_sized_by_the_gate_still_competes() -> None:
    # the window is `cfg.ramp_iters` batches, the gate counts `cfg.ramp_epochs`: nothing
    # says they meet
    assert codes(_ramp(bound="cfg.ramp_iters")) == ["LRD008"]


# -- a scaler's state kept in a name on the branch that has a scaler, None on the other ------

_STATE_ON_ONE_BRANCH = """
import torch


class Runner:
    def __init__(self, net, opt, half):
        self.net = net
        self.opt = opt
        self.half = half
        if self.half:
            self.scaler = torch.amp.GradScaler("cuda")

    def fit(self, batches, epochs, path):
        for epoch in range(epochs):
            for x in batches:
                self.opt.zero_grad()
                with torch.autocast("cuda", enabled=self.half):
                    loss = self.net(x).sum()
                if self.half:
                    self.scaler.scale(loss).backward()
                    self.scaler.step(self.opt)
                    self.scaler.update()
                else:
                    loss.backward()
                    self.opt.step()
            self.save(path)

    def save(self, path):
        if self.half:
            extra = {kept}.state_dict()
        else:
            extra = None
        torch.save({{"net": self.net.state_dict(), "opt": self.opt.state_dict(),
                    "extra": extra}}, path)

    def resume(self, path):
        ckpt = torch.load(path)
        self.net.load_state_dict(ckpt["net"])
        self.opt.load_state_dict(ckpt["opt"])
        if self.half:
            {restored}.load_state_dict(ckpt["extra"])
"""


def test_a_scaler_state_set_on_the_branch_with_a_scaler_and_none_on_the_other_is_saved() -> None:
    # `if half: extra = scaler.state_dict() else: extra = None`: the name holds the scaler's
    # state whenever there is a scaler; the checkpoint stores it
    src = _STATE_ON_ONE_BRANCH.format(kept="self.scaler", restored="self.scaler")
    assert codes(src) == []


def test_another_objects_state_set_on_the_branch_with_a_scaler_still_misses_the_scaler() -> None:
    src = _STATE_ON_ONE_BRANCH.format(kept="self.net", restored="self.net")
    assert codes(src) == ["LRD007"]


# -- a scheduler stepped only in a method reached through a dispatch lrdoctor cannot follow --

_DISPATCHED_TRAINER = """
import torch
from torch.optim.lr_scheduler import MultiStepLR


class Runner:
    def __init__(self, net, opt, sched):
        self.net = net
        self.opt = opt
        self.sched = sched
        self.epoch = 0

    def train(self, batches):
        first = self.epoch * len(batches)
        for i, x in enumerate(batches):
            self.opt.zero_grad()
            self.net(x).sum().backward()
            self.opt.step()
            {step}
        self.epoch += 1

    def run(self, batches, flow, epochs):
        while self.epoch < epochs:
            for mode in flow:
                phase = getattr(self, mode)
                phase(batches)
            torch.save({{"net": self.net.state_dict(), "epoch": self.epoch}}, "last.pt")

    def resume(self, path):
        ckpt = torch.load(path)
        self.epoch = ckpt["epoch"]
        if "optimizer" in ckpt:
            self.opt.load_state_dict(ckpt["optimizer"])


def main(net, batches, cfg):
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    sched = MultiStepLR(opt, milestones=cfg.drops, gamma=0.1)
    runner = Runner(net, opt, sched)
    if cfg.resume_from:
        runner.resume(cfg.resume_from)
    runner.run(batches, ["train"], cfg.epochs)
"""


def test_a_schedule_every_step_of_which_names_its_position_in_a_dispatched_method_is_not_lrd007(
) -> None:
    # `getattr(self, mode)(...)` is not followed: `train` is traced apart, its scheduler known
    # by name only, and every step there names the position (`step(first + i)`): the resume
    # restores the optimizer, and the first step after it puts the schedule where it was
    assert codes(_DISPATCHED_TRAINER.format(step="self.sched.step(first + i + 1)")) == []


def test_a_schedule_stepped_without_a_position_in_a_dispatched_method_is_still_lrd007() -> None:
    assert codes(_DISPATCHED_TRAINER.format(step="self.sched.step()")) == ["LRD007"]




# the trainer class lives in another module and runs its phases through `getattr(self, mode)`:
# the driver's trace never reaches the method that steps the scheduler
_ENGINE_MODULE = """
import torch


class Engine:
    def __init__(self, net, opt, sched):
        self.net = net
        self.opt = opt
        self.sched = sched
        self.epoch = 0

    def train(self, batches):
        first = self.epoch * len(batches)
        for i, x in enumerate(batches):
            self.opt.zero_grad()
            self.net(x).sum().backward()
            self.opt.step()
            {step}
        self.epoch += 1

    def run(self, batches, flow, epochs):
        while self.epoch < epochs:
            for mode in flow:
                getattr(self, mode)(batches)
            torch.save({{"net": self.net.state_dict(), "epoch": self.epoch}}, "last.pt")

    def resume(self, path):
        ckpt = torch.load(path)
        self.epoch = ckpt["epoch"]
        if "optimizer" in ckpt:
            self.opt.load_state_dict(ckpt["optimizer"])
"""

_ENGINE_DRIVER = """
import torch
from torch.optim.lr_scheduler import MultiStepLR
from pkg.engine import Engine


def main(net, batches, cfg):
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
{build}
    engine = Engine(net, opt, sched)
    if cfg.resume_from:
        engine.resume(cfg.resume_from)
    engine.run(batches, ["train"], cfg.epochs)
"""


_ONE_SCHEDULE = "    sched = MultiStepLR(opt, milestones=cfg.drops, gamma=0.1)"
_PICKED_SCHEDULE = """    if cfg.policy == "cosine":
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)
    else:
        sched = MultiStepLR(opt, milestones=cfg.drops, gamma=0.1)"""


def _engine_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str,
                    build: str = _ONE_SCHEDULE) -> list[tuple[str, int, str]]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/engine.py").write_text(textwrap.dedent(_ENGINE_MODULE).format(step=step))
    (tmp_path / "run.py").write_text(textwrap.dedent(_ENGINE_DRIVER).format(build=build))
    monkeypatch.chdir(tmp_path)
    report = check_files(["run.py", "pkg/__init__.py", "pkg/engine.py"], frozenset(CATALOG),
                         jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics if d.code != "LRD101"]


def test_a_schedule_stepped_by_position_in_a_dispatched_method_of_another_module_is_not_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the driver's trace sees its MultiStepLR built and handed to the engine, never stepped:
    # how it is stepped is not known there, and the engine's own trace (its scheduler known
    # by name) sees every step name its position
    assert _engine_project(tmp_path, monkeypatch, "self.sched.step(first + i + 1)") == []


def test_a_schedule_picked_by_a_setting_and_stepped_by_position_by_the_engine_is_not_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _engine_project(tmp_path, monkeypatch, "self.sched.step(first + i + 1)",
                           _PICKED_SCHEDULE) == []


def test_a_schedule_stepped_without_a_position_in_another_module_is_still_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = _engine_project(tmp_path, monkeypatch, "self.sched.step()")
    assert [code for _, _, code in got] == ["LRD007"]



_NEVER_STEPPED = """
import torch
from torch.optim.lr_scheduler import MultiStepLR


def main(net, batches, cfg):
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    sched = MultiStepLR(opt, milestones=cfg.drops, gamma=0.1)
    if cfg.resume_from:
        ckpt = torch.load(cfg.resume_from)
        net.load_state_dict(ckpt["net"])
        opt.load_state_dict(ckpt["optimizer"])
    for epoch in range(cfg.epochs):
        for x in batches:
            opt.zero_grad()
            net(x).sum().backward()
            opt.step()
{step}
"""


def test_a_scheduler_nothing_in_view_steps_loses_nothing_on_resume() -> None:
    # built and never stepped where lrdoctor can see (no step in the trace, none in a class
    # holding it): its state is a fresh one's, as the catalog's "never stepped yet" says
    assert codes(_NEVER_STEPPED.format(step="")) == []


def test_a_scheduler_stepped_each_epoch_is_still_lrd007_on_a_resume_of_the_optimizer_only() -> None:
    assert codes(_NEVER_STEPPED.format(step="        sched.step()")) == ["LRD007"]
