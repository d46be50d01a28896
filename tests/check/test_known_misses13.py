"""The dev set's remaining misses and false alarms, by general shape (fixes13), each with
neighbours that must keep their finding or stay silent.

Programs written for these tests; no third-party code."""

from __future__ import annotations

from .helpers import codes

# 1. A command-line option whose help text says epochs while its own default says batches:
# `--lr_decay_step default=1e5 help="decay per N epochs"` beside `--epochs default=100`. Read
# as epochs the default would outlast a thousand runs; the help was not updated when the
# schedule moved into the batch loop, and the value is a count of batches. A help its own
# default contradicts states nothing, and the cosine stepped per batch is not LRD002.

STALE_HELP = """
import argparse
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100, help="number of epochs to train")
parser.add_argument("--lr_decay_step", type=int, default={default},
                    help="learning rate decay per N epochs")
args = parser.parse_args()


def train(net, loader):
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=int(args.lr_decay_step))
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
"""


def test_help_in_epochs_contradicted_by_a_batch_sized_default_is_silent() -> None:
    assert "LRD002" not in codes(STALE_HELP.format(default="1e5"))


def test_help_in_epochs_with_an_epoch_sized_default_keeps_lrd002() -> None:
    # control: 30 epochs of a 100-epoch run, stepped per batch: the cosine ends in the first
    # epoch, as before
    assert "LRD002" in codes(STALE_HELP.format(default="30"))


def test_help_in_epochs_without_an_epoch_count_keeps_lrd002() -> None:
    # control: no epoch count to compare with; the help is believed, as before
    source = STALE_HELP.format(default="1e5").replace(
        'parser.add_argument("--epochs", type=int, default=100, help="number of epochs to train")\n',
        "").replace("range(args.epochs)", "range(100)")
    assert "LRD002" in codes(source)
