"""The runtime engine's core: keeps the tallies, turns hook calls into events, hands events to
the checks, and collects findings.

Hooks (:mod:`lrdoctor.runtime.hooks`) call the ``on_*`` methods; nothing here patches torch.
Every public entry point is wrapped by the hooks in a guard that reports an internal error
once and never lets it reach the user's training loop; the one exception that is allowed
through is :class:`lrdoctor.ScheduleError` in strict mode.
"""

from __future__ import annotations

import math
import sys
import time
import traceback
import weakref
from collections import defaultdict
from collections.abc import Callable
from itertools import compress, count
from operator import itemgetter, ne
from typing import Any

from lrdoctor import ScheduleError
from lrdoctor.findings import Finding, Location
from lrdoctor.runtime.callsite import display_path
from lrdoctor.runtime.events import (
    _UNKNOWN,
    Attempt,
    Backward,
    BackwardDone,
    EpochStart,
    LoaderInfo,
    OptimizerInfo,
    OptimizerStep,
    RunEnd,
    ScalerInfo,
    ScalerUnscale,
    ScalerUpdate,
    SchedulerInfo,
    SchedulerStep,
    Site,
    _ref,
    lr_values,
)
from lrdoctor.schedulers import describe, kind_of, runtime_horizon

COLLAPSE_RATIO = 1e-6
INF = float("inf")
LR_HISTORY_CAP = 20_000
# Routine steps (see Engine.on_attempt) are not handed to the checks that subscribed with
# every_step=False; the first ROUTINE_AFTER attempts of each optimizer always are, and so is
# every ROUTINE_PERIOD-th one that takes the general path. The only periodic work of a check,
# NaN detection's parameter check, is called directly on a periodic step that the lane keeps
# (Engine.lane_period): for every other every_step=False handler such a step is routine
ROUTINE_AFTER = 4
ROUTINE_PERIOD = 64
# OptimizerInfo.last_attempt of a taken attempt that no handler saw (never changed)
_TAKEN = Attempt(0, 0, True)
# Lane.phase (the last three in a lane under GradScaler only)
EXPECT_ATTEMPT, EXPECT_SCHEDULER_STEP, ATTEMPTS_OFF, CLOSED = 0, 1, 2, 3
EXPECT_SCALED_ATTEMPT, EXPECT_UPDATE = 4, 5
# the lane's scheduler step in progress (the scheduler-step hook: a step it makes meanwhile
# is a composite's child or a super().step(), not the user's)
IN_SCHEDULER_STEP = 6
# Engine.backward_route
ROUTE_FREE, ROUTE_READ, ROUTE_EVENT = 0, 1, 2
# Lane.phase while the lane for several optimizers is open (Engine.multi: MultiLane), and
# while one of its scheduler steps runs (a step made meanwhile is a subclass's super().step()
# or one scheduler stepping another, not the user's)
MULTI, IN_MULTI_STEP = 7, 8
# the modules of torch's own GradScaler classes (torch.amp's, and the deprecated CUDA and CPU
# ones built on it): the lane for several optimizers opens under no other (Engine._multi_scaler)
_TORCH_SCALER_MODULES = frozenset({"torch.amp.grad_scaler", "torch.cuda.amp.grad_scaler",
                                   "torch.cpu.amp.grad_scaler"})
# the step events a lane for several optimizers can open after, kept in order (see
# Engine._multi_seq); at most this many cycles of them
_MULTI_KEEP = 4


class Lane:
    """The fast lane of a run in its steady state: one optimizer, stepped from one loader's
    batches, and at most one scheduler, stepped once after each update from one line of the
    user's code, every step routine (see Engine.on_attempt). While the lane is open the hooks
    only check that each step is still such a step (the same LR object the last step left,
    the same batch iterator, the same line, inside the horizon, no token in every_step...),
    and note it: a count of updates and the LR each scheduler step left. Engine.sync() closes
    the lane and keeps the tallies of those steps exactly as on_attempt and on_scheduler_step
    would have kept them, one by one; every entry point of the engine (and every hook that
    reads its records) syncs first, so nothing ever reads a tally the lane still holds.
    A step the lane does not recognise takes the general path, which syncs.

    The optimizer's periodic step (every ROUTINE_PERIOD-th) does not close it: the hook hands
    it to Engine.lane_period, which keeps the tallies so far (the records are then exactly
    what the general path would have made them, this step included), calls NaN detection's
    parameter check, the one thing a check does on a periodic step that is routine otherwise,
    and leaves the lane open for the next period.

    Under GradScaler (``scaler`` set) the lane is for one scaler too, and a step is the
    scaled backward (EXPECT_ATTEMPT -> EXPECT_SCALED_ATTEMPT: the next update must come from
    scaler.step()), the update scaler.step() makes (-> EXPECT_UPDATE; the unscale_ inside it
    noted), a routine update() from the scale the lane started with, decided with no tensor
    read (-> EXPECT_SCHEDULER_STEP; counted), then the scheduler step; its periodic update is
    kept as above, by Engine.scaled_lane_period. What the AMP check would
    be told on those steps (the scaled backward's line, the unscale_, the update) the lane keeps
    and hands over when it closes (AmpMisuse.lane_closed), so a routine step calls none of it.

    This is what makes watching cheap: a routine step costs the hooks a few attribute reads,
    and the tallies are kept in batches of up to ROUTINE_PERIOD steps, in a warm loop."""

    __slots__ = ("phase", "opt_ref", "opt", "sched_ref", "sched", "code",
                 "lasti", "lr", "peak", "floor", "left", "fetch", "loader",
                 "after_attempt", "budget", "lrs_after", "last_after", "yielded", "scaler_ref", "scaler", "scale",
                 "updates", "scaled_phase", "periodic", "lead", "it_ref", "unhooked",
                 "scale_t", "scale_v", "bsite", "bcall", "bcode", "blasti", "unscaled", "grow")

    def __init__(self) -> None:
        self.phase = CLOSED
        # weak references; _noref (which answers None) while closed, so that a hook tests
        # ``ref() is obj`` alone
        self.opt_ref: Any = _noref
        self.sched_ref: Any = _noref
        self.opt: OptimizerInfo | None = None
        self.sched: SchedulerInfo | None = None
        self.code: Any = None  # the user's code object and instruction that step the scheduler
        self.lasti = -1
        self.lr: Any = None  # the LR object in the param group now (compared by identity)
        self.peak = self.floor = 0.0  # the highest LR so far, COLLAPSE_RATIO of it
        # updates it may still take before the next periodic one, and (with a scheduler) no
        # more than the scheduler's horizon leaves steps: each scheduler step in the lane
        # follows an update in the lane, so the lane's scheduler steps stay inside the horizon
        # with no count of their own
        self.left = 0
        self.budget = 0  # ... and when it opened: budget - left updates not tallied yet
        self.fetch: int | None = None  # id of the batch iterator that feeds it, and its loader
        self.loader: LoaderInfo | None = None
        self.after_attempt = EXPECT_SCHEDULER_STEP
        # the LR each scheduler step in the lane left: floats (one param group, a routine LR),
        # then, when a step left anything else (the lane's last step), that step's LRs as a
        # tuple in last_after
        self.lrs_after: list[float] = []
        self.last_after: tuple[Any, ...] | None = None
        self.yielded = 0  # batches the iterator had yielded at the lane's last update
        # under GradScaler: the scaler whose scale() the backward, step() the update and
        # update() the end of each step made (weak; _noref otherwise), its record, the scale
        # every update of the lane starts from, and the updates() not tallied yet
        self.scaler_ref: Any = _noref
        self.scaler: ScalerInfo | None = None
        self.scale = 0.0
        self.updates = 0
        # the phase in which the update scaler.step() makes is expected: EXPECT_SCALED_ATTEMPT
        # after the scaled backward (where the backward hook is installed), else EXPECT_ATTEMPT
        self.scaled_phase = EXPECT_SCALED_ATTEMPT
        # whether the update after its last allowed one is the optimizer's periodic step (the
        # lane's budget ran out at the period, not at the horizon), which the lane then keeps
        # (Engine.lane_period); and whether the steps not tallied yet start with the scheduler
        # step of an update already tallied (1 after lane_period; 0: they start with an update)
        self.periodic = False
        self.lead = 0
        # a weak reference to the batch iterator that feeds it (``fetch``), whose batch count
        # each update notes (``yielded``); for a lane fed by no DataLoader iterator, one to
        # _NO_ITERATOR (no batch count to note); _noref when its iterator is not known
        self.it_ref: Any = _noref
        # whether the DataLoader iterators' __next__ runs torch's own code while the lane is
        # open (see hooks.FetchHook): its iterator is then the only one that can yield
        self.unhooked = False
        # under GradScaler, what lets a routine update() be decided with no read of a tensor:
        # the scaler's scale tensor and its version counter when the lane opened (each update()
        # bumps it by one, any other write too: see hooks._wrap_scaler_update); and what the
        # AMP check would have been told this iteration, kept here and handed to it when the
        # lane closes (AmpMisuse.lane_closed): the user's line of the scaled backward, and
        # whether the lane's optimizer was unscaled since
        self.scale_t: Any = None
        self.scale_v = 0
        self.bsite: Any = None
        # the caller bsite was found from, when that is torch's code (Tensor.backward) called
        # from the user's: its code object, and the user's code and instruction above it, on
        # which alone bsite then depends (callsite.user_site_from); a scaled backward made from
        # the same ones has the same line, so the lane's next one tests these three and reuses
        # bsite (amphooks, perf61). None (no reuse) wherever bsite is set by anything else
        self.bcall: Any = None
        self.bcode: Any = None
        self.blasti = -1
        self.unscaled = False
        # under GradScaler: the updates the lane may make since it opened, the last of which may
        # grow the scale (Engine._open_scaled_lane): the update after that one starts from
        # another scale, which the lane does not read, so it never takes it
        self.grow = 0


class MultiEvent:
    """One step event of the cycle a lane for several optimizers repeats: an update of one
    optimizer (``attempt``) or a step of one scheduler made from one instruction of the
    user's code (``code``, ``lasti``; ``site``, its line)."""

    __slots__ = ("ref", "sref", "slot", "attempt", "code", "lasti", "site", "next")

    def __init__(self, ref: Any, slot: MultiSlot, attempt: bool, code: Any = None, lasti: int = -1,
                 site: Site | None = None, sref: Any = None) -> None:
        # the optimizer's or the scheduler's weak reference (its record's); for an update in a
        # lane under GradScaler, _noref, and the optimizer's in ``sref`` (the update is the
        # lane's only when scaler.step() makes it: the step hook's scaler path reads ``sref``,
        # its direct path ``ref``); _noref otherwise
        self.ref = ref
        self.sref: Any = sref if sref is not None else _noref
        self.slot = slot
        self.attempt = attempt
        self.code, self.lasti, self.site = code, lasti, site
        self.next = 0  # the position of the event after it in the cycle


class MultiSlot:
    """One optimizer of a lane for several optimizers, with its one scheduler or none."""

    __slots__ = ("opt", "sched", "lr", "peak", "floor", "zero", "lrs", "at", "sched_at")

    def __init__(self, opt: OptimizerInfo, sched: SchedulerInfo | None, lr: float, zero: float) -> None:
        self.opt, self.sched = opt, sched
        self.lr = lr  # the LR object in its one param group now (compared by identity)
        self.peak = max(opt.peak_lr, lr)  # the highest LR so far, and the lowest routine one
        # (COLLAPSE_RATIO of it; with a scheduler of no horizon, also above what the checks
        # take for 0: _at_zero)
        self.zero = zero
        self.floor = max(self.peak * COLLAPSE_RATIO, zero)
        self.lrs: list[float] = []  # the LR each of its scheduler's steps left, not tallied yet
        self.at = self.sched_at = -1  # the places of its update and its scheduler's step in the cycle


class MultiLane:
    """The lane (see Lane) of a run that steps several optimizers in each iteration (a GAN,
    actor-critic, one optimizer per head): every optimizer the run has, each with one
    scheduler or none (the only one of its optimizer), every step event routine with nothing
    to call, repeating one cycle: the last step events the general path saw, each optimizer's
    update and each scheduler's step exactly once (Engine._try_multi). While it is open the
    hooks check that each step is the cycle's next one (the same object, the LR object its
    last step left, the same batch iterator, the same line for a scheduler, no token in
    every_step or every_direct_step, no step inside scaler.step() or compiled code, a
    scheduler's LR routine) and note it: a position, and the LR each scheduler step left.
    Engine.sync() closes it (Lane.phase MULTI) and keeps the tallies of those steps exactly
    as on_attempt and on_scheduler_step would have kept them one by one (Engine._fold_multi).
    Its budget (Engine._multi_budget) ends right before the first event that is not
    routine: an optimizer's periodic update or a scheduler's step past its horizon, so each
    step it takes is one the general path would find routine. A periodic update that ends
    it is kept as the lane for one optimizer keeps its own (Engine.multi_period), and the
    lane goes on to the next such event; after that the DataLoader hook is off while the
    lane's iterator is the only one (hooks.FetchHook, through Lane.it_ref and Lane.unhooked
    of Engine.lane, which is closed meanwhile)."""

    __slots__ = ("cycle", "pos", "start", "left", "budget", "fetch", "loader", "it_ref", "yielded",
                 "snap", "slots", "scratch", "periodic", "scaler_ref", "scaler", "scale_t", "scale_v",
                 "updates", "grow", "sphase", "nopt", "unscaled", "opened")

    def __init__(self) -> None:
        self.cycle: list[MultiEvent] = []
        self.pos = 0  # the next event's position in the cycle
        self.start = 0  # ... and the first one not tallied yet
        self.left = 0  # the events it may still take; budget - left are not tallied yet
        self.budget = 0
        self.fetch = 0  # id of the batch iterator that feeds it, its loader, a weak reference
        self.loader: LoaderInfo | None = None
        self.it_ref: Any = _noref
        self.yielded = 0  # batches the iterator had yielded at the lane's last update
        self.snap = False  # whether each scheduler step keeps every optimizer's attempt count
        self.slots: list[MultiSlot] = []
        self.scratch = Lane()  # what Engine._fold_multi hands _fold for each optimizer
        # whether the event after its last allowed one is an optimizer's periodic update (the
        # budget ran out at a period, not at a horizon), which the lane then keeps
        # (Engine.multi_period)
        self.periodic = False
        # Under GradScaler (one scaler, ``scaler`` set; see Engine._try_multi): each update of
        # the cycle is the one scaler.step() makes after the iteration's scaled backward, and
        # the iteration ends with a routine update() decided with no tensor read once every
        # optimizer was stepped (hooks: the scaler's update wrapper). The scaler (weak; _noref
        # otherwise), its record, its scale tensor and version counter when the lane opened (each
        # update() bumps it by one), the update()s the lane counted and may count (the last of
        # them may grow the scale: the one after would start from another), and where the
        # scaler's iteration stands: -1 after update() (the scaled backward next), else the
        # updates scaler.step() made since the scaled backward (``nopt``: all of them, update()
        # next). What the AMP check would have been told meanwhile is kept and handed over when
        # the lane closes (AmpMisuse.lane_closed_multi): the scaled backward's user line (in
        # Lane.bsite: the lane for one optimizer is closed meanwhile) and here the keys of the
        # optimizers unscaled since it
        self.scaler_ref: Any = _noref
        self.scaler: ScalerInfo | None = None
        self.scale_t: Any = None
        self.scale_v = 0
        self.updates = 0
        self.grow = 0
        self.sphase = -1
        self.nopt = 0
        self.unscaled: set[int] = set()
        self.opened = 0  # the clock when it opened under GradScaler


class _NoIterator:
    """Stands for the batch iterator of a lane that no DataLoader feeds."""

    _num_yielded = 0


_NO_ITERATOR = _NoIterator()
_NO_ITERATOR_REF = weakref.ref(_NO_ITERATOR)


def _noref() -> None:
    """What a lane's weak reference is while it is closed: it refers to nothing."""
    return None


def lrs_of(optimizer: Any) -> tuple[Any, ...]:
    groups = optimizer.param_groups
    if len(groups) == 1:  # the common case, read on every step
        lr = groups[0].get("lr")
        return (lr,) if type(lr) is float else lr_values((lr,))
    return lr_values(tuple([g.get("lr") for g in groups]))


def _at_zero(info: SchedulerInfo, lrs: tuple[Any, ...]) -> bool:
    """The LRs look like 0 to the checks (every one at most 1e-12 of where it started), or
    cannot be told (not one float per param group): the step is then not routine."""
    base = info.first_lrs
    if not lrs or any(type(v) is not float for v in lrs):
        return True
    if not base or len(base) != len(lrs):
        return False
    return all(type(b) is float and b > 0 and v <= b * 1e-12 for v, b in zip(lrs, base))


def _first_group(opt: Any) -> Any:
    try:
        groups = opt.param_groups
        return groups[0] if groups else None
    except Exception:
        return None


def _wrapped_optimizer(opt: Any) -> Any:
    """The optimizer a framework wrapper holds (``.optimizer`` for Accelerate, ``._optimizer``
    for Lightning and Fabric) when it shares that optimizer's param groups; else None."""
    first = _first_group(opt)
    if first is None:
        return None
    for attr in ("optimizer", "_optimizer"):
        try:
            inner = opt.__dict__.get(attr) if hasattr(opt, "__dict__") else None
        except Exception:
            inner = None
        if inner is not None and inner is not opt and _first_group(inner) is first:
            return inner
    return None


def location(site: Site | None) -> Location | None:
    if site is None:
        return None
    return Location(display_path(site[0]), site[1])


def fmt_lr(value: Any) -> str:
    try:
        return f"{float(value):.3g}"
    except (TypeError, ValueError):
        return str(value)


def fmt_lrs(lrs: tuple[Any, ...] | None) -> str:
    if not lrs:
        return "?"
    return fmt_lr(lrs[0]) if len(set(map(fmt_lr, lrs))) == 1 else "[" + ", ".join(map(fmt_lr, lrs)) + "]"


class Engine:
    # whether the lane for several optimizers may open under GradScaler (MultiLane: one scaler,
    # the AMP check on); the tests turn it off to compare the lane with the general path
    multi_under_scaler = True

    def __init__(self, strict: bool = False, echo: Callable[[str], None] | None = None) -> None:
        self.strict = strict
        self.echo = echo or (lambda text: print(text, file=sys.stderr, flush=True))
        self.clock = 0
        self.most_attempts = 0  # the largest attempt count of any optimizer
        self.started = time.perf_counter()
        self.optimizers: dict[int, OptimizerInfo] = {}
        self.schedulers: dict[int, SchedulerInfo] = {}
        self.scalers: dict[int, ScalerInfo] = {}
        self.loaders: dict[int, LoaderInfo] = {}
        self.train_loader: LoaderInfo | None = None
        self.last_batch_loader: LoaderInfo | None = None
        # scheduler user-step counts when each loader's current pass began
        self._pass_marks: dict[int, dict[int, int]] = {}
        # optimizer attempt counts when each loader's current pass began (counted per
        # optimizer: a GAN or a three-model loop steps several optimizers per batch)
        self._attempt_marks: dict[int, dict[int, int]] = {}
        # id(DataLoader iterator) -> its loader; last_fetch: id of the iterator that yielded last
        self._iter_owner: dict[int, LoaderInfo] = {}
        self.last_fetch = 0
        self.last_yielded = 0  # batches that iterator had yielded then
        self._findings: dict[tuple[Any, ...], Finding] = {}
        self._handlers: dict[type, list[Callable[[Any], None]]] = defaultdict(list)
        # the handlers that are called on routine steps too (subscribe(every_step=True))
        self._every_step_handlers: dict[type, list[Callable[[Any], None]]] = {}
        # tokens of checks that want every step's event for now (a decision pending, a NaN
        # seen, float16 parameters...): while there is one, no step is routine
        self.every_step: set[Any] = set()
        # tokens of checks that want every optimizer step made outside scaler.step() (a scaled
        # backward waiting for its scaler: LRD109); a step made by scaler.step() may be routine
        self.every_direct_step: set[Any] = set()
        # called with each new optimizer's record (NaN detection puts its pre-hook back)
        self.new_optimizer_callbacks: list[Callable[[OptimizerInfo], None]] = []
        # NaN detection, whose quick test of the loss decides (with no GradScaler scaling the
        # tensor) whether a backward() is routine (amphooks): then no Backward/BackwardDone
        # event for the every_step=False handlers; when it returns, routine_backwards_done is
        # counted up (the checks catch up from the count when they next need to, instead of
        # being called). None: every such backward() is routine
        self.loss_gate: Any = None
        # what the backward hook's routine test has to do, kept by reroute_backward() whenever
        # what it depends on changes (so that the hook reads one attribute): ROUTE_FREE, every
        # backward() on one unscaled tensor is routine; ROUTE_READ, routine when the loss reads
        # as a finite CPU scalar; ROUTE_EVENT, never routine
        self.backward_route = ROUTE_FREE
        self.routine_backwards_done = 0
        # the clock from which the general path learns the cycle of a lane for several
        # optimizers (_multi_seq): 0 while one may open with the scalers known (none, or one
        # under which it may: _multi_scaled_ok), sys.maxsize while none may (kept by scaler() as
        # each becomes known), and, after a lane under GradScaler that closed within its first
        # cycle (an iteration the lane cannot hold: sync), ROUTINE_PERIOD cycles later
        self._multi_from = 0
        # gradient clips that made no GradClip event: nothing to do for its handlers (amphooks)
        self.routine_clips = 0
        # the AMP check, told of each routine scaled backward (no Backward/BackwardDone event:
        # amphooks) by a call to its scaled_backward(scaler, site), and of each routine
        # scaler update (see on_scaler_update) by updated(scaler key); None: no such check
        self.scaled_gate: Any = None
        self._in_scaler_step: dict[int, bool] = {}
        # optimizers whose step ran inside torch.compile'd code, not counted yet (hooks.py)
        self.compiled_steps: list[Any] = []
        # the DataLoader iterators' __next__ hook, which a lane kept through a periodic step
        # may take off while its iterator is the only one (hooks.FetchHook); None: not installed
        self.fetch_hook: Any = None
        self.foreign_fetch = False  # a batch of an iterator not known to the watch fed an update
        # id(wrapper or wrapped object) -> (weak ref, the record of the optimizer it is)
        self._aliases: dict[int, tuple[Any, OptimizerInfo]] = {}
        self.lane = Lane()
        # the lane for several optimizers (its phase is lane.phase: MULTI), and the step events
        # the general path saw last, in order, each routine with nothing to call (a record: an
        # optimizer's update; a SchedulerInfo, a scheduler step made elsewhere than from the
        # user's own line, or (record, code, instruction) one made from there): it may open
        # after a whole cycle of them (_try_multi)
        self.multi = MultiLane()
        self._multi_seq: list[Any] = []
        # the optimizer whose last attempt was routine with nothing to call, and the batch
        # iterator and loader that fed it: a lane may open for it (open_lane)
        self._routine_opt: tuple[Any, OptimizerInfo, int, LoaderInfo | None] | None = None
        # ... and the same for the last routine attempt made by scaler.step(), with its clock
        # (see _open_scaled_lane)
        self._routine_scaled: tuple[Any, OptimizerInfo, int, LoaderInfo | None, int] | None = None
        # the scaler whose last update() was routine, and the clock then (see open_lane)
        self._routine_update: tuple[ScalerInfo, int] | None = None
        # every optimizer's attempt count, taken at a scheduler step while there are several
        # optimizers and shared by the scheduler steps until the next update (SchedulerInfo.
        # attempts_seen); None when an attempt made it out of date
        self._attempts_seen: dict[int, int] | None = None
        self._internal_errors = 0
        self.finished = False
        self.end: RunEnd | None = None

    # ---- plumbing ---------------------------------------------------------------------------

    def subscribe(self, event_type: type, handler: Callable[[Any], None], every_step: bool = True) -> None:
        """``every_step=False`` (:class:`OptimizerStep` and :class:`SchedulerStep` handlers): the
        handler has nothing to do on a routine step (see :meth:`on_attempt` and
        :meth:`on_scheduler_step`), which then does not call it. A check that needs the steps
        in between for a while adds a token to :attr:`every_step` until then."""
        self.sync()
        self._handlers[event_type].append(handler)
        if every_step:
            self._every_step_handlers[event_type] = self._every_step_handlers.get(event_type, []) + [handler]
        self.reroute_backward()

    def unsubscribe(self, event_type: type, handler: Callable[[Any], None]) -> None:
        self.sync()
        # a new list: an emit() in progress keeps iterating the one it started with
        self._handlers[event_type] = [h for h in self._handlers[event_type] if h != handler]
        if event_type in self._every_step_handlers:
            kept = [h for h in self._every_step_handlers[event_type] if h != handler]
            if kept:
                self._every_step_handlers[event_type] = kept
            else:
                # the hooks' fast paths test membership (`Backward in every_step`): an emptied
                # list left here would keep every later step off them for good
                del self._every_step_handlers[event_type]
        self.reroute_backward()

    def reroute_backward(self) -> None:
        """Recompute backward_route: called when a handler subscribes or unsubscribes and when
        NaN detection's state changes (NonFinite: the loss gate, eager_until, arm_backward,
        flags.eager). A handler that asks for every Backward or BackwardDone makes every
        backward() an event; otherwise, with no loss gate, none is one; with NaN detection
        quiet, one whose loss reads finite is not."""
        every = self._every_step_handlers
        nf = self.loss_gate
        if Backward in every or BackwardDone in every:
            route = ROUTE_EVENT
        elif nf is None:
            route = ROUTE_FREE
        elif not nf.eager_until and not nf.arm_backward and nf.flags.eager is not False:
            route = ROUTE_READ
        else:
            route = ROUTE_EVENT
        self.backward_route = route

    def emit(self, event: Any) -> None:
        self.sync()
        self._dispatch(self._handlers.get(type(event), ()), event)

    def _dispatch(self, handlers: Any, event: Any) -> None:
        """Hand ``event`` to each handler; a check's internal error is reported, not raised."""
        for handler in handlers:
            try:
                handler(event)
            except ScheduleError:
                raise
            except Exception as exc:  # a bug in one check must not silence the others
                self.internal_error(exc)

    def report(self, finding: Finding, key: Any = None) -> Finding | None:
        """Record a finding once per ``(code, key)``; in strict mode raise on errors."""
        full_key = (finding.code, key)
        if full_key in self._findings:
            return None
        self._findings[full_key] = finding
        if self.strict and finding.severity == "error" and not self.finished:
            raise ScheduleError(finding)
        return finding

    def has_finding(self, code: str, key: Any = None) -> bool:
        return (code, key) in self._findings

    def update_finding(self, code: str, key: Any, **changes: Any) -> None:
        old = self._findings.get((code, key))
        if old is not None:
            self._findings[(code, key)] = old.replace(**changes)

    def drop_finding(self, code: str, key: Any = None) -> None:
        self._findings.pop((code, key), None)

    @property
    def findings(self) -> list[Finding]:
        order = {"error": 0, "warning": 1, "info": 2}
        return sorted(self._findings.values(), key=lambda f: (order[f.severity], f.code))

    def internal_error(self, exc: BaseException) -> None:
        self._internal_errors += 1
        if self._internal_errors == 1:
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__, limit=-3))
            self.echo(
                "lrdoctor: internal error (your training is not affected; lrdoctor keeps "
                f"watching what it can, please report this):\n{tb.rstrip()}"
            )

    # ---- registries -------------------------------------------------------------------------

    def optimizer(self, opt: Any) -> OptimizerInfo:
        """The record of ``opt``. A framework's wrapper (Accelerate's AcceleratedOptimizer,
        Lightning's LightningOptimizer, Fabric's optimizer) shares the wrapped optimizer's
        ``param_groups``: a scheduler built on it drives the optimizer that steps, so both
        objects are one optimizer, with one record, for every check and report."""
        self.sync()
        info = self.optimizers.get(id(opt))
        if info is not None and info.obj is opt:
            return info
        alias = self._aliases.get(id(opt))
        if alias is not None and alias[0]() is opt:
            return alias[1]
        inner = _wrapped_optimizer(opt)
        if inner is not None:  # the stepping optimizer gets the record (and names it)
            info = self.optimizer(inner)
        else:
            info = self._sharing_groups(opt)
        if info is not None:
            self._aliases[id(opt)] = (_ref(opt), info)
            return info
        n = sum(1 for o in self.optimizers.values() if o.label.split("#")[0] == type(opt).__name__)
        label = type(opt).__name__ + (f"#{n + 1}" if n else "")
        info = OptimizerInfo(key=id(opt), label=label, ref=_ref(opt))
        info.known_lrs = lrs_of(opt)
        self.optimizers[id(opt)] = info
        for callback in self.new_optimizer_callbacks:
            callback(info)
        return info

    def _sharing_groups(self, opt: Any) -> OptimizerInfo | None:
        """A known optimizer whose first param group is the very dict ``opt`` has (a wrapper
        seen after the optimizer it wraps, or the optimizer after its wrapper)."""
        first = _first_group(opt)
        if first is None:
            return None
        for info in self.optimizers.values():
            other = info.obj
            if other is not None and other is not opt and _first_group(other) is first:
                return info
        return None

    def optimizer_objects(self, opt: Any) -> list[Any]:
        """``opt`` and every live object that is the same optimizer (wrapper and wrapped)."""
        info = self.optimizer(opt)
        objects = [opt]
        primary = info.obj
        if primary is not None and primary is not opt:
            objects.append(primary)
        for ref, other in self._aliases.values():
            obj = ref()
            if other is info and obj is not None and all(obj is not o for o in objects):
                objects.append(obj)
        return objects

    def known_optimizer(self, opt: Any) -> OptimizerInfo | None:
        """The record of ``opt`` if it (or an optimizer it wraps or shares groups with) is
        known; never creates one."""
        self.sync()
        info = self.optimizers.get(id(opt))
        if info is not None and info.obj is opt:
            return info
        alias = self._aliases.get(id(opt))
        if alias is not None and alias[0]() is opt:
            return alias[1]
        inner = _wrapped_optimizer(opt)
        if inner is not None:
            return self.known_optimizer(inner)
        return self._sharing_groups(opt)

    def scheduler(self, sched: Any, lrs: tuple[Any, ...] | None = None) -> SchedulerInfo:
        """The record of ``sched``; ``lrs``: the LRs in force before it first stepped."""
        self.sync()
        info = self.schedulers.get(id(sched))
        if info is None or info.obj is not sched:
            opt = getattr(sched, "optimizer", None)
            opt_info = self.optimizer(opt) if opt is not None and hasattr(opt, "param_groups") else None
            info = SchedulerInfo(
                key=id(sched),
                cls=type(sched).__name__,
                label=describe(sched),
                ref=_ref(sched),
                optimizer_key=opt_info.key if opt_info else None,
                horizon=runtime_horizon(sched),
            )
            if opt_info is not None:
                info.first_lrs = lrs if lrs is not None else lrs_of(opt)
            self.schedulers[id(sched)] = info
            if opt_info is not None:
                opt_info.schedulers.append(info)
            info.kind = kind_of(sched)
            info.composite = bool(info.kind and info.kind.composite)
            if info.kind is not None and info.kind.name == "LambdaLR":
                # kept to probe the horizon at the end, when the scheduler may be gone
                info.lr_lambdas = list(getattr(sched, "lr_lambdas", ()) or ())
        if info.composite:  # its children may be set up after its first construction step
            for child in getattr(sched, "_schedulers", ()):
                child_info = self.schedulers.get(id(child))
                if child_info is None or child_info.parent_key != info.key:
                    self.scheduler(child).parent_key = info.key
        return info

    def scaler(self, scaler: Any) -> ScalerInfo:
        info = self.scalers.get(id(scaler))
        if info is None:
            info = ScalerInfo(key=id(scaler), ref=_ref(scaler))
            self.scalers[id(scaler)] = info
            # (whether the general path learns the cycle of a lane for several optimizers:
            # _try_multi decides whether one opens)
            self._multi_from = 0 if self._multi_scaled_ok() else sys.maxsize
        return info

    def loader(self, loader: Any) -> LoaderInfo:
        info = self.loaders.get(id(loader))
        if info is None:
            try:
                length: int | None = len(loader)
            except Exception:  # IterableDataset without __len__, or a broken __len__
                length = None
            n = len(self.loaders)
            info = LoaderInfo(key=id(loader), label=f"DataLoader#{n + 1}", length=length)
            self.loaders[id(loader)] = info
        return info

    def optimizer_of(self, sched: SchedulerInfo) -> OptimizerInfo | None:
        return self.optimizers.get(sched.optimizer_key) if sched.optimizer_key else None

    def schedulers_of(self, opt: OptimizerInfo) -> list[SchedulerInfo]:
        return opt.schedulers

    # ---- epochs -----------------------------------------------------------------------------

    @property
    def epoch(self) -> int:
        """1-based index of the training loader's current pass (0 before training starts)."""
        return self.train_loader.iterations if self.train_loader else 0

    def steps_this_epoch(self, sched: SchedulerInfo) -> int:
        self.sync()
        if self.train_loader is None:
            return sched.user_steps
        marks = self._pass_marks.get(self.train_loader.key, {})
        return sched.user_steps - marks.get(sched.key, 0)

    def attempts_this_epoch(self, opt: OptimizerInfo) -> int:
        """Attempts of ``opt`` since the training loader's current pass began."""
        self.sync()
        if self.train_loader is None:
            return opt.attempts
        marks = self._attempt_marks.get(self.train_loader.key, {})
        return opt.attempts - marks.get(opt.key, 0)

    # ---- hook entry points ------------------------------------------------------------------

    def on_loader_iter(self, loader: Any, iterator: Any = None) -> None:
        self.sync()
        info = self.loader(loader)
        if info.iterations:
            self._pull_batches(info)
            if info is self.train_loader:
                self._close_pass(info)
            else:
                info.batches_per_iteration.append(info.batches)
                info.attempts_per_iteration.append(info.attempts_in_iteration)
        info.iterations += 1
        info.batches = 0
        info.attempts_in_iteration = 0
        old = info.iterator() if info.iterator is not None else None
        if old is not None:
            self._iter_owner.pop(id(old), None)
        try:
            info.iterator = weakref.ref(iterator) if iterator is not None else None
        except TypeError:
            info.iterator = None
        if info.iterator is not None:
            self._iter_owner[id(iterator)] = info
        self._pass_marks[info.key] = {k: s.user_steps for k, s in self.schedulers.items()}
        self._attempt_marks[info.key] = {k: o.attempts for k, o in self.optimizers.items()}
        if info is self.train_loader:
            self.emit(EpochStart(info, info.iterations))

    def _close_pass(self, info: LoaderInfo) -> None:
        info.batches_per_iteration.append(info.batches)
        info.attempts_per_iteration.append(info.attempts_in_iteration)
        marks = self._pass_marks.get(info.key, {})
        for key, sched in self.schedulers.items():
            sched.epoch_steps.append(sched.user_steps - marks.get(key, 0))
        attempt_marks = self._attempt_marks.get(info.key, {})
        for key, opt in self.optimizers.items():
            opt.epoch_attempts.append(opt.attempts - attempt_marks.get(key, 0))

    @staticmethod
    def _pull_batches(info: LoaderInfo) -> bool:
        """Read the live iterator's batch counter; True if it moved since the last read."""
        it = info.iterator() if info.iterator is not None else None
        if it is None:
            return False
        n = getattr(it, "_num_yielded", None)
        if n is None or n == info.batches:
            return False
        info.batches = n
        return True

    def feeding_loader(self) -> LoaderInfo | None:
        """The loader whose batch the current optimizer step trains on: the one that yielded
        the latest batch (the DataLoader iterator hook records which); if it is not one we
        know, the one that fed the previous step."""
        self.sync()
        info = self._iter_owner.get(self.last_fetch)
        if info is not None and info.iterator is not None and id(info.iterator()) == self.last_fetch:
            self._pull_batches(info)
            self.last_batch_loader = info
        return self.last_batch_loader

    def on_attempt(self, opt: Any, taken: bool | None, found_inf: Any, via_scaler: bool,
                   site: Any = _UNKNOWN, lrs: tuple[Any, ...] | None = None) -> None:
        """An optimizer step was attempted. ``site``: the user's line when the caller knows it;
        found on demand otherwise.

        Most steps of a healthy run are *routine*: taken after a taken step, not one of the
        optimizer's first ROUTINE_AFTER steps nor a multiple of ROUTINE_PERIOD, either made by
        ``scaler.step()`` before the taken count of :attr:`OptimizerInfo.due_taken` or outside
        it with no token in :attr:`every_direct_step`, one param group with a finite float LR
        not below COLLAPSE_RATIO of the highest so far,
        the LRs its last step or scheduler step left (nothing wrote them outside a scheduler),
        each of its schedulers stepped at most once since the last update, and no check asking
        for every step (:attr:`every_step`). The engine keeps its tallies on every step, but
        hands a routine step only to the handlers subscribed with ``every_step=True``: each
        check that subscribed with ``every_step=False`` has, by the conditions above, nothing
        to do on it (tests/watch/test_routine_steps.py)."""
        if self.lane.phase != CLOSED:  # sync()'s own first test, inline: this runs on every step
            self.sync()
        info = self.optimizers.get(id(opt))
        if info is None or info.ref() is not opt:  # inline: this runs on every step
            info = self.optimizer(opt)
        self.clock = clock = self.clock + 1
        if lrs is None:
            groups = opt.param_groups  # lrs_of(), inlined for one group with a float LR
            lr = groups[0].get("lr") if len(groups) == 1 else None
            lrs = (lr,) if type(lr) is float else lrs_of(opt)
        info.attempts = n = info.attempts + 1
        self._attempts_seen = None  # (the counts changed: on_scheduler_step takes new ones)
        if n > self.most_attempts:
            self.most_attempts = n
        prev = info.last_attempt
        if taken is True and (prev is None or prev.taken is True):
            info.taken += 1  # the common case: a taken step after a taken step, no tally
            # routine so far: not one of the first steps, not a periodic one, no check asking
            # for every step, and made by scaler.step() before the taken count that a check
            # wants to see, or outside it with no check asking for such steps (the rest is
            # decided below)
            routine = (n > ROUTINE_AFTER and not self.every_step
                       and (info.taken < info.due_taken if via_scaler else not self.every_direct_step))
        else:
            self._count(info, prev, taken)
            routine = False
        # a periodic step (every ROUTINE_PERIOD-th) is handed to every check; when it is
        # routine otherwise, the lane may open after it (see below)
        periodic = not n % ROUTINE_PERIOD
        if lrs != info.last_lrs:
            if info.first_lrs is None:
                info.first_lrs = lrs
            # the LR history, as changes only; thinned to every other change past the cap
            history = info.lr_history
            history.append((n, lrs))
            if len(history) > LR_HISTORY_CAP:
                del history[1::2]
            info.last_lrs = lrs
            # routine LRs: one param group with a finite float LR, not below COLLAPSE_RATIO of
            # the highest LR so far (v - v is NaN for inf and NaN)
            lr_routine = False
            if len(lrs) == 1:
                v = lrs[0]
                if type(v) is float and v - v == 0.0:
                    if v >= info.peak_lr:
                        info.peak_lr = v
                        lr_routine = True
                    else:
                        lr_routine = v >= info.peak_lr * COLLAPSE_RATIO
            info.lr_routine = lr_routine
        if routine:
            # ... and the LRs are what the last step or scheduler step left (nothing wrote
            # them outside a scheduler), no LR collapse is pending, and each scheduler of this
            # optimizer stepped at most once since the last update (StepOrder's common case,
            # whose count is reset here)
            known = info.known_lrs
            if (not info.lr_routine or info.collapse_at is not None
                    or (known is not None and known != lrs)):
                routine = False
            else:
                for sched in info.schedulers:
                    if sched.steps_since_attempt < 2 and not sched.multi_step_runs:
                        if not periodic:  # (the handlers of a periodic step read the count)
                            sched.steps_since_attempt = 0
                    else:
                        routine = False
        steady = routine
        if periodic:
            routine = False
        # the loader that fed this step: feeding_loader(), inlined
        fetch: int | None = self.last_fetch
        loader = self._iter_owner.get(fetch)  # type: ignore[arg-type]
        if loader is not None:
            it = loader.iterator() if loader.iterator is not None else None
            if it is not None and id(it) == fetch:
                yielded = getattr(it, "_num_yielded", None)
                if yielded is not None:
                    loader.batches = yielded
                self.last_batch_loader = loader
            else:
                loader = self.last_batch_loader
                fetch = None  # not a batch of a known iterator: no lane
        else:
            loader = self.last_batch_loader
            if fetch:
                # an iterator the watch did not see made (made before it started): the
                # DataLoader hook stays on for good (hooks.FetchHook)
                self.foreign_fetch = True
            if fetch or loader is not None:
                fetch = None
        if loader is not None:
            loader.attempts_in_iteration += 1
            if self.train_loader is None:
                self.train_loader = loader
                self._pass_marks.setdefault(loader.key, {})
                self.emit(EpochStart(loader, loader.iterations))
        handlers = (self._every_step_handlers if routine else self._handlers).get(OptimizerStep)
        if handlers or taken is not True:
            info.last_attempt = attempt = Attempt(n, clock, taken, found_inf)
        else:
            # a taken step no handler sees: nothing will ever read more than that it was taken
            info.last_attempt = attempt = _TAKEN
        if handlers:
            self._dispatch(handlers, OptimizerStep(info, attempt, lrs, via_scaler, site))
        if not routine:
            # the handlers have read the scheduler steps since the last update (StepOrder); the
            # count starts again here even when no check reads it (routine steps reset it above)
            for sched in info.schedulers:
                sched.steps_since_attempt = 0
        info.known_lrs = lrs
        if routine and not handlers and fetch is not None:
            if len(self.optimizers) != 1:
                # no lane for one optimizer (open_lane), ever (records are never dropped): no
                # candidate to open one after this step; the lane for several may open
                self._routine_opt = None
                seq = self._multi_seq
                # (none while a GradScaler is known, unless the lane may open under it, one
                # scaler and the AMP check on: _try_multi opens no lane otherwise, and records
                # are never dropped)
                if info.ref() is opt and clock >= self._multi_from:
                    seq.append(info)
                    if len(seq) >= len(self.optimizers) + len(self.schedulers):
                        self._try_multi()
                else:
                    seq.clear()
            elif via_scaler:
                self._routine_opt = None
                self._routine_scaled = (_ref(opt), info, fetch, loader, clock)
            else:
                self._routine_opt = (_ref(opt), info, fetch, loader)
                if not self.schedulers:
                    self.open_lane(None, None, None, -1)
        elif (steady and fetch is not None and not via_scaler and taken is True
              and not self.every_step and not self.every_direct_step and info.collapse_at is None
              and not self._every_step_handlers.get(OptimizerStep)):
            # a periodic step, routine otherwise, whose handlers asked for nothing more (no
            # check asks for every step now): the next step would be a routine one that no
            # handler sees, so the lane may open after this one, as after that one (the same
            # tallies: a taken attempt no handler reads again is _TAKEN, as the lane's sync
            # and a routine step leave it)
            info.last_attempt = _TAKEN
            self._routine_opt = (_ref(opt), info, fetch, loader)
            if self._multi_seq:  # (not a step the lane for several optimizers takes)
                self._multi_seq.clear()
            if not self.schedulers:
                self.open_lane(None, None, None, -1)
        else:
            self._routine_opt = None
            if self._multi_seq:
                self._multi_seq.clear()

    def _count(self, info: OptimizerInfo, prev: Attempt | None, taken: bool | None) -> None:
        """The tallies of an attempt that was not taken, or follows one that was not."""
        if prev is not None and prev.taken is not True:  # a taken step needs no tally
            self._settle(info, prev)
        if taken is True:
            info.taken += 1
        elif taken is False:
            info.skipped += 1
            info.skipped_at.add(info.attempts)
            if info.taken == 0:
                info.first_skips += 1

    def drain_compiled(self) -> None:
        """Count the optimizer steps made inside ``torch.compile``'d code since the last eager
        hook (their LRs are read now, before any scheduler steps). At most one step is
        pending at a time: a compiled loop that steps twice with no eager hook in between
        (no DataLoader batch, backward or scheduler step outside the compiled code) has
        its second step uncounted."""
        steps = self.compiled_steps[:]
        del self.compiled_steps[:]  # in place: compiled code appends to this very list
        for opt in steps:
            self.on_attempt(opt, True, None, False, None)

    def _settle(self, info: OptimizerInfo, attempt: Attempt) -> None:
        """Tally an attempt whose follow-up scheduler steps are complete."""
        if attempt.taken is None:
            info.pending.append(attempt)
            if len(info.pending) >= 256:
                self.resolve_pending()
            return
        if attempt.taken is False and attempt.scheduler_steps_after:
            info.skipped_then_scheduled += 1
            if info.first_skipped_then_scheduled is None:
                info.first_skipped_then_scheduled = attempt.index
            if info.taken == 0 or attempt.index <= info.first_skips:
                info.first_skips_scheduled += 1

    def resolve_pending(self) -> None:
        """Read the fused optimizers' found_inf flags (one sync for many steps)."""
        self.sync()
        for info in self.optimizers.values():
            pending, info.pending = info.pending, []
            for attempt in pending:
                try:
                    skipped = bool(attempt.found_inf.item())
                except Exception:
                    skipped = False
                attempt.taken = not skipped
                attempt.found_inf = None
                if skipped:
                    info.skipped += 1
                    info.skipped_at.add(attempt.index)
                    if info.taken == 0:
                        info.first_skips += 1
                else:
                    info.taken += 1
                self._settle(info, attempt)

    def on_scheduler_step(self, sched: Any, site: Site | None, lrs_before: tuple[Any, ...],
                          args: tuple[Any, ...], kwargs: dict[str, Any],
                          error: BaseException | None) -> SchedulerInfo | None:
        """A scheduler stepped (``error``: what its step raised). Returns its record when the
        step was routine, no handler was called and a lane may open after it: its hook may then
        open the lane (open_lane)."""
        if self.lane.phase != CLOSED:  # sync()'s own first test, inline: this runs on every step
            self.sync()
        info = self.schedulers.get(id(sched))
        if info is None or info.composite or info.ref() is not sched:  # inline: every step
            info = self.scheduler(sched, lrs_before)
        self.clock = clock = self.clock + 1
        opt = self.optimizers.get(info.optimizer_key) if info.optimizer_key else None
        if opt is not None:
            groups = sched.optimizer.param_groups  # lrs_of(), inlined for the common case
            lr = groups[0].get("lr") if len(groups) == 1 else None
            lrs_after = (lr,) if type(lr) is float else lrs_of(sched.optimizer)
        else:
            lrs_after = ()
        info.user_steps = n = info.user_steps + 1
        if n == 1:
            info.first_site = site
            info.first_clock = clock
        info.last_site = site
        info.last_clock = clock
        info.last_lrs = lrs_after
        info.steps_since_attempt += 1
        # info.step_marks.add(), inlined for the common case: the run goes on
        mark = opt.attempts if opt is not None else 0
        runs = info.step_marks.runs
        last_run = runs[-1] if runs else None
        if last_run is not None and last_run[2] > 1 and mark == last_run[0] + last_run[1] * last_run[2]:
            last_run[2] += 1
            info.step_marks.count += 1
        else:
            info.step_marks.add(mark)
        if opt is not None:
            if opt.attempts == 0:
                info.steps_before_first_attempt += 1
            else:
                last = opt.last_attempt
                # counted only for an attempt not known to be taken: _settle() reads them
                if last is not None and last.taken is not True:
                    counts = last.scheduler_steps_after
                    if counts is None:
                        counts = last.scheduler_steps_after = {}
                    counts[info.key] = counts.get(info.key, 0) + 1
        handlers = self._handlers.get(SchedulerStep)
        # several optimizers, and handlers to hand the step to (with none, nothing to keep
        # for them: no attempt counts; the routine test is made for the lane for several
        # optimizers, which opens after routine steps only)
        multi = len(self.optimizers) > 1
        several = handlers and multi
        routine = (not args and not kwargs and error is None and opt is not None and opt.attempts
                   and not self.every_step)
        if routine:
            if multi:
                # with several optimizers: the only scheduler of its optimizer (no rival to
                # interleave with: LRD012), whose optimizer moved since its last step (nothing
                # stale: LRD014, which compares with the counts kept in attempts_seen below)
                # (opt is not None: tested above)
                seen = info.attempts_seen
                routine = (len(opt.schedulers) == 1  # type: ignore[union-attr]
                           and (seen is None or seen.get(opt.key, 0) < opt.attempts))  # type: ignore[union-attr]
            else:
                routine = len(self.optimizers) == 1 and len(self.schedulers) == 1
        if routine:
            limit = info.horizon  # routine_limit()'s first answer, inline
            if limit is None:
                limit = self.routine_limit(info)
            routine = limit is not None and n < limit and (info.horizon is not None or not _at_zero(info, lrs_after))
        if routine:
            # a routine scheduler step: the only scheduler of its optimizer (with one optimizer,
            # the only scheduler), stepped without arguments after that optimizer's first step,
            # still inside its horizon (or, with no horizon, its LR above 0); the
            # every_step=False handlers have nothing to do then
            handlers = self._every_step_handlers.get(SchedulerStep)
        if handlers:
            self._dispatch(handlers, SchedulerStep(info, site, lrs_before, lrs_after, args,
                                                   kwargs, error))
        if opt is not None:
            opt.known_lrs = lrs_after
            if several:
                # every optimizer's attempt count at this step, for LRD014 at the next one
                # (StepOrder._stale): one dict for all the scheduler steps between two updates
                snap = self._attempts_seen
                if snap is None:
                    snap = self._attempts_seen = {}
                    for o in self.optimizers.values():  # (a loop: no frame, as a comprehension makes)
                        snap[o.key] = o.attempts
                info.attempts_seen = snap
        if routine and not handlers:
            if multi:
                if clock < self._multi_from:
                    # with a GradScaler known, no lane unless it may open under it (see
                    # on_attempt): open_lane() would do nothing, so its hook is not asked to call it
                    return None
                # a step the lane for several optimizers may open after (open_lane notes the
                # user's line and instruction when its hook knows them)
                self._multi_seq.append(info)
            return info
        if self._multi_seq:
            self._multi_seq.clear()
        return None

    @staticmethod
    def routine_limit(info: SchedulerInfo) -> int | None:
        """How many steps of ``info`` may be routine: its horizon; with none, no limit while
        the checks have nothing to watch for (its LR has not reached 0), except a LambdaLR
        whose shape the checks have not probed yet (they may find a horizon in it: the end
        of a linear decay to 0, where LRD010 looks). None: no step is routine."""
        if info.horizon is not None:
            return info.horizon
        if info.zero_at is not None:
            return None
        kind = info.kind
        if kind is not None and kind.name == "LambdaLR":
            if not info.shape_probed:
                return None
            shape = info.shape
            if shape is not None and shape.horizon is not None:
                return int(shape.horizon)
        return sys.maxsize

    # ---- the lane -----------------------------------------------------------------------------

    def open_lane(self, sched_obj: Any, sched: SchedulerInfo | None, code: Any, lasti: int) -> None:
        """Open the lane (see Lane) after a routine step that called nothing: the scheduler
        step ``sched`` made from ``code`` at instruction ``lasti`` (the user's line), or, for an
        optimizer without a scheduler, its attempt (``sched`` None). Nothing happens unless
        the optimizer's last attempt was routine too and nothing can make the next steps
        need more than the lane checks."""
        if len(self.optimizers) > 1:
            seq = self._multi_seq
            if sched is not None and seq and seq[-1] is sched:
                seq[-1] = (sched, code, lasti)  # (on_scheduler_step appended it)
                if len(seq) >= len(self.optimizers) + len(self.schedulers):
                    self._try_multi()
            return
        candidate = self._routine_opt
        if candidate is None:
            if self._routine_scaled is not None:
                self._open_scaled_lane(sched_obj, sched, code, lasti)
            return
        # (a scaled backward since that attempt dropped the candidate: AmpMisuse.scaled_backward)
        if self.every_step or len(self.optimizers) != 1 or len(self.schedulers) != (0 if sched is None else 1):
            return
        opt_ref, info, fetch, loader = candidate
        opt = opt_ref()
        if (opt is None or info.last_attempt is not _TAKEN or info.collapse_at is not None
                or self.last_fetch != fetch):
            return
        limit = self.routine_limit(sched) if sched is not None else None
        if sched is not None and (sched.optimizer_key != info.key or limit is None
                                  or sched.steps_since_attempt != 1 or sched.multi_step_runs):
            return
        lr = _routine_lr(opt, info)
        if lr is None:
            return
        lane = self.lane
        lane.opt_ref, lane.opt = opt_ref, info
        lane.sched = sched
        left = ROUTINE_PERIOD - 1 - info.attempts % ROUTINE_PERIOD
        periodic = True
        if sched is not None:
            lane.sched_ref = _ref(sched_obj)
            # the scheduler steps it may still take inside the horizon bound the updates (see
            # Lane.left); with no horizon the lane needs no limit: each step's LR is checked to
            # be above 0 (at least COLLAPSE_RATIO of the highest)
            within = limit - 1 - sched.user_steps  # type: ignore[operator]
            if within < left:
                left, periodic = within, False
            lane.after_attempt = EXPECT_SCHEDULER_STEP
        else:
            lane.sched_ref = _noref
            lane.after_attempt = EXPECT_ATTEMPT
        lane.code, lane.lasti = code, lasti
        lane.lr = lr
        lane.peak = max(info.peak_lr, lr)
        lane.floor = lane.peak * COLLAPSE_RATIO
        lane.left = lane.budget = left
        lane.periodic = periodic
        lane.lead = 0
        lane.fetch, lane.loader = fetch, loader
        if loader is None:
            lane.it_ref = _NO_ITERATOR_REF
        else:  # (the iterator that yielded last: the one the attempt above was fed by)
            it_ref = loader.iterator
            lane.it_ref = it_ref if it_ref is not None and id(it_ref()) == fetch else _noref
        lane.lrs_after = []
        lane.last_after = None
        lane.phase = EXPECT_ATTEMPT

    def _open_scaled_lane(self, sched_obj: Any, sched: SchedulerInfo | None, code: Any, lasti: int) -> None:
        """open_lane() under GradScaler: after a routine attempt made by scaler.step(), a
        routine update() of the one scaler right after it, and this routine scheduler step
        (one clock tick after the attempt). The lane is opened as open_lane() opens it, then
        made a lane under GradScaler (see Lane): its updates stop before the taken count a
        check wants to see (OptimizerInfo.due_taken), and a step made outside scaler.step()
        ends its steps."""
        candidate, self._routine_scaled = self._routine_scaled, None
        update = self._routine_update
        opt_ref, info, fetch, loader, clock = candidate  # type: ignore[misc]
        if (sched is None or update is None or clock != self.clock - 1 or update[1] != clock
                or len(self.scalers) != 1 or type(update[0].last_scale) is not float
                or update[0].consecutive_skips):
            return
        left = min(ROUTINE_PERIOD - 1 - info.attempts % ROUTINE_PERIOD, info.due_taken - info.taken - 1)
        if left < 1:
            return
        # The lane's update()s are decided without reading the scale (hooks._wrap_scaler_update):
        # an update the lane counted was made by scaler.step() calling the optimizer's step,
        # which torch's own GradScaler does only when every found-inf flag of that optimizer
        # read 0 (not for an optimizer that takes the scaling into its own step,
        # _step_supports_amp_scaling: no lane for it; the flag is read again in update(), which
        # reads what the user's code may have written there since, perf57), so no update of
        # the lane backs off; and the scale grows only at the update that completes growth_interval unskipped ones,
        # read here once (the scale and the growth tracker, CPU tensors: no synchronization):
        # the lane takes no update after that one, whose scale would differ
        scaler = update[0].ref()
        opt = opt_ref()
        try:
            # torch's own GradScaler: a subclass may override _maybe_opt_step (step an optimizer
            # whatever its flags read), step() or update() (tests/watch/test_amp_lane_subclass.py)
            if type(scaler).__module__ not in _TORCH_SCALER_MODULES:
                return
            scale_t = scaler._scale
            tracker = scaler._growth_tracker
            if (opt is None or getattr(opt, "_step_supports_amp_scaling", False) or not scale_t.is_cpu
                    or not tracker.is_cpu or float(scale_t.item()) != update[0].last_scale):
                return
            grow = scaler._growth_interval - int(tracker.item())
            scale_v = scale_t._version
        except Exception:
            return
        left = min(left, grow)
        if left < 1:
            return
        self._routine_opt = (opt_ref, info, fetch, loader)
        try:
            self.open_lane(sched_obj, sched, code, lasti)
        finally:
            self._routine_opt = None
        lane = self.lane
        if lane.phase == CLOSED:
            return
        # open_lane's budget: to the optimizer's periodic step (lane.periodic), or less within
        # the horizon. The lane keeps the periodic step (Engine.scaled_lane_period) when that
        # budget is its own: the taken count a check wants to see (due_taken) is not before the
        # periodic step, and the periodic update starts from the scale the lane started with
        # (it is the lane's (left + 1)-th update: grown by none of the first ``left``)
        period_left = lane.left
        lane.left = lane.budget = min(left, period_left)  # lane.left: within the horizon too
        lane.periodic = (lane.periodic and period_left <= info.due_taken - info.taken - 1
                         and period_left < grow)
        lane.grow = grow
        lane.after_attempt = ATTEMPTS_OFF
        lane.scaler_ref, lane.scaler = update[0].ref, update[0]
        lane.scale = update[0].last_scale
        lane.scale_t, lane.scale_v = scale_t, scale_v
        lane.bsite, lane.unscaled = None, False
        lane.bcall = None
        # without the backward hook (no AMP or NaN check) no check asks for the steps after
        # a scaled backward (Engine.every_direct_step), and none marks it
        lane.scaled_phase = EXPECT_SCALED_ATTEMPT if getattr(self, "_lrdoctor_amp_hooks", False) else EXPECT_ATTEMPT

    def _multi_scaled_ok(self) -> bool:
        """Whether the lane for several optimizers may open under the GradScaler known: one
        scaler, the AMP check on (its state is what tells where the scaler's iteration stands
        when the lane opens, see _try_multi), its backward and unscale_ hooks installed."""
        return (len(self.scalers) == 1 and self.scaled_gate is not None and self.multi_under_scaler
                and getattr(self, "_lrdoctor_amp_hooks", False))

    def _try_multi(self) -> None:
        """Open the lane for several optimizers (see MultiLane) when the last step events
        (_multi_seq), each routine with nothing to call, are one cycle: every optimizer's update
        and every scheduler's step made from the user's own line, each once, and nothing can
        make the next cycles need more than the lane checks. Each optimizer then has one
        scheduler or none, and each scheduler stepped once between two updates of its
        optimizer and the reverse, so that repeating the cycle keeps each step routine: a
        scheduler the only one of its optimizer (LRD012), whose optimizer moved since its
        last step (LRD014), no scheduler stepped twice between two updates (LRD017)."""
        seq = self._multi_seq
        size = len(self.optimizers) + len(self.schedulers)
        if len(seq) > _MULTI_KEEP * size:
            del seq[:-size]
        if (self.every_step or self.every_direct_step or self.compiled_steps or self._in_scaler_step
                or self._every_step_handlers.get(OptimizerStep)
                or self._every_step_handlers.get(SchedulerStep)):
            return
        # under GradScaler (_multi_scaler, whose two reads are made last)
        under = bool(self.scalers)
        if under and not self._multi_scaled_ok():
            return
        tail = seq[-size:]
        fetch = self.last_fetch
        loader = self._iter_owner.get(fetch)
        if loader is None or loader is not self.last_batch_loader or self.train_loader is None:
            return
        it = loader.iterator() if loader.iterator is not None else None
        if it is None or id(it) != fetch or not isinstance(getattr(it, "_num_yielded", None), int):
            return
        slots: dict[int, MultiSlot] = {}
        left = ROUTINE_PERIOD
        for info in self.optimizers.values():
            opt = info.ref()
            if (opt is None or info.last_attempt is not _TAKEN or info.attempts < ROUTINE_AFTER
                    or info.collapse_at is not None or not info.lr_routine or info.first_lrs is None
                    or len(info.schedulers) > 1):
                return
            lr = _routine_lr(opt, info)
            if lr is None:
                return
            # updates before its periodic one (every ROUTINE_PERIOD-th: never routine)
            left = min(left, ROUTINE_PERIOD - 1 - info.attempts % ROUTINE_PERIOD)
            if under:
                # made by scaler.step(): routine before the taken count a check wants to see
                # (on_attempt), by an optimizer that GradScaler steps only when its found-inf
                # flags read 0 (not one that takes the scaling into its own step)
                if getattr(opt, "_step_supports_amp_scaling", False):
                    return
                left = min(left, info.due_taken - info.taken - 1)
            sched = info.schedulers[0] if info.schedulers else None
            zero = -INF
            if sched is not None:
                if sched.composite or sched.multi_step_runs or sched.optimizer_key != info.key:
                    return
                limit = sched.horizon
                if limit is None:
                    limit = self.routine_limit(sched)
                    if limit is None:
                        return
                    # no horizon: each step's LR must stay above what _at_zero takes for 0
                    base = sched.first_lrs
                    if base and len(base) == 1:
                        b = base[0]
                        if type(b) is not float:
                            return
                        if b > 0:
                            zero = math.nextafter(b * 1e-12, INF)
                # steps it may still take inside its horizon (on_scheduler_step: n < limit)
                left = min(left, limit - 1 - sched.user_steps)
            slots[info.key] = MultiSlot(info, sched, lr, zero)
        if left < 2:
            return
        cycle: list[MultiEvent] = []
        seen: set[int] = set()
        for entry in tail:
            if type(entry) is tuple:
                stepped, code, lasti = entry
                slot = slots.get(stepped.optimizer_key)
                key, site = stepped.key, stepped.last_site
                if (slot is None or key in seen or site is None or slot.sched is not stepped
                        or self.schedulers.get(key) is not stepped):
                    return
                seen.add(key)
                slot.sched_at = len(cycle)
                cycle.append(MultiEvent(slot.sched.ref, slot, False, code, lasti, site))
            elif type(entry) is OptimizerInfo:
                slot = slots.get(entry.key)
                if slot is None or slot.opt is not entry or -entry.key - 1 in seen:
                    return
                seen.add(-entry.key - 1)
                slot.at = len(cycle)
                if not under:
                    cycle.append(MultiEvent(entry.ref, slot, True))
                else:  # (the update is the lane's only inside scaler.step(): MultiEvent.sref)
                    cycle.append(MultiEvent(_noref, slot, True, sref=entry.ref))
            else:  # a scheduler step made elsewhere than from the user's line
                return
        if len(seen) != size:
            return
        scaled = self._multi_scaler() if under else None
        if under and scaled is None:
            return
        for i, event in enumerate(cycle):
            event.next = (i + 1) % size
        m = self.multi
        m.cycle = cycle
        m.slots = list(slots.values())
        m.pos = m.start = 0
        m.sphase = -1
        if scaled is not None:
            info_s, scale_t, scale_v, grow = scaled
            m.scaler_ref, m.scaler = info_s.ref, info_s
            m.scale_t, m.scale_v, m.grow = scale_t, scale_v, grow
            m.updates = 0
            m.nopt = len(m.slots)
            self.lane.bsite = self.lane.bcall = None
            m.unscaled = set()
            m.opened = self.clock
        # (at least ``left`` cycles: every event up to the first one that is not routine)
        m.left, m.periodic = self._multi_budget(m)
        m.budget = m.left
        m.fetch, m.loader, m.it_ref = fetch, loader, loader.iterator
        m.yielded = it._num_yielded
        m.snap = bool(self._handlers.get(SchedulerStep))
        seq.clear()
        self.lane.phase = MULTI

    def _multi_scaler(self) -> tuple[ScalerInfo, Any, int, int] | None:
        """What the lane for several optimizers needs to open under the one GradScaler known
        (see _multi_scaled_ok), at a step between the scaler's update() and the next scaled
        backward; None: no lane. The AMP check's state says where the iteration stands: no
        scaled backward awaits its update() (``scaled`` empty: every_direct_step is empty too)
        and nothing was unscaled since the last update(). Its ScalerUnscale handler is the
        event's only one (the lane tells it nothing until it closes), nothing asks for every
        ScalerUnscale or ScalerUpdate, and the scaler's last update() was routine from the scale
        it holds now. The lane's update()s are then decided with no tensor read (hooks: the
        update wrapper), as the lane for one optimizer's are (_open_scaled_lane): each update the
        lane counted was made by scaler.step() calling the optimizer's step, which GradScaler
        does only when every found-inf flag of that optimizer read 0, and the scale grows only
        at the update that completes growth_interval unskipped ones: the scale and the growth
        tracker (CPU tensors: no synchronization) are read here once. Then (the scaler's record,
        its scale tensor, that tensor's version counter, the update()s the lane may count)."""
        if not self._multi_scaled_ok():
            return None
        amp = self.scaled_gate
        [info] = self.scalers.values()
        handlers = self._handlers.get(ScalerUnscale)
        every = self._every_step_handlers
        if (amp.scaled or amp.unscaled or not handlers or len(handlers) != 1 or handlers[0] != amp.on_unscale
                or ScalerUnscale in every or ScalerUpdate in every or type(info.last_scale) is not float
                or info.consecutive_skips or info.pending_scales):
            return None
        scaler = info.ref()
        try:
            # torch's own GradScaler (a subclass may override _maybe_opt_step and step an
            # optimizer whatever its flags read: an update it made would then not imply them 0)
            if (scaler is None or type(scaler).__module__ not in _TORCH_SCALER_MODULES
                    or not getattr(scaler, "_enabled", False)):
                return None
            scale_t = scaler._scale
            tracker = scaler._growth_tracker
            if (not scale_t.is_cpu or not tracker.is_cpu or float(scale_t.item()) != info.last_scale):
                return None
            grow = scaler._growth_interval - int(tracker.item())
            scale_v = scale_t._version
        except Exception:
            return None
        if grow < 1:
            return None
        return info, scale_t, scale_v, grow

    def _multi_budget(self, m: MultiLane) -> tuple[int, bool]:
        """The step events the lane for several optimizers may take from its position, every
        tally kept: each optimizer's updates before its periodic one (every ROUTINE_PERIOD-th:
        never routine) and each scheduler's steps inside its horizon (on_scheduler_step:
        ``n < limit``) are counted in the cycle's order, and the budget ends right before the
        first event that is neither. Then whether that event is an optimizer's periodic update
        (which Engine.multi_period may keep); -1 (no event): a horizon passed."""
        size = len(m.cycle)
        pos = m.pos
        left = sys.maxsize
        periodic = False
        for slot in m.slots:
            info = slot.opt
            # its periodic update: the (ROUTINE_PERIOD - 1 - attempts % ROUTINE_PERIOD + 1)-th
            at = (slot.at - pos) % size + (ROUTINE_PERIOD - 1 - info.attempts % ROUTINE_PERIOD) * size
            if at < left:
                left, periodic = at, True
            if m.scaler is not None:
                # under GradScaler: its update at the taken count a check wants to see (due_taken:
                # on_attempt's test for a step made by scaler.step()), not kept by the lane
                at = (slot.at - pos) % size + (info.due_taken - info.taken - 1) * size
                if at < left:
                    left, periodic = at, False
            sched = slot.sched
            if sched is not None:
                limit = self.routine_limit(sched)
                if limit is None:
                    return -1, False
                # its first step past the horizon
                at = (slot.sched_at - pos) % size + (limit - 1 - sched.user_steps) * size
                if at <= left:
                    left, periodic = at, False
        return left, periodic

    def multi_period(self, opt: Any) -> bool:
        """The periodic update (every ROUTINE_PERIOD-th) of ``opt``, the next event of the
        open lane for several optimizers, whose budget ran out right before it
        (MultiLane.periodic), seen by the step hook: an update the lane would take otherwise.
        The lane keeps its tallies (_fold_multi: every record is then what the general path
        makes of the steps so far), counts this update and keeps it too, calls NaN detection's
        parameter check for this optimizer, as lane_period() does for the lane of one, and
        stays open with the budget to the next event that is not routine. The general path
        would hand this update to every check; an update routine in every other respect has,
        for each every_step=False OptimizerStep handler, nothing to do but that parameter check
        (the argument of lane_period(), per optimizer: StepOrder.on_opt resets the counts of
        this optimizer's schedulers, each stepped once since the last update, which _fold
        sets; LRCollapse.on_opt would only note this optimizer's LR and peak, a finite float at
        least COLLAPSE_RATIO of its peak; ManualLR.on_opt returns for LRs its last step left;
        AmpMisuse.on_step returns with nothing scaled, no GradScaler being known, for an
        optimizer whose first steps it saw). False: not such an update (nothing is left
        half done: it takes the general path, which closes the lane)."""
        m = self.multi
        lane = self.lane
        scaled = m.scaler is not None
        if (lane.phase != MULTI or m.left or not m.periodic or self.every_step or self.every_direct_step
                or self.compiled_steps or self.last_fetch != m.fetch
                or self._every_step_handlers.get(OptimizerStep)):
            return False
        if scaled:
            # under GradScaler (MultiLane.scaler): the update scaler.step() makes after the
            # iteration's scaled backward, as the lane's others. The general path would hand it to
            # every check too: the AMP check returns for a step made by scaler.step(), and NaN
            # detection's parameter check is made as for such a step (scaled_lane_period); the
            # lane's budget stops before the taken count a check wants to see (due_taken), which
            # that check then moves on
            if len(self._in_scaler_step) != 1 or m.sphase < 0:
                return False
        elif self._in_scaler_step or self.scalers:
            return False
        event = m.cycle[m.pos]
        if not event.attempt or (event.sref if scaled else event.ref)() is not opt:
            return False
        slot = event.slot
        info = slot.opt
        groups = opt.param_groups
        if type(groups) is not list or len(groups) != 1 or groups[0].get("lr") is not slot.lr:
            return False
        it = m.it_ref()
        if it is None:
            return False
        # this update: its optimizer's periodic one (its updates the lane took since the last
        # tally, as _fold_multi counts them, and this one), counted as the hook counts one,
        # then every tally kept (the lane stays open)
        size = len(m.cycle)
        steps = m.budget - m.left
        d = (slot.at - m.start) % size
        if (info.collapse_at is not None
                or (info.attempts + ((steps - d + size - 1) // size if d < steps else 0) + 1) % ROUTINE_PERIOD):
            return False
        m.budget += 1
        m.yielded = it._num_yielded
        m.pos = event.next
        if scaled:
            m.sphase += 1
        self._fold_multi()
        # (the check first: under GradScaler it moves the taken count it wants to see next,
        # which bounds the budget)
        self._period_check(info, scaled)
        m.left, m.periodic = self._multi_budget(m)
        if m.left < 0:
            m.left = 0
        m.budget = m.left
        # (hooks.FetchHook reads the lane's iterator from Lane.it_ref: the single lane is
        # closed, and sets its own when it opens)
        self._after_period(lane, it, m.it_ref)
        return True

    def _fold_multi(self) -> None:
        """Keep the tallies of the steps the lane for several optimizers took, exactly as
        on_attempt and on_scheduler_step keep them for routine steps with nothing to call; the
        lane then holds none. Each optimizer's updates and its scheduler's steps alternate, as
        in the lane for one optimizer, so each optimizer's are tallied by _fold (``lead``: its
        scheduler's step comes first after the last tally); what depends on how the
        optimizers' steps interleave (the clock, each scheduler's last clock, and the attempt
        counts kept at its last step) is then set from their places in the cycle."""
        m = self.multi
        steps, m.budget = m.budget - m.left, m.left
        if not steps:
            return
        size = len(m.cycle)
        start = m.start
        m.start = (start + steps) % size
        clock0 = self.clock
        scratch = m.scratch
        scratch.loader, scratch.yielded = m.loader, m.yielded
        # an event at offset d after the last tally (0: the first step since) occurred
        # (steps - d + size - 1) // size times in the ``steps`` steps, at d, d + size, ...
        updates: list[tuple[int, OptimizerInfo, int]] = []
        for slot in m.slots:
            d = (slot.at - start) % size
            count = (steps - d + size - 1) // size if d < steps else 0
            updates.append((d, slot.opt, count))
            scratch.opt, scratch.sched = slot.opt, slot.sched
            scratch.budget, scratch.left = count, 0
            scratch.lrs_after, slot.lrs = slot.lrs, []
            scratch.last_after = None
            scratch.lead = 0
            if slot.sched is not None:
                d_sched = (slot.sched_at - start) % size
                if d_sched < d and d_sched < steps:
                    scratch.lead = 1
            self.clock = clock0
            self._fold(scratch)
        self.clock = clock0 + steps
        self._attempts_seen = None
        shared: dict[int, dict[int, int]] = {}
        snap: dict[int, int] | None = None
        for slot in m.slots:
            sched = slot.sched
            if sched is None:
                continue
            d = (slot.sched_at - start) % size
            if d >= steps:
                continue
            at = d + (steps - d - 1) // size * size  # the offset of its last step
            sched.last_clock = clock0 + at + 1
            if m.snap:
                # every optimizer's attempt count at that step: the updates after it not yet
                # made (one dict for the steps between two updates, as on_scheduler_step)
                before = sum((at - du + size - 1) // size if at > du else 0 for du, _, _ in updates)
                snap = shared.get(before)
                if snap is None:
                    snap = shared[before] = {}
                    for o in self.optimizers.values():
                        snap[o.key] = o.attempts
                    for du, o, count in updates:
                        snap[o.key] -= count - ((at - du + size - 1) // size if at > du else 0)
                sched.attempts_seen = snap
        if m.snap and not m.cycle[(start + steps - 1) % size].attempt:
            # the last step was a scheduler step: its counts hold until the next update
            self._attempts_seen = shared.get(sum(count for _, _, count in updates))

    def sync(self) -> None:
        """Close the lane, keeping the tallies of the steps it took, one by one, as
        on_attempt and on_scheduler_step keep them for routine steps."""
        lane = self.lane
        phase = lane.phase
        if phase == CLOSED:
            return
        lane.phase = CLOSED
        if lane.unhooked:  # the __next__ hook back first: the general path reads what it notes
            if self.fetch_hook is not None:
                self.fetch_hook.restore()
            lane.unhooked = False
        if phase >= MULTI:  # the lane for several optimizers
            m = self.multi
            if m.scaler is not None:  # under GradScaler: its routine updates (on_scaler_update)
                amp = self.scaled_gate
                if amp is not None:
                    # what the AMP check was not told while the lane was open
                    try:
                        # (the scaled backward's line: Lane.bsite, see amphooks)
                        amp.lane_closed_multi(m.scaler.key, m.scaler_ref, m.sphase, lane.bsite, m.unscaled,
                                              m.updates)
                    except ScheduleError:
                        raise
                    except Exception as exc:
                        self.internal_error(exc)
                m.scaler.updates += m.updates
                m.updates = 0
                m.scaler_ref, m.scaler = _noref, None
                m.scale_t = lane.bsite = lane.bcall = None
                m.sphase = -1
                size = len(m.cycle)
                if self.clock + m.budget - m.left - m.opened < size and self._multi_from != sys.maxsize:
                    # closed within its first cycle: an iteration the lane cannot hold (a clip of
                    # some optimizers' parameters with only those unscaled...) would open and
                    # close it on every one; the general path learns again ROUTINE_PERIOD
                    # cycles later
                    self._multi_from = self.clock + ROUTINE_PERIOD * size
            self._fold_multi()
            return
        if lane.scaler is not None:  # under GradScaler: its routine updates (on_scaler_update)
            amp = self.scaled_gate
            if amp is not None:
                # what the AMP check was not told while the lane was open (AmpMisuse.lane_closed)
                try:
                    amp.lane_closed(lane.scaler.key, lane.scaler_ref, lane.opt.key, phase,  # type: ignore[union-attr]
                                    lane.bsite, lane.unscaled, lane.updates)
                except ScheduleError:
                    raise
                except Exception as exc:
                    self.internal_error(exc)
            lane.scaler.updates += lane.updates
            lane.updates = 0
            lane.scaler_ref, lane.scaler = _noref, None
            lane.scale_t = lane.bsite = lane.bcall = None
        lane.opt_ref = lane.sched_ref = _noref
        self._fold(lane)
        lane.budget = lane.left = 0

    def _fold(self, lane: Lane) -> None:
        """Keep the tallies of the steps the lane took since it opened or last folded (its
        updates, each followed by its scheduler step while the scheduler kept up, after the
        scheduler step of an update already tallied if ``lane.lead``), exactly as
        on_attempt and on_scheduler_step keep them for routine steps; the lane then holds
        none."""
        taken, after, last_after, lead = lane.budget - lane.left, lane.lrs_after, lane.last_after, lane.lead
        lane.budget = lane.left
        lane.lrs_after = []
        lane.last_after = None
        lane.lead = 0
        info, sched = lane.opt, lane.sched
        if info is None or not (taken or (lead and (after or last_after is not None))):
            return
        # In bulk, with the same result as taking the steps one by one: update i trains with
        # the LRs the step before it left (the first with info.known_lrs, or, after a lead
        # scheduler step, with what that step left), and, while the scheduler kept up, is
        # followed by its scheduler step
        clock, n = self.clock, info.attempts
        history = info.lr_history
        last = info.last_lrs
        known = info.known_lrs
        if sched is not None and last_after is None and type(known) is tuple and len(known) == 1:
            # the common case: every LR of the lane's updates is a routine float (finite:
            # the hooks test it), the first the one-float tuple known_lrs (unless a lead
            # scheduler step left another), the others the floats the scheduler steps left.
            # The LR history below, with the floats compared as they are and a 1-tuple made
            # only for an LR that changed (a tuple of one finite float differs from another
            # exactly when the floats differ)
            m = len(after)  # taken - 1 + lead or taken + lead scheduler steps
            if lead:
                floats = after[:taken]
                first: tuple[Any, ...] = (floats[0],) if taken else known
            else:
                floats = [known[0]]
                floats += after[:taken - 1]
                first = known
            marks = [first != last]
            marks += map(ne, floats[1:], floats)
            changes = list(zip(compress(count(n + 1), marks), zip(compress(floats, marks))))
            if marks[0] and changes and not lead:
                changes[0] = (n + 1, known)
            # the highest LR of the changes, read from the floats (the same floats in the same
            # order: no pass over the tuples just made)
            top: Any = max(compress(floats, marks)) if changes else None
            lrs: Any = (after[-1],) if m else known
        else:
            left: list[Any] = []  # the LRs each scheduler step left, as tuples
            if sched is not None:
                left = list(zip(after))  # (in C: the routine floats, each a 1-tuple)
                if last_after is not None:
                    left.append(last_after)
            m = len(left)  # taken - 1 + lead or taken + lead scheduler steps
            used: list[Any] = [] if lead else [known]
            used += left[:taken - 1 + lead]
            # the LR history: the updates whose LRs differ from the update before them (in C:
            # each update's number and LRs, kept where they differ from the ones before)
            changes = list(compress(zip(count(n + 1), used), map(ne, used, [last] + used[:-1])))
            top = None
            lrs = left[m - 1] if m else known
        if changes:
            if len(history) + len(changes) <= LR_HISTORY_CAP:
                history += changes
            else:  # thinned to every other change past the cap, as each change is added
                for change in changes:
                    history.append(change)
                    if len(history) > LR_HISTORY_CAP:
                        del history[1::2]
            # (every LR here is a routine float: a step that left anything else ends the lane's
            # updates, so its LRs are never an update's; in C: the highest of them)
            if top is None:
                top = max(map(itemgetter(0), map(itemgetter(1), changes)))
            if top >= info.peak_lr:
                info.peak_lr = top
            info.last_lrs = changes[-1][1]
            info.lr_routine = True
        if m:
            # the scheduler's steps: clock ticks alternate update, scheduler step (scheduler
            # step, update after a lead one)
            sched.user_steps += m  # type: ignore[union-attr]
            sched.last_clock = clock + 2 * m - lead  # type: ignore[union-attr]
            sched.last_lrs = lrs  # type: ignore[union-attr]
            sched.step_marks.add_consecutive(n + 1 - lead, m)  # type: ignore[union-attr]
        clock += taken + m
        if sched is not None:
            # 1: the last step was a scheduler step, after the last update
            sched.steps_since_attempt = 1 if m == taken + lead else 0
        self.clock = clock
        info.known_lrs = lrs
        if not taken:
            return
        n += taken
        info.attempts = n
        self._attempts_seen = None
        if n > self.most_attempts:
            self.most_attempts = n
        info.taken += taken
        info.last_attempt = _TAKEN
        loader = lane.loader
        if loader is not None:
            # the iterator itself may be gone by now (its pass ended): the count at the last
            # update was noted by the lane
            loader.batches = lane.yielded
            loader.attempts_in_iteration += taken
            self.last_batch_loader = loader

    def lane_period(self, opt: Any) -> bool:
        """The periodic step (every ROUTINE_PERIOD-th) of the optimizer the lane is open for,
        an update the lane would take otherwise (its budget ran out at the period: see
        Lane.periodic), seen by the step hook. The lane counts it and keeps its tallies
        (_fold: every record is then what the general path makes of the steps so far, this
        one included), and stays open for the next period. The general path would hand this
        step to every check; a step that is routine in every other respect has, for each
        every_step=False handler, nothing to do (see on_attempt) but NaN detection's periodic
        parameter check, which is called here directly (NonFinite.lane_check). When that
        check asks for every step (a NaN found), the lane closes. False: the step is not
        such a step (nothing was done: it takes the general path)."""
        lane = self.lane
        info = lane.opt
        if (lane.phase != EXPECT_ATTEMPT or lane.opt_ref() is not opt or not lane.periodic or lane.left
                or info is None or lane.scaler is not None
                or self.every_step or self.every_direct_step or self._in_scaler_step
                or self.compiled_steps or self.last_fetch != lane.fetch or info.collapse_at is not None):
            return False
        start = self._period_start(lane, opt)
        if start is None:
            return False
        it, sched, left, periodic = start
        # this update, counted as the hook counts one, then everything tallied
        lane.budget += 1
        lane.yielded = it._num_yielded
        lane.phase = lane.after_attempt
        self._fold(lane)
        lane.left = lane.budget = left
        lane.periodic = periodic
        if sched is not None:
            lane.lead = 1  # (the lane waits for this update's scheduler step)
        self._period_check(info)
        self._after_period(lane, it)
        return True

    def _period_start(self, lane: Any, opt: Any) -> tuple[Any, Any, int, bool] | None:
        """What lane_period() and scaled_lane_period() ask alike of a periodic update: one
        param group whose LR is the lane's, the lane's iterator still alive, and the lane's
        scheduler inside its horizon for this update's step and the next period's. Then
        (iterator, scheduler, updates the lane may take next, whether the last of them is the
        next periodic one); None: the update takes the general path."""
        groups = opt.param_groups
        if type(groups) is not list or len(groups) != 1 or groups[0].get("lr") is not lane.lr:
            return None
        it = lane.it_ref()  # (the batch count the hook notes for an update: Lane.it_ref)
        if it is None:
            return None
        sched = lane.sched
        left = ROUTINE_PERIOD - 1
        periodic = True
        if sched is not None:
            limit = self.routine_limit(sched)
            if limit is None:
                return None
            # the scheduler step of this update and the next period's, each after an update
            # of the lane, all inside the horizon (user_steps < limit: Engine.on_scheduler_step)
            within = limit - 2 - (sched.user_steps + len(lane.lrs_after))
            if within < 0:
                return None
            if within < left:
                left, periodic = within, False
        return it, sched, left, periodic

    def _period_check(self, info: Any, via_scaler: bool = False) -> None:
        """NaN detection's parameter check at a periodic update a lane keeps (its finding
        raised in --strict mode, an internal error reported and swallowed)."""
        gate = self.loss_gate
        if gate is not None:
            try:
                gate.lane_check(info, via_scaler)
            except ScheduleError:
                raise
            except Exception as exc:
                self.internal_error(exc)

    def _after_period(self, lane: Any, it: Any, it_ref: Any = None) -> None:
        """The end of a periodic update the lane kept: closed if a check now wants every
        step, else the DataLoader hook taken off (the lane lasted a whole period); ``it_ref``:
        the iterator's reference for the hook to read, when the lane is not the one that set
        Lane.it_ref (the lane for several optimizers)."""
        if self.every_step or self.every_direct_step:
            self.sync()  # (nothing to tally: only closed)
        elif not lane.unhooked and self.fetch_hook is not None:
            # DataLoader batches need no hook while the lane's iterator is the only one
            # (hooks.FetchHook)
            if it_ref is not None:
                lane.it_ref = it_ref
            try:
                self.fetch_hook.drop(it)
            except Exception as exc:
                self.internal_error(exc)

    def scaled_lane_period(self, opt: Any) -> bool:
        """lane_period() for the lane under GradScaler: the periodic update (every
        ROUTINE_PERIOD-th) that scaler.step() makes for the lane's optimizer after the lane's
        scaled backward, an update the lane would take otherwise (its budget ran out at the
        period: Lane.periodic, set only when the periodic update's update() starts from the
        scale the lane started with). The lane counts it and keeps its tallies (_fold), calls
        NaN detection's parameter check as for a step made by scaler.step(), and stays open:
        next comes this update's update() (EXPECT_UPDATE), taken by the lane as any other.
        The general path would hand this step to every check; in every other respect it is a
        routine step made by scaler.step(), for which each every_step=False handler has
        nothing to do but that parameter check (the AMP check returns for a step made by
        scaler.step(); what it is told of the iteration the lane keeps, AmpMisuse.lane_closed).
        False: the step is not such a step (nothing was done: it takes the general path)."""
        lane = self.lane
        info = lane.opt
        if (lane.phase != lane.scaled_phase or lane.opt_ref() is not opt or not lane.periodic or lane.left
                or info is None or lane.scaler is None
                or self.every_step or self.every_direct_step or len(self._in_scaler_step) != 1
                or self.compiled_steps or self.last_fetch != lane.fetch or info.collapse_at is not None):
            return False
        start = self._period_start(lane, opt)
        if start is None:
            return False
        it, sched, left, periodic = start
        # this update, counted as the hook counts one, then everything tallied; the lane waits
        # for this update's update()
        lane.budget += 1
        lane.yielded = it._num_yielded
        lane.phase = EXPECT_UPDATE
        self._fold(lane)
        if sched is not None:
            lane.lead = 1  # (after the update(), this update's scheduler step)
        self._period_check(info, True)
        # the updates the lane may still make: this one's update() is its (updates + 1)-th
        # since it opened; no more than that leaves before the one that grows the scale (and
        # the next periodic update only if it starts from the same scale), and none at or after
        # the taken count a check wants to see (the parameter check above moved it)
        grow = lane.grow - lane.updates - 1
        due = info.due_taken - info.taken - 1
        if due < left:
            left, periodic = due, False
        if grow <= left:
            left, periodic = grow, False
        lane.left = lane.budget = max(left, 0)
        lane.periodic = periodic
        self._after_period(lane, it)
        return True

    def on_internal_scheduler_step(self, sched: Any) -> None:
        """A step made by PyTorch itself (construction, a composite stepping its children)."""
        self.sync()
        self.scheduler(sched)
        opt = getattr(sched, "optimizer", None)
        info = self.known_optimizer(opt) if opt is not None else None
        if info is not None:
            info.known_lrs = lrs_of(opt)

    def on_scaler_update(self, scaler: Any, scale_before: Any, skipped_any: bool | None) -> None:
        self.sync()
        info = self.scaler(scaler)
        info.updates += 1
        if isinstance(scale_before, float):
            if info.first_scale is None:
                info.first_scale = scale_before
            info.min_scale = scale_before if info.min_scale is None else min(info.min_scale, scale_before)
            info.scale_history.add(self.most_attempts, scale_before)
        elif scale_before is not None:
            info.pending_scales.append((self.most_attempts, scale_before))
            if len(info.pending_scales) >= 256:
                self.read_pending_scales(info)
        # a routine update: nothing skipped, the scale the last update had, no run of skips
        # before it, no check asking for every step, and NaN detection's device flags not due
        # (its ScalerUpdate handler drains them); the every_step=False handlers have nothing
        # to do then, except the AMP check's end of the scaler's iteration, which it is told
        # directly (scaled_gate)
        nf = self.loss_gate
        routine = (skipped_any is False and type(scale_before) is float and scale_before == info.last_scale
                   and not info.consecutive_skips and not self.every_step
                   and (nf is None or not nf.flags.due))
        info.last_scale = scale_before
        if skipped_any:
            info.consecutive_skips += 1
            info.max_consecutive_skips = max(info.max_consecutive_skips, info.consecutive_skips)
        elif skipped_any is False:
            info.consecutive_skips = 0
        if not routine:
            self._routine_update = None
            self.emit(ScalerUpdate(info, scale_before, skipped_any))
            return
        self._routine_update = (info, self.clock)
        amp = self.scaled_gate
        if amp is not None:
            amp.updated(info.key)
        handlers = self._every_step_handlers.get(ScalerUpdate)
        if handlers:
            self._dispatch(handlers, ScalerUpdate(info, scale_before, skipped_any))

    @staticmethod
    def read_pending_scales(info: ScalerInfo) -> None:
        """Read the device copies of a scaler's scale: one synchronization for many updates."""
        pending, info.pending_scales = info.pending_scales, []
        try:
            import torch

            values = torch.stack([t.detach().reshape(()).float() for _, t in pending]).tolist()
        except Exception:  # copies on different devices, or not tensors: read one by one
            values = []
            for _, t in pending:
                try:
                    values.append(float(t.item()))
                except Exception:
                    values.append(None)
        for (step, _), value in zip(pending, values):
            if value is not None:
                info.scale_history.add(step, value)

    def on_optimizer_created(self, opt: Any, site: Site | None) -> None:
        self.sync()
        self.optimizer(opt).created_site = site

    def on_lrs_replaced(self, opt: Any) -> None:
        """``optimizer.load_state_dict`` or ``add_param_group``: the new LRs are legitimate."""
        self.sync()
        info = self.known_optimizer(opt)
        if info is not None:
            info.known_lrs = lrs_of(opt)

    def finish(self, error: BaseException | None = None, interrupted: bool = False) -> None:
        if self.finished:
            return
        self.sync()
        if self.compiled_steps:
            self.drain_compiled()
        for info in self.optimizers.values():
            if info.last_attempt is not None:
                self._settle(info, info.last_attempt)
                info.last_attempt = None
        self.resolve_pending()
        for scaler in self.scalers.values():
            if scaler.pending_scales:
                self.read_pending_scales(scaler)
        if self.train_loader is not None and self.train_loader.iterations:
            self._pull_batches(self.train_loader)
            self._close_pass(self.train_loader)
        self.end = RunEnd(error, interrupted)
        try:
            self.emit(self.end)
        finally:
            self.finished = True

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.started


def _routine_lr(opt: Any, info: Any) -> float | None:
    """The LR of ``opt``'s one param group when a lane may take it as routine: a finite float,
    at least COLLAPSE_RATIO of the highest LR so far, and the only LR known for the optimizer
    (``info``, its OptimizerInfo); None otherwise (several groups, a tensor LR, a fall)."""
    groups = opt.param_groups
    if type(groups) is not list or len(groups) != 1:
        return None
    lr = groups[0].get("lr")
    if (type(lr) is not float or not lr - lr == 0.0 or lr < info.peak_lr * COLLAPSE_RATIO
            or info.known_lrs != (lr,)):
        return None
    return lr
