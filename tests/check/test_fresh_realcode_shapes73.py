"""Shapes behind the dev miss of the fresh-2026-12yz batch (rcnew73, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A module-level driver picks its project trainer class by a setting (``if opts.kind == "a":
  trainer = ATrainer(cfg)`` / ``elif ...: trainer = BTrainer(cfg)``), then, only when several
  GPUs are asked for, rebinds the name to ``torch.nn.DataParallel(trainer, ...)`` (``else:
  trainer.cuda()``), and then calls ``trainer.update_lr()`` (which steps the trainer's
  schedulers) before ``trainer.update(batch)`` (which steps its optimizers) in every
  iteration. lrdoctor already kept a single project instance through such a one-sided
  rebinding (``if args.distributed: model = DDP(model)``) but not an instance chosen among
  several classes, so the calls after the ``if`` were followed into nothing and the schedulers
  stepping before the optimizers (LRD001) went unseen. Python: on the path that does not
  rebind the name, it still holds the trainer the setting chose, and its methods run. Silent
  twin: the same program stepping the schedulers after the updates.
- A trainer class sizes its cosine ``T_max = len(loader) * epochs - warmup_steps`` (the
  warm-up a setting names, 500 by default) with ``epochs`` the same setting its epoch loop
  (``range(start_epoch, epochs)``) reads, and steps it after every batch under ``if
  self.sched is not None:``; no warm-up is ever run. lrdoctor compared horizons only with a
  loop whose count it knew as a number, read ``T - k`` as no horizon at all, and took the
  existence guard for a condition on the step (LRD010 missed). Python: the loop makes as many
  passes as the horizon counts epochs, whatever the config holds, so the last ``k`` steps go
  past ``T_max`` and the cosine climbs back up; ``if sched is not None`` holds at every step
  of a built scheduler. Silent twins: the horizon sized to the whole run, the cosine stepped
  only once the warm-up is over, the warm-up run by a SequentialLR that holds the cosine
  back, and an epoch loop reading another setting.
"""

from __future__ import annotations

from .helpers import codes, messages

CHOSEN_TRAINER = """
import sys

import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR


class PairTrainer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.gen = nn.Linear(8, 8)
        self.disc = nn.Linear(8, 1)
        self.gen_opt = torch.optim.Adam(self.gen.parameters(), lr=cfg["lr"])
        self.disc_opt = torch.optim.Adam(self.disc.parameters(), lr=cfg["lr"])
        self.gen_sched = StepLR(self.gen_opt, step_size=cfg["step_size"], gamma=0.5)
        self.disc_sched = StepLR(self.disc_opt, step_size=cfg["step_size"], gamma=0.5)

    def update_lr(self):
        self.disc_sched.step()
        self.gen_sched.step()

    def disc_update(self, x):
        self.disc_opt.zero_grad()
        loss = self.disc(self.gen(x).detach()).mean()
        loss.backward()
        self.disc_opt.step()

    def gen_update(self, x):
        self.gen_opt.zero_grad()
        loss = -self.disc(self.gen(x)).mean()
        loss.backward()
        self.gen_opt.step()


class PlainTrainer(PairTrainer):
    pass


cfg = {"lr": 1e-4, "step_size": 100000, "max_iter": 1000000}
kind = sys.argv[1]
gpus = sys.argv[2].split(",")
if kind == "pair":
    trainer = PairTrainer(cfg)
elif kind == "plain":
    trainer = PlainTrainer(cfg)
else:
    sys.exit("unknown trainer")

if len(gpus) > 1:
    trainer = torch.nn.DataParallel(trainer, device_ids=[int(g) for g in gpus])
else:
    trainer.cuda()

loader = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)
iterations = 0
while True:
    for it, x in enumerate(loader):
        {before}
        trainer.disc_update(x)
        trainer.gen_update(x)
        {after}
        iterations += 1
        if iterations >= cfg["max_iter"]:
            sys.exit("done")
"""


def test_schedulers_stepped_before_the_updates_of_a_chosen_trainer_are_found() -> None:
    source = CHOSEN_TRAINER.replace("{before}", "trainer.update_lr()").replace("{after}", "")
    assert "LRD001" in codes(source)


def test_schedulers_stepped_after_the_updates_of_a_chosen_trainer_are_silent() -> None:
    source = CHOSEN_TRAINER.replace("{before}", "").replace("{after}", "trainer.update_lr()")
    assert "LRD001" not in codes(source)


def test_a_single_trainer_rebound_on_one_side_is_still_followed() -> None:
    source = CHOSEN_TRAINER.replace("{before}", "trainer.update_lr()").replace("{after}", "")
    single = source.replace('elif kind == "plain":\n    trainer = PlainTrainer(cfg)\n', "")
    assert "LRD001" in codes(single)


SHORT_COSINE = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR
from torch.utils.data import DataLoader


class Fitter:
    def __init__(self, net, loader, settings):
        self.net = net
        self.loader = loader
        self.settings = settings
        self.opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
        warmup_steps = settings.get("warmup_steps", 500)
        total_steps = len(loader) * settings.get("epochs", 40)
        self.sched = {built}
        self.step_count = 0
        self.first_epoch = 0

    def one_batch(self, batch):
        loss = self.net(batch).pow(2).mean()
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        self.step_count += 1
        {stepped}

    def fit(self):
        epochs = self.settings.{loop_setting}
        for epoch in range(self.first_epoch, epochs):
            for batch in self.loader:
                self.one_batch(batch)


def main(net, data, settings):
    loader = DataLoader(data, batch_size=16, shuffle=True)
    Fitter(net, loader, settings).fit()
"""

SHORT = "CosineAnnealingLR(self.opt, T_max=total_steps - warmup_steps)"
GUARDED = "if self.sched is not None:\n            self.sched.step()"
LOOP = 'get("epochs", 40)'


def _short(built: str = SHORT, stepped: str = GUARDED, loop_setting: str = LOOP) -> str:
    return SHORT_COSINE.replace("{built}", built).replace("{stepped}", stepped) \
        .replace("{loop_setting}", loop_setting)


def test_a_cosine_short_of_its_own_run_by_a_warmup_is_found() -> None:
    assert "LRD010" in codes(_short())


def test_a_cosine_sized_to_its_whole_run_is_silent() -> None:
    whole = "CosineAnnealingLR(self.opt, T_max=total_steps)"
    assert "LRD010" not in codes(_short(built=whole))


def test_a_cosine_held_back_until_the_warmup_is_over_is_silent() -> None:
    after = "if self.step_count > self.settings.get(\"warmup_steps\", 500):\n" \
        "            self.sched.step()"
    assert "LRD010" not in codes(_short(stepped=after))


def test_a_warmup_run_by_a_sequential_schedule_is_silent() -> None:
    chained = ("SequentialLR(self.opt, [LinearLR(self.opt, 0.01, total_iters=warmup_steps), "
               "CosineAnnealingLR(self.opt, T_max=total_steps - warmup_steps)], "
               "milestones=[warmup_steps])")
    assert "LRD010" not in codes(_short(built=chained))


def test_an_epoch_loop_reading_another_setting_is_silent() -> None:
    other = 'get("max_epochs", 60)'
    assert "LRD010" not in codes(_short(loop_setting=other))


TRAINING_LOSS_PLATEAU = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def evaluate(net, batches):
    with torch.no_grad():
        return sum(net(x).pow(2).mean().item() for x in batches)


def fit(net, train_batches, val_batches, epochs=30):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    plateau = ReduceLROnPlateau(opt, mode="min", patience=3)
    for epoch in range(epochs):
        running_loss = 0.0
        for x in train_batches:
            eval_losses = []
            opt.zero_grad()
            loss = net(x).pow(2).mean()
            loss.backward()
            opt.step()
            running_loss += loss.item()
            eval_losses.append(f"loss={loss.item():.3f}")
        val_loss = evaluate(net, val_batches)
        plateau.step(running_loss / len(train_batches))
"""


def test_a_name_bound_per_training_batch_is_not_cited_as_the_validation_metric() -> None:
    found = [m for m in messages(TRAINING_LOSS_PLATEAU) if "the training loss" in m]
    assert found
    assert "`val_loss`" in found[0]
    assert "eval_losses" not in found[0]
