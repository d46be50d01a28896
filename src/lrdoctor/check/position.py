"""Where a scheduler starts: torch's ``last_epoch`` argument, read one way by every rule.

A scheduler built with ``last_epoch=-1`` (torch's default) starts its schedule from the first
value; any other ``last_epoch`` is a position, normally the one a resumed run read back from a
checkpoint (``StepLR(opt, 30, 0.1, last_epoch=start_epoch - 1)``). LRD001 (a step before
training) and LRD007 (a schedule left out of a checkpoint) both ask this question.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any

from lrdoctor.check.model import Event, Loop
from lrdoctor.check.values import Const, Obj

if TYPE_CHECKING:
    from lrdoctor.check.context import FileContext

# the events that update the model: a loop holding none of them trains nothing
UPDATE_KINDS = ("opt_step", "scaler_step", "backward", "scale_backward")

# where torch's schedulers take `last_epoch` by position (the optimizer is argument 0)
LAST_EPOCH_INDEX = {
    "StepLR": 3, "MultiStepLR": 3, "ExponentialLR": 2, "CosineAnnealingLR": 3, "LambdaLR": 2,
    "MultiplicativeLR": 2, "ConstantLR": 3, "LinearLR": 4, "PolynomialLR": 3,
    "CosineAnnealingWarmRestarts": 4, "CyclicLR": 12, "OneCycleLR": 13, "SequentialLR": 3,
    "SWALR": 4,
}


def fresh_start(expr: ast.expr) -> bool:
    """The literal ``-1``: torch's default, a schedule that starts from its first value."""
    return isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) \
        and isinstance(expr.operand, ast.Constant) and expr.operand.value == 1


def last_epoch_arg(s: Obj) -> ast.expr | None:
    """The ``last_epoch`` a scheduler was built with: by keyword, or by position for torch's
    own classes. None when it was not given (or the object was not built by a call)."""
    if s.call is None:
        return None
    value = s.arg("last_epoch", 99)
    if value is None:
        index = LAST_EPOCH_INDEX.get(s.cls or "") if s.origin == "torch" else None
        value = s.arg("last_epoch", index) if index is not None else None
    return value


def built_at_a_position(s: Obj) -> bool:
    """Built with a ``last_epoch``: by keyword, or by position for torch's own classes
    (``MultiStepLR(opt, steps, 0.1, begin_epoch - 1)``), where a literal -1 is the fresh
    start and anything else the position a resume read back. Example: in
    ``def warmup_cosine(optimizer, warmup, total, last_epoch=-1): return LambdaLR(optimizer, f,
    last_epoch)``, called without ``last_epoch``, the LambdaLR is a fresh start.
    """
    value = last_epoch_arg(s)
    if value is None:
        return False
    fresh = fresh_start(value)
    if not fresh and isinstance(value, ast.Name) and s.scope is not None:
        # a builder's own `last_epoch=-1` parameter handed on to the constructor by a caller
        # that did not give it: a fresh start
        held = s.scope.vars.get(value.id)
        fresh = isinstance(held, Const) and held.value == -1
    return not fresh


def built_site(obj: Obj) -> Any:
    """Where an object is built (its identity when lrdoctor did not see it built)."""
    return (obj.path, obj.line, obj.col) if obj.call is not None else obj.id


def trains_in(loop: Loop, events: list[Event]) -> bool:
    """Whether one of a root's ``events`` updates the model inside ``loop``."""
    return any(u.kind in UPDATE_KINDS and u.in_loop(loop) for u in events)


def fast_forwarded(ctx: FileContext) -> set[Any]:
    """Schedulers a resume positions by replaying their steps (``for _ in range(start_epoch):
    scheduler.step()``, or the same loop written as a comprehension): stepped in a loop that
    trains nothing, while another loop steps them between updates. Their sites
    (`built_site`)."""
    replayed: set[Any] = set()
    training: set[Any] = set()
    for events in ctx.events_by_root.values():
        for e in events:
            if e.kind != "sched_step" or e.obj is None:
                continue
            if e.loop is None:
                # a method that steps and then runs its batch loop (`def train(self):
                # self.scheduler.step(); for batch in loader: ...`), called per epoch by a
                # driver this file does not hold: it steps where the updates are
                if any(u.kind in UPDATE_KINDS for u in events):
                    training.add(built_site(e.obj))
                continue
            (training if trains_in(e.loop, events) else replayed).add(built_site(e.obj))
    return replayed & training


def replays_to_resume(ctx: FileContext, e: Event) -> bool:
    """The scheduler step ``e`` is a resume's fast-forward: its loop trains nothing, and the
    scheduler is stepped between updates elsewhere (`fast_forwarded`). How often such a loop
    runs says where the run resumes, not how often the schedule advances in training."""
    if e.loop is None or e.obj is None or trains_in(e.loop, ctx.events_by_root.get(e.root, [])):
        return False
    return built_site(e.obj) in fast_forwarded(ctx)
