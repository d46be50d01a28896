"""Whole repositories nobody here wrote (fphunt13): misses found by reading the training code,
each next to a control that must stay as it is."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.check.helpers import check_project

# -- a batch-sized schedule set to the epoch's index once per epoch ------------------------------
# A text fine-tuning script builds a linear warm-up/decay whose horizon is the number of batches
# of the whole run, then at the top of every epoch calls `schedule.step(epoch)`: the deprecated
# argument puts the schedule at position `epoch`, one batch's worth further each epoch, so the
# decay meant to cover every batch of the run covers a handful of them. A plain `step()` there is
# LRD003; handing it the epoch counter is the same granularity (and LRD006 on top).

_TEXT_FINETUNE = """
import torch
from transformers import get_linear_schedule_with_warmup


def one_pass(batches, net, opt):
    for tokens, labels in batches:
        out = net(tokens)
        loss = torch.nn.functional.cross_entropy(out, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()


def fit(cfg, net, batches):
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    schedule = get_linear_schedule_with_warmup(
        opt, num_warmup_steps=0, num_training_steps=len(batches) * cfg.n_epochs)
    for ep in range(cfg.n_epochs):
        schedule.step({arg})
        one_pass(batches, net, opt)
"""


def _step_line(text: str) -> int:
    lines = textwrap.dedent(text).splitlines()
    return next(i for i, line in enumerate(lines, 1) if "schedule.step(" in line)


@pytest.mark.parametrize("arg", ["ep", "ep + 1", "epoch=ep"])
def test_a_batch_sized_schedule_stepped_to_the_epoch_counter_is_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arg: str) -> None:
    text = _TEXT_FINETUNE.format(arg=arg)
    found = check_project(tmp_path, monkeypatch, {"finetune.py": text})
    assert ("finetune.py", _step_line(text), "LRD003") in found
    assert ("finetune.py", _step_line(text), "LRD006") in found


@pytest.mark.parametrize("arg", ["ep * len(batches)", "ep * len(batches) + 1"])
def test_a_batch_sized_schedule_set_to_a_batch_position_per_epoch_is_not_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, arg: str) -> None:
    # the position handed over is counted in batches: the schedule follows its horizon, one
    # value per epoch by choice (still the deprecated argument)
    text = _TEXT_FINETUNE.format(arg=arg)
    found = check_project(tmp_path, monkeypatch, {"finetune.py": text})
    assert ("finetune.py", _step_line(text), "LRD003") not in found
    assert ("finetune.py", _step_line(text), "LRD006") in found


def test_an_epoch_sized_schedule_stepped_to_the_epoch_counter_is_not_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _TEXT_FINETUNE.format(arg="ep").replace(
        "get_linear_schedule_with_warmup(\n        opt, num_warmup_steps=0, "
        "num_training_steps=len(batches) * cfg.n_epochs)",
        "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.n_epochs)")
    assert "CosineAnnealingLR" in text
    found = check_project(tmp_path, monkeypatch, {"finetune.py": text})
    assert [code for _, _, code in found if code == "LRD003"] == []
    assert ("finetune.py", _step_line(text), "LRD006") in found


def test_a_plain_step_of_the_batch_sized_schedule_per_epoch_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = _TEXT_FINETUNE.format(arg="")
    found = check_project(tmp_path, monkeypatch, {"finetune.py": text})
    assert ("finetune.py", _step_line(text), "LRD003") in found


# -- a horizon no run reaches ---------------------------------------------------------------------
# A segmentation script builds `CosineAnnealingLR(opt, MAX_STEP, eta_min=...)` with
# `MAX_STEP = int(1e10)` and steps it once per epoch: a cosine over ten billion steps stays at its
# first value, whether it is stepped per batch or per epoch, so "stepped per epoch but counted in
# batches" has nothing to say (the LR is constant by design).

_HELD_COSINE = """
import torch
MAX_STEP = {size}


def run(net, loader, n_epochs):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, MAX_STEP, eta_min=1e-5)
    for i in range(n_epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = net(x).sum()
            loss.backward()
            opt.step()
        sched.step({arg})
"""


@pytest.mark.parametrize("size", ["int(1e10)", "10 ** 10", "2 * 10 ** 9", "1e9",
                                  "int(1e20 ** 20)"])  # the last: past any float, no crash
@pytest.mark.parametrize("arg", ["", "i"])
def test_a_horizon_no_run_reaches_is_not_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str, arg: str) -> None:
    found = check_project(tmp_path, monkeypatch,
                          {"seg.py": _HELD_COSINE.format(size=size, arg=arg)})
    assert [code for _, _, code in found if code in ("LRD002", "LRD003")] == []


@pytest.mark.parametrize("size", ["100000", "int(1e5)", "len(loader) * n_epochs"])
def test_a_batch_sized_horizon_a_run_reaches_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: str) -> None:
    text = _HELD_COSINE.format(size=size, arg="")
    if "loader" in size:  # the horizon computed where the loader is known
        text = text.replace("MAX_STEP = len(loader) * n_epochs\n", "").replace(
            "lr=1e-3)\n", "lr=1e-3)\n    MAX_STEP = len(loader) * n_epochs\n")
    found = check_project(tmp_path, monkeypatch, {"seg.py": text})
    assert [code for _, _, code in found if code == "LRD003"] == ["LRD003"]


# -- a DeepSpeed engine's step in a trainer that also offers native AMP --------------------------
# A vendored fine-tuning trainer supports three back-ends: native AMP (a GradScaler, only when
# DeepSpeed is off), DeepSpeed (the engine from `deepspeed.initialize`, reached through a helper
# of the project) and plain fp32. The batch loop calls `self.engine.step()` when DeepSpeed is on:
# the engine scales and unscales by its own config, it never sees the GradScaler's scaled loss.

_THREE_BACKENDS = """
import torch
import deepspeed


def start_engine(net, cfg):
    engine, opt, _, sched = deepspeed.initialize(
        model=net, model_parameters=net.parameters(), config_params=cfg)
    return engine, opt, sched


class Runner:
    def __init__(self, net, cfg):
        self.net = net
        self.cfg = cfg
        self.engine = None
        self.native_amp = False
        if cfg.half and not cfg.use_ds:
            self.native_amp = True
            self.grad_scaler = torch.amp.GradScaler("cuda")

    def backward_one(self, batch):
        loss = self.net(batch).mean()
        if self.native_amp:
            self.grad_scaler.scale(loss).backward()
        elif self.engine:
            self.engine.backward(loss)
        else:
            loss.backward()

    def fit(self, batches):
        cfg = self.cfg
        if cfg.use_ds:
            self.engine, self.opt, self.sched = start_engine(self.net, cfg.ds)
        else:
            self.opt = torch.optim.AdamW(self.net.parameters(), lr=cfg.lr)
        for epoch in range(cfg.epochs):
            for i, batch in enumerate(batches):
                self.backward_one(batch)
                if self.engine:
                    self.engine.step()
                if (i + 1) % cfg.accum == 0:
                    if self.engine:
                        pass
                    elif self.native_amp:
                        self.grad_scaler.step(self.opt)
                        self.grad_scaler.update()
                    else:
                        {plain}
                    self.net.zero_grad()
"""


def test_a_deepspeed_engine_step_beside_a_native_amp_path_is_not_lrd109(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch,
                          {"runner.py": _THREE_BACKENDS.format(plain="self.opt.step()")})
    assert [code for _, _, code in found if code == "LRD109"] == []


def test_a_plain_optimizer_step_after_a_scaled_backward_is_still_lrd109(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the fp32 branch folded into the AMP one: the scaled loss reaches `self.opt.step()`
    text = _THREE_BACKENDS.format(plain="self.opt.step()").replace(
        """                    elif self.native_amp:
                        self.grad_scaler.step(self.opt)
                        self.grad_scaler.update()
                    else:
                        self.opt.step()""",
        """                    else:
                        self.opt.step()""")
    assert "grad_scaler.step" not in text
    found = check_project(tmp_path, monkeypatch, {"runner.py": text})
    assert [code for _, _, code in found if code == "LRD109"] == ["LRD109"]
