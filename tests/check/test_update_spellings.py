"""The optimizer update spelled the ways real loops spell it: `optimizer.step()`, with a
closure, through the GradScaler, TPU's `xm.optimizer_step`, a loop over several optimizers, a
dict entry. A scheduler stepped before the update in the batch loop is LRD001 and after it is
correct, whichever spelling the update has."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch
import torch_xla.core.xla_model as xm
from torch.optim.lr_scheduler import OneCycleLR

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    optimizers = [optimizer]
    named = {{"main": optimizer}}
    scaler = torch.amp.GradScaler("cuda", enabled=False)
    scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x in loader:
            def closure():
                optimizer.zero_grad()
                loss = model(x).sum()
                loss.backward()
                return loss
            model(x).sum().backward()
{before}{update}
{after}"""

_UPDATES = {
    "plain": "            optimizer.step()",
    "closure": "            optimizer.step(closure)",
    "through_the_scaler": "            scaler.step(optimizer)\n            scaler.update()",
    "tpu": "            xm.optimizer_step(optimizer)",
    "loop_over_optimizers": "            for opt in optimizers:\n                opt.step()",
    "dict_entry": '            named["main"].step()',
}

_STEP = "            scheduler.step()\n"


@pytest.mark.parametrize("update", sorted(_UPDATES))
def test_scheduler_stepped_before_the_update_is_lrd001(update: str) -> None:
    assert codes(_SCRIPT.format(before=_STEP, update=_UPDATES[update], after="")) == ["LRD001"]


@pytest.mark.parametrize("update", sorted(_UPDATES))
def test_scheduler_stepped_after_the_update_is_correct(update: str) -> None:
    assert codes(_SCRIPT.format(before="", update=_UPDATES[update], after=_STEP)) == []
