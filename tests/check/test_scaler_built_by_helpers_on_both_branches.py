"""A GradScaler built by a helper on each branch of a precision switch (lead62, from
metamorphic.py's builder rewrite of a dev case: LRD005 and LRD007 both lost). ``if use_amp:
self.scaler = build(device, enabled=True) else: self.scaler = build(device, enabled=False)``:
after the ``if`` the name held the last branch's object, the disabled one, because a scaler
was read as disabled only when ``enabled=False`` was written in the ``GradScaler(...)`` call
itself, not when a builder's parameter handed it the literal. The working scaler now stands
for the name, as it does when the two ``GradScaler(...)`` calls are written in place."""

from __future__ import annotations

import pytest

from .helpers import findings

PROGRAM = """
import argparse

import torch


def build_scaler(device, *, enabled):
    return torch.amp.GradScaler(device, enabled=enabled)


def build_other(device, *, enabled):
    return torch.amp.GradScaler(device, enabled=enabled)


class Trainer:
    def __init__(self, precision):
        self.precision = precision
        self.model = torch.nn.Linear(4, 1).cuda()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=1e-3, total_steps=10 * len(self.loader))
        use_amp = self.precision == "fp16"
        if use_amp:
            self.scaler = {on}
        else:
            self.scaler = {off}

    def fit(self):
        for epoch in range(10):
            for x in self.loader:
                self.optimizer.zero_grad()
                with torch.autocast("cuda", dtype=torch.float16, enabled=self.precision == "fp16"):
                    loss = self.model(x.cuda()).sum()
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.scheduler.step()


parser = argparse.ArgumentParser()
parser.add_argument("--precision", default="fp16", choices=["fp16", "fp32"])
Trainer(parser.parse_args().precision).fit()
"""

IN_PLACE = ('torch.amp.GradScaler("cuda", enabled=True)',
            'torch.amp.GradScaler("cuda", enabled=False)')
ONE_HELPER = ('build_scaler("cuda", enabled=True)', 'build_scaler("cuda", enabled=False)')
TWO_HELPERS = ('build_scaler("cuda", enabled=True)', 'build_other("cuda", enabled=False)')


@pytest.mark.parametrize("on, off", [IN_PLACE, ONE_HELPER, TWO_HELPERS],
                         ids=["in-place", "one-helper", "two-helpers"])
def test_the_working_scaler_stands_for_the_name(on: str, off: str) -> None:
    assert [code for code, _ in findings(PROGRAM.format(on=on, off=off))] == ["LRD005"]


def test_two_disabled_scalers_never_skip() -> None:
    source = PROGRAM.format(on='build_scaler("cuda", enabled=False)',
                            off='build_other("cuda", enabled=False)')
    assert findings(source) == []
