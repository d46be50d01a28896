"""LRD108 on the shapes real float16 AMP training code writes (issue 7, branch lrd005a):
clipping by value, through FSDP's method, a project helper, a hook's base class or a
NativeScaler-like callable, unscale_ in one branch only, and the correct twins (Accelerate's
clip, which unscales; unscale_ and clip under the same test). All programs are our own."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# clip_grad_value_ on scaled gradients
_BUG_00 = """
import torch

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
"""

# FSDP's model.clip_grad_norm_ with a ShardedGradScaler
_BUG_01 = """
import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler

def main(model, loader, epochs):
    model = FSDP(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = ShardedGradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            model.clip_grad_norm_(1.0)
            scaler.step(optimizer)
            scaler.update()
"""

# a project clip_gradients(model, max_norm) helper
_BUG_02 = """
import torch

def clip_gradients(model, max_norm):
    norms = []
    for p in model.parameters():
        if p.grad is not None:
            norms.append(p.grad.norm())
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    return norms

def main(model, loader, epochs, clip):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            if clip:
                clip_gradients(model, clip)
            scaler.step(optimizer)
            scaler.update()
"""

# unscale_ only under --clip-grad, the clip always
_BUG_03 = """
import argparse
import torch

def main(model, loader):
    p = argparse.ArgumentParser()
    p.add_argument("--clip-grad", type=float, default=None)
    p.add_argument("--max-norm", type=float, default=1.0)
    args = p.parse_args()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for batch in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = model(batch).mean()
        scaler.scale(loss).backward()
        if args.clip_grad:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_norm)
        scaler.step(optimizer)
        scaler.update()
"""

# a NativeScaler-like callable that clips without unscaling
_BUG_04 = """
import torch

class NativeScaler:
    def __init__(self):
        self._scaler = torch.cuda.amp.GradScaler()

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None):
        self._scaler.scale(loss).backward()
        if clip_grad is not None:
            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loss_scaler = NativeScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            loss_scaler(loss, optimizer, clip_grad=1.0, parameters=model.parameters())
"""

# backward and step in separate trainer methods
_BUG_05 = """
import torch

class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scaler = torch.cuda.amp.GradScaler(enabled=cfg.fp16)

    def backward(self, loss):
        self.scaler.scale(loss).backward()

    def step(self):
        if self.cfg.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.grad_clip)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()

    def fit(self, loader):
        for batch in loader:
            with torch.autocast("cuda", enabled=self.cfg.fp16):
                loss = self.model(batch).mean()
            self.backward(loss)
            self.step()
"""

# clip under the accumulation test
_BUG_06 = """
import torch

def main(model, loader, epochs, accum):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            with torch.autocast("cuda"):
                loss = model(batch).mean() / accum
            scaler.scale(loss).backward()
            if (i + 1) % accum == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
"""

# an optimizer_step helper that clips first
_BUG_07 = """
import torch

def optimizer_step(model, optimizer, scaler, max_norm):
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            optimizer_step(model, optimizer, scaler, 1.0)
"""

# an mmcv-style hook whose base class clips
_BUG_08 = """
import torch

class Hook:
    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip

    def clip_grads(self, params):
        params = [p for p in params if p.requires_grad and p.grad is not None]
        if params:
            return torch.nn.utils.clip_grad_norm_(params, **self.grad_clip)

class Fp16Hook(Hook):
    def __init__(self, grad_clip=None):
        super().__init__(grad_clip)
        self.loss_scaler = torch.cuda.amp.GradScaler()

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        self.loss_scaler.scale(runner.outputs["loss"]).backward()
        if self.grad_clip is not None:
            self.clip_grads(runner.model.parameters())
        self.loss_scaler.step(runner.optimizer)
        self.loss_scaler.update()
"""

# the scaled backward in a helper function
_BUG_09 = """
import torch

def backward(loss, scaler):
    scaler.scale(loss).backward()

def main(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            backward(loss, scaler)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
"""

# correct: accelerator.clip_grad_norm_ (it unscales)
_OK_10 = """
import torch
from accelerate import Accelerator

def main(model, loader, epochs):
    accelerator = Accelerator(mixed_precision="fp16")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(epochs):
        for batch in loader:
            loss = model(batch).mean()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
"""

# correct: unscale_ and clip under the same test
_OK_11 = """
import torch

def main(model, loader, epochs, clip):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = model(batch).mean()
            scaler.scale(loss).backward()
            if clip:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_value_(model.parameters(), clip)
            scaler.step(optimizer)
            scaler.update()
"""

# correct: unscale_ before the clip, a non-finite loss skipped
_OK_12 = """
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


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(_BUG_00, ['LRD108'], id='clip_grad_value_ on scaled gradients'),
        pytest.param(_BUG_01, ['LRD108'], id="FSDP's model.clip_grad_norm_ with a ShardedGradScaler"),
        pytest.param(_BUG_02, ['LRD108'], id='a project clip_gradients(model, max_norm) helper'),
        pytest.param(_BUG_03, ['LRD108'], id='unscale_ only under --clip-grad, the clip always'),
        pytest.param(_BUG_04, ['LRD108'], id='a NativeScaler-like callable that clips without unscaling'),
        pytest.param(_BUG_05, ['LRD108'], id='backward and step in separate trainer methods'),
        pytest.param(_BUG_06, ['LRD108'], id='clip under the accumulation test'),
        pytest.param(_BUG_07, ['LRD108'], id='an optimizer_step helper that clips first'),
        pytest.param(_BUG_08, ['LRD108'], id='an mmcv-style hook whose base class clips'),
        pytest.param(_BUG_09, ['LRD108'], id='the scaled backward in a helper function'),
        pytest.param(_OK_10, [], id='correct: accelerator.clip_grad_norm_ (it unscales)'),
        pytest.param(_OK_11, [], id='correct: unscale_ and clip under the same test'),
        pytest.param(_OK_12, [], id='correct: unscale_ before the clip, a non-finite loss skipped'),
    ],
)
def test_lrd108_on_real_shapes(source: str, expected: list[str]) -> None:
    assert [c for c in codes(source) if c == "LRD108"] == expected
