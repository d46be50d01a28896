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

2. A decay named in iterations (``StepLR(step_size=opt.decay_iters)``, the option's help
   "every decay_iters iterations", the image-translation GANs' spelling) stepped once per
   epoch, where the option's default (40) is at most the epochs' default (160). The word was
   the only evidence for batches; the numbers say epochs: per epoch the LR decays four
   times within the run, per batch the same setting would multiply it by 0.1 every 40
   batches, gone within the first epochs. Nothing ends "far from complete": silent. A default
   beyond the epoch count, a gentle per-step decay (gamma 0.99), or a horizon computed from
   the data (``* len(...)``) is still LRD003.

3. (dev case, two files) Shape 1 with the LightningModule in its own module, built by a
   driver in another file: the driver's trace reports the return without an interval but
   never sees the hand step in ``training_step``, which only the module's own trace does
   (LRD012 there). The runner now drops that LRD003 when an LRD012 says the same scheduler
   (the same constructor site) is stepped by hand after every batch.

4. ``SequentialLR([LinearLR(total_iters=args.warm_iters), CosineAnnealingLR(T_max=
   args.epochs - args.warm_iters)], milestones=[args.warm_iters])`` stepped once per epoch
   over ``args.epochs``: a difference is taken in one unit, so when its two operands are
   named in different units (epochs, iterations) one of the words is a misnomer, and words
   alone do not say which: the difference's unit is unknown, the composite's too, silent. A
   horizon computed from the data (``args.epochs * len(chunks) - args.warm_iters``) is still
   batches.

5. A schedule sized in loader batches stepped with the optimizer under the accumulation
   test ``(k + 1) % args.merge == 0``, where the program states the count as 1 (the
   option's default): no batch is accumulated as the program is set, each batch is an
   update, and the horizon in batches is one in updates. lrdoctor already read a count bound
   to the literal 1 (``MERGE = 1``) that way, but not an option whose default is 1, and
   reported "when `args.merge` > 1, training ends after 1/`args.merge` of the schedule"
   (the dev labels call that latent bug arguable). A count stated above 1 is still LRD003.

6. (LRD012) A LightningModule that returns its OneCycleLR with ``"interval": "step"`` and
   also steps it in ``on_batch_end``, importing the unified ``lightning`` package. Lightning
   1.8 removed the module hooks ``on_batch_start`` / ``on_batch_end`` / ``on_epoch_start``
   (1.6 deprecated them) and the ``lightning`` package is 1.8 or later: the hook is never
   called, the schedule is stepped once per batch by Lightning alone. lrdoctor traced the
   old names as batch hooks whatever the import: LRD012. Under ``pytorch_lightning`` (its
   version not stated) the old hook may run: still LRD012; ``on_train_batch_end``: LRD012.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

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


# {decay_default}: the option's default; {rounds_default}: the epochs' default; {gamma}
_NAMED_ITERS = """
import argparse

import torch
from torch.optim import lr_scheduler


def make_schedule(optimizer, opt):
    if opt.schedule == "lambda":
        return lr_scheduler.LambdaLR(optimizer, lambda r: 1.0 - r / float(opt.rounds + 1))
    return lr_scheduler.StepLR(optimizer, step_size=opt.decay_iters, gamma={gamma})


class Painter:
    def __init__(self, opt):
        self.net = torch.nn.Linear(3, 3)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=opt.lr)
        self.schedules = [make_schedule(self.optimizer, opt)]

    def learn(self, batch):
        loss = self.net(batch).abs().mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def advance_lr(self):
        for s in self.schedules:
            s.step()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--schedule", type=str, default="step")
    p.add_argument("--decay_iters", type=int, default={decay_default},
                   help="multiply the rate by gamma every decay_iters iterations")
    p.add_argument("--rounds", type=int, default={rounds_default})
    opt = p.parse_args()
    painter = Painter(opt)
    pictures = [torch.randn(2, 3) for _ in range(12)]
    for epoch in range(1, opt.rounds + 1):
        for batch in pictures:
            painter.learn(batch)
        painter.advance_lr()


main()
"""


def _named(decay: int, rounds: int, gamma: str = "0.1") -> str:
    return _NAMED_ITERS.replace("{decay_default}", str(decay)).replace(
        "{rounds_default}", str(rounds)).replace("{gamma}", gamma)


def test_named_iterations_whose_default_fits_the_epochs_is_silent() -> None:
    # a decay every 40 of 160 epochs, as stepped; every 40 batches would collapse the LR
    assert "LRD003" not in codes(_named(40, 160))


def test_named_iterations_equal_to_the_epochs_is_silent() -> None:
    assert "LRD003" not in codes(_named(160, 160))


def test_named_iterations_beyond_the_epochs_is_still_reported() -> None:
    # 4000 "iterations" stepped once per epoch over 160 epochs: never reached
    assert "LRD003" in codes(_named(4000, 160))


def test_named_iterations_with_a_gentle_decay_is_still_reported() -> None:
    # gamma 0.99 every 40 steps is a plausible per-batch decay: the word is believed
    assert "LRD003" in codes(_named(40, 160, "0.99"))


def test_a_horizon_computed_from_the_loader_is_still_reported() -> None:
    source = _named(40, 160).replace(
        "step_size=opt.decay_iters", "step_size=opt.decay_iters * len(opt.pictures)")
    assert "LRD003" in codes(source)


_SEPARATE_MODULE = """
import torch
import lightning as L
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, SequentialLR


def warm_then_cosine(opt, total_updates, warm_share):
    warm = int(total_updates * warm_share)
    return SequentialLR(opt, [LambdaLR(opt, lambda u: (u + 1) / warm),
                              CosineAnnealingLR(opt, T_max=total_updates - warm)],
                        milestones=[warm])


class Compressor(L.LightningModule):
    def __init__(self, settings):
        super().__init__()
        self.settings = settings
        self.coder = torch.nn.Linear(5, 5)

    def training_step(self, batch, batch_idx):
        loss = (self.coder(batch) - batch).pow(2).mean()
{hand}
        return loss

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.settings["lr"])
        sched = warm_then_cosine(opt, self.settings["max_updates"], 0.05)
        return {"optimizer": opt, "lr_scheduler": sched}
"""

_DRIVER = """
import torch
import lightning as L

from models.compressor import Compressor


def go():
    settings = {"lr": 1e-3, "max_updates": 20000}
    module = Compressor(settings)
    series = torch.utils.data.DataLoader(torch.randn(40, 5), batch_size=4)
    L.Trainer(max_steps=settings["max_updates"]).fit(module, train_dataloaders=series)


if __name__ == "__main__":
    go()
"""


def test_hand_step_per_batch_seen_by_another_files_trace(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    hand = "        sch = self.lr_schedulers()\n        sch.step()"
    found = project_codes(check_project(tmp_path, monkeypatch, {
        "models/__init__.py": "", "models/compressor.py": _SEPARATE_MODULE.replace("{hand}", hand),
        "go.py": _DRIVER}))
    assert "LRD003" not in found
    assert "LRD012" in found


def test_no_hand_step_in_the_separate_module_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = project_codes(check_project(tmp_path, monkeypatch, {
        "models/__init__.py": "",
        "models/compressor.py": _SEPARATE_MODULE.replace("{hand}", "        pass"),
        "go.py": _DRIVER}))
    assert "LRD003" in found


_WARM_ITERS = """
import argparse

import torch
from torch.optim import lr_scheduler

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=90)
p.add_argument("--warm_iters", type=int, default=4, help="linear warm-up iterations")
p.add_argument("--per_round", type=int, default=25)
args = p.parse_args()
net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.05)
warm = lr_scheduler.LinearLR(opt, start_factor=0.02, total_iters=args.warm_iters)
rest = lr_scheduler.CosineAnnealingLR(opt, T_max={rest})
sched = lr_scheduler.SequentialLR(opt, [warm, rest], milestones=[args.warm_iters])
chunks = [torch.randn(4, 3) for _ in range(args.per_round)]
for r in range(args.epochs):
    for c in chunks:
        loss = net(c).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    sched.step()
"""


def test_epochs_minus_iterations_by_name_is_no_count_of_batches() -> None:
    # the cosine fills `epochs - warm_iters`: the author counts both in one unit; the words
    # disagree and the run has `epochs` passes, so nothing says batches
    assert "LRD003" not in codes(_WARM_ITERS.replace("{rest}", "args.epochs - args.warm_iters"))


def test_batches_by_flow_minus_iterations_is_still_reported() -> None:
    source = _WARM_ITERS.replace(
        "{rest}", "args.epochs * len(chunks) - args.warm_iters").replace(
        "chunks = [torch.randn(4, 3) for _ in range(args.per_round)]\n", "").replace(
        "opt = torch.optim.SGD", "chunks = [torch.randn(4, 3) for _ in range(args.per_round)]\n"
        "opt = torch.optim.SGD")
    assert "LRD003" in codes(source)


_ACCUMULATED = """
import argparse

import torch
from torch.utils.data import DataLoader

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=12)
p.add_argument("--merge", type=int, default={merge}, help="micro-batches merged per update")
args = p.parse_args()
net = torch.nn.Linear(6, 1)
feed = DataLoader(torch.randn(320, 6), batch_size=20)
opt = torch.optim.AdamW(net.parameters(), lr=5e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=args.epochs * len(feed))
for epoch in range(args.epochs):
    for k, rows in enumerate(feed):
        (net(rows).pow(2).mean() / args.merge).backward()
        if (k + 1) % args.merge == 0:
            opt.step()
            opt.zero_grad()
            sched.step()
"""


def test_accumulation_count_stated_as_one_is_no_accumulation() -> None:
    assert "LRD003" not in codes(_ACCUMULATED.replace("{merge}", "1"))


def test_accumulation_count_stated_above_one_is_still_reported() -> None:
    assert "LRD003" in codes(_ACCUMULATED.replace("{merge}", "4"))


_HOOKED = """
import torch
{imp}


class Tagger({base}):
    def __init__(self, rounds=6, per_round=40):
        super().__init__()
        self.head = torch.nn.Linear(7, 2)
        self.opt = torch.optim.Adam(self.parameters(), lr=3e-4)
        self.sched = torch.optim.lr_scheduler.OneCycleLR(
            self.opt, max_lr=3e-3, epochs=rounds, steps_per_epoch=per_round)

    def training_step(self, batch, batch_idx):
        return self.head(batch).logsumexp(-1).mean()

    def {hook}:
        self.sched.step()

    def configure_optimizers(self):
        return {"optimizer": self.opt,
                "lr_scheduler": {"scheduler": self.sched, "interval": "step"}}
"""


def _hooked(imp: str, base: str, hook: str) -> str:
    return _HOOKED.replace("{imp}", imp).replace("{base}", base).replace("{hook}", hook)


def test_removed_hook_under_the_unified_lightning_package_steps_nothing() -> None:
    # Lightning 1.8 removed `on_batch_end`; `import lightning` is 1.8 or later
    assert "LRD012" not in codes(_hooked("from lightning.pytorch import LightningModule",
                                         "LightningModule", "on_batch_end(self)"))


def test_current_batch_hook_still_doubles_the_step() -> None:
    assert "LRD012" in codes(_hooked("from lightning.pytorch import LightningModule",
                                     "LightningModule",
                                     "on_train_batch_end(self, outputs, batch, batch_idx)"))


def test_removed_hook_under_pytorch_lightning_of_unknown_version_is_still_reported() -> None:
    assert "LRD012" in codes(_hooked("import pytorch_lightning as pl", "pl.LightningModule",
                                     "on_batch_end(self)"))
