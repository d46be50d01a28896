"""LRD007 on the checkpoint shapes real training code writes: resumes that position the
scheduler themselves, hand-written schedules, disabled or absent scalers, framework saves,
save and load in different modules (correct twins, silent), and the resumes that really lose
the scheduler or the GradScaler (reported)."""

from __future__ import annotations

import pytest

from tests.check.helpers import check_project, codes, project_codes

HEAD = """
import argparse
import os

import torch
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default="")
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--amp", action="store_true")
args = parser.parse_args()

loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
"""

EPOCH = """
def train_one_epoch():
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
"""


def lrd007(src: str) -> list[str]:
    return [c for c in codes(src) if c == "LRD007"]


# ---- correct twins: the scheduler's position comes back by the program's own route ----

def test_scheduler_built_after_the_resume_with_last_epoch_is_silent() -> None:
    src = HEAD + EPOCH + """
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs,
                                                       last_epoch=start_epoch - 1)
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, "last.pth")
"""
    assert lrd007(src) == []


def test_scheduler_stepped_to_the_restored_epoch_is_silent() -> None:
    src = HEAD + EPOCH + """
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, args.epochs):
    scheduler.step(epoch)
    train_one_epoch()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, "last.pth")
"""
    assert lrd007(src) == []


def test_scheduler_fast_forwarded_after_the_resume_is_silent() -> None:
    src = HEAD + EPOCH + """
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
    for _ in range(start_epoch):
        scheduler.step()
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, "last.pth")
"""
    assert lrd007(src) == []


def test_lambda_reading_the_restored_step_counter_is_silent() -> None:
    src = HEAD + """
global_step = 0
total = args.epochs * len(loader)


def lr_at(step):
    return min(1.0, (step + 1) / 500) * max(0.0, 1 - step / total)


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: lr_at(global_step))
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    global_step = ckpt["step"]
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        global_step += 1
        scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "step": global_step}, "last.pth")
"""
    assert lrd007(src) == []


def test_hand_written_schedule_from_the_epoch_is_silent() -> None:
    src = HEAD + EPOCH + """

def adjust_learning_rate(opt, epoch):
    lr = 0.1 * (0.1 ** (epoch // 30))
    for group in opt.param_groups:
        group["lr"] = lr


start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, args.epochs):
    adjust_learning_rate(optimizer, epoch)
    train_one_epoch()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}, "last.pth")
"""
    assert lrd007(src) == []


# ---- correct twins: no GradScaler state worth keeping ----

AMP_TRAIN = """
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype={dtype}):
            loss = torch.nn.functional.mse_loss(model(x), y)
{backward}
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch}}, "last.pth")
"""


def test_disabled_scaler_is_silent() -> None:
    src = HEAD + "scaler = torch.cuda.amp.GradScaler(enabled=False)\n" + AMP_TRAIN.format(
        dtype="torch.float16", backward="""\
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()""")
    assert lrd007(src) == []


def test_bf16_without_a_scaler_is_silent() -> None:
    src = HEAD + AMP_TRAIN.format(dtype="torch.bfloat16", backward="""\
        loss.backward()
        optimizer.step()""")
    assert lrd007(src) == []


def test_scaler_in_use_left_out_of_save_and_resume_is_reported() -> None:
    src = HEAD + "scaler = torch.cuda.amp.GradScaler()\n" + AMP_TRAIN.format(
        dtype="torch.float16", backward="""\
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()""")
    assert lrd007(src) != []


# ---- correct twins: frameworks that save the state themselves ----

def test_accelerate_save_state_with_prepared_scheduler_is_silent() -> None:
    src = """
import torch
from accelerate import Accelerator

accelerator = Accelerator(mixed_precision="fp16")
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
accelerator.load_state("ckpt")
for step, x in enumerate(loader):
    loss = model(x).sum()
    accelerator.backward(loss)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    if step % 100 == 0:
        accelerator.save_state("ckpt")
"""
    assert lrd007(src) == []


def test_accelerate_save_state_without_the_scheduler_is_reported() -> None:
    src = """
import torch
from accelerate import Accelerator

accelerator = Accelerator()
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
accelerator.load_state("ckpt")
for step, x in enumerate(loader):
    loss = model(x).sum()
    accelerator.backward(loss)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    if step % 100 == 0:
        accelerator.save_state("ckpt")
"""
    assert lrd007(src) != []


def test_hf_trainer_is_silent() -> None:
    src = """
import torch
from transformers import Trainer, TrainingArguments

model = torch.nn.Linear(4, 1)
args = TrainingArguments(output_dir="out", fp16=True, lr_scheduler_type="cosine",
                         warmup_steps=100, save_steps=500)
trainer = Trainer(model=model, args=args, train_dataset=None)
trainer.train(resume_from_checkpoint=True)
"""
    assert lrd007(src) == []


# ---- save and resume in different modules ----

def test_save_and_resume_in_different_modules_both_complete_is_silent(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "utils/checkpoint.py": """
            import torch


            def save_checkpoint(path, model, optimizer, scheduler, epoch):
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "epoch": epoch}, path)


            def load_checkpoint(path, model, optimizer, scheduler):
                ckpt = torch.load(path)
                model.load_state_dict(ckpt["model"])
                optimizer.load_state_dict(ckpt["optimizer"])
                scheduler.load_state_dict(ckpt["scheduler"])
                return ckpt["epoch"] + 1
            """,
        "train.py": """
            import torch
            from utils.checkpoint import load_checkpoint, save_checkpoint

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)
            loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
            start = load_checkpoint("last.pth", model, optimizer, scheduler)
            for epoch in range(start, 90):
                for x in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
                scheduler.step()
                save_checkpoint("last.pth", model, optimizer, scheduler, epoch)
            """,
    }
    assert "LRD007" not in project_codes(check_project(tmp_path, monkeypatch, files))


def test_resume_helper_that_forgets_the_scheduler_is_reported(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "utils/checkpoint.py": """
            import torch


            def save_checkpoint(path, model, optimizer, epoch):
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "epoch": epoch}, path)


            def load_checkpoint(path, model, optimizer):
                ckpt = torch.load(path)
                model.load_state_dict(ckpt["model"])
                optimizer.load_state_dict(ckpt["optimizer"])
                return ckpt["epoch"] + 1
            """,
        "train.py": """
            import torch
            from utils.checkpoint import load_checkpoint, save_checkpoint

            model = torch.nn.Linear(4, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)
            loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
            start = load_checkpoint("last.pth", model, optimizer)
            for epoch in range(start, 90):
                for x in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
                scheduler.step()
                save_checkpoint("last.pth", model, optimizer, epoch)
            """,
    }
    assert "LRD007" in project_codes(check_project(tmp_path, monkeypatch, files))


# ---- misses: checkpoints that really lose the scheduler ----

def test_dict_built_in_pieces_without_the_scheduler_is_reported() -> None:
    src = HEAD + EPOCH + """
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    state = {}
    state["model"] = model.state_dict()
    state["optimizer"] = optimizer.state_dict()
    state["epoch"] = epoch
    torch.save(state, "last.pth")
"""
    assert lrd007(src) != []


def test_dict_built_in_pieces_with_the_scheduler_is_silent() -> None:
    src = HEAD + EPOCH + """
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    state = {}
    state["model"] = model.state_dict()
    state["optimizer"] = optimizer.state_dict()
    state["scheduler"] = scheduler.state_dict()
    state["epoch"] = epoch
    torch.save(state, "last.pth")
"""
    assert lrd007(src) == []


def test_resume_with_strict_false_model_and_optimizer_only_is_reported() -> None:
    src = HEAD + EPOCH + """
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ckpt["model"], strict=False)
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch}, "last.pth")
"""
    assert lrd007(src) != []


# ---- more resumes that position the scheduler (silent) and checkpoints that lose it ----

PROBE_HEAD = """import argparse
import torch
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--resume", default="")
parser.add_argument("--epochs", type=int, default=90)
args = parser.parse_args()
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


def train_one_epoch(sched=None):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        if sched is not None:
            sched.step()
"""

SILENT = {
    "helper_last_epoch": """

def load_checkpoint(path, model, optimizer):
    ckpt = torch.load(path)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["epoch"] + 1


start_epoch = load_checkpoint(args.resume, model, optimizer) if args.resume else 0
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30, 0.1, last_epoch=start_epoch - 1)
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
""",
    "set_last_epoch": """scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.95 ** e)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
    scheduler.last_epoch = start_epoch
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
""",
    "ff_iters": """total = args.epochs * len(loader)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=total)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
    for _ in range(start_epoch * len(loader)):
        scheduler.step()
for epoch in range(start_epoch, args.epochs):
    train_one_epoch(scheduler)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
""",
    "kwargs_last_epoch": """start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
iters = len(loader)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
    optimizer, T_max=args.epochs * iters, last_epoch=start_epoch * iters - 1)
for epoch in range(start_epoch, args.epochs):
    train_one_epoch(scheduler)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
""",
    "build_fn_last_epoch": """

def build_scheduler(opt, epochs, last_epoch=-1):
    return torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs, last_epoch=last_epoch)


start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
scheduler = build_scheduler(optimizer, args.epochs, last_epoch=start_epoch - 1)
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
""",
    "hf_ff": """from transformers import get_linear_schedule_with_warmup
total = args.epochs * len(loader)
scheduler = get_linear_schedule_with_warmup(optimizer, 100, total)
global_step = 0
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    global_step = ckpt["global_step"]
    start_epoch = global_step // len(loader)
    for _ in range(global_step):
        scheduler.step()
for epoch in range(start_epoch, args.epochs):
    train_one_epoch(scheduler)
    global_step += len(loader)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "global_step": global_step}, "last.pth")
""",
    "step_epoch_fraction": """scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=10)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"] + 1
iters = len(loader)
for epoch in range(start_epoch, args.epochs):
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step(epoch + i / iters)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
""",
}

REPORTED = {
    "imagenet_helper": """import shutil


def save_checkpoint(state, is_best, filename="checkpoint.pth.tar"):
    torch.save(state, filename)
    if is_best:
        shutil.copyfile(filename, "model_best.pth.tar")


scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["state_dict"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"]
best = 1e9
for epoch in range(start_epoch, args.epochs):
    train_one_epoch()
    scheduler.step()
    loss = 0.0
    is_best = loss < best
    save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict(),
                     "optimizer": optimizer.state_dict(), "best": best}, is_best)
""",
    "scaler_config_on": """cfg = {"amp": True}
scaler = torch.amp.GradScaler("cuda", enabled=cfg["amp"])
start = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start = ckpt["epoch"] + 1
for epoch in range(start, args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=cfg["amp"]):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "last.pth")
""",
    "pieces_update": """scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [30, 60])
start = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start = ckpt["epoch"] + 1
for epoch in range(start, args.epochs):
    train_one_epoch()
    scheduler.step()
    ckpt = {"model": model.state_dict(), "epoch": epoch}
    ckpt.update(optimizer=optimizer.state_dict())
    torch.save(ckpt, "last.pth")
""",
}


@pytest.mark.parametrize("name", sorted(SILENT))
def test_resume_that_positions_the_scheduler_itself_is_silent(name: str) -> None:
    assert lrd007(PROBE_HEAD + SILENT[name]) == []


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_checkpoint_and_resume_that_lose_the_state_are_reported(name: str) -> None:
    assert lrd007(PROBE_HEAD + REPORTED[name]) != []
