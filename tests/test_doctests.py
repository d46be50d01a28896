"""The examples in lrdoctor's docstrings are run, so they cannot drift from the code (a
docstring example is documentation a reader trusts)."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"


def _modules_with_examples() -> list[str]:
    found = []
    for path in sorted((SRC / "lrdoctor").rglob("*.py")):
        if ">>> " not in path.read_text(encoding="utf-8"):
            continue
        parts = path.relative_to(SRC).with_suffix("").parts
        found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


MODULES = _modules_with_examples()


def test_modules_with_examples_are_found() -> None:
    assert "lrdoctor.schedulers" in MODULES and "lrdoctor.check.engine" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
