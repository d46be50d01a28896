"""Attributes no code of the project ever sets: ``getattr(self, "schedule_on_valid", False)``
guards a call that cannot run as shipped when nothing, anywhere in the project, could give the
instance that attribute.

The answer is project-wide and conservative. The attribute counts as possibly set when its name
(``schedule_on_valid``, or ``schedule-on-valid`` as a command-line flag) appears anywhere in the
project except as a plain read (``x.name``, ``getattr(x, "name", ...)``, ``hasattr(x,
"name")``): a store ``x.name = ...``, a ``setattr`` with that literal, a method, property or
class attribute of that name, a keyword ``name=``, a dict key, an argparse option, a config
file, a shell script, a docstring. It also counts as possibly set when any Python file of the
project stores attributes by a computed name (``setattr(obj, key, value)``, ``__setattr__``,
``obj.__dict__.update(cfg)``, ``vars(obj)[key] = ...``, ``exec``, a three-argument ``type``,
``parser.set_defaults(**cfg)``), since a config spread that way can carry any name; and when the project is too big to read.
Each project is read once per process; each name is then looked up in the texts kept.
"""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache

from lrdoctor.check.memo import per_node
from lrdoctor.check.project import project_root
from lrdoctor.check.sources import SourceError, project_subdirs, read_python

MAX_FILES = 3_000  # files of a project read at most (more: every attribute may be set)
MAX_TEXT_BYTES = 2 * 2**20  # a bigger non-Python file is data, not configuration
# where a setting's name can be written besides Python: configs, launch scripts, docs
_TEXT_EXTENSIONS = (".yaml", ".yml", ".json", ".jsonnet", ".toml", ".cfg", ".ini", ".conf",
                    ".gin", ".sh", ".bash", ".zsh", ".slurm", ".sbatch", ".txt", ".md",
                    ".rst", ".env", ".ipynb")
# methods that change a namespace's attributes wholesale when called on its ``__dict__``
_BULK_UPDATES = frozenset({"update", "setdefault", "__setitem__", "pop", "popitem", "clear"})
# calls that only read a namespace handed to them (printing, copying, logging, dumping)
_READERS = frozenset({"print", "str", "repr", "dict", "len", "sorted", "list", "pprint",
                      "pformat", "copy", "deepcopy", "dump", "dumps", "info", "debug",
                      "warning", "log", "write", "format", "items", "keys", "values"})


def never_set(path: str, tree: ast.AST, name: str) -> bool:
    """Whether no code of the project that ``path`` (whose parsed text is ``tree``, the
    checked module) belongs to can set an attribute ``name`` (see the module's docstring).
    Answered once per module and name: a trace meets the same test at every call."""
    return _never_set(tree, path, name)


@per_node
def _never_set(tree: ast.AST, path: str, name: str) -> bool:
    if mentions_beyond_reads(tree, name) or sets_by_computed_name(tree):
        return False
    own = os.path.abspath(path)
    project = _project_texts(project_root(os.path.dirname(own)))
    if project is None or project.dynamic - {own}:
        return False
    word = _word(name)
    for other, text in project.texts:
        if other == own or not word.search(text):
            continue
        if not other.endswith(".py"):
            return False
        try:
            parsed = ast.parse(text)
        except (SyntaxError, ValueError):
            return False
        if mentions_beyond_reads(parsed, name):
            return False
    return True


def _word(name: str) -> re.Pattern[str]:
    spelled = "[-_]".join(re.escape(part) for part in name.split("_"))
    return re.compile(rf"(?<!\w){spelled}(?!\w)")


def mentions_beyond_reads(tree: ast.AST, name: str) -> bool:
    """Whether ``tree`` names ``name`` anywhere but as a plain attribute read: an identifier
    (a store, a method, a keyword, a parameter) or a word of a string literal."""
    word = _word(name)
    found = reads = 0
    for node in ast.walk(tree):
        for field in ("id", "attr", "name", "arg", "asname"):
            value = getattr(node, field, None)
            if isinstance(value, str) and word.fullmatch(value):
                found += 1
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += len(word.findall(node.value))
        if isinstance(node, ast.Attribute) and node.attr == name \
                and isinstance(node.ctx, ast.Load):
            reads += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "hasattr") and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value == name:
            reads += 1
    return found > reads


@per_node
def sets_by_computed_name(tree: ast.AST) -> bool:
    """Whether ``tree`` may store attributes whose names it does not spell out."""
    return _sets_by_computed_name(tree)


def _sets_by_computed_name(tree: ast.AST) -> bool:
    parents = {id(child): node for node in ast.walk(tree)
               for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in ("setattr", "exec") \
                and not _literal_call(node, parents):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "__setattr__" \
                and not _literal_call(node, parents):
            return True
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" \
                and (not isinstance(node.ctx, ast.Load) or _changed(node, parents)):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "vars" and node.args and _changed(node, parents):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "type" and len(node.args) == 3 \
                and not isinstance(node.args[2], ast.Dict):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "set_defaults" \
                and any(k.arg is None for k in node.keywords):
            return True  # `parser.set_defaults(**cfg)`: options named by a config's keys
    return False


def _literal_call(func: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether ``func`` (``setattr``, ``obj.__setattr__``, ``exec``) is called with the
    attribute's name (or the executed code) written as a string literal."""
    call = parents.get(id(func))
    if not isinstance(call, ast.Call) or call.func is not func:
        return False  # the function itself handed on (`map(setattr, ...)`)
    if isinstance(func, ast.Name) and func.id == "exec":
        return bool(call.args) and isinstance(call.args[0], ast.Constant)
    return any(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in call.args[:2])


def _changed(namespace: ast.expr, parents: dict[int, ast.AST]) -> bool:
    """Whether ``obj.__dict__`` / ``vars(obj)`` is changed where it stands: a key stored
    (``vars(args)[key] = v``), a bulk update (``self.__dict__.update(cfg)``), or handed to
    another call that may change it (``merge(vars(args), cfg)``)."""
    parent = parents.get(id(namespace))
    if isinstance(parent, ast.Subscript) and parent.value is namespace:
        return not isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Attribute) and parent.value is namespace:
        return parent.attr in _BULK_UPDATES
    if isinstance(parent, ast.Call) and parent.func is not namespace:
        # read by a call that only looks at it (`print(vars(args))`, `json.dumps(vars(a))`)
        func = parent.func
        called = func.id if isinstance(func, ast.Name) else \
            func.attr if isinstance(func, ast.Attribute) else ""
        return called not in _READERS
    return False


class _Project:
    def __init__(self, texts: list[tuple[str, str]], dynamic: frozenset[str]) -> None:
        self.texts = texts  # (absolute path, text) of every Python and text file read
        self.dynamic = dynamic  # the Python files that store attributes by computed names


@lru_cache(maxsize=4)
def _project_texts(root: str) -> _Project | None:
    """The project's files below ``root`` as read once; None when there are too many."""
    texts: list[tuple[str, str]] = []
    dynamic: set[str] = set()
    for current, dirs, files in os.walk(root):
        dirs[:] = project_subdirs(current, dirs)
        for f in sorted(files):
            path = os.path.join(current, f)
            if f.endswith(".py"):
                try:
                    text = read_python(path)
                except (OSError, SourceError):
                    continue
                if _may_set_by_name(text) and _parsed_sets_by_name(text):
                    dynamic.add(path)
            elif f.endswith(_TEXT_EXTENSIONS):
                try:
                    if os.path.getsize(path) > MAX_TEXT_BYTES:
                        continue
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        text = handle.read()
                except OSError:
                    continue
            else:
                continue
            texts.append((path, text))
            if len(texts) > MAX_FILES:
                return None
    return _Project(texts, frozenset(dynamic))


_DYNAMIC_WORDS = re.compile(r"setattr|__dict__|\bvars\(|\bexec\b|\btype\(|set_defaults")


def _may_set_by_name(text: str) -> bool:
    return _DYNAMIC_WORDS.search(text) is not None


def _parsed_sets_by_name(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return True  # unreadable: it may do anything
    return _sets_by_computed_name(tree)


def launched_above(path: str, setting: str, limit: float = 1.0) -> tuple[str, str] | None:
    """A command line of the project's launch scripts or docs (its text files: ``.sh``,
    ``.md``, ``.yaml``, notebooks, ...) that hands the option named ``setting`` a number above
    ``limit`` (``--gradient-accumulation-steps 4`` for ``gradient_accumulation_steps``):
    ``(the file, the words)`` of the first one, None when none does. A default the program
    states is then not how the project runs it."""
    if not setting:
        return None
    project = _project_texts(project_root(os.path.dirname(os.path.abspath(path))))
    if project is None:
        return None
    flag = _flag_pattern(setting)
    for other, text in project.texts:
        if other.endswith(".py"):
            continue
        for match in flag.finditer(text):
            try:
                value = float(match.group(1))
            except ValueError:
                continue
            if value > limit and _may_run(project, _command_at(text, match.start()), path):
                return other, " ".join(match.group(0).split())
    return None


# a Python script a command line runs: `train.py`, `scripts/train.py`, `-m scripts.train`
_SCRIPT_NAMED = re.compile(r"([\w./-]+)\.py\b|(?<![\w-])-m[ \t]+([\w.]+)")


def _command_at(text: str, at: int) -> str:
    """The command line around ``at``: its line, with the lines before it that end in a
    backslash (a command continued over several lines of a shell script or a README)."""
    start = text.rfind("\n", 0, at) + 1
    while start > 1:
        before = text.rfind("\n", 0, start - 1) + 1
        if not text[before:start - 1].rstrip().endswith("\\"):
            break
        start = before
    end = text.find("\n", at)
    return text[start:end if end >= 0 else len(text)]


def _may_run(project: _Project, command: str, path: str) -> bool:
    """Whether ``command`` may run the program the file ``path`` belongs to: it names no
    Python script (a line of prose, a launcher given a config), names that file, or names a
    script of the project that imports that file's module (`python main.py --accum 4` for
    the loop in `trainer.py`). A command that runs another program (`python finetune.py
    --gradient-accumulation-steps 4` beside a checked `pretrain.py`) says nothing of how this
    one is run."""
    named = [(m.group(1) or m.group(2).replace(".", "/")).rsplit("/", 1)[-1]
             for m in _SCRIPT_NAMED.finditer(command)]
    module = os.path.splitext(os.path.basename(path))[0]
    if not named or module in named:
        return True
    imports = re.compile(rf"^[ \t]*(?:from|import)[ \t]+(?:[\w.]*\.)?{re.escape(module)}\b",
                         re.MULTILINE)
    return any(other.endswith(".py") and os.path.splitext(os.path.basename(other))[0] in named
               and imports.search(text) is not None for other, text in project.texts)


@lru_cache(maxsize=256)
def _flag_pattern(setting: str) -> re.Pattern[str]:
    spelled = "[-_]".join(re.escape(part) for part in setting.split("_") if part)
    return re.compile(rf"(?<![\w-])--{spelled}(?:[ \t]*=[ \t]*|[ \t]+)['\"]?(\d+(?:\.\d+)?)\b")
