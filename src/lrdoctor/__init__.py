"""lrdoctor: finds learning-rate-schedule and mixed-precision bugs in PyTorch training code.

Static:  ``lrdoctor check train.py``
Runtime: ``lrdoctor run train.py --your --args``, or as a library::

    import lrdoctor
    with lrdoctor.watch() as w:
        train()
    print(w.report())

Importing this package never imports torch; the runtime engine imports it when it starts.
"""

from __future__ import annotations

from lrdoctor.findings import Finding, Location

__version__ = "0.1.0"
__all__ = ["Finding", "Location", "ScheduleError", "watch", "__version__"]


class ScheduleError(RuntimeError):
    """Raised inside the training process by ``--strict`` / ``watch(strict=True)`` on the first
    error-level finding."""

    def __init__(self, finding: Finding) -> None:
        where = f" at {finding.location}" if finding.location else ""
        super().__init__(f"{finding.code} {finding.name}{where}: {finding.message}")
        self.finding = finding


# ``lrdoctor.watch`` is the runtime package, made callable: ``with lrdoctor.watch() as w:``.
# Importing it does not import torch (that happens when watching starts).
from lrdoctor import watch  # noqa: E402
