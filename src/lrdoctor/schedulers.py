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

import copy
import functools
import math
import time
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
    # each step multiplies the LR already in the param group (PyTorch's chainable form), so two
    # such schedulers stepped back to back compose exactly as ChainedScheduler would; the
    # others recompute the LR from their base values and erase what another scheduler did
    chainable: bool = False
    # the words in the names of its arguments say the horizon's unit (`T_max=num_epochs`).
    # False where the class's own parameters carry a unit word that its users are told to
    # ignore: Lightning Bolts' `LinearWarmupCosineAnnealingLR(warmup_epochs, max_epochs)` is
    # documented to be stepped after every iteration, its "epochs" then counting iterations,
    # so `max_epochs=cfg.max_epochs` says nothing; only what the value is computed from does
    unit_in_names: bool = True
    # the module that defines the class: torch's, or the library a project imports it from
    library: str = "torch.optim.lr_scheduler"


SCHEDULERS: dict[str, SchedulerKind] = {
    k.name: k
    for k in [
        SchedulerKind("StepLR", (("step_size", 1),), decays_to_floor=False, chainable=True),
        SchedulerKind("MultiStepLR", (("milestones", 1),), chainable=True),
        SchedulerKind("ExponentialLR", (), chainable=True),
        SchedulerKind("CosineAnnealingLR", (("T_max", 1),), overrun="rises",
                      decays_to_floor=True, chainable=True),
        SchedulerKind("OneCycleLR", (("total_steps", 2), ("epochs", 3), ("steps_per_epoch", 4)),
                      design="batch", overrun="crash", decays_to_floor=True),
        SchedulerKind("CyclicLR", (("step_size_up", 3), ("step_size_down", 4)), design="batch",
                      cyclic=True),
        SchedulerKind("CosineAnnealingWarmRestarts", (("T_0", 1),), cyclic=True),
        SchedulerKind("LinearLR", (("total_iters", 3),), chainable=True),
        SchedulerKind("ConstantLR", (("total_iters", 2),), chainable=True),
        SchedulerKind("PolynomialLR", (("total_iters", 1),), decays_to_floor=True, chainable=True),
        SchedulerKind("ReduceLROnPlateau", (("patience", 3),), plateau=True, chainable=True),
        SchedulerKind("LambdaLR", ()),
        SchedulerKind("MultiplicativeLR", (), chainable=True),
        SchedulerKind("SequentialLR", (("milestones", 2),), composite=True),
        SchedulerKind("ChainedScheduler", (), composite=True),
        SchedulerKind("SWALR", (("anneal_epochs", 3),)),
        # pl_bolts.optimizers.lr_scheduler (and the many projects that import it): a linear
        # warm-up over `warmup_epochs` steps, then a cosine to `eta_min` at `max_epochs`,
        # which bends back up past it; its get_lr() moves the LR already in the param group
        SchedulerKind("LinearWarmupCosineAnnealingLR", (("max_epochs", 2), ("warmup_epochs", 1)),
                      overrun="rises", decays_to_floor=True, chainable=True,
                      unit_in_names=False, library="pl_bolts.optimizers.lr_scheduler"),
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


@dataclass(frozen=True)
class LambdaShape:
    """What a LambdaLR's factor does over the steps, read from a known builder's arguments
    (``transformers.get_*_schedule_with_warmup``) or found by probing a throwaway copy."""

    # first step at which the factor reaches its floor (0, or a minimum it then keeps)
    horizon: int | None
    warmup: int | None  # step at which a rising start first reaches the peak
    rises_after: bool = False  # past the horizon the factor climbs again (an unclamped cosine)
    builder: str | None = None  # the transformers function that built it
    params: tuple[tuple[str, Any], ...] = ()


# transformers' factor functions (partials with keyword arguments since 4.3x), the builder that
# makes each, and whether the factor climbs again past num_training_steps
_HF_LAMBDAS: dict[str, tuple[str, bool | None]] = {
    "_get_linear_schedule_with_warmup_lr_lambda": ("get_linear_schedule_with_warmup", False),
    "_get_cosine_schedule_with_warmup_lr_lambda": ("get_cosine_schedule_with_warmup", True),
    "_get_cosine_with_min_lr_schedule_with_warmup_lr_rate_lambda": (
        "get_cosine_with_min_lr_schedule_with_warmup_lr_rate", True),
    "_get_cosine_with_hard_restarts_schedule_with_warmup_lr_lambda": (
        "get_cosine_with_hard_restarts_schedule_with_warmup", False),
    "_get_polynomial_decay_schedule_with_warmup_lr_lambda": (
        "get_polynomial_decay_schedule_with_warmup", False),
    "_get_wsd_scheduler_lambda": ("get_wsd_schedule", False),
    # no decay: a warm-up (or nothing) then constant / inverse square root
    "_get_constant_schedule_with_warmup_lr_lambda": ("get_constant_schedule_with_warmup", None),
    "_get_inverse_sqrt_schedule_lr_lambda": ("get_inverse_sqrt_schedule", None),
    "_get_constant_lambda": ("get_constant_schedule", None),
}


def _hf_shape(fn: Any) -> LambdaShape | None:
    if not isinstance(fn, functools.partial):
        return None
    func = fn.func
    known = _HF_LAMBDAS.get(getattr(func, "__name__", ""))
    if known is None or not str(getattr(func, "__module__", "")).startswith("transformers"):
        return None
    builder, rises = known
    kw = dict(fn.keywords or {})
    try:
        warmup = int(kw.get("num_warmup_steps") or 0) or None
        if builder == "get_wsd_schedule":
            horizon: int | None = int(kw["num_warmup_steps"]) + int(kw["num_stable_steps"]) + int(
                kw["num_decay_steps"])
        elif rises is None:
            horizon = None
        else:
            horizon = int(kw["num_training_steps"])
    except (KeyError, TypeError, ValueError):
        return None
    params = tuple((k, v) for k, v in kw.items() if k.startswith("num_") and k.endswith("_steps"))
    return LambdaShape(horizon, warmup, bool(rises), builder, params)


PROBE_STEPS = 1 << 17
PROBE_SECONDS = 0.25


def probe_lambda(fn: Any, limit: int = PROBE_STEPS, seconds: float = PROBE_SECONDS) -> LambdaShape | None:
    """The shape of one LambdaLR factor function, evaluated step by step on a deep copy (a
    stateful callable is never advanced). ``horizon`` is the first step where the factor,
    after its peak, reaches exactly 0 or a lower value it then keeps; a factor that only
    approaches 0 (``0.95 ** epoch`` underflowing after thousands of steps) has no horizon.
    None when the function cannot be copied or evaluated, or takes too long."""
    known = _hf_shape(fn)
    if known is not None:
        return known
    try:
        f = copy.deepcopy(fn)
    except Exception:
        return None
    # CPU time of this thread: a busy machine (other processes) must not cut a probe short;
    # and a wall-clock bound for a factor that waits rather than computes
    deadline = time.thread_time() + seconds
    wall_deadline = time.perf_counter() + 10 * seconds
    peak = -math.inf
    peak_at = 0
    first = None
    prev = None
    run_start = 0  # where the current run of equal values began
    for k in range(limit + 1):
        if not k & 15 and k and (time.thread_time() > deadline or time.perf_counter() > wall_deadline):
            return None  # a slow lambda stops early
        try:
            v = float(f(k))
        except Exception:
            return None
        if not math.isfinite(v):
            return None
        if first is None:
            first = v
        if v > peak:
            peak, peak_at = v, k
        warmup = peak_at if first < peak and peak_at else None
        if prev is not None and v != prev:
            run_start = k
        if peak > 0 and k > peak_at and v < peak:
            designed = prev is not None and prev > v and prev - v > 1e-30 * peak
            if v <= 0.0:
                # reached 0 by design (not by underflow of an ever-smaller factor)
                if run_start == k and designed:
                    rises = _rises_after(f, k)
                    return LambdaShape(k, warmup, rises)
                return LambdaShape(None, warmup)
            if k - run_start >= max(run_start, 64):  # held as long as it took to get there
                at = run_start
                before = _value(f, at - 1)
                if before is not None and before > v and before - v > 1e-30 * peak:
                    return LambdaShape(at, warmup)
                return LambdaShape(None, warmup)
        prev = v
    return LambdaShape(None, peak_at if first is not None and first < peak and peak_at else None)


def _value(f: Any, k: int) -> float | None:
    try:
        return float(f(k))
    except Exception:
        return None


def _rises_after(f: Any, k: int) -> bool:
    later = [_value(f, k + j) for j in (1, 2, 4)]
    return any(v is not None and v > 0.0 for v in later)


def lambda_shape(fns: Any) -> LambdaShape | None:
    """The shape of a LambdaLR (one factor function per param group): the latest horizon of
    the groups that have one."""
    shapes = [probe_lambda(f) for f in (fns or ())]
    if not shapes or any(s is None for s in shapes):
        return None
    with_horizon = [s for s in shapes if s is not None and s.horizon is not None]
    if with_horizon:
        return max(with_horizon, key=lambda s: s.horizon or 0)
    return shapes[0]


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
    if kind.name == "LambdaLR":
        fns = getattr(sched, "lr_lambdas", None) or ()
        shapes = {_hf_shape(f) for f in fns}  # one per param group, usually all the same
        shape = shapes.pop() if len(shapes) == 1 else None
        if shape is not None and shape.builder:
            return f"{cls}({shape.builder}: " + ", ".join(f"{k}={v}" for k, v in shape.params) + ")"
    return f"{cls}({', '.join(args)})"


def recomputes_lr(cls: str) -> bool | None:
    """Whether a scheduler class sets the LR from its own base values at every step (True),
    multiplies the LR already in the param group (False: PyTorch's chainable form), or is not
    known to lrdoctor (None).

    Two chainable schedulers stepped back to back are what ChainedScheduler does; a scheduler
    that recomputes the LR erases every change another scheduler made since its last step.

    >>> recomputes_lr("LambdaLR"), recomputes_lr("StepLR"), recomputes_lr("MyScheduler")
    (True, False, None)
    """
    if cls in HF_WARMUP_BUILDERS:
        return True  # a LambdaLR
    kind = SCHEDULERS.get(cls)
    if kind is None or kind.composite:
        return None
    return not kind.chainable


# Schedulers that go on exactly from the LR restored with the optimizer when their own state is
# lost (the next LR is gamma times the current one): a lost state moves nothing.
RESUME_UNMOVED = frozenset({"ExponentialLR"})
RESTARTS = "the schedule restarts from its first value"


def resumed_without_state(cls: str, args: dict[str, str] | None = None) -> str | None:
    """What a resume does to a schedule whose scheduler state is lost while the optimizer's is
    restored, for PyTorch's chainable schedulers: they scale the LR they find, so the LR the run
    had reached (back with the optimizer's param groups) is where the scheduler, built anew and
    counting from 0, starts; they replay their ramp or their decays from there. None for the
    rest: closed-form schedules (LambdaLR and the Hugging Face warm-ups, OneCycleLR, CyclicLR,
    the warm restarts, unknown classes) compute the LR from their base values and the count and
    go back to their first value (RESTARTS); RESUME_UNMOVED ones lose nothing. ``args``: the
    constructor's arguments as the report should show them (source text or values), where
    known. Each case was checked against torch 2.13, resumed at step 5
    (tests/test_resume_effects.py):

    >>> resumed_without_state("LambdaLR") is None
    True
    >>> resumed_without_state("StepLR", {"step_size": "30"}).split(", so ")[1]
    'each later decay comes up to `step_size` (`30`) steps late'
    """
    args = args or {}

    def given(name: str) -> str:
        value = args.get(name)
        return f" (`{value}`)" if value is not None else ""

    kept = f"the LR comes back with the optimizer's param groups but {cls}'s step count restarts at 0"
    if cls == "StepLR":
        return f"{kept}, so each later decay comes up to `step_size`{given('step_size')} steps late"
    if cls == "MultiStepLR":
        return (f"{kept}, so its milestones{given('milestones')} are counted again from the "
                "resume: the next decay comes late, and milestones already passed decay the LR "
                "again")
    if cls == "CosineAnnealingLR":
        return (f"{kept}, and its recursive form bends a new cosine from that LR: it decays "
                f"over `T_max`{given('T_max')} steps again instead of finishing the planned "
                "curve")
    if cls == "PolynomialLR":
        return (f"{kept}: it decays from that LR over `total_iters`{given('total_iters')} steps "
                "again instead of finishing the planned decay")
    if cls == "LinearLR":
        return (f"{kept}, and it multiplies that LR by its whole ramp again (end_factor / "
                "start_factor overall): a warm-up ends that many times above the planned LR")
    if cls == "ConstantLR":
        return (f"{kept}, and when the count reaches `total_iters`{given('total_iters')} again "
                "it divides the LR by `factor` once more: resumed after the constant phase, "
                "the LR ends 1/factor times above the plan")
    if cls == "MultiplicativeLR":
        return f"{kept}, so its factors `lr_lambda(epoch)` are taken from epoch 0 again"
    return None
