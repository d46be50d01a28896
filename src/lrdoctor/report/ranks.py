"""One report for a distributed run, merged from the traces its ranks wrote (rank<N>.json).

Rank 0 builds it at the end of ``torchrun ... -m lrdoctor run``; ``lrdoctor report RUN_DIR...``
builds it again later from the same files (and merges run directories that several nodes
wrote). The merge finds LRD013: the first optimizer step at which the ranks' LRs differ.

The JSON shape (``--json`` under torchrun, ``lrdoctor report --json``), documented in the README::

    {"kind": "lrdoctor-distributed-run", "schema": 1, "run_id": ..., "world_size": 2,
     "run_dirs": [...], "ranks": [{"rank": 0, "status": "finished" | "failed" | "terminated"
                                    | "missing" | "running" | "elsewhere",
                                   "why": ..., "host": ..., "exit_code": ..., "report": {...}}],
     "missing_ranks": [...], "findings": [{..., "ranks": [0, 1]}]}

``ranks[*].report`` is the rank's own ``lrdoctor run --json`` report; its
``optimizers[*].lr_history`` is ``[[optimizer_step, lr_group0, lr_group1, ...], ...]`` at each
change of an LR (the per-rank LR lines), ``optimizers[*].epoch_steps`` the optimizer steps of
each epoch.
"""

from __future__ import annotations

import bisect
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lrdoctor import __version__
from lrdoctor.findings import Finding, Location

MERGED_KIND = "lrdoctor-distributed-run"
REPORTED = ("finished", "failed", "terminated")  # ranks whose trace is in the report
SCHEMA_VERSION = 1


@dataclass
class RankStatus:
    rank: int
    status: str  # finished | failed | terminated | missing | running | elsewhere
    why: str = ""
    trace: dict[str, Any] | None = None

    @property
    def report(self) -> dict[str, Any]:
        report = (self.trace or {}).get("report")
        return report if isinstance(report, dict) else {}


@dataclass
class MergedRun:
    run_id: str
    world_size: int
    run_dirs: list[str]
    ranks: list[RankStatus]
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def missing(self) -> list[RankStatus]:
        return [r for r in self.ranks if r.status not in REPORTED]

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": MERGED_KIND, "lrdoctor": __version__, "schema": SCHEMA_VERSION,
            "run_id": self.run_id, "world_size": self.world_size, "run_dirs": self.run_dirs,
            "ranks": [{"rank": r.rank, "status": r.status, "why": r.why or None,
                       "host": (r.trace or {}).get("host"),
                       "exit_code": (r.trace or {}).get("exit_code"),
                       "report": r.report or None} for r in self.ranks],
            "missing_ranks": [r.rank for r in self.missing],
            "findings": self.findings,
        }


# ---- building the merged run ------------------------------------------------------------------


def merge(traces: dict[int, dict[str, Any]], run_dirs: Sequence[str], *,
          local_ranks: Iterable[int] | None = None, waited_s: float | None = None,
          live: bool = False) -> MergedRun:
    """Merge the ranks' traces. ``local_ranks``: the ranks whose traces belong in these
    directories (the others ran on other nodes); ``live``: rank 0 is merging at the end of the
    job (a rank still "running" is then still busy, not dead)."""
    world = max([t.get("world_size", 0) for t in traces.values()] + [len(traces)] or [0])
    run_ids = sorted({str(t.get("run_id")) for t in traces.values() if t.get("run_id")})
    local = set(range(world) if local_ranks is None else local_ranks)
    ranks = []
    for rank in range(world):
        trace = traces.get(rank)
        ranks.append(_status(rank, trace, rank in local, waited_s, live))
    merged = MergedRun(", ".join(run_ids) or "?", world, list(run_dirs), ranks)
    reported = [r for r in ranks if r.status in REPORTED]
    merged.findings = divergent_lr_findings(reported) + _rank_findings(reported)
    return merged


def _status(rank: int, trace: dict[str, Any] | None, local: bool, waited_s: float | None,
            live: bool) -> RankStatus:
    if trace is None:
        if not local:
            return RankStatus(rank, "elsewhere", "ran on another node: its trace is in that "
                              "node's run directory (`lrdoctor report DIR1 DIR2` merges them)")
        return RankStatus(rank, "missing", "wrote no trace (it never started under lrdoctor, "
                          "or wrote to another run directory)")
    if trace.get("status") == "running":
        if _still_alive(trace):
            waited = f" after rank 0 waited {waited_s:g}s (--rank-wait to wait longer)" if (
                live and waited_s is not None) else ""
            return RankStatus(rank, "running", f"still running{waited}: `lrdoctor report` "
                              "re-prints the run once it has finished", trace)
        import socket

        if trace.get("host") != socket.gethostname():
            return RankStatus(rank, "missing", "left no finished trace (it died - killed, crashed "
                              f"hard or out of memory - or it still runs on {trace.get('host')})",
                              trace)
        return RankStatus(rank, "missing", "died without writing its trace (killed, crashed "
                          "hard or out of memory): nothing of it is in this report", trace)
    report: dict[str, Any] = trace["report"] if isinstance(trace.get("report"), dict) else {}
    if trace.get("terminated"):
        return RankStatus(rank, "terminated", "stopped by SIGTERM (torchrun stops the other "
                          "ranks when one fails): partial trace", trace)
    if report.get("error"):
        error = str(report["error"]).splitlines()[0]
        error = error if len(error) <= 160 else error[:157] + "..."
        return RankStatus(rank, "failed", f"failed: {error}", trace)
    return RankStatus(rank, "finished", "", trace)


def _still_alive(trace: dict[str, Any]) -> bool:
    import socket

    from lrdoctor.runtime.ranks import _alive

    return trace.get("host") == socket.gethostname() and _alive(trace.get("pid"))


# ---- LRD013 -----------------------------------------------------------------------------------


def _lr_at(history: list[list[Any]], steps: list[int], step: int) -> tuple[Any, ...] | None:
    """The LRs in force at optimizer step ``step`` (histories hold changes only)."""
    i = bisect.bisect_right(steps, step) - 1
    return tuple(history[i][1:]) if i >= 0 else None


def _same(a: tuple[Any, ...] | None, b: tuple[Any, ...] | None) -> bool:
    if a is None or b is None or len(a) != len(b):
        return a == b
    for x, y in zip(a, b):
        if not (isinstance(x, (int, float)) and isinstance(y, (int, float))):
            if x != y:
                return False
        elif not math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-30):
            return False
    return True


def _fmt(lrs: tuple[Any, ...] | list[Any] | None) -> str:
    from lrdoctor.runtime.engine import fmt_lrs

    return fmt_lrs(tuple(lrs) if lrs is not None else None)


def _epoch_of(epoch_steps: Any, step: int) -> int | None:
    if not isinstance(epoch_steps, list) or not epoch_steps:
        return None
    total = 0
    for i, n in enumerate(epoch_steps):
        total += n if isinstance(n, int) else 0
        if step <= total:
            return i + 1
    return len(epoch_steps) + 1


def _ranks_text(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


def _by_value(values: dict[int, Any], fmt: Any) -> str:
    """``rank 0 lr 0.01, rank 1 lr 0.1`` with ranks of equal value grouped."""
    groups: dict[str, list[int]] = {}
    for rank, value in sorted(values.items()):
        groups.setdefault(fmt(value), []).append(rank)
    return ", ".join(f"{_ranks_text(rs)} {text}" for text, rs in groups.items())


def divergent_lr_findings(ranks: list[RankStatus]) -> list[dict[str, Any]]:
    """LRD013 for each optimizer (matched across ranks by creation order and name) whose LRs
    differ between ranks at some optimizer step both ranks reached."""
    if len(ranks) < 2:
        return []
    findings = []
    count = min(len(r.report.get("optimizers") or []) for r in ranks)
    for index in range(count):
        opts = {r.rank: r.report["optimizers"][index] for r in ranks}
        if len({str(o.get("name")) for o in opts.values()}) != 1:
            continue  # not the same optimizer on every rank: nothing to compare
        finding = _divergence(index, opts, ranks)
        if finding is not None:
            findings.append(finding)
    return findings


def _divergence(index: int, opts: dict[int, dict[str, Any]],
                ranks: list[RankStatus]) -> dict[str, Any] | None:
    histories, marks = {}, {}
    for rank, opt in opts.items():
        history = [h for h in opt.get("lr_history") or [] if isinstance(h, list) and h]
        histories[rank] = history
        marks[rank] = [h[0] for h in history]
    reached = min(int(o.get("steps") or 0) for o in opts.values())
    changes = sorted({m for ms in marks.values() for m in ms if m <= reached})
    for i, step in enumerate(changes):
        values = {r: _lr_at(histories[r], marks[r], step) for r in opts}
        if _agree(values):
            continue
        again = next((later for later in changes[i + 1:] if _agree(
            {r: _lr_at(histories[r], marks[r], later) for r in opts})), None)
        return _divergence_finding(index, opts, ranks, step, values, histories, marks, reached,
                                   again)
    return None


def _agree(values: dict[int, Any]) -> bool:
    first = next(iter(values.values()))
    return all(_same(first, v) for v in values.values())


def _divergence_finding(index: int, opts: dict[int, dict[str, Any]], ranks: list[RankStatus],
                        step: int, values: dict[int, Any], histories: dict[int, Any],
                        marks: dict[int, Any], reached: int, again: int | None) -> dict[str, Any]:
    name = next(iter(opts.values())).get("name", "the optimizer")
    lowest = min(opts)
    epoch = _epoch_of(opts[lowest].get("epoch_steps"), step)
    at = f"optimizer step {step}" + (f" (epoch {epoch})" if epoch else "")
    last = {r: _lr_at(histories[r], marks[r], reached) for r in opts}
    message = (f"ranks train {name} with different LRs from {at}: "
               f"{_by_value(values, lambda v: 'lr ' + _fmt(v))}")
    if again is not None:
        message += f", until step {again - 1} (equal again from step {again})"
    elif any(not _same(last[r], values[r]) for r in opts):
        message += f"; at step {reached}: {_by_value(last, lambda v: 'lr ' + _fmt(v))}"
    cause, location, scheduler = _cause(index, ranks)
    if cause:
        message += f". {cause}"
    message += ": gradients averaged across ranks are applied with different step sizes"
    evidence = {
        "optimizer": name, "optimizer_index": index, "step": step, "epoch": epoch,
        "lrs": {str(r): list(v or ()) for r, v in values.items()},
        "lrs_at_last_common_step": {str(r): list(v or ()) for r, v in last.items()},
        "last_common_step": reached, "equal_again_at": again, "ranks": sorted(opts),
        "scheduler": scheduler,
    }
    return Finding("LRD013", message, location, evidence=evidence).to_dict() | {
        "ranks": sorted(opts)}


def _cause(index: int, ranks: list[RankStatus]) -> tuple[str, Location | None, str | None]:
    """Why the LRs differ, when the traces say: a ReduceLROnPlateau given different metrics
    on different ranks, or a scheduler stepped a different number of times."""
    per_rank = {r.rank: [s for s in r.report.get("schedulers") or []
                         if s.get("optimizer_index") == index and not s.get("in_composite")]
                for r in ranks}
    count = min(len(s) for s in per_rank.values())
    for i in range(count):
        scheds = {rank: s[i] for rank, s in per_rank.items()}
        first = next(iter(scheds.values()))
        name, where = first.get("name") or first.get("class"), _location(first.get("location"))
        at = f" at {where}" if where else ""
        if first.get("class") == "ReduceLROnPlateau":
            epoch_steps = {r.rank: ((r.report.get("optimizers") or [{}] * (index + 1))[index]
                                    .get("epoch_steps")) for r in ranks}
            metric_text = _metric_difference(scheds, epoch_steps)
            if metric_text:
                return (f"{name}{at} was given different metrics on the ranks ({metric_text}): "
                        "each rank passed its own value and cut the LR on its own", where, name)
        steps = {rank: int(s.get("steps") or 0) for rank, s in scheds.items()}
        if len(set(steps.values())) > 1:
            return (f"{name}{at} was stepped a different number of times on the ranks "
                    f"({_by_value(steps, lambda n: f'{n} steps')}): is it stepped under a rank "
                    "guard (`if rank == 0:`)?", where, name)
    for i in range(count):
        first = next(iter(per_rank.values()))[i]
        if first.get("class") == "ReduceLROnPlateau":
            where = _location(first.get("location"))
            return (f"Likely cause: {first.get('name')}{' at ' + str(where) if where else ''} fed a "
                    "per-rank metric (each rank's own validation loss)", where, first.get("name"))
    return "", None, None


def _metric_difference(scheds: dict[int, dict[str, Any]], epoch_steps: dict[int, Any]) -> str:
    """``step 3 (epoch 3): rank 0 0.981, rank 1 1.02`` at the first step whose metrics differ."""
    metrics: dict[int, list[Any]] = {}
    for rank, sched in scheds.items():
        recorded = sched.get("metrics")
        if not isinstance(recorded, list) or not recorded:
            return ""
        metrics[rank] = recorded
    for i in range(min(len(m) for m in metrics.values())):
        values = {rank: m[i][-1] for rank, m in metrics.items()}
        if len({repr(v) for v in values.values()}) > 1:
            first_rank = min(metrics)
            epoch = _epoch_of(epoch_steps.get(first_rank), metrics[first_rank][i][0])
            where = f"epoch {epoch}" if epoch else f"its step {i + 1}"
            return f"{where}: {_by_value(values, _fmt_metric)}"
    return ""


def _fmt_metric(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _location(loc: Any) -> Location | None:
    if isinstance(loc, dict) and loc.get("path"):
        return Location(str(loc["path"]), loc.get("line"))
    return None


def _rank_findings(ranks: list[RankStatus]) -> list[dict[str, Any]]:
    """Each rank's own findings, once per distinct finding, with the ranks that reported it."""
    merged: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in ranks:
        for f in r.report.get("findings") or []:
            if not isinstance(f, dict):
                continue
            key = (f.get("code"), f.get("path"), f.get("line"), f.get("message"))
            entry = merged.setdefault(key, dict(f, ranks=[]))
            entry["ranks"].append(r.rank)
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted(merged.values(),
                  key=lambda f: (order.get(str(f.get("severity")), 3), str(f.get("code"))))


# ---- text -------------------------------------------------------------------------------------


def render_merged(run: MergedRun, color: bool = False) -> str:
    from lrdoctor.report.text import severity_tag

    dirs = ", ".join(run.run_dirs)
    lines = [f"lrdoctor: distributed run {run.run_id}: {run.world_size} ranks; traces in {dirs}"]
    for r in run.ranks:
        lines.append(f"  rank {r.rank}: {_rank_line(r)}")
    lines.append("")
    reporting = [r.rank for r in run.ranks if r.status in REPORTED]
    for f in run.findings:
        where = f"{f['path']}:{f['line']}: " if f.get("path") and f.get("line") else (
            f"{f['path']}: " if f.get("path") else "")
        on = f.get("ranks") or []
        prefix = "" if f.get("code") == "LRD013" or sorted(on) == reporting else (
            f"[{_ranks_text(sorted(on))}] ")
        lines.append(f"{prefix}{where}{f.get('code')} [{severity_tag(f.get('severity', 'info'), color)}]"
                     f" {f.get('message')}")
        if f.get("fix"):
            lines.append(f"    fix: {f['fix']}")
    missing = run.missing
    if missing:
        lines.append(f"Missing from this report: {_ranks_text([r.rank for r in missing])} "
                     "(see above).")
    lines.append(_summary(run.findings, bool(reporting)))
    return "\n".join(lines)


def _rank_line(r: RankStatus) -> str:
    if r.status not in REPORTED:
        return f"{r.status}: {r.why}"
    report = r.report
    opts = [o for o in report.get("optimizers") or [] if o.get("steps")]
    steps = sum(int(o.get("steps") or 0) for o in opts)
    epochs = report.get("epochs")
    head = (f"{epochs} epoch{'s' if epochs != 1 else ''}, " if epochs else "") + (
        f"{steps} optimizer step{'s' if steps != 1 else ''}")
    lrs = "; ".join(f"{o.get('name')} lr {_fmt(o.get('lr_first'))} -> {_fmt(o.get('lr_last'))}"
                    for o in opts)
    text = head + (f"; {lrs}" if lrs else "")
    code = (r.trace or {}).get("exit_code")
    if r.status == "finished" and isinstance(code, int) and code != 0:
        text += f" (exit code {code})"  # sys.exit(code): the script chose to stop
    return f"{text} ({r.why})" if r.why else text


def _summary(findings: list[dict[str, Any]], any_rank: bool) -> str:
    if not findings:
        return "No problems found." if any_rank else "No rank left a trace: nothing was checked."
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.get("severity", "info")] = counts.get(f.get("severity", "info"), 0) + 1
    parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in counts.items()]
    codes = sorted({str(f.get("code")) for f in findings})
    n = len(findings)
    return (f"{n} finding{'s' if n != 1 else ''} ({', '.join(parts)}). "
            f"`lrdoctor explain {codes[0]}` tells more.")


# ---- reading run directories (``lrdoctor report``) ---------------------------------------------


class ReportError(Exception):
    """A path given to ``lrdoctor report`` that holds no rank trace."""


def load_traces(paths: Sequence[str]) -> tuple[dict[int, dict[str, Any]], list[str]]:
    """The traces in ``paths`` (run directories, or rank<N>.json files), by rank. When two
    directories hold the same rank, the finished trace wins over a "running" note."""
    from lrdoctor.runtime.ranks import read_run_dir, read_trace

    traces: dict[int, dict[str, Any]] = {}
    dirs: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            found = read_run_dir(path)
            if not found:
                raise ReportError(f"{path!r} holds no lrdoctor rank trace (rank<N>.json)")
            dirs.append(path)
        elif os.path.exists(path):
            trace = read_trace(path)
            if trace is None:
                raise ReportError(f"{path!r} is not an lrdoctor rank trace")
            trace.setdefault("source", path)
            found = {trace["rank"]: trace}
            dirs.append(os.path.dirname(path) or ".")
        else:
            raise ReportError(f"{path!r} does not exist")
        for rank, trace in found.items():
            old = traces.get(rank)
            if old is None or (old.get("status") == "running" and trace.get("status") != "running"):
                traces[rank] = trace
    return traces, list(dict.fromkeys(dirs))
