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
