"""Shapes of the fresh-2026-12zzh107 batch (rcnew107, bench/realcode/README.md): optimizer
lifetime across fine-tuning stages and several schedulers on one optimizer (the catalog's
LRD014 stale optimizer and LRD012 competing schedulers, with their correct twins).

Programs written for these tests; no third-party code.

The batch's own cases were all scored right at first sight. Probing the family in our own
words (about 50 programs: an optimizer rebuilt at an unfreeze epoch with and without its
scheduler, in a phase loop, in a trainer's method, through a helper or a dict of
constructors, per fold of a cross-validation, before a resume; a SWALR left on the first
optimizer; SWALR beside a plateau or a per-batch cosine; warm-ups guarded and unguarded;
SequentialLR, ChainedScheduler, per-group lambdas, two optimizers; a stage-wise trainer
stepping its joint scheduler at the top of the epoch) found one miss, fixed here:

- The project's own copy of a warm-up wrapper (``class GradualWarmupScheduler(_LRScheduler)``
  with a step() that hands over to ``self.after_scheduler.step()`` after the warm-up),
  stepped in the epoch loop beside a direct step of the scheduler it was given. The pip
  package's wrapper was a composite and the double step was LRD012; the project's class is
  traced, and the hand-over was not read as one. Now a step of a scheduler made inside the
  step() method of a project scheduler class, with a direct step of the same scheduler outside
  any such method in the same loop on the same pass, is LRD012.

A second miss of the same probing, fixed: the optimizer rebuilt at the *end* of a pass, after
that pass's training (``for stage in range(3): train...; optimizer = SGD(...)``, or ``if epoch
== 10: optimizer = ...`` as the last statement of the epoch loop), while the scheduler built
before the loop stays on the first one. The trace follows one pass, so every scheduler step
came before the replacement in its order and LRD014 saw none after it. A replacement built
anew in the loop, after updates of the old optimizer made through the replaced name (or in a
call handed that name), now makes the same loop's steps of the old scheduler stale from the
next pass on; not where the scheduler is itself rebuilt in the loop, where the pass ends the
loop (``break``), where the updates go through another name, or where the two names alternate
between optimizers built before the loop.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings, messages

WRAPPER_CLASS = '''
class GradualWarmupScheduler(_LRScheduler):
    def __init__(self, optimizer, total_epoch, after_scheduler=None):
        self.total_epoch = total_epoch
        self.after_scheduler = after_scheduler
        self.finished = False
        super().__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.total_epoch:
            return self.after_scheduler.get_last_lr()
        return [base * self.last_epoch / self.total_epoch for base in self.base_lrs]

    def step(self, epoch=None):
        if self.finished and self.after_scheduler is not None:
            self.after_scheduler.step()
        else:
            if self.last_epoch >= self.total_epoch:
                self.finished = True
            super().step()
'''

HEAD = '''
import torch
from torch import nn
from torch.optim.lr_scheduler import CosineAnnealingLR, _LRScheduler

net = nn.Linear(8, 2)
batches = [torch.randn(4, 8) for _ in range(16)]
'''

LOOP = '''
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
cosine = CosineAnnealingLR(opt, T_max=90)
warmup = GradualWarmupScheduler(opt, total_epoch=5, after_scheduler=cosine)
for epoch in range(95):
    for x in batches:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
'''


def test_held_scheduler_stepped_beside_the_project_wrapper() -> None:
    src = HEAD + WRAPPER_CLASS + LOOP + '''
    warmup.step()
    cosine.step()
'''
    found = findings(src)
    assert ("LRD012", src.count("\n", 0, src.index("    cosine.step()")) + 1) in found
    text = " ".join(messages(src))
    assert "held by the scheduler `warmup`" in text
    assert "self.after_scheduler.step()" in text


def test_project_wrapper_stepped_alone_is_silent() -> None:
    src = HEAD + WRAPPER_CLASS + LOOP + '''
    warmup.step()
'''
    assert "LRD012" not in codes(src)
    assert "LRD010" not in codes(src)


def test_wrapper_or_held_scheduler_on_exclusive_branches_is_silent() -> None:
    src = HEAD + WRAPPER_CLASS + LOOP + '''
    if epoch < 5:
        warmup.step()
    else:
        cosine.step()
'''
    assert "LRD012" not in codes(src)


def test_held_scheduler_stepped_in_another_loop_is_silent() -> None:
    # the wrapper per epoch, the held cosine never by hand in that loop: a separate
    # evaluation loop that steps nothing of it
    src = HEAD + WRAPPER_CLASS + LOOP + '''
    warmup.step()
for x in batches:
    net(x)
'''
    assert "LRD012" not in codes(src)


def test_wrapper_that_steps_nothing_it_holds_is_silent() -> None:
    # a warm-up class of its own (no scheduler handed over) beside a cosine: phases in
    # disjoint epochs, each stepped by hand
    src = HEAD + '''
class LinearWarmup(_LRScheduler):
    def __init__(self, optimizer, total):
        self.total = total
        super().__init__(optimizer)

    def get_lr(self):
        return [base * min(1.0, (self.last_epoch + 1) / self.total) for base in self.base_lrs]

    def step(self, epoch=None):
        super().step()

opt = torch.optim.SGD(net.parameters(), lr=0.1)
cosine = CosineAnnealingLR(opt, T_max=90)
warmup = LinearWarmup(opt, total=5)
for epoch in range(95):
    for x in batches:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    if epoch < 5:
        warmup.step()
    else:
        cosine.step()
'''
    assert "LRD012" not in codes(src)


def test_vendored_wrapper_package_stepped_beside_its_follower(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the wrapper copied into the project as a package of the same name as the pip one
    wrapper = "from torch.optim.lr_scheduler import _LRScheduler\n" + WRAPPER_CLASS
    train = '''
import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR
from warmup_scheduler import GradualWarmupScheduler

net = nn.Linear(8, 2)
batches = [torch.randn(4, 8) for _ in range(16)]
opt = torch.optim.SGD(net.parameters(), lr=0.1)
decay = StepLR(opt, step_size=30, gamma=0.1)
warm = GradualWarmupScheduler(opt, total_epoch=5, after_scheduler=decay)
for epoch in range(100):
    for x in batches:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    warm.step()
    decay.step()
'''
    found = check_project(tmp_path, monkeypatch, {
        "warmup_scheduler/__init__.py": "from .scheduler import GradualWarmupScheduler\n",
        "warmup_scheduler/scheduler.py": wrapper,
        "train.py": train,
    })
    lines = [line for path, line, code in found if code == "LRD012" and path == "train.py"]
    assert lines == [train.count("\n", 0, train.index("    decay.step()")) + 1]


def test_vendored_wrapper_stepped_alone_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper = "from torch.optim.lr_scheduler import _LRScheduler\n" + WRAPPER_CLASS
    train = '''
import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR
from warmup_scheduler import GradualWarmupScheduler

net = nn.Linear(8, 2)
batches = [torch.randn(4, 8) for _ in range(16)]
opt = torch.optim.SGD(net.parameters(), lr=0.1)
decay = StepLR(opt, step_size=30, gamma=0.1)
warm = GradualWarmupScheduler(opt, total_epoch=5, after_scheduler=decay)
for epoch in range(100):
    for x in batches:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
    warm.step()
'''
    found = check_project(tmp_path, monkeypatch, {
        "warmup_scheduler/__init__.py": "from .scheduler import GradualWarmupScheduler\n",
        "warmup_scheduler/scheduler.py": wrapper,
        "train.py": train,
    })
    assert [c for _, _, c in found if c == "LRD012"] == []


# -- the batch's families, right before this branch (kept so they stay right) ----------------

STAGES = '''
import torch
from torch import nn, optim
from torch.optim.lr_scheduler import CosineAnnealingLR, StepLR
from torch.optim.swa_utils import SWALR, AveragedModel

net = nn.Linear(8, 2)
batches = [torch.randn(4, 8) for _ in range(16)]


def one_epoch(optimizer):
    for x in batches:
        optimizer.zero_grad()
        net(x).pow(2).mean().backward()
        optimizer.step()
'''


def test_unfreeze_rebuilds_the_optimizer_but_not_its_cosine() -> None:
    src = STAGES + '''
optimizer = optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=1e-3)
schedule = CosineAnnealingLR(optimizer, T_max=40)
for epoch in range(40):
    if epoch == 8:
        for p in net.parameters():
            p.requires_grad = True
        optimizer = optim.AdamW(net.parameters(), lr=1e-4)
    one_epoch(optimizer)
    schedule.step()
'''
    assert "LRD014" in codes(src)


def test_unfreeze_rebuilds_both_is_silent() -> None:
    src = STAGES + '''
optimizer = optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=1e-3)
schedule = CosineAnnealingLR(optimizer, T_max=40)
for epoch in range(40):
    if epoch == 8:
        optimizer = optim.AdamW(net.parameters(), lr=1e-4)
        schedule = CosineAnnealingLR(optimizer, T_max=40 - epoch)
    one_epoch(optimizer)
    schedule.step()
'''
    assert "LRD014" not in codes(src)


def test_swalr_left_on_the_first_optimizer() -> None:
    src = STAGES + '''
optimizer = optim.AdamW(net.parameters(), lr=1e-3)
swa_net = AveragedModel(net)
swa_schedule = SWALR(optimizer, swa_lr=1e-5)
for epoch in range(30):
    if epoch == 1:
        optimizer = optim.AdamW(net.parameters(), lr=1e-4)
    one_epoch(optimizer)
    if epoch >= 20:
        swa_net.update_parameters(net)
        swa_schedule.step()
'''
    assert "LRD014" in codes(src)


def test_swalr_beside_a_cosine_that_keeps_stepping() -> None:
    src = STAGES + '''
optimizer = optim.AdamW(net.parameters(), lr=1e-3)
schedule = StepLR(optimizer, 10)
swa_net = AveragedModel(net)
swa_schedule = SWALR(optimizer, swa_lr=1e-5)
for epoch in range(30):
    one_epoch(optimizer)
    if epoch >= 20:
        swa_net.update_parameters(net)
        swa_schedule.step()
    schedule.step()
'''
    assert "LRD012" in codes(src)


def test_swalr_or_the_main_schedule_is_silent() -> None:
    src = STAGES + '''
optimizer = optim.AdamW(net.parameters(), lr=1e-3)
schedule = StepLR(optimizer, 10)
swa_net = AveragedModel(net)
swa_schedule = SWALR(optimizer, swa_lr=1e-5)
for epoch in range(30):
    one_epoch(optimizer)
    if epoch >= 20:
        swa_net.update_parameters(net)
        swa_schedule.step()
    else:
        schedule.step()
'''
    assert "LRD012" not in codes(src)


def test_stage_scheduler_stepped_before_its_optimizer() -> None:
    # three optimizers by stage; the joint stage's StepLR stepped at the top of its epochs
    src = STAGES + '''
warm_optimizer = optim.Adam(net.parameters(), lr=3e-3)
joint_optimizer = optim.Adam(net.parameters(), lr=1e-4)
joint_schedule = StepLR(joint_optimizer, step_size=5, gamma=0.1)
for epoch in range(40):
    if epoch < 5:
        one_epoch(warm_optimizer)
    else:
        joint_schedule.step()
        one_epoch(joint_optimizer)
'''
    assert "LRD001" in codes(src)


# -- an optimizer rebuilt at the end of a pass ------------------------------------------------

CARRIED_HEAD = STAGES + '''
optimizer = optim.SGD(net.parameters(), lr=0.1)
schedule = StepLR(optimizer, 5)
'''


def test_rebuilt_at_the_end_of_each_stage() -> None:
    src = CARRIED_HEAD + '''
for stage in range(3):
    for epoch in range(10):
        one_epoch(optimizer)
        schedule.step()
    optimizer = optim.SGD(net.parameters(), lr=0.1 / 10 ** (stage + 1))
'''
    found = findings(src)
    line = src.count("\n", 0, src.index("        schedule.step()")) + 1
    assert ("LRD014", line) in found
    assert any("from the next pass of the loop on" in m for m in messages(src))


def test_rebuilt_as_the_last_statement_of_the_epoch_loop() -> None:
    src = CARRIED_HEAD + '''
for epoch in range(30):
    for x in batches:
        optimizer.zero_grad()
        net(x).pow(2).mean().backward()
        optimizer.step()
    schedule.step()
    if epoch == 10:
        optimizer = optim.SGD(net.parameters(), lr=0.01)
'''
    assert "LRD014" in codes(src)


def test_rebuilt_at_the_end_of_a_while_stage_loop() -> None:
    src = CARRIED_HEAD + '''
stage = 0
while stage < 3:
    for epoch in range(10):
        one_epoch(optimizer)
        schedule.step()
    stage += 1
    optimizer = optim.SGD(net.parameters(), lr=0.1 / 10 ** stage)
'''
    assert "LRD014" in codes(src)


def test_trainer_method_rebuilds_at_the_end_of_a_stage() -> None:
    src = STAGES + '''
class Trainer:
    def __init__(self):
        self.optimizer = optim.SGD(net.parameters(), lr=0.1)
        self.schedule = StepLR(self.optimizer, 5)

    def next_stage(self, stage):
        self.optimizer = optim.SGD(net.parameters(), lr=0.1 / (stage + 2))

    def fit(self):
        for stage in range(3):
            for epoch in range(10):
                for x in batches:
                    self.optimizer.zero_grad()
                    net(x).pow(2).mean().backward()
                    self.optimizer.step()
                self.schedule.step()
            self.next_stage(stage)


Trainer().fit()
'''
    assert "LRD014" in codes(src)


def test_rebuilt_with_its_scheduler_at_the_end_is_silent() -> None:
    src = CARRIED_HEAD + '''
for stage in range(3):
    for epoch in range(10):
        one_epoch(optimizer)
        schedule.step()
    optimizer = optim.SGD(net.parameters(), lr=0.1 / 10 ** (stage + 1))
    schedule = StepLR(optimizer, 5)
'''
    assert "LRD014" not in codes(src)


def test_scheduler_built_at_the_top_of_each_pass_is_silent() -> None:
    src = STAGES + '''
optimizer = optim.SGD(net.parameters(), lr=0.1)
for stage in range(3):
    schedule = StepLR(optimizer, 5)
    for epoch in range(10):
        one_epoch(optimizer)
        schedule.step()
    optimizer = optim.SGD(net.parameters(), lr=0.1 / 10 ** (stage + 1))
'''
    assert "LRD014" not in codes(src)


def test_rebuilt_then_the_loop_ends_is_silent() -> None:
    src = CARRIED_HEAD + '''
for epoch in range(30):
    one_epoch(optimizer)
    schedule.step()
    if epoch == 29:
        optimizer = optim.SGD(net.parameters(), lr=0.01)
        break
'''
    assert "LRD014" not in codes(src)


def test_loop_updates_through_another_name_is_silent() -> None:
    # the loop trains `opt`, bound once before it; rebinding `optimizer` changes nothing
    src = CARRIED_HEAD + '''
opt = optimizer
for epoch in range(30):
    one_epoch(opt)
    schedule.step()
    optimizer = optim.SGD(net.parameters(), lr=0.01)
'''
    assert "LRD014" not in codes(src)


def test_rebuilt_each_pass_from_the_schedules_lr_is_silent() -> None:
    src = CARRIED_HEAD + '''
for epoch in range(30):
    one_epoch(optimizer)
    schedule.step()
    optimizer = optim.SGD(net.parameters(), lr=schedule.get_last_lr()[0])
'''
    assert "LRD014" not in codes(src)
