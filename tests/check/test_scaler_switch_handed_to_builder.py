"""A GradScaler built by the project's own function from a switch it is handed
(``def make_scaler(enabled): return torch.amp.GradScaler("cuda", enabled=enabled)`` called
with ``enabled=args.amp``): lead61, from metamorphic.py's ``factory`` rewrite. The finding was
kept but named the builder's parameter ("when `enabled` is on"), which tells the user nothing;
it names the caller's setting now. A literal handed in still decides it."""

from __future__ import annotations

import pytest

from .helpers import findings, messages

PROGRAM = """
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
args = parser.parse_args()


def make_scaler(device, enabled):
    return torch.amp.GradScaler(device, enabled=enabled)


model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=1000)
scaler = make_scaler("cuda", enabled={given})
loader = [(torch.randn(8, 4), torch.randn(8, 1))] * 10
for epoch in range(100):
    for x, y in loader:
        with torch.autocast("cuda", enabled={given}):
            loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""


def test_the_message_names_the_setting_the_caller_handed_in() -> None:
    source = PROGRAM.format(given="args.amp")
    assert findings(source) == [("LRD005", 28)]
    assert messages(source)[0].startswith("When `args.amp` is on, `scheduler.step()` runs")


@pytest.mark.parametrize("given, found", [("True", [("LRD005", 28)]), ("False", [])])
def test_a_literal_handed_in_decides_the_switch(given: str, found: list[tuple[str, int]]) -> None:
    assert findings(PROGRAM.format(given=given)) == found
