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

from typing import TYPE_CHECKING, Any

from lrdoctor.findings import Finding, Location

__version__ = "0.1.0"
__all__ = [
    "Finding", "Location", "ScheduleError", "SkipAwareScheduler", "step_was_skipped", "watch",
    "__version__",
]


class ScheduleError(RuntimeError):
    """Raised inside the training process by ``--strict`` / ``watch(strict=True)`` on the first
    error-level finding."""

    def __init__(self, finding: Finding) -> None:
        where = f" at {finding.location}" if finding.location else ""
        super().__init__(f"{finding.code} {finding.name}{where}: {finding.message}")
        self.finding = finding


if TYPE_CHECKING:
    from lrdoctor.runtime.session import Watch
    from lrdoctor.skipaware import SkipAwareScheduler, step_was_skipped


def __getattr__(name: str) -> Any:
    # the skip-aware scheduler needs torch: imported on first use, so `import lrdoctor` and
    # `lrdoctor check` keep working without torch
    if name in ("SkipAwareScheduler", "step_was_skipped"):
        from lrdoctor import skipaware

        return getattr(skipaware, name)
    raise AttributeError(f"module 'lrdoctor' has no attribute {name!r}")


def watch(
    strict: bool = False, nan_check: bool = True, nan_trace: bool = False, nan_record: bool = False,
    **options: Any
) -> Watch:
    """Watch training in this process (the engine of ``lrdoctor run``), as a context manager.

    ``strict=True`` raises :class:`ScheduleError` at the first error-level finding;
    ``nan_check=False`` leaves out the NaN/inf detection; ``nan_trace=True`` checks every op;
    ``nan_record=True`` records the top-level module calls from the first step, so that the
    first NaN made inside a module is named with its module (by default that is done when it
    recurs).
    Importing lrdoctor does not import torch; starting to watch does.

    >>> with watch() as w:  # doctest: +SKIP
    ...     train()
    >>> print(w.report())  # doctest: +SKIP
    """
    from lrdoctor.runtime.session import Watch

    return Watch(strict=strict, nan_check=nan_check, nan_trace=nan_trace, nan_record=nan_record,
                 **options)
