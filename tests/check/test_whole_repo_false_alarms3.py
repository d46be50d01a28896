"""False alarms found on whole repositories nobody here wrote (fphunt11), each next to a
control that must still be reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from tests.check.helpers import codes, findings

# -- a diffusion sampler's noise schedule is not an LR scheduler --------------------------------

# a sampling helper whose `self.scheduler` is registered through a call lrdoctor cannot follow,
# so the attribute is known by its name alone; the training loop samples on the main process
_SAMPLER = """
import torch
from accelerate import Accelerator


class Sampler:
    def __init__(self, unet, noise_schedule):
        self.unet = unet
        self.register(scheduler=noise_schedule)

    @torch.no_grad()
    def __call__(self, latents, timesteps):
        for t in timesteps:
            eps = self.unet(latents, t)
            {step}
        return latents


def main(unet, loader, noise_schedule, timesteps):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    unet, optimizer, loader = accelerator.prepare(unet, optimizer, loader)
    sampler = Sampler(unet, noise_schedule)
    for step, batch in enumerate(loader):
        loss = unet(batch).mean()
        accelerator.backward(loss)
        optimizer.step()
        optimizer.zero_grad()
        if accelerator.is_main_process and step % 100 == 0:
            sampler(torch.randn(1, 4, 8, 8), timesteps)
"""


def test_a_noise_schedule_stepped_with_the_models_output_is_not_an_lr_scheduler() -> None:
    # `scheduler.step(eps, t, latents)`: a sampler's denoising step (diffusers' signature);
    # an LR scheduler's step takes an epoch, or a metric and an epoch
    for step in ("latents = self.scheduler.step(eps, t, latents).prev_sample",
                 "latents = self.scheduler.step(model_output=eps, timestep=t, sample=latents)[0]",
                 "latents = self.scheduler.step(eps, t, latents, **extra).prev_sample"):
        assert codes(_SAMPLER.replace("{step}", step)) == []


def test_a_scheduler_known_by_name_stepped_on_the_main_process_only_is_still_lrd013() -> None:
    # control: the same attribute stepped as an LR scheduler (no argument, or an epoch)
    for step in ("self.scheduler.step()", "self.scheduler.step(t)"):
        assert codes(_SAMPLER.replace("{step}", step)) == ["LRD013"]


# -- a scheduler tested against a builtin type: the test is decided ---------------------------

# a trainer base class shared with subclasses that keep a dict of schedulers: the epoch loop
# steps `self.scheduler` on the `else` of `isinstance(self.scheduler, dict)`
_BASE_TRAINER = """
import torch
from transformers import get_scheduler


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.scheduler = get_scheduler("cosine", optimizer=self.optimizer,
                                       num_warmup_steps=cfg.warmup_steps,
                                       num_training_steps=cfg.total_steps)

    def _train_step(self, batch):
        loss = self.model(batch).mean()
        loss.backward()
        self.optimizer.step()
{per_batch}
        self.optimizer.zero_grad()

    def _train_epoch(self):
        for batch in self.loader:
            self._train_step(batch)

    def train_loop(self):
        for epoch in range(self.cfg.epochs):
            self._train_epoch()
            if {test}:
                for key in self.scheduler.keys():
                    self.scheduler[key].step()
            else:
                self.scheduler.step()
"""


def _trainer(per_batch: bool, test: str = "isinstance(self.scheduler, dict)") -> str:
    step = "        self.scheduler.step()" if per_batch else ""
    return _BASE_TRAINER.replace("{per_batch}", step).replace("{test}", test)


def test_a_scheduler_stepped_per_batch_and_on_the_else_of_a_dict_test_is_two_levels() -> None:
    # a scheduler is never a dict: the `else` runs after every epoch, on top of the step after
    # every update, which is LRD012's double step, not LRD003's "stepped once per epoch"
    assert findings(_trainer(per_batch=True)) == [("LRD012", 34)]
    assert findings(_trainer(per_batch=True, test="isinstance(self.scheduler, (dict, list))")) \
        == [("LRD012", 34)]


def test_a_batch_scheduler_stepped_only_on_the_else_of_a_dict_test_is_still_lrd003() -> None:
    # control: with no step after each update, the `else` step is the only one: once per epoch
    assert codes(_trainer(per_batch=False)) == ["LRD003"]



# -- a step under a test naming the scheduler class in use -------------------------------------

# the schedule is picked by a setting in a builder the driver calls; the epoch loop steps it
# with the validation metric when the same setting (or a tag the builder copied it to) names
# ReduceLROnPlateau, without when it names another class
_PICKED_BY_NAME = """
import torch
from torch.optim import lr_scheduler


def build(optimizer, train_opt):
    if train_opt["lr_scheme"] == "MultiStepLR":
        sched = lr_scheduler.MultiStepLR(optimizer, train_opt["lr_steps"])
    elif train_opt["lr_scheme"] == "ReduceLROnPlateau":
        sched = lr_scheduler.ReduceLROnPlateau(optimizer, patience=train_opt["patience"])
    else:
        raise NotImplementedError(train_opt["lr_scheme"])
    sched.name = train_opt["lr_scheme"]
    return sched


def main(model, loader, opt, validate):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = build(optimizer, opt["train"])
    for epoch in range(opt["epochs"]):
        for x in loader:
            optimizer.zero_grad()
            model(x).mean().backward()
            optimizer.step()
        metric = validate(model)
        if {test}:
            scheduler.step(metric)
        else:
            scheduler.step()
"""


def test_a_metric_step_under_a_test_naming_reduce_on_plateau_is_not_lrd006() -> None:
    for test in ('opt["train"]["lr_scheme"] == "ReduceLROnPlateau"',
                 '"ReduceLROnPlateau" == opt["train"]["lr_scheme"]',
                 'scheduler.name in ["ReduceLROnPlateau"]',
                 'not opt["train"]["lr_scheme"] != "ReduceLROnPlateau"'):
        assert codes(_PICKED_BY_NAME.replace("{test}", test)) == []


def test_a_metric_step_under_another_test_is_still_lrd006() -> None:
    # controls: a test naming the stepped class itself, a test on something else, and the
    # `if` branch of `!=` (any class but the named one) still pass the metric as an epoch
    for test in ('opt["train"]["lr_scheme"] == "MultiStepLR"',
                 'opt["train"]["use_metric"]',
                 'opt["train"]["lr_scheme"] != "ReduceLROnPlateau"'):
        assert "LRD006" in codes(_PICKED_BY_NAME.replace("{test}", test)), test


# the same base class in a module of its own, its training step abstract; the subclass (in
# another module, started by a launcher lrdoctor is not given) steps the scheduler after every
# update
_BASE_MODULE = """
import torch
from transformers import get_scheduler


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.scheduler = get_scheduler("cosine", optimizer=self.optimizer,
                                       num_warmup_steps=cfg.warmup_steps,
                                       num_training_steps=cfg.total_steps)

    def _train_step(self, batch):
        raise NotImplementedError

    def _train_epoch(self):
        for batch in self.loader:
            self._train_step(batch)

    def train_loop(self):
        for epoch in range(self.cfg.epochs):
            self._train_epoch()
            if isinstance(self.scheduler, dict):
                for key in self.scheduler.keys():
                    self.scheduler[key].step()
            else:
                self.scheduler.step()
"""

_SUBCLASS_MODULE = """
from pkg.base import Trainer


class DenoiserTrainer(Trainer):
    def _train_step(self, batch):
        loss = self.model(batch).mean()
        loss.backward()
        self.optimizer.step()
{step}
        self.optimizer.zero_grad()
"""


def _base_and_subclass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                       step: str) -> list[tuple[str, int, str]]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/base.py").write_text(textwrap.dedent(_BASE_MODULE))
    (tmp_path / "pkg/denoiser.py").write_text(
        textwrap.dedent(_SUBCLASS_MODULE).replace("{step}", step))
    monkeypatch.chdir(tmp_path)
    report = check_files(["pkg/__init__.py", "pkg/base.py", "pkg/denoiser.py"],
                         frozenset(CATALOG), jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics if d.code != "LRD101"]


def test_an_epoch_step_a_subclass_doubles_per_batch_is_lrd012_not_lrd003(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the base module's own trace cannot see the abstract training step, so it alone would
    # say "stepped once per epoch"; the subclass's trace sees both steps: one finding, LRD012
    assert _base_and_subclass(tmp_path, monkeypatch, "        self.scheduler.step()") == [
        ("pkg/base.py", 30, "LRD012")]


def test_an_epoch_step_no_subclass_doubles_is_still_lrd003(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # control: the subclass does not step the scheduler: once per epoch, LRD003
    assert _base_and_subclass(tmp_path, monkeypatch, "        pass") == [
        ("pkg/base.py", 30, "LRD003")]


# -- `accelerator.unwrap_model(x)` is x ----------------------------------------------------------

# a trainer class whose objects come from a base class lrdoctor cannot read; its `save()`
# unwraps the optimizer and the scheduler from Accelerate and writes one file for each
_UNWRAPPED_SAVE = """
import os

import torch
from mylib.trainers import BaseTrainer


class PreferenceTrainer(BaseTrainer):
    def train(self):
        for step, batch in enumerate(self.train_iterator):
            loss = self.loss(batch)
            self.accelerator.backward(loss)
            self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad()
            if step % self.config.save_every == 0:
                self.save(os.path.join(self.run_dir, f"step-{step}"))

    def save(self, output_dir):
        optimizer = self.accelerator.unwrap_model(self.optimizer)
        scheduler = self.accelerator.unwrap_model(self.scheduler)
        if self.accelerator.is_main_process:
            state = {"state_dict": optimizer.state_dict(), "class": type(optimizer).__name__}
            torch.save(state, os.path.join(output_dir, "optimizer.pt"))
{scheduler_save}
"""


def test_the_unwrapped_schedulers_own_file_completes_the_checkpoint() -> None:
    save = '            torch.save(scheduler.state_dict(), os.path.join(output_dir, "sched.pt"))'
    assert codes(_UNWRAPPED_SAVE.replace("{scheduler_save}", save)) == []


def test_a_checkpoint_of_the_unwrapped_optimizer_alone_is_still_lrd007() -> None:
    # control: the scheduler is unwrapped but never written
    assert findings(_UNWRAPPED_SAVE.replace("{scheduler_save}", "")) == [("LRD007", 24)]


# -- an optimizer handed to a mixed-precision initializer: float32 master weights ---------------

# a float16 model whose Adam (default eps) is handed, with the model, to an initializer that
# takes over both (apex's `amp.initialize`, DeepSpeed's `initialize`, a project's own wrapper
# module): the optimizer it hands back steps float32 master copies
_HALF_ADAM = """
import torch
from project import mixed


def build(net, loader):
    net = net.cuda().half()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    {handover}
    for x in loader:
        loss = net(x).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""


def test_an_adam_handed_to_a_mixed_precision_initializer_is_not_lrd102() -> None:
    for handover in ("net, optimizer = mixed.initialize(net, optimizer, 'O2')",
                     "net, optimizer = mixed.initialize(net, optimizer, opt_level='O2')",
                     "engine, optimizer, _, _ = mixed.initialize(model=net, optimizer=optimizer)"):
        assert codes(_HALF_ADAM.replace("{handover}", handover)) == [], handover


def test_an_adam_on_float16_parameters_prepared_or_kept_is_still_lrd102() -> None:
    # control: `prepare` hands the optimizer back over the same float16 parameters, and an
    # initializer given only the model leaves the optimizer alone
    for handover in ("net, optimizer = mixed.prepare(net, optimizer)",
                     "net = mixed.initialize(net)",
                     "pass"):
        assert codes(_HALF_ADAM.replace("{handover}", handover)) == ["LRD102"], handover


# -- a scaler parameter no call fills: `**kwargs` forwards only what its caller named -----------

_LOSS_HELPER = """
import torch


def guided_loss(model, batch, scaler=None, **kwargs):
    loss = model(batch).mean()
    if scaler is not None:
        scaler.scale(loss).backward()
    else:
        loss.backward()
    return loss.detach()


def get_loss(model, batch, scaler=None, **kwargs):
    return guided_loss(model, batch, scaler=scaler, **kwargs)
"""

_FORWARDING_TRAINER = """
import torch
from helpers.losses import get_loss


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        self.scaler = torch.amp.GradScaler("cuda")

    def train_step(self, batch, **kwargs):
        loss = get_loss(self.model, batch, **kwargs)
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss

    def run(self):
        for batch in self.loader:
            self.train_step(batch, {given})
"""


def _forwarding_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                        given: str) -> list[tuple[str, int, str]]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers/__init__.py").write_text("")
    (tmp_path / "helpers/losses.py").write_text(textwrap.dedent(_LOSS_HELPER))
    (tmp_path / "train.py").write_text(
        textwrap.dedent(_FORWARDING_TRAINER).replace("{given}", given))
    monkeypatch.chdir(tmp_path)
    report = check_files(["helpers/__init__.py", "helpers/losses.py", "train.py"],
                         frozenset(CATALOG), jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics if d.code != "LRD101"]


def test_a_scaler_parameter_left_at_none_through_forwarded_kwargs_is_not_lrd109(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the loop names `weight` only: the forwarded `**kwargs` holds no scaler, so the helper's
    # `scaler` stays None and the loss is not scaled
    assert _forwarding_project(tmp_path, monkeypatch, "weight=1.0") == []


def test_a_scaler_forwarded_through_kwargs_is_still_lrd109(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    # control: the loop names the scaler, which the `**kwargs` carry to the helper
    assert _forwarding_project(tmp_path, monkeypatch, "scaler=self.scaler") == [
        ("train.py", 15, "LRD109")]
