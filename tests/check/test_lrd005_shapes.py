"""LRD005 by where the scheduler steps relative to the scaled update, in a trainer class
driven from a plain epoch / batch loop (issue 7: a milestone scheduler of a trainer class,
stepped per update after an unchecked GradScaler step, and the per-epoch control).

A scheduler whose milestones count updates advances on every call; when it is called after
each `scaler.step(optimizer)` without a check that the update happened, a skipped update
still moves it (LRD005). Called once per epoch, the skipped updates of that epoch do not
move it, so the same class with the step in an epoch-end method is correct code."""

from __future__ import annotations

from tests.check.helpers import codes

_TRAINER = """
import torch


class Trainer:
    def __init__(self, net, cfg):
        self.net = net
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=cfg["lr"])
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(
            self.optimizer, cfg["milestones"], 0.1)
        if cfg["amp"]:
            self.scaler = torch.amp.GradScaler("cuda")

    def train_step(self, batch):
        with torch.autocast("cuda", enabled=self.cfg["amp"]):
            loss = self.net(batch).mean()
        self.optimizer.zero_grad(set_to_none=True)
        if self.cfg["amp"]:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            self.optimizer.step()
{per_update}

    def finish_epoch(self):
{per_epoch}


def main(cfg, net, loader):
    trainer = Trainer(net, cfg)
    for epoch in range(cfg["epochs"]):
        for batch in loader:
            trainer.train_step(batch)
        trainer.finish_epoch()
"""

_STEP = "        self.scheduler.step()"


def _trainer(per_update: str, per_epoch: str) -> str:
    return _TRAINER.replace("{per_update}", per_update).replace("{per_epoch}", per_epoch)


def test_a_milestone_scheduler_stepped_after_each_scaled_update_is_lrd005() -> None:
    assert codes(_trainer(_STEP, "        pass")) == ["LRD005"]


def test_the_same_scheduler_stepped_once_per_epoch_is_silent() -> None:
    assert codes(_trainer("", _STEP)) == []


def test_reading_the_scale_without_comparing_it_is_still_lrd005() -> None:
    unchecked = """\
        if self.cfg["amp"]:
            scale_before = self.scaler.get_scale()
        self.scheduler.step()"""
    # the check must compare the scale after the update; reading it alone guards nothing
    assert codes(_trainer(unchecked, "        pass")) == ["LRD005"]
