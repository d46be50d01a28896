"""Known misses and false alarms of `lrdoctor check` on real code (issue 7, fixes8), each fixed
by what the code means, with controls that must still be reported (or stay silent).

Programs written for these tests; no third-party code."""

from __future__ import annotations

import pytest

from .helpers import codes, messages

# 1. An LR range test ("LR finder") is a short throwaway run that sweeps the LR upwards to read a
# loss curve off it. A script that offers one behind a flag builds the finder's scheduler on
# that branch and its training schedulers on the other; the checkpoint of the training run
# owes nothing to the finder's scheduler, and nobody resumes a sweep.

FINDER = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--{flag}", action="store_true")
parser.add_argument("--resume", default="")
args = parser.parse_args()

model = torch.nn.Linear(8, 1)
loader = torch.utils.data.DataLoader(torch.randn(256, 8), batch_size=16)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-5, momentum=0.9)
{build}
if args.resume:
    state = torch.load(args.resume)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    {restore}
for epoch in range(20):
    for step, x in enumerate(loader):
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()
        {per_batch}
    {per_epoch}
    torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                {saved}}}, "last.pt")
"""


def finder_program(flag: str = "lr_finder", build: str = "", restore: str = "pass",
                   per_batch: str = "pass", per_epoch: str = "pass", saved: str = "") -> str:
    return FINDER.format(flag=flag, build=build, restore=restore, per_batch=per_batch,
                         per_epoch=per_epoch, saved=saved)


SWEEP_ELSE = """
if not args.{flag}:
    decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5)
else:
    sweep = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: (1e-1 / 1e-5) ** (it / 300))
"""
STEPS_ELSE = ("if args.{flag}:\n            sweep.step()",
              "if not args.{flag}:\n        decay.step()")


@pytest.mark.parametrize("flag", ["lr_finder", "find_lr", "lr_range_test", "lrfinder"])
def test_finder_scheduler_missing_from_a_checkpoint_that_holds_the_training_one_is_silent(flag):
    per_batch, per_epoch = (s.format(flag=flag) for s in STEPS_ELSE)
    src = finder_program(flag, SWEEP_ELSE.format(flag=flag), "decay.load_state_dict(state['decay'])",
                         per_batch, per_epoch, '"decay": decay.state_dict()')
    assert "LRD007" not in codes(src)


def test_training_scheduler_missing_beside_a_finder_is_still_reported_and_named():
    per_batch, per_epoch = (s.format(flag="lr_finder") for s in STEPS_ELSE)
    src = finder_program("lr_finder", SWEEP_ELSE.format(flag="lr_finder"), "pass",
                         per_batch, per_epoch, "")
    assert "LRD007" in codes(src)
    assert not any("`sweep`" in m for m in messages(src))
    assert any("`decay`" in m for m in messages(src))


def test_finder_chosen_by_a_mode_string_is_silent():
    build = """
if args.mode == "lr_find":
    sweep = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=1.05)
    sweep_on = True
"""
    src = finder_program("mode", build, per_batch="sweep.step()").replace(
        'parser.add_argument("--mode", action="store_true")',
        'parser.add_argument("--mode", default="train")')
    # ExponentialLR is never judged (it scales the LR it finds); a LambdaLR sweep is
    src = src.replace("ExponentialLR(optimizer, gamma=1.05)",
                      "LambdaLR(optimizer, lambda it: 1.05 ** it)")
    assert "LRD007" not in codes(src)


def test_scheduler_named_for_the_finder_is_silent():
    build = ("finder_scheduler = torch.optim.lr_scheduler.LambdaLR(\n"
             "    optimizer, lambda it: (1e-1 / 1e-5) ** (it / 300))")
    src = finder_program("sweep", build, per_batch="finder_scheduler.step()")
    assert "LRD007" not in codes(src)


@pytest.mark.parametrize("test", ["args.cosine", "not args.plain"])
def test_scheduler_built_under_another_flag_and_left_out_is_still_reported(test):
    build = f"""
if {test}:
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: 0.5 ** (it // 100))
"""
    src = finder_program("cosine", build, per_batch=f"if {test}:\n            decay.step()")
    assert "LRD007" in codes(src)


def test_finder_branch_not_taken_builds_the_training_scheduler_which_is_reported():
    # `if not args.lr_finder:` taken: this is the training run's scheduler
    build = """
if not args.lr_finder:
    decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: 0.5 ** (it // 100))
"""
    src = finder_program("lr_finder", build,
                         per_batch="if not args.lr_finder:\n            decay.step()")
    assert "LRD007" in codes(src)
