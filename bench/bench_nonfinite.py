"""Cost of NaN/inf detection on CPU training loops, as ratios to the plain loop.

    .venv/bin/python bench/bench_nonfinite.py            # full run (a few minutes)
    .venv/bin/python bench/bench_nonfinite.py --quick    # smoke run

Modes, on the same loops (an MLP, a small CNN, a small transformer; Adam, cross-entropy):

- plain: no instrumentation
- lrdoctor: ``lrdoctor.watch()`` (everything ``lrdoctor run`` installs: the schedule checks,
  always-on non-finite detection, the AMP checks)
- nan-trace: ``lrdoctor.watch(nan_trace=True)``: every op of every step checked
- anomaly: ``torch.autograd.detect_anomaly(check_nan=True)``

Each instrumented run is timed between two plain runs of the same loop and divided by their
mean (a noisy, shared machine slows neighbouring runs alike); the median over repetitions is
reported. One thread, so the ratio measures our overhead and not the scheduler's mood.

Then: what one step whose loss turns NaN costs under ``lrdoctor.watch()``, localization
(replay under the per-op checker) included, and, for ``log(softmax(x)) = -inf``, what
detect_anomaly blames and what lrdoctor names.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

import lrdoctor


def mlp() -> tuple[torch.nn.Module, Callable[[], tuple[torch.Tensor, torch.Tensor]]]:
    model = torch.nn.Sequential(
        torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
        torch.nn.Linear(512, 10),
    )
    return model, lambda: (torch.randn(64, 256), torch.randint(0, 10, (64,)))


def cnn() -> tuple[torch.nn.Module, Callable[[], tuple[torch.Tensor, torch.Tensor]]]:
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 8 * 8, 10),
    )
    return model, lambda: (torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,)))


class TinyTransformer(torch.nn.Module):
    def __init__(self, vocab: int = 500, dim: int = 64) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        layer = torch.nn.TransformerEncoderLayer(dim, nhead=4, dim_feedforward=128, dropout=0.1,
                                                 batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = torch.nn.Linear(dim, vocab)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(self.embed(ids)))


def transformer() -> tuple[torch.nn.Module, Callable[[], tuple[torch.Tensor, torch.Tensor]]]:
    return TinyTransformer(), lambda: (torch.randint(0, 500, (16, 32)), torch.randint(0, 500, (16 * 32,)))


LOOPS = {"mlp": mlp, "cnn": cnn, "transformer": transformer}


def train(name: str, steps: int) -> float:
    torch.manual_seed(0)
    model, batch = LOOPS[name]()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = [batch() for _ in range(4)]
    start = time.perf_counter()
    for i in range(steps):
        x, y = data[i % len(data)]
        out = model(x)
        loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return time.perf_counter() - start


def mode_context(mode: str) -> Any:
    if mode == "plain":
        return contextlib.nullcontext()
    if mode == "lrdoctor":
        return lrdoctor.watch(echo=lambda m: None)
    if mode == "nan-trace":
        return lrdoctor.watch(echo=lambda m: None, nan_trace=True)
    if mode == "anomaly":
        return torch.autograd.detect_anomaly(check_nan=True)
    raise ValueError(mode)


def overhead(steps: int, reps: int, modes: list[str]) -> dict[str, dict[str, float]]:
    """Median over repetitions of (mode's time per step / plain's, same repetition)."""
    results: dict[str, dict[str, float]] = {}
    for name in LOOPS:
        for m in modes:  # warm-up
            with mode_context(m):
                train(name, 3)
        ratios: dict[str, list[float]] = {m: [] for m in modes}
        plain_times: list[float] = []
        for rep in range(reps):
            order = modes[1:] if rep % 2 == 0 else modes[:0:-1]
            for m in order:
                n = steps if m == "lrdoctor" else max(3, steps // 4)
                before = train(name, steps) / steps
                with mode_context(m):
                    t = train(name, n) / n
                after = train(name, steps) / steps
                plain = (before + after) / 2
                plain_times.append(plain)
                ratios[m].append(t / plain)
        results[name] = {"plain": statistics.median(plain_times)}
        results[name].update({m: statistics.median(r) for m, r in ratios.items() if r})
    return results


def trip_cost(name: str) -> tuple[float, float]:
    """(ms of a step whose loss turns NaN, localization included; ms of a normal step), watched."""
    torch.manual_seed(0)
    model, batch = LOOPS[name]()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x, y = batch()
    last = list(model.parameters())[-1]
    times = []
    with lrdoctor.watch(echo=lambda m: None) as w:
        for i in range(8):
            if i == 7:
                with torch.no_grad():
                    last.view(-1)[0] = float("nan")  # the step that trips
            start = time.perf_counter()
            out = model(x)
            loss = torch.nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            times.append(time.perf_counter() - start)
    assert any(f.code == "LRD104" for f in w.findings)
    return times[-1] * 1e3, statistics.median(times[2:-1]) * 1e3


LOCALIZE = """
import torch
torch.manual_seed(0)

class Classifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 2)

    def forward(self, x):
        return torch.log(torch.softmax(self.proj(x), dim=-1))

model = Classifier()
with torch.no_grad():
    model.proj.weight.zero_()
    model.proj.weight[0] = 1.0  # confidently wrong: class 0 wins by 3200, softmax gives 0 for 1
loss = torch.nn.functional.nll_loss(model(torch.ones(4, 8) * 400), torch.ones(4, dtype=torch.long))
loss.backward()
"""


def localization() -> tuple[str, str, float]:
    """What detect_anomaly blames for log(softmax(x)) = -inf, what lrdoctor names."""
    ns: dict[str, Any] = {}
    blamed = "nothing"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with torch.autograd.detect_anomaly(check_nan=True):
                exec(LOCALIZE, ns)
        except RuntimeError as exc:
            blamed = str(exc).split("'")[1] if "'" in str(exc) else str(exc)[:60]
    w = lrdoctor.watch(echo=lambda m: None)
    start = time.perf_counter()
    with w:
        exec(LOCALIZE, {})
    cost = time.perf_counter() - start
    named = next((f.evidence for f in w.findings if f.code == "LRD104"), {})
    return blamed, f"`{named.get('op')}` in `{named.get('module')}`: {named.get('reason')}", cost


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.steps, args.reps = 10, 2
    torch.set_num_threads(1)
    modes = ["plain", "lrdoctor", "nan-trace", "anomaly"]
    results = overhead(args.steps, args.reps, modes)
    print(f"torch {torch.__version__}, CPU, 1 thread; {args.steps} steps per run, {args.reps} "
          f"repetitions; median ratio to plain runs just before and after")
    print(f"{'loop':<12} {'plain ms/step':>13} " + " ".join(f"{m:>10}" for m in modes[1:])
          + f" {'NaN step (localized)':>22}")
    for name, best in results.items():
        tripped, normal = trip_cost(name)
        print(f"{name:<12} {best['plain'] * 1e3:>13.2f} " + " ".join(f"{best[m]:>9.2f}x" for m in modes[1:])
              + f" {tripped:>8.1f} ms = {tripped / normal:.1f} steps")
    blamed, named, cost = localization()
    print(f"\nlog(softmax(x)) = -inf (float32, a confidently wrong prediction):\n"
          f"  detect_anomaly blames: {blamed}\n  lrdoctor names:        {named}")


if __name__ == "__main__":
    main()
