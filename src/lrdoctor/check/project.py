"""Following imports into the checked project: ``from engine import Trainer`` in ``train.py``
makes ``engine.py`` (found beside it, at the project root or under ``src/``) part of the trace.

Only files inside the project are read, never installed packages. Each module is parsed once
per process.
"""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

from lrdoctor.check.index import ModuleInfo, ModuleLoader, dotted, star_name, top_level
from lrdoctor.check.pep701 import parse_newer
from lrdoctor.check.sources import (
    SourceError,
    exported_notebook_tree,
    project_subdirs,
    read_python,
)

MAX_IMPORTED_BYTES = 2_000_000
MAX_MODULES = 256  # project modules one file's trace follows (more: it says it was cut short)
MAX_NAME_VISITS = 400  # definitions imports_matching searches before it answers yes
MAX_CACHED = 512  # parsed modules kept between the files of one process
_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def set_checked_roots(paths: list[str]) -> None:
    """Remember what ``lrdoctor check`` was asked to check, for :func:`project_root`: each
    directory named, and the common directory of the files named when there are several
    (``lrdoctor check scripts/train/train.py engine/loop.py`` run at the top of a checkout)."""
    global _CHECKED_ROOTS
    roots: list[str] = []
    files: list[str] = []
    for raw in paths:
        full = os.path.abspath(raw)
        if os.path.isdir(full):
            roots.append(full)
        elif os.path.isfile(full):
            files.append(os.path.dirname(full))
    if len(files) > 1:
        try:
            roots.append(os.path.commonpath(files))
        except ValueError:
            pass
    _CHECKED_ROOTS = tuple(r for r in dict.fromkeys(roots) if os.path.dirname(r) != r)


_CHECKED_ROOTS: tuple[str, ...] = ()


def project_root(directory: str) -> str:
    """The nearest enclosing directory that looks like a project root; without one (a
    checkout without ``.git`` or ``setup.py``: a downloaded archive, files copied out of a
    repository), the innermost directory ``lrdoctor check`` was given (or the common
    directory of the files it was given) that holds ``directory``, which the checked files
    import each other from (``python -m``, an installed package, ``PYTHONPATH=.``); else
    ``directory``."""
    return _project_root(directory, _CHECKED_ROOTS)


@lru_cache(maxsize=1024)
def _project_root(directory: str, checked: tuple[str, ...]) -> str:
    current = directory
    while True:
        if any(os.path.exists(os.path.join(current, m)) for m in _MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    if os.path.isabs(directory):
        holding = [r for r in checked if directory == r
                   or directory.startswith(r.rstrip(os.sep) + os.sep)]
        if holding:
            return max(holding, key=len)
    return directory


def display_path(path: str) -> str:
    """Paths as users typed them: relative to the working directory when below it."""
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute)
    except ValueError:
        return absolute
    return absolute if rel.startswith("..") else rel


def line_at(path: str | None, line: int | None, here: str) -> str:
    """``line 12`` for a line of the reported file ``here``, ``utils/sched.py:12`` for a line
    of another file (a bare line number there would read as one of the reported file)."""
    return f"line {line}" if not path or path == here else f"{display_path(path)}:{line}"


class ProjectLoader(ModuleLoader):
    """Resolves qualified names to modules of the project the checked file belongs to."""

    def __init__(self) -> None:
        self.modules: dict[str, ModuleInfo | None] = {}
        self.sources: dict[str, str] = {}
        self._files: dict[tuple[str, tuple[str, ...]], str | None] = {}
        # per project root and dotted suffix: the files that end with it (see _added_path_file)
        self._suffixed: dict[tuple[str, tuple[str, ...]], list[tuple[str, str]]] = {}
        self._resolved: dict[tuple[str, str], tuple[ModuleInfo, str] | None] = {}
        self._texts: dict[str, str | None] = {}
        self._matches: dict[tuple[str, str], bool] = {}
        self._name_hits: dict[tuple[str, str, str], tuple[bool, list[str]]] = {}
        self._lines: dict[str, list[str]] = {}  # a project file's lines (imports_matching)
        # per definition (by its node, kept with the answer): the names it uses
        self._uses: dict[int, tuple[ast.AST, list[str]]] = {}
        self._roots_added: dict[tuple[str, str], tuple[str, ...]] = {}
        self._stored: dict[str, frozenset[str]] = {}  # project root -> attributes stored
        # (project root, class name) -> the other modules that call the name
        self._constructing: dict[tuple[str, str], list[ModuleInfo] | None] = {}
        # (project root, callee) -> whether a file calls it and builds a mapping holding
        # `last_epoch`
        self._position_maps: dict[tuple[str, str], bool] = {}
        # inherited entry points found inert, per (method, class) (see trace._Inert)
        self.inert: dict[tuple[int, int], Any] = {}
        # every read of a module by the file being checked, in order (see read_modules; a
        # cached answer replays the reads it made)
        self._log: list[str] = []
        self._loads: dict[Any, list[str]] = {}  # cached answer -> the reads it made

    def start_file(self) -> None:
        """A new file is checked: what it has read starts empty (the modules kept from the
        files before it are there to save parsing, not to be read by it)."""
        self._log = []

    def read_modules(self) -> list[tuple[str, ModuleInfo]]:
        """(path, module) of each project module the file being checked has read so far: the
        same modules, in the same order, as a loader that started with this file would hold,
        whichever files this process checked before it (a rule that looks through the modules
        read must not find another file's, nor another project's)."""
        return [(path, module) for path in dict.fromkeys(self._log)
                for module in [self.modules.get(path)] if module is not None]

    def _cached(self, table: dict[Any, Any], key: Any, compute: Callable[[], Any]) -> Any:
        """``table[key]``, computed once; a later hit reads again the modules the computation
        read (see read_modules)."""
        if key in table:
            self._log += self._loads.get((id(table), key), ())
            return table[key]
        start = len(self._log)
        table[key] = value = compute()
        self._loads[(id(table), key)] = self._log[start:]
        return value

    def trim(self) -> None:
        """Between two checked files: drop the parsed modules when there are many (the next
        file may need others; it re-reads what it shares with the previous ones)."""
        if len(self.modules) > MAX_CACHED or len(self._texts) > MAX_CACHED:
            self.modules.clear()
            self.sources.clear()
            self._resolved.clear()
            self._texts.clear()
            self._matches.clear()
            self._name_hits.clear()
            self._lines.clear()
            self._uses.clear()
            self._roots_added.clear()
            self._stored.clear()
            self._constructing.clear()
            self._position_maps.clear()
            self.inert.clear()
            self._loads.clear()

    def module_for(self, qualname: str, importer: ModuleInfo) -> tuple[ModuleInfo, str] | None:
        return self._cached(self._resolved, (importer.path, qualname),  # type: ignore[no-any-return]
                            lambda: self._resolve(qualname, importer))

    def _resolve(self, qualname: str, importer: ModuleInfo) -> tuple[ModuleInfo, str] | None:
        importer_dir = os.path.dirname(os.path.abspath(importer.path))
        parts, roots = _import_roots(qualname, importer_dir)
        if len(parts) < 2:
            return None
        if importer.path_dirs and not qualname.startswith("."):
            roots = roots + _sys_path_roots(importer_dir, importer.path_dirs)
        module_parts, attr = parts[:-1], parts[-1]
        for base in roots:
            path = self._module_file(base, module_parts)
            if path is not None:
                module = self.load(path)
                if module is not None:
                    return module, attr
        path = self._added_path_file(qualname, roots, module_parts)
        if path is None and not qualname.startswith("."):
            for base in self.imported_path_roots(importer):
                path = self._module_file(base, module_parts)
                if path is not None:
                    break
        if path is not None:
            module = self.load(path)
            if module is not None:
                return module, attr
        return None

    def attribute_stored(self, near: str, attr: str) -> bool:
        """Whether some ``.py`` file of the project that holds ``near`` stores an attribute named
        ``attr`` on an object other than ``self`` (``config.EPOCHS = 30``, ``cfg.lr *= 2``,
        ``setattr(cfg, "lr", ...)``): read as text, once per project and run. A project too large
        to index, or a file that cannot be read, counts as storing it."""
        root = project_root(os.path.dirname(os.path.abspath(near)))
        if root not in self._stored:
            index = _project_python_files(root)
            names: set[str] = set()
            if not index:
                names.add("\0every")
            for paths in index.values():
                for path in paths:
                    text = self._text(path)
                    if text is None:
                        names.add("\0every")
                        break
                    names.update(_STORED_ATTRIBUTE.findall(text))
                    names.update(_SETATTR_NAME.findall(text))
            self._stored[root] = frozenset(names)
        stored = self._stored[root]
        return attr in stored or "\0every" in stored

    def items_stored(self, near: str, name: str) -> bool:
        """Whether some ``.py`` file of the project that holds ``near`` changes a dict named
        ``name`` in place: an item stored or deleted (``SCHED["T_max"] = n``,
        ``config.SCHED["T_max"] += 1``) or a mutating method called (``SCHED.update(...)``),
        read as text. A project too large to index, or a file that cannot be read, counts as
        changing it."""
        root = project_root(os.path.dirname(os.path.abspath(near)))
        index = _project_python_files(root)
        if not index:
            return True
        stored = re.compile(r"\b" + re.escape(name) + r"\s*\[[^\]\n]*\]\s*"
                            r"(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)|\b" + re.escape(name)
                            + r"\s*\.\s*(?:update|pop|popitem|setdefault|clear)\s*\("
                            r"|\bdel\s+[\w.]*\b" + re.escape(name) + r"\s*\[")
        for paths in index.values():
            for path in paths:
                text = self._text(path)
                if text is None or stored.search(text):
                    return True
        return False

    def calling_modules(self, near: str, name: str) -> list[ModuleInfo] | None:
        """The modules of the project that holds ``near``, other than ``near`` itself, whose
        text calls ``name`` (``Module(`` or ``models.Module(``): where a class defined in
        ``near`` may be built (a file that cannot be read or parsed builds nothing). None when
        that is not known (a project too large to index)."""
        root = project_root(os.path.dirname(os.path.abspath(near)))

        def compute() -> list[ModuleInfo] | None:
            own = os.path.abspath(near)
            found: list[ModuleInfo] = []
            for path, _ in self._texts_calling(root, name):
                module = self.load(path) if os.path.abspath(path) != own else None
                if module is not None:
                    # (a file that does not parse, or that this interpreter does not run,
                    # builds nothing when the program runs here)
                    found.append(module)
            return found if _project_python_files(root) else None

        return self._cached(self._constructing, (root, name), compute)  # type: ignore[no-any-return]

    def _texts_calling(self, root: str, name: str) -> Iterator[tuple[str, str]]:
        """(path, text) of each ``.py`` file of the project at ``root`` whose text calls
        ``name`` (``name(`` or ``module.name(``); a file that cannot be read (too large to
        follow, not UTF-8) calls nothing. Nothing for a project too large to index."""
        called = re.compile(rf"\b{re.escape(name)}\s*\(")
        for paths in _project_python_files(root).values():
            for path in paths:
                text = self._text(path)
                if text is not None and called.search(text):
                    yield path, text

    def builds_last_epoch_mapping(self, near: str, callee: str) -> bool:
        """Whether some ``.py`` file of the project that holds ``near`` both calls ``callee``
        and builds a mapping that gives ``last_epoch`` a value (``{"last_epoch": start - 1}``,
        ``kw["last_epoch"] = n``, ``dict(..., last_epoch=n)``): what a scheduler that
        ``callee`` builds with ``**that_mapping`` is positioned by. Read as text, once per
        project, name and run; a project too large to index counts as not building one."""
        root = project_root(os.path.dirname(os.path.abspath(near)))
        key = (root, callee)
        if key not in self._position_maps:
            self._position_maps[key] = any(
                "last_epoch" in text and _LAST_EPOCH_MAPPING.search(text)
                for _, text in self._texts_calling(root, callee))
        return self._position_maps[key]

    def imported_path_roots(self, importer: ModuleInfo) -> tuple[str, ...]:
        """The existing directories that the project modules ``importer`` imports put on
        ``sys.path`` when they run (``import _init_paths`` whose top level does
        ``add_path(osp.join(this_dir, '..', 'lib'))``): where its own plain imports are also
        found. Each imported module is the one the usual roots find; only its own additions
        count (one level), and a module whose text never names ``sys.path`` is not parsed."""
        key = ("<imported sys.path>", importer.path)

        def compute() -> tuple[str, ...]:
            self._roots_added[key] = ()  # an import cycle back to the importer adds nothing
            importer_dir = os.path.dirname(os.path.abspath(importer.path))
            own = os.path.abspath(importer.path)
            out: list[str] = []
            for qualname in dict.fromkeys(importer.imports.values()):
                if qualname.startswith(("\0", ".")):
                    continue
                for path in self._imported_files(qualname, importer_dir):
                    if os.path.abspath(path) == own or "sys.path" not in (self._text(path) or ""):
                        continue
                    module = self.load(path)
                    if module is not None and module.path_dirs:
                        added = _sys_path_roots(os.path.dirname(os.path.abspath(path)),
                                                module.path_dirs)
                        out += [d for d in added if d not in out]
            return tuple(out)

        return self._cached(self._roots_added, key, compute)  # type: ignore[no-any-return]

    def _imported_files(self, qualname: str, importer_dir: str) -> list[str]:
        """The project files an absolute import of ``qualname`` runs, found from the usual
        roots: the module (``import _init_paths``), or for ``from tools import add_path`` the
        package ``tools`` and, when it does not define the name, its submodule."""
        path, name = self._locate(qualname, importer_dir)
        if path is None:
            return []
        files = [path]
        if name is not None and os.path.basename(path) == "__init__.py":
            package = self.load(path)
            if package is not None and name not in package.functions \
                    and name not in package.classes and name not in package.imports:
                sub = self._module_file(os.path.dirname(path), [name])
                if sub is not None:
                    files.append(sub)
        return files

    def imports_matching(self, module: ModuleInfo, pattern: re.Pattern[str]) -> bool:
        """Whether code that ``module`` imports from the project matches ``pattern``.

        An imported name is followed to its definition and searched there, with the names its
        definition uses (its base classes, the functions and classes it calls, in its module
        or imported from others): ``from engine import train_one_epoch`` matches when
        ``train_one_epoch`` or what it calls steps something, and ``from utils import
        set_seed`` does not match because another function of ``utils`` saves a checkpoint.
        Package ``__init__`` files are followed to the module a name is re-exported from. A
        whole module (``import pkg`` then ``pkg.x``, a star import, a name that is not a
        function or class) is searched as a whole. Past MAX_NAME_VISITS definitions the answer
        is yes (the trace decides)."""
        importer_dir = os.path.dirname(os.path.abspath(module.path))
        # (qualified name, directory it is resolved from, whether it names a whole module)
        pending: list[tuple[str, str, bool]] = [(q, importer_dir, False) for q in module.imports.values()]
        pending += [(_star_target(star), importer_dir, True) for star in module.star_imports]
        # the directories the module itself puts on sys.path serve its own imports
        added = tuple(_sys_path_roots(importer_dir, module.path_dirs))
        added += tuple(d for d in self.imported_path_roots(module) if d not in added)
        own = {q for q, _, _ in pending}
        seen: set[tuple[str, str | None]] = set()
        while pending:
            if len(seen) >= MAX_NAME_VISITS:
                return True
            qualname, base_dir, whole = pending.pop()
            path, name = self._locate(qualname, base_dir,
                                      added if base_dir == importer_dir and qualname in own else ())
            if path is None:
                continue
            if whole:
                name = None
            if (path, name) in seen:
                continue
            seen.add((path, name))
            found, follow = self._name_matches(path, name, pattern)
            if found:
                return True
            pending.extend(follow)
        return False

    def _name_matches(self, path: str, name: str | None, pattern: re.Pattern[str]
                      ) -> tuple[bool, list[tuple[str, str, bool]]]:
        """(whether ``name`` of the module ``path`` - the whole module when None - matches
        ``pattern`` by its own text, what else to search for it)."""
        directory = os.path.dirname(path)
        is_init = path.endswith("__init__.py")
        info = self.load(path) if name is not None else None
        if name is None or info is None:
            key = (path, pattern.pattern)
            found = self._matches.get(key)
            if found is None:
                text = self._text(path)
                found = bool(text is not None and pattern.search(text))
                self._matches[key] = found
            follow: list[tuple[str, str, bool]] = []
            if not found and is_init:  # a package: every module its __init__ re-exports from
                for line in (self._text(path) or "").splitlines():
                    stripped = line.strip()
                    if stripped.startswith("from ") and " import " in stripped:
                        source = stripped[5:].split(" import", 1)[0].strip()
                        follow.append((source + ".x", directory, True))
                # and each name it re-exports, to its definition and what that uses: `import
                # pkg` then `pkg.build()` runs `build` of the module the package takes it
                # from, which may do its work in other modules (`build` calling a trainer
                # class of `pkg.engine`), as `from pkg import build` does
                package = self.load(path)
                if package is not None:
                    follow.extend((q, directory, False) for q in package.imports.values())
            return found, follow
        node: ast.AST | None = info.functions.get(name)
        if node is None and name in info.classes:
            node = info.classes[name].node
        if node is None and name not in info.imports:
            node = _module_assign(info.tree, name)  # a constant, `trainer = Trainer(...)`
        if node is None:
            if name in info.imports:  # re-exported (a package __init__, a convenience import)
                return False, [(info.imports[name], directory, False)]
            stars = [(_star_target(star), directory, True) for star in info.star_imports]
            if is_init:  # a submodule (`from pkg import trainer`), or a star re-export
                return False, [(f".{name}", directory, True), *stars]
            # a module-level value (`trainer = Trainer(...)`): the module as a whole
            return False, [(_direct(path, None), directory, True), *stars]
        key2 = (path, name, pattern.pattern)
        cached = self._name_hits.get(key2)
        if cached is None:
            cached = self._definition_matches(path, info, node, pattern)
            self._name_hits[key2] = cached
        found, uses = cached
        return found, [(q, directory, False) for q in uses]

    def _definition_matches(self, path: str, info: ModuleInfo, node: ast.AST,
                            pattern: re.Pattern[str]) -> tuple[bool, list[str]]:
        """Whether the source of one definition matches, and the qualified names it uses
        (the module's own functions and classes as :func:`_direct` names)."""
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = (self._text(path) or "").splitlines()
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])  # type: ignore[attr-defined]
        if pattern.search("\n".join(lines[start - 1:getattr(node, "end_lineno", start)])):
            return True, []
        # what the definition uses does not depend on the pattern: found once per definition
        # (imports_matching asks with two patterns, for every file that imports it)
        kept = self._uses.get(id(node))
        if kept is None or kept[0] is not node:
            kept = self._uses[id(node)] = (node, self._definition_uses(path, info, node))
        return False, kept[1]

    @staticmethod
    def _definition_uses(path: str, info: ModuleInfo, node: ast.AST) -> list[str]:
        """The qualified names one definition uses (the module's own functions and classes as
        :func:`_direct` names), each once, in the order of their first use."""
        uses: list[str] = []
        inner: set[int] = set()  # the bases of attribute chains, read with their chain
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute):
                inner.add(id(sub.value))
                if id(sub) in inner:
                    continue
                chain = dotted(sub)  # `pkg.sub.fn`: the longest chain, from its imported root
                if chain is not None:
                    root, _, rest = chain.partition(".")
                    base = info.imports.get(root)
                    if base is not None:
                        uses.append(f"{base}.{rest}")
                        continue
                value: ast.AST = sub.value
                while isinstance(value, ast.Attribute):
                    inner.discard(id(value))  # `self.a.b`, `f().x`: what the chain starts from
                    value = value.value
                inner.discard(id(value))
            elif isinstance(sub, (ast.Import, ast.ImportFrom)) and sub is not node:
                # `from .sr_model import SRModel as M` inside the definition: a name it uses
                uses.extend(_local_imports(sub))
            elif isinstance(sub, ast.Name) and id(sub) not in inner:
                ident = sub.id
                if ident in info.imports:
                    uses.append(info.imports[ident])
                elif ident in info.functions or ident in info.classes:
                    uses.append(_direct(path, ident))
        return list(dict.fromkeys(uses))

    def _locate(self, qualname: str, importer_dir: str, added: tuple[str, ...] = ()
                ) -> tuple[str | None, str | None]:
        """The project file ``qualname`` is found in, and the name it is looked up by there
        (None when ``qualname`` names the module itself); ``added``: directories the importer
        put on sys.path, searched after the usual roots."""
        if qualname.startswith("\0"):
            _, path, name = qualname.split("\0")
            return path, name or None
        parts, roots = _import_roots(qualname, importer_dir)
        if added and not qualname.startswith("."):
            roots = roots + list(added)
        candidates = [parts[:-1], parts] if len(parts) > 1 else [parts]
        for base in roots:
            for module_parts in candidates:
                if not module_parts or not module_parts[0]:
                    continue
                found = self._module_file(base, module_parts)
                if found is not None:
                    return found, parts[-1] if len(module_parts) < len(parts) else None
        for module_parts in candidates:
            found = self._added_path_file(qualname, roots, module_parts)
            if found is not None:
                return found, parts[-1] if len(module_parts) < len(parts) else None
        return None, None

    def _added_path_file(self, qualname: str, roots: list[str],
                         module_parts: list[str]) -> str | None:
        """A dotted absolute import that no usual root holds (``from core.function import
        train`` in ``tools/train.py`` while the package is ``lib/core/``, a directory the
        program puts on ``sys.path`` itself): the one file of the project whose path ends with
        the dotted module path. Single names (``import utils``) stay unresolved, and so does a
        suffix several files end with, unless exactly one of them lies in a directory around
        the importer (``baseline1/pkg/model.py`` importing ``pkg.configs`` in a project with
        ``baseline1/pkg/``, ``baseline2/pkg/`` and ``baseline3/pkg/``: run from
        ``baseline1/``, where its entry script lies, Python finds ``baseline1/pkg/``)."""
        if qualname.startswith(".") or len(module_parts) < 2 or not roots:
            return None
        root = project_root(roots[0])
        key = (root, ("<by suffix>",) + tuple(module_parts))
        if key not in self._suffixed:
            tail = os.path.join(*module_parts)
            index = _project_python_files(root)
            # `core/function.py` is filed under ("core", "function"), a package
            # `core/function/__init__.py` under ("<pkg>", "function"): the whole suffix is
            # checked on those few
            candidates = index.get((module_parts[-2], module_parts[-1]), []) \
                + index.get(("<pkg>", module_parts[-1]), [])
            self._suffixed[key] = [
                (f[:-len(os.sep + tail + ".py")] if f.endswith(os.sep + tail + ".py")
                 else f[:-len(os.sep + os.path.join(tail, "__init__.py"))], f)
                for f in candidates
                if f.endswith(os.sep + tail + ".py")
                or f.endswith(os.sep + os.path.join(tail, "__init__.py"))]
        hits = self._suffixed[key]
        if len(hits) == 1:
            return hits[0][1]
        around = os.path.abspath(roots[0])
        near = [f for base, f in hits
                if around == os.path.abspath(base)
                or around.startswith(os.path.abspath(base) + os.sep)]
        return near[0] if len(near) == 1 else None

    def _module_file(self, base: str, module_parts: list[str]) -> str | None:
        key = (base, tuple(module_parts))
        if key not in self._files:  # `torch.zeros(...)` is looked up once, not per call
            self._files[key] = _module_file(base, module_parts)
        return self._files[key]

    def _text(self, path: str) -> str | None:
        shown = display_path(path)
        if shown in self.sources:
            return self.sources[shown]
        if shown not in self._texts:
            try:
                self._texts[shown] = self._read(path)
            except (SourceError, ValueError, OSError):
                self._texts[shown] = None
        return self._texts[shown]

    def _read(self, path: str) -> str | None:
        """The text of the project file ``path``; None when it is too large to follow."""
        if os.path.getsize(path) > MAX_IMPORTED_BYTES:
            return None
        return read_python(path)

    def load(self, path: str) -> ModuleInfo | None:
        shown = display_path(path)
        self._log.append(shown)
        if shown in self.modules:
            return self.modules[shown]
        self.modules[shown] = None
        try:
            text = self._read(path)
            if text is None:
                return None
            try:
                tree = parse_newer(text, filename=shown)
            except SyntaxError:
                exported = exported_notebook_tree(text, shown)
                if exported is None:
                    raise
                tree = exported
        except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError, OSError):
            return None
        module = ModuleInfo.build(shown, tree)
        module.loader = self
        self.modules[shown] = module
        self.sources[shown] = text
        return module


class WrittenLoader(ProjectLoader):
    """A project loader that also knows the files a notebook writes with ``%%writefile``
    cells (absolute path -> text), where the notebook would write them: those take the place
    of any file on disk at the same path, as they do once the notebook has run."""

    def __init__(self, written: dict[str, str]) -> None:
        super().__init__()
        self.written = written

    def _module_file(self, base: str, module_parts: list[str]) -> str | None:
        stem = os.path.normpath(os.path.join(base, *module_parts))
        for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
            if candidate in self.written:
                return candidate
        return super()._module_file(base, module_parts)

    def _read(self, path: str) -> str | None:
        text = self.written.get(os.path.abspath(path))
        return text if text is not None else super()._read(path)


def _module_assign(tree: ast.Module, name: str) -> ast.stmt | None:
    """The last statement of the module's top level (as the index reads it: inside top-level
    ``if``/``try`` too) that assigns ``name``."""
    found: ast.stmt | None = None
    for stmt, _ in top_level(tree.body):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            found = stmt
    return found


def _star_target(star: str) -> str:
    """A name inside the module of ``from <star> import *``, to resolve that module by."""
    return star_name(star, "x")


def _direct(path: str, name: str | None) -> str:
    """A name of a module already found, in the place of a qualified name (see _locate)."""
    return f"\0{path}\0{name or ''}"


@lru_cache(maxsize=1024)
def _import_roots(qualname: str, importer_dir: str) -> tuple[list[str], list[str]]:
    """The dotted parts of ``qualname`` (leading dots dropped) and the directories to look
    them up in: the package the dots climb to for a relative import, else :func:`_roots`."""
    level = len(qualname) - len(qualname.lstrip("."))
    parts = qualname.lstrip(".").split(".")
    if not level:
        return parts, _roots(importer_dir)
    base = importer_dir
    for _ in range(level - 1):
        base = os.path.dirname(base)
    return parts, [base]


def _sys_path_roots(importer_dir: str, dirs: tuple[str, ...]) -> list[str]:
    """The existing directories that the literal ``sys.path`` entries ``dirs`` of a module in
    ``importer_dir`` name. A relative entry is read from the working directory at run time,
    which the source does not fix: it is taken from the project root (``python
    TRAIN/train.py`` run there, ``sys.path.append('./Models/')``) and from the module's own
    directory (a script run where it lies)."""
    out: list[str] = []
    root = project_root(importer_dir)
    for d in dirs:
        bases = [""] if os.path.isabs(d) else [root, importer_dir]
        for base in bases:
            candidate = os.path.normpath(os.path.join(base, d))
            if candidate not in out and os.path.isdir(candidate):
                out.append(candidate)
    return out


def _roots(importer_dir: str) -> list[str]:
    """Where absolute imports of a file are looked up: its directory, the directory above
    the package it belongs to (`engine/__init__.py` importing `engine.runners`), the project
    root and its `src/`."""
    top = importer_dir
    while os.path.isfile(os.path.join(top, "__init__.py")):
        parent = os.path.dirname(top)
        if parent == top:
            break
        top = parent
    root = project_root(importer_dir)
    return list(dict.fromkeys([importer_dir, top, root, os.path.join(root, "src")]))


# `cfg.train.epochs = 30`, `config.LR *= 2` (a store, not a comparison), not `self.x = ...`
_STORED_ATTRIBUTE = re.compile(r"^[ \t]*(?!self\.)[A-Za-z_]\w*(?:\.\w+)*\.(\w+)[ \t]*(?:[-+*/%@&|^]|//|\*\*|<<|>>)?=(?!=)",
                               re.MULTILINE)
_SETATTR_NAME = re.compile(r"setattr\([^,()]+,\s*['\"](\w+)['\"]")
# a mapping given a `last_epoch` entry: `{"last_epoch": n}`, `kw["last_epoch"] = n`,
# `dict(..., last_epoch=n)`
_LAST_EPOCH_MAPPING = re.compile(
    r"['\"]last_epoch['\"]\s*:|\[\s*['\"]last_epoch['\"]\s*\]\s*=(?!=)"
    r"|\bdict\([^()]*\blast_epoch\s*=(?!=)")
MAX_INDEXED_FILES = 20_000  # a project with more Python files is not searched by suffix
@lru_cache(maxsize=16)
def _project_python_files(root: str) -> dict[tuple[str, str], list[str]]:
    """The Python files below ``root`` (hidden directories, virtual environments and
    installed packages left out), by (directory name, module name): ``a/core/function.py``
    under ("core", "function"), a package ``a/core/__init__.py`` under ("<pkg>", "core");
    empty when there are too many to index."""
    out: dict[tuple[str, str], list[str]] = {}
    count = 0
    for current, dirs, files in os.walk(root):
        dirs[:] = project_subdirs(current, dirs)
        parent = os.path.basename(current)
        for f in files:
            if not f.endswith(".py"):
                continue
            count += 1
            path = os.path.join(current, f)
            if f == "__init__.py":
                out.setdefault(("<pkg>", parent), []).append(path)
            else:
                out.setdefault((parent, f[:-3]), []).append(path)
        if count > MAX_INDEXED_FILES:
            return {}
    return out


def _module_file(base: str, parts: list[str]) -> str | None:
    stem = os.path.join(base, *parts)
    for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
        if os.path.isfile(candidate) and "site-packages" not in candidate:
            return candidate
    return None


def _local_imports(stmt: ast.Import | ast.ImportFrom) -> list[str]:
    """The qualified names an import statement binds, spelled as a module's imports are."""
    scratch = ModuleInfo("", ast.Module(body=[], type_ignores=[]), {}, {}, {})
    scratch.add_import(stmt)
    return list(scratch.imports.values())


# Lightning's Trainer classes, as a module's imports spell them out
_LIGHTNING_TRAINERS = frozenset({
    "pytorch_lightning.Trainer", "pytorch_lightning.trainer.Trainer",
    "pytorch_lightning.trainer.trainer.Trainer", "lightning.Trainer",
    "lightning.pytorch.Trainer", "lightning.pytorch.trainer.Trainer",
    "lightning.pytorch.trainer.trainer.Trainer"})
MAX_SCANNED_FILES = 2_000  # files a project-wide look for a Trainer reads at most


def lightning_accumulation(module_path: str, class_name: str
                           ) -> tuple[str, int, ast.expr] | None:
    """Where the project builds a Lightning ``Trainer`` that accumulates gradients for the
    LightningModule ``class_name`` (defined in ``module_path``): (file, line, the value given
    as ``accumulate_grad_batches=``). A file counts when it names the class (it imports or
    builds it) and calls a Lightning ``Trainer(...)`` whose ``accumulate_grad_batches`` is
    anything but a literal 1 or None (``config.accumulate_grad_batches``, ``4``, a schedule
    ``{0: 8, 4: 4}``). None when no such file is found (a Trainer built from a config file,
    ``Trainer(**cfg)``, is not seen)."""
    return _lightning_accumulation(os.path.abspath(module_path), class_name)


@lru_cache(maxsize=64)
def _lightning_accumulation(own: str, class_name: str) -> tuple[str, int, ast.expr] | None:
    root = project_root(os.path.dirname(own))
    word = re.compile(rf"\b{re.escape(class_name)}\b")
    candidates = _mentioning_accumulation(root)
    if own not in {path for path, _ in candidates}:
        candidates += _mentioning_accumulation_in(own)
    for path, text in candidates:
        if not word.search(text):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        # every import of the file, a driver's `if __name__ == "__main__":` block's included
        info = ModuleInfo(path, ast.Module(body=[], type_ignores=[]), {}, {}, {})
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                info.add_import(node)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = dotted(node.func)
            if name is None or info.qualify(name) not in _LIGHTNING_TRAINERS:
                continue
            for kw in node.keywords:
                if kw.arg == "accumulate_grad_batches" and _accumulates(kw.value):
                    return path, node.lineno, kw.value
    return None


@lru_cache(maxsize=16)
def _mentioning_accumulation(root: str) -> tuple[tuple[str, str], ...]:
    """The project's Python files (path, text) that mention ``accumulate_grad_batches``;
    none when the project has too many files to scan."""
    files = sorted(os.path.abspath(p) for paths in _project_python_files(root).values()
                   for p in paths)
    if len(files) > MAX_SCANNED_FILES:
        return ()
    return tuple(found for path in files for found in _mentioning_accumulation_in(path))


def _mentioning_accumulation_in(path: str) -> tuple[tuple[str, str], ...]:
    """((path, text),) when the file mentions ``accumulate_grad_batches``, else ()."""
    try:
        if os.path.getsize(path) > MAX_IMPORTED_BYTES:
            return ()
        text = read_python(path)
    except (OSError, SourceError):
        return ()
    return ((path, text),) if "accumulate_grad_batches" in text else ()


def _accumulates(value: ast.expr) -> bool:
    """``accumulate_grad_batches=`` given something other than a literal 1 or None (or a
    literal schedule whose counts are all 1)."""
    if isinstance(value, ast.Constant):
        return value.value not in (1, None) and not isinstance(value.value, bool)
    if isinstance(value, ast.Dict):
        counts = [v for v in value.values if v is not None]
        return not all(isinstance(v, ast.Constant) and v.value == 1 for v in counts)
    return True
