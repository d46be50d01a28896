"""Metamorphic rewrites of the dev cases: does `lrdoctor check` keep its findings when code is
renamed or laid out differently, with the same meaning?

For each dev case of the manifest whose files are in the cache, the expected findings (LRD101
aside) that the build finds on the original files are the baseline. Each rewrite changes the
case's Python files with `ast` in ways that keep what the program does, the cases are laid out
as score.py lays them out (one clone directory each), the CLI checks all of them in one run, and
the script prints per rewrite how many baseline findings were kept and lost, and the codes the
rewrite *added* on any dev case (a code neither found on the original nor expected or uncertain
there is a false alarm).

    python bench/realcode/metamorphic.py --lrdoctor /tmp/lrd.sh [--show] [--only kwargs,all]

Rewrites (each applies only where its shape occurs and where meaning is kept; a rewritten file
that does not compile where the original did aborts the run):

- identity: parse and unparse (the control);
- rename_<kind>: consistent renames across all of a case's files of the local variables,
  parameters (and the keywords of calls to the case's own functions that take them) and stored
  attributes whose names `guess_kind_from_name` reads as a scheduler / optimizer / scaler /
  loader, and of the case's training functions and methods, to neutral names (`s1`, `o1`, `g1`,
  `src1`, `fn1`). Names imported from outside the case, names a library could look up (methods
  and attributes of classes with a base from outside the case other than nn.Module, strings
  given to getattr/add_argument, keys of a dict expanded with `**`) are left alone;
- enumerate / iter: `for x in L:` over a name or attribute, whose body runs a backward pass or
  a step, becomes `for _k_, x in enumerate(L):` / `for x in iter(L):`;
- helper: the body of a loop that holds a training loop (an epoch loop) moves into a
  module-level function `_loop_body_N(<the locals it reads>)`; the locals it rebinds that are
  read elsewhere come back as a tuple (at module level they are declared `global`);
- kwargs: a call, as a whole statement, of the case's own function or class with two or more
  arguments passes them through a dict: `_kwN = dict(p1=a, p2=b)` then `f(**_kwN)`;
- all: every rewrite above, one after the other.

Held-out cases are never read: this script tunes the checker, and tuning must not see them.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import os
import re
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import score  # noqa: E402  (the scorer beside this file: manifest, layout, CLI run)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
from lrdoctor.check.names import guess_kind_from_name  # noqa: E402

Sources = dict[str, str]  # case path -> Python source

BUILTINS = frozenset(dir(builtins))
# bases from outside a case whose subclasses' attributes and methods no library looks up by name
PLAIN_BASES = frozenset({"object", "Module", "ABC", "Enum", "NamedTuple", "Exception"})
NEUTRAL = {"scheduler": "s", "optimizer": "o", "scaler": "g", "loader": "src", "train_fn": "fn"}
_TRAIN_FN = re.compile(r"train|epoch|fit|step|update|iteration")
# method names too common in libraries to rename safely (`model.train()`, `trainer.fit(...)`)
RESERVED_FNS = frozenset(
    {"train", "step", "fit", "update", "forward", "backward", "run", "main", "eval", "evaluate",
     "training_step", "train_dataloader", "configure_optimizers", "optimizer_step",
     "lr_scheduler_step", "on_train_epoch_end", "on_train_epoch_start", "train_step",
     "update_lr", "zero_grad", "state_dict", "load_state_dict"}
)
TRAINING_CALLS = frozenset({"backward", "step"})


class RewriteBroke(RuntimeError):
    """A rewritten file no longer compiles although the original did."""


# ---------------------------------------------------------------------------------------------
# small AST helpers


def parse_all(sources: Sources) -> dict[str, ast.Module] | None:
    trees = {}
    for path, text in sources.items():
        if not path.endswith(".py"):
            return None  # notebooks and other files: the case is left as it is
        try:
            trees[path] = ast.parse(text)
        except SyntaxError:
            return None
    return trees


def unparse_all(trees: dict[str, ast.Module]) -> Sources:
    return {p: ast.unparse(ast.fix_missing_locations(t)) for p, t in trees.items()}


def callee_name(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def has_training_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in TRAINING_CALLS for n in ast.walk(node))


def base_name(b: ast.expr) -> str:
    if isinstance(b, ast.Name):
        return b.id
    if isinstance(b, ast.Attribute):
        return b.attr
    if isinstance(b, ast.Subscript):
        return base_name(b.value)
    return ""


# ---------------------------------------------------------------------------------------------
# renames


@dataclass
class CaseNames:
    """What a case's files bind and what a library might look up by name."""

    module_stems: set[str] = field(default_factory=set)
    imported: set[str] = field(default_factory=set)  # bound by imports from outside the case
    names: set[str] = field(default_factory=set)  # locals, parameters, module globals
    attrs: set[str] = field(default_factory=set)  # attributes stored (x.a = ...), class bodies
    functions: dict[str, list[ast.arguments]] = field(default_factory=dict)  # defs by name
    classes: dict[str, ast.ClassDef] = field(default_factory=dict)
    unsafe: set[str] = field(default_factory=set)  # names a library could reach by their text
    every_name: set[str] = field(default_factory=set)  # all identifiers, to pick fresh names


def external_classes(trees: dict[str, ast.Module], project_classes: set[str]) -> list[ast.ClassDef]:
    out = []
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = {base_name(b) for b in node.bases}
                if any(b not in project_classes and b not in PLAIN_BASES for b in bases):
                    out.append(node)
    return out


def collect_names(trees: dict[str, ast.Module]) -> CaseNames:
    cn = CaseNames()
    for path in trees:
        cn.module_stems.add(Path(path).stem)
        cn.module_stems.update(Path(path).parent.parts)
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                cn.classes[node.name] = node
    for tree in trees.values():
        expanded_names = {k.value.id for n in ast.walk(tree) if isinstance(n, ast.Call)
                          for k in n.keywords if k.arg is None and isinstance(k.value, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                cn.every_name.add(node.id)
                if isinstance(node.ctx, ast.Store):
                    cn.names.add(node.id)
            elif isinstance(node, ast.arg):
                cn.names.add(node.arg)
                cn.every_name.add(node.arg)
            elif isinstance(node, ast.Attribute):
                cn.every_name.add(node.attr)
                if isinstance(node.ctx, ast.Store):
                    cn.attrs.add(node.attr)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                inside = isinstance(node, ast.ImportFrom) and (
                    node.level > 0 or (node.module or "").split(".")[-1] in cn.module_stems)
                for alias in node.names:
                    bound = alias.asname or alias.name.split(".")[0]
                    cn.every_name.add(bound)
                    if not inside or alias.asname:
                        cn.imported.add(bound)
                    if alias.name == "*":
                        cn.unsafe.add("*")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                cn.functions.setdefault(node.name, []).append(node.args)
                cn.every_name.add(node.name)
            elif isinstance(node, ast.ClassDef):
                cn.every_name.add(node.name)
                for stmt in node.body:  # class attributes are read as attributes
                    for t in getattr(stmt, "targets", [getattr(stmt, "target", None)]):
                        if isinstance(t, ast.Name):
                            cn.attrs.add(t.id)
                            # dataclass / NamedTuple fields are also keywords of the class
                            if isinstance(stmt, ast.AnnAssign) or node.decorator_list:
                                cn.unsafe.add(t.id)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                cn.every_name.update(node.names)
            elif isinstance(node, ast.Call):
                fname = callee_name(node)
                if fname in ("getattr", "setattr", "hasattr", "delattr", "add_argument",
                             "attrgetter", "register_buffer", "get", "pop"):
                    for a in node.args:
                        if isinstance(a, ast.Constant) and isinstance(a.value, str):
                            cn.unsafe.add(a.value.lstrip("-").replace("-", "_"))
                    for k in node.keywords:
                        if k.arg == "dest" and isinstance(k.value, ast.Constant):
                            cn.unsafe.add(str(k.value.value))
                for k in node.keywords:  # f(**{"optimizer": o}) / f(**dict(optimizer=o))
                    if k.arg is None:
                        cn.unsafe.update(dict_keys(k.value))
                if fname == "locals" or fname == "vars" or fname == "globals":
                    cn.unsafe.add("*")
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id in expanded_names for t in node.targets):
                cn.unsafe.update(dict_keys(node.value))
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                # `__all__` entries, hydra targets, `getattr(self, name)` tables: text of names
                if re.fullmatch(r"[A-Za-z_]\w*", node.value) and node.value in cn.functions:
                    cn.unsafe.add(node.value)
    project_classes = set(cn.classes)
    for cls in external_classes(trees, project_classes):
        for node in ast.walk(cls):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                cn.unsafe.add(node.name)
                for param in node.args.args + node.args.kwonlyargs + node.args.posonlyargs:
                    cn.unsafe.add(param.arg)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                cn.unsafe.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                cn.unsafe.add(node.id)
    return cn


def dict_keys(value: ast.expr) -> set[str]:
    if isinstance(value, ast.Dict):
        return {k.value for k in value.keys
                if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    if isinstance(value, ast.Call) and callee_name(value) == "dict":
        return {k.arg for k in value.keywords if k.arg}
    return set()


def plan_renames(cn: CaseNames, kinds: set[str]) -> dict[str, str]:
    """old name -> neutral name, for the names of the chosen kinds that are safe to rename."""
    if "*" in cn.unsafe:
        return {}
    plan: dict[str, str] = {}
    counters: dict[str, int] = {}
    taken = set(cn.every_name) | BUILTINS

    def fresh(kind: str) -> str:
        while True:
            counters[kind] = counters.get(kind, 0) + 1
            name = f"{NEUTRAL[kind]}{counters[kind]}"
            if name not in taken:
                taken.add(name)
                return name

    candidates = sorted((cn.names | cn.attrs) - cn.imported - cn.unsafe - BUILTINS
                        - {"self", "cls"} - set(cn.functions) - set(cn.classes))
    for name in candidates:
        kind = guess_kind_from_name(name)
        if kind in kinds and not name.startswith("__"):
            plan[name] = fresh(kind)
    if "train_fn" in kinds:
        for name in sorted(cn.functions):
            if (_TRAIN_FN.search(name.lower()) and name not in RESERVED_FNS
                    and not name.startswith("__") and name not in cn.unsafe
                    and name not in cn.imported and name not in cn.names - {name}):
                plan[name] = fresh("train_fn")
    return plan


class Renamer(ast.NodeTransformer):
    def __init__(self, plan: dict[str, str], cn: CaseNames, param_owners: set[str]):
        self.plan = plan
        self.cn = cn
        self.param_owners = param_owners  # callees whose parameters are renamed by keyword

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.plan.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.plan.get(node.arg, node.arg)
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node: ast.Attribute) -> ast.Attribute:
        self.generic_visit(node)
        if node.attr in self.plan and node.attr in (self.cn.attrs | set(self.cn.functions)):
            node.attr = self.plan[node.attr]
        return node

    def visit_Call(self, node: ast.Call) -> ast.Call:
        owner = callee_name(node)
        self.generic_visit(node)
        if owner in self.param_owners or self.plan.get(owner, "") in self.param_owners:
            for k in node.keywords:
                if k.arg in self.plan:
                    k.arg = self.plan[k.arg]
        return node

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.AST:
        node.name = self.plan.get(node.name, node.name)
        self.generic_visit(node)
        return node

    visit_FunctionDef = _def
    visit_AsyncFunctionDef = _def

    def visit_Global(self, node: ast.Global) -> ast.Global:
        node.names = [self.plan.get(n, n) for n in node.names]
        return node

    def visit_Nonlocal(self, node: ast.Nonlocal) -> ast.Nonlocal:
        node.names = [self.plan.get(n, n) for n in node.names]
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.ImportFrom:
        for alias in node.names:  # a name imported from another of the case's files
            if alias.asname is None:
                alias.name = self.plan.get(alias.name, alias.name)
        return node


def rename(kinds: set[str]) -> Callable[[dict[str, ast.Module]], bool]:
    def apply(trees: dict[str, ast.Module]) -> bool:
        cn = collect_names(trees)
        plan = plan_renames(cn, kinds)
        if not plan:
            return False
        # keywords are renamed in calls of the case's own functions and classes that take them
        owners = {name for name, sigs in cn.functions.items()
                  if any(a.arg in plan for s in sigs for a in s.args + s.kwonlyargs)}
        owners |= {name for name, cls in cn.classes.items() for stmt in cls.body
                   if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__"
                   and any(a.arg in plan for a in stmt.args.args + stmt.args.kwonlyargs)}
        # a keyword with that name given to a library call stays: its owner must be the case's
        for tree in trees.values():
            Renamer(plan, cn, owners).visit(tree)
        return True
    return apply


# ---------------------------------------------------------------------------------------------
# enumerate / iter


def trains_itself(loop: ast.For) -> bool:
    """The loop's own body (not a loop nested in it) runs a backward pass or a step."""
    def walk(node: ast.AST) -> Iterator[ast.AST]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef,
                                  ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            yield child
            yield from walk(child)
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in TRAINING_CALLS for s in loop.body for n in [s, *walk(s)])


def wrap_loops(how: str) -> Callable[[dict[str, ast.Module]], bool]:
    def apply(trees: dict[str, ast.Module]) -> bool:
        changed = False
        for tree in trees.values():
            if any(isinstance(n, ast.Name) and n.id in (how, "_k_") and
                   not isinstance(n.ctx, ast.Load) for n in ast.walk(tree)):
                continue  # the builtin is rebound, or the index name is taken
            for loop in ast.walk(tree):
                if not isinstance(loop, ast.For):
                    continue
                it = loop.iter
                if isinstance(it, ast.Call) and callee_name(it) in ("range", how):
                    continue
                if trains_itself(loop):
                    node = loop
                    it = node.iter
                    fn = ast.Name(id=how, ctx=ast.Load())
                    node.iter = ast.Call(func=fn, args=[it], keywords=[])
                    if how == "enumerate":
                        node.target = ast.Tuple(elts=[ast.Name(id="_k_", ctx=ast.Store()),
                                                      node.target], ctx=ast.Store())
                    changed = True
        return changed
    return apply


# ---------------------------------------------------------------------------------------------
# the body of an epoch loop moved into a helper function


def stores_and_loads(stmts: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """Names bound in the scope of `stmts` (not in nested functions or comprehensions), and
    names read anywhere in them (nested scopes included: a lambda reads the enclosing local)."""
    stores: set[str] = set()
    loads: set[str] = set()

    def visit(node: ast.AST, own_scope: bool) -> None:
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loads.add(node.id)
            elif own_scope:
                stores.add(node.id)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if own_scope:
                stores.add(node.name)
            for d in getattr(node, "decorator_list", []):
                visit(d, own_scope)
            for child in node.body:
                visit(child, False)
            return
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp)):
            for sub in ast.iter_child_nodes(node):
                visit(sub, False)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)) and own_scope:
            stores.update(a.asname or a.name.split(".")[0] for a in node.names)
        if isinstance(node, ast.ExceptHandler) and node.name and own_scope:
            stores.add(node.name)
        for sub in ast.iter_child_nodes(node):
            visit(sub, own_scope)

    for s in stmts:
        visit(s, True)
    return stores, loads


def unconditional_stores(stmts: list[ast.stmt]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and (
                not isinstance(s, ast.AnnAssign) or s.value is not None):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                out.update(n.id for n in ast.walk(t)
                           if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            out.update(a.asname or a.name.split(".")[0] for a in s.names)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(s.name)
        elif isinstance(s, ast.With):
            for item in s.items:
                if item.optional_vars is not None:
                    out.update(n.id for n in ast.walk(item.optional_vars)
                               if isinstance(n, ast.Name))
            out |= unconditional_stores(s.body)
    return out


def blocks_to(root: list[ast.stmt], target: ast.stmt) -> list[tuple[list[ast.stmt], ast.stmt]]:
    """The (block, statement in it) pairs from `root` down to `target`."""
    for s in root:
        if s is target:
            return [(root, s)]
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        for name in ("body", "orelse", "finalbody"):
            inner = getattr(s, name, None)
            if isinstance(inner, list):
                path = blocks_to(inner, target)
                if path:
                    return [(root, s), *path]
        for h in getattr(s, "handlers", []):
            path = blocks_to(h.body, target)
            if path:
                return [(root, s), *path]
    return []


def bound_before(path: list[tuple[list[ast.stmt], ast.stmt]]) -> set[str]:
    out: set[str] = set()
    for block, stmt in path:
        out |= unconditional_stores(block[:block.index(stmt)])
        if isinstance(stmt, (ast.For, ast.AsyncFor)) and stmt is not path[-1][1]:
            out.update(n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name))
        if isinstance(stmt, ast.With):
            for item in stmt.items:
                if item.optional_vars is not None:
                    out.update(n.id for n in ast.walk(item.optional_vars)
                               if isinstance(n, ast.Name))
    return out


FORBIDDEN = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom, ast.Await,
             ast.Global, ast.Nonlocal, ast.Delete, ast.NamedExpr)


def movable(body: list[ast.stmt]) -> bool:
    def visit(node: ast.AST, nested: bool) -> bool:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            nested = True
        if not nested and isinstance(node, FORBIDDEN):
            return False
        if isinstance(node, (ast.Break, ast.Continue)):
            return True  # inside an inner loop (checked by the loop walk below)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("super", "locals", "vars", "exec", "eval"):
            return False
        if isinstance(node, ast.Attribute) and node.attr.startswith("__") and \
                not node.attr.endswith("__"):
            return False  # name mangling differs outside the class
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            return all(visit(c, nested) for c in ast.iter_child_nodes(node))
        return all(visit(c, nested) for c in ast.iter_child_nodes(node))

    # break/continue belong to the moved loop only when they are not inside an inner loop
    def loose_jump(stmts: list[ast.stmt]) -> bool:
        for s in stmts:
            if isinstance(s, (ast.Break, ast.Continue)):
                return True
            if isinstance(s, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef,
                              ast.AsyncFunctionDef, ast.ClassDef)):
                if loose_jump(getattr(s, "orelse", [])):
                    return True
                continue
            for name in ("body", "orelse", "finalbody"):
                if loose_jump(getattr(s, name, []) or []):
                    return True
            for h in getattr(s, "handlers", []):
                if loose_jump(h.body):
                    return True
            if isinstance(s, ast.Match):
                if any(loose_jump(c.body) for c in s.cases):
                    return True
        return False

    return not loose_jump(body) and all(visit(s, False) for s in body)


def epoch_loops(scope_body: list[ast.stmt]) -> Iterator[ast.For | ast.While]:
    """Loops in this scope (not nested functions) whose body holds a training loop."""
    def walk(stmts: list[ast.stmt]) -> Iterator[ast.For | ast.While]:
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(s, (ast.For, ast.While)):
                inner = [n for b in s.body for n in ast.walk(b)
                         if isinstance(n, (ast.For, ast.While)) and has_training_call(n)]
                if inner:
                    yield s
                    continue
            for name in ("body", "orelse", "finalbody"):
                yield from walk(getattr(s, name, []) or [])
            for h in getattr(s, "handlers", []):
                yield from walk(h.body)
    yield from walk(scope_body)


def move_loop_bodies(trees: dict[str, ast.Module]) -> bool:
    changed = False
    for tree in trees.values():
        counter = [0]
        taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        new_defs: list[ast.stmt] = []
        scopes: list[tuple[ast.AST, list[ast.stmt]]] = [(tree, tree.body)]
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                scopes.append((node, node.body))
            elif isinstance(node, ast.ClassDef):
                scopes += [(m, m.body) for m in node.body if isinstance(m, ast.FunctionDef)]
        for owner, body in scopes:
            if isinstance(owner, ast.AsyncFunctionDef):
                continue
            for loop in list(epoch_loops(body)):
                helper = move_one(owner, body, loop, counter, taken)
                if helper is not None:
                    new_defs.append(helper)
                    changed = True
        # the helpers go before the first statement that is not an import or a docstring
        at = 0
        while at < len(tree.body):
            first = tree.body[at]
            if not (isinstance(first, (ast.Import, ast.ImportFrom)) or (
                    isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant))):
                break
            at += 1
        tree.body[at:at] = new_defs
    return changed


def move_one(owner: ast.AST, body: list[ast.stmt], loop: ast.For | ast.While,
             counter: list[int], taken: set[str]) -> ast.FunctionDef | None:
    if not movable(loop.body):
        return None
    path = blocks_to(body, loop)
    if not path:
        return None
    counter[0] += 1
    name = f"_loop_body_{counter[0]}"
    while name in taken:
        counter[0] += 1
        name = f"_loop_body_{counter[0]}"
    taken.add(name)
    body_stores, body_loads = stores_and_loads(loop.body)
    if isinstance(owner, ast.Module):
        # at module level the names are globals: the helper declares the ones it binds
        fn_body: list[ast.stmt] = []
        if body_stores:
            fn_body.append(ast.Global(names=sorted(body_stores)))
        fn_body += loop.body
        helper = ast.FunctionDef(name=name, args=ast.arguments(
            posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=[]), body=fn_body, decorator_list=[], returns=None)
        loop.body = [ast.Expr(ast.Call(ast.Name(name, ast.Load()), [], []))]
        return helper
    assert isinstance(owner, ast.FunctionDef)
    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(owner)):
        return None
    a = owner.args
    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    fn_stores, _ = stores_and_loads(owner.body)
    local = fn_stores | params
    before = bound_before(path) | params
    if isinstance(loop, ast.For):
        before |= {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    first_stores = unconditional_stores(loop.body)
    # reads elsewhere in the function: the loop's header and everything outside the loop
    inside = {id(n) for s in loop.body for n in ast.walk(s)}
    outside_loads = {n.id for n in ast.walk(owner) if isinstance(n, ast.Name)
                     and isinstance(n.ctx, ast.Load) and id(n) not in inside}
    reads = (body_loads & local)
    # a local the body reads must be bound before the loop (it is passed) or by the body itself
    # (a name of the body's own; a value carried from one pass to the next in a name bound
    # nowhere before the loop is not looked for)
    if not reads <= before | body_stores:
        return None
    passed = sorted(reads & before)
    back = sorted(body_stores & (outside_loads | set(passed)))
    if not set(back) <= set(passed) | first_stores:
        return None
    args = [ast.arg(arg=p) for p in passed]
    fn_body = list(loop.body)
    if back:
        fn_body.append(ast.Return(ast.Tuple([ast.Name(b, ast.Load()) for b in back], ast.Load())))
    helper = ast.FunctionDef(name=name, args=ast.arguments(
        posonlyargs=[], args=args, vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=[]), body=fn_body, decorator_list=[], returns=None)
    call = ast.Call(ast.Name(name, ast.Load()), [ast.Name(p, ast.Load()) for p in passed], [])
    if back:
        stmt: ast.stmt = ast.Assign(
            targets=[ast.Tuple([ast.Name(b, ast.Store()) for b in back], ast.Store())],
            value=call)
    else:
        stmt = ast.Expr(call)
    loop.body = [stmt]
    return helper


# ---------------------------------------------------------------------------------------------
# objects passed through a dict and **


def pass_through_dicts(trees: dict[str, ast.Module]) -> bool:
    functions: dict[str, list[ast.FunctionDef]] = {}
    classes: dict[str, list[ast.ClassDef]] = {}
    for tree in trees.values():
        for top in tree.body:
            if isinstance(top, ast.FunctionDef):
                functions.setdefault(top.name, []).append(top)
            elif isinstance(top, ast.ClassDef):
                classes.setdefault(top.name, []).append(top)
    imported_outside: set[str] = set()
    stems = {Path(p).stem for p in trees}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not (
                    node.level or (node.module or "").split(".")[-1] in stems):
                imported_outside.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.Import):
                imported_outside.update(a.asname or a.name.split(".")[0] for a in node.names)

    def params_of(name: str) -> list[str] | None:
        if name in imported_outside:
            return None
        defs: list[ast.FunctionDef] = list(functions.get(name, []))
        drop = 0
        if name in classes:
            if len(classes[name]) != 1 or defs:
                return None
            inits = [s for s in classes[name][0].body
                     if isinstance(s, ast.FunctionDef) and s.name == "__init__"]
            if len(inits) != 1 or classes[name][0].decorator_list:
                return None
            defs, drop = inits, 1
        if len(defs) != 1 or defs[0].decorator_list:
            return None
        a = defs[0].args
        if a.posonlyargs or a.vararg:
            return None
        return [x.arg for x in a.args[drop:]]

    changed = False
    for tree in trees.values():
        taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        if any(isinstance(n, ast.Name) and n.id == "dict" and not isinstance(n.ctx, ast.Load)
               for n in ast.walk(tree)):
            continue  # `dict` rebound: the builtin is not what the rewrite would call
        counter = 0
        for node in ast.walk(tree):
            for field_name in ("body", "orelse", "finalbody"):
                block = getattr(node, field_name, None)
                if not isinstance(block, list):
                    continue
                i = 0
                while i < len(block):
                    s = block[i]
                    call = None
                    if isinstance(s, (ast.Expr, ast.Assign, ast.Return)) and \
                            isinstance(s.value, ast.Call):
                        call = s.value
                    if call is None or not isinstance(call.func, ast.Name) or any(
                            isinstance(x, ast.Starred) for x in call.args) or any(
                            k.arg is None for k in call.keywords):
                        i += 1
                        continue
                    params = params_of(call.func.id)
                    n_args = len(call.args) + len(call.keywords)
                    if params is None or n_args < 2 or len(call.args) > len(params) or any(
                            k.arg in params[:len(call.args)] for k in call.keywords):
                        i += 1
                        continue
                    counter += 1
                    var = f"_kw{counter}"
                    while var in taken:
                        counter += 1
                        var = f"_kw{counter}"
                    taken.add(var)
                    kws = [ast.keyword(arg=p, value=v) for p, v in zip(params, call.args)]
                    kws += call.keywords
                    block.insert(i, ast.Assign(targets=[ast.Name(var, ast.Store())],
                                               value=ast.Call(ast.Name("dict", ast.Load()),
                                                              [], kws)))
                    call.args = []
                    call.keywords = [ast.keyword(arg=None, value=ast.Name(var, ast.Load()))]
                    changed = True
                    i += 2
    return changed


# ---------------------------------------------------------------------------------------------
# the harness


def identity(trees: dict[str, ast.Module]) -> bool:
    return True


STEPS: dict[str, Callable[[dict[str, ast.Module]], bool]] = {
    "identity": identity,
    "rename_scheduler": rename({"scheduler"}),
    "rename_optimizer": rename({"optimizer"}),
    "rename_scaler": rename({"scaler"}),
    "rename_loader": rename({"loader"}),
    "rename_train_fn": rename({"train_fn"}),
    "enumerate": wrap_loops("enumerate"),
    "iter": wrap_loops("iter"),
    "helper": move_loop_bodies,
    "kwargs": pass_through_dicts,
}
ALL_AT_ONCE = ["rename_scheduler", "rename_optimizer", "rename_scaler", "rename_loader",
               "rename_train_fn", "enumerate", "helper", "kwargs"]
REWRITES = [*STEPS, "all"]


def compiles(text: str, path: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec")
    except (SyntaxError, ValueError):
        return False
    return True


def rewrite_case(sources: Sources, rewrite: str) -> Sources | None:
    """The case's files rewritten (None when the rewrite's shape does not occur in them)."""
    trees = parse_all(sources)
    if trees is None:
        return None
    steps = ALL_AT_ONCE if rewrite == "all" else [rewrite]
    compiled = {p for p, text in sources.items() if compiles(text, p)}
    applied = False
    for step in steps:
        if STEPS[step](trees):
            applied = True
            for path in compiled:
                text = ast.unparse(ast.fix_missing_locations(trees[path]))
                if not compiles(text, path):
                    raise RewriteBroke(f"{step} broke {path}")
    return unparse_all(trees) if applied else None


def findings_by_case(cases: list[score.Case], cache: Path, lrdoctor: list[str],
                     rewrite: str | None, write: Path | None = None
                     ) -> tuple[dict[str, set[str]], int]:
    """(codes found per case id, cases the rewrite changed) of one CLI run."""
    applied = 0
    with tempfile.TemporaryDirectory(prefix="metamorphic-") as tmp:
        dirs = [f"case{i:03d}" for i in range(len(cases))]
        for case, name in zip(cases, dirs):
            root = Path(tmp, name)
            score.lay_out(case, cache, root)
            if rewrite is None:
                continue
            sources = {p: (root / p).read_text(encoding="utf-8", errors="replace")
                       for p in case.paths}
            try:
                new = rewrite_case(sources, rewrite)
            except RewriteBroke as exc:
                raise SystemExit(f"metamorphic.py: {case.id}: {exc}") from None
            if new is not None:
                applied += 1
                for p, text in new.items():
                    (root / p).write_text(text + "\n", encoding="utf-8")
                    if write is not None:
                        dest = write / rewrite / case.id / p
                        dest.parent.mkdir(parents=True, exist_ok=True)
                        dest.write_text(text + "\n", encoding="utf-8")
        raw, error = score.run_lrdoctor(lrdoctor, tmp, dirs, timeout=1200)
    if error:
        raise SystemExit(f"metamorphic.py: lrdoctor failed: {error}")
    found: dict[str, set[str]] = {c.id: set() for c in cases}
    by_dir = dict(zip(dirs, cases))
    for f in raw:
        name = os.path.normpath(f["path"]).split(os.sep)[0]
        code = f["code"]
        if name in by_dir and score.CODE_RE.match(code) and code != score.TRIVIAL:
            found[by_dir[name].id].add(code)
    return found, applied


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="dev", help="dev only (held-out cases are never read)")
    ap.add_argument("--cache", type=Path, default=score.DEFAULT_CACHE)
    ap.add_argument("--manifest", type=Path, default=score.MANIFEST)
    ap.add_argument("--lrdoctor", help="the lrdoctor executable (default as score.py)")
    ap.add_argument("--only", help="comma-separated rewrites (default: all of "
                    + ", ".join(REWRITES) + ")")
    ap.add_argument("--show", action="store_true", help="list which case lost or added what")
    ap.add_argument("--write", type=Path, metavar="DIR",
                    help="also write each rewritten case under DIR/<rewrite>/<case id>/ to read")
    args = ap.parse_args(argv)
    if args.split != "dev":
        print("metamorphic.py: only the dev split: held-out cases must not be used for tuning",
              file=sys.stderr)
        return 2
    chosen = REWRITES if not args.only else args.only.split(",")
    unknown = [r for r in chosen if r not in REWRITES]
    if unknown:
        print(f"metamorphic.py: unknown rewrite(s) {unknown}; known: {REWRITES}", file=sys.stderr)
        return 2
    cases = [c for c in score.load_manifest(args.manifest)
             if score.split_for(c.id) == "dev" and c.split == "dev"
             and not score.missing_files(c, args.cache)]
    lrdoctor = [args.lrdoctor] if args.lrdoctor else score.default_lrdoctor()
    start = time.perf_counter()
    original, _ = findings_by_case(cases, args.cache, lrdoctor, None)
    baseline = {c.id: {e.code for e in c.expected if e.code != score.TRIVIAL} & original[c.id]
                for c in cases}
    total = sum(len(v) for v in baseline.values())
    print(f"lrdoctor: {' '.join(lrdoctor)}")
    print(f"{len(cases)} dev cases, {total} expected findings (LRD101 aside) found on the "
          f"originals ({time.perf_counter() - start:.0f}s)")
    print(f"{'rewrite':<18} {'cases':>5}  {'kept':>5} / {'lost':<4}  added (false alarms)")
    details: list[str] = []
    for rewrite in chosen:
        t0 = time.perf_counter()
        found, applied = findings_by_case(cases, args.cache, lrdoctor, rewrite, args.write)
        kept = lost = added = alarms = 0
        for c in cases:
            k = baseline[c.id] & found[c.id]
            gone = baseline[c.id] - found[c.id]
            new = found[c.id] - original[c.id]
            ok = {e.code for e in c.expected} | set(c.uncertain)
            kept += len(k)
            lost += len(gone)
            added += len(new)
            alarms += len(new - ok)
            if gone:
                details.append(f"{rewrite}: {c.id} lost {', '.join(sorted(gone))}")
            if new:
                tags = [code + ("" if code in ok else " (false alarm)") for code in sorted(new)]
                details.append(f"{rewrite}: {c.id} added {', '.join(tags)}")
        print(f"{rewrite:<18} {applied:>5}  {kept:>5} / {lost:<4}  +{added} ({alarms})"
              f"  [{time.perf_counter() - t0:.0f}s]", flush=True)
    if args.show and details:
        print()
        print("\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
