"""fphunt58: the horizon rules (LRD003 / LRD002 / LRD010 / LRD012) where the dev labels were
unsure and lrdoctor reported at error. Each shape is written here in our own words; the
correct spelling must be silent, its buggy twin still found.

1. A LightningModule under automatic optimization returns a schedule sized in batches without
   ``"interval": "step"`` and also steps it itself at the top of ``training_step`` (``sch =
   self.lr_schedulers(); sch.step()``), with a driver that builds the module and fits it. The
   hand step runs it through its horizon at one step per batch; Lightning adds one more per
   epoch (LRD012 says so at the call). LRD003 ("stepped once per epoch ... ends far from
   complete") was reported as well, at the ``return``: the check that the same scheduler is
   stepped per batch by hand compared objects by identity, and the driver's trace and the
   class's trace each make their own object for the one ``configure_optimizers`` call. One
   constructor call of one file is one scheduler in Python: matched by where it is built.
   Without the hand step, LRD003 stays.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

# {hand}: what training_step does before its loss
_LIGHTNING_DRIVEN = """
import torch
import lightning as L
from transformers import get_linear_schedule_with_warmup


class Regressor(L.LightningModule):
    def __init__(self, rounds=4, n_rows=8000, rows_per_batch=16):
        super().__init__()
        self.rounds = rounds
        self.n_rows = n_rows
        self.rows_per_batch = rows_per_batch
        self.head = torch.nn.Linear(6, 1)

    def training_step(self, batch, batch_idx):
{hand}
        return self.head(batch).abs().mean()

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=2e-4)
        updates = int(self.rounds * self.n_rows / self.rows_per_batch)
        sched = get_linear_schedule_with_warmup(opt, int(0.06 * updates), updates)
        return [opt], [sched]


def run():
    module = Regressor()
    rows = torch.utils.data.DataLoader(torch.randn(96, 6), batch_size=12)
    L.Trainer(max_epochs=4).fit(module, train_dataloaders=rows)


if __name__ == "__main__":
    run()
"""


def _lightning(hand: str) -> str:
    return _LIGHTNING_DRIVEN.replace("{hand}", hand)


def test_hand_step_per_batch_with_driver_is_no_per_epoch_schedule(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch
                                                                    ) -> None:
    found = project_codes(check_project(tmp_path, monkeypatch, {"fit.py": _lightning(
        "        sch = self.lr_schedulers()\n        sch.step()")}))
    assert "LRD003" not in found
    assert "LRD012" in found  # the double step (per batch by hand, per epoch by Lightning)


def test_without_hand_step_the_per_epoch_schedule_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = project_codes(check_project(tmp_path, monkeypatch, {"fit.py": _lightning(
        "        pass")}))
    assert "LRD003" in found
