"""fphunt50: false alarms found on whole unseen repositories built on PyTorch Lightning and
the Hugging Face Trainer, each fixed by semantics. Every false shape, written here in our own
words, must be silent; a buggy twin must still be reported.

1. LRD006, a class test spelled with ``type()`` and a list: a LightningModule keeps one of
   several schedulers (a setting picks MultiStepLR, ExponentialLR, ReduceLROnPlateau or
   OneCycleLR) and steps the plateau one with its metric only under ``if type(self.sched)
   in [ReduceLROnPlateau]:``. ``type(x) in [A, B]`` is true only when the class of ``x`` is
   one of those listed, as ``type(x) == A`` (which lrdoctor read) and ``isinstance(x, (A,
   B))`` for classes nothing derives from: in that branch the scheduler is the plateau, and
   ``step(metric)`` is its documented call, not a deprecated epoch argument.
"""

from __future__ import annotations

from .helpers import codes, messages

PICKED = """
import pytorch_lightning as pl
import torch
from torch import nn
from torch.optim.lr_scheduler import ExponentialLR, MultiStepLR, OneCycleLR, ReduceLROnPlateau


class Captioner(pl.LightningModule):
    def __init__(self, kind, steps):
        super().__init__()
        self.kind = kind
        self.steps = steps
        self.net = nn.Linear(8, 2)
        self.sched = None

    def training_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self.net(x), y)

    def on_train_batch_end(self, outputs, batch, batch_idx):
        if type(self.sched) in [OneCycleLR]:
            self.sched.step()

    def training_epoch_end(self, outputs):
        if type(self.sched) in [MultiStepLR, ExponentialLR]:
            self.sched.step()

    def validation_step(self, batch, batch_idx):
        x, y = batch
        return nn.functional.cross_entropy(self.net(x), y).item()

    def validation_epoch_end(self, outputs):
        score = sum(outputs) / len(outputs)
        self.log("val_loss", score)
        if PLATEAU_TEST:
            self.sched.step(STEP_ARG)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        if self.kind == "step":
            self.sched = MultiStepLR(opt, milestones=[10, 20], gamma=0.1)
        elif self.kind == "plateau":
            self.sched = ReduceLROnPlateau(opt, mode="min", patience=3)
        elif self.kind == "exp":
            self.sched = ExponentialLR(opt, gamma=0.95)
        elif self.kind == "cycle":
            self.sched = OneCycleLR(opt, max_lr=0.1, total_steps=self.steps)
        return opt
"""


def picked(test: str, arg: str = "score") -> str:
    return PICKED.replace("PLATEAU_TEST", test).replace("STEP_ARG", arg)


def test_plateau_step_under_type_in_list_is_silent() -> None:
    assert "LRD006" not in codes(picked("type(self.sched) in [ReduceLROnPlateau]"))


def test_plateau_step_under_type_in_tuple_is_silent() -> None:
    assert "LRD006" not in codes(picked("type(self.sched) in (ReduceLROnPlateau,)"))


def test_plateau_step_in_else_of_type_not_in_list_is_silent() -> None:
    source = picked("type(self.sched) not in [MultiStepLR, ExponentialLR, OneCycleLR]")
    assert "LRD006" not in codes(source)


def test_plateau_step_under_type_is_is_silent() -> None:
    assert "LRD006" not in codes(picked("type(self.sched) is ReduceLROnPlateau"))


def test_epoch_step_under_type_in_list_of_epoch_classes_is_found() -> None:
    # the branch runs for MultiStepLR and ExponentialLR: the argument is their epoch
    source = picked("type(self.sched) in [MultiStepLR, ExponentialLR]", "self.current_epoch")
    found = [m for m in messages(source) if "deprecated" in m]
    assert "LRD006" in codes(source)
    assert any("ExponentialLR or MultiStepLR" in m for m in found)
    assert not any("ReduceLROnPlateau" in m for m in found)


def test_metric_step_under_type_in_list_naming_plateau_and_another_is_found() -> None:
    # `step(score)` also reaches the MultiStepLR option, which takes the score as its epoch
    source = picked("type(self.sched) in [ReduceLROnPlateau, MultiStepLR]")
    found = [m for m in messages(source) if "epoch position" in m]
    assert "LRD006" in codes(source)
    assert any("to MultiStepLR" in m for m in found)


def test_metric_step_under_unrelated_type_test_is_found() -> None:
    # a class test on another object says nothing of which scheduler the setting picked
    source = picked("type(self.net) in [nn.Linear]")
    assert "LRD006" in codes(source)


def test_metric_step_with_no_class_test_is_found() -> None:
    assert "LRD006" in codes(picked("self.current_epoch > 0"))
