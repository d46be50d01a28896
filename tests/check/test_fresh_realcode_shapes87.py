"""Shapes probed after the fresh-2026-12zl85 batch (rcnew85, bench/realcode/README.md).

Programs written for these tests; no third-party code.

The batch (multi-stage research code: pre-train then fine-tune, GANs and other set-ups with
several optimizers, two-stage long-tail training) left no dev miss once two labels were
corrected, so these are the same bug families written the ways staged code writes them:

- A schedule sized for one stage and stepped in the next. The horizon is the count of one epoch
  loop (``T_max=pre_epochs`` beside ``for epoch in range(pre_epochs)``) or that count times the
  length of the loader its batch loop runs over (``total_steps=len(loader) * warm_epochs``), so
  that loop, run to its end, spends all of it; a later loop (the fine-tuning stage) steps the
  same scheduler again. lrdoctor judged each loop on its own and found nothing. Python:
  OneCycleLR raises on the first step of the second stage, a cosine climbs back up, a linear
  decay to ``num_training_steps`` trains the second stage at LR 0.
- One scheduler stepped twice in the same pass of one loop (``scheduler.step()`` after the
  batch loop and again in the same epoch, directly or in a helper called once per epoch).
  LRD012 knew a scheduler stepped at two loop levels, not twice at one. Python: every step
  advances the schedule, so it runs at twice the speed it was sized for.
"""

from __future__ import annotations

import pytest

from .helpers import codes, messages

# -- LRD010: a horizon sized for one stage, stepped in the next ---------------------------------

STAGES_PER_BATCH = """
import torch


def train(model, loader, warm_epochs, tune_epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, total_steps=len(loader) * warm_epochs)
    for epoch in range(warm_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
    for epoch in range(tune_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
"""


def test_batch_horizon_of_the_first_stage_stepped_in_the_second_is_found() -> None:
    assert "LRD010" in codes(STAGES_PER_BATCH)
    found = messages(STAGES_PER_BATCH)
    assert any("sized for the loop over `range(warm_epochs)`" in m
               and "Tried to step" in m for m in found), found


def test_horizon_sized_for_both_stages_is_silent() -> None:
    right = STAGES_PER_BATCH.replace("total_steps=len(loader) * warm_epochs",
                                     "total_steps=len(loader) * (warm_epochs + tune_epochs)")
    assert "LRD010" not in codes(right)


def test_scheduler_rebuilt_for_the_second_stage_is_silent() -> None:
    right = STAGES_PER_BATCH.replace(
        "    for epoch in range(tune_epochs):",
        "    scheduler = torch.optim.lr_scheduler.OneCycleLR(\n"
        "        optimizer, max_lr=0.01, total_steps=len(loader) * tune_epochs)\n"
        "    for epoch in range(tune_epochs):")
    assert "LRD010" not in codes(right)


def test_second_stage_stepping_another_scheduler_is_silent() -> None:
    right = STAGES_PER_BATCH.replace(
        "    for epoch in range(tune_epochs):",
        "    tuner = torch.optim.lr_scheduler.LinearLR(optimizer, 1.0, 0.1, total_iters=100)\n"
        "    for epoch in range(tune_epochs):")
    right = right[::-1].replace("scheduler.step()"[::-1], "tuner.step()"[::-1], 1)[::-1]
    assert "LRD010" not in codes(right)


def test_first_stage_over_another_loader_is_silent() -> None:
    right = STAGES_PER_BATCH.replace("def train(model, loader, warm_epochs, tune_epochs):",
                                     "def train(model, loader, small, warm_epochs, tune_epochs):")
    right = right.replace("    for epoch in range(warm_epochs):\n        for x, y in loader:",
                          "    for epoch in range(warm_epochs):\n        for x, y in small:")
    assert "LRD010" not in codes(right)


STAGES_PER_EPOCH = """
import torch


def run(model, loader, pre_epochs, fine_epochs, patience=3):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=pre_epochs)
    for epoch in range(pre_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()
    for p in model.parameters():
        p.requires_grad_(True)
    for epoch in range(fine_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()
"""


def test_epoch_horizon_of_the_first_stage_stepped_in_the_second_is_found() -> None:
    assert "LRD010" in codes(STAGES_PER_EPOCH)
    found = messages(STAGES_PER_EPOCH)
    assert any("climbs back up" in m for m in found), found


def test_first_stage_that_may_stop_early_is_silent() -> None:
    right = STAGES_PER_EPOCH.replace(
        "        scheduler.step()\n    for p in model.parameters():",
        "        scheduler.step()\n        if loss.item() < 1e-3:\n            break\n"
        "    for p in model.parameters():")
    assert "LRD010" not in codes(right)


def test_scheduler_restored_between_the_stages_is_silent() -> None:
    right = STAGES_PER_EPOCH.replace(
        "    for p in model.parameters():",
        "    scheduler.load_state_dict(torch.load('fine_sched.pt'))\n"
        "    for p in model.parameters():")
    assert "LRD010" not in codes(right)


def test_stages_on_exclusive_branches_are_silent() -> None:
    right = """
import torch


def run(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    if args.mode == "pretrain":
        for epoch in range(args.epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
            scheduler.step()
    else:
        for epoch in range(args.epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
"""
    assert "LRD010" not in codes(right)


def test_second_stage_step_under_a_test_of_its_own_is_silent() -> None:
    right = STAGES_PER_EPOCH[::-1].replace(
        "        scheduler.step()"[::-1],
        "        if args_keep_decaying:\n            scheduler.step()"[::-1], 1)[::-1]
    right = right.replace("patience=3):", "patience=3, args_keep_decaying=False):")
    assert "LRD010" not in codes(right)


HELPER_STAGES = """
import torch


def one_epoch(model, loader, optimizer, scheduler):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        scheduler.step()


def main(model, train_loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, total_steps=args.stage1_epochs * len(train_loader))
    for epoch in range(args.stage1_epochs):
        one_epoch(model, train_loader, optimizer, scheduler)
    for epoch in range(args.stage2_epochs):
        one_epoch(model, train_loader, optimizer, scheduler)
"""


def test_helper_called_in_both_stages_is_found() -> None:
    assert "LRD010" in codes(HELPER_STAGES)
    found = messages(HELPER_STAGES)
    assert any("by the call at line 20" in m for m in found), found


def test_helper_with_a_new_scheduler_for_the_second_stage_is_silent() -> None:
    right = HELPER_STAGES.replace(
        "    for epoch in range(args.stage2_epochs):",
        "    scheduler = torch.optim.lr_scheduler.OneCycleLR(\n"
        "        optimizer, max_lr=args.lr / 10, total_steps=args.stage2_epochs * len(train_loader))\n"
        "    for epoch in range(args.stage2_epochs):")
    assert "LRD010" not in codes(right)


HF_STAGES = """
import torch
from transformers import get_linear_schedule_with_warmup


def train(model, train_loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    total = len(train_loader) * args.pretrain_epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100,
                                                num_training_steps=total)
    for epoch in range(args.pretrain_epochs):
        for step, batch in enumerate(train_loader):
            model(**batch).loss.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
    for epoch in range(args.finetune_epochs):
        for step, batch in enumerate(train_loader):
            model(**batch, task="cls").loss.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
"""

ONECYCLE_EPOCHS = """
import torch


def train(model, loader, epochs, extra_epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
    for epoch in range(extra_epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
"""

TRAINER_STAGES = """
import torch


class TwoStageTrainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(
            self.optimizer, T_max=cfg.warm_epochs * len(loader))

    def step(self, x, y):
        self.optimizer.zero_grad()
        torch.nn.functional.cross_entropy(self.model(x), y).backward()
        self.optimizer.step()
        self.scheduler.step()

    def fit(self):
        for epoch in range(self.cfg.warm_epochs):
            for x, y in self.loader:
                self.step(x, y)
        for epoch in range(self.cfg.main_epochs):
            for x, y in self.loader:
                self.step(x, y)
"""


@pytest.mark.parametrize("source", [HF_STAGES, ONECYCLE_EPOCHS, TRAINER_STAGES],
                         ids=["hf-linear-decay", "onecycle-epochs", "trainer-class"])
def test_other_spellings_of_a_stage_sized_horizon_are_found(source: str) -> None:
    assert "LRD010" in codes(source)


def test_trainer_whose_horizon_counts_both_stages_is_silent() -> None:
    right = TRAINER_STAGES.replace("T_max=cfg.warm_epochs * len(loader)",
                                   "T_max=(cfg.warm_epochs + cfg.main_epochs) * len(loader)")
    assert "LRD010" not in codes(right)


# -- LRD012: one scheduler stepped twice in one pass --------------------------------------------

TWICE_PER_EPOCH = """
import torch


def train(model, loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, [5, 10, 15], gamma=0.5)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        scheduler.step()
"""


def test_scheduler_stepped_twice_per_epoch_is_found() -> None:
    assert "LRD012" in codes(TWICE_PER_EPOCH)
    found = messages(TWICE_PER_EPOCH)
    assert any("stepped twice in each pass" in m for m in found), found


def test_scheduler_stepped_once_per_epoch_is_silent() -> None:
    right = TWICE_PER_EPOCH.replace("        scheduler.step()\n        scheduler.step()",
                                    "        scheduler.step()")
    assert "LRD012" not in codes(right)


def test_second_step_on_one_epoch_only_is_silent() -> None:
    right = TWICE_PER_EPOCH.replace("        scheduler.step()\n        scheduler.step()",
                                    "        scheduler.step()\n        if epoch == 0:\n"
                                    "            scheduler.step()")
    assert "LRD012" not in codes(right)


def test_second_step_under_a_flag_is_silent() -> None:
    right = TWICE_PER_EPOCH.replace("def train(model, loader, epochs):",
                                    "def train(model, loader, epochs, fast=False):")
    right = right.replace("        scheduler.step()\n        scheduler.step()",
                          "        scheduler.step()\n        if fast:\n"
                          "            scheduler.step()")
    assert "LRD012" not in codes(right)


def test_two_schedulers_each_stepped_once_are_silent() -> None:
    right = """
import torch


def train(gen, disc, loader, epochs):
    opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)
    opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
    sched_g = torch.optim.lr_scheduler.StepLR(opt_g, step_size=10)
    sched_d = torch.optim.lr_scheduler.StepLR(opt_d, step_size=10)
    for epoch in range(epochs):
        for real in loader:
            opt_d.zero_grad()
            fake = gen(torch.randn(real.size(0), 8))
            (disc(fake.detach()).mean() - disc(real).mean()).backward()
            opt_d.step()
            opt_g.zero_grad()
            (-disc(fake).mean()).backward()
            opt_g.step()
        sched_g.step()
        sched_d.step()
"""
    assert "LRD012" not in codes(right)


HELPER_TWICE = """
import torch


def end_of_epoch(model, scheduler, log):
    log.append(model.weight.norm().item())
    scheduler.step()


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    log = []
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step()
        end_of_epoch(model, scheduler, log)
"""


def test_step_here_and_in_a_helper_of_the_same_pass_is_found() -> None:
    assert "LRD012" in codes(HELPER_TWICE)


def test_helper_alone_stepping_it_is_silent() -> None:
    right = HELPER_TWICE.replace("        scheduler.step()\n        end_of_epoch(",
                                 "        end_of_epoch(")
    assert "LRD012" not in codes(right)


def test_steps_in_the_train_phase_of_a_phase_loop_are_silent() -> None:
    right = """
import torch


def train(model, loaders, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)
    for epoch in range(epochs):
        for phase in ["train", "val"]:
            for x, y in loaders[phase]:
                optimizer.zero_grad()
                loss = torch.nn.functional.mse_loss(model(x), y)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
            if phase == "train":
                scheduler.step()
"""
    assert "LRD012" not in codes(right)


STAGE_METHOD = """
import torch


class Trainer:
    def __init__(self, cfg, model, loader):
        self.cfg = cfg
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=cfg.lr, total_steps=cfg.frozen_epochs * len(loader))

    def run_stage(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
                self.scheduler.step()

    def fit(self):
        self.run_stage(self.cfg.frozen_epochs)
        for p in self.model.parameters():
            p.requires_grad = True
        self.run_stage(self.cfg.epochs)
"""


def test_stage_method_called_once_per_stage_is_found() -> None:
    assert "LRD010" in codes(STAGE_METHOD)
    found = messages(STAGE_METHOD)
    assert any("by the call at line 26" in m for m in found), found


def test_stage_method_with_a_horizon_for_both_calls_is_silent() -> None:
    right = STAGE_METHOD.replace("total_steps=cfg.frozen_epochs * len(loader)",
                                 "total_steps=(cfg.frozen_epochs + cfg.epochs) * len(loader)")
    assert "LRD010" not in codes(right)


def test_stage_method_called_twice_is_no_double_step() -> None:
    # two calls of the method run its loop twice, one step per batch each time
    assert "LRD012" not in codes(STAGE_METHOD)


def test_one_step_after_each_of_two_updates_per_batch_is_silent() -> None:
    right = """
import torch


def train(net, disc, loader, epochs, total):
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-5)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 - s / total)
    for epoch in range(epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(net(x), y)
            loss.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            adv = -disc(net(x)).mean()
            adv.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
"""
    assert "LRD012" not in codes(right)
