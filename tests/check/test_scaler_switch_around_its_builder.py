"""The switch of a GradScaler that a project function builds, read where the builder is called
(lead63): ``if args.amp: scaler = make_scaler()`` with ``GradScaler("cuda")`` inside
``make_scaler`` was reported as if always on ("`scheduler.step()` runs every batch even when
..."), the ``if`` around the builder's call unread, while the same program with the
``GradScaler(...)`` written in place says "When `args.amp` is on". A test that also holds
around the scaler's use (``if args.mode == "train": train()``) says when training runs, not
when the scaler exists, and is left out."""

from __future__ import annotations

import pytest

from .helpers import messages

PROGRAM = """
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
parser.add_argument("--mode", default="train")
args = parser.parse_args()


def make_scaler():
    return torch.amp.GradScaler("cuda")


def train():
    model = torch.nn.Linear(4, 2)
    loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1,
                                                    total_steps=30 * len(loader))
{build}
    for epoch in range(30):
        for x in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=args.amp):
                loss = model(x).sum()
            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()
            scheduler.step()


if args.mode == "train":
    train()
"""


@pytest.mark.parametrize("build", [
    "    scaler = None\n    if args.amp:\n        scaler = make_scaler()",
    "    scaler = None\n    if args.amp:\n        scaler = torch.amp.GradScaler('cuda')",
    "    scaler = make_scaler() if args.amp else None",
    "    if not args.amp:\n        scaler = None\n    else:\n        scaler = make_scaler()",
], ids=["builder-under-if", "in-place-under-if", "builder-in-conditional", "builder-in-else"])
def test_lrd005_names_the_switch_once(build: str) -> None:
    (message,) = [m for m in messages(PROGRAM.format(build=build)) if "GradScaler skips" in m]
    assert message.startswith("When `args.amp` is on, `scheduler.step()` runs every batch")


def test_a_builder_called_under_no_switch_is_always_on() -> None:
    (message,) = [m for m in messages(PROGRAM.format(build="    scaler = make_scaler()"))
                  if "GradScaler skips" in m]
    assert message.startswith("`scheduler.step()` runs every batch")
