"""A MultiStepLR's milestones documented as "steps to decay the learning rate".

"Step" is the schedule's own word: a StepLR/MultiStepLR decays at its steps, one per
``scheduler.step()``, whatever the program steps it by. An argument that only echoes the
parameter's name (``milestones=self.lr_decay_steps``) already says nothing of the unit; the
same holds for the constructor docstring that describes it ("lr_decay_steps (Sequence):
steps to decay the learning rate"), as it does for an option's ``help=``. Found in fphunt40's
whole-repository scan: a Lightning method returning ``MultiStepLR(optimizer,
self.lr_decay_steps)`` without an interval, its scripts passing ``--lr_decay_steps 60 80`` for
100 epochs, was reported as LRD003 (an error). A docstring that names another unit
("iterations at which to decay") is still the author's statement and is still reported.

Programs written for these tests; no third-party code.
"""

from __future__ import annotations

import pytest

from .helpers import codes

MODULE = '''
import lightning.pytorch as pl
import torch
from torch.optim.lr_scheduler import MultiStepLR


class Classifier(pl.LightningModule):
    def __init__(self, lr_decay_steps=None, scheduler="step"):
        """A linear probe.

        Args:
            lr_decay_steps (Sequence, optional): DESCRIPTION if scheduler is
                step. Defaults to None.
            scheduler (str): which schedule to use.
        """
        super().__init__()
        self.net = torch.nn.Linear(4, 2)
        self.lr_decay_steps = lr_decay_steps
        self.scheduler = scheduler

    def training_step(self, batch, batch_idx):
        x, y = batch
        return (self.net(x) - y).pow(2).mean()

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1)
        if self.scheduler == "step":
            scheduler = MultiStepLR(optimizer, ARGUMENT)
        else:
            raise ValueError(self.scheduler)
        return [optimizer], [scheduler]
'''


def module(description: str, argument: str = "self.lr_decay_steps") -> str:
    return MODULE.replace("DESCRIPTION", description).replace("ARGUMENT", argument)


@pytest.mark.parametrize("description", [
    "steps to decay the learning rate",
    "the step at which the learning rate decays",
    "decay steps of the schedule",
])
@pytest.mark.parametrize("argument", ["self.lr_decay_steps", "milestones=self.lr_decay_steps",
                                      'milestones=self.hparams["lr_decay_steps"]'])
def test_steps_of_the_schedule_itself_state_no_unit(description: str, argument: str) -> None:
    assert "LRD003" not in codes(module(description, argument))


@pytest.mark.parametrize("description", [
    "iterations at which to decay the learning rate",
    "training batches after which the learning rate decays",
])
def test_control_a_description_in_batches_is_still_the_authors_statement(description: str) -> None:
    assert "LRD003" in codes(module(description))
