"""Command line: ``lrdoctor check | run | ckpt | report | preview | explain | demo``.

Exit codes (stable, other tools rely on them): 0 no findings, 1 findings, 2 usage or internal
error. ``run`` passes the script's own exit code through instead. ``ckpt``: 0 nothing flagged,
1 findings, 2 a path could not be audited (missing, not a checkpoint, truncated, refused).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from lrdoctor import __version__
from lrdoctor.catalog import CATALOG, lookup

EPILOG = """\
examples:
  lrdoctor check train.py notebooks/          static check, before anything runs
  lrdoctor run train.py --epochs 10           run the script and watch its schedule
  lrdoctor run --json report.json -m pkg.train --lr 3e-4
  lrdoctor ckpt last.pt out/checkpoint-500     audit checkpoints for a resume's missing state
  torchrun --nproc_per_node 2 -m lrdoctor run train.py   rank 0 reports for all ranks
  lrdoctor report .lrdoctor/runs/RUN_ID        re-print a torchrun run's report
  lrdoctor preview "OneCycleLR(max_lr=0.1, total_steps=1000)" --epochs 10 --steps-per-epoch 100
                                               the LR curve of a scheduler, before training
  lrdoctor explain LRD002                      what a code means and how to fix it
  lrdoctor demo                                see lrdoctor find real bugs (a few seconds)
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lrdoctor",
        description="Find learning-rate-schedule and mixed-precision bugs in PyTorch training.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"lrdoctor {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    from lrdoctor.check import command as check_command

    check_parser = sub.add_parser(
        "check",
        help="statically check scripts, packages and notebooks",
        description="Statically check .py files and .ipynb notebooks for LR-schedule and AMP bugs.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check_command.add_arguments(check_parser)

    run_parser = sub.add_parser(
        "run",
        help="run a training script under the runtime watcher",
        usage="lrdoctor run [--json PATH] [--html PATH] [--strict] [-q] [--nan-trace | --nan-record | --no-nan-check] "
        "[--run-dir DIR] [--run-id ID] [--rank-wait SECONDS] [--] (SCRIPT | -m MODULE) [ARGS...]",
        description=(
            "Run SCRIPT exactly as `python SCRIPT ARGS` would (same __main__, sys.argv, "
            "sys.path[0]) while watching optimizers, schedulers, GradScalers and data loaders. "
            "A report is printed to stderr when the script ends, fails or is interrupted. "
            "The script's exit code is passed through."
        ),
    )
    add_run_arguments(run_parser)

    from lrdoctor.ckpt import command as ckpt_command

    ckpt_command.configure(sub.add_parser("ckpt", help="audit checkpoint files and folders"))
    from lrdoctor.preview import command as preview_command

    preview = sub.add_parser(
        "preview",
        help="show what a scheduler configuration does to the LR, before training",
        description="Print the LR curve of a scheduler SPEC, with values from the real PyTorch "
        "class on a throwaway optimizer, and the LR at the start of each epoch.",
        epilog=preview_command.EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    preview_command.add_arguments(preview)

    report = sub.add_parser(
        "report",
        help="re-print the report of a finished torchrun run from its ranks' traces",
        description="Re-print (and merge) the report of a distributed run from the traces its "
        "ranks wrote: RUN_DIR is a run directory (.lrdoctor/runs/RUN_ID) or a rank<N>.json file. "
        "Give one directory per node when the nodes wrote to different machines' directories. "
        "Exit status: 0 no findings, 1 findings or ranks missing, 2 a path holds no trace.",
    )
    report.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    report.add_argument("--json", action="store_true", help="print the merged report as JSON")
    report.add_argument("--html", metavar="PATH", help="also write the HTML report (every rank's "
                        "LR lines) to PATH, and the data behind it as CSV next to it")

    explain = sub.add_parser("explain", help="print the documentation page of a code")
    explain.add_argument("code", nargs="?", help="a code (LRD002) or name (epoch-scheduler-per-batch)")
    explain.add_argument("--list", action="store_true", help="list every code with its summary")

    demo = sub.add_parser("demo", help="run bundled buggy and fixed scripts under the watcher")
    demo.add_argument("--quiet", action="store_true", help="only the findings, no reports")
    return parser


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", metavar="PATH", help="write the report as JSON to PATH (under torchrun: "
                   "rank 0 writes the report merged from all ranks; {rank} in PATH: each rank "
                   "writes its own)")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML report with "
                   "LR plots to PATH, and the data behind them as CSV next to the JSON report "
                   "(or next to PATH without --json); under torchrun as --json: rank 0 writes "
                   "it with every rank's LR lines, {rank} in PATH: each rank its own)")
    p.add_argument(
        "--strict",
        action="store_true",
        help="raise lrdoctor.ScheduleError in the training process at the first error-level finding",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="print the report only if it has findings")
    p.add_argument(
        "--nan-trace",
        action="store_true",
        help="check every op of every step for NaN/inf from the start (slower: names the op and "
        "module of the first non-finite value, forward, backward or optimizer step)",
    )
    p.add_argument(
        "--nan-record",
        action="store_true",
        help="record every top-level module call from the first step, so that the first NaN/inf "
        "made inside a module is localized to its module and op (costs a little on every "
        "module call; by default the first one is reported with its step and line, and calls "
        "are recorded from then on, so a recurrence is localized)",
    )
    p.add_argument(
        "--no-nan-check",
        action="store_true",
        help="watch the LR schedule only, without the always-on NaN/inf detection (for loops "
        "whose steps are so short that its ~0.1 ms a step matters)",
    )
    dist = p.add_argument_group("under torchrun (each rank writes its trace to one run directory; "
                                "rank 0 merges them and reports)")
    dist.add_argument("--run-dir", metavar="DIR", help="the run directory for the ranks' traces "
                      "(default .lrdoctor/runs/RUN_ID)")
    dist.add_argument("--run-id", metavar="ID", help="name of the run (default: torchrun's "
                      "--rdzv-id, else the start time and pid of the torchrun that launched it)")
    dist.add_argument("--rank-wait", metavar="SECONDS", type=float, default=5.0,
                      help="how long rank 0 waits at exit for the other ranks' traces (default 5; "
                      "a rank whose process has died is not waited for)")
    p.add_argument("-m", dest="module", metavar="MODULE", help="run a library module as a script")
    p.add_argument("script", nargs="?", help="the training script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")


def _split_run_argv(argv: list[str]) -> tuple[list[str], list[str]]:
    """Split ``run`` arguments into ours and the script's, so that the script's own flags
    (``--json`` included) are never taken by lrdoctor once the script is named."""
    ours: list[str] = []
    i = 0
    takes_value = {"--json", "--html", "-m", "--run-dir", "--run-id", "--rank-wait"}
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return ours, argv[i + 1 :]
        if arg in takes_value:
            ours += argv[i : i + 2]
            if arg == "-m":
                return ours, argv[i + 2 :]
            i += 2
            continue
        if arg.split("=", 1)[0] in takes_value and "=" in arg:
            ours.append(arg)
            i += 1
            continue
        if arg.startswith("-") and arg != "-":
            ours.append(arg)
            i += 1
            continue
        return ours, argv[i:]
    return ours, []


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "run":
        return _main_run(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "check":
        from lrdoctor.check import command as check_command

        return check_command.run(args)
    if args.command == "ckpt":
        from lrdoctor.ckpt import command as ckpt_command

        return ckpt_command.run(args)
    if args.command == "preview":
        from lrdoctor.preview import command as preview_command

        return preview_command.run(args)
    if args.command == "explain":
        return _explain(args)
    if args.command == "report":
        return _report(args)
    if args.command == "demo":
        from lrdoctor.demo.runner import run_demo

        return run_demo(quiet=args.quiet)
    parser.error(f"unknown command {args.command!r}")
    return 2


def _main_run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="lrdoctor run")
    add_run_arguments(parser)
    ours, rest = _split_run_argv(argv)
    if any(a in ("-h", "--help") for a in ours):
        build_parser().parse_args(["run", "--help"])
    args = parser.parse_args(ours)
    if args.module:
        target, script_args = args.module, rest
    else:
        if not rest:
            parser.print_usage(sys.stderr)
            print("lrdoctor run: error: name a SCRIPT or -m MODULE to run", file=sys.stderr)
            return 2
        target, script_args = rest[0], rest[1:]
    from lrdoctor.runtime.runner import run_target

    return run_target(
        target,
        script_args,
        is_module=bool(args.module),
        json_path=args.json,
        strict=args.strict,
        quiet=args.quiet,
        nan_trace=args.nan_trace,
        nan_check=not args.no_nan_check,
        nan_record=args.nan_record,
        run_dir=args.run_dir,
        run_id=args.run_id,
        rank_wait=args.rank_wait,
        html_path=args.html,
    )


def _report(args: argparse.Namespace) -> int:
    import json

    from lrdoctor.report import ranks
    from lrdoctor.report.text import use_color

    try:
        traces, dirs = ranks.load_traces(args.run_dirs)
    except ranks.ReportError as exc:
        print(f"lrdoctor report: {exc}", file=sys.stderr)
        return 2
    run = ranks.merge(traces, dirs)
    merged = run.to_dict()
    if args.html:
        from lrdoctor.report.html import write_csv, write_html

        try:
            write_html(merged, args.html)
            write_csv(merged, args.html)
        except OSError as exc:
            print(f"lrdoctor report: cannot write {args.html!r}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(merged, indent=2))
    else:
        print(ranks.render_merged(run, color=use_color(sys.stdout)))
    return 1 if run.findings or run.missing else 0


def _explain(args: argparse.Namespace) -> int:
    if args.list or not args.code:
        for entry in CATALOG.values():
            print(f"{entry.code}  {entry.name:<36} {entry.severity:<8} {entry.summary}")
        return 0
    found = lookup(args.code)
    if found is None and args.code.upper() in ("E902", "E999"):
        from lrdoctor.check.diagnostic import not_checked_page

        print(not_checked_page(args.code.upper()), end="")
        return 0
    if found is None:
        print(
            f"lrdoctor explain: unknown code {args.code!r}; `lrdoctor explain --list` shows all codes",
            file=sys.stderr,
        )
        return 2
    print(found.page(), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
