"""A per-batch schedule sized ``epochs * len(loader) // 4`` stepped inside Accelerate's
``accumulate()`` of an ``Accelerator(gradient_accumulation_steps=4)`` (lead62, probing LRD017
and LRD010 in several spellings). The prepared optimizer updates once every four
micro-batches and the prepared scheduler steps with it, so the horizon counts the updates
exactly: correct. LRD010 ("spans 1/4 of the run's batches, and every batch updates the
optimizer") was reported whenever the 4 was written as a number rather than the name the
Accelerator was given: the rule read the updates as unconditional because no ``if`` guards
them. A scheduler left out of ``prepare()`` steps on every micro-batch: LRD017 alone says
so; and without ``accumulate()`` every batch does update, so the same horizon is LRD010."""

from __future__ import annotations

import pytest

from .helpers import findings

PROGRAM = """
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup

accelerator = Accelerator(gradient_accumulation_steps=4)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = torch.utils.data.DataLoader(torch.randn(640, 4), batch_size=8)
scheduler = {build}
{prepare}
for epoch in range(10):
    for x in loader:
{body}
"""

ONE_CYCLE = ("torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, "
             "total_steps=10 * len(loader) // 4)")
LINEAR = "get_linear_schedule_with_warmup(optimizer, 100, 10 * len(loader) // 4)"
ALL = "model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)"
NO_SCHEDULER = "model, optimizer, loader = accelerator.prepare(model, optimizer, loader)"
ACCUMULATED = """\
        with accelerator.accumulate(model):
            accelerator.backward(model(x).sum())
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()"""
EVERY_BATCH = """\
        accelerator.backward(model(x).sum())
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()"""


@pytest.mark.parametrize("build", [ONE_CYCLE, LINEAR], ids=["OneCycleLR", "hf-linear"])
def test_a_prepared_scheduler_sized_in_updates_under_accumulate_is_silent(build: str) -> None:
    assert findings(PROGRAM.format(build=build, prepare=ALL, body=ACCUMULATED)) == []


@pytest.mark.parametrize("build", [ONE_CYCLE, LINEAR], ids=["OneCycleLR", "hf-linear"])
def test_an_unprepared_scheduler_under_accumulate_is_lrd017_alone(build: str) -> None:
    found = findings(PROGRAM.format(build=build, prepare=NO_SCHEDULER, body=ACCUMULATED))
    assert [code for code, _ in found] == ["LRD017"]


@pytest.mark.parametrize("build", [ONE_CYCLE, LINEAR], ids=["OneCycleLR", "hf-linear"])
def test_the_same_horizon_without_accumulate_is_still_lrd010(build: str) -> None:
    found = findings(PROGRAM.format(build=build, prepare=ALL, body=EVERY_BATCH))
    assert [code for code, _ in found] == ["LRD010"]
