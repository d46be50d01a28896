"""A schedule sized in micro-batches but stepped once per update (lead72, batch
fresh-2026-12ys, bench/realcode/README.md): fine-tuning loops with gradient accumulation.

Programs written for these tests; no third-party code.

A warm-up/decay built for ``epochs * len(loader)`` steps counts every loader batch. When the
loop accumulates gradients and steps the scheduler together with the optimizer, under the
accumulation test, it takes one step per update: training ends after 1/accum of the schedule
(the warm-up lasts accum times longer, the decay never finishes). LRD003, whose catalog entry
names this case next to the per-epoch one. Silent when the horizon is divided by the
accumulation count, counted in updates some other way, or when the scheduler steps on every
micro-batch (sized for that by design).
"""

from __future__ import annotations

from .helpers import codes, findings, messages

SETUP = """
import argparse
import math

import torch
from torch import nn
from transformers import get_linear_schedule_with_warmup

parser = argparse.ArgumentParser()
parser.add_argument("--grad-accum", dest="grad_accum", type=int, default=4)
parser.add_argument("--epochs", type=int, default=3)
args = parser.parse_args()

net = nn.Linear(8, 2)
batches = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
"""

LOOP = """
for epoch in range(args.epochs):
    for i, x in enumerate(batches):
        loss = net(x).pow(2).mean() / args.grad_accum
        loss.backward()
        if (i + 1) % args.grad_accum == 0:
            opt.step()
            sched.step()
            opt.zero_grad()
"""


def program(build: str, loop: str = LOOP) -> str:
    return SETUP + build + loop


def test_warmup_sized_per_micro_batch_stepped_per_update_is_lrd003() -> None:
    source = program("sched = get_linear_schedule_with_warmup(opt, 10, "
                     "num_training_steps=len(batches) * args.epochs)\n")
    assert ("LRD003", 25) in findings(source)
    [message] = [m for m in messages(source) if "micro-batch" in m]
    assert "once per update" in message
    assert "when `args.grad_accum` > 1" in message
    assert "1/`args.grad_accum`" in message


def test_horizon_through_a_name_and_a_literal_count() -> None:
    source = SETUP + """
total = args.epochs * len(batches)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=total)
for epoch in range(args.epochs):
    for i, x in enumerate(batches):
        net(x).pow(2).mean().backward()
        if i % 4 == 3:
            opt.step()
            opt.zero_grad()
            sched.step()
"""
    assert codes(source) == ["LRD003"]
    [message] = messages(source)
    assert "when" not in message.split(":")[1]  # a literal count: no condition to name
    assert "1/4 of the schedule" in message


def test_one_cycle_per_epoch_count_of_loader_batches() -> None:
    source = program("sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, "
                     "epochs=args.epochs, steps_per_epoch=len(batches))\n")
    assert "LRD003" in codes(source)


def test_horizon_divided_by_the_accumulation_count_is_silent() -> None:
    source = program("sched = get_linear_schedule_with_warmup(opt, 10, "
                     "num_training_steps=len(batches) // args.grad_accum * args.epochs)\n")
    assert codes(source) == []


def test_one_cycle_with_updates_per_epoch_is_silent() -> None:
    source = program("sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, "
                     "epochs=args.epochs, "
                     "steps_per_epoch=math.ceil(len(batches) / args.grad_accum))\n")
    assert codes(source) == []


def test_horizon_given_in_updates_is_silent() -> None:
    source = SETUP.replace('parser.add_argument("--epochs", type=int, default=3)',
                           'parser.add_argument("--epochs", type=int, default=3)\n'
                           'parser.add_argument("--max-updates", dest="max_updates", '
                           'type=int, default=1000)') + """
sched = get_linear_schedule_with_warmup(opt, 10, num_training_steps=args.max_updates)
""" + LOOP
    assert codes(source) == []


def test_stepped_every_micro_batch_with_a_micro_batch_horizon_is_silent() -> None:
    # sized for every loader batch and stepped on each: the schedule runs its whole course
    source = SETUP + """
sched = get_linear_schedule_with_warmup(opt, 10, num_training_steps=len(batches) * args.epochs)
for epoch in range(args.epochs):
    for i, x in enumerate(batches):
        net(x).pow(2).mean().backward()
        if (i + 1) % args.grad_accum == 0:
            opt.step()
            opt.zero_grad()
        sched.step()
"""
    assert codes(source) == []


def test_no_accumulation_test_is_silent() -> None:
    source = SETUP + """
sched = get_linear_schedule_with_warmup(opt, 10, num_training_steps=len(batches) * args.epochs)
for epoch in range(args.epochs):
    for x in batches:
        net(x).pow(2).mean().backward()
        opt.step()
        sched.step()
        opt.zero_grad()
"""
    assert codes(source) == []


def test_a_period_of_one_is_no_accumulation() -> None:
    source = program("sched = get_linear_schedule_with_warmup(opt, 10, "
                     "num_training_steps=len(batches) * args.epochs)\n",
                     LOOP.replace("% args.grad_accum == 0", "% 1 == 0"))
    assert codes(source) == []


def test_a_count_of_steps_stored_elsewhere_is_not_read_as_batches() -> None:
    # `CFG.steps_per_epoch` filled in another function (there divided by the accumulation
    # count): the horizon's unit cannot be read here, so nothing is reported
    source = SETUP + """
class CFG:
    acc_steps = 4
    n_epochs = 3


def prepare():
    CFG.steps_per_epoch = math.ceil(len(batches) / CFG.acc_steps)


prepare()
sched = get_linear_schedule_with_warmup(opt, 10,
                                        num_training_steps=CFG.steps_per_epoch * CFG.n_epochs)
for epoch in range(CFG.n_epochs):
    for step, x in enumerate(batches, 1):
        net(x).pow(2).mean().backward()
        if step % CFG.acc_steps == 0 or step == len(batches):
            opt.step()
            sched.step()
            opt.zero_grad()
"""
    assert codes(source) == []


ACCELERATE = """
import torch
from torch import nn
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup

accelerator = Accelerator(gradient_accumulation_steps=ACCUM, mixed_precision="fp16")
net = nn.Linear(8, 2)
batches = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
epochs = 3
sched = get_cosine_schedule_with_warmup(opt, 100, num_training_steps=HORIZON)
net, opt, batches, sched = accelerator.prepare(net, opt, batches, sched)
for epoch in range(epochs):
    for x in batches:
        with accelerator.accumulate(net):
            accelerator.backward(net(x).pow(2).mean())
            opt.step()
            sched.step()
            opt.zero_grad()
"""


def accelerate_program(accum: str, horizon: str) -> str:
    return ACCELERATE.replace("ACCUM", accum).replace("HORIZON", horizon)


def test_prepared_schedule_under_accumulate_sized_per_micro_batch_is_lrd003() -> None:
    source = accelerate_program("8", "len(batches) * epochs")
    assert findings(source) == [("LRD003", 19)]
    [message] = messages(source)
    assert "inside `accumulate()`, where Accelerate (0.16 and later)" in message
    assert "1/8 of the schedule" in message


def test_prepared_schedule_sized_in_updates_is_silent() -> None:
    source = accelerate_program(
        "8", "epochs * math.ceil(len(batches) / accelerator.gradient_accumulation_steps)")
    assert codes("import math\n" + source) == []


def test_prepared_schedule_without_accumulation_is_silent() -> None:
    assert codes(accelerate_program("1", "len(batches) * epochs")) == []


def test_a_count_bound_to_one_is_no_accumulation() -> None:
    source = SETUP + """
ACCUM_STEPS = 1
sched = get_linear_schedule_with_warmup(opt, 10, num_training_steps=len(batches) * args.epochs)
for epoch in range(args.epochs):
    for i, x in enumerate(batches):
        (net(x).pow(2).mean() / ACCUM_STEPS).backward()
        if (i + 1) % ACCUM_STEPS == 0:
            opt.step()
            sched.step()
            opt.zero_grad()
"""
    assert codes(source) == []
    bound = source.replace("ACCUM_STEPS = 1", "ACCUM_STEPS = 2")
    assert codes(bound) == ["LRD003"]
    [message] = messages(bound)
    assert "when" not in message.split(":")[1]  # the count is known: no condition to name


def test_a_length_divided_by_the_batch_of_a_whole_update_counts_updates() -> None:
    # `total_batch_size` (a loader batch times the accumulation count) turns samples into
    # updates, not into loader batches
    for sizing in ("total_batch_size = 8 * args.grad_accum\n"
                   "total = len(batches.dataset) // total_batch_size * args.epochs\n",
                   "bs = 8 * args.grad_accum\n"
                   "total = len(batches.dataset) // bs * args.epochs\n"):
        source = program(sizing + "sched = get_linear_schedule_with_warmup(opt, 10, "
                                  "num_training_steps=total)\n")
        assert codes(source) == [], sizing
    per_batch = program("batch_size = 8\n"
                        "total = len(batches.dataset) // batch_size * args.epochs\n"
                        "sched = get_linear_schedule_with_warmup(opt, 10, "
                        "num_training_steps=total)\n")
    assert codes(per_batch) == ["LRD003"]


def test_step_epoch_on_a_loop_over_schedulers_names_each_of_them() -> None:
    # one call site stepping every scheduler of a list: not a choice a setting makes
    source = """
import torch
from torch import nn

net = nn.Linear(8, 2)
opt_a = torch.optim.SGD(net.parameters(), lr=0.1)
opt_b = torch.optim.SGD(net.parameters(), lr=0.1)
schedulers = [torch.optim.lr_scheduler.StepLR(opt_a, 30),
              torch.optim.lr_scheduler.MultiStepLR(opt_b, [30, 60])]
for epoch in range(90):
    net(torch.randn(4, 8)).sum().backward()
    opt_a.step()
    opt_b.step()
    for s in schedulers:
        s.step(epoch)
"""
    [message] = [m for m in messages(source) if "deprecated" in m]
    assert "MultiStepLR and StepLR (each scheduler of the loop over `schedulers`)" in message
    assert "whichever the setting picks" not in message
