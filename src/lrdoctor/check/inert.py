"""Calls whose trace finds nothing, kept to be skipped the next time they are made alike.

Most of the time of a whole-repository check goes into tracing project code that does
nothing lrdoctor follows (a model's constructor, a pipeline base's ``from_pretrained``), the
same code again for every test function, every subclass and every file that reaches it. A
call is *inert* when its trace emitted no event, built no tracked object, guessed none, was
not cut short and changed nothing outside itself but plain values written on the instances
it was given. Its outcome then depends only on what it read: the plain values and project
instances it was given, and the attributes it read of those instances (and of the instances
they hold). A later call of the same function given values that resolve every one of those
reads the same way traces the same way: it is skipped, and what the trace left in the tracer
is applied instead (names bound and called, functions visited, modules followed, statements
spent, the plain values written, the value returned).

Paths name what a trace read: ``b.`` the bound instance, ``a0.`` the first argument,
``k:lr.`` the keyword ``lr``, ``b.unet.`` the instance ``self.unet`` holds; ``b.epochs`` is
the attribute ``epochs`` of the bound instance.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from lrdoctor.check import names
from lrdoctor.check.values import (
    ClassVal,
    Const,
    DictVal,
    ExprVal,
    FuncVal,
    ImportRef,
    InstanceVal,
    TupleVal,
)

MAX_KEPT = 8  # inert traces kept per function and arguments


def read_key(value: Any, depth: int = 0) -> Any:
    """What a value is, for comparing two calls or instances (None: a value whose identity
    matters: a tracked object, a bound method, a closure)."""
    if isinstance(value, InstanceVal):
        # what the trace reads of it (its methods, through its class, and its attributes) is
        # compared in turn; not inside a container
        return ("inst",) if depth == 0 else None
    if isinstance(value, (TupleVal, DictVal)):
        # a list or dict of plain values, compared item by item (the trace never changes it)
        if depth > 3:
            return None
        pairs = enumerate(value.items) if isinstance(value, TupleVal) else value.items.items()
        items = []
        for k, v in pairs:
            found = read_key(v, depth + 1)
            if found is None:
                return None
            items.append((k, found))
        if isinstance(value, TupleVal):
            return ("tuple", tuple(items))
        return ("dict", tuple(items), value.splat, value.open)
    if value is None:
        return ("none",)
    if isinstance(value, Const):
        try:
            hash(value.value)
        except TypeError:
            return None
        return ("const", type(value.value), value.value, value.sure)
    if isinstance(value, ExprVal):
        if value.attrs:
            return None  # it holds objects the code stored on it (`args.amp = GradScaler()`)
        return ("expr", value.node)  # its scope is only read to judge a built object's horizon
    if isinstance(value, ImportRef):
        return ("import", value.qualname)
    if isinstance(value, ClassVal):
        return ("class", value.info)
    if isinstance(value, FuncVal) and value.bound is None and value.closure is None \
            and value.preset is None:
        return ("func", value.fn, value.module, value.cls)
    return None


def written_key(value: Any) -> Any:
    """What a value written on an instance (or returned) is, when the same value object can
    stand for it at another call (None: one that belongs to where it was computed or can
    change)."""
    if isinstance(value, (ExprVal, InstanceVal, TupleVal, DictVal)):
        return None  # it keeps the scope it was computed in / it is mutable
    return read_key(value)


# the levels of a kept list or dict copied for each call it stands for; the lists and dicts
# below are shared by those calls (a result that nests the results of the calls it made, level
# after level, would otherwise be copied whole at every call: twice the work per level)
MAX_COPY_DEPTH = 3


def result_form(value: Any, rec: Recording) -> Any:
    """How the value a kept call returned is given back at a later call it stands for (None:
    it cannot be): ``("same", v)`` a value any call can share; ``("root", path)`` one of the
    instances it was given (``return self``), the one given at that call; ``("copy", v)`` a
    list or dict of such values built inside the call, copied for each call, since a caller
    may change its own. A value known only by its source (``ExprVal``) is shared: the calls
    it stands for were given the same plain values, and the instances they were given resolve
    every attribute the trace read the same way."""
    if isinstance(value, InstanceVal):
        for path, instance in rec.roots.items():
            if instance is value:
                return ("root", path)
        return None
    return plain_form(value, rec)


def plain_form(value: Any, rec: Recording) -> Any:
    """The form of a value that is not an instance: ``("same", v)`` for one any call can share
    (a plain value, or one known by its source), ``("copy", v)`` for a list or dict of such
    values built inside the call; None otherwise."""
    if _plain(value):
        return ("same", value)
    if isinstance(value, (TupleVal, DictVal)) and _copyable(value, rec):
        return ("copy", value)
    return None


def _plain(value: Any) -> bool:
    return written_key(value) is not None or isinstance(value, ExprVal) and not value.attrs


def _copyable(value: TupleVal | DictVal, rec: Recording) -> bool:
    """Whether every list or dict in ``value`` (itself included, at any depth) was built inside
    the call and holds only plain values and such lists and dicts. Each is looked at once,
    however often it is shared, so a result made of shared parts costs what its parts do."""
    seen: set[int] = set()
    todo: list[Any] = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, (TupleVal, DictVal)):
            if id(item) in seen:
                continue
            if id(item) in rec.containers:
                return False  # one given or read: its identity is the caller's
            seen.add(id(item))
            todo.extend(item.items if isinstance(item, TupleVal) else item.items.values())
        elif not _plain(item):
            return False
    return True


def settle(form: Any, rec: Recording) -> Any:
    """A form as kept once the call returned (None: it no longer holds): a list or dict is
    checked again (the call may have changed it after writing it) and copied, so that what
    its caller then does with its own does not change the kept one (below MAX_COPY_DEPTH
    levels, parts are shared with the caller's: a change made that deep is not undone)."""
    if form is None or form[0] != "copy":
        return form
    return ("copy", _copy(form[1])) if _copyable(form[1], rec) else None


def give_back(form: Any, held: dict[str, InstanceVal]) -> Any:
    """The value a kept call's result form stands for at the call it is skipped at."""
    how, value = form
    if how == "root":
        return held[value]
    if how == "copy":
        return _copy(value)
    return value


def _copy(value: Any, depth: int = 0) -> Any:
    """A list or dict copied to MAX_COPY_DEPTH levels; the lists and dicts below are shared."""
    if depth >= MAX_COPY_DEPTH:
        return value
    if isinstance(value, TupleVal):
        return TupleVal([_copy(v, depth + 1) for v in value.items])
    if isinstance(value, DictVal):
        return DictVal({k: _copy(v, depth + 1) for k, v in value.items.items()},
                       value.splat, value.open)
    return value


def resolve_read(instance: InstanceVal, attr: str) -> Any:
    """What ``instance.attr`` resolves to without tracing anything: a value it holds, a
    method (with its class), or nothing at all; None when reading it would compute or guess
    a value (see Tracer.attribute_of)."""
    if attr in instance.attrs:
        key = read_key(instance.attrs[attr])
        return None if key is None else ("attr", key)
    found = instance.info.find(attr)
    if found is not None:
        return ("method", found[0], found[1])
    if attr in instance.info.self_assigns or names.guess_kind_from_name(f"self.{attr}"):
        return None
    return ("miss",)


@dataclass(eq=False)
class Recording:
    """One call being traced: what it read of the instances it was given, what it wrote on
    them, and what it left in the tracer besides events."""

    roots: dict[str, InstanceVal]  # "b." / "a0." / "k:name." -> the instance given
    depth: int  # the tracer's call depth when it started
    reads: dict[str, Any] = field(default_factory=dict)  # path -> what it resolved to first
    # path -> the form (see result_form) of the plain value written last
    writes: dict[str, Any] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    visited: set[ast.AST] = field(default_factory=set)  # held: ids of freed nodes are reused
    followed: set[str] = field(default_factory=set)
    assigned: set[str] = field(default_factory=set)
    called: set[str] = field(default_factory=set)
    lowest: int = 0  # the fewest statements left to the trace at any point inside
    deepest: int = 0  # the deepest call depth reached inside
    # id -> (instance, path) of the instances given and those they hold; the same by the id
    # of the instance's attribute dict (a write finds its instance by it)
    watched: dict[int, tuple[InstanceVal, str]] = field(default_factory=dict)
    stores: dict[int, tuple[InstanceVal, str]] = field(default_factory=dict)
    # lists and dicts given or read, by id: the trace must not change them
    containers: dict[int, Any] = field(default_factory=dict)
    # it read a value it cannot compare, changed a held instance or container, replayed a
    # summary (whose reads are not known), met a recursion from outside ...
    spoiled: bool = False

    def __post_init__(self) -> None:
        self.deepest = self.depth
        for path, instance in self.roots.items():
            if id(instance) in self.watched:
                self.spoiled = True  # one instance given twice
            self.watch(instance, path)

    def watch(self, instance: InstanceVal, path: str) -> None:
        self.watched[id(instance)] = (instance, path)
        self.stores[id(instance.attrs)] = (instance, path)

    def path_of(self, instance: InstanceVal) -> str | None:
        found = self.watched.get(id(instance))
        return found[1] if found is not None and found[0] is instance else None

    # once spoiled, a recording is thrown away: what it would note is not needed

    def read(self, instance: InstanceVal, prefix: str, attr: str) -> None:
        key = prefix + attr
        if self.spoiled or key in self.reads or key in self.writes:
            return
        seen = resolve_read(instance, attr)
        if seen is None:
            self.spoiled = True
            return
        self.reads[key] = seen
        if seen[0] == "attr" and seen[1][0] in ("tuple", "dict"):
            self.hold(instance.attrs[attr])
        if seen[0] == "attr" and seen[1][0] == "inst":
            held = instance.attrs[attr]
            if id(held) in self.watched:  # one instance reached two ways
                self.spoiled = True
            else:
                self.watch(held, key + ".")

    def hold(self, value: Any) -> None:
        if isinstance(value, (TupleVal, DictVal)):
            self.containers[id(value)] = value
            for item in (value.items if isinstance(value, TupleVal) else value.items.values()):
                self.hold(item)

    def mutate(self, container: Any) -> None:
        if self.spoiled:
            return
        found = self.containers.get(id(container))
        if found is not None and found is container:
            self.spoiled = True

    def write(self, store: dict[str, Any], attr: str, value: Any) -> None:
        if self.spoiled:
            return
        found = self.stores.get(id(store))
        if found is None or found[0].attrs is not store:
            return  # an instance built inside
        instance, path = found
        if path not in self.roots:
            self.spoiled = True  # an instance held by one given
            return
        self.read(instance, path, attr)  # what it held before is read (and compared)
        # a value known by its source is shared, as when returned; a list or dict of plain
        # values built inside (`self.meta = {}`) is copied for each call it stands for (and
        # checked again when the call returns); an instance written spoils the recording
        form = plain_form(value, self)
        if form is None:
            self.spoiled = True
        else:
            self.writes[path + attr] = form


@dataclass(eq=False)
class Inert:
    """A call found inert, and what to apply in place of tracing it again."""

    reads: dict[str, Any]
    writes: dict[str, Any]
    versions: dict[str, int]
    assigned: frozenset[str]
    called: frozenset[str]
    visited: frozenset[ast.AST]
    followed: frozenset[str]
    spent: int  # statements
    need: int  # statements it needed left at the start (some are given back)
    created: int  # instances holding objects, built inside
    generation: int  # rebinds of tracked values, inside
    deeper: int  # how much deeper than the call its trace went
    result: Any  # its form (see result_form)
    cuts: int = 0  # calls cut short inside it by MAX_CALL_DEPTH ...
    at_depth: int | None = None  # ... when made at this call depth (then kept for it alone)

    def matches(self, roots: dict[str, InstanceVal]) -> dict[str, InstanceVal] | None:
        """The instances read, by path, when those given at another call resolve every read
        the same way (else None)."""
        held: dict[str, InstanceVal] = dict(roots)
        for key, seen in self.reads.items():
            prefix, _, attr = key.rpartition(".")
            owner = held.get(prefix + ".")
            if owner is None or resolve_read(owner, attr) != seen:
                return None
            if seen[0] == "attr" and seen[1][0] == "inst":
                inner = owner.attrs[attr]
                if any(inner is other for other in held.values()):
                    return None  # reached two ways here, not where the trace was kept
                held[key + "."] = inner
        return held

    def written(self, held: dict[str, InstanceVal]) -> dict[str, Any]:
        """The plain values the call wrote, by path, as given back at this call."""
        return {key: give_back(form, held) for key, form in self.writes.items()}

    @staticmethod
    def write_on(roots: dict[str, InstanceVal], written: dict[str, Any]) -> None:
        for key, value in written.items():
            prefix, _, attr = key.rpartition(".")
            roots[prefix + "."].attrs[attr] = value


def call_key(bound: InstanceVal | None, args: list[Any], kwargs: dict[str, Any]
             ) -> tuple[tuple[Any, ...], dict[str, InstanceVal]] | None:
    """What a call is given, to compare calls (None: something whose identity matters), and
    the instances given, by path."""
    roots: dict[str, InstanceVal] = {}
    keys: list[Any] = []
    given = [("b.", bound)] if bound is not None else []
    given += [(f"a{i}.", a) for i, a in enumerate(args)]
    given += [(f"k:{k}.", kwargs[k]) for k in sorted(kwargs)]
    for path, value in given:
        key = read_key(value)
        if key is None:
            return None
        if isinstance(value, InstanceVal):
            roots[path] = value
        keys.append((path, key))
    return tuple(keys), roots
