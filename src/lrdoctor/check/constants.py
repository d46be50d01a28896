"""What a setting stands for when the file says so: a literal, a name assigned one, an
argparse default (``args.lr_step`` with ``add_argument("--lr-step", default=30)``), a key of a
config dict written as a literal (``cfg["AMP"]``), a class-level config constant.

Only values written in the file count; a default can be overridden on the command line, so
rules use these to describe and to judge what the script does as written, never to invent a
value the code does not state.
"""

from __future__ import annotations

import ast
import re
import weakref
from typing import Any

from lrdoctor.check.index import ModuleInfo, Scope, dotted

_MISSING = object()
_CONFIG_CLASS = re.compile(r"config|cfg|args|opt|setting|hparam|param|flag", re.IGNORECASE)
_settings: weakref.WeakKeyDictionary[ModuleInfo, dict[str, ast.expr]] = (
    weakref.WeakKeyDictionary()
)


def settings(module: ModuleInfo) -> dict[str, ast.expr]:
    """``{name: expression}`` for argparse defaults (by ``dest``), ``set_defaults(...)``,
    keys of dict literals (``cfg = {"AMP": True}``, ``cfg["AMP"] = True``) and class-level
    assignments of config classes, anywhere in ``module``. A name written twice with
    different values is left out: the file does not say which one holds."""
    found = _settings.get(module)
    if found is not None:
        return found
    values: dict[str, list[ast.expr]] = {}

    def add(name: str, expr: ast.expr) -> None:
        values.setdefault(name, []).append(expr)

    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("add_argument", "add_option", "DEFINE_integer",
                                  "DEFINE_float", "DEFINE_bool", "DEFINE_boolean",
                                  "DEFINE_string"):
                dest = _dest(node)
                default = next((k.value for k in node.keywords if k.arg == "default"), None)
                if default is None and node.func.attr.startswith("DEFINE_") \
                        and len(node.args) > 1:
                    default = node.args[1]
                if dest and default is not None:
                    add(dest, default)
                elif dest and any(
                    k.arg == "action" and isinstance(k.value, ast.Constant)
                    and k.value.value == "store_true" for k in node.keywords
                ):
                    add(dest, ast.Constant(False))
            elif node.func.attr == "set_defaults":
                for kw in node.keywords:
                    if kw.arg:
                        add(kw.arg, kw.value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript):
                    key = target.slice
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        add(key.value, node.value)
            if isinstance(node.value, ast.Dict):
                for k, v in zip(node.value.keys, node.value.values):
                    if isinstance(k, ast.Constant) and isinstance(k.value, str):
                        add(k.value, v)
        elif isinstance(node, ast.ClassDef) and _CONFIG_CLASS.search(node.name):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name):
                    add(stmt.targets[0].id, stmt.value)
                elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None \
                        and isinstance(stmt.target, ast.Name):
                    add(stmt.target.id, stmt.value)
    out = {
        name: exprs[0] for name, exprs in values.items()
        if all(ast.dump(e) == ast.dump(exprs[0]) for e in exprs)
    }
    _settings[module] = out
    return out


def _dest(call: ast.Call) -> str:
    for kw in call.keywords:
        if kw.arg == "dest" and isinstance(kw.value, ast.Constant) \
                and isinstance(kw.value.value, str):
            return kw.value.value
    flags = [a.value for a in call.args if isinstance(a, ast.Constant)
             and isinstance(a.value, str)]
    if call.func.attr.startswith("DEFINE_"):  # type: ignore[attr-defined]
        return flags[0] if flags else ""
    long = next((f for f in flags if f.startswith("--")), None)
    if long is not None:
        return long[2:].replace("-", "_")
    plain = next((f for f in flags if not f.startswith("-")), None)
    return plain or ""


def setting_name(expr: ast.expr) -> str:
    """``lr_step`` for ``args.lr_step``, ``cfg["lr_step"]``, ``cfg.get("lr_step", 30)``,
    ``getattr(args, "lr_step", 30)``; "" for anything else."""
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    if isinstance(expr, ast.Call) and expr.args:
        func = dotted(expr.func) or ""
        first = expr.args[1] if func == "getattr" and len(expr.args) > 1 else expr.args[0]
        if (func == "getattr" or func.endswith(".get")) and isinstance(first, ast.Constant) \
                and isinstance(first.value, str):
            return first.value
    return ""


def resolve(expr: ast.expr | None, scope: Scope | None, module: ModuleInfo | None = None,
            depth: int = 0) -> Any:
    """The constant ``expr`` stands for as written in the file, or ``_MISSING``-free None
    when the file does not say (use :func:`known` to tell a stated ``None`` apart)."""
    value = _resolve(expr, scope, module, depth)
    return None if value is _MISSING else value


def known(expr: ast.expr | None, scope: Scope | None, module: ModuleInfo | None = None) -> bool:
    return _resolve(expr, scope, module, 0) is not _MISSING


def _resolve(expr: ast.expr | None, scope: Scope | None, module: ModuleInfo | None,
             depth: int) -> Any:
    if expr is None or depth > 8:
        return _MISSING
    if module is None and scope is not None:
        module = scope.module
    if isinstance(expr, ast.Constant):
        return expr.value
    if isinstance(expr, (ast.List, ast.Tuple)):
        items = [_resolve(e, scope, module, depth + 1) for e in expr.elts]
        return _MISSING if any(i is _MISSING for i in items) else items
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        inner = _resolve(expr.operand, scope, module, depth + 1)
        return -inner if isinstance(inner, (int, float)) and not isinstance(inner, bool) \
            else _MISSING
    if isinstance(expr, ast.BinOp):
        left = _resolve(expr.left, scope, module, depth + 1)
        right = _resolve(expr.right, scope, module, depth + 1)
        if _number(left) and _number(right):
            try:
                if isinstance(expr.op, ast.Pow):
                    return left ** right
                if isinstance(expr.op, ast.Mult):
                    return left * right
                if isinstance(expr.op, ast.Div):
                    return left / right
            except (ArithmeticError, ValueError):
                return _MISSING
        return _MISSING
    if isinstance(expr, ast.Name):
        if scope is not None:
            found = scope.source_of(expr.id)
            if found is not None:
                return _resolve(found[0], found[1], module, depth + 1)
        if module is not None:
            assigned = _module_constant(module, expr.id)
            if assigned is not None:
                return _resolve(assigned, None, module, depth + 1)
        return _MISSING
    name = setting_name(expr)
    if name and module is not None:
        stated = settings(module).get(name)
        if stated is not None:
            return _resolve(stated, None, module, depth + 1)
        if isinstance(expr, ast.Call) and len(expr.args) > (2 if dotted(expr.func) == "getattr"
                                                            else 1):
            fallback = expr.args[2 if dotted(expr.func) == "getattr" else 1]
            return _resolve(fallback, scope, module, depth + 1)
    return _MISSING


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def module_assignment(module: ModuleInfo, name: str) -> ast.expr | None:
    """The one module-level assignment of ``name`` (None when assigned more than once)."""
    return _module_constant(module, name)


def _module_constant(module: ModuleInfo, name: str) -> ast.expr | None:
    """The one module-level assignment of ``name`` (None when assigned more than once)."""
    found: list[ast.expr] = []
    for stmt in module.tree.body:
        if isinstance(stmt, ast.Assign):
            if any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
                found.append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id == name and stmt.value is not None:
            found.append(stmt.value)
    return found[0] if len(found) == 1 else None
