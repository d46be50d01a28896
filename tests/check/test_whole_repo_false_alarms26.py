"""False alarms of fphunt36's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. A StepLR whose step size comes from a setting named like a step (``cfg["lr_drop_step"]``),
   stepped once per epoch with the epoch's index handed as its position
   (``scheduler.step(epoch=epoch)``): the program itself says the schedule's position is the
   epoch, so a step size read only from a word in a name is counted in epochs (LRD003 said it
   was counted in batches). A horizon computed from the loader's length, or a schedule that
   counts batches by design (OneCycleLR), is still reported; so is the plain ``step()``.
2. The scheduler's own LR written back into the optimizer's groups on every iteration
   (``self.lr = self.current_lr()``, a method that returns ``self.scheduler.get_last_lr()[0]``
   whenever a scheduler is set; then ``group["lr"] = self.lr``): the chainable step goes on from
   the value it set itself, the schedule is what trains (LRD008 said neither did). A write of
   a value of the program's own (a manual cosine) beside the scheduler is still reported.

3. (wording) LRD006 on ``scheduler.step(epoch=epoch)`` at the top of the epoch, before the
   epoch's updates, said to drop the argument and call ``step()`` "where it is called now":
   a bare step there moves to position 1 before any update (LRD001's shape). It now says to
   step after the optimizer steps of each pass; a step after the updates keeps the old advice.
4. (wording) A file saved as UTF-16 (a byte-order mark first, as Windows PowerShell's ``>``
   writes): not checked, as before, but the note said to declare the encoding in a coding
   line, which Python cannot read in such a file; it now says to save it as UTF-8.

Each has a control that must still be reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.check.sources import SourceError, read_python

from .helpers import codes, messages

# -- 1. a scheduler stepped to the epoch's index, its horizon named like a step -----------------

POSITIONED = """
import torch
from torch.optim.lr_scheduler import StepLR


class Engine:
    def __init__(self, config, model):
        self.config = config
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
        self.scheduler = StepLR(self.optimizer, step_size=self.config["lr_drop_step"],
                                gamma=self.config["decay_rate"])

    def train_an_epoch(self, loader, epoch):
        self.scheduler.step(epoch=epoch)
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = (self.model(x) - y).pow(2).mean()
            loss.backward()
            self.optimizer.step()


def main(config, model, loader):
    engine = Engine(config, model)
    for epoch in range(config["max_epoch"]):
        engine.train_an_epoch(loader, epoch=epoch)
"""


def test_step_size_named_like_a_step_stepped_to_the_epoch_index_is_silent() -> None:
    assert "LRD003" not in codes(POSITIONED)


def test_step_to_the_epoch_index_keeps_the_deprecation_note() -> None:
    assert "LRD006" in codes(POSITIONED)


def test_deprecation_note_before_the_updates_says_to_step_after_them() -> None:
    note = next(m for m in messages(POSITIONED) if "deprecated" in m)
    assert "after the optimizer steps" in note and "skip the first LR value" in note


def test_deprecation_note_after_the_updates_says_where_it_is_called_now() -> None:
    after = POSITIONED.replace("        self.scheduler.step(epoch=epoch)\n", "").replace(
        "            self.optimizer.step()\n",
        "            self.optimizer.step()\n        self.scheduler.step(epoch)\n")
    note = next(m for m in messages(after) if "deprecated" in m)
    assert "where it is called now" in note and "after the optimizer steps" not in note


def test_plain_step_per_epoch_with_a_step_named_size_is_still_reported() -> None:
    plain = POSITIONED.replace("self.scheduler.step(epoch=epoch)\n",
                               "pass\n").replace(
        "            self.optimizer.step()\n",
        "            self.optimizer.step()\n        self.scheduler.step()\n")
    assert "LRD003" in codes(plain)


def test_horizon_from_the_loader_length_stepped_to_the_epoch_index_is_still_reported() -> None:
    counted = POSITIONED.replace(
        'step_size=self.config["lr_drop_step"]',
        'step_size=self.config["decay_epochs"] * config["batches_per_epoch"]')
    assert "LRD003" in codes(counted)


def test_one_cycle_stepped_to_the_epoch_index_is_still_reported() -> None:
    cycle = POSITIONED.replace(
        'StepLR(self.optimizer, step_size=self.config["lr_drop_step"],\n'
        '                                gamma=self.config["decay_rate"])',
        'torch.optim.lr_scheduler.OneCycleLR(self.optimizer, max_lr=config["lr"],\n'
        '                                total_steps=config["total_steps"])')
    assert "OneCycleLR" in cycle
    assert "LRD003" in codes(cycle)


# -- 2. the scheduler's own LR written back into the groups ---------------------------------------

WRITTEN_BACK = """
import math
import torch


class Trainer:
    def __init__(self, args, model):
        self.args = args
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
        self.scheduler = None
        if args.schedule == "cosine":
            self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
                self.optimizer, T_max=args.max_iters)
        self.lr = args.lr

    def current_lr(self, it):
        if self.scheduler:
            return self.scheduler.get_last_lr()[0]
        if it < self.args.warmup:
            return self.args.lr * it / self.args.warmup
        return self.args.lr

    def train(self, batches):
        it = 0
        while it < self.args.max_iters:
            if self.scheduler is not None:
                self.lr = self.current_lr(it)
            for group in self.optimizer.param_groups:
                group["lr"] = self.lr
            x, y = next(batches)
            loss = (self.model(x) - y).pow(2).mean()
            loss.backward()
            self.optimizer.step()
            if self.scheduler:
                self.scheduler.step()
            self.optimizer.zero_grad(set_to_none=True)
            it += 1
"""


def test_scheduler_lr_written_back_through_a_method_is_silent() -> None:
    assert "LRD008" not in codes(WRITTEN_BACK)


def test_scheduler_lr_written_back_directly_is_silent() -> None:
    direct = WRITTEN_BACK.replace("                self.lr = self.current_lr(it)\n",
                                  "                self.lr = self.scheduler.get_last_lr()[0]\n")
    assert "LRD008" not in codes(direct)


def test_manual_value_written_beside_the_scheduler_is_still_reported() -> None:
    manual = WRITTEN_BACK.replace(
        "            return self.scheduler.get_last_lr()[0]\n",
        "            return self.args.lr * 0.5 * (1 + math.cos(math.pi * it / self.args.max_iters))\n")
    assert "LRD008" in codes(manual)


def test_lr_of_another_scheduler_written_back_is_still_reported() -> None:
    other = WRITTEN_BACK.replace(
        "        self.lr = args.lr\n",
        "        self.lr = args.lr\n        self.probe = torch.optim.lr_scheduler.LambdaLR(\n"
        "            torch.optim.SGD(model.parameters(), lr=1.0), lambda s: 0.5 ** s)\n").replace(
        "            return self.scheduler.get_last_lr()[0]\n",
        "            return self.probe.get_last_lr()[0]\n")
    assert "LRD008" in codes(other)


# -- 4. a UTF-16 file ------------------------------------------------------------------------------


def test_utf16_file_says_save_it_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_bytes("import torch\nprint(torch.__version__)\n".encode("utf-16"))
    with pytest.raises(SourceError, match="UTF-16.*save it as UTF-8"):
        read_python(str(path))


def test_latin1_file_still_says_declare_the_encoding(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_bytes(b"import torch\nname = 'caf\xe9'\n")
    with pytest.raises(SourceError, match="coding"):
        read_python(str(path))
