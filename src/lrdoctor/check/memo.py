"""One cache for the many pure questions asked of one AST node (a module, a function)."""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

# past this many entries a cache starts over: a check of a huge project would otherwise keep
# every module's answers alive to the end
LIMIT = 4096

# every cache made by per_node, so that forget() can empty them all
_CACHES: list[dict[Any, Any]] = []


def kept(cache: dict[Any, Any]) -> dict[Any, Any]:
    """``cache`` (a module's own table of answers keyed by nodes), emptied by forget()."""
    _CACHES.append(cache)
    return cache


def forget() -> None:
    """Drop every answer of every ``per_node`` question, with the nodes they hold. A check
    run never needs it (each cache starts over past LIMIT); a process that goes on to other
    work after checking many files does (the test suite, after each module: the answers keep
    millions of AST nodes alive)."""
    for cache in _CACHES:
        cache.clear()


def per_node(question: Callable[..., T]) -> Callable[..., T]:
    """``question(node, *rest)`` answered once per node (and per value of the hashable
    ``rest``, when the question takes more than the node): keyed by the node's identity, the
    node held with its answer (so its id is not reused while the answer lives). For pure
    functions of a tree that the rules and the tracer ask again and again (at every event,
    every call)."""
    cache: dict[Any, tuple[ast.AST, T]] = {}
    _CACHES.append(cache)

    @functools.wraps(question)
    def answer(node: Any, *rest: Any) -> T:
        key = (id(node), *rest) if rest else id(node)
        hit = cache.get(key)
        if hit is not None and hit[0] is node:
            return hit[1]
        value = question(node, *rest)
        if len(cache) > LIMIT:
            cache.clear()
        cache[key] = (node, value)
        return value

    return answer


@per_node
def nodes_in(node: ast.AST) -> tuple[ast.AST, ...]:
    """Every node of ``node``'s tree, in ``ast.walk`` order, found once per node: for a
    function or module walked again and again (once per object a rule judges). Only for trees
    nobody changes (a parsed module's nodes), never for a copy being rewritten."""
    return tuple(ast.walk(node))


def own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope``'s own body (a module's or a function's): the bodies of the
    functions, lambdas and classes it defines are left out (their names are other
    variables)."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))


def own_statements(fn: ast.AST) -> Iterator[ast.AST]:
    """own_nodes without the ``def`` / ``lambda`` / ``class`` nodes themselves: what ``fn``'s
    own body does, the functions and classes it defines left out."""
    return (n for n in own_nodes(fn)
            if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)))
