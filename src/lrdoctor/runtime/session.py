"""``lrdoctor.watch()``: the runtime engine as a context manager (scripts and notebooks).

>>> import lrdoctor
>>> with lrdoctor.watch() as w:  # doctest: +SKIP
...     train()
>>> print(w.report())  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lrdoctor.findings import Finding

_active: Watch | None = None


class Watch:
    """Watches optimizers, LR schedulers, GradScalers and data loaders in this process.

    ``strict=True`` raises :class:`lrdoctor.ScheduleError` inside training at the first
    error-level finding. Everything installed is removed on exit.
    """

    def __init__(self, strict: bool = False, echo: Callable[[str], None] | None = None,
                 checks: tuple[type, ...] | None = None, nan_trace: bool = False,
                 nan_check: bool = True) -> None:
        self.strict = strict
        self.nan_trace = nan_trace  # check every op of every step for NaN/inf (slow)
        self.nan_check = nan_check or nan_trace  # the always-on NaN/inf detection
        self._echo = echo
        self._checks = checks
        self.engine: Any = None
        self._patcher: Any = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Watch:
        global _active
        if _active is not None:
            raise RuntimeError("lrdoctor is already watching in this process")
        try:
            import torch  # noqa: F401
        except ImportError as exc:  # pragma: no cover - exercised in the no-torch test
            raise RuntimeError("lrdoctor's runtime watcher needs PyTorch (2.2 or newer)") from exc
        from lrdoctor.runtime import hooks
        from lrdoctor.runtime.checks import ALL_CHECKS, NONFINITE_CHECKS
        from lrdoctor.runtime.engine import Engine
        from lrdoctor.runtime.patching import Patcher

        self.engine = Engine(strict=self.strict, echo=self._echo)
        self.engine.nan_trace = self.nan_trace
        checks = ALL_CHECKS if self._checks is None else self._checks
        if not self.nan_check:
            checks = tuple(c for c in checks if c not in NONFINITE_CHECKS)
        instances = [check(self.engine) for check in checks]
        self._patcher = Patcher()
        try:
            hooks.install(self.engine, self._patcher)
            # checks that need more than the shared hooks install their own, reversibly
            for instance in instances:
                install = getattr(instance, "install", None)
                if install is not None:
                    install(self._patcher)
        except BaseException:
            self._patcher.undo_all()
            raise
        _active = self
        return self

    def stop(self, error: BaseException | None = None, interrupted: bool = False) -> None:
        global _active
        if self._patcher is None:
            return
        try:
            self._patcher.undo_all()
        finally:
            self._patcher = None
            _active = None
        try:
            self.engine.finish(error, interrupted)
        except Exception as exc:
            self.engine.internal_error(exc)

    def __enter__(self) -> Watch:
        return self.start()

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self.stop(exc, interrupted=exc_type is KeyboardInterrupt)

    # -- results -----------------------------------------------------------------------------
    @property
    def findings(self) -> list[Finding]:
        return self.engine.findings if self.engine is not None else []

    def report(self, color: bool = False) -> str:
        """The human report (what :command:`lrdoctor run` prints at exit)."""
        from lrdoctor.report.text import render_run

        return render_run(self.engine, color=color)

    def to_dict(self) -> dict[str, Any]:
        from lrdoctor.report.jsonout import run_to_dict

        return run_to_dict(self.engine)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython
        p.text(self.report())

    def __repr__(self) -> str:
        n = len(self.findings)
        return f"<lrdoctor.Watch: {n} finding{'s' if n != 1 else ''}>"
