"""Per-step cost of the runtime watcher on a small CPU training loop with a 0.5 ms step.

Trains the same small model (Linear layers, AdamW or SGD, a per-batch OneCycleLR, a DataLoader;
same seed, same data) plain and watched, in the same process.

The step is calibrated at the start (``--step-us``, 500): issue 8's target is a ratio on a
0.5 ms step on the machine that runs the bench, and what a step of a given model costs varies
between machines (and on this project's machine kind by 2x from one day to the next), while
what the watch adds a step hardly depends on the model. The calibration times short plain runs
of models of 1, 2, 3, ... Linear layers (32 inputs, 64 hidden, 10 classes: 2 is the 32-64-10
MLP) with batches of 1, takes the most layers whose step stays under the target, then the
batch size (each sample adds the DataLoader's per-sample fetch and collation) that brings the
step closest to it; it prints the shape it chose and the plain step it measured, and says so
when even the smallest shape is above the target. The optimizer is AdamW unless one Linear with
batches of 1 is above the target with it: then the same search runs with plain SGD, the lighter
rung (AdamW's per-parameter Python loop is a large share of so small a step), and the output
names it; ``--optimizer`` picks one without calibrating. ``--step-us 0`` trains the fixed MLP with
batches of 8 (this bench's loop until 2026-12-04; bench_overhead_calls/_instructions/_pieces/
_sections train that one), ``--linears``/``--batch`` a shape of one's choosing. Every watched run is
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
limits the resolution, so the default is many short pairs (150 pairs of 64 timed steps). The
``plain`` row is the control: a plain run paired with a plain run, which must read 1.000;
its distance from 1.000 is the resolution of every other row.

    .venv/bin/python bench/bench_overhead.py                 # every configuration
    .venv/bin/python bench/bench_overhead.py --only plain --only defaults --only watcher --only no-nan-check
    .venv/bin/python bench/bench_overhead.py --rounds 300 --steps 40
    .venv/bin/python bench/bench_overhead.py --warmup 0    # timed from the watch's start

Configurations (each alone on top of the bare watcher):

- ``plain``: the control (see above)
- ``watcher``: the hooks ``lrdoctor run`` installs, no check subscribed
- ``defaults``: what ``lrdoctor run`` installs (every check, NaN/inf detection on)
- ``no-nan-check``: ``lrdoctor run --no-nan-check``
- one line per check class (the LR-schedule checks, ``NonFinite``, ``AmpMisuse``, ...)

Threads are pinned: one torch thread (``torch.set_num_threads(1)``, and ``OMP_NUM_THREADS`` /
``MKL_NUM_THREADS`` 1 unless set), and with ``--cpu N`` the process is bound to CPU N.

Printed per configuration: the ratio (median over the pairs) with its quartiles, the added
microseconds a step (median over the pairs of watched minus plain median step) with their
quartiles, and ``at 0.5 ms``: 1 + added / 500 us, the ratio the same added time makes on a step
of exactly 0.5 ms (the calibration lands within a few percent of it, not on it; with another
``--step-us`` the column is at that step).

``--loop`` picks the loop's shape: ``basic`` (the above), ``amp`` (autocast float16 on the CPU with
``torch.amp.GradScaler("cpu")``: the scaler's hooks), ``two-opt`` (two optimizers, each with a
per-batch OneCycleLR: the weights' and the biases'), ``two-opt-amp`` (two-opt under amp:
``scaler.step()`` for each optimizer, one ``scaler.update()``, as a GAN under AMP).

The median step never sees the watch's periodic step: every 64th optimizer step (ROUTINE_PERIOD)
takes the general path, keeps the tallies and runs NaN detection's parameter check, and costs
far more than a routine step. ``mean: added`` is the same pairing on each run's mean step
(steps above 4x the run's median, taken as preempted, left out): 64 timed steps after 100 hold
exactly one periodic step (the 128th), so it counts that step's share as a long run pays it.

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

# one thread for every library torch may use, set before torch is imported (it reads them then)
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import torch  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

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


def make_sized_model(linears: int) -> torch.nn.Module:
    """``linears`` Linear layers with a ReLU between each two: 1 is one Linear (FEATURES to
    CLASSES), 2 the MLP of make_model(), more add hidden blocks."""
    if linears <= 1:
        return torch.nn.Sequential(torch.nn.Linear(FEATURES, CLASSES))
    return make_model(linears - 2)


OPTIMIZERS = ("adamw", "sgd")  # the calibration's rungs, heaviest first (see calibrate)
OPT_NAMES = {"adamw": "AdamW", "sgd": "SGD"}


def make_optimizer(name: str, params: Any) -> torch.optim.Optimizer:
    """AdamW (the bench's loop), or plain SGD: the lighter rung, for a machine where even one
    Linear layer with AdamW's per-parameter Python loop is above the target step."""
    if name == "sgd":
        return torch.optim.SGD(params, lr=1e-3)
    return torch.optim.AdamW(params, lr=1e-3)


LOOPS = ("basic", "amp", "two-opt", "two-opt-amp")


def train(steps: int, data: TensorDataset, watch: Callable[[], Any] | None = None,
          warmup: int = 0, linears: int = 2, batch: int = BATCH, opt: str = "adamw",
          loop: str = "basic") -> tuple[float, float, torch.Tensor, float, float]:
    """Train ``warmup`` untimed and then ``steps`` timed optimizer steps of a model of
    ``linears`` Linear layers on batches of ``batch`` with optimizer ``opt``; returns (loop CPU seconds, start+stop
    seconds, parameters, median timed step, mean timed step without the preempted ones; the
    steps in wall-clock seconds). ``loop``: ``basic`` (one optimizer and its per-batch
    OneCycleLR), ``amp`` (the same under ``torch.autocast("cpu", dtype=torch.float16)`` with
    ``torch.amp.GradScaler("cpu")``: scale, backward, ``scaler.step``, ``scaler.update``) or
    ``two-opt`` (two optimizers, the weights' and the biases', each with its own per-batch
    OneCycleLR, both stepped every batch), or ``two-opt-amp`` (two-opt under amp: ``scaler.step()``
    for each optimizer, then one ``scaler.update()``)."""
    torch.manual_seed(0)
    loader = DataLoader(data, batch_size=batch, shuffle=True)
    total = warmup + steps
    epochs = -(-total // len(loader))
    model = make_sized_model(linears)
    if loop in ("two-opt", "two-opt-amp"):
        named = list(model.named_parameters())
        optimizers = [make_optimizer(opt, [p for n, p in named if n.endswith("weight")]),
                      make_optimizer(opt, [p for n, p in named if not n.endswith("weight")])]
    else:
        optimizers = [make_optimizer(opt, model.parameters())]
    schedulers = [torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1e-3, total_steps=total) for o in optimizers]
    optimizer, scheduler = optimizers[0], schedulers[0]
    # (a start below the default 65536, so that no step is skipped: a skip is a finding)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0) if loop in ("amp", "two-opt-amp") else None
    t0 = clock()
    w = watch().start() if watch is not None else None
    t1 = clock()
    done = 0
    marks = [0.0] * (total + 1)
    now = time.perf_counter
    marks[0] = now()
    for _ in range(epochs):
        for x, y in loader:
            if scaler is not None and len(optimizers) == 2:
                for o in optimizers:
                    o.zero_grad()
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                for o in optimizers:
                    scaler.step(o)
                scaler.update()
                for s in schedulers:
                    s.step()
            elif scaler is not None:
                optimizer.zero_grad()
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
                scheduler.step()
            elif len(optimizers) == 2:
                for o in optimizers:
                    o.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                for o in optimizers:
                    o.step()
                for s in schedulers:
                    s.step()
            else:
                optimizer.zero_grad()
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
                scheduler.step()
            done += 1
            marks[done] = now()
            if done == total:
                break
    t2 = clock()
    timed = [b - a for a, b in zip(marks[warmup:], marks[warmup + 1:])]
    step = statistics.median(timed)
    # the mean counts the watch's periodic step (every ROUTINE_PERIOD-th, which the median
    # never sees); a step over 4x the median is taken as preempted and left out
    mean = statistics.mean(t for t in timed if t <= 4 * step)
    if w is not None:
        w.stop()
        assert not w.findings, w.report()
    t3 = clock()
    return (t2 - t1, (t1 - t0) + (t3 - t2), torch.cat([p.detach().flatten() for p in model.parameters()]),
            step, mean)


def data_for(batch: int, total: int) -> TensorDataset:
    """Data for runs of ``total`` steps on batches of ``batch``: at least one pass a run (a new
    pass is not a routine step for the watch), at least 20,000 samples."""
    return make_data(max(20_000, batch * (total + 1)))


def calibrate(target_us: float, runs: int = 5, loop: str = "basic") -> tuple[int, int, str, float]:
    """(Linear layers, batch size, optimizer, measured plain step in us) of the shape whose
    plain step is closest to ``target_us`` (see the module's docstring)."""
    datasets: dict[int, TensorDataset] = {}

    def step_us(linears: int, batch: int, opt: str) -> float:
        if batch not in datasets:
            datasets[batch] = data_for(batch, 60)
        return 1e6 * statistics.median(
            train(30, datasets[batch], warmup=30, linears=linears, batch=batch, opt=opt, loop=loop)[3]
            for _ in range(runs))

    # the optimizer: AdamW, or SGD where one Linear with batches of 1 is above the target
    # with AdamW (its per-parameter Python loop is a large part of so small a step)
    for opt in OPTIMIZERS:
        step_us(1, 1, opt)  # first calls: lazy imports, allocator
        linears, best = 1, step_us(1, 1, opt)
        if best < target_us:
            break
    else:
        return 1, 1, opt, best
    for n in range(2, 9):
        t = step_us(n, 1, opt)
        if t > target_us:
            break
        linears, best = n, t
    # the batch: doubled until the step passes the target, then bisected
    tried = {1: best}
    lo, hi = 1, None
    while hi is None and lo < 512:
        b = lo * 2
        tried[b] = step_us(linears, b, opt)
        if tried[b] > target_us:
            hi = b
        else:
            lo = b
    while hi is not None and hi - lo > 1:
        b = (lo + hi) // 2
        tried[b] = step_us(linears, b, opt)
        if tried[b] > target_us:
            hi = b
        else:
            lo = b
    batch = min(tried, key=lambda b: abs(tried[b] - target_us))
    return linears, batch, opt, tried[batch]


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


def quartiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4)
    return q1, statistics.median(values), q3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=150, help="pairs per configuration")
    parser.add_argument("--steps", type=int, default=64,
                        help="timed optimizer steps per run (64: one of the watch's periodic steps in each)")
    parser.add_argument("--warmup", type=int, default=100,
                        help="untimed optimizer steps at the start of every run, watch on (0: time "
                             "from the watch's start, as this bench did until 2026-12-04)")
    parser.add_argument("--step-us", type=float, default=500.0,
                        help="plain step to calibrate the model to, in us (0: the fixed 32-64-10 MLP "
                             "with batches of 8)")
    parser.add_argument("--linears", type=int, help="Linear layers of the model (no calibration)")
    parser.add_argument("--batch", type=int, help="batch size (no calibration; default 8 with --linears)")
    parser.add_argument("--optimizer", choices=OPTIMIZERS,
                        help="optimizer (no calibration; default adamw with --linears/--batch)")
    parser.add_argument("--loop", choices=LOOPS, default="basic",
                        help="the training loop's shape (see train): basic, amp (GradScaler), two-opt, two-opt-amp")
    parser.add_argument("--cpu", type=int, help="bind the process to this CPU")
    parser.add_argument("--only", action="append", help="configuration name (repeatable)")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    torch.set_num_threads(1)  # steadier timings on a shared machine; the loop is tiny anyway
    configs = configurations()
    names = args.only or list(configs)
    unknown = set(names) - set(configs)
    if unknown:
        parser.error(f"unknown configuration(s) {sorted(unknown)}; known: {', '.join(configs)}")
    load_before = os.getloadavg()[0]
    opt = args.optimizer or "adamw"
    if args.linears is not None or args.batch is not None or args.optimizer is not None:
        linears, batch = args.linears or 2, args.batch or BATCH
        shape = "chosen"
    elif args.step_us > 0:
        t0 = time.perf_counter()
        linears, batch, opt, calibrated = calibrate(args.step_us, loop=args.loop)
        shape = (f"calibrated to {args.step_us:.0f} us in {time.perf_counter() - t0:.0f} s: "
                 f"{calibrated:.0f} us then")
        if batch == 1 and linears == 1 and calibrated > args.step_us * 1.1:
            shape += "; the smallest shape is above the target on this machine"
    else:
        linears, batch, shape = 2, BATCH, "fixed (--step-us 0)"
    data = data_for(batch, args.warmup + args.steps)

    def run(watch: Callable[[], Any] | None = None) -> tuple[float, float, torch.Tensor, float, float]:
        return train(args.steps, data, watch, args.warmup, linears, batch, opt, args.loop)

    for _ in range(3):  # warm-up: allocator, first-call caches, lazy imports
        run()
        for name in names:
            run(configs[name])
    plain: dict[str, list[float]] = {n: [] for n in names}
    watched: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    fixed: dict[str, list[float]] = {n: [] for n in names}
    plain_mean: dict[str, list[float]] = {n: [] for n in names}
    watched_mean: dict[str, list[float]] = {n: [] for n in names}
    for i in range(args.rounds):
        order = names if i % 2 == 0 else names[::-1]
        for j, name in enumerate(order):
            # ABBA: which side of a pair runs first alternates
            if (i + j) % 2 == 0:
                cp, _, p_plain, sp, mp = run()
                cw, tf, p_watched, sw, mw = run(configs[name])
            else:
                cw, tf, p_watched, sw, mw = run(configs[name])
                cp, _, p_plain, sp, mp = run()
            assert torch.equal(p_plain, p_watched), f"{name}: watching changed training"
            plain[name].append(sp)
            watched[name].append(sw)
            cpu[name].append(cw / cp)
            fixed[name].append(tf)
            plain_mean[name].append(mp)
            watched_mean[name].append(mw)
    all_plain = [t * 1e6 for n in names for t in plain[n]]
    pq1, base, pq3 = quartiles(all_plain)
    print(f"plain step: {base:.0f} us (median; quartiles {pq1:.0f}-{pq3:.0f}) with {linears} Linear "
          f"layer{'s' if linears > 1 else ''}, batches of {batch} and {OPT_NAMES[opt]} ({shape}), the {args.loop} loop; {args.rounds} pairs of "
          f"runs per configuration, {args.warmup} untimed + {args.steps} timed steps a run, "
          f"torch {torch.__version__}, 1 thread{f', CPU {args.cpu}' if args.cpu is not None else ''}")
    # "at X ms": the ratio the added time makes on a step of exactly the target (0.5 ms unless
    # --step-us says otherwise)
    ref = args.step_us if args.step_us > 0 else 500.0
    at = f"at {ref / 1000:g} ms"
    print(f"{'configuration':<24} {'ratio':>6}  {'quartiles':<12} {'added us/step':>13}  "
          f"{'quartiles':<13} {at:>9}  {'mean: added':>11} {at:>9}  {'whole-run CPU':>13}  {'start+stop ms':>13}")
    for name in names:
        q1, ratio, q3 = quartiles([w / p for w, p in zip(watched[name], plain[name])])
        a1, added, a3 = quartiles([(w - p) * 1e6 for w, p in zip(watched[name], plain[name])])
        added_mean = statistics.median([(w - p) * 1e6 for w, p in zip(watched_mean[name], plain_mean[name])])
        print(f"{name:<24} {ratio:6.3f}  {q1:.3f}-{q3:.3f}  {added:+13.1f}  "
              f"{f'{a1:+.1f}/{a3:+.1f}':<13} {1 + added / ref:9.3f}  {added_mean:+11.1f} {1 + added_mean / ref:9.3f}  "
              f"{statistics.median(cpu[name]):13.3f}  {1e3 * statistics.median(fixed[name]):13.1f}")
    print("ratio: median over the pairs of watched/plain median step; plain: the control (plain "
          f"against plain, should read 1.000); {at}: 1 + added us / {ref:g}. Target: defaults <= 1.03 "
          "on a 0.5 ms step; mean: the same from each run's mean step (preempted steps left out), which "
          "counts the watch's periodic step (one in 64) that the median leaves out")
    # other processes on a shared machine change the ratios (cold caches, frequency): say how busy
    print(f"load average (1 min) {load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end, "
          f"{os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
