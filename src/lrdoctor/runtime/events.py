"""What the hooks record, and the per-object tallies the checks read.

Objects seen during training (optimizers, schedulers, GradScalers, data loaders) get one
``*Info`` record each, keyed by ``id()`` and held without a strong reference to the object
where possible, so watching never keeps a model or optimizer alive. The events are small and
short-lived: they are handed to every subscribed check and then dropped, so memory stays flat
over millions of steps.
"""

from __future__ import annotations

import sys
import weakref
from dataclasses import dataclass, field
from typing import Any

from lrdoctor.runtime.series import ScaleHistory, StepMarks

Site = tuple[str, int]  # (filename, line) of the user's call
_UNKNOWN = object()


def lr_values(lrs: tuple[Any, ...]) -> tuple[Any, ...]:
    """The LRs as values: a tensor LR (``lr=torch.tensor(0.01)``, common with compiled
    optimizers) is changed in place by schedulers (``fill_``), so keeping the tensor would make
    every recorded value the live one. Python numbers pass through untouched (the common case)."""
    for v in lrs:
        if type(v) is not float:
            return tuple([_lr_value(v) for v in lrs])
    return lrs


# id(tensor) -> (weak reference, version counter, value): a tensor LR is read only when it was
# written since the last read, so an LR on an accelerator costs a read (a synchronization) only
# after a scheduler changed it, and the scheduler's own step has synchronized already then
_TENSOR_LRS: dict[int, tuple[Any, int, float]] = {}


def _lr_value(v: Any) -> Any:
    version = getattr(v, "_version", None)
    if version is None or not hasattr(v, "item"):
        return v  # a Python number (int) or something we do not know how to read
    entry = _TENSOR_LRS.get(id(v))
    if entry is not None and entry[0]() is v and entry[1] == version:
        return entry[2]
    try:
        if v.numel() != 1:
            return v
        value = float(v.detach().item())
    except Exception:
        return v
    if len(_TENSOR_LRS) > 1024:  # optimizers come and go in long sessions
        _TENSOR_LRS.clear()
    try:
        _TENSOR_LRS[id(v)] = (weakref.ref(v), version, value)
    except TypeError:
        pass
    return value


def _ref(obj: Any) -> Any:
    try:
        return weakref.ref(obj)
    except TypeError:  # not weak-referenceable: keep it (rare, and only for the run)
        return lambda: obj


class Attempt:
    """One attempt to update: ``optimizer.step()`` or ``scaler.step(optimizer)``."""

    __slots__ = ("index", "clock", "taken", "found_inf", "scheduler_steps_after")

    def __init__(self, index: int, clock: int, taken: bool | None, found_inf: Any = None) -> None:
        self.index = index  # 1-based count of attempts on this optimizer
        self.clock = clock
        # True taken, False skipped by GradScaler, None: decided by a fused kernel, unread yet
        self.taken = taken
        self.found_inf = found_inf  # tensor to read lazily when ``taken`` is None
        # scheduler key -> steps made after this attempt, before the next one (made on demand)
        self.scheduler_steps_after: dict[int, int] | None = None


@dataclass(eq=False, slots=True)
class OptimizerInfo:
    key: int
    label: str
    ref: Any
    attempts: int = 0
    taken: int = 0
    skipped: int = 0
    first_lrs: tuple[Any, ...] | None = None
    last_lrs: tuple[Any, ...] | None = None
    # LRs as last written by something we saw (an attempt, a scheduler step, a state load)
    known_lrs: tuple[Any, ...] | None = None
    last_attempt: Attempt | None = None
    pending: list[Attempt] = field(default_factory=list)  # fused attempts, flag not read yet
    skipped_then_scheduled: int = 0  # skipped attempts after which a scheduler stepped anyway
    first_skipped_then_scheduled: int | None = None  # the optimizer step of the first one
    first_skips: int = 0  # skipped attempts before the first taken one
    first_skips_scheduled: int = 0
    collapse_at: int | None = None  # attempt index where LR < 1e-6 * initial first happened
    collapse_lrs: tuple[Any, ...] | None = None
    # kept by the engine for routine steps: the highest of a single float LR so far, and
    # whether the LRs at the last change were one finite float not below 1e-6 of that
    peak_lr: float = 0.0
    lr_routine: bool = False
    created_site: Site | None = None
    schedulers: list[Any] = field(default_factory=list)  # SchedulerInfo records driving it
    epoch_attempts: list[int] = field(default_factory=list)  # attempts in each training epoch
    # (attempt index, LRs) at each change of any param group's LR
    lr_history: list[tuple[int, tuple[Any, ...]]] = field(default_factory=list)
    skipped_at: StepMarks = field(default_factory=StepMarks)  # attempts skipped by GradScaler
    # a step made by scaler.step() that brings ``taken`` to this count is not routine (NaN
    # detection's parameter check after PARAM_INTERVAL taken steps: skipped steps move it
    # off the periodic ones); no limit unless a check sets one
    due_taken: int = sys.maxsize

    @property
    def obj(self) -> Any:
        return self.ref()


@dataclass(eq=False, slots=True)
class SchedulerInfo:
    key: int
    cls: str
    label: str
    ref: Any
    optimizer_key: int | None
    horizon: int | None
    user_steps: int = 0
    first_site: Site | None = None
    last_site: Site | None = None
    first_clock: int = 0
    last_clock: int = 0
    first_lrs: tuple[Any, ...] | None = None
    last_lrs: tuple[Any, ...] | None = None
    parent_key: int | None = None  # set when a SequentialLR/ChainedScheduler drives it
    composite: bool = False
    kind: Any = None  # lrdoctor.schedulers.SchedulerKind, or None for unknown classes
    lr_lambdas: list[Any] | None = None
    steps_before_first_attempt: int = 0
    epoch_steps: list[int] = field(default_factory=list)  # user steps in each training epoch
    zero_at: int | None = None  # user step at which every LR reached 0 (LambdaLR & co.)
    # LambdaLR: lrdoctor.schedulers.LambdaShape of its factors (probed once, when first needed)
    shape: Any = None
    shape_probed: bool = False
    # consecutive optimizer attempts preceded by 2+ of our steps (gradient accumulation)
    multi_step_runs: int = 0
    steps_since_attempt: int = 0
    # optimizer attempt count at each user step (0: before the first optimizer step)
    step_marks: StepMarks = field(default_factory=StepMarks)
    # steps a load_state_dict() restored (a resumed run): where the schedule stood at the load
    restored_steps: int = 0
    # with several optimizers: every optimizer's attempt count (key -> count) at its last user
    # step, kept by Engine.on_scheduler_step (read by StepOrder for LRD014); None before that
    attempts_seen: dict[int, int] | None = None

    @property
    def obj(self) -> Any:
        return self.ref()


@dataclass(eq=False, slots=True)
class ScalerInfo:
    key: int
    ref: Any
    first_scale: float | None = None
    last_scale: Any = None  # float, or a tensor copy not read yet (non-CPU)
    min_scale: float | None = None
    updates: int = 0
    consecutive_skips: int = 0
    max_consecutive_skips: int = 0
    scale_history: ScaleHistory = field(default_factory=ScaleHistory)  # scale used at each step
    # (step, device tensor copy) not read yet: read in bulk, never one sync per step
    pending_scales: list[tuple[int, Any]] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class LoaderInfo:
    key: int
    label: str
    length: int | None
    iterations: int = 0  # how many times iteration started
    batches: int = 0  # batches in the current iteration
    attempts_in_iteration: int = 0  # optimizer attempts while this loader fed the batches
    batches_per_iteration: list[int] = field(default_factory=list)
    attempts_per_iteration: list[int] = field(default_factory=list)
    iterator: Any = None  # weak reference to the current pass's iterator


# ---- events -------------------------------------------------------------------------------


class OptimizerStep:
    """An attempt to update finished (taken, skipped or decided by a fused kernel).

    ``site`` (the user's line) is found on first access, which must happen while the event is
    being dispatched (the user's frame is then still on the stack): most steps never need it.
    """

    __slots__ = ("optimizer", "attempt", "lrs", "via_scaler", "_site")

    def __init__(self, optimizer: OptimizerInfo, attempt: Attempt, lrs: tuple[Any, ...],
                 via_scaler: bool, site: Site | None | object = _UNKNOWN) -> None:
        self.optimizer = optimizer
        self.attempt = attempt
        self.lrs = lrs
        self.via_scaler = via_scaler
        self._site = site

    @property
    def site(self) -> Site | None:
        if self._site is _UNKNOWN:
            from lrdoctor.runtime.callsite import user_site

            self._site = user_site(2)
        return self._site  # type: ignore[return-value]


@dataclass(slots=True)
class SchedulerStep:
    scheduler: SchedulerInfo
    site: Site | None
    lrs_before: tuple[Any, ...]
    lrs_after: tuple[Any, ...]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    error: BaseException | None = None


@dataclass(slots=True)
class ScalerUpdate:
    scaler: ScalerInfo
    scale_before: Any
    skipped_any: bool | None  # None: not known yet (flags on a device)


@dataclass(slots=True)
class EpochStart:
    """A training loader starts a new pass (the previous one, if any, is complete)."""

    loader: LoaderInfo
    epoch: int  # 1-based index of the pass that starts


@dataclass(slots=True)
class RunEnd:
    """Watching stops; ``error`` is the exception that ended the script, if any."""

    error: BaseException | None
    interrupted: bool


# ---- events of the numerics and AMP checks (lrdoctor.runtime.amphooks) ------------------------


class Backward:
    """``backward()`` on ``tensor``: emitted before it runs (the graph is intact, ``done`` is
    False); :class:`BackwardDone` follows when it returned (``done`` is then True).

    ``site`` (the user's line) is found on first access from ``frame``, the frame that called
    ``backward()``; it must be read while the event is dispatched (the call is then still in
    progress): most steps never need it.
    """

    __slots__ = ("tensor", "scaler", "loss", "frame", "done", "_site")

    def __init__(self, tensor: Any, scaler: Any, loss: Any, frame: Any, done: bool = False) -> None:
        self.tensor = tensor
        self.scaler = scaler  # the enabled GradScaler whose scale() produced ``tensor``, else None
        self.loss = loss  # what scale() was given (the loss itself), else ``tensor``
        self.frame = frame
        self.done = done
        self._site: Site | None | object = _UNKNOWN

    @property
    def site(self) -> Site | None:
        if self._site is _UNKNOWN:
            from lrdoctor.runtime.callsite import user_site_from

            self._site = user_site_from(self.frame)
        return self._site  # type: ignore[return-value]


class BackwardDone:
    """The ``backward()`` of ``backward`` (a :class:`Backward`, now ``done``) returned; emitted
    while the call is still in progress, so ``backward.site`` can still be read."""

    __slots__ = ("backward",)

    def __init__(self, backward: Backward) -> None:
        self.backward = backward


@dataclass(slots=True)
class ScalerUnscale:
    """``scaler.unscale_(optimizer)`` (called by the user, or by ``scaler.step``)."""

    scaler: Any
    optimizer: Any
    site: Site | None
    by_step: bool


@dataclass(slots=True)
class GradClip:
    """``clip_grad_norm_`` / ``clip_grad_value_`` is about to run on ``params``."""

    function: str
    params: list[Any]
    site: Site | None
