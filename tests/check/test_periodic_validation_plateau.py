"""ReduceLROnPlateau stepped every epoch with the training loss, validation every N epochs.

A program that evaluates only once every N passes (``show = epoch % 100 == 0`` ... ``if
show:``) has no validation value at most of its plateau's per-epoch steps: stepping it with the
training loss is its only per-pass choice, not a training loss picked over a validation metric
(LRD004 said it was, at error level). Found in fphunt40's scan (an implicit-neural-field
project, four trainers). A validation on every pass, or under a period read from a setting that
may be 1 (``epoch % args.eval_every``), is still reported.

Programs written for these tests; no third-party code.
"""

from __future__ import annotations

import pytest

from .helpers import codes

PROGRAM = """
import torch


def main(model, train_loader, test_loader, args):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=250, factor=0.5)
    for epoch in range(args.epochs):
        SHOW
        train_mse = 0.0
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            optimizer.step()
            train_mse += loss.item()
        train_loss = train_mse / len(train_loader)
        scheduler.step(train_loss)
        if TEST:
            test_mse = 0.0
            with torch.no_grad():
                for x, y in test_loader:
                    test_mse += (model(x) - y).pow(2).mean().item()
            test_loss = test_mse / len(test_loader)
            print(epoch, train_loss, test_loss)
"""


def program(show: str, test: str) -> str:
    return PROGRAM.replace("SHOW", show).replace("TEST", test)


@pytest.mark.parametrize(("show", "test"), [
    ("show = epoch % 100 == 0", "show"),
    ("show, last = epoch % 50 == 0, epoch == args.epochs - 1", "True in (show, last)"),
    ("pass", "epoch % 10 == 0"),
])
def test_validation_every_few_passes_leaves_the_training_loss_as_the_only_choice(
        show: str, test: str) -> None:
    assert "LRD004" not in codes(program(show, test))


@pytest.mark.parametrize(("show", "test"), [
    ("pass", "True"),  # every pass
    ("pass", "epoch % args.eval_every == 0"),  # a period that may be 1
    ("show = epoch % 1 == 0", "show"),
])
def test_control_validation_on_every_pass_is_still_reported(show: str, test: str) -> None:
    assert "LRD004" in codes(program(show, test))
