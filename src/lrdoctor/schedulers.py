"""What lrdoctor knows about each LR scheduler class, shared by ``check``, ``run`` and reports.

The key idea is the *horizon*: the number of scheduler steps after which a schedule has done
its work (a StepLR period, a cosine's T_max, OneCycleLR's total_steps, a plateau's patience).
Whether a scheduler is meant to be stepped per batch or per epoch is judged by comparing the
horizon with the number of steps in an epoch, not from the class name: ``StepLR(step_size=2 *
len(loader))`` stepped per batch is correct.

``design`` records what a class is built for when its constructor says nothing more:
``"batch"`` (OneCycleLR, CyclicLR: documented as stepped after every batch), ``"epoch"``, or
``"either"``.

>>> SCHEDULERS["StepLR"].horizon_params
(('step_size', 1),)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SchedulerKind:
    name: str
    # constructor parameters that size the horizon, with their positional index (optimizer = 0)
    horizon_params: tuple[tuple[str, int], ...]
    design: str = "either"  # "batch" | "epoch" | "either"
    cyclic: bool = False  # repeats by design: running past one period is not an overrun
    overrun: str = ""  # what happens past the horizon: "crash" | "rises" | "" (stays flat)
    composite: bool = False
    plateau: bool = False
    # the LR reaches (near) zero at the horizon, so an early horizon leaves training at LR ~0
    decays_to_floor: bool = False


SCHEDULERS: dict[str, SchedulerKind] = {
    k.name: k
    for k in [
        SchedulerKind("StepLR", (("step_size", 1),), decays_to_floor=False),
        SchedulerKind("MultiStepLR", (("milestones", 1),)),
        SchedulerKind("ExponentialLR", ()),
        SchedulerKind("CosineAnnealingLR", (("T_max", 1),), overrun="rises",
                      decays_to_floor=True),
        SchedulerKind("OneCycleLR", (("total_steps", 2), ("epochs", 3), ("steps_per_epoch", 4)),
                      design="batch", overrun="crash", decays_to_floor=True),
        SchedulerKind("CyclicLR", (("step_size_up", 3), ("step_size_down", 4)), design="batch",
                      cyclic=True),
        SchedulerKind("CosineAnnealingWarmRestarts", (("T_0", 1),), cyclic=True),
        SchedulerKind("LinearLR", (("total_iters", 3),)),
        SchedulerKind("ConstantLR", (("total_iters", 2),)),
        SchedulerKind("PolynomialLR", (("total_iters", 1),), decays_to_floor=True),
        SchedulerKind("ReduceLROnPlateau", (("patience", 3),), plateau=True),
        SchedulerKind("LambdaLR", ()),
        SchedulerKind("MultiplicativeLR", ()),
        SchedulerKind("SequentialLR", (("milestones", 2),), composite=True),
        SchedulerKind("ChainedScheduler", (), composite=True),
        SchedulerKind("SWALR", (("anneal_epochs", 3),)),
    ]
}

# Hugging Face / timm builders that return a LambdaLR sized in optimizer updates.
HF_WARMUP_BUILDERS = frozenset(
    {
        "get_linear_schedule_with_warmup",
        "get_cosine_schedule_with_warmup",
        "get_cosine_with_hard_restarts_schedule_with_warmup",
        "get_polynomial_decay_schedule_with_warmup",
        "get_inverse_sqrt_schedule",
        "get_constant_schedule_with_warmup",
        "get_wsd_schedule",
        "get_scheduler",
    }
)


def kind_of(obj: Any) -> SchedulerKind | None:
    """The known kind of a scheduler instance (walking its MRO, so subclasses inherit it)."""
    for cls in type(obj).__mro__:
        kind = SCHEDULERS.get(cls.__name__)
        if kind is not None and cls.__module__.startswith("torch.optim"):
            return kind
    return None


def runtime_horizon(sched: Any) -> int | None:
    """The horizon, in scheduler steps, read from a live scheduler instance (None if unknown).

    For StepLR it is one period (step_size); for MultiStepLR the last milestone; for
    OneCycleLR total_steps; for a plateau scheduler its patience.
    """
    kind = kind_of(sched)
    if kind is None:
        return None
    name = kind.name
    try:
        if name == "StepLR":
            return int(sched.step_size)
        if name == "MultiStepLR":
            return int(max(sched.milestones)) if sched.milestones else None
        if name == "CosineAnnealingLR":
            return int(sched.T_max)
        if name == "OneCycleLR":
            return int(sched.total_steps)
        if name == "CyclicLR":
            return int(round(float(sched.total_size)))
        if name == "CosineAnnealingWarmRestarts":
            return int(sched.T_0)
        if name in ("LinearLR", "ConstantLR", "PolynomialLR"):
            return int(sched.total_iters)
        if name == "ReduceLROnPlateau":
            return int(sched.patience) + 1
        if name == "SequentialLR":
            return int(sched._milestones[-1]) if sched._milestones else None
        if name == "SWALR":
            return int(sched.anneal_epochs)
    except (AttributeError, TypeError, ValueError):
        return None
    return None


def describe(sched: Any) -> str:
    """``StepLR(step_size=7)``-style label for reports."""
    kind = kind_of(sched)
    cls = type(sched).__name__
    if kind is None:
        return cls
    args = []
    for param, _ in kind.horizon_params:
        value = getattr(sched, param, None)
        if value is None and param == "milestones":
            value = getattr(sched, "_milestones", None)
        if param == "milestones" and value is not None:
            value = sorted(value)
        if value is not None and not callable(value):
            args.append(f"{param}={value}")
    if kind.name in ("ExponentialLR", "StepLR", "MultiStepLR") and hasattr(sched, "gamma"):
        args.append(f"gamma={sched.gamma:g}")
    if kind.name == "OneCycleLR" and not args:
        args.append(f"total_steps={getattr(sched, 'total_steps', '?')}")
    return f"{cls}({', '.join(args)})"
