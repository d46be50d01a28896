"""The lead, session 46: fphunt48's LRD004 false alarm left open (a trainer template whose
full-data mode has no validation), fixed by semantics, in our own words.

1. A name that says validation only because `val` is short for value: `for name, loss_val in
   loss.items():` over the parts of the loss the same function backpropagates, or over a
   collection named for training (`train_totals.items()`). Those are training-loss parts,
   no validation metric the plateau could have watched.
2. Sibling subclasses of one template: the base's `fit_full()` epoch loop trains without
   validation and steps the plateau with the training loss (the only metric it has), while
   another subclass's `_validate()` computes a validation loss. That subclass's methods run
   on its own instances, never in this one's run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

PARTS = """
import torch
from torch import nn


class Trainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt, patience=2)

    def criterion(self, out, y):
        return {"mse": ((out - y) ** 2).mean(), "l1": (out - y).abs().mean()}

    def _train_epoch(self):
        totals = {"mse": 0.0, "l1": 0.0}
        for x, y in self.loader:
            self.opt.zero_grad()
            loss = self.criterion(self.model(x), y)
            for part, loss_val in loss.items():
                totals[part] += loss_val.item()
            loss = loss["mse"] + loss["l1"]
            loss.backward()
            self.opt.step()
        SUMMARY

    def fit(self):
        for epoch in range(self.epochs):
            train_loss = self._train_epoch()
            EXTRA
            self.plateau.step(train_loss)


data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(8)]
Trainer(nn.Linear(8, 1), data, 10).fit()
"""


SUM = "return sum(totals.values()) / len(self.loader)"
MEANS = """train_means = {}
        for part, loss_val in totals.items():
            train_means[part] = loss_val / len(self.loader)
        return sum(train_means.values())"""


def parts(summary: str, extra: str) -> str:
    return PARTS.replace("SUMMARY", summary).replace("EXTRA", extra)


def test_loop_over_training_loss_parts_is_no_validation_metric() -> None:
    # `loss_val` is a part of the training loss (the dict backpropagated, summed): nothing
    # validates in this run, so the training loss is the plateau's only metric
    assert "LRD004" not in codes(parts(SUM, "pass"))


def test_loop_over_collection_named_for_training_is_no_validation_metric() -> None:
    source = parts(MEANS, "pass").replace("totals", "train_totals")
    assert "LRD004" not in codes(source)


def test_real_validation_loss_still_found() -> None:
    # the same trainer computing a validation loss each epoch, still stepping the plateau
    # with the training loss
    extra = ("loss_val = sum(((self.model(x) - y) ** 2).mean().item() "
             "for x, y in data[:2])")
    assert "LRD004" in codes(parts(SUM, extra))


BASE = """
from abc import abstractmethod

import torch


class BaseTrainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt)

    def fit(self):
        for epoch in range(self.epochs):
            self._train_epoch()
            valid_loss = self._validate()
            self.plateau.step(valid_loss)

    def fit_full(self):
        # every sample trains: no held-out data, the training loss is all there is
        for epoch in range(self.epochs):
            train_loss = self._train_epoch()
            FULL_EXTRA
            self.plateau.step(train_loss)

    def evaluate(self, loader):
        # a final report on other data, outside any training loop
        self.loader = loader
        return self._validate(final=True)

    @abstractmethod
    def _train_epoch(self):
        raise NotImplementedError

    @abstractmethod
    def _validate(self, final=False):
        raise NotImplementedError
"""

SUBCLASS = """
class NAMETrainer(BaseTrainer):
    def _train_epoch(self):
        total = 0.0
        for x, y in self.loader:
            self.opt.zero_grad()
            loss = ((self.model(x) - y) ** 2).mean()
            loss.backward()
            self.opt.step()
            total += loss.item()
        return total / len(self.loader)

    def _validate(self, final=False):
        with torch.no_grad():
            valid_loss_sum = 0.0
            for x, y in self.loader:
                valid_loss_sum += ((self.model(x) - y) ** 2).mean().item()
        valid_loss_avg = valid_loss_sum / len(self.loader)
        return valid_loss_avg
"""

DRIVER = """
import torch
from torch import nn

from trainers import GraphTrainer

data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(8)]
trainer = GraphTrainer(nn.Linear(8, 1), data, 10)
trainer.fit_full()
"""


def _template(full_extra: str) -> dict[str, str]:
    return {
        "base.py": BASE.replace("FULL_EXTRA", full_extra),
        "trainers.py": "import torch\n\nfrom base import BaseTrainer\n"
                       + SUBCLASS.replace("NAME", "Plain") + SUBCLASS.replace("NAME", "Graph"),
        "train_all.py": DRIVER,
    }


def test_sibling_subclass_validation_is_not_this_run(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _template("pass"))
    assert "LRD004" not in project_codes(found), found


def test_full_mode_that_validates_still_found(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # the full-data loop computes the validation loss too and still watches the training loss
    found = check_project(tmp_path, monkeypatch, _template("self._validate()"))
    assert "LRD004" in project_codes(found), found


# 3. (placement, fphunt48's seungkee) An optimizer wrapper (LARS-style) whose own
# `load_state_dict` hands the state to the optimizer it wraps: the resume that leaves the
# scheduler out is the driver's `optimizer.load_state_dict(...)`, not the wrapper's line.
WRAPPER = """
import torch


class Trust(torch.optim.Optimizer):
    def __init__(self, optimizer, coefficient=0.001):
        self.inner = optimizer
        self.coefficient = coefficient

    @property
    def param_groups(self):
        return self.inner.param_groups

    def state_dict(self):
        return self.inner.state_dict()

    def load_state_dict(self, state_dict):
        self.inner.load_state_dict(state_dict)

    def zero_grad(self):
        self.inner.zero_grad()

    def step(self):
        self.inner.step()
"""

WRAPPED_DRIVER = """
import sys

import torch
from torch import nn

from trust import Trust

model = nn.Linear(8, 2)
optimizer = Trust(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer.inner, T_max=500)
first = 0
if len(sys.argv) > 1:
    saved = torch.load(sys.argv[1])
    model.load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    RESTORE
    first = saved["iteration"]
for iteration in range(first, 500):
    loss = model(torch.randn(4, 8)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "SAVED": 0, "iteration": iteration}, "last.pt")
"""


def _wrapped(restore: str, saved: str) -> dict[str, str]:
    return {"trust.py": WRAPPER,
            "train.py": WRAPPED_DRIVER.replace("RESTORE", restore).replace('"SAVED": 0',
                                                                           saved)}


def test_resume_through_wrapper_reported_at_the_drivers_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _wrapped("pass", '"SAVED": 0'))
    resumes = [(path, line) for path, line, code in found if code == "LRD007"]
    assert ("train.py", 16) in resumes, found
    assert all(path == "train.py" for path, _ in resumes), found


def test_resume_through_wrapper_with_scheduler_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _wrapped(
        'scheduler.load_state_dict(saved["scheduler"])',
        '"scheduler": scheduler.state_dict()'))
    assert "LRD007" not in project_codes(found), found


# 4. (LRD103, fphunt48's tom99763) A hand-written focal loss under float16 autocast takes
# `log(p)` and `log(1 - p)` of `p = sigmoid(x).clamp(1e-6, 1 - 1e-6)`: 1e-6 is a float16
# subnormal (log(p) stays finite), but 1 - 1e-6 rounds to 1, so 1 - p is 0 and log(1 - p) is
# -inf. And a name is a probability where its own function binds it so, not where another
# function binds a name of the same spelling.
FOCAL = """
import torch
from torch import nn


def focal(logits, target):
    p = PROB
    positive = torch.log(p) * (1 - p) ** 2
    negative = torch.log(1 - p) * p ** 2
    return -(positive * target + negative * (1 - target)).mean()


def report(logits):
    p = torch.sigmoid(logits)
    return p.mean()


model = nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cuda")
for x, y in [(torch.randn(4, 8), torch.rand(4, 1))]:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = focal(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
"""


def _focal_lines(prob: str) -> list[int]:
    from .helpers import findings
    return [line for code, line in findings(FOCAL.replace("PROB", prob)) if code == "LRD103"]


def test_log_of_one_minus_probability_clamped_to_one_is_found() -> None:
    # log(p) (line 8) is finite with min 1e-6; log(1 - p) (line 9) is -inf
    assert _focal_lines("torch.sigmoid(logits).clamp(1e-6, 1 - 1e-6)") == [9]


def test_clamp_that_float16_keeps_below_one_is_silent() -> None:
    assert _focal_lines("torch.sigmoid(logits).clamp(min=1e-4, max=0.999)") == []
    assert _focal_lines("torch.clamp(torch.sigmoid(logits), 1e-4, 0.999)") == []


def test_unclamped_probability_is_found_on_both_logs() -> None:
    assert _focal_lines("torch.sigmoid(logits)") == [8, 9]


def test_lower_clamp_that_rounds_to_zero_is_found() -> None:
    # 1e-9 is below float16's smallest subnormal: the bound is 0, log(0) = -inf
    assert _focal_lines("torch.sigmoid(logits).clamp(1e-9, 0.999)") == [8]


# 5. (LRD017, a miss) `if scheduler is not None: scheduler.step()` after the accumulation
# block: the test only asks whether the scheduler exists, and stays a step per micro-batch
# even when the scheduler's horizon is written with the accumulation count (`len(loader) //
# args.accum`), which the test's meaning spelled out and read as an accumulation guard.
GUARDED = """
import argparse

import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--accum", type=int, default=4)
args = parser.parse_args()
model = nn.Linear(8, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 8)),
                                     batch_size=4)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3,
                                                total_steps=3 * len(loader) // args.accum)
for epoch in range(3):
    for step, (x,) in enumerate(loader):
        (model(x).pow(2).mean() / args.accum).backward()
        if (step + 1) % args.accum == 0:
            optimizer.step()
            optimizer.zero_grad()
INDENTif scheduler is not None:
INDENT    scheduler.step()
"""


def test_existence_test_around_a_micro_batch_step_is_found() -> None:
    assert "LRD017" in codes(GUARDED.replace("INDENT", " " * 8))


def test_existence_test_inside_the_update_block_is_silent() -> None:
    assert "LRD017" not in codes(GUARDED.replace("INDENT", " " * 12))
