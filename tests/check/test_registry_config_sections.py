"""Registry-style configurations name the class of every section by the same key
(`cfg.optimizer.type`, `cfg.scheduler.type`, `cfg.training.type`): lead61, from a dev case
read inside its repository (OpenSportsLab/OSL-ActionSpotting). The trainer's builder runs under
`if cfg.type == "trainer_e2e":` with `cfg` the training section, and calls a scheduler builder
that picks by its own `cfg.type` (the scheduler section). Settings were known by their last
name alone, so the two `type`s read as one setting that cannot be "trainer_e2e" and
"Chained" at once: every option of the scheduler's choice was dropped at the resume's
`lr_scheduler.load_state_dict(...)`, and LRD007 said the scheduler is never restored. A
generic selector read from a known section is now that section's setting; where the section
is not known it may still be any of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings

SCHEDULERS = """
import torch
from torch.optim.lr_scheduler import ChainedScheduler, CosineAnnealingLR, LinearLR


def build_scheduler(optimizer, cfg, steps_per_epoch):
    if cfg.type == "ReduceLROnPlateau":
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=cfg.patience)
    elif cfg.type == "WarmupCosine":
        scheduler = ChainedScheduler([
            LinearLR(optimizer, start_factor=0.01, total_iters=cfg.warmup_epochs * steps_per_epoch),
            CosineAnnealingLR(optimizer, cfg.num_epochs * steps_per_epoch),
        ])
    else:
        scheduler = None
    return scheduler
"""

TRAINER = """
import torch

from project.schedulers import build_scheduler


def run_epoch(model, optimizer, loader, lr_scheduler):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        lr_scheduler.step()


def build_and_train(cfg, model, loader, resume_from=None):
    if cfg.type == "epoch_trainer":
        start = 0
        if resume_from is not None:
            checkpoint = torch.load(resume_from)
            model.load_state_dict(checkpoint["model"])
            start = checkpoint["epoch"] + 1
        optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        if resume_from is not None:
            optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler = build_scheduler(optimizer, cfg.scheduler, len(loader))
{restore}
        for epoch in range(start, cfg.num_epochs):
            run_epoch(model, optimizer, loader, lr_scheduler)
            torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "lr_state": lr_scheduler.state_dict(), "epoch": epoch}}, "last.pt")
"""

DRIVER = """
import argparse

import torch

from project.config import load_config
from project.trainer import build_and_train

parser = argparse.ArgumentParser()
parser.add_argument("config")
parser.add_argument("--resume-from", default=None)
args = parser.parse_args()
cfg = load_config(args.config)
build_and_train(cfg.training, torch.nn.Linear(4, 1), [], resume_from=args.resume_from)
"""

RESTORED = """
        if resume_from is not None and "lr_state" in checkpoint:
            try:
                lr_scheduler.load_state_dict(checkpoint["lr_state"])
            except (KeyError, ValueError) as err:
                print("starting a fresh schedule:", err)
"""


def _found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, restore: str
           ) -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "project/__init__.py": "",
        "project/config.py": "def load_config(path):\n    raise NotImplementedError\n",
        "project/schedulers.py": SCHEDULERS,
        "project/trainer.py": TRAINER.format(restore=restore),
        "train.py": DRIVER,
    }, checked=["train.py"])


def test_the_scheduler_sections_choice_is_restored_under_the_trainer_sections_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _found(tmp_path, monkeypatch, RESTORED)
    assert [f for f in found if f[2] == "LRD007"] == []
    # the plateau option stepped with no metric is still reported, under its own choice
    assert ("project/trainer.py", 13, "LRD004") in found


def test_a_resume_that_restores_no_scheduler_is_still_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _found(tmp_path, monkeypatch, "")
    assert ("project/trainer.py", 25, "LRD007") in found


def test_one_sections_selector_tested_twice_still_excludes_the_other_branch() -> None:
    # `cfg.scheduler.type` built and stepped under opposite tests of the same section: the
    # plateau is never stepped without its metric
    source = """
    import torch

    def train(cfg, model, loader, validate):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        if cfg.scheduler.type == "plateau":
            scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
        else:
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
        for epoch in range(cfg.epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            if cfg.scheduler.type == "plateau":
                scheduler.step(validate(model))
            else:
                scheduler.step()
    """
    assert findings(source) == []


def test_the_plateau_finding_names_the_builders_choice_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # not "When `cfg.type == 'epoch_trainer' and cfg.type == 'ReduceLROnPlateau'`": the
    # caller's test is of another section
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files

    _found(tmp_path, monkeypatch, RESTORED)
    report = check_files(["train.py"], frozenset(CATALOG), jobs=1)
    [plateau] = [d for d in report.diagnostics if d.code == "LRD004"]
    assert plateau.message.startswith(
        "When `cfg.type == 'ReduceLROnPlateau'`, `lr_scheduler.step()` is called without a metric")
