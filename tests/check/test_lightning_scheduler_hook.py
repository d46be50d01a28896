"""Lightning's ``lr_scheduler_step`` hook runs at the interval ``configure_optimizers`` set,
with the scheduler it returned."""

from __future__ import annotations

from tests.check.helpers import findings

_MODULE = """
import torch
import lightning as L
from transformers import get_linear_schedule_with_warmup


class Model(L.LightningModule):
    def __init__(self, total_steps):
        super().__init__()
        self.layer = torch.nn.Linear(4, 1)
        self.total_steps = total_steps

    def training_step(self, batch, batch_idx):
        return self.layer(batch).sum()

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=1e-3)
        scheduler = get_linear_schedule_with_warmup(optimizer, 100, self.total_steps)
        return {{"optimizer": optimizer,
                "lr_scheduler": {{"scheduler": scheduler, "interval": "step"}}}}

    def lr_scheduler_step(self, scheduler, metric):
        {step}
"""


def test_hook_stepping_a_per_update_warmup_with_the_epoch_number_is_reported() -> None:
    # every batch, the warm-up is set to position current_epoch: it crawls one step per epoch
    assert findings(_MODULE.format(step="scheduler.step(epoch=self.current_epoch)")) == [
        ("LRD006", 23)
    ]


def test_hook_stepping_a_per_update_warmup_plainly_is_correct() -> None:
    assert findings(_MODULE.format(step="scheduler.step()")) == []


def test_hook_at_the_default_epoch_interval_steps_a_per_update_warmup_per_epoch() -> None:
    src = _MODULE.format(step="scheduler.step()").replace(', "interval": "step"', "")
    # reported once, where it is fixed: the dict returned by configure_optimizers (line 19)
    assert findings(src) == [("LRD003", 19)]


def test_hook_at_the_default_epoch_interval_with_an_epoch_schedule_is_correct() -> None:
    src = _MODULE.format(step="scheduler.step()").replace(
        ', "interval": "step"', ""
    ).replace("get_linear_schedule_with_warmup(optimizer, 100, self.total_steps)",
              "torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)")
    assert findings(src) == []
