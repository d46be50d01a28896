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
        [--only class,module,factory,config_dict,config_attr,while,all_structure]
        [--only inherit,registry,registry_getattr,attr_tuple,callback,callback_opt,package,
         all_structure2]

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
- all: every rewrite above, one after the other;

structural rewrites (meta6: does the model hold when the code is laid out as real projects lay
it out?):

- class: a module-level function that runs a backward pass or a step (undecorated, no
  yield/await/global, no name mangling, no parameter named `self`/`run`) becomes `class
  _TrainerN` whose `__init__` (the function's own signature) stores every parameter on `self`,
  and whose `run()` is the body with those parameters and the locals that hold an optimizer,
  scheduler, scaler, loader (by name or by constructor) or model read as `self.<name>`; calls
  in the file become `_TrainerN(...).run()`, and a function of the old name that does the same
  stays where anything else uses the name (another file, a callback, a string);
- module: the file's module-level training functions (or, where it has none that can move,
  the `_loop_body_N` functions of the helper rewrite) move into `_train_mod.py` beside it, with
  the top-level functions, classes and call-free constants they need and the imports they
  read; the file imports them back (`from _train_mod import ...`; relative in a package module
  another file imports); a function reading a module-level name bound any other way, a
  `global`, `__file__`/`__name__`, or a star import stays;
- factory: `x = <scheduler/optimizer/GradScaler constructor>(...)` (classify_constructor's
  classes, the callee a module-level import) becomes `x = _build_<kind>_N(...)`, a module-level
  function with one parameter per argument returning the construction; an optimizer built right
  before a scheduler on it becomes `opt, sched = _build_N(<the names they read>)`;
- config_dict / config_attr: literal arguments of those constructors (the optimizer/params
  argument aside), argparse attributes with a literal default (`args.lr`; dests the case writes,
  sets defaults for or rewrites through vars/setattr/__dict__ excluded) given to them, and the
  bounds of `range` in loops that train and of `while` tests, move into a module-level `_CFG`:
  a dict read `_CFG["k"]`, or a `@dataclass` instance (a `SimpleNamespace` when a value is a
  list) read `_CFG.k`. (An argparse default stands for the run without flags.);
- while: `for i in range(a, b[, step]):` whose body trains becomes `i = a` / `while i < b:
  ...; i += step` (a bound the body could change goes into `_endN` first); skipped when the
  body rebinds `i` or continues, or `i` is read outside the loop (a `for` leaves `b - 1`);
- all_structure: config_attr, factory, while, class, module one after the other;

structural rewrites, second round (meta7):

- inherit: the `class` rewrite's `_TrainerN` split in two: `_BaseTrainerN` owns `run()` with
  the epoch loop, which calls `self.train_epoch(...)` (virtual dispatch; the epoch loop's body
  moved as the `helper` rewrite moves it, its rebound locals returned), and `_TrainerN
  (_BaseTrainerN)` owns `train_epoch` and, in its `__init__`, the set-up before the epoch loop
  (the locals it binds that the rest reads become attributes), building the objects it stores
  once (optimizer, scheduler, scaler, model) as locals handed to `super().__init__(...)`, which
  stores them; skipped where the set-up returns or the loop's body cannot move;
- registry: a scheduler / optimizer construction whose class is a module-level import, class or
  function goes through a module-level dict `_SCHEDS_N = {"steplr": StepLR}` (after the leading
  imports, or after the import that binds it), `_SCHEDS_N["steplr"](opt, ...)`;
  registry_getattr: an attribute callee instead as `getattr(lr_scheduler, "StepLR")(opt, ...)`;
- attr_tuple: factory, then class where `opt, sched = _build_N(...)` stays a tuple stored on
  attributes: `self.opt, self.sched = _build_N(...)`;
- callback: `sched.step(...)` as a whole statement becomes `for _cb_N in _cbs_N:
  _cb_N.on_batch_end(...)` (`on_epoch_end` at loop depth one) with `_cbs_N = [_CallbackN(sched)]`
  built right before the outermost loop around the step (or right before it) and `_CallbackN`
  stepping `self.target`; only where the receiver is a name bound unconditionally before that
  loop and not rebound in it, or an attribute of `self` stored only in `__init__` methods, and
  not inside a class of the case's own that defines `step` / `get_lr` (a scheduler wrapper);
  callback_opt: the same for `optimizer.step()` and `scaler.update()`;
- package: `module`, where a moved training function or class lands in `_train_pkg/core.py`
  (relative imports one level deeper) re-exported by `_train_pkg/__init__.py`
  (`from .core import ...`), the file importing `from _train_pkg import ...`;
- all_structure2: config_attr, factory, registry, while, callback, callback_opt, class (tuples
  on attributes), inherit, package one after the other.

structural rewrites, meta10 (the loop over batches spelled another way):

- next_loop: `for T in E:` whose own body trains (E not a `range`; no `else`) becomes
  `_itN = iter(E)` / `while True: try: T = next(_itN) except StopIteration: break` / body;
- generator_loop: the same loops go over `_batchesN(E)`, a module-level generator function
  `for item in items: yield item`.

Held-out cases are never read: this script tunes the checker, and tuning must not see them.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import copy
import keyword
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
from lrdoctor.check.names import classify_constructor, guess_kind_from_name  # noqa: E402

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
# structure: classes, modules, factories, config objects, while loops (meta6)


def insert_at(tree: ast.Module) -> int:
    """Where new module-level statements go: after the docstring and the leading imports."""
    at = 0
    while at < len(tree.body):
        first = tree.body[at]
        if not (isinstance(first, (ast.Import, ast.ImportFrom)) or (
                isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant))):
            break
        at += 1
    return at


def fresh_name(base: str, taken: set[str]) -> str:
    n = 1
    while f"{base}{n}" in taken:
        n += 1
    taken.add(f"{base}{n}")
    return f"{base}{n}"


def all_identifiers(trees: dict[str, ast.Module]) -> set[str]:
    out: set[str] = set()
    for tree in trees.values():
        for n in ast.walk(tree):
            if isinstance(n, ast.Name):
                out.add(n.id)
            elif isinstance(n, ast.Attribute):
                out.add(n.attr)
            elif isinstance(n, ast.arg):
                out.add(n.arg)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                out.update((a.asname or a.name).split(".")[0] for a in n.names)
            elif isinstance(n, ast.Constant) and isinstance(n.value, str):
                out.add(n.value)
    return out


def free_names(nodes: list[ast.AST]) -> set[str] | None:
    """Names the code reads from outside it (globals or enclosing locals); None when it does not
    compile on its own (it yields, awaits, returns outside a function...)."""
    import symtable
    body = "\n".join(ast.unparse(n) for n in nodes)
    src = "def _free_():\n" + "\n".join("    " + line for line in body.splitlines() or ["pass"])
    try:
        table = symtable.symtable(src, "<free>", "exec")
    except SyntaxError:
        return None
    out: set[str] = set()

    def visit(t: symtable.SymbolTable) -> None:
        for s in t.get_symbols():
            if s.is_global() or (s.is_free() and t.get_name() == "_free_"):
                out.add(s.get_name())
        for c in t.get_children():
            visit(c)

    visit(table)
    out.discard("_free_")
    return out


def own_scope_nodes(fn: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's own scope (not of nested functions, classes, lambdas or
    comprehensions)."""
    def walk(node: ast.AST) -> Iterator[ast.AST]:
        for child in ast.iter_child_nodes(node):
            yield child
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
                                  ast.GeneratorExp)):
                continue
            yield from walk(child)
    yield from walk(fn)


def module_bindings(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    """Module-level name -> the top-level statements that bind it (anywhere in them)."""
    out: dict[str, list[ast.stmt]] = {}
    for stmt in tree.body:
        names: set[str] = set()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        else:
            for n in own_scope_nodes(ast.Module(body=[stmt], type_ignores=[])):
                if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
                    names.add(n.id)
                elif isinstance(n, (ast.Import, ast.ImportFrom)):
                    names.update((a.asname or a.name).split(".")[0] for a in n.names)
                elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(n.name)
                elif isinstance(n, ast.ExceptHandler) and n.name:
                    names.add(n.name)
        for name in names:
            out.setdefault(name, []).append(stmt)
    return out


def declared_global(trees: dict[str, ast.Module]) -> set[str]:
    return {g for t in trees.values() for n in ast.walk(t)
            if isinstance(n, (ast.Global, ast.Nonlocal)) for g in n.names}


def dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def constructed_kind(call: ast.expr) -> str:
    """'scheduler' / 'optimizer' / 'scaler' for a call that builds one (by its callee)."""
    if not isinstance(call, ast.Call):
        return ""
    name = dotted(call.func)
    if not name:
        return ""
    got = classify_constructor(name)
    return got[0] if got and got[0] in ("scheduler", "optimizer", "scaler") else ""


# -- class: a module-level training function becomes a method of a class ----------------------

OBJECT_KINDS = frozenset({"scheduler", "optimizer", "scaler", "loader"})
_MODEL_NAME = re.compile(r"(^|_)(model|net|network)s?($|_)")


def _binds_in_nested(fn: ast.FunctionDef, name: str) -> bool:
    """`name` is bound in a scope nested in fn (a parameter, target or def there)."""
    own = {id(n) for n in own_scope_nodes(fn)}
    for n in ast.walk(fn):
        if id(n) in own or n is fn:
            continue
        if isinstance(n, ast.arg) and n.arg == name:
            return True
        if isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load):
            return True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                n.name == name:
            return True
    return False


def _own_bad_binds(fn: ast.FunctionDef) -> set[str]:
    """Names fn's own scope binds in ways an attribute cannot be (import, def, except-as,
    walrus, match capture)."""
    bad: set[str] = set()
    for n in own_scope_nodes(fn):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            bad.update((a.asname or a.name).split(".")[0] for a in n.names)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bad.add(n.name)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bad.add(n.name)
        elif isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name):
            bad.add(n.target.id)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            bad.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            bad.add(n.rest)
    return bad


class _ToSelf(ast.NodeTransformer):
    def __init__(self, names: set[str]):
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.names:
            return ast.copy_location(ast.Attribute(ast.Name("self", ast.Load()), node.id,
                                                   node.ctx), node)
        return node


def _mangled(node: ast.AST) -> bool:
    for n in ast.walk(node):
        ident = (n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute)
                 else n.arg if isinstance(n, ast.arg) else "")
        if ident.startswith("__") and not ident.endswith("__"):
            return True
    return False


def to_classes(trees: dict[str, ast.Module], tuple_attrs: bool = False) -> bool:
    changed = False
    taken = all_identifiers(trees)
    globals_ = declared_global(trees)
    for path, tree in trees.items():
        for fn in list(tree.body):
            if not isinstance(fn, ast.FunctionDef) or fn.decorator_list:
                continue
            if not has_training_call(fn) or _mangled(fn):
                continue
            if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Global,
                                  ast.Nonlocal)) for n in ast.walk(fn)):
                continue
            a = fn.args
            params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
            params += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
            if {"self", "run"} & set(params) or "self" in {
                    n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}:
                continue
            bad = _own_bad_binds(fn)
            if set(params) & bad or any(_binds_in_nested(fn, p) for p in params):
                continue
            kept = set(params)
            for n in own_scope_nodes(fn):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        for x in ast.walk(t):
                            if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store):
                                kind = guess_kind_from_name(x.id)
                                if kind in OBJECT_KINDS or _MODEL_NAME.search(x.id) or (
                                        t is x and constructed_kind(n.value)) or (
                                        tuple_attrs and isinstance(t, ast.Tuple)
                                        and isinstance(n.value, ast.Call)
                                        and isinstance(n.value.func, ast.Name)
                                        and n.value.func.id.startswith("_build_")):
                                    kept.add(x.id)
            kept = {k for k in kept if k in params or (
                k not in bad and k not in globals_ and not _binds_in_nested(fn, k))}
            cls_name = fresh_name("_Trainer", taken)
            self_arg = ast.arg(arg="self")
            init_args = copy.deepcopy(fn.args)
            if init_args.posonlyargs:
                init_args.posonlyargs.insert(0, self_arg)
            else:
                init_args.args.insert(0, self_arg)
            init_body: list[ast.stmt] = [
                ast.Assign([ast.Attribute(ast.Name("self", ast.Load()), p, ast.Store())],
                           ast.Name(p, ast.Load())) for p in params] or [ast.Pass()]
            init = ast.FunctionDef("__init__", init_args, init_body, [], None)
            run_body = [_ToSelf(kept).visit(s) for s in fn.body]
            run_args = ast.arguments(posonlyargs=[], args=[ast.arg(arg="self")], vararg=None,
                                     kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
            run = ast.FunctionDef("run", run_args, run_body, [], fn.returns)
            cls = ast.ClassDef(cls_name, [], [], [init, run], [])
            # direct calls in this file become `_TrainerN(...).run()`; any other use keeps a
            # module-level function of the old name that does the same
            other_use = any(fn.name in all_identifiers({p: t}) for p, t in trees.items()
                            if p != path)
            for n in ast.walk(tree):
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                        n.func.id == fn.name:
                    n.func = ast.Attribute(ast.Call(ast.Name(cls_name, ast.Load()), n.args,
                                                    n.keywords), "run", ast.Load())
                    n.args, n.keywords = [], []
            other_use = other_use or any(
                isinstance(n, ast.Name) and n.id == fn.name for n in ast.walk(tree)) or any(
                isinstance(n, ast.Constant) and n.value == fn.name for n in ast.walk(tree))
            new: list[ast.stmt] = [cls]
            if other_use:
                shim_args = ast.arguments(posonlyargs=[], args=[], vararg=ast.arg("args"),
                                          kwonlyargs=[], kw_defaults=[],
                                          kwarg=ast.arg("kwargs"), defaults=[])
                call = ast.Call(ast.Attribute(ast.Call(
                    ast.Name(cls_name, ast.Load()),
                    [ast.Starred(ast.Name("args", ast.Load()), ast.Load())],
                    [ast.keyword(None, ast.Name("kwargs", ast.Load()))]), "run", ast.Load()),
                    [], [])
                new.append(ast.FunctionDef(fn.name, shim_args, [ast.Return(call)], [], None))
            at = tree.body.index(fn)
            tree.body[at:at + 1] = new
            changed = True
    return changed


# -- module: training functions move into a module of their own ------------------------------

_DRIVER_GUARD = re.compile(r"__name__\s*==\s*['\"]__main__['\"]")


def _closure(tree: ast.Module, start: ast.stmt, bindings: dict[str, list[ast.stmt]],
             globals_: set[str]) -> tuple[list[ast.stmt], dict[str, ast.stmt]] | None:
    """(the top-level defs, classes and constant assignments `start` needs, the imports it
    reads by name) or None when it reads a module-level name bound any other way."""
    moved: list[ast.stmt] = []
    imports: dict[str, ast.stmt] = {}
    todo = [start]
    while todo:
        stmt = todo.pop()
        if any(stmt is m for m in moved):
            continue
        moved.append(stmt)
        free = free_names([stmt])
        if free is None:
            return None
        if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            free.discard(stmt.name)
        for name in sorted(free):
            binders = bindings.get(name, [])
            if not binders:
                if name in BUILTINS and not name.startswith("__"):
                    continue
                return None
            if len(binders) != 1 or name in globals_:
                return None
            b = binders[0]
            if isinstance(b, (ast.Import, ast.ImportFrom)):
                if any(a.name == "*" for a in b.names):
                    return None
                imports[name] = b
            elif isinstance(b, (ast.FunctionDef, ast.ClassDef)):
                todo.append(b)
            elif isinstance(b, ast.Assign) and len(b.targets) == 1 and isinstance(
                    b.targets[0], ast.Name) and not any(
                    isinstance(n, ast.Call) for n in ast.walk(b.value)):
                todo.append(b)
            else:
                return None
    return moved, imports


def _import_of(stmt: ast.stmt, names: set[str]) -> ast.stmt:
    """The import statement cut down to the aliases that bind `names`."""
    keep = [a for a in stmt.names if (a.asname or a.name).split(".")[0] in names]
    if isinstance(stmt, ast.ImportFrom):
        return ast.ImportFrom(stmt.module, copy.deepcopy(keep), stmt.level)
    return ast.Import(copy.deepcopy(keep))


def to_module(trees: dict[str, ast.Module], classes: bool = False) -> bool:
    changed = False
    globals_ = declared_global(trees)
    stems = {Path(p).stem for p in trees}
    for path in list(trees):
        tree = trees[path]
        if Path(path).stem.startswith("_train_mod"):
            continue
        text = ast.unparse(ast.fix_missing_locations(tree))
        if not compiles(text, path):
            continue  # its functions would not compile in the new module either
        driver = bool(_DRIVER_GUARD.search(text))
        imported_by_others = any(
            Path(path).stem in {(n.module or "").split(".")[-1] for n in ast.walk(t)
                                if isinstance(n, ast.ImportFrom)} | {
                a.name.split(".")[-1] for n in ast.walk(t) if isinstance(n, ast.Import)
                for a in n.names}
            for p, t in trees.items() if p != path)
        relative = not driver and imported_by_others and Path(path).parent != Path(".")

        def candidates(tree: ast.Module = tree) -> list[ast.FunctionDef | ast.ClassDef]:
            kinds = (ast.FunctionDef, ast.ClassDef) if classes else ast.FunctionDef
            return [s for s in tree.body if isinstance(s, kinds) and has_training_call(s)]

        bindings = module_bindings(tree)
        plans = [(fn, _closure(tree, fn, bindings, globals_)) for fn in candidates()]
        if not any(c is not None for _, c in plans):
            # no training function to move: move the epoch loop's body (helper rewrite)
            copy_tree = copy.deepcopy(tree)
            if not move_loop_bodies({path: copy_tree}):
                continue
            tree = trees[path] = copy_tree
            bindings = module_bindings(tree)
            plans = [(fn, _closure(tree, fn, bindings, globals_)) for fn in candidates()
                     if fn.name.startswith("_loop_body_")]
        moved_ids: dict[int, ast.stmt] = {}
        needed: dict[str, ast.stmt] = {}
        for _fn, plan in plans:
            if plan is None:
                continue
            stmts, imports = plan
            for s in stmts:
                moved_ids[id(s)] = s
            needed.update(imports)
        if not moved_ids:
            continue
        moved = [s for s in tree.body if id(s) in moved_ids]
        mod_stem = "_train_mod"
        k = 1
        while mod_stem in stems:
            k += 1
            mod_stem = f"_train_mod{k}"
        stems.add(mod_stem)
        new_path = str(Path(path).parent / f"{mod_stem}.py")
        header: list[ast.stmt] = [s for s in tree.body if isinstance(s, ast.ImportFrom)
                                  and s.module == "__future__"]
        done: set[int] = set()
        for s in tree.body:  # the imports, in their original order
            if isinstance(s, (ast.Import, ast.ImportFrom)) and id(s) not in done:
                names = {n for n, b in needed.items() if b is s}
                if names:
                    header.append(_import_of(s, names))
                    done.add(id(s))
        trees[new_path] = ast.Module(body=header + copy.deepcopy(moved), type_ignores=[])
        exported = []
        for s in moved:
            if isinstance(s, (ast.FunctionDef, ast.ClassDef)):
                exported.append(s.name)
            else:
                exported.append(s.targets[0].id)  # type: ignore[attr-defined]
        imp = ast.ImportFrom(mod_stem, [ast.alias(n) for n in exported], 1 if relative else 0)
        at = tree.body.index(moved[0])
        tree.body = [s for s in tree.body if id(s) not in moved_ids]
        tree.body.insert(at, imp)
        changed = True
    return changed


# -- factory: constructions go through a project function ------------------------------------


def _scopes(tree: ast.Module) -> Iterator[tuple[ast.AST, list[ast.stmt]]]:
    """(scope, a statement block of its own) for the module and every function in it."""
    def blocks(owner: ast.AST, stmts: list[ast.stmt]) -> Iterator[tuple[ast.AST, list[ast.stmt]]]:
        yield owner, stmts
        for s in stmts:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield from blocks(s, s.body)
                continue
            if isinstance(s, ast.ClassDef):
                for m in s.body:
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        yield from blocks(m, m.body)
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(s, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                    yield from blocks(owner, inner)
            for h in getattr(s, "handlers", []):
                yield from blocks(owner, h.body)
            for c in getattr(s, "cases", []):
                yield from blocks(owner, c.body)
    yield from blocks(tree, tree.body)


def _scope_locals(owner: ast.AST) -> set[str]:
    if isinstance(owner, ast.Module):
        return set()
    assert isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef))
    a = owner.args
    out = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    out |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
    stores, _ = stores_and_loads(owner.body)
    return out | stores


def _callee_at_module(call: ast.Call, owner: ast.AST, bindings: dict[str, list[ast.stmt]],
                      globals_: set[str]) -> bool:
    root = call.func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    binders = bindings.get(root.id, [])
    return (len(binders) == 1 and isinstance(binders[0], (ast.Import, ast.ImportFrom,
                                                         ast.ClassDef, ast.FunctionDef))
            and root.id not in _scope_locals(owner) and root.id not in globals_)


def _plain_call(call: ast.Call) -> bool:
    return not any(isinstance(x, ast.Starred) for x in call.args) and all(
        k.arg is not None for k in call.keywords)


SHORT = {"scheduler": "sched", "optimizer": "opt", "scaler": "scaler"}


def to_factories(trees: dict[str, ast.Module]) -> bool:
    changed = False
    taken = all_identifiers(trees)
    globals_ = declared_global(trees)
    for tree in trees.values():
        bindings = module_bindings(tree)
        new_defs: list[ast.stmt] = []
        for owner, block in list(_scopes(tree)):
            if isinstance(owner, ast.AsyncFunctionDef):
                continue
            i = 0
            while i < len(block):
                s = block[i]
                nxt = block[i + 1] if i + 1 < len(block) else None
                if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                        and isinstance(s.value, ast.Call) and constructed_kind(s.value)
                        and _plain_call(s.value)
                        and _callee_at_module(s.value, owner, bindings, globals_)):
                    i += 1
                    continue
                kind = constructed_kind(s.value)
                # opt = Opt(...); sched = Sched(opt, ...)  ->  opt, sched = _build_N(...)
                if (kind == "optimizer" and isinstance(nxt, ast.Assign)
                        and isinstance(s.targets[0], ast.Name) and len(nxt.targets) == 1
                        and isinstance(nxt.targets[0], ast.Name)
                        and isinstance(nxt.value, ast.Call)
                        and constructed_kind(nxt.value) == "scheduler"
                        and _callee_at_module(nxt.value, owner, bindings, globals_)
                        and s.targets[0].id in {n.id for n in ast.walk(nxt.value)
                                                if isinstance(n, ast.Name)}
                        and nxt.targets[0].id != s.targets[0].id):
                    o, sc = s.targets[0].id, nxt.targets[0].id
                    free = free_names([s.value, nxt.value])
                    if free is not None:
                        roots = {dotted(c.func).split(".")[0] for c in (s.value, nxt.value)}
                        free -= roots | {o}
                        params = sorted(n for n in free
                                        if n not in BUILTINS or n in bindings
                                        or n in _scope_locals(owner))
                        name = fresh_name("_build_", taken)
                        args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in params],
                                             vararg=None, kwonlyargs=[], kw_defaults=[],
                                             kwarg=None, defaults=[])
                        body: list[ast.stmt] = [
                            ast.Assign([ast.Name(o, ast.Store())], s.value),
                            ast.Assign([ast.Name(sc, ast.Store())], nxt.value),
                            ast.Return(ast.Tuple([ast.Name(o, ast.Load()),
                                                  ast.Name(sc, ast.Load())], ast.Load()))]
                        new_defs.append(ast.FunctionDef(name, args, body, [], None))
                        call = ast.Call(ast.Name(name, ast.Load()),
                                        [ast.Name(p, ast.Load()) for p in params], [])
                        block[i:i + 2] = [ast.Assign([ast.Tuple(
                            [ast.Name(o, ast.Store()), ast.Name(sc, ast.Store())], ast.Store())],
                            call)]
                        changed = True
                        i += 1
                        continue
                call = s.value
                name = fresh_name(f"_build_{SHORT[kind]}_", taken)
                pos = [f"_p{j}" for j in range(len(call.args))]
                kws = [k.arg for k in call.keywords if k.arg]
                args = ast.arguments(posonlyargs=[], args=[ast.arg(p) for p in pos],
                                     vararg=None, kwonlyargs=[ast.arg(k) for k in kws],
                                     kw_defaults=[None] * len(kws), kwarg=None, defaults=[])
                inner = ast.Call(copy.deepcopy(call.func), [ast.Name(p, ast.Load()) for p in pos],
                                 [ast.keyword(k, ast.Name(k, ast.Load())) for k in kws])
                new_defs.append(ast.FunctionDef(name, args, [ast.Return(inner)], [], None))
                call.func = ast.Name(name, ast.Load())
                changed = True
                i += 1
        at = insert_at(tree)
        tree.body[at:at] = new_defs
    return changed


# -- config: constructor literals, argparse defaults and loop bounds in one config object ----


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float, str, bool)) or node.value is None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _literal(node.operand)
    if isinstance(node, (ast.List, ast.Tuple)):
        return all(_literal(e) for e in node.elts)
    return False


def _argparse_defaults(trees: dict[str, ast.Module], tree: ast.Module) -> tuple[dict[str, ast.expr], set[str]]:
    """(dest -> literal default, the namespace names) of the file's argparse parser; dests the
    case writes to or sets defaults for elsewhere are left out."""
    defaults: dict[str, ast.expr] = {}
    dropped: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and callee_name(n) == "add_argument":
            longs = [a.value for a in n.args if isinstance(a, ast.Constant)
                     and isinstance(a.value, str)]
            kw = {k.arg: k.value for k in n.keywords if k.arg}
            dest = kw.get("dest")
            if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
                name = dest.value
            else:
                opts = [x for x in longs if x.startswith("--")] or longs
                if not opts:
                    continue
                name = opts[0].lstrip("-").replace("-", "_")
            d = kw.get("default")
            if d is not None and _literal(d) and "action" not in kw and "nargs" not in kw:
                if name in defaults:
                    dropped.add(name)
                defaults[name] = d
            else:
                dropped.add(name)
        elif isinstance(n, ast.Call) and callee_name(n) == "set_defaults":
            dropped.update(k.arg for k in n.keywords if k.arg)
    spaces = {"args"} if defaults else set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and \
                callee_name(n.value) == "parse_args":
            spaces.update(t.id for t in n.targets if isinstance(t, ast.Name))
    for t in trees.values():
        for n in ast.walk(t):
            if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load):
                dropped.add(n.attr)
            elif isinstance(n, ast.Call) and callee_name(n) in ("setattr", "vars", "update"):
                return {}, set()  # the namespace may be rewritten from a file or a dict
            elif isinstance(n, ast.Attribute) and n.attr == "__dict__":
                return {}, set()
    return {k: v for k, v in defaults.items() if k not in dropped}, spaces


def to_config(style: str) -> Callable[[dict[str, ast.Module]], bool]:
    def apply(trees: dict[str, ast.Module]) -> bool:
        taken = all_identifiers(trees)
        if "_CFG" in taken:
            return False
        changed = False
        for tree in trees.values():
            changed |= _config_one(trees, tree, taken, style)
        return changed
    return apply


def _config_one(trees: dict[str, ast.Module], tree: ast.Module, taken: set[str],
                style: str) -> bool:
    defaults, spaces = _argparse_defaults(trees, tree)
    cfg = "_CFG"
    values: dict[str, ast.expr] = {}

    def read(key: str) -> ast.expr:
        if style == "dict":
            return ast.Subscript(ast.Name(cfg, ast.Load()), ast.Constant(key), ast.Load())
        return ast.Attribute(ast.Name(cfg, ast.Load()), key, ast.Load())

    def move(node: ast.expr, key: str) -> ast.expr | None:
        """The config read replacing `node`, or None when it stays."""
        if _literal(node):
            value = node
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                node.value.id in spaces and node.attr in defaults:
            value, key = defaults[node.attr], node.attr
        else:
            return None
        if not key.isidentifier() or keyword.iskeyword(key):
            return None
        if key in values and ast.dump(values[key]) != ast.dump(value):
            j = 2
            while f"{key}_{j}" in values:
                j += 1
            key = f"{key}_{j}"
        values[key] = copy.deepcopy(value)
        return read(key)

    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and constructed_kind(n):
            kind = SHORT[constructed_kind(n)]
            for j, a in enumerate(n.args):
                if j == 0 and kind != "scaler":
                    continue
                new = move(a, f"{kind}_arg{j}")
                if new is not None:
                    n.args[j] = new
            for k in n.keywords:
                if k.arg:
                    new = move(k.value, f"{kind}_{k.arg}")
                    if new is not None:
                        k.value = new
        elif isinstance(n, ast.For) and isinstance(n.iter, ast.Call) and \
                callee_name(n.iter) == "range" and isinstance(n.iter.func, ast.Name) \
                and has_training_call(n):
            target = n.target.id if isinstance(n.target, ast.Name) else "loop"
            for j, a in enumerate(n.iter.args):
                if isinstance(a, ast.Constant) and a.value in (0, 1):
                    continue
                new = move(a, f"{target}_bound{j}")
                if new is not None:
                    n.iter.args[j] = new
        elif isinstance(n, ast.While) and isinstance(n.test, ast.Compare) and \
                has_training_call(n):
            for j, a in enumerate(n.test.comparators):
                new = move(a, f"loop_bound{j}")
                if new is not None:
                    n.test.comparators[j] = new
    if not values:
        return False
    at = insert_at(tree)
    keys = list(values)
    new_stmts: list[ast.stmt]
    if style == "dict":
        new_stmts = [ast.Assign([ast.Name(cfg, ast.Store())], ast.Dict(
            [ast.Constant(k) for k in keys], [values[k] for k in keys]))]
    elif all(not any(isinstance(x, ast.List) for x in ast.walk(v))
             for v in values.values()):
        fields: list[ast.stmt] = []
        for k in keys:
            v = values[k]
            ann = "tuple" if isinstance(v, ast.Tuple) else "object"
            if isinstance(v, ast.Constant) and v.value is not None:
                ann = type(v.value).__name__
            elif isinstance(v, ast.UnaryOp):
                ann = "float"
            fields.append(ast.AnnAssign(ast.Name(k, ast.Store()),
                                        ast.Name(ann, ast.Load()), v, 1))
        cls = fresh_name("_Config", taken)
        new_stmts = [
            ast.Import([ast.alias("dataclasses", "_dc_")]),
            ast.ClassDef(cls, [], [], fields, [ast.Attribute(
                ast.Name("_dc_", ast.Load()), "dataclass", ast.Load())]),
            ast.Assign([ast.Name(cfg, ast.Store())],
                       ast.Call(ast.Name(cls, ast.Load()), [], []))]
    else:
        new_stmts = [
            ast.Import([ast.alias("types", "_types_")]),
            ast.Assign([ast.Name(cfg, ast.Store())], ast.Call(ast.Attribute(
                ast.Name("_types_", ast.Load()), "SimpleNamespace", ast.Load()), [],
                [ast.keyword(k, values[k]) for k in keys]))]
    tree.body[at:at] = new_stmts
    return True


# -- while: `for i in range(a, b):` becomes a while loop with its own counter -----------------


def to_while(trees: dict[str, ast.Module]) -> bool:
    changed = False
    taken = all_identifiers(trees)
    for tree in trees.values():
        for owner, block in list(_scopes(tree)):
            for s in list(block):
                if not (isinstance(s, ast.For) and isinstance(s.target, ast.Name)
                        and isinstance(s.iter, ast.Call) and isinstance(s.iter.func, ast.Name)
                        and s.iter.func.id == "range" and not s.iter.keywords
                        and 1 <= len(s.iter.args) <= 3 and _plain_call(s.iter)
                        and has_training_call(s)):
                    continue
                args = s.iter.args
                step: ast.expr = ast.Constant(1)
                if len(args) == 3:
                    if not (isinstance(args[2], ast.Constant) and isinstance(args[2].value, int)
                            and args[2].value > 0):
                        continue
                    step = args[2]
                start = args[0] if len(args) >= 2 else ast.Constant(0)
                end = args[1] if len(args) >= 2 else args[0]
                var = s.target.id
                body_stores, _ = stores_and_loads(s.body)
                if var in body_stores or not movable_jumps(s.body):
                    continue
                # the counter is read nowhere else in the scope (after a for it holds b - 1)
                scope_nodes = (owner.body if isinstance(owner, ast.Module)
                               else [owner])
                inside = {id(n) for n in ast.walk(s)}
                if any(isinstance(n, ast.Name) and n.id == var and id(n) not in inside
                       for x in scope_nodes for n in ast.walk(x)):
                    continue
                pre: list[ast.stmt] = [ast.Assign([ast.Name(var, ast.Store())], start)]
                simple = isinstance(end, ast.Constant) or (
                    dotted(end) and dotted(end).split(".")[0] not in body_stores
                    and not any(isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)
                                and n.attr == end.attr for x in s.body for n in ast.walk(x))
                    if isinstance(end, ast.Attribute) else dotted(end)
                    and dotted(end) not in body_stores)
                if not simple:
                    end_name = fresh_name("_end", taken)
                    pre.append(ast.Assign([ast.Name(end_name, ast.Store())], end))
                    end = ast.Name(end_name, ast.Load())
                loop = ast.While(ast.Compare(ast.Name(var, ast.Load()), [ast.Lt()], [end]),
                                 s.body + [ast.AugAssign(ast.Name(var, ast.Store()), ast.Add(),
                                                         step)], s.orelse)
                at = next(k for k, x in enumerate(block) if x is s)
                block[at:at + 1] = pre + [loop]
                changed = True
    return changed


def movable_jumps(body: list[ast.stmt]) -> bool:
    """No `continue` of this loop (it would skip the counter's increment)."""
    def visit(stmts: list[ast.stmt]) -> bool:
        for s in stmts:
            if isinstance(s, ast.Continue):
                return False
            if isinstance(s, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef,
                              ast.AsyncFunctionDef, ast.ClassDef)):
                if not visit(getattr(s, "orelse", [])):
                    return False
                continue
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(s, name, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt) \
                        and not visit(inner):
                    return False
            for h in getattr(s, "handlers", []):
                if not visit(h.body):
                    return False
            for c in getattr(s, "cases", []):
                if not visit(c.body):
                    return False
        return True
    return visit(body)


# ---------------------------------------------------------------------------------------------
# structure, second round (meta7): inheritance, registries, callbacks, attribute tuples,
# packages

_TRAINER_CLASS = re.compile(r"^_Trainer\d+$")


def _generated_trainers(tree: ast.Module) -> list[ast.ClassDef]:
    """The `class` rewrite's classes in this file (no base, `__init__` and `run` only)."""
    return [s for s in tree.body if isinstance(s, ast.ClassDef) and _TRAINER_CLASS.match(s.name)
            and not s.bases and [m.name for m in s.body if isinstance(m, ast.FunctionDef)]
            == ["__init__", "run"]]


def _attr_names(owner: ast.AST, name: str = "self") -> set[str]:
    return {n.attr for n in ast.walk(owner) if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name) and n.value.id == name}


class _FromSelf(ast.NodeTransformer):
    """`self.<x>` -> `x` for the given attributes."""

    def __init__(self, names: set[str]):
        self.names = names

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "self" and \
                node.attr in self.names:
            return ast.copy_location(ast.Name(node.attr, node.ctx), node)
        self.generic_visit(node)
        return node


def _returns_in_scope(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await))
               for n in own_scope_nodes(ast.Module(body=stmts, type_ignores=[])))


def _split_trainer(tree: ast.Module, cls: ast.ClassDef, taken: set[str],
                   globals_: set[str]) -> bool:
    """`_TrainerN` -> `_BaseTrainerN` (run(), the epoch loop, virtual `self.train_epoch`) and
    `_TrainerN(_BaseTrainerN)` (builds the objects in `__init__`, owns `train_epoch`)."""
    init, run = [m for m in cls.body if isinstance(m, ast.FunctionDef)]
    if "train_epoch" in _attr_names(cls) or _returns_in_scope(init.body):
        return False
    loops = list(epoch_loops(run.body))
    if not loops:
        return False
    loop = loops[0]
    path = blocks_to(run.body, loop)
    if not path:
        return False
    idx = run.body.index(path[0][1])
    work = copy.deepcopy(run)
    helper = move_one(work, work.body, list(epoch_loops(work.body))[0], [0], set(taken))
    if helper is None:
        return False
    # the helper reads `self` (the run's parameter): it becomes the method's own `self`
    a = helper.args
    a.args = [x for x in a.args if x.arg != "self"]
    a.args.insert(0, ast.arg("self"))
    helper.name = "train_epoch"
    for n in ast.walk(work):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and \
                n.func.id.startswith("_loop_body_"):
            n.func = ast.Attribute(ast.Name("self", ast.Load()), "train_epoch", ast.Load())
            n.args = [x for x in n.args if not (isinstance(x, ast.Name) and x.id == "self")]
    # the set-up before the epoch loop moves into the subclass's __init__; the locals it binds
    # that the rest reads become attributes
    prefix = work.body[:idx]
    rest = work.body[idx:]
    if _returns_in_scope(prefix):
        prefix, rest = [], work.body
    pre_stores, _ = stores_and_loads(prefix)
    _, rest_loads = stores_and_loads(rest)
    _, helper_loads = stores_and_loads(helper.body)
    crossing = pre_stores & (rest_loads | helper_loads)
    bad = _own_bad_binds(work)
    if crossing & (bad | globals_ | {"self", "super"}) or any(
            _binds_in_nested(work, c) for c in crossing) or crossing & _attr_names(cls):
        if not prefix:
            return False
        prefix, rest = [], work.body
        crossing = set()
    if crossing:
        to_self = _ToSelf(crossing)
        prefix = [to_self.visit(s) for s in prefix]
        rest = [to_self.visit(s) for s in rest]
        helper.body = [to_self.visit(s) for s in helper.body]
    # objects stored once, unconditionally, at the top of the set-up go to super().__init__
    params = {x.arg for x in init.args.posonlyargs + init.args.args + init.args.kwonlyargs}
    counts: dict[str, int] = {}
    for s in prefix:
        for n in ast.walk(s):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and \
                    n.value.id == "self" and not isinstance(n.ctx, ast.Load):
                counts[n.attr] = counts.get(n.attr, 0) + 1
    objects = []
    for s in prefix:
        if isinstance(s, ast.Assign) and len(s.targets) == 1:
            t = s.targets[0]
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and \
                    t.value.id == "self" and counts.get(t.attr) == 1 and t.attr not in params \
                    and t.attr not in crossing and (
                        guess_kind_from_name(t.attr) in OBJECT_KINDS - {"loader"}
                        or _MODEL_NAME.search(t.attr) or constructed_kind(s.value)) \
                    and t.attr not in BUILTINS and not keyword.iskeyword(t.attr) \
                    and t.attr not in {n.id for p in prefix for n in ast.walk(p)
                                       if isinstance(n, ast.Name)}:
                objects.append(t.attr)
    if objects:
        prefix = [_FromSelf(set(objects)).visit(s) for s in prefix]
    base_name_ = fresh_name("_BaseTrainer", taken)
    self_arg = ast.arg("self")
    base_init = ast.FunctionDef("__init__", ast.arguments(
        posonlyargs=[], args=[self_arg, *[ast.arg(o) for o in objects]], vararg=None,
        kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        [ast.Assign([ast.Attribute(ast.Name("self", ast.Load()), o, ast.Store())],
                    ast.Name(o, ast.Load())) for o in objects] or [ast.Pass()], [], None)
    base_run = ast.FunctionDef("run", copy.deepcopy(run.args), rest, [], run.returns)
    base = ast.ClassDef(base_name_, [], [], [base_init, base_run], [])
    sup = ast.Expr(ast.Call(ast.Attribute(ast.Call(ast.Name("super", ast.Load()), [], []),
                                          "__init__", ast.Load()),
                            [ast.Name(o, ast.Load()) for o in objects], []))
    init.body = [s for s in init.body if not isinstance(s, ast.Pass)] + prefix + [sup]
    cls.bases = [ast.Name(base_name_, ast.Load())]
    cls.body = [init, helper]
    at = tree.body.index(cls)
    tree.body.insert(at, base)
    return True


def to_inherit(trees: dict[str, ast.Module]) -> bool:
    if not any(_generated_trainers(t) for t in trees.values()):
        if not to_classes(trees):
            return False
    changed = False
    taken = all_identifiers(trees)
    globals_ = declared_global(trees)
    for tree in trees.values():
        for cls in _generated_trainers(tree):
            changed |= _split_trainer(tree, cls, taken, globals_)
    return changed


# -- registry: the scheduler / optimizer class is looked up by a string ----------------------

REGISTRY_NAMES = {"scheduler": "_SCHEDS", "optimizer": "_OPTIMS"}


def to_registry(style: str) -> Callable[[dict[str, ast.Module]], bool]:
    """dict: `_SCHEDS_N = {"steplr": StepLR}` after the import of the class, the construction
    `_SCHEDS_N["steplr"](...)`; getattr: `lr_scheduler.StepLR(...)` ->
    `getattr(lr_scheduler, "StepLR")(...)` (an attribute callee only)."""
    def apply(trees: dict[str, ast.Module]) -> bool:
        changed = False
        taken = all_identifiers(trees)
        globals_ = declared_global(trees)
        if style == "getattr" and "getattr" in {n.id for t in trees.values()
                                                for n in ast.walk(t) if isinstance(n, ast.Name)
                                                and not isinstance(n.ctx, ast.Load)}:
            return False
        for tree in trees.values():
            bindings = module_bindings(tree)
            registries: dict[str, tuple[str, ast.stmt, ast.expr]] = {}  # callee -> (dict, binder)
            for owner, block in list(_scopes(tree)):
                for s in block:
                    for call in [n for n in ast.walk(s) if isinstance(n, ast.Call)]:
                        kind = constructed_kind(call)
                        if kind not in REGISTRY_NAMES or not _callee_at_module(
                                call, owner, bindings, globals_):
                            continue
                        if any(call in (x for x in ast.walk(b)) for b in
                               [r[1] for r in registries.values()]):
                            continue
                        callee = dotted(call.func)
                        if style == "getattr":
                            if not isinstance(call.func, ast.Attribute):
                                continue
                            call.func = ast.Call(ast.Name("getattr", ast.Load()),
                                                 [call.func.value, ast.Constant(call.func.attr)],
                                                 [])
                            changed = True
                            continue
                        root = callee.split(".")[0]
                        if callee not in registries:
                            name = fresh_name(REGISTRY_NAMES[kind] + "_", taken)
                            registries[callee] = (name, bindings[root][0],
                                                  copy.deepcopy(call.func))
                        name = registries[callee][0]
                        key = callee.split(".")[-1].lower()
                        call.func = ast.Subscript(ast.Name(name, ast.Load()), ast.Constant(key),
                                                  ast.Load())
                        changed = True
            for callee, (name, binder, func) in registries.items():
                key = callee.split(".")[-1].lower()
                reg = ast.Assign([ast.Name(name, ast.Store())],
                                 ast.Dict([ast.Constant(key)], [func]))
                at = tree.body.index(binder) + 1
                if at < insert_at(tree):
                    at = insert_at(tree)  # after the leading imports, as real code puts it
                tree.body.insert(at, reg)
        return changed
    return apply


# -- callback: a step moves into a callback object called from the loop ----------------------

def _receiver_kind(recv: ast.expr, assigned: dict[str, str]) -> str:
    name = recv.attr if isinstance(recv, ast.Attribute) else (
        recv.id if isinstance(recv, ast.Name) else "")
    if not name:
        return ""
    return assigned.get(name) or (guess_kind_from_name(name) or "")


def _kinds_assigned(tree: ast.Module) -> dict[str, str]:
    """name / attribute -> kind, for the file's `x = <constructor>(...)` assignments."""
    out: dict[str, str] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            kind = constructed_kind(n.value)
            t = n.targets[0]
            if kind:
                if isinstance(t, ast.Name):
                    out[t.id] = kind
                elif isinstance(t, ast.Attribute):
                    out[t.attr] = kind
    return out


def _enclosing_loops(path: list[tuple[list[ast.stmt], ast.stmt]]) -> list[ast.stmt]:
    return [s for _, s in path[:-1] if isinstance(s, (ast.For, ast.While))]


def to_callbacks(which: str) -> Callable[[dict[str, ast.Module]], bool]:
    """`sched.step(...)` (which="scheduler"), or `optimizer.step()` / `scaler.update()`
    (which="optimizer"), as a whole statement inside a function, becomes
    `for cb in _cbs_N: cb.on_batch_end(...)` with `_cbs_N = [_CallbackN(sched)]` right before
    the outermost loop around it (or right before it), where the receiver is a name bound
    unconditionally before that loop and not rebound in it, or an attribute of `self` stored
    only in `__init__` methods."""
    def wanted(call: ast.Call, kind: str) -> bool:
        if not isinstance(call.func, ast.Attribute):
            return False
        meth = call.func.attr
        if which == "scheduler":
            return kind == "scheduler" and meth == "step"
        return (kind == "optimizer" and meth == "step") or (kind == "scaler" and meth == "update")

    def apply(trees: dict[str, ast.Module]) -> bool:
        changed = False
        taken = all_identifiers(trees)
        globals_ = declared_global(trees)
        for tree in trees.values():
            assigned = _kinds_assigned(tree)
            attr_stores: dict[str, set[str]] = {}  # attribute -> names of functions storing it
            for fn in ast.walk(tree):
                if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    for n in ast.walk(fn):
                        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load):
                            attr_stores.setdefault(n.attr, set()).add(fn.name)
                elif isinstance(fn, ast.Module):
                    pass
            module_attr_stores = {n.attr for s in tree.body if not isinstance(
                s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                for n in ast.walk(s) if isinstance(n, ast.Attribute)
                and not isinstance(n.ctx, ast.Load)}
            new_classes: list[ast.stmt] = []
            # a scheduler / optimizer class of the case's own (it defines `step`): its steps
            # of the object it wraps stay, a library's contract rather than a training loop
            wrappers = {id(m) for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
                        and any(isinstance(m, ast.FunctionDef) and m.name in ("step", "get_lr")
                                for m in c.body)
                        for m in ast.walk(c) if isinstance(m, ast.FunctionDef)}
            functions = [f for f in ast.walk(tree) if isinstance(f, ast.FunctionDef)
                         and id(f) not in wrappers]
            for fn in [tree, *functions]:
                if isinstance(fn, ast.Module):
                    params: set[str] = set()
                    locals_ = stores_and_loads(tree.body)[0]
                else:
                    if any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(fn)):
                        continue
                    a = fn.args
                    params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
                    params |= {x.arg for x in (a.vararg, a.kwarg) if x is not None}
                    locals_ = _scope_locals(fn)
                sites = [s for s in own_scope_nodes(fn) if isinstance(s, ast.Expr)
                         and isinstance(s.value, ast.Call) and _plain_call(s.value)
                         and isinstance(s.value.func, ast.Attribute)
                         and wanted(s.value, _receiver_kind(s.value.func.value, assigned))  # type: ignore[attr-defined]
                         ]
                for site in sites:
                    call = site.value
                    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    recv = call.func.value
                    path = blocks_to(fn.body, site)
                    if not path:
                        continue
                    loops = _enclosing_loops(path)
                    anchor = loops[0] if loops else site
                    apath = blocks_to(fn.body, anchor)
                    if not apath:
                        continue
                    if isinstance(recv, ast.Name):
                        if recv.id in globals_ or _binds_in_nested(fn, recv.id):
                            continue
                        if recv.id in locals_ and recv.id not in bound_before(apath) | params:
                            continue
                        if loops and recv.id in stores_and_loads([anchor])[0]:
                            continue
                    elif isinstance(recv, ast.Attribute) and isinstance(recv.value, ast.Name) \
                            and recv.value.id == "self" and "self" in params:
                        if attr_stores.get(recv.attr, set()) - {"__init__"} or \
                                recv.attr in module_attr_stores:
                            continue
                    else:
                        continue
                    cls_name = fresh_name("_Callback", taken)
                    cbs = fresh_name("_cbs_", taken)
                    cb = fresh_name("_cb_", taken)
                    depth = len(loops)
                    meth = "on_batch_end" if depth >= 2 else "on_epoch_end"
                    pos = [f"_a{j}" for j in range(len(call.args))]
                    kws = [k.arg for k in call.keywords if k.arg]
                    target = ast.Attribute(ast.Name("self", ast.Load()), "target", ast.Load())
                    method = ast.FunctionDef(meth, ast.arguments(
                        posonlyargs=[], args=[ast.arg("self"), *[ast.arg(p) for p in pos]],
                        vararg=None, kwonlyargs=[ast.arg(k) for k in kws],
                        kw_defaults=[None] * len(kws), kwarg=None, defaults=[]),
                        [ast.Expr(ast.Call(ast.Attribute(target, call.func.attr, ast.Load()),
                                           [ast.Name(p, ast.Load()) for p in pos],
                                           [ast.keyword(k, ast.Name(k, ast.Load()))
                                            for k in kws]))], [], None)
                    init = ast.FunctionDef("__init__", ast.arguments(
                        posonlyargs=[], args=[ast.arg("self"), ast.arg("target")], vararg=None,
                        kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                        [ast.Assign([ast.Attribute(ast.Name("self", ast.Load()), "target",
                                                   ast.Store())],
                                    ast.Name("target", ast.Load()))], [], None)
                    new_classes.append(ast.ClassDef(cls_name, [], [], [init, method], []))
                    block, _ = path[-1]
                    at = block.index(site)
                    new_for = block[at] = ast.For(ast.Name(cb, ast.Store()), ast.Name(cbs, ast.Load()),
                                        [ast.Expr(ast.Call(ast.Attribute(
                                            ast.Name(cb, ast.Load()), meth, ast.Load()),
                                            call.args, call.keywords))], [], None)
                    make = ast.Assign([ast.Name(cbs, ast.Store())], ast.List(
                        [ast.Call(ast.Name(cls_name, ast.Load()), [copy.deepcopy(recv)], [])],
                        ast.Load()))
                    ablock, astmt = apath[-1]
                    if astmt is site:
                        astmt = new_for
                    ablock.insert(ablock.index(astmt), make)
                    changed = True
            at = insert_at(tree)
            tree.body[at:at] = new_classes
        return changed
    return apply


# -- attr_tuple: `opt, sched = _build_N(...)` stored on self in the class --------------------

def to_classes_with_tuples(trees: dict[str, ast.Module]) -> bool:
    return to_classes(trees, tuple_attrs=True)


# -- package: the moved module becomes a package ---------------------------------------------

def to_package(trees: dict[str, ast.Module]) -> bool:
    before = set(trees)
    if not to_module(trees, classes=True):
        return False
    stems = {Path(p).stem for p in trees} | {part for p in trees for part in Path(p).parts}
    for new_path in sorted(set(trees) - before):
        stem = Path(new_path).stem
        if not stem.startswith("_train_mod"):
            continue
        pkg = stem.replace("_train_mod", "_train_pkg")
        while pkg in stems:
            pkg += "_"
        stems.add(pkg)
        tree = trees.pop(new_path)
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.level:
                n.level += 1  # one package deeper
        exported = [s.name if isinstance(s, (ast.FunctionDef, ast.ClassDef))
                    else s.targets[0].id  # type: ignore[attr-defined]
                    for s in tree.body if not isinstance(s, (ast.Import, ast.ImportFrom))]
        parent = Path(new_path).parent
        trees[str(parent / pkg / "core.py")] = tree
        trees[str(parent / pkg / "__init__.py")] = ast.Module(body=[ast.ImportFrom(
            "core", [ast.alias(e) for e in exported], 1)], type_ignores=[])
        for path, other in trees.items():
            if Path(path).parent != parent:
                continue
            for n in ast.walk(other):
                if isinstance(n, ast.ImportFrom) and n.module == stem:
                    n.module = pkg
    return True


# ---------------------------------------------------------------------------------------------
# the harness


def _batch_loops(block: list[ast.stmt]) -> list[ast.For]:
    """The `for` loops of ``block`` (this block only) that train in their own body and go over
    something other than a `range` (a counter, not a stream of batches), with no `else`."""
    return [s for s in block
            if isinstance(s, ast.For) and not s.orelse and trains_itself(s)
            and not any(isinstance(n, ast.Call) and callee_name(n) in ("range", "trange")
                        for n in ast.walk(s.iter))]


def to_next_loops(trees: dict[str, ast.Module]) -> bool:
    """meta10: `for T in E: body` becomes `_itN = iter(E)` / `while True: try: T = next(_itN)
    except StopIteration: break` / `body` (a `continue` in the body still takes the next item,
    a `break` still leaves the loop)."""
    changed = False
    taken = all_identifiers(trees)
    for tree in trees.values():
        if any(isinstance(n, ast.Name) and n.id in ("iter", "next", "StopIteration")
               and not isinstance(n.ctx, ast.Load) for n in ast.walk(tree)):
            continue  # a builtin it needs is rebound
        for _owner, block in list(_scopes(tree)):
            for s in _batch_loops(block):
                it = fresh_name("_it", taken)
                pre = ast.Assign([ast.Name(it, ast.Store())],
                                 ast.Call(ast.Name("iter", ast.Load()), [s.iter], []))
                draw = ast.Try(
                    body=[ast.Assign([s.target], ast.Call(ast.Name("next", ast.Load()),
                                                          [ast.Name(it, ast.Load())], []))],
                    handlers=[ast.ExceptHandler(ast.Name("StopIteration", ast.Load()), None,
                                                [ast.Break()])],
                    orelse=[], finalbody=[])
                s.body.insert(0, draw)  # (the same list: blocks nested in it stay found)
                loop = ast.While(ast.Constant(True), s.body, [])
                at = next(k for k, x in enumerate(block) if x is s)
                block[at:at + 1] = [pre, loop]
                changed = True
    return changed


def to_generator_loops(trees: dict[str, ast.Module]) -> bool:
    """meta10: `for T in E:` becomes `for T in _batchesN(E):`, `_batchesN` a module-level
    generator that yields each item of what it is given, one per pass of its own loop."""
    changed = False
    taken = all_identifiers(trees)
    for tree in trees.values():
        gen = ""
        for _owner, block in list(_scopes(tree)):
            for s in _batch_loops(block):
                if not gen:
                    gen = fresh_name("_batches", taken)
                s.iter = ast.Call(ast.Name(gen, ast.Load()), [s.iter], [])
                changed = True
        if gen:
            fn = ast.parse(f"def {gen}(items):\n    for item in items:\n        yield item\n")
            at = insert_at(tree)
            tree.body[at:at] = fn.body
    return changed


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
    "class": to_classes,
    "module": to_module,
    "factory": to_factories,
    "config_dict": to_config("dict"),
    "config_attr": to_config("attr"),
    "while": to_while,
    "inherit": to_inherit,
    "registry": to_registry("dict"),
    "registry_getattr": to_registry("getattr"),
    "class_tuple": to_classes_with_tuples,
    "callback": to_callbacks("scheduler"),
    "callback_opt": to_callbacks("optimizer"),
    "package": to_package,
    "next_loop": to_next_loops,
    "generator_loop": to_generator_loops,
}
ALL_AT_ONCE = ["rename_scheduler", "rename_optimizer", "rename_scaler", "rename_loader",
               "rename_train_fn", "enumerate", "helper", "kwargs"]
# the structural rewrites one after the other (meta6)
ALL_STRUCTURE = ["config_attr", "factory", "while", "class", "module"]
# meta7: the second round, and everything structural composed
COMPOSED = {
    "all": ALL_AT_ONCE,
    "all_structure": ALL_STRUCTURE,
    "attr_tuple": ["factory", "class_tuple"],
    "all_structure2": ["config_attr", "factory", "registry", "while", "callback",
                       "callback_opt", "class_tuple", "inherit", "package"],
}
REWRITES = [*(s for s in STEPS if s != "class_tuple"), *COMPOSED]


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
    steps = COMPOSED.get(rewrite, [rewrite])
    compiled = {p for p, text in sources.items() if compiles(text, p)}
    applied = False
    for step in steps:
        if STEPS[step](trees):
            applied = True
            compiled |= set(trees) - set(sources)  # a module the rewrite added
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
                    (root / p).parent.mkdir(parents=True, exist_ok=True)
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
