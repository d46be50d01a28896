"""Per-step cost of the runtime watcher in machine instructions, counted under Valgrind.

Timings of a 0.5-1 ms step on a shared 2-core machine swing by more than what the watcher adds
(bench_overhead.py's quartiles span +-3%); instruction counts do not depend on how busy the
machine is. This runs bench_overhead.py's loop (the MLP, AdamW, a per-batch OneCycleLR, a
DataLoader; same seed, same data) once plain and once per configuration, each in its own
process under ``valgrind --tool=callgrind``, all at the same time, and counts the instructions
executed inside the timed steps only (collection is switched on while the loop runs inside a
``sorted()`` call, the one C function the loop is wrapped in). It prints instructions per step
and the ratio against the plain run of the same command.

    .venv/bin/python bench/bench_overhead_instructions.py                    # defaults, no-nan-check, watcher
    .venv/bin/python bench/bench_overhead_instructions.py --only defaults --steps 300
    .venv/bin/python bench/bench_overhead_instructions.py --loop amp --only defaults --src src --src /tmp/base/src
    .venv/bin/python bench/bench_overhead_instructions.py --loop two-opt --only defaults --steps 40 --src src --src /tmp/base/src

Instructions are not time: a Python hook's instructions run colder (caches, branch predictors)
than the tensor kernels around them, so the time ratio is somewhat higher than this one. Counts
repeat exactly for the same build and machine state; across separate commands they can move by
about 0.5% of the plain step (allocator and address layout), so compare builds inside one
command (``--src`` names the source trees to compare, e.g. ``--src src --src /tmp/base/src``).
Needs valgrind (Debian: ``apt-get install valgrind``) and a libpython with symbols.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
WARMUP = 80  # past the first periodic step (64), as in a long run (see bench_overhead_calls.py)
CONFIGS = ("defaults", "no-nan-check", "watcher")


def child(config: str, steps: int, loop: str = "basic") -> None:
    """Runs inside valgrind: warm up, then the counted steps inside sorted(). ``loop``: basic,
    amp (CPU float16 autocast with ``torch.amp.GradScaler("cpu")``), two-opt (two AdamW,
    each with its own per-batch OneCycleLR, both stepped every batch), or two-opt-amp (two-opt
    under amp: ``scaler.step()`` for each optimizer, then one ``scaler.update()``)."""
    sys.path.insert(0, str(HERE))
    import torch
    from bench_overhead import BATCH, make_data, make_model
    from torch.utils.data import DataLoader

    import lrdoctor

    torch.set_num_threads(1)
    torch.manual_seed(0)
    loader = DataLoader(make_data(BATCH * (steps + WARMUP + 1)), batch_size=BATCH, shuffle=True)
    model = make_model()
    second = second_scheduler = None
    if loop in ("two-opt", "two-opt-amp"):  # two AdamW (the weights', the biases'), each with its per-batch OneCycleLR
        named = list(model.named_parameters())
        optimizer = torch.optim.AdamW([p for n, p in named if n.endswith("weight")], lr=1e-3)
        second = torch.optim.AdamW([p for n, p in named if not n.endswith("weight")], lr=1e-3)
        second_scheduler = torch.optim.lr_scheduler.OneCycleLR(second, max_lr=1e-3, total_steps=steps + WARMUP + 10)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=steps + WARMUP + 10)
    watch = {
        "plain": None,
        "defaults": lambda: lrdoctor.watch(),
        "no-nan-check": lambda: lrdoctor.watch(nan_check=False),
        "watcher": lambda: lrdoctor.watch(checks=()),
    }[config]
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0) if loop in ("amp", "two-opt-amp") else None
    w = watch().start() if watch is not None else None
    batches = iter(loader)

    def run(n: int) -> int:
        for _ in range(n):
            x, y = next(batches)
            optimizer.zero_grad()
            if second is not None:
                second.zero_grad()
            if scaler is not None:
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = torch.nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                if second is not None:  # (two-opt-amp: scaler.step() for each, one update())
                    scaler.step(second)
                scaler.update()
            else:
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
                if second is not None:
                    second.step()
            scheduler.step()
            if second_scheduler is not None:
                second_scheduler.step()
        return 0

    run(WARMUP)
    sorted([0], key=lambda _: run(steps))  # callgrind counts inside builtin_sorted only
    if w is not None:
        w.stop()


def count(src: str, config: str, steps: int, out: Path, loop: str = "basic") -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=os.pathsep.join([src, str(HERE)]))
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=builtin_sorted",
           f"--callgrind-out-file={out}", sys.executable, __file__, "--child", config, "--steps", str(steps), "--loop", loop]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def total(out: Path) -> int:
    for line in out.read_text().splitlines():
        m = re.match(r"(?:summary|totals):\s+(\d+)", line)
        if m:
            return int(m.group(1))
    raise RuntimeError(f"no instruction total in {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="counted optimizer steps per run")
    parser.add_argument("--only", action="append", choices=CONFIGS, help="configuration (repeatable)")
    parser.add_argument("--src", action="append", help="lrdoctor source tree to count (repeatable; "
                        "default: the one this checkout imports)")
    parser.add_argument("--loop", choices=("basic", "amp", "two-opt", "two-opt-amp"), default="basic",
                        help="the loop: basic, amp (float16 autocast with GradScaler('cpu')), two-opt "
                             "(two AdamW, the weights' and the biases', each with its per-batch OneCycleLR), "
                             "or two-opt-amp (two-opt under amp: scaler.step() for each, one scaler.update())")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.steps, args.loop)
        return
    if shutil.which("valgrind") is None:
        sys.exit("bench_overhead_instructions.py: valgrind is not installed (Debian: apt-get install valgrind)")
    srcs = args.src or [str(HERE.parent / "src")]
    configs = args.only or list(CONFIGS)
    print(f"running {1 + len(srcs) * len(configs)} processes under valgrind at once "
          f"({args.steps} counted steps each, about 1-3 minutes)...", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        runs = {("plain", "plain"): count(srcs[0], "plain", args.steps, Path(tmp, "plain"), args.loop)}
        for i, src in enumerate(srcs):
            for config in configs:
                runs[(src, config)] = count(src, config, args.steps, Path(tmp, f"{i}-{config}"), args.loop)
        results: dict[tuple[str, str], int] = {}
        for key, proc in runs.items():
            _, err = proc.communicate()
            if proc.returncode != 0:
                sys.exit(f"{key[1]} ({key[0]}) failed under valgrind:\n{err.decode(errors='replace')[-2000:]}")
            src_i = "plain" if key[0] == "plain" else f"{srcs.index(key[0])}-{key[1]}"
            results[key] = total(Path(tmp, src_i))
    plain = results[("plain", "plain")] / args.steps
    if plain == 0:
        sys.exit("no instructions counted: is libpython built without symbols (builtin_sorted)?")
    print(f"plain step: {plain / 1e6:.3f} M instructions (python {sys.version.split()[0]})")
    print(f"{'source':<28} {'configuration':<14} {'instructions/step':>18} {'added':>9} {'ratio':>7}")
    for (src, config), n in results.items():
        if config == "plain":
            continue
        per = n / args.steps
        print(f"{src[-28:]:<28} {config:<14} {per:18,.0f} {per - plain:+9,.0f} {per / plain:7.4f}")


if __name__ == "__main__":
    main()
