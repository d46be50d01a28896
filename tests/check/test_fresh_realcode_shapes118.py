"""Shapes seen in the fresh-2026-12zzq116 batch (rcnew116, bench/realcode/README.md):
metric-driven and layered schedules (ReduceLROnPlateau fed a training loss or a metric of the
wrong direction, warm-ups and SWA beside a main scheduler, schedulers kept on objects and
stepped before their optimizers).

Programs written for these tests; no third-party code.

One dev miss of the batch, fixed: a domain-adaptation script keeps one small object per
self-supervised task (its head, optimizer and MultiStepLR as attributes) in a list, steps
`for task in tasks: task.scheduler.step()` at the top of each epoch and each task's optimizer
inside `task.train_batch()` in the batch loop: LRD001. The tracer ran a loop over a list of
the project's objects with the loop name bound to all of them, but read an attribute of that
binding as nothing (only a method call dispatched), so the scheduler step was never seen. An
attribute of such a binding is now each member's attribute; a loop over a dict's
``values()`` / ``items()`` of such objects is the same kind of pass.

Probing the family (about 40 programs) found four more shapes, fixed:

- ``vl, va = evaluate()`` where evaluate returns ``(loss_sum / n, acc)``: the plateau's metric
  is a name that says nothing; what the function returns at that position does. A metric
  bound by a tuple target to a call of a module function is read from the item at its
  position of every return (and through a negation, ``-vl``).
- ``tr = train_one_epoch()`` whose body backpropagates ``loss`` and returns ``total /
  len(loader)`` after ``total += loss.item()``: a training pass's loss, whatever the caller
  calls it; a plateau fed it while a validation metric exists is LRD004.
- a local running-average meter filled with the backpropagated loss in the method that
  steps the plateau with ``meter.avg``: the training loss (a meter on an object was already
  read this way; a local one is looked for only in the function that reads it).
- a trainer's ``train_epoch`` that steps its scheduler first under ``if self.epoch > 0:``
  (the counter it advances at its end) or ``if epoch > 0:`` (a parameter the epoch loop
  fills with its variable): the guard skips the first pass, so nothing is stepped before
  the first update; it was read as a setting, the same on every pass, and LRD001 reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# -- objects in a list, each with its optimizer and scheduler ---------------------------------

AUX_TASK = '''
import torch


class AuxTask:
    def __init__(self, head, optimizer, scheduler):
        self.head = head
        self.optimizer = optimizer
        self.scheduler = scheduler

    def train_batch(self, x, y):
        self.optimizer.zero_grad()
        torch.nn.functional.cross_entropy(self.head(x), y).backward()
        self.optimizer.step()
'''

BUILD_TASKS = '''
import torch
from aux import AuxTask


def build_tasks(heads, lr, first, second):
    tasks = []
    for head in heads:
        opt = torch.optim.SGD(head.parameters(), lr=lr, momentum=0.9)
        sched = torch.optim.lr_scheduler.MultiStepLR(opt, [first, second], gamma=0.1)
        tasks.append(AuxTask(head, opt, sched))
    return tasks
'''

EPOCH_FIRST = '''
def run_epoch(tasks, loader):
    for task in tasks:
        task.head.train()
        task.scheduler.step()
    for x, y in loader:
        for task in tasks:
            task.train_batch(x, y)
'''

EPOCH_LAST = '''
def run_epoch(tasks, loader):
    for x, y in loader:
        for task in tasks:
            task.train_batch(x, y)
    for task in tasks:
        task.scheduler.step()
'''

MAIN_TASKS = '''
import torch
from build import build_tasks
from epoch import run_epoch

heads = [torch.nn.Linear(8, 2) for _ in range(3)]
loader = [(torch.randn(4, 8), torch.tensor([0, 1, 0, 1]))] * 10
tasks = build_tasks(heads, 0.1, 5, 10)
for epoch in range(15):
    run_epoch(tasks, loader)
'''


def _task_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, epoch: str) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "aux.py": AUX_TASK, "build.py": BUILD_TASKS, "epoch.py": epoch, "main.py": MAIN_TASKS,
    })
    return project_codes(found)


def test_list_of_task_objects_stepping_their_schedulers_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _task_project(tmp_path, monkeypatch, EPOCH_FIRST) == ["LRD001"]


def test_list_of_task_objects_stepping_their_schedulers_last(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _task_project(tmp_path, monkeypatch, EPOCH_LAST) == []


HEADS = '''
import torch
from torch import nn

crit = nn.CrossEntropyLoss()
loader = [(torch.randn(4, 8), torch.tensor([0, 1, 0, 1]))] * 10


class Head:
    def __init__(self, lr):
        self.net = nn.Linear(8, 2)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=lr)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, 10)

    def update(self, x, y):
        self.optimizer.zero_grad()
        crit(self.net(x), y).backward()
        self.optimizer.step()


heads = {"coarse": Head(0.1), "fine": Head(0.01)}
for epoch in range(30):
'''


@pytest.mark.parametrize("over", ["for name, h in heads.items():", "for h in heads.values():"])
def test_dict_of_objects_stepping_their_schedulers_first(over: str) -> None:
    source = HEADS + f'''
    {over}
        h.scheduler.step()
    for x, y in loader:
        for h in heads.values():
            h.update(x, y)
'''
    assert codes(source) == ["LRD001"]


def test_dict_of_objects_stepping_their_schedulers_last() -> None:
    source = HEADS + '''
    for x, y in loader:
        for h in heads.values():
            h.update(x, y)
    for name, h in heads.items():
        h.scheduler.step()
'''
    assert codes(source) == []


def test_list_member_without_a_scheduler_is_skipped_by_its_test() -> None:
    source = '''
import torch

net = torch.nn.Linear(8, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loader = [(torch.randn(4, 8), torch.tensor([0, 1, 0, 1]))] * 10


class Stepper:
    def __init__(self, optimizer):
        self.scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 5)


class Plain:
    scheduler = None


parts = [Plain(), Stepper(opt)]
for epoch in range(30):
    for x, y in loader:
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(x), y).backward()
        opt.step()
    for part in parts:
        if part.scheduler is not None:
            part.scheduler.step()
'''
    assert codes(source) == []


# -- what the plateau watches, read from the function that computes it ------------------------

PLATEAU_BASE = '''
import torch
from torch import nn

net = nn.Linear(8, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
train_loader = [(torch.randn(4, 8), torch.tensor([0, 1, 0, 1]))] * 10
val_loader = [(torch.randn(4, 8), torch.tensor([0, 1, 0, 1]))] * 3
crit = nn.CrossEntropyLoss()


def train_one_epoch():
    net.train()
    total = 0.0
    for x, y in train_loader:
        opt.zero_grad()
        loss = crit(net(x), y)
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(train_loader)


@torch.no_grad()
def evaluate():
    net.eval()
    total_loss, hits = 0.0, 0
    for x, y in val_loader:
        out = net(x)
        total_loss += crit(out, y).item()
        hits += (out.argmax(1) == y).sum().item()
    acc = hits / 12
    return total_loss / len(val_loader), acc

'''


def _plateau(mode: str, body: str) -> str:
    return PLATEAU_BASE + f'''
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt{mode}, patience=3)
for epoch in range(50):
{body}'''


@pytest.mark.parametrize(("mode", "watched", "expected"), [
    (', mode="max"', "vl", ["LRD004"]),  # a loss watched in mode max
    (', mode="max"', "va", []),
    ("", "vl", []),
    ("", "-vl", ["LRD004"]),  # a negated loss in mode min: cut while it improves
    ("", "-va", []),  # a negated accuracy in mode min
])
def test_plateau_metric_read_from_its_position_in_the_returned_tuple(
        mode: str, watched: str, expected: list[str]) -> None:
    source = _plateau(mode, f'''
    train_one_epoch()
    vl, va = evaluate()
    sched.step({watched})
''')
    assert codes(source) == expected


def test_plateau_fed_what_the_training_pass_returns() -> None:
    source = _plateau("", '''
    tr = train_one_epoch()
    vl, va = evaluate()
    sched.step(tr)
''')
    assert codes(source) == ["LRD004"]


def test_plateau_fed_the_validation_loss_beside_the_training_pass() -> None:
    source = _plateau("", '''
    tr = train_one_epoch()
    vl, va = evaluate()
    print(tr, va)
    sched.step(vl)
''')
    assert codes(source) == []


def test_plateau_fed_the_training_pass_without_any_validation() -> None:
    source = PLATEAU_BASE.split("@torch.no_grad()")[0] + '''
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
for epoch in range(50):
    tr = train_one_epoch()
    sched.step(tr)
'''
    assert codes(source) == []


def test_function_that_does_not_backpropagate_is_no_training_pass() -> None:
    source = _plateau("", '''
    train_one_epoch()
    score = evaluate()[0]
    other = measure()
    sched.step(other)
''').replace("@torch.no_grad()\ndef evaluate", '''def measure():
    total = 0.0
    for x, y in val_loader:
        total += crit(net(x), y).item()
    return total / len(val_loader)


@torch.no_grad()
def evaluate''')
    assert codes(source) == []


METER_TRAINER = PLATEAU_BASE + '''

class Meter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value):
        self.sum += value
        self.count += 1

    @property
    def avg(self):
        return self.sum / max(1, self.count)


class Trainer:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        self.scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, patience=2)

    def fit(self, epochs):
        for epoch in range(epochs):
            meter = Meter()
            for x, y in train_loader:
                self.optimizer.zero_grad()
                loss = crit(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                meter.update(loss.item())
            val_loss, val_acc = evaluate()
            WATCHED


Trainer(net, opt).fit(20)
'''


def test_local_meter_of_the_backpropagated_loss_is_the_training_loss() -> None:
    assert codes(METER_TRAINER.replace("WATCHED", "self.scheduler.step(meter.avg)")) \
        == ["LRD004"]


def test_local_meter_filled_in_the_validation_pass_is_no_training_loss() -> None:
    source = METER_TRAINER.replace("WATCHED", '''held = Meter()
            with torch.no_grad():
                for x, y in val_loader:
                    held.update(crit(self.model(x), y).item())
            self.scheduler.step(held.avg)''')
    assert codes(source) == []


# -- a guard in the method the epoch loop calls ------------------------------------------------

GUARDED_TRAINER = '''
import torch
from torch import nn

net = nn.Linear(8, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loader = [(torch.randn(4, 8), torch.tensor([0, 1, 0, 1]))] * 10


class Trainer:
    def __init__(self, model, optimizer, scheduler):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.epoch = 0

    def train_epoch(self, loader, epoch):
        GUARD
            self.scheduler.step()
        for x, y in loader:
            self.optimizer.zero_grad()
            nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()
        self.epoch += 1


trainer = Trainer(net, opt, torch.optim.lr_scheduler.StepLR(opt, 10))
for ep in range(30):
    trainer.train_epoch(loader, ep)
'''


@pytest.mark.parametrize(("guard", "expected"), [
    ("if self.epoch > 0:", []),  # the trainer's own counter, advanced at the end
    ("if epoch > 0:", []),  # the epoch loop's variable, handed in
    ("if epoch >= 0:", ["LRD001"]),  # holds on the first pass
    ("if True:", ["LRD001"]),
])
def test_guard_on_a_counter_of_the_called_method(guard: str, expected: list[str]) -> None:
    assert codes(GUARDED_TRAINER.replace("GUARD", guard)) == expected


def test_counter_started_from_a_parameter_is_judged_as_before() -> None:
    # the counter's first value is not written: the test reads as a setting, as it did
    source = GUARDED_TRAINER.replace("GUARD", "if self.epoch > 0:").replace(
        "def __init__(self, model, optimizer, scheduler):",
        "def __init__(self, model, optimizer, scheduler, start=0):").replace(
        "self.epoch = 0", "self.epoch = start")
    assert codes(source) == ["LRD001"]


def test_counter_reset_in_the_method_is_not_followed() -> None:
    source = GUARDED_TRAINER.replace("GUARD", "if self.epoch > 0:").replace(
        "        self.epoch += 1\n", "        self.epoch += 1\n        self.epoch = 1\n")
    assert codes(source) == ["LRD001"]


def test_parameter_handed_a_shifted_loop_variable_holds_on_the_first_pass() -> None:
    # `train_epoch(loader, epoch + 1)`: the parameter is 1 on the first pass, so `epoch > 0`
    # holds there and the scheduler steps before the first update
    source = GUARDED_TRAINER.replace("GUARD", "if epoch > 0:").replace(
        "for ep in range(30):\n    trainer.train_epoch(loader, ep)",
        "for epoch in range(30):\n    trainer.train_epoch(loader, epoch + 1)")
    assert codes(source) == ["LRD001"]
