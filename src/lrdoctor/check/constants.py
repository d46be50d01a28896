"""What a setting stands for when the file says so: a literal, a name assigned one, an
argparse default (``args.lr_step`` with ``add_argument("--lr-step", default=30)``), a key of a
config dict written as a literal (``cfg["AMP"]``), a class-level config constant.

Only values written in the file count; a default can be overridden on the command line, so
rules use these to describe and to judge what the script does as written, never to invent a
value the code does not state.
"""

from __future__ import annotations

import ast
import builtins
import re
import weakref
from typing import Any

from lrdoctor.check.index import ClassInfo, ModuleInfo, Scope, dotted, star_name
from lrdoctor.check.memo import per_node
from lrdoctor.check.records import record_init
from lrdoctor.check.values import Const, ExprVal, ImportRef, InstanceVal
from lrdoctor.check.yamlconf import loaded_data, origin_of, yaml_settings

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
                dest = option_dest(node)
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
            for k, v in _record_items(node.value, module):
                add(k, v)
        elif isinstance(node, ast.ClassDef) and (
                _CONFIG_CLASS.search(node.name) or _record_class(node) is not None):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], ast.Name):
                    add(stmt.targets[0].id, stmt.value)
                elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None \
                        and isinstance(stmt.target, ast.Name):
                    add(stmt.target.id, _field_default(stmt.value, module))
            for attr, value in (_record_class(node) or {}).items():
                add(attr, value)
    out = _agreed(values)
    # the YAML files the module loads: their paths are read from the settings above (this
    # module's `settings` answers with those while its YAML is read), their values join them
    # (a name the Python and a YAML file state differently is left out as well)
    _settings[module] = out
    for name, expr in yaml_settings(module, lambda e: resolve(e, None, module)):
        add(name, expr)
    out = _agreed(values)
    _settings[module] = out
    return out


def _agreed(values: dict[str, list[ast.expr]]) -> dict[str, ast.expr]:
    """The names all of whose stated values are the same expression, with that value."""
    return {
        name: exprs[0] for name, exprs in values.items()
        if all(ast.dump(e) == ast.dump(exprs[0]) for e in exprs)
    }


# library calls that build a record of settings from the mapping or keywords they are given
# (`SimpleNamespace(**{"epochs": 90})`, `EasyDict({...})`, `OmegaConf.create({...})`): its keys
# are the settings' names, as a dict literal's are
_RECORD_BUILDERS = frozenset({
    "dict", "types.SimpleNamespace", "argparse.Namespace", "easydict.EasyDict",
    "omegaconf.OmegaConf.create", "omegaconf.DictConfig", "ml_collections.ConfigDict",
    "munch.Munch", "addict.Dict", "box.Box", "attrdict.AttrDict",
})
_DATACLASS = frozenset({"dataclass", "dataclasses.dataclass"})


def _record_items(value: ast.expr, module: ModuleInfo) -> list[tuple[str, ast.expr]]:
    """(key, expression) of a dict literal, or of a record built by one of _RECORD_BUILDERS
    from a dict literal (positional or ``**``; or a name the module binds once to one and
    never changes: ``SimpleNamespace(**defaults)``, ``EasyDict(defaults)``) and keywords."""
    if isinstance(value, ast.Dict):
        return [(k.value, v) for k, v in zip(value.keys, value.values)
                if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    if not isinstance(value, ast.Call) or len(value.args) > 1:
        return []
    func = dotted(value.func)
    if func is None or module.qualify(func) not in _RECORD_BUILDERS:
        return []
    out: list[tuple[str, ast.expr]] = []
    for part in [*value.args, *(k.value for k in value.keywords if k.arg is None)]:
        if isinstance(part, ast.Name) and not _mutated(module.tree, part.id):
            part = _module_constant(module, part.id) or part
        out += _record_items(part, module) if isinstance(part, ast.Dict) else []
    out += [(k.arg, k.value) for k in value.keywords if k.arg is not None]
    return out


def _nested_items(value: ast.expr, module: ModuleInfo, depth: int = 0
                  ) -> list[tuple[str, ast.expr]]:
    """The items of a record (see _record_items) and those of the records nested in it, at
    any depth (``{"train": {"amp": True}}`` and ``SimpleNamespace(train=SimpleNamespace(amp=
    True))`` state ``train`` and ``amp``): a setting is known by its last key, read at one
    level or more (``cfg["train"]["amp"]``, ``cfg.train.amp``)."""
    items = _record_items(value, module)
    if depth < 4:
        for _, inner in list(items):
            items += _nested_items(inner, module, depth + 1)
    return items


def _field_default(value: ast.expr, module: ModuleInfo) -> ast.expr:
    """A dataclass field's default: ``field(default=x)`` and ``field(default_factory=lambda:
    x)`` are ``x``; anything else is itself."""
    if isinstance(value, ast.Call) and module.qualify(dotted(value.func) or "") in (
            "field", "dataclasses.field"):
        for kw in value.keywords:
            if kw.arg == "default":
                return kw.value
            if kw.arg == "default_factory" and isinstance(kw.value, ast.Lambda):
                return kw.value.body
    return value


def _record_class(node: ast.ClassDef) -> dict[str, ast.expr] | None:
    """A class that only holds values, whatever its name: a dataclass, a body of nothing but
    assignments, or such a body with an ``__init__(self)`` (no other parameter) that only
    stores ``self.x = ...``. Those stores (name -> expression); None for any other class."""
    plain = all(dotted(b) == "object" for b in node.bases) and not node.keywords
    if any((dotted(d.func if isinstance(d, ast.Call) else d) or "").split(".")[-1] == "dataclass"
           for d in node.decorator_list):
        plain = True
    elif node.decorator_list:
        return None
    if not plain:
        return None
    stores: dict[str, ast.expr] = {}
    for stmt in node.body:
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Pass)) or (
                isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)):
            continue
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__"
                and not stmt.decorator_list and len(stmt.args.args) == 1
                and not (stmt.args.posonlyargs or stmt.args.kwonlyargs or stmt.args.vararg
                         or stmt.args.kwarg)):
            return None
        self_name = stmt.args.args[0].arg
        for sub in stmt.body:
            if isinstance(sub, ast.Assign) and len(sub.targets) == 1 \
                    and isinstance(sub.targets[0], ast.Attribute) \
                    and isinstance(sub.targets[0].value, ast.Name) \
                    and sub.targets[0].value.id == self_name:
                stores[sub.targets[0].attr] = sub.value
            elif not (isinstance(sub, ast.Pass) or isinstance(sub, ast.Expr)
                      and isinstance(sub.value, ast.Constant)
                      or _leaves_self_alone(sub, self_name)):
                return None
    return stores


def _leaves_self_alone(stmt: ast.stmt, self_name: str) -> bool:
    """A statement of a record class's ``__init__`` that binds none of the instance's
    attributes: a side effect on what they hold (``if not self.out_dir.exists():
    self.out_dir.mkdir(parents=True)``, ``os.makedirs(self.log_dir, exist_ok=True)``,
    ``print(...)``). A statement that stores or deletes an attribute of the instance
    (``self.x = ...`` under an ``if``), calls one of its methods (``self.setup()``), hands the
    instance on whole (``setattr(self, ...)``, ``vars(self)``, ``register(self)``), reaches its
    ``__dict__``, rebinds its name or returns leaves the values unknown."""
    if not isinstance(stmt, (ast.Expr, ast.If, ast.For, ast.While, ast.With, ast.Try)):
        return False
    bases: set[int] = set()  # the instance's names read as an attribute's base
    names: list[ast.Name] = []
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal,
                             ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return False
        if isinstance(node, ast.Attribute):
            if node.attr == "__dict__":
                return False
            if isinstance(node.value, ast.Name) and node.value.id == self_name:
                if not isinstance(node.ctx, ast.Load):
                    return False
                bases.add(id(node.value))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == self_name:
            return False  # `self.setup()`: a method of the instance may store anything
        elif isinstance(node, ast.Name) and node.id == self_name:
            names.append(node)
    return all(isinstance(n.ctx, ast.Load) and id(n) in bases for n in names)


@per_node
def attribute_stores(tree: ast.AST) -> dict[str, int]:
    """How often each attribute name is stored (``x.name = ...``, ``x.name += ...``,
    ``del x.name``, ``setattr(x, "name", ...)``) anywhere in a module; a ``setattr`` /
    ``delattr`` with a computed name counts under ``"*"``, and every ``setattr`` / ``delattr``
    of an object named by a plain name once more under ``"@name"`` (whatever it sets)."""
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            counts[node.attr] = counts.get(node.attr, 0) + 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("setattr", "delattr") and len(node.args) > 1:
            name = node.args[1]
            key = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) \
                else "*"
            counts[key] = counts.get(key, 0) + 1
            if isinstance(node.args[0], ast.Name):
                held = "@" + node.args[0].id
                counts[held] = counts.get(held, 0) + 1
    return counts


@per_node
def _instance_stores(tree: ast.AST) -> dict[str, int]:
    """How often each attribute name is stored on an instance by its own method: ``self.x =
    ...`` where ``self`` is the first parameter of a method (not a classmethod's ``cls``, not
    a staticmethod's first argument). Such a store sets the instance's attribute and never
    the class attribute of that name that code reads through the class (``CFG.scheduler``)."""
    counts: dict[str, int] = {}
    seen: set[int] = set()  # a method of a class defined inside a method is walked twice
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    or not method.args.args or any(
                        dotted(d) in ("classmethod", "staticmethod")
                        for d in method.decorator_list):
                continue
            me = method.args.args[0].arg
            if any(isinstance(n, (ast.Global, ast.Nonlocal)) or (
                    isinstance(n, ast.Name) and n.id == me and not isinstance(n.ctx, ast.Load))
                   for n in ast.walk(method)):
                continue  # `self` rebound in the method: it may stand for anything there
            for node in ast.walk(method):
                if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load) \
                        and isinstance(node.value, ast.Name) and node.value.id == me \
                        and id(node) not in seen:
                    seen.add(id(node))
                    counts[node.attr] = counts.get(node.attr, 0) + 1
    return counts


@per_node
def class_attribute_stores(tree: ast.AST) -> dict[str, int]:
    """attribute_stores, less the stores an instance makes on itself in its own methods
    (``self.scheduler = scheduler`` in a trainer's ``__init__``): what may change a class
    attribute read through the class."""
    own = _instance_stores(tree)
    return {attr: n - own.get(attr, 0) for attr, n in attribute_stores(tree).items()}


def class_constant_of(info: ClassInfo, attr: str, reader: ModuleInfo) -> Const | None:
    """``CFG.scheduler`` read from the class itself: the one literal its body binds to the
    name (``class CFG: scheduler = "cosine"``), when no attribute of that name is stored, set
    or deleted anywhere in the class's module or the reading one (``CFG.scheduler = ...``,
    ``setattr(x, "scheduler", ...)``, a ``setattr`` with a computed name; not an instance's
    ``self.scheduler = ...`` in its own method), the class is given
    to no ``setattr`` / ``delattr`` there, and it defines no method of that name; None
    otherwise (a value that can change is not known). Unlike a setting (an argparse default a
    command line can change), the class states the value for the program as written."""
    values: list[ast.expr | None] = []
    for stmt in info.node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if stmt.name == attr:
                values.append(None)
            continue
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
        elif isinstance(stmt, ast.AnnAssign):
            targets = [stmt.target]
        else:
            continue
        for target in targets:
            if any(isinstance(n, ast.Name) and n.id == attr for n in ast.walk(target)):
                values.append(stmt.value)
    if len(values) == 1 and values[0] is not None and _rebinds_nested(info.node.body, attr):
        # rebound under an `if` of the body: what the body leaves there (see _class_setting)
        values = [_run_class_body(info.node.body, attr, {}, values[0])]
    if len(values) != 1 or not isinstance(values[0], ast.Constant) \
            or not isinstance(values[0].value, (bool, int, float, str, type(None))):
        return None
    for module in {id(info.module): info.module, id(reader): reader}.values():
        stores = class_attribute_stores(module.tree)
        if stores.get(attr) or stores.get("*") or stores.get("@" + info.name):
            return None
    return Const(values[0].value, sure=True)


def yaml_data(module: ModuleInfo, call: ast.Call) -> tuple[Any, str] | None:
    """The mapping the YAML loader ``call`` of ``module`` returns (or the config its
    ``@hydra.main(...)`` decorator composes), with its file, when the file it reads is certain
    (see yamlconf.loaded_data); None otherwise."""
    return loaded_data(module, call, lambda e: resolve(e, None, module))


def yaml_origin(expr: ast.expr | None, module: ModuleInfo | None) -> str:
    """The YAML file (relative to the project root) that states the value of the setting
    ``expr`` reads (``cfg["step_size"]`` with ``step_size: 30`` in ``configs/train.yaml``
    loaded by ``module``); "" when the value is written in Python or not known."""
    if origin_of(expr):
        return origin_of(expr)  # a YAML value written into a call (see check/instantiate.py)
    name = setting_name(expr) if expr is not None else ""
    if not name or module is None:
        return ""
    return origin_of(settings(module).get(name))


def option_dest(call: ast.Call) -> str:
    """The name an argparse ``add_argument`` (or absl ``DEFINE_*``) call stores its value under:
    ``dest=``, else the first long flag, else the positional name."""
    for kw in call.keywords:
        if kw.arg == "dest" and isinstance(kw.value, ast.Constant) \
                and isinstance(kw.value.value, str):
            return kw.value.value
    flags = [a.value for a in call.args if isinstance(a, ast.Constant)
             and isinstance(a.value, str)]
    if isinstance(call.func, ast.Attribute) and call.func.attr.startswith("DEFINE_"):
        return flags[0] if flags else ""
    long = next((f for f in flags if f.startswith("--")), None)
    if long is not None:
        return long[2:].replace("-", "_")
    plain = next((f for f in flags if not f.startswith("-")), None)
    return plain or ""


def setting_name(expr: ast.expr) -> str:
    """``lr_step`` for ``args.lr_step``, ``cfg["lr_step"]``, ``cfg.get("lr_step", 30)``
    (``cfg["sched"].get("lr_step")``), ``getattr(args, "lr_step", 30)``; "" for anything
    else."""
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
    if isinstance(expr, ast.Call) and expr.args:
        func = dotted(expr.func) or ""
        first = expr.args[1] if func == "getattr" and len(expr.args) > 1 else expr.args[0]
        getter = isinstance(expr.func, ast.Attribute) and expr.func.attr == "get"
        if (func == "getattr" or getter) and isinstance(first, ast.Constant) \
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
                if isinstance(expr.op, ast.Add):
                    return left + right
                if isinstance(expr.op, ast.Sub):
                    return left - right
                if isinstance(expr.op, ast.FloorDiv):
                    return left // right
            except (ArithmeticError, ValueError):
                return _MISSING
        return _MISSING
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
            and expr.func.id in ("int", "round") and len(expr.args) == 1 and not expr.keywords:
        # `int(0.6 * args.epochs)`: a milestone written as a share of a stated count
        inner = _resolve(expr.args[0], scope, module, depth + 1)
        if _number(inner) and (scope is None or expr.func.id not in _local_names(scope)):
            try:
                return int(inner) if expr.func.id == "int" else round(inner)
            except (ArithmeticError, ValueError):
                return _MISSING
        return _MISSING
    if isinstance(expr, ast.Name):
        if scope is not None:
            found = scope.source_of(expr.id)
            if found is not None:
                return _resolve(found[0], found[1], module, depth + 1)
            # a parameter: the literal its caller passed, or the caller's expression (a
            # setting such as `args.step_size` handed to a builder), read in the caller's scope
            held = _held(scope, expr.id)
            if isinstance(held, Const) and held.sure:
                return held.value
            if isinstance(held, ExprVal) and held.node is not expr:
                return _resolve(held.node, held.scope, None, depth + 1)
        if module is not None:
            assigned = _module_constant(module, expr.id)
            if assigned is not None:
                return _resolve(assigned, None, module, depth + 1)
            if _imports(module, expr.id) and (scope is None
                                              or expr.id not in _local_names(scope)):
                # `from config import EPOCHS`: the one top-level assignment of that module
                bound = _imported_binding(module, expr.id)
                if bound is not None:
                    other, attr = bound
                    assigned = _module_constant(other, attr)
                    if assigned is not None:
                        return _resolve(assigned, None, other, depth + 1)
        return _MISSING
    holder = _holder_name(expr) if isinstance(expr, ast.Attribute) else None
    if holder is not None and scope is not None:
        # `eps=self.eps` in a method, `eps=cfg.eps` after `cfg = OptimConfig(eps=1e-8)`: the
        # one literal the instance holds (`self.eps = eps` in `__init__`, a dataclass field
        # given or left at its default, and no other store of the attribute in the module).
        # Read from outside, only on a record: a class with behaviour states no value. Also
        # through the instance's own attribute (`self.config.accum_steps`, the record its
        # `__init__` stored)
        assert isinstance(expr, ast.Attribute)
        instance = _held(scope, holder) if isinstance(expr.value, ast.Name) \
            else _held_on_self(scope, expr.value)
        if isinstance(instance, InstanceVal) and (
                instance is scope.self_val or _plain_record(instance.info)):
            held = instance.attrs.get(expr.attr)
            if isinstance(held, Const) and held.sure:
                return held.value
            if held is None and expr.attr not in instance.attrs \
                    and instance is not scope.self_val and module is not None:
                # `def main(cfg: TrainConfig = TrainConfig())` with the record class imported
                # from the project's config module: a field no one gave a value holds the
                # class's default, read as in its own module (as the module's own record
                # classes are read, through settings())
                info = instance.info
                value = _class_setting(info.node, expr.attr, info.module)
                if value is not None and not any(
                        _changed_in(where, held_as, expr.attr, (), own)
                        for where, held_as, own in (
                            (info.module, info.name, _own_stores(info.node, expr.attr)),
                            (module, holder, 0))):
                    return _resolve(value, None, info.module, depth + 1)
    if isinstance(expr, ast.Attribute) and module is not None:
        # `config.EPOCHS` after `from utils import config`, `utils.config.EPOCHS` after
        # `import utils.config`: a top-level constant of another module of the project
        constant = _module_attribute(expr, scope, module)
        if constant is not None:
            return _resolve(constant[0], None, constant[1], depth + 1)
    name = setting_name(expr)
    root, path = _setting_path(expr)
    if name and path and isinstance(root, ast.Name) and module is not None:
        # `cfg["sched"]["step_size"]`, `cfg.sched.step_size`: read through the records the
        # holder's own binding nests
        nested = _nested_setting(expr, root, path, scope, module)
        if nested is not None:
            return _resolve(nested[0], nested[1], nested[2], depth + 1)
    if name and module is not None:
        stated = settings(module).get(name)
        if stated is not None:
            return _resolve(stated, None, module, depth + 1)
        kept = _imported_setting(expr, name, scope, module) or parsed_setting(
            name, root, scope, module)
        if kept is not None:
            return _resolve(kept[0], None, kept[1], depth + 1)
        if isinstance(expr, ast.Call) and len(expr.args) > (2 if dotted(expr.func) == "getattr"
                                                            else 1):
            fallback = expr.args[2 if dotted(expr.func) == "getattr" else 1]
            return _resolve(fallback, scope, module, depth + 1)
    if name and isinstance(root, ast.Name) and scope is not None \
            and root.id in _local_names(scope):
        # `mode=cfg.mode` in a builder whose caller handed it its `args` (in a module of its
        # own): the same setting read through what the caller passed, where the caller wrote it
        given = scope.argument_of(root.id)
        if given is not None and isinstance(given[0], (ast.Name, ast.Attribute)) \
                and given[0] is not root:
            rerooted = _rerooted(expr, root, given[0])
            if rerooted is not None:
                return _resolve(rerooted, given[1], None, depth + 1)
    return _MISSING


def _rerooted(expr: ast.expr, root: ast.Name, holder: ast.expr) -> ast.expr | None:
    """``expr`` (a setting read from ``root``: ``cfg.mode``, ``cfg["sched"]["mode"]``,
    ``cfg.get("mode", "min")``) read from ``holder`` instead; None for another shape."""
    if expr is root:
        return holder
    made: ast.expr | None
    if isinstance(expr, ast.Attribute):
        inner = _rerooted(expr.value, root, holder)
        made = ast.Attribute(inner, expr.attr, ast.Load()) if inner is not None else None
    elif isinstance(expr, ast.Subscript):
        inner = _rerooted(expr.value, root, holder)
        made = ast.Subscript(inner, expr.slice, ast.Load()) if inner is not None else None
    elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        inner = _rerooted(expr.func.value, root, holder)
        made = ast.Call(ast.Attribute(inner, expr.func.attr, ast.Load()), expr.args,
                        expr.keywords) if inner is not None else None
    else:
        return None
    return ast.copy_location(made, expr) if made is not None else None


def module_number(expr: ast.expr, scope: Scope | None) -> int | float | None:
    """The number a project module states at its top level and ``expr`` reads, as written:
    ``EPOCHS`` assigned once in the reading module or imported from a project module (``from
    config import EPOCHS``), ``config.EPOCHS`` after ``import config``, or an entry of a
    top-level dict of such a module read with a literal key (``config.SCHED["T_max"]`` with
    ``SCHED = dict(T_max=200, ...)`` or ``{"T_max": 200, ...}``) that no module of the project
    stores into. A number the program's own source fixes, not a setting a run chooses (an
    argparse default, a YAML value): None for those, and for a name the reading function binds
    itself."""
    module = scope.module if scope is not None else None
    if module is None:
        return None
    key: Any = None
    holder = expr
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) \
            and isinstance(expr.slice.value, str):
        key, holder = expr.slice.value, expr.value
    found: tuple[ast.expr, ModuleInfo] | None = None
    if isinstance(holder, ast.Name):
        if scope is not None and holder.id in _local_names(scope):
            # a parameter: what its caller passed, read where the caller wrote it
            # (`Pipeline(model, config.SCHED)` then `T_max=sched_cfg["T_max"]`)
            held = _held(scope, holder.id)
            if isinstance(held, ImportRef) and module.loader is not None:
                # the caller handed on a top-level name of a project module (`config.SCHED`)
                named = module.loader.module_for(held.qualname, module)
                if named is None or "." in named[1] \
                        or module.loader.attribute_stored(named[0].path, named[1]):
                    return None
                assigned = _module_constant(named[0], named[1])
                if assigned is None:
                    return None
                if key is not None:
                    entry = _dict_entry(assigned, key)
                    if entry is None or module.loader.items_stored(named[0].path, named[1]):
                        return None
                    assigned = entry
                return _number_of(assigned)
            if not isinstance(held, ExprVal) or held.node is holder \
                    or isinstance(held.node, ast.Subscript):
                return None
            passed: ast.expr = held.node if key is None else ast.Subscript(
                value=held.node, slice=ast.Constant(key), ctx=ast.Load())
            return module_number(passed, held.scope)
        own = _module_constant(module, holder.id)
        if own is not None:
            found = own, module
        elif _imports(module, holder.id):
            bound = _imported_binding(module, holder.id)
            if bound is not None:
                assigned = _module_constant(bound[0], bound[1])
                if assigned is not None:
                    found = assigned, bound[0]
    elif isinstance(holder, ast.Attribute) and key is None:
        found = _module_attribute(holder, scope, module)
    elif isinstance(holder, ast.Attribute):
        found = _module_dict(holder, scope, module)
    if found is None:
        return None
    value, where = found
    if key is not None:
        entry = _dict_entry(value, key)
        spelled = holder.id if isinstance(holder, ast.Name) else getattr(holder, "attr", "")
        if entry is None or module.loader is None \
                or module.loader.items_stored(where.path, spelled):
            return None
        value = entry
    return _number_of(value)


def _number_of(expr: ast.expr) -> int | float | None:
    """The int or float a literal states (not a bool)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) \
            and not isinstance(expr.value, bool):
        return expr.value
    return None


def _module_dict(expr: ast.Attribute, scope: Scope | None, module: ModuleInfo
                 ) -> tuple[ast.expr, ModuleInfo] | None:
    """The top-level dict (a literal or a ``dict(...)`` call of keywords) that ``mod.NAME``
    reads in a project module imported by the reading one, and that module."""
    found = _imported_assignment(expr, scope, module)
    if found is None or found[3].count(".") != 1:
        return None
    return found[0], found[1]


def _dict_entry(value: ast.expr, key: str) -> ast.expr | None:
    """The expression a dict literal or a ``dict(k=v, ...)`` call (no ``**``) gives ``key``."""
    if isinstance(value, ast.Dict):
        if any(k is None for k in value.keys):
            return None
        hits = [v for k, v in zip(value.keys, value.values)
                if isinstance(k, ast.Constant) and k.value == key]
        return hits[0] if len(hits) == 1 else None
    if isinstance(value, ast.Call) and dotted(value.func) == "dict" and not value.args \
            and all(k.arg is not None for k in value.keywords):
        hits = [k.value for k in value.keywords if k.arg == key]
        return hits[0] if len(hits) == 1 else None
    return None


def _holder_name(expr: ast.Attribute) -> str | None:
    """The name the instance an attribute is read from goes by: ``cfg`` in ``cfg.eps``, and
    ``config`` in ``self.config.eps``."""
    value = expr.value
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) \
            and value.value.id == "self":
        return value.attr
    return None


def _held_on_self(scope: Scope, node: ast.expr) -> Any:
    """What the instance a method runs on holds as ``self.<name>`` (``node``), where the
    trace knows it."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        return None
    me = scope.self_val if isinstance(scope.self_val, InstanceVal) else None
    if me is None or _held(scope, node.value.id) is not me:
        return None
    return me.attrs.get(node.attr)


def _plain_record(cls: ClassInfo) -> bool:
    """A dataclass or NamedTuple whose ``__init__`` Python writes, and whose own methods (but
    ``__post_init__``) only read the instance (``def is_last_epoch(self, epoch): return epoch
    == self.num_epochs - 1``): its instances only hold what they are given, whichever of
    those methods the program calls on them."""
    return record_init(cls) is not None and all(
        name in ("__post_init__", "__attrs_post_init__") or _reads_self_only(method)
        for c in cls.lineage() for name, method in c.methods.items())


def _reads_self_only(method: ast.AST) -> bool:
    """A method that cannot change the instance it runs on: a plain method (no classmethod or
    staticmethod: their first parameter is not the instance) that never stores, deletes or
    ``setattr``s an attribute of its first parameter, never reaches its ``__dict__`` / ``vars``
    / ``__setattr__``, never rebinds it, and hands it to no call (``register(self)``,
    ``self.helper()`` itself stays allowed: the helper is a method checked the same way)."""
    if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args \
            or any(dotted(d) in ("classmethod", "staticmethod") for d in method.decorator_list):
        return False
    me = method.args.args[0].arg
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id == me and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, ast.Attribute) and node.attr in ("__dict__", "__setattr__",
                                                              "__delattr__"):
            return False
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == me and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == me
                for a in (*node.args, *(k.value for k in node.keywords))):
            return False  # `setattr(self, ...)`, `vars(self)`, `register(self)`
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return False
    return True


def _held(scope: Scope, name: str) -> Any:
    """What the innermost scope that binds ``name`` holds for it (None when none does)."""
    inner: Scope | None = scope
    while inner is not None:
        if name in inner.vars:
            return inner.vars[name]
        inner = inner.parent
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def string_table(expr: ast.expr, scope: Scope | None, module: ModuleInfo | None = None
                 ) -> dict[str, str] | None:
    """The mapping of strings to strings that ``expr`` names: a top-level ``NAME = {"k":
    "V", ...}`` of its module, or of the project module it is imported from (``from
    configs import KINDS``), that no module changes in place. None for anything else (a
    parameter, a local, a dict with other keys or values)."""
    if not isinstance(expr, ast.Name):
        return None
    if module is None and scope is not None:
        module = scope.module
    if module is None or (scope is not None and expr.id in _local_names(scope)):
        return None
    where, name = module, expr.id
    assigned = _module_constant(module, name)
    if assigned is None and _imports(module, name):
        bound = _imported_binding(module, name)
        if bound is None:
            return None
        where, name = bound
        assigned = _module_constant(where, name)
    if not isinstance(assigned, ast.Dict) or not assigned.keys or _mutated(where.tree, name):
        return None
    table: dict[str, str] = {}
    for key, value in zip(assigned.keys, assigned.values):
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str)
                and isinstance(value, ast.Constant) and isinstance(value.value, str)):
            return None
        table[key.value] = value.value
    return table


def module_assignment(module: ModuleInfo, name: str) -> ast.expr | None:
    """The one module-level assignment of ``name`` (None when assigned more than once)."""
    return _module_constant(module, name)


def _local_names(scope: Scope) -> set[str]:
    """The names a function scope (and those around it, up to the module) binds itself."""
    names: set[str] = set()
    current: Scope | None = scope
    while current is not None and current.parent is not None:
        names |= set(current.vars) | set(current.sources)
        current = current.parent
    return names


@per_node
def _top_level_names(tree: ast.Module) -> frozenset[str]:
    """The names a module binds at its top level (under ``if`` / ``try`` / ``with`` / ``for``
    too, not inside functions and classes), star imports apart."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
            continue
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*")
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.stmt) and node is not stmt:
                pending.append(node)
    return frozenset(names)


def _import_qual(module: ModuleInfo, name: str, depth: int = 0) -> str | None:
    """The qualified name a global of ``module`` that it does not bind itself is imported
    as: ``config.cfg`` for ``from config import cfg``, and also for ``from config import *``
    when that project module binds ``cfg`` (the last star import that does, as Python binds
    them in order; followed through the star imports of the star-imported module)."""
    qual = module.imports.get(name)
    if qual is not None or not module.star_imports or name.startswith("_") \
            or module.loader is None or depth > 3 or name in _top_level_names(module.tree):
        return qual
    for star in reversed(module.star_imports):
        qual = star_name(star, name)
        found = module.loader.module_for(qual, module)
        if found is None:
            continue
        other = found[0]
        if name in _top_level_names(other.tree) or _import_qual(other, name, depth + 1):
            return qual
    return None


def _imports(module: ModuleInfo, name: str) -> bool:
    """Whether ``name`` is a global ``module`` imports (by name or through a star import)."""
    return _import_qual(module, name) is not None


def _imported_binding(module: ModuleInfo, name: str, depth: int = 0
                      ) -> tuple[ModuleInfo, str] | None:
    """The project module and top-level name that ``name``, imported by ``module`` (``from
    config import cfg``, or ``from config import *``), stands for, following re-exports
    (``from .base import cfg`` in a package's ``__init__``, a star import's own star imports);
    None when it is no project module's or cannot be found."""
    loader = module.loader
    qual = _import_qual(module, name)
    if loader is None or qual is None or depth > 3:
        return None
    found = loader.module_for(qual, module)
    if found is None:
        return None
    other, attr = found
    if attr not in other.classes and attr not in other.functions \
            and _module_constant(other, attr) is None and (
                attr in other.imports
                or (other.star_imports and attr not in _top_level_names(other.tree))):
        # a re-export, by name or through the module's own star imports
        return _imported_binding(other, attr, depth + 1)
    return other, attr


def _holder(expr: ast.expr) -> ast.expr | None:
    """What a setting is read from: ``cfg`` of ``cfg.lr``, ``cfg["lr"]``, ``cfg.get("lr")``,
    ``getattr(cfg, "lr")``."""
    if isinstance(expr, (ast.Attribute, ast.Subscript)):
        return expr.value
    if isinstance(expr, ast.Call) and expr.args:
        if dotted(expr.func) == "getattr":
            return expr.args[0]
        if isinstance(expr.func, ast.Attribute):
            return expr.func.value
    return None


def _setting_path(expr: ast.expr) -> tuple[ast.expr | None, tuple[str, ...]]:
    """What a setting is first read from and the keys of the records nested in it on the
    way: (``cfg``, ("train",)) for ``cfg["train"]["amp"]``, ``cfg.train.amp``,
    ``cfg["train"].get("amp")``; (``cfg``, ()) for ``cfg.amp``."""
    holder = _holder(expr)
    path: list[str] = []
    while isinstance(holder, (ast.Attribute, ast.Subscript)) and setting_name(holder):
        path.insert(0, setting_name(holder))
        holder = holder.value
    return holder, tuple(path)


def _imported_setting(expr: ast.expr, name: str, scope: Scope | None, module: ModuleInfo
                      ) -> tuple[ast.expr, ModuleInfo] | None:
    """The setting ``name`` read from a config object another module of the project binds
    (``from config import cfg`` then ``cfg.lr`` / ``cfg["lr"]``, ``from configs import CFG``
    then ``CFG.lr``): a class whose body binds it once (a config class, a dataclass, a record
    class), or a top-level record (``cfg = dict(lr=...)``, ``{"lr": ...}``, ``SimpleNamespace
    (...)``, ``EasyDict({...})``, an instance of a record class), read as in its own module;
    with the module that holds it. None where the value can change: the attribute stored in
    either module (``cfg.lr = ...``, a ``setattr`` by a computed name), the holder updated
    (``cfg.update(...)``, ``cfg[key] = ...``), or the name bound in the reading function."""
    holder, path = _setting_path(expr)
    if not isinstance(holder, ast.Name) or not _imports(module, holder.id):
        return None
    if scope is not None and holder.id in _local_names(scope):
        return None
    return _record_setting(expr, holder, name, module, _imported_binding(module, holder.id),
                           path)


def record_constant(expr: ast.expr | None, module: ModuleInfo,
                    function: ast.AST | None = None) -> Any:
    """The literal a record states for ``expr`` (``cfg.amp``, ``cfg["amp"]``, ``CFG.amp``):
    a config or record class's one binding, or a key of a record bound once at the top level
    of ``module`` or of the project module it is imported from (``cfg = dict(amp=False)``,
    ``{"amp": False}``, ``SimpleNamespace(...)``, ``EasyDict({...})``, a record class's
    instance), when nothing changes it (see _imported_setting) and ``function`` (the code
    reading it) binds no name of the holder; ``_MISSING`` otherwise. Never an argparse default:
    a command line changes those."""
    if expr is None:
        return _MISSING
    name = setting_name(expr)
    holder, path = _setting_path(expr)
    if not name or not isinstance(holder, ast.Name):
        return _MISSING
    if function is not None and holder.id in _bound_names(function):
        return _MISSING
    if isinstance(expr, ast.Attribute) and holder.id in module.classes and not path:
        found = class_constant_of(module.classes[holder.id], name, module)
        return _MISSING if found is None else found.value
    kept = _top_level_setting(expr, holder, name, module, path)
    if kept is None:
        return _MISSING
    # the literal written in the record itself (`dict(amp=args.amp)` states no value: the
    # command line's)
    value = kept[0]
    return value.value if isinstance(value, ast.Constant) \
        and isinstance(value.value, (bool, int, float, str, type(None))) else _MISSING


def record_literal(expr: ast.expr, module: ModuleInfo, function: ast.AST | None = None
                   ) -> Const | None:
    """The literal a config record states for ``expr`` (see record_constant) as a value a
    test can be decided on (``if CONFIG["scheduler"] == "plateau":`` with ``CONFIG = {
    "scheduler": "cosine", ...}``), or None. Stricter than record_constant: the record must
    also be kept to itself, never bound to a second name nor handed to a function or class of
    the project (either could store into it under another name); handing it to a library
    (``wandb.init(config=CONFIG)``, ``print(CONFIG)``) reads it."""
    return _record_literal(expr, module, function)


@per_node
def _record_literal(expr: ast.expr, module: ModuleInfo, function: ast.AST | None
                    ) -> Const | None:
    value = record_constant(expr, module, function)
    holder, _ = _setting_path(expr)
    if value is not _MISSING and isinstance(holder, ast.Name) \
            and not _shared(module, holder.id, _sections(module, holder.id)):
        return Const(value, sure=True)
    return None


def _sections(module: ModuleInfo, name: str) -> frozenset[str]:
    """The keys of the record ``name`` holds (at any depth) whose values are records
    themselves (``"train"`` of ``{"train": {"amp": True}}``)."""
    bound = _imported_binding(module, name) if _imports(module, name) else (module, name)
    if bound is None:
        return frozenset()
    where, attr = bound
    record = _module_constant(where, attr)
    if record is None:
        return frozenset()
    return frozenset(key for key, value in _nested_items(record, where)
                     if _record_items(value, where))


@per_node
def parent_map(tree: ast.AST) -> dict[int, ast.AST]:
    """The node that holds each node of ``tree`` (for a keyword argument, the call)."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword):
            continue  # its value is mapped to the call below
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                parents[id(kw.value)] = node
    return parents


@per_node
def _loads_in(tree: ast.AST) -> dict[str, list[tuple[ast.Name, ast.AST | None]]]:
    """Each name read in ``tree`` with the node that holds the read (for a keyword argument,
    the call)."""
    parents = parent_map(tree)
    loads: dict[str, list[tuple[ast.Name, ast.AST | None]]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            loads.setdefault(node.id, []).append((node, parents.get(id(node))))
    return loads


def _shared(module: ModuleInfo, name: str, sections: frozenset[str] = frozenset()) -> bool:
    """Whether the module binds the object ``name`` holds, or one of the records nested in it
    under the keys ``sections``, to another name (``cfg = CONFIG``, ``train = CONFIG[
    "train"]``, ``for c in (CONFIG,)``, a return, a default) or gives it to a call that may
    be the project's (one of its functions or classes, a method, a callable held in a
    variable)."""
    parents = parent_map(module.tree)
    for node, up in _loads_in(module.tree).get(name, []):
        read: ast.expr = node
        while isinstance(up, (ast.Subscript, ast.Attribute)) and up.value is read \
                and not isinstance(up.ctx, ast.Del) and setting_name(up) in sections:
            # `CONFIG["train"]`: a record of its own, judged as CONFIG is
            read, up = up, parents.get(id(up))
        if _shares(read, up, module):
            return True
    return False


def _shares(node: ast.expr, up: ast.AST | None, module: ModuleInfo) -> bool:
    """Whether ``up`` (the node holding the record read by ``node``) hands the record on or
    changes it (see _shared)."""
    if isinstance(up, ast.Subscript) and up.value is node:
        return isinstance(up.ctx, ast.Del)  # an item of it (`CONFIG["lr"]`), or a deletion
    if isinstance(up, ast.Attribute) and up.value is node:
        # `CONFIG.get("lr")`, `cfg.lr` of a namespace; `CONFIG.update(...)` changes it
        return up.attr in _CHANGES_IN_PLACE
    if isinstance(up, ast.Call) and node is not up.func and _library_call(up, module):
        return False  # `wandb.init(config=CONFIG)`, `print(CONFIG)`
    return not isinstance(up, (ast.Compare, ast.FormattedValue, ast.Expr))


_CHANGES_IN_PLACE = frozenset({"pop", "popitem", "clear", "update", "setdefault",
                               "__setitem__", "__delitem__", "__setattr__", "__delattr__"})


def _library_call(call: ast.Call, module: ModuleInfo) -> bool:
    """Whether ``call`` calls a builtin or a name imported from outside the project."""
    func = dotted(call.func) or ""
    root = func.split(".")[0]
    if not root or root in module.functions or root in module.classes:
        return False
    if root not in module.imports:
        return "." not in func and hasattr(builtins, root)
    if module.loader is None:
        return True
    return module.loader.module_for(module.imports[root] + func[len(root):], module) is None


def _bound_names(function: ast.AST) -> set[str]:
    """The parameters of a function and the names it stores (nothing for a module)."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return set()
    args = function.args
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    names |= {n.id for n in ast.walk(function)
              if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    return names


def _nested_setting(expr: ast.expr, root: ast.Name, path: tuple[str, ...], scope: Scope | None,
                    module: ModuleInfo) -> tuple[ast.expr, Scope | None, ModuleInfo] | None:
    """The value the record bound to ``root`` holds at ``path`` under the setting ``expr``
    reads (``cfg["sched"]["step_size"]`` with ``cfg = {"sched": {"step_size": 30}}``, in the
    function or at the top level of the module or of the project module it is imported from),
    with the scope and module to read it in; None when it is not written out or may change
    (see _record_setting)."""
    name = setting_name(expr)
    if scope is not None:
        found = scope.source_of(root.id)
        if found is not None:
            record, where = found
            value = _nested_value(record, (*path, name), where.module)
            if value is None or _changed_in(where.module, root.id, name, path):
                return None
            return value, where, where.module
        if root.id in _local_names(scope):
            return None  # a parameter, or a local value the trace does not keep the source of
    kept = _top_level_setting(expr, root, name, module, path)
    return None if kept is None else (kept[0], None, kept[1])


def _top_level_setting(expr: ast.expr, holder: ast.Name, name: str, module: ModuleInfo,
                       path: tuple[str, ...]) -> tuple[ast.expr, ModuleInfo] | None:
    """_record_setting for a record bound at the top level of ``module``, or of the project
    module it is imported from; None when ``holder`` is neither."""
    if _imports(module, holder.id):
        bound = _imported_binding(module, holder.id)
    elif _module_constant(module, holder.id) is not None:
        bound = (module, holder.id)
    else:
        return None
    return _record_setting(expr, holder, name, module, bound, path)


def _nested_value(record: ast.expr, keys: tuple[str, ...], module: ModuleInfo
                  ) -> ast.expr | None:
    """What a record written out (see _record_items) holds under ``keys``, one key per
    level of nesting (``("sched", "step_size")``); None when it is not written out."""
    value: ast.expr | None = record
    for key in keys:
        value = dict(_record_items(value, module)).get(key) if value is not None else None
    return value


_COPIES = frozenset({"copy.deepcopy", "copy.copy", "deepcopy", "vars"})


def parsed_setting(name: str, holder: ast.expr | None, scope: Scope | None,
                    module: ModuleInfo) -> tuple[ast.expr, ModuleInfo] | None:
    """The setting ``name`` of the command line another module of the project parses: the
    holder was bound (in the reading function, maybe through ``copy.deepcopy(args)`` or
    ``vars(args)``) to what a function imported from that module returns, and that function
    calls ``parse_args()``, or the holder is that call itself; the parser's default there (its
    settings()), with that module."""
    if scope is None or not isinstance(holder, (ast.Name, ast.Call)) or module.loader is None:
        return None
    source: ast.expr | None = holder
    for _ in range(4):
        if isinstance(source, ast.Call) and len(source.args) == 1 \
                and dotted(source.func) in _COPIES:
            source = source.args[0]
        if not isinstance(source, ast.Name):
            break
        found = scope.source_of(source.id)
        source = found[0] if found is not None else None
    if not isinstance(source, ast.Call):
        return None
    func = source.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        return _option_class_setting(name, func.value.func, module)  # `Options().parse()`
    if isinstance(func, ast.Name) and func.id in module.imports:
        imported = module.imports[func.id]
    elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id in module.imports:
        imported = f"{module.imports[func.value.id]}.{func.attr}"  # `options.parse_args()`
    else:
        return None
    target = module.loader.module_for(imported, module)
    fn = target[0].functions.get(target[1]) if target is not None else None
    if fn is None or not any(isinstance(n, ast.Attribute) and n.attr in (
            "parse_args", "parse_known_args") for n in ast.walk(fn)):
        return None
    other = target[0]  # type: ignore[index]
    stated = settings(other).get(name)
    return None if stated is None else (stated, other)


def _option_class_setting(name: str, made: ast.expr, module: ModuleInfo
                          ) -> tuple[ast.expr, ModuleInfo] | None:
    """The setting ``name`` of a command line parsed by an options class another module of
    the project defines (``opt = TrainOptions().parse()``, the pix2pix lineage): the class, or
    a base it inherits from (``TrainOptions(BaseOptions)``, each in its own module), has a
    method that calls ``parse_args()``; the parser's default is read in the class's module,
    then in its bases' modules (the subclass adds its own options and may restate one)."""
    if not isinstance(made, ast.Name) or made.id not in module.imports \
            or module.loader is None:
        return None
    target = module.loader.module_for(module.imports[made.id], module)
    info = target[0].classes.get(target[1]) if target is not None else None
    chain = list(info.lineage(limit=3)) if info is not None else []
    if not any(isinstance(n, ast.Attribute) and n.attr in ("parse_args", "parse_known_args")
               for c in chain for n in ast.walk(c.node)):
        return None
    return _chain_setting(name, chain)


def parser_method_setting(name: str, scope: Scope | None) -> tuple[ast.expr, ModuleInfo] | None:
    """The setting ``name`` of the command line a method parses (``return
    parser.parse_args()`` in ``BaseOptions.parse``) where ``scope`` is that method traced for
    an instance of a project class: the default stated in the instance's class's module or in
    its bases' (a ``TrainOptions(BaseOptions)`` adds the training options in its own module)."""
    instance = scope.self_val if scope is not None else None
    if not isinstance(instance, InstanceVal):
        return None
    return _chain_setting(name, list(instance.info.lineage(limit=3)))


def _chain_setting(name: str, chain: list[ClassInfo]) -> tuple[ast.expr, ModuleInfo] | None:
    """The argparse default of ``name`` stated in the module of the first class of ``chain``
    (a class and its project bases, nearest first: ClassInfo.lineage) whose module states
    one."""
    for c in chain:
        stated = settings(c.module).get(name)
        if stated is not None:
            return stated, c.module
    return None


def _record_setting(expr: ast.expr, holder: ast.Name, name: str, module: ModuleInfo,
                    bound: tuple[ModuleInfo, str] | None, path: tuple[str, ...] = ()
                    ) -> tuple[ast.expr, ModuleInfo] | None:
    """The setting ``name`` of the record ``bound`` (its module and top-level name) that
    ``module`` reads through ``holder`` and the keys ``path`` of the records nested in it
    (see _imported_setting)."""
    if path and (bound is None or bound[1] in bound[0].classes):
        return None  # nested records are read from records written as values only
    if bound is None and isinstance(expr, ast.Attribute) and module.loader is not None \
            and holder.id in module.imports:
        # `import config` then `config.EPOCHS`: that module's one top-level assignment
        whole = module.loader.module_for(f"{module.imports[holder.id]}.{name}", module)
        if whole is None or whole[1] != name:
            return None
        assigned = _module_constant(whole[0], name)
        if assigned is None or attribute_stores(module.tree).get(name) \
                or attribute_stores(module.tree).get("*"):
            return None
        return assigned, whole[0]
    if bound is None:
        return None
    other, attr = bound
    value: ast.expr | None = None
    own = 0  # the record class's own stores of the name (`self.lr = 0.1` in its __init__)
    if attr in other.classes:
        node = other.classes[attr].node
        if not (_CONFIG_CLASS.search(node.name) or _record_class(node) is not None):
            return None
        value = _class_setting(node, name, other)
        own = _own_stores(node, name)
    elif attr not in other.functions:
        record = _module_constant(other, attr)
        if record is None:
            return None
        if path:
            # `cfg["train"]["amp"]`: the record written as the value of "train"
            inner = _nested_value(record, path, other)
            if inner is None:
                return None
            record = inner
        items = dict(_record_items(record, other))
        if not items and isinstance(record, ast.Call) and not record.args \
                and not record.keywords and isinstance(record.func, ast.Name) \
                and record.func.id in other.classes:
            # `hp = Hyper()`: the defaults of a record class
            node = other.classes[record.func.id].node
            if _record_class(node) is None:
                return None
            value = _class_setting(node, name, other)
            own = _own_stores(node, name)
        else:
            value = items.get(name)
    if value is None:
        return None
    for where in {id(other): other, id(module): module}.values():
        if _changed_in(where, attr if where is other else holder.id, name, path,
                       own if where is other else 0):
            return None
    return value, other


def _changed_in(where: ModuleInfo, held: str, name: str, path: tuple[str, ...] = (),
                own: int = 0) -> bool:
    """Whether ``where`` may change the setting ``name`` of the record named ``held`` (or of
    the record nested in it at ``path``): more stores of an attribute ``name`` than the
    record class's ``own``, a ``setattr`` by a computed name or on ``held``, the record
    updated in place, a nested record replaced (``cfg.sched = ...``, ``cfg["sched"] =
    {...}``)."""
    stores = attribute_stores(where.tree)
    if stores.get(name, 0) > own or stores.get("*") or stores.get("@" + held) \
            or _updated(where.tree, held, name):
        return True
    return any(stores.get(key) or _updated(where.tree, held, key) for key in path)


def _own_stores(node: ast.ClassDef, name: str) -> int:
    return sum(1 for n in ast.walk(node)
               if isinstance(n, ast.Attribute) and n.attr == name
               and not isinstance(n.ctx, ast.Load))


def _class_setting(node: ast.ClassDef, name: str, module: ModuleInfo) -> ast.expr | None:
    """The one value a config or record class binds to ``name`` (class body or ``__init__(
    self)``, a dataclass field's default); None when it binds it never or more than once.
    A rebinding under an ``if`` of the class body counts where the test is decided by the
    literals the body bound before it (``epochs = 5`` then ``if model_name == "b0": epochs =
    10`` with ``model_name = "b0"``: the body runs top to bottom, and the class holds 10);
    an undecided one, or one in any other statement (a loop, a ``try``), leaves the value
    unknown."""
    values: list[ast.expr] = []
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and stmt.name == name:
            return None
        if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in stmt.targets):
            values.append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id == name and stmt.value is not None:
            values.append(_field_default(stmt.value, module))
    if len(values) == 1 and _rebinds_nested(node.body, name):
        final = _run_class_body(node.body, name, {}, values[0])
        if final is None:
            return None
        values = [final]
    stored = (_record_class(node) or {}).get(name)
    if stored is not None and stored not in values:
        values.append(stored)
    return values[0] if len(values) == 1 else None


def _rebinds_nested(body: list[ast.stmt], name: str) -> bool:
    """Whether a compound statement of the class body (an ``if``, a loop, a ``with``, a
    ``try``) binds ``name`` inside it."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                             ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr)):
            continue
        if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in ast.walk(stmt)):
            return True
    return False


_NOT_DECIDED = object()


def _run_class_body(body: list[ast.stmt], name: str, literals: dict[str, Any],
                    value: ast.expr | None) -> ast.expr | None:
    """The expression ``name`` holds after ``body`` runs, starting from ``value``: plain
    assignments in order, an ``if`` whose test the literals bound so far decide followed
    into the branch it takes; None when a test is not decided, or ``name`` is bound by any
    other statement (a loop, a ``with``, a ``try``, an augmented assignment)."""
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:
                if isinstance(t, ast.Name):
                    if t.id == name:
                        value = stmt.value
                    if isinstance(stmt.value, ast.Constant):
                        literals[t.id] = stmt.value.value
                    else:
                        literals.pop(t.id, None)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if stmt.target.id == name and stmt.value is not None:
                value = stmt.value
            literals.pop(stmt.target.id, None)
        elif isinstance(stmt, ast.If):
            if not any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
                       for n in ast.walk(stmt)):
                continue
            truth = _decided(stmt.test, literals)
            if truth is _NOT_DECIDED:
                return None
            value = _run_class_body(stmt.body if truth else stmt.orelse, name, literals, value)
            if value is None:
                return None
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            literals.pop(stmt.name, None)
        elif any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                 for n in ast.walk(stmt)):
            return None
        else:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                    literals.pop(n.id, None)
    return value


def _decided(test: ast.expr, literals: dict[str, Any]) -> Any:
    """True or False for a test of the class body that the literals bound before it decide
    (``model_name == "b0"``, ``size in (384, 512)``, ``debug``, ``not debug``), else
    _NOT_DECIDED."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _decided(test.operand, literals)
        return inner if inner is _NOT_DECIDED else not inner
    if isinstance(test, ast.Name):
        return bool(literals[test.id]) if test.id in literals else _NOT_DECIDED
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return _NOT_DECIDED
    sides = []
    for side in (test.left, test.comparators[0]):
        if isinstance(side, ast.Name) and side.id in literals:
            sides.append(literals[side.id])
        elif isinstance(side, ast.Constant):
            sides.append(side.value)
        elif isinstance(side, (ast.Tuple, ast.List, ast.Set)) \
                and all(isinstance(e, ast.Constant) for e in side.elts):
            sides.append([e.value for e in side.elts])  # type: ignore[attr-defined]
        else:
            return _NOT_DECIDED
    left, right = sides
    op = test.ops[0]
    try:
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
        if isinstance(op, ast.In) and isinstance(right, list):
            return left in right
        if isinstance(op, ast.NotIn) and isinstance(right, list):
            return left not in right
        if isinstance(op, ast.Lt):
            return left < right
        if isinstance(op, ast.LtE):
            return left <= right
        if isinstance(op, ast.Gt):
            return left > right
        if isinstance(op, ast.GtE):
            return left >= right
    except TypeError:
        return _NOT_DECIDED
    return _NOT_DECIDED


def _updated(tree: ast.AST, holder: str, name: str) -> bool:
    """Whether ``holder`` or a record nested in it is changed in place anywhere in the
    module: ``holder.update(...)``, ``holder["train"].update(...)``, ``holder[key] = ...``
    (``holder["train"][key] = ...``) by a computed key or by ``name``, ``vars(holder)...``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("update", "merge_from_file", "merge_from_list",
                                       "setdefault", "__setattr__", "__setitem__") \
                and _rooted_at(node.func.value, holder):
            return True
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript) and _rooted_at(t.value, holder) and not (
                            isinstance(t.slice, ast.Constant) and t.slice.value != name):
                    return True
        if _changes_its_vars(node, holder):
            return True
    return False


_DICT_CHANGES = frozenset({"update", "pop", "popitem", "setdefault", "clear", "__setitem__",
                           "__delitem__"})


def _vars_of(node: ast.AST | None, holder: str) -> bool:
    return isinstance(node, ast.Call) and dotted(node.func) == "vars" and len(node.args) == 1 \
        and isinstance(node.args[0], ast.Name) and node.args[0].id == holder


def _changes_its_vars(node: ast.AST, holder: str) -> bool:
    """Whether ``node`` changes ``holder`` through the mapping ``vars(holder)`` returns (the
    instance's own ``__dict__``): a method that changes a mapping called on it
    (``vars(cfg).update(...)``), an item stored or deleted in it (``vars(cfg)[k] = v``), or
    the mapping kept under a name, which may be changed later (``d = vars(cfg)``). Reading it
    (``for k, v in vars(cfg).items(): log(k, v)``, ``json.dump(vars(cfg), f)``,
    ``wandb.config.update(vars(cfg))``) changes nothing."""
    if isinstance(node, ast.Attribute) and _vars_of(node.value, holder):
        return node.attr in _DICT_CHANGES
    if isinstance(node, ast.Subscript) and _vars_of(node.value, holder):
        return not isinstance(node.ctx, ast.Load)
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.AugAssign)):
        return _vars_of(node.value, holder)
    return False


@per_node
def _mutated_names(tree: ast.AST) -> frozenset[str]:
    """The names whose objects ``tree`` changes in place: an item or attribute stored or
    deleted (``d["train"]["amp"] = ...``), or a method that changes a mapping called on it
    or on what it holds (``d.update(...)``, ``d["train"].pop("amp")``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _CHANGES_IN_PLACE:
            targets = [ast.Subscript(value=node.func.value, slice=ast.Constant(None))]
        for target in targets:
            if isinstance(target, (ast.Subscript, ast.Attribute)):
                root = read_root(target)
                if root is not None:
                    found.add(root)
    return frozenset(found)


def _mutated(tree: ast.AST, name: str) -> bool:
    return name in _mutated_names(tree)


def read_root(expr: ast.expr) -> str | None:
    """The name an item or attribute is read from, through any nesting (``cfg`` of
    ``cfg["train"].amp``; the name itself for a name); None when it is read from no name."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return expr.id if isinstance(expr, ast.Name) else None


def _rooted_at(expr: ast.expr, holder: str) -> bool:
    """``holder`` itself, or an item or attribute read from it (``holder["train"]``)."""
    return read_root(expr) == holder


def _imported_assignment(expr: ast.Attribute, scope: Scope | None, module: ModuleInfo
                         ) -> tuple[ast.expr, ModuleInfo, str, str] | None:
    """``mod.NAME`` (or ``pkg.mod.NAME``) read through an import of ``module`` that the
    reading ``scope`` does not rebind: the one top-level assignment of ``NAME`` in that other
    project module, the module, ``NAME`` and the chain as written. None when no project module
    holds it, or when the project's Python files store that attribute anywhere (a driver
    writing the parsed options into the config module: the file's literal may not be what
    runs)."""
    chain = dotted(expr)
    loader = module.loader
    if chain is None or loader is None or "." not in chain:
        return None
    head, _, rest = chain.partition(".")
    qual = module.imports.get(head)
    if qual is None or (scope is not None and head in _local_names(scope)):
        return None
    found = loader.module_for(f"{qual}.{rest}", module)
    if found is None:
        return None
    other, attr = found
    if other is module or "." in attr:
        return None
    assigned = _module_constant(other, attr)
    if assigned is None or loader.attribute_stored(other.path, attr):
        return None
    return assigned, other, attr, chain


def _module_attribute(expr: ast.Attribute, scope: Scope | None, module: ModuleInfo
                      ) -> tuple[ast.expr, ModuleInfo] | None:
    """The one top-level assignment of ``NAME`` in the project module that ``mod.NAME`` reads,
    ``mod`` (or ``pkg.mod``) bound by an import of the reading module and not by the reading
    function (``from utils import config`` then ``config.EPOCHS``; ``import utils.config`` then
    ``utils.config.EPOCHS``), and the module that holds it. None when the reading module also
    stores that attribute (``config.EPOCHS = 30`` under a flag) with anything but the same
    literal, or when the chain names no project module."""
    found = _imported_assignment(expr, scope, module)
    if found is None or not isinstance(found[0], ast.Constant):
        return None
    assigned, other, chain = found[0], found[1], found[3]
    for node in ast.walk(module.tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if dotted(target) != chain:
                continue
            value = getattr(node, "value", None)
            if isinstance(node, ast.AugAssign) or not isinstance(value, ast.Constant) \
                    or value.value != assigned.value or type(value.value) is not type(assigned.value):
                return None  # set to another value where it is read
    return assigned, other


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


@per_node
def _fixed_flags_of(tree: ast.AST) -> dict[str, bool | None]:
    """Per argparse ``dest`` the module's ``add_argument`` calls define: the value no command
    line can change (``action="store_true", default=True`` is always True: the flag can only
    set what is already set; ``action="store_false", default=False`` always False), or None
    where a definition can take another value (any other action or default, or two
    definitions that disagree)."""
    out: dict[str, bool | None] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        dest = option_dest(node)
        if not dest:
            continue
        words = {k.arg: k.value for k in node.keywords if k.arg}
        action, default = words.get("action"), words.get("default")
        fixed: bool | None = None
        if isinstance(action, ast.Constant) and isinstance(default, ast.Constant) \
                and not any(k.arg is None for k in node.keywords):
            if action.value == "store_true" and default.value is True:
                fixed = True
            elif action.value == "store_false" and default.value is False:
                fixed = False
        out[dest] = fixed if dest not in out or out[dest] == fixed else None
    return out


def fixed_flag(test: ast.expr, module: ModuleInfo, parsers: list[ModuleInfo]) -> bool | None:
    """The truth of ``test`` when it is a bare flag of a parsed command line (``args.warmup``,
    ``not args.warmup``) that no command line can change (see _fixed_flags_of), as the
    modules ``parsers`` (the one testing it and the project modules it imports) define it,
    and that ``module`` never assigns (``args.warmup = False``); None for anything else."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, not negated
    if not (isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name)):
        return None
    name = test.attr
    if attribute_stores(module.tree).get(name) or attribute_stores(module.tree).get("*"):
        return None
    found = [_fixed_flags_of(m.tree)[name] for m in parsers if name in _fixed_flags_of(m.tree)]
    if not found or any(v is None or v != found[0] for v in found):
        return None
    value = found[0]
    assert value is not None
    return value is not negated
