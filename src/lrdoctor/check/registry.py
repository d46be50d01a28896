"""Registry objects of the fvcore / detectron2 / mmengine kind, read as the table they fill:
``SCHEDULERS = Registry("scheduler")`` bound once at a module's top level, filled in that module
by ``@SCHEDULERS.register()`` / ``@SCHEDULERS.register_module(name="step")`` over a class or
function, or by ``SCHEDULERS.register(StepLR)`` / ``SCHEDULERS.register_module(module=StepLR)``
statements, and read with ``SCHEDULERS.get(key)`` / ``SCHEDULERS[key]``.

Without a name, those libraries file an object under its own ``__name__``: so does this. Any other
use of the registry in its module (a registration in a loop, with a computed name, handing the
registry on) leaves it unknown; a lookup of a key its module does not register gives nothing (it
may be registered from elsewhere).
"""

from __future__ import annotations

import ast

from lrdoctor.check.index import dotted
from lrdoctor.check.memo import per_node

_REGISTERS = frozenset({"register", "register_module"})
_LOOKUPS = frozenset({"get", "build", "__getitem__"})


def registry_object_pairs(tree: ast.Module, bind: ast.Assign | ast.AnnAssign, name: str
                          ) -> list[tuple[str, str]] | None:
    """(key, dotted name of what is filed under it) of the registry object ``name`` bound by
    ``bind`` in the module ``tree``; None when it is filled or used in a way not understood."""
    pairs: list[tuple[str, str]] = []
    allowed: set[int] = {id(t) for t in ast.walk(bind)}
    for top in tree.body:
        if isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for deco in top.decorator_list:
                if name not in {n.id for n in ast.walk(deco) if isinstance(n, ast.Name)}:
                    continue
                key = _decorator_key(deco, name, top.name)
                if key is None:
                    return None
                pairs.append((key, top.name))
                allowed |= {id(n) for n in ast.walk(deco)}
        elif isinstance(top, ast.Expr) and isinstance(top.value, ast.Call):
            filed = _statement_pair(top.value, name)
            if filed is not None:
                pairs.append(filed)
                allowed |= {id(n) for n in ast.walk(top)}
    if not only_looked_up(tree, name, allowed, _LOOKUPS):
        return None  # filled or handed on where its contents are not known here
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        return None  # one key filed twice (`force=True`): which one holds is not known here
    return pairs


def only_looked_up(tree: ast.Module, name: str, allowed: set[int], lookups: frozenset[str]
                   ) -> bool:
    """Whether the module-level table ``name`` is only read in ``tree``, outside the nodes whose
    ids are in ``allowed`` (the ones that fill it): ``name[key]`` or ``name.<lookup>(...)`` for a
    method in ``lookups``. A ``global`` statement for it, a store, or handing it on (an
    argument, a return, another method) may change what it holds."""
    uses, declared = _name_uses(tree)
    if name in declared:
        return False
    for node, up in uses.get(name, ()):
        if id(node) in allowed:
            continue
        if isinstance(node.ctx, ast.Load) and (
                isinstance(up, ast.Subscript) and up.value is node and isinstance(up.ctx, ast.Load)
                or isinstance(up, ast.Attribute) and up.attr in lookups):
            continue
        return False
    return True


def _decorator_key(deco: ast.expr, registry: str, decorated: str) -> str | None:
    """The key ``@REGISTRY.register(...)`` files ``decorated`` under; None when not certain."""
    call = deco if isinstance(deco, ast.Call) else None
    func = call.func if call is not None else deco
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == registry and func.attr in _REGISTERS):
        return None
    if call is None:
        return decorated  # `@SCHEDULERS.register`
    return _named(call, decorated)


def _statement_pair(call: ast.Call, registry: str) -> tuple[str, str] | None:
    """``REGISTRY.register(StepLR)``, ``REGISTRY.register(StepLR, "step")`` (or the name first),
    ``REGISTRY.register_module(module=StepLR, name="step")``, ``REGISTRY.register_module()(
    StepLR)``: (key, dotted name of the object); None for anything else."""
    outer = call
    if isinstance(call.func, ast.Call) and len(call.args) == 1 and not call.keywords:
        outer, obj = call.func, call.args[0]  # `REGISTRY.register_module()(StepLR)`
        if outer.args and not _named_only(outer):
            return None
    else:
        objects = [a for a in call.args if not isinstance(a, ast.Constant)]
        objects += [k.value for k in call.keywords if k.arg in ("obj", "module")]
        if len(objects) != 1:
            return None
        obj = objects[0]
    func = outer.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == registry and func.attr in _REGISTERS):
        return None
    held = dotted(obj)
    if held is None:
        return None
    key = _named(outer, held.rsplit(".", 1)[-1], skip=obj)
    return (key, held) if key is not None else None


def _named(call: ast.Call, default: str, skip: ast.expr | None = None) -> str | None:
    """The name a registration call gives (one string, positional or ``name=``), else
    ``default``; None when it gives something else (a computed name, several strings)."""
    given = [a for a in call.args if a is not skip]
    given += [k.value for k in call.keywords if k.arg == "name"]
    if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred)
                                                        for a in call.args):
        return None
    strings = [g.value for g in given if isinstance(g, ast.Constant) and isinstance(g.value, str)]
    others = [g for g in given if not (isinstance(g, ast.Constant)
                                       and isinstance(g.value, (str, bool)))]
    if others or len(strings) > 1:
        return None
    return strings[0] if strings else default


def _named_only(call: ast.Call) -> bool:
    return all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args)


@per_node
def _name_uses(tree: ast.AST) -> tuple[dict[str, list[tuple[ast.Name, ast.AST | None]]],
                                       frozenset[str]]:
    """Every ``ast.Name`` of ``tree`` by its name, each with the node that holds it (None for
    the tree itself), and the names a ``global`` statement declares; found in one pass, once
    per module (a registry's every lookup asks)."""
    parents = {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    uses: dict[str, list[tuple[ast.Name, ast.AST | None]]] = {}
    declared: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            declared.update(node.names)
        elif isinstance(node, ast.Name):
            uses.setdefault(node.id, []).append((node, parents.get(id(node))))
    return uses, frozenset(declared)
