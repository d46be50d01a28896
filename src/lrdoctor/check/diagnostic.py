"""A finding as the static engine produces it: a :class:`Finding` plus the exact source span
and, when one is safe, the text edit that fixes it."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field
from typing import Any, ClassVar

from lrdoctor.catalog import CATALOG
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
    #: the catalog's severity for ``code`` unless a rule says otherwise for this finding (an
    #: LRD007 about ReduceLROnPlateau's lost patience count is an info, not a warning)
    severity: str = ""
    #: how much of the problem this finding names (LRD007: how many missing states); of two
    #: findings a file's traces make at one place (a base class traced alone, and through the
    #: subclass that uses it), the one that names more is kept. Not part of the finding.
    weight: int = 0
    #: made only by the check of its own file (a rule reading that file's own classes, or its
    #: trace's records of them), never by the trace of another file that calls into it: such
    #: a finding is not left to that trace (runner.merge_results). Not part of the finding.
    own_file: bool = False

    def __post_init__(self) -> None:
        if not self.severity:
            self.severity = CATALOG[self.code].severity

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
            severity=self.severity,
            evidence=dict(self.evidence),
        )

    def to_dict(self) -> dict[str, Any]:
        out = self.finding().to_dict()
        out["end_line"] = self.end_line
        out["end_column"] = self.end_col
        out["fixable"] = bool(self.edits)
        return out


#: what a file that could not be checked is reported as, in every output format. These are
#: flake8's (and ruff's) codes for the same events, not catalog codes: they say nothing about
#: training, only that lrdoctor could not look. Neither ``--select``/``--ignore`` nor a noqa
#: comment hides them.
NOT_CHECKED: dict[str, tuple[str, str]] = {
    "E902": ("io-error",
             "make the file readable as a regular UTF-8 (or `# coding:`-declared) Python file or "
             "notebook, or exclude it"),
    "E999": ("syntax-error", "fix the syntax error: only code Python can parse is checked"),
}


@dataclass(frozen=True)
class Problem:
    """A file (or one notebook cell) that was not checked, and why.

    ``code`` is ``"E902"`` (could not be read), ``"E999"`` (could not be parsed), or ``None``
    when lrdoctor itself failed on the file (an internal error: exit status 2).

    >>> str(Problem("E999", "t.py", "SyntaxError: invalid syntax", 3, 7))
    't.py:3:7: SyntaxError: invalid syntax'
    """

    code: str | None
    path: str
    message: str
    line: int = 1
    col: int = 1
    cell: int | None = None
    whole_file: bool = True  # False: one notebook cell was skipped, the others were checked

    # the same shape as a Diagnostic, so the renderers can list both in one order
    end_line: ClassVar[None] = None
    end_col: ClassVar[None] = None
    edits: ClassVar[tuple[Edit, ...]] = ()

    @property
    def internal(self) -> bool:
        return self.code is None

    @property
    def name(self) -> str:
        return NOT_CHECKED[self.code][0] if self.code else "internal-error"

    @property
    def fix_hint(self) -> str:
        if self.code:
            return NOT_CHECKED[self.code][1]
        return "please report it at lrdoctor's issue tracker"

    def __str__(self) -> str:
        if self.cell is not None:
            return f"{self.path}:cell {self.cell}:line {self.line}: {self.message}"
        if (self.line, self.col) == (1, 1) and self.code != "E999":
            return f"{self.path}: {self.message}"
        return f"{self.path}:{self.line}:{self.col}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """The shape of a finding in ``--format json`` (same keys, same types)."""
        location: dict[str, Any] = {"path": self.path, "line": self.line, "column": self.col}
        if self.cell is not None:
            location["cell"] = self.cell
        return {
            "code": self.code,
            "name": self.name,
            "severity": "error",
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.col,
            "cell": self.cell,
            "location": location,
            "fix": self.fix_hint,
            "evidence": {},
            "end_line": None,
            "end_column": None,
            "fixable": False,
        }


def not_checked_page(code: str) -> str:
    """What ``lrdoctor explain E902`` / ``E999`` prints: these are not catalog codes, but a
    user who meets one in a report asks the same question."""
    name, hint = NOT_CHECKED[code]
    what = ("could not be read: a path that does not exist, not UTF-8 without a `# coding:` "
            "line, binary, a FIFO or device, too large, or a notebook that is not valid "
            "notebook JSON" if code == "E902" else
            "(or one notebook cell) does not parse as Python")
    paragraphs = [
        f"{code}  {name}  (lrdoctor check: a file that was not checked)",
        f"The file {what}. lrdoctor reports it instead of skipping it silently: no finding in "
        "a file that was not checked is not a clean result. It is flake8's and ruff's code for "
        "the same event; --select, --ignore and noqa comments never hide it, and it makes the "
        "exit status 1.",
        f"Fix: {hint}.",
    ]
    return "\n\n".join(textwrap.fill(p, width=96) for p in paragraphs) + "\n"
