"""Branches that cannot both run and one scheduler stepped at two loop levels, in the spellings
real code uses: the AMP switch tested twice (`args.amp`, `self.use_amp`, `cfg["amp"]`,
`scaler is not None`), a manual warm-up that hands over to the scheduler (per epoch or per
update), and a per-batch / per-epoch step chosen by a setting."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_AMP_TWICE = """
import torch
from torch.optim.lr_scheduler import OneCycleLR

class Trainer:
    def __init__(self, model, loader, args, cfg):
        self.model, self.loader, self.args, self.cfg = model, loader, args, cfg
        self.use_amp = args.amp
        self.epochs = args.epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = OneCycleLR(self.optimizer, max_lr=1.0,
                                    total_steps=args.epochs * len(loader))
        self.scaler = torch.amp.GradScaler("cuda") if {flag} else None

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                loss = self.model(x).sum()
                if {flag}:
                    self.scaler.scale(loss).backward()
                    self.scaler.step(self.optimizer)
                    self.scaler.update()
{amp_step}                else:
                    loss.backward()
                    self.optimizer.step()
{plain_step}"""

_FLAGS = {
    "args_attribute": "self.args.amp",
    "instance_flag": "self.use_amp",
    "config_key": 'self.cfg["amp"]',
}
_FLAG_SPELLINGS = {**_FLAGS, "scaler_is_not_none": "self.scaler is not None"}


def _amp_twice(flag: str, amp_step: str = "", plain_step: str = "") -> str:
    text = _AMP_TWICE.format(flag=_FLAG_SPELLINGS[flag], amp_step=amp_step,
                             plain_step=plain_step)
    if flag == "scaler_is_not_none":  # the scaler itself is built on the setting
        text = text.replace("GradScaler(\"cuda\") if self.scaler is not None else None",
                            "GradScaler(\"cuda\") if args.amp else None")
    return text


@pytest.mark.parametrize("flag", sorted(_FLAG_SPELLINGS))
def test_scheduler_stepped_in_the_plain_branch_only_is_correct(flag: str) -> None:
    src = _amp_twice(flag, plain_step="                    self.scheduler.step()\n")
    assert codes(src) == []


@pytest.mark.parametrize("flag", sorted(_FLAG_SPELLINGS))
def test_scheduler_stepped_after_the_scaler_step_in_the_amp_branch_is_lrd005(flag: str) -> None:
    src = _amp_twice(flag, amp_step="                    self.scheduler.step()\n")
    assert codes(src) == ["LRD005"]


_SEPARATE_IFS = """
import torch
from torch.optim.lr_scheduler import OneCycleLR

def train(model, loader, epochs, {param}):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = OneCycleLR(optimizer, max_lr=1.0, total_steps=epochs * len(loader))
    scaler = torch.amp.GradScaler("cuda", enabled={flag})
    for epoch in range(epochs):
        for x in loader:
            loss = model(x).sum()
            if {flag}:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            if not {flag}:
                loss.backward()
                optimizer.step()
                scheduler.step()
"""


@pytest.mark.parametrize("param,flag", [("use_amp", "use_amp"), ("cfg", "cfg.fp16"),
                                        ("cfg", 'cfg["mixed_precision"]')])
def test_scheduler_under_the_negated_flag_in_a_second_if_is_correct(param: str,
                                                                    flag: str) -> None:
    assert codes(_SEPARATE_IFS.format(param=param, flag=flag)) == []


# -- a manual warm-up that hands over to the scheduler ----------------------------------------

_PER_UPDATE_WARMUP = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def train(model, loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = CosineAnnealingLR(optimizer, T_max=args.max_steps - args.warmup_steps)
    global_step = 0
    for epoch in range(args.epochs):
        for x in loader:
            model(x).sum().backward()
{warmup}
            optimizer.step()
            optimizer.zero_grad()
{handover}
            global_step += 1
"""

_WARMUPS = {
    "param_group_loop_under_if": (
        "            if global_step < args.warmup_steps:\n"
        "                lr_scale = min(1.0, float(global_step + 1) / args.warmup_steps)\n"
        "                for pg in optimizer.param_groups:\n"
        "                    pg['lr'] = lr_scale * args.lr"),
    "enumerate_param_groups_under_if": (
        "            if global_step < args.warmup_steps:\n"
        "                for i, param_group in enumerate(optimizer.param_groups):\n"
        "                    param_group['lr'] = args.lr * (global_step + 1) / args.warmup_steps"),
}

_HANDOVERS = {
    "separate_if_on_the_same_counter": (
        "            if global_step >= args.warmup_steps:\n"
        "                scheduler.step()"),
    "negated_test": (
        "            if not global_step < args.warmup_steps:\n"
        "                scheduler.step()"),
}


@pytest.mark.parametrize("handover", sorted(_HANDOVERS))
@pytest.mark.parametrize("warmup", sorted(_WARMUPS))
def test_per_update_warmup_handing_over_to_the_scheduler_is_not_lrd008(
        warmup: str, handover: str) -> None:
    src = _PER_UPDATE_WARMUP.format(warmup=_WARMUPS[warmup], handover=_HANDOVERS[handover])
    assert codes(src) == []


@pytest.mark.parametrize("warmup", sorted(_WARMUPS))
def test_per_update_warmup_while_the_scheduler_also_steps_is_lrd008(warmup: str) -> None:
    src = _PER_UPDATE_WARMUP.format(warmup=_WARMUPS[warmup],
                                    handover="            scheduler.step()")
    assert codes(src) == ["LRD008"]


def test_warmup_in_the_if_and_the_scheduler_in_the_else_after_the_update_is_not_lrd008() -> None:
    src = _PER_UPDATE_WARMUP.format(warmup="", handover=(
        _WARMUPS["param_group_loop_under_if"]
        + "\n            else:\n                scheduler.step()"))
    assert codes(src) == []


# -- one scheduler at two loop levels --------------------------------------------------------

_TWO_LEVELS = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

class Trainer:
    def __init__(self, model, loader, cfg):
        self.model, self.loader, self.cfg = model, loader, cfg
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.lr_scheduler = CosineAnnealingLR(self.optimizer, T_max=cfg.total)

    def train_epoch(self):
        for x in self.loader:
            self.model(x).sum().backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
{batch_step}

    def fit(self):
        for epoch in range(self.cfg.epochs):
            self.train_epoch()
{epoch_step}"""

_SETTINGS = {
    "attribute_flag": ("self.cfg.step_per_batch", "not self.cfg.step_per_batch"),
    "interval_string": ('self.cfg.interval == "step"', 'self.cfg.interval == "epoch"'),
    "local_flag": ("self.per_iter", "not self.per_iter"),
}


def test_scheduler_stepped_per_batch_and_again_per_epoch_is_lrd012() -> None:
    src = _TWO_LEVELS.format(batch_step="            self.lr_scheduler.step()",
                             epoch_step="            self.lr_scheduler.step()\n")
    assert "LRD012" in codes(src)


@pytest.mark.parametrize("setting", sorted(_SETTINGS))
def test_per_batch_or_per_epoch_chosen_by_a_setting_is_correct(setting: str) -> None:
    batch_test, epoch_test = _SETTINGS[setting]
    src = _TWO_LEVELS.format(
        batch_step=f"            if {batch_test}:\n                self.lr_scheduler.step()",
        epoch_step=f"            if {epoch_test}:\n                self.lr_scheduler.step()\n",
    ).replace("self.model, self.loader, self.cfg = model, loader, cfg\n",
              "self.model, self.loader, self.cfg = model, loader, cfg\n"
              "        self.per_iter = cfg.per_iter\n")
    assert codes(src) == []
