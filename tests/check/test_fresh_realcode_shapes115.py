"""Shapes seen in the fresh-2026-12zzn113 batch (rcnew113, bench/realcode/README.md): Kaggle
fold loops and notebooks with OneCycleLR, warm restarts, Hugging Face warm-up schedules, timm
schedulers and AMP.

Programs written for these tests; no third-party code.

One miss of the batch, fixed: a 5-fold script builds, per fold, the project's own
``class CosineAnnealingWarmupRestarts(_LRScheduler)`` (a warm-up cosine with restarts whose
``step()`` keeps its own position in the cycle and writes the LRs itself, never calling
torch's) and steps it after every batch, after ``scaler.step(optimizer)`` with nothing that
asks whether the GradScaler skipped the update: LRD005. A subclass of torch's scheduler base
that writes a ``step()`` of its own was traced as a plain object (its ``step()`` body run as
project code), so its steps were no scheduler steps and every scheduling rule missed them.
Such a class whose ``step()`` can be called as torch's is (nothing it requires) and whose
methods step nothing else (only ``super().step()`` hands on to torch's) is now a scheduler of
the project's class, as one that keeps torch's ``step()`` is. A warm-up wrapper whose
``step()`` steps the scheduler it wraps, and a class whose ``step()`` requires an argument (a
metric), are traced as before. Horizons are read from such a class's ``get_lr()`` only when
its ``step()`` hands on to torch's count.

Probing the family (about 30 programs): a timm scheduler counted in epochs (``t_in_epochs``
left True) whose ``t_initial`` is computed from the loader's length (``epochs *
len(loader)``), stepped with ``step(epoch)`` once per epoch and never ``step_update``: the
schedule is ``len(loader)`` times too long, LRD003. Judged only where the horizon's unit rests
on what it is computed from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# the project's own warm-up cosine with restarts: a step() of its own that keeps its own
# position and writes the LRs, never calling torch's
OWN_CLASS = '''
import math
import torch
from torch.optim.lr_scheduler import _LRScheduler


class WarmCycle(_LRScheduler):
    def __init__(self, optimizer, cycle_steps, warmup_steps=0, peak=1e-3, floor=1e-6,
                 last_epoch=-1):
        self.cycle_steps = cycle_steps
        self.warmup_steps = warmup_steps
        self.peak = peak
        self.floor = floor
        self.in_cycle = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.in_cycle < self.warmup_steps:
            done = max(self.in_cycle, 0) / max(1, self.warmup_steps)
            return [self.floor + (self.peak - self.floor) * done for _ in self.base_lrs]
        t = (self.in_cycle - self.warmup_steps) / (self.cycle_steps - self.warmup_steps)
        return [self.floor + (self.peak - self.floor) * 0.5 * (1 + math.cos(math.pi * t))
                for _ in self.base_lrs]

    def step(self, epoch=None):
        self.in_cycle += 1
        if self.in_cycle >= self.cycle_steps:
            self.in_cycle = 0
        self.last_epoch = self.last_epoch + 1
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
'''

AMP_EPOCH = '''

def run_epoch(net, loader, lossf, opt, scaler, sched=None):
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            out = net(x)
        loss = lossf(out, y)
        scaler.scale(loss).backward()
        GUARD_OPEN
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        GUARD_STEP


def main(net, loaders, lossf, epochs):
    for fold, loader in enumerate(loaders):
        opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
        scaler = torch.amp.GradScaler("cuda")
        sched = WarmCycle(opt, cycle_steps=epochs * len(loader), warmup_steps=len(loader))
        for ep in range(epochs):
            run_epoch(net, loader, lossf, opt, scaler, sched=sched)
'''


def _amp(guarded: bool) -> str:
    loop = AMP_EPOCH.replace(
        "GUARD_OPEN", "before = scaler.get_scale()" if guarded else "pass"
    ).replace(
        "GUARD_STEP",
        "if scaler.get_scale() >= before:\n            sched.step()" if guarded
        else "sched.step()",
    )
    return OWN_CLASS + loop


def test_own_step_scheduler_after_scaler_step_is_reported() -> None:
    assert codes(_amp(guarded=False)) == ["LRD005"]


def test_own_step_scheduler_stepped_only_on_real_updates_is_silent() -> None:
    assert codes(_amp(guarded=True)) == []


def test_own_step_scheduler_in_a_utils_module_behind_a_star_import(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "utils.py": OWN_CLASS,
        "epoch_fn.py": '''
            import torch


            def train_one_epoch(model, loader, criterion, optimizer, scaler, scheduler=None):
                for step, (x, y) in enumerate(loader):
                    with torch.autocast("cuda"):
                        out = model(x)
                    loss = criterion(out, y)
                    scaler.scale(loss).backward()
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    scaler.step(optimizer)
                    scaler.update()
                    optimizer.zero_grad()
                    scheduler.step()
            ''',
        "main.py": '''
            import torch
            from utils import *
            from epoch_fn import train_one_epoch

            EPOCHS = 10
            for fold in range(5):
                model = torch.nn.Linear(4, 2)
                loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
                scaler = torch.amp.GradScaler("cuda")
                optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
                total = len(loader) * EPOCHS
                scheduler = WarmCycle(optimizer, cycle_steps=total, warmup_steps=len(loader))
                for epoch in range(EPOCHS):
                    train_one_epoch(model, loader, torch.nn.CrossEntropyLoss(), optimizer,
                                    scaler, scheduler=scheduler)
            ''',
    }, checked=["main.py"])
    assert project_codes(found) == ["LRD005"]
    assert ("epoch_fn.py", 16, "LRD005") in found


PLAIN_LOOP = '''

def train(net, loader, epochs):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = WarmCycle(opt, cycle_steps=epochs * len(loader), warmup_steps=len(loader))
    for ep in range(epochs):
        for i, (x, y) in enumerate(loader):
            BEFORE
            loss = torch.nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            AFTER
            LOG
'''


def _plain(before: str = "pass", after: str = "sched.step()", log: str = "pass") -> str:
    return OWN_CLASS + PLAIN_LOOP.replace("BEFORE", before).replace(
        "AFTER", after).replace("LOG", log)


def test_own_step_scheduler_after_the_update_is_silent() -> None:
    assert codes(_plain()) == []


def test_own_step_scheduler_before_the_update_skips_its_first_value() -> None:
    assert codes(_plain(before="sched.step()", after="pass")) == ["LRD001"]


def test_own_step_scheduler_get_lr_is_its_own_closed_form() -> None:
    # the class's own get_lr() computes the value of its position: nothing to report
    assert codes(_plain(log="print(i, sched.get_lr()[0])")) == []


def test_own_step_scheduler_left_out_of_a_resumable_checkpoint() -> None:
    source = OWN_CLASS + '''

def train(net, loader, epochs, resume=None):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = WarmCycle(opt, cycle_steps=epochs * len(loader))
    start = 0
    if resume:
        state = torch.load(resume)
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
    for ep in range(start, epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": ep}, "last.pt")
'''
    assert set(codes(source)) == {"LRD007"}
    assert codes(source.replace('"epoch": ep}', '"epoch": ep, "sched": sched.state_dict()}')
                 .replace('opt.load_state_dict(state["opt"])',
                          'opt.load_state_dict(state["opt"])\n'
                          '        sched.load_state_dict(state["sched"])')) == []


def test_own_step_scheduler_kept_across_folds_drives_the_first_optimizer() -> None:
    source = OWN_CLASS + '''

def run(make_net, loaders, epochs):
    net = make_net()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = WarmCycle(opt, cycle_steps=epochs * 100)
    for fold, loader in enumerate(loaders):
        net = make_net()
        opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
        for ep in range(epochs):
            for x, y in loader:
                loss = torch.nn.functional.mse_loss(net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
'''
    assert codes(source) == ["LRD014"]
    rebuilt = source.replace(
        "        opt = torch.optim.AdamW(net.parameters(), lr=1e-3)\n        for ep",
        "        opt = torch.optim.AdamW(net.parameters(), lr=1e-3)\n"
        "        sched = WarmCycle(opt, cycle_steps=epochs * 100)\n        for ep")
    assert codes(rebuilt) == []


def test_warmup_wrapper_stepping_its_inner_scheduler_is_still_traced() -> None:
    source = '''
import torch
from torch.optim.lr_scheduler import _LRScheduler, CosineAnnealingLR


class Warm(_LRScheduler):
    def __init__(self, optimizer, warm, after, last_epoch=-1):
        self.warm = warm
        self.after = after
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch < self.warm:
            return [b * (self.last_epoch + 1) / self.warm for b in self.base_lrs]
        return self.after.get_last_lr()

    def step(self, epoch=None):
        if self.last_epoch >= self.warm:
            self.after.step()
            self._last_lr = self.after.get_last_lr()
            self.last_epoch += 1
        else:
            super().step()


def train(net, loader, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = Warm(opt, 5, CosineAnnealingLR(opt, T_max=epochs))
    for ep in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
'''
    assert codes(source) == []


def test_own_step_that_requires_a_metric_is_not_read_as_a_schedule() -> None:
    source = '''
import torch
from torch.optim.lr_scheduler import _LRScheduler


class Halver(_LRScheduler):
    def __init__(self, optimizer, last_epoch=-1):
        self.best = None
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [g["lr"] for g in self.optimizer.param_groups]

    def step(self, metric):
        if self.best is None or metric < self.best:
            self.best = metric
        else:
            for g in self.optimizer.param_groups:
                g["lr"] *= 0.5


def train(net, loader, epochs):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    sched = Halver(opt)
    for ep in range(epochs):
        for x, y in loader:
            with torch.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            sched.step(loss.item())
'''
    assert codes(source) == []


def test_own_step_scheduler_returned_per_step_from_lightning_is_silent() -> None:
    source = OWN_CLASS + '''
import pytorch_lightning as pl


class Lit(pl.LightningModule):
    def __init__(self, net, steps_per_epoch, epochs):
        super().__init__()
        self.net = net
        self.total = steps_per_epoch * epochs

    def training_step(self, batch, i):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        sched = WarmCycle(opt, cycle_steps=self.total)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}
'''
    assert codes(source) == []


# -- timm: a schedule counted in epochs, sized in batches ------------------------------------

TIMM_FOLDS = '''
import torch
from torch import nn
from timm.scheduler import CosineLRScheduler

EPOCHS = 5


def make_loader(fold):
    return torch.utils.data.DataLoader(list(range(100)), batch_size=8)


for fold in range(5):
    loader = make_loader(fold)
    model = nn.Linear(4, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = CosineLRScheduler(optimizer, t_initial=HORIZON, warmup_t=WARMUPFLAG)
    updates = 0
    for epoch in range(EPOCHS):
        for x in loader:
            loss = model(x.float().view(-1, 1).repeat(1, 4)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            updates += 1
            PER_BATCH
        PER_EPOCH
'''


def _timm(horizon: str = "EPOCHS * len(loader)", flag: str = "",
          per_batch: str = "pass", per_epoch: str = "scheduler.step(epoch + 1)") -> str:
    return TIMM_FOLDS.replace("HORIZON", horizon).replace(
        "WARMUPFLAG", "len(loader)" + flag).replace(
        "PER_BATCH", per_batch).replace("PER_EPOCH", per_epoch)


def _timm_codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> list[str]:
    # judged where the project is known (no other module calls step_update)
    return project_codes(check_project(tmp_path, monkeypatch, {"train.py": source}))


def test_timm_horizon_of_batches_stepped_per_epoch_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _timm_codes(tmp_path, monkeypatch, _timm()) == ["LRD003"]


def test_timm_horizon_of_batches_stepped_per_epoch_with_t_in_epochs_true(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _timm_codes(tmp_path, monkeypatch, _timm(flag=", t_in_epochs=True")) == ["LRD003"]


def test_timm_horizon_of_epochs_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _timm(horizon="EPOCHS").replace("warmup_t=len(loader)", "warmup_t=1")
    assert _timm_codes(tmp_path, monkeypatch, source) == []


def test_timm_counted_in_updates_with_step_update_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _timm(flag=", t_in_epochs=False",
                   per_batch="scheduler.step_update(num_updates=updates)",
                   per_epoch="scheduler.step(epoch + 1)")
    assert _timm_codes(tmp_path, monkeypatch, source) == []


def test_timm_stepped_with_the_epoch_every_batch_is_not_this_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _timm(per_batch="scheduler.step(epoch)", per_epoch="pass")
    assert "LRD003" not in _timm_codes(tmp_path, monkeypatch, source)


def test_timm_horizon_named_in_steps_without_a_computation_is_not_judged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `total_steps` is a setting whose value nobody computed here: its name alone is no proof
    source = _timm(horizon="total_steps").replace(
        "EPOCHS = 5", "EPOCHS = 5\ntotal_steps = 1000").replace(
        "warmup_t=len(loader)", "warmup_t=1")
    assert _timm_codes(tmp_path, monkeypatch, source) == []
