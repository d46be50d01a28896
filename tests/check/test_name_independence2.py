"""Issue 7, meta4 (bench/realcode/metamorphic.py): the findings of a program must not depend
on what its data source is called when the loop around the pass over the data counts
iterations.

`while it < total_iters:` says "iterations" in its header, and was taken for the batch loop;
the `for data in <something>:` inside it, whose own body runs the update on every pass, was a
batch loop only when its iterable was *named* like a loader. Renamed to a neutral name, the
scheduler stepped in that pass was in a loop of no known granularity and its findings went.
Each test writes the program with the usual name (the control) and neutral ones, and a correct
or unrelated variant that must stay silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_ITERATION_BOUNDED = """
import torch

class Trainer:
    def __init__(self, model, total_iters):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.scaler = torch.amp.GradScaler("cuda")
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lr_lambda=lambda x: (1 - x / total_iters) ** 0.9)

    def do_pass(self, data):
        with torch.autocast("cuda"):
            loss = self.model(data).mean()
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        {after}

def train(model, {source}, total_iters):
    trainer = Trainer(model, total_iters)
    it = 0
    while it < total_iters:
        for data in {over}:
            trainer.do_pass(data)
            it += 1
            if it >= total_iters:
                break
"""

_STEP = """self.scaler.update()
        self.scheduler.step()"""
_STEP_UNLESS_SKIPPED = """scale = self.scaler.get_scale()
        self.scaler.update()
        if scale <= self.scaler.get_scale():
            self.scheduler.step()"""


@pytest.mark.parametrize("source, over", [
    ("train_loader", "train_loader"),  # the control: a name that says loader
    ("batches", "batches"),
    ("src1", "src1"),
    ("stream", "iter(stream)"),
])
def test_pass_over_data_inside_an_iteration_loop_is_the_batch_loop(source: str,
                                                                   over: str) -> None:
    src = _ITERATION_BOUNDED.format(source=source, over=over, after=_STEP)
    assert "LRD005" in codes(src)


@pytest.mark.parametrize("source", ["train_loader", "src1"])
def test_scheduler_stepped_only_after_a_real_update_stays_silent(source: str) -> None:
    src = _ITERATION_BOUNDED.format(source=source, over=source, after=_STEP_UNLESS_SKIPPED)
    assert "LRD005" not in codes(src)


_EPOCH_SIZED = """
import torch

def train(model, {source}, total_iters):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30)
    it = 0
    while it < total_iters:
        for x in {source}:
            loss = model(x).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            {inner}
            it += 1
        {outer}
"""


@pytest.mark.parametrize("source", ["train_loader", "batches", "src1"])
def test_epoch_sized_schedule_after_the_pass_stays_silent(source: str) -> None:
    # (the same StepLR stepped inside the pass is LRD002 with `train_loader` only: a batch loop
    # by its body inside an iteration loop is not enough for LRD002 yet; see README meta4)
    src = _EPOCH_SIZED.format(source=source, inner="pass", outer="sched.step()")
    assert "LRD002" not in codes(src)


_OPTIMIZERS_IN_TURN = """
import torch

def train(g, d, batches, total_iters):
    opt_g = torch.optim.Adam(g.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(d.parameters(), lr=2e-4)
    sched_g = torch.optim.lr_scheduler.StepLR(opt_g, step_size=100_000)
    it = 0
    while it < total_iters:
        x = next(batches)
        for opt in [opt_d, opt_g]:
            loss = (d(g(x)) if opt is opt_g else d(x)).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched_g.step()
        it += 1
"""


def test_a_loop_over_a_list_of_optimizers_in_the_update_loop_is_not_a_batch_loop() -> None:
    # the iteration loop steps both optimizers and the scheduler once per pass: correct
    assert codes(_OPTIMIZERS_IN_TURN) == []


_UPDATE_IN_THE_OUTER_LOOP = """
import torch

def train(model, batches, total_iters):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=total_iters)
    it = 0
    while it < total_iters:
        for x in batches:
            loss = model(x).mean()
            loss.backward()
            opt.step()
        opt.zero_grad()
        opt.step()
        sched.step()
        it += 1
"""


def test_iteration_loop_that_steps_in_its_own_body_stays_the_update_loop() -> None:
    # OneCycleLR sized in iterations, stepped once per pass of the iteration loop: no LRD003
    assert "LRD003" not in codes(_UPDATE_IN_THE_OUTER_LOOP)
