"""A plateau whose metric's name says nothing: the program's own best-value test tells which way
is better (rcnew54, bench/realcode/README.md, batch fresh-2026-12yh).

Programs written for these tests; no third-party code.

LRD004 judged the mode of ReduceLROnPlateau against the metric's words only (`val_acc`,
`val_loss`). A metric named `valid_metric` or `score` said nothing, so a plateau left in its
default mode 'min' and stepped with an accuracy went unreported, although the same function
keeps its best value with `if valid_metric > best: best = valid_metric` (higher is better, the
program says so itself). Now, when the words say nothing, such a test in the function that
reads the metric gives its direction: kept with `>` it is a score (mode 'min' cuts the LR
whenever it improves), kept with `<` it is a loss (mode 'max' cuts it whenever it improves).
A negated metric (`step(-metric)`), a test that does not store the metric as the new best, or
tests that keep it both ways say nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, messages, notebook, project_codes

# a trainer module driven from a notebook, the plateau built in the notebook ----------------------

TRAINER = """
import torch


def accuracy(preds, labels):
    return (preds.argmax(1) == labels).float().mean().item()


def validate(model, loader):
    model.eval()
    hits = []
    with torch.no_grad():
        for x, y in loader:
            hits.append(accuracy(model(x), y))
    model.train()
    return sum(hits) / len(hits)


def fit(model, optimizer, scheduler, train_loader, valid_loader, epochs, path):
    best = -1.0
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        valid_metric = validate(model, valid_loader)
        if valid_metric {cmp} best:
            best = valid_metric
            torch.save(model.state_dict(), path)
        scheduler.step({metric})
"""

CELL_IMPORTS = """
import sys
sys.path.insert(0, "..")
import torch
from src.trainer import fit
"""

CELL_RUN = """
def run(fold, train_loader, valid_loader):
    model = torch.nn.Linear(8, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, {mode}patience=1)
    fit(model, optimizer, scheduler, train_loader, valid_loader, 10, f"model_{{fold}}.pt")
"""


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cmp: str, metric: str,
             mode: str = "") -> list[tuple[str, int, str]]:
    files = {
        "src/__init__.py": "",
        "src/trainer.py": TRAINER.format(cmp=cmp, metric=metric),
        "notebooks/train.ipynb": notebook(CELL_IMPORTS, CELL_RUN.format(mode=mode)),
    }
    return check_project(tmp_path, monkeypatch, files, ["notebooks/train.ipynb"])


def test_default_min_mode_on_a_score_kept_with_greater_than(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _project(tmp_path, monkeypatch, ">", "valid_metric")
    assert project_codes(found) == ["LRD004"]
    assert found[0][0].endswith("trainer.py")


def test_the_notebook_line_is_named_by_cell(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    # the finding is in the module; the plateau it names is built in the notebook's cell 2
    _project(tmp_path, monkeypatch, ">", "valid_metric")
    report = check_files(["notebooks/train.ipynb"], frozenset(CATALOG), jobs=1)
    (found,) = report.diagnostics
    assert "ReduceLROnPlateau (notebooks/train.ipynb (cell 2, line 4))" in found.message
    assert "(line 28)" in found.message  # the module's own line stays as it is


def test_the_negated_score_is_right_for_min_mode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert project_codes(_project(tmp_path, monkeypatch, ">", "-1. * valid_metric")) == []


def test_max_mode_on_a_score_kept_with_greater_than(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert project_codes(_project(tmp_path, monkeypatch, ">", "valid_metric", "mode='max', ")) \
        == []


# one file ----------------------------------------------------------------------------------------

ONE_FILE = """
import torch

model = torch.nn.Linear(8, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode={mode!r}, factor=0.5)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)


def evaluate(model):
    return float(torch.rand(1))


best_score = {start}
for epoch in range(20):
    for x in loader:
        optimizer.zero_grad()
        model(torch.randn(8, 8)).sum().backward()
        optimizer.step()
    score = evaluate(model)
{keep}
    scheduler.step(score)
"""

KEEP_HIGHER = """    if score > best_score:
        best_score = score
        torch.save(model.state_dict(), "best.pt")"""
KEEP_LOWER = """    if best_score > score:
        best_score = score
        torch.save(model.state_dict(), "best.pt")"""
KEEP_BOTH = """    if score > best_score:
        best_score = score
    if score < worst:
        worst = score"""
COUNT_ONLY = """    if score > best_score:
        print("better than the first epoch")"""


def _one(mode: str, keep: str, start: str = "0.0") -> str:
    return ONE_FILE.format(mode=mode, keep=keep, start=start)


def test_max_mode_on_a_value_kept_with_less_than() -> None:
    source = _one("max", KEEP_LOWER, "float('inf')")
    assert codes(source) == ["LRD004"]
    assert "best_score > score" in messages(source)[0]


def test_min_mode_on_a_value_kept_with_less_than() -> None:
    assert codes(_one("min", KEEP_LOWER, "float('inf')")) == []


def test_min_mode_on_a_value_kept_with_greater_than() -> None:
    source = _one("min", KEEP_HIGHER)
    assert codes(source) == ["LRD004"]
    assert "mode='max'" in messages(source)[0]


def test_a_value_kept_both_ways_says_nothing() -> None:
    assert codes(_one("min", KEEP_BOTH).replace("best_score = 0.0", "best_score = 0.0\nworst = 1.0")) \
        == []


def test_a_comparison_that_keeps_nothing_says_nothing() -> None:
    assert codes(_one("min", COUNT_ONLY)) == []
