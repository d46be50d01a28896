"""``lrdoctor preview SPEC``: what a scheduler configuration does to the LR, before training.

The values are PyTorch's own: the SPEC (read by :mod:`lrdoctor.preview.spec`, never evaluated)
builds the real scheduler class on a throwaway one-parameter optimizer, which is then stepped as
a training loop would step it, per batch or per epoch. torch is imported only here, when a
preview is computed.

>>> curve = schedule("StepLR(step_size=2, gamma=0.5)", lr=1.0, epochs=3, steps_per_epoch=2,
...                  per="epoch")  # doctest: +SKIP
>>> curve.lrs  # doctest: +SKIP
[1.0, 1.0, 1.0, 1.0, 0.5, 0.5]
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from lrdoctor.preview.spec import Spec, SpecError, build, parse_spec, throwaway_optimizer

MAX_STEPS = 2_000_000

__all__ = ["Curve", "SpecError", "parse_spec", "schedule"]


@dataclass
class Curve:
    """``lrs[i]``: the LR (first param group) used by optimizer step ``i + 1``."""

    spec: Spec
    per: str  # "batch" | "epoch"
    lrs: list[float]
    scheduler_steps: int
    error: str | None = None  # what the scheduler raised, and when (the curve stops there)


def schedule(spec: str | Spec, lr: float, epochs: int, steps_per_epoch: int,
             per: str = "batch") -> Curve:
    """Step the real scheduler ``per`` batch or epoch for ``epochs * steps_per_epoch``
    optimizer steps and record the LR each optimizer step used."""
    if per not in ("batch", "epoch"):
        raise SpecError(f"--per must be batch, epoch or both, not {per!r}")
    if epochs < 1 or steps_per_epoch < 1:
        raise SpecError("--epochs and --steps-per-epoch must be at least 1")
    if epochs * steps_per_epoch > MAX_STEPS:
        raise SpecError(f"{epochs} x {steps_per_epoch} steps is more than the {MAX_STEPS:,} a "
                        "preview draws")
    if not lr > 0:
        raise SpecError(f"--lr must be positive, not {lr}")
    parsed = parse_spec(spec) if isinstance(spec, str) else spec
    optimizer = throwaway_optimizer(lr)
    lrs: list[float] = []
    steps = 0
    error = None
    with warnings.catch_warnings():
        # deprecation and call-order warnings are about a training loop, not this preview
        warnings.simplefilter("ignore")
        scheduler = build(parsed, optimizer)
        group = optimizer.param_groups[0]
        try:
            for _ in range(epochs):
                for _ in range(steps_per_epoch):
                    lrs.append(float(group["lr"]))
                    optimizer.step()
                    if per == "batch":
                        steps += 1
                        scheduler.step()
                if per == "epoch":
                    steps += 1
                    scheduler.step()
        except Exception as exc:
            message = " ".join(str(exc).split())
            error = (f"{parsed.name} raised {type(exc).__name__} at its scheduler step {steps} "
                     f"(after optimizer step {len(lrs)})" + (f": {message}" if message else ""))
    return Curve(parsed, per, lrs, steps, error)
