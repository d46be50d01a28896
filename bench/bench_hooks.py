"""What lrdoctor's per-step hooks cost, measured so that a shared machine's load hardly moves it.

    .venv/bin/python bench/bench_hooks.py [--config defaults|watcher|no-nan-check] [--rounds 60]
    .venv/bin/python bench/bench_hooks.py --counts-only      # part (a) alone: exact, ~10 s

Two measures, each against a plain baseline taken in the same process:

(a) CALLS (exact, noise-free). ``sys.setprofile`` over 128 steps of bench_overhead.py's loop (the
    MLP, AdamW, a per-batch OneCycleLR, a DataLoader; after 40 untimed steps, so the lane is
    open and two of its periodic steps fall inside), plain and watched: Python function calls
    and C function calls a step, the step's total and the part made from lrdoctor's frames
    (``lrd py``: frames of lrdoctor's code; ``lrd C``: C functions those frames call). The
    counts do not depend on the load; compare two builds with them.

(b) HOOK-US (a microbenchmark of the patched step path). A tiny loop whose own work is as small
    as torch allows (one 4-element parameter, SGD, an ExponentialLR stepped each batch, a DataLoader
    with ``batch_size=None`` over a 65,536-row dataset, ``(w * x).sum().backward()``), so that what
    the watch adds is a large share of the step. Each round times a block of steps plain and a
    block watched (ABBA: which side goes first alternates), each block after its own 150
    untimed steps (the lane opens, and CPython re-specialises torch's code that ``start()``
    and ``stop()`` invalidated: bench/OVERHEAD.md, perf17); every call of the four patched
    entry points (``next(it)``, ``backward()``, ``optimizer.step()``, ``scheduler.step()``) is
    timed apart with ``perf_counter_ns``, the same reads on both sides. Printed per entry point
    and for the whole step: the median over the rounds of each block's median call, watched
    minus plain, in us. The machine's noise moves a block's median by far less than it moves
    a 60-step run of the MLP loop, since nothing is allocated anew between the blocks.

Hot, in a tight loop, this is a lower bound of what the hooks cost inside a real step (where the
kernels between them evict their code and data from the caches: bench/OVERHEAD.md, perf11).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import torch
from bench_overhead import BATCH, make_data, make_model
from torch.utils.data import DataLoader, TensorDataset

import lrdoctor

CONFIGS: dict[str, Callable[[], Any] | None] = {
    "plain": None,  # the control: plain against plain (its hook-us is the noise floor)
    "defaults": lambda: lrdoctor.watch(),
    "watcher": lambda: lrdoctor.watch(checks=()),
    "no-nan-check": lambda: lrdoctor.watch(nan_check=False),
}
LRD_DIR = os.path.dirname(os.path.abspath(lrdoctor.__file__))


# ---- (a) calls a step ---------------------------------------------------------------------


def count_calls(data: TensorDataset, watch: Callable[[], Any] | None,
                warmup: int = 40, steps: int = 128) -> dict[str, float]:
    """Python and C calls a step over ``steps`` steps of bench_overhead.py's loop."""
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=1000)
    w = watch().start() if watch is not None else None
    counts = {"py": 0, "C": 0, "lrd py": 0, "lrd C": 0}
    mine: dict[Any, bool] = {}

    kinds = {"call": ("py", "lrd py"), "c_call": ("C", "lrd C")}

    def profile(frame: Any, event: str, arg: Any) -> None:
        kind = kinds.get(event)
        if kind is None:
            return
        counts[kind[0]] += 1
        code = frame.f_code  # a C call counts as lrdoctor's when lrdoctor's code makes it
        own = mine.get(code)
        if own is None:
            own = mine[code] = code.co_filename.startswith(LRD_DIR)
        if own:
            counts[kind[1]] += 1

    done = 0
    for x, y in loader:
        if done == warmup:
            sys.setprofile(profile)
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        scheduler.step()
        done += 1
        if done == warmup + steps:
            break
    sys.setprofile(None)
    if w is not None:
        w.stop()
    return {k: v / steps for k, v in counts.items()}


# ---- (b) the hooks' time, in a tiny loop --------------------------------------------------

PIECES = ("next", "backward", "opt.step", "sched.step")


class Tiny:
    """The smallest training loop that goes through every patched per-step entry point."""

    def __init__(self) -> None:
        torch.manual_seed(0)
        self.w = torch.nn.Parameter(torch.ones(4))
        self.opt = torch.optim.SGD([self.w], lr=1e-3)
        self.sched = torch.optim.lr_scheduler.ExponentialLR(self.opt, gamma=0.99999)
        # long enough that a pass rarely ends inside a block (a new pass closes the lane)
        data = TensorDataset(torch.linspace(-1.0, 1.0, 4 << 16).reshape(-1, 4))
        self.loader = DataLoader(data, batch_size=None)
        self.it = iter(self.loader)

    def run(self, steps: int, marks: list[int] | None = None) -> None:
        """``steps`` steps; with ``marks``, the clock read before each entry point and after
        the last (5 reads a step)."""
        w, opt, sched = self.w, self.opt, self.sched
        clock = time.perf_counter_ns
        it = self.it
        k = 0
        for _ in range(steps):
            if marks is not None:
                marks[k] = clock()
            try:
                (x,) = next(it)
            except StopIteration:
                it = self.it = iter(self.loader)
                (x,) = next(it)
            if marks is not None:
                marks[k + 1] = clock()
            opt.zero_grad()
            loss = (w * x).sum()
            if marks is not None:
                marks[k + 2] = clock()
            loss.backward()
            if marks is not None:
                marks[k + 3] = clock()
            opt.step()
            if marks is not None:
                marks[k + 4] = clock()
            sched.step()
            if marks is not None:
                marks[k + 5] = clock()
                k += 6


def block(tiny: Tiny, warm: int, steps: int) -> dict[str, float]:
    """Median ns a call of each entry point (and of their sum) over ``steps`` timed steps."""
    tiny.it = iter(tiny.loader)  # a new pass, made under the watch (the lane needs to know it)
    tiny.run(warm)
    marks = [0] * (6 * steps)
    tiny.run(steps, marks)
    out: dict[str, float] = {}
    gaps = [(1, 0), (3, 2), (4, 3), (5, 4)]  # next: 1-0, backward: 3-2, opt: 4-3, sched: 5-4
    for name, (b, a) in zip(PIECES, gaps):
        out[name] = statistics.median(marks[i + b] - marks[i + a] for i in range(0, len(marks), 6))
    out["sum"] = statistics.median(
        sum(marks[i + b] - marks[i + a] for b, a in gaps) for i in range(0, len(marks), 6))
    return out


def hook_time(watch: Callable[[], Any] | None, rounds: int, warm: int, steps: int
              ) -> tuple[dict[str, float], dict[str, float], int]:
    """(plain ns a call, watched minus plain ns a call, findings): medians over the rounds."""
    tiny = Tiny()
    plain: dict[str, list[float]] = {k: [] for k in (*PIECES, "sum")}
    added: dict[str, list[float]] = {k: [] for k in (*PIECES, "sum")}
    findings = 0

    def watched_block() -> dict[str, float]:
        nonlocal findings
        if watch is None:
            return block(tiny, warm, steps)
        w = watch().start()
        try:
            return block(tiny, warm, steps)
        finally:
            w.stop()
            findings += len(w.findings)

    for i in range(rounds):
        if i % 2:
            p = block(tiny, warm, steps)
            q = watched_block()
        else:
            q = watched_block()
            p = block(tiny, warm, steps)
        for k in p:
            plain[k].append(p[k])
            added[k].append(q[k] - p[k])
    return ({k: statistics.median(v) for k, v in plain.items()},
            {k: statistics.median(v) for k, v in added.items()}, findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", action="append", choices=list(CONFIGS),
                        help="plain (the control), defaults, watcher, no-nan-check (all by default)")
    parser.add_argument("--rounds", type=int, default=60, help="(b): pairs of blocks per configuration")
    parser.add_argument("--steps", type=int, default=200, help="(b): timed steps a block")
    parser.add_argument("--warm", type=int, default=150, help="(b): untimed steps before each block")
    parser.add_argument("--counts-only", action="store_true", help="(a) alone")
    args = parser.parse_args()
    torch.set_num_threads(1)
    names = args.config or list(CONFIGS)
    load = os.getloadavg()[0]

    data = make_data(20_000)
    base = count_calls(data, None)
    print("(a) calls a step, bench_overhead.py's loop (128 steps after 40; exact):")
    print(f"  {'plain':<14} Python {base['py']:7.2f}   C {base['C']:7.2f}")
    for name in names:
        if name == "plain":
            continue
        c = count_calls(data, CONFIGS[name])
        print(f"  {name:<14} Python {c['py']:7.2f} ({c['py'] - base['py']:+6.2f}, lrd py {c['lrd py']:5.2f})"
              f"   C {c['C']:7.2f} ({c['C'] - base['C']:+6.2f}, lrd C {c['lrd C']:5.2f})")
    if args.counts_only:
        return

    print(f"(b) hook-us: a tiny loop, {args.rounds} ABBA pairs of {args.steps}-step blocks "
          f"({args.warm} untimed steps before each), median call in us")
    Tiny().run(300)  # first-call costs, lazy imports
    for name in names:
        plain, added, findings = hook_time(CONFIGS[name], args.rounds, args.warm, args.steps)
        row = "  ".join(f"{k} {added[k] / 1e3:+.2f}" for k in (*PIECES, "sum"))
        print(f"  {name:<14} {row}   (plain step {plain['sum'] / 1e3:.2f} us, "
              f"ratio {(plain['sum'] + added['sum']) / plain['sum']:.3f}"
              f"{f', {findings} findings' if findings else ''})")
    print("  plain: " + "  ".join(f"{k} {plain[k] / 1e3:.2f}" for k in (*PIECES, "sum")))
    print(f"load average (1 min) {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} CPUs, torch {torch.__version__}, Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
