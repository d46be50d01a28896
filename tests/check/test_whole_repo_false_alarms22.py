"""False alarms of fphunt32's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. ``scaler = getattr(self.trainer, "scaler", None)`` then ``scaler.load_state_dict(...)``:
   the builtin ``getattr`` with a literal name reads the attribute the object holds, so the
   GradScaler is restored (LRD007 said it never was).
2. ``if "model" not in ckpt: ckpt = {"model": ckpt}`` with no ``else``: on the path that skips
   the body the name keeps the loaded checkpoint, whose keys are not known, so a later
   ``ckpt.get("scaler")`` is not known to be missing (LRD007 took the literal's keys as all).
3. ``clip_grad_norm_(params, max_norm * scaler.get_scale())`` (or a parameter a caller fills
   with the scale): scaled gradients clipped at the scaled bound are the true gradients
   clipped at the true bound (LRD108 said the bound was divided by the scale).
4. The same compound test spelled twice (``if hasattr(cfg, "ds") and cfg.ds.enable:`` where
   the optimizer is replaced by DeepSpeed's, and in the ``else`` of the same test before, where
   the torch optimizer and its scheduler are built) decides both ``if``s alike: the DeepSpeed
   optimizer never replaces the one the scheduler drives (LRD014 said it did). Main reads
   compound tests this way too (test_compound_flag_branches.py); these programs also vary the
   test the loop steps under.

5. A file using Python 3.12's type parameter syntax (PEP 695: ``type Alias = ...``, ``def
   f[T](...)``, ``class Box[T]:``) cannot be parsed by an older interpreter running lrdoctor:
   it stays E999, but the message names the cause, as for PEP 701's f-strings
   (test_whole_repo_false_alarms18.py). A real syntax error keeps the parser's message alone.

6. A LightningModule's batch-start hook stepping a schedule only while Lightning's
   ``self.global_step`` is past a bound: the first pass trains with the schedule's first value
   and each later step comes before its update, as ``if epoch > 0: scheduler.step()`` at the
   top of an epoch does (LRD001 took Lightning's counter for a setting). A guard on a setting
   alone, or none, is still LRD001.

Each has a control that must still be reported.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from lrdoctor.check.engine import check_source

from .helpers import check_project, codes

# -- 1. getattr with a literal name ----------------------------------------------------------

GETATTR = """
import torch
from torch import nn


class Runner:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scaler = torch.amp.GradScaler("cuda")
        self.ema = None

    def save(self, path):
        torch.save({"model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "scaler": self.scaler.state_dict()}, path)

    def restore(self, path):
        state = torch.load(path)
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        held = getattr(self, "ATTR", None)
        if held is not None:
            held.load_state_dict(state["scaler"])

    def run(self, epochs, resume=None):
        if resume:
            self.restore(resume)
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = nn.functional.mse_loss(self.model(x), y)
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
            self.save("last.pt")


if __name__ == "__main__":
    Runner(nn.Linear(2, 2), []).run(3, resume="last.pt")
"""


def test_a_scaler_read_through_getattr_is_restored() -> None:
    assert codes(GETATTR.replace("ATTR", "scaler")) == []


def test_control_getattr_of_another_attribute_leaves_the_scaler_unrestored() -> None:
    assert codes(GETATTR.replace("ATTR", "ema")) == ["LRD007"]


NAMESPACE = """
import argparse

import torch
from torch import nn


def restore(holder, path):
    state = torch.load(path)
    holder.optimizer.load_state_dict(state["optimizer"])
    held = getattr(holder, "ATTR", None)
    if held is not None:
        held.load_state_dict(state["scaler"])


def main(loader, resume):
    holder = argparse.Namespace()
    holder.model = nn.Linear(2, 2)
    holder.optimizer = torch.optim.SGD(holder.model.parameters(), lr=0.1)
    holder.scaler = torch.amp.GradScaler("cuda")
    holder.other = None
    restore(holder, resume)
    for x, y in loader:
        holder.optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.mse_loss(holder.model(x), y)
        holder.scaler.scale(loss).backward()
        holder.scaler.step(holder.optimizer)
        holder.scaler.update()
    torch.save({"optimizer": holder.optimizer.state_dict(),
                "scaler": holder.scaler.state_dict()}, "last.pt")
"""


def test_a_scaler_read_through_getattr_of_a_namespace_is_restored() -> None:
    assert codes(NAMESPACE.replace("ATTR", "scaler")) == []


def test_control_getattr_of_another_namespace_attribute_leaves_the_scaler_unrestored() -> None:
    assert codes(NAMESPACE.replace("ATTR", "other")) == ["LRD007"]


# -- 2. a loaded checkpoint wrapped on one path only -----------------------------------------

WRAPPED = """
import torch
from torch import nn


def restore_scaler(scaler, state):
    saved = state.get("scaler", None)
    if saved is not None:
        scaler.load_state_dict(saved)


def fit(model, loader, epochs, resume=None):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    if resume:
        state = torch.load(resume)
WRAP
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        restore_scaler(scaler, state)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scaler": scaler.state_dict()}, "last.pt")


if __name__ == "__main__":
    fit(nn.Linear(2, 2), [], 3, resume="last.pt")
"""


def test_a_checkpoint_wrapped_on_one_path_keeps_unknown_keys() -> None:
    wrap = '        if "model" not in state:\n            state = {"model": state}'
    assert codes(WRAPPED.replace("WRAP", wrap)) == []


def test_control_a_checkpoint_always_wrapped_holds_no_scaler() -> None:
    wrap = '        state = {"model": state}'
    assert codes(WRAPPED.replace("WRAP", wrap)) == ["LRD007"]


# -- 3. a clip bound multiplied by the scale -------------------------------------------------

CLIPPED = """
import torch
from torch import nn


def clip(model, max_norm, scale=1.0):
    return nn.utils.clip_grad_norm_(model.parameters(), BOUND)


def main(loader, max_norm):
    model = nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        clip(model, max_norm, SCALE)
        scaler.step(optimizer)
        scaler.update()
"""


@pytest.mark.parametrize(("bound", "scale"), [
    ("max_norm * scale", "scale=scaler.get_scale()"),
    ("scale * max_norm", "scaler.get_scale()"),
])
def test_a_bound_times_the_scale_a_caller_passes_clips_the_true_gradients(
        bound: str, scale: str) -> None:
    assert codes(CLIPPED.replace("BOUND", bound).replace("SCALE", scale)) == []


@pytest.mark.parametrize(("bound", "scale"), [
    ("max_norm * scale", "scale=2.0"),
    ("max_norm / scale", "scale=scaler.get_scale()"),
    ("max_norm", "scale=scaler.get_scale()"),
])
def test_control_a_bound_not_multiplied_by_the_scale_is_still_lrd108(
        bound: str, scale: str) -> None:
    assert codes(CLIPPED.replace("BOUND", bound).replace("SCALE", scale)) == ["LRD108"]


INLINE = """
import torch
from torch import nn


def main(loader, max_norm):
    model = nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        factor = FACTOR
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm * factor)
        scaler.step(optimizer)
        scaler.update()
"""


def test_a_bound_times_a_local_name_bound_to_the_scale_clips_the_true_gradients() -> None:
    assert codes(INLINE.replace("FACTOR", "scaler.get_scale()")) == []


def test_control_a_bound_times_another_local_factor_is_still_lrd108() -> None:
    assert codes(INLINE.replace("FACTOR", "2.0")) == ["LRD108"]


# -- 4. one compound test spelled twice ------------------------------------------------------

SPLIT = {"train.py": """
import deepspeed
import torch
from torch import nn


def setup(cfg, model):
    if hasattr(cfg, "ds") and cfg.ds.enable:
        params = [p for p in model.parameters() if p.requires_grad]
        scheduler = None
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, s / 100))
    if hasattr(cfg, "ds") and cfg.ds.enable:
        model, optimizer, _, _ = deepspeed.initialize(args=cfg, model=model,
                                                      model_parameters=params)
    return model, optimizer, scheduler


def one_epoch(cfg, model, loader, optimizer, scheduler):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x), y)
        if STEPPED:
            model.backward(loss)
            model.step()
        else:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()


def main(cfg, loader):
    model, optimizer, scheduler = setup(cfg, nn.Linear(2, 2))
    for epoch in range(cfg.epochs):
        one_epoch(cfg, model, loader, optimizer, scheduler)
"""}


@pytest.mark.parametrize("test", ['hasattr(cfg, "ds") and cfg.ds.enable',
                                  'not (not hasattr(cfg, "ds") or not cfg.ds.enable)',
                                  "cfg.use_engine"])
def test_an_optimizer_replaced_only_where_it_was_never_built_leaves_no_stale_schedule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, test: str) -> None:
    files = {"train.py": SPLIT["train.py"].replace("STEPPED", test)}
    assert check_project(tmp_path, monkeypatch, files) == []


# -- 5. Python 3.12's type parameter syntax --------------------------------------------------


def _e999(source: str) -> list[str]:
    result = check_source(textwrap.dedent(source), "helpers.py")
    return [p.message for p in result.problems if p.code == "E999"]


@pytest.mark.parametrize("statement", [
    "type PathLike = str | os.PathLike[str]",
    "def release_cache[**P, R](fn: Callable[P, R]) -> Callable[P, R]:\n    return fn",
    "class Pair[T]:\n    pass",
    "async def gather_all[T](items: list[T]) -> list[T]:\n    return items",
])
def test_type_parameter_syntax_is_named_as_a_newer_python_form(statement: str) -> None:
    messages = _e999(f"import os\nfrom typing import Callable\n\n\n{statement}\n")
    if sys.version_info >= (3, 12):
        assert messages == []
        return
    assert len(messages) == 1 and "PEP 695" in messages[0] and "3.12" in messages[0], messages


@pytest.mark.parametrize("statement", [
    "types = [int, str\nkind = types[0]",
    "def broken(x:\n    return x",
    "class Pair[T:\n    pass",
])
def test_control_a_real_syntax_error_keeps_the_parsers_message(statement: str) -> None:
    messages = _e999(f"import os\n\n\n{statement}\n")
    assert len(messages) == 1 and "PEP 695" not in messages[0], messages


# -- 6. a step guarded by Lightning's own counter --------------------------------------------

HOOKED = """
import pytorch_lightning as pl
import torch
from torch import nn


class Regressor(pl.LightningModule):
    def __init__(self, flat_steps, decay_steps):
        super().__init__()
        self.net = nn.Linear(4, 1)
        self.flat_steps = flat_steps
        self.decay_steps = decay_steps

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.mse_loss(self.net(x), y)

    def on_train_batch_start(self, batch, batch_idx):
        if GUARD:
            self.decay.step()

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        self.decay = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.decay_steps)
        return optimizer


def main(loader):
    pl.Trainer(max_epochs=3).fit(Regressor(1000, 4000), loader)
"""


@pytest.mark.parametrize("guard", [
    "self.flat_steps <= self.global_step < self.flat_steps + self.decay_steps",
    "self.trainer.global_step >= self.flat_steps",
])
def test_a_step_past_a_bound_of_lightnings_counter_skips_no_value(guard: str) -> None:
    assert codes(HOOKED.replace("GUARD", guard)) == []


@pytest.mark.parametrize("guard", ["self.decay_steps > 0", "True"])
def test_control_a_step_under_a_setting_or_none_is_still_lrd001(guard: str) -> None:
    assert codes(HOOKED.replace("GUARD", guard)) == ["LRD001"]
