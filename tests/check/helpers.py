"""Small helpers for tests that check inline training scripts."""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source


def findings(source: str, path: str = "train.py") -> list[tuple[str, int]]:
    """(code, line) of every finding for ``source``, in order."""
    result = check_source(textwrap.dedent(source), path)
    assert result.errors == []
    return [(d.code, d.line) for d in result.diagnostics]


def codes(source: str) -> list[str]:
    return [code for code, _ in findings(source)]


def messages(source: str) -> list[str]:
    return [d.message for d in check_source(textwrap.dedent(source), "train.py").diagnostics]
