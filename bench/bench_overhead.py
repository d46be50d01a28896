"""Overhead of the runtime watcher on a small CPU training loop.

Trains the same small MLP (64-256-256-10, batch 64, about 0.9 ms a step on one
thread; same seed, same data) plain and under ``lrdoctor.watch()``, in
the same process and interleaved (plain, watched, plain, watched, ...), so machine noise hits
both sides alike; prints the median of the per-pair time ratios.

    .venv/bin/python bench/bench_overhead.py [--pairs 7] [--epochs 3]

The loop has what a real one has: a DataLoader, an optimizer step per batch and a per-batch
scheduler (every hook of the watcher fires on every step). Target: median ratio <= 1.03.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

import lrdoctor


def train(epochs: int, data: TensorDataset) -> tuple[int, torch.Tensor]:
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=64, shuffle=True)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256), torch.nn.ReLU(),
        torch.nn.Linear(256, 10),
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-3, epochs=epochs, steps_per_epoch=len(loader))
    steps = 0
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
            steps += 1
    return steps, next(model.parameters()).detach().clone()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--samples", type=int, default=48_000)
    parser.add_argument("--checks", choices=["all", "schedule"], default="all",
                        help="all: what `lrdoctor run` installs; schedule: the LR-schedule checks only")
    args = parser.parse_args()
    checks = None
    if args.checks == "schedule":
        from lrdoctor.runtime.checks.schedule import SCHEDULE_CHECKS as checks
    torch.set_num_threads(1)  # steadier timings on a shared 2-core machine
    g = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(args.samples, 64, generator=g),
                         torch.randint(0, 10, (args.samples,), generator=g))
    train(1, data)  # warm-up
    ratios, plain_times, watched_times = [], [], []
    def plain_run() -> tuple[float, torch.Tensor]:
        t0 = time.perf_counter()
        _, params = train(args.epochs, data)
        return time.perf_counter() - t0, params

    def watched_run() -> tuple[float, torch.Tensor]:
        t0 = time.perf_counter()
        with lrdoctor.watch(echo=lambda m: print(m), checks=checks) as w:
            _, params = train(args.epochs, data)
        elapsed = time.perf_counter() - t0
        assert not w.findings, w.report()
        return elapsed, params

    steps = train(1, data)[0] * args.epochs
    for i in range(args.pairs):
        # alternate which side goes first (ABBA): the first run of a pair pays for fresh
        # memory, and that must not be charged to one side only
        if i % 2 == 0:
            (tp, p_plain), (tw, p_watched) = plain_run(), watched_run()
        else:
            (tw, p_watched), (tp, p_plain) = watched_run(), plain_run()
        assert torch.equal(p_plain, p_watched), "watching changed training"
        plain_times.append(tp)
        watched_times.append(tw)
        ratios.append(tw / tp)
    per_step_us = 1e6 * statistics.median(plain_times) / steps
    extra_us = 1e6 * (statistics.median(watched_times) - statistics.median(plain_times)) / steps
    print(f"steps per run: {steps}  (plain: {per_step_us:.0f} us/step, watched: +{extra_us:.0f} us/step)")
    print(f"plain   median {statistics.median(plain_times):.3f}s")
    print(f"watched median {statistics.median(watched_times):.3f}s")
    print(f"checks: {args.checks}")
    print(f"overhead ratio (median of {args.pairs} interleaved pairs): {statistics.median(ratios):.3f}"
          f"  [min {min(ratios):.3f}, max {max(ratios):.3f}]  target <= 1.03")


if __name__ == "__main__":
    main()
