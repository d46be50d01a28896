#!/usr/bin/env python3
"""Whole-repository regression check of `lrdoctor check` on fetched public repositories.

The real-code scorer (score.py) looks at the labelled files of each case; this looks at every
file of whole repositories, as a user runs `lrdoctor check .` on a clone, and compares two
builds finding by finding. It is how a change that moves findings far from the labelled files
is seen before it lands.

    regress.py export [--repos LIST]             # lay out each fetched snapshot's HEAD once
    regress.py run TAG --lrdoctor CMD [--jobs 2] # check every exported tree with one build
    regress.py diff TAG_BEFORE TAG_AFTER         # per repository: findings added / removed

`export` writes the source and config files of each snapshot in /work/.mirror (the search
tool's `fetch`) under /work/regress/<owner>__<name>, with an empty `.git` marking the root;
`run` keeps each repository's JSON findings, stderr and seconds under /work/regress_out/TAG/.
The third-party trees never enter this repository. A benchmark, not a test: it reports, it
asserts nothing.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from score import lay_out_tree  # noqa: E402  (the scorer's layout of a snapshot's tree)

SUFFIXES = (".py", ".ipynb", ".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".sh")
MAX_BYTES = 512 * 1024
DEFAULT_TREES = Path("/work/regress")
DEFAULT_OUT = Path("/work/regress_out")
DEFAULT_MIRRORS = Path("/work/.mirror")


def _gitdir(snapshot: Path) -> Path | None:
    for candidate in (snapshot / "repo" / ".git", snapshot / "repo"):
        if (candidate / "HEAD").is_file():
            return candidate
    return None


def export_one(snapshot: Path, trees: Path) -> tuple[str, int]:
    """Lay out the snapshot's HEAD (files of SUFFIXES up to MAX_BYTES); returns (name, files)."""
    name = snapshot.name.replace("+", "__", 1)
    root = trees / name
    done = root / ".git" / "lrdoctor-regress-complete"
    if done.is_file():
        return name, -1
    gitdir = _gitdir(snapshot)
    if gitdir is None:
        return name, 0
    if not lay_out_tree(gitdir, "HEAD", root, SUFFIXES, MAX_BYTES):
        return name, 0
    files = sum(1 for p in root.rglob("*") if p.is_file())
    done.write_text("")
    return name, max(files, 1)


def cmd_export(args: argparse.Namespace) -> int:
    wanted = None
    if args.repos:
        wanted = {line.strip().lower() for line in Path(args.repos).read_text().splitlines()
                  if line.strip() and not line.startswith("#")}
    snapshots = sorted(p for p in args.mirrors.iterdir() if "+" in p.name)
    if wanted is not None:
        snapshots = [p for p in snapshots if p.name.replace("+", "/", 1).lower() in wanted]
    args.trees.mkdir(parents=True, exist_ok=True)
    made = kept = 0
    for snap in snapshots:
        name, files = export_one(snap, args.trees)
        if files == -1:
            kept += 1
        elif files == 0:
            print(f"{name}: no usable snapshot", file=sys.stderr)
        else:
            made += 1
    print(f"{made} trees exported, {kept} already there, under {args.trees}")
    return 0


def run_one(root: Path, command: list[str], out: Path, timeout: int) -> tuple[str, float, str]:
    started = time.perf_counter()
    try:
        proc = subprocess.run([*command, "check", "--format", "json", "--exit-zero", "."],
                              cwd=root, capture_output=True, timeout=timeout)
        status, stdout, stderr = f"rc={proc.returncode}", proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        status = "timeout"
        stdout, stderr = b"", (exc.stderr or b"")
    seconds = time.perf_counter() - started
    (out / f"{root.name}.json").write_bytes(stdout)
    (out / f"{root.name}.err").write_bytes(stderr)
    (out / f"{root.name}.time").write_text(f"{seconds:.1f} {status}\n")
    return root.name, seconds, status


def cmd_run(args: argparse.Namespace) -> int:
    command = shlex.split(args.lrdoctor)
    out = args.out / args.tag
    out.mkdir(parents=True, exist_ok=True)
    roots = sorted(p for p in args.trees.iterdir() if (p / ".git").is_dir())
    if args.repos:
        wanted = {line.strip().lower().replace("/", "__", 1)
                  for line in Path(args.repos).read_text().splitlines() if line.strip()}
        roots = [r for r in roots if r.name.lower() in wanted]
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(run_one, r, command, out, args.timeout) for r in roots]
        for n, future in enumerate(concurrent.futures.as_completed(futures), 1):
            name, seconds, status = future.result()
            if status != "rc=0" or seconds > 120:
                print(f"[{n}/{len(roots)}] {name}: {status}, {seconds:.0f} s", file=sys.stderr)
    total = time.perf_counter() - started
    findings = sum(len(_findings(out, r.name)) for r in roots)
    print(f"{args.tag}: {len(roots)} repositories, {findings} findings, {total:.0f} s "
          f"(jobs {args.jobs})")
    return 0


def _findings(out: Path, name: str) -> list[tuple[str, str, int, str]]:
    path = out / f"{name}.json"
    try:
        items = json.loads(path.read_bytes() or b"[]")
    except (OSError, ValueError):
        return []
    rows = []
    for item in items if isinstance(items, list) else []:
        rows.append((str(item.get("code")), str(item.get("path")), int(item.get("line") or 0),
                     str(item.get("message"))))
    return rows


def cmd_diff(args: argparse.Namespace) -> int:
    before, after = args.out / args.before, args.out / args.after
    names = sorted({p.stem for p in before.glob("*.json")} | {p.stem for p in after.glob("*.json")})
    added_total = removed_total = 0
    for name in names:
        old = set(_findings(before, name))
        new = set(_findings(after, name))
        # a finding whose message alone changed is one change, not one removed and one added
        old_keys = {r[:3] for r in old}
        new_keys = {r[:3] for r in new}
        added = sorted(r for r in new if r[:3] not in old_keys)
        removed = sorted(r for r in old if r[:3] not in new_keys)
        reworded = sorted(r for r in new - old if r[:3] in old_keys)
        timing = [(p / f"{name}.time").read_text().split()[1:] if (p / f"{name}.time").is_file()
                  else ["absent"] for p in (before, after)]
        errors = [e for e in ("Traceback", "internal error")
                  if e in (after / f"{name}.err").read_text(errors="replace")] \
            if (after / f"{name}.err").is_file() else []
        if not (added or removed or reworded or errors or timing[0] != timing[1]):
            continue
        print(f"== {name}: +{len(added)} -{len(removed)} ~{len(reworded)}"
              + (f" status {timing[0]} -> {timing[1]}" if timing[0] != timing[1] else "")
              + (f" stderr has {errors}" if errors else ""))
        for code, path, line, message in added:
            print(f"  + {code} {path}:{line} {message[:160]}")
        for code, path, line, message in removed:
            print(f"  - {code} {path}:{line} {message[:160]}")
        for code, path, line, message in reworded:
            print(f"  ~ {code} {path}:{line} {message[:160]}")
        added_total += len(added)
        removed_total += len(removed)
    counts = [sum(len(_findings(d, n)) for n in names) for d in (before, after)]
    print(f"{args.before}: {counts[0]} findings; {args.after}: {counts[1]}; "
          f"+{added_total} -{removed_total} over {len(names)} repositories")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trees", type=Path, default=DEFAULT_TREES,
                    help="where the exported trees are (default %(default)s)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT,
                    help="where each run's findings are kept (default %(default)s)")
    sub = ap.add_subparsers(dest="command", required=True)
    exp = sub.add_parser("export", help="lay out every fetched snapshot's HEAD once")
    exp.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    exp.add_argument("--repos", help="a file of owner/name lines to export (default: all)")
    run = sub.add_parser("run", help="check every exported tree with one build")
    run.add_argument("tag")
    run.add_argument("--lrdoctor", required=True, help="the command to run, e.g. 'lrd_s60'")
    run.add_argument("--jobs", type=int, default=2)
    run.add_argument("--timeout", type=int, default=600, help="seconds a repository")
    run.add_argument("--repos", help="a file of owner/name lines to run (default: all)")
    dif = sub.add_parser("diff", help="findings added and removed between two runs")
    dif.add_argument("before")
    dif.add_argument("after")
    args = ap.parse_args(argv)
    return {"export": cmd_export, "run": cmd_run, "diff": cmd_diff}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
