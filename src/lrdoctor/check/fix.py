"""Applying safe fixes (``--fix``) and showing them (``--diff``), preserving everything else:
formatting, comments and line endings are untouched outside the edited spans."""

from __future__ import annotations

import difflib
from collections import defaultdict

from lrdoctor.check.diagnostic import Diagnostic, Edit


def apply_edits(text: str, edits: list[Edit]) -> str:
    """``text`` with ``edits`` applied (duplicates once, overlapping ones skipped), in one pass:
    a file can hold many thousands of fixes."""
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
        {_at_line_end(text, offset(e.line, e.col), offset(e.end_line, e.end_col), e.text)
         for e in edits}
    )
    pieces = []
    done = 0
    for start, end, new in spans:
        if start < done:
            continue  # overlaps an edit already applied
        pieces += [text[done:start], new]
        done = end
    pieces.append(text[done:])
    return "".join(pieces)


def _at_line_end(text: str, start: int, end: int, new: str) -> tuple[int, int, str]:
    """An insertion that would end its line (``GradScaler(`` + ``"cuda", `` before a line
    break, in a call written one argument per line) must not leave trailing whitespace: the
    new argument goes on a line of its own, indented like the next one."""
    if not new or new == new.rstrip():
        return start, end, new
    line_end = end
    while line_end < len(text) and text[line_end] in " \t":
        line_end += 1
    if line_end < len(text) and text[line_end] not in "\r\n":
        return start, end, new  # code follows on the same line: the space separates it
    if start != end or not new.rstrip().endswith(","):
        return start, end, new.rstrip()
    newline = "\r\n" if text.startswith("\r\n", line_end) else text[line_end : line_end + 1]
    next_start = line_end + len(newline)
    next_end = next_start
    while next_end < len(text) and text[next_end] not in "\r\n":
        next_end += 1
    following = text[next_start:next_end]
    if not newline or not following.strip():
        return start, end, new.rstrip()
    indent = following[: len(following) - len(following.lstrip())]
    return next_start, next_start, f"{indent}{new.rstrip()}{newline}"


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
