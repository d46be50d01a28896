"""Shapes seen in the fresh-2026-12zzv121 batch (rcnew121, bench/realcode/README.md):
checkpoint save/resume beside mixed precision (GradScaler state saved or not, schedulers
rebuilt after a resume, loops that skip steps on non-finite losses or gradients).

Programs written for these tests; no third-party code.

The batch's dev cases were all right at first sight once two labelling errata were fixed.
Probing the family found one false alarm, fixed: a resume that rebuilds a LambdaLR after
loading the optimizer, its lambda (or a local ``def``) offset by the step restored from the
checkpoint (``step0 = 0`` then ``if resume: step0 = ckpt["step"]``, ``lambda s: f(s +
step0)``). LRD007 said the schedule restarts from its first value; it continues from the
saved step. Only the binding the trace kept for the offset was followed (the fresh ``0``);
now every binding of the names the scheduler's arguments read, in the function that builds
it, is followed, and a value read back from a checkpoint under a position key
(``ckpt["step"]``, ``state.get("global_step")``) counts as the resume point, as
``start_step`` already did. An offset that is never restored still leaves LRD007.

The rest are probes of the theme kept as regression tests (right on both builds): a finite
check over the optimizer's gradients after ``unscale_`` that skips the step and the
scheduler together (and its unguarded twin, LRD005), a non-finite clip norm guarding both, a
scale comparison guard, checkpoints with and without the GradScaler (config switch, trainer
class, conditional entry, ``dict.update``, nested train state), a list of per-step
schedulers never saved, and an optimizer wrapper that accumulates while the scheduler steps
every call.
"""

from __future__ import annotations

import pytest

from .helpers import codes

RESUME_LAMBDA = '''
import math
import torch


def main(args, model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    offset = 0
    if args.resume:
        ck = torch.load(args.resume)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
RESTORE
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.5 * (1 + math.cos(math.pi * (s + offset) / args.steps)))
    step = offset
    for x, y in loader:
        opt.zero_grad()
        model(x, y).backward()
        opt.step()
        sched.step()
        step += 1
        if step % 1000 == 0:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "step": step}, "ck.pt")
'''


@pytest.mark.parametrize("restore", [
    '        offset = ck["step"]',
    '        offset = ck.get("step", 0)',
    '        offset = int(ck["global_step"])',
])
def test_lambda_offset_by_the_restored_step_is_silent(restore: str) -> None:
    assert codes(RESUME_LAMBDA.replace("RESTORE", restore)) == []


def test_lambda_offset_never_restored_is_reported() -> None:
    source = RESUME_LAMBDA.replace("RESTORE", '        print("resumed", ck["step"])')
    assert codes(source) == ["LRD007", "LRD007"]


LOCAL_DEF = '''
import math
import torch


def main(args, model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    done = 0
    if args.resume:
        state = torch.load(args.resume)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        done = state.get("global_step", 0)

    def warm_cos(s):
        t = s + SHIFT
        if t < 500:
            return (t + 1) / 500
        return 0.5 * (1 + math.cos(math.pi * t / args.steps))

    sched = torch.optim.lr_scheduler.LambdaLR(opt, warm_cos)
    n = done
    for x, y in loader:
        opt.zero_grad()
        model(x, y).backward()
        opt.step()
        sched.step()
        n += 1
        if n % 1000 == 0:
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                        "global_step": n}, "ck.pt")
'''


def test_local_def_shifted_by_the_restored_step_is_silent() -> None:
    assert codes(LOCAL_DEF.replace("SHIFT", "done")) == []


def test_local_def_not_shifted_is_reported() -> None:
    assert codes(LOCAL_DEF.replace("SHIFT", "0")) == ["LRD007", "LRD007"]


def test_lambda_reading_the_checkpoint_directly_is_silent() -> None:
    source = '''
import torch


def main(args, model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ck = torch.load(args.resume)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["optimizer"])
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.97 ** (e + ck["epoch"]))
    for epoch in range(ck["epoch"], args.epochs):
        for x, y in loader:
            opt.zero_grad()
            model(x, y).backward()
            opt.step()
        sched.step()
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                    "epoch": epoch + 1}, "ck.pt")
'''
    assert codes(source) == []


# --- probes of the family, right on both builds -------------------------------------------

GUARDED_STEP = '''
import torch


def main(model, loader, steps):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    params = [p for g in opt.param_groups for p in g["params"]]
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
GUARD
        scaler.step(opt)
        scaler.update()
        sched.step()
        opt.zero_grad()
'''

FINITE_CHECK = '''        if any(p.grad is not None and not torch.isfinite(p.grad).all() for p in params):
            opt.zero_grad()
            scaler.update()
            continue'''


def test_finite_check_before_the_scaler_step_is_silent() -> None:
    assert codes(GUARDED_STEP.replace("GUARD", FINITE_CHECK)) == []


def test_no_finite_check_reports_the_skipped_step() -> None:
    source = GUARDED_STEP.replace(
        "GUARD", "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)")
    assert codes(source) == ["LRD005"]


def test_non_finite_clip_norm_skips_step_and_scheduler_together() -> None:
    source = '''
import math
import torch


def main(model, loader, steps):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 1000))
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = model(x, y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        if math.isfinite(norm):
            scaler.step(opt)
            scaler.update()
            sched.step()
        opt.zero_grad()
'''
    assert codes(source) == []


def test_scale_comparison_guard_is_silent() -> None:
    source = GUARDED_STEP.replace("GUARD", "        before = scaler.get_scale()").replace(
        "        sched.step()", "        if scaler.get_scale() >= before:\n            sched.step()")
    assert codes(source) == []


SAVE_WITH_SCALER_SWITCH = '''
import torch


def run(cfg, model, loader, device):
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)
    scaler = torch.amp.GradScaler(enabled=cfg.amp and device == "cuda")
    start = 0
    if cfg.resume:
        ck = torch.load("last.pt")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        sched.load_state_dict(ck["scheduler"])
RESTORE
        start = ck["epoch"] + 1
    for epoch in range(start, cfg.epochs):
        for x, y in loader:
            opt.zero_grad()
            with torch.autocast("cuda", enabled=cfg.amp):
                loss = model(x, y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        sched.step()
        state = {"epoch": epoch, "model": model.state_dict(), "optimizer": opt.state_dict()}
        state.update(scheduler=sched.state_dict()SCALER)
        torch.save(state, "last.pt")
'''


def test_config_switched_scaler_missing_from_the_checkpoint_is_reported() -> None:
    source = SAVE_WITH_SCALER_SWITCH.replace("RESTORE\n", "").replace("SCALER", "")
    assert codes(source) == ["LRD007"]


def test_scaler_saved_through_dict_update_is_silent() -> None:
    source = SAVE_WITH_SCALER_SWITCH.replace(
        "RESTORE", '        scaler.load_state_dict(ck["scaler"])').replace(
        "SCALER", ", scaler=scaler.state_dict()")
    assert codes(source) == []


TRAINER_CLASS = '''
import torch


class Trainer:
    def __init__(self, cfg, model):
        self.model = model
        self.amp = cfg.get("amp", True)
        self.scaler = torch.amp.GradScaler("cuda", enabled=self.amp)
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 50, 0.5)
        self.epoch = 0

    def fit(self, loader, epochs):
        for epoch in range(self.epoch, epochs):
            for x, y in loader:
                with torch.autocast("cuda", enabled=self.amp):
                    loss = self.model(x, y)
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.optimizer.zero_grad()
            self.scheduler.step()
            self.save(epoch)

    def save(self, epoch):
        train_state = {"optimizer": self.optimizer.state_dict(),
                       "scheduler": self.scheduler.state_dict()EXTRA}
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "train_state": train_state}, "ck.pt")
'''


def test_trainer_class_checkpoint_without_its_scaler_is_reported() -> None:
    assert codes(TRAINER_CLASS.replace("EXTRA", "")) == ["LRD007"]


def test_trainer_class_nested_state_with_its_scaler_is_silent() -> None:
    source = TRAINER_CLASS.replace("EXTRA", ',\n                       "scaler": self.scaler.state_dict()')
    assert codes(source) == []


def test_list_of_per_step_schedulers_never_saved_is_reported() -> None:
    source = '''
import torch


def train(model, loader, ckpt=None):
    dense = torch.optim.Adam(model.dense.parameters(), lr=1e-3)
    sparse = torch.optim.Adagrad(model.emb.parameters(), lr=0.05)
    opts = [dense, sparse]
    lrs = [torch.optim.lr_scheduler.LinearLR(dense, 0.1, 1.0, total_iters=1000),
           torch.optim.lr_scheduler.ExponentialLR(sparse, 0.999)]
    if ckpt:
        st = torch.load(ckpt)
        model.load_state_dict(st["model"])
        for o, s in zip(opts, st["optimizers"]):
            o.load_state_dict(s)
    for i, (x, y) in enumerate(loader):
        for o in opts:
            o.zero_grad()
        model(x, y).backward()
        for o in opts:
            o.step()
        for lr in lrs:
            lr.step()
        if i % 1000 == 0:
            torch.save({"model": model.state_dict(),
                        "optimizers": [o.state_dict() for o in opts]}, "ck.pt")
'''
    assert set(codes(source)) == {"LRD007"}


def test_accumulating_optimizer_wrapper_with_scheduler_every_call_is_reported() -> None:
    source = '''
import torch


class AccumOptimizer:
    def __init__(self, optimizer, accum):
        self.optimizer = optimizer
        self.accum = accum
        self.n = 0

    def step(self):
        self.n += 1
        if self.n % self.accum == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()


def main(model, loader, steps, accum=4):
    base = torch.optim.AdamW(model.parameters(), lr=1e-4)
    opt = AccumOptimizer(base, accum)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(base, T_max=steps)
    for x, y in loader:
        model(x, y).backward()
        opt.step()
        sched.step()
'''
    assert codes(source) == ["LRD017"]
