"""Third-party and copied scheduler classes (rcnew130, batch fresh-2026-12zzze130 in
bench/realcode/README.md).

Programs written for these tests; no third-party code.

The batch's schedules come from classes the project did not write or copied in: the pip
package ``warmup_scheduler``'s ``GradualWarmupScheduler`` (imported, or vendored as a package
of the project) handing its steps to a cosine, warm-up classes of the project's own stepped
beside a main scheduler, horizons kept under names. Three spellings were misread:

- a horizon that multiplies in a name bound to a loader's length (``n = len(loader)``, then
  ``CosineAnnealingLR(opt, (epochs - 3) * n)``) stepped once per epoch: the epoch count in it
  made it read as a count of the epoch loop's passes, as if ``n`` were a plain number, so the
  LRD003 that ``(epochs - 3) * len(loader)`` gets was silent. A name computed from a length is
  that count of batches;
- a warm-up stepped at the top of the batch loop, before the update, under ``if warmup is
  not None and epoch < n_warmup:`` (the existence or setting part and a test of the pass in
  one ``and``): the whole test read as one that may be false on the first pass, so the
  LRD001 that ``if epoch < n_warmup:`` gets was silent. The setting part is the same on every
  pass; only the part that changes must hold on the first one;
- a ``GradualWarmupScheduler`` returned from ``configure_optimizers``: Lightning steps it at
  the interval given, and after its warm-up it steps the scheduler it holds, whose horizon
  was not read there (it was for loops written by hand).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings, messages, project_codes

HEAD = '''
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(96, 5), torch.randn(96, 1)), batch_size=12)
model = torch.nn.Linear(5, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
EPOCHS = 60
'''

PER_EPOCH = '''
for epoch in range(EPOCHS):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
'''

PER_BATCH = '''
for epoch in range(EPOCHS):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
'''

PIP_WARMUP = "from warmup_scheduler import GradualWarmupScheduler\n"


# -- a horizon that multiplies in a name bound to a length -------------------------------------

@pytest.mark.parametrize(("name", "bound"), [("n", "len(loader)"), ("m", "len(loader) // 1"),
                                           ("k", "int(len(loader))")])
def test_cosine_times_a_named_length_stepped_per_epoch_is_reported(name: str, bound: str) -> None:
    # a short name says nothing of its unit: the length it is computed from does
    src = HEAD + f"{name} = {bound}\n" \
        f"scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, (EPOCHS - 3) * {name})\n" \
        + PER_EPOCH
    assert "LRD003" in codes(src)


def test_warmup_wrapper_over_a_cosine_in_named_batches_stepped_per_epoch_is_reported() -> None:
    src = PIP_WARMUP + HEAD + '''
n = len(loader)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, (EPOCHS - 3) * n)
scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=3 * n, after_scheduler=cosine)
''' + PER_EPOCH
    assert "LRD003" in codes(src)


def test_warmup_wrapper_over_a_cosine_in_named_batches_stepped_per_batch_is_silent() -> None:
    src = PIP_WARMUP + HEAD + '''
n = len(loader)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, (EPOCHS - 3) * n)
scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=3 * n, after_scheduler=cosine)
''' + PER_BATCH
    assert codes(src) == []


def test_a_named_count_of_epochs_times_the_epoch_count_stays_silent() -> None:
    # `rounds` is a plain number: the horizon is a multiple of the epoch loop's passes
    src = HEAD + '''
rounds = 2
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, EPOCHS * rounds)
''' + PER_EPOCH
    assert "LRD003" not in codes(src)


def test_a_loop_over_the_named_total_of_batches_stays_silent() -> None:
    src = HEAD + '''
n = len(loader)
total = n * EPOCHS
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, n * EPOCHS)
batches = iter(loader)
for step in range(total):
    try:
        x, y = next(batches)
    except StopIteration:
        batches = iter(loader)
        x, y = next(batches)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
    scheduler.step()
'''
    assert codes(src) == []


VENDORED = {
    "warmup_scheduler/__init__.py": "from warmup_scheduler.scheduler import GradualWarmupScheduler\n",
    "warmup_scheduler/scheduler.py": '''
from torch.optim.lr_scheduler import _LRScheduler


class GradualWarmupScheduler(_LRScheduler):
    def __init__(self, optimizer, multiplier, total_epoch, after_scheduler=None):
        self.multiplier = multiplier
        self.total_epoch = total_epoch
        self.after_scheduler = after_scheduler
        self.finished = False
        super().__init__(optimizer)

    def get_lr(self):
        if self.last_epoch > self.total_epoch:
            if self.after_scheduler:
                if not self.finished:
                    self.after_scheduler.base_lrs = [b * self.multiplier for b in self.base_lrs]
                    self.finished = True
                return self.after_scheduler.get_last_lr()
            return [b * self.multiplier for b in self.base_lrs]
        return [b * (self.last_epoch / self.total_epoch) for b in self.base_lrs]

    def step(self, epoch=None, metrics=None):
        if self.finished and self.after_scheduler:
            if epoch is None:
                self.after_scheduler.step(None)
            else:
                self.after_scheduler.step(epoch - self.total_epoch)
            self._last_lr = self.after_scheduler.get_last_lr()
        else:
            return super().step(epoch)
''',
}


def test_vendored_warmup_wrapper_in_named_batches_per_epoch_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = dict(VENDORED)
    files["train.py"] = PIP_WARMUP + HEAD + '''
n = len(loader)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, (EPOCHS - 3) * n)
scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=3 * n, after_scheduler=cosine)
''' + PER_EPOCH
    found = check_project(tmp_path, monkeypatch, files, ["train.py"])
    # placed where the vendored wrapper steps the cosine, as its LRD002 is
    assert [code for _, _, code in found] == ["LRD003"]


def test_vendored_warmup_wrapper_in_epochs_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = dict(VENDORED)
    files["train.py"] = PIP_WARMUP + HEAD + '''
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, EPOCHS - 3)
scheduler = GradualWarmupScheduler(optimizer, multiplier=1, total_epoch=3, after_scheduler=cosine)
''' + PER_EPOCH
    assert project_codes(check_project(tmp_path, monkeypatch, files, ["train.py"])) == []


# -- a warm-up and a main scheduler stepped at the top of the batch loop -------------------------

WARMUP_CLASS = '''
from torch.optim import lr_scheduler


class Ramp(lr_scheduler._LRScheduler):
    def __init__(self, optimizer, total_iters, last_epoch=-1):
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [b * self.last_epoch / (self.total_iters + 1e-8) for b in self.base_lrs]


def one_update(model, x, y, optimizer):
    optimizer.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
    return loss.item()
'''

STEPS_FIRST = '''
for epoch in range(EPOCHS):
    for x, y in loader:
        {steps}
        one_update(model, x, y, optimizer)
'''


def _top_of_batch(build: str, steps: str) -> str:
    body = STEPS_FIRST.format(steps=steps.strip().replace("\n", "\n        "))
    return HEAD + WARMUP_CLASS + build + body


@pytest.mark.parametrize("steps", [
    '''
if ramp is not None and epoch < WARM:
    ramp.step()
elif cosine is not None:
    cosine.step()
''',
    '''
if ramp and epoch < WARM:
    ramp.step()
else:
    cosine.step()
''',
    '''
if epoch < WARM and ramp is not None:
    ramp.step()
''',
])
def test_step_under_an_existence_test_and_the_warmup_epochs_before_the_update_is_reported(
        steps: str) -> None:
    build = '''
WARM = 5
ramp = Ramp(optimizer, total_iters=len(loader) * WARM)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, len(loader) * (EPOCHS - WARM))
'''
    assert "LRD001" in codes(_top_of_batch(build, steps))


def test_schedulers_kept_in_a_dict_filled_after_none_before_the_update_are_reported() -> None:
    build = '''
WARM = 5
schedulers = {"warmup": None, "main": None}
if WARM:
    schedulers["warmup"] = Ramp(optimizer, total_iters=len(loader) * WARM)
schedulers["main"] = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, len(loader) * (EPOCHS - WARM))
'''
    steps = '''
if schedulers["warmup"] is not None and epoch < WARM:
    schedulers["warmup"].step()
elif schedulers["main"] is not None:
    schedulers["main"].step()
'''
    assert "LRD001" in codes(_top_of_batch(build, steps))


def test_a_flag_and_the_warmup_epochs_before_the_update_is_reported_as_the_nested_test_is() -> None:
    build = '''
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--ramp", action="store_true")
args = parser.parse_args()
WARM = 5
ramp = Ramp(optimizer, total_iters=len(loader) * WARM)
'''
    joined = _top_of_batch(build, '''
if args.ramp and epoch < WARM:
    ramp.step()
''')
    nested = _top_of_batch(build, '''
if args.ramp:
    if epoch < WARM:
        ramp.step()
''')
    assert "LRD001" in codes(joined)
    assert "LRD001" in codes(nested)


def test_the_same_steps_after_the_update_are_silent() -> None:
    src = HEAD + WARMUP_CLASS + '''
WARM = 5
schedulers = {"warmup": Ramp(optimizer, total_iters=len(loader) * WARM),
              "main": torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, len(loader) * (EPOCHS - WARM))}
for epoch in range(EPOCHS):
    for x, y in loader:
        one_update(model, x, y, optimizer)
        if schedulers["warmup"] is not None and epoch < WARM:
            schedulers["warmup"].step()
        elif schedulers["main"] is not None:
            schedulers["main"].step()
'''
    assert codes(src) == []


@pytest.mark.parametrize("steps", [
    # false on the first pass: the step waits for the first epoch's updates
    '''
if cosine is not None and epoch > 0:
    cosine.step()
''',
    # a threshold the file does not state
    '''
if ramp is not None and epoch < int(sys.argv[1]):
    ramp.step()
''',
    # a setting stated false: the step never runs
    '''
if USE_RAMP and epoch < WARM:
    ramp.step()
''',
    # a resumed run's repositioning, not the first pass of the training
    '''
if START > 0 and epoch == START:
    cosine.step()
''',
])
def test_steps_whose_guard_does_not_hold_on_the_first_pass_stay_silent(steps: str) -> None:
    build = '''
import sys
WARM = 5
USE_RAMP = False
START = 0
ramp = Ramp(optimizer, total_iters=len(loader) * WARM)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, EPOCHS)
'''
    assert "LRD001" not in codes(_top_of_batch(build, steps))


def test_the_step_in_a_train_function_of_another_module_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "engine.py": '''
import torch


def train(model, loader, optimizer, schedulers, epochs, warm):
    for epoch in range(epochs):
        for x, y in loader:
            if schedulers["warmup"] is not None and epoch < warm:
                schedulers["warmup"].step()
            elif schedulers["main"] is not None:
                schedulers["main"].step()
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
''',
        "run.py": HEAD + '''
from engine import train

WARM = 5
schedulers = {"warmup": torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, total_iters=len(loader) * WARM),
              "main": torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, len(loader) * (EPOCHS - WARM))}
train(model, loader, optimizer, schedulers, EPOCHS, WARM)
''',
    }
    found = check_project(tmp_path, monkeypatch, files, ["run.py"])
    assert ("engine.py", 9, "LRD001") in found


# -- the warm-up wrapper returned to Lightning ---------------------------------------------------

MODULE = '''
import torch
import lightning as L
from warmup_scheduler import GradualWarmupScheduler


class Regressor(L.LightningModule):
    def __init__(self, lr=1e-3, warmup_steps=400):
        super().__init__()
        self.net = torch.nn.Linear(5, 1)
        self.lr = lr
        self.warmup_steps = warmup_steps

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.lr)
{build}
'''


def _module(build: str) -> str:
    return MODULE.format(build="\n".join("        " + line for line in build.strip().splitlines()))


def test_wrapper_over_a_cosine_in_updates_without_interval_is_reported() -> None:
    src = _module('''
total = self.trainer.estimated_stepping_batches
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total - self.warmup_steps)
wrapped = GradualWarmupScheduler(opt, multiplier=1, total_epoch=self.warmup_steps, after_scheduler=cosine)
return [opt], [wrapped]
''')
    assert "LRD003" in codes(src)


def test_wrapper_over_a_cosine_in_epochs_with_interval_step_is_reported() -> None:
    src = _module('''
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs - 5)
wrapped = GradualWarmupScheduler(opt, multiplier=1, total_epoch=5, after_scheduler=cosine)
return [opt], [{"scheduler": wrapped, "interval": "step"}]
''')
    assert "LRD002" in codes(src)


@pytest.mark.parametrize("build", [
    '''
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs - 5)
wrapped = GradualWarmupScheduler(opt, multiplier=1, total_epoch=5, after_scheduler=cosine)
return [opt], [wrapped]
''',
    '''
total = self.trainer.estimated_stepping_batches
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total - self.warmup_steps)
wrapped = GradualWarmupScheduler(opt, multiplier=1, total_epoch=self.warmup_steps, after_scheduler=cosine)
return {"optimizer": opt, "lr_scheduler": {"scheduler": wrapped, "interval": "step"}}
''',
    '''
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
wrapped = GradualWarmupScheduler(opt, multiplier=1, total_epoch=5, after_scheduler=plateau)
return {"optimizer": opt, "lr_scheduler": {"scheduler": wrapped, "monitor": "val_loss"}}
''',
])
def test_wrapper_at_the_interval_of_its_horizons_is_silent(build: str) -> None:
    assert codes(_module(build)) == []


def test_the_lightning_finding_names_the_wrapped_cosine() -> None:
    src = _module('''
total = self.trainer.estimated_stepping_batches
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total - self.warmup_steps)
wrapped = GradualWarmupScheduler(opt, multiplier=1, total_epoch=self.warmup_steps, after_scheduler=cosine)
return [opt], [wrapped]
''')
    # reported at the return, naming the cosine the wrapper hands its steps to
    assert [line for code, line in findings(src) if code == "LRD003"] == [23]
    assert any(m.startswith("CosineAnnealingLR(T_max=total - self.warmup_steps)")
               for m in messages(src))
