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


# The batch's domain, stale optimizers in staged training: spellings of the stage-2 rebuild
# seen in the batch's repositories and the searches around it, probed on this branch (all
# found, or silent, on c4c963c already; kept as regression tests).

_STAGES_HEAD = """
import torch

net = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 1))
batches = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(5)]
"""

# a trainer's unfreeze() replaces self.optimizer; the StepLR of __init__ keeps stepping
TRAINER_UNFREEZE_REBUILDS_OPTIMIZER_ONLY = _STAGES_HEAD + """

class Trainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model[1].parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=3)

    def unfreeze(self):
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)

    def epoch(self):
        for x, y in batches:
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
        self.scheduler.step()

    def fit(self):
        for _ in range(3):
            self.epoch()
        self.unfreeze()
        for _ in range(10):
            self.epoch()


Trainer(net).fit()
"""

# the same trainer rebuilding both in unfreeze()
TRAINER_UNFREEZE_REBUILDS_BOTH = TRAINER_UNFREEZE_REBUILDS_OPTIMIZER_ONLY.replace(
    "        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)\n",
    "        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)\n"
    "        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=3)\n",
)

# a stage helper handed the new optimizer and the first stage's scheduler
STAGE_HELPER_GETS_OLD_SCHEDULER = _STAGES_HEAD + """

def run_stage(optimizer, scheduler, epochs):
    for _ in range(epochs):
        for x, y in batches:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            optimizer.step()
        scheduler.step()


opt = torch.optim.Adam(net[1].parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
run_stage(opt, sched, 3)
opt = torch.optim.Adam(net.parameters(), lr=1e-4)
run_stage(opt, sched, 10)
"""

# a builder returns (optimizer, scheduler); the second stage keeps only the optimizer
BUILDER_PAIR_SCHEDULER_DISCARDED = _STAGES_HEAD + """

def build(lr, epochs):
    opt = torch.optim.Adam([p for p in net.parameters() if p.requires_grad], lr=lr)
    return opt, torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)


class Stages:
    def __init__(self):
        self.optimizer, self.scheduler = build(1e-3, 5)

    def stage_two(self):
        self.optimizer, _ = build(1e-4, 10)

    def train(self, epochs):
        for _ in range(epochs):
            for x, y in batches:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(net(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()


s = Stages()
s.train(5)
s.stage_two()
s.train(10)
"""

# the unfrozen layers join the optimizer as a new group: the scheduler still drives it
ADD_PARAM_GROUP_ON_UNFREEZE = _STAGES_HEAD + """

optimizer = torch.optim.Adam(net[1].parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3)
for epoch in range(12):
    if epoch == 4:
        optimizer.add_param_group({"params": net[0].parameters(), "lr": 1e-4})
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    scheduler.step()
"""


def test_trainer_unfreeze_rebuilding_the_optimizer_only_is_found() -> None:
    assert "LRD014" in codes(TRAINER_UNFREEZE_REBUILDS_OPTIMIZER_ONLY)


def test_trainer_unfreeze_rebuilding_both_is_silent() -> None:
    assert "LRD014" not in codes(TRAINER_UNFREEZE_REBUILDS_BOTH)


def test_stage_helper_handed_the_first_stage_scheduler_is_found() -> None:
    assert "LRD014" in codes(STAGE_HELPER_GETS_OLD_SCHEDULER)


def test_builder_pair_with_the_scheduler_discarded_is_found() -> None:
    assert "LRD014" in codes(BUILDER_PAIR_SCHEDULER_DISCARDED)


def test_add_param_group_on_unfreeze_is_silent() -> None:
    assert "LRD014" not in codes(ADD_PARAM_GROUP_ON_UNFREEZE)


def test_optimizer_factory_of_another_module_rebuilt_in_the_loop_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "pkg/__init__.py": "",
        "pkg/opt.py": """
            import torch


            class OptimizerFactory:
                def __init__(self, lr):
                    self.lr = lr

                def create(self, params):
                    return torch.optim.AdamW(params, lr=self.lr)
            """,
        "train.py": _STAGES_HEAD + """
from pkg.opt import OptimizerFactory

factory = OptimizerFactory(1e-3)
optimizer = factory.create(net[1].parameters())
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=20)
for epoch in range(20):
    if epoch == 5:
        optimizer = factory.create(net.parameters())
    for x, y in batches:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        optimizer.step()
    scheduler.step()
"""})
    assert "LRD014" in project_codes(found)
