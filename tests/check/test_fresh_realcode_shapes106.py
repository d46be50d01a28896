"""Shapes seen in the fresh-2026-12zze104 batch (rcnew104, bench/realcode/README.md):
checkpoint and resume in LLM and transformer training code.

Programs written for these tests; no third-party code.

- A call written as a statement of its own that is handed the optimizer and the scheduler
  (``run_benchmark(model, optimizer, scheduler)``, a helper of a module not in view) was taken
  for a wrapper scheduler built around them (as ``GradualWarmupScheduler(optimizer, ...,
  after_scheduler=cosine)`` is), so every rule left that scheduler to the "wrapper": a
  checkpoint without it and a resume that never restores it went unreported. What such a call
  returns is dropped on the spot, so it wraps nothing that steps later. It is still a use of
  the scheduler by code lrdoctor cannot read, which may save or restore its state, so LRD007
  stays silent where that call can run with the checkpoint; a call in a branch that leaves
  before the resume and the training (``if cfg.profile: profile(...); return``) cannot.
- A GradScaler switched by a local name compared with literals (``enabled=(dtype ==
  "float16")``) was left unknown, as a name may be picked from the hardware (nanoGPT's
  ``"bfloat16" if torch.cuda.is_bf16_supported() else "float16"``). Where every binding of that
  name reads the user's configuration (``dtype = args.dtype``, ``cfg.get(...)``,
  ``os.environ.get(...)``, ``locals().get(...)`` after an ``exec`` of a configuration file into
  the module), the scaler is switched by that setting, as with ``args.dtype == "float16"``.
- ``asdict(TrainState(step, model.state_dict(), opt.state_dict()))`` written in place: the
  instance's fields are what is saved, as when the instance is bound to a name first.
- Other shapes of the batch's theme (Accelerate's ``save_state`` with the scheduler prepared,
  registered or neither, checkpoints built by helpers, resumes that fast-forward or rebuild
  the schedule, per-file Hugging Face style checkpoints): lrdoctor already followed them;
  the tests keep it so, each with a correct twin.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, findings, messages

# -- a dropped call handed the optimizer and scheduler ----------------------------------------

PROFILE_THEN_TRAIN = '''
import torch
from profiling_helpers import profile_steps
from torch.optim.lr_scheduler import LambdaLR


def train(args, model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LambdaLR(opt, lambda s: min(1.0, (s + 1) / 100))
    if args.profile:
        profile_steps(model, loader, opt, sched, steps=20)
        return
    start = 0
    if args.resume:
        ck = torch.load(args.resume)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start = ck["step"]
    for step, (x, y) in enumerate(loader, start):
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        if step % 100 == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step},
                       "ck.pt")
'''


def test_profiling_branch_that_returns_does_not_hide_the_lost_schedule() -> None:
    assert findings(PROFILE_THEN_TRAIN) == [("LRD007", 17), ("LRD007", 25)]


def test_profiling_call_that_falls_through_keeps_lrdoctor_silent() -> None:
    # the helper runs before the resume and the training of the same run: it may save or
    # restore the schedule there, so its loss is not certain
    source = PROFILE_THEN_TRAIN.replace("        return\n", "")
    assert source != PROFILE_THEN_TRAIN
    assert codes(source) == []


def test_profiling_branch_with_the_schedule_saved_and_restored_is_silent() -> None:
    source = PROFILE_THEN_TRAIN.replace(
        '        opt.load_state_dict(ck["opt"])\n',
        '        opt.load_state_dict(ck["opt"])\n        sched.load_state_dict(ck["sched"])\n',
    ).replace('"opt": opt.state_dict(), "step": step}',
              '"opt": opt.state_dict(), "sched": sched.state_dict(), "step": step}')
    assert codes(source) == []


RESTORED_BY_A_HELPER = '''
import torch
from torch.optim.lr_scheduler import LambdaLR
from resume_helpers import restore_schedule


def train(args, model, loader):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LambdaLR(opt, lambda s: min(1.0, (s + 1) / 1000))
    start = 0
    if args.resume:
        ck = torch.load(args.resume)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        restore_schedule(opt, sched, ck)
        start = ck["step"]
    for step, (x, y) in enumerate(loader, start):
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        sched.step()
        opt.zero_grad()
'''


def test_schedule_handed_to_an_unseen_restore_helper_is_silent() -> None:
    assert codes(RESTORED_BY_A_HELPER) == []


PRINTED_THEN_STEPPED_PER_EPOCH = '''
import torch
from torch.optim.lr_scheduler import OneCycleLR


def train(model, loader, epochs):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = OneCycleLR(opt, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(loader))
    print("optimizer", opt, "scheduler", sched)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
'''


def test_scheduler_printed_beside_its_optimizer_is_still_judged() -> None:
    assert codes(PRINTED_THEN_STEPPED_PER_EPOCH) == ["LRD003"]


def test_scheduler_printed_and_stepped_per_batch_is_silent() -> None:
    source = PRINTED_THEN_STEPPED_PER_EPOCH.replace(
        "            opt.step()\n        sched.step()\n",
        "            opt.step()\n            sched.step()\n")
    assert source != PRINTED_THEN_STEPPED_PER_EPOCH
    assert codes(source) == []


KEPT_WRAPPER = '''
import torch
from warmup_scheduler import GradualWarmupScheduler
from torch.optim.lr_scheduler import CosineAnnealingLR


def train(model, loader, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    cosine = CosineAnnealingLR(opt, T_max=epochs)
    sched = GradualWarmupScheduler(opt, multiplier=1, total_epoch=5, after_scheduler=cosine)
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            opt.step()
        sched.step()
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                    "scheduler": sched.state_dict()}, "last.pt")
'''


def test_kept_wrapper_still_owns_the_scheduler_it_wraps() -> None:
    assert codes(KEPT_WRAPPER) == []


CKPT_MODULE = '''
import torch


def save_checkpoint(path, epoch, model, optim):
    torch.save({"epoch": epoch, "model": model.state_dict(), "optim": optim.state_dict()},
               path)


def load_checkpoint(path):
    return torch.load(path)
'''

NOAM_MODULE = '''
from torch.optim.lr_scheduler import _LRScheduler


class InverseSqrt(_LRScheduler):
    def __init__(self, optimizer, warmup):
        self.warmup = warmup
        super().__init__(optimizer)

    def get_lr(self):
        n = max(1, self.last_epoch)
        factor = self.warmup ** 0.5 * min(n ** -0.5, n * self.warmup ** -1.5)
        return [base * factor for base in self.base_lrs]
'''

TRANSLATION_DRIVER = '''
import torch
from torch import nn
from ckpt import save_checkpoint, load_checkpoint
from lr import InverseSqrt
from mfu import estimate_mfu


def train(cfg, loader):
    model = nn.Transformer(d_model=64, nhead=2)
    optim = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    lr_scheduler = InverseSqrt(optim, cfg.warmup)
    if cfg.estimate_mfu:
        estimate_mfu(model, cfg, loader, optim, lr_scheduler)
        return
    epoch0 = 0
    if cfg.load_path:
        state = load_checkpoint(cfg.load_path)
        model.load_state_dict(state["model"])
        optim.load_state_dict(state["optim"])
        epoch0 = state["epoch"]
    for epoch in range(epoch0, epoch0 + cfg.epochs):
        for step, (src, tgt) in enumerate(loader):
            loss = model(src, tgt).pow(2).mean()
            loss.backward()
            optim.step()
            lr_scheduler.step()
            optim.zero_grad(set_to_none=True)
            if step % cfg.every == 0:
                save_checkpoint(cfg.save_path, epoch, model, optim)
'''


def test_translation_trainer_losing_its_inverse_sqrt_schedule_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "src/ckpt.py": CKPT_MODULE, "src/lr.py": NOAM_MODULE, "src/train.py": TRANSLATION_DRIVER,
    })
    assert sorted(found) == [("src/ckpt.py", 6, "LRD007"), ("src/train.py", 20, "LRD007")]


def test_translation_trainer_saving_its_schedule_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ckpt = CKPT_MODULE.replace("def save_checkpoint(path, epoch, model, optim):",
                               "def save_checkpoint(path, epoch, model, optim, sched):").replace(
        '"optim": optim.state_dict()}', '"optim": optim.state_dict(),\n'
        '                "sched": sched.state_dict()}')
    driver = TRANSLATION_DRIVER.replace(
        '        optim.load_state_dict(state["optim"])\n',
        '        optim.load_state_dict(state["optim"])\n'
        '        lr_scheduler.load_state_dict(state["sched"])\n').replace(
        "save_checkpoint(cfg.save_path, epoch, model, optim)",
        "save_checkpoint(cfg.save_path, epoch, model, optim, lr_scheduler)")
    found = check_project(tmp_path, monkeypatch, {
        "src/ckpt.py": ckpt, "src/lr.py": NOAM_MODULE, "src/train.py": driver,
    })
    assert found == []


# -- a GradScaler switched by a local name bound to a setting ----------------------------------

DTYPE_FROM_ARGS = '''
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--dtype", default="bfloat16", choices=["float32", "bfloat16", "float16"])
args = parser.parse_args()
dtype = args.dtype
model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
scaler = torch.amp.GradScaler("cuda", enabled=(dtype == "float16"))
for it in range(10000):
    x = torch.randn(4, 8, device="cuda")
    with torch.autocast("cuda", dtype=getattr(torch, dtype)):
        loss = model(x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    if it % 1000 == 0:
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "it": it},
                   "ckpt.pt")
'''


def test_scaler_switched_by_a_name_bound_to_an_argument_is_found() -> None:
    assert findings(DTYPE_FROM_ARGS) == [("LRD007", 21)]
    assert "when `dtype == 'float16'` holds" in messages(DTYPE_FROM_ARGS)[0]


def test_scaler_switched_by_a_name_bound_to_the_environment_is_found() -> None:
    source = DTYPE_FROM_ARGS.replace("dtype = args.dtype",
                                     'dtype = os.environ.get("TRAIN_DTYPE", "bfloat16")').replace(
        "import argparse\n", "import argparse\nimport os\n")
    assert codes(source) == ["LRD007"]


def test_scaler_with_its_state_saved_is_silent() -> None:
    source = DTYPE_FROM_ARGS.replace('"optimizer": optimizer.state_dict(), "it": it}',
                                     '"optimizer": optimizer.state_dict(),\n'
                                     '                    "scaler": scaler.state_dict(), "it": it}')
    assert codes(source) == []


def test_scaler_switched_by_a_literal_dtype_is_silent() -> None:
    source = DTYPE_FROM_ARGS.replace("dtype = args.dtype", 'dtype = "bfloat16"')
    assert codes(source) == []


def test_scaler_switched_by_a_dtype_picked_from_the_hardware_is_silent() -> None:
    # rebound from the hardware when the user leaves it to `auto`: when float16 runs is
    # not the user's setting alone
    source = DTYPE_FROM_ARGS.replace(
        "dtype = args.dtype\n",
        'dtype = args.dtype\nif dtype == "auto":\n'
        '    dtype = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"\n')
    assert codes(source) == []


def test_nanogpt_hardware_dtype_stays_silent() -> None:
    source = DTYPE_FROM_ARGS.replace(
        "dtype = args.dtype",
        "dtype = 'bfloat16' if torch.cuda.is_available() and torch.cuda.is_bf16_supported() "
        "else 'float16'")
    assert codes(source) == []


CONFIG_EXECUTED = '''
import sys
import torch
from torch.amp import GradScaler

with open(sys.argv[1]) as f:
    exec(f.read(), globals())

dtype = locals().get("dtype", "float32")
max_iters = locals().get("max_iters", 1000)
init_from = locals().get("init_from", "scratch")

model = torch.nn.Linear(4, 4).cuda()
scaler = GradScaler(device="cuda", enabled=(dtype == "float16"))
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
iter_num = 0
if init_from == "resume":
    ckpt = torch.load("out/ckpt.pt")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    iter_num = ckpt["iter_num"]
while iter_num < max_iters:
    x = torch.randn(8, 4, device="cuda")
    with torch.autocast("cuda", dtype=torch.float16, enabled=(dtype == "float16")):
        loss = model(x).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    iter_num += 1
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
            "iter_num": iter_num}, "out/ckpt.pt")
'''


def test_dtype_read_back_after_an_executed_config_switches_the_scaler() -> None:
    assert findings(CONFIG_EXECUTED) == [("LRD007", 31)]


def test_dtype_read_back_without_an_executed_config_stays_silent() -> None:
    # no exec: `locals().get` reads what the module itself bound, here nothing (float32)
    source = CONFIG_EXECUTED.replace("with open(sys.argv[1]) as f:\n"
                                     "    exec(f.read(), globals())\n", "")
    assert source != CONFIG_EXECUTED
    assert codes(source) == []


PRECISION_FROM_CONFIG = '''
import torch
from transformers import get_cosine_schedule_with_warmup


def train(cfg, model, loader):
    precision = cfg.get("precision", "bf16")
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    sched = get_cosine_schedule_with_warmup(opt, cfg["warmup"], cfg["steps"])
    scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")
    for batch in loader:
        dtype = torch.float16 if precision == "fp16" else torch.bfloat16
        with torch.autocast("cuda", dtype=dtype):
            loss = model(**batch).loss
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        sched.step()
        opt.zero_grad()
'''


def test_scheduler_stepping_past_skips_of_a_configured_scaler_is_found() -> None:
    assert codes(PRECISION_FROM_CONFIG) == ["LRD005"]


def test_scaler_of_a_precision_rebound_in_the_loop_stays_silent() -> None:
    source = PRECISION_FROM_CONFIG.replace(
        "    for batch in loader:\n",
        "    for batch in loader:\n        precision = pick_precision(batch)\n")
    assert codes(source) == []


# -- asdict() of an instance built in place ---------------------------------------------------

STATE_RECORD = '''
from dataclasses import asdict, dataclass
from typing import Any

import torch
from torch.optim.lr_scheduler import LambdaLR


@dataclass
class TrainState:
    step: int
    model: Any
    optimizer: Any


def train(model, loader, total):
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    sched = LambdaLR(opt, lambda s: 1 - s / total)
    for step, (x, y) in enumerate(loader):
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        if step % 100 == 0:
            torch.save(asdict(TrainState(step, model.state_dict(), opt.state_dict())), "s.pt")
'''


def test_asdict_of_a_record_built_in_place_is_judged() -> None:
    assert findings(STATE_RECORD) == [("LRD007", 25)]


def test_asdict_of_a_record_built_in_place_with_keywords_is_judged() -> None:
    source = STATE_RECORD.replace(
        "TrainState(step, model.state_dict(), opt.state_dict())",
        "TrainState(step=step, model=model.state_dict(), optimizer=opt.state_dict())")
    assert codes(source) == ["LRD007"]


def test_asdict_of_a_record_with_the_scheduler_is_silent() -> None:
    source = STATE_RECORD.replace("    optimizer: Any\n",
                                  "    optimizer: Any\n    scheduler: Any\n").replace(
        "TrainState(step, model.state_dict(), opt.state_dict())",
        "TrainState(step, model.state_dict(), opt.state_dict(), sched.state_dict())")
    assert codes(source) == []


# -- the batch's other spellings, already followed --------------------------------------------

ACCELERATE_SAVE_STATE = '''
import torch
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup


def main(model, loader, steps, out):
    acc = Accelerator()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-4)
    sched = get_cosine_schedule_with_warmup(opt, 100, steps)
    model, opt, loader = acc.prepare(model, opt, loader)
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        acc.backward(loss)
        opt.step()
        sched.step()
        opt.zero_grad()
        if step % 500 == 0:
            acc.save_state(f"{out}/step_{step}")
'''


def test_accelerate_state_without_the_scheduler_is_found() -> None:
    assert codes(ACCELERATE_SAVE_STATE) == ["LRD007"]


@pytest.mark.parametrize("handed", [
    "model, opt, loader, sched = acc.prepare(model, opt, loader, sched)",
    "model, opt, loader = acc.prepare(model, opt, loader)\n    acc.register_for_checkpointing(sched)",
])
def test_accelerate_state_with_the_scheduler_is_silent(handed: str) -> None:
    source = ACCELERATE_SAVE_STATE.replace(
        "model, opt, loader = acc.prepare(model, opt, loader)", handed)
    assert codes(source) == []


RESUME_SKIPPING_STEPS = '''
import argparse
import torch
from transformers import get_linear_schedule_with_warmup

p = argparse.ArgumentParser()
p.add_argument("--resume", default="")
p.add_argument("--max_steps", type=int, default=10000)
args = p.parse_args()

model = torch.nn.Linear(8, 8)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
sched = get_linear_schedule_with_warmup(opt, 500, args.max_steps)
start = 0
if args.resume:
    ck = torch.load(args.resume)
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["opt"])
    start = ck["step"] + 1
for step in range(start, args.max_steps):
    loss = model(torch.randn(4, 8)).pow(2).mean()
    loss.backward()
    opt.step()
    sched.step()
    opt.zero_grad()
    if step % 1000 == 0:
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict(), "step": step}, "ck.pt")
'''


def test_resume_that_skips_to_the_saved_step_without_the_schedule_is_found() -> None:
    assert findings(RESUME_SKIPPING_STEPS) == [("LRD007", 18)]


@pytest.mark.parametrize("restore", [
    '    sched.load_state_dict(ck["sched"])\n    start = ck["step"] + 1\n',
    '    start = ck["step"] + 1\n    for _ in range(start):\n        sched.step()\n',
])
def test_resume_that_restores_or_replays_the_schedule_is_silent(restore: str) -> None:
    source = RESUME_SKIPPING_STEPS.replace('    start = ck["step"] + 1\n', restore)
    assert source != RESUME_SKIPPING_STEPS
    assert codes(source) == []


PER_FILE_CHECKPOINT = '''
import os
import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM, get_cosine_schedule_with_warmup


def run(name, loader, steps, out):
    model = get_peft_model(AutoModelForCausalLM.from_pretrained(name), LoraConfig(r=8))
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=2e-4)
    sched = get_cosine_schedule_with_warmup(opt, 100, steps)
    for step, batch in enumerate(loader):
        model(**batch).loss.backward()
        opt.step()
        sched.step()
        opt.zero_grad()
        if step % 200 == 0:
            d = os.path.join(out, f"checkpoint-{step}")
            model.save_pretrained(d)
            torch.save(opt.state_dict(), os.path.join(d, "optimizer.pt"))
            torch.save(sched.state_dict(), os.path.join(d, "scheduler.pt"))
'''


def test_per_file_checkpoint_with_the_scheduler_file_is_silent() -> None:
    assert codes(PER_FILE_CHECKPOINT) == []


def test_per_file_checkpoint_without_the_scheduler_file_is_found() -> None:
    source = PER_FILE_CHECKPOINT.replace(
        '            torch.save(sched.state_dict(), os.path.join(d, "scheduler.pt"))\n', "")
    assert source != PER_FILE_CHECKPOINT
    assert codes(source) == ["LRD007"]
