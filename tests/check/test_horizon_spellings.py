"""Horizons as real code spells them: from argparse, a nested config object, a config dict, a
module constant, a local copy, arithmetic on them. A horizon in epochs stepped every batch is
LRD002, a horizon in updates stepped once per epoch is LRD003, and each stepped where it belongs
is correct, whichever way the number reaches the constructor."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_HEADER = """
import argparse
import torch
from types import SimpleNamespace
from torch.optim import lr_scheduler
from torch.utils.data import DataLoader
from transformers import get_linear_schedule_with_warmup, get_cosine_schedule_with_warmup

EPOCHS = 90
parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=100)
parser.add_argument("--lr-decay-epochs", type=int, default=30)
parser.add_argument("--max-iters", type=int, default=100000)
parser.add_argument("--warmup-steps", type=int, default=500)
args = parser.parse_args()
cfg = SimpleNamespace(TRAIN=SimpleNamespace(EPOCHS=120))
config = {{"epochs": 50, "batch_size": 32}}

def main(model, dataset):
    train_loader = DataLoader(dataset, batch_size=config["batch_size"], shuffle=True)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    num_epochs = args.epochs
{prepare}    scheduler = {build}
    for epoch in range({epochs}):
        for x in train_loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
{step}"""

_BATCH_STEP = "            scheduler.step()\n"
_EPOCH_STEP = "        scheduler.step()\n"

# (preparation lines, constructor, the epoch loop's bound)
_IN_EPOCHS = {
    "argparse_attribute": ("", "lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)",
                           "args.epochs"),
    "nested_config_object": (
        "", "lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.TRAIN.EPOCHS)",
        "cfg.TRAIN.EPOCHS"),
    "config_dict_key": ("", 'lr_scheduler.CosineAnnealingLR(optimizer, config["epochs"])',
                        'config["epochs"]'),
    "local_copy_of_the_setting": (
        "", "lr_scheduler.CosineAnnealingLR(optimizer, T_max=num_epochs)", "num_epochs"),
    "module_constant": ("", "lr_scheduler.CosineAnnealingLR(optimizer, T_max=EPOCHS)",
                        "EPOCHS"),
    "milestones_from_fractions_of_epochs": (
        "", "lr_scheduler.MultiStepLR(optimizer, milestones=[int(0.5 * args.epochs), "
        "int(0.75 * args.epochs)], gamma=0.1)", "args.epochs"),
    "step_size_in_epochs_from_argparse": (
        "", "lr_scheduler.StepLR(optimizer, step_size=args.lr_decay_epochs, gamma=0.1)",
        "args.epochs"),
    "epochs_minus_warmup": (
        "    warmup_epochs = 5\n",
        "lr_scheduler.CosineAnnealingLR(optimizer, T_max=num_epochs - warmup_epochs)",
        "num_epochs"),
}

_IN_UPDATES = {
    "onecycle_steps_per_epoch": (
        "", "lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, epochs=args.epochs, "
        "steps_per_epoch=len(train_loader))", "args.epochs"),
    "cosine_over_epochs_times_batches": (
        "", "lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs * len(train_loader))",
        "args.epochs"),
    "total_steps_in_a_variable": (
        "    total_steps = len(train_loader) * num_epochs\n",
        "lr_scheduler.CosineAnnealingLR(optimizer, T_max=total_steps)", "num_epochs"),
    "hf_warmup_to_max_iters_from_argparse": (
        "", "get_linear_schedule_with_warmup(optimizer, args.warmup_steps, args.max_iters)",
        "args.epochs"),
    "hf_cosine_with_training_steps_keyword": (
        "    num_training_steps = num_epochs * len(train_loader)\n",
        "get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=100, "
        "num_training_steps=num_training_steps)", "num_epochs"),
    "linear_lr_total_iters_from_a_config_product": (
        "", 'lr_scheduler.LinearLR(optimizer, 1.0, 0.0, '
        'total_iters=config["epochs"] * len(train_loader))', 'config["epochs"]'),
}


def _script(spelling: tuple[str, str, str], step: str) -> str:
    prepare, build, epochs = spelling
    return _HEADER.format(prepare=prepare, build=build, epochs=epochs, step=step)


@pytest.mark.parametrize("spelling", sorted(_IN_EPOCHS))
def test_horizon_in_epochs_stepped_every_batch_is_lrd002(spelling: str) -> None:
    assert codes(_script(_IN_EPOCHS[spelling], _BATCH_STEP)) == ["LRD002"]


@pytest.mark.parametrize("spelling", sorted(_IN_EPOCHS))
def test_horizon_in_epochs_stepped_once_per_epoch_is_correct(spelling: str) -> None:
    # the unit is right for every spelling; `T_max=num_epochs - warmup_epochs` stepped on all
    # `num_epochs` epochs, with no warm-up in the script to hold the cosine back, runs 5 epochs
    # past T_max (an overrun, LRD010), which is a bug of its own
    expected = ["LRD010"] if spelling == "epochs_minus_warmup" else []
    assert codes(_script(_IN_EPOCHS[spelling], _EPOCH_STEP)) == expected


@pytest.mark.parametrize("spelling", sorted(_IN_UPDATES))
def test_horizon_in_updates_stepped_once_per_epoch_is_lrd003(spelling: str) -> None:
    assert codes(_script(_IN_UPDATES[spelling], _EPOCH_STEP)) == ["LRD003"]


@pytest.mark.parametrize("spelling", sorted(_IN_UPDATES))
def test_horizon_in_updates_stepped_every_batch_is_correct(spelling: str) -> None:
    assert codes(_script(_IN_UPDATES[spelling], _BATCH_STEP)) == []


_UPDATE_COUNT_NAMES = ["args.num_iters", "cfg.SOLVER.MAX_ITER", "args.train_iters",
                       "args.max_steps", "cfg.total_updates", "num_training_steps"]

_ITER_SETTING = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def main(model, train_loader, args, cfg, num_training_steps):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max={horizon})
    for epoch in range(args.epochs):
        for x in train_loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
{step}"""


@pytest.mark.parametrize("horizon", _UPDATE_COUNT_NAMES)
def test_cosine_over_a_count_of_updates_stepped_every_batch_is_correct(horizon: str) -> None:
    assert codes(_ITER_SETTING.format(horizon=horizon, step=_BATCH_STEP)) == []


@pytest.mark.parametrize("horizon", _UPDATE_COUNT_NAMES)
def test_cosine_over_a_count_of_updates_stepped_per_epoch_is_lrd003(horizon: str) -> None:
    assert codes(_ITER_SETTING.format(horizon=horizon, step=_EPOCH_STEP)) == ["LRD003"]
