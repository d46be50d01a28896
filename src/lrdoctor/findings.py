"""The one result type every engine produces.

A :class:`Finding` says what is wrong (``code``, ``message``), how bad it is (``severity``),
where (``location``), the numbers behind it (``evidence``) and how to fix it (``fix``).

>>> f = Finding("LRD002", "StepLR stepped 938 times in epoch 1", Location("train.py", 42, 9))
>>> f.severity, f.location.line
('error', 42)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Location:
    """Where a finding points: a file, a 1-based line, a 1-based column; ``cell`` for notebooks."""

    path: str
    line: int | None = None
    column: int | None = None
    cell: int | None = None

    def __str__(self) -> str:
        parts = [self.path]
        if self.cell is not None:
            parts.append(f"cell {self.cell}")
        if self.line is not None:
            parts.append(f"line {self.line}" if self.cell is not None else str(self.line))
            if self.column is not None and self.cell is None:
                parts.append(str(self.column))
        return ":".join(parts)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "line": self.line, "column": self.column}
        if self.cell is not None:
            out["cell"] = self.cell
        return out


@dataclass(slots=True)
class Finding:
    """One diagnosis. ``severity`` defaults to the catalog's severity for ``code``."""

    code: str
    message: str
    location: Location | None = None
    severity: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    fix: str = ""

    def __post_init__(self) -> None:
        from lrdoctor.catalog import CATALOG

        entry = CATALOG.get(self.code)
        if entry is None:
            raise ValueError(f"unknown diagnosis code {self.code!r}")
        if not self.severity:
            self.severity = entry.severity
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")
        if not self.fix:
            self.fix = entry.fix_hint

    @property
    def name(self) -> str:
        from lrdoctor.catalog import CATALOG

        return CATALOG[self.code].name

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape documented in the README (stable: other tools read it)."""
        loc = self.location
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "path": loc.path if loc else None,
            "line": loc.line if loc else None,
            "column": loc.column if loc else None,
            "cell": loc.cell if loc else None,
            "location": loc.to_dict() if loc else None,
            "fix": self.fix,
            "evidence": _jsonable(self.evidence),
        }

    def replace(self, **changes: Any) -> Finding:
        return dataclasses.replace(self, **changes)


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    return str(value)
