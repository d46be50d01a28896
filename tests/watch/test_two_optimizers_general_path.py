"""With two optimizers every scheduler step takes the general path (the lane is for one
optimizer and one scheduler), so StepOrder's LRD014 (a scheduler left on an optimizer that
no longer trains) and LRD012 (two schedulers interleaved on one optimizer) tests run on each
of them. Their common case asks for no list and no class lookup a step: the other optimizers
are looked at only when the scheduler's own one did not move, and whether a scheduler class
recomputes the LR only once a rival steps the same optimizer. What they find must not move."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.checks import schedule
from tests.watch.conftest import PRELUDE

pytest.importorskip("torch")

TWO = PRELUDE + """
head = torch.nn.Linear(8, 1)
opt_b = torch.optim.Adam(head.parameters(), lr=1e-3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sched_a = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=48)
sched_b = torch.optim.lr_scheduler.OneCycleLR(opt_b, max_lr=1e-3, total_steps=48)
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad(); opt_b.zero_grad()
        (torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(head(x), y)).backward()
        optimizer.step(); opt_b.step()
        sched_a.step(); sched_b.step()
"""


def test_two_optimizers_each_with_its_scheduler_ask_no_class_lookup_a_step(run_script, monkeypatch):
    asked: list[str] = []
    real = schedule.recomputes_lr
    monkeypatch.setattr(schedule, "recomputes_lr", lambda cls: asked.append(cls) or real(cls))
    ran = run_script(TWO)
    assert ran.codes == [], ran.watch.report()
    assert asked == []  # no rival on either optimizer: nothing to compare


def test_a_scheduler_left_on_an_optimizer_that_stopped_is_still_reported(run_script):
    # the same two optimizers; from epoch 2 only opt_b trains, sched_a still steps
    ran = run_script(TWO.replace("optimizer.step(); opt_b.step()",
                                 "(optimizer.step() if epoch == 0 else None); opt_b.step()"))
    assert "LRD014" in ran.codes, ran.watch.report()
    f = ran.only("LRD014")
    assert "OneCycleLR" in f.message and "Adam took 1 steps" in f.message, f.message


def test_two_schedulers_interleaved_on_one_optimizer_beside_another_optimizer_are_reported(run_script):
    ran = run_script(PRELUDE + """
head = torch.nn.Linear(8, 1)
opt_b = torch.optim.Adam(head.parameters(), lr=1e-3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
warmup = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / 2))
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad(); opt_b.zero_grad()
        (torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(head(x), y)).backward()
        optimizer.step(); opt_b.step()
    decay.step()
    warmup.step()
""")
    assert "LRD012" in ran.codes, ran.watch.report()
    assert "LambdaLR recomputes the LR" in ran.only("LRD012").message
