"""A scheduler chosen by a setting between a torch class and the project's own scheduler class
(timm-style, `step(epoch=None, metric=None)`, no torch base): the name holds either, so a restore on
resume restores the torch option too (no LRD007), a resume that forgets it is LRD007, and one
`step(epoch)` call written for both is not LRD006 (the project option needs the epoch)."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import math
import torch


class WarmupCosine:
    def __init__(self, optimizer, t_initial, warmup_t=0):
        self.optimizer = optimizer
        self.t_initial = t_initial
        self.warmup_t = warmup_t
        self.base = [g["lr"] for g in optimizer.param_groups]
        self.last_epoch = 0

    def step(self, epoch=None, metric=None):
        self.last_epoch = epoch if epoch is not None else self.last_epoch + 1
        for g, lr in zip(self.optimizer.param_groups, self.base):
            g["lr"] = lr * 0.5 * (1 + math.cos(math.pi * self.last_epoch / self.t_initial))

    def state_dict(self):
        return {{"t_initial": self.t_initial}}

    def load_state_dict(self, state):
        self.t_initial = state["t_initial"]


def create_scheduler(args, optimizer):
{choice}
    return lr_scheduler, args.epochs


def main(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    lr_scheduler, num_epochs = create_scheduler(args, optimizer)
    start_epoch = 0
    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=True)
        optimizer.load_state_dict(checkpoint["optimizer"])
{restore}
        start_epoch = checkpoint["epoch"] + 1
    for epoch in range(start_epoch, num_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        lr_scheduler.step({position})
        torch.save({{"optimizer": optimizer.state_dict(), "lr_scheduler": lr_scheduler.state_dict(),
                    "epoch": epoch}}, "checkpoint.pth")
"""

CHOICES = {
    "none_then_if_elif": """\
    lr_scheduler = None
    if args.sched == "step":
        lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, args.lr_drop)
    elif args.sched == "warmupcos":
        lr_scheduler = WarmupCosine(optimizer, t_initial=args.epochs, warmup_t=5)""",
    "if_else": """\
    if args.sched == "step":
        lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, args.lr_drop)
    else:
        lr_scheduler = WarmupCosine(optimizer, t_initial=args.epochs)""",
    "project_first": """\
    if args.sched == "cosine":
        lr_scheduler = WarmupCosine(optimizer, t_initial=args.epochs)
    else:
        lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])""",
}

RESTORE = '        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])'


def _codes(choice: str, restore: str, position: str) -> list[str]:
    return codes(SCRIPT.format(choice=CHOICES[choice], restore=restore, position=position))


@pytest.mark.parametrize("position", ["", "epoch"])
@pytest.mark.parametrize("choice", sorted(CHOICES))
def test_resume_restoring_either_option_is_silent(choice: str, position: str) -> None:
    assert _codes(choice, RESTORE, position) == []


@pytest.mark.parametrize("choice", sorted(CHOICES))
def test_resume_forgetting_a_plainly_stepped_scheduler_is_lrd007(choice: str) -> None:
    assert _codes(choice, "", "") == ["LRD007"]


@pytest.mark.parametrize("choice", sorted(CHOICES))
def test_scheduler_stepped_by_position_needs_no_restore_nor_lrd006(choice: str) -> None:
    assert _codes(choice, "", "epoch") == []
