"""Run a callback when the script imports a module, not before.

``lrdoctor run`` must not import torch itself: a script that sets ``OMP_NUM_THREADS`` or
``CUDA_VISIBLE_DEVICES`` before ``import torch`` has to see them honoured, and a script that
never imports torch must not pay for it. :func:`when_imported` puts a finder first on
``sys.meta_path`` that lets the normal finders find the module, and runs the callback right
after the module's own code has finished executing (still inside the script's ``import``
statement, so the script's next line already sees a watched torch).

The module object, its spec and its loader are the ones Python would have used: only the
loader's ``exec_module`` is wrapped, on that one loader instance, for that one import.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib.abc import MetaPathFinder
from types import ModuleType
from typing import Any

Callback = Callable[[ModuleType], None]


class _Finder(MetaPathFinder):
    def __init__(self) -> None:
        self.callbacks: dict[str, list[Callback]] = {}
        self._busy: set[str] = set()  # names being looked up by the other finders

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        callbacks = self.callbacks.get(name)
        if not callbacks or name in self._busy:
            return None
        self._busy.add(name)
        try:
            spec = None
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is not None:
                    break
        finally:
            self._busy.discard(name)
        loader = getattr(spec, "loader", None)
        if spec is None or loader is None or not hasattr(loader, "exec_module"):
            return spec
        original = loader.exec_module
        had_own = "exec_module" in getattr(loader, "__dict__", {})

        def exec_module(module: ModuleType) -> None:
            try:
                original(module)
            finally:
                # one import only: later imports of other modules through this loader are untouched
                try:
                    if had_own:
                        loader.exec_module = original
                    else:
                        del loader.exec_module
                except Exception:
                    pass
            for callback in self.callbacks.pop(name, ()):
                callback(module)
            if not self.callbacks:
                remove(self)

        try:
            loader.exec_module = exec_module
        except Exception:  # a loader that takes no attributes: Python imports it as usual
            return spec
        return spec


def remove(finder: _Finder) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def when_imported(name: str, callback: Callback, finder: _Finder | None = None) -> _Finder | None:
    """Call ``callback(module)`` once ``name`` is imported: now, if it already is, else right
    after the script's first import of it. Returns the finder to pass to :func:`cancel`
    (None when the callback already ran)."""
    module = sys.modules.get(name)
    if module is not None and not _initializing(module):
        callback(module)
        return finder
    if finder is None:
        finder = _Finder()
    finder.callbacks.setdefault(name, []).append(callback)
    if finder not in sys.meta_path:
        sys.meta_path.insert(0, finder)
    return finder


def _initializing(module: ModuleType) -> bool:
    spec = getattr(module, "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


def cancel(finder: _Finder | None) -> None:
    """Forget the callbacks that have not run yet and take the finder off ``sys.meta_path``."""
    if finder is not None:
        finder.callbacks.clear()
        remove(finder)
