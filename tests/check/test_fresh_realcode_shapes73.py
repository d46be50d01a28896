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
"""

from __future__ import annotations

from .helpers import codes

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
