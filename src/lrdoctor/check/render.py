"""Output formats of ``lrdoctor check``: text (ruff-like, with the code line and a caret),
JSON, SARIF 2.1.0 for code scanning, and GitHub Actions annotations.

Every format lists the files that could not be checked (:class:`Problem`, codes E902 and E999)
among the findings, so that no format can read as a clean result when a file was skipped."""

from __future__ import annotations

import json
import os
import urllib.parse
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from lrdoctor import __version__
from lrdoctor.catalog import CATALOG
from lrdoctor.check.diagnostic import NOT_CHECKED, Diagnostic, Problem

Item = Diagnostic | Problem
LineSource = Callable[[Item], str | None]
#: (path, cell, line, column) of a notebook finding -> (line, column) in the raw .ipynb file
NotebookPosition = Callable[[str, int, int, int], tuple[int, int] | None]

_COLORS = {"error": "31", "warning": "33", "info": "36", "bold": "1", "dim": "2", "code": "35"}


def _paint(text: str, what: str, color: bool) -> str:
    return f"\x1b[{_COLORS[what]}m{text}\x1b[0m" if color else text


def severity(d: Item) -> str:
    return "error" if isinstance(d, Problem) else d.severity


def name(d: Item) -> str:
    return d.name if isinstance(d, Problem) else CATALOG[d.code].name


def fix_hint(d: Item) -> str:
    return d.fix_hint if isinstance(d, Problem) else CATALOG[d.code].fix_hint


def in_order(diags: Sequence[Diagnostic], problems: Sequence[Problem]) -> list[Item]:
    """Findings and unchecked files in one list, by path and position."""
    items: list[Item] = [*diags, *problems]
    items.sort(key=lambda d: (d.path, d.cell or 0, d.line, d.col, d.code or ""))
    return items


def where(d: Item) -> str:
    if d.cell is not None:
        return f"{d.path}:cell {d.cell}:line {d.line}:{d.col}"
    return f"{d.path}:{d.line}:{d.col}"


def text(diags: Sequence[Item], line_of: LineSource, color: bool = False,
         show_source: bool = True) -> str:
    out: list[str] = []
    for d in diags:
        sev = severity(d)
        code = d.code or "internal-error"
        head = (
            f"{_paint(where(d), 'bold', color)}: {_paint(code, 'code', color)} "
            f"[{_paint(sev, sev, color)}] {d.message}"
        )
        out.append(head)
        if show_source:
            line = line_of(d)
            if line is not None:
                number = str(d.line)
                pad = " " * len(number)
                shown = line.expandtabs(4)
                start = len(line[: d.col - 1].expandtabs(4))
                if isinstance(d, Problem):
                    width = 1
                elif d.end_line == d.line and d.end_col is not None and d.end_col > d.col:
                    width = len(line[d.col - 1 : d.end_col - 1].expandtabs(4))
                else:  # to the end of the code on this line, not into a trailing comment
                    code_part = shown.split("  #", 1)[0] if "  #" in shown[start:] else shown
                    width = max(1, len(code_part.rstrip()) - start)
                out.append(f"{pad} |")
                out.append(f"{number} | {shown.rstrip()}")
                out.append(f"{pad} | {' ' * start}{_paint('^' * max(width, 1), sev, color)}")
                out.append(f"{pad} = fix: {fix_hint(d)}")
            out.append("")
    return "\n".join(out)


def _n(count: int, word: str, plural: str = "") -> str:
    return f"{count} {word if count == 1 else plural or word + 's'}"


def summary(diags: Sequence[Diagnostic], files: int, color: bool = False,
            problems: Sequence[Problem] = ()) -> str:
    """The closing lines of the text format. ``files`` counts every file looked at; it never
    says "All checks passed" while a file or a notebook cell went unchecked."""
    unchecked = len({p.path for p in problems if p.whole_file and not p.internal})
    cells = sum(1 for p in problems if not p.whole_file)
    failed = len({p.path for p in problems if p.internal})
    checked = files - unchecked - failed
    if not diags and not problems:
        if not files:
            return "No .py or .ipynb files to check."
        return f"All checks passed ({_n(files, 'file')} checked)."
    if diags:
        by_severity = Counter(d.severity for d in diags)
        parts = [_n(n, sev) for sev, n in sorted(by_severity.items())]
        line = (f"Found {_n(len(diags), 'finding')} ({', '.join(parts)}) in "
                f"{_n(checked, 'file')} checked.")
    elif checked:
        line = f"No findings in {_n(checked, 'file')} checked."
    else:
        line = "No file was checked."
    skipped = []
    if unchecked:
        skipped.append(f"{_n(unchecked, 'file')} could not be checked (E902/E999 above)")
    if cells:
        skipped.append(f"{_n(cells, 'notebook cell')} could not be checked (E999 above)")
    if failed:
        skipped.append(f"{_n(failed, 'file')} failed inside lrdoctor (see the errors)")
    if skipped:
        line += "\n" + _paint(f"Not checked: {'; '.join(skipped)}.", "error", color)
    fixable = sum(1 for d in diags if d.edits)
    if fixable:
        line += f"\n[*] {fixable} fixable with `lrdoctor check --fix`."
    if diags or unchecked or cells:
        line += "\n`lrdoctor explain CODE` explains a code; `# noqa: CODE` silences one line."
    return line


def _statistics_rows(diags: Sequence[Item]) -> list[tuple[str, str, int, bool]]:
    counts = Counter(d.code or "internal-error" for d in diags)
    fixable = Counter(d.code for d in diags if d.edits)
    names = {d.code or "internal-error": name(d) for d in diags}
    return [(code, names[code], n, bool(fixable[code]))
            for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def statistics(diags: Sequence[Item]) -> str:
    rows = []
    for code, rule, n, fixable in _statistics_rows(diags):
        mark = "[*]" if fixable else "   "
        rows.append(f"{n:>5}\t{code}\t{mark} {rule}")
    return "\n".join(rows)


def statistics_json(diags: Sequence[Item]) -> str:
    """``--statistics --format json``: one object per code, most frequent first (the shape
    ruff uses): ``[{"code": "LRD002", "name": "...", "count": 3, "fixable": false}]``."""
    return json.dumps([{"code": code, "name": rule, "count": n, "fixable": fixable}
                       for code, rule, n, fixable in _statistics_rows(diags)], indent=2)


def to_json(diags: Sequence[Item]) -> str:
    return json.dumps([d.to_dict() for d in diags], indent=2)


def _no_position(path: str, cell: int, line: int, col: int) -> None:
    return None


def _cell_prefix(d: Item) -> str:
    return f"cell {d.cell}, line {d.line}: " if d.cell is not None else ""


def github(diags: Sequence[Item], position: NotebookPosition = _no_position) -> str:
    """GitHub Actions workflow commands: one annotation per finding and per file that could
    not be checked. Notebook annotations point at the cell's line in the raw ``.ipynb``."""
    level = {"error": "error", "warning": "warning", "info": "notice"}
    out = []
    for d in diags:
        props = [f"file={_gh_prop(d.path)}"]
        if d.cell is None:
            props += [f"line={d.line}", f"col={d.col}"]
            if d.end_line is not None:
                props.append(f"endLine={d.end_line}")
        else:
            raw = position(d.path, d.cell, d.line, d.col)
            if raw is not None:
                props += [f"line={raw[0]}", f"col={raw[1]}"]
        title = f"{d.code} {name(d)}" if d.code else "lrdoctor internal error"
        props.append(f"title={_gh_prop(title)}")
        message = _cell_prefix(d) + d.message
        out.append(f"::{level[severity(d)]} {','.join(props)}::{_gh_data(message)}")
    return "\n".join(out)


def _gh_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(value: str) -> str:
    return _gh_data(value).replace(":", "%3A").replace(",", "%2C")


def sarif_uri(path: str) -> tuple[str, str | None]:
    """(uri, uriBaseId) of a path as SARIF wants it: percent-encoded (a space is ``%20``, a
    ``%`` is ``%25``), relative to the checkout (``%SRCROOT%``) or an absolute ``file:`` URI."""
    posix = path.replace(os.sep, "/")
    if os.path.isabs(path):
        from pathlib import Path

        return Path(path).as_uri(), None
    return urllib.parse.quote(posix, safe="/"), "%SRCROOT%"


def _sarif_location(d: Item, position: NotebookPosition) -> dict[str, Any]:
    uri, base = sarif_uri(d.path)
    artifact: dict[str, Any] = {"uri": uri}
    if base:
        artifact["uriBaseId"] = base
    physical: dict[str, Any] = {"artifactLocation": artifact}
    if d.cell is None:
        region: dict[str, Any] = {"startLine": d.line, "startColumn": d.col}
        if d.end_line is not None:
            region["endLine"] = d.end_line
            if d.end_col is not None:
                region["endColumn"] = d.end_col
        physical["region"] = region
    else:  # a notebook: the region is in the raw JSON file, where the cell's line is written
        start = position(d.path, d.cell, d.line, d.col)
        if start is not None:
            region = {"startLine": start[0], "startColumn": start[1]}
            if d.end_line == d.line and d.end_col is not None and d.end_col > d.col:
                end = position(d.path, d.cell, d.line, d.end_col)
                if end is not None and end[0] == start[0]:
                    region["endColumn"] = end[1]
            physical["region"] = region
    return {"physicalLocation": physical}


def _sarif_rule(code: str, name: str, summary: str, why: str, fix: str,
                level: str, tags: list[str]) -> dict[str, Any]:
    return {
        "id": code,
        "name": name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": why},
        "help": {"text": fix, "markdown": fix},
        "defaultConfiguration": {"level": level},
        "properties": {"tags": tags},
    }


def sarif(diags: Sequence[Item], position: NotebookPosition = _no_position) -> str:
    """A SARIF 2.1.0 log (GitHub code scanning, VS Code SARIF viewer). Files that could not
    be checked are results (E902/E999, so that they show up as alerts) and also tool execution
    notifications; an internal error marks the run as not successful."""
    level = {"error": "error", "warning": "warning", "info": "note"}
    codes = sorted(CATALOG)
    rules = []
    for code in codes:
        entry = CATALOG[code]
        rules.append(_sarif_rule(code, entry.name, entry.summary, entry.why.strip(),
                                 entry.fix.strip(), level[entry.severity],
                                 ["pytorch", "learning-rate" if code < "LRD100" else "amp"]))
    for code, (rule, hint) in sorted(NOT_CHECKED.items()):
        what = "could not be read" if code == "E902" else "could not be parsed"
        rules.append(_sarif_rule(code, rule, f"The file {what}, so it was not checked.",
                                 f"lrdoctor reports the files it {what} instead of skipping "
                                 "them silently: no finding in them is not a clean result.",
                                 hint, "error", ["lrdoctor", "not-checked"]))
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    results = []
    notifications = []
    for d in diags:
        location = _sarif_location(d, position)
        message = _cell_prefix(d) + d.message
        if isinstance(d, Problem):
            notifications.append({
                "level": "error",
                "message": {"text": f"{d.path}: {message}"},
                "locations": [location],
                "descriptor": {"id": d.code or "internal-error"},
            })
            if d.code is None:
                continue
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": level[severity(d)],
            "message": {"text": message},
            "locations": [location],
        }
        if d.cell is not None:
            result["properties"] = {"cell": d.cell, "lineInCell": d.line, "columnInCell": d.col}
        results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "lrdoctor",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "invocations": [{
                    "executionSuccessful": not any(isinstance(d, Problem) and d.internal
                                                   for d in diags),
                    "toolExecutionNotifications": notifications,
                }],
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(log, indent=2)
