"""LRD010 at the epoch level (the lead, session 46, found by probing in our own words): a
CosineAnnealingLR stepped once per epoch for more epochs than its T_max climbs back up for the
last of them. The usual way in: a warm-up subtracted from the horizon (`T_max=epochs -
warmup`) or added to the loop (`range(warmup + epochs)`) that nothing holds the cosine back
for. Judged only where the two counts share a setting that cancels out, or are both stated
numbers."""

from __future__ import annotations

from .helpers import codes, messages

HEAD = """
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=20)
parser.add_argument("--warmup_epochs", type=int, default=5)
parser.add_argument("--t_max", type=int, default=20)
parser.add_argument("--start_epoch", type=int, default=0)
args = parser.parse_args()
model = nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 8)),
                                     batch_size=4)
"""


def program(sched: str, loop: str, step: str = "scheduler.step()") -> str:
    return HEAD + f"""
scheduler = {sched}
for epoch in {loop}:
    for (x,) in loader:
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    {step}
"""


COSINE = "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={})"


def test_warmup_subtracted_from_the_horizon_is_found() -> None:
    source = program(COSINE.format("args.epochs - args.warmup_epochs"), "range(args.epochs)")
    assert "LRD010" in codes(source)
    found = [m for m in messages(source) if "more epochs than T_max" in m]
    assert "`args.warmup_epochs`" in found[0] and "5 by default" in found[0], found


def test_warmup_added_to_the_loop_is_found() -> None:
    assert "LRD010" in codes(program(COSINE.format("args.epochs"),
                                     "range(args.warmup_epochs + args.epochs)"))


def test_stated_numbers_are_found() -> None:
    assert "LRD010" in codes(program(COSINE.format("50"), "range(60)"))


def test_cosine_held_back_during_the_warmup_is_silent() -> None:
    source = program(COSINE.format("args.epochs - args.warmup_epochs"), "range(args.epochs)",
                     "if epoch >= args.warmup_epochs:\n        scheduler.step()")
    assert "LRD010" not in codes(source)


def test_sequential_warmup_is_silent() -> None:
    sched = ("torch.optim.lr_scheduler.SequentialLR(optimizer, [torch.optim.lr_scheduler."
             "LinearLR(optimizer, 0.1, total_iters=args.warmup_epochs), "
             + COSINE.format("args.epochs - args.warmup_epochs")
             + "], milestones=[args.warmup_epochs])")
    assert "LRD010" not in codes(program(sched, "range(args.epochs)"))


def test_horizon_sized_to_the_loop_is_silent() -> None:
    assert "LRD010" not in codes(program(COSINE.format("args.epochs"), "range(args.epochs)"))
    assert "LRD010" not in codes(program(COSINE.format("args.epochs"),
                                         "range(1, args.epochs + 1)"))


def test_unrelated_settings_are_the_runs_choice() -> None:
    # --t_max and --epochs are two settings a run may set apart: no finding on the defaults
    assert "LRD010" not in codes(program(COSINE.format("args.t_max"),
                                         "range(args.epochs + 10)"))


def test_resumed_start_is_silent() -> None:
    assert "LRD010" not in codes(program(COSINE.format("args.epochs - args.warmup_epochs"),
                                         "range(args.start_epoch, args.epochs)"))


def test_early_stopping_is_silent() -> None:
    source = program(COSINE.format("args.epochs - args.warmup_epochs"), "range(args.epochs)",
                     "scheduler.step()\n    if optimizer.param_groups[0]['lr'] < 1e-6:\n"
                     "        break")
    assert "LRD010" not in codes(source)


def test_found_in_a_main_function_under_the_main_guard() -> None:
    source = """
import argparse

import torch
from torch import nn


def main(args):
    model = nn.Linear(8, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
        optimizer, T_max=args.epochs - args.warmup_epochs)
    for epoch in range(args.epochs):
        for x in [torch.randn(4, 8)] * 8:
            optimizer.zero_grad()
            model(x).pow(2).mean().backward()
            optimizer.step()
        scheduler.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--warmup_epochs", type=int, default=10)
    main(parser.parse_args())
"""
    assert "LRD010" in codes(source)


def test_one_option_of_a_settings_choice_is_left_to_the_setting() -> None:
    # built only when `--sched cosine` is given (the default builds a StepLR): whether the
    # run builds the short cosine is the setting's, not the code's
    source = HEAD.replace('"--t_max"', '"--sched"').replace("type=int, default=20)\n"
                                                          "parser.add_argument(\"--start",
                                                          "default=\"step\")\n"
                                                          "parser.add_argument(\"--start")
    source += """
if args.sched == "cosine":
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=50)
else:
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
for epoch in range(60):
    for (x,) in loader:
        optimizer.zero_grad()
        model(x).pow(2).mean().backward()
        optimizer.step()
    scheduler.step()
"""
    assert "--sched" in source
    assert "LRD010" not in codes(source)
