"""How `lrdoctor check` scales with the number of findings in one file.

    .venv/bin/python bench/bench_many_findings.py [--findings 10000] [--rounds 3]

A generated file with N deprecated `torch.cuda.amp.GradScaler()` calls (one LRD101 finding
and one fix each) is checked end to end in this process (check, then render as json, sarif and
text, then apply the fixes), next to a file with 2N: linear work gives a ratio of ~2.0,
quadratic work ~4.0 (before the fix: 10k findings took ~16 s, 20k ~56 s). Sizes are
interleaved, each round measures both; the median is reported. Not a test: it prints numbers.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

from lrdoctor.check.diagnostic import Diagnostic
from lrdoctor.check.engine import check_file
from lrdoctor.check.fix import fixed_sources
from lrdoctor.check.render import Item, sarif, text, to_json


def write(directory: str, n: int) -> str:
    path = os.path.join(directory, f"generated_{n}.py")
    with open(path, "w") as fh:
        fh.write("import torch\n")
        fh.writelines(f"scaler{i} = torch.cuda.amp.GradScaler()\n" for i in range(n))
    return path


def once(path: str) -> tuple[float, int]:
    started = time.perf_counter()
    result = check_file(path)
    diags: list[Diagnostic] = result.diagnostics
    lines = open(path).read().splitlines()

    def line_of(d: Item) -> str | None:
        return lines[d.line - 1]

    to_json(diags)
    sarif(diags)
    text(diags, line_of)
    with open(path) as fh:
        fixed_sources(diags, {result.path: fh.read()})
    return time.perf_counter() - started, len(diags)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--findings", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    small_n, large_n = args.findings, 2 * args.findings
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        small, large = write(tmp, small_n), write(tmp, large_n)
        times: dict[int, list[float]] = {small_n: [], large_n: []}
        for _ in range(args.rounds):
            for n, path in ((small_n, small), (large_n, large)):
                seconds, found = once(os.path.basename(path))
                assert found == n, (found, n)
                times[n].append(seconds)
    a, b = statistics.median(times[small_n]), statistics.median(times[large_n])
    print(f"{small_n:>7} findings: {a:6.2f} s ({a / small_n * 1e6:.0f} us per finding)")
    print(f"{large_n:>7} findings: {b:6.2f} s ({b / large_n * 1e6:.0f} us per finding)")
    print(f"ratio for 2x the findings: {b / a:.2f} (linear 2.0, quadratic 4.0)")


if __name__ == "__main__":
    main()
