"""What the callers passed: an expression read inside a function, followed out through the
traced calls to the expressions each caller gave for it.

``def step_plateau(scheduler, metric): scheduler.step(metric)`` says nothing about what the
plateau watches; the call ``step_plateau(scheduler, val_loss)`` does. A trace's frames keep the
call that made each of them (see :class:`~lrdoctor.check.model.Frame`), so a rule can read
the argument behind a parameter at each call, however many helpers, callbacks or methods it
went through::

    chain = passed_chain(event, metric)   # [metric in the helper, val_loss in the caller]
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from lrdoctor.check.memo import per_node
from lrdoctor.check.model import Event, Frame

# helpers between the call that names the value and the call that uses it
MAX_LEVELS = 8


@dataclass(frozen=True)
class Passed:
    """One spelling of a value: the expression, the file it is written in, and the node it is
    read at (the event's call, or the call that passed it on). ``key``: the value is the item
    ``key`` of the dict ``expr`` is, passed on as ``**expr`` (``scheduler.step(**kwargs)``
    reads ``kwargs["metrics"]``). A ``*args`` expression stands for the first of its items."""

    expr: ast.expr
    path: str
    at: ast.AST
    key: str | None = None


def passed_chain(event: Event, expr: ast.expr, key: str | None = None) -> list[Passed]:
    """``expr`` as the event's call reads it, then, while it is a parameter of the function
    the call runs in that the function never rebinds (or its ``*args`` / ``**kwargs``
    passed on whole), the expression the traced call of that function passed for it,
    outward. Stops at a parameter no known call filled (an entry point, a library's call, a
    default)."""
    chain = [Passed(expr, event.path, event.node, key)]
    frame: Frame | None = event.frame
    while frame is not None and len(chain) <= MAX_LEVELS:
        last = chain[-1]
        fn, call = frame.fn, frame.call
        if fn is None or call is None or frame.path != last.path or not function_holds(fn, last.at):
            break
        given = _given(frame, fn, call, last)
        if given is None:
            break
        chain.append(Passed(given[0], frame.call_path, call, given[1]))
        frame = frame.parent
    return chain


def _given(frame: Frame, fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call,
           wanted: Passed) -> tuple[ast.expr, str | None] | None:
    """What ``call`` passed for ``wanted`` (a parameter of ``fn``, its ``*args``' first item
    or an item of its ``**kwargs``), as (expression, key); None when it is not told."""
    expr, a = wanted.expr, fn.args
    if isinstance(expr, ast.Starred):
        if wanted.key is not None or not isinstance(expr.value, ast.Name) \
                or a.vararg is None or expr.value.id != a.vararg.arg \
                or expr.value.id in _rebound(fn):
            return None
        # the first item of `*args`: the call's first argument past the named parameters
        at = len([*a.posonlyargs, *a.args]) - frame.skipped
        if at < 0 or at >= len(call.args) \
                or any(isinstance(x, ast.Starred) for x in call.args[:at]):
            return None
        return call.args[at], None  # (itself `*more` passed on: followed the same way)
    if not isinstance(expr, ast.Name) or expr.id in _rebound(fn):
        return None
    if wanted.key is not None:
        if a.kwarg is None or expr.id != a.kwarg.arg:
            return None
        if wanted.key in _parameters(fn):
            return None  # a keyword of that name binds the parameter, not `**kwargs`
        for kw in call.keywords:
            if kw.arg == wanted.key:
                return kw.value, None
        splats = [kw.value for kw in call.keywords if kw.arg is None]
        return (splats[0], wanted.key) if len(splats) == 1 else None
    if expr.id not in _parameters(fn):
        return None
    given = frame.argument(expr.id)
    return None if given is None else (given, None)


def function_holds(fn: ast.FunctionDef | ast.AsyncFunctionDef, at: ast.AST) -> bool:
    line = getattr(at, "lineno", 0)
    return fn.lineno <= line <= (fn.end_lineno or fn.lineno)


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    a = fn.args
    return {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs]}


@per_node
def _rebound(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names ``fn``'s body binds anywhere (a nested function's own names too: a name
    bound there is not followed, to be safe)."""
    found: set[str] = set()
    for node in ast.walk(ast.Module(body=fn.body, type_ignores=[])):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)  # a nested function's or lambda's own parameter
        elif isinstance(node, ast.ExceptHandler) and node.name:
            found.add(node.name)
    return frozenset(found)
