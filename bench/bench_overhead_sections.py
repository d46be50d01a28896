"""Where the watcher's per-step time goes: each section of a training step timed apart.

    .venv/bin/python bench/bench_overhead_sections.py [--model tiny|mlp] [--rounds 12]

Runs the same loop plain and under several configurations (watcher alone, defaults, the NaN
detection alone, the AMP checks alone), round after round, and times each section of every
step (the DataLoader's next batch, zero_grad, forward, loss, backward, optimizer.step,
scheduler.step) with this thread's CPU time. Per configuration and section: the median over
the steps of a run, the lowest over the rounds (noise on a shared machine only adds time);
then what each configuration adds to each section. ``tiny`` (a 4-4-2 model) makes the hooks'
share large; ``mlp`` is bench_overhead.py's model.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
from bench_overhead import BATCH, CLASSES, FEATURES, make_model
from torch.utils.data import DataLoader, TensorDataset

import lrdoctor

SECTIONS = ("next", "zero_grad", "forward", "loss", "backward", "opt.step", "sched.step")
STEPS = 300


def run(model_kind: str, watch: Callable[[], Any] | None) -> list[float]:
    torch.manual_seed(0)
    width, batch, classes = (4, 8, 2) if model_kind == "tiny" else (FEATURES, BATCH, CLASSES)
    g = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(STEPS * batch, width, generator=g),
                         torch.randint(0, classes, (STEPS * batch,), generator=g))
    loader = DataLoader(data, batch_size=batch)
    if model_kind == "tiny":
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    else:
        model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=STEPS + 1)
    w = watch().start() if watch is not None else None
    times: list[list[float]] = [[] for _ in SECTIONS]
    clock = time.thread_time
    it = iter(loader)
    for _ in range(STEPS):
        t0 = clock()
        x, y = next(it)
        t1 = clock()
        optimizer.zero_grad()
        t2 = clock()
        out = model(x)
        t3 = clock()
        loss = torch.nn.functional.cross_entropy(out, y)
        t4 = clock()
        loss.backward()
        t5 = clock()
        optimizer.step()
        t6 = clock()
        scheduler.step()
        t7 = clock()
        for i, d in enumerate((t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6)):
            times[i].append(d)
    if w is not None:
        w.stop()
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["tiny", "mlp"], default="tiny")
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    torch.set_num_threads(1)
    from lrdoctor.runtime.checks.amp import AmpMisuse
    from lrdoctor.runtime.checks.nonfinite import NonFinite

    configs: dict[str, Callable[[], Any] | None] = {
        "plain": None,
        "watcher": lambda: lrdoctor.watch(checks=()),
        "defaults": lambda: lrdoctor.watch(),
        "NonFinite": lambda: lrdoctor.watch(checks=(NonFinite,)),
        "AmpMisuse": lambda: lrdoctor.watch(checks=(AmpMisuse,)),
    }
    best = {name: [float("inf")] * len(SECTIONS) for name in configs}
    for _ in range(args.rounds):
        for name, watch in configs.items():
            for i, t in enumerate(run(args.model, watch)):
                best[name][i] = min(best[name][i], t)
    print(f"us per step, model {args.model}, median over {STEPS} steps, lowest of {args.rounds} rounds")
    print(f"{'':11s}" + "".join(f"{s:>11s}" for s in SECTIONS) + f"{'total':>11s}")
    for name in configs:
        row = best[name]
        print(f"{name:11s}" + "".join(f"{1e6 * t:11.1f}" for t in row) + f"{1e6 * sum(row):11.1f}")
        if name != "plain":
            added = [a - b for a, b in zip(row, best["plain"])]
            print(f"{'  added':11s}" + "".join(f"{1e6 * a:+11.1f}" for a in added) + f"{1e6 * sum(added):+11.1f}")


if __name__ == "__main__":
    main()
