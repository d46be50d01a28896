"""LRD005 on the shapes real float16 AMP training code writes (issue 7, branch lrd005a): the
scaler and the scheduler stepped in different functions, methods, classes and helpers, the
scaler switched by config dicts, flags, YAML and dataclass defaults, and the correct twins a
careful reviewer would not report (the step guarded by the scale, bfloat16 without a scaler,
a disabled scaler, a per-epoch step). All programs are our own."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# a helper that steps the scaler and returns, the scheduler in the batch loop
_BUG_00 = """
import torch

def train_step(model, batch, optimizer, scaler):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch).mean()
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=epochs * len(loader))
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            train_step(model, batch, optimizer, scaler)
            scheduler.step()
"""

# the update under an accumulation test, the scheduler inside it
_BUG_01 = """
import torch

def main(model, loader, epochs, accum):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader) // accum)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            with torch.autocast("cuda"):
                loss = model(batch).mean() / accum
            scaler.scale(loss).backward()
            if (i + 1) % accum == 0:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
                scheduler.step()
"""

# enabled from a config dict's get with a True default
_BUG_02 = """
import torch

def main(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, s / 1000))
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.get("amp", True))
    for epoch in range(cfg["epochs"]):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=cfg.get("amp", True)):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
"""

# enabled from two store_true flags joined by and
_BUG_03 = """
import argparse
import torch

def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--amp", action="store_true")
    p.add_argument("--fp16", action="store_true")
    return p.parse_args()

def main(model, loader):
    args = parse()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10000)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and args.fp16)
    for batch in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.amp):
            loss = model(batch).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""

# a trainer's after_step hook stepping the scheduler
_BUG_04 = """
import torch

class Trainer:
    def __init__(self, model, total):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, 1e-3, total_steps=total)
        self.scaler = torch.cuda.amp.GradScaler()

    def train_step(self, batch):
        with torch.autocast("cuda"):
            loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss

    def after_step(self):
        self.scheduler.step()

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for batch in loader:
                self.train_step(batch)
                self.after_step()
"""

# an amp_backward(loss, optimizer, scaler) helper
_BUG_05 = """
import torch

def amp_backward(loss, optimizer, scaler):
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, total_iters=500)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            amp_backward(loss, optimizer, scaler)
            scheduler.step()
"""

# a NativeScaler-like callable that unscales and clips inside
_BUG_06 = """
import torch

class NativeScaler:
    def __init__(self):
        self._scaler = torch.cuda.amp.GradScaler()

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None):
        self._scaler.scale(loss).backward()
        if clip_grad is not None:
            self._scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
    loss_scaler = NativeScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters())
            scheduler.step()
"""

# the scaler held by another class's instance
_BUG_07 = """
import torch

class AmpHelper:
    def __init__(self, enabled):
        self.scaler = torch.cuda.amp.GradScaler(enabled=enabled)

    def backward_step(self, loss, optimizer):
        self.scaler.scale(loss).backward()
        self.scaler.step(optimizer)
        self.scaler.update()

class Trainer:
    def __init__(self, model, total):
        self.model = model
        self.amp = AmpHelper(True)
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, 1e-3, total_steps=total)

    def fit(self, loader):
        for batch in loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = self.model(batch).mean()
            self.amp.backward_step(loss, self.optimizer)
            self.scheduler.step()
"""

# train_one_epoch given everything by main
_BUG_08 = """
import torch

def train_one_epoch(model, loader, optimizer, scaler, lr_scheduler, device):
    model.train()
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        lr_scheduler.step()

def main(model, loader, epochs, device):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=epochs * len(loader))
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer, scaler, lr_scheduler, device)
"""

# a while loop over next(iterator) up to max_steps
_BUG_09 = """
import torch

def main(model, loader, max_steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 - s / max_steps)
    scaler = torch.amp.GradScaler("cuda")
    it = iter(loader)
    step = 0
    while step < max_steps:
        try:
            batch = next(it)
        except StopIteration:
            it = iter(loader)
            batch = next(it)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(batch).mean()
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        step += 1
"""

# an optional scaler (GradScaler() if fp16 else None) in a Hugging Face style trainer
_BUG_10 = """
import torch
from transformers import get_linear_schedule_with_warmup

class Trainer:
    def __init__(self, model, args, total):
        self.model = model
        self.args = args
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        self.scheduler = get_linear_schedule_with_warmup(self.optimizer, args.warmup, total)
        self.scaler = torch.cuda.amp.GradScaler() if args.fp16 else None

    def train(self, loader):
        for epoch in range(self.args.epochs):
            for batch in loader:
                with torch.autocast("cuda", enabled=self.args.fp16):
                    loss = self.model(**batch).loss
                if self.scaler is not None:
                    self.scaler.scale(loss).backward()
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    loss.backward()
                    self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
"""

# a scheduler passed as an optional parameter and tested for None
_BUG_11 = """
import torch

def train(model, loader, optimizer, epochs, scheduler=None, use_amp=True):
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=use_amp):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            if scheduler is not None:
                scheduler.step()

def main(model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100 * len(loader))
    train(model, loader, optimizer, 100, scheduler)
"""

# an optimizer_step(optimizer, scaler, scheduler) helper
_BUG_12 = """
import torch

def optimizer_step(optimizer, scaler, scheduler):
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    optimizer.zero_grad()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=epochs * len(loader))
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            optimizer_step(optimizer, scaler, scheduler)
"""

# a fractional epoch position advanced every batch
_BUG_13 = """
import torch

def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=10)
    scaler = torch.cuda.amp.GradScaler()
    iters = len(loader)
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step(epoch + i / iters)
"""

# enabled from a YAML config read at run time
_BUG_14 = """
import torch
import yaml

def main(model, loader, path):
    with open(path) as f:
        cfg = yaml.safe_load(f)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, cfg["lr"], total_steps=cfg["steps"])
    use_amp = cfg["train"].get("amp", False)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    for batch in loader:
        with torch.autocast("cuda", enabled=use_amp):
            loss = model(batch).mean()
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""

# the scaled loss bound to a name before backward
_BUG_15 = """
import torch

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=epochs * len(loader))
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaled = scaler.scale(loss)
            scaled.backward()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            scheduler.step()
"""

# a builder returning (optimizer, GradScaler()) under a config type
_BUG_16 = """
import torch


def build_optimizer(params, cfg):
    if False:
        optimizer = torch.optim.Adam(params, lr=cfg.lr)
    if cfg.type == "AdamWithScaler":
        optimizer = (torch.optim.AdamW(params, lr=cfg.lr), torch.cuda.amp.GradScaler())
    return optimizer


def step(optimizer, scaler, loss, lr_scheduler=None, backward_only=False):
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()
    if not backward_only:
        if scaler is None:
            optimizer.step()
        else:
            scaler.step(optimizer)
            scaler.update()
        if lr_scheduler is not None:
            lr_scheduler.step()
        optimizer.zero_grad()


def run_epoch(model, loader, optimizer, scaler, lr_scheduler, accum):
    for i, batch in enumerate(loader):
        with torch.autocast("cuda"):
            loss = model(batch).mean()
        step(optimizer, scaler, loss / accum, lr_scheduler=lr_scheduler,
             backward_only=(i + 1) % accum != 0)


def main(model, loader, cfg):
    optimizer, scaler = build_optimizer(model.parameters(), cfg)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs * len(loader))
    for epoch in range(cfg.epochs):
        run_epoch(model, loader, optimizer, scaler, lr_scheduler, cfg.accum)
"""

# the scaler in a base class, the scheduler in the subclass's loop
_BUG_17 = """
import torch

class BaseTrainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scaler = torch.cuda.amp.GradScaler()

    def train_step(self, batch):
        with torch.autocast("cuda"):
            loss = self.model(batch).mean()
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss

class WarmupTrainer(BaseTrainer):
    def __init__(self, model, total):
        super().__init__(model)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, 1e-3, total_steps=total)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for batch in loader:
                self.train_step(batch)
                self.scheduler.step()
"""

# objects built in a setup() method, stepped in optimizer_step()
_BUG_18 = """
import torch

class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg

    def setup(self, total):
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, 1e-3, total_steps=total)
        self.scaler = torch.cuda.amp.GradScaler(enabled=self.cfg.fp16)

    def optimizer_step(self):
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()
        self.scheduler.step()

    def fit(self, loader, epochs):
        self.setup(epochs * len(loader))
        for epoch in range(epochs):
            for batch in loader:
                with torch.autocast("cuda", enabled=self.cfg.fp16):
                    loss = self.model(batch).mean()
                self.scaler.scale(loss).backward()
                self.optimizer_step()
"""

# a non-finite loss skipped by continue, the scaler still skipping overflows
_BUG_19 = """
import math
import torch

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=epochs * len(loader))
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            if not math.isfinite(loss.item()):
                continue
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
"""

# correct: the scheduler stepped only when the scale did not drop
_OK_20 = """
import torch

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=epochs * len(loader))
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            scale_before = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            if scaler.get_scale() >= scale_before:
                scheduler.step()
"""

# correct: bfloat16 autocast without a scaler
_OK_21 = """
import torch

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1e-3, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(batch).mean()
            loss.backward()
            optimizer.step()
            scheduler.step()
"""

# correct: a scaler built with enabled=False
_OK_22 = """
import argparse
import torch

def main(model, loader):
    p = argparse.ArgumentParser()
    p.add_argument("--fp16", action="store_true")
    args = p.parse_args()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10000)
    scaler = torch.cuda.amp.GradScaler(enabled=False)
    for batch in loader:
        optimizer.zero_grad()
        loss = model(batch).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""

# correct: the scheduler stepped once per epoch
_OK_23 = """
import torch

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(_BUG_00, ['LRD005'], id='a helper that steps the scaler and returns, the scheduler in'),
        pytest.param(_BUG_01, ['LRD005'], id='the update under an accumulation test, the scheduler inside '),
        pytest.param(_BUG_02, ['LRD005'], id="enabled from a config dict's get with a True default"),
        pytest.param(_BUG_03, ['LRD005'], id='enabled from two store_true flags joined by and'),
        pytest.param(_BUG_04, ['LRD005'], id="a trainer's after_step hook stepping the scheduler"),
        pytest.param(_BUG_05, ['LRD005'], id='an amp_backward(loss, optimizer, scaler) helper'),
        pytest.param(_BUG_06, ['LRD005'], id='a NativeScaler-like callable that unscales and clips inside'),
        pytest.param(_BUG_07, ['LRD005'], id="the scaler held by another class's instance"),
        pytest.param(_BUG_08, ['LRD005'], id='train_one_epoch given everything by main'),
        pytest.param(_BUG_09, ['LRD005'], id='a while loop over next(iterator) up to max_steps'),
        pytest.param(_BUG_10, ['LRD005'], id='an optional scaler (GradScaler() if fp16 else None) in a Hug'),
        pytest.param(_BUG_11, ['LRD005'], id='a scheduler passed as an optional parameter and tested for N'),
        pytest.param(_BUG_12, ['LRD005'], id='an optimizer_step(optimizer, scaler, scheduler) helper'),
        pytest.param(_BUG_13, ['LRD005'], id='a fractional epoch position advanced every batch'),
        pytest.param(_BUG_14, ['LRD005'], id='enabled from a YAML config read at run time'),
        pytest.param(_BUG_15, ['LRD005'], id='the scaled loss bound to a name before backward'),
        pytest.param(_BUG_16, ['LRD005'], id='a builder returning (optimizer, GradScaler()) under a config'),
        pytest.param(_BUG_17, ['LRD005'], id="the scaler in a base class, the scheduler in the subclass's "),
        pytest.param(_BUG_18, ['LRD005'], id='objects built in a setup() method, stepped in optimizer_step'),
        pytest.param(_BUG_19, ['LRD005'], id='a non-finite loss skipped by continue, the scaler still skip'),
        pytest.param(_OK_20, [], id='correct: the scheduler stepped only when the scale did not d'),
        pytest.param(_OK_21, [], id='correct: bfloat16 autocast without a scaler'),
        pytest.param(_OK_22, [], id='correct: a scaler built with enabled=False'),
        pytest.param(_OK_23, [], id='correct: the scheduler stepped once per epoch'),
    ],
)
def test_lrd005_on_real_shapes(source: str, expected: list[str]) -> None:
    assert [c for c in codes(source) if c == "LRD005"] == expected
