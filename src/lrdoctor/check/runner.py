"""Checking many files: in this process for a handful, on every core for more.

Files are dealt out to a process pool in chunks of neighbouring paths (the files of one
directory import the same project modules); each worker keeps one loader for every chunk it
checks: the project modules it parsed and the inert traces it kept (see inert.py) serve the
files of its later chunks too. A few files never pay for starting a pool.
"""

from __future__ import annotations

import gc
import itertools
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
# chunks per worker process: enough that a chunk of slow files does not keep one worker busy
# long after the other has finished
CHUNKS_PER_JOB = 16


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
                 progress: Callable[[int], None] | None = None,
                 loader: ProjectLoader | None = None) -> list[FileResult]:
    loader = loader or ProjectLoader()
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


# a pool worker's loader, kept between the chunks of one run it checks, with the run it
# serves: a later run (the files may have changed since) starts a loader of its own
_worker_loader: tuple[object, ProjectLoader] | None = None
_runs = itertools.count()


def _check_pooled(paths: list[str], codes: frozenset[str], run: object) -> list[FileResult]:
    """``_check_chunk`` in a pool worker, with the loader of the worker's earlier chunks of
    the same ``run`` (a key check_files makes once per call)."""
    global _worker_loader
    if _worker_loader is None or _worker_loader[0] != run:
        _worker_loader = (run, ProjectLoader())
    return _check_chunk(paths, codes, loader=_worker_loader[1])


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
    chunks = _neighbour_chunks(paths, sizes, min(len(paths), jobs * CHUNKS_PER_JOB))
    method = "fork" if sys.platform.startswith("linux") else "spawn"
    context = multiprocessing.get_context(method)
    by_index: dict[int, FileResult] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        # (the key names this process too: a forked worker of another run's process never
        # takes a loader it inherited)
        run = (os.getpid(), next(_runs))
        futures = {pool.submit(_check_pooled, [paths[i] for i in chunk], codes, run): chunk
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


def _neighbour_chunks(paths: list[str], sizes: list[int], n_chunks: int) -> list[list[int]]:
    """The indices of ``paths`` cut into ``n_chunks`` runs of neighbouring paths (in sorted
    order) of about equal size: the files of one directory, which import the same project
    modules, are checked by one worker, with one loader (and its parsed modules and inert
    traces), rather than dealt out to every worker. Each file adds its size and 2,000 bytes
    (a small file still costs a parse and a look at its imports)."""
    order = sorted(range(len(paths)), key=lambda i: paths[i])
    total = sum(sizes[i] + 2000 for i in order)
    chunks: list[list[int]] = [[]]
    done = 0
    for index in order:
        # a new chunk each time the running total passes the next n-th of the whole
        if chunks[-1] and done >= total * len(chunks) / n_chunks:
            chunks.append([])
        chunks[-1].append(index)
        done += sizes[index] + 2000
    return chunks


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
    # likewise a Lightning schedule returned without "interval": "step" that the module also
    # steps by hand after every batch (LRD012 at that call): it runs through its horizon at
    # one step per batch, whichever file's trace reported the return
    by_hand = {d.evidence.get("scheduler") for d in report.diagnostics
               if d.code == "LRD012" and d.evidence.get("by_hand") == "batch"}
    report.diagnostics = [d for d in report.diagnostics
                          if d.code != "LRD003" or ((d.path, d.cell, d.line, d.col) not in doubled
                                                    and d.evidence.get("scheduler") not in by_hand)]
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
    if diag.code in TEXT_CODES or diag.own_file:
        return False
    around = [(first, last) for first, last in reached.get(diag.path, ())
              if first <= diag.line <= last]
    if not around:
        return False
    first, last = max(around)
    return (diag.path, first, last) in spans
