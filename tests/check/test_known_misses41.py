"""LRD014 asks whether the stale step can run on the replacement's path.

Programs written for these tests; no third-party code.

`if args.swa: optimizer = SGD(...)` replaces the optimizer a StepLR was built on, and the epoch
loop steps the StepLR only under `if not args.swa:`. With `--swa` the StepLR never steps; without
it nothing was replaced: the schedule always drives the optimizer being stepped. LRD014 reported
it (a stale scheduler stepped after a replacement), without asking whether the step and the
replacement can both run. Now a step in the same call as the replacement, on a branch exclusive
with it (the same flag, nothing rebound between, the other way), is not stale; where a loop holds
both, the next pass may take the other branch, so that stays reported, as do a step on the
replacement's own branch, an unguarded one, and one under another setting.
"""

from __future__ import annotations

from .helpers import codes

SWA = """
import argparse

import torch


def main(args):
    model = torch.nn.Linear(4, 1)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
    if args.swa:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for epoch in range(30):
        for x in loader:
            optimizer.zero_grad()
            model(x).pow(2).mean().backward()
            optimizer.step()
        if GUARD:
            scheduler.step()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--swa", action="store_true")
    ap.add_argument("--decay", action="store_true")
    main(ap.parse_args())
"""


def swa(guard: str) -> str:
    return SWA.replace("GUARD", guard)


def test_a_step_only_where_nothing_was_replaced_is_no_finding() -> None:
    assert codes(swa("not args.swa")) == []


def test_a_step_on_the_replacements_own_branch_is_lrd014() -> None:
    assert codes(swa("args.swa")) == ["LRD014"]


def test_an_unguarded_step_is_lrd014() -> None:
    assert codes(swa("True")) == ["LRD014"]


def test_a_step_under_another_setting_is_lrd014() -> None:
    assert codes(swa("not args.decay")) == ["LRD014"]


def test_a_replacement_inside_the_loop_that_steps_is_still_lrd014() -> None:
    # replaced in one pass, stepped in the next: exclusive within a pass is not enough
    source = swa("not epoch % 2").replace(
        "    if args.swa:\n        optimizer = torch.optim.SGD(model.parameters(), lr=0.05)\n"
        "    for epoch in range(30):\n",
        "    for epoch in range(30):\n        if epoch % 2:\n"
        "            optimizer = torch.optim.SGD(model.parameters(), lr=0.05)\n")
    assert "if epoch % 2:" in source
    assert codes(source) == ["LRD014"]
