"""The rules: each one a short query over the :class:`~lrdoctor.check.model.Program`.

A rule is a function ``(FileContext) -> Iterable[Diagnostic]`` registered under the codes it
can produce. ``RULES`` is the registry; ``STATIC_CODES`` (in ``lrdoctor.check``) is its keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from lrdoctor.check.context import FileContext
from lrdoctor.check.diagnostic import Diagnostic

Rule = Callable[[FileContext], Iterable[Diagnostic]]
RULES: dict[str, list[Rule]] = {}


def rule(*codes: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for code in codes:
            RULES.setdefault(code, []).append(fn)
        return fn

    return register


def rules_for(codes: Iterable[str]) -> list[Rule]:
    """Each rule once, for the enabled ``codes``."""
    seen: list[Rule] = []
    for code in sorted(set(codes)):
        for fn in RULES.get(code, []):
            if fn not in seen:
                seen.append(fn)
    return seen


from lrdoctor.check.rules import amp, distributed, overrun, schedule, state  # noqa: E402,F401  (registration)
