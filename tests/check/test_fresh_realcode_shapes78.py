"""Shapes behind the dev miss of the fresh-2026-12ze78 batch (rcnew78, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A factory returns one of several schedulers (a cosine sized to the run's epochs, a plateau,
  or None) by a setting. The epoch helper steps it at its end when it is there and is no
  plateau; the epoch loop steps it again after validation (`if sched is not None:` then the
  plateau with a metric, any other class without). Every step sat under a test inside the
  loop, and LRD010's several-sites rule needs one step that runs on every pass, so it said
  nothing. Python: those tests read only the stepped scheduler itself (is it there, which
  class is it), which never changes from pass to pass; for the cosine both tests pass on
  every pass, so it is stepped twice an epoch, reaches eta_min halfway through the run and
  climbs back up. A test settled by the scheduler's own identity and class now counts as
  passing for that scheduler; a test on anything else (a flag, an argument of the helper)
  and a class test that excludes the scheduler stay conditions.
"""

from __future__ import annotations

from .helpers import codes, messages

_FACTORY = """
import torch
from torch.optim import lr_scheduler

net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


def pick_schedule(optimizer, cfg):
    if cfg.schedule == "cosine":
        return lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    if cfg.schedule == "plateau":
        return lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", patience=2)
    return None


def evaluate():
    return 0.5
"""

BOTH_STEP_NON_PLATEAU = _FACTORY + """

def one_epoch(optimizer, sched):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    if sched is not None and not isinstance(sched, lr_scheduler.ReduceLROnPlateau):
        sched.step()


def fit(cfg):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = pick_schedule(optimizer, cfg)
    for epoch in range(cfg.epochs):
        one_epoch(optimizer, sched)
        score = evaluate()
        if sched is not None:
            if isinstance(sched, lr_scheduler.ReduceLROnPlateau):
                sched.step(score)
            else:
                sched.step()
"""

LOOP_STEPS_ONLY_THE_PLATEAU = _FACTORY + """

def one_epoch(optimizer, sched):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    if sched is not None and not isinstance(sched, lr_scheduler.ReduceLROnPlateau):
        sched.step()


def fit(cfg):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = pick_schedule(optimizer, cfg)
    for epoch in range(cfg.epochs):
        one_epoch(optimizer, sched)
        score = evaluate()
        if sched is not None and isinstance(sched, lr_scheduler.ReduceLROnPlateau):
            sched.step(score)
"""

OPTIONAL_COSINE_STEPPED_TWICE = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


def run_epoch(optimizer, scheduler):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    if scheduler:
        scheduler.step()


def main(args):
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs) if args.cosine else None
    for epoch in range(args.epochs):
        run_epoch(optimizer, scheduler)
        if scheduler is not None:
            scheduler.step()
"""

HELPER_STEPS_ON_REQUEST = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


def run_epoch(optimizer, scheduler, step_schedule):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    if scheduler is not None and step_schedule:
        scheduler.step()


def main(args):
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
    scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs) if args.cosine else None
    for epoch in range(args.epochs):
        run_epoch(optimizer, scheduler, args.step_inside)
        if scheduler is not None and not args.step_inside:
            scheduler.step()
"""

CLASS_TEST_SENDS_THE_COSINE_ELSEWHERE = _FACTORY + """

def one_epoch(optimizer, sched):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    if isinstance(sched, lr_scheduler.CosineAnnealingLR):
        sched.step()


def fit(cfg):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = pick_schedule(optimizer, cfg)
    for epoch in range(cfg.epochs):
        one_epoch(optimizer, sched)
        score = evaluate()
        if sched is None:
            continue
        if isinstance(sched, lr_scheduler.ReduceLROnPlateau):
            sched.step(score)
        elif not isinstance(sched, lr_scheduler.CosineAnnealingLR):
            sched.step()
"""


def test_factory_cosine_stepped_by_the_helper_and_the_loop_overruns() -> None:
    found = messages(BOTH_STEP_NON_PLATEAU)
    assert codes(BOTH_STEP_NON_PLATEAU).count("LRD010") == 1
    assert any("up to 2 times a pass" in m for m in found)


def test_loop_stepping_only_the_plateau_is_silent() -> None:
    assert "LRD010" not in codes(LOOP_STEPS_ONLY_THE_PLATEAU)


def test_optional_cosine_stepped_under_existence_tests_twice_overruns() -> None:
    assert "LRD010" in codes(OPTIONAL_COSINE_STEPPED_TWICE)


def test_helper_step_under_a_flag_the_loop_negates_is_silent() -> None:
    assert "LRD010" not in codes(HELPER_STEPS_ON_REQUEST)


def test_class_tests_sending_the_cosine_to_one_step_are_silent() -> None:
    assert "LRD010" not in codes(CLASS_TEST_SENDS_THE_COSINE_ELSEWHERE)


# Further spellings of the same family, probed in our own words after the fix.

TRAINER_ATTRIBUTE_STEPPED_IN_METHOD_AND_LOOP = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class Runner:
    def __init__(self, net, epochs, use_cosine):
        self.net = net
        self.epochs = epochs
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
        self.sched = CosineAnnealingLR(self.opt, T_max=self.epochs) if use_cosine else None
        self.batches = [torch.randn(4, 8) for _ in range(5)]

    def train_one_epoch(self):
        for x in self.batches:
            self.opt.zero_grad()
            self.net(x).pow(2).mean().backward()
            self.opt.step()
        if self.sched:
            self.sched.step()

    def fit(self):
        for epoch in range(self.epochs):
            self.train_one_epoch()
            if self.sched is not None:
                self.sched.step()


Runner(torch.nn.Linear(8, 1), 30, True).fit()
"""

TYPE_TESTS_ROUTE_THE_POLYNOMIAL_TO_BOTH_STEPS = """
import torch
from torch.optim import lr_scheduler

net = torch.nn.Linear(8, 1)
batches = [torch.randn(4, 8) for _ in range(5)]


def build(opt, kind, epochs):
    if kind == "poly":
        return lr_scheduler.PolynomialLR(opt, total_iters=epochs, power=2.0)
    return lr_scheduler.ReduceLROnPlateau(opt)


def epoch_pass(opt, sched):
    for x in batches:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    if type(sched) is not lr_scheduler.ReduceLROnPlateau:
        sched.step()


def main(kind, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = build(opt, kind, epochs)
    for epoch in range(epochs):
        epoch_pass(opt, sched)
        if type(sched) == lr_scheduler.ReduceLROnPlateau:
            sched.step(0.1)
        else:
            sched.step()


main("poly", 40)
"""

TWO_STEPS_IN_ONE_LOOP_BODY = """
import argparse
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=50)
args = p.parse_args()
net = torch.nn.Linear(8, 1)
batches = [torch.randn(4, 8) for _ in range(5)]
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = CosineAnnealingLR(opt, T_max=args.epochs)
for epoch in range(args.epochs):
    for x in batches:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    sched.step()
    held_out = 0.0
    if sched is not None:
        sched.step()
"""

STEPS_SPLIT_BY_THE_EPOCH_INDEX = """
import argparse
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=50)
p.add_argument("--warmup", type=int, default=5)
args = p.parse_args()
net = torch.nn.Linear(8, 1)
batches = [torch.randn(4, 8) for _ in range(5)]
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = CosineAnnealingLR(opt, T_max=args.epochs)


def train(opt, sched, epoch):
    for x in batches:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    if sched is not None and epoch >= args.warmup:
        sched.step()


for epoch in range(args.epochs):
    train(opt, sched, epoch)
    if sched is not None and epoch < args.warmup:
        sched.step()
"""

BASE_CLASS_TEST_IS_NOT_JUDGED = _FACTORY + """

def one_epoch(optimizer, sched):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    if isinstance(sched, lr_scheduler.LRScheduler):
        sched.step()


def fit(cfg):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = pick_schedule(optimizer, cfg)
    for epoch in range(cfg.epochs):
        one_epoch(optimizer, sched)
        if isinstance(sched, lr_scheduler.LRScheduler):
            sched.step()
"""


def test_trainer_attribute_stepped_by_a_method_and_the_loop_overruns() -> None:
    assert "LRD010" in codes(TRAINER_ATTRIBUTE_STEPPED_IN_METHOD_AND_LOOP)


def test_type_tests_routing_the_polynomial_to_both_steps_overrun() -> None:
    assert "LRD010" in codes(TYPE_TESTS_ROUTE_THE_POLYNOMIAL_TO_BOTH_STEPS)


def test_two_steps_in_one_loop_body_overrun_and_name_both_lines() -> None:
    found = [m for m in messages(TWO_STEPS_IN_ONE_LOOP_BODY) if "times a pass" in m]
    assert found and "lines 18, 21" in found[0] and "in one place" in found[0]


def test_steps_split_by_the_epoch_index_are_silent() -> None:
    assert "LRD010" not in codes(STEPS_SPLIT_BY_THE_EPOCH_INDEX)


def test_a_test_on_a_base_class_is_left_a_condition() -> None:
    assert "LRD010" not in codes(BASE_CLASS_TEST_IS_NOT_JUDGED)
