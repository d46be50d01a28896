"""One scheduler stepped at two loop levels: once per epoch and again after every update
(LRD012): the schedule advances len(loader) + 1 steps per epoch instead of what it was sized
for."""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

HEADER = """
import torch
from torch.utils.data import DataLoader
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
horizon = int(input())
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=horizon)
"""


def script(body: str) -> str:
    return HEADER + body


def test_step_in_the_epoch_loop_and_after_every_update_is_reported() -> None:
    src = script("""
for epoch in range(90):
    scheduler.step()
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()
""")
    assert ("LRD012", 11) in findings(src)
    message = next(m for m in messages(src) if "stepped at two levels" in m)
    assert "again after every update at line 15" in message


def test_step_in_a_train_function_and_again_in_the_epoch_loop_is_reported() -> None:
    src = script("""
def train_one_epoch(model, loader, optimizer, scheduler):
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()

for epoch in range(90):
    train_one_epoch(model, loader, optimizer, scheduler)
    scheduler.step()
""")
    assert findings(src) == [("LRD012", 18)]


def test_step_after_every_update_only_is_fine() -> None:
    src = script("""
for epoch in range(90):
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()
""")
    assert codes(src) == []


def test_per_batch_or_per_epoch_chosen_by_a_setting_is_fine() -> None:
    src = script("""
import sys
per_batch = sys.argv[1] == "batch"
for epoch in range(90):
    for x in loader:
        model(x).sum().backward()
        optimizer.step()
        if per_batch:
            scheduler.step()
    if not per_batch:
        scheduler.step()
""")
    assert codes(src) == []


def test_per_batch_and_per_epoch_in_the_two_branches_of_one_if_is_fine() -> None:
    src = script("""
import sys
per_batch = sys.argv[1] == "batch"
for epoch in range(90):
    if per_batch:
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            scheduler.step()
    else:
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
        scheduler.step()
""")
    assert codes(src) == []


_REGISTRY = """
import torch
from torch.utils.data import DataLoader
from project.schedules import SCHEDULES, make_decay

model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = {build}

def train_epoch(model, loader, optimizer, scheduler):
    for x in loader:
        optimizer.zero_grad()
        model(x).sum().backward()
        optimizer.step()
        scheduler.step()

for epoch in range(30):
    train_epoch(model, loader, optimizer, scheduler)
    scheduler.step()
"""


def test_a_scheduler_of_unknown_class_built_from_the_optimizer_is_double_stepped_too() -> None:
    # a registry of the project's warm-up classes that lrdoctor cannot read: whatever the
    # class, step() per update plus step() per epoch advances it twice
    src = _REGISTRY.format(build='SCHEDULES[input()](optimizer, warmup_steps=100)')
    assert ("LRD012", 20) in findings(src)


def test_control_something_named_scheduler_not_built_from_the_optimizer_is_left_alone() -> None:
    # `make_decay(0.99)` is given no optimizer: nothing says it moves this optimizer's LR
    src = _REGISTRY.format(build="make_decay(0.99)")
    assert "LRD012" not in codes(src)
