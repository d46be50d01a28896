"""fphunt72: whole repositories of diffusion, detection / segmentation toolkits, Lightning
modules, self-supervised evaluation, LLM fine-tuning and RL, and Kaggle solutions, checked
from their roots. Found:

1. LRD005 (and LRD007's scaler half) beside an autocast whose dtype can never be float16,
   spelt as something other than a literal ``torch.bfloat16``: a self-supervised evaluation
   script keeps a CUDA GradScaler and casts with a dtype its config enum maps to bfloat16 or
   float32 only (a property returning a dict lookup), handed down as a parameter of the
   training step. bfloat16 has float32's exponent range and float32 is no cast at all, so the
   scaler never finds an overflow to skip, and a scheduler stepped after ``scaler.step()``
   does not run ahead. The dtype is now followed through what the module shows: both arms of
   ``a if c else b``, every value of a dict literal looked up (directly, through a name bound
   to dict literals alone, ``.get`` with a default), a name, a field of ``self`` or a
   parameter through everything the module binds it to and every argument the module's calls
   hand it, and a property of the module's classes through its returns. float32 is allowed
   beside bfloat16; bfloat16 must be possible somewhere (a float32-only program stays
   unknown, as before). Still found: float16 on any path, a parameter of a function the module
   never calls (its callers are elsewhere), a call that hides what it passes (``**kwargs``), a
   dict built elsewhere, ``.get`` without a default (None: the CUDA default, float16).

(The repository's own finding stays: its program also names float16 in imported modules, a
backbone's dtype table and a batch-norm's cast back to half, which the rule reads as a float16
program on purpose. These tests are the shape in one module.)

Programs written for these tests; no third-party code.
"""

from __future__ import annotations

import pytest

from .helpers import codes

_LOOP = '''
import argparse
from enum import Enum
import torch
from torch import nn

parser = argparse.ArgumentParser()
parser.add_argument("--precision", default="bf16")
parser.add_argument("--bf16", action="store_true")
args = parser.parse_args()

PREAMBLE


def one_step(net, batch, scaler, opt, sched, cast):
    x, y = batch
    opt.zero_grad()
    with torch.autocast("cuda", dtype=CAST):
        loss = nn.functional.mse_loss(net(x), y)
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    sched.step()


def run(steps=500):
    net = nn.Linear(4, 2).cuda()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=steps)
    scaler = torch.amp.GradScaler("cuda")
    data = [(torch.randn(8, 4).cuda(), torch.randn(8, 2).cuda()) for _ in range(steps)]
    for batch in data:
        one_step(net, batch, scaler, opt, sched, HANDED)
    torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()},
               "last.pt")


run()
'''


def program(preamble: str, cast: str, handed: str = "None") -> str:
    return _LOOP.replace("PREAMBLE", preamble).replace("CAST", cast).replace("HANDED", handed)


_ENUM = '''
class Precision(Enum):
    BF16 = "bf16"
    FP32 = "fp32"MEMBER

    @property
    def autocast_dtype(self):
        return {Precision.BF16: torch.bfloat16, Precision.FP32: torch.float32VALUE}[self]
'''

_NEVER_FLOAT16 = [
    # a dict literal looked up by a setting
    ('TABLE = {"bf16": torch.bfloat16, "fp32": torch.float32}', "TABLE[args.precision]"),
    ("", '{"bf16": torch.bfloat16, "fp32": torch.float32}[args.precision]'),
    ('TABLE = {"bf16": torch.bfloat16, "fp32": torch.float}', "TABLE.get(args.precision, torch.float32)"),
    # a name bound to one
    ('amp_dtype = {"bf16": torch.bfloat16, "fp32": torch.float32}[args.precision]', "amp_dtype"),
    # both arms of a conditional
    ("amp_dtype = torch.bfloat16 if args.bf16 else torch.float32", "amp_dtype"),
    ("", "torch.bfloat16 if args.bf16 else torch.float32"),
]


@pytest.mark.parametrize(("preamble", "cast"), _NEVER_FLOAT16)
def test_a_dtype_that_is_never_float16_never_skips(preamble: str, cast: str) -> None:
    assert codes(program(preamble, cast)) == []


def test_a_parameter_every_call_hands_bfloat16_never_skips() -> None:
    assert codes(program("", "cast", "torch.bfloat16")) == []


def test_a_parameter_handed_a_config_property_that_is_never_float16_never_skips() -> None:
    enum = _ENUM.replace("MEMBER", "").replace("VALUE", "")
    assert codes(program(enum, "cast", "Precision(args.precision).autocast_dtype")) == []


def test_a_parameter_left_at_its_bfloat16_default_never_skips() -> None:
    source = program("", "cast", "torch.bfloat16").replace(
        "sched, cast):", "sched, cast=torch.bfloat16):").replace(
        "one_step(net, batch, scaler, opt, sched, torch.bfloat16)",
        "one_step(net, batch, scaler, opt, sched)")
    assert codes(source) == []


# -- the nearest buggy programs: float16 possible, or the dtype not shown ---------------------

_MAY_BE_FLOAT16 = [
    ('TABLE = {"bf16": torch.bfloat16, "fp16": torch.float16}', "TABLE[args.precision]"),
    ("amp_dtype = torch.bfloat16 if args.bf16 else torch.half", "amp_dtype"),
    # float32 alone is not the bfloat16 program the rule vouches for; None is the CUDA default
    ('TABLE = {"bf16": torch.bfloat16}', "TABLE.get(args.precision)"),
    # a table filled elsewhere, a dtype from a name lrdoctor cannot read
    ("TABLE = {}\nTABLE.update(load_table())", "TABLE[args.precision]"),
    ("amp_dtype = getattr(torch, args.precision)", "amp_dtype"),
    ('amp_dtype = {"bf16": torch.bfloat16, "other": pick()}[args.precision]', "amp_dtype"),
]


@pytest.mark.parametrize(("preamble", "cast"), _MAY_BE_FLOAT16)
def test_control_a_dtype_that_may_be_float16_still_skips(preamble: str, cast: str) -> None:
    assert "LRD005" in codes(program(preamble, cast))


def test_control_a_parameter_handed_float16_by_one_call_still_skips() -> None:
    source = program("", "cast", "torch.bfloat16").replace(
        "\n\nrun()", "\n\nrun()\none_step(None, None, None, None, None, torch.float16)")
    assert "LRD005" in codes(source)


def test_control_a_parameter_of_a_function_never_called_here_still_skips() -> None:
    # `run` is an entry point another module calls: it may hand the step any dtype
    source = program("", "cast", "cast").replace("def run(steps=500):", "def run(cast, steps=500):")
    assert "LRD005" in codes(source.replace("\n\nrun()", "\n"))


def test_control_a_call_that_hides_what_it_passes_still_skips() -> None:
    source = program("", "cast", "torch.bfloat16").replace(
        "one_step(net, batch, scaler, opt, sched, torch.bfloat16)",
        "one_step(net, batch, scaler, opt, sched, **extra)")
    assert "LRD005" in codes(source)


def test_control_a_config_property_that_may_be_float16_still_skips() -> None:
    enum = _ENUM.replace("MEMBER", '\n    FP16 = "fp16"').replace(
        "VALUE", ", Precision.FP16: torch.float16")
    assert "LRD005" in codes(program(enum, "cast", "Precision(args.precision).autocast_dtype"))


def test_control_a_method_not_a_property_is_not_followed() -> None:
    enum = _ENUM.replace("MEMBER", "").replace("VALUE", "").replace("    @property\n", "")
    assert "LRD005" in codes(program(enum, "cast", "Precision(args.precision).autocast_dtype"))


# -- a field of a config class: its default, assignments, and what the module's calls give ----

_DATACLASS = '''
from dataclasses import dataclass
import torch
from torch import nn


@dataclass
class RunConfig:
    steps: int = 1000
    lr: float = 3e-4
    amp_dtype: torch.dtype = torch.bfloat16


def fit(cfg):
    net = nn.Linear(4, 2).cuda()
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.steps)
    scaler = torch.amp.GradScaler("cuda")
    for _ in range(cfg.steps):
        x, y = torch.randn(8, 4).cuda(), torch.randn(8, 2).cuda()
        opt.zero_grad()
        with torch.autocast("cuda", dtype=cfg.amp_dtype):
            loss = nn.functional.mse_loss(net(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        sched.step()


BUILD
'''


@pytest.mark.parametrize("build", [
    "fit(RunConfig())",
    "fit(RunConfig(steps=500, amp_dtype=torch.float32))",
    "cfg = RunConfig()\ncfg.amp_dtype = torch.float32\nfit(cfg)",
])
def test_a_config_field_that_is_never_float16_never_skips(build: str) -> None:
    assert codes(_DATACLASS.replace("BUILD", build)) == []


@pytest.mark.parametrize("build", [
    "fit(RunConfig(amp_dtype=torch.float16))",
    "cfg = RunConfig()\ncfg.amp_dtype = pick_dtype()\nfit(cfg)",
    "fit(RunConfig(500, 3e-4, pick_dtype()))",  # by position: not followed
    "fit(RunConfig(**settings))",
    "",  # built in another module, which may hand it anything
])
def test_control_a_config_field_that_may_be_float16_still_skips(build: str) -> None:
    assert "LRD005" in codes(_DATACLASS.replace("BUILD", build))


def test_bfloat16_under_an_alias_of_torch_in_a_table_never_skips() -> None:
    source = program('TABLE = {"bf16": th.bfloat16, "fp32": th.float32}', "TABLE[args.precision]")
    assert codes(source.replace("import torch\n", "import torch\nimport torch as th\n", 1)) == []


def test_control_a_float64_autocast_beside_bfloat16_is_not_vouched_for() -> None:
    assert "LRD005" in codes(program("", "torch.bfloat16 if args.bf16 else torch.float64"))
