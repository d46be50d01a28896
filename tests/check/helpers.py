"""Small helpers for tests that check inline training scripts."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.engine import check_source
from lrdoctor.check.runner import check_files


def findings(source: str, path: str = "train.py") -> list[tuple[str, int]]:
    """(code, line) of every finding for ``source``, in order."""
    result = check_source(textwrap.dedent(source), path)
    assert result.errors == []
    return [(d.code, d.line) for d in result.diagnostics]


def codes(source: str) -> list[str]:
    return [code for code, _ in findings(source)]


def messages(source: str) -> list[str]:
    return [d.message for d in check_source(textwrap.dedent(source), "train.py").diagnostics]


def check_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str],
                  checked: list[str] | None = None) -> list[tuple[str, int, str]]:
    """(path, line, code) of every finding for a project made of ``files`` (a `.git` marks
    its root; every code selected; ``checked``, default every file, named to ``lrdoctor
    check`` run from the project's root)."""
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files) if checked is None else checked, frozenset(CATALOG),
                         jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics]


def project_codes(found: list[tuple[str, int, str]]) -> list[str]:
    """The codes of check_project's findings, in order."""
    return [code for _, _, code in found]


def notebook(*cells: str) -> str:
    """An ``.ipynb`` file's text with one code cell per argument (dedented)."""
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                   "outputs": [], "source": textwrap.dedent(c).strip("\n").splitlines(True)}
                  for c in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })
