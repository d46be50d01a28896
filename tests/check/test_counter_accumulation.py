"""Gradient accumulation written as a counter: `seen += 1` on every pass, `if seen == k:` (or
`>= k`) around the update, and `seen = 0` inside that branch. The test holds once every k
passes, exactly as `(i + 1) % k == 0` does, so it is read as that period (Cond.origins): a
scheduler stepped on every micro-batch beside it is LRD017 when its horizon counts updates,
and one stepped under it is LRD003 when its horizon counts loader batches. Silent twins: the
horizon in the unit of the steps it gets, a counter the branch does not reset (its period is
not k), and a counter of evaluations beside an optimizer that updates on every batch. (lead57;
session 56's note listed the counter spelling as an LRD017 miss.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

SCRIPT = """
import torch

model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps={total})
seen = 0
for epoch in range(10):
    for x in loader:
        (model(x).sum() / 4).backward()
        seen += 1
        if {test}:
            optimizer.step()
            optimizer.zero_grad()
{inside}            seen = 0
{outside}"""

IN_UPDATES = "10 * len(loader) // 4"
IN_BATCHES = "10 * len(loader)"
STEP_INSIDE = "            scheduler.step()\n"
STEP_OUTSIDE = "        scheduler.step()\n"


def script(total: str, inside: bool, test: str = "seen == 4") -> str:
    return SCRIPT.format(total=total, test=test, inside=STEP_INSIDE if inside else "",
                         outside="" if inside else STEP_OUTSIDE)


@pytest.mark.parametrize("test", ["seen == 4", "seen >= 4", "4 == seen", "4 <= seen"])
def test_scheduler_every_micro_batch_beside_a_counter_is_lrd017(test: str) -> None:
    src = script(IN_UPDATES, inside=False, test=test)
    assert codes(src) == ["LRD017"]
    [message] = messages(src)
    assert "runs every micro-batch" in message
    assert "the optimizer steps only when" in message


def test_scheduler_under_the_counter_with_a_horizon_in_loader_batches_is_lrd003() -> None:
    src = script(IN_BATCHES, inside=True)
    assert codes(src) == ["LRD003"]
    [message] = messages(src)
    assert "stepped once per update here" in message
    assert "training ends after 1/4 of the schedule" in message


def test_scheduler_under_the_counter_sized_in_updates_is_silent() -> None:
    assert codes(script(IN_UPDATES, inside=True)) == []


def test_scheduler_every_micro_batch_sized_in_micro_batches_is_silent() -> None:
    # the schedule counts micro-batches and is stepped on every one: it ends with the run
    assert codes(script(IN_BATCHES, inside=False)) == []


def test_counter_reset_outside_its_branch_is_no_period_of_k() -> None:
    src = script(IN_UPDATES, inside=False).replace("            seen = 0\n", "").replace(
        "        seen += 1\n", "        seen += 1\n        if seen > 4:\n            seen = 0\n")
    assert "LRD017" not in codes(src)


def test_counter_that_steps_by_two_is_not_read_as_a_period() -> None:
    src = script(IN_UPDATES, inside=False).replace("seen += 1", "seen += 2")
    assert "LRD017" not in codes(src)


def test_counter_of_evaluations_beside_updates_on_every_batch_is_silent() -> None:
    src = """
    import torch

    model = torch.nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3,
                                                    total_steps=10 * len(loader))
    since_eval = 0
    for epoch in range(10):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            since_eval += 1
            if since_eval == 50:
                print("evaluate")
                since_eval = 0
    """
    assert codes(src) == []


def test_counter_kept_on_the_trainer_in_a_method() -> None:
    src = """
    import torch


    class Trainer:
        def __init__(self, model, loader, accum):
            self.model, self.loader, self.accum = model, loader, accum
            self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
                self.optimizer, T_max=20 * len(loader) // accum)
            self.pending = 0

        def fit(self):
            for epoch in range(20):
                for x in self.loader:
                    with torch.autocast("cpu", dtype=torch.bfloat16):
                        loss = self.model(x).sum() / self.accum
                        self.pending += 1
                    loss.backward()
                    if self.pending >= self.accum:
                        self.optimizer.step()
                        self.optimizer.zero_grad()
                        self.pending = 0
                    self.scheduler.step()


    Trainer(torch.nn.Linear(8, 2),
            torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8), 4).fit()
    """
    assert codes(src) == ["LRD017"]
