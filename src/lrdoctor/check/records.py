"""The ``__init__`` Python writes for a record class: a ``@dataclass`` (or an ``attrs`` class)
without an ``__init__`` of its own, a ``typing.NamedTuple`` subclass, or a class made by
``collections.namedtuple`` / ``typing.NamedTuple("Name", [...])``. Its parameters are the annotated fields of
the class body in order (a dataclass's inherited fields first), and it stores each argument
as the attribute of the same name: ``TrainState(model, opt, sched)`` holds ``opt`` as
``state.optimizer`` exactly as a written ``self.optimizer = optimizer`` would."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from lrdoctor.check.index import ClassInfo, dotted

_DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
# attrs' decorators that read the annotated class attributes as the fields, as a dataclass
# does (``attr.s`` and ``attr.attrs`` only with ``auto_attribs=True``)
_ATTRS_DECORATORS = frozenset({
    f"{package}.{name}" for package in ("attr", "attrs")
    for name in ("define", "frozen", "mutable")} | {"attr.dataclass"})
_ATTRS_OPT_IN = frozenset({"attr.s", "attr.attrs", "attrs.s", "attrs.attrs"})
_NAMED_TUPLES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
# the functions that make a named tuple class from a name and its fields
NAMED_TUPLE_FACTORIES = frozenset({"collections.namedtuple", *_NAMED_TUPLES})
# the functions that copy a dataclass (attrs) record with some fields given anew
RECORD_COPIES = frozenset({"dataclasses.replace", "attr.evolve", "attrs.evolve"})
# bases that add no field and no __init__ of their own
_PLAIN_BASES = frozenset({"object", "typing.Generic", "abc.ABC"})


@dataclass(frozen=True)
class RecordInit:
    """The generated ``__init__``: the fields it takes by position (in order) and by keyword
    only, the ``InitVar`` pseudo-fields among them (handed to ``__post_init__``, not stored),
    and whether positions are known (no base class outside the project could add fields)."""

    positional: tuple[str, ...]
    keyword_only: frozenset[str]
    init_only: frozenset[str]
    positions_known: bool
    post_init: bool  # a dataclass: ``__post_init__`` runs after the fields are stored
    # the default each field declares (``eps: float = 1e-8``, ``field(default=1e-8)``)
    defaults: tuple[tuple[str, ast.expr], ...] = ()
    # the method run after the fields are stored: ``__attrs_post_init__`` for attrs (called
    # with no argument)
    post_init_name: str = "__post_init__"

    def bind(self, args: list[Any], kwargs: dict[str, Any], complete: bool
             ) -> dict[str, Any] | None:
        """The value each field is given by a call with ``args`` and ``kwargs`` (the fields
        it leaves out are not in it); None when the call cannot be matched to the fields (too
        many positions, an unknown keyword, positions not known)."""
        fields = set(self.positional) | self.keyword_only
        if len(args) > len(self.positional) or any(k not in fields for k in kwargs):
            return None
        given: dict[str, Any] = {}
        if args and not (complete and self.positions_known):
            return None  # `*rest` of unknown length, or fields a library base class adds
        for name, value in zip(self.positional, args):
            given[name] = value
        for name, value in kwargs.items():
            if name in given:
                return None  # given twice: a TypeError at run time
            given[name] = value
        return given

    def init_values(self, given: dict[str, Any]) -> list[Any]:
        """The ``InitVar`` values ``__post_init__`` receives, in the order of the fields."""
        order = [*self.positional, *sorted(self.keyword_only)]
        return [given.get(k) for k in order if k in self.init_only]


def record_init(cls: ClassInfo) -> RecordInit | None:
    """The ``__init__`` Python generates for ``cls``; None when ``cls`` is not a record class
    or writes its own ``__init__`` (a dataclass then keeps the written one)."""
    if "__init__" in cls.methods:
        return None
    if any(cls.module.qualify(base) in _NAMED_TUPLES for base in cls.bases):
        tuple_fields = _own_fields(cls.node, named_tuple=True)
        if tuple_fields is None:
            return None
        names, _, _, declared = tuple_fields
        return RecordInit(tuple(names), frozenset(), frozenset(), True, False,
                          tuple(declared.items()))
    options = _dataclass_options(cls)
    if options is None or not options.get("init", True):
        return None
    attrs = options.get(_ATTRS) is True
    order: dict[str, bool] = {}  # field -> keyword only, in the order of the generated init
    init_only: set[str] = set()
    defaults: dict[str, ast.expr] = {}
    known = True
    for current in reversed(list(cls.lineage())):
        unresolved = [b for b in current.bases
                      if current.module.qualify(b) not in _PLAIN_BASES]
        if len(current.base_classes()) < len(unresolved):
            known = False  # a library base class could be a dataclass with fields of its own
        own = _dataclass_options(current)
        if own is None:
            continue  # a plain base class: its annotations are not fields
        if (own.get(_ATTRS) is True) != attrs:
            return None  # a dataclass over an attrs class (or the other way): not modelled
        kw_all = bool(own.get("kw_only", False))
        own_fields = _own_fields(current.node, named_tuple=False, attrs=attrs)
        if own_fields is None:
            return None
        positional, keyword_only, pseudo, declared = own_fields
        for name in [*positional, *keyword_only]:
            defaults.pop(name, None)  # declared again: its own default, or none
        defaults.update(declared)
        if len(current.base_classes()) > 1:
            known = False  # several bases: the order of their fields follows the MRO
        for name in positional:
            order[name] = kw_all  # a field declared again keeps its first place
        for name in keyword_only:
            order[name] = True
        init_only |= pseudo
    return RecordInit(
        tuple(k for k, kw in order.items() if not kw),
        frozenset(k for k, kw in order.items() if kw),
        frozenset(init_only), known, True, tuple(defaults.items()),
        "__attrs_post_init__" if attrs else "__post_init__",
    )


def tuple_fields(cls: ClassInfo) -> tuple[str, ...] | None:
    """The fields of a named tuple class, in order: what unpacking an instance gives, item by
    item (``opt, sched = Parts(opt, sched)``); None for any other class."""
    if not any(cls.module.qualify(base) in _NAMED_TUPLES for base in cls.bases):
        return None
    generated = record_init(cls)
    return generated.positional if generated is not None else None


def _dataclass_options(cls: ClassInfo) -> dict[str, Any] | None:
    """The literal keyword options of ``cls``'s ``@dataclass`` decorator (``{}`` when it is
    bare); None when ``cls`` is not decorated as one."""
    for deco in cls.node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        qual = cls.module.qualify(dotted(target) or "")
        found: dict[str, Any] = {}
        if qual in _ATTRS_DECORATORS or qual in _ATTRS_OPT_IN:
            found[_ATTRS] = True
            if qual in _ATTRS_OPT_IN and not (isinstance(deco, ast.Call) and any(
                    kw.arg == "auto_attribs" and isinstance(kw.value, ast.Constant)
                    and kw.value.value is True for kw in deco.keywords)):
                return None  # `@attr.s` reads `attr.ib()` attributes only: not modelled
        elif qual not in _DATACLASS_DECORATORS:
            continue
        if isinstance(deco, ast.Call):
            for kw in deco.keywords:
                if kw.arg is None:
                    return None  # `@dataclass(**options)`: not known
                if isinstance(kw.value, ast.Constant):
                    found[kw.arg] = kw.value.value
                elif kw.arg in ("init", "kw_only"):
                    return None
        return found
    return None


_ATTRS = "<attrs>"  # the option that marks an attrs class
# attrs' field specifiers (dataclasses' `field` is read by its last name as well)
_FIELD_SPECIFIERS = frozenset({"field", "ib", "attrib"})


def _own_fields(node: ast.ClassDef, named_tuple: bool, attrs: bool = False
                ) -> tuple[list[str], list[str], set[str], dict[str, ast.expr]] | None:
    """The fields ``node``'s body declares: (those an ``__init__`` takes in order, those it
    takes by keyword only, the ``InitVar`` pseudo-fields, the defaults declared). A
    ``ClassVar`` is no field, nor is a ``field(init=False)``; the fields after a ``_: KW_ONLY``
    marker are keyword only. An attrs class whose ``__init__`` would take a field under
    another name (a private ``_name``, an ``alias=``) or that declares a field without an
    annotation (``x = attr.ib()``) gives None: not modelled."""
    positional: list[str] = []
    keyword_only: list[str] = []
    init_only: set[str] = set()
    defaults: dict[str, ast.expr] = {}
    kw_from_here = False
    for stmt in node.body:
        if attrs and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) \
                and (dotted(stmt.value.func) or "").rsplit(".", 1)[-1] in _FIELD_SPECIFIERS:
            return None  # `x = attr.ib()`: a field with no annotation
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        annotation = stmt.annotation
        head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
        last = (dotted(head) or "").rsplit(".", 1)[-1]
        if named_tuple:
            positional.append(stmt.target.id)
            if stmt.value is not None:
                defaults[stmt.target.id] = stmt.value
            continue
        if last == "ClassVar":
            continue
        if last == "KW_ONLY":
            kw_from_here = True
            continue
        if last == "InitVar":
            init_only.add(stmt.target.id)
        keyword = kw_from_here
        default = stmt.value
        if attrs and stmt.target.id.startswith("_"):
            return None  # attrs takes `_name` as the parameter `name`
        specifier = (dotted(stmt.value.func) or "").rsplit(".", 1)[-1] \
            if isinstance(stmt.value, ast.Call) else ""
        if isinstance(stmt.value, ast.Call) and (
                specifier == "field" or (attrs and specifier in _FIELD_SPECIFIERS)):
            options = {kw.arg: kw.value for kw in stmt.value.keywords}
            if attrs and ("alias" in options or None in options or stmt.value.args):
                return None  # another parameter name, or options not read
            init = options.get("init")
            if isinstance(init, ast.Constant) and init.value is False:
                continue
            kw_only = options.get("kw_only")
            if isinstance(kw_only, ast.Constant) and kw_only.value is True:
                keyword = True
            default = options.get("default")  # a `default_factory` builds a new value each time
        if default is not None:
            defaults[stmt.target.id] = default
        (keyword_only if keyword else positional).append(stmt.target.id)
    return positional, keyword_only, init_only, defaults


def functional_record(stmt: ast.stmt, qualify: Any) -> tuple[str, ast.ClassDef] | None:
    """The class ``Name = collections.namedtuple("Name", ["a", "b"])`` (or ``"a b"``, ``"a,
    b"``) or ``Name = typing.NamedTuple("Name", [("a", T), ...])`` makes, written out as the
    ``class Name(typing.NamedTuple)`` with those fields it amounts to (located at the call);
    None for anything else: fields not written as literals, ``rename=``, ``defaults=`` (the
    defaults are not read), a type name other than the name bound."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Call)):
        return None
    call = stmt.value
    name = stmt.targets[0].id
    qual = qualify(dotted(call.func) or "")
    if qual not in NAMED_TUPLE_FACTORIES or len(call.args) != 2 or call.keywords:
        return None
    typename, spec = call.args
    if not (isinstance(typename, ast.Constant) and typename.value == name):
        return None
    fields: list[str] = []
    if qual == "collections.namedtuple" and isinstance(spec, ast.Constant) \
            and isinstance(spec.value, str):
        fields = spec.value.replace(",", " ").split()
    elif isinstance(spec, (ast.List, ast.Tuple)):
        for elt in spec.elts:
            if qual == "collections.namedtuple" and isinstance(elt, ast.Constant) \
                    and isinstance(elt.value, str):
                fields.append(elt.value)
            elif qual != "collections.namedtuple" and isinstance(elt, ast.Tuple) \
                    and len(elt.elts) == 2 and isinstance(elt.elts[0], ast.Constant) \
                    and isinstance(elt.elts[0].value, str):
                fields.append(elt.elts[0].value)
            else:
                return None
    else:
        return None
    if not fields or len(set(fields)) != len(fields) or not all(
            f.isidentifier() and not f.startswith("_") for f in fields):
        return None
    body: list[ast.stmt] = [
        ast.AnnAssign(target=ast.Name(id=f, ctx=ast.Store()),
                      annotation=ast.Name(id="object", ctx=ast.Load()), value=None, simple=1)
        for f in fields]
    node = ast.ClassDef(name=name, bases=[ast.Attribute(
        value=ast.Name(id="typing", ctx=ast.Load()), attr="NamedTuple", ctx=ast.Load())],
        keywords=[], body=body, decorator_list=[])
    for part in ast.walk(node):
        ast.copy_location(part, call)
        if hasattr(part, "end_lineno"):
            setattr(part, "end_lineno", call.end_lineno)  # noqa: B010
            setattr(part, "end_col_offset", call.end_col_offset)  # noqa: B010
    return name, node
