"""LRD010 for a cosine whose T_max is a share of the loop's own epochs (`T_max=args.epochs //
2`, `int(0.8 * epochs)`, `epochs / 2`) stepped once per epoch for all of them: past T_max the
cosine climbs back up. Silent where the loop runs that same share, where T_max is a multiple of
the epochs, and for two unrelated settings. Also a per-batch cosine of `len(loader) * args.epochs` under
`range(args.epochs + 1)` (one epoch over). (lead55 saw `T_max=epochs // 2` in real code; fixed
in lead56.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

SCRIPT = """
import argparse
import yaml
import torch
from torch import nn

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--cos_epochs", type=int, default=10)
args = p.parse_args()
cfg = yaml.safe_load(open(args.config))
model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={t_max})
for epoch in range({count}):
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    scheduler.step()
"""

REPORTED = [
    ("args.epochs // 2", "args.epochs"),
    ("int(0.8 * args.epochs)", "args.epochs"),
    ("args.epochs / 2", "args.epochs"),
    ("cfg['n_epochs'] // 2", "cfg['n_epochs']"),
]
SILENT = [
    ("args.epochs // 2", "args.epochs // 2"),
    ("args.epochs * 2", "args.epochs"),
    ("args.epochs", "args.epochs"),
    ("args.cos_epochs", "args.epochs"),
    ("cfg['n_epochs'] // 2", "args.epochs"),
]


@pytest.mark.parametrize(("t_max", "count"), REPORTED)
def test_cosine_over_a_share_of_the_epochs_is_reported(t_max: str, count: str) -> None:
    assert codes(SCRIPT.format(t_max=t_max, count=count)) == ["LRD010"]


@pytest.mark.parametrize(("t_max", "count"), SILENT)
def test_cosine_sized_to_the_loop_or_to_another_setting_is_silent(t_max: str, count: str) -> None:
    assert "LRD010" not in codes(SCRIPT.format(t_max=t_max, count=count))


def test_message_gives_the_default_and_leaves_an_unknown_value_out() -> None:
    (known,) = messages(SCRIPT.format(t_max="args.epochs // 2", count="args.epochs"))
    assert "0.5 x `args.epochs` more epochs than T_max (15 by default)" in known
    (unknown,) = messages(SCRIPT.format(t_max="cfg['n_epochs'] // 2", count="cfg['n_epochs']"))
    assert "0.5 x `cfg['n_epochs']` more epochs than T_max," in unknown


BATCH_SCRIPT = """
import argparse
import torch
from torch import nn

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=30)
p.add_argument("--start_epoch", type=int, default=0)
args = p.parse_args()
model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=len(loader) * args.epochs)
for epoch in {loop}:
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        scheduler.step()
"""


def test_batch_horizon_of_the_epochs_under_a_loop_of_one_more_is_reported() -> None:
    # (lead56's probe: the loop's count is the horizon's own setting plus a literal)
    (message,) = messages(BATCH_SCRIPT.format(loop="range(args.epochs + 1)"))
    assert "LRD010" not in message and "1 more than `args.epochs`" in message
    assert codes(BATCH_SCRIPT.format(loop="range(args.epochs + 1)")) == ["LRD010"]


@pytest.mark.parametrize("loop", ["range(args.epochs)", "range(1, args.epochs + 1)",
                                  "range(args.start_epoch, args.epochs + 1)"])
def test_batch_horizon_of_the_loops_own_epochs_is_silent(loop: str) -> None:
    assert codes(BATCH_SCRIPT.format(loop=loop)) == []
