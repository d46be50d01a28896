"""``lrdoctor demo``: run bundled buggy scripts and their fixed versions under the watcher."""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import sys
import time
import warnings
from importlib import resources

from lrdoctor.report.text import render_finding, use_color

DEMO_THREADS = 1
SCENARIOS = [
    ("mnist_steplr.py", "StepLR(step_size=7) stepped in the batch loop of an MNIST-sized run"),
    ("onecycle_per_epoch.py", "OneCycleLR sized in batches, stepped once per epoch"),
    ("amp_skipped_steps.py", "GradScaler skips the first updates; PyTorch blames the call order"),
]


def _run_one(path: str, args: list[str]):
    import lrdoctor

    saved = sys.argv[:]
    sys.argv = [path, *args]
    out = io.StringIO()
    w = lrdoctor.watch(echo=lambda m: print(m, file=sys.stderr))
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            with contextlib.redirect_stdout(out), w:
                runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv = saved
    for warning in caught:  # PyTorch's own warnings, shown where they belong in the story
        where = f"{os.path.basename(warning.filename)}:{warning.lineno}"
        out.write(f"{where}: {warning.category.__name__}: {str(warning.message)[:110]}...\n")
    return w, out.getvalue()


def run_demo(quiet: bool = False) -> int:
    try:
        import torch
    except ImportError:
        print("lrdoctor demo: needs PyTorch installed (pip install torch)", file=sys.stderr)
        return 2
    # one thread: these models are tiny, and with more threads than free cores (a busy or
    # small machine) each step waits on the others: 1 ms a step becomes 20-30 ms
    threads = torch.get_num_threads()
    torch.set_num_threads(DEMO_THREADS)
    try:
        return _run_scenarios(quiet)
    finally:
        torch.set_num_threads(threads)


def _run_scenarios(quiet: bool) -> int:
    color = use_color(sys.stdout)
    bold, reset = ("\033[1m", "\033[0m") if color else ("", "")
    start, cpu_start = time.perf_counter(), time.process_time()
    found = 0
    for name, title in SCENARIOS:
        path = str(resources.files("lrdoctor.demo").joinpath(name))
        print(f"{bold}== {title}{reset}")
        print(f"$ lrdoctor run {name}")
        sys.stdout.flush()
        w, output = _run_one(path, [])
        sys.stderr.flush()
        if output.strip() and not quiet:
            print("  | " + output.rstrip().replace("\n", "\n  | "))
        if quiet:
            for f in w.findings:
                print(render_finding(f, color))
        else:
            print(w.report(color=color))
        found += len(w.findings)
        print(f"$ lrdoctor run {name} --fixed")
        w_fixed, _ = _run_one(path, ["--fixed"])
        print("  " + (f"{len(w_fixed.findings)} findings" if w_fixed.findings else "No problems found."))
        print()
    # CPU time too: on a shared machine the wall time says more about the neighbours
    print(f"{found} findings in {len(SCENARIOS)} buggy scripts, none in their fixes "
          f"({time.perf_counter() - start:.1f}s, {time.process_time() - cpu_start:.1f}s of CPU). "
          "Try `lrdoctor explain LRD002`.")
    return 0
