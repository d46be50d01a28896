"""How real loops use a (possibly switched-off) GradScaler: the scaled and the plain update in
two `if`s on the same switch, in an `if`/`else`, in a conditional expression, clipping with or
without `unscale_` first. A plain `optimizer.step()` after a scaled backward is LRD109,
clipping scaled gradients is LRD108, a `scaler.step()` without `update()` is LRD110; the
spellings that pair each scaled call with its branch are correct."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch

def train(model, loader, use_amp, max_grad_norm):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    for x in loader:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", enabled=use_amp):
            loss = model(x).sum()
{update}
"""

_CORRECT = {
    "two_ifs_on_the_switch": """        if use_amp:
            scaler.scale(loss).backward()
        else:
            loss.backward()
        if use_amp:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        if use_amp:
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.step()""",
    "one_if_else": """        if use_amp:
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            optimizer.step()""",
    "always_through_the_scaler": """        scaler.scale(loss).backward()
        if max_grad_norm > 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        scaler.step(optimizer)
        scaler.update()""",
    "clip_value_after_unscale": """        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_value_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()""",
}

_WRONG = {
    "plain_step_after_scaled_backward": ("""        scaler.scale(loss).backward()
        optimizer.step()""", "LRD109"),
    "clip_before_unscale": ("""        scaler.scale(loss).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        scaler.step(optimizer)
        scaler.update()""", "LRD108"),
    "clip_under_a_setting_before_unscale": ("""        scaler.scale(loss).backward()
        if max_grad_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
        scaler.step(optimizer)
        scaler.update()""", "LRD108"),
    "update_forgotten": ("""        scaler.scale(loss).backward()
        scaler.step(optimizer)""", "LRD110"),
}


@pytest.mark.parametrize("update", sorted(_CORRECT))
def test_scaler_used_consistently_is_correct(update: str) -> None:
    assert codes(_SCRIPT.format(update=_CORRECT[update])) == []


@pytest.mark.parametrize("update", sorted(_WRONG))
def test_scaler_misuse_is_reported(update: str) -> None:
    body, code = _WRONG[update]
    assert codes(_SCRIPT.format(update=body)) == [code]
