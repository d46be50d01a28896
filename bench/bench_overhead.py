"""Per-step cost of the runtime watcher on a small CPU training loop with a ~0.5 ms step.

Trains the same small MLP (32-64-10, batch 8, AdamW, a per-batch OneCycleLR, a
DataLoader; same seed, same data) plain and watched, in the same process. Every watched run is
paired with a plain run next to it, in alternating order (plain first, then watched first:
ABBA), so machine noise and warm caches hit both sides alike. The parameters of both runs of
every pair are asserted bit-identical.

What is timed: the steady state a training script is in for nearly all of its steps. Every
run (both sides) first takes ``--warmup`` untimed steps (100), the watch already on, and only
then the ``--steps`` timed ones. Without them, a watched run would be timed right after its
``start()``, and in this bench that is a cost of the bench, not of watching: ``start()`` patches
torch's classes (``Optimizer``, the schedulers, ``DataLoader``), and on CPython 3.11 every patch
discards the specialised bytecode of those classes' methods, which the runs before it had warmed
in this process; torch's own Python then runs slower for the ~80 executions CPython needs to
specialise it again (bench/OVERHEAD.md, "perf17"; ``stop()`` does the same to the plain run
after it). ``lrdoctor run`` patches torch when the script imports it, before anything is warm,
so a user never pays that. ``--warmup 0`` times from the watch's start, as this bench did
until 2026-12-04.

How a run is timed: each optimizer step's wall-clock time is read (``perf_counter``, the same
two reads a step on both sides) and the run's MEDIAN step is its time. A step preempted by
another process, or slowed by a burst of work on the other core of a shared machine, lands in
the tail and does not move the median; what the watcher adds to every step does. The ratio of
a pair is watched median over plain median; the median over many short pairs is printed with
its quartiles. Runs built anew differ from one another by several percent (each builds its
model and loader, so tensors land at other addresses): that spread, not the clock, is what
limits the resolution, so the default is many short pairs (150 pairs of 60 timed steps). The
``plain`` row is the control: a plain run paired with a plain run, which must read 1.000;
its distance from 1.000 is the resolution of every other row.

    .venv/bin/python bench/bench_overhead.py                 # every configuration
    .venv/bin/python bench/bench_overhead.py --only plain --only defaults --only watcher
    .venv/bin/python bench/bench_overhead.py --rounds 300 --steps 40
    .venv/bin/python bench/bench_overhead.py --warmup 0    # timed from the watch's start

Configurations (each alone on top of the bare watcher):

- ``plain``: the control (see above)
- ``watcher``: the hooks ``lrdoctor run`` installs, no check subscribed
- ``defaults``: what ``lrdoctor run`` installs (every check, NaN/inf detection on)
- ``no-nan-check``: ``lrdoctor run --no-nan-check``
- one line per check class (the LR-schedule checks, ``NonFinite``, ``AmpMisuse``, ...)

Also printed: ``whole-run CPU``, the older estimate (each run's thread CPU time over its whole
loop, ratio of the pair), which counts the tail; and the watcher's start and stop (once per
run, not per step), timed apart. Target (issue 8): ``defaults`` <= 1.03x.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
from torch.utils.data import DataLoader, TensorDataset

BATCH = 8
FEATURES, HIDDEN, CLASSES = 32, 64, 10  # the MLP: FEATURES-HIDDEN-CLASSES
# the whole-run estimate: CPU time of this thread (with one torch thread every op runs on it),
# which does not count the time other processes on a shared machine take from us
clock = time.thread_time


def make_data(samples: int) -> TensorDataset:
    g = torch.Generator().manual_seed(1)
    return TensorDataset(torch.randn(samples, FEATURES, generator=g),
                         torch.randint(0, CLASSES, (samples,), generator=g))


def make_model(depth: int = 0) -> torch.nn.Module:
    """The MLP every overhead bench trains (``depth`` more Linear + ReLU blocks in the middle:
    2 more nested module calls each)."""
    return torch.nn.Sequential(
        torch.nn.Linear(FEATURES, HIDDEN), torch.nn.ReLU(),
        *[m for _ in range(depth) for m in (torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU())],
        torch.nn.Linear(HIDDEN, CLASSES),
    )


def train(steps: int, data: TensorDataset, watch: Callable[[], Any] | None = None,
          warmup: int = 0) -> tuple[float, float, torch.Tensor, float]:
    """Train ``warmup`` untimed and then ``steps`` timed optimizer steps; returns (loop CPU
    seconds, start+stop seconds, parameters, median timed step in wall-clock seconds)."""
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    total = warmup + steps
    epochs = -(-total // len(loader))
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=total)
    t0 = clock()
    w = watch().start() if watch is not None else None
    t1 = clock()
    done = 0
    marks = [0.0] * (total + 1)
    now = time.perf_counter
    marks[0] = now()
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
            done += 1
            marks[done] = now()
            if done == total:
                break
    t2 = clock()
    step = statistics.median(b - a for a, b in zip(marks[warmup:], marks[warmup + 1:]))
    if w is not None:
        w.stop()
        assert not w.findings, w.report()
    t3 = clock()
    return (t2 - t1, (t1 - t0) + (t3 - t2), torch.cat([p.detach().flatten() for p in model.parameters()]),
            step)


def configurations() -> dict[str, Callable[[], Any] | None]:
    import lrdoctor  # here, not at the top: bench_overhead_run.py's plain child imports this file
    from lrdoctor.runtime.checks import ALL_CHECKS

    configs: dict[str, Callable[[], Any] | None] = {
        "plain": None,
        "watcher": lambda: lrdoctor.watch(checks=()),
        "defaults": lambda: lrdoctor.watch(),
        "no-nan-check": lambda: lrdoctor.watch(nan_check=False),
    }
    for cls in ALL_CHECKS:
        configs[cls.__name__] = (lambda c: lambda: lrdoctor.watch(checks=(c,)))(cls)
    return configs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=150, help="pairs per configuration")
    parser.add_argument("--steps", type=int, default=60, help="timed optimizer steps per run")
    parser.add_argument("--warmup", type=int, default=100,
                        help="untimed optimizer steps at the start of every run, watch on (0: time "
                             "from the watch's start, as this bench did until 2026-12-04)")
    parser.add_argument("--only", action="append", help="configuration name (repeatable)")
    args = parser.parse_args()
    torch.set_num_threads(1)  # steadier timings on a shared machine; the loop is tiny anyway
    configs = configurations()
    names = args.only or list(configs)
    unknown = set(names) - set(configs)
    if unknown:
        parser.error(f"unknown configuration(s) {sorted(unknown)}; known: {', '.join(configs)}")
    data = make_data(20_000)
    load_before = os.getloadavg()[0]
    for _ in range(3):  # warm-up: allocator, first-call caches, lazy imports
        train(args.steps, data, warmup=args.warmup)
        for name in names:
            train(args.steps, data, configs[name], args.warmup)
    plain: dict[str, list[float]] = {n: [] for n in names}
    watched: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    fixed: dict[str, list[float]] = {n: [] for n in names}
    for i in range(args.rounds):
        order = names if i % 2 == 0 else names[::-1]
        for j, name in enumerate(order):
            # ABBA: which side of a pair runs first alternates
            if (i + j) % 2 == 0:
                cp, _, p_plain, sp = train(args.steps, data, warmup=args.warmup)
                cw, tf, p_watched, sw = train(args.steps, data, configs[name], args.warmup)
            else:
                cw, tf, p_watched, sw = train(args.steps, data, configs[name], args.warmup)
                cp, _, p_plain, sp = train(args.steps, data, warmup=args.warmup)
            assert torch.equal(p_plain, p_watched), f"{name}: watching changed training"
            plain[name].append(sp)
            watched[name].append(sw)
            cpu[name].append(cw / cp)
            fixed[name].append(tf)
    base = statistics.median([t for n in names for t in plain[n]]) * 1e6
    print(f"plain step: {base:.0f} us (median; {args.rounds} pairs of runs per configuration, "
          f"{args.warmup} untimed + {args.steps} timed steps a run, torch {torch.__version__}, "
          f"1 thread)")
    print(f"{'configuration':<24} {'ratio':>6}  {'quartiles':<12} {'added us/step':>13}  "
          f"{'whole-run CPU':>13}  {'start+stop ms':>13}")
    for name in names:
        ratios = [w / p for w, p in zip(watched[name], plain[name])]
        added = statistics.median([(w - p) * 1e6 for w, p in zip(watched[name], plain[name])])
        q1, _, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else (ratios[0],) * 3
        print(f"{name:<24} {statistics.median(ratios):6.3f}  {q1:.3f}-{q3:.3f}  {added:+13.1f}  "
              f"{statistics.median(cpu[name]):13.3f}  {1e3 * statistics.median(fixed[name]):13.1f}")
    print("ratio: median over the pairs of watched/plain median step; plain: the control (plain "
          "against plain, should read 1.000). Target: defaults <= 1.03")
    # other processes on a shared machine change the ratios (cold caches, frequency): say how busy
    print(f"load average (1 min) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
