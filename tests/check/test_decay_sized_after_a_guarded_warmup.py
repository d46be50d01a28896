"""A decay sized to start after the warm-up (``T_max=epochs - warmup_epochs``) but stepped on
every epoch, while the warm-up is stepped only during its own epochs (lead62, probing LRD012
in several spellings). The decay's steps during the warm-up are taken from its horizon, so it
reaches ``T_max`` before training ends and the cosine climbs back up. The rule knew the shape
only when both were stepped on every pass; with the warm-up under ``if epoch <
warmup_epochs:`` (the usual spelling) it was silent, and a LambdaLR warm-up (its length read
inside the lambda) was not recognised as the warm-up the decay was sized after."""

from __future__ import annotations

import pytest

from .helpers import findings

PROGRAM = """
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(torch.randn(64, 4), batch_size=8)
epochs, warmup_epochs = 30, 5
warmup = {warmup}
decay = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={t_max})
for epoch in range(epochs):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
{steps}
"""

LAMBDA = "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: (e + 1) / warmup_epochs)"
LINEAR = "torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=warmup_epochs)"

GUARDED = """\
    if epoch < warmup_epochs:
        warmup.step()
    decay.step()"""
# the hand-overs: the decay starts when the warm-up ends
EXCLUSIVE = """\
    if epoch < warmup_epochs:
        warmup.step()
    else:
        decay.step()"""
SKIPPED = """\
    if epoch < warmup_epochs:
        warmup.step()
        continue
    decay.step()"""
AFTER = """\
    if epoch < warmup_epochs:
        warmup.step()
    if epoch >= warmup_epochs:
        decay.step()"""


@pytest.mark.parametrize("warmup", [LAMBDA, LINEAR], ids=["LambdaLR", "LinearLR"])
def test_a_decay_sized_after_the_warmup_but_stepped_from_the_start_is_lrd012(
        warmup: str) -> None:
    source = PROGRAM.format(warmup=warmup, t_max="epochs - warmup_epochs", steps=GUARDED)
    assert findings(source) == [("LRD012", 17)]


@pytest.mark.parametrize("warmup", [LAMBDA, LINEAR], ids=["LambdaLR", "LinearLR"])
@pytest.mark.parametrize("steps", [EXCLUSIVE, SKIPPED, AFTER], ids=["else", "continue", "if-after"])
def test_a_hand_over_after_the_warmup_is_silent(warmup: str, steps: str) -> None:
    source = PROGRAM.format(warmup=warmup, t_max="epochs - warmup_epochs", steps=steps)
    assert findings(source) == []


@pytest.mark.parametrize("warmup", [LAMBDA, LINEAR], ids=["LambdaLR", "LinearLR"])
def test_a_decay_over_the_whole_run_beside_a_guarded_warmup_is_silent(warmup: str) -> None:
    # the warm-up scales the first epochs; the decay was sized for every epoch it steps
    source = PROGRAM.format(warmup=warmup, t_max="epochs", steps=GUARDED)
    assert findings(source) == []
