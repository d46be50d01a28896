"""The top level of a file, indexed in one pass: imports, functions, classes, and the scopes
names are looked up in while tracing."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeGuard

from lrdoctor.check.values import (
    ClassVal,
    Const,
    DictVal,
    ExprVal,
    FuncVal,
    ImportRef,
    InstanceVal,
)


@dataclass(eq=False)
class ClassInfo:
    name: str
    node: ast.ClassDef
    module: ModuleInfo
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    bases: list[str]
    # the base classes found in the project (set by the tracer, which can follow imports);
    # None until then: bases are looked up in the class's own module only
    parents: list[ClassInfo] | None = None
    # the call that made the class (`collections.namedtuple("State", [...])`); None for a
    # class statement
    made_by: ast.expr | None = None

    @cached_property
    def self_assigns(self) -> dict[str, ast.expr]:
        """``self.x = <expr>`` anywhere in the class, last one wins (read when ``self.x`` is
        used before the method that assigns it was traced)."""
        return _self_assigns(self.methods)

    def find(self, name: str, depth: int = 0
             ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo] | None:
        """The method ``name`` as an instance of this class runs it, with the class that
        defines it (a base class's template method, the subclass's override)."""
        found = self.methods.get(name)
        if found is not None:
            return found, self
        if depth > 8:
            return None
        for base_cls in self.base_classes():
            hit = base_cls.find(name, depth + 1)
            if hit is not None:
                return hit
        return None

    def lineage(self, limit: int = 16) -> Iterator[ClassInfo]:
        """This class, then its project base classes, nearest first (breadth first), each once;
        at most ``limit`` + 1 classes (a deep or cyclic hierarchy is cut there)."""
        seen: set[int] = set()
        queue = [self]
        while queue:
            cls = queue.pop(0)
            if id(cls) in seen or len(seen) > limit:
                continue
            seen.add(id(cls))
            yield cls
            queue.extend(cls.base_classes())

    def base_classes(self) -> list[ClassInfo]:
        if self.parents is not None:
            return self.parents
        out = []
        for base in self.bases:
            base_cls = self.module.classes.get(base)
            if base_cls is not None and base_cls is not self:
                out.append(base_cls)
        return out




@dataclass(eq=False)
class Scope:
    vars: dict[str, Any]
    module: ModuleInfo
    parent: Scope | None = None  # the module scope for function scopes
    self_val: InstanceVal | None = None
    owner: ClassInfo | None = None  # the class whose method this is (for super())
    # in a classmethod: its first parameter's name, the class it stands for (the subclass
    # whose instance the trace runs, else the defining class) and that instance
    cls_of: tuple[str, ClassInfo, InstanceVal | None] | None = None
    # the expression each name was last assigned from, to judge horizons from the source
    sources: dict[str, ast.expr] = field(default_factory=dict)
    # the setting each parameter holds because the call handed that setting over as it is
    # (`get_scheduler(args.scheduler, opt)`: `scheduler_name` -> "scheduler"), until the
    # function binds the name to something else
    handed: dict[str, str] = field(default_factory=dict)
    # the expression each parameter was given by the call in the code that made this scope,
    # with the caller's scope to read it in (``build(opt, milestones=steps)``: ``milestones``
    # -> (``steps``, the caller's scope)), until the function binds the name to something else
    arguments: dict[str, tuple[ast.expr, Scope]] = field(default_factory=dict)

    def argument_of(self, name: str) -> tuple[ast.expr, Scope] | None:
        """The caller's expression for the parameter ``name`` (see ``arguments``)."""
        return self._given(name, "arguments")  # type: ignore[no-any-return]

    def handed_setting(self, name: str) -> str | None:
        """The setting ``name`` holds as the caller handed it over (see ``handed``)."""
        return self._given(name, "handed")  # type: ignore[no-any-return]

    def _given(self, name: str, table: str) -> Any:
        """What the call that made the scope binding ``name`` gave it, kept in ``table``
        (``arguments`` or ``handed``); None where a scope binds ``name`` itself first."""
        scope: Scope | None = self
        while scope is not None:
            kept = getattr(scope, table)
            if name in kept:
                return kept[name]
            if name in scope.vars:
                return None
            scope = scope.parent
        return None

    def source_of(self, name: str) -> tuple[ast.expr, Scope] | None:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.sources:
                return scope.sources[name], scope
            if name in scope.vars:
                return None
            scope = scope.parent
        return None

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
        if name in self.module.functions:
            return FuncVal(self.module.functions[name], self.module)
        if name in self.module.classes:
            return ClassVal(self.module.classes[name])
        if name in self.module.imports:
            return ImportRef(self.module.imports[name])
        settings = self.module.literal_settings.get(name)
        if settings is not None:
            # `CFG = {"scheduler": "step"}` of a module whose top level this trace did not
            # run (a function of it called from another file): what it holds everywhere;
            # `SCHEDULERS = {"step": StepLR}`, a registry of classes, the classes; `{"step":
            # lambda opt: StepLR(opt, 10)}`, a registry of lambdas, the functions they are
            return DictVal({k: self.module.reference(v.text) if isinstance(v, ClassRef)
                            else FuncVal(lambda_function(v), self.module)
                            if isinstance(v, ast.Lambda)
                            else Const(v, sure=True) for k, v in settings.items()})
        return None


@dataclass(eq=False)
class SpreadScope(Scope):
    """The scope a scheduler's constructor is read in when a ``**kwargs`` passes some of its
    arguments: above the constructor's own scope, it binds a stand-in name for each value a
    caller wrote (``epochs``, ``args.epochs``), whose source is that expression in the
    caller's scope."""

    stand_ins: dict[str, tuple[ast.expr, Scope]] = field(default_factory=dict)

    def source_of(self, name: str) -> tuple[ast.expr, Scope] | None:
        if name in self.stand_ins:
            return self.stand_ins[name]
        return super().source_of(name)


@dataclass(frozen=True)
class ClassRef:
    """A class (or function) named in a module-level registry dict: its dotted name there."""

    text: str



@dataclass(eq=False)
class ModuleInfo:
    """The top level of one file: imports, functions, classes (one pass, no tracing)."""

    path: str
    tree: ast.Module
    imports: dict[str, str]  # local name -> qualified name
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]
    classes: dict[str, ClassInfo]
    shadowed: set[str] = field(default_factory=set)  # stand-ins for imports (see build)
    # `from .trainer import *`: modules whose public names this one re-exports (a package
    # `__init__` that gathers its modules' classes this way is common in templates)
    star_imports: list[str] = field(default_factory=list)
    # names of the methods this module calls as `self.name(...)`, found once per process (a
    # project module is read by the trace of every file that imports it)
    self_calls: frozenset[str] | None = field(default=None, repr=False)
    # names it calls on a receiver that may be an instance of its own classes (see
    # trace._own_method_calls), found once per process
    own_calls: frozenset[str] | None = field(default=None, repr=False)
    # per name, the top-level statements that store it anywhere inside them (a name bound by
    # an assignment, a loop, a `with`, or inside a function or class body), in order; found
    # once per process (see top_level_binders)
    binders: dict[str, tuple[ast.stmt, ...]] | None = field(default=None, repr=False)
    # names whose torch import wins over a stand-in in another arm of the same `if`/`try`
    # (see build): a later binding of the name (the tracer re-reads the top level) keeps it
    pinned: dict[str, str] = field(default_factory=dict)
    # the loader that finds the project modules this one imports from (set by whoever
    # builds it with one), to read a setting kept in another module (`from config import cfg`)
    loader: ModuleLoader | None = field(default=None, repr=False)
    # directories the module puts on ``sys.path`` itself, written as literals at its top level
    # (``sys.path.append('./Models/')`` before ``from model_v2 import build``): where its
    # plain imports are looked up too, relative to where it may run from (see project.py)
    path_dirs: tuple[str, ...] = ()

    def top_level_binders(self, name: str) -> tuple[ast.stmt, ...]:
        """The statements of the module's top level (``tree.body``) inside which ``name`` is
        stored as a plain name anywhere (``ast.Name`` in a store context, at any depth), in
        their order. Found for every name in one pass over the module, on the first ask."""
        if self.binders is None:
            found: dict[str, list[ast.stmt]] = {}
            for stmt in self.tree.body:
                stored = {n.id for n in ast.walk(stmt)
                          if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                for stored_name in stored:
                    found.setdefault(stored_name, []).append(stmt)
            self.binders = {k: tuple(v) for k, v in found.items()}
        return self.binders.get(name, ())

    @classmethod
    def build(cls, path: str, tree: ast.Module) -> ModuleInfo:
        from lrdoctor.check.records import functional_record  # records reads ClassInfo

        info = cls(path, tree, {}, {}, {})
        fallbacks: set[str] = set()
        # top-level names bound once so far, for the sys.path entries built from them
        bound: dict[str, ast.expr | None] = {}
        dead: set[int] | None = None  # statements in an arm that never runs, read when needed
        for stmt, fallback in top_level(tree.body):
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                info.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.ClassDef):
                info.classes[stmt.name] = class_info(stmt, info)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                info.add_import(stmt)
            else:
                record = functional_record(stmt, info.qualify)
                if record is not None and isinstance(stmt, ast.Assign):
                    # `State = namedtuple("State", [...])`: the class it makes
                    made = class_info(record[1], info)
                    made.made_by = stmt.value
                    info.classes[record[0]] = made
                _attach_method(stmt, info)
                added = sys_path_additions(stmt, info, bound)
                if added and dead is None:
                    dead = _switched_off(tree)
                if added and dead is not None and id(stmt) not in dead:
                    info.path_dirs += tuple(d for d in added if d not in info.path_dirs)
                if isinstance(stmt, ast.Assign):
                    for target in stmt.targets:
                        for node in ast.walk(target):
                            if isinstance(node, ast.Name):
                                # a name bound twice is left out: which value holds is not known
                                single = len(stmt.targets) == 1 and target is node
                                bound[node.id] = stmt.value if single and node.id not in bound \
                                    else None
            if fallback and isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef,
                                              ast.ClassDef)):
                fallbacks.add(stmt.name)
        # `try: from x import OneCycleLR` / `except ImportError: class OneCycleLR: ...`: the
        # stand-in only runs where the library is missing; the real import is what trains
        for name in fallbacks & set(info.imports):
            info.functions.pop(name, None)
            info.classes.pop(name, None)
            info.shadowed.add(name)
        # `if torch.__version__ >= "1.6": from torch.cuda.amp import GradScaler` / `else: from
        # .amp_dummy import GradScaler`: the same stand-in rule for imports. Where the arms of
        # one `if`/`try` bind a name, one from torch and another from elsewhere, the other
        # runs only where torch lacks it; the torch import is what trains (the last binding
        # in the file would otherwise win)
        for stmt, _ in top_level(tree.body):
            for name, qual in _torch_alternatives(stmt).items():
                info.imports[name] = info.pinned[name] = qual
        return info

    @cached_property
    def literal_settings(self) -> dict[str, dict[Any, Any]]:
        """Dicts of literals the module binds once at its top level and changes nowhere
        (``CFG = {"scheduler": "step", "epochs": 90}``): name -> the dict written out."""
        return _literal_settings(self.tree)

    def reference(self, text: str) -> Any:
        """What the dotted name ``text`` names at this module's top level: one of its
        functions or classes, or an import (None when the module does not say)."""
        if text in self.functions:
            return FuncVal(self.functions[text], self)
        if text in self.classes:
            return ClassVal(self.classes[text])
        if text.split(".")[0] in self.imports:
            return ImportRef(self.qualify(text))
        return None

    def qualify(self, text: str) -> str:
        """A dotted name as this module's imports spell it out (``lr_scheduler.StepLR`` after
        ``from torch.optim import lr_scheduler`` is ``torch.optim.lr_scheduler.StepLR``);
        ``text`` itself when its first name is not imported."""
        head, _, rest = text.partition(".")
        imported = self.imports.get(head)
        if imported is None:
            return text
        return f"{imported}.{rest}" if rest else imported

    def add_import(self, stmt: ast.Import | ast.ImportFrom) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    self.imports[alias.asname] = self.pinned.get(alias.asname, alias.name)
                else:
                    root = alias.name.split(".")[0]
                    self.imports[root] = root
            return
        module = stmt.module or ""
        if stmt.level:
            # resolved against the importing file's directory by the project loader
            module = "." * stmt.level + module
        for alias in stmt.names:
            if alias.name == "*":
                if module not in self.star_imports:
                    self.star_imports.append(module)
                continue
            if module.endswith(".") or not module:
                qual = f"{module}{alias.name}"
            else:
                qual = f"{module}.{alias.name}"
            local = alias.asname or alias.name
            self.imports[local] = self.pinned.get(local, qual)


def _dotted_name(node: ast.expr) -> str:
    """``StepLR``, ``lr_scheduler.StepLR``; "" for anything but a dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted_name(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


def _literal_settings(tree: ast.Module) -> dict[str, dict[Any, Any]]:
    """See ModuleInfo.literal_settings: the only binding of the name is a top-level
    ``NAME = {<constant>: <constant, dotted name or lambda>, ...}``, and every other use of
    it reads an item (``NAME["k"]``, ``NAME.get("k")``): no store into it, no method that
    changes it, no ``global NAME``, never handed on (a callee could change it)."""
    found: dict[str, tuple[ast.Name, dict[Any, Any]]] = {}
    dropped: set[str] = set()  # bound twice, or to something else than such a dict
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Dict):
            items: dict[Any, Any] | None = {}
            for k, v in zip(stmt.value.keys, stmt.value.values):
                ref = _dotted_name(v)
                if not (isinstance(k, ast.Constant) and isinstance(k.value, (str, int))
                        and (isinstance(v, (ast.Constant, ast.Lambda)) or ref)) or items is None:
                    items = None
                    break
                items[k.value] = v.value if isinstance(v, ast.Constant) else \
                    v if isinstance(v, ast.Lambda) else ClassRef(ref)
            name = stmt.targets[0].id
            if items is not None and name not in found:
                found[name] = (stmt.targets[0], items)
            else:
                found[name] = (stmt.targets[0], {})
                dropped.add(name)
    if not found:
        return {}
    parents = {id(c): n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            dropped.update(n for n in node.names if n in found)
            continue
        if not (isinstance(node, ast.Name) and node.id in found) or node is found[node.id][0]:
            continue
        up = parents.get(id(node))
        if isinstance(node.ctx, ast.Load) and (
                isinstance(up, ast.Subscript) and up.value is node and isinstance(up.ctx, ast.Load)
                or isinstance(up, ast.Attribute) and up.attr in ("get", "keys", "items", "values")):
            continue
        if isinstance(node.ctx, ast.Load) or _module_level(node, parents):
            dropped.add(node.id)  # handed on, or bound again at the top level
    return {n: items for n, (_, items) in found.items() if n not in dropped}


def lambda_function(node: ast.Lambda) -> ast.FunctionDef:
    """The function a lambda is (``def <lambda>(args): return body``), made once per lambda
    and kept on its node: the trace knows a function by its node's identity."""
    fn = getattr(node, "_lrdoctor_function", None)
    if fn is None:
        ret = ast.Return(value=node.body)
        fn = ast.FunctionDef(name="<lambda>", args=node.args, body=[ret], decorator_list=[],
                             returns=None)
        for made in (ret, fn):
            ast.copy_location(made, node)
        node._lrdoctor_function = fn  # type: ignore[attr-defined]
    return fn  # type: ignore[no-any-return]


def _module_level(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    up = parents.get(id(node))
    while up is not None:
        if isinstance(up, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        up = parents.get(id(up))
    return True


def _arm_imports(body: list[ast.stmt]) -> dict[str, str]:
    """Local name -> qualified name for the imports one arm of an ``if``/``try`` makes."""
    arm = ModuleInfo("", ast.Module(body=[], type_ignores=[]), {}, {}, {})
    for stmt, _ in top_level(body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            arm.add_import(stmt)
    return arm.imports


def _torch_alternatives(stmt: ast.stmt) -> dict[str, str]:
    """The names that alternative arms of ``stmt`` (an ``if``/``else`` or a ``try`` and its
    ``except`` handlers) import both from torch and from somewhere else, with the torch
    binding."""
    if isinstance(stmt, ast.If) and not _is_main_guard(stmt):
        arms = [stmt.body, stmt.orelse]
    elif isinstance(stmt, ast.Try):
        arms = [stmt.body, *(handler.body for handler in stmt.handlers)]
    else:
        return {}
    bindings = [_arm_imports(arm) for arm in arms if arm]
    out: dict[str, str] = {}
    for i, imports in enumerate(bindings):
        for name, qual in imports.items():
            if not qual.startswith("torch."):
                continue
            others = [b[name] for j, b in enumerate(bindings) if j != i and name in b]
            if others and not any(o == "torch" or o.startswith("torch.") for o in others):
                out[name] = qual
    return out


def origin(expr: ast.expr, scope: Scope | None, depth: int, passed: bool = False
           ) -> tuple[ast.expr, Scope | None]:
    """What a bare name stands for: the expression it was assigned from, followed through at
    most ``depth`` names (``total = steps``, ``steps = len(loader) * epochs``), and with
    ``passed`` also through the expression a caller gave a parameter (an ExprVal); ``expr``
    itself (and its scope) when it is no such name."""
    for _ in range(depth):
        if not isinstance(expr, ast.Name) or scope is None:
            break
        found = scope.source_of(expr.id)
        if found is None and passed:
            value = scope.lookup(expr.id)
            if isinstance(value, ExprVal):
                found = value.node, value.scope
            else:
                found = scope.argument_of(expr.id)
        if found is None:
            break
        expr, scope = found
    return expr, scope


def sys_path_additions(stmt: ast.stmt, module: ModuleInfo | None = None,
                       bound: dict[str, ast.expr | None] | None = None) -> list[str]:
    """The directories a statement adds to ``sys.path`` when they are written out:
    ``sys.path.append('./Models/')``, ``sys.path.insert(0, "../lib")``, ``sys.path.extend([...])``,
    ``sys.path += [...]``, each a string or ``os.path.join`` of strings; with the ``module``
    the statement is in, also a directory read from its own file (``os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', 'lib')``, ``Path(__file__).parent /
    'lib'``, through the top-level names ``bound`` before it), as an absolute path. A
    directory computed any other way (a setting, the environment) is not known here."""
    added = _added_exprs(stmt)
    if not added and module is not None:
        added = _helper_added(stmt, module)
    out = [_literal_dir(e) or _file_dir(e, module, bound or {}) for e in added]
    return [d for d in out if d]


def _helper_added(stmt: ast.stmt, module: ModuleInfo) -> list[ast.expr]:
    """The arguments a top-level call of a small helper of the module puts on ``sys.path``
    (``def add_path(path): if path not in sys.path: sys.path.insert(0, path)`` then
    ``add_path(lib_path)``): what the helper adds when it is one of its parameters, read as
    the argument the call gives it. One level: a helper calling another is not followed."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args)):
        return []
    helper = module.functions.get(call.func.id)
    if helper is None or helper.args.vararg or helper.args.kwonlyargs:
        return []
    params = [a.arg for a in helper.args.posonlyargs + helper.args.args]
    given = dict(zip(params, call.args))
    out: list[ast.expr] = []
    for inner in ast.walk(helper):
        if isinstance(inner, ast.stmt) and inner is not helper:
            out += [given[e.id] for e in _added_exprs(inner)
                    if isinstance(e, ast.Name) and e.id in given]
    return out


def _added_exprs(stmt: ast.stmt) -> list[ast.expr]:
    """The expressions a ``sys.path`` statement adds (see ``sys_path_additions``)."""
    added: list[ast.expr] = []
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) \
            and isinstance(stmt.value.func, ast.Attribute) \
            and dotted(stmt.value.func.value) == "sys.path" and not stmt.value.keywords:
        method, args = stmt.value.func.attr, stmt.value.args
        if method == "append" and len(args) == 1:
            added = [args[0]]
        elif method == "insert" and len(args) == 2:
            added = [args[1]]
        elif method == "extend" and len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            added = list(args[0].elts)
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) \
            and dotted(stmt.target) == "sys.path" and isinstance(stmt.value, (ast.List, ast.Tuple)):
        added = list(stmt.value.elts)
    return added


def _literal_dir(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value or None
    if isinstance(expr, ast.Call) and dotted(expr.func) == "os.path.join" and expr.args \
            and not expr.keywords and all(isinstance(a, ast.Constant) and isinstance(a.value, str)
                                          for a in expr.args):
        return "/".join(a.value for a in expr.args) or None  # type: ignore[attr-defined]
    return None


# what keeps a path's place (``os.path.abspath(p)`` of an absolute ``p`` is ``p``, normalised)
_SAME_DIR = frozenset({"os.path.abspath", "os.path.realpath", "os.path.normpath",
                       "os.path.expanduser", "str", "os.fspath"})
_PATH_CLASSES = frozenset({"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"})


def _file_dir(expr: ast.expr, module: ModuleInfo | None, bound: dict[str, ast.expr | None],
              depth: int = 0) -> str | None:
    """The absolute path ``expr`` names when it is built from the module's own ``__file__``
    (see ``sys_path_additions``), or None."""
    if module is None or depth > 12:
        return None
    if isinstance(expr, ast.Name):
        if expr.id == "__file__":
            return os.path.abspath(module.path)
        given = bound.get(expr.id)
        return _file_dir(given, module, bound, depth + 1) if given is not None else None
    if isinstance(expr, ast.Constant):
        return None  # a relative literal: only as a part joined to a known directory
    if isinstance(expr, ast.Attribute):
        if expr.attr in ("parent", "absolute", "resolve"):
            base = _file_dir(expr.value, module, bound, depth + 1)
            return os.path.dirname(base) if base and expr.attr == "parent" else base
        return None
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Attribute) \
            and expr.value.attr == "parents" and isinstance(expr.slice, ast.Constant) \
            and type(expr.slice.value) is int and expr.slice.value >= 0:
        base = _file_dir(expr.value.value, module, bound, depth + 1)
        if base is None:
            return None
        for _ in range(expr.slice.value + 1):
            base = os.path.dirname(base)
        return base
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return _joined(expr.left, [expr.right], module, bound, depth)
    if not isinstance(expr, ast.Call) or expr.keywords:
        return None
    func = expr.func
    if isinstance(func, ast.Attribute) and func.attr in ("resolve", "absolute") and not expr.args:
        return _file_dir(func.value, module, bound, depth + 1)
    name = module.qualify(dotted(func) or "")
    if name == "os.path.join" and expr.args:
        return _joined(expr.args[0], expr.args[1:], module, bound, depth)
    if len(expr.args) != 1:
        return None
    inner = _file_dir(expr.args[0], module, bound, depth + 1)
    if inner is None:
        return None
    if name == "os.path.dirname":
        return os.path.dirname(inner)
    return os.path.normpath(inner) if name in _SAME_DIR or name in _PATH_CLASSES else None


def _joined(first: ast.expr, rest: list[ast.expr], module: ModuleInfo,
            bound: dict[str, ast.expr | None], depth: int) -> str | None:
    """``first`` (a directory read from the file) joined with the literal parts ``rest``."""
    base = _file_dir(first, module, bound, depth + 1)
    parts = [a.value for a in rest if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if base is None or len(parts) != len(rest):
        return None
    return os.path.normpath(os.path.join(base, *parts))


def top_level(body: list[ast.stmt], fallback: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Top-level statements, looking inside ``if``/``try`` blocks (``try: import apex``), each
    with whether it sits in an ``except`` branch (a fallback for a failed import)."""
    for stmt in body:
        yield stmt, fallback
        if isinstance(stmt, ast.If) and not _is_main_guard(stmt):
            yield from top_level(stmt.body, fallback)
            yield from top_level(stmt.orelse, fallback)
        elif isinstance(stmt, ast.Try):
            yield from top_level(stmt.body, fallback)
            for handler in stmt.handlers:
                yield from top_level(handler.body, True)


def _switched_off(tree: ast.Module) -> set[int]:
    """The ids of the top-level statements (see ``top_level``) in the arm of an ``if`` that
    never runs: its test a literal (``if False:``, ``if not 1:``) or a name the module binds
    once, to a literal (``USE_LIB = False`` ... ``if USE_LIB:``)."""
    stores: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores.setdefault(node.id, []).append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                stores.setdefault(name, []).extend([node, node])
    literal: dict[str, object] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and isinstance(stmt.value, ast.Constant) \
                and len(stores.get(stmt.targets[0].id, [])) == 1:
            literal[stmt.targets[0].id] = stmt.value.value

    def outcome(test: ast.expr) -> bool | None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = outcome(test.operand)
            return None if inner is None else not inner
        if isinstance(test, ast.Constant):
            return bool(test.value)
        if isinstance(test, ast.Name) and test.id in literal:
            return bool(literal[test.id])
        return None

    dead: set[int] = set()
    for stmt, _ in top_level(tree.body):
        if isinstance(stmt, ast.If) and not _is_main_guard(stmt):
            known = outcome(stmt.test)
            arm = stmt.body if known is False else stmt.orelse if known is True else []
            for off, _ in top_level(arm):
                dead.add(id(off))
    return dead


def main_guard(left: ast.expr, op: ast.cmpop, right: ast.expr) -> bool:
    """``__name__ == "__main__"``, as a comparison's parts: a script's main guard, which holds
    whenever the script is run."""
    return isinstance(left, ast.Name) and left.id == "__name__" and isinstance(op, ast.Eq) \
        and isinstance(right, ast.Constant) and right.value == "__main__"


def _is_main_guard(stmt: ast.If) -> bool:
    test = stmt.test
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
    )


def literal_setattr(stmt: ast.stmt) -> tuple[ast.expr, str, ast.expr] | None:
    """``setattr(obj, "name", value)`` as a statement, its name a literal identifier: (the
    object, the name, the value), the store ``obj.name = value`` it amounts to (with Python's
    own ``setattr``: the caller checks the name is not rebound); None for anything else."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
            and call.func.id == "setattr" and len(call.args) == 3 and not call.keywords
            and not any(isinstance(a, ast.Starred) for a in call.args)):
        return None
    obj, key, value = call.args
    if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
            and key.value.isidentifier()):
        return None
    return obj, key.value, value


def own_nodes(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Module) -> Iterator[ast.AST]:
    """The nodes of ``fn``'s body (a function's, or a module's top level), not those inside the
    functions, lambdas and classes defined in it (their own statements yielded, not entered)."""
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                 ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def exit_stack_calls(stmt: ast.With | ast.AsyncWith, module: ModuleInfo, method: str
                     ) -> list[tuple[int, ast.Call]]:
    """``with contextlib.ExitStack() as stack:``: (the index in the block, the call) of each
    ``stack.<method>(...)`` statement of the block itself (``enter_context``, ``callback``),
    in order; empty where no item binds an ExitStack."""
    stacks = {
        item.optional_vars.id for item in stmt.items
        if isinstance(item.optional_vars, ast.Name) and isinstance(item.context_expr, ast.Call)
        and module.qualify(dotted(item.context_expr.func) or "") == "contextlib.ExitStack"
    }
    found: list[tuple[int, ast.Call]] = []
    for i, sub in enumerate(stmt.body if stacks else []):
        call = sub.value if isinstance(sub, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                and call.func.attr == method and isinstance(call.func.value, ast.Name) \
                and call.func.value.id in stacks and call.args \
                and not isinstance(call.args[0], ast.Starred):
            found.append((i, call))
    return found


def _attach_method(stmt: ast.stmt, info: ModuleInfo) -> None:
    """``setattr(Trainer, "fit", fit)`` / ``Trainer.fit = fit`` at the top level, on a class
    and a function the module defined before (a notebook writes a class in one cell and its
    methods in later ones): from then on instances run that function as the method. The
    function and class are the ones bound at that point (a later cell may define others)."""
    cls_node: ast.expr | None = None
    name: object = None
    fn_node: ast.expr | None = None
    stored = literal_setattr(stmt)
    if stored is not None:
        cls_node, name, fn_node = stored
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
            and isinstance(stmt.targets[0], ast.Attribute):
        cls_node, name, fn_node = stmt.targets[0].value, stmt.targets[0].attr, stmt.value
    if not (isinstance(cls_node, ast.Name) and isinstance(fn_node, ast.Name)
            and isinstance(name, str) and name.isidentifier()):
        return
    cls = info.classes.get(cls_node.id)
    fn = info.functions.get(fn_node.id)
    if cls is None or fn is None or cls_node.id in info.imports:
        return
    params = fn.args.posonlyargs + fn.args.args
    if not params or any(isinstance(d, ast.Name) and d.id in {"staticmethod", "classmethod"}
                         for d in fn.decorator_list):
        return  # a method needs the instance as its first parameter
    cls.methods[name] = fn


def class_info(node: ast.ClassDef, module: ModuleInfo) -> ClassInfo:
    """What a ``class`` statement makes: at a module's top level when the module is indexed,
    inside a function where the tracer runs it (EDSR's ``make_optimizer`` defines ``class
    CustomOptimizer(torch.optim.Adam)``)."""
    methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods[stmt.name] = stmt
    bases = [dotted(b) or "" for b in node.bases]
    return ClassInfo(node.name, node, module, methods, bases)


def _self_assigns(methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef]) -> dict[str, ast.expr]:
    out: dict[str, ast.expr] = {}
    for method in methods.values():
        for sub in ast.walk(method):
            if isinstance(sub, ast.Assign):
                for target in sub.targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        out[target.attr] = sub.value
    return out


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def super_call(node: ast.AST, *methods: str) -> TypeGuard[ast.Call]:
    """``node`` calls one of ``methods`` of ``super()`` (``super().step()``, ``super(Warmup,
    self).__init__(optimizer)``)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr in methods and is_super(node.func.value)


def is_super(node: ast.AST) -> bool:
    """``node`` is a call of ``super`` (with or without arguments)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "super"


def star_name(star: str, name: str) -> str:
    """The qualified name ``name`` has when it comes from ``from <star> import *`` (``star`` as
    ModuleInfo.star_imports keeps it: ``.`` / ``..pkg`` for relative imports)."""
    return f"{star}{name}" if star.endswith(".") else f"{star}.{name}"


def last_name(node: ast.AST) -> str:
    """The last name of a Name/Attribute chain, or of the callee of a call (``b`` for
    ``a.b`` and ``a.b(...)``); "" for anything else."""
    while isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


class ModuleLoader:
    """Finds and indexes the project modules a file imports from (see ``project.py``)."""

    def module_for(self, qualname: str, importer: ModuleInfo) -> tuple[ModuleInfo, str] | None:
        return None

    def load(self, path: str) -> ModuleInfo | None:
        """The module of a file of the project, by its path. Without a project: none."""
        return None

    def attribute_stored(self, near: str, attr: str) -> bool:
        """Whether a Python file of the project around the file ``near`` may store an attribute
        named ``attr`` (``config.EPOCHS = 30``). Without a project: it may."""
        return True

    def items_stored(self, near: str, name: str) -> bool:
        """Whether a Python file of the project around ``near`` may change the dict named
        ``name`` in place (``SCHED["T_max"] = n``, ``cfg.SCHED.update(...)``). Without a
        project: it may."""
        return True



def parameters_of(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> list[ast.arg]:
    """Every parameter ``fn`` names: positional-only, ordinary, keyword-only, ``*args`` and
    ``**kwargs``."""
    args = fn.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs,
            *([args.vararg] if args.vararg else []), *([args.kwarg] if args.kwarg else [])]
