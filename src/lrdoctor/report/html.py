"""The HTML run report (``lrdoctor run --html PATH``, ``Watch.report(html=PATH)``): one
self-contained file that opens offline, built only from the JSON report dict.

It shows, per optimizer, the LR of every param group against the optimizer step (log axis when
it spans decades), epoch boundaries, scheduler steps and GradScaler-skipped steps as tick rugs,
and a numbered marker per finding linked to the finding's entry (and back); the GradScaler scale
over time; a summary table; the findings. For a distributed run's merged report, each rank's LR
lines are drawn together (see :func:`rank_reports` for the shape read). Every string from the
report is escaped: a path or message holding ``<script>`` is shown as text.
"""

from __future__ import annotations

import csv
import os
from html import escape
from typing import Any

from lrdoctor.report.svgplot import PALETTE, Chart, Marker, Series, fmt_num, render_svg
from lrdoctor.runtime.series import expand_marks

CSV_MARKS_LIMIT = 1_000_000

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1000px;
color:#222;padding:0 12px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.meta{color:#555}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}
.finding{border-left:4px solid #999;padding:6px 10px;margin:8px 0;background:#fafafa}
.finding.error{border-color:#c00}.finding.warning{border-color:#d80}.finding.info{border-color:#08c}
.code{font-weight:bold}.sev{text-transform:uppercase;font-size:11px;margin-left:6px}
.loc{font-family:ui-monospace,monospace;color:#444}.fix{color:#060}
.chart text{font-family:system-ui,sans-serif;fill:#333}
.key span{display:inline-block;margin-right:16px;font-size:12px;color:#555}
.none{color:#060;font-weight:bold}
"""


def rank_reports(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The per-rank reports inside a merged distributed report. ``report["ranks"]`` is a list
    of ``{"rank": N, "status": ..., "report": {...}}`` (what a torchrun run's merged report
    holds; a missing rank has no ``report``), a list of reports each with a ``"rank"`` key, or a
    mapping ``{"0": {...}}``; each report has the single-process shape (``optimizers`` with
    ``lr_history`` and so on)."""
    ranks = report.get("ranks")
    out: dict[str, dict[str, Any]] = {}
    items: list[tuple[Any, Any]] = []
    if isinstance(ranks, dict):
        items = list(ranks.items())
    elif isinstance(ranks, list):
        items = [(v.get("rank", i) if isinstance(v, dict) else i, v) for i, v in enumerate(ranks)]
    for rank, value in items:
        if isinstance(value, dict) and isinstance(value.get("report"), dict):
            value = value["report"]
        if isinstance(value, dict) and "optimizers" in value:
            out[str(rank)] = value
    return dict(sorted(out.items(), key=lambda kv: (len(kv[0]), kv[0])))


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    return None


def lr_series(opt: dict[str, Any]) -> list[list[tuple[float, float]]]:
    """One ``[(step, lr), ...]`` list per param group from an optimizer's ``lr_history``."""
    groups: list[list[tuple[float, float]]] = []
    for row in opt.get("lr_history") or ():
        if not isinstance(row, list) or not row:
            continue
        step = _num(row[0])
        if step is None:
            continue
        for g, v in enumerate(row[1:]):
            while len(groups) <= g:
                groups.append([])
            value = _num(v)
            if value is not None:
                groups[g].append((step, value))
    return groups


def _group_label(opt: dict[str, Any], g: int) -> str:
    names = opt.get("param_groups") or []
    name = names[g] if g < len(names) and isinstance(names[g], str) else None
    return f"group {g}" + (f" ({name})" if name else "")


def epoch_ends(opt: dict[str, Any]) -> list[float]:
    """The last optimizer step of each epoch: ``epoch_ends``, else the running sum of
    ``epoch_steps`` (optimizer steps per epoch, as rank traces carry them)."""
    ends = [float(e) for e in opt.get("epoch_ends") or [] if _num(e) is not None]
    if not ends and opt.get("epoch_steps"):
        total = 0.0
        for n in opt["epoch_steps"]:
            if _num(n) is None:
                return []
            total += float(n)
            ends.append(total)
    return ends


def _epoch_lines(opt: dict[str, Any]) -> list[tuple[float, str]]:
    return [(e + 0.5, f"epoch {i + 2}") for i, e in enumerate(epoch_ends(opt)[:-1])]


def _epoch_start(opt: dict[str, Any], epoch: int) -> float | None:
    ends = epoch_ends(opt)
    if epoch == 1:
        return 1.0
    if 2 <= epoch <= len(ends) + 1:
        return ends[epoch - 2] + 1
    return None


def _finding_step(f: dict[str, Any], opt: dict[str, Any]) -> float | None:
    ev: dict[str, Any] = f["evidence"] if isinstance(f.get("evidence"), dict) else {}
    step = _num(ev.get("step"))
    if step is not None:
        return step
    epoch = ev.get("epoch")
    if isinstance(epoch, int) and not isinstance(epoch, bool):
        return _epoch_start(opt, epoch)
    return None


def _finding_optimizer(f: dict[str, Any], report: dict[str, Any]) -> str | None:
    ev: dict[str, Any] = f["evidence"] if isinstance(f.get("evidence"), dict) else {}
    if isinstance(ev.get("optimizer"), str):
        return ev["optimizer"]
    sched = ev.get("scheduler")
    for s in report.get("schedulers") or []:
        if isinstance(s, dict) and s.get("name") == sched:
            return s.get("optimizer")
    return None


def build_charts(report: dict[str, Any]) -> list[Chart]:
    """The charts of a report: one LR chart per optimizer, one scale chart per GradScaler."""
    ranks = rank_reports(report)
    primary = report
    if not report.get("optimizers") and ranks:
        primary = next(iter(ranks.values()))
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    optimizers = [o for o in primary.get("optimizers") or [] if isinstance(o, dict)]
    charts: list[Chart] = []
    for oi, opt in enumerate(optimizers):
        name = str(opt.get("name", f"optimizer {oi + 1}"))
        chart = Chart(title=f"learning rate: {name}", y_label="learning rate")
        last = _num(opt.get("steps"))
        if ranks:
            for r_i, (rank, rep) in enumerate(ranks.items()):
                match = [o for o in rep.get("optimizers") or []
                         if isinstance(o, dict) and o.get("name") == opt.get("name")]
                for o in match[:1]:
                    for g, pts in enumerate(lr_series(o)):
                        chart.series.append(Series(
                            f"rank {rank}: {_group_label(o, g)}", pts,
                            PALETTE[(r_i * 3 + g) % len(PALETTE)], dashed=r_i > 0,
                            last_x=_num(o.get("steps"))))
        else:
            for g, pts in enumerate(lr_series(opt)):
                chart.series.append(Series(_group_label(opt, g), pts, last_x=last))
        chart.vlines = _epoch_lines(opt)
        sched_steps: list[int] = []
        for s in primary.get("schedulers") or []:
            if isinstance(s, dict) and s.get("optimizer") == opt.get("name") \
                    and not s.get("in_composite"):
                sched_steps += expand_marks(s.get("step_at"), CSV_MARKS_LIMIT)
        chart.rugs.append(("scheduler steps", sched_steps, "#2a7"))
        chart.rugs.append(("skipped optimizer steps (GradScaler)",
                           expand_marks(opt.get("skipped_steps"), CSV_MARKS_LIMIT), "#c00"))
        for fi, f in enumerate(findings, 1):
            owner = _finding_optimizer(f, report)
            if owner is not None and owner != opt.get("name"):
                continue
            if owner is None and oi > 0:
                continue
            x = _finding_step(f, opt)
            if x is not None:
                chart.markers.append(Marker(x, str(fi), f"finding-{fi}",
                                            f"{f.get('code', '')}: {f.get('message', '')}"))
        charts.append(chart)
    for sc in primary.get("scalers") or []:
        if not isinstance(sc, dict):
            continue
        pts = [(float(p[0]), float(p[1])) for p in sc.get("scale_history") or []
               if isinstance(p, list) and len(p) == 2 and _num(p[0]) is not None
               and _num(p[1]) is not None]
        if pts:
            steps = max((_num(o.get("steps")) or 0) for o in optimizers) if optimizers else None
            charts.append(Chart(title=f"GradScaler scale: {sc.get('name', 'GradScaler')}",
                                y_label="loss scale",
                                series=[Series("scale", pts, "#555", last_x=steps)],
                                vlines=charts[0].vlines if charts else [], height=220))
    return charts


def _summary(report: dict[str, Any]) -> str:
    rows = []
    for o in report.get("optimizers") or []:
        if not isinstance(o, dict):
            continue
        rows.append("<tr><td>optimizer</td><td>{}</td><td>{} steps, {} taken, {} skipped</td>"
                    "<td>{} → {}</td><td></td></tr>".format(
                        _e(o.get("name")), _e(o.get("steps")), _e(o.get("taken")),
                        _e(o.get("skipped")), _lrs(o.get("lr_first")), _lrs(o.get("lr_last"))))
    for s in report.get("schedulers") or []:
        if not isinstance(s, dict) or s.get("in_composite"):
            continue
        per = s.get("steps_per_epoch") or []
        per_txt = f", {max(per)} per epoch" if per and all(isinstance(n, int) for n in per) else ""
        hz = f", horizon {s['horizon']}" if s.get("horizon") else ""
        loc = s.get("location") if isinstance(s.get("location"), dict) else None
        where = f"{loc.get('path')}:{loc.get('line')}" if loc else ""
        rows.append("<tr><td>scheduler</td><td>{} on {}</td><td>{}</td><td>{} → {}</td>"
                    '<td class="loc">{}</td></tr>'.format(
                        _e(s.get("name")), _e(s.get("optimizer")),
                        _e(f"{s.get('steps')} steps{per_txt}{hz}"),
                        _lrs(s.get("lr_first")), _lrs(s.get("lr_last")), _e(where)))
    for sc in report.get("scalers") or []:
        if not isinstance(sc, dict):
            continue
        rows.append("<tr><td>GradScaler</td><td>{}</td><td>{} updates</td><td>scale {} first, "
                    "lowest {}</td><td></td></tr>".format(
                        _e(sc.get("name")), _e(sc.get("updates")), _fmt(sc.get("scale_first")),
                        _fmt(sc.get("scale_min"))))
    if not rows:
        return "<p>No optimizer step was seen.</p>"
    return ('<table id="summary"><tr><th>what</th><th>name</th><th>steps</th><th>LR</th>'
            "<th>where</th></tr>" + "".join(rows) + "</table>")


def _findings(report: dict[str, Any]) -> str:
    items = []
    for i, f in enumerate(report.get("findings") or [], 1):
        if not isinstance(f, dict):
            continue
        sev = f.get("severity") if f.get("severity") in ("error", "warning", "info") else "info"
        loc = f.get("location") if isinstance(f.get("location"), dict) else None
        where = ""
        if loc and loc.get("path"):
            where = str(loc.get("path")) + (f":{loc.get('line')}" if loc.get("line") else "")
        items.append(
            f'<div class="finding {sev}" id="finding-{i}"><a href="#charts">[{i}]</a> '
            f'<span class="code">{_e(f.get("code"))}</span><span class="sev">{_e(sev)}</span> '
            f'<span class="loc">{_e(where)}</span><div class="msg">{_e(f.get("message"))}</div>'
            + (f'<div class="fix">fix: {_e(f.get("fix"))}</div>' if f.get("fix") else "")
            + "</div>")
    if not items:
        return '<p class="none" id="no-findings">No problems found.</p>'
    return "\n".join(items)


def _e(v: Any) -> str:
    return escape("" if v is None else str(v))


def _fmt(v: Any) -> str:
    n = _num(v)
    return fmt_num(n) if n is not None else "?"


def _lrs(values: Any) -> str:
    if not isinstance(values, list) or not values:
        return "?"
    texts = [f"{n:.3g}" if (n := _num(v)) is not None else "?" for v in values]
    return _e(texts[0] if len(set(texts)) == 1 else "[" + ", ".join(texts) + "]")


def render_html(report: dict[str, Any], title: str = "lrdoctor run report") -> str:
    """The whole report page as a string (UTF-8, no external resources)."""
    charts = build_charts(report)
    findings = [f for f in report.get("findings") or [] if isinstance(f, dict)]
    n_steps = sum(int(o.get("steps") or 0) for o in report.get("optimizers") or []
                  if isinstance(o, dict) and isinstance(o.get("steps"), int))
    meta = [f"{n_steps} optimizer steps"]
    if isinstance(report.get("epochs"), int):
        meta.insert(0, f"{report['epochs']} epochs")
    if report.get("script"):
        meta.insert(0, str(report["script"]))
    if report.get("interrupted"):
        meta.append("interrupted: partial report")
    if report.get("error"):
        meta.append(f"the script failed: {report['error']}")
    ranks = rank_reports(report)
    if ranks:
        world = report.get("world_size")
        if isinstance(world, int) and world > len(ranks):
            meta.append(f"{len(ranks)} of {world} ranks reported")
        else:
            meta.append(f"{len(ranks)} ranks")
    count = f"{len(findings)} finding{'s' if len(findings) != 1 else ''}"
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # nothing on the page may load anything or run anything
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data:\">",
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="meta" id="meta">{_e(" · ".join(meta))} · '
        f'<span id="finding-count">{_e(count)}</span> · lrdoctor {_e(report.get("lrdoctor"))}</p>',
        '<h2 id="charts">Schedule</h2>',
        '<p class="key"><span><b style="color:#2a7">|</b> scheduler step</span>'
        '<span><b style="color:#c00">|</b> optimizer step skipped by GradScaler</span>'
        '<span>┆ epoch boundary</span><span><b style="color:#c00">●</b> finding</span></p>',
    ]
    body += [render_svg(c) for c in charts] or ["<p>No learning rate was recorded.</p>"]
    body += ['<h2 id="findings">Findings</h2>', _findings(report),
             '<h2 id="summary-title">Summary</h2>', _summary(report), "</body></html>"]
    return "\n".join(body) + "\n"


def write_html(report: dict[str, Any], path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(render_html(report))


def csv_paths(base: str) -> dict[str, str]:
    """The CSV files written next to ``base`` (the JSON or HTML report's path):
    ``<stem>.lr.csv``, ``<stem>.scale.csv`` and ``<stem>.events.csv``."""
    stem = os.path.splitext(base)[0]
    return {k: f"{stem}.{k}.csv" for k in ("lr", "scale", "events")}


def write_csv(report: dict[str, Any], base: str) -> list[str]:
    """The data behind the plots, in full (not thinned), as three CSV files next to ``base``:

    - ``lr``: ``rank,optimizer,param_group,step,lr``, one row per LR change (the LR holds until
      the next row of the same group);
    - ``scale``: ``rank,scaler,step,scale``, one row per change of a GradScaler's scale;
    - ``events``: ``rank,kind,name,step`` with kind ``epoch_end`` (last optimizer step of an
      epoch), ``scheduler_step`` (optimizer steps made when the scheduler stepped; 0 = before
      the first) or ``skipped_step``.
    """
    ranks = rank_reports(report) or {"": report}
    paths = csv_paths(base)
    with open(paths["lr"], "w", newline="", encoding="utf-8") as lr_fh, \
            open(paths["scale"], "w", newline="", encoding="utf-8") as sc_fh, \
            open(paths["events"], "w", newline="", encoding="utf-8") as ev_fh:
        lr_w, sc_w, ev_w = csv.writer(lr_fh), csv.writer(sc_fh), csv.writer(ev_fh)
        lr_w.writerow(["rank", "optimizer", "param_group", "step", "lr"])
        sc_w.writerow(["rank", "scaler", "step", "scale"])
        ev_w.writerow(["rank", "kind", "name", "step"])
        for rank, rep in ranks.items():
            for o in rep.get("optimizers") or []:
                if not isinstance(o, dict):
                    continue
                for g, pts in enumerate(lr_series(o)):
                    for step, lr in pts:
                        lr_w.writerow([rank, o.get("name"), g, int(step), repr(lr)])
                for e in epoch_ends(o):
                    ev_w.writerow([rank, "epoch_end", o.get("name"), int(e)])
                for step in expand_marks(o.get("skipped_steps"), CSV_MARKS_LIMIT):
                    ev_w.writerow([rank, "skipped_step", o.get("name"), step])
            for s in rep.get("schedulers") or []:
                if isinstance(s, dict):
                    for step in expand_marks(s.get("step_at"), CSV_MARKS_LIMIT):
                        ev_w.writerow([rank, "scheduler_step", s.get("name"), step])
            for sc in rep.get("scalers") or []:
                if isinstance(sc, dict):
                    for p in sc.get("scale_history") or []:
                        if isinstance(p, list) and len(p) == 2:
                            sc_w.writerow([rank, sc.get("name"), p[0], repr(p[1])])
    return list(paths.values())
