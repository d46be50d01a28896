"""LRD007 on the resume side: an optimizer state loaded by hand is a resume that loses the
schedule, unless the schedule is rebuilt from the saved scheduler state, or the load is a
warm start inside Lightning's configure_optimizers (Lightning resumes from its own checkpoint,
schedulers included)."""

from __future__ import annotations

from tests.check.helpers import codes, findings

RESUMED = """
import torch
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader


def linear_decay(optimizer, total, shift=0):
    def factor(step):
        step += shift
        return max(0.0, 1.0 - step / total)
    return LambdaLR(optimizer, factor)


model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
saved = torch.load("last.pt", weights_only=True)
optimizer.load_state_dict(saved["optimizer"])
start_epoch = saved["epoch"]
{build}
for epoch in range(start_epoch, 10):
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    torch.save({{"epoch": epoch + 1, "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict()}}, "last.pt")
"""


def test_resume_that_builds_a_fresh_schedule_is_reported() -> None:
    src = RESUMED.format(build="scheduler = linear_decay(optimizer, 10 * len(loader))")
    assert findings(src) == [("LRD007", 18)]


def test_schedule_rebuilt_shifted_by_the_saved_scheduler_state_is_fine() -> None:
    # the saved scheduler state is read back by hand: its step count shifts the new schedule
    src = RESUMED.format(
        build='scheduler = linear_decay(optimizer, 10 * len(loader), '
              'shift=saved["scheduler"]["last_epoch"])'
    )
    assert codes(src) == []


LIGHTNING = """
import torch
import lightning as L
from transformers import get_cosine_schedule_with_warmup


class Regressor(L.LightningModule):
    def __init__(self, warm_start=None, max_steps=1000):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)
        self.warm_start = warm_start
        self.max_steps = max_steps

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=1e-4)
        if self.warm_start is not None:
            state = torch.load(self.warm_start, weights_only=True)
            optimizer.load_state_dict(state["optimizer_states"][0])
        scheduler = get_cosine_schedule_with_warmup(optimizer, 100, self.max_steps)
        return [optimizer], [{"scheduler": scheduler, "interval": "step"}]
"""


def test_optimizer_warm_start_in_configure_optimizers_is_not_a_lost_schedule() -> None:
    assert codes(LIGHTNING) == []


def test_a_setting_named_scheduler_does_not_hide_a_lost_schedule() -> None:
    # `config["scheduler"]` picks the kind of schedule; it is no saved scheduler state
    src = RESUMED.format(
        build='config = {"scheduler": "linear"}\n'
              'if config["scheduler"] == "linear":\n'
              '    scheduler = linear_decay(optimizer, 10 * len(loader))'
    )
    assert findings(src) == [("LRD007", 18)]
