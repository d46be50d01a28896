"""Score `lrdoctor check` on real public training code, labelled by hand.

The manifest (manifest.toml, next to this file) names each case: a public repository, a pinned
commit, the file(s) that make up the training program, and the codes a careful reviewer would
report there. The third-party files themselves never enter this repository: they are read from
a cache directory (default /work/realcode, laid out as <owner>__<repo>/<commit>/<path>), filled
once by a session with the search tool (see README.md; `--list-missing` says what is missing,
`--extract-from-mirrors` fills it from fetched snapshots).

Each case is checked the way a user would check it: its files are laid out as a clone of its
repository (an empty .git marks the project root) in a directory of its own, and one
`lrdoctor check --format json` run checks all of them (`--per-case`: one run per case). The
score is over (case, code) pairs: a code found in a case is a true positive when the case
expects it, a false alarm when it is neither expected nor marked uncertain. LRD101 (deprecated
torch.cuda.amp spelling) is trivial to find and is counted apart so it cannot inflate the
numbers.

    python bench/realcode/score.py --split dev
    python bench/realcode/score.py --split dev --lrdoctor /work/wt/other/.venv/bin/lrdoctor

`--in-repo` checks each case inside its whole repository instead (the repository's source, config
and text files at the pinned commit, from the fetched snapshots), as a user checks a file of
their own clone: only the case's files are given to `lrdoctor check`, but the modules they import,
the configs they read and the launch scripts and docs beside them are there, as they are for a
user. The findings counted are those in the case's files.

This is a benchmark, not a test. Held-out cases are scored but their details are only printed
with --show-heldout: whoever tunes the checker must not look at them.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.toml"
DEFAULT_CACHE = Path("/work/realcode")
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_REPOS = Path("/work/realcode_repo")
# what --in-repo lays out of a repository beside the case's files: what lrdoctor may read of a
# project (its modules, configs, launch scripts and docs); large files (data, weights, logs
# saved as text) are left out
CONTEXT_SUFFIXES = (".py", ".ipynb", ".yaml", ".yml", ".json", ".toml", ".cfg", ".ini",
                    ".sh", ".bash", ".md", ".rst", ".txt")
CONTEXT_MAX_BYTES = 512 * 1024
TRIVIAL = "LRD101"
CODE_RE = re.compile(r"^LRD\d{3}$")
COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")


def split_for(case_id: str) -> str:
    """The split a case belongs to, fixed by its id alone (chosen before any scoring)."""
    return "heldout" if hashlib.sha256(case_id.encode()).digest()[0] % 3 == 0 else "dev"


@dataclass
class Expected:
    code: str
    reason: str
    lines: list[str] = field(default_factory=list)  # "path:line" where the reviewer knows it


@dataclass
class Case:
    id: str
    repo: str
    commit: str
    paths: list[str]
    split: str
    expected: list[Expected]
    uncertain: dict[str, str]  # code -> why it is not counted either way
    fetched_from: str = ""  # a fork whose snapshot holds this exact commit, if not the repo's own
    batch: str = ""  # the round that added the case (e.g. "fresh-2026-12"), to score it alone
    note: str = ""

    def cache_dir(self, cache: Path) -> Path:
        owner, name = self.repo.split("/")
        return cache / f"{owner}__{name}" / self.commit


class ManifestError(ValueError):
    pass


def load_manifest(path: Path = MANIFEST) -> list[Case]:
    with path.open("rb") as f:
        data = tomllib.load(f)
    cases: list[Case] = []
    seen: set[str] = set()
    for raw in data.get("case", []):
        cid = raw.get("id", "?")
        where = f"{path.name}: case {cid!r}"
        if cid in seen:
            raise ManifestError(f"{where}: duplicate id")
        seen.add(cid)
        if not COMMIT_RE.match(raw.get("commit", "")):
            raise ManifestError(f"{where}: commit must be 40 lowercase hex digits")
        if raw.get("split") != split_for(cid):
            raise ManifestError(f"{where}: split must be {split_for(cid)!r} (fixed by the id's hash)")
        if not raw.get("paths"):
            raise ManifestError(f"{where}: no paths")
        expected = []
        for e in raw.get("expected", []):
            if not CODE_RE.match(e.get("code", "")) or not e.get("reason"):
                raise ManifestError(f"{where}: each expected entry needs a code and a reason")
            for loc in e.get("lines", []):
                p, _, n = loc.rpartition(":")
                if p not in raw["paths"] or not n.isdigit():
                    raise ManifestError(f"{where}: line {loc!r} is not 'path:line' of a case path")
            expected.append(Expected(e["code"], e["reason"], list(e.get("lines", []))))
        uncertain = {}
        for u in raw.get("uncertain", []):
            if not CODE_RE.match(u.get("code", "")) or not u.get("reason"):
                raise ManifestError(f"{where}: each uncertain entry needs a code and a reason")
            uncertain[u["code"]] = u["reason"]
        overlap = {e.code for e in expected} & set(uncertain)
        if overlap:
            raise ManifestError(f"{where}: {sorted(overlap)} both expected and uncertain")
        cases.append(Case(cid, raw["repo"], raw["commit"], list(raw["paths"]), raw["split"],
                          expected, uncertain, raw.get("fetched_from", ""), raw.get("batch", ""),
                          raw.get("note", "")))
    return cases


def missing_files(case: Case, cache: Path) -> list[str]:
    root = case.cache_dir(cache)
    return [p for p in case.paths if not (root / p).is_file()]


def extract_from_mirrors(cases: list[Case], cache: Path, mirrors: Path) -> int:
    """Fill the cache from snapshots brought by the search tool's `fetch` (git dirs)."""
    still_missing = 0
    for case in cases:
        owner, name = (case.fetched_from or case.repo).split("/")
        gitdir = mirrors / f"{owner}+{name}" / "repo"
        if (gitdir / ".git").is_dir():  # some snapshots are clones with a work tree
            gitdir = gitdir / ".git"
        for path in missing_files(case, cache):
            dest = case.cache_dir(cache) / path
            out = subprocess.run(["git", "--git-dir", str(gitdir), "show", f"{case.commit}:{path}"],
                                 capture_output=True)
            if out.returncode != 0:
                still_missing += 1
                print(f"not in {gitdir}: {case.repo}@{case.commit[:12]}:{path}", file=sys.stderr)
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(out.stdout)
    return still_missing


def _snapshot(case: Case, mirrors: Path) -> Path | None:
    owner, name = (case.fetched_from or case.repo).split("/")
    gitdir = mirrors / f"{owner}+{name}" / "repo"
    if (gitdir / ".git").is_dir():
        gitdir = gitdir / ".git"
    return gitdir if gitdir.is_dir() else None


def lay_out_tree(gitdir: Path, commit: str, root: Path, suffixes: tuple[str, ...],
                 max_bytes: int) -> bool:
    """Write the files of ``commit`` in the snapshot ``gitdir`` whose names end with one of
    ``suffixes`` (up to ``max_bytes`` each; no links, nothing outside the tree) under ``root``,
    which is emptied first and gets an empty ``.git`` marking the project root. False when the
    snapshot does not hold the commit. Also used by regress.py."""
    listing = subprocess.run(
        ["git", "--git-dir", str(gitdir), "ls-tree", "-r", "-l", "-z", commit],
        capture_output=True)
    if listing.returncode != 0:
        return False
    blobs: list[tuple[str, str]] = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha, size = meta.split()
        path = raw_path.decode("utf-8", "replace")
        if kind != b"blob" or mode == b"120000" or not size.isdigit() \
                or int(size) > max_bytes or not path.endswith(suffixes) \
                or ".." in Path(path).parts:
            continue
        blobs.append((sha.decode(), path))
    if root.exists():
        shutil.rmtree(root)
    (root / ".git").mkdir(parents=True)
    if blobs:
        cat = subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "--batch"],
                             input=b"".join(f"{sha}\n".encode() for sha, _ in blobs),
                             capture_output=True)
        data, at = cat.stdout, 0
        for _sha, path in blobs:
            header_end = data.index(b"\n", at)
            header = data[at:header_end].split()
            if len(header) != 3 or header[1] != b"blob":
                at = header_end + 1
                continue  # "missing": a blob the snapshot lacks (a partial clone)
            length = int(header[2])
            body = data[header_end + 1: header_end + 1 + length]
            at = header_end + 1 + length + 1
            dest = root / path
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(body)
    return True


def repo_tree(case: Case, cache: Path, repos: Path, mirrors: Path) -> Path | None:
    """The case's repository at its commit, laid out once under ``repos`` (its source, config
    and text files, see CONTEXT_SUFFIXES; the case's own files from the cache, whatever their
    size) with an empty .git at its root; None when no snapshot holds the commit."""
    owner, name = case.repo.split("/")
    root = repos / f"{owner}__{name}" / case.commit
    done = root / ".git" / "lrdoctor-score-complete"
    if not done.is_file():
        gitdir = _snapshot(case, mirrors)
        if gitdir is None:
            return None
        if not lay_out_tree(gitdir, case.commit, root, CONTEXT_SUFFIXES, CONTEXT_MAX_BYTES):
            return None
        done.write_text("")
    for path in case.paths:  # the files scored are the cache's, byte for byte
        dest = root / path
        source = case.cache_dir(cache) / path
        if not dest.is_file() or dest.read_bytes() != source.read_bytes():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
    return root


def run_in_repos(cases: list[Case], cache: Path, repos: Path, mirrors: Path,
                 lrdoctor: list[str]) -> tuple[list[Outcome], int]:
    """All cases in one CLI run, each case's files checked inside its repository's tree (see
    repo_tree); a case whose repository has no snapshot is laid out alone, as run_all does.
    Returns the outcomes and how many cases had no repository around them."""
    with tempfile.TemporaryDirectory(prefix="realcode-") as tmp:
        targets: list[str] = []
        alone = 0
        for i, case in enumerate(cases):
            # each case has a directory of its own (a link to its repository's tree): what
            # the check of its files finds, there, is the case's, in whichever file it lies
            # (a save helper in utils/ counts too)
            root = repo_tree(case, cache, repos, mirrors)
            if root is None:
                alone += 1
                lay_out(case, cache, Path(tmp, f"case{i:03d}"))
            else:
                os.symlink(root, Path(tmp, f"case{i:03d}"))
            # a config or launch script the case lists is read by the check, not checked
            targets += [os.path.join(f"case{i:03d}", p) for p in case.paths
                        if p.endswith((".py", ".ipynb"))]
        raw, error = run_lrdoctor(lrdoctor, tmp, targets, timeout=max(900, 6 * len(cases)))
    if error and not raw:
        return [Outcome(case, error=error) for case in cases], alone

    def case_of(path: str) -> int | None:
        head = os.path.normpath(path).split(os.sep)[0]
        return int(head[4:]) if head.startswith("case") and head[4:].isdigit() else None

    found: dict[int, list[Finding]] = {i: [] for i in range(len(cases))}
    failed: dict[int, str] = {}
    for f in raw:
        at = case_of(f["path"])
        if at is None:
            continue
        if f.get("code") is None:  # a file lrdoctor gave up on fails its case
            failed.setdefault(at, f"{f['path']}: {f.get('message', '')}")
        else:
            found[at].append(to_finding(f, prefix=f"case{at:03d}"))
    for line in error.splitlines():
        at = case_of(line.removeprefix("lrdoctor: "))
        if at is not None and "internal error" in line:
            failed.setdefault(at, line)
    return [Outcome(case, error=failed[i]) if i in failed else Outcome(case, found[i])
            for i, case in enumerate(cases)], alone


@dataclass
class Finding:
    code: str
    path: str
    line: int
    message: str


@dataclass
class Outcome:
    case: Case
    findings: list[Finding] = field(default_factory=list)
    error: str = ""


def lay_out(case: Case, cache: Path, root: Path) -> None:
    """The case's files under `root` as in a clone of its repository."""
    # A clone's .git marks the project root, from which the project's own modules are found
    # (`from core.utils import ...` in scripts/train.py).
    (root / ".git").mkdir(parents=True)
    for path in case.paths:
        dest = root / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(case.cache_dir(cache) / path, dest)


def run_lrdoctor(lrdoctor: list[str], cwd: str, targets: list[str],
                 timeout: int) -> tuple[list[dict], str]:
    """(findings as JSON objects, error text) of one `lrdoctor check --format json` run. A run
    where lrdoctor failed on some files (exit 2, "internal error" on stderr) still prints the
    findings of the others: both come back, so one bad file does not fail every case."""
    proc = subprocess.run([*lrdoctor, "check", "--format", "json", "--exit-zero", *targets],
                          cwd=cwd, capture_output=True, text=True, timeout=timeout)
    try:
        raw = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        raw = None
    if proc.returncode in (0, 1) and raw is not None:
        return raw, ""
    error = (proc.stderr or proc.stdout).strip()[-4000:] or f"exit {proc.returncode}"
    if proc.returncode == 2 and isinstance(raw, list):
        return raw, error
    if raw is None and proc.returncode in (0, 1):
        return [], f"not JSON: {proc.stdout[:200]!r}"
    return [], error[-400:]


def to_finding(raw: dict, prefix: str = "") -> Finding:
    path = os.path.normpath(raw["path"])
    if prefix and path.startswith(prefix + os.sep):
        path = path[len(prefix) + 1:]
    return Finding(raw["code"], path, int(raw.get("line") or 0), raw.get("message", ""))


def run_case(case: Case, cache: Path, lrdoctor: list[str]) -> Outcome:
    """One CLI run in a clone of its own (slower, but nothing shared between cases)."""
    with tempfile.TemporaryDirectory(prefix="realcode-") as tmp:
        lay_out(case, cache, Path(tmp))
        raw, error = run_lrdoctor(lrdoctor, tmp, ["."], timeout=120)
    if error:
        return Outcome(case, error=error)
    for f in raw:
        if f.get("code") is None:
            return Outcome(case, error=f"{f['path']}: {f.get('message', '')}")
    return Outcome(case, [to_finding(f) for f in raw])


def run_all(cases: list[Case], cache: Path, lrdoctor: list[str]) -> list[Outcome]:
    """All cases in one CLI run, each in its own clone directory (one process start)."""
    with tempfile.TemporaryDirectory(prefix="realcode-") as tmp:
        dirs = [f"case{i:03d}" for i in range(len(cases))]
        for case, name in zip(cases, dirs):
            lay_out(case, cache, Path(tmp, name))
        # a limit that grows with the cases: the whole dev half (about 870 cases) takes
        # 6-9 minutes on a loaded 2-core machine, and a run past the limit scores nothing
        raw, error = run_lrdoctor(lrdoctor, tmp, dirs, timeout=max(600, 3 * len(cases)))
    if error and not raw:
        return [Outcome(case, error=error) for case in cases]
    # lrdoctor failed on some files: those cases are errors, the others are scored
    failed: dict[str, str] = {}
    for line in error.splitlines():
        where = line.removeprefix("lrdoctor: ")
        if where.startswith("case") and "internal error" in where:
            failed.setdefault(where.split(os.sep, 1)[0], where)
    # a file lrdoctor itself gave up on (code null: an internal error, a recursion limit) fails
    # its case whatever stderr said: counted as "no finding" it would read as a correct silence
    for f in raw:
        if f.get("code") is None:
            path = os.path.normpath(f["path"])
            failed.setdefault(path.split(os.sep)[0], f"{path}: {f.get('message', '')}")
    found: dict[str, list[Finding]] = {name: [] for name in dirs}
    for f in raw:
        name = os.path.normpath(f["path"]).split(os.sep)[0]
        if name in found:
            found[name].append(to_finding(f, prefix=name))
    if error and not failed:
        return [Outcome(case, error=error) for case in cases]
    return [Outcome(case, error=failed[name]) if name in failed else Outcome(case, found[name])
            for case, name in zip(cases, dirs)]


@dataclass
class Tally:
    tp: int = 0
    fn: int = 0
    fp: int = 0
    line_known: int = 0  # true positives whose expected lines are given
    line_hit: int = 0  # ... of which a finding is on one of those lines

    def add(self, other: Tally) -> None:
        for name in ("tp", "fn", "fp", "line_known", "line_hit"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None


def judge(outcome: Outcome, by_code: dict[str, Tally] | None = None,
          ) -> tuple[Tally, Tally, list[str], list[str]]:
    """(main tally, LRD101 tally, misses, false alarms) of one case; with ``by_code``, also
    adds the case's counts to the tally of each code."""
    main, trivial = Tally(), Tally()
    per_code = by_code if by_code is not None else {}
    misses: list[str] = []
    alarms: list[str] = []
    found: dict[str, list[Finding]] = {}
    for f in outcome.findings:
        if not CODE_RE.match(f.code):
            # E999 and the like: lrdoctor could not check a file; not a diagnosis either way.
            alarms.append(f"NOT CHECKED {f.path}:{f.line}: {f.message}")
            continue
        found.setdefault(f.code, []).append(f)
    expected = {e.code: e for e in outcome.case.expected}
    for code, e in sorted(expected.items()):
        tally = trivial if code == TRIVIAL else main
        mine = per_code.setdefault(code, Tally())
        if code in found:
            tally.tp += 1
            mine.tp += 1
            if e.lines:
                tally.line_known += 1
                mine.line_known += 1
                where = {f"{f.path}:{f.line}" for f in found[code]}
                hit = bool(where & set(e.lines))
                tally.line_hit += hit
                mine.line_hit += hit
        else:
            tally.fn += 1
            mine.fn += 1
            at = f" at {', '.join(e.lines)}" if e.lines else ""
            misses.append(f"{code}{at}: {e.reason}")
    for code, fs in sorted(found.items()):
        if code in expected or code in outcome.case.uncertain:
            continue
        (trivial if code == TRIVIAL else main).fp += 1
        per_code.setdefault(code, Tally()).fp += 1
        for f in fs:
            alarms.append(f"{code} at {f.path}:{f.line}: {f.message}")
    return main, trivial, misses, alarms


def fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.2f}"


def summary_line(label: str, t: Tally) -> str:
    lines = f"{t.line_hit}/{t.line_known}" if t.line_known else "-"
    return (f"{label:<22} recall {fmt(t.recall())} ({t.tp}/{t.tp + t.fn})  "
            f"precision {fmt(t.precision())} ({t.tp}/{t.tp + t.fp})  lines {lines}")


def default_lrdoctor() -> list[str]:
    beside = Path(sys.executable).with_name("lrdoctor")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("lrdoctor")
    return [found] if found else [sys.executable, "-m", "lrdoctor"]


def print_labels(cases: list[Case], pattern: str) -> int:
    """Print the dev cases matching ``pattern``; held-out matches are counted, never shown."""
    try:
        rx = re.compile(pattern, re.I)
    except re.error as exc:
        print(f"score.py: bad --labels pattern: {exc}", file=sys.stderr)
        return 2
    hidden = 0
    for case in cases:
        text = "\n".join([case.id, case.note, *(f"{e.code} {e.reason}" for e in case.expected),
                          *(f"{c} {r}" for c, r in case.uncertain.items())])
        if not rx.search(text):
            continue
        if case.split != "dev":
            hidden += 1
            continue
        print(f"{case.id} [{case.batch or '-'}] {case.repo}@{case.commit[:10]}")
        if case.note:
            print(f"    note: {case.note}")
        for e in case.expected:
            print(f"    expected {e.code} at {', '.join(e.lines) or '?'}: {e.reason}")
        for code, reason in case.uncertain.items():
            print(f"    uncertain {code}: {reason}")
    print(f"({hidden} held-out case(s) matched too; not shown)", file=sys.stderr)
    return 0


def print_fetch_list(cases: list[Case], cache: Path) -> int:
    """The snapshots still needed, most incomplete cases first (ties: held-out cases first, as
    the held-out numbers are the ones a partial cache distorts most, then by name)."""
    needed: dict[str, list[Case]] = {}
    for case in cases:
        if missing_files(case, cache):
            needed.setdefault(case.fetched_from or case.repo, []).append(case)
    order = sorted(needed, key=lambda r: (-len(needed[r]),
                                          -sum(c.split == "heldout" for c in needed[r]), r))
    for repo in order:
        print(repo)
    print(f"{len(order)} repositories to fetch for {sum(map(len, needed.values()))} case(s)",
          file=sys.stderr)
    return 1 if order else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", choices=["dev", "heldout", "all"],
                    help="the cases to score (default dev); with --fetch-list, the cases "
                    "whose repositories to list (default all)")
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE,
                    help="where the fetched files are (default %(default)s)")
    ap.add_argument("--manifest", type=Path, default=MANIFEST)
    ap.add_argument("--lrdoctor", help="the lrdoctor executable to score (default: the one "
                    "beside this Python, else on PATH)")
    ap.add_argument("--list-missing", action="store_true",
                    help="print the files that must be fetched into the cache, then exit")
    ap.add_argument("--fetch-list", action="store_true",
                    help="print the repositories to `fetch` for the cases still missing files, "
                    "one `owner/name` a line, those that complete the most cases first (a "
                    "session may fetch 500 repositories; the manifest names more), then exit")
    ap.add_argument("--extract-from-mirrors", nargs="?", const=DEFAULT_MIRRORS, type=Path,
                    metavar="DIR", help="fill the cache from snapshots fetched into DIR "
                    "(default %(const)s), then exit")
    ap.add_argument("--show-heldout", action="store_true",
                    help="also print per-case details of held-out cases (not for whoever tunes)")
    ap.add_argument("--in-repo", nargs="?", const=DEFAULT_REPOS, type=Path, metavar="DIR",
                    help="check each case's files inside its whole repository at the pinned "
                    "commit (source, config and text files from the snapshots; laid out once "
                    "under DIR, default %(const)s), as a user checks a file of their clone")
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS,
                    help="where --in-repo finds the fetched snapshots (default %(default)s)")
    ap.add_argument("--per-case", action="store_true",
                    help="one lrdoctor process per case instead of one for all (slower)")
    ap.add_argument("--jobs", type=int, default=min(4, os.cpu_count() or 1),
                    help="parallel processes with --per-case")
    ap.add_argument("--batch", metavar="NAME",
                    help="score only the cases whose `batch` field is NAME (a round of new cases)")
    ap.add_argument("--by-code", action="store_true",
                    help="also print the summary line of each code, per split (counts only, "
                    "no case: allowed for held-out, to see where recall is lost)")
    ap.add_argument("--numbers-only", action="store_true",
                    help="print the summary lines only, no case's misses or false alarms (to "
                    "compare builds without reading other cases' labels)")
    ap.add_argument("--labels", metavar="REGEX",
                    help="print the labels and notes of the dev cases whose id, note, codes or "
                    "reasons match REGEX (case-insensitive), then exit; held-out cases are only "
                    "counted (the way to learn how earlier cases were labelled without a grep "
                    "over the manifest, which shows held-out labels too)")
    args = ap.parse_args(argv)

    try:
        cases = load_manifest(args.manifest)
    except (ManifestError, tomllib.TOMLDecodeError, OSError) as exc:
        print(f"score.py: bad manifest: {exc}", file=sys.stderr)
        return 2
    if args.labels is not None:
        return print_labels(cases, args.labels)
    if args.extract_from_mirrors:
        return 1 if extract_from_mirrors(cases, args.cache, args.extract_from_mirrors) else 0
    if args.fetch_list:
        return print_fetch_list([c for c in cases if args.split in (None, "all", c.split)],
                                args.cache)
    args.split = args.split or "dev"
    if args.list_missing:
        n = 0
        for case in cases:
            for path in missing_files(case, args.cache):
                n += 1
                print(f"{case.repo} {case.commit} {path} -> "
                      f"{case.cache_dir(args.cache) / path}")
        print(f"{n} file(s) missing", file=sys.stderr)
        return 1 if n else 0

    chosen = [c for c in cases if args.split in ("all", c.split)
              and (args.batch is None or c.batch == args.batch)]
    absent = [c for c in chosen if missing_files(c, args.cache)]
    if absent:
        print(f"score.py: {len(absent)} case(s) have files missing from {args.cache} "
              f"(run with --list-missing); skipping them", file=sys.stderr)
        chosen = [c for c in chosen if c not in absent]
    lrdoctor = [args.lrdoctor] if args.lrdoctor else default_lrdoctor()
    start = time.perf_counter()
    alone = 0
    if args.in_repo is not None:
        outcomes, alone = run_in_repos(chosen, args.cache, args.in_repo, args.mirrors, lrdoctor)
    elif args.per_case:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            outcomes = list(pool.map(lambda c: run_case(c, args.cache, lrdoctor), chosen))
    else:
        outcomes = run_all(chosen, args.cache, lrdoctor)
    elapsed = time.perf_counter() - start

    per_split: dict[str, tuple[Tally, Tally]] = {}
    codes: dict[str, dict[str, Tally]] = {}  # split -> code -> counts (--by-code)
    details: list[str] = []
    errors = 0
    unchecked: list[str] = []  # files of scored cases lrdoctor could not read or parse
    for outcome in outcomes:
        case = outcome.case
        if outcome.error:
            errors += 1
            details.append(f"{case.id} [{case.split}]: lrdoctor failed: {outcome.error}")
            continue
        unchecked += [f"{case.id} [{case.split}] {f.path}: {f.message}"
                      for f in outcome.findings if not CODE_RE.match(f.code)]
        main_t, triv_t, misses, alarms = judge(
            outcome, codes.setdefault(case.split, {}) if args.by_code else None)
        for key in (case.split, "all"):
            m, t = per_split.setdefault(key, (Tally(), Tally()))
            m.add(main_t)
            t.add(triv_t)
        if (case.split == "heldout" and not args.show_heldout) or args.numbers_only:
            continue
        if misses or alarms:
            details.append(f"{case.id} [{case.split}] {case.repo}@{case.commit[:10]}")
            details += [f"    miss  {m}" for m in misses]
            details += [f"    {'' if a.startswith('NOT CHECKED') else 'FALSE '}{a}" for a in alarms]

    print(f"lrdoctor: {' '.join(lrdoctor)}")
    print(f"{len(outcomes)} case(s) from {len({c.repo for c in chosen})} repositories, "
          f"checked in {elapsed:.1f}s" + (f", {errors} failed" if errors else "")
          + (f"; inside their repositories ({alone} without one: no snapshot)"
             if args.in_repo is not None else ""))
    for key in ("dev", "heldout", "all"):
        if key in per_split and (key != "all" or args.split == "all"):
            m, t = per_split[key]
            print(summary_line(f"{key}", m))
            print(summary_line(f"{key} (LRD101 only)", t))
    for key, per in sorted(codes.items()):
        for code, tally in sorted(per.items()):
            print(summary_line(f"{key} {code}", tally))
    if unchecked:
        # printed even with --numbers-only: a file that was not checked scores as silence
        print(f"{len(unchecked)} file(s) of scored cases not checked (unreadable or not Python "
              "3; their cases are scored as if lrdoctor found nothing there):")
        print("\n".join(f"    {u}" for u in unchecked))
    if details:
        print()
        print("\n".join(details))
    if errors:
        print(f"score.py: lrdoctor failed on {errors} case(s); the numbers above leave them out",
              file=sys.stderr)
    return 2 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
