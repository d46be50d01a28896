"""Shapes met while checking whole repositories (fphunt24): the correct variant stays quiet and
the buggy neighbour is still reported."""

from __future__ import annotations

from tests.check.helpers import codes

# -- a loop over the horizon itself, the horizon handed down to a builder ---------------------

# An RL-style trainer: `fit()` works out how many rounds it will run, hands that count to a
# method that builds the optimizer and, through a module-level helper, a Hugging Face warm-up
# schedule over it; each round collects a small loader of fresh samples, updates on it, and
# steps the schedule once. The loop runs `range(START, rounds + START)`: `rounds` passes, one
# step each, which is the horizon. {loop} is the outer loop's header.
_ROUNDS = """
import torch
from transformers import get_scheduler

START = 1

def warmup_then_decay(optimizer, horizon):
    return get_scheduler("linear", optimizer=optimizer, num_warmup_steps=5,
                         num_training_steps=horizon)

class RoundTrainer:
    def __init__(self, policy, prompts, cfg):
        self.policy = policy
        self.prompts = prompts
        self.cfg = cfg

    def setup(self, n_updates):
        self.opt = torch.optim.AdamW(self.policy.parameters(), lr=3e-6)
        self.sched = warmup_then_decay(self.opt, {handed})

    def sample(self, prompts):
        return [self.policy(p) for p in prompts]

    def one_round(self, source):
        samples = torch.utils.data.DataLoader(self.sample(next(source)), batch_size=4)
        for chunk in samples:
            self.policy(chunk).mean().backward()
            self.opt.step()
            self.opt.zero_grad()
        self.sched.step()

    def fit(self):
        rounds = len(self.prompts) * self.cfg.passes // self.cfg.per_round
        self.setup(rounds)
        source = iter(self.prompts)
        {loop}
            self.one_round(source)
"""


def _rounds(loop: str, handed: str = "n_updates") -> str:
    return _ROUNDS.format(loop=loop, handed=handed)


def test_loop_over_the_handed_down_horizon_shifted_by_its_start_is_quiet() -> None:
    assert "LRD003" not in codes(_rounds("for r in range(START, rounds + START):"))


def test_loop_over_the_handed_down_horizon_start_first_is_quiet() -> None:
    assert "LRD003" not in codes(_rounds("for r in range(START, START + rounds):"))


def test_loop_over_the_handed_down_horizon_in_a_progress_bar_is_quiet() -> None:
    src = _rounds("for r in tqdm.tqdm(range(START, rounds + START), total=rounds):")
    assert "LRD003" not in codes("import tqdm\n" + src)


def test_loop_over_epochs_with_a_horizon_in_rounds_is_reported() -> None:
    assert "LRD003" in codes(_rounds("for epoch in range(self.cfg.passes):"))


def test_loop_over_another_count_is_reported() -> None:
    assert "LRD003" in codes(_rounds("for r in range(START, self.cfg.max_rounds + START):"))


def test_horizon_scaled_on_the_way_down_is_reported() -> None:
    # the schedule is sized for `rounds * updates_per_round` steps but steps once per round
    src = _rounds("for r in range(START, rounds + START):",
                  handed="n_updates * self.cfg.updates_per_round")
    assert "LRD003" in codes(src)


def test_shift_by_a_different_start_is_reported() -> None:
    # `range(1, rounds + 2)` is not `rounds` passes of a loop whose count is read as `rounds`
    src = _rounds("for r in range(START, rounds + self.cfg.extra):")
    assert "LRD003" in codes(src)


# -- the leftover accumulated update after the batch loop, and its own schedule step ----------

# The batch loop updates every `accum` batches and steps the schedule with each update; after
# it, when the epoch's batch count is not a multiple of `accum`, the leftover gradients are
# applied and the schedule stepped for that update too. The horizon counts updates
# (ceil(batches / accum) per epoch), and so does every step. {inner} is what the batch loop
# does at an update, {flush} what runs after the batch loop.
_LEFTOVER = """
import math
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def run_epoch(net, batches, opt, sched, accum):
    seen = 0
    for seen, (x, y) in enumerate(batches, start=1):
        (torch.nn.functional.mse_loss(net(x), y) / accum).backward()
        if seen % accum == 0:
            opt.step()
{inner}            opt.zero_grad()
{flush}

def fit(net, batches, n_epochs, accum):
    opt = torch.optim.AdamW(net.parameters(), lr=2e-4)
    updates = math.ceil(len(batches) / accum) * n_epochs
    sched = CosineAnnealingLR(opt, T_max=updates)
    for epoch in range(n_epochs):
        run_epoch(net, batches, opt, sched, accum)
"""

_STEP_IN_LOOP = "            sched.step()\n"
_GUARDED_FLUSH = """    if seen % accum != 0:
        opt.step()
        sched.step()
        opt.zero_grad()
"""


def _leftover(inner: str, flush: str) -> str:
    return _LEFTOVER.format(inner=inner, flush=flush)


def test_leftover_update_stepped_after_the_batch_loop_is_quiet() -> None:
    assert "LRD003" not in codes(_leftover(_STEP_IN_LOOP, _GUARDED_FLUSH))


def test_leftover_update_under_two_tests_is_quiet() -> None:
    flush = _GUARDED_FLUSH.replace("if seen % accum != 0:", "if seen > 0 and seen % accum != 0:")
    assert "LRD003" not in codes(_leftover(_STEP_IN_LOOP, flush))


def test_epoch_step_beside_a_leftover_update_with_no_step_in_the_batch_loop_is_reported() -> None:
    # the batch loop never steps the schedule: it advances once per epoch only
    assert "LRD003" in codes(_leftover("", _GUARDED_FLUSH))


def test_epoch_step_with_no_update_of_its_own_is_reported() -> None:
    flush = """    if seen % accum != 0:
        sched.step()
"""
    found = codes(_leftover("", flush))
    assert "LRD003" in found


def test_plain_epoch_step_of_a_schedule_counted_in_updates_is_reported() -> None:
    src = _leftover("", "").replace(
        "        run_epoch(net, batches, opt, sched, accum)\n",
        "        run_epoch(net, batches, opt, sched, accum)\n        sched.step()\n")
    assert "LRD003" in codes(src)
