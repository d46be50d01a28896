"""Shapes seen in the fresh-2026-12zzzb127 batch (rcnew127, bench/realcode/README.md): an
untargeted sample of 2023-2026 training scripts with an LR scheduler and/or mixed precision
(segmentation course code with a scheduler factory, AMP trainer classes that hand the scheduler
to the epoch function, closed-form warm-ups written by a small trainer library, a manual warm-up
handed over to ReduceLROnPlateau, a StepLR resumed through ``last_epoch``, a diffusion masking
schedule beside the LR scheduler, schedulers picked by a module-level setting).

Programs written for these tests; no third-party code.

lrdoctor found every expected code of the batch's dev cases at first sight and raised no false
alarm there, so nothing was changed in the checker: these are the batch's shapes and their
nearest variants, kept as regression tests (right on main at 59fc513f and f7d42cc7 and on this branch).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# A scheduler factory in its own module returns (scheduler, is_plateau); the loop steps the
# plateau with a dice score (higher is better) every few epochs.
FACTORY = '''import torch.optim.lr_scheduler as lr_scheduler

_entry = {
    "step": lr_scheduler.StepLR,
    "plateau": lr_scheduler.ReduceLROnPlateau,
}

def create_sched(name, optim, max_epochs, **kw):
    ctor = _entry[name]
    is_plateau = False
    if name == "step":
        sched = ctor(optim, step_size=10, **kw)
    elif name == "plateau":
        sched = ctor(optim, mode='min', patience=3, **kw)
        is_plateau = True
    return sched, is_plateau
'''

FACTORY_LOOP = '''import torch
from sched import create_sched

def dice_score(model, loader):
    return 0.5

def train(model, loader, val_loader, optimizer, scheduler, is_plateau, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        if (epoch + 1) % 5 == 0:
            dice = dice_score(model, val_loader)
        if scheduler:
            if is_plateau:
                if (epoch + 1) % 5 == 0:
                    scheduler.step(dice)
            else:
                scheduler.step()

if __name__ == "__main__":
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = [(torch.randn(4, 2), torch.randn(4, 2))]
    sched, is_plateau = create_sched("plateau", opt, 100)
    train(model, loader, loader, opt, sched, is_plateau, 100)
'''


def test_factory_plateau_in_min_mode_stepped_with_dice_is_reported(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch):
    found = check_project(tmp_path, monkeypatch, {"sched.py": FACTORY, "train.py": FACTORY_LOOP})
    assert project_codes(found) == ["LRD004"]


def test_factory_plateau_in_max_mode_stepped_with_dice_is_silent(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch):
    files = {"sched.py": FACTORY.replace("mode='min'", "mode='max'"), "train.py": FACTORY_LOOP}
    assert check_project(tmp_path, monkeypatch, files) == []


# A StepLR resumed by loading the optimizer (its param groups carry the decayed LR) and setting
# the scheduler's position from the checkpoint's epoch number.
LAST_EPOCH_RESUME = '''import os
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint_path", type=str)
parser.add_argument("--resume", action="store_true")
parser.add_argument("--epochs", type=int, default=50)
args = parser.parse_args()

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
if args.checkpoint_path:
    ckpt = torch.load(args.checkpoint_path, weights_only=True)
    model.load_state_dict(ckpt["model_state_dict"])
    optimizer.load_state_dict(ckpt["optimizer_state_dict"])
if args.resume:
    start_epoch = int(os.path.basename(args.checkpoint_path).replace("epoch", "").replace(".pth", ""))
    scheduler.last_epoch = start_epoch
else:
    start_epoch = 0

loader = [(torch.randn(8, 4), torch.randn(8, 1))]
for epoch in range(start_epoch, args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    scheduler.step()
    torch.save({"model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict()}, f"epoch{epoch+1}.pth")
'''


def test_steplr_resumed_through_last_epoch_is_silent():
    assert codes(LAST_EPOCH_RESUME) == []


def test_steplr_resume_without_its_position_is_reported():
    source = LAST_EPOCH_RESUME.replace("    scheduler.last_epoch = start_epoch", "    pass")
    assert codes(source) == ["LRD007", "LRD007"]


# A hand-written warm-up over the first epochs, then ReduceLROnPlateau on the validation loss.
WARMUP_THEN_PLATEAU = '''import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam([{"params": model.parameters(), "initial_lr": 1e-3}], lr=1e-3)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=5)
warmup_epochs = 5
loader = [(torch.randn(8, 4), torch.randn(8, 1))]

def validate():
    return 0.1

for epoch in range(100):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
    val_loss = validate()
    if epoch < warmup_epochs:
        scale = (epoch + 1) / warmup_epochs
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"] * scale
    else:
        scheduler.step(val_loss)
'''


def test_manual_warmup_handed_over_to_a_plateau_is_silent():
    assert codes(WARMUP_THEN_PLATEAU) == []


def test_manual_lr_written_every_epoch_beside_a_plateau_step_is_reported():
    source = WARMUP_THEN_PLATEAU.replace("""    if epoch < warmup_epochs:
        scale = (epoch + 1) / warmup_epochs
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"] * scale
    else:
        scheduler.step(val_loss)""", """    scale = min(1.0, (epoch + 1) / warmup_epochs)
    for group in optimizer.param_groups:
        group["lr"] = group["initial_lr"] * scale
    scheduler.step(val_loss)""")
    assert codes(source) == ["LRD008"]


# An AMP trainer class: the scaler is built in __init__, train() builds the optimizer and a
# LinearLR warm-up and hands both to train_epoch, which steps the scheduler after scaler.step.
AMP_TRAINER = '''import torch
from torch import optim
from torch.amp import GradScaler, autocast


class AMPTrainer:
    def __init__(self, model, lr, epochs):
        self.model = model
        self.lr = lr
        self.epochs = epochs
        self.scaler = GradScaler("cuda")

    def train_epoch(self, loader, optimizer, scheduler):
        self.model.train()
        for x, y in loader:
            optimizer.zero_grad()
            with autocast("cuda"):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.scaler.step(optimizer)
            self.scaler.update()
            scheduler.step()

    def train(self, loader):
        optimizer = optim.AdamW(self.model.parameters(), lr=self.lr)
        total = len(loader) * self.epochs
        scheduler = optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, end_factor=1.0, total_iters=int(total * 0.1))
        for epoch in range(self.epochs):
            self.train_epoch(loader, optimizer, scheduler)


if __name__ == "__main__":
    loader = [(torch.randn(8, 4), torch.randn(8, 1))]
    AMPTrainer(torch.nn.Linear(4, 1), 1e-3, 10).train(loader)
'''


def test_scheduler_handed_to_the_epoch_method_after_scaler_step_is_reported():
    assert codes(AMP_TRAINER) == ["LRD005"]


def test_scheduler_stepped_only_when_the_scale_did_not_drop_is_silent():
    source = AMP_TRAINER.replace("""            self.scaler.step(optimizer)
            self.scaler.update()
            scheduler.step()""", """            scale_before = self.scaler.get_scale()
            self.scaler.step(optimizer)
            self.scaler.update()
            if self.scaler.get_scale() >= scale_before:
                scheduler.step()""")
    assert codes(source) == []


# A small iteration trainer: the update in train_one_iter, the scheduler in the after_iter hook.
HOOK_TRAINER = '''import torch
from torch.amp import GradScaler, autocast


class IterTrainer:
    def __init__(self, model, optimizer, lr_scheduler, loader, max_epoch, enable_amp=True):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.loader = loader
        self.max_epoch = max_epoch
        self.enable_amp = enable_amp
        self.epoch_len = len(loader)
        self._it = iter(loader)

    def train(self):
        self.scaler = GradScaler("cuda", enabled=self.enable_amp)
        for self.cur_epoch in range(self.max_epoch):
            for self.cur_iter in range(self.epoch_len):
                self.train_one_iter()
                self.after_iter()

    def train_one_iter(self):
        try:
            x, y = next(self._it)
        except StopIteration:
            self._it = iter(self.loader)
            x, y = next(self._it)
        with autocast("cuda", enabled=self.enable_amp):
            loss = torch.nn.functional.mse_loss(self.model(x), y)
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def after_iter(self):
        self.lr_scheduler.step()


if __name__ == "__main__":
    model = torch.nn.Linear(4, 1)
    loader = [(torch.randn(8, 4), torch.randn(8, 1))] * 10
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=len(loader) * 20)
    IterTrainer(model, opt, sched, loader, 20).train()
'''


def test_per_iteration_scheduler_in_a_hook_after_the_scaled_update_is_reported():
    assert codes(HOOK_TRAINER) == ["LRD005"]


def test_closed_form_lr_written_in_the_hook_is_silent():
    source = HOOK_TRAINER.replace("        self.lr_scheduler.step()",
                                  "        it = self.cur_epoch * self.epoch_len + self.cur_iter + 1\n"
                                  "        for group in self.optimizer.param_groups:\n"
                                  "            group[\"lr\"] = 1e-3 * min(1.0, it / 100)")
    source = source.replace("    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, "
                            "total_steps=len(loader) * 20)\n", "    sched = None\n")
    assert codes(source) == []


# A diffusion masking-rate schedule named `scheduler` (stepped every batch) beside an
# ExponentialLR stepped once per epoch.
MASKING = '''import math
import torch
from torch.optim.lr_scheduler import ExponentialLR


class MaskingScheduler:
    def __init__(self, total_steps, min_mask=0.15, max_mask=1.0):
        self.total_steps = total_steps
        self.min_mask = min_mask
        self.max_mask = max_mask
        self.current = 0

    def step(self):
        self.current += 1

    def get_t(self):
        progress = self.current / self.total_steps
        return self.min_mask + (self.max_mask - self.min_mask) * 0.5 * (1 + math.cos(math.pi * progress))


def train(model, data, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=6e-4)
    scheduler = MaskingScheduler(total_steps=epochs * len(data))
    lr_scheduler = ExponentialLR(optimizer, gamma=0.95)
    for epoch in range(epochs):
        for x, y in data:
            t = scheduler.get_t()
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x * t), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
        lr_scheduler.step()


if __name__ == "__main__":
    train(torch.nn.Linear(4, 1), [(torch.randn(8, 4), torch.randn(8, 1))] * 5, 12)
'''


def test_masking_schedule_per_batch_beside_a_per_epoch_exponential_lr_is_silent():
    assert codes(MASKING) == []


def test_exponential_lr_stepped_every_batch_of_a_loader_is_reported():
    source = MASKING.replace("""            scheduler.step()
        lr_scheduler.step()""", """            scheduler.step()
            lr_scheduler.step()""").replace(
        "    train(torch.nn.Linear(4, 1), [(torch.randn(8, 4), torch.randn(8, 1))] * 5, 12)",
        "    from torch.utils.data import DataLoader, TensorDataset\n"
        "    loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)\n"
        "    train(torch.nn.Linear(4, 1), loader, 12)")
    assert codes(source) == ["LRD002"]


# A module-level setting picks AdamW with a per-batch warm-up or Adam with a plateau; each
# scheduler is stepped only under its own setting.
BY_SETTING = '''import torch
import torch.optim as optim
from transformers import get_linear_schedule_with_warmup

OPTIMIZER = 'Adam'
NUM_EPOCHS = 50
LEARNING_RATE = 1e-4

model = torch.nn.Linear(4, 1)
train_dataloader = [(torch.randn(8, 4), torch.randn(8, 1))] * 10
val_dataloader = train_dataloader

if OPTIMIZER == 'AdamW':
    opt = optim.AdamW(model.parameters(), lr=LEARNING_RATE)
    scheduler = get_linear_schedule_with_warmup(opt, num_warmup_steps=10, num_training_steps=len(train_dataloader) * NUM_EPOCHS)
elif OPTIMIZER == 'Adam':
    opt = optim.Adam(model.parameters(), lr=LEARNING_RATE)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode='min', factor=0.2, patience=5)

for e in range(NUM_EPOCHS):
    for x, y in train_dataloader:
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if OPTIMIZER == 'AdamW':
            scheduler.step()
    val = sum(torch.nn.functional.mse_loss(model(x), y).item() for x, y in val_dataloader) / len(val_dataloader)
    if OPTIMIZER != 'AdamW':
        scheduler.step(val)
'''


def test_schedulers_picked_by_a_setting_and_stepped_under_it_are_silent():
    assert codes(BY_SETTING) == []


def test_plateau_picked_by_the_setting_stepped_every_batch_without_a_metric_is_reported():
    source = BY_SETTING.replace("""        if OPTIMIZER == 'AdamW':
            scheduler.step()""", """        scheduler.step()""")
    assert codes(source) == ["LRD004"]


# The scaler is enabled only for float16; the precision option defaults to bfloat16.
PRECISION_OPTION = '''import argparse
import torch
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--precision", default="amp_bf16", choices=["fp32", "amp_fp16", "amp_bf16"])
parser.add_argument("--epochs", type=int, default=10)
args = parser.parse_args()

model = torch.nn.Linear(4, 1).cuda()
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=len(loader) * args.epochs)
use_autocast = args.precision != "fp32"
amp_dtype = torch.float16 if args.precision == "amp_fp16" else torch.bfloat16
use_scaler = args.precision == "amp_fp16"
scaler = torch.amp.GradScaler("cuda", enabled=use_scaler)

for epoch in range(args.epochs):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", enabled=use_autocast, dtype=amp_dtype):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
'''


@pytest.mark.parametrize("default", ["amp_bf16", "amp_fp16"])
def test_per_batch_schedule_after_an_option_enabled_scaler_is_reported(default):
    source = PRECISION_OPTION.replace('default="amp_bf16"', f'default="{default}"')
    assert codes(source) == ["LRD005"]


def test_per_batch_schedule_without_any_scaler_is_silent():
    source = PRECISION_OPTION.replace("""        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()""", """        loss.backward()
        optimizer.step()""")
    assert codes(source) == []
