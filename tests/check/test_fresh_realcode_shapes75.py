"""Shapes behind the dev miss of the fresh-2026-12zb batch (rcnew75, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A builder picks the scheduler by a string option (``if opts.decay == "exp": ExponentialLR``
  / ``elif opts.decay == "steps": MultiStepLR`` / ``elif opts.decay == "poly": LambdaLR``),
  the option's argparse default (in another module of the project) names one of them, and the
  epoch function logs ``sched.get_lr()[0]``. lrdoctor stayed silent on any ``get_lr()`` of a
  scheduler chosen among several unless every option was a chainable torch scheduler, since
  which one runs is not in the file. Python: with the default the script states, the builder
  returns the MultiStepLR, whose ``get_lr()`` outside ``step()`` multiplies by gamma again at
  every milestone epoch: the logged LR is wrong in the run as written (LRD015). Silent twins:
  the default names the closed-form LambdaLR; the option has no default in sight; the default
  names an option whose test another branch before it also matches.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

OPTIONS = """
import argparse

opts_parser = argparse.ArgumentParser()
opts_parser.add_argument("--decay", type=str, default={default})
opts_parser.add_argument("--base_lr", type=float, default=1e-3)
opts_parser.add_argument("--n_epochs", type=int, default=30)
"""

DRIVER = """
import math

import torch
import torch.nn as nn

from options import opts_parser


def build_decay(optimizer, opts):
    if opts.decay == "exp":
        sched = torch.optim.lr_scheduler.ExponentialLR(optimizer, 0.95)
    elif opts.decay == "steps":
        sched = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20], gamma=0.1)
    elif opts.decay == "poly":
        sched = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda e: math.pow(1 - e / opts.n_epochs, 0.9))
    else:
        raise ValueError(opts.decay)
    return sched


def one_epoch(net, optimizer, sched, batches):
    for i, (x, y) in enumerate(batches):
        optimizer.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        optimizer.step()
        if i % 50 == 0:
            print("lr", sched.get_lr()[0], "loss", loss.item())
    sched.step()


def main():
    opts = opts_parser.parse_args()
    net = nn.Linear(4, 1)
    optimizer = torch.optim.Adam(net.parameters(), lr=opts.base_lr)
    sched = build_decay(optimizer, opts)
    batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(200)]
    for epoch in range(opts.n_epochs):
        one_epoch(net, optimizer, sched, batches)


if __name__ == "__main__":
    main()
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default: str,
             driver: str = DRIVER) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "options.py": OPTIONS.format(default=default),
        "train.py": driver,
    })
    return project_codes(found)


def test_get_lr_of_the_chainable_scheduler_the_default_picks_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD015" in _project(tmp_path, monkeypatch, '"steps"')


def test_get_lr_of_the_closed_form_scheduler_the_default_picks_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD015" not in _project(tmp_path, monkeypatch, '"poly"')


def test_get_lr_of_a_choice_with_no_stated_default_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "LRD015" not in _project(tmp_path, monkeypatch, "None")


def test_get_lr_when_an_earlier_branch_also_matches_the_default_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `"steps"` is caught first by a branch building the closed-form LambdaLR
    shadowed = DRIVER.replace(
        '    if opts.decay == "exp":\n',
        '    if opts.decay in ("steps", "poly"):\n'
        "        sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.5 ** e)\n"
        '    elif opts.decay == "exp":\n')
    assert "LRD015" not in _project(tmp_path, monkeypatch, '"steps"', shadowed)


SINGLE_FILE = """
import argparse
import math

import torch
import torch.nn as nn

parser = argparse.ArgumentParser()
parser.add_argument("--decay", default={default})
args = parser.parse_args()

net = nn.Linear(4, 1)
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
if args.decay == "steps":
    sched = torch.optim.lr_scheduler.StepLR(optimizer, step_size=5, gamma=0.5)
else:
    sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: math.exp(-0.1 * e))
for epoch in range(20):
    for _ in range(100):
        optimizer.zero_grad()
        net(torch.randn(2, 4)).sum().backward()
        optimizer.step()
    sched.step()
    print(epoch, sched.get_lr())
"""


def test_get_lr_of_the_default_branch_in_one_script_is_found() -> None:
    assert "LRD015" in codes(SINGLE_FILE.format(default='"steps"'))


def test_get_lr_of_the_else_branch_the_default_reaches_is_silent() -> None:
    assert "LRD015" not in codes(SINGLE_FILE.format(default='"cosine"'))
