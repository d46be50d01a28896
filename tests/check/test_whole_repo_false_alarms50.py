"""fphunt60: false alarms found in configuration-driven training code (a scheduler class
picked by name from a JSON / YAML / Hydra config, an LR range test that undoes its sweep from
a file), each fixed by semantics. Every false shape, written here in our own words, must be
silent; a buggy twin must still be reported.

1. A scheduler class taken from torch's scheduler module by a name the config holds
   (``getattr(torch.optim.lr_scheduler, config["lr_scheduler"]["type"])(opt, **args)``, or a
   helper doing the same) may be any of torch's classes, ReduceLROnPlateau included, whose
   ``step(metrics)`` takes its one argument as the monitored value. lrdoctor already let a
   step with a value named as a loss or an accuracy pass on such a scheduler of unknown
   class, but not one named otherwise (``self.sched.step(current_score)``, ``step(val_score)``,
   and by probing ``step(current)``, ``step(monitored)``): LRD006 ("hands `current_score` to
   the class ... which takes it as its epoch position"), while the JSON / YAML config named
   ReduceLROnPlateau. The class is unknown, and one of the classes the name can pick takes
   that argument as its metric: the call hands a position only where the argument reads as
   a count (its text says epoch / iteration / step, it holds the index of a loop around the
   call, or it is a whole number). Still LRD006: ``step(epoch)``, ``step(epoch + 1)``,
   ``step(k)`` with ``k`` the epoch loop's index, and a score handed to a StepLR written in
   the code (StepLR takes it as its epoch).

2. An LR range test (``class Finder`` with ``def range_test``) saves the model and the
   optimizer to a file when it is made, sweeps the LR with a scheduler local to the test, and
   loads the file back after the sweep: the load puts the optimizer back as it was before the
   trial, and the scheduler dies with the call. lrdoctor took the save and the load for a
   checkpoint and a resume missing the scheduler's state: LRD007 twice. A scheduler local to a
   function that names an LR range test, not handed out, whose optimizer state is loaded
   after its last step, is a trial the function undoes. Still LRD007: a training method that
   saves only the optimizer and loads it back before its steps (a resume), even when the
   method is named ``range_test``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# {step}: how the epoch loop steps the scheduler; {build}: how the scheduler is made
_PICKED = """
import json
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

with open(sys.argv[1]) as f:
    config = json.load(f)
model = nn.Linear(4, 1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = {build}
for epoch in range(config["epochs"]):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    val_score = sum(nn.functional.mse_loss(model(x), y).item() for x, y in loader)
    {step}
"""

_BY_NAME = ('getattr(torch.optim.lr_scheduler, config["lr_scheduler"]["type"])('
            'opt, **config["lr_scheduler"]["args"])')


def picked(step: str, build: str = _BY_NAME) -> str:
    return _PICKED.format(step=step, build=build)


def test_score_handed_to_a_class_picked_by_name_is_silent() -> None:
    assert codes(picked("sched.step(val_score)")) == []


def test_epoch_handed_to_a_class_picked_by_name_is_still_found() -> None:
    assert codes(picked("sched.step(epoch)")) == ["LRD006"]


def test_neutral_value_handed_to_a_class_picked_by_name_is_silent() -> None:
    assert codes(picked("current = val_score\n    sched.step(current)")) == []


@pytest.mark.parametrize("step", ["sched.step(epoch + 1)", "sched.step(k)"])
def test_a_count_handed_to_a_class_picked_by_name_is_still_found(step: str) -> None:
    source = picked(step).replace("for epoch in range", "for k in range") \
        if "(k)" in step else picked(step)
    assert codes(source) == ["LRD006"]


# a project template: a config object reading JSON and building the object a section names
_PARSER = """
import json


class Settings:
    def __init__(self, path):
        with open(path) as f:
            self.config = json.load(f)

    def __getitem__(self, key):
        return self.config[key]

    def build(self, key, module, *args):
        section = self[key]
        return getattr(module, section["type"])(*args, **section["args"])
"""

_TEMPLATE = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from settings import Settings


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, settings):
        self.model, self.optimizer = model, optimizer
        self.lr_scheduler, self.settings = lr_scheduler, settings
        self.loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)),
                                 batch_size=8)

    def _train_epoch(self, epoch):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
        monitored = self._valid_epoch()
        if self.lr_scheduler is not None:
            {step}

    def _valid_epoch(self):
        return 0.5

    def train(self):
        for epoch in range(self.settings["epochs"]):
            self._train_epoch(epoch)


settings = Settings("config.json")
model = nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
lr_scheduler = settings.build("lr_scheduler", torch.optim.lr_scheduler, optimizer)
Trainer(model, optimizer, lr_scheduler, settings).train()
"""

_JSON = '{"epochs": 30, "lr_scheduler": {"type": "ReduceLROnPlateau", "args": {"patience": 3}}}'


# (fphunt63: the config is read, so the class is the one it names: ReduceLROnPlateau takes
# its argument as the metric, and `step(epoch)` there watches a counter that only grows,
# LRD004; LRD006 is for a class that takes it as its epoch position, the second config's)
_STEP_JSON = '{"epochs": 30, "lr_scheduler": {"type": "StepLR", "args": {"step_size": 10}}}'


@pytest.mark.parametrize("step,config,found", [
    ("self.lr_scheduler.step(monitored)", _JSON, []),
    ("self.lr_scheduler.step(epoch)", _JSON, ["LRD004"]),
    ("self.lr_scheduler.step(epoch)", _STEP_JSON, ["LRD006"])])
def test_template_stepping_a_json_picked_scheduler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, config: str,
        found: list[str]) -> None:
    files = {"config.json": config, "settings.py": _PARSER,
             "train.py": _TEMPLATE.format(step=step)}
    assert project_codes(check_project(tmp_path, monkeypatch, files,
                                       checked=["train.py", "settings.py"])) == found


def test_score_handed_to_a_step_scheduler_is_still_found() -> None:
    source = picked("sched.step(val_score)",
                    build="torch.optim.lr_scheduler.StepLR(opt, step_size=10)")
    assert codes(source) == ["LRD006"]


_HYDRA_CONFIG = """
metric: accuracy
lr_scheduler:
  type: ReduceLROnPlateau
  args:
    mode: max
    factor: 0.5
trainer:
  epochs: 12
"""

_HELPER = """
def build(module, name, kwargs, *args):
    return getattr(module, name)(*args, **kwargs)
"""

# {step}: the runner's scheduler step after each epoch
_RUNNER = """
import hydra
import torch
from omegaconf import OmegaConf
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from helpers import build

loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)


class Runner:
    def __init__(self, model, opt, sched, config):
        self.model, self.opt, self.sched, self.config = model, opt, sched, config

    def fit(self):
        for epoch in range(self.config["trainer"]["epochs"]):
            for x, y in loader:
                self.opt.zero_grad()
                nn.functional.mse_loss(self.model(x), y).backward()
                self.opt.step()
            results = {{"val_accuracy": 0.5}}
            current_score = results[f"val_{{self.config['metric']}}"]
            {step}


@hydra.main(config_path=".", config_name="config", version_base=None)
def main(cfg):
    config = OmegaConf.to_container(cfg, resolve=True)
    model = nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = build(torch.optim.lr_scheduler, config["lr_scheduler"]["type"],
                  config["lr_scheduler"]["args"], opt)
    Runner(model, opt, sched, config).fit()


if __name__ == "__main__":
    main()
"""


def _runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str) -> list[str]:
    files = {"config.yaml": _HYDRA_CONFIG, "helpers.py": _HELPER,
             "train.py": _RUNNER.format(step=step)}
    return project_codes(check_project(tmp_path, monkeypatch, files, checked=["train.py"]))


def test_runner_stepping_a_config_picked_scheduler_with_its_score_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _runner(tmp_path, monkeypatch, "self.sched.step(current_score)") == []


def test_runner_stepping_a_config_picked_scheduler_with_the_epoch_is_still_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _runner(tmp_path, monkeypatch, "self.sched.step(epoch)") == ["LRD006"]


# an LR range test that saves its starting point to a file when it is made and loads it back
# after the sweep
_FINDER = """
import os

import torch
from torch.optim.lr_scheduler import LambdaLR


class Finder:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                   "start.pt")

    def range_test(self, loader, iters=50):
        sweep = LambdaLR(self.optimizer, lambda i: 1.2 ** i)
        lrs = []
        for i, (x, y) in enumerate(loader):
            self.optimizer.zero_grad()
            torch.nn.functional.mse_loss(self.model(x), y).backward()
            self.optimizer.step()
            lrs.append(sweep.get_last_lr()[0])
            sweep.step()
            if i >= iters:
                break
        start = torch.load("start.pt")
        self.model.load_state_dict(start["model"])
        self.optimizer.load_state_dict(start["optimizer"])
        os.remove("start.pt")
        return lrs
"""

_FINDER_USER = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from finder import Finder

model = nn.Linear(4, 1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=1e-5)
Finder(model, opt).range_test(loader)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
for epoch in range(20):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    sched.step()
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict()}, "ckpt.pt")
"""


def test_range_test_undoing_its_sweep_from_a_file_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"finder.py": _FINDER, "train.py": _FINDER_USER}
    assert check_project(tmp_path, monkeypatch, files) == []


def test_range_test_with_its_own_scheduler_only_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = _FINDER_USER.split("sched = ")[0]
    files = {"finder.py": _FINDER, "train.py": user}
    assert check_project(tmp_path, monkeypatch, files) == []


_SNAPSHOT = """
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(4, 1)
loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
{before}
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)
for epoch in range(20):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    sched.step()
    {after}
"""

_SAVE = 'torch.save({"model": model.state_dict(), "optimizer": opt.state_dict()}, "ck.pt")'


def test_snapshot_written_before_the_scheduler_exists_is_silent() -> None:
    assert codes(_SNAPSHOT.format(before=_SAVE, after="")) == []


def test_checkpoint_written_after_the_scheduler_is_built_is_still_found() -> None:
    assert codes(_SNAPSHOT.format(before="", after=_SAVE)) == ["LRD007"]


# {method}: the training method's name; a resume before the steps, a save of the optimizer only
_RESUMING = """
import os

import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)


class Runner:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def {method}(self, epochs=30):
        sched = StepLR(self.optimizer, step_size=10)
        if os.path.exists("last.pt"):
            saved = torch.load("last.pt")
            self.model.load_state_dict(saved["model"])
            self.optimizer.load_state_dict(saved["optimizer"])
        for epoch in range(epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            sched.step()
            torch.save({{"model": self.model.state_dict(),
                        "optimizer": self.optimizer.state_dict()}}, "last.pt")


model = nn.Linear(4, 1)
Runner(model, torch.optim.SGD(model.parameters(), lr=0.1)).{method}()
"""


@pytest.mark.parametrize("method", ["fit", "range_test"])
def test_a_resume_before_the_steps_is_still_found(method: str) -> None:
    assert codes(_RESUMING.format(method=method)) == ["LRD007", "LRD007"]
