"""A whole-repository run deals its files out to worker processes in chunks of neighbouring
paths, and each worker keeps one loader (parsed project modules, inert traces) for all the
chunks of that run it checks. What a worker keeps serves only that run: a later run sees the
files as they are then. The same module-wide answers a rule or the tracer asks again and again
(a module's top-level bindings, its ``if`` statements, a function's nodes) are found once."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from lrdoctor.check import STATIC_CODES, runner
from lrdoctor.check.index import ModuleInfo
from lrdoctor.check.memo import nodes_in
from lrdoctor.check.runner import _check_parallel, _check_pooled, _neighbour_chunks, merge_results

CODES = frozenset(STATIC_CODES)

HELPER_EPOCH = """
    from torch.optim.lr_scheduler import StepLR


    def make_scheduler(optimizer):
        return StepLR(optimizer, step_size=30)
"""

# sized in batches: stepping it every batch is right
HELPER_BATCH = """
    from torch.optim.lr_scheduler import OneCycleLR


    def make_scheduler(optimizer):
        return OneCycleLR(optimizer, max_lr=0.1, total_steps=10_000)
"""

DRIVER = """
    import torch

    from helper import make_scheduler


    def train_{n}(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = make_scheduler(optimizer)
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                loss = model(x).sum()
                loss.backward()
                optimizer.step()
                scheduler.step()
"""


def _project(tmp_path: Path, helper: str, drivers: int = 20) -> list[str]:
    (tmp_path / "helper.py").write_text(textwrap.dedent(helper))
    paths = []
    for n in range(drivers):
        path = tmp_path / f"train_{n:02d}.py"
        path.write_text(textwrap.dedent(DRIVER.format(n=n)))
        paths.append(str(path))
    return paths


def _codes(results: list) -> list[tuple[str, str]]:
    return [(Path(d.path).name, d.code) for d in merge_results(results).diagnostics]


def test_chunks_are_runs_of_neighbouring_paths_that_cover_every_file_once() -> None:
    paths = [f"{d}/m{i}.py" for i in range(10) for d in ("b", "a", "c")]  # interleaved
    sizes = [100 * (i % 7) for i in range(len(paths))]
    chunks = _neighbour_chunks(paths, sizes, 6)
    assert sorted(i for c in chunks for i in c) == list(range(len(paths)))
    assert 1 < len(chunks) <= 6
    in_order = [paths[i] for c in chunks for i in c]
    assert in_order == sorted(paths)  # each chunk a run of the sorted paths, in order
    # a directory of 10 files spans at most 3 of the 6 chunks of ~5 files
    for d in "abc":
        assert sum(any(paths[i].startswith(d) for i in c) for c in chunks) <= 3


def test_one_chunk_per_file_when_there_are_as_many_chunks_as_files() -> None:
    paths = ["x/a.py", "x/b.py", "y/c.py"]
    assert _neighbour_chunks(paths, [0, 0, 0], 3) == [[0], [1], [2]]
    assert _neighbour_chunks(["a.py"], [10], 1) == [[0]]


def test_a_worker_keeps_its_loader_for_the_chunks_of_one_run(tmp_path: Path) -> None:
    paths = _project(tmp_path, HELPER_EPOCH, drivers=4)
    try:
        first = _check_pooled(paths[:2], CODES, ("test", 1))
        assert runner._worker_loader is not None
        loader = runner._worker_loader[1]
        helper = str(tmp_path / "helper.py")
        assert any(p is not None and p.path == helper for p in loader.modules.values())
        second = _check_pooled(paths[2:], CODES, ("test", 1))
        assert runner._worker_loader[1] is loader  # the same loader: the helper parsed once
        assert _codes(first + second) == [(Path(p).name, "LRD002") for p in paths]
        _check_pooled(paths[:1], CODES, ("test", 2))
        assert runner._worker_loader[1] is not loader  # another run: a loader of its own
    finally:
        runner._worker_loader = None


def test_a_changed_helper_changes_its_importers_findings_in_the_next_run(
        tmp_path: Path) -> None:
    paths = _project(tmp_path, HELPER_EPOCH)
    sizes = runner._sizes(paths)
    try:
        before = _codes(_check_parallel(paths, sizes, CODES, jobs=2))
        assert before == [(Path(p).name, "LRD002") for p in paths]
        # the same process's worker, in a later run: it does not keep the old helper
        assert _codes(_check_pooled(paths, CODES, ("test", 1))) == before
        (tmp_path / "helper.py").write_text(textwrap.dedent(HELPER_BATCH))
        assert _codes(_check_pooled(paths, CODES, ("test", 2))) == []
        assert _codes(_check_parallel(paths, sizes, CODES, jobs=2)) == []
    finally:
        runner._worker_loader = None


def test_the_parallel_run_matches_the_serial_one_on_a_shared_helper(tmp_path: Path) -> None:
    paths = _project(tmp_path, HELPER_EPOCH)
    serial = runner.check_files(paths, CODES, jobs=1)
    parallel = merge_results(_check_parallel(paths, runner._sizes(paths), CODES, jobs=2))
    assert [d.to_dict() for d in parallel.diagnostics] == [d.to_dict() for d in serial.diagnostics]


def test_a_modules_top_level_bindings_are_found_once() -> None:
    tree = ast.parse(textwrap.dedent("""
        EPOCHS = ("StepLR", "MultiStepLR")
        for i in range(3):
            pass
        def f():
            EPOCHS = None
        x = y = 1
    """))
    info = ModuleInfo.build("m.py", tree)
    assert info.binders is None
    found = info.top_level_binders("EPOCHS")
    assert found == (tree.body[0], tree.body[2])  # the function's local binding counts too
    assert info.binders is not None
    kept = info.binders
    assert info.top_level_binders("i") == (tree.body[1],)
    assert info.top_level_binders("y") == (tree.body[3],)
    assert info.top_level_binders("missing") == ()
    assert info.binders is kept  # answered from the one pass


def test_a_trees_nodes_are_walked_once() -> None:
    tree = ast.parse("def f(a):\n    return [b for b in a]\n")
    fn = tree.body[0]
    nodes = nodes_in(fn)
    assert nodes == tuple(ast.walk(fn))
    assert nodes_in(fn) is nodes
