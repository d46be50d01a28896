"""The training-loop model the rules query: loops, the ordered calls inside them, and the
objects those calls act on (see ``trace.py`` for how it is built).

An :class:`Event` knows its object, its loop (with the loop's ancestors: is it inside a batch
loop, an epoch loop?), the ``if`` branches it sits in, the function call it happened in, and
its place in execution order. A :class:`Program` is all of them for one file.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from lrdoctor.check.index import dotted
from lrdoctor.check.memo import per_node
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
    # the setting the tested attribute is a copy of, where the trace saw it copied from one
    # (`settings.sched_kind = cfg.SCHEDULER.TYPE` makes `if settings.sched_kind == "cosine":`
    # a test on `TYPE` too)
    alias: str | None = None
    # what the names of an ordering test (`seen < ramp_iters`) stood for when it ran, where
    # the trace knew them only by their source (`ramp_iters = len(loader) * cfg.ramp_epochs`,
    # passed down as arguments): the name and its source expression
    known: tuple[tuple[str, ast.expr], ...] = ()
    # the trace knew which way the test goes on this path (a literal the caller passed, stored
    # in the instance: `Hook(by_epoch=False)` then `if not self.by_epoch:`): the branch runs
    # every time the `if` does, whatever the test looks like
    decided: bool = False
    # what the branch taken says about each part of an `and` / `or` test, as ``fact`` does
    # for the whole: `if epoch > start and cfg.kind == "swa":` taken says both parts hold;
    # `if a or b:` not taken says neither does
    parts: tuple[tuple[str, tuple[Any, ...], bool], ...] = ()
    # a test that looks a string setting up in a constant table of the module (`KINDS[cfg.kind]
    # == "StepLR"` with `KINDS = {"step": "StepLR", ...}`): the setting's name and the keys
    # whose entry the test compares with, so the test holds when the setting is one of them
    table: tuple[str, frozenset[str]] | None = None
    # the numeric bounds the branch taken puts on values (see bounds_of): `if cfg.every ==
    # 0:` taken says `cfg.every == 0`; `if cfg.every > 0 and n % cfg.every == 0:` taken says
    # `cfg.every > 0` and, as `n % cfg.every` ran without ZeroDivisionError, `cfg.every != 0`
    bounds: tuple[Bound, ...] = ()
    # the section of the configuration a generic selector is read from (see SELECTOR_KEYS):
    # `cfg.type` in a builder handed `cfg.scheduler` is the scheduler section's `type`, not
    # the trainer section's `type` its caller tests (`if cfg.type == "trainer_e2e":` with
    # `cfg` the `cfg.training` it was handed); None where the trace does not know it
    section: str | None = None
    # what the branch taken says of a string setting read off one object the trace knows
    # (`if self.config.kind != "x":` around a call of a helper given `self.config`, and `if
    # config.kind == "x":` in it): (the object, the setting's name, how often that name was
    # assigned on any object when the test ran, the strings, whether the setting is among
    # them). Two of them on one path that no string meets make the path one that never runs
    # (see impossible_path)
    strings: tuple[tuple[Any, str, int, frozenset[str], bool], ...] = ()

    @cached_property
    def text(self) -> str:
        return ast.unparse(self.test) if self.test is not None else ""

    @cached_property
    def meaning(self) -> str:
        """The test and the expressions its names were assigned from."""
        return " ".join([self.text, *(ast.unparse(o) for o in self.origins)])

    @cached_property
    def periodic(self) -> bool:
        """The test, or what its names were assigned from, takes a remainder (``(i + 1) %
        accum == 0``, ``at_boundary = step % n == 0`` then ``if at_boundary:``): a test that
        holds once in a period of passes."""
        return self.test is not None and any(
            isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
            for part in (self.test, *self.origins) for n in ast.walk(part))


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
    # a `while epoch < n:` loop's counter (`epoch += 1` at the top level of its body): the
    # index of the pass, as a `for` loop's target is
    counters: frozenset[str] = frozenset()
    batch: bool = False  # iterates a data loader (or is an iteration loop by its header)
    contains_batch: bool = False  # an epoch loop: some batch loop runs inside it
    # the body draws the next item of a data loader's iterator (`batch = next(it)` with `it =
    # iter(loader)` bound before): as a batch loop, one batch per pass, as `for b in loader` is.
    # The iterator's text, "" when it draws none
    draws_loader: str = ""
    id: int = field(default_factory=lambda: next(_ids))

    over_name: str = ""
    root: int = 0  # the trace it was entered in
    # how many passes a `for _ in range(...)` loop makes, when its bounds are numbers where it
    # runs (`range(5)`, `range(self.n_epochs)` with the instance built with 5); None otherwise
    passes: int | None = None
    # the names where the loop's header is read (a function's, with its call's arguments)
    scope: Any = None

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

    def frame_of(self, loop: Loop) -> Frame | None:
        """The call of the function that runs ``loop`` which this call happened in (None for a
        loop of module-level code, or when no such call is known). A loop is one object for
        every call of its function: two calls of ``run_stage()`` run two passes through the
        same loop, told apart by this frame."""
        return self.frame_at(loop.path, loop.line)

    def frame_at(self, path: str, line: int) -> Frame | None:
        """The call (this call's own, or one of its callers) of the function whose body holds
        ``line`` of ``path``; None for module-level code or when no such call is known."""
        frame = self.frame
        while frame is not None:
            fn = frame.fn
            if fn is not None and frame.path == path \
                    and fn.lineno <= line <= (fn.end_lineno or fn.lineno):
                return frame
            frame = frame.parent
        return None


@dataclass(eq=False)
class Frame:
    """One traced function call (module-level code has no frame): the function, and where
    known the call in the code that made it, so a rule can read what the caller passed for a
    parameter (``step_plateau(scheduler, val_loss)`` hands ``val_loss`` to ``metric``)."""

    parent: Frame | None
    fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    path: str = ""  # the file ``fn`` is written in
    call: ast.Call | None = None  # the call that made it (None: an entry point, a library's)
    call_path: str = ""  # the file ``call`` is written in
    # how many of ``fn``'s leading positional parameters the call's own arguments do not
    # fill (``self`` / ``cls``, arguments a functools.partial gave ahead)
    skipped: int = 0
    # the call bound what a project function with an empty body returns (`part =
    # self.check_batch(batch)` where the class's `check_batch` is `pass`): a value built here
    # may be built from nothing
    binds_nothing: bool = False
    # the settings its parameters hold as the call handed them over (the scope's dict: a name
    # the function rebinds leaves it), for a call it makes that passes one on by name
    handed: dict[str, str] = field(default_factory=dict)

    def argument(self, param: str) -> ast.expr | None:
        """The expression the call passed for ``fn``'s parameter ``param``, or None (not
        passed, passed through ``*xs`` / ``**kw``, or no call known)."""
        call, fn = self.call, self.fn
        if call is None or fn is None:
            return None
        positional = [p.arg for p in [*fn.args.posonlyargs, *fn.args.args]][self.skipped:]
        starred = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Starred)),
                       len(call.args))
        if param in positional:
            at = positional.index(param)
            if at < starred:
                return call.args[at]
            if starred < len(call.args):
                return None  # where `*xs` ends is not known
        for kw in call.keywords:
            if kw.arg == param:
                return kw.value
        return None


def impossible_path(conds: tuple[Cond, ...]) -> bool:
    """Whether the branches ``conds`` (one path: a caller's branches, then those of the
    function it called) need a string setting of one object, not assigned between the tests,
    to hold values it cannot hold at once: `if self.cfg.mode != "a": self.helper(self.cfg)`
    with `if cfg.mode == "a": sched.step()` in the helper. Code there never runs."""
    seen: dict[tuple[int, str, int], tuple[frozenset[str] | None, frozenset[str]]] = {}
    for c in conds:
        for holder, name, version, values, inside in c.strings:
            key = (id(holder), name, version)
            must, cannot = seen.get(key, (None, frozenset()))
            if inside:
                must = values if must is None else must & values
            else:
                cannot = cannot | values
            if must is not None and (not must or must <= cannot):
                return True
            seen[key] = (must, cannot)
    return False


def exclusive(a: Event, b: Event, parts: bool = False) -> bool:
    """True when the two calls cannot both run in one pass: different branches of one ``if``,
    or branches of two ``if``s that test the same flag (nothing reassigned between) with
    opposite outcomes (``if args.amp: ...`` / ``if not args.amp: ...``, ``epoch < warmup`` /
    ``epoch >= warmup``). ``parts``: also what a branch says of each part of an ``and`` /
    ``or`` test (Cond.parts)."""
    branches = {c.key: c.branch for c in a.conds}
    if any(c.key in branches and branches[c.key] != c.branch for c in b.conds):
        return True
    return facts_contradict(a.conds, b.conds, parts)


def facts_contradict(a: tuple[Cond, ...], b: tuple[Cond, ...], parts: bool = False) -> bool:
    """Whether the branches ``a`` and ``b`` need one flag (nothing reassigned between) with
    opposite truths: ``if args.amp:`` / ``if not args.amp:``, ``x is None`` / ``x is not
    None``; or numeric bounds on one value that no number meets together (``cfg.every ==
    0`` / ``cfg.every > 0``, see bounds_contradict)."""
    facts = {(f[0], f[1]): f[2] for c in a for f in _facts(c, parts)}
    if any(facts.get((f[0], f[1]), f[2]) != f[2] for c in b for f in _facts(c, parts)):
        return True
    return bounds_contradict(a, b)


# a numeric bound a branch taken puts on a value: (the value's source, its version as
# flag_version gives it, the comparison's name, "Eq" / "NotEq" / "Lt" / "LtE" / "Gt" /
# "GtE", or "Truth" for the value tested itself, or "Div" for a value divided by, the number,
# whether the comparison holds)
Bound = tuple[str, Any, str, float, bool]

_FLIPPED = {"Lt": "Gt", "LtE": "GtE", "Gt": "Lt", "GtE": "LtE", "Eq": "Eq", "NotEq": "NotEq"}
# the comparison that holds exactly where another does not (`a != b` for `a == b`)
OPPOSITE_OPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE,
    ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_OPPOSITE = {k.__name__: v.__name__ for k, v in OPPOSITE_OPS.items()}


def bounds_of(test: ast.expr, branch: int, version_of: Callable[[str], Any]) -> tuple[Bound, ...]:
    """The numeric bounds the branch ``branch`` (0: the body, 1: the ``else``) of ``if
    test:`` puts on plain values (a name or an attribute chain): a comparison of one with a
    number (``cfg.every == 0``; every part of a true ``and``, of a false ``or``), and a
    value the test divided by (``n % cfg.every``, ``//``, ``/``) in a part that surely ran:
    Python raises ZeroDivisionError for 0, so where the branch runs the value is not 0."""
    holds, whole = branch == 0, test
    while isinstance(whole, ast.UnaryOp) and isinstance(whole.op, ast.Not):
        holds, whole = not holds, whole.operand
    out: list[Bound] = []
    if isinstance(whole, ast.BoolOp):
        every = isinstance(whole.op, ast.And) == holds  # each part has the truth `holds`
        if every:
            for part in whole.values:
                out.extend(_compared_bound(part, holds, version_of))
        ran = whole.values if every else whole.values[:1]  # the first part always runs
    else:
        out.extend(_compared_bound(whole, holds, version_of))
        ran = [whole]
    for part in ran:
        out.extend(_divisor_bounds(part, version_of))
    return tuple(out)


def _bound_subject(node: ast.expr) -> str | None:
    """The source of a name or an attribute chain of names (``cfg.val_every``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _bound_subject(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _number(node: ast.expr) -> float | None:
    """The value of a numeric literal (``0``, ``-1``, ``0.5``; not ``True``)."""
    sign = 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        sign = -1 if isinstance(node.op, ast.USub) else 1
        node = node.operand
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return sign * node.value
    return None


def _compared_bound(node: ast.expr, holds: bool, version_of: Callable[[str], Any]
                    ) -> list[Bound]:
    while isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        holds, node = not holds, node.operand
    subject = _bound_subject(node)
    if subject is not None:
        return [(subject, version_of(subject), "Truth", 0, holds)]  # `if cfg.every:`
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1):
        return []
    op = type(node.ops[0]).__name__
    if op not in _FLIPPED:
        return []
    left, right = node.left, node.comparators[0]
    value = _number(right)
    if value is None:
        value, left, op = _number(left), right, _FLIPPED[op]  # `0 == cfg.every`
    subject = _bound_subject(left)
    if value is None or subject is None:
        return []
    return [(subject, version_of(subject), op, value, holds)]


def _divisor_bounds(node: ast.expr, version_of: Callable[[str], Any]) -> list[Bound]:
    return [(subject, version_of(subject), "Div", 0, True) for subject in _divisors(node)]


@per_node  # asked at every run of every `if` the trace takes (both branches)
def _divisors(node: ast.expr) -> tuple[str, ...]:
    """The plain values ``node`` divides by (``n % cfg.every``, ``//``, ``/``)."""
    out: list[str] = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Mod, ast.FloorDiv, ast.Div)) \
                and not (isinstance(sub.left, (ast.Constant, ast.JoinedStr))
                         and isinstance(getattr(sub.left, "value", ""), str)):
            # (`"%d" % n` formats a string: no division there)
            subject = _bound_subject(sub.right)
            if subject is not None:
                out.append(subject)
    return tuple(out)


def bounds_contradict(a: tuple[Cond, ...], b: tuple[Cond, ...]) -> bool:
    """Whether the numeric bounds the branches ``a`` and ``b`` put on one value (its source
    and version the same: nothing rebound between) admit no number, while each side's own
    bounds admit one: ``cfg.every == 0`` and ``cfg.every > 0`` (or ``n % cfg.every``)."""
    mine = [x for c in a for x in c.bounds]
    theirs = [x for c in b for x in c.bounds]
    if not mine or not theirs:
        return False
    keys = {(x[0], x[1]) for x in mine} & {(x[0], x[1]) for x in theirs}
    for key in keys:
        own_a = [x for x in mine if (x[0], x[1]) == key]
        own_b = [x for x in theirs if (x[0], x[1]) == key]
        if _admits_a_number(own_a) and _admits_a_number(own_b) \
                and not _admits_a_number(own_a + own_b):
            return True
    return False


def _admits_a_number(bounds: list[Bound]) -> bool:
    """Whether some real number meets every bound."""
    low, low_open = float("-inf"), True
    high, high_open = float("inf"), True
    equal: set[float] = set()
    unequal: set[float] = set()
    falsy = numeric = False
    for _, _, op, value, holds in bounds:
        if op == "Truth":
            # a truthy value is not 0 (nor equal to it); a falsy one is 0 if it is a number
            falsy = falsy or not holds
            if holds:
                unequal.add(0)
            continue
        if op == "Div":
            # divided by without ZeroDivisionError (a TypeError for None, "", []): a number,
            # not 0
            numeric = True
            unequal.add(0)
            continue
        if not holds:
            op = _OPPOSITE[op]
        # an order, or equality with a number, holds only for numbers (`None > 0` raises)
        numeric = numeric or op in ("Lt", "LtE", "Gt", "GtE", "Eq")
        if op == "Eq":
            equal.add(value)
        elif op == "NotEq":
            unequal.add(value)
        elif op in ("Gt", "GtE"):
            if value > low or (value == low and op == "Gt"):
                low, low_open = value, op == "Gt"
        elif value < high or (value == high and op == "Lt"):
            high, high_open = value, op == "Lt"
    if falsy and numeric:
        equal.add(0)
    if len(equal) > 1:
        return False
    if equal:
        (x,) = equal
        return x not in unequal and (low < x or (low == x and not low_open)) \
            and (x < high or (x == high and not high_open))
    if low < high:
        return True  # an interval holds infinitely many numbers, past any finite exclusions
    return low == high and not low_open and not high_open and low not in unequal


def _facts(c: Cond, parts: bool) -> Iterator[tuple[str, tuple[Any, ...], bool]]:
    """The facts of a branch taken; with ``parts``, also what it says of each part of an
    `and` / `or` test (see Cond.parts). Only LRD012 asks for the parts so far: read
    everywhere, they also set a DeepSpeed engine's save apart from the plain path's save of the
    scheduler (`if self.deepspeed:` / `elif ... and not self.deepspeed:`), correctly, and so
    unmasked an LRD007 that names the plain path's scheduler, which DeepSpeed runs never build
    (the two paths hang on two flags, `args.deepspeed` and `self.deepspeed`, that lrdoctor does
    not tie together)."""
    if c.fact is not None:
        yield c.fact
    if parts:
        yield from c.parts


def setting_tests(conds: tuple[Cond, ...]) -> dict[str, tuple[frozenset[str] | None, frozenset[str]]]:
    """What the branches taken say about settings compared with strings, by the setting's
    last name (`opt.lr_policy` and `self.opt.lr_policy` are one setting): the values it must
    have (None: any) and the values it cannot have."""
    out: dict[str, tuple[frozenset[str] | None, frozenset[str]]] = {}
    for c in conds:
        test = c.test
        if isinstance(test, ast.BoolOp) and c.table is None and (
                isinstance(test.op, ast.And) == (c.branch == 0)):
            # the body of `if A and B:` runs only where each of A and B holds, the else of
            # `if A or B:` only where neither does: each comparison among them says its part
            for part in test.values:
                if isinstance(part, ast.Compare) and len(part.ops) == 1:
                    _compared(out, part, c.branch == 0, None)
            continue
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            continue
        if c.table is not None:
            # `KINDS[cfg.kind] == "StepLR"`: `cfg.kind in (the keys of that entry)`
            op = test.ops[0]
            if isinstance(op, (ast.Eq, ast.In, ast.NotEq, ast.NotIn)):
                setting, keys = c.table
                _narrow(out, setting, keys, (c.branch == 0) == isinstance(op, (ast.Eq, ast.In)))
            continue
        _compared(out, test, c.branch == 0, c.alias, c.section)
    return out


def _compared(out: dict[str, tuple[frozenset[str] | None, frozenset[str]]], test: ast.Compare,
              holds: bool, alias: str | None, section: str | None = None) -> None:
    """Record in ``out`` what the comparison ``test`` of a setting with strings says, where
    it holds (``holds``) or where it does not. A generic selector read from a known section
    of the configuration is recorded as ``type@scheduler`` (see settings_disagree)."""
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Constant) and isinstance(op, (ast.Eq, ast.NotEq)):
        left, right = right, left
    key = _setting_key(left)
    if not key:
        return
    if section and key.lower() in SELECTOR_KEYS:
        key = f"{key}@{section}"
    if isinstance(right, ast.Constant) and isinstance(right.value, str):
        values = frozenset({right.value})
    elif isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in right.elts):
        values = frozenset(e.value for e in right.elts)  # type: ignore[attr-defined]
    else:
        return
    if isinstance(op, (ast.Eq, ast.In)):
        positive = holds
    elif isinstance(op, (ast.NotEq, ast.NotIn)):
        positive = not holds
    else:
        return
    if isinstance(op, (ast.Eq, ast.NotEq)) and len(values) != 1:
        return
    for name in (key, alias) if alias and alias != key else (key,):
        _narrow(out, name, values, positive)


def _narrow(out: dict[str, tuple[frozenset[str] | None, frozenset[str]]], name: str,
            values: frozenset[str], inside: bool) -> None:
    """Record in ``out[name]`` (the values the setting must be among, None for any; the ones
    it cannot be) that it is among ``values`` (``inside``) or none of them."""
    must, cannot = out.get(name, (None, frozenset()))
    if inside:
        must = values if must is None else must & values
    else:
        cannot = cannot | values
    out[name] = (must, cannot)


def setting_key(node: ast.expr) -> str | None:
    """The setting an expression reads (see ``_setting_key``), for an attribute chain, a
    subscript with a string key or a ``.get("key")``; None for a bare name or anything
    else."""
    return None if isinstance(node, ast.Name) else _setting_key(node)


def _setting_key(node: ast.expr) -> str | None:
    """The name of the setting a test reads: the last name of `cfg.sched` / `args.sched`,
    the key of `config["sched"]` or `config.get("sched")`."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = dotted(node)
        return name.rsplit(".", 1)[-1] if name else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str):
        return node.slice.value
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and type(node.slice.value) is int:
        # `args.scheduler[0]` of `--scheduler NAME FACTOR` (nargs=2): one element of a setting
        inner = _setting_key(node.value)
        return f"{inner}[{node.slice.value}]" if inner else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


# the last names of settings that pick a class in every section of a registry-style
# configuration (`cfg.optimizer.type`, `cfg.scheduler.type`, `cfg.model.name`): one name, as
# many settings as sections
SELECTOR_KEYS = frozenset({"type", "name", "kind", "_target_", "target", "cls", "class",
                           "mode", "method", "arch"})


def _same_setting(a: str, b: str) -> bool:
    """``type@scheduler`` and ``type@training`` are two settings; ``type`` read where the
    section is not known may be either."""
    if a == b:
        return True
    name_a, at_a, _ = a.partition("@")
    name_b, at_b, _ = b.partition("@")
    return name_a == name_b and not (at_a and at_b)


def settings_disagree(a: dict[str, tuple[frozenset[str] | None, frozenset[str]]],
                      b: dict[str, tuple[frozenset[str] | None, frozenset[str]]]) -> bool:
    """Whether two sets of branches need a string setting to hold values it cannot hold at
    once (`lr_policy == "step"` against `lr_policy == "plateau"`, or against its else)."""
    for key_a, key_b in ((x, y) for x in a for y in b if _same_setting(x, y)):
        must_a, cannot_a = a[key_a]
        must_b, cannot_b = b[key_b]
        if must_a is not None and must_b is not None and not must_a & must_b:
            return True
        if must_a is not None and must_a <= cannot_b:
            return True
        if must_b is not None and must_b <= cannot_a:
            return True
    return False


def built_apart(a: tuple[Cond, ...], b: tuple[Cond, ...]) -> bool:
    """Whether code on the branches ``a`` and code on the branches ``b`` never both run: they
    need one string setting to hold values it cannot hold at once (see settings_disagree)."""
    return settings_disagree(setting_tests(a), setting_tests(b))


# the negative comparisons, each with the positive one it denies
_NEGATED: dict[type[ast.cmpop], type[ast.cmpop]] = {
    op: OPPOSITE_OPS[op] for op in (ast.GtE, ast.LtE, ast.NotEq, ast.IsNot, ast.NotIn)}


def flag_of(test: ast.expr) -> tuple[str, bool, list[str]] | None:
    """(the flag's source, whether ``test`` asserts it, the names it reads) for a test on one
    flag: a name, an attribute, a subscript with a constant key, ``not`` of one, or one
    comparison; an ``and``/``or`` of such tests is one flag too (``hasattr(cfg, "deepspeed")
    and cfg.deepspeed.enable`` tested twice with nothing rebound between has one outcome);
    None for anything else (other calls)."""
    truth = True
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, truth = test.operand, not truth
    if isinstance(test, ast.BoolOp):
        parts = [flag_of(v) for v in test.values]
        if any(p is None for p in parts):
            return None
        texts = [("" if p[1] else "not ") + p[0] for p in parts if p is not None]
        names = [name for p in parts if p is not None for name in p[2]]
        return f"{type(test.op).__name__}({', '.join(texts)})", truth, names
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


_PURE_TESTS = frozenset({"hasattr", "isinstance", "callable"})


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
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _PURE_TESTS and not node.keywords and node.args:
        # `hasattr(cfg, "deepspeed")`: a builtin whose answer only its arguments decide
        args = [_plain(a, read, depth + 1) for a in node.args]
        if any(a is None for a in args):
            return None
        if node.func.id == "hasattr" and len(node.args) == 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            read.append(f"{args[0]}.{node.args[1].value}")  # an attribute set between counts
        return f"{node.func.id}({', '.join(a for a in args if a is not None)})"
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
    # where this file's trace stands in for others (see runner.merge_results): the functions of
    # other files it traced whole from a call that passed arguments, as (path, line of the
    # def); and the functions it traced (this file's, and other files' reached from a root of
    # this file), as (path, first line, last line, the roots that reached each: the line of
    # this file's function traced as a root, or None for the module's own code)
    entered: frozenset[tuple[str, int]] = frozenset()
    reached: tuple[tuple[str, int, int, frozenset[tuple[str, int] | None]], ...] = ()
    # branches the trace left out because a parameter kept the literal default its caller did
    # not pass, as (path, first line, last line): code offered to other callers
    skipped: frozenset[tuple[str, int, int]] = frozenset()
    # schedulers a library's trainer steps after every optimizer step: a Hugging Face
    # Trainer (handed to it in `optimizers=`, or built by its `create_scheduler`) or
    # detectron2's DefaultTrainer (built by its `build_lr_scheduler`): (node, path, scheduler,
    # the run's epochs where its TrainingArguments state them, the trainer in words)
    hf_stepped: tuple[tuple[ast.AST, str, Obj, float | None, str], ...] = ()
    # each assignment of a name that says validation (`val_loss`, `self.state.valid_loss`)
    # the trace ran: (the name, path, line, column, the root that ran it, whether the call it
    # ran in bound what an empty method returns); assignments a replayed summary stands for
    # are not among them
    validation_sites: tuple[tuple[str, str, int, int, int, bool], ...] = ()
    # where each name that says validation was bound or called, replayed summaries included:
    # (the name, the root that ran it, the loop it ran in, None outside any loop)
    validation_runs: tuple[tuple[str, int, Loop | None], ...] = ()
    # the roots that trace a class's instance: (the root, the classes of its lineage as
    # (path, line of the class statement), the class itself first)
    root_classes: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = ()

    def of(self, kind: str, obj: Obj | None = None) -> list[Event]:
        return [e for e in self.events if e.kind == kind and (obj is None or e.obj is obj)]


def calling_scope(frame: Frame | None) -> Frame | None:
    """The outermost call that the code of ``frame`` runs in: up the callers while a call in
    the code made the frame, to the entry point's frame, or to module-level code (None, every
    event of the trace) when the chain of calls starts there. What a function does is done
    for whatever its callers run afterwards."""
    while frame is not None and frame.call is not None:
        if frame.parent is None:
            return None  # called from module-level code
        frame = frame.parent
    return frame
