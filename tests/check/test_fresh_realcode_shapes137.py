"""LRD014, LRD012, LRD017 and LRD003 spread across a project (probe63).

Programs written for these tests; no third-party code.

Each bug was already found when the whole program sat in one file; these are the layouts that
lost it once the pieces lived in the modules a project splits them into:

- a scheduler builder whose horizon parameter is named for updates (``def build(opt,
  total_updates)``) handed ``epochs * len(loader)`` by its caller, the scheduler stepped once
  per update under gradient accumulation (LRD003): the count is what the caller computed,
  not what the parameter is called;
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project

DATA = '''
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader(batch_size):
    return DataLoader(TensorDataset(torch.randn(96, 8), torch.randn(96, 1)), batch_size=batch_size)
'''


def _codes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
           ) -> list[tuple[str, str]]:
    """(path, code) of every finding of the project ``files`` (LRD101 aside)."""
    return [(path, code) for path, _, code in check_project(tmp_path, monkeypatch, files)
            if code != "LRD101"]


# -- a builder's parameter named for updates, handed a count of micro-batches -----------------

UPDATE_BUILDER = '''
from transformers import get_linear_schedule_with_warmup


def make_schedule(optimizer, planned_updates):
    return get_linear_schedule_with_warmup(optimizer, planned_updates // 20, planned_updates)
'''

ACCUMULATING_LOOP = '''
def run_epoch(net, loader, optimizer, schedule, accumulate):
    for i, (xb, yb) in enumerate(loader):
        (((net(xb) - yb) ** 2).mean() / accumulate).backward()
        if (i + 1) % accumulate == 0:
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
'''

ACCUMULATING_DRIVER = '''
import torch

from kit.data import make_loader
from kit.loop import run_epoch
from kit.schedule import make_schedule

ACCUMULATE = 8
EPOCHS = 12

net = torch.nn.Linear(8, 1)
loader = make_loader(4)
optimizer = torch.optim.AdamW(net.parameters(), lr=3e-4)
schedule = make_schedule(optimizer, HORIZON)
for epoch in range(EPOCHS):
    run_epoch(net, loader, optimizer, schedule, ACCUMULATE)
'''


def _accumulating(horizon: str) -> dict[str, str]:
    return {"kit/__init__.py": "", "kit/data.py": DATA, "kit/schedule.py": UPDATE_BUILDER,
            "kit/loop.py": ACCUMULATING_LOOP,
            "train.py": ACCUMULATING_DRIVER.replace("HORIZON", horizon)}


def test_a_parameter_named_for_updates_handed_micro_batches_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _accumulating("EPOCHS * len(loader)"))
    assert found == [("kit/loop.py", "LRD003")]


def test_control_a_parameter_named_for_updates_handed_updates_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _codes(tmp_path, monkeypatch, _accumulating("EPOCHS * (len(loader) // ACCUMULATE)"))
    assert found == []
