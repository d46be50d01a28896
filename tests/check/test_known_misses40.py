"""LRD001 under a counter the stepping function advances itself: the decision pinned.

Programs written for these tests; no third-party code.

A trainer's `train_step()` reads its own counter (`steps = self.steps`), writes a hand-made
warm-up into the LR while `steps < self.warmup` and otherwise steps the scheduler, before the
update, and ends with `self.steps += 1`; `train()` calls it once a pass of `while self.steps <
total:`. Whether the first call is guarded depends on the counter's first value and the
warm-up's length: with the default warm-up of 0 steps (what the trainer is built with unless
told otherwise) the test fails on the first pass, the scheduler steps before any update and
its first value is never trained with. Treating the counter as a loop variable whose first
value is unknown (as Lightning's own counters are) silenced that case; it is a labelled dev
case (voicebox-warmup-then-cosine), so lrdoctor keeps judging such a counter as it is read
at the step: the default decides.
"""

from __future__ import annotations

from .helpers import codes

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loader, lr=3e-4, warmup=0, total=100000):
        self.model = model
        self.loader = loader
        self.lr = lr
        self.warmup = warmup
        self.total = total
        self.optim = torch.optim.Adam(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optim, T_max=total)
        self.steps = 0

    def train_step(self):
        steps = int(self.steps)
        if steps < self.warmup:
            for group in self.optim.param_groups:
                group["lr"] = self.lr * (steps + 1) / self.warmup
        else:
            self.scheduler.step()
        x, y = next(self.loader)
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optim.step()
        self.optim.zero_grad()
        self.steps += 1

    def train(self):
        while self.steps < self.total:
            self.train_step()


if __name__ == "__main__":
    data = iter([(torch.randn(4), torch.randn(1))] * 10)
    Trainer(torch.nn.Linear(4, 1), data).train()
"""


def test_a_warm_up_of_zero_steps_by_default_leaves_the_first_call_unguarded() -> None:
    assert codes(TRAINER) == ["LRD001"]


def test_the_step_after_the_update_is_silent() -> None:
    # the correct twin: the same counter and warm-up, the scheduler stepped after the update
    source = TRAINER.replace(
        "        else:\n            self.scheduler.step()\n", "").replace(
        "        self.optim.zero_grad()\n",
        "        self.optim.zero_grad()\n        if steps >= self.warmup:\n"
        "            self.scheduler.step()\n")
    assert "if steps >= self.warmup:" in source
    assert codes(source) == []
