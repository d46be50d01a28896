"""The ``lrdoctor preview`` command: arguments, the terminal output and the files it writes."""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
from html import escape

from lrdoctor.report.sparkline import block_chart, can_draw_unicode

EPILOG = """\
SPEC is one scheduler call without the optimizer, literal arguments only:
  lrdoctor preview "OneCycleLR(max_lr=0.1, total_steps=1000)" --lr 0.01 --epochs 10 \\
      --steps-per-epoch 100 --per both
  lrdoctor preview "StepLR(step_size=30, gamma=0.1)" --epochs 90 --steps-per-epoch 500
  lrdoctor preview "SequentialLR([LinearLR(start_factor=0.01, total_iters=500),
      CosineAnnealingLR(T_max=9500)], milestones=[500])" --epochs 10 --steps-per-epoch 1000
  lrdoctor preview "cosine_with_warmup(num_warmup_steps=100, num_training_steps=1000)" \\
      --epochs 10 --steps-per-epoch 100 --svg lr.svg

Classes: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, OneCycleLR, CyclicLR,
CosineAnnealingWarmRestarts, LinearLR, ConstantLR, PolynomialLR, SWALR, SequentialLR,
ChainedScheduler; warm-up schedules named like Hugging Face's (parameters as there):
linear_with_warmup, cosine_with_warmup, cosine_with_restarts, constant_with_warmup, constant,
polynomial_with_warmup, inverse_sqrt (the get_*_schedule* names work too).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="a scheduler call, e.g. 'StepLR(step_size=7)'")
    p.add_argument("--lr", type=float, default=0.1, help="the optimizer's LR (default 0.1)")
    p.add_argument("--epochs", type=int, default=10, help="epochs (default 10)")
    p.add_argument("--steps-per-epoch", type=int, default=100,
                   help="optimizer steps per epoch, len(loader) (default 100)")
    p.add_argument("--per", choices=("batch", "epoch", "both"), default="batch",
                   help="step the scheduler after every batch, after every epoch, or show both "
                   "side by side (default batch)")
    p.add_argument("--svg", metavar="FILE", help="write the chart as SVG")
    p.add_argument("--html", metavar="FILE", help="write the chart and the epoch table as HTML")
    p.add_argument("--csv", metavar="FILE", help="write step, epoch and LR as CSV")
    p.add_argument("--png", metavar="FILE", help="write the chart as PNG (needs Chromium: it "
                   "renders the SVG; use --svg otherwise)")
    p.add_argument("--width", type=int, default=None, help="terminal chart width in columns")


def run(args: argparse.Namespace) -> int:
    from lrdoctor.preview import SpecError, parse_spec, schedule

    def fail(message: str) -> int:
        print(f"lrdoctor preview: {message}", file=sys.stderr)
        return 2

    try:
        spec = parse_spec(args.spec)
    except SpecError as exc:
        return fail(str(exc))
    try:
        import torch  # noqa: F401
    except ImportError:
        return fail("PyTorch is not installed: a preview runs the real scheduler class")
    pers = ["batch", "epoch"] if args.per == "both" else [args.per]
    try:
        curves = [schedule(spec, args.lr, args.epochs, args.steps_per_epoch, per) for per in pers]
    except SpecError as exc:
        return fail(str(exc))
    unicode = can_draw_unicode(sys.stdout)
    total = args.epochs * args.steps_per_epoch
    print(f"{spec} on lr {args.lr:g}: {args.epochs} epochs x {args.steps_per_epoch} steps = "
          f"{total} optimizer steps")
    term = shutil.get_terminal_size((100, 24)).columns
    width = args.width or max(20, min(100, (term - 14) // len(curves) - (4 if len(curves) > 1 else 0)))
    charts = []
    for c in curves:
        head = f"stepped per {c.per} ({c.scheduler_steps} scheduler steps):"
        body = block_chart(c.lrs, width, 10, unicode, args.steps_per_epoch) if c.lrs else ["(no values)"]
        charts.append([head, *body])
    rows = max(len(ch) for ch in charts)
    col = max(len(line) for ch in charts for line in ch) + 4
    for r in range(rows):
        print("".join(f"{(ch[r] if r < len(ch) else ''):<{col}}" for ch in charts).rstrip())
    for c in curves:
        if c.error:
            print(f"stepped per {c.per}: {c.error}")
    print()
    print(epoch_table(curves, args.epochs, args.steps_per_epoch))
    return write_files(args, curves)


def epoch_rows(curves: list, epochs: int, steps_per_epoch: int,
               limit: int | None = None) -> list[list[str]]:
    """One row per epoch: its number and the LR its first optimizer step used, per curve
    (the middle elided as "..." past ``limit`` epochs)."""
    shown = list(range(epochs))
    if limit is not None and epochs > limit:
        shown = list(range(limit - 10)) + [-1] + list(range(epochs - 10, epochs))
    rows = []
    for e in shown:
        if e < 0:
            rows.append(["..."] + ["" for _ in curves])
            continue
        i = e * steps_per_epoch
        rows.append([str(e + 1)] + [f"{c.lrs[i]:.6g}" if i < len(c.lrs) else "-" for c in curves])
    return rows


def epoch_table(curves: list, epochs: int, steps_per_epoch: int, limit: int = 40) -> str:
    head = ["epoch"] + [f"LR at start, per {c.per}" for c in curves]
    rows = epoch_rows(curves, epochs, steps_per_epoch, limit)
    widths = [max(len(r[k]) for r in [head, *rows]) for k in range(len(head))]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(r, widths)) for r in [head, *rows])


def _chart_svg(curves: list, steps_per_epoch: int) -> str:
    from lrdoctor.report.svgplot import Chart, Series, render_svg

    chart = Chart(title=f"{curves[0].spec}", y_label="learning rate")
    for i, c in enumerate(curves):
        chart.series.append(Series(f"stepped per {c.per}",
                                   [(float(k + 1), v) for k, v in enumerate(c.lrs)],
                                   dashed=i > 0, last_x=float(len(c.lrs))))
    n = max(len(c.lrs) for c in curves)
    epochs = range(steps_per_epoch, n, steps_per_epoch)
    chart.vlines = [(e + 0.5, f"epoch {k + 2}") for k, e in enumerate(epochs)]
    return render_svg(chart)


def write_files(args: argparse.Namespace, curves: list) -> int:
    try:
        if args.svg:
            with open(args.svg, "w", encoding="utf-8") as fh:
                fh.write(_chart_svg(curves, args.steps_per_epoch) + "\n")
        if args.html:
            with open(args.html, "w", encoding="utf-8") as fh:
                fh.write(_page(curves, args))
        if args.csv:
            with open(args.csv, "w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow(["step", "epoch", *[f"lr_per_{c.per}" for c in curves]])
                for k in range(max(len(c.lrs) for c in curves)):
                    w.writerow([k + 1, k // args.steps_per_epoch + 1,
                                *[repr(c.lrs[k]) if k < len(c.lrs) else "" for c in curves]])
        if args.png:
            return _png(args.png, curves, args.steps_per_epoch)
    except OSError as exc:
        print(f"lrdoctor preview: cannot write: {exc}", file=sys.stderr)
        return 2
    return 0


def _page(curves: list, args: argparse.Namespace) -> str:
    header = (f"{curves[0].spec} on lr {args.lr:g}: {args.epochs} epochs x "
              f"{args.steps_per_epoch} steps")
    names = ["epoch"] + [f"LR at start, per {c.per}" for c in curves]
    cells = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>"
                    for r in epoch_rows(curves, args.epochs, args.steps_per_epoch))
    errors = "".join(f"<p>stepped per {escape(c.per)}: {escape(c.error)}</p>"
                     for c in curves if c.error)
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'\">"
            f"<title>{escape(header)}</title><style>body{{font:14px system-ui,sans-serif;"
            "margin:24px}td,th{border:1px solid #ddd;padding:2px 8px}table{border-collapse:"
            f"collapse}}</style></head><body><h1 style=\"font-size:18px\">{escape(header)}</h1>"
            f"{_chart_svg(curves, args.steps_per_epoch)}{errors}<table><tr>"
            + "".join(f"<th>{escape(n)}</th>" for n in names) + f"</tr>{cells}</table></body></html>\n")


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _png(path: str, curves: list, steps_per_epoch: int) -> int:
    browser = chromium_path()
    if browser is None:
        print("lrdoctor preview: --png needs Chromium to render the chart (none found); write "
              "--svg instead, or install chromium", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "chart.html")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><style>body{margin:0}"
                     "</style></head><body>" + _chart_svg(curves, steps_per_epoch) + "</body></html>")
        result = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={os.path.join(tmp, 'profile')}", "--force-device-scale-factor=1",
             "--window-size=960,300", f"--screenshot={os.path.abspath(path)}",
             "file://" + page], capture_output=True, text=True, timeout=120)
    if result.returncode != 0 or not os.path.exists(path):
        print(f"lrdoctor preview: Chromium could not render the PNG (exit {result.returncode})",
              file=sys.stderr)
        return 2
    return 0
