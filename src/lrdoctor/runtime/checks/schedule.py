"""Runtime checks of LR-schedule use. Each check is a small class reading the event stream.

Granularity is judged from the scheduler's horizon against what was observed (scheduler steps
and optimizer steps per pass over the training loader), never from the class name alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lrdoctor.findings import Finding
from lrdoctor.runtime.callsite import display_path
from lrdoctor.runtime.engine import COLLAPSE_RATIO, Engine, fmt_lrs, location
from lrdoctor.runtime.events import (
    EpochStart,
    OptimizerInfo,
    OptimizerStep,
    RunEnd,
    SchedulerInfo,
    SchedulerStep,
)
from lrdoctor.schedulers import lambda_shape, recomputes_lr


def _is_float(v: Any) -> bool:
    return isinstance(v, (float, int)) and not isinstance(v, bool)


def _all_zero(lrs: tuple[Any, ...], base: tuple[Any, ...] | None) -> bool:
    if not lrs or not base or len(lrs) != len(base):
        return False
    if not all(_is_float(v) for v in lrs + base):
        return False
    return all(b > 0 and v <= b * 1e-12 for v, b in zip(lrs, base))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _num(v: Any) -> float:
    return float(v) if _is_float(v) else 0.0


def _times(n: int) -> str:
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


class Check:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine


class EpochSchedulerPerBatch(Check):
    """LRD002: the whole horizon passes inside one pass over the training data.

    Judged per scheduler: beside another scheduler on the same optimizer (a warm-up next to a
    decay), the optimizer's LR is the product of both, so what a scheduler does is read from
    its own schedule (its closed form or its lambdas), never from the combined LR. A scheduler
    whose own LR ends its horizon at or above where it started (a warm-up: ``LinearLR`` rising,
    ``ConstantLR``) may pass that horizon within an epoch: after it the LR stays at its base.
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.done: set[int] = set()  # schedulers reported, or judged to be warm-ups
        self.epoch1_end: dict[int, tuple[Any, ...] | None] = {}  # scheduler key -> LRs after epoch 1
        # a routine scheduler step is inside its horizon: nothing to judge
        engine.subscribe(SchedulerStep, self.on_step, every_step=False)
        engine.subscribe(EpochStart, self.on_epoch)
        engine.subscribe(RunEnd, self.on_end)

    def on_epoch(self, ev: EpochStart) -> None:
        if ev.epoch != 2 or ev.loader.attempts_in_iteration:
            return
        for s in self.engine.schedulers.values():
            if s.user_steps:
                self.epoch1_end[s.key] = _own_lrs(self.engine, s, s.user_steps) or s.last_lrs

    def on_step(self, ev: SchedulerStep) -> None:
        s = ev.scheduler
        eng = self.engine
        loader = eng.train_loader
        if loader is None or s.parent_key is not None or s.key in self.done:
            return
        horizon = s.horizon
        if horizon is not None and s.user_steps - eng._pass_marks.get(loader.key, {}).get(s.key, 0) <= horizon:
            return  # the common case: still inside the horizon this epoch (steps_this_epoch)
        kind = s.kind
        if kind is not None and (kind.cyclic or kind.composite):
            return
        opt = eng.optimizer_of(s)
        if opt is None:
            return
        in_epoch = eng.steps_this_epoch(s)
        attempts = eng.attempts_this_epoch(opt)  # of this scheduler's optimizer only
        horizon = s.horizon
        observed = False
        if horizon is None and s.zero_at is None and _all_zero(ev.lrs_after, s.first_lrs):
            if not _shared(eng, s) or _own_zero(s):
                s.zero_at = s.user_steps
        if horizon is None and s.zero_at is not None:
            horizon, observed = s.zero_at, True
        if horizon is None or horizon < 1:
            return
        # stepped every batch: as many scheduler steps as optimizer steps in this pass so far,
        # and more of them than the whole horizon
        # (more scheduler steps than updates is gradient accumulation: LRD017's business)
        if (in_epoch > horizon and in_epoch >= 2 and attempts >= 2
                and attempts * 2 >= in_epoch * 1 >= attempts / 2):
            if not observed and _warms_up(s, horizon):
                self.done.add(s.key)  # a warm-up shorter than an epoch: correct
                return
            batches = loader.length
            of = f" of {batches}" if batches else ""
            if observed:
                what = (f"its LR reached 0 after {horizon} steps, at batch {loader.batches}{of} "
                        f"of epoch {eng.epoch}")
            else:
                what = (f"{in_epoch} steps into epoch {eng.epoch} (batch {loader.batches}{of}) it "
                        f"has already passed its horizon of {horizon} steps")
            unit = "LR steps" if kind is not None and kind.plateau else "a horizon"
            first = _own_lrs(eng, s, 0) or s.first_lrs
            now = _own_lrs(eng, s, s.user_steps) or ev.lrs_after
            self.done.add(s.key)
            eng.report(
                Finding(
                    "LRD002",
                    f"{s.label} is stepped every batch: {what}; {unit} sized in epochs "
                    f"(LR {fmt_lrs(first)} -> {fmt_lrs(now)})",
                    location(ev.site),
                    evidence={"scheduler": s.label, "horizon": horizon, "epoch": eng.epoch,
                              "steps_in_epoch": in_epoch, "batches_per_epoch": batches},
                ),
                key=s.key,
            )

    def on_end(self, ev: RunEnd) -> None:
        eng = self.engine
        for s in eng.schedulers.values():
            if not eng.has_finding("LRD002", s.key) or not s.epoch_steps:
                continue
            per_epoch = s.epoch_steps[0] if s.epoch_steps[0] else max(s.epoch_steps)
            first = _own_lrs(eng, s, 0) or s.first_lrs
            last = _own_lrs(eng, s, s.user_steps) or s.last_lrs
            epochs = len(s.epoch_steps)
            after_one = self.epoch1_end.get(s.key)
            if epochs > 1 and after_one is not None:
                # the LR in force at the end of epoch 1, then where training ended
                rest = _plural(epochs - 1, "epoch")
                if fmt_lrs(last) == fmt_lrs(after_one):
                    fate = f"it stayed there for the remaining {rest}"
                elif s.kind is not None and s.kind.overrun == "rises":
                    fate = (f"it went on oscillating for the remaining {rest} (LR {fmt_lrs(last)} "
                            f"at the end)")
                elif last is not None and _rose(after_one, last):
                    fate = f"it was {fmt_lrs(last)} at the end of training"
                else:
                    fate = f"it kept falling for the remaining {rest}, to {fmt_lrs(last)}"
                fall = f"LR fell from {fmt_lrs(first)} to {fmt_lrs(after_one)} within epoch 1; {fate}"
            else:
                fall = f"LR fell from {fmt_lrs(first)} to {fmt_lrs(last)} within epoch 1"
            eng.update_finding(
                "LRD002", s.key,
                message=(
                    f"{s.label} stepped {per_epoch} times in epoch 1 (once per batch) but its "
                    + (f"horizon of {s.horizon} steps" if s.horizon else
                       f"LR reached 0 after {s.zero_at} steps: a horizon")
                    + f" is sized in epochs: {fall}"
                ),
            )


def _shared(eng: Engine, s: SchedulerInfo) -> bool:
    """Another top-level scheduler also steps this scheduler's optimizer."""
    opt = eng.optimizer_of(s)
    return opt is not None and any(
        o is not s and o.parent_key is None and o.user_steps for o in opt.schedulers)


def _factors(s: SchedulerInfo, step: int) -> list[float] | None:
    """A LambdaLR's own factors at its ``step``-th step (its lambdas are kept for this)."""
    if not s.lr_lambdas:
        return None
    try:
        return [float(f(step)) for f in s.lr_lambdas]
    except Exception:  # the user's lambda: never let it break the check
        return None


def _own_zero(s: SchedulerInfo) -> bool:
    """The scheduler's own schedule, not a neighbour's, brought the LR to 0."""
    sched = s.obj
    factors = _factors(s, getattr(sched, "last_epoch", s.user_steps))
    if factors is not None:
        return all(f <= 0.0 for f in factors)
    own = _closed_form(sched, getattr(sched, "last_epoch", None))
    return own is not None and all(v <= 0.0 for v in own)


def _closed_form(sched: Any, last_epoch: int | None) -> tuple[float, ...] | None:
    """The LRs ``sched`` alone gives at ``last_epoch`` (PyTorch's closed forms), probed on a
    shallow copy so the live scheduler is untouched; None where there is no closed form."""
    if sched is None or last_epoch is None or not hasattr(sched, "_get_closed_form_lr"):
        return None
    import copy

    try:
        probe = copy.copy(sched)
        probe.last_epoch = last_epoch
        return tuple(float(v) for v in probe._get_closed_form_lr())
    except Exception:
        return None


def _own_lrs(eng: Engine, s: SchedulerInfo, step: int) -> tuple[float, ...] | None:
    """What the scheduler alone sets after its ``step``-th user step, where another scheduler
    shares its optimizer (the LR then is both of theirs); None: read the optimizer's LR."""
    if not _shared(eng, s):
        return None
    sched = s.obj
    if sched is None:
        return None
    offset = getattr(sched, "last_epoch", s.user_steps) - s.user_steps  # steps at construction
    factors = _factors(s, offset + step)
    if factors is not None:
        base = getattr(sched, "base_lrs", None) or ()
        if len(base) == len(factors):
            return tuple(_num(b) * f for b, f in zip(base, factors))
        return None
    return _closed_form(sched, offset + step)


def _warms_up(s: SchedulerInfo, horizon: int) -> bool:
    """The scheduler's own LR at the end of its horizon is not below where it started: a
    warm-up (``LinearLR(start_factor=0.01)``, ``ConstantLR``), which ends at the base LR."""
    sched = s.obj
    if sched is None:
        return False
    offset = getattr(sched, "last_epoch", s.user_steps) - s.user_steps
    start_step = max(0, offset)
    before: Sequence[float] | None = _factors(s, start_step)
    after: Sequence[float] | None = _factors(s, start_step + horizon)
    if before is None or after is None:
        before = _closed_form(sched, start_step)
        after = _closed_form(sched, start_step + horizon)
    if not before or not after or len(before) != len(after):
        return False
    return all(a >= b * (1 - 1e-9) for b, a in zip(before, after))


class BatchSchedulerPerEpoch(Check):
    """LRD003 (stepped once per pass but sized in batches) and LRD011 (ends far from done)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.per_epoch: dict[int, int] = {}
        engine.subscribe(EpochStart, self.on_epoch)
        engine.subscribe(RunEnd, self.on_end)

    def _updates(self, s: SchedulerInfo) -> list[int]:
        """Updates of the scheduler's own optimizer in each complete pass (three models with
        three optimizers make three times the attempts of any one of them)."""
        opt = self.engine.optimizer_of(s)
        if opt is not None and opt.epoch_attempts:
            return opt.epoch_attempts
        loader = self.engine.train_loader
        return loader.attempts_per_iteration if loader is not None else []

    def _per_epoch(self, s: SchedulerInfo) -> bool:
        """Stepped at most once per complete pass, over passes with several updates."""
        loader = self.engine.train_loader
        if loader is None or not s.epoch_steps:
            return False
        passes = list(zip(s.epoch_steps, self._updates(s)))
        passes = [(n, a) for n, a in passes if a >= 2]
        return bool(passes) and all(n <= 1 for n, _ in passes) and any(n == 1 for n, _ in passes)

    def on_epoch(self, ev: EpochStart) -> None:
        if ev.epoch < 2:
            return
        eng = self.engine
        for s in list(eng.schedulers.values()):
            kind = s.kind
            if s.parent_key is not None or kind is None or kind.design != "batch":
                continue
            if eng.has_finding("LRD003", s.key) or not self._per_epoch(s):
                continue
            self._report(s, self._updates(s)[-1], complete=False)

    @staticmethod
    def _message(s: SchedulerInfo, horizon: int | None, per_epoch: int, complete: bool) -> str:
        done = f"{s.user_steps}/{horizon}" if horizon else str(s.user_steps)
        pct = f" ({100 * s.user_steps / horizon:.2g}% of the schedule)" if horizon else ""
        return (
            f"{s.label} is stepped once per epoch but sized in batches: {per_epoch} optimizer "
            f"steps per epoch, scheduler at step {done}{pct}"
            + (" when training ended" if complete else f" after epoch {s.user_steps}")
            + f"; LR {fmt_lrs(s.first_lrs)} -> {fmt_lrs(s.last_lrs)}"
        )

    def _report(self, s: SchedulerInfo, per_epoch: int, complete: bool,
                horizon: int | None = None) -> None:
        horizon = horizon or s.horizon
        self.per_epoch[s.key] = per_epoch
        self.engine.report(
            Finding(
                "LRD003",
                self._message(s, horizon, per_epoch, complete),
                location(s.first_site),
                evidence={"scheduler": s.label, "horizon": horizon, "steps": s.user_steps,
                          "optimizer_steps_per_epoch": per_epoch},
            ),
            key=s.key,
        )

    def on_end(self, ev: RunEnd) -> None:
        eng = self.engine
        for s in eng.schedulers.values():
            kind = s.kind
            if s.parent_key is not None or s.user_steps == 0 or kind is None:
                continue
            horizon = s.horizon
            shape = shape_of(s, retry=True) if kind.name == "LambdaLR" else None
            if horizon is None and shape is not None:
                horizon = shape.horizon
            if horizon is None or kind.cyclic or kind.plateau or kind.composite:
                if shape is not None and shape.warmup:
                    self._mid_warmup(s, shape.warmup, ev)
                continue
            per_epoch = self._per_epoch(s)
            updates = self._updates(s)
            attempts = sum(updates)
            per_epoch_updates = max(updates, default=0)
            if per_epoch and not eng.has_finding("LRD003", s.key) and s.user_steps < horizon:
                sized_in_batches = kind.design == "batch" or (
                    per_epoch_updates >= 2 and horizon >= per_epoch_updates
                    and abs(horizon - attempts) <= max(2, 0.1 * attempts)
                )
                if sized_in_batches:
                    self._report(s, per_epoch_updates, complete=True, horizon=horizon)
                    continue
            if eng.has_finding("LRD003", s.key):
                eng.update_finding("LRD003", s.key, message=self._message(
                    s, horizon, self.per_epoch.get(s.key, per_epoch_updates), complete=True))
                continue
            if ev.error is not None or ev.interrupted:
                continue
            if not (kind.decays_to_floor or kind.name in ("LambdaLR", "MultiplicativeLR")):
                continue
            # half of the schedule or less: an accumulation or process count left out of
            # num_training_steps ends at exactly 1/2, 1/4, ... (a resumed run counts from where
            # the loaded schedule stood)
            if 2 * (s.user_steps + s.restored_steps) <= horizon:
                warmup = shape.warmup if shape is not None else None
                if warmup and s.user_steps < warmup:
                    state = f"still warming up (warm-up ends at step {warmup})"
                else:
                    state = "never annealed"
                eng.report(
                    Finding(
                        "LRD011",
                        f"training ended with {s.label} at step {s.user_steps} of its "
                        f"{horizon}-step horizon ({100 * s.user_steps / horizon:.2g}%): LR "
                        f"{fmt_lrs(s.first_lrs)} -> {fmt_lrs(s.last_lrs)}, {state}"
                        + self._why_short(s, horizon),
                        location(s.last_site),
                        evidence={"scheduler": s.label, "horizon": horizon, "steps": s.user_steps},
                    ),
                    key=s.key,
                )

    def _why_short(self, s: SchedulerInfo, horizon: int) -> str:
        """The likely cause when the horizon is a whole multiple of the steps made: it counted
        batches while the scheduler steps once per update (gradient accumulation), or every
        process's batches while each process sees its share."""
        eng = self.engine
        loader = eng.train_loader
        opt = eng.optimizer_of(s)
        if loader is None or opt is None or not opt.attempts:
            return ""
        batches = sum(loader.batches_per_iteration)
        attempts = sum(loader.attempts_per_iteration) or opt.attempts
        ratio = batches / attempts if attempts else 0
        n = s.user_steps
        if ratio >= 1.5 and n <= attempts and abs(horizon - n * ratio) <= max(2, 0.1 * horizon):
            return (f"; its horizon counts batches ({batches} in this run) but it is stepped "
                    f"once per optimizer update ({attempts}, one every {ratio:.3g} batches: "
                    f"gradient accumulation): size it in updates (batches / accumulation steps)")
        world = _world_size()
        if world > 1 and abs(horizon - n * world) <= max(2, 0.1 * horizon):
            return (f"; its horizon is {world}x the steps made here: under {world} processes "
                    f"each sees 1/{world} of the batches, so size it from the prepared "
                    f"(per-process) loader")
        return ""

    def _mid_warmup(self, s: SchedulerInfo, warmup: int, ev: RunEnd) -> None:
        """A warm-up followed by a constant (or slowly falling) LR: ended before the peak."""
        if ev.error is not None or ev.interrupted or 2 * (s.user_steps + s.restored_steps) > warmup:
            return
        self.engine.report(
            Finding(
                "LRD011",
                f"training ended with {s.label} at step {s.user_steps}, still warming up (its "
                f"warm-up reaches the peak LR at step {warmup}): LR {fmt_lrs(s.first_lrs)} -> "
                f"{fmt_lrs(s.last_lrs)}" + self._why_short(s, warmup),
                location(s.last_site),
                evidence={"scheduler": s.label, "warmup": warmup, "steps": s.user_steps},
            ),
            key=s.key,
        )


def shape_of(s: SchedulerInfo, retry: bool = False) -> Any:
    """The LambdaShape of a LambdaLR, probed on first need (a copy of its factor functions);
    ``retry`` probes again at the end if the first probe failed (a lambda reading a global
    defined after the scheduler)."""
    if s.shape_probed and not (retry and s.shape is None):
        return s.shape
    s.shape_probed = True
    fns = s.lr_lambdas
    if not fns:
        sched = s.obj
        fns = list(getattr(sched, "lr_lambdas", ()) or ()) if sched is not None else None
    s.shape = lambda_shape(fns) if fns else None
    return s.shape


def _world_size() -> int:
    import sys

    dist = getattr(sys.modules.get("torch"), "distributed", None)
    try:
        if dist is not None and dist.is_available() and dist.is_initialized():
            return int(dist.get_world_size())
    except Exception:
        pass
    return 1


class ScheduleOverrun(Check):
    """LRD010: stepped past the horizon (OneCycleLR raises, a cosine climbs back up, a decay to 0
    ends while many updates remain, all of them at LR ~0)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        # scheduler key -> optimizer steps taken when it reached a horizon where its LR
        # reaches its floor and stays there
        self.ended_at: dict[int, int] = {}
        engine.subscribe(SchedulerStep, self.on_step, every_step=False)  # routine: inside the horizon
        engine.subscribe(RunEnd, self.on_end)

    def on_step(self, ev: SchedulerStep) -> None:
        s = ev.scheduler
        horizon = s.horizon
        kind = s.kind
        if kind is None:
            return
        overrun = kind.overrun
        floor = kind.decays_to_floor
        if horizon is None:
            if kind.name != "LambdaLR":
                return
            shape = shape_of(s)
            if shape is None or shape.horizon is None:
                return
            horizon, overrun, floor = shape.horizon, "rises" if shape.rises_after else "", True
        if s.user_steps < horizon:
            return
        eng = self.engine
        if not overrun:
            if floor and s.key not in self.ended_at and s.parent_key is None:
                opt = eng.optimizer_of(s)
                self.ended_at[s.key] = opt.attempts if opt is not None else 0
            return
        if s.user_steps == horizon:
            return
        if eng.has_finding("LRD010", s.key) or eng.has_finding("LRD002", s.key):
            return
        if overrun == "crash" and ev.error is not None:
            what = f"it raised {type(ev.error).__name__} at step {s.user_steps}"
        elif overrun == "rises" and _rose(ev.lrs_before, ev.lrs_after):
            what = (f"at step {s.user_steps} the LR climbs back up "
                    f"({fmt_lrs(ev.lrs_before)} -> {fmt_lrs(ev.lrs_after)})")
        else:
            return
        accum = ""
        opt = eng.optimizer_of(s)
        if opt is not None and opt.attempts and s.user_steps > 1.5 * opt.attempts:
            accum = f" (stepped {s.user_steps} times for {opt.attempts} optimizer steps: see LRD017)"
        eng.report(
            Finding(
                "LRD010",
                f"{s.label} stepped past its horizon of {horizon} steps: {what}{accum}",
                location(ev.site),
                evidence={"scheduler": s.label, "horizon": horizon, "steps": s.user_steps,
                          # the optimizer step at which the scheduler went past its horizon
                          **({"step": opt.attempts} if opt is not None and opt.attempts else {})},
            ),
            key=s.key,
        )

    def on_end(self, ev: RunEnd) -> None:
        """A schedule that reached LR ~0 while a good part of training was still to come."""
        eng = self.engine
        for key, at in self.ended_at.items():
            s = eng.schedulers.get(key)
            opt = eng.optimizer_of(s) if s is not None else None
            if s is None or opt is None or not opt.attempts:
                continue
            if any(eng.has_finding(code, key) for code in ("LRD010", "LRD002", "LRD017")):
                continue
            later = opt.attempts - at
            if later < max(2, 0.1 * opt.attempts) or not _near_zero(s, opt):
                continue
            horizon = s.horizon or (s.shape.horizon if s.shape is not None else None)
            why = ""
            processes = _accelerate_processes()
            if processes > 1 and abs(s.user_steps - processes * opt.attempts) <= processes:
                why = (f"; Accelerate steps a prepared scheduler once per process ({processes} "
                       f"processes), so its horizon must count the batches of all processes "
                       f"(the loader's length before accelerator.prepare)")
            eng.report(
                Finding(
                    "LRD010",
                    f"{s.label} reached the end of its {horizon}-step horizon after optimizer "
                    f"step {at} of {opt.attempts}: the remaining {later} updates trained at LR "
                    f"{fmt_lrs(s.last_lrs)}{why}",
                    location(s.last_site),
                    evidence={"scheduler": s.label, "horizon": horizon, "steps": s.user_steps,
                              "optimizer_steps": opt.attempts, "updates_after_end": later,
                              "step": at + 1},  # the first update after the schedule ended
                ),
                key=key,
            )


def _near_zero(s: SchedulerInfo, opt: OptimizerInfo) -> bool:
    """The LR the schedule ended at is ~0 next to the base LR of each param group."""
    groups = getattr(opt.obj, "param_groups", None) or ()
    lrs = s.last_lrs or ()
    if not groups or len(groups) != len(lrs):
        return False
    for lr, g in zip(lrs, groups):
        base = g.get("initial_lr", None)
        if not (_is_float(lr) and _is_float(base)) or base <= 0 or lr > 1e-3 * base:
            return False
    return True


def _rose(before: tuple[Any, ...], after: tuple[Any, ...]) -> bool:
    return any(_is_float(a) and _is_float(b) and a > b * (1 + 1e-9) for b, a in zip(before, after))


class StepOrder(Check):
    """LRD001 (scheduler before the first optimizer step), LRD017 (several scheduler steps per
    optimizer step), LRD014 (the scheduler's optimizer is not the one being stepped) and LRD012
    (two schedulers interleaving on one optimizer)."""

    DECIDE_AFTER = 3  # optimizer attempts before LRD001 vs LRD017 is decided

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        # a routine scheduler step comes after its optimizer's first step, with no other
        # optimizer or scheduler to compare with
        engine.subscribe(SchedulerStep, self.on_sched, every_step=False)
        # a routine optimizer step has each scheduler stepped at most once since the last one
        # and no LRD001 decision pending (then the engine resets the counts itself)
        engine.subscribe(OptimizerStep, self.on_opt, every_step=False)
        engine.subscribe(RunEnd, self.on_end)
        self.pending_001: dict[int, SchedulerInfo] = {}

    def on_sched(self, ev: SchedulerStep) -> None:
        s = ev.scheduler
        eng = self.engine
        if s.parent_key is not None or not s.optimizer_key:
            return
        opt = eng.optimizers.get(s.optimizer_key)  # optimizer_of(), inlined: every step
        if opt is None:
            return
        kind = s.kind
        if opt.attempts == 0 and not (kind is not None and kind.plateau):
            if not eng.has_finding("LRD014", s.key):
                self.pending_001.setdefault(s.key, s)
                eng.every_step.add(self)  # the optimizer steps that decide it (_decide_001)
        if len(eng.optimizers) > 1:
            self._stale(ev, s, opt)
        # (a rival steps the same optimizer, so it is one of opt.schedulers, besides s)
        if s.user_steps >= 2 and len(opt.schedulers) > 1 and len(eng.schedulers) > 1:
            self._competing(ev, s, opt)

    def _stale(self, ev: SchedulerStep, s: SchedulerInfo, opt: OptimizerInfo) -> None:
        """LRD014: other optimizers were stepped since our last step, ours was not."""
        eng = self.engine
        # the counts at our last step (Engine.on_scheduler_step keeps them after the handlers,
        # routine steps included)
        seen = s.attempts_seen or {}
        # the other optimizers that moved are looked for only when ours did not (the common
        # case, each optimizer stepped with its scheduler, needs no list a step)
        others = [] if opt.attempts > seen.get(opt.key, 0) else [
            o for o in eng.optimizers.values() if o.key != opt.key and o.attempts > seen.get(o.key, 0)]
        if others and not eng.has_finding("LRD014", s.key):
            other = max(others, key=lambda o: o.attempts)
            since = "ever" if opt.attempts == 0 else f"since optimizer step {opt.attempts}"
            eng.report(
                Finding(
                    "LRD014",
                    f"{s.label} drives {opt.label}, which has not been stepped {since}, while "
                    f"{other.label} took {other.attempts - seen.get(other.key, 0)} steps: the "
                    f"scheduler changes the LR of an optimizer that no longer trains",
                    location(ev.site),
                    evidence={"scheduler": s.label, "optimizer": opt.label, "stepped": other.label},
                ),
                key=s.key,
            )
            self.pending_001.pop(s.key, None)

    def _competing(self, ev: SchedulerStep, s: SchedulerInfo, opt: OptimizerInfo) -> None:
        """LRD012: X ... Y ... X on the same optimizer, where one of them recomputes the LR from
        its base values (chainable schedulers stepped back to back are a ChainedScheduler)."""
        eng = self.engine
        mine: bool | None = None
        looked = False  # recomputes_lr(s.cls) is asked only once a rival on the same optimizer is
        for rival in eng.schedulers.values():
            if (rival is s or rival.optimizer_key != s.optimizer_key or rival.parent_key is not None
                    or rival.user_steps == 0 or s.parent_key == rival.key or rival.parent_key == s.key):
                continue
            if not looked:
                mine, looked = recomputes_lr(s.cls), True
            if mine is None:
                return
            theirs = recomputes_lr(rival.cls)
            if theirs is None or not (mine or theirs):
                continue
            if rival.last_clock > s.first_clock:  # s ... rival ... s: interleaved
                pair = tuple(sorted((s.key, rival.key)))
                if eng.has_finding("LRD012", pair):
                    continue
                eng.report(
                    Finding(
                        "LRD012",
                        f"{s.label} and {rival.label} both step {opt.label} (interleaved: "
                        f"{s.user_steps} and {rival.user_steps} steps so far); "
                        f"{(s if mine else rival).cls} recomputes the LR from its base value at "
                        f"every step, erasing what {(rival if mine else s).cls} did",
                        location(ev.site),
                        evidence={"schedulers": [s.label, rival.label], "optimizer": opt.label},
                    ),
                    key=pair,
                )

    def on_opt(self, ev: OptimizerStep) -> None:
        opt = ev.optimizer
        eng = self.engine
        for s in opt.schedulers:
            n = s.steps_since_attempt
            if n < 2 and not s.multi_step_runs:
                s.steps_since_attempt = 0  # the common case: one scheduler step per update
                continue
            if s.parent_key is not None:
                continue
            s.steps_since_attempt = 0
            if ev.attempt.index == 1:
                continue  # the steps before the first update are LRD001's business
            if n >= 2:
                s.multi_step_runs += 1
                if s.kind is not None and s.kind.plateau:
                    self._plateau_per_process(s, n)
            else:
                s.multi_step_runs = 0
            if (s.multi_step_runs >= 2 and not eng.has_finding("LRD017", s.key)
                    and not _accelerate_design(s, n)):
                self.pending_001.pop(s.key, None)
                eng.report(
                    Finding(
                        "LRD017",
                        self._message_017(s, opt, n),
                        location(s.last_site),
                        evidence={"scheduler": s.label, "ratio": n, "scheduler_steps": s.user_steps,
                                  "optimizer_steps": opt.attempts},
                    ),
                    key=s.key,
                )
        if self.pending_001 and opt.attempts >= self.DECIDE_AFTER:
            self._decide_001(opt.key)
        if not self.pending_001:
            eng.every_step.discard(self)

    def _plateau_per_process(self, s: SchedulerInfo, n: int) -> None:
        """LRD017 for a ReduceLROnPlateau that Accelerate steps once per process for each call:
        right for a schedule counted in batches (Accelerate's design), wrong for a plateau,
        whose patience then counts every evaluation ``n`` times."""
        eng = self.engine
        if eng.has_finding("LRD017", s.key) or not _accelerate_design(s, n):
            return
        patience = getattr(s.obj, "patience", None)
        effect = ""
        if isinstance(patience, int):
            needed = -(-(patience + 1) // n)  # evaluations without improvement before a cut
            effect = (f": the LR is cut after {_plural(needed, 'epoch')} without improvement "
                      f"instead of {patience + 1}")
            if n > patience + 1:
                effect += ", several times in one evaluation"
        eng.report(
            Finding(
                "LRD017",
                f"{s.label} is stepped {n} times per call: Accelerate steps a prepared scheduler "
                f"once per process ({n} processes), so each evaluation counts {n} times toward "
                f"its patience{effect}",
                location(s.last_site),
                fix="don't pass ReduceLROnPlateau to accelerator.prepare (step it yourself with "
                "the gathered metric), or use Accelerator(step_scheduler_with_optimizer=False)",
                evidence={"scheduler": s.label, "steps_per_call": n, "patience": patience},
            ),
            key=s.key,
        )

    def _decide_001(self, opt_key: int | None = None) -> None:
        eng = self.engine
        for key, s in list(self.pending_001.items()):
            if opt_key is not None and s.optimizer_key != opt_key:
                continue
            del self.pending_001[key]
            if eng.has_finding("LRD017", key) or eng.has_finding("LRD014", key):
                continue
            opt = eng.optimizer_of(s)
            label = opt.label if opt else "its optimizer"
            eng.report(
                Finding(
                    "LRD001",
                    f"{s.label} stepped {_times(s.steps_before_first_attempt)} before "
                    f"{label} took its first step: every update trains with the LR of a later "
                    f"schedule step (its first value, {fmt_lrs(s.first_lrs)}, is skipped and "
                    f"each change comes "
                    + ("one step" if s.steps_before_first_attempt == 1
                       else f"{s.steps_before_first_attempt} steps") + " early)",
                    location(s.first_site),
                    # step: the first update, the one that trained with a skipped value
                    evidence={"scheduler": s.label,
                              "steps_before_first_update": s.steps_before_first_attempt,
                              "step": 1},
                ),
                key=key,
            )

    @staticmethod
    def _message_017(s: SchedulerInfo, opt: OptimizerInfo, n: float) -> str:
        per = f"{n:.3g}"
        why = "gradient accumulation?"
        processes = _accelerate_processes()
        if processes > 1 and abs(n - processes) < 0.5:
            why = (f"Accelerate steps a prepared scheduler once per process, {processes} "
                   f"processes: its horizon must count the batches of all processes")
        return (f"{s.label} is stepped {per} times per {opt.label} step ({why}): "
                f"{s.user_steps} scheduler steps for {opt.attempts} optimizer steps, so the "
                f"schedule runs {per}x too fast")

    def on_end(self, ev: RunEnd) -> None:
        self._decide_001()
        eng = self.engine
        for s in eng.schedulers.values():
            opt = eng.optimizer_of(s)
            if (opt is not None and opt.attempts and eng.has_finding("LRD017", s.key)
                    and not (s.kind is not None and s.kind.plateau)):
                # the numbers of the whole run, not those of the moment it was first seen
                ratio = s.user_steps / opt.attempts
                eng.update_finding("LRD017", s.key, message=self._message_017(s, opt, ratio),
                                   evidence={"scheduler": s.label, "ratio": round(ratio, 3),
                                             "scheduler_steps": s.user_steps,
                                             "optimizer_steps": opt.attempts})


def _accelerate_design(s: SchedulerInfo, n: int) -> bool:
    """Accelerate steps a prepared scheduler once per process for every update (its design:
    the schedule is sized in the batches of all processes), so ``n`` steps per update under
    ``n`` processes is not gradient accumulation. Whether ``s`` is wrapped by Accelerate is
    looked up once, on this rare path, from the objects that refer to it."""
    processes = _accelerate_processes()
    if processes < 2 or n != processes:
        return False
    import gc

    sched = s.obj
    if sched is None:
        return False
    # the wrapper itself refers to it (attributes stored inline), or its __dict__ does
    holders = gc.get_referrers(sched)
    owners = [h for h in holders if not isinstance(h, dict)]
    for d in holders:
        if isinstance(d, dict) and d.get("scheduler") is sched:
            owners += [o for o in gc.get_referrers(d) if getattr(o, "__dict__", None) is d]
    return any(type(o).__name__ == "AcceleratedScheduler" and getattr(o, "scheduler", None) is sched
               and getattr(o, "step_with_optimizer", False) for o in owners)


def _accelerate_processes() -> int:
    """Accelerate's process count if it is set up in this process (read from its shared
    state without constructing anything), else 1."""
    import sys

    state = sys.modules.get("accelerate.state")
    shared = getattr(getattr(state, "PartialState", None), "_shared_state", None)
    try:
        return int((shared or {}).get("num_processes") or 1)
    except (TypeError, ValueError):
        return 1


class SkippedUpdates(Check):
    """LRD005: GradScaler skipped updates and the scheduler stepped anyway."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        engine.subscribe(RunEnd, self.on_end)

    def on_end(self, ev: RunEnd) -> None:
        eng = self.engine
        for opt in eng.optimizers.values():
            if opt.skipped_then_scheduled == 0:
                continue
            scheds = [s for s in eng.schedulers_of(opt) if s.parent_key is None and s.user_steps]
            if not scheds:
                continue
            s = scheds[0]
            scale = ""
            scalers = [sc for sc in eng.scalers.values() if sc.first_scale is not None]
            if scalers:
                sc = scalers[0]
                scale = f", scale {sc.first_scale:g} -> {sc.min_scale:g}"
            warned = ""
            if opt.first_skips_scheduled:
                warned = (
                    " PyTorch's warning \"Detected call of `lr_scheduler.step()` before "
                    "`optimizer.step()`\" was caused by GradScaler skipping the first "
                    + ("optimizer step" if opt.first_skips == 1 else f"{opt.first_skips} optimizer steps")
                    + ", not by your call order."
                )
            eng.report(
                Finding(
                    "LRD005",
                    f"GradScaler skipped {opt.skipped} of {opt.attempts} {opt.label} steps (inf/NaN "
                    f"gradients{scale}) and {s.label} stepped anyway after "
                    f"{_plural(opt.skipped_then_scheduled, 'skipped step')}: the schedule runs "
                    f"ahead of the real updates.{warned}",
                    location(s.first_site),
                    evidence={"skipped": opt.skipped, "attempts": opt.attempts,
                              "scheduled_after_skip": opt.skipped_then_scheduled,
                              "skipped_at_start": opt.first_skips,
                              # where the HTML report puts the finding's marker
                              "step": opt.first_skipped_then_scheduled},
                ),
                key=opt.key,
            )


class ManualLR(Check):
    """LRD008: ``param_group['lr']`` written by code while a scheduler drives the optimizer."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        # a routine optimizer step finds the LRs the last step or scheduler step left
        engine.subscribe(OptimizerStep, self.on_opt, every_step=False)
        # scheduler steps matter only while a write waits to be reported (every_step token)
        engine.subscribe(SchedulerStep, self.on_sched, every_step=False)
        # opt key -> (attempt, old LRs, new LRs, the user's line that wrote them if known)
        self.writes: dict[int, tuple[int, Any, Any, Any]] = {}

    def on_opt(self, ev: OptimizerStep) -> None:
        opt = ev.optimizer
        known = opt.known_lrs
        lrs = ev.lrs
        if known == lrs or known is None or len(known) != len(lrs):
            return
        if not all(_is_float(v) for v in lrs + known):
            return
        driving = [s for s in self.engine.schedulers_of(opt) if s.user_steps and s.parent_key is None]
        if driving and opt.key not in self.writes:
            import sys

            from lrdoctor.runtime.lrwrite import find_lr_write

            self.writes[opt.key] = (ev.attempt.index, known, lrs, find_lr_write(sys._getframe(1)))
            self.engine.every_step.add(self)

    def on_sched(self, ev: SchedulerStep) -> None:
        if not self.writes:
            return
        s = ev.scheduler
        opt = self.engine.optimizer_of(s)
        if opt is None or opt.key not in self.writes or self.engine.has_finding("LRD008", opt.key):
            return
        index, old, new, written_at = self.writes[opt.key]
        if all(k == opt.key or self.engine.has_finding("LRD008", k) for k in self.writes):
            self.engine.every_step.discard(self)  # nothing left to report
        self.engine.report(
            Finding(
                "LRD008",
                f"param_group['lr'] of {opt.label} changed from {fmt_lrs(old)} to {fmt_lrs(new)} "
                f"before optimizer step {index} outside any scheduler, while {s.label} drives "
                f"the same optimizer and keeps stepping"
                + (f" (at {display_path(ev.site[0])}:{ev.site[1]})" if written_at and ev.site else ""),
                location(written_at or ev.site),
                evidence={"optimizer": opt.label, "scheduler": s.label, "step": index},
            ),
            key=opt.key,
        )


class LRCollapse(Check):
    """LRD009: early in training the LR fell below 1e-6 of the LR the run had reached, and did
    not recover.

    Measured against the highest LR reached so far, not the first one: a warm-up from 0 (the
    default of Hugging Face's schedules, ``LambdaLR(lambda s: s / warmup)``) starts at 0 and
    rises, which is no fall. A fall that the schedule climbs back from (a warm restart) is not a
    collapse either: the candidate is dropped when the LR rises above the threshold again.
    """

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        # a routine optimizer step has one float LR not below 1e-6 of the highest so far
        # (OptimizerInfo.peak_lr, kept by the engine on every step) and no collapse pending
        engine.subscribe(OptimizerStep, self.on_opt, every_step=False)
        engine.subscribe(EpochStart, self.on_epoch)
        engine.subscribe(RunEnd, self.on_end)
        self.collapse_epoch: dict[int, int] = {}
        self.peak: dict[int, tuple[float, ...]] = {}  # optimizer key -> highest LR per group
        self.reference: dict[int, tuple[float, ...]] = {}  # the peak the LR fell from
        # the LRs at the last step seen, and the highest LR the run had reached then (skip a
        # step where neither changed: it would find what the last one found)
        self.last: dict[int, tuple[tuple[Any, ...], float]] = {}

    def on_opt(self, ev: OptimizerStep) -> None:
        opt = ev.optimizer
        key = opt.key
        lrs = ev.lrs
        # (with the peak: routine steps this check does not see may have raised it since, and
        # a fall back to the LR of the last step seen is then a fall from the new peak)
        seen = (lrs, opt.peak_lr)
        if self.last.get(key) == seen:
            return  # the common case: the LR did not change since the last step
        self.last[key] = seen
        values = tuple(_num(v) for v in lrs)
        peak = self.peak.get(key)
        if peak is None or len(peak) != len(values):
            peak = values
        else:
            peak = tuple(max(p, v) for p, v in zip(peak, values))
        if len(peak) == 1 and opt.peak_lr > peak[0]:
            # one param group: the routine steps this check did not see rose to this peak
            peak = (opt.peak_lr,)
        self.peak[key] = peak
        if opt.collapse_at is not None:
            # a schedule that climbs back is not a collapse (warm restarts, a cycle's trough)
            ref = self.reference[key]
            if len(ref) == len(values) and all(v >= r * COLLAPSE_RATIO for v, r in zip(values, ref)):
                opt.collapse_at = opt.collapse_lrs = None
                self.collapse_epoch.pop(key, None)
            return
        for i, (v, p) in enumerate(zip(values, peak)):
            if p > 0 and v < p * COLLAPSE_RATIO and _is_float(lrs[i]):
                opt.collapse_at = ev.attempt.index
                opt.collapse_lrs = lrs
                self.reference[key] = peak
                self.collapse_epoch[key] = self.engine.epoch
                return

    def _explained(self, opt_key: int) -> bool:
        eng = self.engine
        return any(eng.has_finding(code, s.key) for s in eng.schedulers.values()
                   if s.optimizer_key == opt_key for code in ("LRD002", "LRD017"))

    def _report(self, opt_key: int, why: str) -> None:
        eng = self.engine
        opt = eng.optimizers[opt_key]
        if self._explained(opt_key) or eng.has_finding("LRD009", opt_key):
            return
        scheds = [s for s in eng.schedulers_of(opt) if s.user_steps]
        by = f" under {scheds[0].label}" if scheds else ""
        eng.report(
            Finding(
                "LRD009",
                f"LR of {opt.label} fell from {fmt_lrs(self.reference.get(opt_key))} to "
                f"{fmt_lrs(opt.collapse_lrs)} (below 1e-6 of the LR it had reached) at optimizer "
                f"step {opt.collapse_at}{by}, {why}",
                location(scheds[0].last_site) if scheds else None,
                evidence={"optimizer": opt.label, "step": opt.collapse_at},
            ),
            key=opt_key,
        )

    def on_epoch(self, ev: EpochStart) -> None:
        if ev.epoch != 2:
            return
        for key, epoch in list(self.collapse_epoch.items()):
            if epoch == 1:
                self._report(key, "in epoch 1 and it stayed there into epoch 2")

    def on_end(self, ev: RunEnd) -> None:
        eng = self.engine
        for opt in eng.optimizers.values():
            if opt.collapse_at is None:
                # reported while collapsed, then recovered: a schedule that rose again
                if eng.has_finding("LRD009", opt.key) and opt.key in self.reference:
                    eng.drop_finding("LRD009", opt.key)
                continue
            if opt.collapse_at < 0.5 * opt.attempts:
                self._report(opt.key, f"in the first half of {opt.attempts} steps, and it "
                             f"never recovered")


SCHEDULE_CHECKS = (
    EpochSchedulerPerBatch,
    BatchSchedulerPerEpoch,
    ScheduleOverrun,
    StepOrder,
    SkippedUpdates,
    ManualLR,
    LRCollapse,
)
