"""Patcher.undo_all restores exactly, and does not assign what is already back."""

from __future__ import annotations

from typing import Any

from lrdoctor.runtime.patching import Patcher


class _Counting(type):
    sets: list[str] = []

    def __setattr__(cls, name: str, value: Any) -> None:
        _Counting.sets.append(name)
        super().__setattr__(name, value)


def test_undo_skips_an_attribute_already_back_and_restores_the_rest() -> None:
    def original(self: Any) -> int:
        return 1

    def other(self: Any) -> int:
        return 2

    class Owner(metaclass=_Counting):
        f = original
        g = original

    p = Patcher()
    p.setattr(Owner, "f", other)
    p.setattr(Owner, "g", other)
    p.setattr(Owner, "h", other)  # not there before: deleted on undo
    Owner.f = original  # put back by its owner meanwhile (NaN detection's learning end)
    _Counting.sets.clear()
    p.undo_all()
    assert _Counting.sets == ["g"]  # f was not assigned again (a type-version bump for nothing)
    assert Owner.__dict__["f"] is original and Owner.__dict__["g"] is original
    assert "h" not in Owner.__dict__
