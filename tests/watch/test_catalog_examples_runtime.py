"""Every code the runtime engine implements: its wrong example is found, its right one is not."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path

import pytest

import lrdoctor
from lrdoctor.catalog import CATALOG
from lrdoctor.runtime import RUNTIME_CODES

pytest.importorskip("torch")
EXAMPLES = Path(lrdoctor.__file__).parent / "examples"


def _run(path: Path) -> list[str]:
    w = lrdoctor.watch(echo=lambda m: None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with w:
                runpy.run_path(str(path), run_name="__main__")
        except Exception:  # an example may demonstrate a crash (OneCycleLR overrun, ...)
            pass
    assert w.engine._internal_errors == 0
    return sorted({f.code for f in w.findings})


@pytest.fixture(autouse=True)
def in_empty_folder(tmp_path, monkeypatch):
    """Examples write checkpoints (LRD007): each runs in a folder of its own."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("code", sorted(RUNTIME_CODES))
def test_wrong_example_is_found(code):
    path = EXAMPLES / f"{code}_wrong.py"
    assert path.exists(), f"{code} has no wrong example"
    assert code in _run(path)


@pytest.mark.parametrize("code", sorted(RUNTIME_CODES))
def test_right_example_is_silent(code):
    path = EXAMPLES / f"{code}_right.py"
    assert path.exists(), f"{code} has no right example"
    assert _run(path) == []


def test_runtime_codes_are_catalog_codes_marked_runtime():
    for code in RUNTIME_CODES:
        assert "R" in CATALOG[code].engines
