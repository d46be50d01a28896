"""Two silences around composite schedules. A loop that trains nothing and only steps a
scheduler to record its LR (a plot of the schedule) says nothing about what a step stands for:
no LRD003 there, while the same schedule stepped once per epoch of a training loop is LRD003.
A SequentialLR whose warm-up is named in steps but whose other member's length cannot be read
(`CosineAnnealingWarmRestarts(T_0=t_0)`) is of unknown length: silent per epoch."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCHEDULE = """
import torch
from torch.optim.lr_scheduler import SequentialLR, LinearLR, CosineAnnealingLR

def make(optimizer, warmup_steps, total_steps):
    warmup = LinearLR(optimizer, start_factor=0.01, total_iters=warmup_steps)
    decay = CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)
    return SequentialLR(optimizer, [warmup, decay], milestones=[warmup_steps])
"""

PLOTS = {
    "append_last_lr": """
def plot_schedule(num_epochs=32):
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = make(optimizer, warmup_steps=500, total_steps=10000)
    lrs = []
    for epoch in range(num_epochs):
        scheduler.step()
        lrs.append(scheduler.get_last_lr()[0])
    return lrs
""",
    "print_param_group": """
def show(epochs=10):
    optimizer = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    scheduler = make(optimizer, warmup_steps=100, total_steps=1000)
    for epoch in range(epochs):
        print(epoch, optimizer.param_groups[0]["lr"])
        scheduler.step()
""",
}

TRAINING = """
def train(model, loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    scheduler = make(optimizer, warmup_steps=500, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
"""


@pytest.mark.parametrize("spelling", sorted(PLOTS))
def test_loop_that_only_plots_the_schedule_is_silent(spelling: str) -> None:
    assert codes(SCHEDULE + PLOTS[spelling]) == []


def test_the_same_schedule_stepped_per_epoch_of_training_is_lrd003() -> None:
    assert codes(SCHEDULE + TRAINING) == ["LRD003"]


UNREADABLE_MEMBER = """
import torch
from torch.optim.lr_scheduler import SequentialLR, LinearLR, CosineAnnealingWarmRestarts

def train(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    warmup = LinearLR(optimizer, start_factor=0.1, total_iters=cfg["warmup_steps"])
    restarts = CosineAnnealingWarmRestarts(optimizer, T_0=cfg["t_0"], T_mult=2)
    scheduler = SequentialLR(optimizer, [warmup, restarts], milestones=[cfg["warmup_steps"]])
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
"""


def test_composite_with_a_member_of_unreadable_length_is_silent_per_epoch() -> None:
    assert codes(UNREADABLE_MEMBER) == []
