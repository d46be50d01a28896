"""A schedule sized to the passes of an outer loop and stepped after every update of an inner
one (rcnew52's PPO gap, bench/realcode/README.md).

Programs written for these tests; no third-party code.

PPO-style training makes several updates per rollout: `for update in range(num_updates):`
collects a rollout, then runs `update_epochs` passes over its minibatches, one optimizer step
each. A `LinearLR(total_iters=num_updates)` stepped once per rollout anneals over the run; the
same scheduler stepped after every minibatch update runs out after 1 / (update_epochs *
minibatches) of it and holds its final LR (0 here) for the rest. The minibatch loop iterates a
list, not a DataLoader, so the unit words of the horizon say nothing: what tells is that the
horizon is the outer loop's own count, and the scheduler steps in a loop inside it.
"""

from __future__ import annotations

import pytest

from .helpers import codes, findings, messages

PPO = """
import torch


def collect(policy, n):
    return [torch.randn(8, 4) for _ in range(n)]


def train(policy, num_updates=500, update_epochs=4, minibatches=8):
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.0,
                                                  total_iters=TOTAL)
    for update in range(num_updates):
        rollout = collect(policy, 64)
        for _ in range(update_epochs):
            for mb in rollout[:minibatches]:
                loss = policy(mb).pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                STEP_INNER
        STEP_OUTER
"""


def ppo(total: str = "num_updates", inner: bool = True) -> str:
    return (PPO.replace("TOTAL", total)
            .replace("STEP_INNER", "scheduler.step()" if inner else "pass")
            .replace("STEP_OUTER", "pass" if inner else "scheduler.step()"))


def test_stepped_every_minibatch_with_the_rollout_count_is_lrd002() -> None:
    found = findings(ppo())
    assert [c for c, _ in found] == ["LRD002"]
    (message,) = messages(ppo())
    assert "horizon is the number of passes of the loop at line" in message
    assert "(`num_updates`)" in message


def test_stepped_once_per_rollout_is_right() -> None:
    assert codes(ppo(inner=False)) == []


def test_horizon_counting_every_minibatch_update_is_right() -> None:
    assert codes(ppo(total="num_updates * update_epochs * minibatches")) == []


def test_handed_to_a_builder_under_another_name_is_still_found() -> None:
    source = ppo().replace(
        "    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, end_factor=0.0,\n"
        "                                                  total_iters=num_updates)",
        "    scheduler = make_scheduler(optimizer, num_updates)",
    ).replace("def train(", "def make_scheduler(optimizer, total):\n"
              "    return torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.0, total_iters=total)\n"
              "\n\ndef train(")
    assert "LRD002" in codes(source)


WHILE = """
import torch


def train(model, loader, max_steps=10000):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.0, total_iters=max_steps)
    step = 0
    while step < max_steps:
        for x in loader:
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
"""


def test_a_while_loop_bounded_by_the_update_count_is_right() -> None:
    # `while step < max_steps` counts updates, not its own passes
    assert codes(WHILE) == []


@pytest.mark.parametrize("inner", ["for x in loader:", "for x in [next(iter(loader))]:"])
def test_one_update_per_outer_pass_is_right(inner: str) -> None:
    # the inner loop runs once a pass: `break` after the first batch, or a one-item list
    source = (WHILE.replace("    step = 0\n    while step < max_steps:", "    for step in range(max_steps):")
              .replace("            step += 1\n", "            break\n" if "loader:" in inner else "")
              .replace("for x in loader:", inner))
    assert codes(source) == []
