"""lead51: warnings of the whole regression repositories read again (LRD001, LRD005, LRD006,
LRD007, LRD008, LRD111 in files no case labels).

1. LRD008 on a binary-network CIFAR / ImageNet trainer (four scripts of one repository): the
   epoch loop writes a linear warm-up into the param groups while ``epoch < 5`` (``if
   args.warm_up and epoch < 5:``) and steps a CosineAnnealingLR sized ``epochs - 4 *
   warm_up`` only ``if epoch >= 4 * args.warm_up:``. Both tests bound the same pass counter of
   the loop that holds them, in opposite directions: the counter only grows, so the writes
   fill the first passes and the scheduler takes over the LR it finds after them, the
   hand-over of a manual warm-up. lrdoctor took it for the two competing, because the two
   bounds are not the same expression (one a literal, one read from a setting), so it could
   not prove the branches exclusive. Now a write under ``counter < A`` and steps only under
   ``counter >= B`` on the same loop's counter are a hand-over; where both bounds are numbers,
   the steps may start at most one pass before the writes end (``epoch < 5`` beside ``epoch
   >= 0`` still competes), and a step under no bound on that counter still competes.

2. LRD111's message on a loss made after the autocast block (below).

3. timm's ``NativeScaler`` (an image-restoration transformer's trainers, timm-based
   classification code): ``loss_scaler(loss, optimizer, clip_grad=..., parameters=...,
   need_update=...)`` runs ``scaler.scale(loss).backward()``, then (when ``need_update``
   holds) ``unscale_`` and a clip where ``clip_grad`` is given, ``scaler.step(optimizer)``
   and ``scaler.update()`` of the torch GradScaler it holds. lrdoctor knew none of it: the
   loop seemed to update nothing, so the resume's replay of ``scheduler.step()`` up to the
   start epoch was not told apart from training and LRD007 blamed the missing scheduler state
   (which the replay repositions), while the scaler the checkpoint does lack went unnamed; a
   per-batch scheduler after the call was not LRD005, one stepped on every micro-batch beside
   ``need_update=(i + 1) % accum == 0`` not LRD017.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes

_WARM_UP = """
import argparse
import torch

p = argparse.ArgumentParser()
p.add_argument("--warm_up", action="store_true")
p.add_argument("--epochs", type=int, default=100)
args = p.parse_args()
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.epochs - 4 * args.warm_up)
loader = [torch.randn(8, 4) for _ in range(3)]
for epoch in range(args.epochs):
    if {write_guard}:
        for group in optimizer.param_groups:
            group["lr"] = 0.1 * (epoch + 1) / 5
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    if {step_guard}:
        scheduler.step()
"""


@pytest.mark.parametrize(("write_guard", "step_guard"), [
    ("args.warm_up and epoch < 5", "epoch >= 4 * args.warm_up"),
    ("epoch < 5", "epoch >= 5"),
    ("epoch < 5", "epoch > 4"),
    ("epoch <= 4", "epoch >= 4"),
    ("not epoch >= args.warm_up_epochs", "epoch > args.warm_up_epochs - 1"),
    ("epoch < args.warm_up_epochs", "not epoch < 4"),
])
def test_warm_up_writes_then_steps_on_the_same_counter_hand_over(
        write_guard: str, step_guard: str) -> None:
    source = _WARM_UP.replace("{write_guard}", write_guard).replace("{step_guard}", step_guard)
    assert "LRD008" not in codes(source)


@pytest.mark.parametrize(("write_guard", "step_guard"), [
    # the steps begin long before the writes end: both run on epochs 0-4
    ("epoch < 5", "epoch >= 0"),
    ("args.warm_up and epoch < 10", "epoch > 2"),
    # the step is bounded by something else than the pass counter
    ("epoch < 5", "args.use_scheduler"),
    ("epoch < 5", "True"),
    # the write is not bounded above by the counter: it runs on every pass
    ("epoch >= 0", "epoch >= 5"),
    ("args.warm_up", "epoch >= 5"),
])
def test_writes_beside_steps_on_the_same_passes_still_compete(
        write_guard: str, step_guard: str) -> None:
    source = _WARM_UP.replace("{write_guard}", write_guard).replace("{step_guard}", step_guard)
    assert "LRD008" in codes(source)


def test_a_counter_of_another_loop_does_not_split_the_passes() -> None:
    # the write is bounded by the batch index, which restarts every epoch: it runs in every
    # epoch, and so beside every step of the scheduler
    source = """
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 95)
loader = [torch.randn(8, 4) for _ in range(3)]
for epoch in range(100):
    for i, x in enumerate(loader):
        if i < 5:
            for group in optimizer.param_groups:
                group["lr"] = 0.1 * (i + 1) / 5
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    if epoch >= 5:
        scheduler.step()
"""
    assert "LRD008" in codes(source)


# 2. LRD111's message on a loss made after the autocast block (a contrastive trainer: the
#    forward under `autocast(enabled=True)`, the loss from its logits after the block) said
#    "the loss is computed under float16 autocast"; it names the forward pass now.

_UNSCALED = """
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in [torch.randn(8, 4)]:
    optimizer.zero_grad()
    with torch.autocast("cuda"):
{inside}
{after}
    loss.backward()
    optimizer.step()
"""


def test_lrd111_names_the_forward_pass_when_the_loss_is_made_after_the_block() -> None:
    from .helpers import messages

    after = _UNSCALED.format(inside="        out = model(x)",
                             after="    loss = out.float().pow(2).mean()")
    inside = _UNSCALED.format(inside="        loss = model(x).pow(2).mean()", after="")
    (m_after,) = [m for m in messages(after) if "GradScaler" in m]
    (m_inside,) = [m for m in messages(inside) if "GradScaler" in m]
    assert m_after.startswith("the loss is computed from a forward pass run under float16 autocast (line 8)")
    assert m_inside.startswith("the loss is computed under float16 autocast (line 8)")


# 3. timm's NativeScaler

_NATIVE = """
import argparse
import torch
from timm.utils import NativeScaler

p = argparse.ArgumentParser()
p.add_argument("--resume", default="")
p.add_argument("--epochs", type=int, default=100)
args = p.parse_args()
model = torch.nn.Linear(4, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30, 0.5)
loss_scaler = NativeScaler()
loader = torch.utils.data.DataLoader(
    list(zip(torch.randn(64, 4), torch.randint(0, 2, (64,)))), batch_size=8)
start_epoch = 1
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
{restore}
    start_epoch = ckpt["epoch"] + 1
    for _ in range(1, start_epoch):
        scheduler.step()
for epoch in range(start_epoch, args.epochs + 1):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters())
    scheduler.step()
    torch.save({{"epoch": epoch, "model": model.state_dict(),
                "optimizer": optimizer.state_dict(){saved}}}, "last.pth")
"""


def test_native_scaler_missing_from_the_checkpoint_is_named() -> None:
    from .helpers import messages

    source = _NATIVE.format(restore="", saved="")
    found = [m for m in messages(source) if "checkpoint" in m or "restore" in m]
    assert found, "the checkpoint lacks the NativeScaler's state"
    assert all("GradScaler" in m and "loss_scaler" in m for m in found), found
    # the replay of scheduler.step() up to the start epoch repositions the schedule
    assert not any("scheduler's" in m or "StepLR's step count" in m for m in found), found


def test_native_scaler_saved_and_restored_is_silent() -> None:
    source = _NATIVE.format(restore='    loss_scaler.load_state_dict(ckpt["scaler"])',
                            saved=', "scaler": loss_scaler.state_dict()')
    assert "LRD007" not in codes(source)


_NATIVE_PER_BATCH = """
import torch
from timm.utils import NativeScaler

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loss_scaler = NativeScaler()
loader = torch.utils.data.DataLoader(
    list(zip(torch.randn(64, 4), torch.randint(0, 2, (64,)))), batch_size=8)
accum = 4
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=10 * len(loader) // accum)
for epoch in range(10):
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = torch.nn.functional.cross_entropy(model(x), y) / accum
        loss_scaler(loss, optimizer, parameters=model.parameters(), {need})
{tail}
"""


def test_scheduler_after_every_native_scaler_call_is_lrd005() -> None:
    from .helpers import messages

    source = _NATIVE_PER_BATCH.format(need="", tail="        scheduler.step()")
    (m,) = [m for m in messages(source) if "GradScaler skips" in m]
    assert "(`loss_scaler(...)`, line 16)" in m


def test_scheduler_on_every_micro_batch_beside_need_update_is_lrd017() -> None:
    source = _NATIVE_PER_BATCH.format(need="need_update=(i + 1) % accum == 0",
                                      tail="        scheduler.step()")
    assert "LRD017" in codes(source)
    once = _NATIVE_PER_BATCH.format(need="need_update=(i + 1) % accum == 0",
                                    tail="        if (i + 1) % accum == 0:\n"
                                         "            scheduler.step()")
    assert "LRD017" not in codes(once)


def test_native_scaler_with_a_per_epoch_timm_schedule_is_silent() -> None:
    source = """
import torch
from timm.utils import NativeScaler
from timm.scheduler import create_scheduler


def main(args):
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_scaler = NativeScaler()
    lr_scheduler, _ = create_scheduler(args, optimizer)
    loader = torch.utils.data.DataLoader(
        list(zip(torch.randn(64, 4), torch.randint(0, 2, (64,)))), batch_size=8)
    for epoch in range(args.epochs):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            optimizer.zero_grad()
            loss_scaler(loss, optimizer, clip_grad=args.clip_grad, parameters=model.parameters())
        lr_scheduler.step(epoch)
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "lr_scheduler": lr_scheduler.state_dict(), "epoch": epoch,
                    "scaler": loss_scaler.state_dict()}, "ckpt.pth")
"""
    assert [c for c in codes(source) if c != "LRD101"] == []


# 4. (seen in the merged run) with the NativeScaler's updates visible, the step a bundled
#    GradualWarmupScheduler copy makes on `self.after_scheduler` inside its own step() was
#    reported as "runs once before the training loop" at the copy's line, because the script
#    steps the wrapper once right after building it. That inner step runs only once the
#    wrapper's own state says the warm-up is over; the wrapper's call is what has a place in
#    the program.

_WARMUP_PACKAGE = 'from torch.optim.lr_scheduler import _LRScheduler, ReduceLROnPlateau\n\n\nclass GradualWarmupScheduler(_LRScheduler):\n    def __init__(self, optimizer, multiplier, total_epoch, after_scheduler=None):\n        self.multiplier = multiplier\n        self.total_epoch = total_epoch\n        self.after_scheduler = after_scheduler\n        self.finished = False\n        super().__init__(optimizer)\n\n    def get_lr(self):\n        if self.last_epoch > self.total_epoch:\n            if self.after_scheduler:\n                if not self.finished:\n                    self.after_scheduler.base_lrs = [b * self.multiplier for b in self.base_lrs]\n                    self.finished = True\n                return self.after_scheduler.get_last_lr()\n            return [b * self.multiplier for b in self.base_lrs]\n        return [b * ((self.multiplier - 1.0) * self.last_epoch / self.total_epoch + 1.0) for b in self.base_lrs]\n\n    def step(self, epoch=None, metrics=None):\n        if type(self.after_scheduler) != ReduceLROnPlateau:\n            if self.finished and self.after_scheduler:\n                if epoch is None:\n                    self.after_scheduler.step(None)\n                else:\n                    self.after_scheduler.step(epoch - self.total_epoch)\n            else:\n                return super().step(epoch)\n        else:\n            self.after_scheduler.step(metrics)\n'

_WARMUP_DRIVER = 'import torch\nfrom timm.utils import NativeScaler\nfrom warmup_scheduler import GradualWarmupScheduler\n\nmodel = torch.nn.Linear(4, 2)\noptimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\ncosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 97, eta_min=1e-6)\nscheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=3, after_scheduler=cosine)\nscheduler.step()\nloss_scaler = NativeScaler()\nloader = [torch.randn(8, 4) for _ in range(3)]\nfor epoch in range(1, 101):\n    for x in loader:\n        optimizer.zero_grad()\n        with torch.autocast("cuda"):\n            loss = model(x).sum()\n        loss_scaler(loss, optimizer, parameters=model.parameters())\n    scheduler.step()\n'


def test_a_wrappers_inner_step_is_not_placed_before_training(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "warmup_scheduler/__init__.py":
            "from warmup_scheduler.scheduler import GradualWarmupScheduler\n",
        "warmup_scheduler/scheduler.py": _WARMUP_PACKAGE,
        "train/train.py": _WARMUP_DRIVER,
    }
    found = check_project(tmp_path, monkeypatch, files)
    assert not [f for f in found if f[2] == "LRD001" and "warmup_scheduler" in f[0]], found
