"""Shapes met while hunting false alarms in RL, fine-tuning, pre-training and Kaggle
repositories (fphunt29): the correct variant stays quiet and the buggy neighbour is still
reported."""

from __future__ import annotations

from tests.check.helpers import codes

# -- a LambdaLR factor written over the very loop that steps it --------------------------------

# A PPO trainer anneals its LR linearly to zero over `num_updates` rollouts: each pass of the
# outer loop collects a rollout, then runs a few epochs of minibatch updates; the scheduler
# steps once per rollout. {factor} is the LambdaLR's factor, {loop} the outer loop's header.
_PPO = """
import torch


def train(cfg, env, agent):
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr, eps=1e-5)
    num_updates = cfg.total_timesteps // (cfg.num_envs * cfg.num_steps)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, {factor})
    for {loop}:
        rollout = env.collect(agent, cfg.num_steps)
        for ppo_epoch in range(cfg.update_epochs):
            for minibatch in rollout.minibatches(cfg.num_minibatches):
                loss = agent.loss(minibatch)
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        scheduler.step()
"""


def test_linear_anneal_over_the_rollout_loop_it_steps_in_is_not_lrd003() -> None:
    src = _PPO.format(factor="lambda update: 1.0 - update / num_updates",
                      loop="update in range(num_updates)")
    assert "LRD003" not in codes(src)


def test_anneal_over_a_rollout_loop_counted_from_one_is_not_lrd003() -> None:
    src = _PPO.format(factor="lambda it: 1.0 - it / num_updates",
                      loop="update in range(1, num_updates + 1)")
    assert "LRD003" not in codes(src)


def test_factor_that_also_multiplies_in_the_minibatches_is_still_lrd003() -> None:
    # sized for every minibatch update, stepped once per rollout: it ends far from done
    src = _PPO.format(factor="lambda u: 1.0 - u / (num_updates * cfg.num_minibatches)",
                      loop="update in range(num_updates)")
    assert "LRD003" in codes(src)


def test_factor_over_updates_stepped_in_a_loop_over_epochs_is_still_lrd003() -> None:
    src = _PPO.format(factor="lambda update: 1.0 - update / num_updates",
                      loop="epoch in range(cfg.epochs)")
    assert "LRD003" in codes(src)


# The same annealing written as a closure in a PPO class, the count kept on `self`.
_PPO_CLASS = """
import torch


class PPO:
    def __init__(self, agent, cfg):
        self.agent = agent
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr)
        self.num_iterations = cfg.total_timesteps // (cfg.num_envs * cfg.num_steps)

        def anneal(iteration):
            return {body}

        self.scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, anneal)

    def update(self, rollout):
        for epoch in range(self.cfg.update_epochs):
            for minibatch in rollout.minibatches(self.cfg.num_minibatches):
                loss = self.agent.loss(minibatch)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

    def learn(self, env):
        for iteration in range(self.num_iterations):
            rollout = env.collect(self.agent, self.cfg.num_steps)
            self.update(rollout)
            self.scheduler.step()
"""


def test_closure_annealing_over_the_iterations_kept_on_self_is_not_lrd003() -> None:
    src = _PPO_CLASS.format(body="1.0 - iteration / self.num_iterations")
    assert "LRD003" not in codes(src)


def test_closure_sized_in_environment_steps_is_still_lrd003() -> None:
    # the factor counts every environment step of the run, not the rollouts it is stepped in
    src = _PPO_CLASS.format(body="1.0 - iteration / self.cfg.total_timesteps")
    assert "LRD003" in codes(src)


# A supervised loop for contrast: an epoch loop and a factor over the run's batches.
_EPOCHS = """
import torch


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    total_steps = epochs * len(loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, {factor})
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
"""


def test_factor_over_the_runs_batches_stepped_per_epoch_is_still_lrd003() -> None:
    assert "LRD003" in codes(_EPOCHS.format(factor="lambda s: 1 - s / total_steps"))


def test_factor_reading_the_epoch_count_times_the_loader_is_still_lrd003() -> None:
    # the loop's own count takes part, but so does a count of batches
    assert "LRD003" in codes(_EPOCHS.format(factor="lambda s: 1 - s / (epochs * len(loader))"))


# -- a horizon divided by the size of one pass of the loop that steps it ------------------------

# A PPO run counted in environment steps: `num_iterations` rollouts of `num_envs * n_steps`
# steps each, and a schedule whose length is also given in environment steps and divided by
# the same rollout size. {helper} builds the scheduler, {build} calls it, {count} is the
# number of rollouts.
_ROLLOUTS = """
import torch
from torch.optim.lr_scheduler import LinearLR

{helper}

def train(cfg, env, agent):
    optimizer = torch.optim.Adam(agent.parameters(), lr=cfg.lr)
    rollout_size = cfg.num_envs * cfg.n_steps
    scheduler = {build}
    num_iterations = {count}
    for iteration in range(num_iterations):
        rollout = env.collect(agent, cfg.n_steps)
        for epoch in range(cfg.n_epochs):
            for minibatch in rollout.minibatches(cfg.batch_size):
                loss = agent.loss(minibatch)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        scheduler.step()
"""

_WARMUP_HELPER = """
def warmup_schedule(optimizer, warmup_steps, num_envs, n_steps):
    per_rollout = {size}
    warmup_rollouts = max(1, warmup_steps // per_rollout)
    return LinearLR(optimizer, start_factor=0.01, end_factor=1.0, total_iters=warmup_rollouts)
"""


def test_decay_over_the_timesteps_divided_by_the_rollout_size_is_not_lrd003() -> None:
    src = _ROLLOUTS.format(
        helper="",
        build="LinearLR(optimizer, 1.0, 0.0, total_iters=cfg.total_timesteps // rollout_size)",
        count="cfg.total_timesteps // (cfg.n_steps * cfg.num_envs)")
    assert "LRD003" not in codes(src)


def test_warmup_in_timesteps_turned_into_rollouts_by_a_helper_is_not_lrd003() -> None:
    src = _ROLLOUTS.format(
        helper=_WARMUP_HELPER.format(size="num_envs * n_steps"),
        build="warmup_schedule(optimizer, cfg.warmup_steps, cfg.num_envs, cfg.n_steps)",
        count="cfg.total_timesteps // rollout_size")
    assert "LRD003" not in codes(src)


def test_horizon_divided_by_the_minibatch_size_is_still_lrd003() -> None:
    # counts minibatches of the whole run, stepped once per rollout
    src = _ROLLOUTS.format(
        helper="",
        build="LinearLR(optimizer, 1.0, 0.0, total_iters=cfg.total_timesteps // cfg.batch_size)",
        count="cfg.total_timesteps // rollout_size")
    assert "LRD003" in codes(src)


def test_helper_dividing_by_another_size_than_the_rollout_is_still_lrd003() -> None:
    src = _ROLLOUTS.format(
        helper=_WARMUP_HELPER.format(size="n_steps"),
        build="warmup_schedule(optimizer, cfg.warmup_steps, cfg.num_envs, cfg.n_steps)",
        count="cfg.total_timesteps // rollout_size")
    assert "LRD003" in codes(src)


def test_horizon_in_timesteps_with_a_rollout_count_of_unknown_make_is_still_lrd003() -> None:
    src = _ROLLOUTS.format(
        helper="",
        build="LinearLR(optimizer, 1.0, 0.0, total_iters=cfg.total_timesteps // rollout_size)",
        count="cfg.num_iterations")
    assert "LRD003" in codes(src)


def test_horizon_multiplying_in_the_update_epochs_before_dividing_is_still_lrd003() -> None:
    # the same size divides it, but it counts every epoch of updates of every rollout
    src = _ROLLOUTS.format(
        helper="",
        build="LinearLR(optimizer, 1.0, 0.0,"
              " total_iters=cfg.total_timesteps * cfg.n_epochs // rollout_size)",
        count="cfg.total_timesteps // rollout_size")
    assert "LRD003" in codes(src)
