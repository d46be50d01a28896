"""A scheduler built only on the first pass of a loop that builds a new optimizer on every pass
(lead59, probing LRD014's shapes): ``for stage, (lr, epochs) in enumerate(stages):`` builds
``optimizer`` each stage and ``if stage == 0: scheduler = StepLR(optimizer, ...)``. From the
second stage on the scheduler moves the LR of the first stage's optimizer, which nothing
steps, and the stage trains at a constant LR. rcnew114 found the spelling that tests the
scheduler's own name (``if scheduler is None:``); a test of the loop's counter that only the
first pass passes is the same shape. Its correct twins: a scheduler built again on the other
passes (``else:``), re-pointed to each new optimizer, stepped only on the first pass, or an
optimizer built only on the first pass too."""

from __future__ import annotations

import pytest

from .helpers import codes, messages

STAGES = """
    import torch
    from torch.optim.lr_scheduler import StepLR


    def main(model, loader, stages):
        scheduler = None
        LOOP
            OPTIMIZER
            if FIRST:
                scheduler = StepLR(optimizer, step_size=10)
            OTHERWISE
            for epoch in range(epochs):
                for x, y in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
                STEP
"""

ENUMERATE = "for stage, (lr, epochs) in enumerate(stages):"
RANGE = "for stage in range(len(stages)):\n            lr, epochs = stages[stage]"
BUILD = "optimizer = torch.optim.SGD(model.parameters(), lr=lr)"


def _program(loop: str = ENUMERATE, first: str = "stage == 0", otherwise: str = "pass",
             step: str = "scheduler.step()", optimizer: str = BUILD) -> str:
    return STAGES.replace("LOOP", loop).replace("FIRST", first).replace(
        "OTHERWISE", otherwise).replace("STEP", step).replace("OPTIMIZER", optimizer)


@pytest.mark.parametrize("loop, first", [
    (ENUMERATE, "stage == 0"),
    (RANGE, "stage == 0"),
    (ENUMERATE, "not stage"),
    (RANGE, "stage < 1"),
    (ENUMERATE, "scheduler is None"),
])
def test_a_scheduler_built_on_the_first_pass_only_goes_stale(loop: str, first: str) -> None:
    source = _program(loop, first)
    assert codes(source) == ["LRD014"]
    assert f"(`{first}`)" in messages(source)[0]


@pytest.mark.parametrize("otherwise, step, optimizer", [
    # built again on every later pass
    ("else:\n                scheduler = StepLR(optimizer, step_size=5)", "scheduler.step()", BUILD),
    # re-pointed to the new optimizer on every pass
    ("scheduler.optimizer = optimizer", "scheduler.step()", BUILD),
    # stepped only in the first stage: the later stages train at their constant LR on purpose
    ("pass", "if stage == 0:\n                    scheduler.step()", BUILD),
    # the optimizer too is built on the first pass only: the same one trains every stage
    ("pass", "scheduler.step()",
     "if stage == 0:\n                optimizer = torch.optim.SGD(model.parameters(), lr=lr)"),
])
@pytest.mark.parametrize("first", ["stage == 0", "scheduler is None"])
def test_its_correct_twins_are_silent(otherwise: str, step: str, optimizer: str,
                                      first: str) -> None:
    # (with `scheduler is None` the first three were reported before lead59)
    assert codes(_program(first=first, otherwise=otherwise, step=step,
                          optimizer=optimizer)) == []
