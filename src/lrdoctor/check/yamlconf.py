"""Settings a program reads from a YAML file of its own project: ``yaml.safe_load(open(
"configs/train.yaml"))``, ``OmegaConf.load(args.config)`` with ``--config`` defaulting to a
path, ``@hydra.main(config_path="conf", config_name="config")`` (with the ``defaults:`` list it
composes), or Hydra's compose API (``with initialize(config_path="conf"): cfg =
compose(config_name="config")``). The file's values are defaults the user runs with, as an
argparse default is.

JSON files read with ``json.load`` / ``json.loads`` likewise (``json.load(open(args.config))``);
a JSON path chosen at run time with no default can name any of the project's JSON files, and
only what all of them state alike is taken.

Data, never code: the file is parsed with PyYAML's safe loader when PyYAML is installed (a JSON
file with ``json.loads`` of a bounded read), and anything uncertain gives nothing (no PyYAML, a path chosen at run time, a file that is missing,
too large or does not parse, a value Hydra would interpolate).
"""

from __future__ import annotations

import ast
import os
import re
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from lrdoctor.check.index import ModuleInfo, dotted
from lrdoctor.check.memo import per_node
from lrdoctor.check.project import project_root

MAX_BYTES = 256 * 1024  # a larger file is no hand-written training config
MAX_NODES = 5000  # mappings and values read from one program's YAML (aliases can repeat them)
MAX_DEFAULTS_DEPTH = 4  # nesting of Hydra `defaults:` lists followed

LOADERS = frozenset({"yaml.safe_load", "yaml.load", "yaml.full_load", "yaml.unsafe_load",
                      "omegaconf.OmegaConf.load", "json.load", "json.loads"})
_JSON_LOADERS = frozenset({"json.load", "json.loads"})
_SUFFIXES = (".yaml", ".yml")
MAX_CANDIDATES = 16  # JSON files a path chosen at run time may name: more, and none is read
MAX_WALK = 4000  # directory entries looked at to find them
# Hydra's compose API: `compose(config_name=...)` inside `with initialize(config_path=...)`
# composes the same config `@hydra.main` with those arguments would
HYDRA_COMPOSE = frozenset({"hydra.compose", "hydra.experimental.compose"})
_HYDRA_INITIALIZE = frozenset({"hydra.initialize", "hydra.experimental.initialize"})

_ORIGIN_ATTR = "_lrdoctor_yaml"  # set on a synthesized literal: the file it came from


def origin_of(expr: ast.expr | None) -> str:
    """The YAML file (as found, relative to the project root) a setting's value came from, or
    "" for a value written in Python."""
    return getattr(expr, _ORIGIN_ATTR, "") if expr is not None else ""


def tag_origin(expr: ast.expr, shown: str) -> None:
    """Mark ``expr`` (a literal made from a YAML value) as stated in the file ``shown``."""
    setattr(expr, _ORIGIN_ATTR, shown)


def yaml_settings(module: ModuleInfo, resolve: Callable[[ast.expr], Any]
                  ) -> list[tuple[str, ast.expr]]:
    """(name, value) of every scalar (or list of scalars) in the YAML files ``module`` loads,
    by its key's name at any depth (``optim: {step_size: 30}`` gives ``step_size``), as an
    ``ast`` literal located at the loading call. ``resolve`` reads a path expression's value
    as the module states it (a literal, a constant, an argparse default)."""
    out: list[tuple[str, ast.expr]] = []
    budget = [MAX_NODES]
    for where, path, data in _loaded(module, resolve, budget):
        for name, value in _leaves(data, budget):
            shown = _shown(value.path if isinstance(value, _Sourced) else path, module)
            node = _literal(value.value if isinstance(value, _Sourced) else value)
            if node is None:
                continue
            ast.copy_location(node, where)
            for sub in ast.walk(node):
                ast.copy_location(sub, where)
            setattr(node, _ORIGIN_ATTR, shown)
            out.append((name, node))
    # past the budget a name stated twice may have been read once: nothing is certain
    return out if budget[0] >= 0 else []


def loaded_data(module: ModuleInfo, call: ast.Call, resolve: Callable[[ast.expr], Any]
                ) -> tuple[Any, str] | None:
    """The mapping a YAML loader call of ``module`` returns (``yaml.safe_load(open(
    "configs/train.yaml"))``, ``OmegaConf.load(args.config)``), or the config a
    ``@hydra.main(...)`` decorator (the call given) composes, with the file it was read from
    (relative to the project root), when the file is certain; None otherwise (no PyYAML, a
    path chosen at run time, a file that does not parse or holds no mapping, more than the
    budget). A composed Hydra config holds its values as ``sourced(...)`` pairs."""
    found = _by_call.get(module)
    if found is None:
        found = {}
        _by_call[module] = found
        budget = [MAX_NODES]
        for where, path, data in _loaded(module, resolve, budget):
            if isinstance(where, ast.Call):
                found[id(where)] = (where, data, _shown(path, module))
        if budget[0] < 0:
            found.clear()
    kept = found.get(id(call))
    return (kept[1], kept[2]) if kept is not None and kept[0] is call else None


def sourced(value: Any, module: ModuleInfo) -> tuple[Any, str] | None:
    """(the value, the file stating it relative to the project root) of a value of a
    composed Hydra config (see loaded_data); None for any other value."""
    if isinstance(value, _Sourced):
        return value.value, _shown(value.path, module)
    return None


_INTERPOLATION = re.compile(r"\$\{([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\}")
UNRESOLVED = object()


def interpolated(text: str, root: Any, depth: int = 0) -> Any:
    """The value OmegaConf gives ``text`` when it is one absolute interpolation of another
    value of the same config (``${trainer.max_epochs}``), read in ``root`` (the whole config as
    composed or loaded); UNRESOLVED for anything else (a resolver such as ``${oc.env:X}``, a
    relative ``${.x}``, text around it, a key that is missing, a chain over 8 long)."""
    match = _INTERPOLATION.fullmatch(text.strip()) if isinstance(text, str) else None
    if match is None or depth > 8:
        return UNRESOLVED
    node = root
    for part in match.group(1).split("."):
        if isinstance(node, _Sourced):
            node = node.value
        if not isinstance(node, dict) or part not in node:
            return UNRESOLVED
        node = node[part]
    plain = node.value if isinstance(node, _Sourced) else node
    if isinstance(plain, str) and "${" in plain:
        return interpolated(plain, root, depth + 1)
    return node


_by_call: weakref.WeakKeyDictionary[ModuleInfo, dict[int, tuple[ast.Call, Any, str]]] = (
    weakref.WeakKeyDictionary()
)


def _loaded(module: ModuleInfo, resolve: Callable[[ast.expr], Any], budget: list[int]
            ) -> Iterator[tuple[ast.AST, str, Any]]:
    """(the loading node, the file, its data) for each YAML file the module loads."""
    here = os.path.dirname(os.path.abspath(module.path))
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Call):
            func = module.qualify(dotted(node.func) or "")
            if func not in LOADERS or not node.args:
                continue
            arg = node.args[0]
            if func != "omegaconf.OmegaConf.load":
                arg = _opened(arg, module.tree)  # type: ignore[assignment]
                if arg is None:
                    continue
            if func in _JSON_LOADERS:
                found = _json_config(arg, resolve, module, here)
                if found is not None:
                    yield node, found[0], found[1]
                continue
            path = _path(arg, resolve, module, here)
            data = _read(path) if path else None
            if isinstance(data, dict):
                yield node, path, data
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and module.qualify(dotted(dec.func) or "") \
                        == "hydra.main":
                    found = _hydra(dec, here, budget)
                    if found is not None:
                        yield dec, found[0], found[1]
        elif isinstance(node, ast.With):
            yield from _composed(module, node, here, budget)


def _composed(module: ModuleInfo, block: ast.With, here: str, budget: list[int]
              ) -> Iterator[tuple[ast.AST, str, Any]]:
    """(the compose call, the file, its data) for each ``compose(config_name=...)`` in the body
    of ``with initialize(config_path=...)``: Hydra composes the config the decorator
    ``@hydra.main(config_path=..., config_name=...)`` would. A compose call given overrides
    (``overrides=["optim.lr=0.1"]``) changes values the file states: not read."""
    init = next((item.context_expr for item in block.items
                 if isinstance(item.context_expr, ast.Call)
                 and module.qualify(dotted(item.context_expr.func) or "") in _HYDRA_INITIALIZE),
                None)
    if init is None:
        return
    path = init.args[0] if init.args else next(
        (k.value for k in init.keywords if k.arg == "config_path"), None)
    for stmt in block.body:
        for node in ast.walk(stmt):
            if not (isinstance(node, ast.Call)
                    and module.qualify(dotted(node.func) or "") in HYDRA_COMPOSE):
                continue
            if any(k.arg is None or k.arg == "overrides" and not (
                    isinstance(k.value, (ast.List, ast.Tuple)) and not k.value.elts)
                   for k in node.keywords) or len(node.args) > 1:
                continue
            name = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "config_name"), None)
            if path is None or name is None:
                continue
            found = _hydra(ast.Call(func=init.func, args=[],
                                    keywords=[ast.keyword("config_path", path),
                                              ast.keyword("config_name", name)]),
                           here, budget)
            if found is not None:
                yield node, found[0], found[1]


def _opened(arg: ast.expr, tree: ast.Module) -> ast.expr | None:
    """The path of the file a YAML loader reads: ``open(p)``, ``open(p).read()``,
    ``Path(p).read_text()``, or ``f`` / ``f.read()`` of the one ``with open(p) as f`` binding
    ``f`` in the module."""
    if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) \
            and arg.func.attr in ("read", "read_text") and not arg.args:
        arg = arg.func.value
    if isinstance(arg, ast.Call) and dotted(arg.func) in ("open", "io.open", "Path",
                                                           "pathlib.Path") and arg.args:
        return arg.args[0]
    if (path := _path_open(arg)) is not None:
        return path
    if isinstance(arg, ast.Name):
        found = [item.context_expr for node in ast.walk(tree) if isinstance(node, ast.With)
                 for item in node.items
                 if isinstance(item.optional_vars, ast.Name)
                 and item.optional_vars.id == arg.id]
        binds = sum(1 for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == arg.id
                    and isinstance(n.ctx, ast.Store))
        if len(found) == 1 and binds == 1 and isinstance(found[0], ast.Call) \
                and dotted(found[0].func) in ("open", "io.open") and found[0].args:
            return found[0].args[0]
        if len(found) == 1 and binds == 1:
            return _path_open(found[0])
    return None


def _path_open(arg: ast.expr) -> ast.expr | None:
    """The path of ``Path(p).open()`` / ``p.open("rt")`` (pathlib's ``open`` of a path held by
    ``p``), read only or in text mode; None for any other expression."""
    if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute)
            and arg.func.attr == "open" and not arg.keywords and len(arg.args) <= 1):
        return None
    if arg.args and not (isinstance(arg.args[0], ast.Constant)
                         and arg.args[0].value in ("r", "rt", "rb")):
        return None
    held = arg.func.value
    if isinstance(held, ast.Call) and dotted(held.func) in ("Path", "pathlib.Path") \
            and len(held.args) == 1 and not held.keywords:
        return held.args[0]
    return held if isinstance(held, (ast.Name, ast.Attribute, ast.BinOp)) else None


_DISAGREE = object()  # candidate files state different values here: unknown


def _json_config(expr: ast.expr, resolve: Callable[[ast.expr], Any], module: ModuleInfo,
                 here: str) -> tuple[str, dict[str, Any]] | None:
    """(the file, its mapping) a JSON loader reads from the path ``expr``: the one file a
    literal, constant or argparse default names; when the path is chosen at run time (a
    ``--config`` option without default, a parameter), the project's JSON files it can name
    (those called as its literal last part says, else all), and then only what every one of
    them states alike (see _agreed_data). None when nothing is certain."""
    if isinstance(expr, ast.Call) and module.qualify(dotted(expr.func) or "") \
            == "os.path.join" and expr.args and not expr.keywords:
        parts = [resolve(a) for a in expr.args]
        value: Any = os.path.join(*parts) if all(isinstance(p, str) for p in parts) else None
        last: ast.expr | None = expr.args[-1]
    else:
        value = resolve(expr)
        last = expr.right if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div) \
            else None
    if isinstance(value, str):
        if not value.endswith(".json") or "\0" in value:
            return None
        value = os.path.expanduser(value)
        found = {os.path.realpath(os.path.join(base, value))
                 for base in (project_root(here), here)}
        files = [c for c in found if os.path.isfile(c)]
        if len(files) != 1:
            return None
        data = _read_json(files[0])
        return (files[0], data) if isinstance(data, dict) else None
    name = ""
    if last is not None:
        named = resolve(last)
        if not (isinstance(named, str) and named.endswith(".json") and "/" not in named):
            return None  # a part of the path is known, and it names no JSON file
        name = named
    root = project_root(here)
    named_elsewhere = _named_paths(root)
    files = [f for f in _json_files(root) if (not name or os.path.basename(f) == name)
             and os.path.relpath(f, root).replace(os.sep, "/") not in named_elsewhere]
    if not files or len(files) > MAX_CANDIDATES:
        return None
    datas = [_read_json(f) for f in files]
    if not all(isinstance(d, dict) for d in datas):
        return None
    agreed = _agreed_data(datas)
    return (files[0], agreed) if isinstance(agreed, dict) else None


def _agreed_data(datas: list[Any], depth: int = 0) -> Any:
    """What every one of several files' data states alike: mappings with the same keys
    compared key by key, equal values kept, anything else _DISAGREE (a mapping whose keys
    differ is unknown whole: a keyword splatted from it would be missing)."""
    first = datas[0]
    if depth > 16:
        return _DISAGREE
    if all(isinstance(d, dict) for d in datas):
        if any(d.keys() != first.keys() for d in datas[1:]):
            return _DISAGREE
        return {k: _agreed_data([d[k] for d in datas], depth + 1) for k in first}
    if all(type(d) is type(first) and d == first for d in datas[1:]):
        return first
    return _DISAGREE


_walked: dict[str, list[str]] = {}
_named: dict[str, set[str]] = {}
_QUOTED_JSON = re.compile(r"""["'](?:\./)?([\w.-]+(?:/[\w.-]+)+\.json)["']""")


_CLASS_IN_TEXT = re.compile(
    r"""["'][^"'\n]*(?:StepLR|MultiStepLR|ExponentialLR|CosineAnnealing|CyclicLR|OneCycle"""
    r"""|ReduceLROnPlateau|Plateau|LambdaLR|MultiplicativeLR|LinearLR|ConstantLR|PolynomialLR"""
    r"""|SequentialLR|ChainedScheduler)[^"'\n]*["']""", re.IGNORECASE)
_naming: dict[str, bool] = {}


@per_node
def _strings_name_classes(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Constant) and isinstance(n.value, str)
               and _CLASS_IN_TEXT.search(repr(n.value)) is not None for n in ast.walk(tree))


def names_scheduler_classes(path: str, tree: ast.AST) -> bool:
    """Whether the module ``tree`` (at ``path``) or any Python file of its project writes a
    scheduler class's name in a string (``if cfg["name"] == "OneCycleLR":``, ``{"plateau":
    ...}``): such a program treats the classes a setting names each its own way, by tests of
    the name."""
    if _strings_name_classes(tree):
        return True  # (the module itself, whether or not it is on disk)
    root = project_root(os.path.dirname(os.path.abspath(path)))
    if root not in _naming:
        found = False
        for py in _walk(root, ".py"):
            try:
                if os.path.getsize(py) > 4 * MAX_BYTES:
                    continue
                with open(py, encoding="utf-8", errors="replace") as handle:
                    if _CLASS_IN_TEXT.search(handle.read()):
                        found = True
                        break
            except OSError:
                continue
        _naming[root] = found
    return _naming[root]


def _named_paths(root: str) -> set[str]:
    """The JSON files below ``root`` the project's Python code names by a literal path with a
    directory in it (``log_config="logger/logger_config.json"``): each is the file of the
    code that names it, not one a ``--config`` option chosen at run time stands for."""
    if root in _named:
        return _named[root]
    found: set[str] = set()
    for py in _walk(root, ".py"):
        try:
            if os.path.getsize(py) > 4 * MAX_BYTES:
                continue
            with open(py, encoding="utf-8", errors="replace") as handle:
                found.update(_QUOTED_JSON.findall(handle.read()))
        except OSError:
            continue
    _named[root] = found
    return found
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "site-packages", "venv", "env"})


def _json_files(root: str) -> list[str]:
    """The ``.json`` files under the project root (hidden directories and installed
    packages left out); when the walk is cut short, which exist is not known: none."""
    return _walk(root, ".json")


def _walk(root: str, suffix: str) -> list[str]:
    """The files under ``root`` whose names end in ``suffix`` (``.json`` / ``.py``), from one
    walk of the tree per root; none when the walk is cut short at MAX_WALK entries."""
    if root not in _walked:
        found: list[str] = []
        seen = 0
        for directory, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
            seen += len(dirs) + len(files)
            if seen > MAX_WALK:
                found = []
                break
            found.extend(os.path.join(directory, f) for f in sorted(files))
        _walked[root] = found
    return [f for f in _walked[root] if f.endswith(suffix)]


def _read_json(path: str) -> Any:
    """The data of a JSON file (a bounded read, parsed as data); None when it cannot be
    read."""
    import json
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, encoding="utf-8") as handle:
            return json.loads(handle.read(MAX_BYTES + 1))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None


def _path(expr: ast.expr, resolve: Callable[[ast.expr], Any], module: ModuleInfo,
          here: str) -> str:
    """The one existing YAML file ``expr`` names, relative to the project root or to the
    loading file's directory; "" when it names none for certain (both hold different files)."""
    if isinstance(expr, ast.Call) and module.qualify(dotted(expr.func) or "") \
            == "os.path.join" and expr.args and not expr.keywords:
        parts = [resolve(a) for a in expr.args]
        value: Any = os.path.join(*parts) if all(isinstance(p, str) for p in parts) else None
    else:
        value = resolve(expr)
    if not isinstance(value, str) or not value.endswith(_SUFFIXES) or "\0" in value:
        return ""
    value = os.path.expanduser(value)
    candidates = {os.path.realpath(os.path.join(base, value))
                  for base in (project_root(here), here)}
    found = [c for c in candidates if os.path.isfile(c)]
    return found[0] if len(found) == 1 else ""


def _read(path: str) -> Any:
    """The data of a YAML file read with the safe loader; None when it cannot be read."""
    try:
        import yaml
    except ImportError:
        return None
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return None
        with open(path, encoding="utf-8") as handle:
            return yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError, RecursionError):
        return None


def _hydra(dec: ast.Call, here: str, budget: list[int]) -> tuple[str, dict[str, Any]] | None:
    """The config ``@hydra.main(config_path=..., config_name=...)`` composes, with the groups
    its ``defaults:`` list names that can be found (others are left out)."""
    args: dict[str, ast.expr] = dict(zip(("config_path", "config_name"), dec.args))
    args.update({k.arg: k.value for k in dec.keywords if k.arg})
    path, name = args.get("config_path"), args.get("config_name")
    if not (isinstance(path, ast.Constant) and isinstance(path.value, str)
            and isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return None
    if path.value.startswith("pkg://"):
        return None
    base = os.path.realpath(os.path.join(here, path.value))
    first = _config_file(base, name.value)
    if not first:
        return None
    data = _compose(base, first, 0, budget)
    return (first, data) if data is not None else None


def _config_file(directory: str, name: str) -> str:
    path = os.path.join(directory, name if name.endswith(_SUFFIXES) else name + ".yaml")
    return path if os.path.isfile(path) else ""


def _compose(base: str, path: str, depth: int, budget: list[int],
             group: str = "") -> dict[str, Any] | None:
    """A Hydra config file with its ``defaults:`` entries merged in: ``- group: option``
    under the key ``group`` (a group's own defaults relative to it), ``- name`` at its own
    level; ``_self_``, overrides, interpolated or missing options are skipped."""
    data = _read(path)
    if not isinstance(data, dict):
        return None
    own = {k: _sourced(v, path, budget) for k, v in data.items() if k != "defaults"}
    defaults = data.get("defaults")
    if not isinstance(defaults, list) or depth >= MAX_DEFAULTS_DEPTH:
        return own
    merged: dict[str, Any] = {}
    for entry in defaults[:64]:
        budget[0] -= 1
        if budget[0] < 0:
            break
        if isinstance(entry, str):
            if entry == "_self_" or "${" in entry:
                continue
            found = _config_file(os.path.join(base, group), entry)
            sub = _compose(base, found, depth + 1, budget, group) if found else None
            if sub is not None:
                merged.update(sub)
        elif isinstance(entry, dict) and len(entry) == 1:
            (key, option), = entry.items()
            if not isinstance(key, str) or not isinstance(option, str) or "${" in option \
                    or key.startswith("override ") or option == "???":
                continue
            key = key.removeprefix("optional ").strip()
            if "@" in key:
                continue  # `group@package`: placed elsewhere than its group says
            sub_group = key[1:] if key.startswith("/") else os.path.join(group, key)
            found = _config_file(os.path.join(base, sub_group), option)
            sub = _compose(base, found, depth + 1, budget, sub_group) if found else None
            if sub is not None:
                # Hydra places an option under its group's path: `- trainer/scheduler: step`
                # at `trainer.scheduler`, relative to the file's own group (an absolute
                # `/group` is placed the same way here, a simplification)
                _merge_at(merged, key.strip("/").split("/"), sub)
    _merge_at(merged, [], own)
    return merged


def _merge_at(target: dict[str, Any], path: list[str], value: dict[str, Any]) -> None:
    """Merge the mapping ``value`` into ``target`` at the key ``path`` (mappings merged key by
    key, anything else replaced), as Hydra composes a config."""
    for part in path:
        inner = target.get(part)
        if not isinstance(inner, dict):
            inner = target[part] = {}
        target = inner
    for key, item in value.items():
        if isinstance(item, dict) and isinstance(target.get(key), dict):
            _merge_at(target, [key], item)
        else:
            target[key] = item


class _Sourced:
    """A value of a composed Hydra config with the file that states it."""

    __slots__ = ("value", "path")

    def __init__(self, value: Any, path: str) -> None:
        self.value = value
        self.path = path


def _sourced(value: Any, path: str, budget: list[int], depth: int = 0) -> Any:
    """``value`` with each of its leaves tagged with ``path`` (mappings kept as mappings;
    past the budget or 16 levels, nothing: aliases can nest a mapping in itself)."""
    budget[0] -= 1
    if budget[0] < 0 or depth > 16:
        return _Sourced(None, path) if not isinstance(value, dict) else {}
    if isinstance(value, dict):
        return {k: _sourced(v, path, budget, depth + 1) for k, v in value.items()}
    return _Sourced(value, path)


def _leaves(data: Any, budget: list[int]) -> Iterator[tuple[str, Any]]:
    """(key, value) of every value in nested mappings that is no mapping itself."""
    stack = [data]
    while stack:
        budget[0] -= 1
        if budget[0] < 0:
            return
        item = stack.pop()
        for key, value in item.items():
            if isinstance(value, dict):
                stack.append(value)
            elif isinstance(key, str):
                yield key, value


def _literal(value: Any) -> ast.expr | None:
    """``value`` as an ``ast`` literal: a bool, number, string (not a Hydra interpolation or
    its ``???``) or None, or a list of such; None for anything else."""
    if isinstance(value, (bool, int, float)) or value is None:
        return ast.Constant(value)
    if isinstance(value, str):
        return None if "${" in value or value == "???" else ast.Constant(value)
    if isinstance(value, list) and len(value) <= 64:
        items = [_literal(v) for v in value]
        if all(isinstance(i, ast.Constant) for i in items):
            return ast.List([i for i in items if i is not None], ast.Load())
    return None


def _shown(path: str, module: ModuleInfo) -> str:
    """``path`` relative to the project root of the module that loads it."""
    root = project_root(os.path.dirname(os.path.abspath(module.path)))
    try:
        rel = os.path.relpath(path, os.path.realpath(root))
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
