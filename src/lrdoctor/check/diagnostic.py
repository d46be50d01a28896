"""A finding as the static engine produces it: a :class:`Finding` plus the exact source span
and, when one is safe, the text edit that fixes it."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from lrdoctor.findings import Finding, Location


@dataclass(frozen=True)
class Edit:
    """Replace the text between two (1-based line, 0-based column) positions."""

    line: int
    col: int
    end_line: int
    end_col: int
    text: str


@dataclass
class Diagnostic:
    code: str
    message: str
    path: str
    line: int
    col: int  # 1-based
    end_line: int | None = None
    end_col: int | None = None  # 1-based, exclusive
    edits: tuple[Edit, ...] = ()
    evidence: dict[str, Any] = field(default_factory=dict)
    cell: int | None = None

    @classmethod
    def at(cls, code: str, message: str, path: str, node: ast.AST, **kwargs: Any) -> Diagnostic:
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        return cls(
            code,
            message,
            path,
            line,
            getattr(node, "col_offset", 0) + 1,
            end_line,
            end_col + 1 if end_col is not None else None,
            **kwargs,
        )

    @property
    def key(self) -> tuple[str, str, int | None, int, int]:
        return (self.path, self.code, self.cell, self.line, self.col)

    def finding(self) -> Finding:
        return Finding(
            self.code,
            self.message,
            Location(self.path, self.line, self.col, self.cell),
            evidence=dict(self.evidence),
        )

    def to_dict(self) -> dict[str, Any]:
        out = self.finding().to_dict()
        out["end_line"] = self.end_line
        out["end_column"] = self.end_col
        out["fixable"] = bool(self.edits)
        return out
