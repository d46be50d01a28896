"""Shapes seen in the fresh-2026-12zzl111 batch (rcnew111, bench/realcode/README.md): resuming
from checkpoints in hand-written detection, segmentation, language-model, GAN and
self-supervised trainers.

Programs written for these tests; no third-party code.

One miss of the batch, fixed: a detector's trainer saves ``{epoch, weights, best, optimizer}``
but not its MultiStepLR, and its resume loads the weights and the epoch only, leaves the
optimizer fresh, rebuilds the MultiStepLR and sets ``scheduler.last_epoch = start_epoch - 1``.
LRD007 took any ``.last_epoch = ...`` for a schedule rebuilt at its position. For PyTorch's
chainable schedulers (StepLR, MultiStepLR, CosineAnnealingLR, LinearLR, ...) that is true only
with the LR the position belongs to: each step scales the LR found in the param groups, so
over a fresh optimizer the run restarts at the base LR and the decays passed before the
resume point are never applied (a MultiStepLR resumed between its milestones keeps the
undecayed LR until the next one, then decays once). Such a scheduler now counts as lost when
no optimizer state is restored anywhere in the program (a traced ``load_state_dict`` on an
optimizer, or one on a receiver or entry named like an optimizer in the files involved).
Closed-form schedulers (LambdaLR, OneCycleLR, CyclicLR) compute the LR from the count and stay
positioned. Probing the family found one more: CosineAnnealingWarmRestarts counts its cycle in
``T_cur``, which ``.last_epoch = n`` does not move; positioned that way it restarts its cycle,
optimizer or not.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages


def _resume_then_position(scheduler: str, restore: str = "", saved: str = '"opt": opt.state_dict(), ',
                          extra: str = "") -> str:
    return f'''
import math
import torch
from torch import nn, optim
from torch.optim import lr_scheduler


def train(cfg, batches):
    net = nn.Linear(8, 3)
    opt = optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    start = 0
    if cfg.resume:
        blob = torch.load(cfg.resume)
        net.load_state_dict(blob["net"])
{restore}        start = blob["epoch"] + 1
{extra}    sched = {scheduler}
    sched.last_epoch = start - 1
    for epoch in range(start, cfg.epochs):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
        sched.step()
        torch.save({{"net": net.state_dict(), {saved}"epoch": epoch}}, "latest.pth")
'''


MULTISTEP = "lr_scheduler.MultiStepLR(opt, milestones=[40, 70], gamma=0.2)"
STEP = "lr_scheduler.StepLR(opt, step_size=25, gamma=0.5)"
COSINE = "lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)"
LAMBDA = "lr_scheduler.LambdaLR(opt, lambda e: 0.97 ** e)"
ONECYCLE = "lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=cfg.epochs)"
RESTARTS = "lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=15)"
RESTORE = '        opt.load_state_dict(blob["opt"])\n'


@pytest.mark.parametrize("scheduler", [MULTISTEP, STEP, COSINE])
def test_chainable_positioned_over_a_fresh_optimizer_is_reported(scheduler: str) -> None:
    source = _resume_then_position(scheduler)
    assert codes(source) == ["LRD007"]
    (message,) = messages(source)
    assert "positioned by `last_epoch`" in message
    assert "no optimizer state is restored" in message


@pytest.mark.parametrize("scheduler", [MULTISTEP, STEP, COSINE])
def test_chainable_positioned_with_the_optimizer_restored_is_silent(scheduler: str) -> None:
    assert codes(_resume_then_position(scheduler, restore=RESTORE)) == []


def test_optimizer_restored_only_under_a_flag_is_silent() -> None:
    restore = '        if cfg.keep_optimizer:\n            opt.load_state_dict(blob["opt"])\n'
    assert codes(_resume_then_position(MULTISTEP, restore=restore)) == []


def test_optimizer_restored_from_a_file_of_its_own_is_silent() -> None:
    restore = '        opt.load_state_dict(torch.load(cfg.resume + ".opt"))\n'
    assert codes(_resume_then_position(MULTISTEP, restore=restore)) == []


@pytest.mark.parametrize("scheduler", [LAMBDA, ONECYCLE])
def test_closed_form_positioned_over_a_fresh_optimizer_is_silent(scheduler: str) -> None:
    assert codes(_resume_then_position(scheduler)) == []


def test_weights_only_checkpoint_is_not_judged() -> None:
    assert codes(_resume_then_position(MULTISTEP, saved="")) == []


def test_exponential_positioned_over_a_fresh_optimizer_stays_silent() -> None:
    # ExponentialLR is left to its own reading (gamma times the LR it finds) as before
    source = _resume_then_position("lr_scheduler.ExponentialLR(opt, gamma=0.95)")
    assert codes(source) == []


def test_choice_with_a_chainable_option_names_that_option() -> None:
    scheduler = "lr_scheduler.LambdaLR(opt, lambda e: 0.5 * (1 + math.cos(math.pi * e / cfg.epochs)))"
    source = _resume_then_position("None", extra=(
        "    if cfg.cosine:\n"
        f"        sched = {scheduler}\n"
        "    else:\n"
        f"        sched = {MULTISTEP}\n")).replace("    sched = None\n", "")
    assert codes(source) == ["LRD007"]
    assert "MultiStepLR" in messages(source)[0]


@pytest.mark.parametrize("restore", ["", RESTORE])
def test_warm_restarts_are_not_moved_by_last_epoch(restore: str) -> None:
    source = _resume_then_position(RESTARTS, restore=restore)
    assert "LRD007" in codes(source)
    assert any("`T_cur`" in m for m in messages(source))


def test_warm_restarts_built_at_the_position_are_silent() -> None:
    source = _resume_then_position(RESTARTS.replace("T_0=15", "T_0=15, last_epoch=start - 1"),
                                   restore=RESTORE).replace("    sched.last_epoch = start - 1\n", "")
    assert codes(source) == []


def test_replayed_steps_over_a_fresh_optimizer_are_silent() -> None:
    # stepping the scheduler `start` times applies every decay to the fresh optimizer's LR
    source = _resume_then_position(MULTISTEP).replace(
        "    sched.last_epoch = start - 1\n", "    for _ in range(start):\n        sched.step()\n")
    assert codes(source) == []


def test_trainer_class_with_a_saver_of_another_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "tools/__init__.py": "from .keeper import Keeper\n",
        "tools/keeper.py": '''
            import os
            import shutil

            import torch


            class Keeper:
                def __init__(self, folder):
                    self.folder = folder

                def store(self, state, best):
                    path = os.path.join(self.folder, "last.pth")
                    torch.save(state, path)
                    if best:
                        shutil.copyfile(path, os.path.join(self.folder, "best.pth"))
            ''',
        "train.py": '''
            import torch
            from torch import nn, optim

            from tools import Keeper


            class Runner:
                def __init__(self, cfg):
                    self.net = nn.Linear(8, 3)
                    self.opt = optim.SGD(self.net.parameters(), lr=cfg.lr, momentum=0.9)
                    self.first = 0
                    if cfg.resume:
                        blob = torch.load(cfg.path)
                        self.first = blob["epoch"] + 1
                        self.net.load_state_dict(blob["weights"])
                    self.sched = optim.lr_scheduler.MultiStepLR(
                        self.opt, milestones=[round(cfg.epochs * f) for f in (0.7, 0.9)], gamma=0.3)
                    self.sched.last_epoch = self.first - 1
                    self.keeper = Keeper(cfg.out)

                def epoch(self, batches):
                    for x, y in batches:
                        self.opt.zero_grad()
                        nn.functional.cross_entropy(self.net(x), y).backward()
                        self.opt.step()
                    self.sched.step()


            def main(cfg, batches):
                r = Runner(cfg)
                best = 0.0
                for e in range(r.first, cfg.epochs):
                    r.epoch(batches)
                    score = cfg.evaluate(r.net)
                    r.keeper.store({"epoch": e, "weights": r.net.state_dict(), "best": best,
                                    "optimizer": r.opt.state_dict()}, score > best)
                    best = max(best, score)
            ''',
    }
    found = check_project(tmp_path, monkeypatch, files)
    assert [(p, c) for p, _, c in found] == [("train.py", "LRD007")]
    files["train.py"] = files["train.py"].replace(
        '                        self.net.load_state_dict(blob["weights"])\n',
        '                        self.net.load_state_dict(blob["weights"])\n'
        '                        self.opt.load_state_dict(blob["optimizer"])\n')
    for name in files:
        (tmp_path / name).unlink()
    (tmp_path / ".git").rmdir()
    assert check_project(tmp_path, monkeypatch, files) == []


def test_scheduler_never_positioned_keeps_its_own_reading() -> None:
    # no `.last_epoch = ...` at all: the resume reading of a lost CosineAnnealingLR is the
    # one it had (a new cosine bent from the restored LR), not the positioned one
    source = _resume_then_position(COSINE).replace("    sched.last_epoch = start - 1\n", "")
    assert codes(source) == ["LRD007"]
    (message,) = messages(source)
    assert "positioned by `last_epoch`" not in message


# Probing the family: a resume that restores a OneCycleLR's state but leaves the epoch loop
# starting at 0 (the start epoch is never read back) steps it a whole run's worth on top of
# the restored count: OneCycleLR raises past total_steps (LRD010).
def _onecycle_resume(sized: str, loop: str, restore_start: bool = False) -> str:
    start = '        start = ck["epoch"] + 1\n' if restore_start else ""
    return f'''
import torch
from torch import nn, optim
from torch.utils.data import DataLoader


def run(cfg, data):
    loader = DataLoader(data, batch_size=32, shuffle=True)
    net = nn.Linear(8, 3)
    opt = optim.AdamW(net.parameters(), lr=1e-3)
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, {sized})
    start = 0
    if cfg.resume:
        ck = torch.load(cfg.resume)
        net.load_state_dict(ck["net"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
{start}    for epoch in {loop}:
        for x, y in loader:
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
            sched.step()
        torch.save({{"net": net.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict(), "epoch": epoch}}, "ck.pt")
'''


TOTAL = "total_steps=cfg.epochs * len(loader)"
PER_EPOCH = "epochs=cfg.epochs, steps_per_epoch=len(loader)"


@pytest.mark.parametrize("sized", [TOTAL, PER_EPOCH])
@pytest.mark.parametrize("loop", ["range(cfg.epochs)", "range(start, cfg.epochs)"])
def test_onecycle_restored_while_the_loop_starts_at_zero(sized: str, loop: str) -> None:
    source = _onecycle_resume(sized, loop)
    assert codes(source) == ["LRD010"]
    assert "from 0 again" in messages(source)[0]


@pytest.mark.parametrize("sized", [TOTAL, PER_EPOCH])
def test_onecycle_restored_with_the_start_epoch_read_back_is_silent(sized: str) -> None:
    assert codes(_onecycle_resume(sized, "range(start, cfg.epochs)", restore_start=True)) == []


def test_onecycle_restored_with_a_loop_of_the_remaining_epochs_is_silent() -> None:
    source = _onecycle_resume(TOTAL, 'range(cfg.epochs - cfg.done)')
    assert codes(source) == []


def test_onecycle_sized_longer_than_the_loop_is_not_compared() -> None:
    source = _onecycle_resume("total_steps=2 * cfg.epochs * len(loader)", "range(cfg.epochs)")
    assert codes(source) == []


def test_onecycle_built_in_one_function_and_looped_in_another_is_not_compared() -> None:
    # a trainer's `train(epochs)` may be handed the epochs left: its loop's count is not the
    # count the scheduler was sized with, though both are written `epochs`
    source = '''
import torch
from torch import nn, optim


class Runner:
    def __init__(self, net, loader, epochs):
        self.net, self.loader = net, loader
        self.opt = optim.AdamW(net.parameters(), lr=1e-3)
        self.sched = optim.lr_scheduler.OneCycleLR(self.opt, 1e-3, total_steps=epochs * len(loader))

    def restore(self, path):
        ck = torch.load(path)
        self.opt.load_state_dict(ck["opt"])
        self.sched.load_state_dict(ck["sched"])

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.opt.zero_grad()
                nn.functional.mse_loss(self.net(x), y).backward()
                self.opt.step()
                self.sched.step()


def main(net, loader, cfg):
    r = Runner(net, loader, cfg.epochs)
    r.restore(cfg.ckpt)
    r.fit(cfg.epochs - cfg.done)
'''
    assert "LRD010" not in codes(source)
