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


def render_run(engine: Any, color: bool = False) -> str:
    from lrdoctor.runtime.engine import fmt_lrs, location

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
