"""rcnew103: shapes from batch fresh-2026-12zzd103 (iteration-based schedules inside epoch
loops: poly/warm-up counted in iterations, cosine sized from ``len(loader)``, schedules built
from config files) and probes of the batch's families, in our own words.

1. A driver that imports a package and calls what the package re-exports (``import kit`` then
   ``kit.assemble(cfg).fit()``, where ``kit/__init__.py`` takes ``assemble`` from a module
   that does its work through other modules of the package, and the driver names none of
   the checker's words): the driver runs ``assemble`` and what it calls, as ``from kit import
   assemble`` does, so it is modelled and the training loop it reaches is judged (light-reid's
   ``lightreid.build_engine(config).train()``, its engine stepping a config-built scheduler
   with ``step(epoch)`` after every batch: LRD006).

2. A GradScaler made by every call of a helper (training and evaluation helpers each make
   their own, called from a training loop that saves every epoch and from a later loop that
   evaluates the saved epochs): whichever loop makes the calls, a checkpoint written outside
   a call has no scale to keep (the custom DeepLabV3 trainer's evaluation pass). Built once
   for the run, still LRD007.

3. A step loop over ``range(max_epoch * iters_per_epoch)``: an epoch count times the batches
   of an epoch counts batches, so the loop is a batch loop and a cosine sized in epochs
   stepped on every pass is LRD002 (silent when stepped once every ``iters_per_epoch``
   passes, or sized in iterations).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings, project_codes

# -- 1. `import pkg` then `pkg.build()`, the work done in other modules of the package --------

_KIT_INIT = """\
from .assemble import assemble, assemble_for_eval
"""

# no word of the checker here: the work is done by the modules it imports
_KIT_ASSEMBLE = """\
import torch
from .engine import Runner
from .optim import make_bundle

_RUNNERS = {"plain": Runner}


def assemble(cfg):
    net = torch.nn.Linear(8, 2)
    cfg["optim"]["params"] = net.parameters()
    bundle = make_bundle(**cfg["optim"])
    kind = cfg["runner"] if "runner" in cfg else "plain"
    return _RUNNERS[kind](net=net, bundle=bundle, **cfg["env"])


def assemble_for_eval(cfg):
    return torch.nn.Linear(8, 2)
"""

_KIT_OPTIM = """\
from bisect import bisect_right

import torch


class RampThenSteps(torch.optim.lr_scheduler._LRScheduler):
    def __init__(self, optimizer, marks, factor=0.1, ramp_epochs=10, last_epoch=-1):
        self.marks = marks
        self.factor = factor
        self.ramp_epochs = ramp_epochs
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        ramp = min(1.0, (self.last_epoch + 1) / self.ramp_epochs)
        drops = bisect_right(self.marks, self.last_epoch)
        return [base * ramp * self.factor ** drops for base in self.base_lrs]


class Bundle:
    def __init__(self, optimizer, lr_scheduler, epochs):
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.epochs = epochs


_OPTIMIZERS = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}
_SCHEDULERS = {"ramp_steps": RampThenSteps}


def make_bundle(optimizer, lr_scheduler, epochs):
    optimizer = dict(optimizer)
    lr_scheduler = dict(lr_scheduler)
    opt = _OPTIMIZERS[optimizer.pop("name")](**optimizer)
    lr_scheduler["optimizer"] = opt
    sched = _SCHEDULERS[lr_scheduler.pop("name")](**lr_scheduler)
    return Bundle(optimizer=opt, lr_scheduler=sched, epochs=epochs)
"""

_KIT_ENGINE = """\
import torch


class Runner:
    def __init__(self, out_dir, net, bundle, batches=(), **extra):
        self.out_dir = out_dir
        self.net = net
        self.bundle = bundle
        self.batches = batches

    def fit(self):
        for epoch in range(self.bundle.epochs):
            self.one_epoch(epoch)

    def one_epoch(self, epoch):
        for x, y in self.batches:
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            self.bundle.optimizer.zero_grad()
            loss.backward()
            self.bundle.optimizer.step()
{step}
"""

_PER_BATCH_WITH_EPOCH = "            self.bundle.lr_scheduler.step(epoch)"
_PER_EPOCH_PLAIN = "        self.bundle.lr_scheduler.step()"

_DRIVER_PACKAGE = """\
import sys
import yaml

sys.path.append("../..")
import kit

with open(sys.argv[1]) as f:
    settings = yaml.safe_load(f)
runner = kit.assemble(settings)
runner.fit()
"""

_DRIVER_NAME = _DRIVER_PACKAGE.replace("import kit\n", "from kit import assemble\n").replace(
    "kit.assemble(", "assemble(")


def _kit(step: str, driver: str) -> dict[str, str]:
    return {
        "kit/__init__.py": _KIT_INIT,
        "kit/assemble.py": _KIT_ASSEMBLE,
        "kit/optim.py": _KIT_OPTIM,
        "kit/engine.py": _KIT_ENGINE.replace("{step}", step),
        "recipes/reid/train.py": driver,
    }


def test_package_attribute_call_reaches_the_engine_of_another_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _kit(_PER_BATCH_WITH_EPOCH, _DRIVER_PACKAGE))
    assert ("kit/engine.py", 21, "LRD006") in found


def test_name_imported_from_the_package_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _kit(_PER_BATCH_WITH_EPOCH, _DRIVER_NAME))
    assert ("kit/engine.py", 21, "LRD006") in found


def test_package_attribute_call_with_a_plain_epoch_step_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _kit(_PER_EPOCH_PLAIN, _DRIVER_PACKAGE))
    assert project_codes(found) == []


# -- 2. a GradScaler made by every call of an evaluation helper, in a loop after training ----
#
# (the custom DeepLabV3 trainer's shape) A run that trains and saves every epoch, then walks
# the saved epochs again to evaluate them; both helpers make their own GradScaler on every
# call and share a batch helper whose scaled backward runs only when an optimizer is given.
# Whichever loop calls it, a scaler made by one call is gone when the call returns: no
# checkpoint written outside that call has a scale to keep, a resumed run makes its own.

_TWO_LOOPS = """
import sys

import torch


def run_batches(net, scaler, batches, opt=None):
    total = 0.0
    if opt is None:
        for x, y in batches:
            loss, _unused = one_batch(net, scaler, x, y, opt=opt)
            total += float(loss)
    else:
        for x, y in batches:
            loss, opt = one_batch(net, scaler, x, y, opt=opt)
            total += float(loss)
    return [total, opt]


def one_batch(net, scaler, x, y, opt=None):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = torch.nn.functional.cross_entropy(net(x), y)
    if opt is not None:
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    return [loss.detach(), opt]


def fit_epoch(net, opt, batches{fit_params}):
{fit_scaler}
    total, opt = run_batches(net, scaler, batches, opt=opt)
    return [net, opt]


def evaluate(net, batches):
    scaler = torch.amp.GradScaler("cuda")
    with torch.no_grad():
        total, _unused = run_batches(net, scaler, batches, opt=None)
    return total


def main(cfg):
{main_scaler}
    net = torch.nn.Linear(8, 3).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(cfg["epochs"]):
        net, opt = fit_epoch(net, opt, cfg["train"]{fit_args})
        torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                   "epoch_%d.pt" % epoch)
    for epoch in range(cfg["epochs"]):
        net.load_state_dict(torch.load("epoch_%d.pt" % epoch)["net"])
        evaluate(net, cfg["val"])


if __name__ == "__main__":
    main({"epochs": int(sys.argv[1]), "train": [], "val": []})
"""


def _two_loops(per_call: bool) -> str:
    """Per call: ``fit_epoch`` makes its own scaler; else ``main`` makes one for the run."""
    made = '    scaler = torch.amp.GradScaler("cuda")'
    return (_TWO_LOOPS.replace("{fit_params}", "" if per_call else ", scaler")
            .replace("{fit_scaler}", made if per_call else "")
            .replace("{main_scaler}", "" if per_call else made)
            .replace("{fit_args}", "" if per_call else ", scaler"))


def test_scalers_made_per_call_in_two_loops_are_not_missing_from_the_checkpoint() -> None:
    assert "LRD007" not in codes(_two_loops(per_call=True))


def test_scaler_kept_across_epochs_is_still_missing_from_the_checkpoint() -> None:
    assert "LRD007" in codes(_two_loops(per_call=False))


# -- 3. a step loop counted as epochs times the batches of an epoch ---------------------------
#
# (probe of the batch's family: iteration-based trainers) `for it in range(max_epoch *
# iters_per_epoch)`, drawing `next()` from the loader: each pass is one batch, though a word
# of its count names the epochs. A cosine sized in epochs stepped on every pass ends after
# 1/iters_per_epoch of the run and turns back up; stepped once every iters_per_epoch passes,
# it is right.

_STEP_LOOP = """
import torch


def train(net, loader, max_epoch, iters_per_epoch):
    opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max_epoch)
    batches = iter(loader)
    for it in range(max_epoch * iters_per_epoch):
        try:
            x, y = next(batches)
        except StopIteration:
            batches = iter(loader)
            x, y = next(batches)
        loss = torch.nn.functional.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
{step}
"""


def test_epoch_cosine_stepped_every_pass_of_an_epochs_times_batches_loop_is_lrd002() -> None:
    assert ("LRD002", 19) in findings(_STEP_LOOP.replace("{step}", "        sched.step()"))


def test_epoch_cosine_stepped_once_per_epoch_of_that_loop_is_silent() -> None:
    step = "        if (it + 1) % iters_per_epoch == 0:\n            sched.step()"
    assert codes(_STEP_LOOP.replace("{step}", step)) == []


def test_iteration_horizon_stepped_every_pass_of_that_loop_is_silent() -> None:
    src = _STEP_LOOP.replace("T_max=max_epoch", "T_max=max_epoch * iters_per_epoch")
    assert codes(src.replace("{step}", "        sched.step()")) == []


def test_epoch_loop_over_a_multiple_of_the_epochs_is_still_an_epoch_loop() -> None:
    src = """
    import torch

    def train(net, loader, epochs):
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
        sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=epochs * len(loader))
        for epoch in range(epochs * 2):
            for x, y in loader:
                loss = torch.nn.functional.mse_loss(net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            sched.step()
    """
    assert "LRD003" in codes(src)
