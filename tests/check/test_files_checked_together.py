"""A file's findings do not depend on which files the same process checked before it: the
project modules kept between files (to save parsing) are not the modules that file read, and
what the rules look through is only what the file itself read."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.check.diagnostic import CATALOG
from lrdoctor.check.runner import check_files

# another project, checked first: its helper module (read while checking its driver) calls a
# function of the same name as the second project's restore helper
FIRST = {
    "utils.py": """
        import torch


        def load_model(model, path):
            model.load_state_dict(torch.load(path))


        def warm_start(model, path):
            load_model(model, path)
            return model
        """,
    "train.py": """
        import torch
        from utils import warm_start


        def main(model, loader):
            model = warm_start(model, "init.pt")
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            for epoch in range(90):
                for x in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
        """,
}

# the resume restores the optimizer through a helper called once; the scheduler is neither
# saved nor restored
SECOND = {
    "train.py": """
        import torch


        def load_model(model, optimizer, path):
            state = torch.load(path)
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optimizer"])


        def main(model, loader, resume):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 30)
            if resume:
                load_model(model, optimizer, resume)
            for epoch in range(90):
                for x in loader:
                    optimizer.zero_grad()
                    model(x).sum().backward()
                    optimizer.step()
                scheduler.step()
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                           "last.pt")
        """,
}


def _project(root: Path, files: dict[str, str]) -> list[str]:
    (root / ".git").mkdir(parents=True)
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return [str(root / name) for name in sorted(files)]


def _found(report, prefix: str) -> list[tuple[str, int]]:
    return sorted((d.code, d.line) for d in report.diagnostics if d.path.startswith(prefix))


def test_findings_of_a_file_are_the_same_after_another_projects_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    first = _project(tmp_path / "a", FIRST)
    second = _project(tmp_path / "b", SECOND)
    alone = check_files([str(Path(p).relative_to(tmp_path)) for p in second],
                        frozenset(CATALOG), jobs=1)
    together = check_files([str(Path(p).relative_to(tmp_path)) for p in first + second],
                           frozenset(CATALOG), jobs=1)
    # the resume inside the helper (line 7) and the checkpoint (line 21), both times: the
    # first project's `load_model(model, path)` call is no call of this project's helper
    assert _found(alone, "b") == [("LRD007", 7), ("LRD007", 21)]
    assert _found(together, "b") == _found(alone, "b")
