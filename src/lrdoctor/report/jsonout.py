"""The JSON report of ``lrdoctor run --json`` (schema documented in the README)."""

from __future__ import annotations

from itertools import accumulate
from typing import Any

from lrdoctor import __version__

SCHEMA_VERSION = 1


def run_to_dict(engine: Any) -> dict[str, Any]:
    from lrdoctor.runtime.callsite import display_path
    from lrdoctor.runtime.checks.ranks import plateau_metrics

    def site(s: Any) -> dict[str, Any] | None:
        return {"path": display_path(s[0]), "line": s[1]} if s else None

    def num(v: Any) -> Any:
        try:
            return float(v)
        except (TypeError, ValueError):
            return None

    loader = engine.train_loader if engine is not None else None
    out: dict[str, Any] = {
        "lrdoctor": __version__,
        "schema": SCHEMA_VERSION,
        "epochs": loader.iterations if loader else None,
        "interrupted": bool(engine and engine.end and engine.end.interrupted),
        "error": (f"{type(engine.end.error).__name__}: {engine.end.error}"
                  if engine and engine.end and engine.end.error else None),
        "optimizers": [],
        "schedulers": [],
        "scalers": [],
        "findings": [],
    }
    if engine is None:
        return out
    for o in engine.optimizers.values():
        out["optimizers"].append({
            "name": o.label, "steps": o.attempts, "taken": o.taken, "skipped": o.skipped,
            "lr_first": [num(v) for v in o.first_lrs or ()],
            "lr_last": [num(v) for v in o.last_lrs or ()],
            "lr_history": [[step, *[num(v) for v in lrs]] for step, lrs in o.lr_history],
            "epoch_steps": list(o.epoch_attempts),
            "param_groups": _group_names(o),
            "skipped_steps": o.skipped_at.to_list(),
            "epoch_ends": list(accumulate(o.epoch_attempts)),
        })
    optimizer_index = {o.key: i for i, o in enumerate(engine.optimizers.values())}
    metrics = plateau_metrics(engine)
    for s in engine.schedulers.values():
        opt = engine.optimizer_of(s)
        entry = {
            "name": s.label, "class": s.cls, "optimizer": opt.label if opt else None,
            "horizon": s.horizon, "steps": s.user_steps, "steps_per_epoch": s.epoch_steps,
            "in_composite": s.parent_key is not None, "location": site(s.last_site),
            "lr_first": [num(v) for v in s.first_lrs or ()],
            "lr_last": [num(v) for v in s.last_lrs or ()],
            "optimizer_index": optimizer_index.get(opt.key) if opt else None,
            "step_at": s.step_marks.to_list(),
        }
        if s.key in metrics:  # recorded under torchrun only (lrdoctor.runtime.checks.ranks)
            entry["metrics"] = [[step, num(v)] for step, v in metrics[s.key]]
        out["schedulers"].append(entry)
    for i, sc in enumerate(engine.scalers.values()):
        if not sc.updates:
            continue
        out["scalers"].append({
            "name": "GradScaler" + (f"#{i + 1}" if i else ""), "updates": sc.updates,
            "scale_first": sc.first_scale, "scale_min": sc.min_scale,
            "scale_history": [[step, scale] for step, scale in sc.scale_history.points],
        })
    out["findings"] = [f.to_dict() for f in engine.findings]
    return out


def _group_names(opt: Any) -> list[str | None]:
    """Each param group's ``name`` entry where the user gave one (a common idiom), else None."""
    try:
        return [g.get("name") if isinstance(g.get("name"), str) else None
                for g in opt.obj.param_groups]
    except Exception:
        return []
