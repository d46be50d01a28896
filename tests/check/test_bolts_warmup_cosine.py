"""Lightning Bolts' ``LinearWarmupCosineAnnealingLR(optimizer, warmup_epochs, max_epochs)``
(lead63): a linear warm-up over ``warmup_epochs`` steps, then a cosine that reaches
``eta_min`` at ``max_epochs`` and bends back up past it. It was an unknown class, so none of
the horizon rules judged it. Its parameters say "epochs", but Bolts' own documentation
recommends stepping it after every iteration, with both counts then in iterations: the words
in the names of what fills them (``max_epochs=cfg.max_epochs``) say nothing about the unit, and
only what the value is computed from does (``args.epochs * len(loader)``, the bound of the
epoch loop, a Lightning Trainer's own ``max_epochs`` or ``estimated_stepping_batches``)."""

from __future__ import annotations

import pytest

from .helpers import findings, messages

LOOP = """
import torch
from torch.utils.data import DataLoader
from pl_bolts.optimizers.lr_scheduler import LinearWarmupCosineAnnealingLR


def train(args):
    model = torch.nn.Linear(4, 2)
    loader = DataLoader(torch.randn(400, 4), batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = LinearWarmupCosineAnnealingLR(optimizer, {sizes})
    for epoch in range(args.epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
{step}
"""
PER_BATCH = "            scheduler.step()"
PER_EPOCH = "        scheduler.step()"


def _codes(sizes: str, step: str) -> list[str]:
    return [code for code, _ in findings(LOOP.format(sizes=sizes, step=step))]


def test_epochs_stepped_every_batch_is_lrd002() -> None:
    # the horizon is the epoch loop's own bound, spent within the first epoch
    assert _codes("warmup_epochs=args.warmup_epochs, max_epochs=args.epochs", PER_BATCH) \
        == ["LRD002"]


def test_iterations_stepped_once_per_epoch_is_lrd003() -> None:
    assert _codes("warmup_epochs=5 * len(loader), max_epochs=args.epochs * len(loader)",
                  PER_EPOCH) == ["LRD003"]


@pytest.mark.parametrize("sizes, step", [
    ("warmup_epochs=5 * len(loader), max_epochs=args.epochs * len(loader)", PER_BATCH),
    ("warmup_epochs=args.warmup_epochs, max_epochs=args.epochs", PER_EPOCH),
    # the names echo the class's own parameters: Bolts' users fill them with iterations
    ("warmup_epochs=args.warmup_epochs, max_epochs=args.max_epochs", PER_BATCH),
], ids=["iterations-per-batch", "epochs-per-epoch", "echoed-names-per-batch"])
def test_matching_units_are_silent(sizes: str, step: str) -> None:
    assert _codes(sizes, step) == []


OVERRUN = """
import torch
from pl_bolts.optimizers.lr_scheduler import LinearWarmupCosineAnnealingLR

model = torch.nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(torch.randn(400, 4), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = LinearWarmupCosineAnnealingLR(optimizer, warmup_epochs=5, max_epochs=50)
for epoch in range({epochs}):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
    scheduler.step()
"""


def test_more_epochs_than_max_epochs_is_lrd010() -> None:
    source = OVERRUN.format(epochs=200)
    assert [code for code, _ in findings(source)] == ["LRD010"]
    assert "150 more epochs than max_epochs" in messages(source)[0]


def test_as_many_epochs_as_max_epochs_is_silent() -> None:
    assert findings(OVERRUN.format(epochs=50)) == []


LIGHTNING = """
import torch
import lightning.pytorch as pl
from pl_bolts.optimizers.lr_scheduler import LinearWarmupCosineAnnealingLR


class Model(pl.LightningModule):
    def __init__(self, warmup_epochs: int = 10, max_epochs: int = 100):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        scheduler = LinearWarmupCosineAnnealingLR(optimizer, {sizes})
        return {{"optimizer": optimizer, "lr_scheduler": {{"scheduler": scheduler{interval}}}}}
"""
STEP = ', "interval": "step"'


@pytest.mark.parametrize("sizes, interval, expected", [
    # the Trainer's own epoch budget, stepped every batch
    ("warmup_epochs=1, max_epochs=self.trainer.max_epochs", STEP, ["LRD002"]),
    # the Trainer's count of optimizer steps, stepped once per epoch (Lightning's default)
    ("warmup_epochs=500, max_epochs=self.trainer.estimated_stepping_batches", "", ["LRD003"]),
    ("warmup_epochs=500, max_epochs=self.trainer.estimated_stepping_batches", STEP, []),
    ("warmup_epochs=1, max_epochs=self.trainer.max_epochs", "", []),
    # hyperparameters named after the class's parameters: which unit they hold is the user's
    ("warmup_epochs=self.hparams.warmup_epochs, max_epochs=self.hparams.max_epochs", STEP, []),
    ("warmup_epochs=self.hparams.warmup_epochs, max_epochs=self.hparams.max_epochs", "", []),
], ids=["trainer-epochs-per-step", "trainer-steps-per-epoch", "trainer-steps-per-step",
        "trainer-epochs-per-epoch", "hparams-per-step", "hparams-per-epoch"])
def test_lightning_interval_against_the_trainer_counts(sizes: str, interval: str,
                                                        expected: list[str]) -> None:
    source = LIGHTNING.format(sizes=sizes, interval=interval)
    assert [code for code, _ in findings(source)] == expected


def test_a_cosine_sized_by_the_trainer_epochs_is_judged_as_well() -> None:
    # the Trainer's attribute counts epochs whatever the scheduler's parameter is called
    source = LIGHTNING.format(sizes="warmup_epochs=1, max_epochs=100", interval=STEP).replace(
        "LinearWarmupCosineAnnealingLR(optimizer, warmup_epochs=1, max_epochs=100)",
        "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.trainer.max_epochs)")
    assert [code for code, _ in findings(source)] == ["LRD002"]
