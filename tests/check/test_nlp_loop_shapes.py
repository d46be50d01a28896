"""Loop shapes of sequence-model training code: which loop is the update loop when batches
arrive through a generator expression, or when gradient accumulation is a sub-loop of a
`for step in range(max_steps)` loop."""

from __future__ import annotations

from tests.check.helpers import codes, findings

WRAPPED_BATCHES = """
import torch
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader


def train_one_pass(batches, net, opt, sched, accum_every=1):
    for i, batch in enumerate(batches):
        loss = net(batch).sum()
        loss.backward()
        if i % accum_every == 0:
            opt.step()
            opt.zero_grad()
{sched_step}


def main(settings):
    net = torch.nn.Linear(4, 1)
    loader = DataLoader(list(range(64)), batch_size=8)
    opt = torch.optim.Adam(net.parameters(), lr=1.0)
    sched = LambdaLR(opt, lr_lambda=lambda step: 1.0 / (step + 1))
    for epoch in range(settings["epochs"]):
        train_one_pass((b.float() for b in loader), net, opt, sched,
                       accum_every=settings["accum_every"])


main({{"epochs": 8, "accum_every": 10}})
"""


def test_scheduler_stepped_per_micro_batch_of_a_generator_over_the_loader_is_reported() -> None:
    # the training function loops over `(b.float() for b in loader)`: still one pass per batch
    src = WRAPPED_BATCHES.format(sched_step="        sched.step()")
    assert findings(src) == [("LRD017", 14)]


def test_scheduler_stepped_with_the_update_over_a_generator_of_batches_is_fine() -> None:
    src = WRAPPED_BATCHES.format(sched_step="            sched.step()")
    assert codes(src) == []


STEP_LOOP = """
import torch
from torch.utils.data import DataLoader
from transformers import get_linear_schedule_with_warmup

net = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
batches = iter(loader)
max_steps = 1000
accumulation_steps = 4
opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=100, num_training_steps=max_steps)

for step in range(max_steps):
    for i in range(accumulation_steps):
        loss = net(next(batches)).sum() / accumulation_steps
        loss.backward()
{tail}
"""


def test_accumulation_sub_loop_leaves_the_step_loop_the_update_loop() -> None:
    # one update per pass of `for step in range(max_steps)`, sized in those updates: the
    # micro-batch loop inside it does not make it an epoch loop (no LRD003)
    src = STEP_LOOP.format(tail="    opt.step()\n    sched.step()\n    opt.zero_grad()")
    assert codes(src) == []


def test_scheduler_before_the_update_after_an_accumulation_sub_loop_is_reported() -> None:
    src = STEP_LOOP.format(tail="    sched.step()\n    opt.step()\n    opt.zero_grad()")
    assert findings(src) == [("LRD001", 18)]


def test_scheduler_stepped_inside_a_wrapper_method_after_accumulation_is_reported() -> None:
    # the optimizer and its scheduler held by a project wrapper whose step() advances the
    # schedule first; the training loop only calls the wrapper
    src = """
import torch
from torch.utils.data import DataLoader
from transformers import get_linear_schedule_with_warmup


class OptimAndSchedule:
    def __init__(self, optimizer, scheduler):
        self.optimizer = optimizer
        self.scheduler = scheduler

    def step(self):
        self.scheduler.step()
        self.optimizer.step()


class Runner:
    def __init__(self, net, optim_and_schedule, batches, max_steps):
        self.net = net
        self.optim_and_schedule = optim_and_schedule
        self.batches = batches
        self.max_steps = max_steps

    def train_step(self, accumulation_steps):
        for i in range(accumulation_steps):
            loss = self.net(next(self.batches)).sum()
            loss.backward()
        self.optim_and_schedule.step()
        self.optim_and_schedule.optimizer.zero_grad()

    def train(self):
        for _ in range(self.max_steps):
            self.train_step(4)


net = torch.nn.Linear(4, 1)
opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=10, num_training_steps=500)
loader = DataLoader(list(range(64)), batch_size=8)
Runner(net, OptimAndSchedule(opt, sched), iter(loader), 500).train()
"""
    assert findings(src) == [("LRD001", 13)]
