"""A resume that fast-forwards its scheduler by stepping it in a loop that trains nothing
(rcnew52, bench/realcode/README.md).

Programs written for these tests; no third-party code.

1. ``for _ in range(last_epoch * steps_per_epoch): scheduler.step()`` in a resume helper puts
   a per-batch schedule back where the run stopped. LRD007 already read such a loop as a
   replay (the scheduler's state is not lost), but LRD002/LRD003 judged its step as a step of
   training: a loop whose header counts epochs made a batch-sized cosine "stepped once per
   epoch" (a false LRD003). A step in a loop that trains nothing, of a scheduler that another
   loop steps between updates, says where the run resumes, not how often the schedule
   advances, and is no longer judged for granularity.
2. The same replay written as a comprehension statement (``[scheduler.step() for _ in
   range(n)]``) was not traced at all, so the resume looked like it lost the schedule (a
   false LRD007). A list or set comprehension used as a statement now runs as the ``for``
   loop it stands for.
3. LRD006 on one ``step(epoch)`` over a scheduler a setting picks named only the first class
   built; it names every option's class.
4. Full-graph training (``for epoch in range(total_steps): ... optimizer.step();
   scheduler.step()``, no batch loop inside) makes one update per pass: a warm-up counted in
   steps and stepped there is stepped per update, not "once per epoch" (a false LRD003).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages

# 1. and 2. a helper module restores the optimizer and replays the schedule ---------------------

HELPER = """
import os

import torch


def load_checkpoint(model, optimizer, scheduler, folder, steps_per_epoch):
    model.load_state_dict(torch.load(os.path.join(folder, "model.pth")))
    optimizer.load_state_dict(torch.load(os.path.join(folder, "optimizer.pth")))
    last_epoch = int(open(os.path.join(folder, "epoch.txt")).read())
{replay}
    return model, optimizer, scheduler, last_epoch
"""

LOOP_REPLAY = """    for _ in range(last_epoch * steps_per_epoch):
        scheduler.step()"""
COMPREHENSION_REPLAY = "    [scheduler.step() for _ in range(last_epoch * steps_per_epoch)]"
NO_REPLAY = "    pass"

TRAINER = """
import torch

from checkpoints import load_checkpoint


class Trainer:
    def __init__(self, model, batches, epochs=100):
        self.model = model
        self.batches = batches
        self.epochs = epochs
        self.optimizer = None
        self.scheduler = None

    def setup(self):
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
            self.optimizer, T_max=self.epochs * len(self.batches))

    def train_epoch(self):
        for inputs, targets in self.batches:
            loss = torch.nn.functional.mse_loss(self.model(inputs), targets)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.scheduler.step()

    def train(self, resume=None):
        self.setup()
        last_epoch = 0
        if resume:
            self.model, self.optimizer, self.scheduler, last_epoch = load_checkpoint(
                self.model, self.optimizer, self.scheduler, resume, len(self.batches))
        for epoch in range(last_epoch, self.epochs):
            self.train_epoch()
            torch.save(self.model.state_dict(), "model.pth")
            torch.save(self.optimizer.state_dict(), "optimizer.pth")


Trainer(torch.nn.Linear(3, 3), [(torch.randn(2, 3), torch.randn(2, 3))]).train("ckpt")
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: str) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "checkpoints.py": HELPER.format(replay=replay), "train.py": TRAINER})
    return sorted(code for _, _, code in found)


def test_replay_loop_in_a_resume_helper_is_no_granularity_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # main: LRD003 at the replay loop ("stepped once per epoch, in the epoch loop")
    assert _project(tmp_path, monkeypatch, LOOP_REPLAY) == []


def test_replay_comprehension_in_a_resume_helper_restores_the_position(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # main: LRD007 (the comprehension's steps were not traced: the schedule looked lost)
    assert _project(tmp_path, monkeypatch, COMPREHENSION_REPLAY) == []


def test_resume_helper_without_replay_still_loses_the_schedule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the twin: the optimizer restored, the cosine neither restored nor replayed
    assert _project(tmp_path, monkeypatch, NO_REPLAY) == ["LRD007"]


# one file: the replay written inline in the driver ----------------------------------------------

DRIVER = """
import argparse

import torch
from torch import nn, optim

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=90)
ap.add_argument("--resume", default="")
args = ap.parse_args()
model = nn.Linear(4, 2)
optimizer = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = {scheduler}
loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(10)]
start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start_epoch = ckpt["epoch"]
{replay}
for epoch in range(start_epoch, args.epochs):
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
{step}
    torch.save({{"epoch": epoch + 1, "model": model.state_dict(),
                "optimizer": optimizer.state_dict()}}, "last.pth")
"""

STEP_LR = "optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)"
ONE_CYCLE = "optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(loader))"
PER_EPOCH = "    scheduler.step()"
PER_BATCH = "        scheduler.step()"


def _driver(scheduler: str, replay: str, step: str) -> str:
    return DRIVER.format(scheduler=scheduler, replay=replay, step=step)


def test_inline_replay_comprehension_is_no_lost_schedule() -> None:
    # main: LRD007 at the optimizer restore and at the save
    source = _driver(STEP_LR, "[scheduler.step() for _ in range(start_epoch)]", PER_EPOCH)
    assert codes(source) == []


def test_inline_replay_comprehension_with_a_condition() -> None:
    # the comprehension's `if` is the loop body's `if`
    source = _driver(STEP_LR, "[scheduler.step() for e in range(args.epochs) if e < start_epoch]",
                     PER_EPOCH)
    assert codes(source) == []


def test_inline_replay_loop_of_a_batch_schedule_is_no_lrd003() -> None:
    # main: LRD003 at the replay (`for _ in range(start_epoch * len(loader))` read as the
    # epoch loop of a batch-sized OneCycleLR)
    source = _driver(ONE_CYCLE, "for _ in range(start_epoch * len(loader)):\n    scheduler.step()",
                     PER_BATCH)
    assert codes(source) == []


def test_without_the_replay_the_lost_schedule_is_reported() -> None:
    assert codes(_driver(STEP_LR, "", PER_EPOCH)) == ["LRD007", "LRD007"]


def test_a_batch_schedule_stepped_per_epoch_is_still_lrd003_beside_a_replay() -> None:
    # the training loop's own step is still judged: only the replay's is left out
    source = _driver(ONE_CYCLE, "for _ in range(start_epoch * len(loader)):\n    scheduler.step()",
                     PER_EPOCH)
    assert codes(source) == ["LRD003"]


def test_a_comprehension_that_steps_in_the_batch_loop_is_still_per_batch() -> None:
    # `[s.step() for s in schedulers]` inside the batch loop steps each one per batch (as
    # before: a comprehension over tracked schedulers was read per scheduler already)
    source = """
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    epochs = 90
    model = torch.nn.Linear(3, 3)
    opt_a = torch.optim.SGD(model.parameters(), lr=0.1)
    opt_b = torch.optim.SGD(model.parameters(), lr=0.1)
    schedulers = [torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=epochs),
                  torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=epochs)]
    loader = DataLoader(TensorDataset(torch.randn(64, 3)), batch_size=8)
    for epoch in range(epochs):
        for (x,) in loader:
            loss = model(x).pow(2).mean()
            loss.backward()
            opt_a.step()
            opt_b.step()
            opt_a.zero_grad()
            opt_b.zero_grad()
            [s.step() for s in schedulers]
    """
    assert codes(source) == ["LRD002"]


# 3. LRD006 on a scheduler a setting picks names every class the call holds for ------------------

CHOICE = """
import argparse

import torch

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="pointnet")
args = ap.parse_args()
model = torch.nn.Linear(3, 3)
if args.model == "dgcnn":
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = {first}
else:
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
loader = [torch.randn(2, 3)] * 4
for epoch in range(300):
    scheduler.step({argument})
    for x in loader:
        optimizer.zero_grad()
        model(x).mean().backward()
        optimizer.step()
"""

COSINE = "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 250, eta_min=1e-3)"
SECOND_STEP = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.1)"


def test_lrd006_on_a_choice_names_both_classes() -> None:
    # main: "passes an epoch to CosineAnnealingLR" although the default builds a StepLR
    found = messages(CHOICE.format(first=COSINE, argument="epoch"))
    assert len(found) == 1
    assert "hands `epoch` to CosineAnnealingLR or StepLR (whichever the setting picks), " \
        "which takes it as its epoch position" in found[0]


def test_lrd006_on_a_choice_of_one_class_names_it_once() -> None:
    found = messages(CHOICE.format(first=SECOND_STEP, argument="epoch"))
    assert len(found) == 1
    assert "hands `epoch` to StepLR, which takes it as its epoch position: the argument is " \
        "deprecated" in found[0]


def test_no_epoch_no_lrd006_on_a_choice() -> None:
    # `scheduler.step()` at the top of the epoch: before the updates (LRD001), no epoch given
    assert codes(CHOICE.format(first=COSINE, argument="")) == ["LRD001"]


# 4. full-graph training: each pass of the "epoch" loop is one update ----------------------------

FULL_GRAPH = """
import torch

model = torch.nn.Linear(3, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
warmup_steps = 100
total_steps = 10000
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: min(1.0, (s + 1) / warmup_steps) * max(0.0, 1 - s / total_steps))
graph = torch.randn(50, 3)
{body}
"""

ONE_UPDATE_PER_PASS = """for epoch in range(total_steps):
    loss = model(graph).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()"""

UPDATES_IN_AN_INNER_LOOP = """chunks = [graph[i::8] for i in range(8)]
for epoch in range(100):
    for chunk in chunks:
        loss = model(chunk).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    scheduler.step()"""


def test_full_graph_epoch_loop_steps_a_step_sized_schedule_per_update() -> None:
    # main: LRD003 ("stepped once per epoch, ... counted in batches"): every epoch is one update
    assert codes(FULL_GRAPH.format(body=ONE_UPDATE_PER_PASS)) == []


def test_updates_in_an_inner_loop_keep_lrd003() -> None:
    # the twin: eight updates per epoch, the warm-up stepped once per epoch
    assert codes(FULL_GRAPH.format(body=UPDATES_IN_AN_INNER_LOOP)) == ["LRD003"]


def test_a_whole_epoch_accumulated_into_one_update_keeps_lrd003() -> None:
    # one update per epoch, but the OneCycleLR is sized in loader batches
    source = """
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    epochs = 50
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(TensorDataset(torch.randn(64, 3), torch.randn(64, 1)), batch_size=8)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-2, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        optimizer.zero_grad()
        for x, y in loader:
            (torch.nn.functional.mse_loss(model(x), y) / len(loader)).backward()
        optimizer.step()
        scheduler.step()
    """
    assert codes(source) == ["LRD003"]
