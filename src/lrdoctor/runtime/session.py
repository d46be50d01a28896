"""``lrdoctor.watch()``: the runtime engine as a context manager (scripts and notebooks).

>>> import lrdoctor
>>> with lrdoctor.watch() as w:  # doctest: +SKIP
...     train()
>>> print(w.report())  # doctest: +SKIP

Watches nest: a script that uses ``lrdoctor.watch()`` itself under ``lrdoctor run`` (or a
watch started inside another) gets a watch that behaves exactly as it would alone. The outer
watch hands over: it takes its hooks out, stops observing for good (two sets of hooks on the
same classes would disagree about which steps are whose), and includes the inner watch's
report and findings in its own.
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
                 nan_check: bool = True, nan_record: bool = False) -> None:
        self.strict = strict
        self.nan_trace = nan_trace  # check every op of every step for NaN/inf (slow)
        # record every top-level module call from the start, so that a first NaN made inside a
        # module is localized to it (by default recording starts after the first one)
        self.nan_record = nan_record
        self.nan_check = nan_check or nan_trace or nan_record  # the always-on NaN/inf detection
        self._echo = echo
        self._checks = checks
        self.engine: Any = None
        self._patcher: Any = None
        self._finder: Any = None  # the import hook of a watch waiting for `import torch`
        self._watching = False
        self._outer: Watch | None = None
        # watches the script started inside this one, with the line that started each
        self.nested: list[tuple[Watch, tuple[str, int] | None]] = []
        # child processes started with multiprocessing (DataLoader workers left out)
        self.children = 0

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> Watch:
        """Start watching now (imports torch)."""
        try:
            import torch  # noqa: F401
        except ImportError as exc:  # pragma: no cover - exercised in the no-torch test
            raise RuntimeError("lrdoctor's runtime watcher needs PyTorch (2.2 or newer)") from exc
        self._claim()
        self._track_children()
        self._install()
        return self

    def start_when_torch_imported(self) -> Watch:
        """Start watching when the script imports torch (now, if it already has): what
        ``lrdoctor run`` does, so that the script's environment is set before torch loads and
        a script that never imports torch never pays for it."""
        from lrdoctor.runtime import imports

        self._claim()
        self._track_children()
        if self._watching:
            self._finder = imports.when_imported("torch", self._torch_imported, self._finder)
        return self

    def _claim(self) -> None:
        global _active
        outer = _active
        if outer is self:
            raise RuntimeError("this lrdoctor.watch() is already watching")
        if outer is not None:
            outer._hand_over(self)
        self._outer = outer
        self._watching = True
        # a watch started again reports on its new run only
        self.engine, self.nested, self.children = None, [], 0
        _active = self

    def _torch_imported(self, module: Any) -> None:
        if not self._watching or self._patcher is not None:
            return
        try:
            self._install()
        except Exception as exc:  # never break the script's `import torch`
            print(f"lrdoctor: could not start watching ({type(exc).__name__}: {exc}); "
                  "the script runs unwatched", file=__import__("sys").stderr)

    def _install(self) -> None:
        from lrdoctor.runtime import hooks
        from lrdoctor.runtime.checks import ALL_CHECKS, NONFINITE_CHECKS
        from lrdoctor.runtime.engine import Engine
        from lrdoctor.runtime.patching import Patcher

        if self.engine is None:
            self.engine = Engine(strict=self.strict, echo=self._echo)
            self.engine.nan_trace = self.nan_trace
            self.engine.nan_record = self.nan_record
        checks = ALL_CHECKS if self._checks is None else self._checks
        if not self.nan_check:
            checks = tuple(c for c in checks if c not in NONFINITE_CHECKS)
        instances = [check(self.engine) for check in checks]
        patcher = Patcher()
        try:
            hooks.install(self.engine, patcher)
            # checks that need more than the shared hooks install their own, reversibly
            for instance in instances:
                install = getattr(instance, "install", None)
                if install is not None:
                    install(patcher)
        except BaseException:
            patcher.undo_all()
            raise
        self._patcher = patcher

    def _track_children(self) -> None:
        """Count the child processes the script starts: training in them is not watched, and
        the report says so instead of reading as a clean bill of health."""
        from lrdoctor.runtime import imports

        self._unpatch_children: Callable[[], None] | None = None

        def patch(module: Any) -> None:
            cls = getattr(module, "BaseProcess", None)
            original = getattr(cls, "start", None)
            if original is None or getattr(original, "_lrdoctor", False):
                return

            def start(process: Any) -> None:
                target = getattr(process, "_target", None)
                if _active is self and not getattr(target, "__module__", "").startswith(
                        "torch.utils.data"):  # DataLoader workers load data, they do not train
                    self.children += 1
                return original(process)

            start._lrdoctor = True  # type: ignore[attr-defined]
            cls.start = start  # type: ignore[union-attr]
            self._unpatch_children = lambda: setattr(cls, "start", original)

        self._finder = imports.when_imported("multiprocessing.process", patch, self._finder)

    def _remove_hooks(self) -> None:
        from lrdoctor.runtime import imports

        imports.cancel(self._finder)
        self._finder = None
        undo, self._unpatch_children = self._unpatch_children, None
        if undo is not None:
            undo()
        if self._patcher is not None:
            patcher, self._patcher = self._patcher, None
            patcher.undo_all()

    def _hand_over(self, inner: Watch) -> None:
        """A watch started inside this one: stop observing, and report what it found."""
        from lrdoctor.runtime.callsite import user_site

        site = None
        try:
            site = user_site(4)
        except Exception:
            pass
        self.nested.append((inner, site))
        self._remove_hooks()

    def stop(self, error: BaseException | None = None, interrupted: bool = False) -> None:
        global _active
        if not self._watching:
            return
        self._watching = False
        try:
            self._remove_hooks()
        finally:
            if _active is self:
                _active = self._outer
        if self.engine is None:
            return
        known = set(self.engine._findings)
        try:
            self.engine.finish(error, interrupted)
        except Exception as exc:
            self.engine.internal_error(exc)
        if self.nested:
            # training went on under the inner watch: what this one saw is not the whole run,
            # so judging the run's end from it could only produce false alarms
            for key in set(self.engine._findings) - known:
                self.engine._findings.pop(key, None)

    def __enter__(self) -> Watch:
        return self.start()

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        self.stop(exc, interrupted=exc_type is KeyboardInterrupt)

    # -- results -----------------------------------------------------------------------------
    @property
    def findings(self) -> list[Finding]:
        own = self.engine.findings if self.engine is not None else []
        return own + [f for inner, _ in self.nested for f in inner.findings]

    @property
    def optimizer_steps(self) -> int:
        """Optimizer steps seen, including those of the watches nested in this one."""
        own = sum(o.attempts for o in self.engine.optimizers.values()) if self.engine else 0
        return own + sum(inner.optimizer_steps for inner, _ in self.nested)

    def report(self, color: bool = False, html: str | None = None) -> str:
        """The human report (what :command:`lrdoctor run` prints at exit). ``html=PATH`` also
        writes the HTML report with LR plots to PATH, and the data behind the plots as CSV next
        to it (``<stem>.lr.csv``, ``<stem>.scale.csv``, ``<stem>.events.csv``)."""
        from lrdoctor.report.text import render_run

        if html is not None:
            from lrdoctor.report.html import write_csv, write_html

            report = self.to_dict()
            write_html(report, html)
            write_csv(report, html)

        parts = []
        own = self.engine is not None and any(o.attempts for o in self.engine.optimizers.values())
        if own or not self.nested:
            if self.engine is None:
                parts.append("lrdoctor: the script never imported torch: nothing was watched.")
            else:
                parts.append(render_run(self.engine, color=color))
        for inner, site in self.nested:
            where = f" at {_display(site)}" if site else ""
            parts.append(f"lrdoctor: the script started its own lrdoctor.watch(){where}; "
                         "from there on training was watched by it. Its report:\n"
                         + inner.report(color=color))
        if self.children:
            n = self.children
            parts.append(f"lrdoctor: {n} child process{'es' if n != 1 else ''} "
                         f"(multiprocessing, mp.spawn) {'were' if n != 1 else 'was'} started and "
                         "not watched: training that ran there is not in this report. Watch it "
                         "where it runs: `with lrdoctor.watch(): ...` in the child's function.")
        return "\n\n".join(parts)

    def to_dict(self) -> dict[str, Any]:
        from lrdoctor.report.jsonout import run_to_dict

        out = run_to_dict(self.engine)
        if self.nested:
            out["findings"] = [f.to_dict() for f in self.findings]
            out["nested"] = [inner.to_dict() for inner, _ in self.nested]
        if self.children:
            out["unwatched_child_processes"] = self.children
        return out

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython
        p.text(self.report())

    def __repr__(self) -> str:
        n = len(self.findings)
        return f"<lrdoctor.Watch: {n} finding{'s' if n != 1 else ''}>"


def _display(site: tuple[str, int]) -> str:
    from lrdoctor.runtime.callsite import display_path

    return f"{display_path(site[0])}:{site[1]}"
