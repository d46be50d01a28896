"""A GradScaler known to a training step by its parameter's name alone, in a run that builds
one (dev miss gc8-opensportslab/osl-e2espot-chained-warmup-cosine-scaler, LRD005).

Programs written for these tests; no third-party code.

A model class hands out its own optimizer and scaler (`get_optimizer()` returns `AdamW(...),
GradScaler()`), and its `epoch(loader, optimizer=None, scaler=None, lr_scheduler=None)` calls a
shared `step()` helper: `scaler.scale(loss).backward()`, `scaler.step(optimizer)`,
`scaler.update()`, then `lr_scheduler.step()` whatever the scaler did. The caller that pairs
them is out of view (a trainer built from a config), so the scaler is known only as the
parameter `scaler`, and LRD005 stayed silent: it cannot tell whether a scaler it has not seen
built is enabled. But the run does build GradScalers, all of them always on; the one handed in
is one of them, so the scheduler runs ahead of the real updates whenever float16 skips one.
"""

from __future__ import annotations

from .helpers import findings

MODEL = """
import torch
from torch import nn


def step(optimizer, scaler, loss, lr_scheduler=None, backward_only=False):
    if scaler is None:
        loss.backward()
    else:
        scaler.scale(loss).backward()
    if not backward_only:
        if scaler is None:
            optimizer.step()
        else:
            scaler.step(optimizer)
            scaler.update()
        if lr_scheduler is not None:
            lr_scheduler.step()
        optimizer.zero_grad()


class SpotModel:
    def __init__(self, net):
        self._model = net

    def get_optimizer(self, lr):
        return torch.optim.AdamW(self._model.parameters(), lr=lr), SCALER

    def epoch(self, loader, optimizer=None, scaler=None, lr_scheduler=None, acc=1):
        total = 0.0
        for i, (x, y) in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = nn.functional.cross_entropy(self._model(x), y)
            if optimizer is not None:
                step(optimizer, scaler, loss / acc, lr_scheduler=lr_scheduler,
                     backward_only=(i + 1) % acc != 0)
            total += loss.item()
        return total / len(loader)
"""


def model(scaler: str = "torch.amp.GradScaler('cuda')") -> str:
    return MODEL.replace("SCALER", scaler)


def test_a_scaler_handed_in_where_the_run_builds_an_always_on_one_is_lrd005() -> None:
    assert findings(model()) == [("LRD005", 18)]


def test_a_scaler_handed_in_where_the_run_builds_a_disabled_one_is_right() -> None:
    assert findings(model("torch.amp.GradScaler('cuda', enabled=False)")) == []


def test_a_scaler_handed_in_where_the_run_builds_scalers_switched_apart_is_left_alone() -> None:
    # two scalers, one always on and one disabled: which the caller hands in is unknown
    source = model().replace(
        "    def epoch(",
        "    def spare(self):\n"
        "        return torch.amp.GradScaler('cuda', enabled=False)\n\n"
        "    def epoch(")
    assert findings(source) == []


def test_a_scaler_handed_in_where_the_run_builds_none_is_left_alone() -> None:
    source = MODEL.replace(
        "    def get_optimizer(self, lr):\n"
        "        return torch.optim.AdamW(self._model.parameters(), lr=lr), SCALER\n", "")
    assert findings(source) == []
