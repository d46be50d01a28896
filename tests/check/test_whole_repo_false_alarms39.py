"""fphunt51: false alarms of research training frameworks (fairseq-style trainers and LR
schedule registries, mmcv / detectron2 hooks, timm forks, DeepSpeed / Megatron / ColossalAI
trainers), each fixed by semantics. Every false shape, written here in our own words, must be
silent; a buggy twin must still be reported.

1. LRD008, the first LR set once before a ReduceLROnPlateau ever steps: a schedule object
   builds a plateau on the optimizer and then, in its own constructor, sets the param
   groups' LR to the warm-up's starting value (0, or ``peak / warmup``); its per-update method
   raises the LR while the update count is below the warm-up length, and the plateau is
   stepped on the validation loss only after the warm-up (fairseq's plateau schedule has
   this shape). ReduceLROnPlateau keeps no LR of its own: a reduction multiplies the LR it
   finds in the param group by ``factor``. A value written before the plateau's first step,
   outside every loop that steps it, is the LR the plateau starts from; no reduction exists
   yet for it to undo. lrdoctor read it as a write that competes with the plateau.
"""

from __future__ import annotations

from .helpers import codes

# {setup}: what the schedule's constructor does after building the plateau
_WARMED_PLATEAU = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class WarmThenPlateau:
    def __init__(self, optimizer, peak, warmup, patience):
        self.optimizer = optimizer
        self.peak = peak
        self.warmup = warmup
        self.plateau = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=patience)
        self.warm = warmup == 0
{setup}

    def update(self, count):
        if count <= self.warmup:
            for group in self.optimizer.param_groups:
                group["lr"] = self.peak * count / self.warmup
        else:
            self.warm = True

    def epoch_end(self, score):
        if self.warm:
            self.plateau.step(score)


def fit(net, batches, held_out, epochs):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    schedule = WarmThenPlateau(opt, 1e-3, 2000, 2)
    count = 0
    for epoch in range(epochs):
        for x, y in batches:
            loss = torch.nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            count += 1
            schedule.update(count)
        score = sum(torch.nn.functional.mse_loss(net(x), y).item() for x, y in held_out)
        schedule.epoch_end(score)
"""


def warmed(setup: str) -> str:
    return _WARMED_PLATEAU.replace("{setup}", setup)


def test_warm_up_start_set_in_the_constructor_after_the_plateau_is_silent() -> None:
    setup = ("        for group in optimizer.param_groups:\n"
             "            group[\"lr\"] = 0.0 if warmup > 0 else peak")
    assert "LRD008" not in codes(warmed(setup))


def test_warm_up_start_as_a_fraction_of_the_peak_is_silent() -> None:
    setup = ("        first = peak / warmup if warmup else peak\n"
             "        for group in optimizer.param_groups:\n"
             "            group[\"lr\"] = first")
    assert "LRD008" not in codes(warmed(setup))


_SETUP_BEFORE_LOOP = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def fit(net, batches, held_out, epochs, start_lr):
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    plateau = ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=3)
{write}
    for epoch in range(epochs):
        for x, y in batches:
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
{inner}
        accuracy = sum((net(x).argmax(1) == y).float().mean().item() for x, y in held_out)
        plateau.step(accuracy)
"""


def test_lr_set_once_before_the_epoch_loop_under_a_plateau_is_silent() -> None:
    write = "    opt.param_groups[0][\"lr\"] = start_lr"
    assert "LRD008" not in codes(_SETUP_BEFORE_LOOP.replace("{write}", write)
                                 .replace("{inner}", ""))


# -- still reported: writes that can run after a reduction ---------------------------------


def test_lr_written_every_epoch_under_a_plateau_is_still_lrd008() -> None:
    # written at each epoch's start, after the plateau may have reduced it: the reduction is undone
    src = _SETUP_BEFORE_LOOP.replace("{write}", "").replace("{inner}", "").replace(
        "    for epoch in range(epochs):\n",
        "    for epoch in range(epochs):\n"
        "        opt.param_groups[0][\"lr\"] = start_lr * 0.98 ** epoch\n")
    assert "LRD008" in codes(src)


def test_lr_written_every_batch_under_a_plateau_is_still_lrd008() -> None:
    inner = "            opt.param_groups[0][\"lr\"] = start_lr"
    assert "LRD008" in codes(_SETUP_BEFORE_LOOP.replace("{write}", "")
                             .replace("{inner}", inner))


def test_lr_reset_at_each_stage_around_the_plateau_loop_is_still_lrd008() -> None:
    # a stage loop around both: the second stage's write comes after the first stage's steps
    src = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def fit(net, batches, held_out, stages, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    plateau = ReduceLROnPlateau(opt, factor=0.1, patience=3)
    for stage_lr in stages:
        for group in opt.param_groups:
            group["lr"] = stage_lr
        for epoch in range(epochs):
            for x, y in batches:
                loss = torch.nn.functional.cross_entropy(net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
            plateau.step(sum(torch.nn.functional.cross_entropy(net(x), y).item()
                             for x, y in held_out))
"""
    assert "LRD008" in codes(src)


def test_constructor_write_under_a_chainable_schedule_other_than_the_plateau_is_still_lrd008() -> None:
    # only the plateau is taken: MultiStepLR's milestones and its closed form are computed
    # from the LR it was built with, and the rule's other exemptions decide those
    src = warmed("        for group in optimizer.param_groups:\n"
                 "            group[\"lr\"] = 0.0 if warmup > 0 else peak").replace(
        'ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=patience)',
        "torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)").replace(
        "self.plateau.step(score)", "self.plateau.step()")
    assert "LRD008" in codes(src)
