"""The dev set's remaining misses and false alarms, by general shape (fixes13), each with
neighbours that must keep their finding or stay silent.

Programs written for these tests; no third-party code."""

from __future__ import annotations

from .helpers import codes

# 1. A command-line option whose help text says epochs while its own default says batches:
# `--lr_decay_step default=1e5 help="decay per N epochs"` beside `--epochs default=100`. Read
# as epochs the default would outlast a thousand runs; the help was not updated when the
# schedule moved into the batch loop, and the value is a count of batches. A help its own
# default contradicts states nothing, and the cosine stepped per batch is not LRD002.

STALE_HELP = """
import argparse
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100, help="number of epochs to train")
parser.add_argument("--lr_decay_step", type=int, default={default},
                    help="learning rate decay per N epochs")
args = parser.parse_args()


def train(net, loader):
    opt = torch.optim.Adam(net.parameters(), lr=1e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=int(args.lr_decay_step))
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
"""


def test_help_in_epochs_contradicted_by_a_batch_sized_default_is_silent() -> None:
    assert "LRD002" not in codes(STALE_HELP.format(default="1e5"))


def test_help_in_epochs_with_an_epoch_sized_default_keeps_lrd002() -> None:
    # control: 30 epochs of a 100-epoch run, stepped per batch: the cosine ends in the first
    # epoch, as before
    assert "LRD002" in codes(STALE_HELP.format(default="30"))


def test_help_in_epochs_without_an_epoch_count_keeps_lrd002() -> None:
    # control: no epoch count to compare with; the help is believed, as before
    source = STALE_HELP.format(default="1e5").replace(
        'parser.add_argument("--epochs", type=int, default=100, help="number of epochs to train")\n',
        "").replace("range(args.epochs)", "range(100)")
    assert "LRD002" in codes(source)


# 2. `scaler.unscale_(optimizer)` under a flag of its own while the clip below it runs every
# time: with the flag off and the GradScaler on, the clip sees scaled gradients. Silent where the
# flag is what switches mixed precision on (`if cfg.apex:` with `GradScaler(enabled=cfg.apex)`),
# where the clip is under the same test, and where the gate is about the update itself.

GATED_UNSCALE = """
import torch
from torch import nn


def train(config, model, loader, optimizer):
    for epoch in range(config.epochs):
        scaler = torch.cuda.amp.GradScaler(enabled=config.training.apex)
        for step, (x, y) in enumerate(loader):
            with torch.cuda.amp.autocast(enabled=config.training.apex):
                loss = nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            if {gate}:
                scaler.unscale_(optimizer)
            {clip}torch.nn.utils.clip_grad_norm_(model.parameters(), config.training.max_norm)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
"""


def _gated(gate: str, clip: str = "") -> list[str]:
    return codes(GATED_UNSCALE.format(gate=gate, clip=clip))


def test_unscale_under_its_own_flag_before_an_unconditional_clip_is_lrd108() -> None:
    assert "LRD108" in _gated("config.training.unscale")


def test_unscale_under_a_flag_read_by_key_is_lrd108() -> None:
    assert "LRD108" in _gated('config["unscale_grads"]')


def test_unscale_under_the_scalers_own_switch_is_silent() -> None:
    # control: with the flag off the scaler is off too, and the clip sees true gradients
    assert "LRD108" not in _gated("config.training.apex")


def test_unscale_under_a_mixed_precision_flag_is_silent() -> None:
    assert "LRD108" not in _gated("config.training.fp16")


def test_unscale_and_clip_under_the_same_flag_are_silent() -> None:
    source = GATED_UNSCALE.format(gate="config.training.unscale", clip="").replace(
        "            torch.nn.utils.clip_grad_norm_",
        "                torch.nn.utils.clip_grad_norm_")
    assert "LRD108" not in codes(source)


def test_unscale_on_the_accumulation_boundary_is_left_alone() -> None:
    # control: a gate about the update (`sync_gradients`) is not a setting of its own
    assert "LRD108" not in _gated("accelerator.sync_gradients")


def test_unscale_under_a_comparison_is_left_alone() -> None:
    assert "LRD108" not in _gated("(step + 1) % config.accum == 0")


def test_unconditional_unscale_is_silent() -> None:
    assert "LRD108" not in _gated("True")


# 3. The pip package warmup_scheduler's GradualWarmupScheduler(optimizer, multiplier,
# total_epoch, after_scheduler): a subclass of torch's scheduler base whose step(epoch) goes to
# torch's deprecated step(epoch) (its own during the warm-up, the wrapped scheduler's with
# `epoch - total_epoch` after it). `scheduler.step(epoch - 1)` is LRD006 (a warning); a plain
# step(), a plateau after it, a metric handed to it and a project class of that name say
# nothing.

GRADUAL = """
import torch
from torch import nn
{imports}


def main(model, loader, n_epochs, warmup_epo):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    after = {after}
    scheduler = GradualWarmupScheduler(optimizer, multiplier=10, total_epoch=warmup_epo,
                                       after_scheduler=after)
    for epoch in range(1, n_epochs + 1):
        {step}
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""
_PIP = "from warmup_scheduler import GradualWarmupScheduler"
_COSINE = "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, n_epochs - warmup_epo)"


def _gradual(step: str, after: str = _COSINE, imports: str = _PIP) -> list[str]:
    return codes(GRADUAL.format(step=step, after=after, imports=imports))


def test_gradual_warmup_stepped_with_an_epoch_is_lrd006() -> None:
    assert "LRD006" in _gradual("scheduler.step(epoch - 1)")


def test_gradual_warmup_from_its_module_path_is_lrd006() -> None:
    found = _gradual("scheduler.step(epoch)",
                     imports="from warmup_scheduler.scheduler import GradualWarmupScheduler")
    assert "LRD006" in found


def test_gradual_warmup_stepped_plainly_is_silent() -> None:
    # (its step at the top of the epoch is LRD001 on main already: not this rule's business)
    assert "LRD006" not in _gradual("scheduler.step()")


def test_gradual_warmup_before_a_plateau_is_silent() -> None:
    # control: with a ReduceLROnPlateau after it, step(metrics=..., epoch) is its own path
    plateau = "torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)"
    assert "LRD006" not in _gradual("scheduler.step(epoch, metrics=0.0)", after=plateau)


def test_gradual_warmup_handed_a_metric_is_silent() -> None:
    # control: `scheduler.step(val_loss)` is written for a plateau option, not an epoch
    assert "LRD006" not in _gradual("scheduler.step(val_loss)")


def test_a_project_class_of_the_same_name_is_not_the_pip_package() -> None:
    project = "from .lr import GradualWarmupScheduler"
    assert "LRD006" not in _gradual("scheduler.step(epoch - 1)", imports=project)


# 4. After its warm-up, every step of that GradualWarmupScheduler is its follower's: the
# wrapper stepped per batch steps an epoch-sized cosine per batch (LRD002), stepped per epoch
# steps a batch-sized one per epoch (LRD003). Sized to match, it is silent.

GRADUAL_STEPPED = """
import torch
from torch import nn
from warmup_scheduler import GradualWarmupScheduler


def main(model, loader, n_epochs, warmup):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={horizon})
    scheduler = GradualWarmupScheduler(optimizer, multiplier=10, total_epoch=warmup,
                                       after_scheduler=cosine)
    for epoch in range(n_epochs):
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
{step}
"""
_PER_BATCH = "            scheduler.step()"
_PER_EPOCH = "        scheduler.step()"


def _stepped(horizon: str, step: str) -> list[str]:
    return codes(GRADUAL_STEPPED.format(horizon=horizon, step=step))


def test_gradual_warmup_per_batch_over_an_epoch_sized_cosine_is_lrd002() -> None:
    assert "LRD002" in _stepped("n_epochs - warmup", _PER_BATCH)


def test_gradual_warmup_per_epoch_over_a_batch_sized_cosine_is_lrd003() -> None:
    assert "LRD003" in _stepped("n_epochs * len(loader)", _PER_EPOCH)


def test_gradual_warmup_per_batch_over_a_batch_sized_cosine_is_silent() -> None:
    assert _stepped("n_epochs * len(loader)", _PER_BATCH) == []


def test_gradual_warmup_per_epoch_over_an_epoch_sized_cosine_is_silent() -> None:
    assert _stepped("n_epochs - warmup", _PER_EPOCH) == []


def test_gradual_warmup_over_a_follower_of_unknown_class_is_left_alone() -> None:
    # control: what an unknown library's scheduler counts in is not known
    source = GRADUAL_STEPPED.format(horizon="n_epochs - warmup", step=_PER_BATCH).replace(
        "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=n_epochs - warmup)",
        "somelib.CosineSchedule(optimizer, n_epochs - warmup)").replace(
        "import torch\n", "import torch\nimport somelib\n")
    assert "LRD002" not in codes(source)
