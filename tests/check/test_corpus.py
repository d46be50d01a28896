"""The corpus under tests/corpus: realistic scripts whose findings are asserted exactly.

An entry is a top-level script, notebook, or directory (checked as one project). Each
``# expect: LRDnnn`` comment marks a line that must be reported with that code; nothing else
may be reported.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from lrdoctor.check import STATIC_CODES
from lrdoctor.check.runner import check_files
from lrdoctor.check.sources import discover

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
EXPECT = re.compile(r"#\s*expect:\s*((?:LRD\d{3}[\s,]*)+)")
ENTRIES = sorted(p.name for p in CORPUS.iterdir() if p.suffix in (".py", ".ipynb") or p.is_dir())

Mark = tuple[str, int | None, int, str]  # (file, cell, line, code)


def _lines(path: Path) -> list[tuple[int | None, int, str]]:
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]  # numbered like ruff: all cells count
        return [(n, i, line) for n, cell in enumerate(cells, 1) if cell["cell_type"] == "code"
                for i, line in enumerate("".join(cell["source"]).splitlines(), 1)]
    return [(None, i, line) for i, line in enumerate(path.read_text().splitlines(), 1)]


def expected(entry: Path) -> set[Mark]:
    files = [entry] if entry.is_file() else sorted(entry.rglob("*.py"))
    out = set()
    for path in files:
        for cell, line, text in _lines(path):
            match = EXPECT.search(text)
            if match:
                for code in re.findall(r"LRD\d{3}", match.group(1)):
                    out.add((path.relative_to(CORPUS).as_posix(), cell, line, code))
    return out


def actual(entry: Path) -> set[Mark]:
    files, errors = discover([str(entry)])
    report = check_files(files, frozenset(STATIC_CODES), jobs=1)
    assert errors == [] and report.errors == []
    out = set()
    for d in report.diagnostics:
        rel = Path(os.path.abspath(d.path)).relative_to(CORPUS).as_posix()
        out.add((rel, d.cell, d.line, d.code))
    return out


@pytest.mark.parametrize("name", ENTRIES)
def test_corpus_findings_are_exactly_the_expected_ones(name: str) -> None:
    entry = CORPUS / name
    assert actual(entry) == expected(entry)


def test_corpus_is_large_and_balanced() -> None:
    scripts = [p for p in CORPUS.rglob("*") if p.suffix in (".py", ".ipynb")]
    buggy = [p for p in scripts if any(EXPECT.search(t) for _, _, t in _lines(p))]
    assert len(scripts) >= 30
    assert len(buggy) >= 15 and len(scripts) - len(buggy) >= 15
    codes = {m[3] for name in ENTRIES for m in expected(CORPUS / name)}
    assert len(codes) >= 12


def test_parallel_check_of_the_whole_corpus_matches_the_serial_one() -> None:
    from lrdoctor.check.runner import _check_parallel, _sizes, merge_results

    files, _ = discover([str(CORPUS)])
    serial = check_files(files, frozenset(STATIC_CODES), jobs=1)
    parallel = merge_results(_check_parallel(files, _sizes(files), frozenset(STATIC_CODES), jobs=2))
    assert [d.to_dict() for d in parallel.diagnostics] == [d.to_dict() for d in serial.diagnostics]
    assert len(serial.diagnostics) == sum(len(expected(CORPUS / name)) for name in ENTRIES)
