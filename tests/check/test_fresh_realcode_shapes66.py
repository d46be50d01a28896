"""Shapes behind the dev miss of the fresh-2026-12yt batch (rcnew66, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- Gradient accumulation by hand under a GradScaler: ``scaler.unscale_(opt)`` runs only on the
  accumulation boundary (``(it + 1) % accum_steps == 0``), where ``scaler.step`` runs too, but
  the gradients are clipped after every micro-batch, outside that test. Between boundaries the
  clip acts on the partly accumulated gradients while they are still multiplied by the scale:
  LRD108. lrdoctor saw an unscale before the clip and, the test being no configuration flag,
  said nothing. Silent twins: the clip under the same test after the unscale (one ``if`` or two
  ``if``s of the same test), and the unscale and clip on every micro-batch with no accumulation.
- LRD005's message for a scheduler stepped with the scaler on that boundary said "runs every
  batch"; it runs after every update (the finding itself is unchanged).
"""

from __future__ import annotations

from .helpers import codes, findings, messages

ACCUMULATING = """
import torch
import torch.nn.functional as F


def fit(denoiser, batches, accum_steps=8, max_norm=1.0):
    opt = torch.optim.AdamW(denoiser.parameters(), lr=2e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda n: min(1.0, (n + 1) / 500))
    scaler = torch.amp.GradScaler("cuda")
    for it, (noisy, clean) in enumerate(batches):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.mse_loss(denoiser(noisy), clean) / accum_steps
        scaler.scale(loss).backward()
{clip_part}
        if (it + 1) % accum_steps == 0:
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()
            sched.step()
"""

CLIP_EVERY_MICRO_BATCH = """
        if (it + 1) % accum_steps == 0:
            scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(denoiser.parameters(), max_norm)
"""

CLIP_ON_THE_BOUNDARY = """
        if (it + 1) % accum_steps == 0:
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(denoiser.parameters(), max_norm)
"""

CLIP_UNDER_A_SECOND_IF = """
        if (it + 1) % accum_steps == 0:
            scaler.unscale_(opt)
        if (it + 1) % accum_steps == 0:
            torch.nn.utils.clip_grad_norm_(denoiser.parameters(), max_norm)
"""

NO_ACCUMULATION = """
import torch
import torch.nn.functional as F


def fit(denoiser, batches, max_norm=1.0):
    opt = torch.optim.AdamW(denoiser.parameters(), lr=2e-4)
    scaler = torch.amp.GradScaler("cuda")
    for noisy, clean in batches:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.mse_loss(denoiser(noisy), clean)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(denoiser.parameters(), max_norm)
        scaler.step(opt)
        scaler.update()
"""


def _program(clip_part: str) -> str:
    return ACCUMULATING.replace("{clip_part}", clip_part.strip("\n"))


def test_clip_on_every_micro_batch_with_unscale_on_the_boundary() -> None:
    source = _program(CLIP_EVERY_MICRO_BATCH)
    assert ("LRD108", 16) in findings(source)
    assert any("accumulation boundary" in m and "(it + 1) % accum_steps == 0" in m
               for m in messages(source))


def test_clip_after_the_unscale_on_the_boundary_is_silent() -> None:
    assert "LRD108" not in codes(_program(CLIP_ON_THE_BOUNDARY))


def test_clip_under_a_second_if_of_the_same_test_is_silent() -> None:
    assert "LRD108" not in codes(_program(CLIP_UNDER_A_SECOND_IF))


def test_unscale_and_clip_on_every_batch_without_accumulation_is_silent() -> None:
    assert "LRD108" not in codes(NO_ACCUMULATION)


NAMED_BOUNDARY_TRAINER = """
import torch
import torch.nn.functional as F


class Fitter:
    def __init__(self, net, accum_steps=4):
        self.net = net
        self.accum_steps = accum_steps
        self.opt = torch.optim.AdamW(net.parameters(), lr=1e-4)
        self.scaler = torch.amp.GradScaler("cuda")

    def run(self, batches):
        for n, (x, y) in enumerate(batches):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(self.net(x), y) / self.accum_steps
            self.scaler.scale(loss).backward()
            ready = (n + 1) % self.accum_steps == 0
            if ready:
                self.scaler.unscale_(self.opt)
            torch.nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)
            if ready:
                self.scaler.step(self.opt)
                self.scaler.update()
                self.opt.zero_grad()
"""


def test_boundary_through_a_name_in_a_trainer_method() -> None:
    assert ("LRD108", 21) in findings(NAMED_BOUNDARY_TRAINER)
    assert any("accumulation boundary (`ready`)" in m for m in messages(NAMED_BOUNDARY_TRAINER))


def test_clip_under_the_named_boundary_is_silent() -> None:
    fixed = NAMED_BOUNDARY_TRAINER.replace(
        "                self.scaler.unscale_(self.opt)\n"
        "            torch.nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)\n",
        "                self.scaler.unscale_(self.opt)\n"
        "                torch.nn.utils.clip_grad_norm_(self.net.parameters(), 0.5)\n")
    assert fixed != NAMED_BOUNDARY_TRAINER
    assert "LRD108" not in codes(fixed)


def test_scheduler_on_the_boundary_is_described_as_per_update() -> None:
    """The scheduler steps with the scaler on the accumulation boundary: LRD005 stands (a
    skipped update still advances it) and says it runs after every update, not every batch."""
    source = _program(CLIP_ON_THE_BOUNDARY)
    lrd005 = [m for m in messages(source) if "even when GradScaler skips" in m]
    assert len(lrd005) == 1
    assert "runs after every update (`(it + 1) % accum_steps == 0`)" in lrd005[0]
    assert "every batch" not in lrd005[0]
