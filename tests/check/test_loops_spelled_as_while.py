"""Training loops spelled with ``while`` where a ``for`` reads the same (lead60, found by
metamorphic.py's ``while`` and ``next_loop`` rewrites of dev cases: the ``for`` spelling was
silent, the rewrite added an error-level LRD003).

- ``epoch = 1`` then ``while epoch <= MAX_ITER: ...; epoch += 1`` makes MAX_ITER passes, as
  ``for epoch in range(1, MAX_ITER + 1)`` does: a cosine with ``T_max=MAX_ITER`` stepped once a
  pass is sized in those passes, whatever "ITER" says;
- ``it = iter(enumerate(self.train_loader))`` then ``while True: i, batch = next(it)``, the
  update in a method a subclass implements and a validation loop run now and then inside:
  the loop drawing the training batches is the batch loop, not an epoch loop around the
  validation one."""

from __future__ import annotations

import pytest

from .helpers import codes

COUNTED = """
import torch

MAX_ITER = 40
model = torch.nn.Linear(4, 1)
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={horizon}, eta_min=5e-5)
{start}
while {test}:
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
    epoch += 1
"""


@pytest.mark.parametrize("start,test", [
    ("epoch = 1", "epoch <= MAX_ITER"),
    ("epoch = 1", "epoch < MAX_ITER + 1"),
    ("epoch = 0", "epoch < MAX_ITER"),
    ("epoch = 1\nend = MAX_ITER + 1", "epoch < end"),
])
def test_a_horizon_of_the_counted_passes_is_silent(start: str, test: str) -> None:
    assert codes(COUNTED.format(horizon="MAX_ITER", start=start, test=test)) == []


def test_a_horizon_in_batches_stepped_once_a_counted_pass_is_found() -> None:
    src = COUNTED.format(horizon="MAX_ITER * len(loader)", start="epoch = 1",
                         test="epoch <= MAX_ITER")
    assert codes(src) == ["LRD003"]


def test_a_counter_the_code_does_not_start_at_a_literal_is_not_counted() -> None:
    # a resumed start: the count of passes is not stated, the name is read as before
    src = COUNTED.format(horizon="MAX_ITER", start="epoch = START_EPOCH", test="epoch <= MAX_ITER")
    assert codes(src) == ["LRD003"]


DRAWN = """
import torch


class Trainer:
    def __init__(self, model, train_loader, test_loader, epochs):
        self.model = model
        self.train_loader = train_loader
        self.test_loader = test_loader
        self.epochs = epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(train_loader))

    def train_on_batch(self, batch, i):
        raise NotImplementedError

    def validate(self):
        with torch.no_grad():
            for batch in self.test_loader:
                self.model(batch)

    def train(self):
        step = 0
        for epoch in range(self.epochs):
            it = iter(enumerate(self.train_loader))
            while True:
                try:
                    i, batch = next(it)
                except StopIteration:
                    break
                self.train_on_batch(batch, i)
{inner}                step += 1
                if step % 100 == 0:
                    self.validate()
{outer}"""


def test_a_schedule_stepped_with_each_drawn_batch_is_silent() -> None:
    src = DRAWN.format(inner="                self.scheduler.step()\n", outer="")
    assert codes(src) == []


def test_a_batch_schedule_stepped_once_an_epoch_around_the_drawing_loop_is_found() -> None:
    src = DRAWN.format(inner="", outer="            self.scheduler.step()\n")
    assert codes(src) == ["LRD003"]
