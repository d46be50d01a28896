"""Runtime checks of GradScaler and float16 use: LRD102 (Adam-family eps that vanishes in
float16), LRD108 (clipping scaled gradients), LRD109 (``optimizer.step()`` after a scaled
backward), LRD110 (``scaler.step()`` without ``scaler.update()``).

The scaler's state is followed through its own calls: a backward on what ``scaler.scale()``
returned leaves the gradients scaled until ``scaler.unscale_(optimizer)`` (or ``scaler.step``)
divides them, and ``scaler.update()`` starts the next iteration.
"""

from __future__ import annotations

import weakref
from typing import Any

from lrdoctor.findings import Finding
from lrdoctor.optimizers import ADAPTIVE, unscaled_update
from lrdoctor.runtime.amphooks import install_amp_hooks
from lrdoctor.runtime.engine import EXPECT_SCALED_ATTEMPT, EXPECT_UPDATE, Engine, location
from lrdoctor.runtime.events import (
    BackwardDone,
    GradClip,
    OptimizerStep,
    RunEnd,
    ScalerUnscale,
    ScalerUpdate,
    Site,
)
from lrdoctor.runtime.localize import fmt_site
from lrdoctor.runtime.numerics import eps_vanishes
from lrdoctor.runtime.patching import Patcher

# optimizers whose eps is added to a denominator built from squared gradients
EPS_IN_DENOMINATOR = ADAPTIVE


def _scale_text(scaler: Any) -> str:
    """The scale as a number when reading it costs nothing (CPU), else ''."""
    scale = getattr(scaler, "_scale", None)
    if scale is None or getattr(scale.device, "type", "cpu") != "cpu":
        return ""
    return f"{float(scale.item()):g}"


class AmpMisuse:
    """LRD102, LRD108, LRD109, LRD110."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # id(scaler) -> (scaler ref, site of the scaled backward) since its last update()
        self.scaled: dict[int, tuple[Any, Site | None]] = {}
        self.unscaled: dict[int, set[int]] = {}  # id(scaler) -> ids of unscaled optimizers
        self.seen: dict[int, Any] = {}  # id(scaler) -> weak reference
        self.updates: dict[int, int] = {}
        self.checked_eps: set[int] = set()
        engine.subscribe(BackwardDone, self.on_backward_done, every_step=False)  # scaled ones only
        # an unscale_ that scaler.step() makes in a lane under GradScaler is told to
        # unscaled_by() directly (amphooks)
        engine.subscribe(ScalerUnscale, self.on_unscale, every_step=False)
        # a clip with nothing to do (clip_is_routine) makes no event (amphooks)
        engine.subscribe(GradClip, self.on_clip, every_step=False)
        # a routine optimizer step is not an optimizer's first: its eps was checked then;
        # while a scaled backward awaits its scaler.step(), every step made outside
        # scaler.step() is seen (see scaled); one made by scaler.step() has nothing more to do
        engine.subscribe(OptimizerStep, self.on_step, every_step=False)
        # a routine update (Engine.on_scaler_update) is told to updated() directly
        engine.subscribe(ScalerUpdate, self.on_update, every_step=False)
        engine.subscribe(RunEnd, self.on_end)
        engine.scaled_gate = self

    def install(self, patcher: Patcher) -> None:
        install_amp_hooks(self.engine, patcher)

    # ---- the scaler's state -------------------------------------------------------------------

    def on_backward_done(self, done: BackwardDone) -> None:
        ev = done.backward
        if ev.scaler is not None:
            self.scaled_backward(ev.scaler, ev.site)

    def scaled_backward(self, scaler: Any, site: Site | None) -> None:
        """A backward of what ``scaler.scale()`` returned, from the user's line ``site``
        (called by on_backward_done, and by the backward hook for a routine one, which makes
        no event)."""
        entry = self.scaled.get(id(scaler))
        if entry is None or entry[0]() is not scaler or entry[1] != site:
            self.scaled[id(scaler)] = (weakref.ref(scaler), site)
        # the optimizer steps made outside scaler.step() (LRD109) until update(), and no lane
        # for a routine step made outside it before this backward (Engine.open_lane)
        self.engine.every_direct_step.add(self)
        self.engine._routine_opt = None

    def on_unscale(self, ev: ScalerUnscale) -> None:
        # keyed by the optimizer's record: a wrapper and the optimizer it wraps are one
        self.unscaled_by(id(ev.scaler), self.engine.optimizer(ev.optimizer).key, ev.scaler)

    def unscaled_by(self, key: int, opt_key: int, scaler: Any) -> None:
        """``scaler`` (``key``: its id) unscaled the gradients of the optimizer ``opt_key``."""
        self.unscaled.setdefault(key, set()).add(opt_key)
        if key not in self.seen:
            self.seen[key] = weakref.ref(scaler)

    def on_update(self, ev: ScalerUpdate) -> None:
        self.updated(ev.scaler.key)

    def updated(self, key: int) -> None:
        """``update()`` of the scaler ``key``: its iteration is over."""
        self.scaled.pop(key, None)
        if not self.scaled:
            self.engine.every_direct_step.discard(self)
        self.unscaled.pop(key, None)
        self.updates[key] = self.updates.get(key, 0) + 1

    def lane_closed(self, key: int, ref: Any, opt_key: int, phase: int, site: Site | None,
                    unscaled: bool, updates: int) -> None:
        """The lane under GradScaler (Engine.Lane) closed in ``phase``: what scaled_backward,
        unscaled_by and updated would have left for its scaler (``key``, weakly ``ref``) had
        they been called on each of its steps. While the lane is open it keeps that itself:
        the user's line of its iteration's scaled backward (``site``), whether the optimizer
        ``opt_key`` was unscaled since (``unscaled``), and its routine updates (``updates``);
        every reader of this check's state syncs first (Engine.emit), and the clip hook reads
        the lane. The lane opens right after a routine update(), which ended the scaler's
        iteration here."""
        pending = phase == EXPECT_SCALED_ATTEMPT or phase == EXPECT_UPDATE
        # (scaler.step() unscales before it steps)
        done = {opt_key} if pending and (phase == EXPECT_UPDATE or unscaled) else set()
        self.lane_closed_multi(key, ref, 0 if pending else -1, site, done, updates)

    def lane_closed_multi(self, key: int, ref: Any, sphase: int, site: Site | None, unscaled: set[int],
                          updates: int) -> None:
        """lane_closed() for the lane for several optimizers under GradScaler (Engine.MultiLane),
        closed where the scaler's iteration stood at ``sphase``: -1 after an update() (or before
        the lane's first scaled backward), else after the scaled backward from the user's line
        ``site``, with the optimizers ``unscaled`` (their record keys) unscaled since. The lane
        opens only when no scaled backward awaits its update() here and nothing is unscaled
        (Engine._multi_scaler), so its ``updates`` routine update()s each ended an iteration."""
        if updates:
            self.updates[key] = self.updates.get(key, 0) + updates
        if sphase >= 0:
            entry = self.scaled.get(key)
            if entry is None or entry[0]() is not ref() or entry[1] != site:
                self.scaled[key] = (ref, site)
            self.engine.every_direct_step.add(self)
            self.engine._routine_opt = None
            if unscaled:
                self.unscaled[key] = set(unscaled)
                if key not in self.seen:
                    self.seen[key] = ref
            else:
                self.unscaled.pop(key, None)
        elif updates:  # the last update() ended the iteration
            self.scaled.pop(key, None)
            if not self.scaled:
                self.engine.every_direct_step.discard(self)
            self.unscaled.pop(key, None)

    # ---- LRD108 ---------------------------------------------------------------------------

    def clip_is_routine(self) -> bool:
        """Whether on_clip has nothing to do for a clip of any parameters now: no scaled
        backward awaits its update(), or each such scaler has unscaled the gradients of every
        optimizer known (so of whichever optimizers own the clipped parameters, and of some)."""
        scaled = self.scaled
        if not scaled:
            return True
        for key in scaled:
            done = self.unscaled.get(key)
            if not done:
                return False
            for info in self.engine.optimizers.values():
                if info.key not in done:
                    return False
        return True

    def on_clip(self, ev: GradClip) -> None:
        if not self.scaled:
            return
        ids = {id(p) for p in ev.params}
        owners = []
        for info in self.engine.optimizers.values():
            opt = info.obj
            if opt is not None and any(id(p) in ids for g in opt.param_groups for p in g["params"]):
                owners.append(info.key)
        for key, (ref, site) in list(self.scaled.items()):
            scaler = ref()
            if scaler is None:
                continue
            done = self.unscaled.get(key, set())
            if owners and all(o in done for o in owners):
                continue
            if not owners and done:
                continue
            if self.engine.has_finding("LRD108", ev.site):
                return
            scale = _scale_text(scaler)
            times = f" by {scale}" if scale else ""
            self.engine.report(
                Finding(
                    "LRD108",
                    f"{ev.function} clipped gradients still multiplied{times} by GradScaler "
                    f"(scaler.scale(loss).backward() at {fmt_site(site)}, no scaler.unscale_(optimizer) "
                    f"before the clip): the threshold applies to the scaled gradients, so the real "
                    f"max norm is {'1/' + scale + ' of ' if scale else ''}what you asked for",
                    location(ev.site),
                    evidence={"function": ev.function, "scale": float(scale) if scale else None,
                              "step": 1 + max((o.attempts for o in self.engine.optimizers.values()),
                                              default=0)},
                ),
                key=ev.site,
            )
            return

    # ---- LRD102, LRD109, LRD110 -----------------------------------------------------------

    def on_step(self, ev: OptimizerStep) -> None:
        if not self.scaled and ev.optimizer.key in self.checked_eps:
            return  # the common case: nothing scaled since the last update, eps seen
        opt = ev.optimizer.ref()
        if opt is None:
            return
        if ev.optimizer.key not in self.checked_eps:
            self.checked_eps.add(ev.optimizer.key)
            self._check_eps(opt, ev)
        if ev.via_scaler:
            return
        for ref, site in self.scaled.values():
            scaler = ref()
            if scaler is None or self.engine.has_finding("LRD109", ev.optimizer.key):
                continue
            scale = _scale_text(scaler)
            times = f"{scale} times" if scale else "the scale times"
            self.engine.report(
                Finding(
                    "LRD109",
                    f"{ev.optimizer.label}.step() was called directly after scaler.scale(loss).backward() "
                    f"(at {fmt_site(site)}): the gradients were never unscaled, so "
                    f"{unscaled_update(type(opt).__name__, times)}",
                    location(ev.site),
                    evidence={"optimizer": ev.optimizer.label, "scale": float(scale) if scale else None},
                ),
                key=ev.optimizer.key,
            )

    def _check_eps(self, opt: Any, ev: OptimizerStep) -> None:
        import torch

        if type(opt).__name__ not in EPS_IN_DENOMINATOR:
            return
        for group in opt.param_groups:
            eps = group.get("eps")
            if not isinstance(eps, (int, float)):
                continue
            half = [p for p in group["params"] if p.dtype == torch.float16]
            if half and eps_vanishes(float(eps), torch.float16):
                self.engine.report(
                    Finding(
                        "LRD102",
                        f"{ev.optimizer.label} has eps={eps:g} with {len(half)} float16 parameter "
                        f"tensor{'s' if len(half) != 1 else ''}: float16's smallest subnormal is 6e-08, "
                        f"so eps is 0 there and any element whose gradient is 0 gets 0/0 = NaN",
                        location(ev.optimizer.created_site or ev.site),
                        evidence={"optimizer": ev.optimizer.label, "eps": eps, "float16_params": len(half)},
                    ),
                    key=ev.optimizer.key,
                )
                return

    def on_end(self, ev: RunEnd) -> None:
        """A scaler left with an optimizer in the STEPPED stage: step() ran, update() did not."""
        if ev.error is not None or self.engine.has_finding("LRD110"):
            return
        for key, ref in self.seen.items():
            scaler = ref()
            states = getattr(scaler, "_per_optimizer_states", None) or {}
            if any(getattr(s.get("stage"), "name", "") == "STEPPED" for s in states.values()):
                self.engine.report(
                    Finding(
                        "LRD110",
                        "scaler.step() ran but scaler.update() did not follow: the scale never adapts "
                        "and the next scaler.step() raises \"step() has already been called since the "
                        "last update()\"",
                        location(self.scaled.get(key, (None, None))[1]),
                        evidence={"updates": self.updates.get(key, 0)},
                    )
                )
                return


CHECKS = (AmpMisuse,)
