"""A GradScaler switched by a setting, spelled the ways real scripts spell it: whatever the
spelling of the switch, a per-update scheduler stepped after an unguarded `scaler.step()` is
LRD005 (when the switch is on), and the guards real code uses to skip the scheduler when the
update was skipped keep it silent."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import argparse
import torch
from torch.amp import GradScaler
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--amp", action="store_true")
parser.add_argument("--no-amp", dest="no_amp", action="store_true")
parser.add_argument("--precision", default="fp32", choices=["fp32", "fp16", "bf16"])
args = parser.parse_args()
config = {{"training": {{"fp16": True}}}}

def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-3, total_steps=epochs * len(loader))
{setup}
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16, enabled={enabled}):
                loss = model(x).sum()
{update}
"""

_PLAIN_UPDATE = """            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()"""

# (setup lines, the autocast switch) for each spelling of the switched scaler.
_SWITCHES = {
    "args_flag": ('    scaler = GradScaler("cuda", enabled=args.amp)', "args.amp"),
    "precision_comparison_inline": (
        '    scaler = GradScaler("cuda", enabled=args.precision == "fp16")',
        'args.precision == "fp16"'),
    "precision_comparison_in_a_variable": (
        '    use_amp = args.precision == "fp16"\n'
        '    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)', "use_amp"),
    "negated_opt_out_flag": (
        "    use_amp = not args.no_amp\n"
        "    scaler = torch.amp.GradScaler(enabled=use_amp)", "use_amp"),
    "nested_config_key": (
        '    fp16 = config["training"]["fp16"]\n'
        "    scaler = GradScaler(enabled=fp16)", "fp16"),
    "config_get": ('    scaler = GradScaler(enabled=config.get("fp16", False))', "True"),
    "precision_in_a_tuple": (
        '    scaler = GradScaler(enabled=args.precision in ("fp16", "16-mixed"))', "True"),
    "self_flag_in_a_method_argument": (
        "    scaler = torch.amp.GradScaler(device='cuda', enabled=bool(args.amp))", "True"),
}


def _script(switch: str, update: str = _PLAIN_UPDATE) -> str:
    setup, enabled = _SWITCHES[switch]
    return _SCRIPT.format(setup=setup, enabled=enabled, update=update)


@pytest.mark.parametrize("switch", sorted(_SWITCHES))
def test_onecycle_stepped_after_a_switched_scaler_step_is_lrd005(switch: str) -> None:
    assert codes(_script(switch)) == ["LRD005"]


def test_legacy_cuda_amp_scaler_switched_by_a_flag_is_lrd005_and_lrd101() -> None:
    src = _SCRIPT.format(setup="    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)",
                         enabled="args.amp", update=_PLAIN_UPDATE)
    assert sorted(codes(src)) == ["LRD005", "LRD101"]


def test_scaler_switched_by_a_dtype_picked_from_the_hardware_is_left_alone() -> None:
    # float16 only on GPUs without bfloat16: the file does not say when the scaler is on
    setup = ("    dtype = 'bfloat16' if torch.cuda.is_bf16_supported() else 'float16'\n"
             "    scaler = GradScaler(enabled=(dtype == 'float16'))")
    src = _SCRIPT.format(setup=setup, enabled="dtype == 'float16'", update=_PLAIN_UPDATE)
    assert codes(src) == []


_GUARDED_UPDATES = {
    "scale_compared_inline": """            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scale = scaler.get_scale()
            scaler.update()
            if scale <= scaler.get_scale():
                scheduler.step()""",
    "optimizer_was_run_flag": """            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scale_before = scaler.get_scale()
            scaler.update()
            scale_after = scaler.get_scale()
            optimizer_was_run = scale_before <= scale_after
            if optimizer_was_run:
                scheduler.step()""",
    "skip_flag_negated": """            scaler.scale(loss).backward()
            scale_before = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            skip_lr_sched = scale_before > scaler.get_scale()
            if not skip_lr_sched:
                scheduler.step()""",
}


@pytest.mark.parametrize("guard", sorted(_GUARDED_UPDATES))
@pytest.mark.parametrize("switch", ["args_flag", "precision_comparison_in_a_variable"])
def test_scheduler_guarded_by_the_scale_is_correct(switch: str, guard: str) -> None:
    assert codes(_script(switch, _GUARDED_UPDATES[guard])) == []


def test_scaler_switched_off_by_a_literal_is_correct() -> None:
    src = _SCRIPT.format(setup='    scaler = GradScaler("cuda", enabled=False)',
                         enabled="False", update=_PLAIN_UPDATE)
    assert codes(src) == []


_OPTIONAL_SCALER = """
import torch

def train(model, loader, epochs, fp16):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-3, total_steps=epochs * len(loader))
{setup}
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            loss = model(x).sum()
{update}
            scheduler.step()
"""

_OPTIONAL_SETUPS = {
    "conditional_expression": "    scaler = torch.amp.GradScaler('cuda') if fp16 else None",
    "if_statement": "    scaler = None\n    if fp16:\n        scaler = torch.amp.GradScaler('cuda')",
    "if_else_statement": (
        "    if fp16:\n        scaler = torch.amp.GradScaler('cuda')\n"
        "    else:\n        scaler = None"),
}

_OPTIONAL_UPDATES = {
    "is_not_none": """            if scaler is not None:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()""",
    "truthiness": """            if scaler:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()""",
    "same_flag": """            if fp16:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            else:
                loss.backward()
                optimizer.step()""",
}


@pytest.mark.parametrize("update", sorted(_OPTIONAL_UPDATES))
@pytest.mark.parametrize("setup", sorted(_OPTIONAL_SETUPS))
def test_optional_scaler_then_scheduler_step_is_lrd005(setup: str, update: str) -> None:
    src = _OPTIONAL_SCALER.format(setup=_OPTIONAL_SETUPS[setup],
                                  update=_OPTIONAL_UPDATES[update])
    assert codes(src) == ["LRD005"]


_TRAINER_CLASS = """
import torch

class Trainer:
    def __init__(self, model, loader, cfg):
        self.model = model
        self.loader = loader
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.lr_scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=cfg.lr, total_steps=cfg.epochs * len(loader))
        self.scaler = torch.amp.GradScaler("cuda", enabled=cfg.fp16)

    def train_step(self, batch):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", enabled=self.cfg.fp16):
            loss = self.model(batch).sum()
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
{sched_step}

    def fit(self):
        for epoch in range(self.cfg.epochs):
            for batch in self.loader:
                self.train_step(batch)
"""


def test_trainer_with_a_config_switched_scaler_stepping_the_scheduler_is_lrd005() -> None:
    assert codes(_TRAINER_CLASS.format(sched_step="        self.lr_scheduler.step()")) == [
        "LRD005"]


def test_trainer_with_a_config_switched_scaler_guarding_the_scheduler_is_correct() -> None:
    src = _TRAINER_CLASS.format(sched_step="").replace(
        "        self.scaler.step(self.optimizer)\n        self.scaler.update()\n",
        "        scale = self.scaler.get_scale()\n"
        "        self.scaler.step(self.optimizer)\n        self.scaler.update()\n"
        "        if self.scaler.get_scale() >= scale:\n"
        "            self.lr_scheduler.step()\n",
    )
    assert codes(src) == []
