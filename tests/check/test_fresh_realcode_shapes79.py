"""Shapes behind the dev misses of the fresh-2026-12zf79 batch (rcnew79, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A scheduler builder tests its own parameter (``def make(kind, opt): if kind == "cosine":
  ... elif kind == "warm": ...``) and is called with a setting (``make(args.sched, opt)``),
  then ``get_lr()`` is logged outside step(). LRD015 reads which option the settings' stated
  defaults pick, but only for a test spelled on the setting itself: the parameter was no
  setting, so the pick was undecided and the finding dropped. Python: the parameter holds
  what the call passed; the test reads the setting.
- A GradScaler built at the top level of a project module (``scaler = GradScaler()`` in a
  utilities module) and read by the training function of another module (``from util
  import *``, ``from util import scaler``, ``import util`` then ``util.scaler``) or of the
  same one called from the driver. lrdoctor's trace followed the imported functions and
  classes of other modules but not their top-level objects, so the scaler was unknown and
  LRD005 (scheduler stepped after a possibly skipped update) said nothing. Python runs that
  top level once, on the first import: every reader shares one always-on scaler.
- A config class rebinds a setting under an ``if`` of its body (``epochs = 5`` then ``if
  model_name == "b0": epochs = 10`` with ``model_name = "b0"``). lrdoctor's class-constant
  readers took the one plain assignment (5) and ignored the rebinding; Python runs the body
  top to bottom and the class holds 10. An undecided test now leaves the value unknown.
- A CosineAnnealingLR sized by a stated number (``T_max=3``, ``T_max=CFG.T_max``) stepped
  once per pass of an epoch loop that makes more passes than T_max + 1: no rule judged an
  epoch-level horizon against the loop's count (the batch-level form, ``E * len(loader)``
  for N > E epochs, was judged). Python: past T_max the cosine climbs back to the initial LR.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

# -- LRD015: a builder's parameter holding the setting its caller passed ----------------------

BUILDER_PARAMETER = """
import argparse
import torch
from torch import optim

parser = argparse.ArgumentParser()
parser.add_argument("--sched", default="cosine")
parser.add_argument("--epochs", type=int, default=20)
opts = parser.parse_args()


def make_schedule(kind, opt):
    if kind == "cosine":
        sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=opts.epochs)
    elif kind == "warm":
        sched = optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5)
    return sched


net = torch.nn.Linear(3, 1)
opt = optim.SGD(net.parameters(), lr=0.1)
sched = make_schedule(opts.sched, opt)
lrs = []
for epoch in range(opts.epochs):
    for _ in range(8):
        opt.zero_grad()
        net(torch.randn(4, 3)).sum().backward()
        opt.step()
    sched.step()
    lrs.append(sched.get_lr()[0])
"""


def test_builder_parameter_read_as_the_setting_passed() -> None:
    assert "LRD015" in codes(BUILDER_PARAMETER)
    found = messages(BUILDER_PARAMETER)
    assert any("`sched` defaults to 'cosine'" in m for m in found), found


def test_builder_parameter_whose_default_picks_the_closed_form_is_silent() -> None:
    # CosineAnnealingWarmRestarts computes get_lr() in closed form: the value in force
    warm = BUILDER_PARAMETER.replace('default="cosine"', 'default="warm"')
    assert "LRD015" not in codes(warm)


def test_builder_parameter_passed_by_keyword() -> None:
    source = BUILDER_PARAMETER.replace("make_schedule(opts.sched, opt)",
                                       "make_schedule(opt=opt, kind=opts.sched)")
    assert "LRD015" in codes(source)


def test_builder_parameter_tested_by_membership() -> None:
    source = BUILDER_PARAMETER.replace('if kind == "cosine":', 'if kind in ("cosine", "cos"):')
    assert "LRD015" in codes(source)


def test_builder_parameter_rebound_before_the_test_is_silent() -> None:
    # the test no longer reads what was passed (lrdoctor does not follow `.lower()`)
    source = BUILDER_PARAMETER.replace(
        '    if kind == "cosine":', '    kind = kind.lower()\n    if kind == "cosine":')
    assert "LRD015" not in codes(source)


def test_builder_parameter_given_a_literal_is_left_to_the_literal() -> None:
    # not a setting: the pick is not read from the settings' defaults
    source = BUILDER_PARAMETER.replace("make_schedule(opts.sched, opt)",
                                       'make_schedule("warm", opt)')
    assert "LRD015" not in codes(source)


def test_caller_parameter_of_the_same_name_is_not_the_builders() -> None:
    # `setup`'s own `kind` (from `--mode`, no stated default) decides whether the cosine is
    # built at all; the builder's `kind` receiving `opts.sched` says nothing about it
    source = BUILDER_PARAMETER.replace(
        '    return sched\n',
        '    return sched\n\n\ndef setup(kind, opt):\n    if kind == "cosine":\n'
        '        return make_schedule(opts.sched, opt)\n'
        '    return optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=5)\n').replace(
        'parser.add_argument("--epochs", type=int, default=20)',
        'parser.add_argument("--epochs", type=int, default=20)\nparser.add_argument("--mode")'
    ).replace("sched = make_schedule(opts.sched, opt)", "sched = setup(opts.mode, opt)")
    assert "def setup" in source and "setup(opts.mode, opt)" in source
    assert "LRD015" not in codes(source)


# -- LRD005: a GradScaler built at the top level of another project module --------------------

SHARED_SCALER = """
import torch

scaler = torch.amp.GradScaler("cuda")
device = "cuda"
"""

EPOCH_FUNCTION = """
{imports}


def run_epoch(batches, net, opt, sched):
    for x in batches:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = net(x).pow(2).mean()
        {scaler}.scale(loss).backward()
        {scaler}.step(opt)
        {scaler}.update()
        opt.zero_grad()
        sched.step()
"""

DRIVER = """
import torch
from transformers import get_cosine_schedule_with_warmup
from steps import run_epoch

net = torch.nn.Linear(6, 1)
batches = [torch.randn(8, 6) for _ in range(12)]
for fold in range(3):
    opt = torch.optim.AdamW(net.parameters(), lr=2e-5)
    sched = get_cosine_schedule_with_warmup(opt, 5, len(batches) * 4)
    for epoch in range(4):
        run_epoch(batches, net, opt, sched)
"""


def _scaler_project(imports: str, scaler: str = "scaler", shared: str = SHARED_SCALER
                    ) -> dict[str, str]:
    return {
        "shared.py": shared,
        "steps.py": EPOCH_FUNCTION.format(imports=imports, scaler=scaler),
        "train.py": DRIVER,
    }


@pytest.mark.parametrize("imports, scaler", [
    ("import torch\nfrom shared import *", "scaler"),
    ("import torch\nfrom shared import scaler", "scaler"),
    ("import torch\nimport shared", "shared.scaler"),
    ("import torch\nfrom shared import scaler as amp_scaler", "amp_scaler"),
])
def test_scaler_built_by_another_module_is_the_one_stepped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str, scaler: str) -> None:
    found = check_project(tmp_path, monkeypatch, _scaler_project(imports, scaler))
    assert ("steps.py", 14, "LRD005") in found, found


def test_scaler_of_the_module_holding_the_epoch_function(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the function reads its own module's global; the driver imports only the function
    steps = "import torch\n\nscaler = torch.amp.GradScaler(\"cuda\")\n" + \
        EPOCH_FUNCTION.format(imports="", scaler="scaler")
    found = check_project(tmp_path, monkeypatch, {"steps.py": steps, "train.py": DRIVER},
                          checked=["train.py"])
    assert "LRD005" in project_codes(found), found


def test_switched_off_shared_scaler_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    off = SHARED_SCALER.replace('GradScaler("cuda")', 'GradScaler("cuda", enabled=False)')
    found = check_project(tmp_path, monkeypatch,
                          _scaler_project("import torch\nfrom shared import *", shared=off))
    assert "LRD005" not in project_codes(found), found


def test_shared_scaler_rebound_in_a_function_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # which object a reader gets depends on whether `setup()` ran: not judged
    rebound = SHARED_SCALER + "\n\ndef setup(amp):\n    global scaler\n" \
        "    scaler = torch.amp.GradScaler(\"cuda\", enabled=amp)\n"
    found = check_project(tmp_path, monkeypatch,
                          _scaler_project("import torch\nfrom shared import *", shared=rebound))
    assert "LRD005" not in project_codes(found), found


def test_shared_scaler_built_only_when_a_flag_holds_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flagged = SHARED_SCALER.replace('scaler = torch.amp.GradScaler("cuda")',
                                    'USE_AMP = False\nscaler = torch.amp.GradScaler("cuda") '
                                    'if USE_AMP else None')
    found = check_project(tmp_path, monkeypatch,
                          _scaler_project("import torch\nfrom shared import *", shared=flagged))
    assert "LRD005" not in project_codes(found), found


def test_epoch_function_checking_for_the_skip_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _scaler_project("import torch\nfrom shared import *")
    files["steps.py"] = files["steps.py"].replace(
        "        scaler.step(opt)\n        scaler.update()\n        opt.zero_grad()\n"
        "        sched.step()\n",
        "        before = scaler.get_scale()\n        scaler.step(opt)\n"
        "        scaler.update()\n        opt.zero_grad()\n"
        "        if scaler.get_scale() >= before:\n            sched.step()\n")
    found = check_project(tmp_path, monkeypatch, files)
    assert "LRD005" not in project_codes(found), found


# -- a config class rebinding a setting under an `if` of its body ------------------------------

CONFIG_CLASS = """
import torch
from torch import optim


class Config:
    backbone = "small"
    epochs = 3
    if backbone == "small":
        epochs = 12
    t_max = 3


net = torch.nn.Linear(5, 1)
opt = optim.Adam(net.parameters(), lr=1e-3)
sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=Config.t_max)
for epoch in range(Config.epochs):
    for _ in range(6):
        opt.zero_grad()
        net(torch.randn(2, 5)).sum().backward()
        opt.step()
    sched.step()
"""


def test_class_body_rebinding_under_a_decided_if_counts() -> None:
    found = messages(CONFIG_CLASS)
    assert any("`range(Config.epochs)`: 9 more epochs than T_max" in m for m in found), found


def test_class_body_if_not_taken_keeps_the_first_value() -> None:
    # 3 passes against T_max = 3
    source = CONFIG_CLASS.replace('backbone = "small"', 'backbone = "large"')
    assert "LRD010" not in codes(source)


def test_class_body_if_undecided_leaves_the_count_unknown() -> None:
    source = CONFIG_CLASS.replace('if backbone == "small":', "if torch.cuda.is_available():")
    assert "LRD010" not in codes(source)


def test_class_body_flag_decides_the_if() -> None:
    source = CONFIG_CLASS.replace('backbone = "small"', "debug = False").replace(
        'if backbone == "small":', "if not debug:")
    assert "LRD010" in codes(source)


# -- LRD010: an epoch-stepped cosine whose T_max the config class states short ---------------

PICKED_BY_CONFIG = """
import torch
from torch import optim


class CFG:
    scheduler = "cosine"
    epochs = 10
    t_max = 4


def make_scheduler(opt):
    if CFG.scheduler == "plateau":
        sched = optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min")
    elif CFG.scheduler == "cosine":
        sched = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=CFG.t_max, eta_min=1e-6)
    return sched


def fit(folds, train_folds):
    for fold in range(folds):
        if fold in train_folds:
            net = torch.nn.Linear(5, 1)
            opt = optim.Adam(net.parameters(), lr=1e-3)
            sched = make_scheduler(opt)
            for epoch in range(CFG.epochs):
                for _ in range(6):
                    opt.zero_grad()
                    net(torch.randn(2, 5)).sum().backward()
                    opt.step()
                if isinstance(sched, optim.lr_scheduler.ReduceLROnPlateau):
                    sched.step(0.5)
                elif isinstance(sched, optim.lr_scheduler.CosineAnnealingLR):
                    sched.step()


fit(4, [0])
"""


def test_cosine_picked_by_a_config_class_constant_overruns() -> None:
    found = messages(PICKED_BY_CONFIG)
    assert any("`range(CFG.epochs)`: 6 more epochs than T_max" in m for m in found), found


def test_cosine_sized_to_the_config_epochs_is_silent() -> None:
    assert "LRD010" not in codes(PICKED_BY_CONFIG.replace("T_max=CFG.t_max", "T_max=CFG.epochs"))


def test_cosine_picked_by_a_command_line_setting_is_left_alone() -> None:
    # `--sched` may pick the plateau on any run: whether the cosine is built is the run's
    source = PICKED_BY_CONFIG.replace(
        'class CFG:\n    scheduler = "cosine"\n',
        'import argparse\nparser = argparse.ArgumentParser()\n'
        'parser.add_argument("--sched", default="cosine")\nopts = parser.parse_args()\n\n\n'
        'class CFG:\n').replace("CFG.scheduler ==", "opts.sched ==")
    assert "opts.sched ==" in source
    assert "LRD010" not in codes(source)


def test_cosine_with_early_stopping_in_the_fold_is_silent() -> None:
    source = PICKED_BY_CONFIG.replace(
        "                    sched.step()\n",
        "                    sched.step()\n                if opt.param_groups[0]['lr'] < 1e-5:"
        "\n                    break\n")
    assert "LRD010" not in codes(source)


def test_cosine_stepped_only_within_its_horizon_is_silent() -> None:
    source = PICKED_BY_CONFIG.replace(
        "                    sched.step()\n",
        "                    if epoch < CFG.t_max:\n                        sched.step()\n")
    assert "LRD010" not in codes(source)


def test_warm_restarts_picked_by_the_config_are_silent() -> None:
    source = PICKED_BY_CONFIG.replace("CosineAnnealingLR(opt, T_max=CFG.t_max,",
                                      "CosineAnnealingWarmRestarts(opt, T_0=CFG.t_max,").replace(
        "optim.lr_scheduler.CosineAnnealingLR):", "optim.lr_scheduler.CosineAnnealingWarmRestarts):")
    assert "CosineAnnealingLR" not in source
    assert "LRD010" not in codes(source)
