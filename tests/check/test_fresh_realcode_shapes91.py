"""Shapes behind the dev misses of the fresh-2026-12zp89 batch (rcnew89, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- ``CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)`` stepped with a plain ``step()`` after
  every batch of a loader loop inside an epoch loop. LRD002 read small literal horizons as
  epochs only for the classes whose per-batch damage it judged (StepLR, MultiStepLR, the
  cosine, the polynomial, the plateau); the restarting cosine was not among them, so nothing
  was said. Python: every step counts one batch, so the cosine anneals and jumps back to the
  initial LR after 3, 9, 21, ... batches, many times within the first epoch.
- ``scaler = GradScaler() if torch.cuda.is_available() else None`` handed to a trainer class
  whose batch loop calls ``self.scaler.scale(loss).backward()``, ``self.scaler.step(...)``
  and then ``self.scheduler.step()`` with no test of the scaler's existence. lrdoctor left a
  scaler built on the hardware test alone unknown (whether float16 AMP runs is not in that
  test), so LRD005 said nothing. Python: where the scaler is None, ``None.step(...)`` raises
  before the scheduler steps; every run that gets there is a GPU run holding an enabled
  GradScaler, which skips the updates whose gradients overflow.
- ``class WarmupV2(GradualWarmupScheduler)`` (the pip package warmup_scheduler's wrapper)
  overriding ``get_lr`` only, stepped once per epoch as ``scheduler.step(epoch)`` from a
  helper that dispatches on ``isinstance``. lrdoctor knew the package's class (its
  ``step(epoch)`` goes to torch's deprecated ``step(epoch)``) but took the project's subclass
  for a class of its own and traced nothing: LRD006 missed. Python: the subclass inherits the
  package's ``step()``, and its ``__init__`` hands its arguments on unchanged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

# -- LRD002: a restart period of a few steps stepped every batch -------------------------------

RESTARTS_PER_BATCH = """
import torch
from torch.utils.data import DataLoader, TensorDataset


def fit(model, loader, epochs):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            sched.step()


data = TensorDataset(torch.randn(256, 4), torch.randn(256, 1))
fit(torch.nn.Linear(4, 1), DataLoader(data, batch_size=8), 25)
"""


def test_restart_period_of_three_stepped_every_batch() -> None:
    assert "LRD002" in codes(RESTARTS_PER_BATCH)
    found = messages(RESTARTS_PER_BATCH)
    assert any("restarts after 3 batches" in m for m in found), found


def test_restart_period_given_by_position() -> None:
    source = RESTARTS_PER_BATCH.replace("(opt, T_0=3, T_mult=2)", "(opt, 10)")
    assert "LRD002" in codes(source)


def test_restart_period_named_by_a_module_constant() -> None:
    source = RESTARTS_PER_BATCH.replace("T_0=3, T_mult=2", "T_0=RESTART").replace(
        "\n\ndef fit", "\nRESTART = 5\n\n\ndef fit")
    assert "LRD002" in codes(source)


def test_restart_period_of_a_trainer_class() -> None:
    source = """
    import torch


    class Trainer:
        def __init__(self, model, loader, epochs):
            self.model, self.loader, self.epochs = model, loader, epochs
            self.opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
            self.sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(self.opt, T_0=4)

        def one_epoch(self):
            for x, y in self.loader:
                self.opt.zero_grad()
                self.model(x).sub(y).pow(2).mean().backward()
                self.opt.step()
                self.sched.step()

        def fit(self):
            for _ in range(self.epochs):
                self.one_epoch()


    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
        torch.randn(64, 2), torch.randn(64, 1)), batch_size=4)
    Trainer(torch.nn.Linear(2, 1), loader, 12).fit()
    """
    assert "LRD002" in codes(source)


def test_control_fractional_epoch_position_is_the_documented_per_batch_use() -> None:
    source = RESTARTS_PER_BATCH.replace(
        "        for x, y in loader:", "        for i, (x, y) in enumerate(loader):").replace(
        "            sched.step()", "            sched.step(epoch + i / len(loader))")
    assert "LRD002" not in codes(source)


def test_control_restart_period_sized_from_the_loader() -> None:
    source = RESTARTS_PER_BATCH.replace("T_0=3, T_mult=2", "T_0=3 * len(loader), T_mult=2")
    assert "LRD002" not in codes(source)


def test_control_restart_period_of_an_iteration_count() -> None:
    source = RESTARTS_PER_BATCH.replace("T_0=3, T_mult=2", "T_0=2000")
    assert "LRD002" not in codes(source)


def test_control_restart_period_stepped_once_per_epoch() -> None:
    source = RESTARTS_PER_BATCH.replace("            sched.step()", "        sched.step()")
    assert "LRD002" not in codes(source)


def test_control_restart_period_in_a_single_pass_over_the_loader() -> None:
    # no epoch loop around: the literal may count batches; nothing says it counts epochs
    source = RESTARTS_PER_BATCH.replace("    for epoch in range(epochs):\n", "    if epochs:\n")
    assert "LRD002" not in codes(source)


# -- LRD005: a GradScaler built whenever a GPU is there, stepped with no existence test ---------

TRAINER_MODULE = """
import torch


class Trainer:
    def __init__(self, model, loader, optimizer, scheduler, scaler, max_epoch, amp=True):
        self.model = model
        self.loader = loader
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.scaler = scaler
        self.max_epoch = max_epoch
        self.amp = amp

    def train(self):
        for epoch in range(self.max_epoch):
            self.run_epoch()

    def run_epoch(self):
        self.one_pass(mode="train")

    def one_pass(self, mode):
        for x, y in self.loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", enabled=self.amp):
                loss = torch.nn.functional.mse_loss(self.model(x), y)
            if mode == "train":
                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.scheduler.step()
"""

DRIVER = """
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import get_cosine_schedule_with_warmup

from lib.trainer import Trainer

loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = get_cosine_schedule_with_warmup(optimizer, 10, len(loader) * 5)
scaler = {SCALER}
trainer = Trainer(model, loader, optimizer, scheduler, scaler, max_epoch=5)
trainer.train()
"""


def _trainer_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, scaler: str,
                     trainer: str = TRAINER_MODULE) -> list[str]:
    files = {"run.py": DRIVER.replace("{SCALER}", scaler), "lib/__init__.py": "",
             "lib/trainer.py": trainer}
    return project_codes(check_project(tmp_path, monkeypatch, files))


def test_scaler_built_with_the_gpu_and_stepped_unguarded_in_a_trainer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _trainer_project(tmp_path, monkeypatch,
                             'torch.amp.GradScaler("cuda") if torch.cuda.is_available() else None')
    assert "LRD005" in found


def test_scaler_built_in_the_else_of_a_negated_gpu_test(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _trainer_project(tmp_path, monkeypatch,
                             'None if not torch.cuda.is_available() else torch.amp.GradScaler()')
    assert "LRD005" in found


def test_control_scaler_built_only_without_a_gpu(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _trainer_project(tmp_path, monkeypatch,
                             'torch.amp.GradScaler("cuda") if not torch.cuda.is_available() '
                             'else None')
    assert "LRD005" not in found


def test_control_scaler_built_with_the_gpu_but_disabled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _trainer_project(tmp_path, monkeypatch,
                             'torch.amp.GradScaler("cuda", enabled=False) '
                             'if torch.cuda.is_available() else None')
    assert "LRD005" not in found


def test_control_scaler_built_with_the_gpu_and_tested_before_its_step(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a program that trains on the CPU too: whether float16 AMP runs stays unknown
    guarded = TRAINER_MODULE.replace(
        """                self.scaler.scale(loss).backward()
                self.scaler.step(self.optimizer)
                self.scaler.update()
""", """                if self.scaler is not None:
                    self.scaler.scale(loss).backward()
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
                else:
                    loss.backward()
                    self.optimizer.step()
""")
    found = _trainer_project(tmp_path, monkeypatch,
                             'torch.amp.GradScaler("cuda") if torch.cuda.is_available() else None',
                             guarded)
    assert "LRD005" not in found


SINGLE_FILE = """
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=10 * len(loader))
scaler = torch.amp.GradScaler("cuda") if torch.cuda.is_available() else None
for epoch in range(10):
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda"):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        sched.step()
"""


def test_scaler_built_with_the_gpu_in_one_script() -> None:
    assert "LRD005" in codes(SINGLE_FILE)


def test_control_scaler_built_with_the_gpu_stepped_under_a_setting() -> None:
    # the scaler steps only under a setting the scheduler step does not share: its switch
    # is that setting, which the hardware test does not state
    source = SINGLE_FILE.replace("for epoch in range(10):", "use_amp = bool(len(loader))\n"
                                 "for epoch in range(10):").replace(
        """        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
""", """        if use_amp:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
""")
    assert "LRD005" not in codes(source)


def test_control_scaler_built_with_the_gpu_and_a_skip_check() -> None:
    source = SINGLE_FILE.replace(
        """        scaler.step(opt)
        scaler.update()
        sched.step()
""", """        before = scaler.get_scale()
        scaler.step(opt)
        scaler.update()
        if scaler.get_scale() >= before:
            sched.step()
""")
    assert "LRD005" not in codes(source)


# -- LRD006: the project's subclass of the pip warm-up wrapper, given the epoch ----------------

WARMUP_SUBCLASS = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, ReduceLROnPlateau
from warmup_scheduler import GradualWarmupScheduler


class WarmupV2(GradualWarmupScheduler):
    def __init__(self, optimizer, multiplier, total_epoch, after_scheduler=None):
        super().__init__(optimizer, multiplier, total_epoch, after_scheduler)

    def get_lr(self):
        if self.last_epoch > self.total_epoch and self.after_scheduler:
            return self.after_scheduler.get_lr()
        return [b * (1 + (self.multiplier - 1) * self.last_epoch / self.total_epoch)
                for b in self.base_lrs]


def advance(scheduler, val_loss, epoch):
    if isinstance(scheduler, ReduceLROnPlateau):
        scheduler.step(val_loss)
    elif isinstance(scheduler, CosineAnnealingLR):
        scheduler.step()
    elif isinstance(scheduler, WarmupV2):
        scheduler.step(epoch)


model = torch.nn.Linear(3, 1)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
cosine = CosineAnnealingLR(opt, 20, eta_min=1e-7)
scheduler = WarmupV2(opt, multiplier=10, total_epoch=1, after_scheduler=cosine)
for epoch in range(20):
    for _ in range(8):
        opt.zero_grad()
        model(torch.randn(4, 3)).pow(2).mean().backward()
        opt.step()
    advance(scheduler, 0.5, epoch)
"""


def test_warmup_subclass_given_the_epoch_through_a_dispatching_helper() -> None:
    assert "LRD006" in codes(WARMUP_SUBCLASS)
    found = messages(WARMUP_SUBCLASS)
    assert any("WarmupV2 (a subclass of warmup_scheduler's GradualWarmupScheduler" in m
               for m in found), found


def test_warmup_subclass_without_an_init_of_its_own() -> None:
    source = WARMUP_SUBCLASS.replace(
        """    def __init__(self, optimizer, multiplier, total_epoch, after_scheduler=None):
        super().__init__(optimizer, multiplier, total_epoch, after_scheduler)

""", "")
    assert "LRD006" in codes(source)


def test_warmup_subclass_stepped_directly_with_a_keyword_epoch() -> None:
    source = WARMUP_SUBCLASS.replace("    advance(scheduler, 0.5, epoch)",
                                     "    scheduler.step(epoch=epoch)")
    assert "LRD006" in codes(source)


def test_warmup_subclass_imported_from_another_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    head, _, tail = WARMUP_SUBCLASS.partition("\n\ndef advance")
    driver = ("import torch\nfrom torch.optim.lr_scheduler import CosineAnnealingLR, "
              "ReduceLROnPlateau\nfrom sched_lib import WarmupV2\n\n\ndef advance" + tail)
    found = check_project(tmp_path, monkeypatch, {"sched_lib.py": head, "train.py": driver})
    assert [(p, c) for p, _, c in found if c == "LRD006"] == [("train.py", "LRD006")]


def test_control_warmup_subclass_stepped_without_the_epoch() -> None:
    source = WARMUP_SUBCLASS.replace("        scheduler.step(epoch)", "        scheduler.step()")
    assert "LRD006" not in codes(source)


def test_control_warmup_subclass_with_a_step_of_its_own() -> None:
    source = WARMUP_SUBCLASS.replace("    def get_lr(self):", """    def step(self, epoch=None):
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        for group, lr in zip(self.optimizer.param_groups, self.get_lr()):
            group["lr"] = lr

    def get_lr(self):""")
    assert "LRD006" not in codes(source)


def test_control_warmup_subclass_before_a_plateau() -> None:
    # the wrapper's plateau path takes the metric and the epoch on purpose
    source = WARMUP_SUBCLASS.replace(
        "cosine = CosineAnnealingLR(opt, 20, eta_min=1e-7)",
        "cosine = ReduceLROnPlateau(opt, patience=2)")
    assert "LRD006" not in codes(source)
