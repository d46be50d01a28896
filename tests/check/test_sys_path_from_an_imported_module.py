"""Directories a project module puts on ``sys.path`` when the driver imports it (paths2,
bench/realcode/README.md).

Programs written for these tests; no third-party code.

Detection, pose and tracking trainers keep their training code under ``lib/`` and start the
driver with ``import _init_paths``: a module beside it whose top level adds ``lib/`` to
``sys.path`` (through a small ``add_path(path)`` helper or ``sys.path.insert`` directly, the
directory built from its own ``__file__``); the driver's next imports (``from trainer import
Trainer``) are found there. Only the driver's own additions were read, so such an import
stayed unresolved and what the imported class does was not checked. The additions of an
imported project module now count for the importer's imports. Silent: the same layout with
correct code, an addition in an ``if`` arm that never runs, and a directory that does not
exist.
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

HELPER = """
import os.path as osp
import sys


def add_path(path):
    if path not in sys.path:
        sys.path.insert(0, path)


this_dir = osp.dirname(__file__)
{body}
"""

# (the driver's import line, the module it imports, that module's text)
LAYOUTS = {
    "helper": ("import _init_paths", "tools/_init_paths.py",
               HELPER.format(body="lib_path = osp.join(this_dir, '..', 'lib')\n"
                                  "add_path(lib_path)")),
    "direct": ("import init_paths", "tools/init_paths.py",
               "import os\nimport sys\n"
               "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),"
               " '..', 'lib'))\n"),
    "pathlib": ("import _init_paths  # noqa: F401", "tools/_init_paths.py",
                "import sys\nfrom pathlib import Path\n"
                "sys.path.append(str(Path(__file__).resolve().parents[1] / 'lib'))\n"),
    "package submodule": ("from paths import add_lib", "tools/paths/add_lib.py",
                          "import os.path as osp\nimport sys\n"
                          "sys.path.insert(0, osp.join(osp.dirname(__file__), '..', '..',"
                          " 'lib'))\n"),
}


def _files(layout: str, per_batch: bool, init_text: str | None = None) -> dict[str, str]:
    line, init_path, text = LAYOUTS[layout]
    files = {
        "tools/train.py": DRIVER.format(setup=line),
        init_path: text if init_text is None else init_text,
        "lib/trainer.py": TRAINER.format(
            batch_step="                self.scheduler.step()" if per_batch else "",
            epoch_step="" if per_batch else "            self.scheduler.step()"),
    }
    if layout == "package submodule":
        files["tools/paths/__init__.py"] = ""
    return files


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_import_through_an_imported_modules_entry(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  layout: str) -> None:
    found = check_project(tmp_path, monkeypatch, _files(layout, per_batch=True),
                          checked=["tools/train.py"])
    assert "LRD002" in project_codes(found)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_correct_code_behind_the_imported_entry_is_silent(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          layout: str) -> None:
    found = check_project(tmp_path, monkeypatch, _files(layout, per_batch=False),
                          checked=["tools/train.py"])
    assert project_codes(found) == []


@pytest.mark.parametrize("body", [
    "if False:\n    add_path(osp.join(this_dir, '..', 'lib'))",
    "USE_LIB = 0\nif USE_LIB:\n    add_path(osp.join(this_dir, '..', 'lib'))",
    "if not True:\n    sys.path.insert(0, osp.join(this_dir, '..', 'lib'))",
    "add_path(osp.join(this_dir, '..', 'libs'))",
])
def test_an_entry_that_never_names_lib_changes_nothing(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       body: str) -> None:
    found = check_project(tmp_path, monkeypatch,
                          _files("helper", per_batch=True, init_text=HELPER.format(body=body)),
                          checked=["tools/train.py"])
    assert "LRD002" not in project_codes(found)


def test_the_same_entry_in_a_live_arm_is_read(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    body = "USE_LIB = 1\nif USE_LIB:\n    add_path(osp.join(this_dir, '..', 'lib'))"
    found = check_project(tmp_path, monkeypatch,
                          _files("helper", per_batch=True, init_text=HELPER.format(body=body)),
                          checked=["tools/train.py"])
    assert "LRD002" in project_codes(found)
