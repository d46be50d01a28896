"""A cosine sized ``total_steps - warmup_steps`` through a builder's keyword-only parameter
(lead62, from metamorphic.py's builder rewrite of a dev case: a text-to-image trainer whose
``CosineAnnealingLR(T_max=len(loader) * epochs - warmup_steps)`` has no warm-up in front of
it, stepped every batch of every epoch). Written in place it was LRD010 (the last
``warmup_steps`` steps run past the horizon); handed to ``def build(opt, *, T_max): return
CosineAnnealingLR(opt, T_max=T_max)`` it was silent, because the horizon's ``T - k`` form was
read only through names bound in the builder, not through the caller's argument."""

from __future__ import annotations

import pytest

from .helpers import findings

PROGRAM = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def build_cosine(optimizer, *, T_max):
    return CosineAnnealingLR(optimizer, T_max=T_max)


model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = torch.utils.data.DataLoader(torch.randn(640, 4), batch_size=8)
epochs = 50
warmup_steps = 500
total_steps = len(loader) * epochs
scheduler = {build}
for epoch in range(epochs):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()
"""


@pytest.mark.parametrize("build", [
    "CosineAnnealingLR(optimizer, T_max=total_steps - warmup_steps)",
    "build_cosine(optimizer, T_max=total_steps - warmup_steps)",
], ids=["in-place", "through-a-builder"])
def test_a_horizon_short_of_the_run_is_lrd010(build: str) -> None:
    assert [code for code, _ in findings(PROGRAM.format(build=build))] == ["LRD010"]


@pytest.mark.parametrize("build", [
    "CosineAnnealingLR(optimizer, T_max=total_steps)",
    "build_cosine(optimizer, T_max=total_steps)",
], ids=["in-place", "through-a-builder"])
def test_a_horizon_of_the_whole_run_is_silent(build: str) -> None:
    assert findings(PROGRAM.format(build=build)) == []


HF_PROGRAM = """
import argparse

import torch
from transformers import get_cosine_schedule_with_warmup


def build_schedule(optimizer, *, num_warmup_steps, num_training_steps):
    return get_cosine_schedule_with_warmup(
        optimizer, num_warmup_steps=num_warmup_steps, num_training_steps=num_training_steps)


model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
data = torch.utils.data.TensorDataset(torch.randn(640, 4))
loader = torch.utils.data.DataLoader(data, batch_size=8)
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=10)
epochs = parser.parse_args().epochs
steps = int(len(data) / loader.batch_size {op} epochs)
scheduler = {build}
for epoch in range(epochs):
    for (x,) in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()
"""


@pytest.mark.parametrize("build", [
    "get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=10, num_training_steps=steps)",
    "build_schedule(optimizer, num_warmup_steps=10, num_training_steps=steps)",
], ids=["in-place", "through-a-builder"])
@pytest.mark.parametrize("op, codes", [("/", ["LRD010"]), ("*", [])], ids=["divided", "times"])
def test_one_epoch_divided_by_the_epochs_is_found_either_way(build: str, op: str,
                                                              codes: list[str]) -> None:
    # the run makes epochs * epochs times the horizon's steps when it is divided, not multiplied
    found = findings(HF_PROGRAM.format(build=build, op=op))
    assert [code for code, _ in found] == codes


MILESTONES = """
import torch


def build(opt, *, milestones, gamma):
    return torch.optim.lr_scheduler.MultiStepLR(opt, milestones=milestones, gamma=gamma)


class Trainer:
    def __init__(self, loader, epochs):
        self.loader, self.epochs = loader, epochs
        self.model = torch.nn.Linear(4, 1)
        self.optim = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        total = {total}
        milestones = [int(total * 0.5), int(total * 0.75)]
        self.sched = {build}

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.optim.zero_grad()
                self.model(x).sum().backward()
                self.optim.step()
            self.sched.step()


Trainer(torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8), 100).fit()
"""


@pytest.mark.parametrize("build", [
    "torch.optim.lr_scheduler.MultiStepLR(self.optim, milestones=milestones, gamma=0.5)",
    "build(self.optim, milestones=milestones, gamma=0.5)",
], ids=["in-place", "through-a-builder"])
@pytest.mark.parametrize("total, codes", [("len(loader) * epochs", ["LRD003"]),
                                          ("epochs", [])], ids=["in-batches", "in-epochs"])
def test_milestones_counted_in_batches_stepped_per_epoch(build: str, total: str,
                                                         codes: list[str]) -> None:
    # a list the caller computes from `len(loader) * epochs` and hands to the builder's
    # keyword-only parameter counts batches, as it does written in place
    found = findings(MILESTONES.format(build=build, total=total))
    assert [code for code, _ in found] == codes
