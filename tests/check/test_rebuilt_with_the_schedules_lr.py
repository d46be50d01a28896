"""LRD014 and an optimizer rebuilt on every pass with the LR the old schedule reached
(`optimizer = SGD(..., lr=scheduler.get_last_lr()[0])` each epoch, or
`lr=old.param_groups[0]["lr"]`): the schedule still reaches every new optimizer through its
LR, so nothing is lost (silent). Rebuilt once under a test, or without the schedule's LR, the
new optimizer keeps one LR and the schedule drives the old one (LRD014). (lead54's probe,
fixed in lead55.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import torch
from torch import nn

model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 5)
for epoch in range(20):
{rebuild}
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()
"""

SILENT = [
    "    optimizer = torch.optim.SGD(model.parameters(), lr=scheduler.get_last_lr()[0])",
    "    lr_now = optimizer.param_groups[0]['lr']\n"
    "    optimizer = torch.optim.SGD(model.parameters(), lr=scheduler.optimizer"
    ".param_groups[0]['lr'])",
]
REPORTED = [
    "    if epoch == 10:\n"
    "        optimizer = torch.optim.SGD(model.parameters(), lr=scheduler.get_last_lr()[0])",
    "    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)",
]


@pytest.mark.parametrize("rebuild", SILENT)
def test_rebuilt_every_pass_with_the_schedules_lr_is_silent(rebuild: str) -> None:
    assert codes(SCRIPT.format(rebuild=rebuild)) == []


@pytest.mark.parametrize("rebuild", REPORTED)
def test_rebuilt_once_or_with_its_own_lr_is_reported(rebuild: str) -> None:
    assert codes(SCRIPT.format(rebuild=rebuild)) == ["LRD014"]
