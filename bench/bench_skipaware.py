"""What lrdoctor.SkipAwareScheduler adds to a training step, as a ratio to the same loop with
the bare scheduler (and to the common workaround that compares the GradScaler's scale before
and after ``update()``).

    .venv/bin/python bench/bench_skipaware.py            # a minute or so
    .venv/bin/python bench/bench_skipaware.py --quick    # smoke run

The loop: a tiny MLP, float16 autocast on the CPU, GradScaler, OneCycleLR stepped per batch -
small on purpose, so the per-step cost of the wrapper (one post-hook, one pre-hook, one
counter) is as visible as it can be. Non-fused and fused AdamW. Each variant runs between two
runs of the bare loop and is divided by their mean; the median over repetitions is reported.
One thread.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from collections.abc import Callable

import torch

import lrdoctor


def loop(variant: str, fused: bool, steps: int) -> Callable[[], float]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=fused)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=10**9)
    if variant == "wrapped":
        sched = lrdoctor.SkipAwareScheduler(sched)
    scaler = torch.amp.GradScaler("cpu")
    x, y = torch.randn(16, 32), torch.randn(16, 1)

    def run() -> float:
        start = time.perf_counter()
        for _ in range(steps):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            if variant == "scale-compare":
                scale = scaler.get_scale()
                scaler.update()
                if scaler.get_scale() >= scale:
                    sched.step()
            else:
                scaler.update()
                sched.step()
        return (time.perf_counter() - start) / steps

    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    steps, reps = (50, 3) if args.quick else (300, 9)
    print(f"steps per run {steps}, {reps} repetitions, torch {torch.__version__}, 1 thread")
    print(f"{'optimizer':<14}{'bare us/step':>14}{'wrapped':>10}{'scale-compare':>15}")
    for fused in (False, True):
        bare = loop("bare", fused, steps)
        variants = {v: loop(v, fused, steps) for v in ("wrapped", "scale-compare")}
        for run in (bare, *variants.values()):  # warm-up
            run()
        ratios: dict[str, list[float]] = {v: [] for v in variants}
        base: list[float] = []
        for _ in range(reps):
            for name, run in variants.items():
                before = bare()
                t = run()
                after = bare()
                ratios[name].append(t / ((before + after) / 2))
                base += [before, after]
        label = "AdamW fused" if fused else "AdamW"
        print(f"{label:<14}{statistics.median(base) * 1e6:>14.1f}"
              f"{statistics.median(ratios['wrapped']):>9.3f}x"
              f"{statistics.median(ratios['scale-compare']):>14.3f}x")


if __name__ == "__main__":
    main()
