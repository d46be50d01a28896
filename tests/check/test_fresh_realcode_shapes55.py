"""A shape probed from the fresh-2026-12yi batch (rcnew55, bench/realcode/README.md).

Programs written for these tests; no third-party code.

A LambdaLR whose factor divides its own step count by the count of the loop around the batch
loop (``0.5 * (1 + cos(pi * s / n_rounds))`` inside ``for r in range(n_rounds): for batch in
loader:``), stepped after every update, is told the number of updates but sized by the number
of passes of that outer loop: its cosine is over after ``n_rounds`` updates and then turns
back up (LRD002). lrdoctor missed it when the factor also reads a warm-up counted in updates
(the horizon reader takes the update unit then, and nothing compared the cosine's divisor with
the loop around). The divisor is read as written, through a helper's parameter to what its
caller handed it, or through the one name bound to it where the scheduler is built. Silent: the divisor multiplied by the batches of a pass, a divisor that is
no loop's count, the step taken once per pass of the outer loop, a batch loop that runs once a
pass, and a factor that divides something other than its step count by the outer count.
"""

from __future__ import annotations

import textwrap

from .helpers import findings

SCRIPT = """
import argparse
import math

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--rounds", type=int, default=300)
parser.add_argument("--ramp_updates", type=int, default=500)
parser.add_argument("--total_updates", type=int, default=90000)
args = parser.parse_args()


def run(samples):
    net = torch.nn.Linear(6, 2)
    feed = DataLoader(samples, batch_size=8, shuffle=True)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-4)
    plan = torch.optim.lr_scheduler.LambdaLR(
        opt, lr_lambda=lambda k: min((k + 1) / args.ramp_updates, 1.0) * {factor})
    for r in range(args.rounds):
        for x, y in {batches}:
            opt.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
{inner_step}
{outer_step}
"""

COSINE_OVER_ROUNDS = "0.5 * (1 + math.cos(math.pi * k / args.rounds))"
INNER = "            plan.step()"
OUTER = "        plan.step()"


def _script(factor: str = COSINE_OVER_ROUNDS, batches: str = "feed", inner: str = INNER,
            outer: str = "") -> str:
    return SCRIPT.format(factor=factor, batches=batches, inner_step=inner, outer_step=outer)


def _line_of(source: str, text: str) -> int:
    return next(n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1)
                if line.strip() == text)


def _lrd002(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD002"]


def test_cosine_over_the_outer_count_stepped_per_batch_is_reported() -> None:
    source = _script()
    assert _lrd002(source) == [_line_of(source, "plan.step()")]


def test_linear_decay_over_the_outer_count_per_batch_is_reported() -> None:
    source = _script(factor="max(0.0, 1.0 - k / args.rounds)")
    assert _lrd002(source) == [_line_of(source, "plan.step()")]


def test_divisor_times_the_batches_of_a_pass_is_silent() -> None:
    assert _lrd002(_script(
        factor="0.5 * (1 + math.cos(math.pi * k / (args.rounds * len(feed))))")) == []


def test_divisor_that_is_no_loop_count_is_silent() -> None:
    assert _lrd002(_script(
        factor="0.5 * (1 + math.cos(math.pi * k / args.total_updates))")) == []


def test_step_once_per_pass_of_the_outer_loop_is_silent() -> None:
    assert _lrd002(_script(inner="", outer=OUTER)) == []


def test_batch_loop_that_runs_once_a_pass_is_silent() -> None:
    assert _lrd002(_script(batches="[next(iter(feed))]")) == []


def test_outer_count_dividing_something_else_is_silent() -> None:
    # the factor's own count is divided by a count of updates; the outer count only scales
    assert _lrd002(_script(
        factor="0.5 * (1 + math.cos(math.pi * k / args.total_updates)) * (args.rounds / 300)")) \
        == []


# a function of the module as the factor, the count handed to the builder ----------------------

HANDED = """
import math

import torch
from torch.utils.data import DataLoader

WARM = 200


def schedule_for(opt, horizon):
    def factor(update):
        ramp = min(1.0, (update + 1) / WARM)
        return ramp * 0.5 * (1.0 + math.cos(math.pi * update / horizon))
    return torch.optim.lr_scheduler.LambdaLR(opt, factor)


def fit(net, samples, passes=40):
    feed = DataLoader(samples, batch_size=16, shuffle=True)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    sched = schedule_for(opt, {horizon})
    for p in range(passes):
        for x, y in feed:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""


def test_factor_built_in_a_helper_handed_the_outer_count_is_reported() -> None:
    source = HANDED.format(horizon="passes")
    assert _lrd002(source) == [_line_of(source, "sched.step()")]


def test_factor_built_in_a_helper_handed_a_count_of_updates_is_silent() -> None:
    assert _lrd002(HANDED.format(horizon="passes * len(feed)")) == []


# the divisor through one name bound where the scheduler is built -------------------------------

BOUND = """
import math

import torch
from torch.utils.data import DataLoader


def fit(net, samples, cycles=60):
    feed = DataLoader(samples, batch_size=16, shuffle=True)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    span = {span}
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda n: min(1.0, (n + 1) / 100) * 0.5 * (1.0 + math.cos(math.pi * n / span)))
    for c in range(cycles):
        for x, y in feed:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""


def test_divisor_bound_to_the_outer_count_is_reported() -> None:
    source = BOUND.format(span="cycles")
    assert _lrd002(source) == [_line_of(source, "sched.step()")]


def test_divisor_bound_to_a_count_of_updates_is_silent() -> None:
    assert _lrd002(BOUND.format(span="cycles * len(feed)")) == []
