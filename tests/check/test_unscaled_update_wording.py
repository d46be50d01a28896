"""LRD109's consequence follows the optimizer: SGD's updates are the scale times too large;
an adaptive optimizer (Adam, AdamW, RMSprop, ...) divides the factor out, and what remains is
the overflowed gradients it steps into the weights (fphunt31 noted the old message overstated
it for nerfacc's Adam). Checked against torch in lrdoctor.optimizers' docstring, run by
tests/test_doctests.py.

Programs written for these tests; no third-party code.
"""

from __future__ import annotations

import pytest

from .helpers import messages

LOOP = """
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.OPT(model.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler("cuda")
for x in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x).pow(2).mean()
    scaler.scale(loss).backward()
    optimizer.step()
"""


def _lrd109(opt: str) -> str:
    (message,) = [m for m in messages(LOOP.replace("OPT", opt)) if "never unscaled" in m]
    return message


@pytest.mark.parametrize("opt", ["SGD", "Rprop"])
def test_stepping_along_the_gradient_every_update_is_the_scale_too_large(opt: str) -> None:
    assert "every update is the scale (65536) times too large" in _lrd109(opt)


@pytest.mark.parametrize("opt", ["Adam", "AdamW", "RMSprop"])
def test_adaptive_optimizers_updates_are_about_right_but_infs_go_in(opt: str) -> None:
    message = _lrd109(opt)
    assert f"{opt} divides by the gradients' running size" in message
    assert "inf/NaN gradients from float16 overflow are stepped into the weights" in message
    assert "every update is" not in message
