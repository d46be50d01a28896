"""Lightning's `configure_optimizers` as real modules write it: lists, dicts, a scheduler
config built in a variable, `lightning.pytorch` / `pytorch_lightning` / `lightning` imports,
horizons from `self.trainer.estimated_stepping_batches` or `self.hparams`. A per-update
schedule at the default epoch interval is LRD003; with `"interval": "step"` it is correct."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_MODULE = """
import torch
from transformers import get_linear_schedule_with_warmup
{imports}

class LitModel({base}):
    def __init__(self, lr=1e-3, max_epochs=10):
        super().__init__()
        self.save_hyperparameters()
        self.net = torch.nn.Linear(4, 1)

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        scheduler = {build}
{ret}
"""

_IMPORTS = {
    "pytorch_lightning": ("import pytorch_lightning as pl", "pl.LightningModule"),
    "lightning_pytorch": ("import lightning.pytorch as pl", "pl.LightningModule"),
    "lightning_as_L": ("import lightning as L", "L.LightningModule"),
    "from_import": ("from lightning.pytorch import LightningModule", "LightningModule"),
}

_PER_UPDATE = {
    "estimated_stepping_batches": (
        "torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=self.hparams.lr, "
        "total_steps=self.trainer.estimated_stepping_batches)"),
    "hf_warmup": (
        "get_linear_schedule_with_warmup(optimizer, 100, "
        "self.trainer.estimated_stepping_batches)"),
}

_DEFAULT_INTERVAL = {
    "two_lists": "        return [optimizer], [scheduler]",
    "dict_with_the_bare_scheduler": (
        '        return {"optimizer": optimizer, "lr_scheduler": scheduler}'),
    "scheduler_config_without_interval": (
        '        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, '
        '"monitor": "val_loss"}}'),
}

_STEP_INTERVAL = {
    "nested_dict": ('        return {"optimizer": optimizer, "lr_scheduler": '
                    '{"scheduler": scheduler, "interval": "step"}}'),
    "list_of_configs": ('        return [optimizer], [{"scheduler": scheduler, '
                        '"interval": "step", "frequency": 1}]'),
    "config_in_a_variable": ('        lr_scheduler_config = {"scheduler": scheduler, '
                             '"interval": "step", "name": "lr"}\n'
                             '        return {"optimizer": optimizer, '
                             '"lr_scheduler": lr_scheduler_config}'),
    "config_filled_by_key": ('        config = {"scheduler": scheduler}\n'
                             '        config["interval"] = "step"\n'
                             '        return [optimizer], [config]'),
}


def _module(imports: str, build: str, ret: str) -> str:
    line, base = _IMPORTS[imports]
    return _MODULE.format(imports=line, base=base, build=build, ret=ret)


@pytest.mark.parametrize("ret", sorted(_DEFAULT_INTERVAL))
@pytest.mark.parametrize("build", sorted(_PER_UPDATE))
def test_per_update_schedule_at_the_default_epoch_interval_is_lrd003(build: str,
                                                                      ret: str) -> None:
    src = _module("pytorch_lightning", _PER_UPDATE[build], _DEFAULT_INTERVAL[ret])
    assert codes(src) == ["LRD003"]


@pytest.mark.parametrize("ret", sorted(_STEP_INTERVAL))
@pytest.mark.parametrize("build", sorted(_PER_UPDATE))
def test_per_update_schedule_at_the_step_interval_is_correct(build: str, ret: str) -> None:
    src = _module("pytorch_lightning", _PER_UPDATE[build], _STEP_INTERVAL[ret])
    assert codes(src) == []


@pytest.mark.parametrize("imports", sorted(_IMPORTS))
def test_every_lightning_import_spelling_is_recognised(imports: str) -> None:
    src = _module(imports, _PER_UPDATE["estimated_stepping_batches"],
                  _DEFAULT_INTERVAL["two_lists"])
    assert codes(src) == ["LRD003"]


def test_epoch_cosine_over_max_epochs_at_the_default_interval_is_correct() -> None:
    src = _module("pytorch_lightning",
                  "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, "
                  "T_max=self.hparams.max_epochs)",
                  _DEFAULT_INTERVAL["two_lists"])
    assert codes(src) == []


def test_epoch_cosine_over_max_epochs_at_the_step_interval_is_lrd002() -> None:
    src = _module("pytorch_lightning",
                  "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, "
                  "T_max=self.hparams.max_epochs)",
                  _STEP_INTERVAL["nested_dict"])
    assert codes(src) == ["LRD002"]


def test_interval_taken_from_a_setting_is_left_alone() -> None:
    src = _module("pytorch_lightning", _PER_UPDATE["estimated_stepping_batches"],
                  '        return [optimizer], [{"scheduler": scheduler, '
                  '"interval": self.hparams.interval}]')
    assert codes(src) == []
