"""Per-step cost of the runtime watcher on a small CPU training loop with a ~0.5 ms step.

Trains the same small MLP (64-128-128-10, batch 64, AdamW, a per-batch OneCycleLR, a
DataLoader; same seed, same data) plain and watched, in the same process. Every watched run is
paired with a plain run next to it, in alternating order (plain first, then watched first:
ABBA), so machine noise and warm caches hit both sides alike; the ratio of each pair is
taken and the median over the pairs is printed, with the spread. The parameters of both runs
of every pair are asserted bit-identical.

    .venv/bin/python bench/bench_overhead.py                 # every configuration
    .venv/bin/python bench/bench_overhead.py --only defaults --only watcher
    .venv/bin/python bench/bench_overhead.py --rounds 30 --steps 600

Configurations (each alone on top of the bare watcher):

- ``plain``: the control: a plain run paired with another plain run. Its ratio should read
  1.000; how far it strays (and its quartiles) is the noise floor of this machine, the
  resolution of every other row
- ``watcher``: the hooks ``lrdoctor run`` installs, no check subscribed
- ``defaults``: what ``lrdoctor run`` installs (every check, NaN/inf detection on)
- ``no-nan-check``: ``lrdoctor run --no-nan-check``
- one line per check class (the LR-schedule checks, ``NonFinite``, ``AmpMisuse``, ...)

Only the training loop is timed; starting and stopping the watcher (once per run, not per
step) is timed separately. Target (issue 8): ``defaults`` <= 1.03x.
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

import lrdoctor

BATCH = 64
# CPU time of this thread (with one torch thread every op runs on it): what the watcher adds
# is CPU work on this thread, and this clock does not count the time other processes on a
# shared machine take from us. --wall switches to wall-clock time.
clock = time.thread_time


def make_data(samples: int) -> TensorDataset:
    g = torch.Generator().manual_seed(1)
    return TensorDataset(torch.randn(samples, 64, generator=g),
                         torch.randint(0, 10, (samples,), generator=g))


def train(steps: int, data: TensorDataset, watch: Callable[[], Any] | None = None) -> tuple[float, float, torch.Tensor]:
    """Train ``steps`` optimizer steps; returns (loop seconds, start+stop seconds, parameters)."""
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    epochs = -(-steps // len(loader))
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 10),
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=steps)
    t0 = clock()
    w = watch().start() if watch is not None else None
    t1 = clock()
    done = 0
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
            done += 1
            if done == steps:
                break
    t2 = clock()
    if w is not None:
        w.stop()
        assert not w.findings, w.report()
    t3 = clock()
    return t2 - t1, (t1 - t0) + (t3 - t2), torch.cat([p.detach().flatten() for p in model.parameters()])


def configurations() -> dict[str, Callable[[], Any] | None]:
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
    parser.add_argument("--rounds", type=int, default=20, help="pairs per configuration")
    parser.add_argument("--steps", type=int, default=200, help="optimizer steps per run")
    parser.add_argument("--only", action="append", help="configuration name (repeatable)")
    parser.add_argument("--wall", action="store_true", help="time wall-clock, not this thread's CPU time")
    args = parser.parse_args()
    global clock
    if args.wall:
        clock = time.perf_counter
    torch.set_num_threads(1)  # steadier timings on a shared machine; the loop is tiny anyway
    configs = configurations()
    names = args.only or list(configs)
    unknown = set(names) - set(configs)
    if unknown:
        parser.error(f"unknown configuration(s) {sorted(unknown)}; known: {', '.join(configs)}")
    data = make_data(20_000)
    load_before = os.getloadavg()[0]
    for _ in range(3):  # warm-up: allocator, first-call caches, lazy imports
        train(args.steps, data)
        for name in names:
            train(args.steps, data, configs[name])
    plain: dict[str, list[float]] = {n: [] for n in names}
    watched: dict[str, list[float]] = {n: [] for n in names}
    fixed: dict[str, list[float]] = {n: [] for n in names}
    for i in range(args.rounds):
        order = names if i % 2 == 0 else names[::-1]
        for j, name in enumerate(order):
            # ABBA: which side of a pair runs first alternates
            if (i + j) % 2 == 0:
                tp, _, p_plain = train(args.steps, data)
                tw, tf, p_watched = train(args.steps, data, configs[name])
            else:
                tw, tf, p_watched = train(args.steps, data, configs[name])
                tp, _, p_plain = train(args.steps, data)
            assert torch.equal(p_plain, p_watched), f"{name}: watching changed training"
            plain[name].append(tp)
            watched[name].append(tw)
            fixed[name].append(tf)
    us = 1e6 / args.steps
    base = statistics.median([t for n in names for t in plain[n]]) * us
    print(f"plain loop: {base:.0f} us/step (median; {args.steps} steps a run, {args.rounds} pairs per "
          f"configuration, torch {torch.__version__}, 1 thread, {'wall-clock' if args.wall else 'thread CPU'} time)")
    fastest = min(t for n in names for t in plain[n])
    print(f"fastest plain run: {fastest * us:.0f} us/step")
    print(f"{'configuration':<24} {'ratio':>6}  {'spread (quartiles)':<18} {'added us/step':>13}  "
          f"{'best/best':>9}  {'start+stop ms':>13}")
    for name in names:
        ratios = sorted(w / p for w, p in zip(watched[name], plain[name]))
        added = statistics.median([(w - p) * us for w, p in zip(watched[name], plain[name])])
        q1, _, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else (ratios[0],) * 3
        # noise on a shared machine only ever adds time: the fastest run of each side is the
        # closest to its cost on a quiet machine
        best = min(watched[name]) / min(plain[name])
        print(f"{name:<24} {statistics.median(ratios):6.3f}  {q1:.3f}-{q3:.3f}{'':<7} {added:+13.1f}  "
              f"{best:9.3f}  {1e3 * statistics.median(fixed[name]):13.1f}")
    print("ratio: median over the pairs of watched/plain time; best/best: fastest watched run over "
          "fastest plain run. Target: defaults <= 1.03")
    # other processes on a shared machine change the ratios (cold caches, frequency): say how busy
    print(f"load average (1 min) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
