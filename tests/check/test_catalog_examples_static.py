"""Every code the static engine implements is proven on its own catalog examples: the wrong
example is reported with that code, the right example with nothing at all."""

from __future__ import annotations

from importlib import resources

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check import STATIC_CODES, check_text

# examples written alongside the static engine; they must exist
OWNED = ("LRD004", "LRD006", "LRD007", "LRD013", "LRD015", "LRD101", "LRD103")


def _example(code: str, kind: str) -> str | None:
    path = resources.files("lrdoctor.examples").joinpath(f"{code}_{kind}.py")
    return path.read_text("utf-8") if path.is_file() else None


@pytest.mark.parametrize("code", sorted(STATIC_CODES))
def test_wrong_example_is_reported(code: str) -> None:
    source = _example(code, "wrong")
    if source is None:
        pytest.skip(f"{code}_wrong.py not written yet")
    codes = [f.code for f in check_text(source, f"{code}_wrong.py")]
    assert code in codes


@pytest.mark.parametrize("code", sorted(STATIC_CODES))
def test_right_example_is_clean(code: str) -> None:
    source = _example(code, "right")
    if source is None:
        pytest.skip(f"{code}_right.py not written yet")
    assert [f"{f.code}:{f.location.line if f.location else '?'}"
            for f in check_text(source, f"{code}_right.py")] == []


@pytest.mark.parametrize("code", OWNED)
def test_owned_examples_exist_and_are_short(code: str) -> None:
    for kind in ("wrong", "right"):
        source = _example(code, kind)
        assert source is not None, f"{code}_{kind}.py is missing"
        assert 10 <= len(source.splitlines()) <= 35
        compile(source, f"{code}_{kind}.py", "exec")


def test_static_codes_are_catalog_codes_marked_static() -> None:
    for code in STATIC_CODES:
        assert code in CATALOG
        assert "S" in CATALOG[code].engines
