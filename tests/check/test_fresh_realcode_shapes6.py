"""Shapes met in the fresh real-code batch "fresh-2026-12i" of issue 7 (bench/realcode, dev
half: warm-up hand-overs, plateau metrics, gradient accumulation under a GradScaler): each test
is the general shape in our own words, next to the control that must still be reported (or
stay silent)."""

from __future__ import annotations

from tests.check.helpers import codes

# -- a plateau watching a summary of the training losses -----------------------------------------
# The epoch's training losses are collected in a list and the plateau is given their mean
# through a function (`np.mean(losses)`, `statistics.mean(losses)`, `sum(losses) / len(losses)`)
# while a validation loss is computed right after: what the plateau watches is the training
# loss, whatever function summarises it. The mean of the validation losses, or a training mean
# in a script that has no validation at all, stays silent.

_PLATEAU_ON_A_SUMMARY = """
import numpy as np
import statistics
import torch


def fit(net, train_batches, held_out, epochs):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
    for epoch in range(epochs):
        net.train()
        seen = []
        for x, y in train_batches:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            seen.append(float(loss))
        net.eval()
        checked = []
        with torch.no_grad():
            for x, y in held_out:
                checked.append(float(torch.nn.functional.mse_loss(net(x), y)))
        val_loss = np.mean(checked)
        plateau.step({WATCHED})
"""


def test_plateau_given_the_mean_of_training_losses_beside_a_validation_loss() -> None:
    for watched in ("np.mean(seen)", "statistics.mean(seen)", "sum(seen) / len(seen)"):
        src = _PLATEAU_ON_A_SUMMARY.replace("seen", "epoch_loss").replace(
            "{WATCHED}", watched.replace("seen", "epoch_loss"))
        assert "LRD004" in codes(src), watched


def test_plateau_given_the_mean_of_validation_losses_is_silent() -> None:
    for watched in ("val_loss", "np.mean(checked)", "statistics.mean(checked)"):
        src = _PLATEAU_ON_A_SUMMARY.replace("seen", "epoch_loss").replace("{WATCHED}", watched)
        assert "LRD004" not in codes(src), watched


def test_plateau_on_training_mean_without_any_validation_is_silent() -> None:
    src = """
import numpy as np
import torch


def fit(net, train_batches, epochs):
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
    for epoch in range(epochs):
        epoch_loss = []
        for x, y in train_batches:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(net(x), y)
            loss.backward()
            opt.step()
            epoch_loss.append(float(loss))
        plateau.step(np.mean(epoch_loss))
"""
    assert "LRD004" not in codes(src)


# -- clipping each micro-batch's scaled gradients ------------------------------------------------
# An inner loop back-propagates the micro-batches of one update through the GradScaler and clips
# after every backward; the scaler steps once after the inner loop. The clip sees gradients
# still multiplied by the scale. Unscaling before a clip that runs after the inner loop is right,
# and so is unscaling in the outer loop before an inner loop that only walks parameter groups.

_MICRO_BATCH_CLIP = """
import torch


def run(net, stream, updates, micro, use_fp16):
    opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
    scaler = torch.cuda.amp.GradScaler(enabled=use_fp16)
    for it in range(updates):
        for _ in range(micro):
            x, y = next(stream)
            with torch.autocast("cuda", dtype=torch.float16, enabled=use_fp16):
                loss = torch.nn.functional.cross_entropy(net(x), y) / micro
            scaler.scale(loss).backward()
{INSIDE}
{AFTER}
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
"""

_CLIP = "torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)"


def test_clip_inside_the_micro_batch_loop_before_the_scaler_steps_after_it() -> None:
    src = _MICRO_BATCH_CLIP.replace("{INSIDE}", "            " + _CLIP).replace("{AFTER}", "")
    assert "LRD108" in codes(src)


def test_unscale_then_clip_after_the_micro_batch_loop_is_silent() -> None:
    after = "        scaler.unscale_(opt)\n        " + _CLIP
    src = _MICRO_BATCH_CLIP.replace("{INSIDE}", "").replace("{AFTER}", after)
    assert "LRD108" not in codes(src)


def test_clip_after_the_micro_batch_loop_without_unscale_still_reported() -> None:
    src = _MICRO_BATCH_CLIP.replace("{INSIDE}", "").replace("{AFTER}", "        " + _CLIP)
    assert "LRD108" in codes(src)


def test_unscale_before_an_inner_loop_over_param_groups_is_silent() -> None:
    src = """
import torch


def run(net, batches, use_fp16):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    scaler = torch.cuda.amp.GradScaler(enabled=use_fp16)
    for x, y in batches:
        opt.zero_grad()
        with torch.autocast("cuda", enabled=use_fp16):
            loss = torch.nn.functional.cross_entropy(net(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        for group in opt.param_groups:
            torch.nn.utils.clip_grad_norm_(group["params"], 1.0)
        scaler.step(opt)
        scaler.update()
"""
    assert "LRD108" not in codes(src)


# -- a Lightning lr_scheduler_step override that drops the metric --------------------------------
# Lightning calls `lr_scheduler_step(scheduler, ..., metric)` for every scheduler that
# configure_optimizers returns, with the monitored value for a plateau. An override that calls
# `scheduler.step()` without it, on a path a plateau can take, makes the plateau raise. A path
# ruled out for a plateau (an isinstance test on another class, the branch where the metric is
# None), a `step(metric)` call, or a module that never returns a plateau stays silent.

_LIGHTNING_HOOK = """
import torch
import pytorch_lightning as pl
from torch.optim import lr_scheduler


def build(params, hp):
    opt = torch.optim.Adam(params, lr=hp.lr)
    sched = {}
    if hp.schedule == "plateau":
        sched = {"scheduler": lr_scheduler.ReduceLROnPlateau(opt, mode="max"), "interval": "step"}
    elif hp.schedule == "cycle":
        sched = {"scheduler": lr_scheduler.OneCycleLR(opt, max_lr=hp.lr, total_steps=hp.total),
                 "interval": "step"}
    out = {"optimizer": opt}
    if sched:
        sched["monitor"] = "val_score"
        out["lr_scheduler"] = sched
    return out


class Reader(pl.LightningModule):
    def __init__(self, hp):
        super().__init__()
        self.hp = hp
        self.net = torch.nn.Linear(8, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_score", (self.net(x).argmax(1) == y).float().mean())

    def configure_optimizers(self):
        return build(self.parameters(), self.hp)

    def lr_scheduler_step(self, scheduler, optimizer_idx, metric):
        if isinstance(scheduler, lr_scheduler.OneCycleLR):
            scheduler.step()
        elif self.trainer.is_last_batch:
{LAST}
"""


def test_lightning_hook_stepping_a_possible_plateau_without_metric() -> None:
    src = _LIGHTNING_HOOK.replace("{LAST}", "            scheduler.step()")
    assert "LRD004" in codes(src)


def test_lightning_hook_that_passes_the_metric_or_tests_for_it_is_silent() -> None:
    for last in (
        "            scheduler.step(metric)",
        "            if metric is None:\n                scheduler.step()\n"
        "            else:\n                scheduler.step(metric)",
        "            if isinstance(scheduler, lr_scheduler.ReduceLROnPlateau):\n"
        "                scheduler.step(metric)\n            else:\n                scheduler.step()",
    ):
        src = _LIGHTNING_HOOK.replace("{LAST}", last)
        assert "LRD004" not in codes(src), last


def test_lightning_hook_without_a_plateau_configured_is_silent() -> None:
    src = _LIGHTNING_HOOK.replace("{LAST}", "            scheduler.step()").replace(
        "lr_scheduler.ReduceLROnPlateau(opt, mode=\"max\")",
        "lr_scheduler.StepLR(opt, step_size=10)")
    assert "LRD004" not in codes(src)


# -- a recomputing warm-up that keeps stepping beside a plateau ----------------------------------
# A LambdaLR warm-up (its factor is 1 once warm) and a ReduceLROnPlateau step the same optimizer
# every epoch. LambdaLR sets the LR from its base value at each step, so every cut the plateau
# makes is undone at the next epoch. A warm-up stepped only during the warm-up epochs hands over
# to the plateau, and a chainable schedule (StepLR) beside a plateau only multiplies the LR the
# plateau leaves: both stay silent.

_WARMUP_BESIDE_PLATEAU = """
import torch


def fit(net, batches, held_out, epochs, warm_epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    warm = {WARM}
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2)
    for epoch in range(epochs):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        val_loss = sum(float(torch.nn.functional.mse_loss(net(x), y)) for x, y in held_out)
{STEP}
        plateau.step(val_loss)
"""

_LAMBDA = "torch.optim.lr_scheduler.LambdaLR(opt, lambda e: min(1.0, (e + 1) / warm_epochs))"


def test_recomputing_warmup_stepped_every_epoch_beside_a_plateau() -> None:
    src = _WARMUP_BESIDE_PLATEAU.replace("{WARM}", _LAMBDA).replace(
        "{STEP}", "        warm.step()")
    assert "LRD012" in codes(src)


def test_warmup_handed_over_to_a_plateau_is_silent() -> None:
    src = _WARMUP_BESIDE_PLATEAU.replace("{WARM}", _LAMBDA).replace(
        "{STEP}", "        if epoch < warm_epochs:\n            warm.step()")
    assert "LRD012" not in codes(src)


def test_chainable_schedule_beside_a_plateau_is_silent() -> None:
    src = _WARMUP_BESIDE_PLATEAU.replace(
        "{WARM}", "torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.1)").replace(
        "{STEP}", "        warm.step()")
    assert "LRD012" not in codes(src)


# -- a member of a SequentialLR / ChainedScheduler stepped directly too --------------------------
# The composite steps the schedulers it was given; a direct step of one of them on every pass
# as well advances that one twice. Stepping only the composite is the control.

_COMPOSITE = """
import torch


def fit(net, batches, epochs):
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
    decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs - 5)
    both = {COMPOSITE}
    for epoch in range(epochs):
        for x, y in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        both.step()
{EXTRA}
"""

_SEQ = "torch.optim.lr_scheduler.SequentialLR(opt, [warm, decay], milestones=[5])"
_CHAIN = "torch.optim.lr_scheduler.ChainedScheduler([warm, decay])"


def test_member_stepped_beside_its_composite() -> None:
    for composite in (_SEQ, _CHAIN):
        src = _COMPOSITE.replace("{COMPOSITE}", composite).replace("{EXTRA}", "        decay.step()")
        assert "LRD012" in codes(src), composite


def test_composite_stepped_alone_is_silent() -> None:
    for composite in (_SEQ, _CHAIN):
        src = _COMPOSITE.replace("{COMPOSITE}", composite).replace("{EXTRA}", "")
        assert "LRD012" not in codes(src), composite


def test_plateau_given_the_mean_of_losses_gathered_over_validation_data_is_silent() -> None:
    # the list has a generic name, but every value added to it comes from the validation loader
    src = """
import numpy as np
import torch


def evaluate_and_adjust(net, val_loader, plateau):
    net.eval()
    losses = []
    with torch.no_grad():
        for x, y in val_loader:
            losses.append(float(torch.nn.functional.mse_loss(net(x), y)))
    plateau.step(np.mean(losses))


def fit(net, train_batches, data, epochs):
    val_loader = data.loader("val")
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
    for epoch in range(epochs):
        for x, y in train_batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        evaluate_and_adjust(net, val_loader, plateau)
"""
    assert "LRD004" not in codes(src)
