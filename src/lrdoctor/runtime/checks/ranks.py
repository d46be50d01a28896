"""What a rank of a torchrun job records for the merged report beyond the shared hooks: the
metric each ``ReduceLROnPlateau.step(metric)`` was given, so that LRD013 can say the ranks fed
it different values instead of guessing. Installed only when the process is one rank of several;
a plateau scheduler steps about once per epoch, so this costs nothing per optimizer step."""

from __future__ import annotations

import weakref
from typing import Any

from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import SchedulerStep
from lrdoctor.runtime.ranks import in_job

METRICS_KEPT = 10_000  # per scheduler; a run with more plateau steps keeps the first ones

# engine -> {scheduler key: [(optimizer step, metric), ...]}
_METRICS: weakref.WeakKeyDictionary[Engine, dict[int, list[tuple[int, Any]]]] = (
    weakref.WeakKeyDictionary())


def plateau_metrics(engine: Any) -> dict[int, list[tuple[int, Any]]]:
    try:
        return _METRICS.get(engine, {})
    except TypeError:
        return {}


class PlateauMetrics:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        if in_job():
            _METRICS[engine] = {}
            engine.subscribe(SchedulerStep, self.on_step)

    def on_step(self, event: SchedulerStep) -> None:
        if event.scheduler.cls != "ReduceLROnPlateau":
            return
        metric = event.args[0] if event.args else event.kwargs.get("metrics")
        value = _read(metric)
        if value is None:
            return
        opt = self.engine.optimizer_of(event.scheduler)
        kept = _METRICS[self.engine].setdefault(event.scheduler.key, [])
        if len(kept) < METRICS_KEPT:
            kept.append((opt.attempts if opt else 0, value))


def _read(metric: Any) -> float | None:
    """The metric as a number; a tensor only when it is on the CPU (ReduceLROnPlateau has
    just read it itself, but a second read of a device tensor would be a synchronization)."""
    if isinstance(metric, (int, float)) and not isinstance(metric, bool):
        return float(metric)
    if not hasattr(metric, "device"):  # numpy scalars and other numbers
        try:
            return float(metric)
        except (TypeError, ValueError):
            return None
    device = getattr(metric, "device", None)
    if device is not None and getattr(device, "type", None) == "cpu":
        try:
            return float(metric)
        except (TypeError, ValueError, RuntimeError):
            return None
    return None


CHECKS: tuple[type, ...] = (PlateauMetrics,)
