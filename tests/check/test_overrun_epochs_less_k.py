"""LRD010 for a per-batch horizon sized for the run's own epochs less a stated k
(`CosineAnnealingLR(T_max=len(loader) * (args.epochs - 5))` stepped after every batch of
`for epoch in range(args.epochs)`): whatever `--epochs` a run sets, the last k epochs step the
schedule past its end (a cosine climbs back up). Silent when the step waits for the k warm-up
epochs, when a warm-up scheduler hands over (SequentialLR), or when the loop runs another
setting. (lead55 probes.)"""

from __future__ import annotations

from tests.check.helpers import codes

SCRIPT = """
import argparse
import torch
from torch import nn

S = torch.optim.lr_scheduler
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--other_epochs", type=int, default=100)
parser.add_argument("--warmup_epochs", type=int, default=5)
args = parser.parse_args()
model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
{build}
for epoch in range({count}):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        {step}
"""

COSINE = "scheduler = S.CosineAnnealingLR(optimizer, T_max=len(loader) * (args.epochs - {k}))"


def test_horizon_of_the_runs_epochs_less_k_is_reported() -> None:
    for k in ("5", "args.warmup_epochs"):
        found = codes(SCRIPT.format(build=COSINE.format(k=k), count="args.epochs",
                                    step="scheduler.step()"))
        assert found == ["LRD010"], k


def test_step_that_waits_for_the_warmup_is_silent() -> None:
    assert codes(SCRIPT.format(build=COSINE.format(k="args.warmup_epochs"),
                               count="args.epochs",
                               step="if epoch >= args.warmup_epochs:\n"
                                    "            scheduler.step()")) == []


def test_warmup_handing_over_is_silent() -> None:
    build = ("warm = S.LinearLR(optimizer, 0.01, total_iters=len(loader) * args.warmup_epochs)\n"
             "cos = S.CosineAnnealingLR(optimizer, T_max=len(loader) * (args.epochs - "
             "args.warmup_epochs))\n"
             "scheduler = S.SequentialLR(optimizer, [warm, cos], "
             "milestones=[len(loader) * args.warmup_epochs])")
    assert codes(SCRIPT.format(build=build, count="args.epochs",
                               step="scheduler.step()")) == []


def test_loop_over_another_setting_is_silent() -> None:
    assert codes(SCRIPT.format(build=COSINE.format(k="5"), count="args.other_epochs",
                               step="scheduler.step()")) == []
