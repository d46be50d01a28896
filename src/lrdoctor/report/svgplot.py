"""Step-function line charts as inline SVG, built in Python (no JavaScript, no CDN, no fonts):
the HTML report and ``lrdoctor preview --svg`` draw LR curves with it.

An LR series is piecewise constant: ``(step, value)`` means "from this optimizer step on, the
LR is value". Long series are thinned per pixel column by :func:`downsample`, which keeps each
column's first, last, lowest and highest point and its sharpest change, so a one-step spike or a
sudden cliff survives thinning of a 100,000-step run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from html import escape

Point = tuple[float, float]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
           "#e377c2", "#7f7f7f", "#bcbd22")


def downsample(points: Sequence[Point], buckets: int = 1000) -> list[Point]:
    """At most about ``5 * buckets`` of ``points`` (sorted by x), keeping per bucket of x its
    first, last, min and max point and the point after its largest jump (in log scale for
    positive values), plus the very first and last points. Short series come back unchanged."""
    n = len(points)
    if n <= 5 * buckets:
        return list(points)
    x0, x1 = points[0][0], points[-1][0]
    width = (x1 - x0) / buckets or 1.0
    keep: set[int] = {0, n - 1}
    start = 0
    while start < n:
        b = int((points[start][0] - x0) / width)
        end = start
        lo = hi = start
        jump_at, jump = start, -1.0
        while end < n and int((points[end][0] - x0) / width) == b:
            y = points[end][1]
            if y < points[lo][1]:
                lo = end
            if y > points[hi][1]:
                hi = end
            if end > 0:
                d = _jump(points[end - 1][1], y)
                if d > jump:
                    jump_at, jump = end, d
            end += 1
        keep.update((start, end - 1, lo, hi, jump_at))
        if jump_at > 0:
            keep.add(jump_at - 1)  # the value just before the change, so the cliff stays a cliff
        start = end
    return [points[i] for i in sorted(keep)]


def _jump(a: float, b: float) -> float:
    if a > 0 and b > 0:
        return abs(math.log10(b) - math.log10(a))
    return abs(b - a) / (abs(a) + abs(b) or 1.0) * 10  # a sign change or a zero counts as big


@dataclass
class Series:
    label: str
    points: list[Point]  # (x, y), sorted by x; each y holds until the next point's x
    color: str = ""
    dashed: bool = False
    last_x: float | None = None  # where the last value ends (the run's last step)


@dataclass
class Marker:
    """A numbered marker at ``x`` (a finding), drawn on the curve with a link to ``href``."""

    x: float
    label: str
    href: str
    title: str


@dataclass
class Chart:
    title: str
    y_label: str
    x_label: str = "optimizer step"
    series: list[Series] = field(default_factory=list)
    vlines: list[tuple[float, str]] = field(default_factory=list)  # epoch boundaries
    rugs: list[tuple[str, Sequence[float], str]] = field(default_factory=list)  # (name, xs, color)
    markers: list[Marker] = field(default_factory=list)
    width: int = 960
    height: int = 300
    log: bool | None = None  # None: log when the positive values span two decades or more


def _nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    ticks = []
    k = 0
    while first + k * step <= hi + step * 1e-9:
        ticks.append(first + k * step)
        k += 1
    return ticks


def fmt_num(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1e5 or abs(v) < 1e-3:
        return f"{v:.0e}".replace("e-0", "e-").replace("e+0", "e").replace("e+", "e")
    return f"{v:g}"


def render_svg(chart: Chart) -> str:
    """The chart as one ``<svg>`` element; every label is escaped."""
    w, h = chart.width, chart.height
    left, right, top, bottom = 70, 20, 30, 60
    pw, ph = w - left - right, h - top - bottom
    xs = [p[0] for s in chart.series for p in s.points] + [s.last_x for s in chart.series
                                                          if s.last_x is not None]
    ys = [p[1] for s in chart.series for p in s.points if math.isfinite(p[1])]
    x_lo, x_hi = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x_hi <= x_lo:
        x_hi = x_lo + 1
    positive = [y for y in ys if y > 0]
    log = chart.log
    if log is None:
        log = bool(positive) and max(positive) / min(positive) >= 100
    y_lo: float
    y_hi: float
    if log and positive:
        y_lo, y_hi = math.floor(math.log10(min(positive))), math.ceil(math.log10(max(positive)))
        if y_hi == y_lo:
            y_hi += 1
    else:
        log = False
        y_lo, y_hi = (min(ys + [0.0]), max(ys)) if ys else (0.0, 1.0)
        if y_hi <= y_lo:
            y_hi = y_lo + (abs(y_lo) or 1.0)

    def px(x: float) -> float:
        return left + (x - x_lo) / (x_hi - x_lo) * pw

    def py(y: float) -> float:
        if log:
            v = math.log10(y) if y > 0 else y_lo  # zero sits on the bottom of a log axis
            v = max(y_lo, v)
        else:
            v = y
        return top + ph - (v - y_lo) / (y_hi - y_lo) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" role="img" aria-label="{escape(chart.title)}">',
           f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="#fff" stroke="#999"/>',
           f'<text x="{left}" y="18" class="title" font-size="14" font-weight="bold">'
           f'{escape(chart.title)}</text>']
    # y ticks
    if log:
        decades = list(range(int(y_lo), int(y_hi) + 1))
        every = max(1, math.ceil(len(decades) / 8))
        yticks = [(py(10.0 ** d), f"1e{d}") for d in decades[::every]]
    else:
        yticks = [(py(t), fmt_num(t)) for t in _nice_ticks(y_lo, y_hi)]
    for y, label in yticks:
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" '
                   f'class="ytick">{escape(label)}</text>')
    for t in _nice_ticks(x_lo, x_hi, 8):
        x = px(t)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + ph}" y2="{top + ph + 4}" '
                   f'stroke="#666"/><text x="{x:.1f}" y="{top + ph + 16}" text-anchor="middle" '
                   f'font-size="11" class="xtick">{escape(fmt_num(t))}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{h - 26}" text-anchor="middle" font-size="12" '
               f'class="xlabel">{escape(chart.x_label)}</text>')
    out.append(f'<text x="14" y="{top + ph / 2}" text-anchor="middle" font-size="12" '
               f'class="ylabel" transform="rotate(-90 14 {top + ph / 2})">'
               f'{escape(chart.y_label + (" (log scale)" if log else ""))}</text>')
    # epoch boundaries: a line at most every 6 px, a label at most every 70 px
    last_line = last_label = -1e9
    for x, label in chart.vlines:
        if not x_lo <= x <= x_hi:
            continue
        X = px(x)
        if X - last_line < 6:
            continue
        last_line = X
        out.append(f'<line class="epoch" x1="{X:.1f}" x2="{X:.1f}" y1="{top}" y2="{top + ph}" '
                   f'stroke="#bbb" stroke-dasharray="4 3"><title>{escape(label)}</title></line>')
        if X - last_label >= 70:
            out.append(f'<text x="{X + 2:.1f}" y="{top + 10}" font-size="9" fill="#888">'
                       f'{escape(label)}</text>')
            last_label = X
    # rugs: tick marks under the plot, one per pixel column at most
    for i, (name, rxs, color) in enumerate(chart.rugs):
        cols = sorted({round(px(x)) for x in rxs if x_lo <= x <= x_hi})
        y0 = top + ph - 4 - 6 * i
        if cols:
            d = "".join(f"M{c} {y0}v-5" for c in cols)
            out.append(f'<path class="rug" d="{d}" stroke="{color}" stroke-width="1">'
                       f'<title>{escape(name)}</title></path>')
    # the curves
    for i, s in enumerate(chart.series):
        if not s.points:
            continue
        color = s.color or PALETTE[i % len(PALETTE)]
        pts = downsample(s.points, max(100, pw))
        path = [f"M{px(pts[0][0]):.1f} {py(pts[0][1]):.1f}"]
        for x1, y1 in pts[1:]:
            path.append(f"H{px(x1):.1f}V{py(y1):.1f}")
        if s.last_x is not None and s.last_x > pts[-1][0]:
            path.append(f"H{px(s.last_x):.1f}")
        dash = ' stroke-dasharray="6 3"' if s.dashed else ""
        out.append(f'<path class="series" d="{"".join(path)}" fill="none" stroke="{color}" '
                   f'stroke-width="1.6"{dash}><title>{escape(s.label)}</title></path>')
    # findings, linked both ways
    for m in chart.markers:
        if not x_lo <= m.x <= x_hi:
            continue
        at = _value_at(chart.series[0].points, m.x) if chart.series else None
        Y = py(at) if at is not None and math.isfinite(at) else top + 12
        X = px(m.x)
        out.append(f'<a href="#{escape(m.href)}" class="marker"><circle cx="{X:.1f}" '
                   f'cy="{Y:.1f}" r="8" fill="#c00" fill-opacity="0.85"/><text x="{X:.1f}" '
                   f'y="{Y + 4:.1f}" text-anchor="middle" font-size="10" fill="#fff">'
                   f'{escape(m.label)}</text><title>{escape(m.title)}</title></a>')
    # legend
    lx, ly = left, h - 8
    for i, s in enumerate(chart.series[:12]):
        color = s.color or PALETTE[i % len(PALETTE)]
        out.append(f'<rect x="{lx}" y="{ly - 8}" width="12" height="3" fill="{color}"/>'
                   f'<text x="{lx + 16}" y="{ly - 4}" font-size="11" class="legend">'
                   f'{escape(s.label)}</text>')
        lx += 26 + 7 * min(len(s.label), 40)
        if lx > w - 100:
            break
    out.append("</svg>")
    return "\n".join(out)


def _value_at(points: Sequence[Point], x: float) -> float | None:
    value = None
    for px_, py_ in points:
        if px_ > x:
            break
        value = py_
    return value
