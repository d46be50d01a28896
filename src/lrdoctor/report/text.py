"""Human-readable reports, built to be read in ten seconds: what was trained, then findings."""

from __future__ import annotations

import os
import sys
from typing import Any

from lrdoctor.findings import Finding

_COLORS = {"error": "\033[1;31m", "warning": "\033[1;33m", "info": "\033[1;36m"}
_RESET = "\033[0m"


def use_color(stream: Any = None) -> bool:
    stream = stream or sys.stderr
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return hasattr(stream, "isatty") and stream.isatty()


def severity_tag(severity: str, color: bool) -> str:
    return f"{_COLORS[severity]}{severity}{_RESET}" if color else severity


def render_finding(f: Finding, color: bool = False) -> str:
    where = f"{f.location}: " if f.location else ""
    lines = [f"{where}{f.code} [{severity_tag(f.severity, color)}] {f.message}"]
    if f.fix:
        lines.append(f"    fix: {f.fix}")
    return "\n".join(lines)


def summary_line(findings: list[Finding]) -> str:
    if not findings:
        return "No problems found."
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.severity] = counts.get(f.severity, 0) + 1
    parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in counts.items()]
    codes = sorted({f.code for f in findings})
    return (f"{len(findings)} finding{'s' if len(findings) != 1 else ''} ({', '.join(parts)}). "
            f"`lrdoctor explain {codes[0]}` tells more.")


def lr_sparkline(opt: Any, unicode: bool, width: int = 60) -> str | None:
    """One line of an optimizer's LR (its first param group) over its steps, epochs marked;
    None when there is no curve to show (fewer than two steps, or no recorded LR)."""
    from itertools import accumulate

    from lrdoctor.report.sparkline import sparkline

    points = []
    for step, lrs in opt.lr_history:
        try:
            points.append((float(step), float(lrs[0])))
        except (TypeError, ValueError, IndexError):
            continue
    if opt.attempts < 2 or not points:
        return None
    line = sparkline(points, opt.attempts, width, unicode, list(accumulate(opt.epoch_attempts)))
    values = [v for _, v in points]
    positive = [v for v in values if v > 0]
    log = bool(positive) and max(positive) / min(positive) >= 100
    group = " of group 0" if len(opt.first_lrs or ()) > 1 else ""
    tick = "│" if unicode else "|"
    epochs = f", {tick} = epoch boundary" if tick in line else ""
    return f"    lr{group} {line} ({'log' if log else 'linear'} scale{epochs})"


def render_run(engine: Any, color: bool = False, unicode: bool | None = None) -> str:
    """``unicode``: draw the LR sparklines with block characters (default: when stderr's
    encoding is UTF-8; plain ASCII otherwise)."""
    from lrdoctor.report.sparkline import can_draw_unicode
    from lrdoctor.runtime.engine import fmt_lrs, location

    if unicode is None:
        unicode = can_draw_unicode(sys.stderr)

    if engine is None:
        return "lrdoctor: nothing was watched."
    lines = []
    loader = engine.train_loader
    epochs = f"{loader.iterations} epoch{'s' if loader.iterations != 1 else ''}, " if loader else ""
    steps = sum(o.attempts for o in engine.optimizers.values())
    head = f"lrdoctor: watched {epochs}{steps} optimizer step{'s' if steps != 1 else ''} in {engine.elapsed:.1f}s"
    if engine.end is not None and engine.end.interrupted:
        head += " (interrupted: partial report)"
    elif engine.end is not None and engine.end.error is not None:
        head += f" (the script failed: {type(engine.end.error).__name__})"
    lines.append(head)
    for o in engine.optimizers.values():
        if not o.attempts:
            continue
        skipped = f", {o.skipped} skipped by GradScaler" if o.skipped else ", 0 skipped"
        lines.append(f"  optimizer {o.label}: {o.taken} steps taken{skipped}; "
                     f"lr {fmt_lrs(o.first_lrs)} -> {fmt_lrs(o.last_lrs)}")
        try:
            spark = lr_sparkline(o, unicode)
        except Exception:  # a picture is never worth losing the report
            spark = None
        if spark:
            lines.append(spark)
    for s in engine.schedulers.values():
        if not s.user_steps or s.parent_key is not None:
            continue
        opt = engine.optimizer_of(s)
        per_epoch = ""
        if s.epoch_steps:
            full = s.epoch_steps[:-1] if len(s.epoch_steps) > 1 else s.epoch_steps
            per_epoch = f", {max(full)} per epoch"
        horizon = f", horizon {s.horizon}" if s.horizon else ""
        at = f" at {location(s.last_site)}" if s.last_site else ""
        lines.append(f"  scheduler {s.label} on {opt.label if opt else '?'}: {s.user_steps} steps"
                     f"{per_epoch}{horizon}{at}; lr {fmt_lrs(s.first_lrs)} -> {fmt_lrs(s.last_lrs)}")
    for sc in engine.scalers.values():
        if sc.first_scale is not None:
            lines.append(f"  GradScaler: {sc.updates} updates, scale {sc.first_scale:g} at first "
                         f"update, lowest {sc.min_scale:g}")
    findings = engine.findings
    lines.append("")
    for f in findings:
        lines.append(render_finding(f, color))
    if not findings and not steps:
        # nothing trained here (a script that failed early, or trained in a thread or child
        # process that was not watched): that is not a clean bill of health
        lines.append("No optimizer step was seen, so nothing was checked.")
    else:
        lines.append(summary_line(findings))
    return "\n".join(lines)
