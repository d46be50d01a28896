"""LRD001 in a LightningModule under manual optimization: a scheduler step guarded by a test
that fails on the first batch of an epoch (`self.trainer.is_last_batch`, `batch_idx == n - 1`)
comes after the epoch's first updates, so the first LR value is used; a guard that holds on
the first batch (`batch_idx == 0`, a setting) still steps before the first update."""

from __future__ import annotations

from tests.check.helpers import codes

MODULE = """
import torch
from torch import nn
import lightning as L


class Model(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 2)
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        opt = self.optimizers()
        sch = self.lr_schedulers()
        if {guard}:
            sch.step()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
        return {{"optimizer": optimizer, "lr_scheduler": scheduler}}


if __name__ == "__main__":
    data = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
        batch_size=8)
    L.Trainer(max_epochs=30).fit(Model(), data)
"""


def test_step_on_the_last_batch_before_its_update_keeps_the_first_lr() -> None:
    # the epoch's other batches trained at the first LR before the step
    assert codes(MODULE.format(guard="self.trainer.is_last_batch")) == []


def test_step_when_the_batch_index_is_the_last_keeps_the_first_lr() -> None:
    guard = "batch_idx == self.trainer.num_training_batches - 1"
    assert codes(MODULE.format(guard=guard)) == []


def test_step_on_the_first_batch_before_its_update_is_reported() -> None:
    assert codes(MODULE.format(guard="batch_idx == 0")) == ["LRD001"]


def test_step_under_a_setting_before_the_update_is_reported() -> None:
    assert codes(MODULE.format(guard="self.hparams.use_scheduler")) == ["LRD001"]


LOOP = """
import torch
from torch import nn

model = nn.Linear(4, 2)
loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(10)]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
for epoch in range(args.start_epoch, 30):
    if {guard}:
        scheduler.step()
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_loop_index_whose_first_value_is_unknown_decides_nothing() -> None:
    # `for epoch in range(args.start_epoch, n)`: `if epoch:` is false on a fresh run's first
    # pass and true on a resumed one's; whether the step precedes the first update is unknown
    assert codes(LOOP.format(guard="epoch")) == []


def test_a_step_the_first_pass_takes_whatever_the_start_is_reported() -> None:
    assert codes(LOOP.format(guard="epoch == args.start_epoch")) == ["LRD001"]
