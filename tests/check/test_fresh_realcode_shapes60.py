"""A shape probed after the fresh-2026-12yn batch (rcnew60, bench/realcode/README.md).

Programs written for these tests; no third-party code.

A LightningModule returns a ReduceLROnPlateau from ``configure_optimizers`` together with the
name of the logged value Lightning feeds it (``"monitor": "val_acc"``). When the plateau's
mode cuts the LR as that value gets better - the default ``mode="min"`` on an accuracy, AUC,
F1 or Dice, ``mode="max"`` on a loss - the LR falls every time the model improves (LRD004).
lrdoctor judged the mode against the metric's name in hand-written loops only, and was silent
on the Lightning spelling. Silent twins: a mode that fits the name, a name that says nothing
(``val_monitor``), a value logged negated (``self.log("val_auc", -auc)``) or under words of
the other kind, a mode read from a setting, a monitor that is not a literal.
"""

from __future__ import annotations

import textwrap

from .helpers import findings

MODULE = """
import pytorch_lightning as pl
import torch

MODE = "min"


class Classifier(pl.LightningModule):
    def __init__(self, lr=1e-3, mode="max", key="val_acc"):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(8, 2)
        self.key = key

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        loss = torch.nn.functional.cross_entropy(logits, y)
        acc = (logits.argmax(-1) == y).float().mean()
        self.log("val_loss", loss)
        self.log({logged})

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
        sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt{mode}, factor=0.5, patience=2)
{ret}
"""

NESTED = '        return {{"optimizer": opt, "lr_scheduler": {{"scheduler": sched, "monitor": {key}}}}}'
TOP = '        return {{"optimizer": opt, "lr_scheduler": sched, "monitor": {key}}}'
LISTS = '        return [opt], [{{"scheduler": sched, "monitor": {key}, "interval": "epoch"}}]'


def _source(mode: str, key: str, logged: str = '"val_acc", acc', ret: str = NESTED) -> str:
    return MODULE.format(mode=mode, logged=logged, ret=ret.format(key=key))


def _plateau_line(source: str) -> int:
    return next(n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1)
                if "ReduceLROnPlateau(" in line)


def _lrd004(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD004"]


# -- reported ----------------------------------------------------------------------------------


def test_default_mode_on_a_monitored_accuracy_is_reported() -> None:
    source = _source("", '"val_acc"')
    assert _lrd004(source) == [_plateau_line(source)]


def test_mode_max_on_a_monitored_loss_is_reported() -> None:
    source = _source(', mode="max"', '"val_loss"')
    assert _lrd004(source) == [_plateau_line(source)]


def test_monitor_beside_the_scheduler_at_the_top_level_is_reported() -> None:
    source = _source("", '"val_f1"', logged='"val_f1", acc', ret=TOP)
    assert _lrd004(source) == [_plateau_line(source)]


def test_scheduler_list_with_a_config_dict_is_reported() -> None:
    source = _source(', mode="min"', '"valid/auc"', logged='"valid/auc", acc', ret=LISTS)
    assert _lrd004(source) == [_plateau_line(source)]


def test_mode_held_by_a_module_constant_is_reported() -> None:
    source = _source(", mode=MODE", '"val_dice"', logged='"val_dice", acc')
    assert _lrd004(source) == [_plateau_line(source)]


# -- silent ------------------------------------------------------------------------------------


def test_mode_max_on_a_monitored_accuracy_is_silent() -> None:
    assert _lrd004(_source(', mode="max"', '"val_acc"')) == []


def test_default_mode_on_a_monitored_loss_is_silent() -> None:
    assert _lrd004(_source("", '"val_loss"')) == []


def test_a_name_that_says_nothing_is_silent() -> None:
    assert _lrd004(_source("", '"val_monitor"', logged='"val_monitor", -acc')) == []


def test_an_accuracy_logged_negated_is_silent() -> None:
    assert _lrd004(_source("", '"val_auc"', logged='"val_auc", -acc')) == []


def test_a_name_logged_with_a_loss_is_silent() -> None:
    assert _lrd004(_source("", '"val_acc"', logged='"val_acc", loss')) == []


def test_mode_from_a_setting_is_silent() -> None:
    assert _lrd004(_source(", mode=self.hparams.mode", '"val_acc"')) == []


def test_monitor_not_written_as_a_literal_is_silent() -> None:
    assert _lrd004(_source("", "self.key")) == []


def test_a_plateau_that_never_reduces_is_silent() -> None:
    source = _source("", '"val_acc"').replace("factor=0.5", "factor=1.0")
    assert _lrd004(source) == []


# -- LRD014: a builder of (optimizer, scheduler) whose new scheduler is dropped ------------------
#
# Fine-tuning stages rebuild the optimizer with the project's builder of both objects. When
# the second stage keeps only the optimizer (``optimizer, _ = build(...)``) and hands the first
# stage's scheduler on, that scheduler still drives the first optimizer while the new one trains
# at a constant LR. lrdoctor saw a scheduler built on the new optimizer and took it for the one
# in use, although nothing ever steps it.

STAGES = """
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Linear(8, 1))


class Holder:
    pass


holder = Holder()


def build(params, lr):
    opt = torch.optim.AdamW(params, lr=lr)
    sch = torch.optim.lr_scheduler.StepLR(opt, step_size=2)
    return opt, sch


def run(model, optimizer, scheduler, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()


optimizer, scheduler = build(model[1].parameters(), 1e-3)
run(model, optimizer, scheduler, 3)
{second}
run(model, optimizer, {stage_two}, 5)
"""


def _stages(second: str, stage_two: str = "scheduler") -> str:
    return STAGES.format(second=second, stage_two=stage_two)


def _lrd014(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD014"]


def test_second_stage_dropping_its_new_scheduler_is_reported() -> None:
    source = _stages("optimizer, _ = build(model.parameters(), 1e-4)")
    step = next(n for n, line in enumerate(textwrap.dedent(source).splitlines(), 1)
                if line.strip() == "scheduler.step()")
    assert _lrd014(source) == [step]


def test_second_stage_keeping_its_new_scheduler_is_silent() -> None:
    assert _lrd014(_stages("optimizer, scheduler = build(model.parameters(), 1e-4)")) == []


def test_new_scheduler_handed_to_the_second_stage_is_silent() -> None:
    source = _stages("optimizer, fresh = build(model.parameters(), 1e-4)", stage_two="fresh")
    assert _lrd014(source) == []


def test_new_scheduler_kept_by_an_instance_is_silent() -> None:
    source = _stages("optimizer, holder.sched = build(model.parameters(), 1e-4)")
    assert _lrd014(source) == []
