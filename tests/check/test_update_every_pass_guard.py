"""An update under a period of one (``if step % 1 == 0:``) is no gradient accumulation
(rcnew54, bench/realcode/README.md, batch fresh-2026-12yh).

Programs written for these tests; no third-party code.

A competition trainer kept the shape of an accumulation loop with the period written as the
literal 1 (``if step % 1 == 0: optimizer.step(); optimizer.zero_grad()``). The test holds on
every batch, so a scheduler stepped on every batch follows the updates one for one. LRD017 read
any ``%`` test around the update as accumulation and reported the scheduler as stepped per
micro-batch. A period of one (``% 1 == 0``, ``not x % 1``) is now read as every pass; any other
period (a literal 2, a setting) is still accumulation.
"""

from __future__ import annotations

import pytest

from .helpers import codes

LOOP = """
import torch

model = torch.nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0 / (1 + 0.01 * s))
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
accum = 4

for epoch in range(5):
    step = 0
    for x in loader:
        step += 1
        loss = model(torch.randn(8, 8)).sum()
        loss.backward()
        if {guard}:
            optimizer.step()
            optimizer.zero_grad()
            step = 0
        scheduler.step()
"""


@pytest.mark.parametrize("guard", ["step % 1 == 0", "not step % 1"])
def test_a_period_of_one_is_every_batch(guard: str) -> None:
    assert "LRD017" not in codes(LOOP.format(guard=guard))


@pytest.mark.parametrize("guard", ["step % 2 == 0", "step % accum == 0"])
def test_a_longer_period_is_accumulation(guard: str) -> None:
    assert "LRD017" in codes(LOOP.format(guard=guard))
