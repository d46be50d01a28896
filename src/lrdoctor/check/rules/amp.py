"""Mixed precision: LRD101, LRD102, LRD103, LRD108, LRD109, LRD110."""

from __future__ import annotations

import ast
import functools
import os
import re
import struct
from collections.abc import Callable, Iterator

from lrdoctor.check import constants, memo, names
from lrdoctor.check.context import (
    FileContext,
    definitions_in,
    function_around,
    function_at,
    last_binding,
    receiver,
    scaler_disabled,
)
from lrdoctor.check.diagnostic import Diagnostic, Edit
from lrdoctor.check.index import ModuleInfo, dotted, exit_stack_calls, last_name, own_nodes
from lrdoctor.check.memo import per_node
from lrdoctor.check.model import Event, exclusive, flag_of
from lrdoctor.check.passed import passed_chain
from lrdoctor.check.project import display_path
from lrdoctor.check.rules import rule
from lrdoctor.check.rules.scalers import scaler_switch, when
from lrdoctor.check.values import Obj
from lrdoctor.optimizers import unscaled_update

FP16_SMALLEST_SUBNORMAL = 5.96e-8


def _new_spelling(name: str) -> str:
    """What the deprecated ``torch.cuda.amp.<name>`` is replaced by."""
    return 'torch.amp.GradScaler("cuda")' if name == "GradScaler" else 'torch.autocast("cuda")'


def resolve(node: ast.expr, module: ModuleInfo) -> str:
    """``torch.cuda.amp.autocast`` for ``autocast`` imported from there, etc."""
    text = dotted(node)
    if text is None:
        return ""
    head, _, rest = text.partition(".")
    imported = module.imports.get(head)
    if imported is None:
        return text
    imported = _relayed(imported, module)
    return f"{imported}.{rest}" if rest else imported


def _relayed(qual: str, module: ModuleInfo, depth: int = 0) -> str:
    """What a name imported from a project module stands for when that module imports it in
    turn (``from amp import GradScaler`` with ``from torch.cuda.amp import GradScaler`` in the
    project's ``amp.py``): the library's name, followed through such relays; ``qual`` itself
    for a name the module defines, or one from no project module."""
    loader = module.loader
    if loader is None or depth > 3 or qual.split(".")[0] in _LIBRARIES:
        return qual
    found = loader.module_for(qual, module)
    if found is None:
        return qual
    other, attr = found
    inner = other.imports.get(attr)
    if inner is None or attr in other.functions or attr in other.classes:
        return qual
    return _relayed(inner, other, depth + 1)


# -- LRD101 ------------------------------------------------------------------------------------


_OLD_AMP = ("torch.cuda.amp.GradScaler", "torch.cuda.amp.autocast")
# the modules of torch.cuda.amp that define them (`from torch.cuda.amp.grad_scaler import
# GradScaler`): the same deprecated classes, which warn the same way
_OLD_AMP_HOMES = {
    "torch.cuda.amp.grad_scaler.GradScaler": "torch.cuda.amp.GradScaler",
    "torch.cuda.amp.autocast_mode.autocast": "torch.cuda.amp.autocast",
}


def _old_amp(qual: str) -> str:
    """``torch.cuda.amp.GradScaler`` / ``torch.cuda.amp.autocast`` for any spelling of them
    (also through the modules that define them), else ``""``."""
    qual = _OLD_AMP_HOMES.get(qual, qual)
    return qual if qual in _OLD_AMP else ""
# every spelling that can reach torch.cuda.amp: `torch.cuda.amp.X`, `from torch.cuda.amp
# import X`, `from torch.cuda import amp`, `import torch.cuda.amp as A`
_OLD_AMP_TEXT = re.compile(
    r"cuda\.amp|from\s+torch\.cuda\s+import\s*(\([^)]*|[^\n]*)\bamp\b"
)


@rule("LRD101")
def deprecated_cuda_amp(ctx: FileContext) -> Iterator[Diagnostic]:
    # `from torch.cuda import amp` + `amp.GradScaler()` never spells "cuda.amp": the cheap
    # test must not miss it
    module = ctx.module
    if not _OLD_AMP_TEXT.search(ctx.source) and not any(
            _old_amp(_relayed(qual, module)) for qual in module.imports.values()):
        # (names the project's own module imports from torch.cuda.amp and this file imports
        # from it: `from amp import GradScaler` is torch.cuda.amp's class all the same)
        return
    found: list[tuple[ast.Call, str]] = []
    references: list[ast.expr] = []
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Call):
            qual = _old_amp(resolve(node.func, module))
            if qual:
                found.append((node, qual.rsplit(".", 1)[1]))
        elif isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
            if _old_amp(resolve(node, module)):
                references.append(node)
    bound = _bound_references(ctx.tree, references, module)
    if os.path.basename(ctx.path) == "__init__.py":
        yield from _reexported_old_amp(ctx)
    if not found and not bound:
        return
    fallback = _fallback_nodes(ctx.tree, module)
    guarded_names = {
        alias.asname or alias.name
        for node in ast.walk(ctx.tree)
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) in fallback
        for alias in node.names
    }
    calls: list[tuple[ast.Call, str]] = []
    callee_ids: set[int] = set()
    for node, name in found:
        callee_ids.add(id(node.func))
        if id(node) in fallback or _head(node.func) in guarded_names:
            continue  # the old-torch side of a version switch: it is the point
        calls.append((node, name))
    bare_refs = [r for r in references if id(r) not in callee_ids]
    # names bound by the top-level `from torch.cuda.amp import ...` lines the fix rewrites;
    # a call of any other name (bound by another import, or inside a function) keeps the old
    # class, whose first positional parameter is not the device: its call is not rewritten
    from_imports = _from_imports(ctx.tree)
    fixable = {alias.asname or alias.name for stmt in from_imports for alias in stmt.names}
    rewritten = {id(stmt) for stmt in from_imports}
    bound_elsewhere = {
        alias.asname or alias.name.split(".")[0]
        for node in ast.walk(ctx.tree)
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in rewritten
        for alias in node.names
    }
    import_fix_ok = bool(fixable) and fixable.isdisjoint(bound_elsewhere) and not any(
        isinstance(r, ast.Name) and r.id in fixable for r in bare_refs
    )
    fixes = {id(node): _call_fix(ctx.source, node, name, module) for node, name in calls}
    import_fix_ok = import_fix_ok and all(
        fixes[id(node)] is not None for node, _ in calls
        if isinstance(node.func, ast.Name) and node.func.id in fixable
    )
    import_edits = tuple(e for stmt in from_imports for e in _import_edit(ctx.source, stmt))
    for node, name in calls:
        edits: tuple[Edit, ...] = ()
        fix = fixes[id(node)]
        if fix is not None:
            if isinstance(node.func, ast.Name):
                if import_fix_ok and node.func.id in fixable:
                    edits = (*fix, *import_edits)
            else:
                edits = fix
        new = _new_spelling(name)
        yield Diagnostic.at(
            "LRD101",
            f"`{ast.unparse(node.func)}(...)` is torch.cuda.amp.{name}, deprecated (it warns "
            f"and ties the code to CUDA): use `{new}`",
            ctx.path,
            node,
            edits=edits,
        )
    # a reference bound to a name (`amp_autocast = torch.cuda.amp.autocast`, maybe in one arm of
    # `... if args.amp else nullcontext`) is kept to be called later, often by another module
    # that receives it: that is a use. Other bare references (`fn is torch.cuda.amp.autocast`,
    # registries of known functions) are not: they are left alone
    for ref in bound:
        if id(ref) in fallback or _head(ref) in guarded_names:
            continue
        name = _old_amp(resolve(ref, module)).rsplit(".", 1)[-1]
        new = _new_spelling(name)
        yield Diagnostic.at(
            "LRD101",
            f"`{ast.unparse(ref)}` is torch.cuda.amp.{name}, kept here to be called later; it is "
            f"deprecated (it warns and ties the code to CUDA): use `{new}`",
            ctx.path,
            ref,
        )


def _reexported_old_amp(ctx: FileContext) -> Iterator[Diagnostic]:
    """A package's ``__init__.py`` that imports ``torch.cuda.amp`` (``from torch.cuda import
    amp``, ``from torch.cuda.amp import GradScaler``) at its top level and never uses the name
    itself: the import is there for the package's modules (the project's shared imports), the
    one place to change."""
    fallback = _fallback_nodes(ctx.tree, ctx.module)
    used = {node.id for node in ast.walk(ctx.tree)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    exported = _dunder_all(ctx.tree)
    for stmt in ctx.tree.body:
        if not isinstance(stmt, ast.ImportFrom) or stmt.level or id(stmt) in fallback:
            continue
        for alias in stmt.names:  # one finding per statement
            qual = f"{stmt.module}.{alias.name}"
            local = alias.asname or alias.name
            if (qual != "torch.cuda.amp" and not _old_amp(qual)) or (local in used
                                                             and local not in exported):
                continue
            yield Diagnostic.at(
                "LRD101",
                f"`{qual}` is imported here for the package's modules; torch.cuda.amp is "
                "deprecated (it warns and ties the code to CUDA): import `torch.amp` "
                "(`torch.amp.GradScaler(\"cuda\")`, `torch.autocast(\"cuda\")`)",
                ctx.path,
                stmt,
            )
            break


def _dunder_all(tree: ast.Module) -> set[str]:
    """The names a module's literal ``__all__`` lists."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets
        ) and isinstance(stmt.value, (ast.List, ast.Tuple)):
            return {e.value for e in stmt.value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def _bound_references(tree: ast.Module, references: list[ast.expr],
                      module: ModuleInfo) -> list[ast.expr]:
    """The bare references that are the value bound to a name or attribute: the whole value of
    an assignment, or one arm of a conditional expression that is; and the callable that a
    ``functools.partial(torch.cuda.amp.autocast, ...)`` keeps to call later."""
    wanted = {id(r) for r in references}
    out: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args and id(node.args[0]) in wanted \
                and resolve(node.func, module) == "functools.partial":
            out.append(node.args[0])
            continue
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        values = [node.value]
        while values:
            value = values.pop()
            if isinstance(value, ast.IfExp):
                values += [value.body, value.orelse]
            elif id(value) in wanted:
                out.append(value)
    return out


def _head(func: ast.expr) -> str:
    text = dotted(func) or ""
    return text.split(".", 1)[0]


_VERSION_WORDS = re.compile(
    r"version|\btorch_?(ge|gt|le|lt|geq|leq|eq|newer|older|greater|less|is_|at_least|\d)"
    r"|\bpt_?(ge|gt|le|lt|\d)|\bis_torch_", re.IGNORECASE,
)
# `torch.GradScaler` (torch >= 2.3) is torch.amp.GradScaler re-exported at the top level
_NEW_AMP = ("torch.amp", "torch.autocast", "torch.GradScaler")


def _version_test(test: ast.expr, module: ModuleInfo) -> bool:
    """``torch.__version__ >= "2.4"``, ``TORCH_GE_2_4``, ``is_torch_version(...)``,
    ``hasattr(torch, "amp")``: a test of which torch is installed."""
    if _VERSION_WORDS.search(ast.unparse(test)):
        return True
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and dotted(node.func) in ("hasattr", "getattr") \
                and len(node.args) >= 2:
            target = resolve(node.args[0], module)
            if target.startswith("torch"):
                return True
    return False


def _uses_new_amp(body: list[ast.stmt], module: ModuleInfo) -> bool:
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torch.amp"):
                return True
            if isinstance(node, ast.ImportFrom) and node.module == "torch" and any(
                a.name in ("amp", "autocast", "GradScaler") for a in node.names
            ):
                return True
            if isinstance(node, (ast.Attribute, ast.Name)) and resolve(node, module).startswith(
                _NEW_AMP
            ):
                return True
    return False


def _offers_new_amp(stmt: ast.If, rest: list[ast.stmt], module: ModuleInfo) -> bool:
    """Whether a torch-version switch offers torch.amp in one of its arms (or, where an arm
    returns, in the code after it). A switch between torch.cuda.amp and a stand-in for a torch
    too old to have it (`if torch.__version__ >= "1.6": from torch.cuda.amp import ...` / `else:
    from .dummy import ...`) has no newer spelling: its torch.cuda.amp arm is what every current
    torch runs, not a fallback."""
    if _uses_new_amp([stmt], module):
        return True
    return bool(stmt.body) and isinstance(stmt.body[-1], (ast.Return, ast.Raise)) \
        and _uses_new_amp(rest, module)


def _fallback_nodes(tree: ast.Module, module: ModuleInfo) -> set[int]:
    """Nodes in a branch chosen by a torch-version test, or in the ``except`` of a ``try``
    that uses ``torch.amp``: the old spelling there is the fallback for an older torch, and
    rewriting it would call the very API the guard says is missing."""
    out: set[int] = set()

    def mark(nodes: list[ast.AST]) -> None:
        for n in nodes:
            out.update(id(sub) for sub in ast.walk(n))

    def body(stmts: list[ast.stmt]) -> None:
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, ast.If) and _version_test(stmt.test, module) \
                    and _offers_new_amp(stmt, stmts[i + 1:], module):
                mark([stmt])
                # `if new_torch: return torch.amp...` then the old spelling below
                if stmt.body and isinstance(stmt.body[-1], (ast.Return, ast.Raise)):
                    mark(list(stmts[i + 1:]))
                    return
        for stmt in stmts:
            if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
                if _uses_new_amp(stmt.body, module):  # type: ignore[attr-defined]
                    mark(list(stmt.handlers))  # type: ignore[attr-defined]

    for node in ast.walk(tree):
        if isinstance(node, ast.IfExp) and _version_test(node.test, module) \
                and _uses_new_amp([ast.Expr(node)], module):
            mark([node])
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if isinstance(stmts, list) and stmts and isinstance(stmts[0], ast.stmt):
                body(stmts)
        if isinstance(node, ast.ExceptHandler):
            body(node.body)
    return out


def _from_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """The top-level `from torch.cuda.amp import GradScaler, autocast` lines (none when one of
    them also imports something else from there: that line cannot simply be rewritten)."""
    out: list[ast.ImportFrom] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "torch.cuda.amp" and not stmt.level:
            if not all(a.name in ("GradScaler", "autocast") for a in stmt.names):
                return []
            out.append(stmt)
    return out


def _import_edit(source: str, stmt: ast.ImportFrom) -> tuple[Edit, ...]:
    """`from torch.cuda.amp import ...` -> `from torch.amp import ...` (the rest untouched)."""
    lines = _lines(source)
    if stmt.lineno > len(lines):
        return ()
    text = lines[stmt.lineno - 1]
    col = text.find("torch.cuda.amp", stmt.col_offset)
    if col < 0:
        return ()
    return (Edit(stmt.lineno, col, stmt.lineno, col + len("torch.cuda.amp"), "torch.amp"),)


def _call_fix(source: str, node: ast.Call, name: str, module: ModuleInfo) -> tuple[Edit, ...] | None:
    func = node.func
    if name == "autocast" and node.args:
        return None  # positional order differs (enabled vs device_type): not a safe rewrite
    if any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    ):
        return None
    if any(k.arg in ("device", "device_type") for k in node.keywords):
        return None
    if isinstance(func, ast.Attribute):
        if dotted(func) != f"torch.cuda.amp.{name}" or module.imports.get("torch") != "torch":
            return None
        new_func = "torch.amp.GradScaler" if name == "GradScaler" else "torch.autocast"
    elif isinstance(func, ast.Name):
        new_func = func.id
    else:
        return None
    assert func.end_lineno is not None and func.end_col_offset is not None
    paren = _find_paren(source, func.end_lineno, func.end_col_offset)
    if paren is None:
        return None
    has_args = bool(node.args or node.keywords)
    insert = '"cuda", ' if has_args else '"cuda"'
    edits = []
    if new_func != getattr(func, "id", None):
        edits.append(Edit(func.lineno, func.col_offset, func.end_lineno, func.end_col_offset,
                          new_func))
    edits.append(Edit(paren[0], paren[1] + 1, paren[0], paren[1] + 1, insert))
    return tuple(edits)


@functools.lru_cache(maxsize=1)
def _lines(source: str) -> list[str]:
    """The lines of the file being checked, split once: a file can hold 100k fixable calls."""
    return source.splitlines()


def _find_paren(source: str, line: int, col: int) -> tuple[int, int] | None:
    lines = _lines(source)
    for i in range(line - 1, min(line + 3, len(lines))):
        text = lines[i]
        start = col if i == line - 1 else 0
        for j in range(start, len(text)):
            ch = text[j]
            if ch == "(":
                return (i + 1, j)
            if not ch.isspace():
                return None
    return None


# -- LRD102 ------------------------------------------------------------------------------------


_HALF_WORDS = frozenset({"float16", "half", "fp16"})


def _is_half_dtype(expr: ast.expr, module: ModuleInfo, depth: int = 0) -> bool:
    """``torch.float16`` / ``torch.half``, also through a name assigned one, an argparse
    default or config constant naming it (``getattr(torch, args.dtype)``, ``dtypes[args.dtype]``
    with a dict literal)."""
    if depth > 4:
        return False
    if resolve(expr, module) in ("torch.float16", "torch.half"):
        return True
    if isinstance(expr, ast.IfExp):
        # `torch.float16 if args.fp16 else torch.float32`: float16 whenever the switch is on
        return _is_half_dtype(expr.body, module, depth + 1) \
            or _is_half_dtype(expr.orelse, module, depth + 1)
    if isinstance(expr, ast.Name):
        bound = constants.module_assignment(module, expr.id)
        if bound is None:
            bound = _local_assignment(module, expr)
        return bound is not None and _is_half_dtype(bound, module, depth + 1)
    if isinstance(expr, ast.Call) and dotted(expr.func) == "getattr" and len(expr.args) >= 2 \
            and resolve(expr.args[0], module) == "torch":
        return constants.resolve(expr.args[1], None, module) in _HALF_WORDS
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, (ast.Dict, ast.Name)):
        table = expr.value if isinstance(expr.value, ast.Dict) else \
            constants.module_assignment(module, expr.value.id)
        key = constants.resolve(expr.slice, None, module)
        if isinstance(table, ast.Dict) and isinstance(key, str):
            for k, v in zip(table.keys, table.values):
                if isinstance(k, ast.Constant) and k.value == key:
                    return _is_half_dtype(v, module, depth + 1)
        return False
    if isinstance(expr, (ast.Attribute, ast.Subscript)):
        return constants.resolve(expr, None, module) in _HALF_WORDS
    return False


_WIDE_CASTS = frozenset({"float", "double", "bfloat16"})
_WIDE_DTYPES = frozenset({"torch.float32", "torch.float", "torch.float64", "torch.double",
                          "torch.bfloat16"})


def _half_call(node: ast.expr, module: ModuleInfo) -> bool:
    """``m.half()``, ``m.to(torch.float16)``, ``m.to(dtype=dtype)``, ``m.convert_to_fp16()``,
    ``AutoModel.from_pretrained(name, torch_dtype=torch.float16)`` anywhere in a call chain,
    unless a later cast in the chain leaves another dtype (``m.half().float()``)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr = node.func.attr
        if attr in ("half", "convert_to_fp16"):
            return True
        if attr == "from_pretrained" and _loaded_in_half(node, module):
            return True
        values = [*node.args, *(k.value for k in node.keywords)]
        if attr in _WIDE_CASTS or attr in ("to", "type") and any(
            resolve(a, module) in _WIDE_DTYPES for a in values
        ):
            return False  # the outermost cast decides the parameters' dtype
        if attr in ("to", "type") and any(_is_half_dtype(a, module) for a in values):
            return True
        node = node.func.value
    return False


# weights that load quantized: the trainable parameters are adapters whose dtype the PEFT
# library picks, not float16 weights updated by Adam
_QUANTIZED_LOAD = frozenset({"load_in_8bit", "load_in_4bit", "quantization_config"})


def _loaded_in_half(call: ast.Call, module: ModuleInfo) -> bool:
    """``from_pretrained(..., torch_dtype=torch.float16)`` (``dtype=`` in newer transformers,
    or the string ``"float16"``) with no quantized load: the model's weights are float16."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg is not None}
    if _QUANTIZED_LOAD & keywords.keys():
        return False
    dtype = keywords.get("torch_dtype", keywords.get("dtype"))
    if dtype is None:
        return False
    # `torch.float16 if args.fp16 else torch.float32`: float16 whenever the flag is on, like
    # a `.half()` cast under that flag
    options = [dtype]
    if isinstance(dtype, ast.IfExp):
        options = [dtype.body, dtype.orelse]
        bound = constants.module_assignment(module, dtype.test.id) \
            if isinstance(dtype.test, ast.Name) else None
        if isinstance(bound, ast.Constant):  # a switch set once in the file picks its branch
            options = [dtype.body if bound.value else dtype.orelse]
    return any(
        o.value in ("float16", "half") if isinstance(o, ast.Constant)
        else _is_half_dtype(o, module)
        for o in options
    )


@per_node
def _names_given_half(tree: ast.Module) -> frozenset[str]:
    """Names assigned anywhere in the file from an expression that mentions float16 (one
    pass per file, so looking a dtype name up stays cheap)."""
    return frozenset(
        t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
        and any(isinstance(n, ast.Attribute) and n.attr in _HALF_WORDS
                or isinstance(n, ast.Constant) and n.value in _HALF_WORDS
                for n in ast.walk(node.value))
        for t in node.targets if isinstance(t, ast.Name)
    )


@per_node
def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function of ``tree``, in ``ast.walk`` order (listed once per file: a large
    project module is asked about many names)."""
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


@per_node
def _assigned_in(fn: ast.AST) -> dict[str, list[ast.expr]]:
    """The values each plain name is assigned in ``fn`` (nested functions included), in
    ``ast.walk`` order."""
    found: dict[str, list[ast.expr]] = {}
    for stmt in ast.walk(fn):
        if isinstance(stmt, ast.Assign):
            for target_name in dict.fromkeys(t.id for t in stmt.targets if isinstance(t, ast.Name)):
                found.setdefault(target_name, []).append(stmt.value)
    return found


def _local_assignment(module: ModuleInfo, name: ast.Name) -> ast.expr | None:
    """The one assignment of ``name`` in the innermost function around it (``dtype =
    torch.float16`` ... ``model.to(dtype)``); None when there is none or several."""
    if name.id not in _names_given_half(module.tree):
        return None
    line = name.lineno
    around: ast.AST | None = None
    for node in _functions(module.tree):
        if node.lineno <= line <= (node.end_lineno or node.lineno) \
                and (around is None or node.lineno >= around.lineno):  # type: ignore[attr-defined]
            around = node
    if around is None:
        return None
    found = _assigned_in(around).get(name.id, [])
    return found[0] if len(found) == 1 else None


def _base_name(node: ast.expr, module: ModuleInfo | None = None) -> str:
    """``model`` for ``model.cuda().half()`` and ``self.model.half()``; "" for a chain that
    starts at a library call (``torch.nn.Linear(4, 1).half()``)."""
    while isinstance(node, (ast.Call, ast.Attribute)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            return node.attr
        if isinstance(node, ast.Call):
            head = (dotted(node.func) or "").split(".")[0]
            if module is not None and head in module.imports:
                return ""
            node = node.func
        else:
            node = node.value
    return node.id if isinstance(node, ast.Name) and (
        module is None or node.id not in module.imports
    ) else ""


def _returned_half(fn: ast.FunctionDef | ast.AsyncFunctionDef, module: ModuleInfo) -> set[int]:
    """Where ``fn`` returns a model it cast to float16: -1 for the returned value itself
    (``net.half(); return net``), ``i`` for item ``i`` of a returned tuple (``return net,
    diffusion, options``)."""
    halved_here = {
        _base_name(n, module) for n in ast.walk(fn)
        if isinstance(n, ast.Call) and _half_call(n, module)
    }

    def half(value: ast.expr) -> bool:
        return _half_call(value, module) or isinstance(value, ast.Name) \
            and value.id in halved_here

    out: set[int] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Return) and n.value is not None:
            if half(n.value):
                out.add(-1)
            elif isinstance(n.value, ast.Tuple):
                out.update(i for i, elt in enumerate(n.value.elts) if half(elt))
    return out


def _bound_to(node: ast.Assign, positions: set[int]) -> list[str]:
    """The names an assignment binds to the returned positions in ``positions``."""
    out = []
    for target in node.targets:
        picked = [target] if -1 in positions else (
            [e for i, e in enumerate(target.elts) if i in positions]
            if isinstance(target, (ast.Tuple, ast.List)) else []
        )
        for item in picked:
            text = dotted(item)
            if text:
                out.append(text.split(".")[-1] if text.startswith("self.") else text)
    return out


def _target_names(node: ast.Assign) -> list[str]:
    names_: list[str] = []
    for target in node.targets:
        items = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
        names_.extend(dotted(t) or "" for t in items)
    return [n for n in names_ if n]


_LIBRARIES = ("torch", "transformers", "timm", "numpy", "accelerate", "lightning",
              "pytorch_lightning", "apex", "deepspeed", "diffusers", "torchvision")


def _project_builders(ctx: FileContext) -> dict[str, ast.Call]:
    """``model = build_model(cfg)`` where ``build_model`` comes from a module of the checked
    project and returns a float16 model: {target: call}. The project is read only when the
    file binds a name to such a call."""
    module = ctx.module
    calls: list[tuple[ast.Assign, str]] = []
    for node in ast.walk(ctx.tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            text = dotted(node.value.func) or ""
            qual = module.imports.get(text.split(".")[0])
            if qual and qual.split(".")[0] not in _LIBRARIES and any(
                f"{t}.parameters(" in ctx.source for t in _target_names(node)
            ):
                rest = text.partition(".")[2]
                calls.append((node, f"{qual}.{rest}" if rest else qual))
    if not calls:
        return {}
    from lrdoctor.check.project import ProjectLoader

    loader = ctx.loader or ProjectLoader()
    out: dict[str, ast.Call] = {}
    for node, qual in calls:
        found = loader.module_for(qual, module)
        if found is None:
            continue
        other, attr = found
        fn = other.functions.get(attr)
        if fn is None:
            continue
        assert isinstance(node.value, ast.Call)
        for name in _bound_to(node, _returned_half(fn, other)):
            out.setdefault(name, node.value)
    return out


_UNKNOWN = object()
_InPlace = list[tuple[str, ast.Call, tuple[tuple[ast.expr, bool], ...]]]
_IN_PLACE: dict[int, tuple[ast.AST, _InPlace]] = memo.kept({})


def _in_place_casts(fn: ast.FunctionDef | ast.AsyncFunctionDef, module: ModuleInfo) -> _InPlace:
    """Where the plain function ``fn`` (of ``module``) casts one of its parameters to float16
    in place (``model.half()`` as a statement, or ``model = model.to(torch.float16)``: a
    module's cast changes the caller's object): ``(parameter, cast call, the tests around it
    with the branch it sits in)``. A parameter rebound to another object before the cast is
    not the caller's any more. Read once per function."""
    cached = _IN_PLACE.get(id(fn))
    if cached is not None and cached[0] is fn:
        return cached[1]
    if len(_IN_PLACE) > 1024:
        _IN_PLACE.clear()
    out: _InPlace = []
    _IN_PLACE[id(fn)] = (fn, out)
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)]
    if not params or params[0] in ("self", "cls"):
        return out

    def root(node: ast.expr) -> str:
        while isinstance(node, (ast.Call, ast.Attribute)):
            node = node.func if isinstance(node, ast.Call) else node.value
        return node.id if isinstance(node, ast.Name) else ""

    def visit(stmts: list[ast.stmt], tests: tuple[tuple[ast.expr, bool], ...]) -> None:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.If):
                visit(stmt.body, (*tests, (stmt.test, True)))
                visit(stmt.orelse, (*tests, (stmt.test, False)))
                continue
            value = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
            if isinstance(value, ast.Call) and _half_call(value, module) \
                    and (name := root(value)) in params:
                kept = isinstance(stmt, ast.Expr) or isinstance(stmt, ast.Assign) and (
                    len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                    and stmt.targets[0].id == name)
                if kept and not _rebound_before(fn, name, stmt.lineno):
                    out.append((name, value, tests))
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    visit(inner, tests)
            for handler in getattr(stmt, "handlers", []):
                visit(handler.body, tests)

    visit(fn.body, ())
    return out


# a call of this file that casts the caller's module in the function it calls -> (that call,
# the function's name, its file, the cast's line), for the finding's wording
_CALLEE_CASTS: dict[int, tuple[ast.Call, str, str, int]] = memo.kept({})


def _binds(node: ast.AST, name: str) -> bool:
    """The statement ``node`` binds ``name``: an assignment of any kind, a ``for`` target or
    a ``with ... as`` name (unpacking included)."""
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t))


def _rebound_before(fn: ast.AST, name: str, line: int) -> bool:
    """``name`` is assigned in ``fn`` before ``line`` other than by a cast of itself
    (``model = copy.deepcopy(model)`` makes the later cast one of a copy)."""
    return any(getattr(node, "lineno", line) < line and _binds(node, name)
               for node in ast.walk(fn))


def _bound_arguments(fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call
                     ) -> dict[str, ast.expr] | None:
    """The expression a call gives each parameter of ``fn`` (a default where it gives
    none); None when a ``*args`` / ``**kwargs`` splat hides which."""
    if any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return None
    positional = [*fn.args.posonlyargs, *fn.args.args]
    out: dict[str, ast.expr] = {}
    defaults = fn.args.defaults
    for i, a in enumerate(positional):
        j = i - (len(positional) - len(defaults))
        if j >= 0:
            out[a.arg] = defaults[j]
    for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
        if d is not None:
            out[a.arg] = d
    for a, given in zip(positional, call.args):
        out[a.arg] = given
    for k in call.keywords:
        out[k.arg] = k.value  # type: ignore[index]
    return out


def _test_holds(test: ast.expr, values: dict[str, object]) -> bool | None:
    """Whether ``test`` holds with the parameters' values in ``values`` (``_UNKNOWN`` where
    the call does not say): ``p == "half"``, ``p != x``, ``p in (...)``, ``p``, ``not p``,
    ``and`` / ``or`` of those. None when a parameter it reads has no known value or the
    test is of another form."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _test_holds(test.operand, values)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [_test_holds(v, values) for v in test.values]
        if isinstance(test.op, ast.And):
            return False if False in parts else (None if None in parts else True)
        return True if True in parts else (None if None in parts else False)
    if isinstance(test, ast.Name):
        value = values.get(test.id, _UNKNOWN)
        return None if value is _UNKNOWN else bool(value)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, right = test.left, test.comparators[0]
        if isinstance(right, ast.Name) and isinstance(left, ast.Constant) \
                and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
            left, right = right, left
        if not isinstance(left, ast.Name):
            return None
        value = values.get(left.id, _UNKNOWN)
        if value is _UNKNOWN:
            return None
        op = test.ops[0]
        if isinstance(op, (ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant):
            return (value == right.value) == isinstance(op, ast.Eq)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List,
                                                                       ast.Set)) \
                and all(isinstance(e, ast.Constant) for e in right.elts):
            inside = value in [e.value for e in right.elts]  # type: ignore[attr-defined]
            return inside == isinstance(op, ast.In)
    return None


def _cast_by_callee(ctx: FileContext) -> list[tuple[str, ast.Call]]:
    """``(name, call)`` for each call of this file that hands the module ``name`` to a plain
    function - of this file or of a project module - which casts that parameter to float16
    in place (``def train(model, ..., precision="full"): if precision == "half":
    model.half()``), with the call's arguments making the cast run: every test around the
    cast that reads a parameter holds with the values the call gives (a test the call's
    values leave open keeps the cast out; a test that reads no parameter - a flag - counts
    as on, as for this file's own casts)."""
    module = ctx.module
    targets: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, ModuleInfo]] = {}
    found: list[tuple[str, ast.Call]] = []
    for node in ast.walk(ctx.tree):
        if not isinstance(node, ast.Call) or not (node.args or node.keywords):
            continue
        text = dotted(node.func) or ""
        if not text:
            continue
        if text not in targets:
            fn: ast.AST | None = module.functions.get(text) if "." not in text else None
            home = module
            qual = module.imports.get(text.split(".")[0])
            if fn is None and qual and qual.split(".")[0] not in _LIBRARIES:
                from lrdoctor.check.project import ProjectLoader

                rest = text.partition(".")[2]
                there = (ctx.loader or ProjectLoader()).module_for(
                    f"{qual}.{rest}" if rest else qual, module)
                if there is not None:
                    home, attr = there
                    fn = home.functions.get(attr)
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            targets[text] = (fn, home)
        fn, home = targets[text]
        casts = _in_place_casts(fn, home)
        if not casts:
            continue
        given = _bound_arguments(fn, node)
        if given is None:
            continue
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}
        values: dict[str, object] = {}
        for name, expr in given.items():
            where = home if expr in fn.args.defaults or expr in fn.args.kw_defaults \
                else module
            if constants.known(expr, None, where):
                values[name] = constants.resolve(expr, None, where)
        for param, cast, tests in casts:
            arg = given.get(param)
            if arg is None or arg in fn.args.defaults or arg in fn.args.kw_defaults:
                continue
            runs = True
            for test, branch in tests:
                if not any(isinstance(n, ast.Name) and n.id in params for n in ast.walk(test)):
                    continue
                holds = _test_holds(test, values)
                if holds is None or holds != branch:
                    runs = False
                    break
            name = _base_name(arg, module)
            if runs and name:
                found.append((name, node))
                if len(_CALLEE_CASTS) > 1024:
                    _CALLEE_CASTS.clear()
                _CALLEE_CASTS[id(node)] = (node, fn.name, home.path, cast.lineno)
    return found


def _half_casts(ctx: FileContext) -> dict[str, list[ast.Call]]:
    """Names of modules cast to float16 (``model.half()``, ``model = Net().to(torch.float16)``,
    ``model = build()`` where ``build`` returns a cast model, here or in a project module),
    each with every cast of it in the order found; ``"*"`` for
    ``torch.set_default_dtype(torch.float16)``."""
    tree, module = ctx.tree, ctx.module
    out: dict[str, list[ast.Call]] = {}
    if not any(w in ctx.source for w in _FP16_WORDS):
        out = {name: [call] for name, call in _project_builders(ctx).items()}
        for name, call in _cast_by_callee(ctx):
            out.setdefault(name, []).append(call)
        return out
    returns_half = {name: positions for name, fn in module.functions.items()
                    if (positions := _returned_half(fn, module))}
    # `model.half().float()`: the chain is judged once, from its outermost call
    receivers = {id(node.func.value) for node in ast.walk(tree)
                 if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in receivers \
                and _half_call(node, module):
            name = _base_name(node, module)
            if name:
                out.setdefault(name, []).append(node)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            positions = {-1} if _half_call(node.value, module) else returns_half.get(
                dotted(node.value.func) or "", set()
            )
            for name in _bound_to(node, positions):
                if _stays_local(ctx, node, name):
                    continue
                out.setdefault(name, []).append(node.value)
        if (
            isinstance(node, ast.Call)
            and resolve(node.func, module) == "torch.set_default_dtype"
            and node.args
            and _is_half_dtype(node.args[0], module)
        ):
            out.setdefault("*", []).append(node)
    for name, call in _project_builders(ctx).items():
        out.setdefault(name, []).append(call)
    for name, call in _cast_by_callee(ctx):
        out.setdefault(name, []).append(call)
    if any(q.split(".")[0] == "peft" for q in module.imports.values()):
        # a PEFT model trains adapters whose dtype the library chooses (float32 by default),
        # not the float16 weights it loaded
        out = {name: kept for name, calls in out.items()
               if (kept := [call for call in calls if not _pretrained_load(call)])}
    return out


# the methods of a module that read or move it for saving or evaluation and hand none of its
# parameters to anything that could update them (`parameters()`, or a `fit()` of its own,
# may)
_EXPORT_METHODS = frozenset({"state_dict", "eval", "cpu", "cuda", "to", "half", "float",
                             "save_pretrained", "requires_grad_", "zero_grad"})


def _stays_local(ctx: FileContext, assign: ast.Assign, name: str) -> bool:
    """``model = copy.deepcopy(model).half()`` in a function that saves a float16 copy: the
    cast value is a new object bound to a local name of that function, which the function
    never hands on (not returned or yielded, not passed whole to a call, not stored in an
    attribute or a container, not declared global) and only reads or moves for saving
    (``state_dict()``, ``eval()``, ``to(...)``; not ``parameters()`` or a ``fit()`` of its
    own): no optimizer anywhere can be updating the parameters of that
    object, whatever the training model in another function is called. (An in-place cast of
    the caller's module, ``model.half()``, is kept apart by ``_base_name``.)"""
    if not any(isinstance(t, ast.Name) and t.id == name for t in assign.targets):
        return False
    fn = ctx.function_of(ctx.path, assign)
    if fn is None:
        return False
    inside = {id(n) for n in ast.walk(assign)}  # `copy.deepcopy(model)`: the old binding
    looped = any(isinstance(n, (ast.For, ast.AsyncFor, ast.While)) and id(assign) in
                 {id(m) for m in ast.walk(n)} for n in ast.walk(fn))
    end = assign.end_lineno or assign.lineno
    for node in ast.walk(fn):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        if id(node) in inside or not looped and getattr(node, "lineno", end + 1) <= end:
            continue  # read before the cast value is bound (outside a loop): another object
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) \
                and node is not fn:
            reads = any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))
            if reads:
                return False  # a closure over the name: where it runs is not followed
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and node.value is not None \
                and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.value)):
            return False
        if isinstance(node, ast.Call):
            handed = [*node.args, *(k.value for k in node.keywords)]
            if any(_whole(a, name) for a in handed):
                return False
            if isinstance(node.func, ast.Attribute) and node.func.attr not in _EXPORT_METHODS \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
                return False  # `model.parameters()`, `model.fit(loader)`: may reach an optimizer
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node is not assign:
            value = node.value
            if value is not None and _whole(value, name):
                return False  # `self.half_model = model`, `copies[k] = model`, `m = model`
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            items = [*node.elts] if not isinstance(node, ast.Dict) else \
                [v for v in [*node.keys, *node.values] if v is not None]
            if any(_whole(i, name) for i in items):
                return False
    return True


def _whole(expr: ast.expr, name: str) -> bool:
    """``expr`` is the object ``name`` itself (``model``, ``*model``, ``model if a else b``)."""
    if isinstance(expr, ast.Starred):
        expr = expr.value
    if isinstance(expr, ast.IfExp):
        return _whole(expr.body, name) or _whole(expr.orelse, name)
    return isinstance(expr, ast.Name) and expr.id == name


def _pretrained_load(call: ast.expr) -> bool:
    node = call
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == "from_pretrained":
            return True
        node = node.func.value
    return False


_FP16_WORDS = ("half", "float16", "fp16", "dtype")
_ADAM = re.compile(r"\b(Adam|AdamW|Adamax|NAdam|RAdam|SparseAdam)\b")
_HANDED_CAST = re.compile(r"\.half\(\)|torch\.float16|torch\.half\b")
_LOG_OR_BCE = re.compile(r"\blog\(|\.log\(\)|BCELoss|binary_cross_entropy\(")


def _param_owners(params: ast.expr, ctx: FileContext, at: ast.AST, path: str = "",
                  sites: dict[str, list[ast.AST]] | None = None) -> set[str]:
    """Names the optimizer's parameters come from, through intermediate lists
    (``params = list(model.parameters())``, ``groups.append({"params": ...})``), and through
    the parameter of a builder function the optimizer is made in (``def build(params): return
    AdamW(params)`` called as ``build(model.parameters())`` in this file). ``sites`` (when
    given) gets, for each owner, the ``parameters()`` calls that read it."""
    owners: set[str] = set()
    seen: set[str] = set()
    builder = ctx.function_of(path, at) if path and path != ctx.path else None
    pending = [(params, builder or ctx.body_around(at))]
    while pending:
        expr, body = pending.pop()
        receivers = {id(n.value) for n in ast.walk(expr) if isinstance(n, ast.Attribute)}
        callees = {id(n.func) for n in ast.walk(expr) if isinstance(n, ast.Call)}
        for n in ast.walk(expr):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr in ("parameters", "named_parameters"):
                owner = _base_name(n.func.value, ctx.module)
                owners.add(owner)
                if sites is not None:
                    sites.setdefault(owner, []).append(n)
            elif isinstance(n, ast.Name) and id(n) not in receivers and id(n) not in callees \
                    and n.id not in seen and len(seen) < 16:
                # a list of parameters (or a model handed to a helper): follow what fills it
                seen.add(n.id)
                owners.add(n.id)
                fed = _feeds(body, n.id)
                pending.extend((x, body) for x in fed)
                if not fed:
                    pending.extend(_passed_for(ctx, body, n.id))
    return owners - {""}


def _passed_for(ctx: FileContext, fn: ast.AST, name: str) -> list[tuple[ast.expr, ast.AST]]:
    """What this file's calls of the plain function ``fn`` pass for its parameter ``name``,
    each with the body the call sits in (a method's callers are not looked for: which class
    a receiver is, the syntax does not tell)."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    positional = [*fn.args.posonlyargs, *fn.args.args]
    index = next((i for i, a in enumerate(positional) if a.arg == name), None)
    if index is None and name not in {a.arg for a in fn.args.kwonlyargs}:
        return []
    if positional and positional[0].arg in ("self", "cls"):
        return []
    out: list[tuple[ast.expr, ast.AST]] = []
    for node in ast.walk(ctx.tree):
        if not (isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1]
                == fn.name):
            continue
        given = next((k.value for k in node.keywords if k.arg == name), None)
        if given is None and index is not None and index < len(node.args) and not any(
                isinstance(a, ast.Starred) for a in node.args[:index + 1]):
            given = node.args[index]
        if given is not None:
            out.append((given, ctx.body_around(node)))
    return out


def _feeds(body: ast.AST, name: str) -> list[ast.expr]:
    """What flows into the list ``name`` in ``body`` (a function or the module): its
    assignments, ``+=``, ``.append(...)`` / ``.extend(...)`` arguments, loop sources."""
    out: list[ast.expr] = []
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            out.append(node.value)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            out.append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "extend") \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            out.extend(node.args)
        elif isinstance(node, (ast.For, ast.comprehension)) and any(
            isinstance(t, ast.Name) and t.id == name for t in ast.walk(node.target)
        ):
            out.append(node.iter)
    return out


def _training_test(ctx: FileContext) -> functools.partial[bool] | None:
    """A test of whether a statement of this file trains: it holds an optimizer step, or
    calls one of this file's functions that does, or a method that does (``trainer.fit()``,
    its class here or in a project module, stepping itself or through its own methods:
    ``self.train_epoch()``); None when the program steps nothing."""
    events = [e for e in ctx.full_program.events if e.kind in ("opt_step", "scaler_step")]
    steps = [e.line for e in events if e.path == ctx.path]
    stepping = frozenset(
        name for name, fn in ctx.module.functions.items()
        if any(fn.lineno <= line <= (fn.end_lineno or fn.lineno) for line in steps)
    )
    methods: set[str] = set()
    trees: dict[int, ast.Module] = {}
    for e in events:
        tree = ctx.tree_of(e.path)
        fn = function_at(tree, e.line) if tree is not None else None
        if tree is not None and fn is not None:
            methods.add(fn.name)
            trees[id(tree)] = tree
    if not steps and not methods:
        return None
    # a method that calls a stepping method of its own class trains as well
    classes = [c for tree in trees.values() for c in definitions_in(tree)[1]]
    for _ in range(4):
        more = {fn.name for c in classes for fn in c.body
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
                and fn.name not in methods and any(
                    isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"
                    and n.func.attr in methods for n in ast.walk(fn))}
        if not more:
            break
        methods |= more
    return functools.partial(_trains, tuple(steps), stepping, frozenset(methods))


def _trains(steps: tuple[int, ...], stepping: frozenset[str], methods: frozenset[str],
            stmt: ast.stmt) -> bool:
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return False  # defining a function or class runs none of its steps
    end = stmt.end_lineno or stmt.lineno
    if any(stmt.lineno <= line <= end for line in steps):
        return True
    return any(isinstance(n, ast.Call) and (
        dotted(n.func) in stepping
        or isinstance(n.func, ast.Attribute) and n.func.attr in methods
    ) for n in ast.walk(stmt))


def _after_training(ctx: FileContext, cast: ast.AST) -> bool:
    """The cast runs after the last optimizer step (an fp16 copy exported when training is
    over): in the body that holds it, steps (directly or through a call of this file's
    functions) come only in statements before it."""
    trains = _training_test(ctx)
    if trains is None:
        return False
    line = getattr(cast, "lineno", 0)
    for node in ast.walk(ctx.tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            for i, stmt in enumerate(stmts):
                if isinstance(stmt, ast.stmt) and stmt.lineno <= line <= (
                    stmt.end_lineno or stmt.lineno
                ) and not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                            ast.ClassDef)):
                    if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.Try)) \
                            and stmt.lineno != line:
                        break  # the cast is deeper: its own body decides
                    return (
                        not trains(stmt)
                        and any(trains(s) for s in stmts[:i])
                        and not any(trains(s) for s in stmts[i + 1:])
                    )
    return False


_EXITS = frozenset({"sys.exit", "os._exit", "exit", "quit"})


def _leaves(stmt: ast.stmt, module: ModuleInfo) -> bool:
    """``stmt`` ends the function or the program: ``return``, ``raise``, ``sys.exit()``."""
    if isinstance(stmt, (ast.Return, ast.Raise)):
        return True
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and (
        resolve(stmt.value.func, module) in _EXITS or dotted(stmt.value.func) in _EXITS
    )


def _loop_escape(stmts: list[ast.stmt]) -> bool:
    """A ``break`` or ``continue`` in ``stmts`` that leaves a loop around them (one inside a
    loop of their own stays there)."""
    loops = (ast.For, ast.AsyncFor, ast.While)
    pending: list[ast.AST] = list(stmts)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (*loops, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.Lambda)):
            if isinstance(node, loops):
                pending.extend(node.orelse)  # a loop's `else` is outside the loop
            continue
        pending.extend(ast.iter_child_nodes(node))
    return False


def _leaving_branches(ctx: FileContext, cast: ast.AST) -> list[tuple[int, int]]:
    """(first, last) lines of each ``if`` branch around ``cast`` that, from the statement
    holding the cast on, always ends by leaving (``if args.export: model.half(); export(model);
    return``): whatever runs after that ``if`` never sees the cast."""
    line = getattr(cast, "lineno", 0)
    out: list[tuple[int, int]] = []
    for node in ast.walk(ctx.tree):
        if not isinstance(node, ast.If):
            continue
        for stmts in (node.body, node.orelse):
            if not stmts or not stmts[0].lineno <= line <= (stmts[-1].end_lineno or 0):
                continue
            at = next((i for i, stmt in enumerate(stmts)
                       if stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno)), None)
            if at is not None and _leaves(stmts[-1], ctx.module) \
                    and not _loop_escape(stmts[at:-1]):
                out.append((stmts[0].lineno, stmts[-1].end_lineno or stmts[-1].lineno))
    return out


def _handed_after(ctx: FileContext, obj: Obj, name: str, cast: ast.AST) -> bool:
    """For an optimizer built in another module of the project (a trainer class's
    `AdamW(self.model.parameters())`): this file hands the module it casts, ``name``, to that
    class (or to the function that builds it) after the cast, in the same body (`model =
    Net().half()` then `Trainer(model)`, or its parameters: `make_optimizer(model.parameters(),
    ...)`). A model cast for export once the trainer has run, or
    one never handed to it, is not the one it updates. Always true for an optimizer of this
    file (its own tests of reach apply)."""
    if obj.path == ctx.path or obj.call is None:
        return True
    tree, fn = ctx.tree_of(obj.path), ctx.function_of(obj.path, obj.call)
    if tree is None or fn is None:
        return False
    builders = {fn.name} | {cls.name for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef)
                            and any(item is fn for item in cls.body)}
    body = ctx.body_around(cast)
    for node in ast.walk(body):
        if isinstance(node, ast.Call) and node.lineno > getattr(cast, "lineno", 0) \
                and (dotted(node.func) or "").rsplit(".", 1)[-1] in builders \
                and ctx.body_around(node) is body \
                and any(dotted(a) == name or _parameters_of(a, ctx.module) == name
                        for a in [*node.args, *(k.value for k in node.keywords)]):
            return True
    return False


def _parameters_of(arg: ast.expr, module: ModuleInfo) -> str:
    """``model`` for ``model.parameters()`` / ``model.named_parameters()`` handed to a
    builder (`make_optimizer(model.parameters(), ...)`), else ""."""
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) \
            and arg.func.attr in ("parameters", "named_parameters"):
        return _base_name(arg.func.value, module)
    return ""


def _cast_misses(ctx: FileContext, cast: ast.AST, obj: Obj) -> bool:
    """The cast never reaches the parameters ``obj`` updates: it sits in a branch that
    leaves the function or program (a float16 export mode before the training code), and
    the optimizer is built after that branch, or before it in a branch that does not train."""
    if obj.path != ctx.path or obj.call is None \
            or ctx.body_around(cast) is not ctx.body_around(obj.call):
        return False
    made = obj.call.lineno
    trains = _training_test(ctx)
    for first, last in _leaving_branches(ctx, cast):
        if first <= made <= last:
            continue
        if made > last:
            return True
        branch = [stmt for stmt in ast.walk(ctx.tree) if isinstance(stmt, ast.stmt)
                  and first <= stmt.lineno and (stmt.end_lineno or stmt.lineno) <= last]
        if trains is None or not any(trains(stmt) for stmt in branch):
            return True
    return False


# wrappers that keep float32 master copies of float16 parameters and hand those to the
# optimizer they wrap (apex's and Megatron's FP16_Optimizer & co.): its eps is float32 math
_MASTER_WEIGHTS = re.compile(r"^(FP16_?Optimizer|Float16Optimizer\w*|MixedPrecisionOptimizer)$")


def _master_weight_wrapped(ctx: FileContext) -> set[str]:
    """Names of optimizers handed to a master-weights wrapper (``FP16_Optimizer(optimizer,
    ...)``) anywhere in the file."""
    out: set[str] = set()
    for node in ast.walk(ctx.tree):
        if not isinstance(node, ast.Call):
            continue
        func = (dotted(node.func) or "").rsplit(".", 1)[-1]
        if func == "initialize" and isinstance(node.func, ast.Attribute):
            # `model, optimizer = amp.initialize(model, optimizer, ...)` (apex's contract,
            # DeepSpeed's and the like): the initializer takes over the model's and the
            # optimizer's precision and hands back float32 master weights to the optimizer;
            # every optimizer it is given, by position or as `optimizer=`
            given = [*node.args, *(k.value for k in node.keywords if k.arg == "optimizer")]
        elif _MASTER_WEIGHTS.match(func):
            given = [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("optimizer", "init_optimizer"))]
        else:
            continue
        out.update(text for arg in given if (text := dotted(arg)))
    return out


@rule("LRD102")
def fp16_adam_eps(ctx: FileContext) -> Iterator[Diagnostic]:
    adam_here = "Adam" in ctx.source and _ADAM.search(ctx.source) is not None
    if adam_here or _HANDED_CAST.search(ctx.source):
        # (neither an Adam here nor, for one built in another module, a cast here written
        # out (`.half()`, `.to(torch.float16)`): the cheap tests first, as this rule runs on
        # every file)
        if adam_here or any(
                o.kind == "optimizer" and o.cls in names.ADAM_FAMILY and o.path != ctx.path
                for o in ctx.program.objects):
            # (an Adam built in a project module this file's run reaches: a trainer
            # class's `AdamW(self.model.parameters())` handed the model this file casts; a
            # run that steps nothing has none, and its program is not traced)
            yield from _fp16_adam_eps(ctx)
    if ctx.loader is None or not ctx.module.imports:
        return
    # an Adam of a project module this file's run reaches, updating a model that module
    # casts itself (`self.model = model.half()` then `Adam(self.model.parameters())` in a
    # trainer class the driver builds): judged in that module, with this run's values (the
    # module's own trace leaves its findings to this one, which entered it)
    for path in sorted({o.path for o in ctx.program.objects if o.kind == "optimizer"
                        and o.cls in names.ADAM_FAMILY and o.path != ctx.path}):
        module, source = ctx.loader.modules.get(path), ctx.loader.sources.get(path, "")
        if module is None or not _HANDED_CAST.search(source):
            continue
        there = FileContext(path, source, module.tree, module, ctx.build, ctx.codes, True,
                            ctx.loader)
        there.__dict__["full_program"] = ctx.full_program
        yield from (d for d in _fp16_adam_eps(there, beside=True) if d.path == path)


def _cast_switch(tree: ast.AST, cast: ast.AST) -> str | None:
    """The switch a float16 cast is made under (``elif args.fp16: model.to(torch.float16)``):
    the test of the innermost ``if`` whose body holds it, in the function that makes it, when
    that test is a flag the user sets; None for a cast made on every run (or under a test
    that is no such flag)."""
    parents = constants.parent_map(tree)
    node = cast
    while id(node) in parents:
        parent = parents[id(node)]
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return None
        if isinstance(parent, ast.If):
            if not any(stmt is node for stmt in parent.body) or flag_of(parent.test) is None:
                return None
            text = ast.unparse(parent.test)
            return text if len(text) <= 60 else None
        node = parent
    return None


def _fp16_adam_eps(ctx: FileContext, beside: bool = False) -> Iterator[Diagnostic]:
    """LRD102 for the Adam-family optimizers of the program whose parameters ``ctx``'s file
    casts to float16 (``beside``: only by a cast written before the optimizer in the body
    that builds it, where the order of the two is plain)."""
    casts = _half_casts(ctx)
    if not casts:
        return
    halved = {name: calls[0] for name, calls in casts.items()}
    wrapped = _master_weight_wrapped(ctx)
    exported: dict[str, bool] = {}
    seen: set[int] = set()
    for obj in ctx.full_program.objects:
        if obj.kind != "optimizer" or obj.cls not in names.ADAM_FAMILY or obj.call is None:
            continue
        if id(obj.call) in seen or obj.name in wrapped:
            continue
        seen.add(id(obj.call))
        eps_expr = obj.arg("eps", 3)
        if eps_expr is None:
            if obj.has_kwargs_splat():
                continue
            eps = 1e-8
        else:
            value = constants.resolve(eps_expr, obj.scope)
            if value is None:
                value = _parameter_default(ctx, obj, eps_expr)
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                continue
            eps = float(value)
        if eps >= FP16_SMALLEST_SUBNORMAL:
            continue
        params = obj.arg("params", 0)
        if params is None:
            continue
        sites: dict[str, list[ast.AST]] = {}
        owners = _param_owners(params, ctx, obj.call, obj.path, sites)
        for name in [*sorted(owners), "*"]:
            if name in halved and name not in exported:
                exported[name] = _after_training(ctx, halved[name])
        # a cast made in a branch that leaves before this optimizer is built (an export
        # mode) never reaches it; the first cast that does is the one to name
        reaching = {o: cast for o in sorted(owners) if o in halved and not exported[o]
                    and (cast := next((c for c in casts[o]
                                       if not _cast_misses(ctx, c, obj)
                                       and not _feeds_contradict(ctx, c, sites.get(o, []))
                                       and not _frozen_and_filtered(ctx, o, c, obj,
                                                                    sites.get(o, []))
                                       and not _local_elsewhere(ctx, o, c, obj)
                                       and not _rebound_between(ctx, o, c, obj)
                                       and _handed_after(ctx, obj, o, c)
                                       and (not beside or _before_in_body(ctx, c, obj))),
                                      None)) is not None}
        hit = next(iter(reaching), None) or (
            "*" if "*" in halved and not exported["*"] else None
        )
        if hit is None:
            continue
        cast = halved["*"] if hit == "*" else reaching[hit]
        where = "torch.set_default_dtype(torch.float16)" if hit == "*" else (
            f"`{hit}` is loaded in float16" if _pretrained_load(cast)
            else f"`{hit}` is cast to float16"
        )
        at = f"line {cast.lineno}" if obj.path == ctx.path else \
            f"{display_path(ctx.path)}:{cast.lineno}"
        by = _CALLEE_CASTS.get(id(cast))
        if by is not None and by[0] is cast:
            where = f"`{hit}` is cast to float16 in place by `{by[1]}()` " \
                f"({display_path(by[2])}:{by[3]}), called"
        switch = _cast_switch(ctx.tree, cast) if hit != "*" else None
        if switch:
            at = f"{at}, {when(switch)}"
        yield Diagnostic.at(
            "LRD102",
            f"{obj.cls}(eps={eps:g}) updates float16 parameters ({where} at {at}): eps rounds "
            "to 0 in float16, so a zero gradient gives "
            "0/0 = NaN; keep float32 parameters under autocast or use eps=1e-4",
            obj.path,
            obj.call,
        )


def _literal_facts(test: ast.expr, truth: bool, out: dict[str, bool]) -> None:
    """What a test's outcome says of the plain flags it reads: ``not a and not b`` true, or
    ``a or b`` false, makes both flags false; ``a and b`` false says nothing of either."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        _literal_facts(test.operand, not truth, out)
    elif isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) == truth:
        for value in test.values:
            _literal_facts(value, truth, out)
    elif isinstance(test, (ast.Name, ast.Attribute)) and (key := dotted(test)):
        out[key] = truth


def _facts_at(body: ast.AST, at: ast.AST) -> dict[str, bool]:
    """The flags whose truth every ``if`` of ``body`` around ``at`` fixes (``elif`` and
    ``else`` branches say the earlier tests failed)."""
    line = getattr(at, "lineno", 0)
    out: dict[str, bool] = {}
    for node in sorted((n for n in ast.walk(body) if isinstance(n, ast.If)),
                       key=lambda n: n.lineno):
        for branch, truth in ((node.body, True), (node.orelse, False)):
            if branch and branch[0].lineno <= line <= (branch[-1].end_lineno or 0):
                _literal_facts(node.test, truth, out)
    return out


def _feeds_contradict(ctx: FileContext, cast: ast.AST, sites: list[ast.AST]) -> bool:
    """Every place the optimizer's parameters read the cast module sits, in the cast's own
    function, under a test of a flag the cast's test needs with the opposite truth (the
    frozen text encoder cast to float16 ``if not train_text and not train_embedding:``, its
    parameters handed on only ``if train_text:`` / ``elif train_embedding:``), with the flag
    not bound again in that function: no run both casts the module and trains it."""
    body = ctx.body_around(cast)
    if not sites or any(ctx.body_around(site) is not body for site in sites):
        return False
    facts = _facts_at(body, cast)
    if not facts:
        return False
    line = getattr(cast, "lineno", 0)
    for site in sites:
        first, last = sorted((line, getattr(site, "lineno", 0)))
        rebound = {dotted(t) or "" for n in ast.walk(body)
                   if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For))
                   and first <= n.lineno <= last
                   for t in (n.targets if isinstance(n, ast.Assign) else [n.target])}
        there = _facts_at(body, site)
        if not any(key in there and there[key] != truth and key not in rebound
                   and key.split(".")[0] not in rebound for key, truth in facts.items()):
            return False
    return True


def _requires_grad_filtered(body: ast.AST, site: ast.AST) -> bool:
    """``site`` (a ``parameters()`` call) feeds only the parameters that require gradients:
    ``[p for p in m.parameters() if p.requires_grad]``, ``filter(lambda p: p.requires_grad,
    m.parameters())``."""
    def reads_flag(nodes: list[ast.expr]) -> bool:
        return any(isinstance(n, ast.Attribute) and n.attr == "requires_grad"
                   for x in nodes for n in ast.walk(x))
    for node in ast.walk(body):
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) and any(
                site in ast.walk(g.iter) and reads_flag(g.ifs) for g in node.generators):
            return True
        if isinstance(node, ast.Call) and dotted(node.func) == "filter" and len(node.args) == 2 \
                and site in ast.walk(node.args[1]) and reads_flag([node.args[0]]):
            return True
    return False


_UNFREEZING = frozenset({"add_adapter", "load_adapter", "enable_adapters", "set_adapter"})


def _frozen_and_filtered(ctx: FileContext, name: str, cast: ast.AST, obj: Obj,
                         sites: list[ast.AST]) -> bool:
    """The cast module was frozen just before (``m.requires_grad_(False)`` earlier in the
    cast's own block), nothing in the function gives it trainable parameters again before the
    optimizer is built (no ``requires_grad = True`` / ``requires_grad_()`` on it or on a
    loop over it, no adapter added, the name not bound again), and every place the
    optimizer's parameters read it keeps only those that require gradients: the float16
    weights never reach the optimizer. (What happens after the optimizer is built does not
    change the parameters it holds.)"""
    body = ctx.body_around(cast)
    if obj.path != ctx.path or obj.call is None or ctx.body_around(obj.call) is not body:
        return False
    end = max([obj.call.lineno, *(getattr(site, "lineno", 0) for site in sites)])
    if not sites or any(ctx.body_around(site) is not body
                        or not _requires_grad_filtered(body, site) for site in sites):
        return False
    block = next((stmts for n in ast.walk(body) for field in ("body", "orelse", "finalbody")
                  if isinstance(stmts := getattr(n, field, None), list)
                  and any(cast in ast.walk(st) for st in stmts)
                  and not any(isinstance(st, (ast.If, ast.For, ast.While, ast.With, ast.Try))
                              and cast in ast.walk(st) for st in stmts)), None)
    if block is None:
        return False
    line = getattr(cast, "lineno", 0)
    freeze = next((st.lineno for st in block if st.lineno < line and isinstance(st, ast.Expr)
                   and isinstance(call := st.value, ast.Call)
                   and isinstance(call.func, ast.Attribute) and call.func.attr == "requires_grad_"
                   and dotted(call.func.value) == name and len(call.args) == 1
                   and isinstance(call.args[0], ast.Constant) and call.args[0].value is False),
                  None)
    if freeze is None:
        return False
    loops = [n for n in ast.walk(body) if isinstance(n, (ast.For, ast.comprehension))]
    for node in ast.walk(body):
        if not freeze < getattr(node, "lineno", line) <= end:
            continue
        if isinstance(node, ast.Assign) and node is not cast and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return False  # bound again: another module
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _UNFREEZING:
                target = node.func.value
            elif node.func.attr == "requires_grad_" and not (
                    node.args and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value is False):
                target = node.func.value
        elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == "requires_grad"
                for t in node.targets) and not (isinstance(node.value, ast.Constant)
                                                and node.value.value is False):
            target = next(t for t in node.targets if isinstance(t, ast.Attribute)).value
        if target is None:
            continue
        base = target
        while isinstance(base, (ast.Attribute, ast.Subscript, ast.Call)):
            base = base.func if isinstance(base, ast.Call) else base.value
        if not isinstance(base, ast.Name) or base.id == name:
            return False
        if any(any(isinstance(t, ast.Name) and t.id == base.id for t in ast.walk(loop.target))
               and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(loop.iter))
               for loop in loops):
            # `for p in m.parameters(): p.requires_grad = True`, also through
            # `for n, p in m.named_parameters():`
            return False
    return True


def _bound_in(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[ast.AST]:
    """The statements of ``fn`` itself (not of a function inside it) that bind ``name``."""
    return [node for node in own_nodes(fn) if _binds(node, name)]


def _own_local(fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    """``name`` is a local variable of ``fn``: bound there, no parameter of it, not declared
    global or nonlocal."""
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    declared = any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names
                   for n in ast.walk(fn))
    return name not in params and not declared and bool(_bound_in(fn, name))


def _local_elsewhere(ctx: FileContext, name: str, cast: ast.AST, obj: Obj) -> bool:
    """The cast module is a local of one function (a helper that loads a float16 copy to
    generate samples and returns nothing of it) and the optimizer reads a local of the same
    name in another function, bound there by its own calls (``net =
    Net.from_pretrained(path)``), none of the helper: two objects, whatever they are called.
    Python's scoping, not the name, says which module the optimizer updates."""
    if obj.path != ctx.path or obj.call is None:
        return False
    where, made_in = ctx.function_of(ctx.path, cast), ctx.function_of(ctx.path, obj.call)
    if where is None or made_in is None or where is made_in or "." in name:
        return False
    nested = {id(n) for n in ast.walk(where)}
    if id(made_in) in nested or id(where) in {id(n) for n in ast.walk(made_in)}:
        return False
    if not _own_local(where, name) or not _own_local(made_in, name):
        return False
    if any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) and n.value is not None
           and any(isinstance(m, ast.Name) and m.id == name for m in ast.walk(n.value))
           for n in own_nodes(where)):
        return False  # handed back to a caller
    for node in _bound_in(made_in, name):
        value = getattr(node, "value", None)
        if not isinstance(node, ast.Assign) or not isinstance(value, ast.Call):
            return False  # bound from something else: where it comes from is not followed
        if any(isinstance(n, ast.Call) and (dotted(n.func) or "").rsplit(".", 1)[-1]
               == where.name for n in ast.walk(value)):
            return False
    return True


def _rebound_between(ctx: FileContext, name: str, cast: ast.AST, obj: Obj) -> bool:
    """The cast and the optimizer sit in one body of this file (a script's or a notebook's
    top level, one function) and ``name`` is bound again between them to a value that does
    not read it (``model = create_model()`` in the next cell): the cast module is not the one
    whose parameters the optimizer holds. A value built from it (``model =
    DataParallel(model)``, ``model = model.cuda()``) holds the same parameters."""
    if obj.path != ctx.path or obj.call is None:
        return False
    body = ctx.body_around(cast)
    if ctx.body_around(obj.call) is not body \
            or not isinstance(body, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    first, last = sorted((getattr(cast, "lineno", 0), obj.call.lineno))
    for node in own_nodes(body):
        if not isinstance(node, ast.Assign) or not first < node.lineno < last:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in node.targets) and not any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(node.value)):
            return True
    return False


def _before_in_body(ctx: FileContext, cast: ast.AST, obj: Obj) -> bool:
    """The cast comes before the optimizer's constructor in the function that builds it."""
    return obj.call is not None and obj.path == ctx.path \
        and ctx.function_of(ctx.path, cast) is ctx.function_of(ctx.path, obj.call) \
        and getattr(cast, "lineno", 0) < obj.call.lineno


def _parameter_default(ctx: FileContext, obj: Obj, expr: ast.expr) -> float | None:
    """The literal default of the parameter ``expr`` names, when the optimizer is built in
    that function and nothing in the file passes the parameter by name (`def main(...,
    adam_epsilon: float = 1e-08)` run as `main(**config)`): the value the code uses unless a
    configuration the file does not show overrides it."""
    if obj.call is None:
        return None
    tree, fn = ctx.tree_of(obj.path), ctx.function_of(obj.path, obj.call)
    if tree is None or fn is None:
        return None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) \
            and expr.value.id == "self":
        # `self.adam_epsilon`, kept as given by `__init__(self, ..., adam_epsilon=1e-8)`
        init = _init_keeping(tree, fn, expr.attr)
        return None if init is None else _default_reaching(ctx, tree, init, expr.attr, 0)
    if not isinstance(expr, ast.Name):
        return None
    return _default_reaching(ctx, tree, fn, expr.id, 0)


def _init_keeping(tree: ast.Module, method: ast.AST, attr: str) -> ast.FunctionDef | None:
    """The ``__init__`` of the class around ``method`` when it is the one place the class sets
    ``self.<attr>``, as ``self.<attr> = <attr>`` (the parameter kept as given)."""
    cls = next((c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                and any(m is method for m in c.body)), None)
    if cls is None:
        return None
    stores = [n for n in ast.walk(cls) if isinstance(n, ast.Attribute) and n.attr == attr
              and not isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
              and n.value.id == "self"]
    init = next((m for m in cls.body if isinstance(m, ast.FunctionDef)
                 and m.name == "__init__"), None)
    if init is None or len(stores) != 1:
        return None
    kept = any(isinstance(n, ast.Assign) and n.targets == [stores[0]]
               and isinstance(n.value, ast.Name) and n.value.id == attr for n in ast.walk(init))
    return init if kept else None


def _default_reaching(ctx: FileContext, tree: ast.Module,
                      fn: ast.FunctionDef | ast.AsyncFunctionDef, name: str,
                      depth: int) -> float | None:
    """The literal default of ``fn``'s parameter ``name``; for a parameter without one (a
    builder's `eps`), what every call of ``fn`` in this file passes for it: a number, or the
    parameter of the calling function, followed the same way."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    pairs = list(zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults))
    pairs += [(a, d) for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
    default = next((d for a, d in pairs if a.arg == name), None)
    if default is None and depth < 3 and not any(
            isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name
                                              for t in n.targets) for n in ast.walk(fn)):
        found: set[float] = set()
        for given, body in _passed_for(ctx, fn, name):
            if isinstance(given, ast.Constant) and isinstance(given.value, (int, float)) \
                    and not isinstance(given.value, bool):
                found.add(float(given.value))
            elif isinstance(given, ast.Name) and isinstance(
                    body, (ast.FunctionDef, ast.AsyncFunctionDef)):
                value = _default_reaching(ctx, ctx.tree, body, given.id, depth + 1)
                if value is None:
                    return None
                found.add(value)
            elif isinstance(given, ast.Attribute) and isinstance(given.value, ast.Name) \
                    and given.value.id == "self":
                # `build(params, eps=self.adam_epsilon)` in a method: the attribute kept as
                # given by `__init__(self, ..., adam_epsilon=1e-8)`
                init = _init_keeping(ctx.tree, body, given.attr)
                value = None if init is None else _default_reaching(
                    ctx, ctx.tree, init, given.attr, depth + 1)
                if value is None:
                    return None
                found.add(value)
            else:
                return None
        return found.pop() if len(found) == 1 else None
    if not isinstance(default, ast.Constant) or isinstance(default.value, bool) \
            or not isinstance(default.value, (int, float)):
        return None
    expr = ast.Name(name, ast.Load())
    if any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == expr.id
                                              for t in n.targets) for n in ast.walk(fn)):
        return None  # rebound in the body: the default is not what reaches the optimizer
    for module in {id(t): t for t in (tree, ctx.tree)}.values():
        if any(isinstance(n, ast.keyword) and n.arg == expr.id for n in ast.walk(module)):
            return None  # a call passes it by name: the default may not be what is used
    return float(default.value)


# -- LRD103 ------------------------------------------------------------------------------------

_PROB_FUNCS = frozenset({"sigmoid", "softmax"})


def _top_level_scope(tree: ast.Module) -> list[tuple[int, int, str]]:
    return [
        (stmt.lineno, stmt.end_lineno or stmt.lineno, stmt.name)
        for stmt in tree.body
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]


def _scope_of(line: int, scopes: list[tuple[int, int, str]]) -> str | None:
    for start, end, name in scopes:
        if start <= line <= end:
            return name
    return None


def _half_evidence(ctx: FileContext) -> list[tuple[str | None, int]]:
    """(top-level scope, line) of each `.half()` cast in the file."""
    scopes = _top_level_scope(ctx.tree)
    return [
        (_scope_of(node.lineno, scopes), node.lineno)
        for node in ast.walk(ctx.tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "half"
    ]


def _half_why(evidence: list[tuple[str | None, int]], scope: str | None) -> str:
    """`.half()` in the same function, or at module level."""
    for where, line in evidence:
        if where == scope or where is None:
            return f"`.half()` (line {line})"
    return ""


# where each argument of an autocast call is given positionally: the legacy
# `torch.cuda.amp.autocast(enabled, dtype, cache_enabled)`, and `torch.autocast(device_type,
# dtype, enabled, cache_enabled)` (also as `torch.amp.autocast`)
_AUTOCAST_POSITIONS = {
    True: {"enabled": 0, "dtype": 1},
    False: {"device_type": 0, "dtype": 1, "enabled": 2},
}


def _autocast_argument(node: ast.Call, qual: str, name: str) -> ast.expr | None:
    """The argument ``name`` of the autocast call ``node`` (``qual``: what it resolves to),
    given by keyword or by position; None when it is not given."""
    given = next((k.value for k in node.keywords if k.arg == name), None)
    if given is None:
        at = _AUTOCAST_POSITIONS[qual == "torch.cuda.amp.autocast"].get(name)
        if at is not None and len(node.args) > at:
            given = node.args[at]
    return given


def _autocast_state(node: ast.expr, module: ModuleInfo) -> bool | None:
    """True for an autocast call that may be enabled, False for `autocast(enabled=False)`,
    None when ``node`` is no autocast call."""
    if not isinstance(node, ast.Call):
        return None
    qual = resolve(node.func, module)
    if not (qual.endswith("autocast") and (qual.startswith("torch") or qual == "autocast")):
        return None
    enabled = _autocast_argument(node, qual, "enabled")
    if enabled is not None and constants.record_constant(
            enabled, module, function_around(module.tree, node)) is False:
        # `enabled=CFG.amp` with `class CFG: amp = False`, `cfg["amp"]` with `cfg = dict(amp=
        # False)`, here or imported from a config module of the project
        return False
    return not (isinstance(enabled, ast.Constant) and enabled.value is False)


def _autocast_on_cpu(node: ast.Call, module: ModuleInfo) -> bool:
    """An autocast call stated to run on the CPU (``torch.autocast("cpu", ...)``,
    ``torch.cpu.amp.autocast()``); any other device, or one not written as a literal, is taken
    as CUDA's, the common case."""
    qual = resolve(node.func, module)
    if qual.startswith("torch.cpu."):
        return True
    if qual == "torch.cuda.amp.autocast":
        return False
    device = _autocast_argument(node, qual, "device_type")
    return isinstance(device, ast.Constant) and device.value == "cpu"


class _Reach:
    """The code that runs under an enabled autocast: the bodies of enabled ``with`` blocks
    (also through a context held in a variable, and autocast-decorated functions), and what
    they call in this file (functions by name, methods through ``self``, the file's module
    ``forward`` methods when the block calls a model), leaving out nested
    ``autocast(enabled=False)`` blocks. A function the block calls by a name imported from a
    project module (``from losses import nll``) runs under it too: its body is reached (what
    it calls in turn is not followed), kept in ``foreign`` with its module."""

    def __init__(self, ctx: FileContext) -> None:
        self.module = ctx.module
        self.tree = ctx.tree
        self.nodes: set[int] = set()
        self.foreign: list[tuple[ModuleInfo, ast.FunctionDef | ast.AsyncFunctionDef]] = []
        self.called_names: set[str] = set()
        self.first_line = 0
        # CUDA's autocast computes softmax in float32 (its "autocast to float32" list), the
        # CPU's keeps it in float16: a softmax's probabilities under it are low precision only
        # where the file also autocasts on the CPU
        self.on_cpu = any(isinstance(node, ast.Call) and _autocast_state(node, self.module)
                          and _autocast_on_cpu(node, self.module) for node in ast.walk(self.tree))
        held = self._held_contexts()
        starts: list[ast.AST] = []
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                self._enabled(item.context_expr, held) for item in node.items
            ):
                starts.extend(node.body)
                self.first_line = self.first_line or node.lineno
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                entered = self._entered_on_stack(node, held)
                if entered is not None:
                    starts.extend(node.body[entered + 1:])
                    self.first_line = self.first_line or node.body[entered].lineno
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                _autocast_state(d, self.module) for d in node.decorator_list
            ):
                starts.extend(node.body)
                self.first_line = self.first_line or node.lineno
        self.methods: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for cls in self.module.classes.values():
            for name, method in cls.methods.items():
                self.methods.setdefault(name, []).append(method)
        self.done: set[int] = set()
        queue = list(starts)
        while queue:
            queue.extend(self._visit(queue.pop()))

    def _held_contexts(self) -> set[str]:
        held = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Assign) and any(
                _autocast_state(sub, self.module) for sub in ast.walk(node.value)
                if isinstance(sub, ast.Call)
            ):
                for target in node.targets:
                    text = dotted(target)
                    if text:
                        held.add(text)
        return held

    def _entered_on_stack(self, node: ast.With | ast.AsyncWith, held: set[str]) -> int | None:
        """``with contextlib.ExitStack() as stack:`` whose body enters an enabled autocast
        (``stack.enter_context(torch.autocast(...))``, a statement of the block itself): the
        index of that statement, the rest of the block running under it; else None."""
        return next((i for i, call in exit_stack_calls(node, self.module, "enter_context")
                     if len(call.args) == 1 and self._enabled(call.args[0], held)), None)

    def _enabled(self, expr: ast.expr, held: set[str]) -> bool:
        state = _autocast_state(expr, self.module)
        if state is not None:
            return state
        return (dotted(expr) or "") in held

    def _disabled_block(self, node: ast.AST) -> bool:
        return isinstance(node, (ast.With, ast.AsyncWith)) and any(
            _autocast_state(item.context_expr, self.module) is False for item in node.items
        )

    def _visit(self, root: ast.AST) -> list[ast.AST]:
        """Mark ``root``'s nodes reachable; return function bodies it reaches."""
        more: list[ast.AST] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in self.nodes or self._disabled_block(node):
                continue
            self.nodes.add(id(node))
            stack.extend(ast.iter_child_nodes(node))
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            targets: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
            if isinstance(func, ast.Name):
                self.called_names.add(func.id)
                fn = self.module.functions.get(func.id)
                if fn is not None:
                    targets.append(fn)
                elif func.id in self.module.imports:
                    self._reach_imported(func.id)
                elif func.id not in self.module.classes:
                    targets.extend(self.methods.get("forward", []))
            elif isinstance(func, ast.Attribute):
                self.called_names.add(func.attr)
                if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
                    targets.extend(self.methods.get(func.attr, []))
                elif isinstance(func.value, ast.Name) and func.value.id in self.module.classes:
                    # `Losses.bce(logits, y)`: the method of the file's own class it names
                    method = self.module.classes[func.value.id].methods.get(func.attr)
                    if method is not None:
                        targets.append(method)
                if func.attr not in self.methods and not resolve(func, self.module).startswith(
                    ("torch", "F.", "np.", "math.")
                ):
                    targets.extend(self.methods.get("forward", []))
            for fn in targets:
                if id(fn) not in self.done:
                    self.done.add(id(fn))
                    more.extend(fn.body)
        return more

    def _reach_imported(self, name: str) -> None:
        loader = self.module.loader
        qual = self.module.imports[name]
        if loader is None or qual.split(".")[0] in _LIBRARIES:
            return
        found = loader.module_for(qual, self.module)
        fn = found[0].functions.get(found[1]) if found is not None else None
        if fn is None or id(fn) in self.done:
            return
        self.done.add(id(fn))
        other = found[0]  # type: ignore[index]
        self.foreign.append((other, fn))
        stack: list[ast.AST] = list(fn.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)) or (
                    isinstance(node, (ast.With, ast.AsyncWith)) and any(
                        _autocast_state(item.context_expr, other) is False
                        for item in node.items)):
                continue
            self.nodes.add(id(node))
            stack.extend(ast.iter_child_nodes(node))

    def covers(self, node: ast.AST, bound_to: list[str]) -> bool:
        """``node`` runs under autocast, or it builds a loss bound to a name called there."""
        return id(node) in self.nodes or any(name in self.called_names for name in bound_to)


def _bound_names(tree: ast.AST) -> dict[int, list[str]]:
    """The names each constructor call is bound to: ``criterion = nn.BCELoss()`` ->
    ["criterion"], ``self.loss = ...`` -> ["loss"]; also through a factory whose one
    ``return`` hands back the call (``def make_loss(): return nn.BCELoss()`` ... ``criterion
    = make_loss()``: the loss is bound to ``criterion``). A factory that may return something
    else is not followed: which one a call gets is not known here."""
    made = _factory_returns(tree)
    out: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            callee = (dotted(node.value.func) or "").rsplit(".", 1)[-1]
            for target in node.targets:
                name = target.id if isinstance(target, ast.Name) else (
                    target.attr if isinstance(target, ast.Attribute) else None)
                if name is None:
                    continue
                out.setdefault(id(node.value), []).append(name)
                if callee in made:
                    out.setdefault(id(made[callee]), []).append(name)
    return out


def _factory_returns(tree: ast.AST) -> dict[str, ast.Call]:
    """Functions (and methods) whose only ``return`` returns a call: name -> that call. A name
    defined twice is left out."""
    found: dict[str, ast.Call | None] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        returns = [n for n in own_nodes(fn) if isinstance(n, ast.Return)]
        only = returns[0].value if len(returns) == 1 else None
        found[fn.name] = only if isinstance(only, ast.Call) and fn.name not in found else None
    return {name: call for name, call in found.items() if call is not None}


def _is_prob_call(node: ast.expr, module: ModuleInfo) -> bool:
    if not isinstance(node, ast.Call):
        return False
    qual = resolve(node.func, module)
    last = qual.rsplit(".", 1)[-1] if qual else (
        node.func.attr if isinstance(node.func, ast.Attribute) else ""
    )
    if isinstance(node.func, ast.Attribute) and node.func.attr in _PROB_FUNCS:
        return True
    return last in _PROB_FUNCS and (qual.startswith(("torch", "F.")))


@rule("LRD103")
def unsafe_log(ctx: FileContext) -> Iterator[Diagnostic]:
    src = ctx.source
    if "autocast" not in src and ".half()" not in src:
        return
    logs_here = _LOG_OR_BCE.search(src) is not None
    if not logs_here and not any(q.split(".")[0] not in _LIBRARIES
                                 for q in ctx.module.imports.values()):
        return  # no log here, and no function of the project imported to compute one
    reach = _Reach(ctx) if "autocast" in src else None
    if logs_here:
        half = _half_evidence(ctx)
        if half or (reach is not None and reach.first_line):
            scopes = _top_level_scope(ctx.tree)
            yield from _unsafe_logs(
                ctx.tree, ctx.module, ctx.path, reach,
                lambda node: _half_why(half, _scope_of(node.lineno, scopes)))
    if reach is None or not reach.first_line:
        return
    for other, fn in reach.foreign:
        # a loss function of another project module, called under this file's autocast
        yield from _unsafe_logs(fn, other, other.path, reach, lambda node: "",
                                f"{display_path(ctx.path)}:{reach.first_line}")


def _unsafe_logs(tree: ast.AST, module: ModuleInfo, path: str, reach: _Reach | None,
                 why_else: Callable[[ast.Call], str], at: str = "") -> Iterator[Diagnostic]:
    """LRD103 for the calls of ``tree`` (a file, or a function of ``module`` a file's autocast
    reaches) that run in float16: under ``reach`` (the autocast at ``at``, by default its line
    in this file), else for the reason ``why_else`` gives (the file's half casts)."""
    bound = _bound_names(tree)
    probabilities = _Probabilities(tree, module)
    # under CUDA's autocast a softmax is computed in float32, whatever its input
    autocast_probabilities = _Probabilities(tree, module, float32_softmax=True) \
        if reach is not None and not reach.on_cpu else probabilities
    # names the file binds itself: a bare `BCELoss(...)` that no import gives is a call of
    # what the file bound to that name (`BCELoss = lossbank.SoftBCEWithLogits()`, a function
    # of its own), not torch's class; when it holds `nn.BCELoss()`, that constructor is
    # reported where it is built
    own_names = {*_assigned_in(module.tree), *module.functions, *module.classes}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        qual = resolve(node.func, module)
        last = node.func.attr if isinstance(node.func, ast.Attribute) else qual.rsplit(".", 1)[-1]
        if last not in ("BCELoss", "binary_cross_entropy", "log", "log2", "log10", "log_"):
            continue
        if reach is not None and reach.first_line and reach.covers(node, bound.get(id(node), [])):
            why = f"autocast ({at or f'line {reach.first_line}'})"
            probs = autocast_probabilities
        else:
            why = why_else(node)
            probs = probabilities
        if not why:
            continue
        if last == "BCELoss" and (qual.startswith(("torch", "nn.")) or (
                qual == "BCELoss" and "BCELoss" not in own_names)):
            yield Diagnostic.at(
                "LRD103",
                f"BCELoss takes probabilities, and this file runs in float16 ({why}): a "
                "probability that rounds to 0 or 1 gives log(0) = -inf; use BCEWithLogitsLoss on "
                "the logits",
                path,
                node,
            )
        elif last == "binary_cross_entropy" and (qual.startswith(("torch", "F."))):
            yield Diagnostic.at(
                "LRD103",
                f"binary_cross_entropy on probabilities in float16 ({why}): a probability that "
                "rounds to 0 or 1 gives log(0) = -inf; use binary_cross_entropy_with_logits",
                path,
                node,
            )
        else:
            inner = _log_argument(node, qual)
            if inner is None:
                continue
            complement = _one_minus(inner)
            bounds = probs.at(complement if complement is not None else inner, node)
            if bounds is None:
                continue
            low, high = bounds
            if complement is None and (low is None or _fp16(low) <= 0.0):
                yield Diagnostic.at(
                    "LRD103",
                    f"`{_short(node)}` takes the log of probabilities in float16 ({why}): they "
                    "round to 0 and the log is -inf; use F.logsigmoid / F.log_softmax on logits",
                    path,
                    node,
                )
            elif complement is not None and (high is None or _fp16(high) >= 1.0):
                clamp = "" if high is None else (
                    f" (the clamp's upper bound {high:g} is 1 in float16)")
                yield Diagnostic.at(
                    "LRD103",
                    f"`{_short(node)}` takes the log of one minus a probability in float16 "
                    f"({why}): a probability above 1 - 2**-12 rounds to 1{clamp} and the log is "
                    "-inf; use F.logsigmoid(-x) on the logits",
                    path,
                    node,
                )


def _fp16(value: float) -> float:
    """``value`` rounded to float16, as a bound given to a float16 tensor's clamp is."""
    try:
        return float(struct.unpack("<e", struct.pack("<e", value))[0])
    except (OverflowError, struct.error):
        return float("inf") if value > 0 else float("-inf")


def _number(node: ast.expr | None) -> float | None:
    """A number written with literals (`1e-6`, `1 - 1e-6`, `-4`), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        inner = _number(node.operand)
        return None if inner is None else (-inner if isinstance(node.op, ast.USub) else inner)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        left, right = _number(node.left), _number(node.right)
        if left is None or right is None:
            return None
        return left + right if isinstance(node.op, ast.Add) else (
            left - right if isinstance(node.op, ast.Sub) else left * right)
    return None


def _one_minus(node: ast.expr) -> ast.expr | None:
    """``p`` for ``1 - p`` (``1.0 - p``), else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) \
            and _number(node.left) == 1.0:
        return node.right
    return None


_CLAMPS = frozenset({"clamp", "clamp_", "clip", "clip_", "clamp_min", "clamp_max"})


class _Probabilities:
    """Which expressions of ``tree`` hold probabilities (a sigmoid's or softmax's output),
    and the bounds a clamp puts on them: ``at(expr, use)`` gives (lowest, highest) for a
    probability (None where no literal bound is known), None for anything else. A name holds
    a probability where the last assignment of it before ``use``, in the function around
    ``use``, assigns one (`p = torch.sigmoid(x).clamp(1e-6, 1 - 1e-6)`): a name of the same
    spelling in another function is another variable."""

    def __init__(self, tree: ast.AST, module: ModuleInfo, float32_softmax: bool = False) -> None:
        self.tree = tree
        self.module = module
        # a softmax runs in float32 here (CUDA's autocast): its output is no float16 probability
        self.float32_softmax = float32_softmax
        # (function or None, name) -> [(line, value)] in the order written
        self.assigned: dict[tuple[int, str], list[tuple[int, ast.expr]]] = {}
        self.functions = [n for n in ast.walk(tree)
                          if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for fn in {id(f): f for f in [tree, *self.functions]}.values():
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                continue
            for node in own_nodes(fn):
                if isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Name):
                            self.assigned.setdefault((id(fn), target.id), []).append(
                                (node.lineno, node.value))

    def at(self, expr: ast.expr, use: ast.AST) -> tuple[float | None, float | None] | None:
        bounds = self._bounds(expr, getattr(use, "lineno", 0))
        if bounds is not None or not isinstance(expr, ast.Name):
            return bounds
        found = self._last_binding(expr.id, getattr(use, "lineno", 0))
        return None if found is None else self._bounds(found[1], found[0])

    def _low_precision_prob(self, expr: ast.expr, line: int | None) -> bool:
        """A sigmoid's or softmax's output that may be float16: not one computed in float32
        (``F.softmax(logits.float(), -1)``, ``x.double().sigmoid()``, ``softmax(x,
        dtype=torch.float32)``, or of a name last bound to such a cast before ``line``), which
        holds probabilities down to float32's smallest, whatever the model runs in."""
        if not _is_prob_call(expr, self.module):
            return False
        assert isinstance(expr, ast.Call)
        if self.float32_softmax and last_name(expr) == "softmax":
            return False
        if any(k.arg == "dtype" and _full_precision_dtype(k.value) for k in expr.keywords):
            return False
        func = expr.func
        source = func.value if isinstance(func, ast.Attribute) \
            and func.attr in _PROB_FUNCS and not _is_module_path(func, self.module) \
            else (expr.args[0] if expr.args else None)
        if source is None:
            return True
        if _full_precision_cast(source):
            return False
        if isinstance(source, ast.Name) and line is not None:
            bound = self._last_binding(source.id, line)
            return bound is None or not _full_precision_cast(bound[1])
        return True

    def _last_binding(self, name: str, line: int) -> tuple[int, ast.expr] | None:
        """(its line, the value) of the last assignment of ``name`` at or before ``line``, in
        the innermost function around ``line`` (ast.walk lists outer functions first)."""
        around = [fn for fn in self.functions
                  if fn.lineno <= line <= (fn.end_lineno or fn.lineno)]
        scope = around[-1] if around else self.tree
        earlier = [(at, i) for i, (at, _) in enumerate(self.assigned.get((id(scope), name), []))
                   if at <= line]
        return self.assigned[id(scope), name][max(earlier)[1]] if earlier else None


    def _bounds(self, expr: ast.expr, line: int | None = None
                ) -> tuple[float | None, float | None] | None:
        if self._low_precision_prob(expr, line):
            return None, None
        if not isinstance(expr, ast.Call):
            return None
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in _CLAMPS \
                and isinstance(func.value, ast.Call) \
                and self._low_precision_prob(func.value, line):
            given = list(expr.args)
        elif dotted(func) in ("torch.clamp", "torch.clip") and expr.args \
                and self._low_precision_prob(expr.args[0], line):
            given = list(expr.args[1:])
        else:
            return None
        keywords = {k.arg: k.value for k in expr.keywords if k.arg}
        name = func.attr if isinstance(func, ast.Attribute) else "clamp"
        if name == "clamp_max":
            low_node, high_node = None, (given[0] if given else keywords.get("max"))
        else:
            low_node = given[0] if given else keywords.get("min")
            high_node = given[1] if len(given) > 1 else keywords.get("max")
        return _number(low_node), _number(high_node)


_FULL_PRECISION = frozenset({"float32", "float", "float64", "double"})


def _full_precision_dtype(node: ast.expr) -> bool:
    """``torch.float32`` / ``torch.float`` / ``torch.float64`` / ``torch.double``, or the
    string ``"float32"`` / ``"float64"``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in ("float32", "float64")
    text = dotted(node) or ""
    return text.startswith("torch.") and text.rsplit(".", 1)[-1] in _FULL_PRECISION


def _full_precision_cast(node: ast.expr) -> bool:
    """``x.float()``, ``x.double()``, ``x.to(torch.float32)``, ``x.type(torch.float64)``,
    ``x.to(device, dtype=torch.float32)``: a tensor cast to float32 or wider."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    attr = node.func.attr
    if attr in ("float", "double") and not node.args and not node.keywords:
        return True
    if attr in ("to", "type"):
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "dtype")]
        return any(_full_precision_dtype(g) for g in given)
    return False


def _is_module_path(func: ast.Attribute, module: ModuleInfo) -> bool:
    """``torch.softmax`` / ``F.sigmoid`` / ``nn.functional.softmax``: a function of an
    imported module, whose first argument is the tensor (not ``x.softmax(...)``, a method of
    the tensor)."""
    root = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    return isinstance(root, ast.Name) and (root.id in module.imports or root.id == "torch")


def _log_argument(node: ast.Call, qual: str) -> ast.expr | None:
    if qual in ("torch.log", "torch.log2", "torch.log10") and node.args:
        return node.args[0]
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("log", "log_") and not node.args:
        return node.func.value
    return None


def _short(node: ast.expr) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 50 else text[:47] + "..."


# -- LRD108 / LRD109 / LRD110 ------------------------------------------------------------------


def _scope_events(ctx: FileContext, e: Event) -> list[Event]:
    """Events of the same trace in the same innermost loop (the whole trace if none)."""
    return [x for x in ctx.events_by_root.get(e.root, []) if x.in_loop(e.loop)]


@rule("LRD108")
def clip_before_unscale(ctx: FileContext) -> Iterator[Diagnostic]:
    for clip in ctx.program.events:
        if clip.kind != "clip":
            continue
        scope = _scope_events(ctx, clip)
        backwards = [
            b for b in scope if b.kind == "scale_backward" and b.order < clip.order
            and not exclusive(b, clip) and not scaler_disabled(b.obj)
        ]
        if not backwards:
            continue
        b = backwards[-1]
        steps = [s for s in scope if s.kind == "scaler_step" and s.order > clip.order
                 and not exclusive(s, clip)]
        around = scope
        if not steps and clip.loop is not None and clip.loop.parent is not None:
            # a loop that only back-propagates micro-batches (and clips each time) before the
            # update that follows it: the scaler steps in the loop around it
            outer = clip.loop.parent
            around = [x for x in ctx.events_by_root.get(clip.root, []) if x.in_loop(outer)]
            steps = [s for s in around
                     if s.kind == "scaler_step" and s.order > clip.order
                     and not s.in_loop(clip.loop) and not exclusive(s, clip)]
        if not steps or _bound_rescaled(ctx, clip):
            continue
        unscales = [u for u in around if u.kind == "unscale" and b.order < u.order < clip.order
                    and not exclusive(u, clip)]
        if unscales:
            boundary = _boundary_gate(unscales, clip, steps)
            if boundary is not None:
                u, test = boundary
                yield Diagnostic.at(
                    "LRD108",
                    f"`{receiver(u)}.unscale_(...)` (line {u.line}) runs only on the "
                    f"accumulation boundary (`{test}`), where the scaler steps, but the "
                    "gradients are clipped here on every micro-batch: between boundaries the "
                    "clip cuts the partly accumulated gradients while they are still multiplied "
                    "by the GradScaler's scale (65536 at start), so the effective max norm is "
                    "divided by it; clip under the same test, after unscale_()",
                    clip.path,
                    clip.node,
                )
                continue
            gate = _unscale_gate(unscales, clip, b)
            if gate is not None:
                u, flag = gate
                yield Diagnostic.at(
                    "LRD108",
                    f"`{receiver(u)}.unscale_(...)` (line {u.line}) runs only when `{flag}`, but "
                    f"the gradients are clipped here whether or not it ran: with `{flag}` off "
                    f"and the GradScaler on, the clip sees gradients still multiplied by the "
                    "scale (65536 at start) and the effective max norm is divided by it; "
                    "unscale whenever the scaler is enabled, or clip under the same test",
                    clip.path,
                    clip.node,
                )
            continue
        # a scaler switched by a flag (`if cfg.use_amp: scaler = GradScaler()`): the clip sees
        # scaled gradients exactly when the flag is on, so the message says when, as LRD005's does
        switch = scaler_switch(b.obj, b)
        condition = when(switch) if switch else ""
        prefix = f"{condition[0].upper()}{condition[1:]}, g" if condition else "g"
        yield Diagnostic.at(
            "LRD108",
            f"{prefix}radients are clipped here while still multiplied by the GradScaler's scale "
            f"(`{receiver(b)}.scale(...).backward()` at line {b.line}): the effective max norm "
            f"is divided by the scale (65536 at start); call `{receiver(b)}.unscale_(optimizer)` "
            "before clipping",
            clip.path,
            clip.node,
        )


def _bound_rescaled(ctx: FileContext, clip: Event) -> bool:
    """The clip's bound is multiplied by the scaler's current scale: ``clip_grad_norm_(params,
    max_norm * scaler.get_scale())``, through a name the function binds to it, or a parameter
    a caller fills with it (``clip(model, max_norm, scale=scaler.get_scale())``). Scaled
    gradients clipped at the scaled bound are the true gradients clipped at the true bound."""
    call = clip.node
    if not isinstance(call, ast.Call):
        return False
    # the bound is the second argument of torch's function and the first of a library object's
    # method (`model.clip_grad_norm_(max_norm)`); the parameters never hold the scale
    factors = [*call.args, *(k.value for k in call.keywords if k.arg in ("max_norm", "clip_value"))]
    tree = ctx.tree_of(clip.path)
    around = function_at(tree, clip.line) if tree is not None else None
    seen: set[str] = set()
    while factors:
        factor = factors.pop()
        if isinstance(factor, ast.BinOp) and isinstance(factor.op, ast.Mult):
            factors += [factor.left, factor.right]
            continue
        if not isinstance(factor, ast.Name):
            if _reads_scale(factor):
                return True
            continue
        if factor.id in seen:
            continue  # `norm = norm * 2`
        seen.add(factor.id)
        bound_to = last_binding(around, factor.id, clip.line) if around is not None else None
        if bound_to is not None:
            factors.append(bound_to)
        elif any(_reads_scale(p.expr) for p in passed_chain(clip, factor)[1:]):
            return True
    return False


def _reads_scale(expr: ast.expr) -> bool:
    """``scaler.get_scale()``: the GradScaler's current scale."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
        and expr.func.attr == "get_scale" and not expr.args and not expr.keywords


# the words of a test that is about mixed precision, the scaler or the update itself, where
# an unscale under it and an unconditional clip can both be right (`if args.amp:
# scaler.unscale_(opt)` with `GradScaler(enabled=args.amp)`; `if accelerator.sync_gradients:`)
_UNSCALE_GATE_EXEMPT = frozenset({
    "amp", "fp16", "fp", "half", "mixed", "precision", "scaler", "scale", "scaling", "apex",
    "autocast", "float16", "bf16", "cuda", "gpu", "device", "enabled", "enable", "sync",
    "gradients", "accumulate", "accumulation", "accum", "boundary", "update", "step", "steps",
    "last", "distributed", "ddp", "deepspeed", "tpu", "xla", "optimizer",
})


def _unscale_gate(unscales: list[Event], clip: Event, backward: Event) -> tuple[Event, str] | None:
    """The unscale and the setting it alone is gated by, where every unscale before ``clip``
    runs under a configuration flag (``if config.training.unscale:``) that the clip is not
    under, that says nothing about mixed precision or the update, and that is not what switches
    the GradScaler on; None otherwise. With the flag off and the scaler on, the clip runs on
    scaled gradients."""
    switch = scaler_switch(backward.obj)
    if switch is None:
        return None  # a scaler the file does not show built, or never enabled
    # the names of the settings that switch the scaler (`args.amp` in `GradScaler(enabled=
    # args.amp)`: "amp"), not the objects that hold them
    switch_words = {w for name in names.words(switch.lower()) for w in name.split("_")} - {
        w for t in re.findall(r"([a-z_][a-z0-9_]*)\.", switch.lower()) for w in t.split("_")}
    shared = {c.key for c in clip.conds}
    shared_facts = {(c.fact[0], c.fact[1]) for c in clip.conds if c.fact is not None}
    found: tuple[Event, str] | None = None
    for u in unscales:
        own = [c for c in u.conds if c.key not in shared and not c.decided
               and c.loop is clip.loop
               and (c.fact is None or (c.fact[0], c.fact[1]) not in shared_facts)]
        if len(own) != 1 or own[0].branch != 0:
            return None  # unscaled on the clip's path, or under more than one choice
        setting = _config_flag(own[0].test)
        if setting is None:
            return None
        words = set(setting.lower().rsplit(".", 1)[-1].split("_"))
        if words & _UNSCALE_GATE_EXEMPT or words & switch_words \
                or set(names.words(receiver(u).lower())) & words:
            return None
        found = found or (u, setting)
    return found


def _boundary_gate(unscales: list[Event], clip: Event,
                   steps: list[Event]) -> tuple[Event, str] | None:
    """The unscale and the test it alone runs under, where every unscale before ``clip`` sits
    under a periodic test of the clip's loop (``(i + 1) % accum == 0``: the accumulation
    boundary) that the clip is not under, and every scaler step after the clip sits under the
    same test. The gradients then accumulate, scaled, over the micro-batches between
    boundaries, and the clip that runs on each of them sees them scaled: only the clip on the
    boundary itself follows an unscale. None otherwise (an unscale on the clip's path, a
    clip under the same test, a step on every micro-batch)."""
    if not steps:
        return None
    shared = {c.key for c in clip.conds}
    clip_tests = {c.text for c in clip.conds if c.test is not None and c.branch == 0}
    found: tuple[Event, str] | None = None
    for u in unscales:
        own = [c for c in u.conds if c.key not in shared and not c.decided]
        if len(own) != 1 or own[0].branch != 0 or own[0].test is None \
                or own[0].loop is not clip.loop or clip.loop is None:
            return None
        gate = own[0]
        if gate.text in clip_tests or not gate.periodic:
            return None
        if not all(any(c.branch == 0 and c.text == gate.text for c in s.conds) for s in steps):
            return None  # the scaler steps between boundaries too: no accumulation
        found = found or (u, gate.text)
    return found


def _config_flag(test: ast.expr | None) -> str | None:
    """``config.training.unscale`` for a test that reads one setting of a configuration object
    as it is (``args.x``, ``self.cfg.x``, ``cfg["x"]``, ``cfg.get("x")``); None for anything
    else (a comparison, a local name, the instance's own attribute)."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Attribute) \
            and test.func.attr == "get" and test.args and isinstance(test.args[0], ast.Constant) \
            and isinstance(test.args[0].value, str):
        holder = dotted(test.func.value)
        return f"{holder}.{test.args[0].value}" if holder else None
    if isinstance(test, ast.Subscript) and isinstance(test.slice, ast.Constant) \
            and isinstance(test.slice.value, str):
        holder = dotted(test.value)
        return f"{holder}.{test.slice.value}" if holder else None
    if not isinstance(test, ast.Attribute):
        return None
    text = dotted(test)
    if not text:
        return None
    parts = text.split(".")
    if parts[0] == "self" and len(parts) < 3:
        return None  # `self.use_clip`: the instance's own state, set anywhere
    return text


def _alternatives(a: Event, b: Event) -> bool:
    """True when ``a`` and ``b`` sit in different branches of one ``if`` / ``elif`` chain."""
    branches = {c.key: c.branch for c in a.conds}
    return any(c.key in branches and branches[c.key] != c.branch for c in b.conds)


@rule("LRD109")
def step_bypasses_scaler(ctx: FileContext) -> Iterator[Diagnostic]:
    for step in ctx.program.events:
        if step.kind != "opt_step":
            continue
        if step.info.get("engine"):
            # DeepSpeed's `engine.step()` scales and unscales by its own config (its own
            # `engine.backward`); a GradScaler's scaled backward elsewhere in the program is
            # another path (`if use_amp: ... elif deepspeed: ...`), never this step's
            continue
        scope = _scope_events(ctx, step)
        twin = _twin_scaler_step(scope, step)
        if twin is not None:
            yield Diagnostic.at(
                "LRD109",
                f"`{receiver(step)}.step()` is called directly in the same iteration as "
                f"`{receiver(twin)}.step({receiver(step)})` (line {twin.line}), whose loss is "
                "scaled for backward: the direct call updates with gradients GradScaler has not "
                "checked or unscaled (scaled, or left over from the previous iteration), so the "
                "optimizer takes two steps per batch and can apply inf gradients; keep only "
                f"`{receiver(twin)}.step({receiver(step)})`",
                step.path,
                step.node,
            )
            continue
        backwards = [
            b for b in scope if b.kind == "scale_backward" and b.order < step.order
            and not exclusive(b, step) and not scaler_disabled(b.obj)
        ]
        if not backwards:
            continue
        if any(s.kind == "scaler_step" and not exclusive(s, step)
               and not _steps_another_optimizer(s, step, backwards[-1], scope) for s in scope):
            continue
        if any(s.kind == "scaler_step" and _alternatives(s, step) for s in scope):
            # `if on_tpu: xm.optimizer_step(opt) elif use_amp: scaler.step(opt) else: ...`:
            # the code chooses per branch how to step, and sends scaled losses to the scaler
            continue
        b = backwards[-1]
        yield Diagnostic.at(
            "LRD109",
            f"the loss is scaled for backward (`{receiver(b)}.scale(...)`, line {b.line}) but "
            f"`{receiver(step)}.step()` is called directly: the gradients are never unscaled, "
            f"so {unscaled_update(_optimizer_class(step), 'the scale (65536) times')}; use "
            f"`{receiver(b)}.step({receiver(step)})` and `{receiver(b)}.update()`",
            step.path,
            step.node,
        )


def _steps_another_optimizer(s: Event, step: Event, last: Event, scope: list[Event]) -> bool:
    """Whether the scaler step ``s`` leaves the direct ``step`` to itself: ``s`` hands the
    scaler another optimizer than the one ``step`` steps (both built in view, two objects), it
    ran before the scaled backward ``last`` that feeds ``step``, and no plain backward lies
    between ``last`` and ``step``. A GAN's ``scaler_d.step(d_opt)`` unscales and checks only
    the discriminator's gradients; the generator's, scaled by ``scaler_g.scale(g_loss)
    .backward()`` after it, reach ``g_opt.step()`` still multiplied by the scale."""
    other = s.info.get("optimizer")
    opt = step.obj
    if other is None or opt is None or other is opt or other.guessed or opt.guessed \
            or other.call is None or opt.call is None or other.call is opt.call:
        return False
    if not s.order < last.order < step.order:
        return False
    return not any(b.kind == "backward" and last.order < b.order < step.order
                   and not exclusive(b, step) for b in scope)


def _optimizer_class(step: Event) -> str | None:
    """The class of the optimizer ``step`` steps, where it is known (built in view)."""
    opt = step.obj
    return opt.cls if opt is not None and not opt.guessed and opt.cls else None


def _twin_scaler_step(scope: list[Event], step: Event) -> Event | None:
    """A `scaler.step(opt)` on the very optimizer a direct `opt.step()` steps, in the same
    loop body and branch (both run in each pass), with losses scaled for backward in that
    loop: the direct call is an extra update on gradients the scaler never vetted. Only a
    loop's body counts (two calls in one pass of a batch loop), only one optimizer known by
    where it is built on both sides, and not when a plain backward can run with the direct
    step (its own path without AMP, however the branches are spelled)."""
    opt = step.obj
    if step.loop is None or opt is None or opt.guessed or opt.call is None:
        return None
    if not any(b.kind == "scale_backward" and b.loop is step.loop and not exclusive(b, step)
               and not scaler_disabled(b.obj) for b in scope):
        return None
    if any(b.kind == "backward" and b.loop is step.loop and not exclusive(b, step)
           for b in scope):
        return None  # the direct step has an unscaled backward of its own: a path without AMP
    for s in scope:
        if s.kind == "scaler_step" and s.loop is step.loop and s.info.get("optimizer") is opt \
                and not exclusive(s, step) and not _alternatives(s, step) \
                and scaler_switch(s.obj) is not None:
            return s
    return None


@rule("LRD110")
def scaler_update_missing(ctx: FileContext) -> Iterator[Diagnostic]:
    updated_ids = set()
    updated_names = set()
    for e in ctx.program.events:
        if e.kind == "scaler_update" and e.obj is not None:
            updated_ids.add(e.obj.id)
            updated_names.add(receiver(e))
    reported: set[int] = set()
    for e in ctx.program.events:
        if e.kind != "scaler_step" or e.obj is None or scaler_disabled(e.obj):
            continue
        if e.obj.id in updated_ids or receiver(e) in updated_names or e.obj.id in reported:
            continue
        if e.obj.guessed:
            # a scaler handed in (`def step_and_update_lr(self, scaler): scaler.step(opt)`)
            # belongs to the caller, which updates it after the call; the caller's own trace,
            # which built it, is where a missing update shows
            continue
        reported.add(e.obj.id)
        yield Diagnostic.at(
            "LRD110",
            f"`{receiver(e)}.step(...)` is never followed by `{receiver(e)}.update()`: the scale "
            "never adapts and the next scaler.step() raises \"step() has already been called "
            "since the last update()\"",
            e.path,
            e.node,
        )


# -- LRD111 -----------------------------------------------------------------------------------

# Anything that scales a loss, or a framework that does it for the user: a file that names one
# is left alone (its backward may be scaled on a path this rule does not follow)
_SCALING = re.compile(
    r"GradScaler|scale_loss|loss_scal|LossScal|\.scale\(|deepspeed|DeepSpeed|amp\.initialize"
    r"|accelerate|Accelerator|lightning|Fabric|\bapex\b|[Ss]caler\b"
)
_FP16_NAMES = frozenset({"torch.float16", "torch.half"})


def _fp16_autocast(node: ast.expr, module: ModuleInfo) -> tuple[bool, ast.expr | None]:
    """(True, flag) for an autocast call that computes in float16 and may be enabled (``flag``:
    a non-constant ``enabled=``, else None); (False, None) otherwise. float16 is the dtype when
    it is given as ``torch.float16`` / ``torch.half``, or when none is given and the device is
    CUDA (``torch.cuda.amp.autocast()``, ``torch.autocast("cuda")``); a dtype or device held in
    a variable is not guessed."""
    if not isinstance(node, ast.Call) or not _autocast_state(node, module):
        return False, None
    qual = resolve(node.func, module)
    dtype = _autocast_argument(node, qual, "dtype")
    switch: ast.expr | None = None  # the test that picks float16 for a dtype held in a name
    if isinstance(dtype, ast.Name):
        # `dtype = torch.float16 if args.fp16 else torch.float32`, the function's one
        # assignment of the name: float16 when its test holds, a wider type otherwise
        chosen = _local_assignment(module, dtype)
        if isinstance(chosen, ast.IfExp) and resolve(chosen.body, module) in _FP16_NAMES \
                and resolve(chosen.orelse, module) in _WIDE_DTYPES:
            dtype, switch = chosen.body, chosen.test
    if dtype is not None:
        if resolve(dtype, module) not in _FP16_NAMES:
            return False, None
    elif qual != "torch.cuda.amp.autocast":
        device = _autocast_argument(node, qual, "device_type")
        if not (isinstance(device, ast.Constant) and device.value == "cuda"):
            return False, None
    enabled = _autocast_argument(node, qual, "enabled")
    if enabled is None or isinstance(enabled, ast.Constant):
        return True, switch
    return True, enabled


_IfTests = tuple[tuple[ast.expr, bool], ...]


def _scope_nodes(root: ast.AST) -> Iterator[tuple[ast.AST, _IfTests]]:
    """The nodes of ``root``'s own scope (nested functions, lambdas and classes left out),
    each with the tests of the ``if`` statements around it inside ``root``, outermost first,
    each marked True where the node is in its body and False in its ``else``."""
    stack: list[tuple[ast.AST, _IfTests]] = [(c, ()) for c in ast.iter_child_nodes(root)]
    while stack:
        node, ifs = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node, ifs
        if isinstance(node, ast.If):
            stack.append((node.test, ifs))
            stack.extend((c, (*ifs, (node.test, True))) for c in node.body)
            stack.extend((c, (*ifs, (node.test, False))) for c in node.orelse)
        else:
            stack.extend((c, ifs) for c in ast.iter_child_nodes(node))


def _assigned(root: ast.AST) -> set[str]:
    """The plain names assigned in ``root``'s own scope."""
    out: set[str] = set()
    for node, _ in _scope_nodes(root):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
            targets = [node.target]
        for t in targets:
            out |= _names(t)
    return out


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


@rule("LRD111")
def fp16_backward_without_scaling(ctx: FileContext) -> Iterator[Diagnostic]:
    src = ctx.source
    if "autocast" not in src or ".backward(" not in src or _SCALING.search(src):
        return
    module = ctx.module
    scopes: list[ast.AST] = [ctx.tree, *definitions_in(ctx.tree)[0]]
    for scope in scopes:
        own = list(_scope_nodes(scope))
        regions = []  # (with statement, names assigned under it, the switch that enables it)
        for node, ifs in own:
            if not isinstance(node, (ast.With, ast.AsyncWith)):
                continue
            if any(isinstance(i.context_expr, ast.Call)
                   and resolve(i.context_expr.func, module) in ("torch.no_grad", "torch.inference_mode")
                   for i in node.items):
                continue
            for item in node.items:
                fp16, flag = _fp16_autocast(item.context_expr, module)
                if fp16:
                    if flag is None:
                        # `if args.amp: with autocast(): ...`: the innermost `if` whose body
                        # holds the block
                        flag = next((test for test, in_body in reversed(ifs) if in_body), None)
                    regions.append((node, _assigned(node), flag))
                    break
        if not regions:
            continue
        assignments = sorted((n for n, _ in own if isinstance(n, ast.Assign)), key=lambda n: n.lineno)
        for node, ifs in own:
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "backward" and not node.args):
                continue
            loss = node.func.value
            if isinstance(loss, ast.Call):
                continue  # `scaler.scale(loss).backward()`, `self.compute().backward()`
            used = _names(loss)
            # the names the loss is made from where it was last assigned before the backward
            for stmt in assignments:
                if stmt.lineno < node.lineno \
                        and _names(stmt.targets[0]) & used and isinstance(stmt.targets[0], ast.Name):
                    used = used | _names(stmt.value)
            tested = {name for test, _ in ifs for name in _names(test)}
            for with_node, made, flag in regions:
                if with_node.lineno > node.lineno or not (used & made):
                    continue
                if flag is not None and tested & _names(flag):
                    # `if args.amp: <scaled path> else: loss.backward()`: which backward runs
                    # depends on the very flag that turns autocast on
                    continue
                when = f" when `{ast.unparse(flag)}` is on" if flag is not None else ""
                # the loss itself made in the block, or made after it from what the block's
                # forward pass returned (`with autocast(): out = model(x)` then `loss = f(out)`)
                what = "the loss is computed" if _names(loss) & made \
                    else "the loss is computed from a forward pass run"
                yield Diagnostic.at(
                    "LRD111",
                    f"{what} under float16 autocast (line {with_node.lineno}) and "
                    f"`{ast.unparse(node.func)}()` runs without a GradScaler{when}: gradients "
                    "smaller than float16's smallest subnormal (6e-8) flush to zero, so small "
                    "updates are lost silently; scale the loss (`scaler = torch.amp.GradScaler"
                    "(\"cuda\")`, `scaler.scale(loss).backward()`, `scaler.step(optimizer)`, "
                    "`scaler.update()`) or autocast to torch.bfloat16",
                    ctx.path,
                    node,
                )
                break
