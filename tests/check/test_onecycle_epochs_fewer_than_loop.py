"""OneCycleLR sized for fewer epochs than the loop that steps it runs (rcnew54,
bench/realcode/README.md, batch fresh-2026-12yh).

Programs written for these tests; no third-party code.

Competition notebooks build ``OneCycleLR(epochs=EPOCHS, steps_per_epoch=len(loader))`` in one
cell and step it after every batch in another, whose epoch loop is written on its own
(``for epoch in range(EPOCHS + 1)``, ``range(1, EPOCHS + 2)``). The schedule's
``EPOCHS * len(loader)`` steps are spent before the last pass and OneCycleLR raises at the
next step. The epoch loop's count and the ``epochs`` argument are compared when both are the
same expression give or take integer literals (or both literals); ``range(1, EPOCHS + 1)`` is
EPOCHS passes. A loop that may stop early (``break``), a step under a test, or a scheduler
rebuilt in every pass is left alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, findings, notebook

SETUP = """
import torch

EPOCHS = 5
model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
"""

BUILD = """
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, epochs={epochs},
                                                steps_per_epoch=len(loader))
"""

TRAIN = """
for epoch in {passes}:
    for x in loader:
        optimizer.zero_grad()
        model(torch.randn(8, 8)).sum().backward()
        optimizer.step()
        scheduler.step()
{extra}
"""

EARLY_STOP = """    if epoch > 2 and float(torch.rand(1)) > 0.9:
        break"""


def _program(passes: str, epochs: str = "EPOCHS", extra: str = "") -> str:
    return SETUP + BUILD.format(epochs=epochs) + TRAIN.format(passes=passes, extra=extra)


@pytest.mark.parametrize("passes, epochs", [
    ("range(EPOCHS + 1)", "EPOCHS"),
    ("range(1, EPOCHS + 2)", "EPOCHS"),
    ("range(11)", "10"),
    ("range(EPOCHS)", "EPOCHS - 1"),
])
def test_more_passes_than_epochs(passes: str, epochs: str) -> None:
    assert codes(_program(passes, epochs)) == ["LRD010"]


@pytest.mark.parametrize("passes, epochs", [
    ("range(EPOCHS)", "EPOCHS"),
    ("range(1, EPOCHS + 1)", "EPOCHS"),
    ("range(0, EPOCHS)", "EPOCHS"),
    ("range(EPOCHS - 1)", "EPOCHS"),
    ("range(10)", "10"),
    ("range(start_epoch, EPOCHS + 1)", "EPOCHS"),
])
def test_as_many_passes_or_fewer(passes: str, epochs: str) -> None:
    assert codes(_program(passes, epochs).replace("EPOCHS = 5", "EPOCHS = 5\nstart_epoch = 1")) \
        == []


def test_a_loop_that_may_stop_early() -> None:
    assert codes(_program("range(EPOCHS + 1)", extra=EARLY_STOP)) == []


def test_a_scheduler_rebuilt_every_pass() -> None:
    rebuilt = SETUP + TRAIN.format(passes="range(EPOCHS + 1)", extra="").replace(
        "    for x in loader:",
        "    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, "
        "epochs=EPOCHS, steps_per_epoch=len(loader))\n    for x in loader:")
    assert "LRD010" not in codes(rebuilt)


def test_the_notebook_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = notebook(SETUP, BUILD.format(epochs="EPOCHS"),
                    TRAIN.format(passes="range(EPOCHS + 1)", extra=""))
    check_project(tmp_path, monkeypatch, {"train.ipynb": text})
    (diag,) = check_files(["train.ipynb"], frozenset(CATALOG), jobs=1).diagnostics
    assert (diag.code, diag.cell, diag.line) == ("LRD010", 3, 6)
    assert "OneCycleLR(epochs=EPOCHS) (cell 2, line 1)" in diag.message
    assert "one pass more" in diag.message


def test_found_at_the_step() -> None:
    program = _program("range(EPOCHS + 1)")
    line = program.splitlines().index("        scheduler.step()") + 1
    assert findings(program) == [("LRD010", line)]
