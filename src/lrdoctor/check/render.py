"""Output formats of ``lrdoctor check``: text (ruff-like, with the code line and a caret),
JSON, SARIF 2.1.0 for code scanning, and GitHub Actions annotations."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable
from typing import Any

from lrdoctor import __version__
from lrdoctor.catalog import CATALOG
from lrdoctor.check.diagnostic import Diagnostic

LineSource = Callable[[Diagnostic], str | None]

_COLORS = {"error": "31", "warning": "33", "info": "36", "bold": "1", "dim": "2", "code": "35"}


def _paint(text: str, what: str, color: bool) -> str:
    return f"\x1b[{_COLORS[what]}m{text}\x1b[0m" if color else text


def where(d: Diagnostic) -> str:
    if d.cell is not None:
        return f"{d.path}:cell {d.cell}:line {d.line}:{d.col}"
    return f"{d.path}:{d.line}:{d.col}"


def text(diags: list[Diagnostic], line_of: LineSource, color: bool = False,
         show_source: bool = True) -> str:
    out: list[str] = []
    for d in diags:
        severity = CATALOG[d.code].severity
        head = (
            f"{_paint(where(d), 'bold', color)}: {_paint(d.code, 'code', color)} "
            f"[{_paint(severity, severity, color)}] {d.message}"
        )
        out.append(head)
        if show_source:
            line = line_of(d)
            if line is not None:
                number = str(d.line)
                pad = " " * len(number)
                shown = line.expandtabs(4)
                start = len(line[: d.col - 1].expandtabs(4))
                if d.end_line == d.line and d.end_col is not None and d.end_col > d.col:
                    width = len(line[d.col - 1 : d.end_col - 1].expandtabs(4))
                else:  # to the end of the code on this line, not into a trailing comment
                    code = shown.split("  #", 1)[0] if "  #" in shown[start:] else shown
                    width = max(1, len(code.rstrip()) - start)
                out.append(f"{pad} |")
                out.append(f"{number} | {shown.rstrip()}")
                out.append(f"{pad} | {' ' * start}{_paint('^' * max(width, 1), severity, color)}")
                out.append(f"{pad} = fix: {CATALOG[d.code].fix_hint}")
            out.append("")
    return "\n".join(out)


def summary(diags: list[Diagnostic], files: int, color: bool = False) -> str:
    if not diags:
        return f"All checks passed ({files} file{'s' if files != 1 else ''} checked)."
    by_severity = Counter(CATALOG[d.code].severity for d in diags)
    parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in sorted(by_severity.items())]
    n = len(diags)
    line = f"Found {n} finding{'s' if n != 1 else ''} ({', '.join(parts)}) in {files} file{'s' if files != 1 else ''} checked."
    fixable = sum(1 for d in diags if d.edits)
    if fixable:
        line += f"\n[*] {fixable} fixable with `lrdoctor check --fix`."
    line += "\n`lrdoctor explain CODE` explains a code; `# noqa: CODE` silences one line."
    return line


def statistics(diags: list[Diagnostic]) -> str:
    counts = Counter(d.code for d in diags)
    fixable = Counter(d.code for d in diags if d.edits)
    rows = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        mark = "[*]" if fixable[code] else "   "
        rows.append(f"{n:>5}\t{code}\t{mark} {CATALOG[code].name}")
    return "\n".join(rows)


def to_json(diags: list[Diagnostic]) -> str:
    return json.dumps([d.to_dict() for d in diags], indent=2)


def github(diags: list[Diagnostic]) -> str:
    """GitHub Actions workflow commands: one annotation per finding."""
    level = {"error": "error", "warning": "warning", "info": "notice"}
    out = []
    for d in diags:
        entry = CATALOG[d.code]
        props = [f"file={_gh_prop(d.path)}", f"line={d.line}", f"col={d.col}"]
        if d.end_line is not None and d.cell is None:
            props.append(f"endLine={d.end_line}")
        props.append(f"title={_gh_prop(f'{d.code} {entry.name}')}")
        message = d.message if d.cell is None else f"cell {d.cell}, line {d.line}: {d.message}"
        out.append(f"::{level[entry.severity]} {','.join(props)}::{_gh_data(message)}")
    return "\n".join(out)


def _gh_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(value: str) -> str:
    return _gh_data(value).replace(":", "%3A").replace(",", "%2C")


def sarif(diags: list[Diagnostic]) -> str:
    """A SARIF 2.1.0 log (GitHub code scanning, VS Code SARIF viewer)."""
    level = {"error": "error", "warning": "warning", "info": "note"}
    codes = sorted(CATALOG)
    rules = []
    for code in codes:
        entry = CATALOG[code]
        rules.append(
            {
                "id": code,
                "name": entry.name,
                "shortDescription": {"text": entry.summary},
                "fullDescription": {"text": entry.why.strip()},
                "help": {"text": entry.fix.strip(), "markdown": entry.fix.strip()},
                "defaultConfiguration": {"level": level[entry.severity]},
                "properties": {"tags": ["pytorch", "learning-rate" if code < "LRD100" else "amp"]},
            }
        )
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for d in diags:
        region: dict[str, Any] = {"startLine": d.line, "startColumn": d.col}
        if d.end_line is not None and d.cell is None:
            region["endLine"] = d.end_line
            if d.end_col is not None:
                region["endColumn"] = d.end_col
        result: dict[str, Any] = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": level[CATALOG[d.code].severity],
            "message": {"text": d.message if d.cell is None else f"cell {d.cell}: {d.message}"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": d.path.replace(os.sep, "/"),
                                             "uriBaseId": "%SRCROOT%"},
                        "region": region,
                    }
                }
            ],
        }
        if d.cell is not None:
            result["properties"] = {"cell": d.cell}
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
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }
    return json.dumps(log, indent=2)
