"""Throughput of `lrdoctor check` against TorchFix, flake8 and a bare `ast.parse` loop.

    .venv/bin/python bench/bench_check.py                 # torch package + generated scripts
    .venv/bin/python bench/bench_check.py --sample-lines 20000 --generated 1500

Corpus: every .py file of the installed torch package plus generated training scripts (see
bench/check_corpus.py). Reported, all on this machine and the same files:

- floor: read + `ast.parse` of every file, one process (lines per CPU-second);
- lrdoctor in-process on one core (lines per CPU-second), and its ratio to the floor;
- `lrdoctor check` end to end on all cores (wall time, CPU time) over the whole corpus;
- TorchFix and flake8 (its default plugins only) on a sample of the same files, one job each,
  against lrdoctor on that same sample: lines per CPU-second and the ratios.

This is not a test: it prints numbers. It needs `pip install flake8 torchfix` (TorchFix with
`--no-deps` plus libcst, so that pip never replaces torch).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check_corpus import count_lines, floor, generate_scripts, torch_files  # noqa: E402


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_child(cmd: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds, exit code) of a child process."""
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    return wall, children_cpu() - cpu0, proc.returncode


def lrdoctor_in_process(files: list[str]) -> float:
    from lrdoctor.check import STATIC_CODES
    from lrdoctor.check.runner import check_files

    t0 = time.process_time()
    check_files(files, frozenset(STATIC_CODES), jobs=1)
    return time.process_time() - t0


def sample(files: list[str], target_lines: int) -> list[str]:
    """Every k-th file (files under 3,000 lines) until ``target_lines``: deterministic."""
    small = [f for f in files if count_lines(f) < 3000]
    step = max(1, len(small) // max(1, target_lines // 400))
    out, total = [], 0
    for path in small[::step]:
        out.append(path)
        total += count_lines(path)
        if total >= target_lines:
            break
    return out


def rate(lines: int, seconds: float) -> str:
    return f"{lines / seconds:>12,.0f} lines/CPU-s" if seconds > 0 else "n/a"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generated", type=int, default=1500,
                        help="generated training scripts added to the torch files")
    parser.add_argument("--sample-lines", type=int, default=15000,
                        help="lines in the sample given to TorchFix and flake8 (they are slow)")
    parser.add_argument("--skip-others", action="store_true", help="skip TorchFix and flake8")
    args = parser.parse_args()

    workdir = Path(tempfile.mkdtemp(prefix="lrdoctor-bench-"))
    try:
        gen_dir = workdir / "generated"
        generate_scripts(gen_dir, args.generated)
        torch_dir, tfiles = torch_files()
        gfiles = sorted(str(p) for p in gen_dir.rglob("*.py"))
        files = tfiles + gfiles
        lines = sum(count_lines(f) for f in files)
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(f"corpus: {len(files):,} files, {lines:,} lines "
              f"({len(tfiles):,} torch {torch_dir}, {len(gfiles):,} generated); {cores} cores")

        t_floor = floor(files)
        t_ours = lrdoctor_in_process(files)
        print(f"\nast.parse floor (1 core)       {rate(lines, t_floor)}  {t_floor:6.1f} CPU-s")
        print(f"lrdoctor in-process (1 core)   {rate(lines, t_ours)}  {t_ours:6.1f} CPU-s"
              f"   = {t_ours / t_floor:.2f}x the floor's time (target <= 3x)")

        cmd = [sys.executable, "-m", "lrdoctor", "check", "--exit-zero", "--format", "json",
               "--no-gitignore", torch_dir, str(gen_dir)]
        wall, cpu, code = run_child(cmd)
        print(f"lrdoctor check CLI ({cores} cores)  wall {wall:6.1f} s, CPU {cpu:6.1f} s for "
              f"{lines:,} lines = {lines / wall / 1e6 * 60:.2f}M lines/min wall "
              f"(target: 1M lines < 60 s) [exit {code}]")

        if args.skip_others:
            return 0
        part = sample(tfiles, args.sample_lines)
        part_lines = sum(count_lines(f) for f in part)
        print(f"\nsample for TorchFix/flake8: {len(part)} torch files, {part_lines:,} lines")
        t_ours_part = lrdoctor_in_process(part)
        t_floor_part = floor(part)
        print(f"ast.parse floor                {rate(part_lines, t_floor_part)}")
        print(f"lrdoctor                       {rate(part_lines, t_ours_part)}")
        listing = workdir / "sample.txt"
        listing.write_text("\n".join(part))
        results = {}
        if shutil.which("torchfix") or (Path(sys.executable).parent / "torchfix").exists():
            exe = shutil.which("torchfix") or str(Path(sys.executable).parent / "torchfix")
            wall, cpu, code = run_child([exe, "-j", "1", *part])
            results["TorchFix"] = cpu
            print(f"TorchFix 1 job                 {rate(part_lines, cpu)}  [exit {code}]")
        else:
            print("TorchFix: not installed (pip install --no-deps torchfix; pip install libcst)")
        wall, cpu, code = run_child([sys.executable, str(HERE / "check_flake8_bare.py"), "-j",
                                     "1", "--exit-zero", *part])
        results["flake8"] = cpu
        print(f"flake8 1 job (E,W,F,C90)       {rate(part_lines, cpu)}  [exit {code}]")
        print()
        for name, cpu in results.items():
            print(f"lrdoctor vs {name:<9} {cpu / t_ours_part:8.1f}x the lines per CPU-second")
        print(f"lrdoctor vs ast.parse  {t_ours_part / t_floor_part:8.2f}x the floor's CPU time")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
