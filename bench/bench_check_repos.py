"""Throughput of `lrdoctor check` on whole repositories, as users run it (`cd repo &&
lrdoctor check .`), against the single-file corpus of bench_check.py in the same process.

    .venv/bin/python bench/bench_check_repos.py                       # the default trees
    .venv/bin/python bench/bench_check_repos.py --root /path/to/trees huggingface__peft
    LRDOCTOR_REPOS=/work/fphunt:/work/fphunt2 .venv/bin/python bench/bench_check_repos.py

A whole repository costs more per line than single files: each file's training loop is
followed through the project modules it imports, and a base class's entry points are traced
with every subclass. The trees are exported repositories kept outside this one (the
false-alarm hunt's, bench/realcode/FPHUNT.md): directories named `<owner>__<repo>` under the
roots given by --root or LRDOCTOR_REPOS (colon-separated). Without them the benchmark says so
and stops.

Reported, all in one process on one core (`check_files(..., jobs=1)`, the files the CLI would
walk, in its order), for each tree and for a sample of the single-file corpus (the torch
package and generated scripts), measured in turn, `--rounds` times (the best round kept):

- lines per CPU-second of lrdoctor, and of a bare read + `ast.parse` of the same files (the
  floor);
- the tree's time per line as a multiple of the single-file corpus's (target: within ~3x)
  and of its own floor.

This is not a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_corpus import count_lines, floor, generate_scripts, torch_files  # noqa: E402

DEFAULT_ROOTS = "/work/fphunt:/work/fphunt2"
# the largest trees of the hunt (diffusers 1 M lines, fairseq, peft) and a mid-size library
DEFAULT_TREES = ("huggingface__diffusers", "huggingface__peft", "facebookresearch__fairseq",
                 "pytorch__ignite")


def lrdoctor(files: list[str]) -> tuple[float, int]:
    """CPU seconds of lrdoctor on ``files`` in this process, one job, a fresh project cache,
    and the lines it checked (notebooks' code cells included)."""
    from lrdoctor.check import STATIC_CODES
    from lrdoctor.check.runner import check_files

    gc.collect()
    t0 = time.process_time()
    report = check_files(files, frozenset(STATIC_CODES), jobs=1)
    return time.process_time() - t0, report.lines


def walk(tree: Path) -> list[str]:
    """The files `lrdoctor check .` checks from the tree's root (paths relative to it)."""
    from lrdoctor.check.sources import discover

    cwd = os.getcwd()
    os.chdir(tree)
    try:
        files, _ = discover(["."])
    finally:
        os.chdir(cwd)
    return files


def find_trees(roots: list[str], names: list[str]) -> list[Path]:
    found = []
    for name in names:
        for root in roots:
            candidate = Path(root) / name
            if candidate.is_dir():
                found.append(candidate)
                break
        else:
            print(f"  {name}: not found under {':'.join(roots)} (skipped)")
    return found


def corpus_sample(workdir: Path, lines: int) -> list[str]:
    """Every k-th file of the single-file corpus until ``lines`` lines (deterministic)."""
    gen_dir = workdir / "generated"
    generate_scripts(gen_dir, 1500)
    _, tfiles = torch_files()
    files = tfiles + sorted(str(p) for p in gen_dir.rglob("*.py"))
    total = sum(count_lines(f) for f in files)
    step = max(1, round(total / max(lines, 1)))
    return files[::step]


def rate(lines: int, seconds: float) -> str:
    return f"{lines / seconds:>9,.0f}" if seconds > 0 else "      n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", default=list(DEFAULT_TREES),
                        help="tree directory names (owner__repo) under the roots")
    parser.add_argument("--root", action="append",
                        help="a directory holding the trees (repeatable; default: "
                             "$LRDOCTOR_REPOS or " + DEFAULT_ROOTS + ")")
    parser.add_argument("--corpus-lines", type=int, default=200_000,
                        help="lines of the single-file corpus measured as the baseline")
    parser.add_argument("--rounds", type=int, default=1, help="measurements of each (best kept)")
    args = parser.parse_args()

    roots = args.root or os.environ.get("LRDOCTOR_REPOS", DEFAULT_ROOTS).split(":")
    trees = find_trees(roots, args.trees)
    if not trees:
        print("no trees found: export whole repositories as <owner>__<repo> directories and "
              "give their parent with --root or LRDOCTOR_REPOS (see bench/realcode/FPHUNT.md)")
        return 0

    workdir = Path(tempfile.mkdtemp(prefix="lrdoctor-bench-repos-"))
    try:
        corpus = corpus_sample(workdir, args.corpus_lines)
        jobs = [("single-file corpus", Path("/"), corpus)]
        jobs += [(tree.name, tree, walk(tree)) for tree in trees]
        print(f"one process, one core; best of {args.rounds} round(s); lines: those lrdoctor "
              "checked (notebooks' code cells included; the floor parses the .py files)")
        best: dict[str, tuple[float, float, int]] = {}
        for _ in range(args.rounds):
            for name, tree, files in jobs:  # each round measures all of them, in turn
                cwd = os.getcwd()
                os.chdir(tree)
                try:
                    t_floor = floor(files)
                    t_ours, lines = lrdoctor(files)
                finally:
                    os.chdir(cwd)
                old = best.get(name)
                best[name] = (t_floor, t_ours, lines) if old is None else (
                    min(old[0], t_floor), min(old[1], t_ours), lines)
        _, base_ours, base_lines = best["single-file corpus"]
        base_rate = base_lines / base_ours
        print(f"\n{'':30} {'files':>6} {'lines':>9} {'floor l/s':>9} {'lrdoctor':>9} "
              f"{'CPU s':>7}  {'x corpus':>8} {'x floor':>7}")
        for name, _tree, files in jobs:
            t_floor, t_ours, lines = best[name]
            print(f"{name:30} {len(files):6,} {lines:9,} {rate(lines, t_floor)} "
                  f"{rate(lines, t_ours)} {t_ours:7.1f}  "
                  f"{base_rate / (lines / t_ours):7.2f}x {t_ours / t_floor:6.1f}x")
        print("\nx corpus: the tree's CPU time per line over the single-file corpus's "
              "(target: within ~3x); x floor: over read + ast.parse of the same files")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
