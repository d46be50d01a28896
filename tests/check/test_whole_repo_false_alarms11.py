"""Shapes met while checking whole repositories (fphunt19): the correct variant stays quiet and
the buggy neighbour is still reported. fphunt19 found no false alarm, so these guard what the
checker already gets right on code of these shapes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.check.helpers import check_project, messages, project_codes

# -- a warm-up wrapper around Adam, stepped through GradScaler, its count saved --------------

# The wrapper sets the LR from its own update count and is handed to `scaler.step(...)` (it
# exposes the inner optimizer's param_groups); the checkpoint keeps the inner Adam's state and
# the count, which the wrapper is rebuilt with. {clip} is the gradient clipping, {save_scaler}
# the scaler's entry in the checkpoint.
_WARMUP_WRAPPER = """
import sys

import torch


class WarmupRate:
    def __init__(self, inner, warmup, count):
        self.inner = inner
        self.warmup = warmup
        self.count = count

    @property
    def param_groups(self):
        return self.inner.param_groups

    def step(self):
        self.count += 1
        for group in self.inner.param_groups:
            group["lr"] = min(self.count ** -0.5, self.count * self.warmup ** -1.5)
        self.inner.step()

    def zero_grad(self):
        self.inner.zero_grad()


def main(net, batches, resume_from, max_norm):
    scaler = torch.amp.GradScaler("cuda")
    count = 0
    if resume_from:
        saved = torch.load(resume_from)
        count = saved["count"]
        net.load_state_dict(saved["net"])
    opt = WarmupRate(torch.optim.Adam(net.parameters(), lr=0.0), 4000, count)
    if resume_from:
        opt.inner.load_state_dict(saved["adam"])
        if "scaler" in saved:
            scaler.load_state_dict(saved["scaler"])
    for epoch in range(100):
        for x in batches:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = net(x).mean()
            scaler.scale(loss).backward()
{clip}
            scaler.step(opt)
            scaler.update()
        torch.save({{
            "count": opt.count,
            "net": net.state_dict(),
            "adam": opt.inner.state_dict(),
{save_scaler}
        }}, "epoch.pt")


main(torch.nn.Linear(4, 1), [], sys.argv[1], 1.0)
"""

_CLIP_UNSCALED = """\
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm)"""
_CLIP_SCALED = """\
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm)"""
_SAVES_SCALER = """\
            "scaler": scaler.state_dict(),"""


def test_a_warmup_wrapper_saved_with_its_count_and_the_scaler_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _WARMUP_WRAPPER.format(clip=_CLIP_UNSCALED, save_scaler=_SAVES_SCALER)
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": program})) == []


def test_a_warmup_wrapper_saved_without_the_scaler_is_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _WARMUP_WRAPPER.format(clip=_CLIP_UNSCALED, save_scaler="")
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": program})) \
        == ["LRD007"]


def test_clipping_the_scaled_gradients_of_a_warmup_wrapper_is_lrd108(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _WARMUP_WRAPPER.format(clip=_CLIP_SCALED, save_scaler=_SAVES_SCALER)
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": program})) \
        == ["LRD108"]


# -- a per-epoch decay rebuilt at the saved epoch (a GAN vocoder's loop) -------------------------

# Generator and discriminator, each with an ExponentialLR stepped once per epoch; the
# checkpoint keeps both optimizers and the epoch, not the schedulers. {sched} is how each
# scheduler is built ({opt} its optimizer).
_VOCODER_LOOP = """
import sys

import torch


def train(gen, disc, batches, resume_from, epochs):
    opt_g = torch.optim.AdamW(gen.parameters(), 2e-4, betas=(0.8, 0.99))
    opt_d = torch.optim.AdamW(disc.parameters(), 2e-4, betas=(0.8, 0.99))
    last_epoch = -1
    if resume_from:
        state = torch.load(resume_from)
        opt_g.load_state_dict(state["opt_g"])
        opt_d.load_state_dict(state["opt_d"])
        last_epoch = state["epoch"]
    sched_g = {sched_g}
    sched_d = {sched_d}
    for epoch in range(max(0, last_epoch), epochs):
        for x in batches:
            opt_d.zero_grad()
            disc(x).mean().backward()
            opt_d.step()
            opt_g.zero_grad()
            gen(x).mean().backward()
            opt_g.step()
        torch.save({{"opt_g": opt_g.state_dict(), "opt_d": opt_d.state_dict(),
                    "epoch": epoch}}, "ckpt.pt")
        sched_g.step()
        sched_d.step()


train(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1), [], sys.argv[1], 3100)
"""


def _vocoder(sched: str) -> str:
    return _VOCODER_LOOP.format(sched_g=sched.format(opt="opt_g"),
                                sched_d=sched.format(opt="opt_d"))


def test_epoch_decays_rebuilt_at_the_saved_epoch_are_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _vocoder("torch.optim.lr_scheduler.ExponentialLR({opt}, gamma=0.999, "
                       "last_epoch=last_epoch)")
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": program})) == []


def test_exponential_decays_carried_by_the_restored_optimizers_are_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the next LR is gamma times the one the optimizer's state brings back
    program = _vocoder("torch.optim.lr_scheduler.ExponentialLR({opt}, gamma=0.999)")
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": program})) == []


def test_cosine_schedules_restarted_on_resume_are_lrd007(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _vocoder("torch.optim.lr_scheduler.CosineAnnealingLR({opt}, T_max=epochs)")
    assert "LRD007" in project_codes(check_project(tmp_path, monkeypatch,
                                                   {"train.py": program}))


# -- a schedule picked by name, put at the batch index at the top of every batch -----------

# The schedule comes from the project's registry by the name in the config (its class is not
# in view) and is handed the global batch index before the update. {scaler_part} is the update.
_INDEXED_SCHEDULE = """
import sys

import torch

from recipes.schedules import build_schedule


def run_epoch(net, batches, optimizer, scheduler, scaler, epoch, per_epoch):
    for i, x in enumerate(batches):
        scheduler.step((epoch - 1) * per_epoch + i)
        with torch.autocast("cuda", enabled=scaler.is_enabled()):
            loss = net(x).mean()
        optimizer.zero_grad()
{scaler_part}


def main(net, batches, config):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    scheduler = build_schedule(config["scheduler"], optimizer, 150 * len(batches))
    scaler = torch.amp.GradScaler("cuda", enabled=config["use_amp"])
    for epoch in range(1, 151):
        run_epoch(net, batches, optimizer, scheduler, scaler, epoch, len(batches))


main(torch.nn.Linear(4, 1), [], {{"scheduler": sys.argv[1], "use_amp": sys.argv[2] == "1"}})
"""

_THROUGH_SCALER = """\
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()"""
_PLAIN = """\
        loss.backward()
        optimizer.step()"""


def test_an_indexed_schedule_with_plain_updates_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _INDEXED_SCHEDULE.format(scaler_part=_PLAIN)
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": program})) == []


def test_an_indexed_schedule_moved_on_skipped_scaler_updates_is_lrd005(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _INDEXED_SCHEDULE.format(scaler_part=_THROUGH_SCALER)
    assert project_codes(check_project(tmp_path, monkeypatch, {"train.py": program})) \
        == ["LRD005"]


# -- LRD005's message: PyTorch's warning is promised only for PyTorch's schedulers ------------

def test_the_lrd005_message_of_a_scheduler_not_in_view_makes_no_pytorch_promise() -> None:
    # wespeaker's case: the schedule is picked by name from the project's registry (its class
    # unseen, there its own): PyTorch's warning is mentioned only as what a torch scheduler does
    program = textwrap.dedent(_INDEXED_SCHEDULE.format(scaler_part=_THROUGH_SCALER))
    found = [m for m in messages(program) if "GradScaler skips" in m]
    assert len(found) == 1
    assert "(and PyTorch warns" not in found[0]
    assert "if it is one of PyTorch's schedulers, PyTorch also warns" in found[0]


def test_the_lrd005_message_of_a_torch_scheduler_names_pytorch_s_warning() -> None:
    program = textwrap.dedent(_INDEXED_SCHEDULE.format(scaler_part=_THROUGH_SCALER)).replace(
        'build_schedule(config["scheduler"], optimizer, 150 * len(batches))',
        "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: min(1.0, (it + 1) / 6000))",
    ).replace("scheduler.step((epoch - 1) * per_epoch + i)", "scheduler.step()")
    found = [m for m in messages(program) if "GradScaler skips" in m]
    assert len(found) == 1
    assert "(and PyTorch warns that lr_scheduler.step() came before optimizer.step())" \
        in found[0]
