"""What PyTorch's ``state_dict()`` results look like, read from their keys alone.

Shared by the runtime watcher (which recognises what a ``torch.save`` holds) and ``lrdoctor
ckpt`` (which audits saved files). Nothing here imports torch: a state dict is recognised by
its shape, so a copy, a dict that went through ``torch.load``, or one built by a framework are
all recognised alike.

>>> is_scheduler_state({"last_epoch": 3, "base_lrs": [0.1], "_last_lr": [0.05]})
True
>>> scheduler_class({"last_epoch": 3, "base_lrs": [0.1], "_last_lr": [0.05], "T_max": 10, "eta_min": 0})
'CosineAnnealingLR'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

# keys only a scheduler of that class writes into its state dict (PyTorch 2.x)
_SCHEDULER_KEYS: tuple[tuple[str, frozenset[str]], ...] = (
    ("ReduceLROnPlateau", frozenset({"patience", "num_bad_epochs", "cooldown_counter"})),
    ("SequentialLR", frozenset({"_schedulers", "_milestones"})),
    ("ChainedScheduler", frozenset({"_schedulers"})),
    ("OneCycleLR", frozenset({"total_steps", "_schedule_phases"})),
    ("CyclicLR", frozenset({"total_size", "step_ratio"})),
    ("CosineAnnealingWarmRestarts", frozenset({"T_0", "T_i", "T_cur"})),
    ("CosineAnnealingLR", frozenset({"T_max", "eta_min"})),
    ("StepLR", frozenset({"step_size", "gamma"})),
    ("MultiStepLR", frozenset({"milestones", "gamma"})),
    ("LinearLR", frozenset({"start_factor", "end_factor", "total_iters"})),
    ("ConstantLR", frozenset({"factor", "total_iters"})),
    ("PolynomialLR", frozenset({"power", "total_iters"})),
    ("LambdaLR or MultiplicativeLR", frozenset({"lr_lambdas"})),
    ("ExponentialLR", frozenset({"gamma"})),
)

SCALER_KEYS = frozenset({"scale", "growth_factor", "_growth_tracker"})


def _keys(d: Any) -> set[str] | None:
    if not isinstance(d, dict):
        return None
    return {k for k in d if isinstance(k, str)}


def is_optimizer_state(d: Any) -> bool:
    """``optimizer.state_dict()``: ``state`` (per-parameter tensors) and ``param_groups``."""
    if not isinstance(d, dict) or not isinstance(d.get("state"), dict):
        return False
    groups = d.get("param_groups")
    return (isinstance(groups, list) and bool(groups)
            and all(isinstance(g, dict) and "params" in g for g in groups))


def is_scheduler_state(d: Any) -> bool:
    """``scheduler.state_dict()`` of any LRScheduler, ReduceLROnPlateau and the composites."""
    keys = _keys(d)
    if not keys:
        return False
    return "_last_lr" in keys or ("last_epoch" in keys and ("base_lrs" in keys or "_schedulers" in keys))


def is_scaler_state(d: Any) -> bool:
    """``GradScaler.state_dict()`` of an enabled scaler (a disabled one saves ``{}``)."""
    keys = _keys(d)
    return bool(keys) and SCALER_KEYS <= keys  # type: ignore[operator]


def scheduler_class(d: dict[str, Any]) -> str | None:
    """The scheduler class a state dict was most likely written by, or None."""
    keys = _keys(d) or set()
    for name, needed in _SCHEDULER_KEYS:
        if needed <= keys:
            if name == "ExponentialLR" and keys & {"step_size", "milestones", "mode"}:
                continue
            return name
    return None


def optimizer_steps(d: dict[str, Any]) -> int | None:
    """The largest per-parameter ``step`` count in an optimizer state dict (Adam & co.), or
    None when the optimizer keeps no step count (SGD)."""
    best: int | None = None
    for entry in d.get("state", {}).values():
        if not isinstance(entry, dict) or "step" not in entry:
            continue
        step = entry["step"]
        try:
            value = int(step.item()) if hasattr(step, "item") else int(step)
        except (TypeError, ValueError, RuntimeError):
            continue
        best = value if best is None else max(best, value)
    return best


def walk(obj: Any, path: str = "", limit: int = 200_000, leaf: Any = None) -> Iterator[tuple[str, Any]]:
    """Every container inside ``obj`` with a readable path (``["optimizer"]``, ``[0]``,
    ``.opt``): dicts, lists, tuples, and the fields of plain objects and dataclasses, to any
    depth, each container once. ``leaf(x)`` -> True stops the descent at ``x`` (it is still
    yielded). Nothing is called on the objects but ``__dict__`` and dataclass fields."""
    atoms = (str, bytes, int, float, bool, type(None))
    seen: set[int] = set()
    todo: list[tuple[str, Any]] = [(path, obj)]
    while todo and len(seen) < limit:
        where, x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield where, x
        if leaf is not None and leaf(x):
            continue
        children: list[tuple[str, Any]] = []
        # numbers and strings are never containers: left out before a path is made for them
        if isinstance(x, dict):
            children = [(f"{where}[{k!r}]", v) for k, v in x.items() if not isinstance(v, atoms)]
        elif isinstance(x, (list, tuple)):
            children = [(f"{where}[{i}]", v) for i, v in enumerate(x) if not isinstance(v, atoms)]
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            for f in dataclasses.fields(x):
                try:
                    value = object.__getattribute__(x, f.name)
                except AttributeError:
                    continue
                if not isinstance(value, atoms):
                    children.append((f"{where}.{f.name}", value))
        else:
            try:
                fields = object.__getattribute__(x, "__dict__")
            except (AttributeError, TypeError):
                fields = None
            if isinstance(fields, dict):
                children = [(f"{where}.{k}", v) for k, v in fields.items() if not isinstance(v, atoms)]
        todo.extend(reversed(children))
