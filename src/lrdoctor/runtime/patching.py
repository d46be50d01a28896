"""Reversible monkey-patching: every change is recorded and undone exactly, in reverse order.

>>> import types
>>> ns = types.SimpleNamespace(f=len)
>>> p = Patcher()
>>> p.setattr(ns, "f", abs)
>>> ns.f is abs
True
>>> p.undo_all()
>>> ns.f is len
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_MISSING = object()


def _current(owner: Any, name: str) -> Any:
    """What ``owner.__dict__`` holds at ``name`` now (_MISSING when nothing or no dict)."""
    try:
        return owner.__dict__.get(name, _MISSING)
    except Exception:
        return _MISSING


class Patcher:
    def __init__(self) -> None:
        self._undo: list[tuple[Any, str, Any]] = []
        self._handles: list[Any] = []
        self._callbacks: list[Callable[[], None]] = []

    def setattr(self, owner: Any, name: str, value: Any) -> None:
        """Set ``owner.name`` (looked up in ``owner.__dict__`` only) and remember how to undo it."""
        old = owner.__dict__.get(name, _MISSING) if hasattr(owner, "__dict__") else _MISSING
        self._undo.append((owner, name, old))
        setattr(owner, name, value)

    def handle(self, handle: Any) -> None:
        """Keep a removable hook handle (``torch.utils.hooks.RemovableHandle``)."""
        self._handles.append(handle)

    def on_undo(self, callback: Callable[[], None]) -> None:
        self._callbacks.append(callback)

    def undo_all(self) -> None:
        for h in reversed(self._handles):
            h.remove()
        self._handles.clear()
        for owner, name, old in reversed(self._undo):
            if old is not _MISSING and _current(owner, name) is old:
                # already back (torch.nn.Module.__call__ once NaN detection's learning ended):
                # setting it again changes nothing but costs a walk over every subclass
                # (update_slot for a dunder) and invalidates their type versions, so the code
                # that runs next on those classes takes CPython's slow attribute lookups again
                continue
            if old is _MISSING:
                try:
                    delattr(owner, name)
                except AttributeError:
                    pass
            else:
                setattr(owner, name, old)
        self._undo.clear()
        for cb in reversed(self._callbacks):
            cb()
        self._callbacks.clear()
