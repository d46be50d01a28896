"""Shapes real projects use that the checker did not model, by the general shape (devmiss18).

Programs written for these tests; no third-party code.

1. A PPO-style ``while global_step < total_timesteps:`` loop that advances its counter by one
   rollout per pass (``global_step += num_envs`` in ``for step in range(num_steps):``, or
   ``global_step += batch_size``) and steps a scheduler sized ``total_timesteps //
   (num_steps * num_envs)`` once per pass: the loop makes exactly that many passes, so the
   schedule is stepped in its own units (no LRD003), as the ``for update in
   range(num_updates):`` spelling already was. Its twins: a horizon that also counts the
   minibatch updates, and a counter advanced only under a branch, are still reported.
"""

from __future__ import annotations

from .helpers import codes

# 1. A PPO while loop paced by rollouts ------------------------------------------------

PPO_WHILE = """
import torch
from transformers import get_linear_schedule_with_warmup


def train(agent, total_timesteps, num_steps, num_envs, update_epochs, minibatches):
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4)
    batch_size = num_steps * num_envs
    num_updates = {horizon}
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, num_updates)
    global_step = 0
    while global_step < total_timesteps:
        for step in range({steps}):
            global_step += num_envs
        for epoch in range(update_epochs):
            for mb in minibatches:
                loss = agent(mb).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        scheduler.step()
"""


def test_while_loop_paced_by_rollouts_counts_its_passes() -> None:
    source = PPO_WHILE.format(horizon="total_timesteps // batch_size", steps="num_steps")
    assert codes(source) == []


def test_while_loop_paced_by_rollouts_with_a_zero_start_range() -> None:
    source = PPO_WHILE.format(horizon="total_timesteps // batch_size", steps="0, num_steps")
    assert codes(source) == []


def test_while_loop_paced_by_rollouts_written_inline() -> None:
    source = PPO_WHILE.format(horizon="int(total_timesteps // (num_envs * num_steps))",
                              steps="num_steps")
    assert codes(source) == []


def test_twin_horizon_counting_the_minibatch_updates_is_still_reported() -> None:
    source = PPO_WHILE.format(
        horizon="total_timesteps // batch_size * update_epochs * len(minibatches)",
        steps="num_steps")
    assert codes(source) == ["LRD003"]


PPO_WHOLE_ROLLOUT = """
import torch
from torch.optim.lr_scheduler import OneCycleLR


def train(agent, total_timesteps, num_steps, num_envs, update_epochs, minibatches):
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4)
    batch_size = num_envs * num_steps
    scheduler = OneCycleLR(optimizer, max_lr=3e-4, total_steps=total_timesteps // {size})
    global_step = 0
    while global_step < total_timesteps:
{advance}
        for epoch in range(update_epochs):
            for mb in minibatches:
                loss = agent(mb).sum()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        scheduler.step()
"""


def test_while_loop_advanced_by_the_whole_rollout() -> None:
    source = PPO_WHOLE_ROLLOUT.format(size="batch_size",
                                      advance="        global_step += batch_size")
    assert codes(source) == []


def test_twin_counter_advanced_under_a_branch_is_left_to_the_rule() -> None:
    source = PPO_WHOLE_ROLLOUT.format(
        size="batch_size",
        advance="        if update_epochs:\n            global_step += batch_size")
    assert codes(source) == ["LRD003"]


def test_twin_horizon_divided_by_another_size_is_still_reported() -> None:
    source = PPO_WHOLE_ROLLOUT.format(size="num_envs",
                                      advance="        global_step += batch_size")
    assert codes(source) == ["LRD003"]
