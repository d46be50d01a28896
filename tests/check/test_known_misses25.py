"""Framework-driven schedulers, by the general shape (devmiss17).

Programs written for these tests; no third-party code.

1. An ExponentialLR handed to a framework that steps it after every update: a Hugging Face
   Trainer (``optimizers=(optimizer, scheduler)`` or a ``create_scheduler`` override) and a
   Lightning config with ``"interval": "step"``. Each step multiplies the LR by gamma, so a
   gamma meant per epoch (0.9, 0.95) collapses the LR within the first thousand updates,
   exactly as when the script steps it in its own batch loop (already LRD002). Its twins: a
   gamma close to 1 (a per-step decay by design), a gamma the file does not state, and the
   Lightning config stepped per epoch, stay silent.
2. A Lightning config ``{"interval": "step", "frequency": N}``: Lightning steps the scheduler
   after every N-th batch, not every batch; ``"frequency": len(train_loader)`` is once per
   epoch. A scheduler sized in epochs there is not stepped per batch, and nothing is said;
   its twin with ``"frequency": 1`` (or none) still is (LRD002). A hand step beside it on
   every batch is still a second stepper (LRD012), said with Lightning's actual pace.
"""

from __future__ import annotations

import pytest

from .helpers import codes, messages

# 1. ExponentialLR stepped after every update by the framework --------------------------

HF_TRAINER = """
import torch
from transformers import Trainer, TrainingArguments


def main(model, train_set, gamma_from_cli):
    args = TrainingArguments(output_dir="out", num_train_epochs=20)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    decay = torch.optim.lr_scheduler.ExponentialLR(optimizer, {gamma})
    trainer = Trainer(model=model, args=args, train_dataset=train_set,
                      optimizers=(optimizer, decay))
    trainer.train()
"""

HF_SUBCLASS = """
import torch
from transformers import Trainer


class DecayingTrainer(Trainer):
    def create_scheduler(self, num_training_steps, optimizer=None):
        self.lr_scheduler = torch.optim.lr_scheduler.ExponentialLR(
            optimizer or self.optimizer, gamma={gamma})
        return self.lr_scheduler


def main(model, args, train_set):
    DecayingTrainer(model=model, args=args, train_dataset=train_set).train()
"""

LIGHTNING = """
import torch
import lightning as L


class Regressor(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.mse_loss(self.net(x), y)

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        decay = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma={gamma})
        return {{"optimizer": optimizer, "lr_scheduler": {config}}}
"""


@pytest.mark.parametrize("gamma", ["0.9", "gamma=0.95", "0.98"])
def test_exponential_decay_handed_to_a_hf_trainer_is_reported(gamma: str) -> None:
    source = HF_TRAINER.format(gamma=gamma)
    assert codes(source) == ["LRD002"]
    assert "per update" in messages(source)[0]


@pytest.mark.parametrize("gamma", ["0.9999", "gamma=gamma_from_cli", "1.0"])
def test_gentle_or_unstated_exponential_decay_in_a_hf_trainer_stays_silent(gamma: str) -> None:
    assert "LRD002" not in codes(HF_TRAINER.format(gamma=gamma))


def test_exponential_decay_built_by_a_trainer_subclass_is_reported() -> None:
    assert codes(HF_SUBCLASS.format(gamma="0.9")) == ["LRD002"]


def test_gentle_exponential_decay_built_by_a_trainer_subclass_stays_silent() -> None:
    assert codes(HF_SUBCLASS.format(gamma="0.99995")) == []


@pytest.mark.parametrize("config", [
    '{"scheduler": decay, "interval": "step"}',
    '{"scheduler": decay, "interval": "step", "frequency": 1}',
])
def test_exponential_decay_stepped_every_batch_by_lightning_is_reported(config: str) -> None:
    source = LIGHTNING.format(gamma="0.95", config=config)
    assert codes(source) == ["LRD002"]
    assert "Lightning steps it every batch" in messages(source)[0]


@pytest.mark.parametrize("gamma, config", [
    ("0.95", "decay"),
    ("0.95", '{"scheduler": decay, "interval": "epoch"}'),
    ("0.9999", '{"scheduler": decay, "interval": "step"}'),
])
def test_exponential_decay_stepped_per_epoch_or_gently_by_lightning_stays_silent(
        gamma: str, config: str) -> None:
    assert codes(LIGHTNING.format(gamma=gamma, config=config)) == []


# 2. Lightning's "frequency" -----------------------------------------------------------------

EVERY_FEW_BATCHES = """
import torch
import lightning as L


class Classifier(L.LightningModule):
    def __init__(self, train_loader):
        super().__init__()
        self.net = torch.nn.Linear(8, 4)
        self.train_loader = train_loader

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=0.1)
        scheduler = {scheduler}
        config = {{"scheduler": scheduler, "interval": "step", "frequency": {frequency}}}
        return [optimizer], [config]
{hook}"""

_STEPLR = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)"
_EXPONENTIAL = "torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)"
_HOOK = """
    def lr_scheduler_step(self, scheduler, metric):
        scheduler.step()
"""


@pytest.mark.parametrize("scheduler", [_STEPLR, _EXPONENTIAL])
@pytest.mark.parametrize("frequency", ["len(self.train_loader)", "1000", "self.steps_per_epoch"])
@pytest.mark.parametrize("hook", ["", _HOOK])
def test_scheduler_stepped_every_few_batches_by_lightning_is_not_per_batch(
        scheduler: str, frequency: str, hook: str) -> None:
    source = EVERY_FEW_BATCHES.format(scheduler=scheduler, frequency=frequency, hook=hook)
    assert "LRD002" not in codes(source)


@pytest.mark.parametrize("scheduler", [_STEPLR, _EXPONENTIAL])
@pytest.mark.parametrize("hook", ["", _HOOK])
def test_scheduler_stepped_with_frequency_one_is_still_per_batch(scheduler: str,
                                                                 hook: str) -> None:
    source = EVERY_FEW_BATCHES.format(scheduler=scheduler, frequency="1", hook=hook)
    assert "LRD002" in codes(source)


def test_batch_sized_schedule_stepped_every_few_epochs_is_still_per_epoch() -> None:
    # "frequency" with the default (epoch) interval: rarer still than once per epoch
    source = EVERY_FEW_BATCHES.format(
        scheduler="torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, "
                  "total_steps=self.trainer.estimated_stepping_batches)",
        frequency="2", hook="").replace('"interval": "step", ', "")
    assert codes(source) == ["LRD003"]


def test_hand_step_beside_lightning_every_few_batches_is_still_a_second_stepper() -> None:
    # stepped by hand on every batch and by Lightning every tenth: LRD012, said as it is
    source = EVERY_FEW_BATCHES.format(
        scheduler=_STEPLR, frequency="10",
        hook="\n    def on_train_batch_end(self, outputs, batch, batch_idx):\n"
             "        self.lr_schedulers().step()\n")
    found = codes(source)
    assert "LRD012" in found  # (and LRD002: StepLR(step_size=30) stepped by hand per batch)
    assert "every `frequency`-th batch" in messages(source)[found.index("LRD012")]
