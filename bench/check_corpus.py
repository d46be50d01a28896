"""The benchmark corpus: the installed torch package and generated training scripts."""

from __future__ import annotations

import os
import random
from functools import cache
from pathlib import Path

SCHEDULERS = [
    ("StepLR(optimizer, step_size={e3}, gamma=0.1)", "epoch"),
    ("MultiStepLR(optimizer, milestones=[{e2}, {e3}], gamma=0.1)", "epoch"),
    ("CosineAnnealingLR(optimizer, T_max=args.epochs)", "epoch"),
    ("CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))", "batch"),
    ("OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs, "
     "steps_per_epoch=len(train_loader))", "batch"),
    ("ExponentialLR(optimizer, gamma=0.97)", "epoch"),
    ("LinearLR(optimizer, start_factor=0.1, total_iters={e1})", "epoch"),
]
OPTIMIZERS = [
    "SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)",
    "AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)",
    "Adam(model.parameters(), lr=args.lr)",
    "RMSprop(model.parameters(), lr=args.lr, alpha=0.9)",
]

TEMPLATE = '''"""Generated training script {n}: {desc}."""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class Net{n}(nn.Module):
    def __init__(self, width={width}, classes={classes}):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear({inputs}, width), nn.ReLU(), nn.Dropout({drop}),
            nn.Linear(width, width), nn.ReLU(),
        )
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        return self.head(self.features(x))


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default={epochs})
    p.add_argument("--lr", type=float, default={lr})
    p.add_argument("--batch-size", type=int, default={bs})
    p.add_argument("--amp", action="store_true")
    p.add_argument("--out", default="runs/{n}")
    return p.parse_args()


def evaluate(model, loader, device):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    return correct / max(total, 1)


def train_one_epoch(model, train_loader, optimizer, scheduler, scaler, device, epoch):
    model.train()
    running = 0.0
    start = time.time()
    for step, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", enabled=scaler is not None):
            loss = F.cross_entropy(model(x), y, label_smoothing={smooth})
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), {clip})
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), {clip})
            optimizer.step()
{batch_step}        running += loss.item()
        if step % {log} == 0:
            print(f"epoch {{epoch}} step {{step}} loss {{running / (step + 1):.4f}} "
                  f"{{time.time() - start:.1f}}s")
    return running / max(len(train_loader), 1)


def main():
    args = get_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = TensorDataset(torch.randn({samples}, {inputs}), torch.randint(0, {classes}, ({samples},)))
    train_loader = DataLoader(data, batch_size=args.batch_size, shuffle=True)
    val_loader = DataLoader(data, batch_size=256)
    model = Net{n}().to(device)
    optimizer = torch.optim.{optimizer}
    scheduler = torch.optim.lr_scheduler.{scheduler}
    scaler = torch.amp.GradScaler("cuda") if args.amp else None
    best = 0.0
    for epoch in range(args.epochs):
        train_loss = train_one_epoch(model, train_loader, optimizer, scheduler, scaler, device,
                                     epoch)
        acc = evaluate(model, val_loader, device)
{epoch_step}        if acc > best:
            best = acc
            os.makedirs(args.out, exist_ok=True)
            torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch, "acc": acc}},
                       os.path.join(args.out, "best.pt"))
        print(f"epoch {{epoch}}: train {{train_loss:.4f}} val acc {{acc:.3f}}")


if __name__ == "__main__":
    main()
'''


def generate_scripts(directory: Path, count: int, seed: int = 0) -> None:
    """``count`` realistic training scripts (about 110 lines each) in ``directory``."""
    rng = random.Random(seed)
    for n in range(count):
        sched, unit = rng.choice(SCHEDULERS)
        e1, e2, e3 = sorted(rng.sample(range(2, 90), 3))
        batch = "        scheduler.step()\n" if unit == "batch" else ""
        epoch = "        scheduler.step()\n" if unit == "epoch" else ""
        text = TEMPLATE.format(
            n=n, desc=f"{sched.split('(')[0]} stepped per {unit}", width=rng.choice([128, 256]),
            classes=rng.choice([10, 100]), inputs=rng.choice([32, 64, 784]),
            drop=rng.choice([0.0, 0.1, 0.3]), epochs=rng.choice([10, 30, 90]),
            lr=rng.choice([0.1, 3e-4, 1e-3]), bs=rng.choice([32, 64, 128]),
            smooth=rng.choice([0.0, 0.1]), clip=rng.choice([1.0, 5.0]), log=rng.choice([10, 50]),
            samples=rng.choice([1024, 4096]), optimizer=rng.choice(OPTIMIZERS),
            scheduler=sched.format(e1=e1, e2=e2, e3=e3), batch_step=batch, epoch_step=epoch,
        )
        sub = directory / f"project_{n // 100:03d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"train_{n:05d}.py").write_text(text)


def torch_files() -> tuple[str, list[str]]:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("torch is not installed: the benchmark reads its .py files")
    root = list(spec.submodule_search_locations)[0]
    files = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(".py")
    )
    return root, files


@cache
def count_lines(path: str) -> int:
    with open(path, "rb") as fh:
        return fh.read().count(b"\n")


def floor(files: list[str]) -> float:
    """CPU seconds to read and `ast.parse` every file (files that do not parse are skipped)."""
    import ast
    import time
    import warnings

    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for path in files:
            try:
                with open(path, "rb") as fh:
                    ast.parse(fh.read().decode("utf-8"))
            except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
                pass
    return time.process_time() - t0
