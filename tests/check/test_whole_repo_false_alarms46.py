"""fphunt57: false alarms found on recent training code (2024-2026: ``torch.amp``
GradScaler / autocast, compiled models, several optimizers, hand-written schedules), each
fixed by semantics. Every false shape, written here in our own words, must be silent; a
buggy twin must still be reported.

1. (real code) A GradScaler built in the body of a ``main()`` that is called under ``if
   __name__ == "__main__":``, and a periodic save that tests it: ``if scaler is not None:
   save_with_scaler(...)`` / ``else: save_without_scaler(...)``. A constructed object is
   never None, so the ``else`` branch never runs; lrdoctor decided such a test only for an
   object built under no condition at all, and every object built inside the ``__main__``
   guard (or any other ``if``) counted as "maybe None", so the save without the scaler was
   taken as reachable: LRD007. An object built on a branch is still there wherever a test
   runs on that same branch (every condition it was built under holds at the test): the test
   is decided there. A test that picks the save without the scaler while the scaler exists
   is still LRD007.

2. (probe, a miss) An LR held as a tensor (``AdamW(..., lr=torch.tensor(3e-4))``, the
   spelling that lets a compiled optimizer step take a changing LR without recompiling)
   written in place by hand: ``group["lr"].fill_(lr_at(it))``. PyTorch's own schedulers
   write a tensor LR the same way; for lrdoctor only ``group["lr"] = ...`` was an LR write,
   so a hand-written schedule fighting a chainable scheduler on the same optimizer went
   unreported. ``fill_`` / ``copy_`` (and the in-place arithmetic methods) on a param group's
   ``"lr"`` are LR writes: LRD008 beside a LinearLR; alone, or handing over to the scheduler
   after the warm-up, silent as the assignment is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# {build}: how the scaler is made; {test}: the test choosing the save; {first} / {second}:
# what the two saves hold besides the model and the optimizer
_PERIODIC = """
import torch


def main(use_amp, steps=1000):
    net = torch.nn.Linear(16, 4)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    {build}
    for it in range(steps):
        with torch.amp.autocast(device_type="cuda", dtype=torch.float16, enabled=use_amp):
            loss = net(torch.randn(8, 16)).square().mean()
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if it % 200 == 0:
            if {test}:
                torch.save({{"net": net.state_dict(), "opt": opt.state_dict(){first}}}, "ck.pt")
            else:
                torch.save({{"net": net.state_dict(), "opt": opt.state_dict(){second}}}, "ck.pt")


if __name__ == "__main__":
    main(torch.cuda.is_available())
"""

_WITH = ', "scaler": scaler.state_dict()'


def periodic(build: str = "scaler = torch.amp.GradScaler(enabled=use_amp)",
             test: str = "scaler is not None", first: str = _WITH, second: str = "") -> str:
    return _PERIODIC.format(build=build, test=test, first=first, second=second)


def test_scaler_tested_against_none_under_the_main_guard_is_silent() -> None:
    assert "LRD007" not in codes(periodic())


def test_plain_scaler_tested_against_none_under_the_main_guard_is_silent() -> None:
    assert "LRD007" not in codes(periodic(build="scaler = torch.amp.GradScaler(\"cuda\")"))


def test_negated_none_test_is_silent() -> None:
    found = codes(periodic(test="not scaler is None"))
    assert "LRD007" not in found


def test_inverted_none_test_saving_without_the_scaler_is_still_found() -> None:
    # `scaler is None` never holds: the `else` save, without the scaler, is the one that runs
    assert "LRD007" in codes(periodic(test="scaler is None"))


def test_taken_branch_without_the_scaler_is_still_found() -> None:
    assert "LRD007" in codes(periodic(first="", second=_WITH))


def test_scaler_that_may_be_none_keeps_both_saves_reachable() -> None:
    # `GradScaler() if use_amp else None`: the test is not decided, both saves are offered;
    # the one without the scaler runs only when there is none (not a finding either way)
    found = codes(periodic(build="scaler = torch.amp.GradScaler() if use_amp else None"))
    assert found.count("LRD007") <= 1


_CKPT = """
import torch


def save_plain(net, opt, it, out):
    torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "it": it}, out)


def save_amp(net, opt, scaler, it, out):
    torch.save({"net": net.state_dict(), "opt": opt.state_dict(),
                "scaler": scaler.state_dict(), "it": it}, out)
"""

_TRAIN = """
import torch

from ckpt import save_amp, save_plain


def run(cfg):
    net = torch.nn.Linear(16, 4)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg["lr"])
    scaler = torch.amp.GradScaler(enabled=cfg["amp"])
    for it in range(cfg["steps"]):
        with torch.amp.autocast(device_type="cuda", enabled=cfg["amp"]):
            loss = net(torch.randn(8, 16)).square().mean()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        if (it + 1) % cfg["every"] == 0:
            if {test}:
                save_amp(net, opt, scaler, it + 1, "ck.pt")
            else:
                save_plain(net, opt, it + 1, "ck.pt")


if __name__ == "__main__":
    run({{"lr": 1e-3, "amp": True, "steps": 100, "every": 10}})
"""


def test_helper_save_behind_a_decided_none_test_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch,
                          {"ckpt.py": _CKPT, "train.py": _TRAIN.format(test="scaler is not None")})
    assert "LRD007" not in project_codes(found)


def test_helper_save_without_the_scaler_picked_by_the_test_is_still_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch,
                          {"ckpt.py": _CKPT, "train.py": _TRAIN.format(test="scaler is None")})
    assert "LRD007" in project_codes(found)


_TENSOR_LR = """
import torch
from torch.optim.lr_scheduler import LinearLR

net = torch.nn.Linear(16, 4)
opt = torch.optim.AdamW(net.parameters(), lr=torch.tensor(3e-4), fused=True)
steps, warm = 4000, 200
{sched}


def lr_at(it):
    return 3e-4 * min(1.0, (it + 1) / warm)


for it in range(steps):
{write}
    net(torch.randn(8, 16)).square().mean().backward()
    opt.step()
{step}
    opt.zero_grad(set_to_none=True)
"""

_FILL = """    for group in opt.param_groups:
        group["lr"].fill_(lr_at(it))"""


def tensor_lr(sched: str = "sched = LinearLR(opt, start_factor=1.0, end_factor=0.1, total_iters=steps)",
              write: str = _FILL, step: str = "    sched.step()") -> str:
    return _TENSOR_LR.format(sched=sched, write=write, step=step)


def test_tensor_lr_filled_in_place_beside_a_linear_schedule_is_found() -> None:
    assert "LRD008" in codes(tensor_lr())


def test_tensor_lr_copied_in_place_beside_a_linear_schedule_is_found() -> None:
    write = """    for group in opt.param_groups:
        group["lr"].copy_(torch.tensor(lr_at(it)))"""
    assert "LRD008" in codes(tensor_lr(write=write))


def test_tensor_lr_filled_in_place_without_a_scheduler_is_silent() -> None:
    assert codes(tensor_lr(sched="", step="")) == []


def test_tensor_lr_warm_up_handing_over_to_the_scheduler_is_silent() -> None:
    write = """    warming = it < warm
    if warming:
        for group in opt.param_groups:
            group["lr"].fill_(lr_at(it))"""
    step = """    if warming:
        pass
    else:
        sched.step()"""
    assert "LRD008" not in codes(tensor_lr(write=write, step=step))
