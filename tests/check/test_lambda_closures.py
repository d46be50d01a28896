"""A LambdaLR whose lr_lambda is a function defined right next to it (a closure over
`warmup_steps` / `max_steps` inside configure_optimizers or main): its horizon is read from the
closure's body the same way as from a module-level function."""

from __future__ import annotations

from tests.check.helpers import codes

LIGHTNING = """
import torch
from pytorch_lightning.core import LightningModule


class Pipeline(LightningModule):
    def __init__(self, max_steps: int = 200000, warmup_steps: int = 4000):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(2, 2)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.net.parameters(), lr=1e-4)
        max_steps = self.hparams.max_steps
        warmup_steps = self.hparams.warmup_steps

        def lr_lambda(current_step):
            if current_step < warmup_steps:
                return current_step / max(1, warmup_steps)
            return max(0.0, 1.0 - (current_step - warmup_steps) / (max_steps - warmup_steps))

        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
        return RETURN
"""


def test_closure_warmup_in_steps_returned_without_interval_is_lrd003() -> None:
    src = LIGHTNING.replace("RETURN", "[optimizer], scheduler")
    assert codes(src) == ["LRD003"]


def test_closure_warmup_in_steps_returned_with_interval_step_is_correct() -> None:
    src = LIGHTNING.replace(
        "RETURN", '[optimizer], [{"scheduler": scheduler, "interval": "step"}]'
    )
    assert codes(src) == []


LOOP = """
import torch
from torch.utils.data import DataLoader


def main(epochs=10, warmup_epochs=2):
    model = torch.nn.Linear(2, 2)
    loader = DataLoader(list(range(64)), batch_size=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    WARMUP

    def lr_lambda(i):
        return min(1.0, (i + 1) / WARMUP_NAME)

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    for epoch in range(epochs):
        for x in loader:
            optimizer.step()
        scheduler.step()
"""


def test_closure_counting_steps_stepped_once_per_epoch_is_lrd003() -> None:
    src = LOOP.replace("WARMUP_NAME", "warmup_steps").replace(
        "WARMUP", "warmup_steps = 500"
    )
    assert codes(src) == ["LRD003"]


def test_closure_counting_epochs_stepped_once_per_epoch_is_correct() -> None:
    src = LOOP.replace("WARMUP_NAME", "warmup_epochs").replace("WARMUP", "pass")
    assert codes(src) == []
