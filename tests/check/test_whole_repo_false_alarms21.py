"""A MultiStepLR's milestones from a setting named after the class (fphunt31's lip2sp false
alarms, bench/realcode/FPHUNT.md).

Programs written for these tests; no third-party code.

`milestones=cfg.train.multi_lr_decay_step` says "step" because MultiStepLR's decays are called
steps, not because the milestones count batches: the same as `step_size=args.lr_step`, which
already only echoes the parameter. Stepped once per epoch it is not LRD003 on the name alone.
So does one qualified by what it belongs to (`multi_lr_decay_step_gen`, a GAN's generator). A
name that states a unit of its own (`lr_decay_iters`) still counts, as does one with more than a
qualifier (`decay_every_n_steps`).
"""

from __future__ import annotations

import pytest

from .helpers import codes

TRAIN = """
import torch


def main(cfg, loader):
    model = torch.nn.Linear(4, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.train.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(
        optimizer, milestones=cfg.train.NAME, gamma=cfg.train.lr_decay_rate)
    for epoch in range(cfg.train.max_epoch):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        scheduler.step()
"""


@pytest.mark.parametrize("name", ["multi_lr_decay_step", "milestone_steps", "multistep_lr_steps",
                                  "multi_lr_decay_step_gen", "lr_decay_step_disc"])
def test_a_name_after_the_class_says_no_unit(name: str) -> None:
    assert codes(TRAIN.replace("NAME", name)) == []


@pytest.mark.parametrize("name", ["lr_decay_iters", "multi_decay_iters", "decay_every_n_steps",
                                  "lr_decay_step_batches"])
def test_control_a_name_with_a_unit_of_its_own_still_counts(name: str) -> None:
    assert codes(TRAIN.replace("NAME", name)) == ["LRD003"]
