"""Notebooks that write their training script: a ``%%writefile train.py`` cell, then
``!python train.py`` (or ``!accelerate launch train.py``, ``notebook_launcher``).

Each Python file the notebook writes is checked as the separate program it is, never joined
to the notebook's own cells: read where the notebook would write it, so that the written files
import one another (``%%writefile utils.py``, then ``from utils import build_scheduler`` in
``train.py``) and the notebook's cells import them, as they do once it has run. Findings are
reported at the notebook with the cell and the line in that cell, like any other notebook
finding. A file written anew by a later cell (without ``-a``) is checked in each version.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable

from lrdoctor.check.diagnostic import Diagnostic, Problem
from lrdoctor.check.engine import FileResult, check_source
from lrdoctor.check.project import WrittenLoader, display_path
from lrdoctor.check.runner import merge_results
from lrdoctor.check.sources import NotebookSource, WrittenFile, outside_code


def check_notebook(path: str, notebook: NotebookSource, codes: frozenset[str] | None,
                   result: FileResult) -> FileResult:
    """Check the notebook ``path`` (read as ``notebook``, which writes Python files) into
    ``result``: its cells, then every file it writes."""
    shown = result.path
    base = os.path.dirname(os.path.abspath(path))

    def where(written: WrittenFile) -> str:
        return os.path.join(base, written.path)

    final = {where(w): w.source.text for w in notebook.written if w.final}
    loader = WrittenLoader(final)
    # the sources findings are placed by, by the path they are found at
    sources: dict[str, NotebookSource] = {shown: notebook}
    sources.update({display_path(where(w)): w.source for w in notebook.written if w.final})
    group = [check_source(notebook.text, shown, codes, loader, notebook, result, place=False)]
    group += [check_source(w.source.text, display_path(where(w)), codes, loader, w.source,
                           place=False) for w in notebook.written if w.final]
    # the written files are one project: a function that train.py calls with what it built is
    # that trace's to report, not the guess of utils.py traced alone (as for files on disk)
    reports = [(merge_results(group), sources)]
    for w in notebook.written:
        if not w.final:  # an earlier version, run before the cell that rewrites it
            own = display_path(where(w))
            alone = check_source(w.source.text, own, codes,
                                 WrittenLoader({**final, where(w): w.source.text}), w.source,
                                 place=False)
            group.append(alone)
            reports.append((merge_results([alone]), {**sources, own: w.source}))
    diagnostics: dict[tuple[str, str, int | None, int, int], Diagnostic] = {}
    problems: list[Problem] = []
    notes: list[str] = []
    for report, placing in reports:
        for diag in report.diagnostics:
            source = placing.get(diag.path)
            if source is not None:
                _place(diag, source, placing, shown)
            diagnostics.setdefault(diag.key, diag)
        for problem in report.problems:
            source = placing.get(problem.path)
            if source is not None and problem.path != shown:
                problem = dataclasses.replace(
                    problem, path=shown, whole_file=False,
                    cell=problem.cell if problem.cell is not None else source.cell_starts[0][0])
            if problem not in problems:
                problems.append(problem)
        for note in report.notes:
            for written in placing:
                if written != shown and note.startswith(written + ":"):
                    note = f"{shown} (the file it writes, {written}){note[len(written):]}"
            if note not in notes:
                notes.append(note)
    result.diagnostics = sorted(diagnostics.values(),
                                key=lambda d: (d.path, d.cell or 0, d.line, d.col, d.code))
    result.problems = problems
    result.errors = [str(p) for p in problems]
    result.notes = notes
    # what the written files' traces entered (and left out there), for the files on disk they
    # call into; `reached` stays the cells' own (it is matched against their findings' lines)
    result.entered = frozenset().union(*(r.entered for r in group))
    result.skipped = frozenset().union(*(r.skipped for r in group))
    return result


def _place(diag: Diagnostic, source: NotebookSource, sources: dict[str, NotebookSource],
           shown: str) -> None:
    """Point ``diag``, found in one of the notebook's sources, at its cell; a ``utils.py:12``
    in its message that names a written file says that file's cell and line instead."""
    source.place(diag)
    diag.path = shown
    names = [os.path.basename(written) for written in sources if written != shown]
    for written, other in sources.items():
        name = os.path.basename(written)
        if written == shown or names.count(name) > 1:
            continue
        if f"{name}:" not in diag.message:
            continue
        pattern = re.compile(rf"(?<![\w./]){re.escape(name)}:(\d+)\b")

        def cell_line(match: re.Match[str], other: NotebookSource = other) -> str:
            return f"{match.group(0).split(':')[0]} ({other.cell_line(int(match.group(1)))})"

        def rewrite(text: str, pattern: re.Pattern[str] = pattern,
                    cell_line: Callable[[re.Match[str]], str] = cell_line) -> str:
            return pattern.sub(cell_line, text)

        diag.message = outside_code(diag.message, rewrite)
