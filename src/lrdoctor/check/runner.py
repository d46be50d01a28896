"""Checking many files: in this process for a handful, on every core for more.

Files are dealt out in chunks, largest first, to a process pool; each worker keeps its own
cache of parsed project modules. A few files never pay for starting a pool.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from lrdoctor.check.diagnostic import Diagnostic, Problem
from lrdoctor.check.engine import FileResult, check_file
from lrdoctor.check.project import ProjectLoader

# below this much source, a pool costs more than it saves
PARALLEL_MIN_FILES = 16
PARALLEL_MIN_BYTES = 1_500_000


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files: int = 0
    lines: int = 0
    # files and notebook cells that were not checked, in path order
    problems: list[Problem] = field(default_factory=list)
    # said on stderr; nothing was lost (a worker died and its files were rechecked here)
    notes: list[str] = field(default_factory=list)

    @property
    def unchecked(self) -> int:
        """Files not checked at all (a notebook with one broken cell was still checked)."""
        return len({p.path for p in self.problems if p.whole_file})


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def _check_chunk(paths: list[str], codes: frozenset[str],
                 progress: Callable[[int], None] | None = None) -> list[FileResult]:
    loader = ProjectLoader()
    out = []
    # ASTs are large acyclic object graphs: generational GC passes over them cost as much as
    # parsing; collect explicitly between files instead
    enabled = gc.isenabled()
    gc.disable()
    try:
        for path in paths:
            out.append(_check_one(path, codes, loader))
            if progress is not None:
                progress(len(out))
            if len(out) % 64 == 0:
                gc.collect(1)
    finally:
        if enabled:
            gc.enable()
    return out


def _check_one(path: str, codes: frozenset[str], loader: ProjectLoader) -> FileResult:
    try:
        return check_file(path, codes, loader)
    except Exception as exc:  # noqa: BLE001 - never lose the other files of the chunk
        result = FileResult(path)
        result.skip(Problem(None, path, f"internal error ({type(exc).__name__}: {exc}); please "
                                        "report it at lrdoctor's issue tracker (file not checked)"))
        return result


def _sizes(paths: list[str]) -> list[int]:
    sizes = []
    for p in paths:
        try:
            sizes.append(os.path.getsize(p))
        except OSError:
            sizes.append(0)
    return sizes


def check_files(paths: list[str], codes: frozenset[str], jobs: int | None = None,
                progress: Callable[[int], None] | None = None) -> Report:
    """Check ``paths``; results come back in the order of ``paths``. ``progress(done)`` is
    called as files finish (for a progress bar)."""
    jobs = jobs or cpu_count()
    sizes = _sizes(paths)
    parallel = jobs > 1 and len(paths) >= PARALLEL_MIN_FILES and sum(sizes) >= PARALLEL_MIN_BYTES
    results: list[FileResult]
    notes: list[str] = []
    if not parallel:
        results = _check_chunk(paths, codes, progress)
    else:
        results = _check_parallel(paths, sizes, codes, jobs, notes, progress)
    report = merge_results(results)
    report.notes[:0] = notes
    return report


def _check_parallel(paths: list[str], sizes: list[int], codes: frozenset[str],
                    jobs: int, notes: list[str] | None = None,
                    progress: Callable[[int], None] | None = None) -> list[FileResult]:
    n_chunks = min(len(paths), jobs * 8)
    chunks: list[list[int]] = [[] for _ in range(n_chunks)]
    loads = [0] * n_chunks
    for index in sorted(range(len(paths)), key=lambda i: -sizes[i]):
        target = loads.index(min(loads))
        chunks[target].append(index)
        loads[target] += sizes[index] + 2000
    chunks = [c for c in chunks if c]
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    by_index: dict[int, FileResult] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(_check_chunk, [paths[i] for i in chunk], codes): chunk
                   for chunk in sorted(chunks, key=lambda c: -sum(sizes[i] for i in c))}
        for future in as_completed(futures):
            chunk = futures[future]
            try:
                for index, result in zip(chunk, future.result()):
                    by_index[index] = result
            except Exception as exc:  # noqa: BLE001 - a worker died: check its files here instead
                for index, result in zip(chunk, _check_chunk([paths[i] for i in chunk], codes)):
                    by_index[index] = result
                if notes is not None:
                    notes.append(f"a worker process failed ({exc}); its {len(chunk)} files "
                                 "were rechecked in the main process")
            if progress is not None:
                progress(len(by_index))
    return [by_index[i] for i in range(len(paths))]


def merge_results(results: Iterable[FileResult]) -> Report:
    results = list(results)
    report = Report()
    seen: dict[tuple[str, str, int | None, int, int], int] = {}  # key -> place in the report
    yielded = _yielded_roots(results)
    # the traces that entered each function of another file (Program.entered)
    enterers: dict[tuple[str, int], list[FileResult]] = {}
    for result in results:
        for key in result.entered:
            enterers.setdefault(key, []).append(result)
    for result in results:
        report.files += 1
        report.lines += result.lines
        report.errors.extend(result.errors)
        report.problems.extend(result.problems)
        report.notes.extend(result.notes)
        spans = yielded.get(result.path)
        if spans:
            reached: dict[str, list[tuple[int, int]]] = {}
            roots: dict[tuple[str, int, int], frozenset[tuple[str, int] | None]] = {}
            for path, first, last, by in result.reached:
                reached.setdefault(path, []).append((first, last))
                roots[path, first, last] = by
        for diag in result.diagnostics:
            if spans and _yields(diag, spans, reached) \
                    and not _left_out_by_enterers(diag, roots, reached, enterers):
                continue
            if diag.key not in seen:
                seen[diag.key] = len(report.diagnostics)
                report.diagnostics.append(diag)
            elif diag.weight > report.diagnostics[seen[diag.key]].weight:
                # another file's trace saw more at this place (the subclass that steps the
                # GradScaler, where the base class traced alone did not)
                report.diagnostics[seen[diag.key]] = diag
    # a call some trace saw stepped at two levels (LRD012: per epoch here, and after every
    # update in a subclass's training step) is not "stepped once per epoch" (LRD003) because
    # another trace, the base class's alone, could not see the batch step
    doubled = {(d.path, d.cell, d.line, d.col) for d in report.diagnostics if d.code == "LRD012"}
    report.diagnostics = [d for d in report.diagnostics
                          if d.code != "LRD003" or (d.path, d.cell, d.line, d.col) not in doubled]
    report.diagnostics.sort(key=lambda d: (d.path, d.cell or 0, d.line, d.col, d.code))
    report.problems.sort(key=lambda p: (p.path, p.cell or 0, p.line, p.col))
    return report


# findings about the text itself (a deprecated API; a float16 loss back-propagated unscaled in
# the function that computes it, LRD111), the same whoever calls the code: no caller's trace
# makes them, so a file never leaves them to another
TEXT_CODES = frozenset({"LRD101", "LRD111"})


def _yielded_roots(results: list[FileResult]) -> dict[str, list[tuple[str, int, int]]]:
    """Per checked file, the functions whose findings it leaves to another file's trace.

    A file's function that nothing in the file calls is traced as a root, its parameters
    guessed from their names: a trainer's `train(model, optimizer, scheduler, ...)` knows
    nothing of what its caller built. When another checked file calls it with arguments (or
    on an instance it built) and its trace went through the whole body, that trace knows the
    objects: a scheduler rebuilt on resume with `last_epoch=`, a scaler that is disabled. The
    findings inside such a function are that trace's to make when every root that reached
    the function here was itself entered so; a finding the caller's trace makes too is kept
    from there (same location, same code). Returned as (path, first line, last line)."""
    entered: set[tuple[str, int]] = set()
    for result in results:
        entered |= result.entered
    if not entered:
        return {}
    out: dict[str, list[tuple[str, int, int]]] = {}
    for result in results:
        for path, first, last, roots in result.reached:
            if (path, first) in entered and all(r is not None and r in entered for r in roots):
                out.setdefault(result.path, []).append((path, first, last))
    return out


def _left_out_by_enterers(
        diag: Diagnostic, roots: dict[tuple[str, int, int], frozenset[tuple[str, int] | None]],
        reached: dict[str, list[tuple[int, int]]],
        enterers: dict[tuple[str, int], list[FileResult]]) -> bool:
    """Whether every trace that entered one of the roots behind ``diag`` left its line out, a
    branch decided by an option its caller did not pass (`fit(loader)` never resumes; the
    function's `if checkpoint: optimizer.load_state_dict(...)` is there for the callers that
    do): those traces saw nothing there, so the finding of the trace that ran it stands."""
    around = [(first, last) for first, last in reached.get(diag.path, ())
              if first <= diag.line <= last]
    if not around:
        return False
    first, last = max(around)
    for root in roots.get((diag.path, first, last), frozenset()):
        if root is None:
            continue
        entering = enterers.get(root, [])
        if entering and all(
                any(path == diag.path and start <= diag.line <= end
                    for path, start, end in other.skipped)
                for other in entering):
            return True
    return False


def _yields(diag: Diagnostic, spans: list[tuple[str, int, int]],
            reached: dict[str, list[tuple[int, int]]]) -> bool:
    """Whether the innermost traced function around ``diag`` is one of ``spans``."""
    if diag.code in TEXT_CODES:
        return False
    around = [(first, last) for first, last in reached.get(diag.path, ())
              if first <= diag.line <= last]
    if not around:
        return False
    first, last = max(around)
    return (diag.path, first, last) in spans
