"""Lightning's manual optimization: with `self.automatic_optimization = False` Lightning steps
neither the optimizer nor the schedulers configure_optimizers returns, so the "interval" of
the returned scheduler says nothing about how often it steps; the module's own calls do."""

from __future__ import annotations

from tests.check.helpers import codes, findings

MODULE = """
import torch
import lightning as L
from transformers import get_linear_schedule_with_warmup


class Tagger(L.LightningModule):
    def __init__(self, total_steps=1000):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
{manual}
        self.total_steps = total_steps

    def training_step(self, batch, batch_idx):
{body}

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-4)
        sched = get_linear_schedule_with_warmup(opt, 100, self.total_steps)
        return [opt], [sched]
"""

MANUAL_BODY = """\
        opt = self.optimizers()
        sched = self.lr_schedulers()
        loss = self.net(batch).sum()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        sched.step()"""


def test_manual_optimization_stepping_the_warmup_every_batch_is_fine() -> None:
    src = MODULE.format(manual="        self.automatic_optimization = False", body=MANUAL_BODY)
    assert codes(src) == []


def test_manual_optimization_declared_by_a_property_is_fine() -> None:
    src = MODULE.format(manual="", body=MANUAL_BODY) + """
    @property
    def automatic_optimization(self):
        return False
"""
    assert codes(src) == []


def test_automatic_optimization_without_interval_step_is_reported() -> None:
    # Lightning steps the returned scheduler once per epoch: the warm-up lasts 100 epochs
    src = MODULE.format(manual="", body="        return self.net(batch).sum()")
    assert findings(src) == [("LRD003", 20)]
