"""LRD017 for a warm-up window read from the trainer instance: `if epoch < self.warm_epochs:
self.warmup.step()` beside an accumulating update, with `self.warm_epochs` set once in
`__init__` from a parameter whose value the program states (its default, or a literal the
construction passes), holds on the first epoch, so the warm-up advances on every micro-batch
there (the class spelling of rcnew97's birdsong shape). Silent when the stated window is empty,
when the value is not stated, or when the attribute is stored again elsewhere. (lead55.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import sys
import torch
from torch import nn


class Trainer:
    def __init__(self, model, loader, epochs=20, accum=4, warm_epochs={default}):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.accum = accum
        self.warm_epochs = warm_epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.warmup = torch.optim.lr_scheduler.LinearLR(self.optimizer, 0.01, total_iters=100)

    def train_epoch(self, epoch):
        for i, (x, y) in enumerate(self.loader):
            loss = nn.functional.cross_entropy(self.model(x), y) / self.accum
            loss.backward()
            if (i + 1) % self.accum == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
            if epoch < self.warm_epochs:
                self.warmup.step()

    def fit(self):{late}
        for epoch in range(self.epochs):
            self.train_epoch(epoch)


loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
Trainer(nn.Linear(4, 2), loader{given}).fit()
"""


@pytest.mark.parametrize("default, given", [("3", ""), ("0", ", warm_epochs=5"),
                                            ("0", ", 20, 4, 2")])
def test_stated_window_holding_on_the_first_epoch_is_reported(default: str, given: str) -> None:
    assert codes(SCRIPT.format(default=default, given=given, late="")) == ["LRD017"]


@pytest.mark.parametrize("default, given, late", [
    ("0", "", ""),  # an empty window
    ("3", ", warm_epochs=int(sys.argv[1])", ""),  # a value the program does not state
    ("3", "", "\n        self.warm_epochs = 0"),  # stored again before the loop
])
def test_window_not_known_to_hold_is_silent(default: str, given: str, late: str) -> None:
    assert codes(SCRIPT.format(default=default, given=given, late=late)) == []


def test_literal_window_still_reported() -> None:
    literal = SCRIPT.replace("if epoch < self.warm_epochs:", "if epoch < 3:")
    assert codes(literal.format(default="0", given="", late="")) == ["LRD017"]
