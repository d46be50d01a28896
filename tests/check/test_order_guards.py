"""LRD001 and the guards real loops put around `scheduler.step()`: only a guard that is false
on the loop's first pass keeps the step from running before the first update."""

from __future__ import annotations

from tests.check.helpers import codes, findings

HEADER = """
import torch
from torch.utils.data import DataLoader
model = torch.nn.Linear(4, 1)
loader = DataLoader(list(range(64)), batch_size=8)
loaders = {"train": loader, "val": loader}
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
"""


def script(body: str) -> str:
    return HEADER + body


def test_phase_loop_stepping_before_the_training_batches_is_reported() -> None:
    src = script("""
for epoch in range(90):
    for phase in ["train", "val"]:
        if phase == "train":
            scheduler.step()
            model.train()
        else:
            model.eval()
        for x in loaders[phase]:
            loss = model(x).sum()
            if phase == "train":
                loss.backward()
                optimizer.step()
""")
    assert findings(src) == [("LRD001", 13)]


def test_phase_loop_stepping_after_the_training_batches_is_fine() -> None:
    src = script("""
for epoch in range(90):
    for phase in ["train", "val"]:
        for x in loaders[phase]:
            loss = model(x).sum()
            if phase == "train":
                loss.backward()
                optimizer.step()
        if phase == "train":
            scheduler.step()
""")
    assert codes(src) == []


def test_accumulation_guard_shared_with_the_update_cancels_out() -> None:
    src = script("""
accum = 4
for epoch in range(90):
    for i, x in enumerate(loader):
        (model(x).sum() / accum).backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
    scheduler.step()
""")
    assert codes(src) == []


def test_accumulation_guard_shared_but_scheduler_first_is_reported() -> None:
    src = script("""
accum = 4
onecycle = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1,
                                               total_steps=90 * (len(loader) // accum))
for epoch in range(90):
    for i, x in enumerate(loader):
        (model(x).sum() / accum).backward()
        if (i + 1) % accum == 0:
            onecycle.step()
            optimizer.step()
            optimizer.zero_grad()
""")
    assert codes(src) == ["LRD001"]


def test_guard_true_on_the_first_batch_skips_nothing() -> None:
    src = script("""
onecycle = torch.optim.lr_scheduler.OneCycleLR(optimizer, 0.1, total_steps=90 * len(loader))
for epoch in range(90):
    for i, x in enumerate(loader):
        if i % 10 == 0:
            onecycle.step()
        model(x).sum().backward()
        optimizer.step()
""")
    assert codes(src) == ["LRD001"]


def test_guard_false_from_the_resume_epoch_is_fine() -> None:
    src = script("""
start_epoch = int(input())
for epoch in range(start_epoch, 90):
    if epoch > start_epoch:
        scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert codes(src) == []


def test_guard_true_from_the_resume_epoch_is_reported() -> None:
    src = script("""
start_epoch = int(input())
for epoch in range(start_epoch, 90):
    if epoch >= start_epoch:
        scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert codes(src) == ["LRD001"]


def test_guard_on_epoch_from_one_is_fine() -> None:
    src = script("""
for epoch in range(90):
    if epoch >= 1:
        scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert codes(src) == []


def test_guard_past_a_stated_warmup_is_fine() -> None:
    src = script("""
WARMUP_EPOCHS = 5
for epoch in range(90):
    if epoch >= WARMUP_EPOCHS:
        scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert codes(src) == []


def test_guard_with_an_unknown_threshold_is_left_alone() -> None:
    src = script("""
import sys
warmup = int(sys.argv[1])
for epoch in range(90):
    if epoch > warmup:
        scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert codes(src) == []


def test_else_branch_of_a_first_epoch_test_is_fine() -> None:
    src = script("""
for epoch in range(90):
    if epoch == 0:
        print("warming up")
    else:
        scheduler.step()
    for x in loader:
        optimizer.step()
""")
    assert codes(src) == []
