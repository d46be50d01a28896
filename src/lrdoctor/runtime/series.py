"""Bounded, O(1)-per-step records of *when* things happened, for the plots of the HTML report.

Optimizer-step indices (1-based attempt counts; 0 = before the first optimizer step) are kept as
arithmetic runs ``[first, stride, count]``: a scheduler stepped once per batch for a million
steps is one run ``[1, 1, 1000000]``, once per epoch of 100 batches ``[100, 100, N]``. Irregular
marks (GradScaler skips) take one run each, up to ``MARK_RUNS_CAP`` runs; past that only the
count grows (``dropped`` says how many marks were not placed), so memory stays bounded.
"""

from __future__ import annotations

from typing import Any

MARK_RUNS_CAP = 4096
SCALE_HISTORY_CAP = 4096


class StepMarks:
    """Step indices as arithmetic runs; ``add`` is O(1)."""

    __slots__ = ("runs", "count", "dropped")

    def __init__(self) -> None:
        self.runs: list[list[int]] = []  # [first, stride, count]
        self.count = 0
        self.dropped = 0

    def add(self, index: int) -> None:
        self.count += 1
        runs = self.runs
        if runs:
            last = runs[-1]
            if last[2] == 1:  # a second mark fixes the stride
                if index >= last[0]:
                    last[1] = index - last[0]
                    last[2] = 2
                    return
            elif index == last[0] + last[1] * last[2]:
                last[2] += 1
                return
        if len(runs) >= MARK_RUNS_CAP:
            self.dropped += 1
            return
        runs.append([index, 0, 1])

    def add_consecutive(self, first: int, count: int) -> None:
        """``add(first)``, ``add(first + 1)``, ... (``count`` indices), the rest in one step
        once they extend a run of stride 1."""
        end = first + count
        for index in range(first, end):
            runs = self.runs
            last = runs[-1] if runs else None
            if last is not None and last[2] > 1 and last[1] == 1 and index == last[0] + last[2]:
                last[2] += end - index
                self.count += end - index
                return
            self.add(index)

    def to_list(self) -> list[list[int]]:
        return [list(r) for r in self.runs]


def expand_marks(runs: Any, limit: int | None = None) -> list[int]:
    """The step indices of ``[first, stride, count]`` runs (as in the JSON report), at most
    ``limit`` of them."""
    out: list[int] = []
    for run in runs or ():
        try:
            first, stride, count = (int(v) for v in run)
        except (TypeError, ValueError):
            continue
        for k in range(max(0, count)):
            if limit is not None and len(out) >= limit:
                return out
            out.append(first + stride * k)
    return out


class ScaleHistory:
    """A GradScaler's scale at each change, as ``(optimizer step, scale)``; past the cap every
    other change is dropped (the first and the latest always stay)."""

    __slots__ = ("points", "_last")

    def __init__(self) -> None:
        self.points: list[tuple[int, float]] = []
        self._last: float | None = None

    def add(self, step: int, scale: float) -> None:
        if scale == self._last:
            return
        self._last = scale
        self.points.append((step, scale))
        if len(self.points) > SCALE_HISTORY_CAP:
            del self.points[1:-1:2]
