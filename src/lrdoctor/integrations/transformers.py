"""``LRDoctorCallback`` for Hugging Face's ``Trainer``: watch ``trainer.train()`` with
:func:`lrdoctor.watch`.

>>> from lrdoctor.integrations.transformers import LRDoctorCallback  # doctest: +SKIP
>>> trainer = Trainer(model, args, train_dataset=ds, callbacks=[LRDoctorCallback()])  # doctest: +SKIP
>>> trainer.train()  # doctest: +SKIP

Watching starts at ``on_train_begin`` and stops at ``on_train_end``. The Trainer builds its
optimizer and scheduler just before ``on_train_begin``: both are recorded from their first
step. The report goes to stderr and to the ``transformers.integrations.lrdoctor`` logger of
transformers' logging (level INFO, so it shows with ``transformers.logging.set_verbosity_info()``
and in whatever handlers you configured). Only the main process (``state.is_world_process_zero``)
reports.

transformers is imported when ``LRDoctorCallback`` is first used, so importing this module
never requires it.
"""

from __future__ import annotations

from typing import Any

_CLASS: Any = None


def _make_class() -> Any:
    try:
        from transformers import TrainerCallback
        from transformers.utils import logging as hf_logging
    except ImportError as exc:
        raise ImportError("lrdoctor.integrations.transformers needs transformers "
                          "(`pip install transformers`)") from exc
    from lrdoctor.integrations import print_report

    log = hf_logging.get_logger("transformers.integrations.lrdoctor")

    class LRDoctorCallback(TrainerCallback):  # type: ignore[misc]
        """Watches ``trainer.train()`` with :func:`lrdoctor.watch` and reports when it ends.

        ``**options`` go to :func:`lrdoctor.watch` (``strict=True`` raises
        :class:`lrdoctor.ScheduleError` at the first error-level finding). After training,
        ``callback.findings`` holds the findings and ``callback.report`` the text.
        """

        def __init__(self, **options: Any) -> None:
            self.options = options
            self.watch: Any = None
            self.report: str | None = None

        @property
        def findings(self) -> list[Any]:
            return list(self.watch.findings) if self.watch is not None else []

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            import atexit

            import lrdoctor

            if self.watch is not None and self.report is None:
                # the previous train() raised (the Trainer has no exception callback): that
                # run is over, and reported as such
                self._finish(state, RuntimeError("training ended with an exception"))
            else:
                atexit.register(self._at_exit)
            self.report = None
            self.watch = lrdoctor.watch(**self.options).start()

        def _at_exit(self) -> None:
            if self.watch is not None and self.report is None:
                self._finish(None, RuntimeError("training ended with an exception"))

        def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self._finish(state)

        def _finish(self, state: Any, error: BaseException | None = None) -> None:
            watch = self.watch
            if watch is None or self.report is not None:
                return
            watch.stop(error)
            self.report = watch.report()
            if getattr(state, "is_world_process_zero", True):
                print_report(self.report)
                log.info("%s", self.report)

    LRDoctorCallback.__module__ = __name__
    return LRDoctorCallback


def __getattr__(name: str) -> Any:
    global _CLASS
    if name == "LRDoctorCallback":
        if _CLASS is None:
            _CLASS = _make_class()
        return _CLASS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
