"""Metamorphic check: a dev case's script rewritten as a notebook must give the same findings.

Many users check notebooks (Kaggle kernels, course work), and the checker reads a notebook as
one Python source made of its code cells (IPython magics and shell lines set aside). This takes
every dev case of the manifest that is one `.py` file, rewrites it as an `.ipynb` whose cells
each hold N top-level statements (comments and decorators stay with the statement they lead),
checks the scripts and the notebooks in one CLI run each, and prints, per case, the codes a
notebook lost or added (LRD101 left out), then the totals. Held-out cases are never read.

    python bench/realcode/as_notebooks.py                      # one statement per cell
    python bench/realcode/as_notebooks.py --per-cell 3 --lrdoctor /path/to/lrdoctor

This is a benchmark, not a test: it reads the third-party files from the cache (see score.py).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import score  # noqa: E402


def as_notebook(source: str, per_cell: int) -> str:
    """``source`` as notebook JSON, a cell starting at every ``per_cell``-th top-level
    statement (at its first decorator); the lines before a statement stay in the cell above."""
    lines = source.splitlines(keepends=True)
    starts = [0]
    for stmt in ast.parse(source).body[per_cell::per_cell]:
        first = min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])
        starts.append(first - 1)
    bounds = [*starts, len(lines)]
    cells = ["".join(lines[a:b]) for a, b in zip(bounds, bounds[1:]) if b > a]
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                   "source": cell.splitlines(keepends=True)} for cell in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })


def codes_by_case(cases: list[score.Case], cache: Path, lrdoctor: list[str], per_cell: int | None
                  ) -> dict[str, set[str]]:
    """Codes found per case id, the scripts as they are (``per_cell`` None) or as notebooks."""
    with tempfile.TemporaryDirectory(prefix="realcode-nb-") as tmp:
        names: dict[str, str] = {}
        for i, case in enumerate(cases):
            root = Path(tmp, f"case{i:03d}")
            score.lay_out(case, cache, root)
            if per_cell is not None:
                script = root / case.paths[0]
                script.with_suffix(".ipynb").write_text(as_notebook(script.read_text(), per_cell))
                script.unlink()
            names[root.name] = case.id
        raw, error = score.run_lrdoctor(lrdoctor, tmp, sorted(names), timeout=900)
    if error:
        raise SystemExit(f"lrdoctor failed: {error}")
    found: dict[str, set[str]] = defaultdict(set)
    for f in raw:
        found[names[os.path.normpath(f["path"]).split(os.sep)[0]]].add(f["code"])
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-cell", type=int, default=1, help="top-level statements per cell (default 1)")
    ap.add_argument("--cache", type=Path, default=score.DEFAULT_CACHE)
    ap.add_argument("--lrdoctor", help="the lrdoctor executable (default: as score.py)")
    args = ap.parse_args(argv)
    lrdoctor = [args.lrdoctor] if args.lrdoctor else score.default_lrdoctor()
    cases = []
    for case in score.load_manifest():
        if case.split != "dev" or len(case.paths) != 1 or not case.paths[0].endswith(".py"):
            continue
        try:
            ast.parse((case.cache_dir(args.cache) / case.paths[0]).read_text())
        except (OSError, SyntaxError, ValueError):
            continue  # missing from the cache, or not Python 3 (its E999 is the script's own)
        cases.append(case)
    scripts = codes_by_case(cases, args.cache, lrdoctor, None)
    notebooks = codes_by_case(cases, args.cache, lrdoctor, args.per_cell)
    kept = lost = added = 0
    for case in cases:
        a = scripts.get(case.id, set()) - {score.TRIVIAL}
        b = notebooks.get(case.id, set()) - {score.TRIVIAL}
        kept += len(a & b)
        lost += len(a - b)
        added += len(b - a)
        if a != b:
            print(f"{case.id}: lost {sorted(a - b)}, added {sorted(b - a)}")
    print(f"{len(cases)} one-file dev cases as notebooks ({args.per_cell} statement(s) a cell): "
          f"codes kept {kept}, lost {lost}, added {added}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
