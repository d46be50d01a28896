"""LRD003 for a Hugging Face schedule stepped once per update under an accumulation test: its
length is `num_training_steps`. Sized `epochs * len(loader)` (micro-batches) it is reported;
when only the warm-up's count reads the loader (`num_warmup_steps=epochs * len(loader),
num_training_steps=args.warmup`, the two swapped by mistake, a dev case of batch
fresh-2026-12d) the schedule's length is a plain setting and nothing says it counts
micro-batches: silent (the swap is a sizing bug no static code names). (lead55.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import argparse
import torch
from torch import nn
from transformers import get_linear_schedule_with_warmup

parser = argparse.ArgumentParser()
parser.add_argument("--num-epochs", default=12, type=int)
parser.add_argument("--warmup", default=100, type=int)
parser.add_argument("--accum-step", default=2, type=int)
args = parser.parse_args()
model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)
scheduler = get_linear_schedule_with_warmup(optimizer, {sizes})
idx = 0
for epoch in range(args.num_epochs):
    for x, y in loader:
        idx += 1
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        if idx % args.accum_step == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
"""


@pytest.mark.parametrize("sizes", [
    "num_warmup_steps=args.warmup, num_training_steps=args.num_epochs * len(loader)",
    "args.warmup, args.num_epochs * len(loader)",
])
def test_total_in_micro_batches_is_reported(sizes: str) -> None:
    assert codes(SCRIPT.format(sizes=sizes)) == ["LRD003"]


@pytest.mark.parametrize("sizes", [
    "num_warmup_steps=args.num_epochs * len(loader), num_training_steps=args.warmup",
    "num_warmup_steps=args.warmup, "
    "num_training_steps=args.num_epochs * len(loader) // args.accum_step",
])
def test_total_not_in_micro_batches_is_silent(sizes: str) -> None:
    assert codes(SCRIPT.format(sizes=sizes)) == []
