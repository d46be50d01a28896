"""Whole repositories nobody here wrote (fphunt15): false alarms and misses found by reading
the training code, each next to a control that must stay as it is."""

from __future__ import annotations

import textwrap

from tests.check.helpers import check_project
from tests.check.helpers import project_codes as codes

# -- a plateau fed, at a script's top level, what a validation function returns ----------------
# A flat script defines `fit_one_epoch()` and `valid()`, each of which computes its own local
# `epoch_loss`, and only the validation one returns it. The epoch loop runs at module
# level: `epoch_loss = valid(epoch)` and then `plateau.step(epoch_loss)`. The name is
# generic, but the value the module's own scope gives it comes from the validation function:
# it is the held-out loss. The training function's local of the same name is another variable.

_FLAT_SCRIPT = """
import torch

net = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
fit_loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
val_loader = torch.utils.data.DataLoader(list(range(16)), batch_size=8)


def fit_one_epoch(epoch):
    total = 0.0
    for x in fit_loader:
        opt.zero_grad()
        loss = net(torch.randn(8, 4)).sum()
        loss.backward()
        opt.step()
        total += loss.item()
    epoch_loss = total / len(fit_loader)
    {fit_return}


def valid(epoch):
    total = 0.0
    with torch.no_grad():
        for x in val_loader:
            total += net(torch.randn(8, 4)).sum().item()
    epoch_loss = total / len(val_loader)
    return epoch_loss


for epoch in range(20):
    {loop}
    plateau.step(epoch_loss)
"""


def test_module_level_plateau_fed_the_validation_return_is_quiet(tmp_path, monkeypatch):
    src = _FLAT_SCRIPT.format(
        fit_return="print(epoch_loss)",
        loop="fit_one_epoch(epoch)\n    epoch_loss = valid(epoch)",
    )
    assert "LRD004" not in codes(check_project(tmp_path, monkeypatch, {"train.py": src}))


def test_module_level_plateau_fed_the_training_return_is_reported(tmp_path, monkeypatch):
    src = _FLAT_SCRIPT.format(
        fit_return="return epoch_loss",
        loop="epoch_loss = fit_one_epoch(epoch)\n    valid(epoch)",
    )
    assert "LRD004" in codes(check_project(tmp_path, monkeypatch, {"train.py": src}))


# -- a resume helper that restores the scheduler it is handed ---------------------------------
# A trainer class builds its optimizer and, unless one is given, a warm-up schedule of the
# project's own class (a subclass of torch's scheduler base). Another of its step routines,
# for a second back end, steps schedulers it reads out of a manager object (`for
# lr_scheduler in manager.lr_schedulers: lr_scheduler.step()`), so lrdoctor knows a scheduler
# there by its name only. The resume goes through one module-level helper,
# `restore_states(optimizer, lr_scheduler, saved)`, which restores the optimizer and, when it
# is given one, the scheduler: the scheduler it is handed is restored, not lost.

_SCHEDULE = """
from torch.optim.lr_scheduler import _LRScheduler


class Ramp(_LRScheduler):
    def __init__(self, optimizer, warmup):
        self.warmup = warmup
        self.done = 0
        super().__init__(optimizer)

    def get_lr(self):
        return [base * min(1.0, (self.done + 1) / self.warmup) for base in self.base_lrs]

    def step(self, done=None):
        self.done = self.done + 1 if done is None else done
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr
"""

_RESTORE = """
def restore_states(optimizer, lr_scheduler, saved):
    try:
        if optimizer is not None:
            optimizer.load_state_dict(saved["optimizer"])
        if lr_scheduler is not None:
            {restore_sched}
    except KeyError:
        print("no optimizer state in the checkpoint")
"""

_RUNNER = """
import torch
from pkg.restore import restore_states
from pkg.schedule import Ramp


class Runner:
    def __init__(self, settings):
        self.restore = settings.restore
        self.saved = torch.load(settings.path)
        self.backend = settings.backend
        self.manager = settings.manager

    def fit(self, model, loader, epochs, optimizer=None, lr_scheduler=None):
        self.optimizer = optimizer
        if self.optimizer is None:
            self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        if lr_scheduler is None:
            lr_scheduler = Ramp(self.optimizer, 10)
        if self.restore:
            restore_states(self.optimizer, lr_scheduler, self.saved)
        for epoch in range(epochs):
            for batch in loader:
                if self.backend == "managed":
                    self.managed_step(model, batch, self.manager)
                else:
                    self.plain_step(model, batch, lr_scheduler)

    def plain_step(self, model, batch, lr_scheduler):
        loss = model(batch).sum()
        loss.backward()
        self.optimizer.step()
        if lr_scheduler:
            lr_scheduler.step()
        self.optimizer.zero_grad()

    def managed_step(self, model, batch, manager):
        loss = model(batch).sum()
        manager.backward(loss)
        manager.step()
        for lr_scheduler in manager.lr_schedulers:
            if lr_scheduler is not None:
                lr_scheduler.step()
"""

_RUN = """
from pkg.runner import Runner
from outside_settings import Settings

Runner(Settings()).fit(None, [], 3, optimizer=None)
"""


def _resume_project(restore_sched: str) -> dict[str, str]:
    return {
        "pkg/__init__.py": "",
        "pkg/schedule.py": _SCHEDULE,
        "pkg/restore.py": _RESTORE.format(restore_sched=restore_sched),
        "pkg/runner.py": _RUNNER,
        "run.py": _RUN,
    }


def test_resume_helper_restoring_the_scheduler_it_is_given_is_quiet(tmp_path, monkeypatch):
    files = _resume_project('lr_scheduler.load_state_dict(saved["lr_scheduler"])')
    assert "LRD007" not in codes(check_project(tmp_path, monkeypatch, files))


def test_resume_helper_restoring_the_optimizer_only_is_reported(tmp_path, monkeypatch):
    files = _resume_project('print("the schedule starts over")')
    assert "LRD007" in codes(check_project(tmp_path, monkeypatch, files))


def test_resume_helper_handed_none_for_the_scheduler_is_reported(tmp_path, monkeypatch):
    files = _resume_project('lr_scheduler.load_state_dict(saved["lr_scheduler"])')
    files["pkg/runner.py"] = textwrap.dedent(_RUNNER).replace(
        "restore_states(self.optimizer, lr_scheduler, self.saved)",
        "restore_states(self.optimizer, None, self.saved)")
    assert "LRD007" in codes(check_project(tmp_path, monkeypatch, files))
