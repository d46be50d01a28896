"""``LRDoctorCallback`` for PyTorch Lightning: watch ``trainer.fit`` with :func:`lrdoctor.watch`.

>>> from lrdoctor.integrations.lightning import LRDoctorCallback  # doctest: +SKIP
>>> trainer = L.Trainer(callbacks=[LRDoctorCallback()])  # doctest: +SKIP
>>> trainer.fit(model, train_loader)  # doctest: +SKIP

Watching starts in the callback's ``setup`` for ``fit`` (before ``configure_optimizers`` runs,
so the optimizers and schedulers are seen from their creation) and stops when fitting ends, or
when it fails. The report goes to stderr and, as ``lrdoctor/findings``, ``lrdoctor/errors`` and
``lrdoctor/warnings`` metrics, to every logger of the trainer (TensorBoard, W&B, CSV...). Not
to Lightning's Python logger: that one prints to the console, which would show the report
twice. Only global rank 0 reports.

Lightning is imported when ``LRDoctorCallback`` is first used (``lightning`` or the older
``pytorch_lightning`` package), so importing this module never requires it.
"""

from __future__ import annotations

from typing import Any

_CLASS: Any = None


def _callback_base() -> Any:
    try:
        from lightning.pytorch.callbacks import Callback
    except ImportError:
        try:
            from pytorch_lightning.callbacks import Callback  # type: ignore[assignment]
        except ImportError as exc:
            raise ImportError(
                "lrdoctor.integrations.lightning needs PyTorch Lightning "
                "(`pip install lightning`)") from exc
    return Callback


def _make_class() -> Any:
    from lrdoctor.integrations import print_report, summary_metrics

    class LRDoctorCallback(_callback_base()):  # type: ignore[misc]
        """Watches ``trainer.fit`` with :func:`lrdoctor.watch` and reports when it ends.

        ``**options`` go to :func:`lrdoctor.watch` (``strict=True`` raises
        :class:`lrdoctor.ScheduleError` at the first error-level finding). After fitting,
        ``callback.findings`` holds the findings and ``callback.report`` the text.
        """

        def __init__(self, **options: Any) -> None:
            super().__init__()
            self.options = options
            self.watch: Any = None
            self.report: str | None = None

        @property
        def findings(self) -> list[Any]:
            return list(self.watch.findings) if self.watch is not None else []

        def setup(self, trainer: Any, pl_module: Any, stage: str) -> None:
            if stage != "fit" or (self.watch is not None and self.report is None):
                return  # not fitting, or already watching this fit
            import lrdoctor

            self.report = None
            self.watch = lrdoctor.watch(**self.options).start()

        def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
            self._finish(trainer)

        def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
            self._finish(trainer, exception)

        def teardown(self, trainer: Any, pl_module: Any, stage: str) -> None:
            if stage == "fit":
                self._finish(trainer)

        def _finish(self, trainer: Any, error: BaseException | None = None) -> None:
            watch = self.watch
            if watch is None or self.report is not None:
                return
            watch.stop(error, interrupted=isinstance(error, KeyboardInterrupt))
            self.report = watch.report()
            if not getattr(trainer, "is_global_zero", True):
                return
            print_report(self.report)
            metrics = summary_metrics(watch.findings)
            for logger in getattr(trainer, "loggers", ()) or ():
                try:
                    logger.log_metrics(metrics, step=trainer.global_step)
                except Exception as exc:  # a logger's failure must not fail the fit
                    print_report(f"lrdoctor: could not log to {type(logger).__name__}: {exc}")

    LRDoctorCallback.__module__ = __name__
    return LRDoctorCallback


def __getattr__(name: str) -> Any:
    global _CLASS
    if name == "LRDoctorCallback":
        if _CLASS is None:
            _CLASS = _make_class()
        return _CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
