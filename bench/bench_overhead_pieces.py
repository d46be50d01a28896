"""Which hook costs what: the defaults with one piece of the watcher turned off at a time.

    .venv/bin/python bench/bench_overhead_pieces.py                      # timed, ABBA (bench_overhead.py's method)
    .venv/bin/python bench/bench_overhead_pieces.py --rounds 300 --only defaults --only -module
    .venv/bin/python bench/bench_overhead_pieces.py --instructions        # counted under valgrind

Runs bench_overhead.py's loop (the MLP, AdamW, a per-batch OneCycleLR, a DataLoader) plain and
under ``lrdoctor.watch()`` (the defaults), and under the defaults with one of the five pieces a
steady step runs taken out after the OFF_AT-th step (when the lane is open, see Engine.Lane):

- ``-module``: the module-call wrapper (NonFinite's, recording the top-level call; since
  perf13's Design B it is on torch.nn.Module only for the first steps and once recording is
  armed, so on a healthy run this row differs from the defaults by its stand-in alone)
- ``-sched``: the scheduler-step wrapper (its lane path)
- ``-backward``: the backward() hook (the loss read by NaN detection)
- ``-post``: the optimizer step post-hook (its lane path)
- ``-loader``: the DataLoader iterator's ``__next__`` wrapper
- ``-all``: all five (what is left: the stand-ins below, and nothing else per step)

The pieces talk to one another through the lane and NaN detection's counters, so taking one
out alone would push the others off their routine path (a scheduler step the post-hook did not
see first is not routine). Each removed piece is therefore replaced by the least that keeps the
others where they were, written inline in the training loop (no frame, a warm frame): ``-post``
sets the lane's phase after ``optimizer.step()``; ``-sched`` calls the scheduler's own
``step`` and sets the lane's LR and phase; ``-backward`` counts the routine backward;
``-module`` marks the backward calls as seen. The plain run executes the same ``if`` tests.
The added cost of a piece is the defaults' minus that row's; the stand-ins make each such
difference a slight under-estimate (a few warm bytecodes). Training is asserted bit-identical.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import torch
from bench_overhead import BATCH, make_data, make_model
from torch.utils.data import DataLoader

import lrdoctor

HERE = Path(__file__).resolve().parent
PIECES = ("module", "sched", "backward", "post", "loader")
CONFIGS = ("plain", "defaults", *(f"-{p}" for p in PIECES), "-all")
OFF_AT = 10  # steps with everything on first: the lane is open by then
WARMUP = 40  # --instructions: steps before the counted ones


def _pieces(config: str) -> frozenset[str]:
    if config == "-all":
        return frozenset(PIECES)
    if config.startswith("-"):
        return frozenset({config[1:]})
    return frozenset()


def _undo_entry(w: Any, owner: Any, name: str) -> Any:
    """What the watcher's patcher found at ``owner.name`` before it patched it."""
    for o, n, old in w._patcher._undo:
        if o is owner and n == name:
            return old
    raise LookupError(f"{owner}.{name} was not patched")


def _scheduler_step(w: Any) -> Any:
    base = torch.optim.lr_scheduler.LRScheduler
    return _undo_entry(w, base, "step")


def turn_off(w: Any, off: frozenset[str]) -> None:
    """Take the pieces ``off`` out of a running watch (undone for good by its stop())."""
    eng = w.engine
    if "module" in off:
        from lrdoctor.runtime.localize import _ORIGINAL_CALL

        nf = eng.loss_gate
        nf._apply_calls = None  # nothing puts the wrapper back (arming the recording)
        if torch.nn.Module.__dict__["__call__"] is not _ORIGINAL_CALL[0]:
            torch.nn.Module.__call__ = _ORIGINAL_CALL[0]  # type: ignore[method-assign]
    if "backward" in off:
        torch.autograd.backward = _undo_entry(w, torch.autograd, "backward")
    if "post" in off:
        for h in w._patcher._handles:
            h.remove()
    if "loader" in off:
        from torch.utils.data.dataloader import _BaseDataLoaderIter

        _BaseDataLoaderIter.__next__ = _undo_entry(w, _BaseDataLoaderIter, "__next__")  # type: ignore[method-assign]


def train(steps: int, data: Any, config: str, counted_from: int = -1,
          counted: Any = None) -> tuple[torch.Tensor, float, Any]:
    """``steps`` optimizer steps; (parameters, median step in seconds, the watch).
    With ``counted``, steps from ``counted_from`` on run inside ``counted`` (valgrind's
    toggle: a sorted() call) and no time is read."""
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=BATCH, shuffle=True)
    model = make_model()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=steps + 10)
    w = lrdoctor.watch().start() if config != "plain" else None
    off = _pieces(config)
    off_module = off_backward = off_post = off_sched = False
    eng: Any = w.engine if w is not None else None
    lane: Any = eng.lane if eng is not None else None
    nf: Any = eng.loss_gate if eng is not None else None
    sched_step: Any = _scheduler_step(w) if w is not None else None
    # perf12 keeps the counters on the lane (Engine.routine_backwards_done is a property there)
    on_lane = lane is not None and "nf_seen" in type(lane).__slots__
    cross_entropy = torch.nn.functional.cross_entropy
    marks = [0.0] * (steps + 1)
    now = time.perf_counter
    batches = iter(loader)

    def run(first: int, last: int) -> None:
        nonlocal off_module, off_backward, off_post, off_sched
        for done in range(first, last):
            if done == OFF_AT and off:
                turn_off(w, off)
                off_module, off_backward = "module" in off, "backward" in off
                off_post, off_sched = "post" in off, "sched" in off
            x, y = next(batches)
            optimizer.zero_grad()
            if off_module:
                if on_lane:
                    lane.nf_seen = lane.backwards
                else:
                    nf.backwards_seen = eng.routine_backwards_done
            cross_entropy(model(x), y).backward()
            if off_backward:
                if on_lane:
                    lane.backwards += 1
                else:
                    eng.routine_backwards_done += 1
            optimizer.step()
            if off_post:
                lane.phase = 1  # EXPECT_SCHEDULER_STEP
            if off_sched:
                sched_step(scheduler)
                lane.lr = optimizer.param_groups[0]["lr"]
                lane.phase = 0  # EXPECT_ATTEMPT
            else:
                scheduler.step()
            marks[done + 1] = now()

    if counted is None:
        marks[0] = now()
        run(0, steps)
    else:
        run(0, counted_from)
        counted(lambda: run(counted_from, steps))
    step = statistics.median(b - a for a, b in zip(marks, marks[1:]))
    if w is not None:
        w.stop()
    return torch.cat([p.detach().flatten() for p in model.parameters()]), step, w


def timed(args: argparse.Namespace, names: list[str]) -> None:
    data = make_data(20_000)
    load_before = os.getloadavg()[0]
    for _ in range(3):
        for name in names:
            train(args.steps, data, name)
    plain: dict[str, list[float]] = {n: [] for n in names}
    watched: dict[str, list[float]] = {n: [] for n in names}
    for i in range(args.rounds):
        order = names if i % 2 == 0 else names[::-1]
        for j, name in enumerate(order):
            if (i + j) % 2 == 0:
                p_plain, sp, _ = train(args.steps, data, "plain")
                p_watched, sw, _ = train(args.steps, data, name)
            else:
                p_watched, sw, _ = train(args.steps, data, name)
                p_plain, sp, _ = train(args.steps, data, "plain")
            assert torch.equal(p_plain, p_watched), f"{name}: watching changed training"
            plain[name].append(sp)
            watched[name].append(sw)
    base = statistics.median([t for n in names for t in plain[n]]) * 1e6
    print(f"plain step: {base:.0f} us ({args.rounds} ABBA pairs of {args.steps}-step runs per row, "
          f"torch {torch.__version__}, 1 thread)")
    print(f"{'configuration':<14} {'ratio':>6}  {'quartiles':<12} {'added us/step':>13}  {'quartiles':<14}")
    for name in names:
        ratios = [w / p for w, p in zip(watched[name], plain[name])]
        added = [(w - p) * 1e6 for w, p in zip(watched[name], plain[name])]
        q1, _, q3 = statistics.quantiles(ratios, n=4)
        a1, _, a3 = statistics.quantiles(added, n=4)
        print(f"{name:<14} {statistics.median(ratios):6.3f}  {q1:.3f}-{q3:.3f}  "
              f"{statistics.median(added):+13.1f}  {a1:+.1f}..{a3:+.1f}")
    print(f"load average (1 min) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} CPUs")


def child(config: str, steps: int) -> None:
    data = make_data(BATCH * (WARMUP + steps + 2))
    train(WARMUP + steps, data, config, WARMUP,
          lambda fn: sorted([0], key=lambda _: fn()))  # callgrind counts inside builtin_sorted


def _totals(out: Path) -> dict[str, int]:
    """Callgrind's event totals (Ir; with --cache-sim also the cache misses: I1mr, D1mr, ...)."""
    events: list[str] = []
    for line in out.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        m = re.match(r"(?:summary|totals):\s+([\d ]+)", line)
        if m:
            return dict(zip(events, map(int, m.group(1).split())))
    raise RuntimeError(f"no totals in {out}")


def instructions(args: argparse.Namespace, names: list[str]) -> None:
    srcs = args.src or [str(HERE.parent / "src")]
    runs = [("plain", srcs[0])] + [(n, src) for src in srcs for n in names if n != "plain"]
    with tempfile.TemporaryDirectory() as tmp:
        procs = {}
        for i, (name, src) in enumerate(runs):
            env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=os.pathsep.join([src, str(HERE)]))
            label = name if len(srcs) == 1 or name == "plain" else f"{name} {src[-24:]}"
            cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=builtin_sorted",
                   *(["--cache-sim=yes"] if args.cache_sim else []),
                   f"--callgrind-out-file={tmp}/{i}", sys.executable, __file__, f"--child={name}",
                   "--steps", str(args.steps)]
            procs[label] = (i, subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE))
        names = list(procs)
        counts: dict[str, dict[str, float]] = {}
        for name, (i, proc) in procs.items():
            _, err = proc.communicate()
            if proc.returncode:
                print(f"{name} failed under valgrind:\n{err.decode(errors='replace')[-2000:]}")
                continue
            counts[name] = {k: v / args.steps for k, v in _totals(Path(tmp, str(i))).items()}
        names = [n for n in names if n in counts]
    print(f"a step ({args.steps} counted steps after {WARMUP}, one process each): each event, and "
          f"added to plain's")
    events = [e for e in ("Ir", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw") if e in counts["plain"]]
    width = max(map(len, names))
    print(f"{'configuration':<{width}}" + "".join(f" {e:>12} {'added':>9}" for e in events))
    for name in names:
        row = "".join(f" {counts[name][e]:12,.0f} {counts[name][e] - counts['plain'][e]:+9,.0f}" for e in events)
        print(f"{name:<{width}}{row}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=150, help="ABBA pairs per configuration")
    parser.add_argument("--steps", type=int, default=60, help="optimizer steps per run (counted ones with --instructions)")
    parser.add_argument("--only", action="append", choices=CONFIGS, help="configuration (repeatable)")
    parser.add_argument("--instructions", action="store_true", help="count instructions under valgrind")
    parser.add_argument("--cache-sim", action="store_true",
                        help="with --instructions: also simulate the caches (I1/D1/LL misses a step)")
    parser.add_argument("--src", action="append", help="with --instructions: the lrdoctor source tree(s) "
                        "to count (repeatable; default: this checkout's)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.child:
        child(args.child, args.steps)
        return
    names = args.only or list(CONFIGS)
    if args.instructions:
        if "plain" not in names:
            names = ["plain", *names]
        instructions(args, names)
    else:
        timed(args, names)


if __name__ == "__main__":
    main()
