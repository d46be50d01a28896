"""How much Python lrdoctor runs per training step: counted, not timed.

    .venv/bin/python bench/bench_overhead_calls.py [--config defaults|watcher|no-nan-check] [--amp] [--clip] [--depth N]

Runs bench_overhead.py's loop (the MLP, AdamW, a per-batch OneCycleLR, a DataLoader) plain and
watched, and counts with a tracer, per step after 70 warm-up steps: the Python function calls
made in lrdoctor's code, the bytecodes they execute (per function), and how many more Python
calls the whole step makes than the plain one (lrdoctor's module-call wrapper replaces
PyTorch's own ``_wrapped_call_impl`` frame, so it is not counted as one more). The counts do
not depend on how busy the machine is, which timings on a shared machine do: use them to
compare two versions of the hooks, and bench_overhead.py for what a step costs. ``--amp`` runs
the same loop under ``torch.autocast("cpu", dtype=torch.float16)`` with
``torch.amp.GradScaler("cpu")`` (the scaler's path through the hooks). ``--clip`` clips the
gradients each step, ``clip_grad_norm_(model.parameters(), 1.0)`` before the update (after
``scaler.unscale_(optimizer)`` with ``--amp``), as most real training loops do. ``--two-optimizers`` steps two AdamW each batch (the weights', the biases'), each with
its own per-batch OneCycleLR (with ``--amp``: ``scaler.step()`` for each, then one
``scaler.update()``, as a GAN or actor-critic under AMP does). ``--depth N``
stacks N more Linear(HIDDEN, HIDDEN) + ReLU blocks in the middle of the MLP (2N more nested module
calls a step): what lrdoctor costs per module call, as in a deep model.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import torch
from bench_overhead import BATCH, make_data, make_model
from torch.utils.data import DataLoader

import lrdoctor

# the counted steps start after the first periodic step (64): from there a lane kept through it
# runs the DataLoader's batches through torch's own __next__ (hooks.FetchHook), as a long run does
WARMUP, STEPS = 70, 128


def count(data: Any, watch: Callable[[], Any] | None, amp: bool = False,
          clip: bool = False, depth: int = 0, two: bool = False) -> tuple[dict[str, float], dict[str, float]]:
    """(totals per step, lrdoctor's bytecodes per step by function name)."""
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    model = make_model(depth)
    if two:  # two optimizers (the weights', the biases'), each with its per-batch OneCycleLR
        named = list(model.named_parameters())
        optimizer = torch.optim.AdamW([p for n, p in named if n.endswith("weight")], lr=1e-3)
        second = torch.optim.AdamW([p for n, p in named if not n.endswith("weight")], lr=1e-3)
        second_scheduler = torch.optim.lr_scheduler.OneCycleLR(second, max_lr=1e-3, total_steps=1000)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=1000)
    scaler = torch.amp.GradScaler("cpu", enabled=amp)
    w = watch().start() if watch is not None else None
    totals = {"lrdoctor calls": 0, "lrdoctor bytecodes": 0, "all calls": 0}
    per_function: dict[str, int] = {}

    def local(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            totals["lrdoctor bytecodes"] += 1
            name = frame.f_code.co_name
            per_function[name] = per_function.get(name, 0) + 1
        return local

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        totals["all calls"] += 1
        if "lrdoctor" in frame.f_code.co_filename:
            totals["lrdoctor calls"] += 1
            frame.f_trace_opcodes = True
            return local
        return None

    done = 0
    for x, y in loader:
        if done == WARMUP:
            sys.settrace(tracer)
        optimizer.zero_grad()
        if two:
            second.zero_grad()
        if amp:
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            if clip:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            if two:
                scaler.step(second)
            scaler.update()
        else:
            torch.nn.functional.cross_entropy(model(x), y).backward()
            if clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            if two:
                second.step()
        scheduler.step()
        if two:
            second_scheduler.step()
        done += 1
        if done == WARMUP + STEPS:
            break
    sys.settrace(None)
    if w is not None:
        w.stop()
    return ({k: v / STEPS for k, v in totals.items()},
            {k: v / STEPS for k, v in sorted(per_function.items(), key=lambda kv: -kv[1])})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", action="append", choices=["defaults", "watcher", "no-nan-check"])
    parser.add_argument("--amp", action="store_true",
                        help="fp16 autocast on the CPU with torch.amp.GradScaler('cpu')")
    parser.add_argument("--clip", action="store_true",
                        help="clip_grad_norm_(model.parameters(), 1.0) each step (after unscale_ with --amp)")
    parser.add_argument("--two-optimizers", action="store_true",
                        help="two AdamW (the weights', the biases'), each with its per-batch OneCycleLR")
    parser.add_argument("--depth", type=int, default=0,
                        help="N more Linear(HIDDEN, HIDDEN) + ReLU blocks in the model (2N more module calls)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    configs: dict[str, Callable[[], Any]] = {
        "defaults": lambda: lrdoctor.watch(),
        "watcher": lambda: lrdoctor.watch(checks=()),
        "no-nan-check": lambda: lrdoctor.watch(nan_check=False),
    }
    data = make_data(20_000)
    plain, _ = count(data, None, args.amp, args.clip, args.depth, args.two_optimizers)
    for name in args.config or list(configs):
        totals, per_function = count(data, configs[name], args.amp, args.clip, args.depth, args.two_optimizers)
        shown = ", ".join(f"{k} {v:.0f}" for k, v in per_function.items() if v >= 1)
        print(f"{name}: {totals['lrdoctor calls']:.1f} calls into lrdoctor a step, "
              f"{totals['lrdoctor bytecodes']:.0f} bytecodes in them; the step makes "
              f"{totals['all calls'] - plain['all calls']:+.1f} Python calls in all")
        print(f"  bytecodes a step by function: {shown}")


if __name__ == "__main__":
    main()
