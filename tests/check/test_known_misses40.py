"""LRD001 under a counter the stepping function advances itself.

Programs written for these tests; no third-party code.

A trainer's `train_step()` reads its own counter (`steps = self.steps`), writes a hand-made
warm-up into the LR while `steps < warmup` and steps the scheduler otherwise, before the
update, and ends with `self.steps += 1`; `train()` calls it once a pass of `while self.steps <
total:`. The counter holds another value on every pass, as a loop's own variable does, so
the step is guarded off the first pass: the scheduler first steps after `warmup` updates, and
the value it skips is the one the hand-made warm-up ends at. lrdoctor knew a guard varies from
pass to pass only from the loop's own variables, the names the loop's body rebinds, and
Lightning's counters, so it reported LRD001 here. The step unguarded, or guarded by a setting
alone, with the same counter beside it, is still LRD001.
"""

from __future__ import annotations

from .helpers import codes

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loader, lr=3e-4, warmup=1000, total=100000, use_sched=True):
        self.model = model
        self.loader = loader
        self.lr = lr
        self.warmup = warmup
        self.total = total
        self.use_sched = use_sched
        self.optim = torch.optim.Adam(model.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optim, T_max=total)
        self.steps = 0

    def train_step(self):
        steps = READ
        if GUARD:
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


def trainer(guard: str = "steps < self.warmup", read: str = "self.steps") -> str:
    return TRAINER.replace("GUARD", guard).replace("READ", read)


def test_a_warm_up_guard_on_the_functions_own_counter_keeps_the_first_pass() -> None:
    assert codes(trainer()) == []


def test_the_counter_read_through_a_conversion_is_the_same_counter() -> None:
    assert codes(trainer(read="int(self.steps)")) == []


def test_the_counter_tested_as_the_attribute_is_the_same_counter() -> None:
    assert codes(trainer(guard="self.steps < self.warmup")) == []


def test_a_guard_on_a_setting_alone_is_still_lrd001() -> None:
    # the twin: `use_sched` is the same on every pass; the else steps before the first update
    assert codes(trainer(guard="not self.use_sched")) == ["LRD001"]


def test_an_unguarded_step_beside_the_counter_is_still_lrd001() -> None:
    source = trainer(guard="False").replace(
        "        if False:\n"
        "            for group in self.optim.param_groups:\n"
        "                group[\"lr\"] = self.lr * (steps + 1) / self.warmup\n"
        "        else:\n"
        "            self.scheduler.step()\n",
        "        self.scheduler.step()\n")
    assert "if False" not in source
    assert codes(source) == ["LRD001"]
