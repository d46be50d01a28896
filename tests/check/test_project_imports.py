"""Calls followed into other modules of the checked project."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.check.engine import check_file


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_scheduler_built_in_train_py_is_judged_where_the_package_steps_it(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    write(tmp_path / "src/demo/__init__.py", "")
    write(tmp_path / "src/demo/loops.py", """
        from .steps import step_all

        def train(model, loader, optimizer, scheduler, epochs):
            for epoch in range(epochs):
                for batch in loader:
                    model(batch).sum().backward()
                    step_all(optimizer, scheduler)
    """)
    write(tmp_path / "src/demo/steps.py", """
        def step_all(optimizer, scheduler):
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
    """)
    write(tmp_path / "scripts/train.py", """
        import torch
        from demo.loops import train

        model = torch.nn.Linear(4, 1)
        loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
        train(model, loader, optimizer, scheduler, epochs=90)
    """)
    result = check_file(str(tmp_path / "scripts/train.py"))
    assert result.errors == []
    [diag] = result.diagnostics
    assert diag.code == "LRD002"
    assert diag.path.endswith("src/demo/steps.py") and diag.line == 5
    assert "MultiStepLR(milestones=[30, 60])" in diag.message


def test_the_package_alone_says_nothing_it_cannot_know(tmp_path: Path) -> None:
    write(tmp_path / "steps.py", """
        def step_all(optimizer, scheduler):
            optimizer.step()
            scheduler.step()
    """)
    assert check_file(str(tmp_path / "steps.py")).diagnostics == []


def test_imports_outside_the_project_are_not_read(tmp_path: Path) -> None:
    write(tmp_path / "train.py", """
        import torch
        from torch.optim.lr_scheduler import StepLR
        from some_missing_package import helper
        helper(StepLR(torch.optim.SGD([], lr=0.1), 3))
    """)
    result = check_file(str(tmp_path / "train.py"))
    assert result.errors == [] and result.diagnostics == []


def test_every_driver_of_a_large_project_follows_its_imports(tmp_path: Path) -> None:
    # one process checks all of them: the modules read for the first drivers must not use up
    # what the last ones may follow
    from lrdoctor.check.runner import check_files

    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'many'\n")
    drivers = []
    for i in range(70):
        write(tmp_path / f"steps_{i}.py", """
            def step_all(optimizer, scheduler):
                optimizer.step()
                scheduler.step()
        """)
        write(tmp_path / f"train_{i}.py", f"""
            import torch
            from steps_{i} import step_all

            model = torch.nn.Linear(4, 1)
            loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
            for epoch in range(90):
                for batch in loader:
                    model(batch).sum().backward()
                    step_all(optimizer, scheduler)
        """)
        drivers.append(str(tmp_path / f"train_{i}.py"))
    report = check_files(drivers, frozenset({"LRD002"}), jobs=1)
    assert len(report.diagnostics) == 70
    assert report.notes == []


def test_a_trace_through_too_many_modules_says_it_was_cut_short(tmp_path: Path) -> None:
    chain = 70
    for i in range(chain):
        call = f"    from link_{i + 1} import run as next_run\n    next_run(optimizer)\n" \
            if i + 1 < chain else "    optimizer.step()\n"
        (tmp_path / f"link_{i}.py").write_text(f"def run(optimizer):\n{call}")
    write(tmp_path / "train.py", """
        import torch
        from link_0 import run

        optimizer = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
        run(optimizer)
        scheduler.step()
    """)
    result = check_file(str(tmp_path / "train.py"))
    assert any("only partly analysed" in note for note in result.notes)


def _flows(path: Path) -> bool:
    """Whether the file's imports reach project code that steps, saves or loads something."""
    import ast

    from lrdoctor.check.context import FLOW_TRIGGER
    from lrdoctor.check.index import ModuleInfo
    from lrdoctor.check.project import ProjectLoader

    module = ModuleInfo.build(str(path), ast.parse(path.read_text()))
    return ProjectLoader().imports_matching(module, FLOW_TRIGGER)


def _library(tmp_path: Path) -> None:
    """A package whose __init__ re-exports a seeding helper, a constant and a dataset from
    modules that also hold, elsewhere, code that saves or steps."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'lib'\n")
    write(tmp_path / "lib/__init__.py", """
        from .misc import MAX_SEED, set_seed
        from .data import CachedDataset, ListDataset
        from .engine import *
    """)
    write(tmp_path / "lib/misc.py", """
        import random
        import torch

        MAX_SEED = 2 ** 32

        def _clip(seed):
            return seed % MAX_SEED

        def set_seed(seed):
            random.seed(_clip(seed))

        def save_everything(obj, path):
            torch.save(obj, path)
    """)
    write(tmp_path / "lib/base.py", """
        import torch

        class DiskCache:
            def put(self, item, path):
                torch.save(item, path)
    """)
    write(tmp_path / "lib/data.py", """
        from .base import DiskCache

        class ListDataset:
            def __init__(self, items):
                self.items = list(items)

        class CachedDataset(DiskCache):
            pass
    """)
    write(tmp_path / "lib/engine.py", """
        def _advance(optimizer, scheduler):
            optimizer.step()
            scheduler.step()

        def train(model, loader, optimizer, scheduler):
            for batch in loader:
                model(batch).sum().backward()
                _advance(optimizer, scheduler)
    """)


def test_an_import_flows_only_through_what_the_imported_name_runs(tmp_path: Path) -> None:
    # `set_seed` and `MAX_SEED` live beside a function that saves, and `ListDataset` beside a
    # class whose base saves: none of them does, so a file using them is not a training file
    # (in a large library nearly every file imported such a package, and each was traced)
    _library(tmp_path)
    write(tmp_path / "tests/test_data.py", """
        from lib import MAX_SEED, ListDataset, set_seed

        def test_items():
            set_seed(MAX_SEED - 1)
            assert ListDataset([1, 2]).items == [1, 2]
    """)
    assert not _flows(tmp_path / "tests/test_data.py")


def test_an_import_flows_through_base_classes_helpers_and_star_reexports(tmp_path: Path) -> None:
    _library(tmp_path)
    write(tmp_path / "cache_user.py", "from lib import CachedDataset\nCachedDataset()\n")
    assert _flows(tmp_path / "cache_user.py")  # its base class saves
    write(tmp_path / "module_user.py", "import lib\nlib.set_seed(0)\n")
    assert _flows(tmp_path / "module_user.py")  # a whole package stands for all it re-exports
    write(tmp_path / "driver.py", """
        import torch
        from lib import train

        model = torch.nn.Linear(4, 1)
        loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
        for epoch in range(90):
            train(model, loader, optimizer, scheduler)
    """)
    # `train` comes through the star re-export and steps through a helper of its module
    assert _flows(tmp_path / "driver.py")
    result = check_file(str(tmp_path / "driver.py"))
    assert [(d.code, Path(d.path).name, d.line) for d in result.diagnostics] == [("LRD002", "engine.py", 4)]
