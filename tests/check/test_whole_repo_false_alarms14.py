"""Shapes met while checking whole repositories (fphunt23): the correct variant stays quiet and
the buggy neighbour is still reported."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

# -- a second stage: the LR reset by hand, then a new chainable schedule bound to the name ------

# An AlphaPose-style trainer: a MultiStepLR stepped once per epoch; when the second stage
# starts, the LR is written back to its base value and a new MultiStepLR with the second
# stage's milestones is built on the same optimizer and bound to the same name. The old
# schedule never steps again, and the new one starts from the LR it finds: the write and the
# schedule do not compete. {stage} is what the second stage does after the write.
_STAGES = """
import torch

def train_one_epoch(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()

def main(model, loader, cfg):
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[90, 120], gamma=0.1)
    for epoch in range(cfg.epochs):
        train_one_epoch(model, loader, optimizer)
        scheduler.step()
        if epoch == cfg.second_stage:
            for group in optimizer.param_groups:
                group["lr"] = cfg.lr
{stage}
"""

_REBUILD = "            scheduler = {cls}(optimizer, {args})\n"


def _stages(stage: str) -> str:
    return _STAGES.format(stage=stage)


@pytest.mark.parametrize("cls, args", [
    ("torch.optim.lr_scheduler.MultiStepLR", "milestones=[150, 170], gamma=0.1"),
    ("torch.optim.lr_scheduler.StepLR", "step_size=30"),
    ("torch.optim.lr_scheduler.ExponentialLR", "gamma=0.98"),
])
def test_lr_reset_then_new_chainable_schedule_is_quiet(cls: str, args: str) -> None:
    assert "LRD008" not in codes(_stages(_REBUILD.format(cls=cls, args=args)))


def test_lr_reset_with_no_new_schedule_is_reported() -> None:
    # the old MultiStepLR keeps stepping over the written value
    assert "LRD008" in codes(_stages(""))


def test_new_schedule_under_another_branch_is_reported() -> None:
    # the rebuild runs in another epoch than the write: until then the old one steps over it
    stage = "        if epoch == cfg.third_stage:\n" + _REBUILD.format(
        cls="torch.optim.lr_scheduler.MultiStepLR", args="milestones=[150, 170]")
    assert "LRD008" in codes(_stages(stage))


def test_old_schedule_stepped_before_the_rebuild_is_reported() -> None:
    stage = "            scheduler.step()\n" + _REBUILD.format(
        cls="torch.optim.lr_scheduler.MultiStepLR", args="milestones=[150, 170]")
    assert "LRD008" in codes(_stages(stage))


def test_new_schedule_under_another_name_is_reported() -> None:
    # `scheduler.step()` still steps the old schedule over the written value
    stage = "            second = torch.optim.lr_scheduler.MultiStepLR(optimizer, [150, 170])\n"
    assert "LRD008" in codes(_stages(stage))


def test_new_schedule_that_recomputes_from_base_is_still_reported() -> None:
    # LambdaLR's constructor sets the LR from the base values: the written one never trains
    stage = "            scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.1 ** (e // 30))\n"
    assert "LRD008" in codes(_stages(stage))


_METHOD = """
import torch

class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)

    def fit(self, loader):
        for epoch in range(self.cfg.epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()
            if epoch == self.cfg.fine_tune_at:
                for group in self.optimizer.param_groups:
                    group["lr"] = self.cfg.lr * 0.1
{rebuild}
"""


def test_attribute_schedule_rebuilt_after_the_write_is_quiet() -> None:
    rebuild = "                self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=10)\n"
    assert "LRD008" not in codes(_METHOD.format(rebuild=rebuild))


def test_attribute_schedule_kept_after_the_write_is_reported() -> None:
    assert "LRD008" in codes(_METHOD.format(rebuild=""))
