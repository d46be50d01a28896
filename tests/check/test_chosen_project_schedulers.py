"""A builder that returns one of several schedulers, a built-in one (or the project's subclass
of torch's scheduler) on one path and an instance of the project's own plain class on a later
one (lead59, from Scene-Graph-Benchmark's ``make_lr_scheduler``: ``WarmupMultiStepLR`` for
``"WarmupMultiStepLR"``, then ``class WarmupReduceLROnPlateau(object)`` for the plateau). The
call returned only what the last path returns, the project's class, so the scheduler the
default configuration builds was never seen stepped: its ``scheduler.step()`` at the top of
each iteration, before ``optimizer.step()``, went unreported (LRD001)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

SCHEDULERS = """
    import torch


    class WarmupMultiStepLR(torch.optim.lr_scheduler._LRScheduler):
        def __init__(self, optimizer, milestones, gamma=0.1, warmup_iters=500, last_epoch=-1):
            self.milestones = milestones
            self.gamma = gamma
            self.warmup_iters = warmup_iters
            super().__init__(optimizer, last_epoch)

        def get_lr(self):
            f = min(1.0, (self.last_epoch + 1) / self.warmup_iters)
            return [b * f * self.gamma ** sum(m <= self.last_epoch for m in self.milestones)
                    for b in self.base_lrs]


    class WarmupPlateau(object):
        def __init__(self, optimizer, gamma=0.5, warmup_iters=500, patience=2):
            self.optimizer = optimizer
            self.gamma = gamma
            self.warmup_iters = warmup_iters
            self.patience = patience
            self.last_epoch = 0
            self.bad = 0
            self.best = None
            self.base_lrs = [g["lr"] for g in optimizer.param_groups]

        def step(self, metrics, epoch=None):
            self.last_epoch += 1
            if self.best is None or metrics < self.best:
                self.best, self.bad = metrics, 0
            else:
                self.bad += 1
            if self.bad > self.patience:
                self.base_lrs = [b * self.gamma for b in self.base_lrs]
                self.bad = 0
            for g, b in zip(self.optimizer.param_groups, self.base_lrs):
                g["lr"] = b * min(1.0, self.last_epoch / self.warmup_iters)
"""

BUILD = """
    from .lr_scheduler import WarmupMultiStepLR, WarmupPlateau


    def make_lr_scheduler(cfg, optimizer):
        if cfg.kind == "multistep":
            return WarmupMultiStepLR(optimizer, cfg.steps, cfg.gamma)
        elif cfg.kind == "plateau":
            return WarmupPlateau(optimizer, cfg.gamma)
        raise ValueError(cfg.kind)
"""

TRAIN = """
    import torch
    from solver.build import make_lr_scheduler


    def train(cfg, model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        scheduler = make_lr_scheduler(cfg, optimizer)
        for iteration, (x, y) in enumerate(loader):
            BEFORE
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            AFTER
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str, after: str,
             build: str = BUILD) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "solver/__init__.py": "", "solver/lr_scheduler.py": SCHEDULERS,
        "solver/build.py": build,
        "train.py": TRAIN.replace("BEFORE", before).replace("AFTER", after),
    }, checked=["train.py"])
    return project_codes(found)


def test_the_built_in_option_of_a_builder_is_seen_stepped_before_the_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD001" in _project(tmp_path / "early", monkeypatch, "scheduler.step()", "pass")
    # stepped after the update: right
    assert _project(tmp_path / "right", monkeypatch, "pass", "scheduler.step()") == []


def test_either_order_of_the_paths_is_one_choice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the project's class returned first, the built-in one last (found before too)
    swapped = BUILD.replace(
        '''        if cfg.kind == "multistep":
            return WarmupMultiStepLR(optimizer, cfg.steps, cfg.gamma)
        elif cfg.kind == "plateau":
            return WarmupPlateau(optimizer, cfg.gamma)''',
        '''        if cfg.kind == "plateau":
            return WarmupPlateau(optimizer, cfg.gamma)
        elif cfg.kind == "multistep":
            return WarmupMultiStepLR(optimizer, cfg.steps, cfg.gamma)''')
    assert swapped != BUILD
    assert "LRD001" in _project(tmp_path / "swapped", monkeypatch, "scheduler.step()", "pass",
                                swapped)


STEP_OR_OWN = """
    import torch
    from torch.optim.lr_scheduler import StepLR


    class OwnPlateau:
        def __init__(self, optimizer, factor=0.5):
            self.optimizer, self.factor, self.best = optimizer, factor, None

        def step(self, metric):
            if self.best is not None and metric > self.best:
                for g in self.optimizer.param_groups:
                    g["lr"] *= self.factor
            self.best = metric if self.best is None else min(self.best, metric)


    def build(kind, optimizer):
        if kind == "step":
            return StepLR(optimizer, step_size=30, gamma=0.1)
        return OwnPlateau(optimizer)


    def train(kind, model, loader, epochs, evaluate):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = build(kind, optimizer)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                model(x).sum().backward()
                optimizer.step()
                PER_BATCH
            PER_EPOCH
"""


def test_an_epoch_sized_built_in_option_stepped_per_batch_is_reported() -> None:
    # StepLR(step_size=30) on one path: stepped with every batch it decays 30 batches in
    assert "LRD002" in codes(STEP_OR_OWN.replace("PER_BATCH", "scheduler.step()").replace(
        "PER_EPOCH", "pass"))
    # once an epoch (the plateau option's own step would need the metric, which this
    # program passes when it picks the plateau: `kind != "step"`)
    right = STEP_OR_OWN.replace("PER_BATCH", "pass").replace(
        "PER_EPOCH", 'scheduler.step() if kind == "step" else scheduler.step(evaluate(model))')
    assert codes(right) == []
