"""Whole repositories nobody here wrote (fphunt14): false alarms and misses found by reading
the training code, each next to a control that must stay as it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project
from tests.check.helpers import project_codes as codes

# -- a horizon written in the count of the loop that steps it --------------------------------------
# A small generative model inside a larger method is fitted by a helper: `for _ in
# trange(n_rounds)` makes full passes over a loader, and the warm-restart cosine, stepped after
# each pass, restarts first after `n_rounds // 10` of them. The count is called "iterations" by
# its author, but it is the number of passes of the very loop the scheduler steps in: the
# horizon is counted in the units it is stepped in, not in batches.

_FIT_HELPER = """
import torch
from tqdm import trange


class Density(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 8)

    def fit(self, feats, n_iters, lr):
        opt = torch.optim.Adam(self.parameters(), lr=lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0={horizon}, T_mult=2)
        loader = torch.utils.data.DataLoader(feats, batch_size=64, shuffle=True)
        {header}
                for batch in loader:
                    opt.zero_grad()
                    loss = (self.net(batch) - batch).pow(2).mean()
                    loss.backward()
                    opt.step()
                sched.step()
"""


@pytest.mark.parametrize("header", [
    "with trange(n_iters, desc='fit') as bar:\n            for _ in bar:",
    "for _ in range(n_iters):\n            with torch.enable_grad():",
    "for _ in trange(0, n_iters):\n            with torch.enable_grad():",
])
@pytest.mark.parametrize("horizon", ["n_iters // 10", "n_iters", "max(1, n_iters // 10)"])
def test_a_horizon_in_the_count_of_its_own_loop_is_not_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str, horizon: str) -> None:
    source = _FIT_HELPER.format(header=header, horizon=horizon)
    assert "LRD003" not in codes(check_project(tmp_path, monkeypatch, {"density.py": source}))


@pytest.mark.parametrize("header,horizon", [
    # the epoch loop counts something else: the iterations really are batches
    ("for _ in range(n_epochs):\n            with torch.enable_grad():", "n_iters // 10"),
    # the count of the loop times a count of batches: a horizon in batches
    ("for _ in range(n_iters):\n            with torch.enable_grad():", "n_iters * len(loader)"),
])
def test_a_batch_horizon_beside_another_epoch_count_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, header: str, horizon: str) -> None:
    source = _FIT_HELPER.format(header=header, horizon=horizon).replace(
        "def fit(self, feats, n_iters, lr):", "def fit(self, feats, n_iters, lr, n_epochs=5):")
    assert "LRD003" in codes(check_project(tmp_path, monkeypatch, {"density.py": source}))


# -- a resume that hands the epoch to the settings the scheduler is built from ----------------------
# A text-detection trainer builds its optimizer and scheduler from a config through one factory
# (`getattr(torch.optim.lr_scheduler, cfg[name]["type"])(opt, **cfg[name]["args"])`). Its resume
# restores the weights and the optimizer, skips the scheduler's state and instead writes the epoch
# it read back into the scheduler's settings (`self.config["lr_scheduler"]["args"]["last_epoch"] =
# start_epoch`) before the scheduler is built: the schedule is rebuilt at the resumed position.

_CONFIG_TRAINER = """
import torch


class Trainer:
    def __init__(self, config, model, resume_path):
        self.config = config
        self.model = model
        self.start_epoch = 0
        self.optimizer = self._initialize("optimizer", torch.optim, model.parameters())
        if resume_path:
            self._resume(resume_path)
        self.scheduler = self._initialize("lr_scheduler", torch.optim.lr_scheduler, self.optimizer)

    def _initialize(self, name, module, *args):
        kind = self.config[name]["type"]
        settings = self.config[name]["args"]
        return getattr(module, kind)(*args, **settings)

    def _resume(self, path):
        ckpt = torch.load(path)
        self.model.load_state_dict(ckpt["model"])
        self.start_epoch = ckpt["epoch"]
        {position}
        self.optimizer.load_state_dict(ckpt["optimizer"])

    def train(self, loader, epochs):
        for epoch in range(self.start_epoch + 1, epochs + 1):
            for x, y in loader:
                self.optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.optimizer.step()
            self.scheduler.step()
            torch.save({"model": self.model.state_dict(), "epoch": epoch,
                        "optimizer": self.optimizer.state_dict(),
                        "scheduler": self.scheduler.state_dict()}, "last.pt")
"""


def test_a_resume_writing_last_epoch_into_the_settings_is_not_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _CONFIG_TRAINER.replace(
        "{position}", 'self.config["lr_scheduler"]["args"]["last_epoch"] = self.start_epoch')
    assert "LRD007" not in codes(check_project(tmp_path, monkeypatch, {"trainer.py": source}))


@pytest.mark.parametrize("position", [
    "pass",  # nothing puts the scheduler back where it was
    'self.config["lr_scheduler"]["args"]["last_epoch"] = -1',  # built afresh, said outright
])
def test_a_resume_that_leaves_the_scheduler_settings_alone_is_still_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, position: str) -> None:
    source = _CONFIG_TRAINER.replace("{position}", position)
    assert "LRD007" in codes(check_project(tmp_path, monkeypatch, {"trainer.py": source}))


# -- a unit test is a program of its own -----------------------------------------------------------
# A continual-learning library's test rebuilds by hand the LR timeline its plateau plugin should
# produce when told to watch the training loss: a plain loop steps ReduceLROnPlateau with the
# epoch's training loss. Other tests of the module, and the library code they run, name
# validation things (`val_benchmark`, a strategy's `self._eval_streams`, a `_test_...` helper):
# none of them is a validation of this test's loop, which computes none.

_UNIT_TEST = """
import unittest

import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Strategy:
    def __init__(self, model, streams):
        self.model = model
        self._eval_streams = list(streams)


class PluginTests(unittest.TestCase):
    def test_timeline(self):
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.001)
        scheduler = ReduceLROnPlateau(optimizer)
        for epoch in range(3):
            train_loss = 0.0
            for _ in range(5):
                x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                train_loss += loss.item()
                loss.backward()
                optimizer.step()
            {after}
            scheduler.step(train_loss)
        self._test_plugin_timeline(model)

    def _test_plugin_timeline(self, model):
        Strategy(model, [1, 2])
        self.assertIsNotNone(model)

    def test_with_validation(self):
        val_loss = torch.tensor(0.5)
        self.assertTrue(val_loss > 0)
"""


def test_a_unit_test_reads_no_validation_from_other_tests(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _UNIT_TEST.replace("{after}", "pass")
    found = check_project(tmp_path, monkeypatch, {"tests/test_plugins.py": source})
    assert "LRD004" not in codes(found)


@pytest.mark.parametrize("name,after", [
    # the same test computes a validation loss and still steps with the training loss
    ("tests/test_plugins.py", "val_loss = float(model.weight.sum())"),
    # a training script: the whole file is one program
    ("train_plugins.py", "pass"),
])
def test_a_validation_of_the_same_run_still_makes_it_lrd004(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, after: str) -> None:
    source = _UNIT_TEST.replace("{after}", after)
    assert "LRD004" in codes(check_project(tmp_path, monkeypatch, {name: source}))


# -- a scheduler a config object builds around the optimizer ----------------------------------------
# A radiance-field trainer builds its per-step decay from a config object: `sched =
# cfg.scheduler.setup(optimizer=opt, lr_init=lr)`. "setup" is also Fabric's verb for wrapping
# objects and handing them back, but a call given the optimizer by the singular keyword alone is
# a builder: the scheduler it returns is not the optimizer. Stepped after `scaler.step(opt)`
# every iteration, it is LRD005 (the skip), not LRD109 (an update that bypasses the scaler).

_CONFIG_BUILT = """
import torch


def train(cfg, model, batches, steps):
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    {build}
    scaler = torch.amp.GradScaler("cuda")
    for step in range(steps):
        x = next(batches)
        with torch.autocast("cuda"):
            loss = model(x).mean()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        sched.step()
"""


def test_a_scheduler_a_config_object_sets_up_is_not_the_optimizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = _CONFIG_BUILT.replace("{build}", "sched = cfg.scheduler.setup(optimizer=opt, lr_init=1e-3)")
    found = codes(check_project(tmp_path, monkeypatch, {"trainer.py": source}))
    assert "LRD109" not in found
    assert "LRD005" in found


@pytest.mark.parametrize("build", [
    "sched = fabric.setup_optimizers(opt)",  # Fabric hands the optimizer back
    "sched = accelerator.prepare(opt)",  # so does Accelerate
])
def test_a_wrapper_handing_the_optimizer_back_is_still_the_optimizer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build: str) -> None:
    source = _CONFIG_BUILT.replace("{build}", build).replace(
        "def train(cfg,", "def train(fabric, accelerator, cfg,")
    assert "LRD109" in codes(check_project(tmp_path, monkeypatch, {"trainer.py": source}))
