"""LR curves drawn with characters: a one-line sparkline (``lrdoctor run``'s text report) and a
small block chart (``lrdoctor preview``). Log scale when the positive values span two decades or
more; a plain-ASCII form for terminals whose encoding is not UTF-8.

>>> sparkline([(1, 0.1), (5, 0.01), (9, 0.001)], last_step=12, width=12, unicode=False)
'@@@@++++____'
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any

BLOCKS = "▁▂▃▄▅▆▇█"
ASCII_LEVELS = "_.-:=+*#%@"


def can_draw_unicode(stream: Any = None) -> bool:
    encoding = getattr(stream or sys.stderr, "encoding", None) or ""
    return encoding.lower().replace("-", "").replace("_", "") in ("utf8", "utf8sig")


def column_ranges(points: Sequence[tuple[float, float]], last_step: float,
                  width: int) -> list[tuple[float, float] | None]:
    """(lowest, highest) LR in each of ``width`` equal columns of steps 1..last_step, from a
    step function given at its changes ``[(step, lr), ...]``; None where nothing is known."""
    if not points or width <= 0:
        return []
    first = points[0][0]
    span = max(last_step, points[-1][0]) - first + 1
    cols: list[tuple[float, float] | None] = []
    i = 0
    current: float | None = None
    for c in range(width):
        a = first + span * c / width
        b = first + span * (c + 1) / width
        while i < len(points) and points[i][0] <= a:
            current = points[i][1]
            i += 1
        lo = hi = current
        j = i
        while j < len(points) and points[j][0] < b:
            v = points[j][1]
            lo = v if lo is None else min(lo, v)
            hi = v if hi is None else max(hi, v)
            j += 1
        cols.append((lo, hi) if lo is not None and hi is not None else None)
    return cols


class _Scale:
    def __init__(self, values: Sequence[float]) -> None:
        finite = [v for v in values if math.isfinite(v)]
        positive = [v for v in finite if v > 0]
        self.log = bool(positive) and max(positive) / min(positive) >= 100
        if self.log:
            self.lo, self.hi = math.log10(min(positive)), math.log10(max(positive))
        else:
            self.lo, self.hi = (min(finite), max(finite)) if finite else (0.0, 1.0)

    def frac(self, v: float) -> float:
        """0 (lowest) .. 1 (highest)."""
        if not math.isfinite(v):
            return 1.0 if v > 0 else 0.0
        if self.log:
            v = math.log10(v) if v > 0 else self.lo
        if self.hi <= self.lo:
            return 1.0
        return min(1.0, max(0.0, (v - self.lo) / (self.hi - self.lo)))


def sparkline(points: Sequence[tuple[float, float]], last_step: float, width: int = 60,
              unicode: bool = True, epoch_ends: Sequence[int] = ()) -> str:
    """One line, one character per column of steps (the column's highest LR), with ``|``
    between columns where an epoch ended (when there are at most ``width // 3`` epochs)."""
    cols = column_ranges(points, last_step, width)
    if not cols:
        return ""
    scale = _Scale([v for c in cols if c for v in c])
    levels = BLOCKS if unicode else ASCII_LEVELS
    chars = []
    for c in cols:
        if c is None:
            chars.append(" ")
        else:
            chars.append(levels[min(len(levels) - 1, int(scale.frac(c[1]) * len(levels)))])
    ends = [e for e in epoch_ends if e < last_step]
    if ends and len(ends) <= width // 3 and points:
        first = points[0][0]
        span = max(last_step, points[-1][0]) - first + 1
        ticks = sorted({min(width, max(1, round((e - first + 1) / span * width))) for e in ends})
        for pos in reversed(ticks):
            if 0 < pos < width:
                chars.insert(pos, "|" if not unicode else "│")
    return "".join(chars)


def block_chart(series: Sequence[float], width: int = 60, height: int = 10,
                unicode: bool = True, epoch_len: int | None = None) -> list[str]:
    """A chart of one value per step: ``height`` rows of ``width`` columns, each column filled
    between its lowest and highest value, the y range labelled on the left and epoch starts
    marked under the x axis."""
    points = [(float(i + 1), v) for i, v in enumerate(series)]
    cols = column_ranges(points, len(series), width)
    scale = _Scale(series)
    fill, empty = ("█", " ") if unicode else ("#", " ")
    grid = [[empty] * width for _ in range(height)]
    for x, c in enumerate(cols):
        if c is None:
            continue
        top = round(scale.frac(c[1]) * (height - 1))
        bottom = round(scale.frac(c[0]) * (height - 1))
        for r in range(bottom, top + 1):
            grid[height - 1 - r][x] = fill
    hi, lo = max(series, default=0.0), min(series, default=0.0)
    labels = [f"{hi:.3g}", f"{lo:.3g}"]
    pad = max(len(s) for s in labels)
    side = "│" if unicode else "|"
    lines = []
    for r, row in enumerate(grid):
        label = labels[0] if r == 0 else labels[1] if r == height - 1 else ""
        lines.append(f"{label:>{pad}} {side}{''.join(row)}")
    axis = ["─" if unicode else "-"] * width
    if epoch_len and series:
        epochs = math.ceil(len(series) / epoch_len)
        if epochs <= width // 2:
            for e in range(epochs):
                axis[min(width - 1, int(e * epoch_len / len(series) * width))] = "┬" if unicode else "+"
    lines.append(f"{'':>{pad}} {'└' if unicode else '+'}{''.join(axis)}")
    scale_note = "log scale" if scale.log else "linear scale"
    ticks = f", {'┬' if unicode else '+'} = epoch start" if epoch_len else ""
    lines.append(f"{'':>{pad}}  step 1 .. {len(series)} ({scale_note}{ticks})")
    return lines
