"""Checkpoints and manual LR writes: LRD007, LRD008."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from lrdoctor.check.context import FileContext, receiver
from lrdoctor.check.diagnostic import Diagnostic
from lrdoctor.check.model import Event
from lrdoctor.check.rules import rule
from lrdoctor.check.rules.scalers import scaler_switch, when
from lrdoctor.check.values import DictVal, ExprVal, Obj, StateDictVal, TupleVal


def _saved(value: Any, objs: set[int], words: list[str], depth: int = 0) -> bool:
    """Collect what a checkpoint holds; False when part of it is unknown (``**extra``)."""
    if depth > 4:
        return True
    if isinstance(value, DictVal):
        if value.splat:
            return False
        for key, item in value.items.items():
            words.append(str(key).lower())
            if not _saved(item, objs, words, depth + 1):
                return False
    elif isinstance(value, TupleVal):
        for item in value.items:
            if not _saved(item, objs, words, depth + 1):
                return False
    elif isinstance(value, StateDictVal):
        objs.add(value.obj.id)
    elif isinstance(value, Obj):
        objs.add(value.id)
    elif isinstance(value, ExprVal):
        words.append(ast.unparse(value.node).lower())
    return True


def _in_root(ctx: FileContext, root: int, kind: str) -> list[Obj]:
    found: dict[int, Obj] = {}
    for e in ctx.events_by_root.get(root, []):
        candidates = [e.obj, e.info.get("optimizer")]
        for obj in candidates:
            if isinstance(obj, Obj) and obj.kind == kind:
                found[obj.id] = obj
    return list(found.values())


def _real_schedulers(ctx: FileContext, root: int, optimizer: Obj | None) -> list[Obj]:
    """Schedulers whose state a resume needs (not timm's, not members of a composite, not
    those rebuilt on resume through ``last_epoch``)."""
    rebuilt = {e.obj.id for e in ctx.program.events if e.kind == "set_last_epoch" and e.obj}
    out = []
    for s in _in_root(ctx, root, "scheduler"):
        if s.origin == "timm" or s.in_composite or s.id in rebuilt:
            continue
        if optimizer is not None and s.optimizer is not None and s.optimizer is not optimizer:
            continue
        out.append(s)
    return out


@rule("LRD007")
def checkpoint_missing_state(ctx: FileContext) -> Iterator[Diagnostic]:
    for e in ctx.program.events:
        if e.kind == "save":
            yield from _check_save(ctx, e)
        elif e.kind == "load_state" and e.obj is not None and e.obj.kind == "optimizer":
            yield from _check_resume(ctx, e)


def _check_save(ctx: FileContext, e: Event) -> Iterator[Diagnostic]:
    value = e.info.get("value")
    if not isinstance(value, DictVal):
        return
    objs: set[int] = set()
    words: list[str] = []
    if not _saved(value, objs, words):
        return
    optimizers = [o for o in _in_root(ctx, e.root, "optimizer") if o.id in objs]
    if not optimizers and not any("optim" in w for w in words):
        return  # weights only: not meant to resume training
    optimizer = optimizers[0] if optimizers else None
    missing = []
    # a scheduler rebuilt with last_epoch=... on resume does not need its state saved
    scheds = [s for s in _real_schedulers(ctx, e.root, optimizer)
              if s.call is None or s.arg("last_epoch", 99) is None]
    if scheds and not any(s.id in objs for s in scheds) and not any("sched" in w for w in words):
        s = scheds[0]
        missing.append(f"the scheduler's (`{s.name or 'scheduler'}`, {s.label})")
    scalers = [(s, flag) for s in _in_root(ctx, e.root, "scaler")
               if (flag := scaler_switch(s)) is not None]
    if scalers and not any(s.id in objs for s, _ in scalers) and not any(
        "scaler" in w or "amp" in w for w in words
    ):
        scaler, flag = min(scalers, key=lambda pair: bool(pair[1]))
        switched = f", {when(flag)}" if flag else ""
        missing.append(f"the GradScaler's (`{scaler.name or 'scaler'}`{switched})")
    if not missing:
        return
    consequence = []
    if scheds and "scheduler" in missing[0]:
        consequence.append("the schedule restarts from its first value")
    if len(missing) == 2 or "GradScaler" in missing[0]:
        consequence.append("the scale restarts at 65536 and skips steps again")
    yield Diagnostic.at(
        "LRD007",
        f"this checkpoint stores the optimizer state but not {' or '.join(missing)}: on "
        f"resume {' and '.join(consequence)}",
        e.path,
        e.node,
    )


def _check_resume(ctx: FileContext, e: Event) -> Iterator[Diagnostic]:
    optimizer = e.obj
    scheds = [
        s for s in _real_schedulers(ctx, e.root, optimizer)
        if s.call is None or s.arg("last_epoch", 99) is None
    ]
    if not scheds:
        return
    restored = {
        ev.obj.id for ev in ctx.program.events
        if ev.kind == "load_state" and ev.obj is not None and ev.obj.kind == "scheduler"
    }
    if any(s.id in restored for s in scheds):
        return
    if any(ev.kind == "load_state" and ev.obj is not None and ev.obj.kind == "scheduler"
           and ev.root == e.root for ev in ctx.program.events):
        return
    s = scheds[0]
    yield Diagnostic.at(
        "LRD007",
        f"`{receiver(e)}.load_state_dict(...)` restores the optimizer but "
        f"`{s.name or 'the scheduler'}` ({s.label}, line {s.line}) is never restored: on resume "
        "the schedule restarts from its first value",
        e.path,
        e.node,
    )


# schedulers that compute the next LR from the current param_group['lr']: a manual write is
# folded into everything that follows. The others (LambdaLR, OneCycleLR, CyclicLR, ...) compute
# from base_lrs and overwrite a manual value at their next step, which manual warm-ups written
# for the first iterations (YOLOv5-style) rely on.
CHAINABLE = frozenset(
    {"StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "CosineAnnealingLR",
     "PolynomialLR", "MultiplicativeLR", "ReduceLROnPlateau"}
)


@rule("LRD008")
def manual_lr_vs_scheduler(ctx: FileContext) -> Iterator[Diagnostic]:
    for w in ctx.program.events:
        if w.kind != "lr_write" or w.obj is None:
            continue
        root = ctx.events_by_root.get(w.root, [])
        stepped = {e.obj.id for e in root if e.kind == "sched_step" and e.obj is not None}
        driver = next(
            (
                e.obj for e in root
                if e.kind == "create" and e.obj is not None and e.obj.kind == "scheduler"
                and e.obj.optimizer is w.obj and e.order < w.order and e.obj.id in stepped
                and e.obj.cls in CHAINABLE and e.obj.origin == "torch"
            ),
            None,
        )
        if driver is None:
            continue
        yield Diagnostic.at(
            "LRD008",
            f"param_group['lr'] is written here while {driver.label} `{driver.name}` (line "
            f"{driver.line}) drives the same optimizer: its next step folds this value in or "
            "overwrites it, so neither the manual LR nor the schedule is what trains",
            w.path,
            w.node,
        )
