"""A trainer that steps a scheduler it is handed as `step(metric, epoch)` and checkpoints the
optimizer without it (dev miss allenai/allennlp-trainer-2018, LRD007).

Programs written for these tests; no third-party code.

The trainer takes a scheduler object from its caller (built from a registry lrdoctor cannot
read) and calls `self._lr_scheduler.step(val_metric, epoch)` once per epoch: the signature of
ReduceLROnPlateau (and of wrappers that forward to it), whose best value and count of bad
epochs live in its state. LRD007 took any step given arguments, on a scheduler known by name
alone, for `step(epoch)`, which puts a schedule at a position and so needs no saved state.
With a metric before the epoch, the epoch positions nothing: a checkpoint that keeps the
optimizer and not the scheduler loses what the plateau had counted.
"""

from __future__ import annotations

from .helpers import findings

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, optimizer, lr_scheduler=None):
        self._model = model
        self._optimizer = optimizer
        self._lr_scheduler = lr_scheduler

    def train(self, loader, epochs):
        for epoch in range(epochs):
            for batch in loader:
                self._optimizer.zero_grad()
                loss = self._model(batch)
                loss.backward()
                self._optimizer.step()
            val_metric = self.validate()
            if self._lr_scheduler:
                STEP
            self._save_checkpoint(epoch)

    def validate(self):
        return 0.0

    def _save_checkpoint(self, epoch):
        torch.save(self._model.state_dict(), "model.th")
        state = {"epoch": epoch, "optimizer": self._optimizer.state_dict()SAVED}
        torch.save(state, "training_state.th")

    def _restore_checkpoint(self):
        state = torch.load("training_state.th")
        self._model.load_state_dict(torch.load("model.th"))
        self._optimizer.load_state_dict(state["optimizer"])
        RESTORED
        return state["epoch"] + 1
"""


def trainer(step: str = "self._lr_scheduler.step(val_metric, epoch)", saved: bool = False
            ) -> str:
    return (TRAINER.replace("STEP", step)
            .replace("SAVED", ', "scheduler": self._lr_scheduler.state_dict()' if saved else "")
            .replace("RESTORED", 'self._lr_scheduler.load_state_dict(state["scheduler"])'
                     if saved else "pass"))


def test_a_metric_and_epoch_step_with_the_scheduler_left_out_of_the_checkpoint_is_lrd007(
) -> None:
    assert [code for code, _ in findings(trainer())] == ["LRD007", "LRD007"]


def test_the_same_checkpoint_with_the_scheduler_in_it_is_right() -> None:
    assert findings(trainer(saved=True)) == []


def test_a_step_given_the_epoch_alone_still_names_its_position() -> None:
    assert findings(trainer(step="self._lr_scheduler.step(epoch)")) == []
