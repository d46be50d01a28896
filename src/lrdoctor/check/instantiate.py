"""Objects a config builds: Hydra's ``instantiate(cfg.scheduler, optimizer=opt)`` (and
``hydra.utils.call``) of a mapping whose ``_target_`` names a class or function, read from the
program's YAML config or written as a dict at the call.

The call is written out as if the program had made it itself: ``_target_:
torch.optim.lr_scheduler.StepLR`` with ``step_size: 30`` under it, instantiated with
``optimizer=opt``, is ``torch.optim.lr_scheduler.StepLR(optimizer=opt, step_size=30)`` at the
``instantiate`` call, so every rule reads its arguments as it reads a written call. With
``_partial_: true`` it is ``functools.partial`` of that call (Lightning's
``self.hparams.scheduler(optimizer=opt)`` then builds the object).

Never a guess: a value Hydra fills in at run time (``${trainer.max_epochs}``), a mapping the
program itself changes under the same key, a ``**overrides`` at the call, a ``_target_`` or
``_partial_`` that is not a plain literal all leave the value (or the whole object) unknown.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lrdoctor.check.constants import attribute_stores
from lrdoctor.check.index import dotted
from lrdoctor.check.memo import per_node
from lrdoctor.check.values import Const, DictVal, TupleVal
from lrdoctor.check.yamlconf import tag_origin

# Hydra's builders: `call` is `instantiate` under another name (a function target is called)
BUILDERS = frozenset({"hydra.utils.instantiate", "hydra.utils.call",
                      "hydra.instantiate", "hydra.call"})
# `hydra.utils.get_class("torch.optim.lr_scheduler.StepLR")`: the class or function named
LOOKUPS = frozenset({"hydra.utils.get_class", "hydra.utils.get_method",
                     "hydra.utils.get_object"})
_RESERVED = frozenset({"_target_", "_partial_", "_args_", "_recursive_", "_convert_"})
# stands for a value known only at run time (a Hydra interpolation): a string no rule reads
UNKNOWN = "<set at run time>"


@dataclass
class Written:
    """``target(*args, **kwargs)`` as a config builds it. ``call`` is that call in ``ast``
    (located at the builder's call), ``args`` / ``kwargs`` its argument values as the trace
    holds them; ``partial``: ``_partial_: true`` (``call`` is then what calling it builds,
    less the caller's own arguments)."""

    target: str
    call: ast.Call
    args: list[Any]
    kwargs: dict[str, Any]
    partial: bool


def target_expr(target: str) -> ast.expr | None:
    """``torch.optim.lr_scheduler.StepLR`` as an ``ast`` name or attribute chain; None when
    ``target`` is no dotted path of identifiers."""
    parts = target.split(".")
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    expr: ast.expr = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        expr = ast.Attribute(expr, part, ast.Load())
    return expr


def written_out(call: ast.Call, config: Any, args: list[Any], kwargs: dict[str, Any],
                changed: frozenset[str], nested: Callable[[DictVal, ast.Call], Any]
                ) -> Written | None:
    """What ``instantiate(config, *args, **kwargs)`` (the builder ``call``) builds, written
    out; None when its target, its partial flag or its arguments are not certain.

    ``config``: the trace's value of the config (a DictVal); ``args`` / ``kwargs``: the values
    the call passes after it. ``changed``: keys the program stores into a mapping or object
    itself (their YAML value is not the one in force). ``nested``: builds a mapping under the
    config that has a ``_target_`` of its own (Hydra instantiates those first)."""
    if any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None  # `instantiate(cfg, **overrides)`: any value may be replaced
    written = _config_node(call)
    if not isinstance(config, DictVal) or config.splat or config.open:
        return None
    if written is None and not config.config:
        return None  # a dict built elsewhere in Python: its values' sources are not here
    items = config.items
    target = items.get("_target_")
    if not (isinstance(target, Const) and isinstance(target.value, str)):
        return None
    func = target_expr(target.value)
    if func is None:
        return None
    flag = items.get("_partial_", Const(False))
    if not (isinstance(flag, Const) and isinstance(flag.value, bool)):
        return None
    recursive = items.get("_recursive_", Const(True))
    if not (isinstance(recursive, Const) and isinstance(recursive.value, bool)):
        return None
    sources: dict[str, ast.expr] = {}
    if written is not None:
        for name, source in zip(written.keys, written.values):
            if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
                return None
            sources[name.value] = source
    arg_exprs: list[ast.expr] = []
    arg_values: list[Any] = []
    if args:
        # positional arguments given at the call replace the config's `_args_`
        site = list(call.args[1:]) if _config_keyword(call) is None else list(call.args)
        arg_exprs, arg_values = site, list(args)
    elif "_args_" in items:
        given = items["_args_"]
        if not isinstance(given, TupleVal):
            return None
        arg_values = list(given.items)
        arg_exprs = [literal_expr(v, config.config) for v in given.items]
    keywords: list[ast.keyword] = []
    values: dict[str, Any] = {}
    for key, value in items.items():
        if not isinstance(key, str) or key in _RESERVED:
            continue
        if not key.isidentifier():
            return None
        if key in kwargs:
            continue  # the call's own keyword wins
        if isinstance(value, DictVal) and recursive.value and "_target_" in value.items:
            value = nested(value, call)
        if (key in changed or "*" in changed) and written is None:
            value = None  # the program stores its own value under this key
            expr: ast.expr = ast.Constant(UNKNOWN)
        elif key in sources:
            expr = sources[key]
        else:
            expr = literal_expr(value, config.config)
        keywords.append(ast.keyword(key, expr))
        values[key] = value
    for kw in call.keywords:
        if kw.arg is not None and kw.arg != "config":
            keywords.append(ast.keyword(kw.arg, kw.value))
            values[kw.arg] = kwargs.get(kw.arg)
    built = placed_at(ast.Call(func=func, args=arg_exprs, keywords=keywords), call)
    return Written(target.value, built, arg_values, values, flag.value)


def placed_at(built: ast.Call, call: ast.Call) -> ast.Call:
    """``built``, a call written out for ``call`` (a config's class with its keywords), with
    every node it made up placed at ``call`` (findings point where the program builds it);
    the expressions taken from ``call`` itself keep their own places."""
    at_call = {id(n) for e in (*call.args, *(k.value for k in call.keywords))
               for n in ast.walk(e)}
    for node in ast.walk(built):
        if id(node) not in at_call and isinstance(node, (ast.expr, ast.keyword)):
            ast.copy_location(node, call)
            node.end_lineno, node.end_col_offset = call.end_lineno, call.end_col_offset
    return built


def partial_node(written: Written) -> ast.Call:
    """``functools.partial(target, *args, **keywords)`` of a written-out call: the node a
    ``functools.partial`` of a library class is held by."""
    node = ast.Call(func=ast.Attribute(ast.Name("functools", ast.Load()), "partial", ast.Load()),
                    args=[written.call.func, *written.call.args],
                    keywords=list(written.call.keywords))
    ast.copy_location(node, written.call)
    node.end_lineno, node.end_col_offset = written.call.end_lineno, written.call.end_col_offset
    for sub in (node.func, *ast.walk(node.func)):
        ast.copy_location(sub, written.call)
    return node


@per_node
def changed_keys(tree: ast.AST) -> frozenset[str]:
    """Names the module stores as an attribute or a string key (``cfg.scheduler.step_size =
    n``, ``cfg["step_size"] = n``, ``OmegaConf.update(cfg, "a.step_size", n)``); ``"*"``
    among them when a config is merged into wholesale (``cfg.merge_with(cli)``)."""
    # (a computed key, `state[k] = v`, `setattr(args, k, v)`, is most often no config's)
    found = {name for name in attribute_stores(tree) if name != "*" and name[0] != "@"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            index = node.slice
            if isinstance(index, ast.Constant) and isinstance(index.value, str):
                found.add(index.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, given = node.func.attr, node.args
            if method == "update" and (node.func.value.__class__ is ast.Name
                                       and node.func.value.id == "OmegaConf"):
                # `OmegaConf.update(cfg, "scheduler.step_size", n)`
                path = given[1] if len(given) > 1 else None
                found.add(path.value.rsplit(".", 1)[-1] if isinstance(path, ast.Constant)
                          and isinstance(path.value, str) else "*")
            elif method in ("update", "setdefault"):
                # `cfg.scheduler.update(step_size=n)`, `d.update({"step_size": n})`,
                # `cfg.setdefault("step_size", n)` (an `update(x)` of something else, most
                # often a meter's, names no key)
                found.update(kw.arg for kw in node.keywords if kw.arg)
                if given and isinstance(given[0], ast.Dict):
                    found.update(k.value if isinstance(k, ast.Constant)
                                 and isinstance(k.value, str) else "*" for k in given[0].keys)
                elif method == "setdefault" and given:
                    first = given[0]
                    found.add(first.value if isinstance(first, ast.Constant)
                              and isinstance(first.value, str) else "*")
            elif method in ("merge_with", "merge_with_dotlist"):
                found.add("*")
            if method == "update" and (
                    isinstance(node.func.value, ast.Call) and dotted(node.func.value.func) == "vars"
                    or isinstance(node.func.value, ast.Attribute)
                    and node.func.value.attr == "__dict__"):
                found.add("*")  # `vars(args).update(cfg)`: any option may be replaced
    return frozenset(found)


def _config_node(call: ast.Call) -> ast.Dict | None:
    """The dict literal the builder is given as its config, when written at the call with
    plain string keys (``instantiate({"_target_": "...StepLR", "step_size": 30}, opt)``)."""
    given = _config_keyword(call)
    if given is None:
        given = call.args[0] if call.args else None
    if isinstance(given, ast.Dict) and all(k is not None for k in given.keys):
        return given
    return None


def _config_keyword(call: ast.Call) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == "config"), None)


def literal_expr(value: Any, origin: str) -> ast.expr:
    """A config value as the literal a program would write (a number, string, bool, None, or
    a list of them); the UNKNOWN string for anything else (filled in at run time, a mapping, an
    object). Tagged with the YAML file it came from."""
    node: ast.expr
    if isinstance(value, Const) and (isinstance(value.value, (bool, int, float, str))
                                     or value.value is None):
        node = ast.Constant(value.value)
    elif isinstance(value, TupleVal) and len(value.items) <= 64 and all(
            isinstance(v, Const) and isinstance(v.value, (int, float, str)) for v in value.items):
        node = ast.List([ast.Constant(v.value) for v in value.items], ast.Load())
    else:
        return ast.Constant(UNKNOWN)
    if origin:
        tag_origin(node, origin)
    return node
