"""``lrdoctor check``: find LR-schedule and mixed-precision bugs before anything runs."""

from __future__ import annotations

import argparse
import os
import sys
from functools import lru_cache

from lrdoctor.catalog import select_codes
from lrdoctor.check import STATIC_CODES, config, render
from lrdoctor.check.diagnostic import Diagnostic, Problem
from lrdoctor.check.fix import fixed_sources, unified_diff
from lrdoctor.check.project import set_checked_roots
from lrdoctor.check.runner import check_files, cpu_count
from lrdoctor.check.sources import (
    RawNotebook,
    SourceError,
    discover,
    read_notebook,
    read_notebook_text,
    read_python,
)

EPILOG = """\
exit status:
  0  no findings, every file checked
  1  findings, or files that could not be read (E902) or parsed (E999)
  2  usage error, a path that does not exist, or an internal error

a file that cannot be read or parsed is reported in every format, as code E902 or E999 (as
flake8 and ruff do): it is never counted as checked.

examples:
  lrdoctor check                               everything under the current directory
  lrdoctor check train.py notebooks/           scripts, packages and .ipynb notebooks
  lrdoctor check --select LRD0 --ignore LRD015 schedule codes, without get_lr()
  lrdoctor check --format github               annotations in GitHub Actions
  lrdoctor check --format sarif > lrdoctor.sarif   for GitHub code scanning
  lrdoctor check --diff / --fix                show / apply safe fixes (LRD101)
  lrdoctor check --diff --unsafe-fixes         also fixes that change the schedule on purpose
                                               (LRD001, LRD005, LRD006, LRD015)

silence one line with `# noqa: LRD002` (a prefix such as `# noqa: LRD0` too, or a bare
`# noqa`); configure defaults in pyproject.toml:
  [tool.lrdoctor]
  select = ["LRD"]
  ignore = ["LRD015"]
  exclude = ["legacy/", "scratch_*.ipynb"]

`lrdoctor explain CODE` prints what a code means and how to fix it.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "paths", nargs="*", default=["."], metavar="PATH",
        help="files (.py, .ipynb) or directories to check (default: .); directories are "
             "walked honouring .gitignore, skipping virtual environments and site-packages",
    )
    parser.add_argument(
        "--format", choices=("text", "json", "sarif", "github"), default="text",
        help="text (default: the code line with a caret), json (an array of findings), "
             "sarif (SARIF 2.1.0 for code scanning), github (Actions annotations)",
    )
    parser.add_argument("--select", metavar="CODES", action="append",
                        help="only these codes or prefixes, comma-separated (LRD002,LRD1)")
    parser.add_argument("--ignore", metavar="CODES", action="append",
                        help="skip these codes or prefixes, comma-separated")
    parser.add_argument("--exclude", metavar="PATTERN", action="append", default=[],
                        help="gitignore-style pattern of paths to skip when walking (repeatable)")
    parser.add_argument("--force-exclude", action="store_true",
                        help="apply the exclude patterns to files named on the command line too "
                             "(pre-commit names every staged file)")
    parser.add_argument("--exit-zero", action="store_true",
                        help="exit 0 even when there are findings or files that could not be "
                             "checked")
    parser.add_argument("--statistics", action="store_true",
                        help="print how many findings of each code, not the findings (text, or "
                             "with --format json an array of {code, name, count, fixable})")
    fix = parser.add_mutually_exclusive_group()
    fix.add_argument("--fix", action="store_true",
                     help="apply safe fixes in place (LRD101: torch.cuda.amp -> torch.amp)")
    fix.add_argument("--diff", action="store_true",
                     help="show the safe fixes as a unified diff; change nothing")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="with --fix or --diff: also fixes that change the LR schedule on "
                             "purpose (LRD001, LRD005, LRD006, LRD015), shown as a diff first")
    parser.add_argument("--config", metavar="PYPROJECT",
                        help="read [tool.lrdoctor] from this file instead of the nearest "
                             "pyproject.toml")
    parser.add_argument("--no-gitignore", action="store_true",
                        help="do not honour .gitignore files when walking directories")
    parser.add_argument("-j", "--jobs", type=int, metavar="N",
                        help=f"processes to use (default: all cores, {cpu_count()} here)")
    parser.add_argument("--no-source", action="store_true",
                        help="text format: one line per finding, without the code line")


def _split(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def _err(message: str) -> None:
    print(f"lrdoctor check: {message}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    # the source lines shown with findings are cached per path: a file may have changed since
    # an earlier run in this process (a test, an editor integration, a --fix)
    for cache in (_lines, _cells, _raw_notebook):
        cache.cache_clear()
    try:
        cfg = config.load(args.config, explicit=bool(args.config))
    except config.ConfigError as exc:
        _err(str(exc))
        return 2
    select = _split(args.select) or cfg.select
    ignore = [*cfg.ignore, *(_split(args.ignore) or [])]
    try:
        codes = frozenset(select_codes(select, ignore)) & STATIC_CODES
    except ValueError as exc:
        _err(str(exc))
        return 2
    if args.jobs is not None and args.jobs < 1:
        _err("--jobs must be at least 1")
        return 2

    if args.unsafe_fixes and not (args.fix or args.diff):
        _err("--unsafe-fixes works with --fix (apply) or --diff (show)")
        return 2

    if args.statistics and args.format not in ("text", "json"):
        _err("--statistics works with --format text or json")
        return 2

    notes: list[str] = []
    files, missing = discover(
        args.paths, exclude=[*cfg.exclude, *args.exclude], base=cfg.base,
        respect_gitignore=not args.no_gitignore, force_exclude=args.force_exclude, notes=notes,
    )
    from lrdoctor.check import progress as progress_bar

    bar = progress_bar.ProgressBar(len(files)) if progress_bar.wanted(len(files)) else None
    set_checked_roots(list(args.paths))
    try:
        report = check_files(files, codes, args.jobs, bar.update if bar else None)
    finally:
        if bar is not None:
            bar.close()
    problems = [_missing(message) for message in missing] + report.problems
    for note in [*notes, *report.notes]:
        print(f"lrdoctor: note: {note}", file=sys.stderr)
    internal = any(p.internal for p in problems)
    # text and github list the unchecked files with the findings; the machine formats also say
    # it on stderr, for whoever reads the CI log. lrdoctor's own failures always go there.
    listed = args.format in ("text", "github") and not args.diff
    for problem in problems:
        if problem.internal or not listed:
            print(f"lrdoctor: {problem}", file=sys.stderr)
    diags = report.diagnostics
    failed = 2 if missing or internal else (1 if problems and not args.exit_zero else 0)

    if args.fix or args.diff:
        originals = _read_for_fix(diags, unsafe=args.unsafe_fixes)
        if args.unsafe_fixes:  # the safe fixes are applied there too
            new, fixes = _unsafe(args, diags, originals)
        else:
            new = fixed_sources(diags, originals)
            fixes = [d for d in diags if d.edits and d.path in new]
        if args.diff:
            for path in sorted(new):
                sys.stdout.write(unified_diff(path, originals[path], new[path]))
            count = len(fixes)
            print(f"{count} fix{'es' if count != 1 else ''} would be applied to "
                  f"{len(new)} file{'s' if len(new) != 1 else ''}.", file=sys.stderr)
            return failed or (1 if new and not args.exit_zero else 0)
        fixed = 0
        for path, text in new.items():
            try:
                with open(path, "w", encoding="utf-8", newline="") as fh:
                    fh.write(text)
            except OSError as exc:
                _err(f"{path}: cannot write the fix ({exc.strerror or exc})")
                continue
            fixed += sum(1 for d in fixes if d.path == path)
        gone = {id(d) for d in fixes if d.path in new}
        diags = [d for d in diags if id(d) not in gone]
        if fixed:
            print(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.", file=sys.stderr)

    try:
        _print(args, diags, problems, report.files + len(missing))
        sys.stdout.flush()
    except BrokenPipeError:  # `lrdoctor check | head`: the reader has seen enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return failed or (1 if diags and not args.exit_zero else 0)


def _missing(message: str) -> Problem:
    path, _, reason = message.rpartition(": ")
    return Problem("E902", path, f"{reason} (file not checked)")


def _print(args: argparse.Namespace, diags: list[Diagnostic], problems: list[Problem],
           files: int) -> None:
    fmt = args.format
    shown = render.in_order(diags, [p for p in problems if not p.internal])
    if args.statistics:
        if fmt == "json":
            print(render.statistics_json(shown))
            return
        if shown:
            print(render.statistics(shown))
        print(render.summary(diags, files, problems=problems))
        return
    if fmt == "json":
        print(render.to_json(shown))
    elif fmt == "sarif":
        print(render.sarif(render.in_order(diags, problems), _position))
    elif fmt == "github":
        everything = render.in_order(diags, problems)
        if everything:
            print(render.github(everything, _position))
    else:
        color = _color()
        if shown:
            print(render.text(shown, _line_of, color=color, show_source=not args.no_source))
        print(render.summary(diags, files, color=color, problems=problems))


def _color() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


@lru_cache(maxsize=256)
def _lines(path: str) -> tuple[str, ...]:
    try:
        if path.endswith(".ipynb"):
            return ()
        return tuple(read_python(path).splitlines())
    except SourceError:
        return ()


@lru_cache(maxsize=64)
def _cells(path: str) -> dict[int, list[str]]:
    try:
        return read_notebook(path).cell_lines
    except SourceError:
        return {}


@lru_cache(maxsize=16)
def _raw_notebook(path: str) -> RawNotebook | None:
    try:
        return RawNotebook(read_notebook_text(path))
    except SourceError:
        return None


def _position(path: str, cell: int, line: int, col: int) -> tuple[int, int] | None:
    notebook = _raw_notebook(path)
    return notebook.position(cell, line, col) if notebook else None


def _line_of(d: Diagnostic | Problem) -> str | None:
    lines: list[str] | tuple[str, ...]
    if d.cell is not None:
        lines = _cells(d.path).get(d.cell, [])
    else:
        lines = _lines(d.path)
    return lines[d.line - 1] if 0 < d.line <= len(lines) else None


def _unsafe(args: argparse.Namespace, diags: list[Diagnostic], originals: dict[str, str]
            ) -> tuple[dict[str, str], list[Diagnostic]]:
    """Safe and unsafe fixes together; with --fix, each file's unsafe changes are shown as a
    diff (stderr) before the file is written, and a fix that does not apply is said."""
    from lrdoctor.check.unsafe import apply_unsafe

    outcome = apply_unsafe(diags, originals)
    for note in outcome.refused:
        print(f"lrdoctor: {note}", file=sys.stderr)
    if args.fix:
        for path in sorted(outcome.unsafe):
            sys.stderr.write(unified_diff(path, outcome.unsafe[path], outcome.texts[path]))
    return outcome.texts, outcome.fixed


def _read_for_fix(diags: list[Diagnostic], unsafe: bool = False) -> dict[str, str]:
    from lrdoctor.check.unsafe import UNSAFE_CODES

    out = {}
    for path in {d.path for d in diags if d.cell is None and (
            d.edits or unsafe and d.code in UNSAFE_CODES)}:
        try:
            with open(path, "rb") as fh:
                out[path] = fh.read().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # only UTF-8 files are rewritten
    return out
