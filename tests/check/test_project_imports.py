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
