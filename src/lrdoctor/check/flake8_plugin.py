"""flake8 plugin: ``flake8 --select LRD`` runs lrdoctor's static checks.

Registered under the ``LRD`` prefix through the ``flake8.extension`` entry point. flake8 hands
over each file's AST and lines; the same engine as ``lrdoctor check`` runs on them (calls into
other project modules are followed as usual).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

from lrdoctor import __version__


class LrdoctorChecker:
    name = "lrdoctor"
    version = __version__

    def __init__(self, tree: ast.AST, filename: str = "stdin", lines: list[str] | None = None):
        self.tree = tree
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type[Any]]]:
        from lrdoctor.check.engine import check_source

        if self.lines is not None:
            source = "".join(self.lines)
        else:
            try:
                with open(self.filename, encoding="utf-8") as fh:
                    source = fh.read()
            except OSError:
                return
        tree = self.tree if isinstance(self.tree, ast.Module) else None
        result = check_source(source, self.filename, tree=tree)
        for diag in result.diagnostics:
            if diag.cell is not None:
                continue
            # flake8 columns are 0-based
            yield diag.line, diag.col - 1, f"{diag.code} {diag.message}", type(self)
