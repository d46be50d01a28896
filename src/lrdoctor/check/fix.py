"""Applying safe fixes (``--fix``) and showing them (``--diff``), preserving everything else:
formatting, comments and line endings are untouched outside the edited spans."""

from __future__ import annotations

import difflib
from collections import defaultdict

from lrdoctor.check.diagnostic import Diagnostic, Edit


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` applied (duplicates once, overlapping ones skipped)."""
    if text.startswith("\ufeff"):  # positions were computed without the byte-order mark
        return "\ufeff" + apply_edits(text[1:], edits)
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        if line - 1 >= len(lines):
            return len(text)
        return starts[line - 1] + col

    spans = sorted(
        {(offset(e.line, e.col), offset(e.end_line, e.end_col), e.text) for e in edits},
        reverse=True,
    )
    out = text
    last_start = len(text) + 1
    for start, end, new in spans:
        if end > last_start:
            continue  # overlaps an edit already applied
        out = out[:start] + new + out[end:]
        last_start = start
    return out


def fixed_sources(diags: list[Diagnostic], read: dict[str, str]) -> dict[str, str]:
    """New text for each file that has fixable findings: ``{path: text}``."""
    by_path: dict[str, list[Edit]] = defaultdict(list)
    for d in diags:
        if d.edits and d.cell is None:
            by_path[d.path].extend(d.edits)
    out = {}
    for path, edits in by_path.items():
        if path in read:
            new = apply_edits(read[path], edits)
            if new != read[path]:
                out[path] = new
    return out


def unified_diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True),
            fromfile=f"a/{path.lstrip('/')}", tofile=f"b/{path.lstrip('/')}",
        )
    )
