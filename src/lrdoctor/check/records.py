"""The ``__init__`` Python writes for a record class: a ``@dataclass`` without an ``__init__``
of its own, or a ``typing.NamedTuple`` subclass. Its parameters are the annotated fields of
the class body in order (a dataclass's inherited fields first), and it stores each argument
as the attribute of the same name: ``TrainState(model, opt, sched)`` holds ``opt`` as
``state.optimizer`` exactly as a written ``self.optimizer = optimizer`` would."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from lrdoctor.check.index import ClassInfo, dotted

_DATACLASS_DECORATORS = frozenset({"dataclasses.dataclass", "pydantic.dataclasses.dataclass"})
_NAMED_TUPLES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})
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
        fields, _, _, declared = _own_fields(cls.node, named_tuple=True)
        return RecordInit(tuple(fields), frozenset(), frozenset(), True, False,
                          tuple(declared.items()))
    options = _dataclass_options(cls)
    if options is None or not options.get("init", True):
        return None
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
        kw_all = bool(own.get("kw_only", False))
        positional, keyword_only, pseudo, declared = _own_fields(current.node, named_tuple=False)
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
    )


def _dataclass_options(cls: ClassInfo) -> dict[str, Any] | None:
    """The literal keyword options of ``cls``'s ``@dataclass`` decorator (``{}`` when it is
    bare); None when ``cls`` is not decorated as one."""
    for deco in cls.node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if cls.module.qualify(dotted(target) or "") not in _DATACLASS_DECORATORS:
            continue
        found: dict[str, Any] = {}
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


def _own_fields(node: ast.ClassDef, named_tuple: bool
                ) -> tuple[list[str], list[str], set[str], dict[str, ast.expr]]:
    """The fields ``node``'s body declares: (those an ``__init__`` takes in order, those it
    takes by keyword only, the ``InitVar`` pseudo-fields, the defaults declared). A
    ``ClassVar`` is no field, nor is a ``field(init=False)``; the fields after a ``_: KW_ONLY``
    marker are keyword only."""
    positional: list[str] = []
    keyword_only: list[str] = []
    init_only: set[str] = set()
    defaults: dict[str, ast.expr] = {}
    kw_from_here = False
    for stmt in node.body:
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
        if isinstance(stmt.value, ast.Call) and (dotted(stmt.value.func) or "").rsplit(
                ".", 1)[-1] == "field":
            options = {kw.arg: kw.value for kw in stmt.value.keywords}
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
