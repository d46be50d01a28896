"""Shapes behind the dev false alarm of the fresh-2026-12zg80 batch (rcnew80,
bench/realcode/README.md), and the spellings of the same family probed after it.

Programs written for these tests; no third-party code.

- A builder function picks the scheduler by its own parameter (`if kind == "steps": return
  MultiStepLR(...)`, `elif kind == "plateau": return ReduceLROnPlateau(...)`) and the caller
  hands it a setting as it is (`build(args.scheduler, optimizer)`). The step is made under a
  test of that same setting (`if args.scheduler == "plateau": sched.step(score)`), in the
  loop or in a helper given `args`. lrdoctor read the builder's tests under the parameter's
  name (`kind`) and the step's tests under the setting's (`scheduler`), saw no relation, and
  so took the plateau's `step(score)` as a possible MultiStepLR step with an epoch
  (LRD006). Python binds the parameter to the very object `args.scheduler` holds, so both
  tests read one value: the MultiStepLR is built only where the step test fails. A parameter
  filled with a setting (positionally, by keyword, passed on by name to a further builder)
  now stands for that setting in the tests inside the builder, until the function binds the
  name to something else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

_HEAD = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--scheduler", default="steps")
parser.add_argument("--warmup_kind", default="none")
parser.add_argument("--epochs", type=int, default=30)
args = parser.parse_args()

net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


def one_epoch(optimizer):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()


def validate():
    return 0.7
"""

_BUILDER = """

def build(kind, optimizer):
    if kind == "steps":
        return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[10, 20])
    elif kind == "plateau":
        return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max")
    raise ValueError(kind)
"""

# the loop tests the setting the builder was handed: the plateau's metric step never meets
# the MultiStepLR
SAME_SETTING_IN_LOOP = _HEAD + _BUILDER + """

optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
sched = build(args.scheduler, optimizer)
for epoch in range(args.epochs):
    one_epoch(optimizer)
    score = validate()
    if args.scheduler == "plateau":
        sched.step(score)
    else:
        sched.step()
"""

# the same with the step test the other way round: the epoch goes to the MultiStepLR
SAME_SETTING_EPOCH_TO_MULTISTEP = _HEAD + _BUILDER + """

optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
sched = build(args.scheduler, optimizer)
for epoch in range(args.epochs):
    one_epoch(optimizer)
    score = validate()
    if args.scheduler == "steps":
        sched.step(epoch)
    else:
        sched.step(score)
"""

# the builder is handed another setting than the one the step tests: nothing ties them
OTHER_SETTING = _HEAD + _BUILDER + """

optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
sched = build(args.warmup_kind, optimizer)
for epoch in range(args.epochs):
    one_epoch(optimizer)
    score = validate()
    if args.scheduler == "plateau":
        sched.step(score)
    else:
        sched.step()
"""

# by keyword, from a config dict
KEYWORD_FROM_DICT = """
import json
import torch

cfg = json.load(open("run.json"))
net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


def build(optimizer, kind="steps"):
    if kind == "plateau":
        return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)


optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
sched = build(optimizer, kind=cfg["sched"])
for epoch in range(cfg["epochs"]):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    val_loss = 0.3
    if cfg["sched"] == "plateau":
        sched.step(val_loss)
    else:
        sched.step()
"""

# passed on by name to a second builder, read with `.get`
PASSED_ON_TWICE = """
import json
import torch

cfg = json.load(open("run.json"))
net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


def make(name, optimizer):
    if name == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)
    return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)


def build(name, optimizer):
    return make(name, optimizer)


optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
sched = build(cfg.get("sched"), optimizer)
for epoch in range(cfg["epochs"]):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    val_loss = 0.3
    if cfg.get("sched") == "cosine":
        sched.step()
    else:
        sched.step(val_loss)
"""

# the builder rebinds its parameter before testing it: the test reads another value (with
# `--sched plateau` the builder makes the StepLR, and the loop hands it the loss)
REBOUND_IN_BUILDER = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--sched", default="steps")
args = parser.parse_args()
net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


def build(kind, optimizer):
    kind = "plateau" if kind == "auto" else "steps"
    if kind == "plateau":
        return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    return torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)


optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
sched = build(args.sched, optimizer)
for epoch in range(30):
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    val_loss = 0.3
    if args.sched == "plateau":
        sched.step(val_loss)
    else:
        sched.step()
"""

# a method of a trainer hands its config's setting to a builder method; another method tests
# the same setting
TRAINER_METHODS = """
import torch

net = torch.nn.Linear(8, 1)
batches = [(torch.randn(16, 8), torch.randn(16, 1)) for _ in range(10)]


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        self.sched = self.make_scheduler(self.cfg.lr_policy)

    def make_scheduler(self, policy):
        if policy == "multistep":
            return torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=[5, 8])
        return torch.optim.lr_scheduler.ReduceLROnPlateau(self.optimizer, mode="max")

    def fit(self):
        for epoch in range(self.cfg.epochs):
            for x, y in batches:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(net(x), y).backward()
                self.optimizer.step()
            acc = 0.9
            if self.cfg.lr_policy == "multistep":
                self.sched.step()
            else:
                self.sched.step(acc)
"""


def test_builder_handed_the_tested_setting_is_silent() -> None:
    assert "LRD006" not in codes(SAME_SETTING_IN_LOOP)


def test_epoch_handed_to_the_multistep_of_that_setting_is_found() -> None:
    assert "LRD006" in codes(SAME_SETTING_EPOCH_TO_MULTISTEP)


def test_builder_handed_another_setting_is_still_found() -> None:
    assert "LRD006" in codes(OTHER_SETTING)


def test_keyword_from_a_config_dict_is_silent() -> None:
    assert "LRD006" not in codes(KEYWORD_FROM_DICT)


def test_setting_passed_on_by_name_through_two_builders_is_silent() -> None:
    assert "LRD006" not in codes(PASSED_ON_TWICE)


def test_parameter_rebound_in_the_builder_is_still_found() -> None:
    assert "LRD006" in codes(REBOUND_IN_BUILDER)


def test_trainer_method_handed_its_config_setting_is_silent() -> None:
    assert "LRD006" not in codes(TRAINER_METHODS)


# two modules, as a segmentation project writes them: the builder and a step helper given
# `args` in utils/, the script in the root
_UTILS = """
import torch


def get_scheduler(scheduler_name, optimizer, epochs=40):
    if scheduler_name == "steps":
        return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[20, 30])
    elif scheduler_name == "plateau":
        return torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="max", patience=5)
    elif scheduler_name == "constant":
        return torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[9999])
    assert False, "Unknown scheduler"


def scheduler_step(optimizer, scheduler, metric, args):
    if args.scheduler == "steps":
        scheduler.step()
    elif args.scheduler == "plateau":
        scheduler.step(metric)
"""

_UTILS_EPOCH_TO_STEPS = _UTILS.replace(
    'if args.scheduler == "steps":\n        scheduler.step()',
    'if args.scheduler == "steps":\n        scheduler.step(metric)',
)

_SCRIPT = """
import argparse
import torch
from utils.training import get_scheduler, scheduler_step

parser = argparse.ArgumentParser()
parser.add_argument("--scheduler", type=str, default="")
parser.add_argument("--epochs", type=int, default=40)
args = parser.parse_args()

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = get_scheduler(args.scheduler, optimizer, epochs=args.epochs)

for epoch in range(args.epochs):
    for _ in range(10):
        optimizer.zero_grad()
        model(torch.randn(3, 4)).sum().backward()
        optimizer.step()
    iou = 0.5
    scheduler_step(optimizer, scheduler, iou, args)
"""


def test_helper_in_another_module_tests_the_handed_setting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "utils/__init__.py": "", "utils/training.py": _UTILS, "train.py": _SCRIPT})
    assert "LRD006" not in project_codes(found)


def test_helper_in_another_module_steps_the_multistep_with_a_metric(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "utils/__init__.py": "", "utils/training.py": _UTILS_EPOCH_TO_STEPS,
        "train.py": _SCRIPT})
    assert "LRD006" in project_codes(found)
