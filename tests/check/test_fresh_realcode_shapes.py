"""Shapes met in the fresh real-code cases of issue 7 (bench/realcode, batch
"fresh-2026-12", dev half): each test is the general shape in our own words, with the
control that must still be reported."""

from __future__ import annotations

from tests.check.helpers import codes


def _fill(template: str, **parts: str) -> str:
    """The template with each ``{name}`` replaced (the sources hold dict literals)."""
    for name, text in parts.items():
        template = template.replace("{" + name + "}", text)
    return template

# -- a scheduler chosen by a setting: a built-in one, or the project's own class ------------

_CHOSEN_BY_SETTING = """
import argparse
import torch


class WarmupCosine:
    def __init__(self, optimizer, epochs):
        self.optimizer = optimizer
        self.epochs = epochs

    def state_dict(self):
        return {"epochs": self.epochs}

    def load_state_dict(self, state):
        self.epochs = state["epochs"]

    def step(self, epoch):
        for group in self.optimizer.param_groups:
            group["lr"] = 1e-3 * (1 - epoch / self.epochs)


def make_scheduler(args, optimizer):
    if args.sched == "step":
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, args.drop_every)
    elif args.sched == "cosine":
        scheduler = WarmupCosine(optimizer, args.epochs)
    return scheduler, args.epochs


def main(args):
    model = torch.nn.Linear(8, 2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler, _ = make_scheduler(args, optimizer)
    start = 0
    if args.resume:
        state = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
{restore}
        start = state["epoch"] + 1
    for epoch in range(start, args.epochs):
        for _ in range(20):
            loss = model(torch.randn(4, 8)).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch}, "last.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--sched", default="cosine")
    parser.add_argument("--drop_every", type=int, default=30)
    parser.add_argument("--epochs", type=int, default=90)
    parser.add_argument("--resume", default="")
    main(parser.parse_args())
"""


def test_resume_of_a_scheduler_chosen_between_a_builtin_and_a_project_class_restores_it() -> None:
    # the name holds either scheduler, whichever the setting picks: restoring it restores both
    src = _fill(_CHOSEN_BY_SETTING, 
        restore='        scheduler.load_state_dict(state["scheduler"])')
    assert codes(src) == []


def test_resume_that_leaves_out_a_scheduler_chosen_by_a_setting_is_still_reported() -> None:
    assert codes(_fill(_CHOSEN_BY_SETTING, restore="")) == ["LRD007"]


# -- a trainer that builds a stand-in scheduler when it is given none ------------------------

_STAND_IN = """
import torch
from torch.optim.lr_scheduler import LambdaLR, ReduceLROnPlateau


class Trainer:
    def __init__(self, model, make_optimizer=None, make_scheduler=None, fp16=False):
        self.model = model
        self.optimizer = make_optimizer(model)
        if make_scheduler is None:
            self.lr_scheduler = LambdaLR(self.optimizer, lambda step: 1.0)
        else:
            self.lr_scheduler = make_scheduler(self.optimizer)

    def save_checkpoint(self, path):
        torch.save({"model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(),
                    "lr_scheduler": self.lr_scheduler.state_dict()}, path)

    def load_checkpoint(self, path):
        state = torch.load(path, map_location="cpu")
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
{restore}

    def train_one_epoch(self, loader):
        total = 0.0
        for batch in loader:
            loss = self.model(batch).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        average_loss = total / len(loader)
{epoch_end}

    def train(self, loader, epochs, path):
        self.load_checkpoint(path)
        for _ in range(epochs):
            self.train_one_epoch(loader)
            self.save_checkpoint(path)
"""

_STEP_BY_CLASS = """\
        if isinstance(self.lr_scheduler, ReduceLROnPlateau):
            self.lr_scheduler.step(average_loss)
        else:
            self.lr_scheduler.step()"""


def test_resume_restores_the_scheduler_the_trainer_holds_whichever_branch_built_it() -> None:
    src = _fill(_STAND_IN, 
        restore='        self.lr_scheduler.load_state_dict(state["lr_scheduler"])',
        epoch_end=_STEP_BY_CLASS)
    assert codes(src) == []


def test_resume_without_the_trainers_scheduler_is_still_reported() -> None:
    assert codes(_fill(_STAND_IN, restore="", epoch_end=_STEP_BY_CLASS)) == ["LRD007"]


def test_the_built_in_stand_in_never_takes_the_plateau_branch() -> None:
    # `step(average_loss)` only runs for a ReduceLROnPlateau; the LambdaLR stand-in takes
    # the plain `step()`, so it is not given an epoch (LRD006)
    src = _fill(_STAND_IN, 
        restore='        self.lr_scheduler.load_state_dict(state["lr_scheduler"])',
        epoch_end=_STEP_BY_CLASS)
    assert "LRD006" not in codes(src)


def test_a_value_passed_to_the_stand_in_without_the_class_test_is_still_lrd006() -> None:
    src = _fill(_STAND_IN, 
        restore='        self.lr_scheduler.load_state_dict(state["lr_scheduler"])',
        epoch_end="        self.lr_scheduler.step(average_loss)")
    assert codes(src) == ["LRD006"]


# -- a NaN-loss guard is not a skipped-update guard ------------------------------------------

_NAN_GUARD = """
import numpy as np
import torch


def train(cfg, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 500))
    scaler = None
    if cfg.mixed_precision:
        scaler = torch.amp.GradScaler("cuda")
    for epoch in range(cfg.epochs):
        for step, batch in enumerate(loader):
            with torch.autocast("cuda", enabled=cfg.mixed_precision):
                loss = model(batch).mean()
{guard}
            if cfg.mixed_precision:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
"""


def test_a_nan_loss_check_does_not_stop_the_scheduler_from_stepping_on_skipped_updates() -> None:
    # the loss is finite while the scaled gradients overflow: GradScaler still skips steps
    guard = """\
            if ~np.isfinite(loss.item()) and (epoch > 0 or step > 20):
                raise RuntimeError("NaN loss")"""
    assert codes(_fill(_NAN_GUARD, guard=guard)) == ["LRD005"]


def test_a_check_of_the_scale_is_still_a_skipped_update_guard() -> None:
    src = _NAN_GUARD.replace(
        "            scheduler.step()",
        "            if scaler is None or scaler.get_scale() >= scale_before:\n"
        "                scheduler.step()",
    ).replace(
        "                scaler.scale(loss).backward()",
        "                scale_before = scaler.get_scale()\n"
        "                scaler.scale(loss).backward()",
    )
    assert codes(_fill(src, guard="")) == []


# -- a checkpoint whose optimizer entry is None holds no optimizer ---------------------------

_WEIGHTS_WITH_EMPTY_OPTIMIZER = """
import torch


def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, 1e-4, epochs=epochs, steps_per_epoch=len(loader))
    for epoch in range(epochs):
        for batch in loader:
            loss = model(batch).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
        torch.save({"model": model.state_dict(),
                    "optimizer": {optimizer},  # to keep the file small
                    "epoch": epoch}, "latest.pt")
"""


def test_a_checkpoint_that_sets_its_optimizer_entry_to_none_is_weights_only() -> None:
    assert codes(_fill(_WEIGHTS_WITH_EMPTY_OPTIMIZER, optimizer="None")) == []


def test_the_same_checkpoint_with_the_optimizer_state_still_needs_the_scheduler() -> None:
    src = _fill(_WEIGHTS_WITH_EMPTY_OPTIMIZER, optimizer="optimizer.state_dict()")
    assert codes(src) == ["LRD007"]
