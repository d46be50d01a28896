"""What one file's check finds must not depend on the files one process checked before it:
lead61, from a dev case whose false LRD001 came and went with the cases checked beside it
(GuoLanqing/ShadowFormer after ZhendongWang6/Uformer, two projects of one lineage, each with an
``options.py``). The rule that reads a flag's argparse default to tell a branch no command line
can take (``--warmup``, ``store_true`` with ``default=True``: its ``else`` never runs) looked
through every module the process had loaded whose path ends like an import of the file, and
read the other project's ``options.py`` first (``default=False``). It reads the modules this
file's own check read now."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

OPTIONS = """
import argparse


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--warmup", action="store_true", default={default})
    parser.add_argument("--nepoch", type=int, default=100)
    return parser.parse_args()
"""

TRAIN = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, StepLR

import options

opt = options.parse()
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
if opt.warmup:
    scheduler = CosineAnnealingLR(optimizer, opt.nepoch)
else:
    scheduler = StepLR(optimizer, step_size=50, gamma=0.5)
    scheduler.step()
loader = [(torch.randn(8, 4), torch.randn(8, 1))] * 10
for epoch in range(opt.nepoch):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
"""


def _projects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, default in (("first", "False"), ("second", "True")):
        root = tmp_path / name
        (root / ".git").mkdir(parents=True)
        (root / "options.py").write_text(textwrap.dedent(OPTIONS.format(default=default)))
        (root / "train.py").write_text(textwrap.dedent(TRAIN))
    monkeypatch.chdir(tmp_path)


def _found(paths: list[str]) -> list[tuple[str, int, str]]:
    report = check_files(paths, frozenset(CATALOG), jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics]


def test_a_file_finds_the_same_after_another_projects_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _projects(tmp_path, monkeypatch)
    alone = _found(["second/train.py"])
    together = _found(["first/train.py", "second/train.py"])
    assert alone == []
    assert [f for f in together if f[0].startswith("second")] == alone


def test_the_project_whose_flag_is_off_still_gets_its_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `--warmup` off by default: the StepLR branch runs, stepped once before training
    _projects(tmp_path, monkeypatch)
    assert _found(["second/train.py", "first/train.py"]) == [("first/train.py", 14, "LRD001")]


HELPER = """
def start(scheduler):
    scheduler.step()
"""


@pytest.mark.parametrize("default, found", [("True", []), ("False", [("helpers.py", 3, "LRD001")])])
def test_the_test_is_read_in_its_own_module_when_the_step_sits_in_a_helper(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, default: str,
        found: list[tuple[str, int, str]]) -> None:
    # `else: helpers.start(scheduler)`: the branch is the driver's, its flag the driver's
    # options module's; the step is the helper's (lead61, metamorphic.py's package rewrite)
    (tmp_path / ".git").mkdir()
    (tmp_path / "options.py").write_text(textwrap.dedent(OPTIONS.format(default=default)))
    (tmp_path / "helpers.py").write_text(textwrap.dedent(HELPER))
    (tmp_path / "train.py").write_text(textwrap.dedent(TRAIN).replace(
        "    scheduler.step()\nloader", "    helpers.start(scheduler)\nloader").replace(
        "import options\n", "import helpers\nimport options\n"))
    monkeypatch.chdir(tmp_path)
    assert _found(["train.py"]) == found
