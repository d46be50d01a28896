"""When a GradScaler really scales: always, only when a flag is on, or never."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from lrdoctor.check.context import function_at
from lrdoctor.check.index import dotted, last_name
from lrdoctor.check.memo import own_nodes, per_node
from lrdoctor.check.model import OPPOSITE_OPS, Event
from lrdoctor.check.project import display_path
from lrdoctor.check.values import Const, ExprVal, Obj

ALWAYS = ""


def scaler_switch(scaler: Obj | None, used_at: Event | None = None) -> str | None:
    """``ALWAYS`` ("") for a GradScaler that is always enabled, the flag's source text for
    one switched by a flag (``GradScaler(enabled=args.amp)``, ``GradScaler() if args.amp else
    None``, built under ``if args.amp:``), None when it never skips steps (``enabled=False``)
    or the file does not show how it is built (a name only). With ``used_at`` (an event that
    uses the scaler), also the flags of the ``if`` statements around the call of the project
    function that built it which ``used_at`` does not run under (``if args.amp: scaler =
    make_scaler()``; see _caller_flags)."""
    if scaler is None or scaler.call is None or scaler.kind != "scaler":
        return None
    flag = ALWAYS
    for level in _enclosing_flags(scaler, used_at):
        # `if args.fp16:` around `if args.fsdp: scaler = ShardedGradScaler()`: built when
        # both hold, each decided on its own where it is a literal bound once
        fixed = _fixed(scaler, level)
        if fixed is False:
            return None  # `amp = False` ... `if amp: scaler = GradScaler()`: never built
        if fixed is None:
            flag = _and(flag, level)
    if scaler.conditional:
        test = _conditional_test(scaler)
        if test is None:
            return None
        test = _without_device_checks(test)
        if not _flag(test):
            return None
        fixed = _fixed(scaler, ast.unparse(test))
        if fixed is False:
            return None  # `GradScaler() if amp else None` with `amp = False`: never built
        if fixed is None:
            flag = _and(flag, ast.unparse(test))
    enabled = scaler.arg("enabled", 5 if scaler.cls == "GradScaler" else 99)
    if enabled is None or (isinstance(enabled, ast.Constant) and enabled.value is True):
        return flag
    if isinstance(enabled, ast.Constant):
        return None  # enabled=False (or None): a disabled scaler never skips
    # `enabled=args.amp and torch.cuda.is_available()`: on in a GPU run exactly when args.amp is
    enabled = _without_device_checks(enabled)
    fixed = _fixed(scaler, ast.unparse(enabled))
    if fixed is not None:
        return flag if fixed else None  # `enabled=use_amp` with `use_amp = False` once
    # `def build_scaler(enabled): return GradScaler(enabled=enabled)` called with
    # `enabled=args.amp`: the switch is the caller's setting, and the message names it
    enabled = _as_handed(scaler, enabled)
    if not _flag(enabled) and not _parameter_compared(scaler, enabled) \
            and not _setting_compared(scaler, enabled):
        # `enabled=(dtype == "float16")` with dtype picked from the hardware: the file does
        # not say when float16 is in use, so it stays silent
        return None
    return _and(flag, ast.unparse(enabled))


def _as_handed(scaler: Obj, expr: ast.expr) -> ast.expr:
    """The caller's setting a parameter of the function that builds the scaler was handed
    (``args.amp`` for ``enabled`` in ``build_scaler(enabled=args.amp)``), else ``expr``."""
    if not isinstance(expr, ast.Name) or scaler.scope is None:
        return expr
    value = scaler.scope.lookup(expr.id)
    if isinstance(value, ExprVal) and isinstance(value.node, (ast.Attribute, ast.Subscript)) \
            and _flag(value.node):
        return value.node
    return expr


def built_with_the_gpu(scaler: Obj | None) -> bool:
    """``GradScaler() if torch.cuda.is_available() else None`` (or ``None if not
    torch.cuda.is_available() else GradScaler()``), enabled, under no switch of the user's:
    ``scaler_switch`` leaves it unknown (the test says nothing of whether float16 AMP runs),
    but in every run on a GPU it is an enabled GradScaler, and in every other run it is None.
    A caller that sees the program use it where None would raise (``scaler.step(optimizer)``
    under no test of its existence) knows every run that gets there holds the scaler."""
    if scaler is None or scaler.call is None or scaler.kind != "scaler" \
            or not scaler.conditional or _enclosing_flag(scaler):
        return False
    test = _conditional_test(scaler)
    if test is None or not _device_check(test):
        return False
    enabled = scaler.arg("enabled", 5 if scaler.cls == "GradScaler" else 99)
    return enabled is None or (isinstance(enabled, ast.Constant) and enabled.value is True)


def _fixed(scaler: Obj, flag: str) -> bool | None:
    """The value of a flag that is a plain local name bound once to a literal where the
    scaler is built (``amp = False  # set to True on a GPU``), else None (a setting)."""
    try:
        expr = ast.parse(flag, mode="eval").body
    except SyntaxError:
        return None
    negate = False
    while isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        expr, negate = expr.operand, not negate
    if isinstance(expr, ast.Compare):
        outcome = _fixed_comparison(scaler, expr)
        return None if outcome is None else outcome != negate
    value = _fixed_literal(scaler, expr)
    return None if value is None else bool(value.value) != negate


def _fixed_literal(scaler: Obj, expr: ast.expr) -> Const | None:
    """The literal a plain local name is bound to once where the scaler is built, else None."""
    if not isinstance(expr, ast.Name) or scaler.scope is None:
        return None
    value = scaler.scope.lookup(expr.id)
    if not (isinstance(value, Const) and value.sure
            and isinstance(value.value, (bool, int, str, type(None)))):
        return None
    return value


def _fixed_comparison(scaler: Obj, expr: ast.Compare) -> bool | None:
    """``dtype == "float16"`` (or ``!=``, ``in``, ``not in`` a tuple of literals) where
    ``dtype`` is a local name bound once to a literal: decided by that literal (``dtype =
    "float16"`` switches the scaler on for good, ``dtype = "bfloat16"`` off); None when the
    name may hold anything else (picked from the hardware, a setting)."""
    if len(expr.ops) != 1:
        return None
    value = _fixed_literal(scaler, expr.left)
    right = expr.comparators[0]
    items = _items(right)
    if value is None or not all(isinstance(i, ast.Constant) for i in items):
        return None
    literals = [i.value for i in items if isinstance(i, ast.Constant)]
    op = expr.ops[0]
    if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
        return (value.value == right.value) == isinstance(op, ast.Eq)
    if isinstance(op, (ast.In, ast.NotIn)) and right is not items[0]:
        return (value.value in literals) == isinstance(op, ast.In)
    return None


def _parameter_compared(scaler: Obj, expr: ast.expr) -> bool:
    """``precision != "fp32"`` where ``precision`` is a parameter of the function that builds
    the scaler and is never rebound there (``def setup(self, precision): self.scaler =
    GradScaler(enabled=precision != "fp32")``): a setting its caller hands in, known only at
    run time, as ``self.precision != "fp32"`` is. A local name compared (``dtype =
    "bfloat16" if bf16_ok else "float16"``) is not one: it may be picked from the hardware."""
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1
            and isinstance(expr.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
            and isinstance(expr.left, ast.Name)):
        return False
    right = expr.comparators[0]
    items = _items(right)
    if not all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items):
        return False
    if scaler.scope is None or scaler.call is None:
        return False
    function = function_at(scaler.scope.module.tree, scaler.call.lineno)
    if function is None:
        return False
    name = expr.left.id
    given = function.args
    if name not in {a.arg for a in given.posonlyargs + given.args + given.kwonlyargs}:
        return False
    for node in ast.walk(function):
        if node is not function and isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        if any(isinstance(n, ast.Name) and n.id == name
               for t in targets for n in ast.walk(t)):
            return False  # rebound: `precision = precision or pick_dtype()`
    return True


def _setting_compared(scaler: Obj, expr: ast.expr) -> bool:
    """``dtype == "float16"`` where every binding of the local name ``dtype``, in the scope
    that builds the scaler, reads the user's configuration: ``dtype = args.dtype``, ``dtype =
    cfg.get("dtype", "float32")``, ``dtype = getattr(args, "dtype", "fp32")``, or ``dtype =
    locals().get("dtype", "float32")`` in a module that first ``exec``s a configuration file
    into its globals (nanoGPT's configurator idiom). The name then holds that setting, as
    ``args.dtype == "float16"`` does. A binding picked from the hardware (``"bfloat16" if
    torch.cuda.is_bf16_supported() else "float16"``), a literal, or any other value leaves the
    comparison unknown, as before; literals picked by a setting (``dtype = "float16" if
    args.fp16 else "float32"``) read it."""
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1
            and isinstance(expr.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))
            and isinstance(expr.left, ast.Name)):
        return False
    if not all(isinstance(i, ast.Constant) and isinstance(i.value, str)
               for i in _items(expr.comparators[0])):
        return False
    if scaler.scope is None or scaler.call is None:
        return False
    tree = scaler.scope.module.tree
    scope: ast.AST = function_at(tree, scaler.call.lineno) or tree
    values = _bindings(scope, expr.left.id)
    if not values:
        return False
    imported = _imported_names(tree)
    return all(_reads_setting(v, imported, _execs_unknown(tree)) for v in values)


@per_node  # asked at every event that consults the scaler's switch
def _bindings(scope: ast.AST, name: str) -> tuple[ast.expr | None, ...]:
    """The values bound to ``name`` in ``scope`` (not in the functions it defines); None for a
    binding whose value is not one expression (a loop target, ``+=``, an unpacking)."""
    out: list[ast.expr | None] = []
    for node in own_nodes(scope):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    out.append(node.value)
                elif any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                    out.append(None)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor,
                               ast.NamedExpr, ast.With, ast.AsyncWith, ast.Import,
                               ast.ImportFrom, ast.Global, ast.Nonlocal)):
            bound = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Store)}
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound = {(a.asname or a.name).split(".")[0] for a in node.names}
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                bound = set(node.names)
            if name in bound:
                out.append(node.value if isinstance(node, ast.AnnAssign) else None)
    return tuple(out)


@per_node
def _imported_names(tree: ast.Module) -> frozenset[str]:
    return frozenset((a.asname or a.name).split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names)


@per_node
def _execs_unknown(tree: ast.Module) -> bool:
    """The module runs code it does not hold at its own top level: ``exec(f.read(),
    globals())``, ``exec(open("configurator.py").read())`` (what that binds is unknown)."""
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
               and node.func.id == "exec" and node.args
               and not isinstance(node.args[0], ast.Constant)
               for node in own_nodes(tree))


def _reads_setting(value: ast.expr | None, imported: frozenset[str], execs: bool) -> bool:
    """``value`` reads the user's configuration: an attribute or item of a name that is not
    an imported module (``args.dtype``, ``cfg["precision"]``, ``self.cfg.dtype``), its
    ``.get(...)`` (``cfg.get("dtype", "fp32")``, ``os.environ.get("DTYPE")``), ``getattr(args,
    "dtype", ...)``; ``locals().get(...)`` / ``globals().get(...)`` only where the module
    ``exec``s code it does not hold (else they read what the module itself bound)."""
    if value is None:
        return False
    if isinstance(value, ast.IfExp):
        # `dtype = "float16" if args.fp16 else "float32"`: literals picked by a setting (a
        # pick by the hardware, `... if torch.cuda.is_bf16_supported() else ...`, or by a
        # bare local name that may hold one, is not)
        test = value.test.operand if isinstance(value.test, ast.UnaryOp) \
            and isinstance(value.test.op, ast.Not) else value.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and all(
                isinstance(i, ast.Constant) and isinstance(i.value, str)
                for i in _items(test.comparators[0])):
            test = test.left  # `cfg.get("precision") == "fp16"`
        return all(isinstance(v, ast.Constant) and isinstance(v.value, str)
                   for v in (value.body, value.orelse)) \
            and _reads_setting(test, imported, execs)
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Name) and func.id == "getattr" and value.args:
            return _rooted_in_setting(value.args[0], imported)
        if isinstance(func, ast.Attribute) and func.attr == "get":
            receiver = func.value
            if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) \
                    and receiver.func.id in ("locals", "globals", "vars") and not receiver.args:
                return execs
            return dotted(receiver) == "os.environ" or _rooted_in_setting(receiver, imported)
        return False
    if isinstance(value, (ast.Attribute, ast.Subscript)):
        return _rooted_in_setting(value, imported)
    return False


def _rooted_in_setting(expr: ast.expr, imported: frozenset[str]) -> bool:
    """A name, or an attribute / item chain on one, that is not an imported module (``args``,
    ``self.cfg``, ``cfg["train"]``; not ``torch.float16``)."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return isinstance(expr, ast.Name) and expr.id not in imported


def _device_check(expr: ast.expr) -> bool:
    """``torch.cuda.is_available()``: true in every run where a GradScaler can scale at all."""
    return isinstance(expr, ast.Call) and not expr.args and not expr.keywords \
        and (dotted(expr.func) or "").endswith("cuda.is_available")


def _without_device_checks(test: ast.expr) -> ast.expr:
    """The test a scaler is built under, less the ``torch.cuda.is_available()`` beside a switch
    of the user's: built ``if args.amp and torch.cuda.is_available()``, it is on in a GPU run
    exactly when ``args.amp`` is, as under ``if args.amp and torch.cuda.is_available():``. A
    test of the hardware alone is kept (no switch: whether float16 AMP runs stays unknown)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        rest = [v for v in test.values if not _device_check(v)]
        if rest and len(rest) < len(test.values):
            return rest[0] if len(rest) == 1 else ast.BoolOp(op=ast.And(), values=rest)
    return test


def _and(first: str, second: str) -> str:
    """Both switches (each said once: the caller's `if args.amp:` and the builder's
    `enabled=args.amp` are one switch)."""
    if not first or first == second:
        return second
    return first if second in first.split(" and ") else f"{first} and {second}"


def _flag(expr: ast.expr) -> bool:
    """A switch the user sets: ``args.amp``, ``use_amp``, ``cfg["AMP"]``, ``cfg.get("amp")``,
    ``not args.no_amp``, ``args.amp and cuda``."""
    if isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript)):
        return True
    if isinstance(expr, ast.Call):
        return isinstance(expr.func, ast.Attribute) and expr.func.attr == "get" or (
            isinstance(expr.func, ast.Name) and expr.func.id in ("bool", "getattr")
        )
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return _flag(expr.operand)
    if isinstance(expr, ast.Compare) and len(expr.ops) == 1 \
            and isinstance(expr.ops[0], (ast.Eq, ast.NotEq, ast.In)):
        # `args.precision == "fp16"`, `cfg.amp_dtype in ("fp16", "float16")`: a setting read
        # from the user's configuration compared with literals (a bare local name compared,
        # `dtype == "float16"`, may be picked from the hardware and stays unknown)
        setting = expr.left
        if isinstance(setting, ast.Call):
            setting = setting.func.value if isinstance(setting.func, ast.Attribute) \
                and setting.func.attr == "get" else setting
        literals = expr.comparators[0]
        items = literals.elts if isinstance(literals, (ast.Tuple, ast.List, ast.Set)) \
            else [literals]
        return isinstance(setting, (ast.Attribute, ast.Subscript, ast.Name)) \
            and isinstance(expr.left, (ast.Attribute, ast.Subscript, ast.Call)) \
            and all(isinstance(i, ast.Constant) and isinstance(i.value, str) for i in items)
    if isinstance(expr, ast.BoolOp):
        return all(_flag(v) or isinstance(v, ast.Compare) for v in expr.values) and any(
            _flag(v) for v in expr.values
        )
    return False


def when(flag: str) -> str:
    """``when `args.amp` is on`` (or "" for an always-on scaler)."""
    if not flag:
        return ""
    try:
        simple = isinstance(ast.parse(flag, mode="eval").body,
                            (ast.Name, ast.Attribute, ast.Subscript, ast.Call))
    except SyntaxError:
        simple = False
    return f"when `{flag}` is on" if simple else f"when `{flag}` holds"


@per_node
def _ifs(tree: ast.AST) -> tuple[ast.If, ...]:
    """The ``if`` statements of a module, in ``ast.walk`` order (once per module: a scaler's
    flag is asked at every event that reads it)."""
    return tuple(n for n in ast.walk(tree) if isinstance(n, ast.If))


@per_node
def _if_expressions(tree: ast.AST) -> tuple[ast.IfExp, ...]:
    """The ``a if test else b`` expressions of a module, in ``ast.walk`` order."""
    return tuple(n for n in ast.walk(tree) if isinstance(n, ast.IfExp))


def _within(block: list[ast.stmt], line: int) -> bool:
    return bool(block) and block[0].lineno <= line <= (block[-1].end_lineno or block[-1].lineno)


def _enclosing_flag(scaler: Obj) -> str:
    """The flags of the ``if`` statements the scaler is built under, joined by ``and``
    (``ALWAYS`` for none); see ``_enclosing_flags``."""
    flag = ALWAYS
    for level in _enclosing_flags(scaler):
        flag = _and(flag, level)
    return flag


def _enclosing_flags(scaler: Obj, used_at: Event | None = None) -> list[str]:
    """The flag of each ``if`` the scaler is built under, outermost first: the test of ``if
    args.amp: scaler = GradScaler()``, or the negation for ``if not args.amp: scaler = None``
    / ``else: scaler = GradScaler()`` (built when the test fails). An ``if`` whose test is no
    flag the user sets (``if __name__ == "__main__":``, ``if torch.cuda.is_available():``),
    or whose ``else`` in an ``elif`` chain holds the scaler (the negation of one test is not
    what holds there), adds none. Nested tests all hold where the scaler is built: ``if
    args.fp16:`` around ``if args.fsdp: scaler = ShardedGradScaler()`` gives both."""
    if scaler.scope is None or scaler.call is None:
        return []
    line = scaler.call.lineno
    around: list[tuple[ast.If, bool]] = []
    for node in _ifs(scaler.scope.module.tree):
        body, orelse = _within(node.body, line), _within(node.orelse, line)
        if body or orelse:
            around.append((node, orelse))
    flags = _caller_flags(scaler, {id(node.test) for node, _ in around}, used_at) \
        if used_at is not None else []
    for found, in_else in sorted(around, key=lambda pair: pair[0].lineno):
        test: ast.expr = found.test
        if in_else:
            if len(found.orelse) == 1 and isinstance(found.orelse[0], ast.If) \
                    or _is_elif(scaler, found):
                continue
            test = _negated(test)
        # `if args.amp and torch.cuda.is_available():` is on in a GPU run exactly when
        # args.amp is
        test = _without_device_checks(test)
        if _flag(test) or _numeric_switch(test):
            flags.append(ast.unparse(test))
    return flags


def _caller_flags(scaler: Obj, tests_around: set[int], used_at: Event) -> list[str]:
    """The flags of the ``if`` statements around the call of the project function that built
    the scaler (``if args.amp: scaler = make_scaler()``, the ``GradScaler(...)`` inside
    ``make_scaler``), outermost first, as the trace took them: the branches it was built on
    less those ``used_at`` runs under too (``if args.mode == "train": train()`` around both
    says when training runs, not when the scaler exists) and less the ``if`` statements
    written around the ``GradScaler(...)`` call itself (``tests_around``: their tests, whose
    flags ``_enclosing_flags`` reads where they are written). An ``else`` adds the test's
    negation."""
    shared = {(c.key, c.branch) for c in used_at.conds}
    flags = []
    for cond in scaler.built_under or ():
        stmt = cond.test
        if stmt is None or cond.branch not in (0, 1) or cond.loop is not None \
                or (cond.key, cond.branch) in shared:
            continue
        if id(stmt) in tests_around:
            continue
        test = _without_device_checks(stmt if cond.branch == 0 else _negated(stmt))
        if _flag(test) or _numeric_switch(test):
            flags.append(ast.unparse(test))
    return flags


# the comparisons whose opposite reads as plainly as they do (`!=` for `==`; `a >= b` for
# `a < b` is left as `not a < b`)
_SAID_OPPOSITE = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)


def _negated(test: ast.expr) -> ast.expr:
    """What holds in the ``else`` of ``if test:``, as one would write it: ``args.amp`` for
    ``not args.amp``, ``self.device != "cpu"`` for ``self.device == "cpu"`` (not ``not
    self.device == "cpu"``), else ``not (test)``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and type(test.ops[0]) in _SAID_OPPOSITE:
        return ast.Compare(left=test.left, ops=[OPPOSITE_OPS[type(test.ops[0])]()],
                           comparators=test.comparators)
    return ast.UnaryOp(op=ast.Not(), operand=test)


def _numeric_switch(expr: ast.expr) -> bool:
    """A setting compared with a number or a bool (``config.use_amp == 1``, ``cfg["fp16"] !=
    0``, ``not args.amp == True``): a switch spelled as an integer. Only for the ``if`` a
    scaler is built under, which it is built or not by: naming it says when the scaler
    exists (it decides nothing where ``_flag`` is asked whether a scaler is on at all)."""
    while isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        expr = expr.operand
    if not (isinstance(expr, ast.Compare) and len(expr.ops) == 1
            and isinstance(expr.ops[0], (ast.Eq, ast.NotEq))):
        return False
    setting, literal = expr.left, expr.comparators[0]
    if isinstance(setting, ast.Constant):
        setting, literal = literal, setting
    if isinstance(setting, ast.Call):
        if not (isinstance(setting.func, ast.Attribute) and setting.func.attr == "get"):
            return False
    elif not isinstance(setting, (ast.Attribute, ast.Subscript)):
        return False
    return isinstance(literal, ast.Constant) and isinstance(literal.value, (bool, int))


def _is_elif(scaler: Obj, node: ast.If) -> bool:
    """``node`` is the ``elif`` of an ``if`` (the only statement of that ``if``'s ``else``)."""
    assert scaler.scope is not None
    return any(len(n.orelse) == 1 and n.orelse[0] is node
               for n in _ifs(scaler.scope.module.tree))


def _conditional_test(scaler: Obj) -> ast.expr | None:
    """What holds when the scaler is built: the test of ``GradScaler() if <test> else None``,
    or its negation for ``None if <test> else GradScaler()`` (``None if not amp else
    GradScaler()`` is built when ``amp``)."""
    if scaler.scope is None or scaler.call is None:
        return None
    for node in _if_expressions(scaler.scope.module.tree):
        if node.body is scaler.call:
            return node.test
        if node.orelse is scaler.call:
            test = node.test
            if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                return test.operand
            return ast.UnaryOp(op=ast.Not(), operand=test)
    # picked where a builder of the project is called (`build_scaler() if amp else None`)
    picked = scaler.picked_by
    if isinstance(picked, ast.UnaryOp) and isinstance(picked.op, ast.Not) \
            and isinstance(picked.operand, ast.UnaryOp) and isinstance(picked.operand.op, ast.Not):
        return picked.operand.operand
    return picked


def _items(right: ast.expr) -> list[ast.expr]:
    """What a comparison's right side lists (``in ("fp16", "float16")``), or itself alone."""
    return right.elts if isinstance(right, (ast.Tuple, ast.List, ast.Set)) else [right]


# how far the imports of the module that builds a scaler are followed to see how the program
# casts (the model's own module is usually one or two imports away from the training script)
_CAST_IMPORT_DEPTH = 3
_CAST_MODULES = 64


def never_skips(scaler: Obj | None, used_in: Iterable[str] = ()) -> bool:
    """A GradScaler that cannot skip an update: every autocast region of its program casts to
    bfloat16, and nothing there runs in float16. bfloat16 has float32's exponent range, so
    gradients multiplied by the scale (65536 at first) do not overflow and the scaler never
    finds an inf to skip: a scheduler stepped after ``scaler.step()`` stays in step with the
    updates (LRD005), and a checkpoint without the scaler loses nothing a resumed run needs
    (LRD007). Its scaling still multiplies the gradients, so clipping them before
    ``unscale_()`` stays a bug (LRD108). The program is the scaler's module and the project
    modules it imports, followed a few imports deep; one autocast of another or an unknown
    dtype (``autocast("cuda")`` is float16), a ``.half()``, or a float16 dtype or "fp16"
    setting named anywhere there, and the scaler may skip as usual. So may one whose program
    shows no autocast at all (the cast may be made where lrdoctor does not look).
    ``used_in``: the files where the program scales with it or steps it (a base trainer class
    builds the scaler, a subclass in another module, which the base does not import, runs the
    autocast region and the scaler's steps): their modules and imports are its program too."""
    if scaler is None or scaler.scope is None:
        return False
    first = scaler.scope.module
    seen = {id(first)}
    todo = [(first, 0)]
    for path in sorted(set(used_in)):
        if not path or display_path(path) == first.path:
            continue  # the scaler's own module (read already; not parsed again)
        other = first.loader.load(path) if first.loader is not None else None
        if other is not None and id(other) not in seen:
            seen.add(id(other))
            todo.append((other, 0))
    bfloat16 = False
    while todo:
        module, depth = todo.pop()
        casts = _casts(module.tree)
        if "other" in casts:
            return False
        bfloat16 = bfloat16 or "bfloat16" in casts
        if depth >= _CAST_IMPORT_DEPTH or module.loader is None:
            continue
        for qualname in sorted(set(module.imports.values())):
            found = module.loader.module_for(qualname, module)
            if found is None or id(found[0]) in seen:
                continue
            if len(seen) >= _CAST_MODULES:
                return False  # too large a program to vouch for
            seen.add(id(found[0]))
            todo.append((found[0], depth + 1))
    return bfloat16


_FLOAT16_NAMES = frozenset({"float16", "half"})
_FLOAT16_WORDS = frozenset({"float16", "fp16", "16-mixed", "half"})


@per_node
def _casts(tree: ast.AST) -> frozenset[str]:
    """What the module casts to: "bfloat16" for an autocast region whose dtype is bfloat16 on
    every path the module shows, float32 allowed on some of them (a literal; a name, a field
    of ``self`` or a parameter the module binds to such dtypes alone; ``a if c else b``; a
    lookup in a dict literal; a property or field of the module's own classes:
    ``_DtypeSource``),
    "other" for any other enabled autocast (float16, the CUDA default, a dtype the module does
    not pin down), a ``.half()`` call, a float16 dtype (``torch.float16``, ``torch.half``) or a
    precision setting written "fp16"/"float16". An autocast to float32 alone adds nothing: it
    casts nothing to float16."""
    found: set[str] = set()
    held: list[ast.expr] = []  # autocast dtypes to resolve
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and last_name(node.func) == "autocast":
            enabled = next((k.value for k in node.keywords if k.arg == "enabled"), None)
            if isinstance(enabled, ast.Constant) and enabled.value is False:
                continue
            dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
            if dtype is None and len(node.args) >= 2:
                dtype = node.args[1]
            if dtype is None:
                found.add("other")  # the device's default: float16 on CUDA
            else:
                held.append(dtype)
        elif isinstance(node, ast.Attribute) and node.attr in _FLOAT16_NAMES \
                and isinstance(node.value, (ast.Name, ast.Attribute)):
            found.add("other")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.lower() in _FLOAT16_WORDS:
            found.add("other")
    if held:
        source = _DtypeSource(tree)
        for dtype in held:
            kind = source.kind(dtype)
            if kind is None:
                found.add("other")
            elif kind == "bfloat16":
                found.add("bfloat16")
    return frozenset(found)


class _DtypeSource:
    """Which dtypes an expression of one module can hold, as far as that module shows:
    "bfloat16" (bfloat16 on some path, float32 at most on the others), "float32" (float32
    alone), None (anything else, or not pinned down here). Followed: ``torch.bfloat16`` (or
    ``<alias>.bfloat16``), ``torch.float32`` / ``torch.float``; both arms of ``a if c else
    b``; every value of a dict literal looked up (``{"bf16": torch.bfloat16, "fp32":
    torch.float32}[args.precision]``,
    directly or through a name the module binds to dict literals alone; ``.get`` only with a
    default); a plain name or a field of ``self`` through every value the module binds it to,
    and, where a name is a parameter of the module's functions, every argument the module's
    calls of them hand it (their default where a call leaves it out; a function the module
    never calls, or calls with ``*args`` / ``**kwargs``, is not pinned down: its callers are
    elsewhere); ``obj.name`` where ``name`` is a property of the module's classes, through its
    return values, or a field of them (a dataclass's ``amp_dtype: torch.dtype =
    torch.bfloat16``), through its default, every assignment to it and every value the
    module's calls of the class hand it. Names are matched module-wide (every binding of the same name counts), so a
    name bound to float16 anywhere, or handed a dtype the module does not show, stays
    unknown."""

    _DEPTH = 8

    def __init__(self, tree: ast.AST) -> None:
        self.bound: dict[str, list[ast.expr]] = {}
        self.defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        self.calls: dict[str, list[tuple[ast.Call, bool]]] = {}
        self.fields: dict[str, list[tuple[str, ast.expr]]] = {}  # field -> (class, default)
        self.attrs: dict[str, list[ast.expr]] = {}  # `anything.field = value`, module-wide
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._bind(target, node.value)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                self._bind(node.target, node.value or node.target)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr)):
                self._bind(node.target, node.target)  # bound by a loop or `:=`: not followed
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                self._bind(node.optional_vars, node.optional_vars)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.setdefault(node.name, []).append(node)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:  # class-level fields (a dataclass's defaults)
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        self.fields.setdefault(item.target.id, []).append(
                            (node.name, item.value or item.target))
                    elif isinstance(item, ast.Assign):
                        for target in item.targets:
                            for name in ast.walk(target):
                                if isinstance(name, ast.Name):
                                    self.fields.setdefault(name.id, []).append(
                                        (node.name, item.value if name is target else name))
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name):
                    self.calls.setdefault(node.func.id, []).append((node, False))
                elif isinstance(node.func, ast.Attribute):
                    self.calls.setdefault(node.func.attr, []).append((node, True))

    def _bind(self, target: ast.expr, value: ast.expr) -> None:
        if isinstance(target, ast.Attribute):
            self.attrs.setdefault(target.attr, []).append(value)
        key = _dtype_key(target)
        if key:
            self.bound.setdefault(key, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List, ast.Starred)):
            for item in ast.walk(target):
                if item is not target and _dtype_key(item):  # unpacked: not followed
                    self.bound.setdefault(_dtype_key(item), []).append(item)  # type: ignore[arg-type]

    def kind(self, node: ast.expr, depth: int = 0, seen: frozenset[str] = frozenset()) -> str | None:
        if depth > self._DEPTH:
            return None
        if isinstance(node, ast.Attribute) and node.attr == "bfloat16":
            return "bfloat16"  # `torch.bfloat16`, or under an alias (`th.bfloat16`)
        if isinstance(node, ast.Attribute) and (
                node.attr == "float32"
                or node.attr == "float" and isinstance(node.value, ast.Name)
                and node.value.id == "torch"):
            return "float32"
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "torch":
            return None  # float16, float64, an int dtype: not the program vouched for
        if isinstance(node, ast.IfExp):
            return self._all([node.body, node.orelse], depth, seen)
        if isinstance(node, ast.Subscript):
            values = self._dict_values(node.value, seen)
            return None if values is None else self._all(values, depth, seen)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "get" and len(node.args) == 2 and not node.keywords:
            values = self._dict_values(node.func.value, seen)
            return None if values is None else self._all([*values, node.args[1]], depth, seen)
        key = _dtype_key(node)
        if key:
            if key in seen:
                return None
            values = list(self.bound.get(key, []))
            if isinstance(node, ast.Name):
                handed = self._handed(node.id)
                if handed is None:
                    return None
                values.extend(handed)
            return self._all(values, depth, seen | {key})
        if isinstance(node, ast.Attribute):
            values = self._property_returns(node.attr)
            if values is None:
                values = self._field_values(node.attr)
            return None if values is None else self._all(values, depth, seen)
        return None

    def _all(self, values: list[ast.expr], depth: int, seen: frozenset[str]) -> str | None:
        kinds = [self.kind(v, depth + 1, seen) for v in values]
        if not kinds or None in kinds:
            return None
        return "bfloat16" if "bfloat16" in kinds else "float32"

    def _dict_values(self, node: ast.expr, seen: frozenset[str]) -> list[ast.expr] | None:
        """Every value of the dict literal ``node`` is, or of the dict literals alone a name
        is bound to; None for anything else (a dict built or filled elsewhere)."""
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                return None  # `{**other, ...}`
            return list(node.values)
        key = _dtype_key(node)
        bound = self.bound.get(key, []) if key and key not in seen else []
        if not bound or not all(isinstance(b, ast.Dict) for b in bound) \
                or isinstance(node, ast.Name) and self._handed(node.id) != []:
            return None
        values: list[ast.expr] = []
        for b in bound:
            got = self._dict_values(b, seen | {key})
            if got is None:
                return None
            values.extend(got)
        return values

    def _handed(self, name: str) -> list[ast.expr] | None:
        """What the module's calls hand the parameter ``name`` of its functions (the default
        where a call leaves it out): [] where no function of the module takes it; None where
        one that does is never called here, or a call hides what it passes."""
        handed: list[ast.expr] = []
        for fname, defs in self.defs.items():
            for fn in defs:
                args = fn.args
                if name in (args.vararg.arg if args.vararg else None,
                            args.kwarg.arg if args.kwarg else None):
                    return None
                positional = [*args.posonlyargs, *args.args]
                names = [a.arg for a in positional]
                if name not in names and name not in {a.arg for a in args.kwonlyargs}:
                    continue
                calls = self.calls.get(fname, [])
                if not calls:
                    return None
                defaults: dict[str, ast.expr] = dict(
                    zip(names[len(names) - len(args.defaults):], args.defaults))
                defaults.update({a.arg: v for a, v in zip(args.kwonlyargs, args.kw_defaults)
                                 if v is not None})
                index = names.index(name) if name in names else None
                bound_self = bool(names) and names[0] in ("self", "cls")
                for call, via_attribute in calls:
                    if any(isinstance(a, ast.Starred) for a in call.args) \
                            or any(k.arg is None for k in call.keywords):
                        return None
                    given = next((k.value for k in call.keywords if k.arg == name), None)
                    if given is None and index is not None:
                        at = index - 1 if via_attribute and bound_self else index
                        if 0 <= at < len(call.args):
                            given = call.args[at]
                    given = given if given is not None else defaults.get(name)
                    if given is None:
                        return None
                    handed.append(given)
        return handed

    def _field_values(self, name: str) -> list[ast.expr] | None:
        """Every value a field ``name`` of the module's classes can take as far as the module
        shows: the class-level defaults, every ``anything.name = value`` of the module, and
        every ``name=value`` a call of such a class hands it; None where no class of the module
        has the field, where such a class is never built here (it is built, and may be given
        the field, elsewhere), or where a call of one passes arguments by position or ``**``."""
        fields = self.fields.get(name, [])
        if not fields:
            return None
        values = [default for _, default in fields] + self.attrs.get(name, [])
        for cls in sorted({owner for owner, _ in fields}):
            calls = self.calls.get(cls, [])
            if not calls:
                return None
            for call, _ in calls:
                if call.args or any(k.arg is None for k in call.keywords):
                    return None
                values.extend(k.value for k in call.keywords if k.arg == name)
        return values

    def _property_returns(self, name: str) -> list[ast.expr] | None:
        """The return values of ``name`` where every function of the module so named is a
        property; None else."""
        defs = self.defs.get(name, [])
        if not defs or not all(any(last_name(dec) in ("property", "cached_property")
                                   for dec in fn.decorator_list) for fn in defs):
            return None
        returns: list[ast.expr] = []
        for fn in defs:
            for node in own_nodes(fn):
                if isinstance(node, ast.Return):
                    if node.value is None:
                        return None
                    returns.append(node.value)
        return returns or None


def _dtype_key(node: ast.AST | None) -> str:
    """The key ``_casts`` binds a dtype under: a plain name, or ``self.<field>``; "" else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
            and node.value.id == "self":
        return f"self.{node.attr}"
    return ""
