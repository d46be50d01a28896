"""Shapes met while measuring the fresh-2026-12gb batch of framework programs (issue 7), in our
own words.

The nine new programs (timm's train script, a Hugging Face Trainer subclass, an Accelerate loop
with a prepared scheduler, a DeepSpeed loop with a closed-form LR, Lightning modules of three
generations, a Catalyst runner, a TensorFlow trainer) were all correct code, and the checker
said nothing on any of them. The one framework miss left in the dev split was a Lightning one:

A LightningModule in automatic optimization keeps a scheduler of its own and steps it by hand
in a hook Lightning calls on every training batch (``on_train_batch_start``, the old
``on_batch_start``, ``training_step``), while the project builds its ``Trainer`` with
``accumulate_grad_batches``. Lightning then steps the optimizer once every that many batches,
so the schedule advances once per micro-batch (LRD017). The Trainer is usually built in
another file (the driver that imports the module), which the module's own check never reads:
the project is searched for a Lightning ``Trainer(...)`` call that gets an
``accumulate_grad_batches`` other than a literal 1 in a file that names the module's class.

Silent: no accumulation (none given, or a literal 1); a scheduler returned from
``configure_optimizers`` (Lightning steps it per update, whatever the accumulation); a step
under an accumulation test of its own or under a periodic test; a schedule counted in loader
batches (sized per micro-batch by design); a step in ``optimizer_step`` (called per update); a
Trainer that accumulates for another module.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project

_MODULE = """
import torch
import pytorch_lightning as pl
from torch.optim.lr_scheduler import CosineAnnealingLR


class Regressor(pl.LightningModule):
    def __init__(self, hp):
        super().__init__()
        self.hp = hp
        self.body = torch.nn.Linear(8, 1)
        self.sched = None

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.body(x), y)
{IN_STEP}
        return loss

{HOOK}

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=3e-4)
        self.sched = CosineAnnealingLR(opt, T_max={HORIZON})
{RETURN}
"""

_START_HOOK = """
    def on_train_batch_start(self, batch, batch_idx):
        self.sched.step()
"""

_DRIVER = """
import pytorch_lightning as pl
from models.regressor import Regressor


class Settings:
    updates = 5000
    accumulate = 4


def main():
    hp = Settings()
    trainer = pl.Trainer(max_epochs=10{TRAINER_ARGS})
    trainer.fit(Regressor(hp))


if __name__ == "__main__":
    main()
"""


def _project(hook: str = _START_HOOK, in_step: str = "", horizon: str = "self.hp.updates",
             ret: str = "        return opt",
             trainer_args: str = ", accumulate_grad_batches=hp.accumulate",
             driver: str | None = None) -> dict[str, str]:
    module = _MODULE.format(IN_STEP=in_step, HOOK=hook, HORIZON=horizon, RETURN=ret)
    return {
        "models/__init__.py": "",
        "models/regressor.py": module,
        "train.py": (driver if driver is not None else _DRIVER).format(
            TRAINER_ARGS=trainer_args),
    }


def _lrd017(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]
            ) -> list[tuple[str, int]]:
    found = check_project(tmp_path, monkeypatch, files)
    return [(path, line) for path, line, code in found if code == "LRD017"]


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# -- the wrong shape ----------------------------------------------------------------------------


def test_hook_step_under_an_accumulating_trainer_in_the_driver(tmp_path, monkeypatch):
    files = _project()
    found = _lrd017(tmp_path, monkeypatch, files)
    assert found == [("models/regressor.py", _line(files["models/regressor.py"],
                                                   "self.sched.step()"))]


def test_the_message_names_the_trainer_and_its_count(tmp_path, monkeypatch):
    files = _project()
    report = check_project(tmp_path, monkeypatch, files)
    assert [c for _, _, c in report].count("LRD017") == 1
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files
    diagnostics = check_files(sorted(files), frozenset(CATALOG), jobs=1).diagnostics
    message = next(d.message for d in diagnostics if d.code == "LRD017")
    assert "train.py:" in message and "accumulate_grad_batches=hp.accumulate" in message
    assert "Regressor" in message


def test_old_hook_name_with_an_option_and_a_phase_window(tmp_path, monkeypatch):
    # the schedule chosen by a setting and run only over a window of global steps: inside the
    # window it still steps on every micro-batch
    hook = """
    def on_batch_start(self, batch):
        if self.hp.schedule == "anneal":
            if self.hp.flat <= self.global_step < self.hp.flat + self.hp.span:
                self.sched.step()
"""
    module = _MODULE.format(IN_STEP="", HOOK=hook, HORIZON="self.hp.span",
                            RETURN="        return opt")
    module = module.replace(
        "        self.sched = CosineAnnealingLR(opt, T_max=self.hp.span)",
        "        if self.hp.schedule == \"anneal\":\n"
        "            self.sched = CosineAnnealingLR(opt, T_max=self.hp.span)")
    driver = """
import pytorch_lightning
from models.regressor import Regressor

if __name__ == "__main__":
    trainer = pytorch_lightning.Trainer(gpus=1, accumulate_grad_batches=2)
    trainer.fit(Regressor(None))
"""
    files = {"models/__init__.py": "", "models/regressor.py": module, "run.py": driver}
    found = _lrd017(tmp_path, monkeypatch, files)
    assert found == [("models/regressor.py", _line(module, "self.sched.step()"))]


def test_step_in_training_step_with_the_trainer_in_the_same_file(tmp_path, monkeypatch):
    module = _MODULE.format(IN_STEP="        self.sched.step()", HOOK="",
                            HORIZON="self.hp.updates", RETURN="        return opt")
    module += """

if __name__ == "__main__":
    import argparse
    from lightning.pytorch import Trainer
    p = argparse.ArgumentParser()
    p.add_argument("--accum", type=int, default=8)
    args = p.parse_args()
    Trainer(accumulate_grad_batches=args.accum).fit(Regressor(args))
"""
    files = {"models/__init__.py": "", "models/regressor.py": module}
    found = _lrd017(tmp_path, monkeypatch, files)
    assert found == [("models/regressor.py", _line(module, "self.sched.step()"))]


# -- the right shapes stay silent ---------------------------------------------------------------


@pytest.mark.parametrize("trainer_args", ["", ", accumulate_grad_batches=1",
                                          ", accumulate_grad_batches=None"])
def test_no_accumulation(tmp_path, monkeypatch, trainer_args):
    assert _lrd017(tmp_path, monkeypatch, _project(trainer_args=trainer_args)) == []


def test_scheduler_returned_to_lightning_with_interval_step(tmp_path, monkeypatch):
    ret = """        return {"optimizer": opt,
                "lr_scheduler": {"scheduler": self.sched, "interval": "step"}}"""
    assert _lrd017(tmp_path, monkeypatch, _project(hook="", ret=ret)) == []


def test_step_under_its_own_accumulation_test(tmp_path, monkeypatch):
    hook = """
    def on_train_batch_end(self, outputs, batch, batch_idx):
        if (batch_idx + 1) % self.trainer.accumulate_grad_batches == 0:
            self.sched.step()
"""
    assert _lrd017(tmp_path, monkeypatch, _project(hook=hook)) == []


def test_step_under_a_period_of_its_own(tmp_path, monkeypatch):
    hook = """
    def on_train_batch_end(self, outputs, batch, batch_idx):
        if batch_idx % 500 == 0:
            self.sched.step()
"""
    assert _lrd017(tmp_path, monkeypatch, _project(hook=hook)) == []


def test_schedule_counted_in_loader_batches(tmp_path, monkeypatch):
    horizon = "len(self.train_dataloader()) * self.hp.epochs"
    assert _lrd017(tmp_path, monkeypatch, _project(horizon=horizon)) == []


def test_step_in_optimizer_step_runs_per_update(tmp_path, monkeypatch):
    hook = """
    def optimizer_step(self, *args, **kwargs):
        super().optimizer_step(*args, **kwargs)
        self.sched.step()
"""
    assert _lrd017(tmp_path, monkeypatch, _project(hook=hook)) == []


def test_an_accumulating_trainer_for_another_module(tmp_path, monkeypatch):
    files = _project(trainer_args="")
    files["pretrain.py"] = """
import pytorch_lightning as pl
from models.other import Encoder

pl.Trainer(accumulate_grad_batches=16).fit(Encoder())
"""
    assert _lrd017(tmp_path, monkeypatch, files) == []


def test_a_trainer_that_is_not_lightnings(tmp_path, monkeypatch):
    driver = """
from mytools import Trainer
from models.regressor import Regressor

Trainer(accumulate_grad_batches=4).fit(Regressor(None))
"""
    files = _project(driver=driver)
    assert _lrd017(tmp_path, monkeypatch, files) == []


def test_a_scheduler_lightning_steps_too_is_left_to_the_second_stepper_rule(tmp_path,
                                                                            monkeypatch):
    # returned from configure_optimizers (Lightning steps it at each epoch's end) and stepped
    # by hand per batch as well: one diagnosis of the double stepping, not a second LRD017
    ret = """        return [opt], [self.sched]"""
    files = _project(ret=ret)
    found = check_project(tmp_path, monkeypatch, files)
    step_line = _line(files["models/regressor.py"], "self.sched.step()")
    assert ("models/regressor.py", step_line, "LRD017") not in found
