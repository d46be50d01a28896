"""rcnew88 (batch fresh-2026-12zo88: schedule-heavy code with the projects' own scheduler
objects): a shape of the family the batch shows, written in our own words.

Research toolkits often build their scheduler in a factory that returns a small record
instead of the scheduler itself: ``{"name": name, "when": "metric", "obj":
ReduceLROnPlateau(opt, mode="min")}`` on one branch of the factory, the same keys with
``ReduceLROnPlateau(opt, mode="max")`` on another, and a ``StepLR`` on a third. The trainer,
in another module, keeps the record and steps ``record["obj"]`` under a test of the record's
own tag (``if record["name"] == "on_loss": record["obj"].step(dev_loss)``).

lrdoctor read a call that returns on several paths as what its last ``return`` gives, so the
record's ``"obj"`` was the scheduler of the factory's last branch: the validation-loss step
was judged against the mode='max' plateau built for the BLEU branch (a false LRD004), and a
``OneCycleLR`` returned beside a ``StepLR`` was taken for the ``StepLR`` (LRD003 missed).
Python: the call returns the dict of the path it takes; each key of that dict holds what that
path put there. Read key by key, as the positions of returned tuples already were, a key
holding a different scheduler on each path is one of them, whichever the path picks, and the
step under the record's tag is judged on the option built under the matching branch. A tag
the paths spell differently is unknown apart from its path, never the last path's literal.

Silent twins: the plateau stepped with the validation loss under the tag of the mode='min'
branch, and with an accuracy under the tag of the mode='max' branch; a record of several
schedulers stepped per batch or per epoch by a tag of its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

PLATEAU_FACTORY = """
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR


def make_schedule(kind, optimizer, opts):
    if kind == "none":
        return None
    elif kind == "step":
        return {{"kind": kind, "when": "epoch", "obj": StepLR(optimizer, 10)}}
    elif kind == "on_loss":
        return {{"kind": kind, "when": "metric",
                "obj": ReduceLROnPlateau(optimizer, mode="{loss_mode}", factor=opts["factor"])}}
    elif kind == "on_score":
        return {{"kind": kind, "when": "metric",
                "obj": ReduceLROnPlateau(optimizer, mode="{acc_mode}", factor=opts["factor"])}}
"""

PLATEAU_RUNNER = """
import torch
from sched_factory import make_schedule


def build(optimizer, opts):
    record = make_schedule(opts["sched"], optimizer, opts)
    return record


class Runner:
    def __init__(self, model, optimizer, record):
        self.model = model
        self.optimizer = optimizer
        self.record = record

    def check_loss(self, loader):
        dev_loss = 0.0
        for x, y in loader:
            dev_loss += torch.nn.functional.mse_loss(self.model(x), y).item()
        if self.record["kind"] == "on_loss":
            self.record["obj"].step(dev_loss)
        return dev_loss

    def check_accuracy(self, loader):
        dev_acc = 0.0
        for x, y in loader:
            dev_acc += (self.model(x).argmax(1) == y).float().mean().item()
        if self.record["kind"] == "on_score":
            self.record["obj"].step(dev_acc)
        return dev_acc

    def fit(self, train, dev, epochs):
        for epoch in range(epochs):
            for x, y in train:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            self.check_loss(dev)
            self.check_accuracy(dev)
            if self.record["when"] == "epoch":
                self.record["obj"].step()


def main(model, train, dev, opts):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    record = build(optimizer, opts)
    Runner(model, optimizer, record).fit(train, dev, opts["epochs"])
"""


def _plateaus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loss_mode: str = "min",
              acc_mode: str = "max") -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "sched_factory.py": PLATEAU_FACTORY.format(loss_mode=loss_mode, acc_mode=acc_mode),
        "runner.py": PLATEAU_RUNNER,
    })


def test_control_each_plateau_of_a_factory_record_stepped_under_its_own_tag_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the loss step runs only for the record of the mode='min' branch, the accuracy step only
    # for the mode='max' one (the factory's last return)
    assert project_codes(_plateaus(tmp_path, monkeypatch)) == []


def test_the_loss_branch_built_with_mode_max_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _plateaus(tmp_path, monkeypatch, loss_mode="max")
    assert project_codes(found) == ["LRD004"]
    assert found[0][:2] == ("runner.py", 22)


def test_the_accuracy_branch_built_with_mode_min_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _plateaus(tmp_path, monkeypatch, acc_mode="min")
    assert project_codes(found) == ["LRD004"]
    assert found[0][:2] == ("runner.py", 30)


INTERVAL_FACTORY = """
from torch.optim.lr_scheduler import OneCycleLR, StepLR


def make_schedule(name, optimizer, cfg, steps_per_epoch):
    if name == "onecycle":
        return {{"name": name, "interval": "{onecycle_interval}",
                "scheduler": OneCycleLR(optimizer, max_lr=cfg["lr"], epochs=cfg["epochs"],
                                        steps_per_epoch=steps_per_epoch)}}
    if name == "step":
        return {{"name": name, "interval": "epoch",
                "scheduler": StepLR(optimizer, step_size=cfg["step_size"])}}
    return None
"""

INTERVAL_TRAINER = """
import torch
from scheds import make_schedule


class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"])
        self.schedule = make_schedule(cfg["sched"], self.optimizer, cfg, len(loader))

    def run(self):
        for epoch in range(self.cfg["epochs"]):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
                {per_batch}
            {per_epoch}
"""

BY_TAG_BATCH = ('if self.schedule["interval"] == "step":\n'
                '                    self.schedule["scheduler"].step()')
BY_TAG_EPOCH = ('if self.schedule["interval"] == "epoch":\n'
                '                self.schedule["scheduler"].step()')


def _intervals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, onecycle_interval: str,
               per_batch: str, per_epoch: str) -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "scheds.py": INTERVAL_FACTORY.format(onecycle_interval=onecycle_interval),
        "trainer.py": INTERVAL_TRAINER.format(per_batch=per_batch, per_epoch=per_epoch),
    })


def test_a_onecycle_record_stepped_once_per_epoch_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the record's scheduler is the OneCycleLR or the StepLR, whichever the setting picks:
    # stepped once per epoch with no test, the OneCycleLR option never anneals
    found = _intervals(tmp_path, monkeypatch, "epoch", "pass",
                       'self.schedule["scheduler"].step()')
    assert project_codes(found) == ["LRD003"]
    assert found[0][:2] == ("trainer.py", 21)


def test_control_records_stepped_by_their_own_interval_tag_are_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the OneCycleLR's record says "step" and the StepLR's "epoch": the tag read apart from
    # the path is unknown, not the StepLR's "epoch" (which would put the OneCycleLR in the
    # epoch loop only)
    found = _intervals(tmp_path, monkeypatch, "step", BY_TAG_BATCH, BY_TAG_EPOCH)
    assert project_codes(found) == []


def test_control_a_record_stepped_per_batch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _intervals(tmp_path, monkeypatch, "step", 'self.schedule["scheduler"].step()',
                       "pass")
    assert project_codes(found) == []


# -- a cosine horizon and an epoch count written in the project's config module ---------------
#
# The batch's streaming action-segmentation framework keeps its numbers in a Python config
# module (`epochs = 1000`, `SCHED = dict(name="CosineAnnealingLR", T_max=200)`), hands the dict
# to a pipeline class that builds the cosine, and steps it once per epoch from an engine in
# another module: the cosine runs through five periods and climbs back up after each. lrdoctor
# read `config.epochs` and `config.SCHED["T_max"]` as settings a run chooses, and two unrelated
# settings are never compared; Python: they are numbers the program's source fixes, as a
# literal is, unless some file of the project rewrites them.

CONFIG = """
epochs = 1000
SCHED = dict(name="CosineAnnealingLR", T_max={t_max}, eta_min=3e-5)
T_MAX = {t_max}
"""

SAME_FILE = """
import torch
import config
from torch.optim.lr_scheduler import CosineAnnealingLR


def main(model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=7e-4)
    scheduler = CosineAnnealingLR(optimizer, T_max={horizon}, eta_min=3e-5)
    for epoch in range(config.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
"""

PIPELINE = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class Pipeline:
    def __init__(self, model, sched_cfg):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=7e-4)
        self.lr_scheduler = CosineAnnealingLR(self.optimizer, T_max=sched_cfg["T_max"],
                                              eta_min=sched_cfg["eta_min"])

    def train_batch(self, x, y):
        self.optimizer.zero_grad()
        torch.nn.functional.mse_loss(self.model(x), y).backward()
        self.optimizer.step()

    def update_policy(self):
        self.lr_scheduler.step()
"""

ENGINE = """
import argparse
import config
from pipeline import Pipeline


def run(model, loader):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1000)
    args = parser.parse_args()
    {before}
    pipe = Pipeline(model, config.SCHED)
    for epoch in range({count}):
        for x, y in loader:
            pipe.train_batch(x, y)
        pipe.update_policy()
"""


def _same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, horizon: str,
               t_max: int = 200) -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "config.py": CONFIG.format(t_max=t_max),
        "train.py": SAME_FILE.format(horizon=horizon),
    })


def _engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, t_max: int = 200,
            before: str = "pass", count: str = "config.epochs") -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "config.py": CONFIG.format(t_max=t_max),
        "pipeline.py": PIPELINE,
        "engine.py": ENGINE.format(before=before, count=count),
    })


def test_a_cosine_sized_by_a_config_module_constant_shorter_than_its_epochs_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _same_file(tmp_path, monkeypatch, "config.T_MAX")
    assert project_codes(found) == ["LRD010"]
    assert found[0][:2] == ("train.py", 15)


def test_an_entry_of_a_config_module_dict_is_a_number_as_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _same_file(tmp_path, monkeypatch, 'config.SCHED["T_max"]')
    assert project_codes(found) == ["LRD010"]


def test_the_config_dict_handed_to_a_pipeline_class_stepped_from_an_engine_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _engine(tmp_path, monkeypatch)
    assert project_codes(found) == ["LRD010"]
    assert found[0][:2] == ("pipeline.py", 19)


def test_control_a_config_horizon_equal_to_the_epochs_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert project_codes(_engine(tmp_path, monkeypatch, t_max=1000)) == []
    assert project_codes(_same_file(tmp_path / "b", monkeypatch, "config.T_MAX",
                                    t_max=1000)) == []


def test_control_a_config_dict_entry_a_driver_rewrites_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _engine(tmp_path, monkeypatch, before='config.SCHED["T_max"] = args.epochs')
    assert project_codes(found) == []


def test_control_a_config_count_a_driver_rewrites_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _engine(tmp_path, monkeypatch, before="config.epochs = args.epochs")
    assert project_codes(found) == []


def test_control_epochs_from_the_command_line_are_the_run_s_choice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _engine(tmp_path, monkeypatch, count="args.epochs")
    assert project_codes(found) == []


# -- a timm scheduler counted in updates that only ever gets step(epoch) -----------------------
#
# Swin-style code builds timm's CosineLRScheduler with `t_initial=epochs * n_iter_per_epoch`
# and `t_in_epochs=False`, and must then call `step_update(num_updates)` after each optimizer
# step. Written with only the torch habit of `lr_scheduler.step(epoch)` after each epoch, timm
# leaves the LR alone (its step() moves only a scheduler counted in epochs): the run trains at
# warmup_lr_init from start to end. lrdoctor left every timm scheduler out of LRD003.

TIMM_BUILDER = """
from timm.scheduler.cosine_lr import CosineLRScheduler


def build_scheduler(cfg, optimizer, n_iter_per_epoch):
    num_steps = int(cfg["epochs"] * n_iter_per_epoch)
    warmup_steps = int(cfg["warmup_epochs"] * n_iter_per_epoch)
    return CosineLRScheduler(optimizer, t_initial=num_steps, lr_min=5e-6, warmup_lr_init=5e-7,
                             warmup_t=warmup_steps, cycle_limit=1, t_in_epochs={in_epochs})
"""

TIMM_MAIN = """
import torch
from lr_sched import build_scheduler


def train_one_epoch(model, loader, optimizer, lr_scheduler, epoch):
    for idx, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        {per_batch}


def main(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    lr_scheduler = build_scheduler(cfg, optimizer, len(loader))
    for epoch in range(cfg["epochs"]):
        train_one_epoch(model, loader, optimizer, lr_scheduler, epoch)
        {per_epoch}
"""


def _timm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, in_epochs: str = "False",
          per_batch: str = "pass", per_epoch: str = "lr_scheduler.step(epoch + 1)",
          extra: dict[str, str] | None = None) -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "lr_sched.py": TIMM_BUILDER.format(in_epochs=in_epochs),
        "main.py": TIMM_MAIN.format(per_batch=per_batch, per_epoch=per_epoch),
        **(extra or {}),
    })


def test_a_timm_scheduler_in_updates_stepped_only_per_epoch_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _timm(tmp_path, monkeypatch)
    assert project_codes(found) == ["LRD003"]
    assert found[0][:2] == ("main.py", 19)


def test_control_step_update_after_every_optimizer_step_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _timm(tmp_path, monkeypatch,
                  per_batch="lr_scheduler.step_update(epoch * len(loader) + idx)",
                  per_epoch="pass")
    assert project_codes(found) == []


def test_control_both_calls_as_timm_s_own_training_script_makes_them_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _timm(tmp_path, monkeypatch,
                  per_batch="lr_scheduler.step_update(epoch * len(loader) + idx)")
    assert project_codes(found) == []


def test_control_a_timm_scheduler_in_epochs_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # counted in epochs and sized in epochs: timm's step(epoch) moves it as it should
    builder = TIMM_BUILDER.format(in_epochs="True").replace(
        'int(cfg["epochs"] * n_iter_per_epoch)', 'cfg["epochs"]').replace(
        'int(cfg["warmup_epochs"] * n_iter_per_epoch)', 'cfg["warmup_epochs"]')
    found = check_project(tmp_path, monkeypatch, {
        "lr_sched.py": builder,
        "main.py": TIMM_MAIN.format(per_batch="pass", per_epoch="lr_scheduler.step(epoch + 1)"),
    })
    assert project_codes(found) == []


def test_a_timm_scheduler_in_epochs_sized_in_batches_stepped_per_epoch_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (rcnew113) t_in_epochs=True but t_initial=epochs * n_iter_per_epoch: timm reads the epoch
    # against a horizon of batches, so the schedule is n_iter_per_epoch times too long (this
    # was the control above until the horizon's unit was judged for timm's schedulers)
    found = _timm(tmp_path, monkeypatch, in_epochs="True")
    assert project_codes(found) == ["LRD003"]
    assert found[0][:2] == ("main.py", 19)


def test_control_t_in_epochs_from_a_setting_is_the_run_s_choice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert project_codes(_timm(tmp_path, monkeypatch, in_epochs='cfg["t_in_epochs"]')) == []


def test_control_step_update_called_by_a_hook_of_another_module_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a call the trace may not follow: any file of the project that calls step_update
    hooks = ("def after_update(scheduler, num_updates):\n"
             "    scheduler.step_update(num_updates)\n")
    found = _timm(tmp_path, monkeypatch, extra={"hooks.py": hooks})
    assert project_codes(found) == []


# -- a project's copy of the gradual warm-up wrapper, stepped after every batch ----------------
#
# Many projects carry their own copy of the gradual warm-up scheduler: a subclass of torch's
# scheduler base holding `after_scheduler`, whose step() hands each call on with
# `self.after_scheduler.step(None)` once `self.finished` is set. Stepped after every batch with
# a cosine sized in epochs behind it, the cosine completes within the first epoch and
# oscillates (LRD002), as lrdoctor already says for the pip package's class. For the copy it
# said nothing: `step(None)` was not read as the plain step it is, and the wrapper's own
# state test (`if self.finished and self.after_scheduler:`) was taken for a choice of the
# training loop about when to step.

WARMUP_COPY = """
from torch.optim.lr_scheduler import _LRScheduler


class WarmupThen(_LRScheduler):
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
        return [b * ((self.multiplier - 1.0) * self.last_epoch / self.total_epoch + 1.0)
                for b in self.base_lrs]

    def step(self, epoch=None, metrics=None):
        if {state_test}:
            if epoch is None:
                self.after_scheduler.step(None)
            else:
                self.after_scheduler.step(epoch - self.total_epoch)
            self._last_lr = self.after_scheduler.get_last_lr()
        else:
            return super().step(epoch)
"""

WARMUP_TRAIN = """
import argparse
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR
from warmup import WarmupThen


def main(model, loader, args):
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    cosine = CosineAnnealingLR(opt, T_max={t_max})
    sched = WarmupThen(opt, multiplier=8, total_epoch=args.warmup_epochs, after_scheduler=cosine)
    for epoch in range(args.epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            {per_batch}
        {per_epoch}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--warmup_epochs", type=int, default=5)
    parser.add_argument("--mode", default="epoch")
    main(None, None, parser.parse_args())
"""


def _warmup_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                 t_max: str = "args.epochs - args.warmup_epochs", per_batch: str = "sched.step()",
                 per_epoch: str = "pass",
                 state_test: str = "self.finished and self.after_scheduler",
                 extra_init: str = "") -> list[tuple[str, int, str]]:
    cls = WARMUP_COPY.format(state_test=state_test)
    if extra_init:
        cls = cls.replace("        self.finished = False\n",
                          f"        self.finished = False\n        {extra_init}\n")
    return check_project(tmp_path, monkeypatch, {
        "warmup.py": cls,
        "train.py": WARMUP_TRAIN.format(t_max=t_max, per_batch=per_batch,
                                        per_epoch=per_epoch),
    })


def test_a_copied_warmup_wrapper_handing_an_epoch_cosine_each_batch_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _warmup_copy(tmp_path, monkeypatch)
    assert project_codes(found) == ["LRD002"]
    assert found[0][:2] == ("warmup.py", 27)


def test_control_the_copied_wrapper_stepped_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _warmup_copy(tmp_path, monkeypatch, per_batch="pass", per_epoch="sched.step()")
    assert project_codes(found) == []


def test_control_a_cosine_sized_in_batches_behind_the_copied_wrapper_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _warmup_copy(tmp_path, monkeypatch, t_max="args.epochs * len(loader)")
    assert project_codes(found) == []


def test_control_a_setting_copied_in_init_is_a_choice_not_state(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `if self.mode == "iter":` tests what the user chose, not how far the schedule is
    found = _warmup_copy(tmp_path, monkeypatch, state_test='self.mode == "iter"',
                         extra_init='self.mode = "epoch"')
    assert project_codes(found) == []
