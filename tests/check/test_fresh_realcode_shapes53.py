"""A shape probed from the fresh-2026-12yg batch (rcnew53, bench/realcode/README.md).

Programs written for these tests; no third-party code.

A hand-written scheduler that is no torch LRScheduler (a class of the project's own whose
method advances a count of its own, ``self.calls += 1``, and writes every param group's LR
from it) stepped on every micro-batch while the optimizer steps once every ``k``
micro-batches runs ahead of the updates exactly as a built-in one does (LRD017): the warm-up
ends ``k`` times too early. lrdoctor knew only torch's schedulers there. Silent: the same
class stepped inside the accumulation block, no accumulation at all, a function handed the
position (``set_lr(opt, epoch + i / n)``: writing the same value twice advances nothing), a
method that takes the count from its caller (``self.calls = it``), and a step under a period
of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings

RAMP = """
import argparse

import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--accumulate", type=int, default=4)
parser.add_argument("--ramp", type=int, default=2000)
parser.add_argument("--epochs", type=int, default=20)
args = parser.parse_args()


class RampThenDecay:
    def __init__(self, opt, width, ramp):
        self.opt = opt
        self.scale = width ** -0.5
        self.ramp = ramp
        self.calls = 0

    def advance(self):
        self.calls += 1
        value = self.scale * min(self.calls ** -0.5, self.calls * self.ramp ** -1.5)
        for group in self.opt.param_groups:
            group["lr"] = value


def main(data):
    net = torch.nn.Linear(8, 1)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    ramp = RampThenDecay(opt, 256, args.ramp)
    batches = DataLoader(data, batch_size=16, shuffle=True)
    for epoch in range(args.epochs):
        for i, (inputs, targets) in enumerate(batches):
{body}
"""

PER_MICRO_BATCH = """            ramp.advance()
            loss = torch.nn.functional.mse_loss(net(inputs), targets) / args.accumulate
            loss.backward()
            if (i + 1) % args.accumulate == 0:
                opt.step()
                opt.zero_grad()"""

PER_UPDATE = """            loss = torch.nn.functional.mse_loss(net(inputs), targets) / args.accumulate
            loss.backward()
            if (i + 1) % args.accumulate == 0:
                opt.step()
                ramp.advance()
                opt.zero_grad()"""

NO_ACCUMULATION = """            ramp.advance()
            loss = torch.nn.functional.mse_loss(net(inputs), targets)
            loss.backward()
            opt.step()
            opt.zero_grad()"""

OWN_PERIOD = """            if i % 50 == 0:
                ramp.advance()
            loss = torch.nn.functional.mse_loss(net(inputs), targets) / args.accumulate
            loss.backward()
            if (i + 1) % args.accumulate == 0:
                opt.step()
                opt.zero_grad()"""


def _line_of(source: str, text: str) -> int:
    import textwrap
    return next(n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1)
                if line.strip() == text)


def test_counting_writer_per_micro_batch_is_reported() -> None:
    source = RAMP.format(body=PER_MICRO_BATCH)
    assert ("LRD017", _line_of(source, "ramp.advance()")) in findings(source)


def test_counting_writer_in_the_accumulation_block_is_silent() -> None:
    assert "LRD017" not in [c for c, _ in findings(RAMP.format(body=PER_UPDATE))]


def test_counting_writer_without_accumulation_is_silent() -> None:
    assert "LRD017" not in [c for c, _ in findings(RAMP.format(body=NO_ACCUMULATION))]


def test_counting_writer_on_a_period_of_its_own_is_silent() -> None:
    assert "LRD017" not in [c for c, _ in findings(RAMP.format(body=OWN_PERIOD))]


TOLD_THE_COUNT = RAMP.replace(
    """    def advance(self):
        self.calls += 1
""",
    """    def advance(self, calls):
        self.calls = calls
""").replace("ramp.advance()", "ramp.advance(epoch * len(batches) + i + 1)")


def test_writer_told_the_count_is_silent() -> None:
    assert "LRD017" not in [c for c, _ in findings(TOLD_THE_COUNT.format(body=PER_MICRO_BATCH))]


POSITION_FUNCTION = """
import torch
from torch.utils.data import DataLoader

ACCUMULATE = 4


def set_lr(opt, position, base=1e-3, epochs=20):
    value = base * (1.0 - position / epochs)
    for group in opt.param_groups:
        group["lr"] = value


def main(data, epochs=20):
    net = torch.nn.Linear(8, 1)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    batches = DataLoader(data, batch_size=16, shuffle=True)
    for epoch in range(epochs):
        for i, (inputs, targets) in enumerate(batches):
            set_lr(opt, epoch + i / len(batches))
            loss = torch.nn.functional.mse_loss(net(inputs), targets) / ACCUMULATE
            loss.backward()
            if (i + 1) % ACCUMULATE == 0:
                opt.step()
                opt.zero_grad()
"""


def test_position_function_per_micro_batch_is_silent() -> None:
    assert "LRD017" not in [c for c, _ in findings(POSITION_FUNCTION)]


# the class in a module of the project, the loop in a trainer method ---------------------------

SCHEDULES_MODULE = """
class StepCounted:
    def __init__(self, optimizer, peak, ramp):
        self.optimizer = optimizer
        self.peak = peak
        self.ramp = ramp
        self.seen = 0

    def tick(self):
        self.seen += 1
        factor = min(1.0, self.seen / self.ramp)
        for group in self.optimizer.param_groups:
            group["lr"] = self.peak * factor
"""

TRAINER_MODULE = """
import torch
from torch.utils.data import DataLoader

from schedules import StepCounted


class Trainer:
    def __init__(self, net, data, accum_steps=8):
        self.net = net
        self.loader = DataLoader(data, batch_size=32, shuffle=True)
        self.opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
        self.warm = StepCounted(self.opt, 3e-4, 1000)
        self.accum_steps = accum_steps

    def fit(self, epochs):
        for epoch in range(epochs):
            for step, (x, y) in enumerate(self.loader):
                self.warm.tick()
                loss = torch.nn.functional.mse_loss(self.net(x), y) / self.accum_steps
                loss.backward()
                if (step + 1) % self.accum_steps == 0:
                    self.opt.step()
                    self.opt.zero_grad()


if __name__ == "__main__":
    Trainer(torch.nn.Linear(4, 1), []).fit(10)
"""


def test_counting_writer_from_a_project_module(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"schedules.py": SCHEDULES_MODULE,
                                                  "train.py": TRAINER_MODULE})
    assert ("train.py", _line_of(TRAINER_MODULE, "self.warm.tick()"), "LRD017") in found


def test_counting_writer_from_a_project_module_per_update(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    guarded = TRAINER_MODULE.replace(
        "                self.warm.tick()\n", "").replace(
        "                    self.opt.step()\n",
        "                    self.opt.step()\n                    self.warm.tick()\n")
    found = check_project(tmp_path, monkeypatch, {"schedules.py": SCHEDULES_MODULE,
                                                  "train.py": guarded})
    assert [f for f in found if f[2] == "LRD017"] == []
