"""LRD010: OneCycleLR sized with whole batches only (`steps_per_epoch=len(dataset) //
BATCH`) and stepped after every batch of a DataLoader over that dataset that keeps the last
partial batch. Each epoch yields ceil(N / B) batches, the schedule counts floor(N / B), and
OneCycleLR raises "Tried to step X times" before the last epoch ends (checked by running the
reported program). Silent with drop_last=True, with `len(loader)`, with ceil, with a loader of
its own sampler, or under an accumulation test. (lead55.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.check.helpers import codes

SCRIPT = """
import math
import torch
from torch import nn

torch.manual_seed(0)
EPOCHS = 3
BATCH = 8
dataset = torch.utils.data.TensorDataset(torch.randn({n}, 4), torch.randint(0, 2, ({n},)))
loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, shuffle=True{extra})
model = nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, {sizing})
for epoch in range(EPOCHS):
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        {step}
"""

REPORTED = [
    "epochs=EPOCHS, steps_per_epoch=len(dataset) // BATCH",
    "epochs=EPOCHS, steps_per_epoch=int(len(dataset) / BATCH)",
    "total_steps=EPOCHS * (len(dataset) // BATCH)",
]


def _program(sizing: str, extra: str = "", step: str = "scheduler.step()", n: int = 100) -> str:
    return SCRIPT.format(sizing=sizing, extra=extra, step=step, n=n)


@pytest.mark.parametrize("sizing", REPORTED)
def test_whole_batches_under_a_loader_keeping_the_last_is_reported(sizing: str) -> None:
    assert codes(_program(sizing)) == ["LRD010"]


def test_the_reported_program_really_raises(tmp_path) -> None:
    path = tmp_path / "train.py"
    path.write_text(_program(REPORTED[0]))
    run = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode != 0 and "Tried to step" in run.stderr


@pytest.mark.parametrize("sizing, extra, step", [
    (REPORTED[0], ", drop_last=True", "scheduler.step()"),
    ("epochs=EPOCHS, steps_per_epoch=len(loader)", "", "scheduler.step()"),
    ("epochs=EPOCHS, steps_per_epoch=math.ceil(len(dataset) / BATCH)", "", "scheduler.step()"),
    (REPORTED[0], "", "if (i + 1) % 2 == 0:\n            scheduler.step()"),
])
def test_counts_that_match_the_loader_are_silent(sizing: str, extra: str, step: str) -> None:
    assert codes(_program(sizing, extra, step)) == []


def test_sampler_of_its_own_is_silent() -> None:
    extra = ", sampler=torch.utils.data.RandomSampler(dataset)"
    assert codes(_program(REPORTED[0], extra).replace("shuffle=True, ", "")) == []


def test_names_bound_to_each_other_are_followed_a_few_levels_only() -> None:
    # `per_epoch` and `total` bound to expressions reading each other (as Accelerate's
    # complete_cv_example rebinds its loader through `prepare(..., lr_scheduler)` while the
    # scheduler reads `len(loader)`): the search for `len(dataset) // BATCH` stops after a few
    # levels instead of recursing until Python's limit (the file was "not checked")
    source = _program("epochs=EPOCHS, steps_per_epoch=per_epoch").replace(
        "scheduler = torch.optim",
        "per_epoch = 12\ntotal = per_epoch + 0\nper_epoch = total + 0\nscheduler = torch.optim")
    assert codes(source) == []
