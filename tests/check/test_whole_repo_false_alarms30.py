"""False alarms of fphunt44's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. A scheduler built ``sched_cls(opt, **sched_kwargs)`` where the mapping spread into it is
   made elsewhere (a builder function, another file) and gives ``last_epoch`` a value read
   from the resumed run (``{"step_size": 30, "last_epoch": start_epoch - 1}``): Python builds
   the scheduler at that position, so a checkpoint or a resume without the scheduler's state
   loses nothing (LRD007 looked for the ``last_epoch`` entry only in the function that builds
   the scheduler). In the same file the traced mapping is read; where the holder class sits
   in a file of its own, traced apart with its parameters unknown, the project's files are
   read for a mapping that holds ``last_epoch``. Still reported: the same programs whose
   mapping holds no ``last_epoch``, or the literal -1.
2. A LambdaLR whose factor is a rate raised to the counter (``lambda epoch: decay_per_step **
   epoch``): the base of that power is what one step multiplies the LR by, not a length of
   the schedule, so the word "step" in its name says nothing about what the counter counts
   (LRD003 read the horizon as batches from it and reported a once-per-epoch step). Still
   reported: a warm-up over ``warmup_steps`` and a decay whose exponent divides by
   ``total_steps``, stepped once per epoch.

Each has a control that must still be reported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# -- 1. a scheduler positioned by a mapping handed in -----------------------------------------

HOLDER = """
import torch


class OptimHolder:
    def __init__(self, model, sched_cls, sched_kwargs, opt_state=None):
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        if opt_state is not None:
            self.opt.load_state_dict(opt_state)
        self.sched = sched_cls(self.opt, **sched_kwargs)

    def state_dict(self):
        return self.opt.state_dict()

    def step(self):
        self.opt.step()

    def epoch_step(self):
        self.sched.step()
"""

DRIVER = """
import argparse

import torch
from torch.optim.lr_scheduler import StepLR


def make_holder(args, model, opt_state=None):
    kwargs = {"step_size": 30, "gamma": 0.1, "last_epoch": args.start_epoch - 1}
    return OptimHolder(model, StepLR, kwargs, opt_state)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    parser.add_argument("--start-epoch", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=90)
    args = parser.parse_args()
    model = torch.nn.Linear(4, 2)
    batches = [(torch.randn(8, 4), torch.randn(8, 2)) for _ in range(10)]
    if args.resume:
        ckpt = torch.load(args.resume)
        args.start_epoch = ckpt["epoch"]
        model.load_state_dict(ckpt["model"])
        holder = make_holder(args, model, ckpt["optimizer"])
    else:
        holder = make_holder(args, model)
    for epoch in range(args.start_epoch, args.epochs):
        for x, y in batches:
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            holder.step()
        holder.epoch_step()
        torch.save({"epoch": epoch + 1, "model": model.state_dict(),
                    "optimizer": holder.state_dict()}, "ckpt.pt")


if __name__ == "__main__":
    main()
"""

ONE_FILE = HOLDER + DRIVER.replace("import argparse\n", "import argparse\n", 1)
NO_POSITION = ', "last_epoch": args.start_epoch - 1'


def test_mapping_with_last_epoch_handed_to_the_constructor_is_silent() -> None:
    assert "LRD007" not in codes(ONE_FILE)


def test_mapping_without_last_epoch_is_still_lrd007() -> None:
    assert codes(ONE_FILE.replace(NO_POSITION, "")).count("LRD007") == 2


def test_mapping_with_last_epoch_minus_one_is_still_lrd007() -> None:
    fresh = ONE_FILE.replace(NO_POSITION, ', "last_epoch": -1')
    assert "LRD007" in codes(fresh)


def _project(text: str) -> dict[str, str]:
    return {"holder.py": HOLDER,
            "train.py": "from holder import OptimHolder\n" + text}


def test_holder_in_its_own_file_positioned_from_the_driver_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _project(DRIVER))
    assert "LRD007" not in project_codes(found)


def test_holder_in_its_own_file_without_a_position_is_still_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _project(DRIVER.replace(NO_POSITION, "")))
    assert ("holder.py", 9, "LRD007") in found
    assert any(path == "train.py" and code == "LRD007" for path, _, code in found)


# -- 2. a LambdaLR rate raised to the counter --------------------------------------------------

RATE = """
import torch


def train(model, batches, epochs, decay_per_step=0.5):
    opt = torch.optim.AdamW(model.parameters(), lr=3e-5)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda=lambda epoch: decay_per_step ** epoch)
    for epoch in range(epochs):
        for x, y in batches:
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
        sched.step()
"""


def test_rate_raised_to_the_counter_stepped_per_epoch_is_silent() -> None:
    assert "LRD003" not in codes(RATE)


def test_rate_from_a_setting_named_after_steps_is_silent() -> None:
    named = RATE.replace("decay_per_step=0.5", "cfg=None").replace(
        "decay_per_step ** epoch", 'cfg["every_step_unit"] ** epoch')
    assert "LRD003" not in codes(named)


def test_warmup_over_steps_stepped_per_epoch_is_still_lrd003() -> None:
    warm = RATE.replace("decay_per_step=0.5", "warmup_steps=500").replace(
        "lambda epoch: decay_per_step ** epoch", "lambda s: min(1.0, (s + 1) / warmup_steps)")
    assert "LRD003" in codes(warm)


def test_exponent_over_total_steps_stepped_per_epoch_is_still_lrd003() -> None:
    decay = RATE.replace("decay_per_step=0.5", "total_steps=10000").replace(
        "lambda epoch: decay_per_step ** epoch", "lambda s: 0.1 ** (s / total_steps)")
    assert "LRD003" in codes(decay)
