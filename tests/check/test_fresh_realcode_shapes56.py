"""A shape probed from the fresh-2026-12yj batch (rcnew56, bench/realcode/README.md).

Programs written for these tests; no third-party code.

A schedule that ends (CosineAnnealingLR, PolynomialLR, OneCycleLR with ``total_steps``) built
once, before a loop that runs a counted training loop again on every pass - cross-validation
folds, rounds of an alternating trainer, a trainer's ``fit()`` called in a loop - and stepped
once per pass of the inner loop, is never started over: it takes outer passes x inner passes
steps and runs past its horizon (LRD010). lrdoctor read each loop alone and was silent.
Silent twins: the scheduler built inside the outer loop, a horizon sized to the whole run, a
single outer pass, an outer count that is not known, an inner loop that may stop early, the
step under a test of the outer pass, the schedule restored at the start of every pass, and a
position handed to ``step(epoch)``.
"""

from __future__ import annotations

from .helpers import findings

FOLDS = """
import torch
from torch.utils.data import DataLoader

FOLDS = 5
EPOCHS = 30


def main(parts):
    net = torch.nn.Linear(6, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
{build}
    for fold in range({folds}):
{per_fold}
        batches = DataLoader(parts[fold], batch_size=32, shuffle=True)
        for epoch in range(EPOCHS):
            for x, y in batches:
                opt.zero_grad()
                torch.nn.functional.mse_loss(net(x), y).backward()
                opt.step()
{step}
"""

BUILT_BEFORE = "    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)"
STEP = "            sched.step()"


def _codes(source: str) -> list[str]:
    return [code for code, _ in findings(source)]


def _line_of(source: str, text: str) -> int:
    import textwrap
    return next(n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1)
                if line.strip() == text)


def test_cosine_built_before_the_folds_is_reported() -> None:
    source = FOLDS.format(build=BUILT_BEFORE, folds="FOLDS", per_fold="", step=STEP)
    assert ("LRD010", _line_of(source, "sched.step()")) in findings(source)


def test_cosine_built_in_each_fold_is_silent() -> None:
    per_fold = "        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)"
    source = FOLDS.format(build="", folds="FOLDS", per_fold=per_fold, step=STEP)
    assert "LRD010" not in _codes(source)


def test_horizon_sized_to_every_fold_is_silent() -> None:
    build = "    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=FOLDS * EPOCHS)"
    source = FOLDS.format(build=build, folds="FOLDS", per_fold="", step=STEP)
    assert "LRD010" not in _codes(source)


def test_a_single_fold_is_silent() -> None:
    source = FOLDS.format(build=BUILT_BEFORE, folds="1", per_fold="", step=STEP)
    assert "LRD010" not in _codes(source)


def test_fold_count_not_known_is_silent() -> None:
    source = FOLDS.format(build=BUILT_BEFORE, folds="len(parts)", per_fold="", step=STEP)
    assert "LRD010" not in _codes(source)


def test_step_in_the_first_fold_only_is_silent() -> None:
    step = "            if fold == 0:\n                sched.step()"
    source = FOLDS.format(build=BUILT_BEFORE, folds="FOLDS", per_fold="", step=step)
    assert "LRD010" not in _codes(source)


def test_schedule_restored_every_fold_is_silent() -> None:
    build = BUILT_BEFORE + "\n    fresh = sched.state_dict()"
    per_fold = "        sched.load_state_dict(fresh)"
    source = FOLDS.format(build=build, folds="FOLDS", per_fold=per_fold, step=STEP)
    assert "LRD010" not in _codes(source)


def test_position_handed_to_step_is_silent() -> None:
    source = FOLDS.format(build=BUILT_BEFORE, folds="FOLDS", per_fold="",
                          step="            sched.step(epoch)")
    assert "LRD010" not in _codes(source)


# rounds of an alternating trainer: the epoch loop in a method, the rounds in the driver --------

ROUNDS = """
import torch
from torch.utils.data import DataLoader


class Stage:
    def __init__(self, net, opt, sched, epochs):
        self.net = net
        self.opt = opt
        self.sched = sched
        self.epochs = epochs

    def run(self, batches, check):
        for epoch in range(self.epochs):
            for x, y in batches:
                self.opt.zero_grad()
                torch.nn.functional.l1_loss(self.net(x), y).backward()
                self.opt.step()
{stop}
            self.sched.step()


def main(data, check):
    net = torch.nn.Linear(6, 1)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters={horizon}, power=2.0)
    stage = Stage(net, opt, sched, 4)
    batches = DataLoader(data, batch_size=64)
    for round_no in range(6):
        stage.run(batches, check)
"""


def test_schedule_shared_by_every_round_is_reported() -> None:
    source = ROUNDS.format(horizon=12, stop="")
    assert ("LRD010", _line_of(source, "self.sched.step()")) in findings(source)


def test_schedule_sized_to_all_rounds_is_silent() -> None:
    assert "LRD010" not in _codes(ROUNDS.format(horizon=24, stop=""))


def test_rounds_that_may_stop_early_are_silent() -> None:
    stop = "            if check(self.net):\n                break"
    assert "LRD010" not in _codes(ROUNDS.format(horizon=12, stop=stop))


# an iteration-counted OneCycleLR restarted by an outer loop of cycles ---------------------------

CYCLES = """
import torch

ITERS = 2000


def main(sample):
    net = torch.nn.Linear(6, 1)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps={total})
    for cycle in range(3):
        for it in range(ITERS):
            x, y = sample()
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""


def test_one_cycle_run_again_by_an_outer_loop_is_reported() -> None:
    source = CYCLES.format(total="ITERS")
    assert ("LRD010", _line_of(source, "sched.step()")) in findings(source)


def test_one_cycle_sized_to_all_cycles_is_silent() -> None:
    assert "LRD010" not in _codes(CYCLES.format(total="3 * ITERS"))
