"""Directories a driver puts on ``sys.path`` relative to its own file (rcnew57,
bench/realcode/README.md, batch fresh-2026-12yk).

Programs written for these tests; no third-party code.

Research trainers keep the training code in a ``lib/`` (or ``common/``) directory and make it
importable from ``tools/train.py`` with ``sys.path.insert(0, os.path.join(os.path.dirname(
os.path.abspath(__file__)), '..', 'lib'))``, through a name bound first (``this_dir =
osp.dirname(__file__)``), or with pathlib (``Path(__file__).resolve().parent.parent /
'lib'``); then ``from trainer import Trainer``. Only literal entries were read, so a single-name
import from such a directory stayed unresolved and whatever the imported class does was not
checked. Such an entry is now read as the directory it names, from the file's own place.
Silent twins: the same layout with correct code, and an entry computed from a setting.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loader, epochs):
        self.model = model
        self.loader = loader
        self.epochs = epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
{batch_step}
{epoch_step}
"""

DRIVER = """
import os
import os.path as osp
import sys
from pathlib import Path
{setup}
import torch
from trainer import Trainer


def main():
    model = torch.nn.Linear(8, 2)
    loader = torch.utils.data.DataLoader(torch.randn(64, 8), batch_size=8)
    Trainer(model, loader, 90).fit()


if __name__ == "__main__":
    main()
"""

SPELLINGS = [
    "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))",
    "this_dir = osp.dirname(__file__)\nlib_path = osp.join(this_dir, '..', 'lib')\n"
    "sys.path.insert(0, lib_path)",
    "sys.path.append(str(Path(__file__).resolve().parent.parent / 'lib'))",
    "ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))\n"
    "sys.path.append(os.path.join(ROOT, 'lib'))",
    "sys.path.insert(0, str(Path(__file__).parents[1] / 'lib'))",
]


def _files(setup: str, per_batch: bool) -> dict[str, str]:
    return {
        "tools/train.py": DRIVER.format(setup=setup),
        "lib/trainer.py": TRAINER.format(
            batch_step="                self.scheduler.step()" if per_batch else "",
            epoch_step="" if per_batch else "            self.scheduler.step()"),
    }


@pytest.mark.parametrize("setup", SPELLINGS)
def test_import_through_a_file_relative_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              setup: str) -> None:
    found = check_project(tmp_path, monkeypatch, _files(setup, per_batch=True),
                          checked=["tools/train.py"])
    assert "LRD002" in project_codes(found)


@pytest.mark.parametrize("setup", SPELLINGS[:2])
def test_correct_code_behind_the_entry_is_silent(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 setup: str) -> None:
    found = check_project(tmp_path, monkeypatch, _files(setup, per_batch=False),
                          checked=["tools/train.py"])
    assert project_codes(found) == []


def test_an_entry_from_a_setting_is_not_read(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    setup = "sys.path.insert(0, os.environ.get('LIB_DIR', ''))"
    found = check_project(tmp_path, monkeypatch, _files(setup, per_batch=True),
                          checked=["tools/train.py"])
    assert "LRD002" not in project_codes(found)
