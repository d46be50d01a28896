"""Thin adapters that start :func:`lrdoctor.watch` from a framework's own callback system, for
users who enable lrdoctor from code instead of ``lrdoctor run``.

- :mod:`lrdoctor.integrations.lightning`: ``LRDoctorCallback`` for PyTorch Lightning's Trainer.
- :mod:`lrdoctor.integrations.transformers`: ``LRDoctorCallback`` for Hugging Face's Trainer.

They hold no logic of their own: the watch is the same engine as ``lrdoctor run``; the
callbacks only decide when it starts and stops, and where the report goes. Importing this
package imports no framework (nor torch): each module imports its framework when its callback
class is first used.
"""

from __future__ import annotations

from typing import Any


def summary_metrics(findings: list[Any]) -> dict[str, float]:
    """Counts of a run's findings, as metrics a framework logger accepts."""
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    return {"lrdoctor/findings": float(len(findings)), "lrdoctor/errors": float(errors),
            "lrdoctor/warnings": float(warnings)}


def print_report(text: str) -> None:
    import sys

    print(text, file=sys.stderr, flush=True)
