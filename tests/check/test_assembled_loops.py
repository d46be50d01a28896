"""Training loops assembled from parts (issue 7, batch "fresh-2026-12v"): a runner class that
keeps its hooks or callbacks in a list and calls them at fixed points of its loop ("after
each iteration", "after each epoch"), by name (``getattr(hook, stage)()``) or directly; hooks
defined in other modules that reach the runner's optimizer and scheduler through the runner
(``self.trainer.scheduler``, a ``runner`` argument); lists filled by a builder function. Each
test is the general shape in our own words, written as a small project of several modules,
next to the control that must stay as it is."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

CODES = frozenset(CATALOG)


def check_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  files: dict[str, str]) -> list[tuple[str, str]]:
    """(path, code) of every finding for a project made of ``files``."""
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), CODES, jobs=1)
    assert report.errors == []
    return [(d.path, d.code) for d in report.diagnostics]


def codes_of(found: list[tuple[str, str]]) -> set[str]:
    return {code for _, code in found}


# -- a runner that calls its hooks by the stage's name ---------------------------------------
# The engine module knows nothing of schedulers: its loop calls every registered hook's method
# named after the point it has reached. The scheduler is stepped by a hook in another module
# that reads it through the runner it was registered with.

ENGINE_BY_NAME = """
class Hook:
    runner = None

    def after_iteration(self):
        pass

    def after_epoch(self):
        pass


class Runner:
    def __init__(self, net, opt, sched, data, epochs):
        self.net = net
        self.opt = opt
        self.sched = sched
        self.data = data
        self.epochs = epochs
        self.hooks = []

    def add_hooks(self, hooks):
        for hook in hooks:
            hook.runner = self
            self.hooks.append(hook)

    def fire(self, point):
        for hook in self.hooks:
            getattr(hook, point)()

    def run(self):
        for epoch in range(self.epochs):
            for inputs, targets in self.data:
                self.opt.zero_grad()
                loss = (self.net(inputs) - targets).pow(2).mean()
                loss.backward()
                self.opt.step()
                self.fire("after_iteration")
            self.fire("after_epoch")
"""

LR_HOOK = """
from engine import Hook


class DecayHook(Hook):
    def {method}(self):
        self.runner.sched.step()
"""

DRIVER_BY_NAME = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from engine import Runner
from lr_hooks import DecayHook


def main():
    net = torch.nn.Linear(8, 1)
    data = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)
    runner = Runner(net, opt, sched, data, 90)
    runner.add_hooks([DecayHook()])
    runner.run()


if __name__ == "__main__":
    main()
"""


def by_name(method: str) -> dict[str, str]:
    return {"engine.py": ENGINE_BY_NAME, "lr_hooks.py": LR_HOOK.format(method=method),
            "train.py": DRIVER_BY_NAME}


def test_hook_called_by_name_after_each_iteration_steps_an_epoch_schedule_per_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, by_name("after_iteration"))
    assert ("lr_hooks.py", "LRD002") in found


def test_control_hook_called_by_name_after_each_epoch_is_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_project(tmp_path, monkeypatch, by_name("after_epoch")) == []


# -- hooks built by a builder function, registered in the runner's constructor ----------------
# The runner of a detection toolbox: the hooks come from `make_hooks(cfg, ...)`, which fills a
# `list()` (leaving None for hooks switched off), and the runner keeps the ones that are not
# None. The learning-rate hook was handed the scheduler itself.

BASE_RUNNER = """
class HookBase:
    def before_step(self):
        pass

    def after_step(self):
        pass

    def after_epoch(self):
        pass


class RunnerBase:
    def __init__(self):
        self._hooks = []

    def register_hooks(self, hooks):
        hooks = [h for h in hooks if h is not None]
        for h in hooks:
            h.trainer = self
        self._hooks.extend(hooks)

    def train(self, epochs):
        for self.epoch in range(epochs):
            for self.batch in self.loader:
                for h in self._hooks:
                    h.before_step()
                self.run_step()
                for h in self._hooks:
                    h.after_step()
            for h in self._hooks:
                h.after_epoch()

    def run_step(self):
        raise NotImplementedError
"""

HOOKS_MODULE = """
from base import HookBase


class LRStepper(HookBase):
    def __init__(self, scheduler):
        self._scheduler = scheduler

    def {method}(self):
        self._scheduler.step()


class Timer(HookBase):
    def before_step(self):
        pass


def make_hooks(cfg, scheduler):
    ret = list()
    ret.append(Timer())
    ret.append(LRStepper(scheduler))
    ret.append(None if cfg.no_eval else Timer())
    return ret
"""

SUBCLASS_RUNNER = """
import torch

from base import RunnerBase
from hooks import make_hooks


class Trainer(RunnerBase):
    def __init__(self, cfg, model, loader):
        super().__init__()
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
            self.optimizer, T_max={t_max})
        self.register_hooks(make_hooks(cfg, self.scheduler))

    def run_step(self):
        x, y = self.batch
        self.optimizer.zero_grad()
        torch.nn.functional.mse_loss(self.model(x), y).backward()
        self.optimizer.step()
"""

DRIVER_SUBCLASS = """
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

from trainer import Trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--no-eval", action="store_true")
    cfg = parser.parse_args()
    model = torch.nn.Linear(8, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    Trainer(cfg, model, loader).train(cfg.epochs)


if __name__ == "__main__":
    main()
"""


def subclass_project(method: str, t_max: str) -> dict[str, str]:
    return {"base.py": BASE_RUNNER, "hooks.py": HOOKS_MODULE.format(method=method),
            "trainer.py": SUBCLASS_RUNNER.format(t_max=t_max), "train.py": DRIVER_SUBCLASS}


def test_built_hook_list_steps_an_epoch_cosine_after_every_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, subclass_project("after_step", "cfg.epochs"))
    assert ("hooks.py", "LRD002") in found


def test_control_built_hook_list_steps_an_epoch_cosine_after_every_epoch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, subclass_project("after_epoch", "cfg.epochs"))
    assert found == []


def test_control_built_hook_list_steps_a_batch_cosine_after_every_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch,
                          subclass_project("after_step", "cfg.epochs * len(loader)"))
    assert found == []


# -- a hook that steps at the level its mode names --------------------------------------------
# The scheduler hook of an Accelerate-style mini-framework takes `mode` ("per_step" or
# "per_epoch") and returns early from the method of the other level. The mode is a literal the
# driver passes: only the level it names steps the schedule.

MODE_TRAINER = """
class Hook:
    def __init__(self, trainer):
        self.trainer = trainer

    def on_step_end(self):
        pass

    def on_epoch_end(self):
        pass


class Trainer:
    def __init__(self, model, optimizer, loader, epochs):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.epochs = epochs
        self.hooks = []

    def run(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                (self.model(x) - y).pow(2).mean().backward()
                self.optimizer.step()
                for hook in self.hooks:
                    hook.on_step_end()
            for hook in self.hooks:
                hook.on_epoch_end()
"""

MODE_HOOK = """
from trainer import Hook


class SchedulerHook(Hook):
    def __init__(self, trainer, schedulers, mode="per_epoch"):
        super().__init__(trainer)
        assert mode in ("per_epoch", "per_step")
        self.mode = mode
        self.schedulers = list(schedulers)

    def on_epoch_end(self):
        if self.mode != "per_epoch":
            return
        for s in self.schedulers:
            s.step()

    def on_step_end(self):
        if self.mode != "per_step":
            return
        for s in self.schedulers:
            s.step()
"""

MODE_DRIVER = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from sched_hook import SchedulerHook
from trainer import Trainer


class MyTrainer(Trainer):
    def __init__(self, model, optimizer, loader, epochs, scheduler, mode):
        super().__init__(model, optimizer, loader, epochs)
        self.hooks = [SchedulerHook(self, [scheduler], mode=mode)]


def main():
    model = torch.nn.Linear(8, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-2, total_steps=len(loader) * 20)
    MyTrainer(model, optimizer, loader, 20, scheduler, mode="{mode}").run()


if __name__ == "__main__":
    main()
"""


def mode_project(mode: str) -> dict[str, str]:
    return {"trainer.py": MODE_TRAINER, "sched_hook.py": MODE_HOOK,
            "train.py": MODE_DRIVER.format(mode=mode)}


def test_control_hook_in_per_step_mode_steps_a_batch_schedule_once_per_batch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_project(tmp_path, monkeypatch, mode_project("per_step")) == []


def test_hook_in_per_epoch_mode_steps_a_batch_schedule_once_per_epoch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, mode_project("per_epoch"))
    assert codes_of(found) == {"LRD003"}


# -- a level flag nobody can read statically --------------------------------------------------
# `by_epoch` comes from a config file: the hook steps after the epoch when it is true and after
# the iteration when it is false. Either way the schedule steps at one level only: never two
# levels at once, and an epoch schedule is not stepped per batch in the configuration it is
# meant for.

FLAG_HOOK = """
from engine import Hook


class LRUpdate(Hook):
    def __init__(self, by_epoch):
        self.by_epoch = by_epoch

    def after_iteration(self):
        if not self.by_epoch:
            self.runner.sched.step()

    def after_epoch(self):
        if self.by_epoch:
            self.runner.sched.step()
"""

FLAG_DRIVER = """
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

from engine import Runner
from lr_hooks import LRUpdate


def main():
    cfg = json.load(open("config.json"))
    net = torch.nn.Linear(8, 1)
    data = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=cfg["milestones"])
    runner = Runner(net, opt, sched, data, cfg["epochs"])
    runner.add_hooks([LRUpdate(cfg["by_epoch"])])
    runner.run()


if __name__ == "__main__":
    main()
"""


def test_control_level_flag_read_from_a_config_steps_at_one_level(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"engine.py": ENGINE_BY_NAME, "lr_hooks.py": FLAG_HOOK, "train.py": FLAG_DRIVER}
    assert check_project(tmp_path, monkeypatch, files) == []


# -- hooks that are handed the runner ---------------------------------------------------------
# An mmcv-style runner calls `getattr(hook, fn_name)(self)`: each hook method receives the
# runner and reaches its optimizer and scheduler through it.

RUNNER_ARG = """
class Hook:
    def before_train_iter(self, runner):
        pass

    def after_train_iter(self, runner):
        pass

    def after_train_epoch(self, runner):
        pass


class EpochRunner:
    def __init__(self, model, optimizer, scheduler, max_epochs):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.max_epochs = max_epochs
        self._hooks = []

    def register_hook(self, hook):
        self._hooks.insert(len(self._hooks), hook)

    def call_hook(self, fn_name):
        for hook in self._hooks:
            getattr(hook, fn_name)(self)

    def train(self, data_loader):
        for i, batch in enumerate(data_loader):
            self.call_hook("before_train_iter")
            self.outputs = self.model.train_step(batch, self.optimizer)
            self.call_hook("after_train_iter")
        self.call_hook("after_train_epoch")

    def run(self, data_loader):
        for epoch in range(self.max_epochs):
            self.train(data_loader)
"""

RUNNER_ARG_HOOKS = """
from runner import Hook


class OptimizerHook(Hook):
    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs["loss"].backward()
        runner.optimizer.step()


class ParamSchedulerHook(Hook):
    def {method}(self, runner):
        runner.scheduler.step()
"""

RUNNER_ARG_DRIVER = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from hooks import OptimizerHook, ParamSchedulerHook
from runner import EpochRunner


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(8, 1)

    def train_step(self, batch, optimizer):
        x, y = batch
        return {{"loss": torch.nn.functional.mse_loss(self.fc(x), y)}}


def main():
    model = Model()
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={t_max})
    runner = EpochRunner(model, optimizer, scheduler, max_epochs=12)
    runner.register_hook(OptimizerHook())
    runner.register_hook(ParamSchedulerHook())
    runner.run(loader)


if __name__ == "__main__":
    main()
"""


def runner_arg_project(method: str, t_max: str) -> dict[str, str]:
    return {"runner.py": RUNNER_ARG, "hooks.py": RUNNER_ARG_HOOKS.format(method=method),
            "train.py": RUNNER_ARG_DRIVER.format(t_max=t_max)}


def test_hook_given_the_runner_steps_an_epoch_cosine_after_every_iteration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, runner_arg_project("after_train_iter", "12"))
    assert ("hooks.py", "LRD002") in found


def test_control_hook_given_the_runner_steps_an_epoch_cosine_after_every_epoch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, runner_arg_project("after_train_epoch", "12"))
    assert found == []


def test_control_hook_given_the_runner_steps_a_batch_cosine_after_every_iteration(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch,
                          runner_arg_project("after_train_iter", "12 * len(loader)"))
    assert found == []


MODE_FROM_CONFIG = """
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

from sched_hook import SchedulerHook
from trainer import Trainer


def main():
    cfg = json.load(open("config.json"))
    model = torch.nn.Linear(8, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["step_size"])
    trainer = Trainer(model, optimizer, loader, cfg["epochs"])
    trainer.hooks.append(SchedulerHook(trainer, [scheduler], mode=cfg["sched_mode"]))
    trainer.run()


if __name__ == "__main__":
    main()
"""


def test_control_hook_mode_read_from_a_config_steps_at_one_level(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"trainer.py": MODE_TRAINER, "sched_hook.py": MODE_HOOK, "train.py": MODE_FROM_CONFIG}
    assert check_project(tmp_path, monkeypatch, files) == []


# -- a property of the project's scheduler wrapper --------------------------------------------
# The warm-up wrapper asks `self.is_plateau` (a property returning `isinstance(self.inner,
# ReduceLROnPlateau)`) before passing the metric: with a StepLR inside, that branch never runs.

WRAPPER = """
from torch.optim.lr_scheduler import ReduceLROnPlateau


class WarmupWrapper:
    def __init__(self, inner, by_epoch=True, warmup=0):
        self.inner = inner
        self.by_epoch = by_epoch
        self.warmup = warmup
        self.count = 0

    @property
    def is_plateau(self):
        \"\"\"Whether the wrapped schedule waits for a metric.\"\"\"
        return isinstance(self.inner, ReduceLROnPlateau)

    def epoch_update(self, metric=None):
        if not self.by_epoch:
            return
        if self.is_plateau:
            self.inner.step(metric)
        else:
            self.inner.step({plain_step})

    def iter_update(self):
        self.count += 1
        if self.count < self.warmup:
            return
        if not self.by_epoch:
            self.inner.step()
"""

WRAPPER_ENGINE = """
from warm import WarmupWrapper


class Hook:
    trainer = None

    def after_iter(self):
        pass

    def after_epoch(self):
        pass


class LRHook(Hook):
    def after_epoch(self):
        if self.trainer.lr_scheduler.is_plateau:
            self.trainer.lr_scheduler.epoch_update(self.trainer.metric)
        else:
            self.trainer.lr_scheduler.epoch_update()

    def after_iter(self):
        self.trainer.lr_scheduler.iter_update()


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler, loader, epochs, by_epoch=True):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = WarmupWrapper(lr_scheduler, by_epoch)
        self.loader = loader
        self.epochs = epochs
        self.metric = 0.0
        self._hooks = []
        self.register([LRHook()])

    def register(self, hooks):
        for h in hooks:
            h.trainer = self
            self._hooks.append(h)

    def call(self, stage):
        for h in self._hooks:
            getattr(h, stage)()

    def train(self):
        for epoch in range(self.epochs):
            for x, y in self.loader:
                loss = (self.model(x) - y).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self.call("after_iter")
            self.call("after_epoch")
"""

WRAPPER_DRIVER = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from engine import Trainer


def main():
    model = torch.nn.Linear(8, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    Trainer(model, optimizer, scheduler, loader, 30).train()


if __name__ == "__main__":
    main()
"""


def wrapper_project(plain_step: str) -> dict[str, str]:
    return {"warm.py": WRAPPER.format(plain_step=plain_step), "engine.py": WRAPPER_ENGINE,
            "train.py": WRAPPER_DRIVER}


def test_control_property_test_keeps_the_metric_from_a_step_schedule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_project(tmp_path, monkeypatch, wrapper_project("")) == []


def test_wrapper_that_passes_an_epoch_to_a_step_schedule_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, wrapper_project("self.count"))
    assert ("warm.py", "LRD006") in found


# -- callbacks that decide for themselves where they run --------------------------------------
# A Keras-like trainer calls every callback at every point of its loop and each callback checks
# the phase it was configured for (`if cb.applies(self): cb(self)`, or a generic `cb(self)`
# whose body looks at the phase). Which callback acts where is the callbacks' own setting:
# nothing is placed in the loop for them, so an epoch-end scheduler callback is not reported
# as stepping per batch.

PHASE_TRAINER = """
import enum


class Phase(enum.Enum):
    BATCH_END = 1
    EPOCH_END = 2


class Callback:
    def __init__(self, phase):
        self.phase = phase

    def applies(self, trainer):
        return trainer.phase == self.phase

    def __call__(self, trainer):
        raise NotImplementedError


class StepOptimizer(Callback):
    def __init__(self):
        super().__init__(Phase.BATCH_END)

    def __call__(self, trainer):
        trainer.loss.backward()
        trainer.optimizer.step()
        trainer.optimizer.zero_grad()


class StepScheduler(Callback):
    def __call__(self, trainer):
        trainer.scheduler.step()


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader, callbacks):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader
        self.callbacks = callbacks
        self.phase = None

    def _invoke(self):
        for cb in self.callbacks:
            {dispatch}

    def train(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.loss = (self.model(x) - y).pow(2).mean()
                self.phase = Phase.BATCH_END
                self._invoke()
            self.phase = Phase.EPOCH_END
            self._invoke()
"""

PHASE_DRIVER = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from fw import Phase, StepOptimizer, StepScheduler, Trainer


def main():
    model = torch.nn.Linear(8, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    callbacks = [StepOptimizer(), StepScheduler(Phase.EPOCH_END)]
    Trainer(model, optimizer, scheduler, loader, callbacks).train(30)


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("dispatch", [
    "if cb.applies(self):\n                cb(self)",
    "cb(self)",
    "if cb.phase == self.phase:\n                cb.__call__(self)",
])
def test_control_callbacks_that_pick_their_own_phase_are_not_placed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dispatch: str) -> None:
    files = {"fw.py": PHASE_TRAINER.format(dispatch=dispatch), "train.py": PHASE_DRIVER}
    assert check_project(tmp_path, monkeypatch, files) == []


# -- an iteration-based runner that fires its epoch hooks every epoch_len iterations ----------
# One loop over iterations; `(it + 1) % epoch_len == 0` closes an epoch and runs the epoch-end
# hooks there. A scheduler stepped by an epoch-end hook steps once per epoch, not after every
# update: the updates GradScaler skips do not move an epoch schedule ahead. The same hook at
# the end of every iteration still does.

ITER_ENGINE = """
from torch.cuda.amp import GradScaler, autocast


class Hook:
    trainer = None

    def after_iter(self):
        pass

    def after_epoch(self):
        pass


class IterRunner:
    def __init__(self, model, optimizer, scheduler, loader, epochs, enable_amp=False):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader
        self.epoch_len = len(loader)
        self.max_iters = epochs * self.epoch_len
        self._hooks = []
        self._it = iter(loader)
        self._amp = enable_amp
        self._scaler = GradScaler(enabled=self._amp)

    def register_hooks(self, hooks):
        for h in hooks:
            h.trainer = self
            self._hooks.append(h)

    def _call_hooks(self, stage):
        for h in self._hooks:
            getattr(h, stage)()

    def one_iter(self):
        try:
            x, y = next(self._it)
        except StopIteration:
            self._it = iter(self.loader)
            x, y = next(self._it)
        with autocast(enabled=self._amp):
            loss = (self.model(x) - y).pow(2).mean()
        self.optimizer.zero_grad()
        self._scaler.scale(loss).backward()
        self._scaler.step(self.optimizer)
        self._scaler.update()

    def train(self):
        for self.cur_iter in range(self.max_iters):
            self.one_iter()
            self._call_hooks("after_iter")
            if (self.cur_iter + 1) % self.epoch_len == 0:
                self._call_hooks("after_epoch")
"""

ITER_HOOK = """
from engine import Hook


class Decay(Hook):
    def {method}(self):
        self.trainer.scheduler.step()
"""

ITER_DRIVER = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from engine import IterRunner
from lr_hooks import Decay


def main():
    model = torch.nn.Linear(8, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.{sched}
    runner = IterRunner(model, optimizer, scheduler, loader, 30)
    runner.register_hooks([Decay()])
    runner.train()


if __name__ == "__main__":
    main()
"""


def iter_project(method: str, sched: str) -> dict[str, str]:
    return {"engine.py": ITER_ENGINE, "lr_hooks.py": ITER_HOOK.format(method=method),
            "train.py": ITER_DRIVER.format(sched=sched)}


def test_control_epoch_hook_of_an_iteration_runner_is_no_skipped_update_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch,
                          iter_project("after_epoch", "StepLR(optimizer, step_size=1)"))
    assert "LRD005" not in codes_of(found)


def test_iteration_hook_after_a_scaler_step_still_runs_on_skipped_updates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, iter_project(
        "after_iter", "CosineAnnealingLR(optimizer, T_max=30 * len(loader))"))
    assert ("lr_hooks.py", "LRD005") in found


# -- the caller's trace stands in for a root that goes through another module -----------------
# The runner module, checked on its own terms, traces its class with its settings unknown: the
# warm-up wrapper (another module) may then step its schedule per iteration. The driver builds
# the runner with the level flag at its default (per epoch) and its trace goes through the same
# wrapper code: that trace is the one that knows, for the wrapper's module as for the runner's.

def wrapper_amp_project(driver_call: str) -> dict[str, str]:
    engine = WRAPPER_ENGINE.replace(
        "    def __init__(self, model, optimizer, lr_scheduler, loader, epochs, by_epoch=True):",
        "    def __init__(self, model, optimizer, lr_scheduler, loader, epochs, by_epoch=True,\n"
        "                 enable_amp=False):",
    ).replace(
        "        self.metric = 0.0",
        "        self.metric = 0.0\n"
        "        self._amp = enable_amp\n"
        "        self._scaler = torch.amp.GradScaler(\"cuda\", enabled=self._amp)",
    ).replace(
        "                loss = (self.model(x) - y).pow(2).mean()\n"
        "                self.optimizer.zero_grad()\n"
        "                loss.backward()\n"
        "                self.optimizer.step()",
        "                with torch.autocast(\"cuda\", enabled=self._amp):\n"
        "                    loss = (self.model(x) - y).pow(2).mean()\n"
        "                self.optimizer.zero_grad()\n"
        "                self._scaler.scale(loss).backward()\n"
        "                self._scaler.step(self.optimizer)\n"
        "                self._scaler.update()",
    )
    engine = "import torch\n" + engine
    driver = WRAPPER_DRIVER.replace("Trainer(model, optimizer, scheduler, loader, 30).train()",
                                    driver_call)
    return {"warm.py": WRAPPER.format(plain_step=""), "engine.py": engine, "train.py": driver}


def test_control_wrapper_reached_through_the_runner_follows_the_callers_flag(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, wrapper_amp_project(
        "Trainer(model, optimizer, scheduler, loader, 30).train()"))
    assert found == []


def test_wrapper_stepping_per_iteration_by_the_callers_flag_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, wrapper_amp_project(
        "Trainer(model, optimizer, scheduler, loader, 30, by_epoch=False).train()"))
    assert ("warm.py", "LRD005") in found


# -- the level a setting picks, with the setting out of view -----------------------------------
# The trainer takes `lr_scheduler_mode: str = "per_epoch"` and the driver passes its settings
# as `**settings` read from a file: the mode is unknown (a parameter that holds a string is no
# scheduler, whatever its name says). The hook steps the batch-sized schedule per batch in one
# mode, which is right, and per epoch in the other, which is LRD003 whenever that mode is
# picked (as for any step level chosen by a setting while the horizon stays in batches).

SETTINGS_DRIVER = """
import json

import torch
from torch.utils.data import DataLoader, TensorDataset

from sched_hook import SchedulerHook
from trainer import Trainer


class MyTrainer(Trainer):
    def __init__(self, model, optimizer, loader, epochs, scheduler,
                 lr_scheduler_mode: str = "per_epoch", log_every: int = 10):
        super().__init__(model, optimizer, loader, epochs)
        self.log_every = log_every
        self.hooks = [SchedulerHook(self, [scheduler], mode=lr_scheduler_mode)]


def main():
    settings = json.load(open("settings.json"))
    model = torch.nn.Linear(8, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=len(loader) * 20)
    MyTrainer(model, optimizer, loader, 20, scheduler, **settings).run()


if __name__ == "__main__":
    main()
"""


def test_level_picked_by_a_setting_passed_through_kwargs_reports_the_per_epoch_branch_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"trainer.py": MODE_TRAINER, "sched_hook.py": MODE_HOOK, "train.py": SETTINGS_DRIVER}
    found = check_project(tmp_path, monkeypatch, files)
    assert codes_of(found) == {"LRD003"}
    assert len(found) == 1


# -- repeated updates of one batch -------------------------------------------------------------
# A GAN trainer's step runs `for _ in range(n_critic)` critic updates on the batch it was given:
# the loop over the loader around it is still the batch loop, and a hook after each step is
# once per batch.

GAN_STEP = """
import torch
from torch.utils.data import DataLoader, TensorDataset

from sched_hook import SchedulerHook
from trainer import Trainer


class GanTrainer(Trainer):
    def __init__(self, gen, disc, g_opt, d_opt, loader, epochs, scheduler, mode, n_critic=5):
        super().__init__(gen, g_opt, loader, epochs)
        self.disc = disc
        self.d_opt = d_opt
        self.n_critic = n_critic
        self.hooks = [SchedulerHook(self, [scheduler], mode=mode)]

    def run(self):
        for epoch in range(self.epochs):
            for real, _ in self.loader:
                for _ in range(self.n_critic):
                    self.d_opt.zero_grad()
                    fake = self.model(torch.randn(real.size(0), 8)).detach()
                    (self.disc(fake).mean() - self.disc(real).mean()).backward()
                    self.d_opt.step()
                self.optimizer.zero_grad()
                (-self.disc(self.model(torch.randn(real.size(0), 8))).mean()).backward()
                self.optimizer.step()
                for hook in self.hooks:
                    hook.on_step_end()
            for hook in self.hooks:
                hook.on_epoch_end()


def main():
    gen, disc = torch.nn.Linear(8, 4), torch.nn.Linear(4, 1)
    loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.zeros(64)), batch_size=8)
    g_opt = torch.optim.Adam(gen.parameters(), lr=1e-4)
    d_opt = torch.optim.Adam(disc.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(g_opt, T_max=len(loader) * 50)
    GanTrainer(gen, disc, g_opt, d_opt, loader, 50, scheduler, mode="{mode}").run()


if __name__ == "__main__":
    main()
"""


def gan_project(mode: str) -> dict[str, str]:
    return {"trainer.py": MODE_TRAINER, "sched_hook.py": MODE_HOOK,
            "train.py": GAN_STEP.format(mode=mode)}


def test_control_critic_repeats_leave_the_loader_loop_a_batch_loop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_project(tmp_path, monkeypatch, gan_project("per_step")) == []


def test_batch_schedule_stepped_per_epoch_around_critic_repeats_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, gan_project("per_epoch"))
    assert codes_of(found) == {"LRD003"}


# -- a scheduler picked by name and told apart by its class name -------------------------------
# A factory builds one of several schedulers from a config string (a torch LambdaLR, a
# ReduceLROnPlateau, the project's own scheduler that sets its first LR in its constructor);
# the trainer passes the metric when `self.lr_scheduler.__class__.__name__` names a scheduler
# that takes one. The plateau is never stepped without its metric, and the project scheduler's
# own first LR, written on another branch of the choice, competes with no other option.

NAMED_SCHEDULERS = """
import torch
from torch.optim.lr_scheduler import LRScheduler


class WarmPlateau(LRScheduler):
    def __init__(self, optimizer, warmup):
        self.optimizer = optimizer
        self.warmup = warmup
        self.base_lrs = [g["lr"] for g in optimizer.param_groups]
        self.optimizer.param_groups[0]["lr"] = self.base_lrs[0] / warmup

    def step(self, metrics):
        for group, lr in zip(self.optimizer.param_groups, self.base_lrs):
            group["lr"] = lr


def get_scheduler(kind, optimizer, epochs):
    if kind == "lambda":
        scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 1 - e / epochs)
    elif kind == "plateau":
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")
    elif kind == "warm_plateau":
        scheduler = WarmPlateau(optimizer, warmup=5)
    else:
        raise ValueError(kind)
    return scheduler


class Fitter:
    def __init__(self, model, kind, epochs):
        self.model = model
        self.epochs = epochs
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.lr_scheduler = get_scheduler(kind, self.optimizer, epochs)

    def fit(self, loader, val_loader):
        for epoch in range(self.epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            with torch.no_grad():
                val = sum(torch.nn.functional.mse_loss(self.model(x), y).item()
                          for x, y in val_loader)
            if self.lr_scheduler.__class__.__name__ in {names}:
                self.lr_scheduler.step(val)
            else:
                self.lr_scheduler.step()
"""

NAMED_DRIVER = """
import sys

import torch
from torch.utils.data import DataLoader, TensorDataset

from fitter import Fitter


def main():
    data = TensorDataset(torch.randn(64, 8), torch.randn(64, 1))
    loader = DataLoader(data, batch_size=8)
    Fitter(torch.nn.Linear(8, 1), sys.argv[1], 30).fit(loader, loader)


if __name__ == "__main__":
    main()
"""


def named_project(names: str) -> dict[str, str]:
    return {"fitter.py": NAMED_SCHEDULERS.format(names=names), "train.py": NAMED_DRIVER}


def test_control_class_name_test_keeps_the_plateau_off_the_plain_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch,
                          named_project('{"ReduceLROnPlateau", "WarmPlateau"}'))
    assert found == []


def test_class_name_test_that_misses_the_plateau_still_reports_its_plain_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, named_project('{"WarmPlateau"}'))
    assert ("fitter.py", "LRD004") in found
