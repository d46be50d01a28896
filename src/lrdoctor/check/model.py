"""The training-loop model the rules query: loops, the ordered calls inside them, and the
objects those calls act on (see ``trace.py`` for how it is built).

An :class:`Event` knows its object, its loop (with the loop's ancestors: is it inside a batch
loop, an epoch loop?), the ``if`` branches it sits in, the function call it happened in, and
its place in execution order. A :class:`Program` is all of them for one file.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lrdoctor.check.values import Obj

_ids = itertools.count(1)


@dataclass(eq=False)
class Cond:
    key: tuple[str, int, int]  # the `if` statement
    branch: int
    test: ast.expr | None
    loop: Loop | None  # the loop the condition sits in
    # what the branch taken says about a flag: (the flag's source, its version, True/False),
    # `if not args.amp:` -> ("args.amp", v, False); `epoch >= warmup` -> ("epoch < warmup", v,
    # False). Two branches with the same flag and version but opposite truths never both run.
    fact: tuple[str, tuple[Any, ...], bool] | None = None
    # what the names in the test were last assigned from (`ok = before <= after` for
    # `if ok:`), so a guard reads the same however many names it is spelled through
    origins: tuple[ast.expr, ...] = ()

    @cached_property
    def text(self) -> str:
        return ast.unparse(self.test) if self.test is not None else ""

    @cached_property
    def meaning(self) -> str:
        """The test and the expressions its names were assigned from."""
        return " ".join([self.text, *(ast.unparse(o) for o in self.origins)])


@dataclass(eq=False)
class Loop:
    node: ast.For | ast.AsyncFor | ast.While
    path: str
    parent: Loop | None
    hint: str  # "batch" | "epoch" | "": what the loop's own header says
    over_node: ast.expr | None  # what it iterates (a `while` loop: its test), for messages
    targets: frozenset[str]
    line: int
    iterates_loader: bool = False
    batch: bool = False  # iterates a data loader (or is an iteration loop by its header)
    contains_batch: bool = False  # an epoch loop: some batch loop runs inside it
    id: int = field(default_factory=lambda: next(_ids))

    over_name: str = ""
    root: int = 0  # the trace it was entered in

    @property
    def over(self) -> str:
        if self.over_name:
            return self.over_name
        text = ast.unparse(self.over_node) if self.over_node is not None else ""
        return text if len(text) <= 60 else text[:57] + "..."

    def ancestors(self) -> Iterator[Loop]:
        loop: Loop | None = self
        while loop is not None:
            yield loop
            loop = loop.parent

    @property
    def granularity(self) -> str:
        if self.batch:
            return "batch"
        if self.contains_batch:
            return "epoch"
        return self.hint


@dataclass(eq=False)
class Event:
    kind: str
    obj: Obj | None
    node: ast.AST
    path: str
    loop: Loop | None
    conds: tuple[Cond, ...]
    order: int
    root: int  # which trace (root) produced it
    info: dict[str, Any] = field(default_factory=dict)
    frame: Frame | None = None  # the function call it happened in

    def within(self, frame: Frame | None) -> bool:
        """True when this call happened in ``frame`` or in a function called from it."""
        current = self.frame
        while current is not None:
            if current is frame:
                return True
            current = current.parent
        return frame is None

    @property
    def line(self) -> int:
        return getattr(self.node, "lineno", 0)

    @property
    def col(self) -> int:
        return getattr(self.node, "col_offset", 0) + 1

    def conds_inside(self, loop: Loop | None) -> list[Cond]:
        """Conditions entered inside ``loop`` (all of them when ``loop`` is None)."""
        if loop is None:
            return list(self.conds)
        return [c for c in self.conds if c.loop is not None and loop in c.loop.ancestors()]

    def in_loop(self, loop: Loop | None) -> bool:
        if loop is None:
            return True
        return self.loop is not None and loop in self.loop.ancestors()


@dataclass(eq=False)
class Frame:
    """One traced function call (module-level code has no frame)."""

    parent: Frame | None


def exclusive(a: Event, b: Event) -> bool:
    """True when the two calls cannot both run in one pass: different branches of one ``if``,
    or branches of two ``if``s that test the same flag (nothing reassigned between) with
    opposite outcomes (``if args.amp: ...`` / ``if not args.amp: ...``, ``epoch < warmup`` /
    ``epoch >= warmup``)."""
    branches = {c.key: c.branch for c in a.conds}
    if any(c.key in branches and branches[c.key] != c.branch for c in b.conds):
        return True
    facts = {(c.fact[0], c.fact[1]): c.fact[2] for c in a.conds if c.fact is not None}
    return any(
        c.fact is not None and facts.get((c.fact[0], c.fact[1]), c.fact[2]) != c.fact[2]
        for c in b.conds
    )


def contradicts(facts: tuple[tuple[str, Any, bool], ...] | list[tuple[str, Any, bool]],
                others: tuple[tuple[str, Any, bool], ...] | list[tuple[str, Any, bool]]) -> bool:
    """True when two sets of branch facts cannot hold together: one flag (same version) with
    opposite truths, or one setting equal to two different literals (``args.sched == "step"``
    and ``args.sched == "cosine"``, both taken)."""
    for text, version, truth in facts:
        equal = equality_of(text) if truth else None
        for other_text, other_version, other_truth in others:
            if version != other_version:
                continue
            if text == other_text and truth != other_truth:
                return True
            if equal is not None and other_truth and other_text != text:
                other = equality_of(other_text)
                if other is not None and other[0] == equal[0] and other[1] != equal[1]:
                    return True
    return False


def equality_of(text: str) -> tuple[str, Any] | None:
    """(the setting, the literal) for a fact ``<setting> Eq <literal>`` (either side)."""
    left, sep, right = text.partition(" Eq ")
    if not sep or " Eq " in right:
        return None
    for setting, literal in ((left, right), (right, left)):
        try:
            value = ast.literal_eval(literal)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, (str, int, float)) and not isinstance(value, bool):
            try:
                ast.literal_eval(setting)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return setting, value
    return None


_NEGATED = {ast.GtE: ast.Lt, ast.LtE: ast.Gt, ast.NotEq: ast.Eq, ast.IsNot: ast.Is,
            ast.NotIn: ast.In}


def flag_of(test: ast.expr) -> tuple[str, bool, list[str]] | None:
    """(the flag's source, whether ``test`` asserts it, the names it reads) for a test on one
    flag: a name, an attribute, a subscript with a constant key, ``not`` of one, or one
    comparison; None for anything else (``a and b``, calls)."""
    truth = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, truth = test.operand, not truth
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        op = test.ops[0]
        positive = _NEGATED.get(type(op))
        if positive is not None:
            truth = not truth
            op = positive()
        read: list[str] = []
        left, right = _plain(test.left, read), _plain(test.comparators[0], read)
        if left is None or right is None:
            return None
        return f"{left} {type(op).__name__} {right}", truth, read
    if not isinstance(test, ast.Constant):
        read = []
        text = _plain(test, read)
        if text is not None:
            return text, truth, read
    return None


def _plain(node: ast.expr, read: list[str], depth: int = 0) -> str | None:
    """The source of a name, attribute chain, constant-key subscript, constant, or arithmetic
    of those (None for anything else); the names and attributes it reads go to ``read``."""
    if depth > 8:
        return None
    if isinstance(node, ast.Name):
        read.append(node.id)
        return node.id
    if isinstance(node, ast.Constant):
        return repr(node.value)
    if isinstance(node, ast.Attribute):
        base = _plain(node.value, read, depth + 1)
        if base is None:
            return None
        text = f"{base}.{node.attr}"
        read.append(text)
        return text
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        base = _plain(node.value, read, depth + 1)
        return None if base is None else f"{base}[{node.slice.value!r}]"
    if isinstance(node, ast.BinOp):
        left = _plain(node.left, read, depth + 1)
        right = _plain(node.right, read, depth + 1)
        if left is None or right is None:
            return None
        return f"({left} {type(node.op).__name__} {right})"
    return None


@dataclass
class Program:
    """Everything the rules ask about one file (and the project code it calls)."""

    path: str
    events: list[Event]
    objects: list[Obj]
    loops: list[Loop]
    lightning: list[tuple[ast.AST, str, Any]]  # (return node, path, returned value)
    assigned_names: set[str]
    called_names: set[str]
    truncated: bool = False

    def of(self, kind: str, obj: Obj | None = None) -> list[Event]:
        return [e for e in self.events if e.kind == kind and (obj is None or e.obj is obj)]
