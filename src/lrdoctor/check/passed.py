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
    read at (the event's call, or the call that passed it on)."""

    expr: ast.expr
    path: str
    at: ast.AST


def passed_chain(event: Event, expr: ast.expr) -> list[Passed]:
    """``expr`` as the event's call reads it, then, while it is a parameter of the function
    the call runs in that the function never rebinds, the expression the traced call of that
    function passed for it, outward. Stops at a parameter no known call filled (an entry
    point, a library's call, ``*args``, a default)."""
    chain = [Passed(expr, event.path, event.node)]
    frame: Frame | None = event.frame
    while isinstance(expr, ast.Name) and frame is not None and len(chain) <= MAX_LEVELS:
        fn = frame.fn
        at = chain[-1].at
        if fn is None or frame.call is None or frame.path != chain[-1].path \
                or not _holds(fn, at) or expr.id not in _parameters(fn) \
                or expr.id in _rebound(fn):
            break
        given = frame.argument(expr.id)
        if given is None:
            break
        chain.append(Passed(given, frame.call_path, frame.call))
        expr = given
        frame = frame.parent
    return chain


def _holds(fn: ast.FunctionDef | ast.AsyncFunctionDef, at: ast.AST) -> bool:
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
