"""A finding in a module that a notebook drives names the notebook's lines by cell (rcnew54,
bench/realcode/README.md, batch fresh-2026-12yh).

Programs written for these tests; no third-party code.

Kaggle solution notebooks put their project folder on ``sys.path`` and call a training loop
kept in a module; the scheduler is built in a cell. A finding in the module that named the
notebook (``handed to `metric` at train.ipynb:15``) gave the line of the joined cells, which no
editor shows, and LRD004 said ``ReduceLROnPlateau (line 7)`` for a plateau built in the
notebook, a line of the notebook read as one of the module. The module's finding now says the
notebook's cell and line (``train.ipynb (cell 3, line 7)``), as a finding in the notebook does,
and LRD004 names the file where the plateau is built when it is not the finding's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, notebook

MODULE = """
def update_lr(scheduler, metric):
    scheduler.step(metric)
"""

IMPORTS = """
import sys
sys.path.insert(0, "..")
import torch
from src.trainer import update_lr
"""

BUILD = """
model = torch.nn.Linear(8, 3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode={mode!r})
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
"""

TRAIN = """
for epoch in range(10):
    for x in loader:
        optimizer.zero_grad()
        model(torch.randn(8, 8)).sum().backward()
        optimizer.step()
    val_acc = float(torch.rand(1))
    update_lr(scheduler, val_acc)
"""


def _messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> list[str]:
    files = {"src/__init__.py": "", "src/trainer.py": MODULE,
             "notebooks/train.ipynb": notebook(IMPORTS, BUILD.format(mode=mode), TRAIN)}
    check_project(tmp_path, monkeypatch, files, ["notebooks/train.ipynb"])
    report = check_files(["notebooks/train.ipynb"], frozenset(CATALOG), jobs=1)
    return [d.message for d in report.diagnostics if d.path.endswith("trainer.py")]


def test_the_module_finding_names_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (message,) = _messages(tmp_path, monkeypatch, "min")
    assert message.startswith("ReduceLROnPlateau (notebooks/train.ipynb (cell 2, line 3)) "
                              "watches `val_acc` (handed to `metric` at notebooks/train.ipynb "
                              "(cell 3, line 7))")
    assert "ipynb:" not in message


def test_the_right_mode_has_no_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _messages(tmp_path, monkeypatch, "max") == []
