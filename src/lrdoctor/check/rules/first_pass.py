"""Does a guard hold on the first pass through a loop? (LRD001's question)

``if epoch > 0: scheduler.step()`` at the top of an epoch loop skips the first iteration, so
the step never comes before the first update; ``if phase == "train":`` in ``for phase in
["train", "val"]`` holds on the first pass and skips nothing. The answer is three-valued: True,
False, or None when the file does not say (an unknown threshold: rules stay silent).
"""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from typing import Any

from lrdoctor.check import constants, names
from lrdoctor.check.index import ModuleInfo, dotted
from lrdoctor.check.model import Cond, Loop, flag_of, setting_tests, settings_disagree

_UNKNOWN = object()


@dataclass(frozen=True)
class Symbol:
    """A value known only by the expression it was taken from (``range(start_epoch, n)``
    starts at ``start_epoch``): equal to itself, unknown against anything else."""

    text: str


def first_values(loops: list[Loop]) -> dict[str, Any]:
    """What each loop variable of ``loops`` holds on the first pass."""
    env: dict[str, Any] = {}
    for loop in loops:
        node = loop.node
        if not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        target, iterable = node.target, node.iter
        while isinstance(iterable, ast.Call) and _last(iterable) in names.ITER_WRAPPERS \
                and _last(iterable) != "enumerate" and iterable.args:
            iterable = iterable.args[0]
        if isinstance(iterable, ast.Call) and _last(iterable) == "enumerate" \
                and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            start = next((k.value for k in iterable.keywords if k.arg == "start"),
                         iterable.args[1] if len(iterable.args) > 1 else ast.Constant(0))
            _bind(env, target.elts[0], _start_value(start))
            continue
        if isinstance(iterable, ast.Call) and _last(iterable) in ("range", "trange") \
                and iterable.args:
            start = iterable.args[0] if len(iterable.args) > 1 else ast.Constant(0)
            _bind(env, target, _start_value(start))
        elif isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts \
                and isinstance(iterable.elts[0], ast.Constant):
            _bind(env, target, iterable.elts[0].value)
    return env


def derived_values(loops: list[Loop], env: dict[str, Any],
                   module: ModuleInfo | None) -> set[str]:
    """Names a loop body computes from its loop variables (``it = epoch * n + i``): they
    change on every pass like the variables themselves. Their first-pass value goes to
    ``env`` (unknown when it cannot be told); returns the names."""
    loop_vars = {v for lp in loops for v in lp.targets}
    assigns: dict[str, list[ast.expr]] = {}
    rebound: set[str] = set()
    seen: set[int] = set()  # an outer loop's body holds the inner loops' bodies
    for loop in loops:
        for stmt in loop.node.body:
            for node in ast.walk(stmt):
                if id(node) in seen:
                    continue
                seen.add(id(node))
                if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                        and isinstance(node.targets[0], ast.Name):
                    assigns.setdefault(node.targets[0].id, []).append(node.value)
                elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) \
                        and isinstance(node.target, ast.Name):
                    rebound.add(node.target.id)
    derived: set[str] = set()
    for _ in range(3):  # `it = epoch * n + i` then `step = it + 1`
        for name, values in assigns.items():
            if name in derived or name in loop_vars or name in rebound or len(values) != 1:
                continue
            if set(names.words(ast.unparse(values[0]))) & (loop_vars | derived):
                derived.add(name)
                env[name] = _eval(values[0], env, module)
    return derived


def entry_values(loops: list[Loop], tree: ast.AST | None, env: dict[str, Any],
                 names_: set[str]) -> None:
    """What the names in ``names_`` (rebound inside the loops) hold when the outermost of
    ``loops`` is entered, where the statement nearest before it that binds the name is a plain
    ``name = <literal>`` of the same block (``first_task = True`` right before ``for task in
    tasks:``): that is their value on the first pass until the body rebinds them. A name whose
    nearest binding is anything else (conditional, computed, augmented) stays unknown."""
    if tree is None or not loops:
        return
    for loop in loops:
        block = block_of(tree, loop.node)
        if block is None:
            continue
        index = next(i for i, stmt in enumerate(block) if stmt is loop.node)
        settled: set[str] = set(env)
        for stmt in reversed(block[:index]):
            bound = {t.id for n in ast.walk(stmt) for t in _targets(n) if isinstance(t, ast.Name)}
            bound &= names_ - settled
            if not bound:
                continue
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name) \
                    and isinstance(stmt.value, ast.Constant) and stmt.targets[0].id in bound:
                env[stmt.targets[0].id] = stmt.value.value
            settled |= bound


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return [n for t in node.targets for n in ast.walk(t)]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return [node.target]
    if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        return list(ast.walk(node.target))
    if isinstance(node, (ast.With, ast.AsyncWith)):
        return [n for item in node.items if item.optional_vars is not None
                for n in ast.walk(item.optional_vars)]
    if isinstance(node, ast.NamedExpr):
        return [node.target]
    return []


def block_of(tree: ast.AST, stmt: ast.stmt) -> list[ast.stmt] | None:
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                return block
    return None


def _last(call: ast.Call) -> str:
    return (dotted(call.func) or "").rsplit(".", 1)[-1]


def _bind(env: dict[str, Any], target: ast.expr, value: Any) -> None:
    if isinstance(target, ast.Name):
        env[target.id] = value


def _start_value(expr: ast.expr) -> Any:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int):
        return expr.value
    return Symbol(ast.unparse(expr))


def first_value(node: ast.expr, env: dict[str, Any], module: ModuleInfo | None) -> Any:
    """What ``node`` holds on the first pass, given the first values in ``env``: a number, a
    string or a flag; None when that cannot be told."""
    value = _eval(node, env, module)
    return None if value is _UNKNOWN or isinstance(value, Symbol) else value


def holds_first(cond: Cond, env: dict[str, Any], module: ModuleInfo | None,
                built: tuple[Cond, ...] = (), varying: bool = False) -> bool | None:
    """Is ``cond``'s branch taken on the first pass? None when it cannot be told. ``built``:
    the branches the stepped object was built on, whose tests hold (the warm-up built under
    ``args.sched == "linear"`` sees ``args.sched == "linear"`` hold). ``varying``: the test
    reads what changes from pass to pass, so a value known only by its text
    (``self.trainer.is_last_batch``, ``epoch`` of ``range(args.start_epoch, n)``) may be
    false there: unknown (a setting's text stands for a switch that is on)."""
    if cond.test is None:
        return None
    value = _eval(cond.test, env, module, built)
    if value is _UNKNOWN or varying and isinstance(value, Symbol):
        return None
    taken = bool(value)
    return taken if cond.branch == 0 else not taken


# the comparisons a test can make between two known values
COMPARE = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge,
}
_REFLEXIVE = {ast.Eq: True, ast.NotEq: False, ast.Lt: False, ast.LtE: True, ast.Gt: False,
              ast.GtE: True}


def _eval(node: ast.expr, env: dict[str, Any], module: ModuleInfo | None,
          built: tuple[Cond, ...] = ()) -> Any:
    if built and isinstance(node, (ast.Compare, ast.Attribute, ast.Subscript)):
        decided = _by_fact(node, built)
        if decided is not None:
            return decided
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        if module is not None:
            value = constants.resolve(node, None, module)
            if value is not None:
                return value
        return Symbol(node.id)
    if isinstance(node, ast.Attribute) and dotted(node) is not None or (
            # `cfg["start_epoch"]` of a config dict: the same setting as `args.start_epoch`
            isinstance(node, ast.Subscript) and dotted(node.value) is not None
            and constants.setting_name(node)) or (
            # `cfg.get("start_epoch", 0)` / `getattr(args, "start_epoch", 0)`
            isinstance(node, ast.Call) and dotted(node.func) is not None
            and constants.setting_name(node)):
        text = ast.unparse(node)
        if isinstance(node, ast.Attribute) and text in env:
            return env[text]  # `self.epoch`, a counter whose first value is known
        if module is not None and not any(isinstance(v, Symbol) and v.text == text
                                           for v in env.values()):
            # `args.start_epoch` with `parser.add_argument("--start_epoch", default=0)`: what
            # a run with the file's own defaults holds (unless a loop starts at it: then it
            # stands for wherever a resumed run starts, the same on both sides of a test)
            value = constants.resolve(node, None, module)
            if isinstance(value, (int, float, str)) and not isinstance(value, bool):
                return value
        return Symbol(text)  # `args.start_epoch`: itself, whatever it holds
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _eval(node.operand, env, module, built)
        return _UNKNOWN if inner is _UNKNOWN or isinstance(inner, Symbol) else not inner
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, env, module, built) for v in node.values]
        known = [bool(v) for v in values if v is not _UNKNOWN and not isinstance(v, Symbol)]
        if isinstance(node.op, ast.And):
            if False in known:
                return False
            return True if len(known) == len(values) else _UNKNOWN
        if True in known:
            return True
        return False if len(known) == len(values) else _UNKNOWN
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env, module), _eval(node.right, env, module)
        if isinstance(node.op, ast.Mod) and left == 0 and not isinstance(left, bool) \
                and not isinstance(left, Symbol):
            return 0  # 0 % n == 0 whatever n is
        if _number(left) and _number(right):
            try:
                if isinstance(node.op, ast.Add):
                    return left + right
                if isinstance(node.op, ast.Sub):
                    return left - right
                if isinstance(node.op, ast.Mult):
                    return left * right
                if isinstance(node.op, ast.Mod):
                    return left % right
                if isinstance(node.op, ast.FloorDiv):
                    return left // right
            except ArithmeticError:
                return _UNKNOWN
        return _UNKNOWN
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        op = type(node.ops[0])
        left = _eval(node.left, env, module)
        right = _eval(node.comparators[0], env, module)
        if isinstance(left, Symbol) or isinstance(right, Symbol):
            if left == right and op in _REFLEXIVE:
                return _REFLEXIVE[op]
            return _UNKNOWN
        if left is _UNKNOWN or right is _UNKNOWN or op not in COMPARE:
            if op in (ast.In, ast.NotIn) and left is not _UNKNOWN and isinstance(
                node.comparators[0], (ast.List, ast.Tuple, ast.Set)
            ) and all(isinstance(e, ast.Constant) for e in node.comparators[0].elts):
                inside = left in [e.value for e in node.comparators[0].elts]  # type: ignore
                return inside if op is ast.In else not inside
            return _UNKNOWN
        try:
            return COMPARE[op](left, right)
        except TypeError:
            return _UNKNOWN
    return _UNKNOWN


def taken_by_build(cond: Cond, built: tuple[Cond, ...]) -> bool | None:
    """Is ``cond``'s branch taken on the path ``built`` describes, by what those branches
    say alone (the same flag, or a string setting they fix)? None when they do not decide it:
    no default, no switch read as on."""
    if cond.test is None or not built:
        return None
    value = _by_fact(cond.test, built)
    if value is None:
        return None
    return value if cond.branch == 0 else not value


def _by_fact(node: ast.expr, built: tuple[Cond, ...]) -> bool | None:
    """The value of a test that the branches the object was built on decide: the same flag
    tested there, or a string setting compared with a value those branches allow or rule out
    (built under `args.sched == "linear"`, `args.sched == "cosine"` is False)."""
    flag = flag_of(node)
    if flag is not None:
        text, truth, _ = flag
        for c in built:
            if c.fact is not None and c.fact[0] == text:
                return c.fact[2] == truth
    known = setting_tests(built)
    if known:
        if settings_disagree(setting_tests((Cond(_PROBE, 0, node, None),)), known):
            return False  # the test holding needs another value of the setting
        if settings_disagree(setting_tests((Cond(_PROBE, 1, node, None),)), known):
            return True  # so does the test failing
    return None


_PROBE = ("<test>", 0, 0)  # the key of a branch made up to read one test as taken or not


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
