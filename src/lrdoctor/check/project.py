"""Following imports into the checked project: ``from engine import Trainer`` in ``train.py``
makes ``engine.py`` (found beside it, at the project root or under ``src/``) part of the trace.

Only files inside the project are read, never installed packages. Each module is parsed once
per process.
"""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache
from typing import Any

from lrdoctor.check.index import ModuleInfo, ModuleLoader
from lrdoctor.check.sources import SourceError, read_python

MAX_IMPORTED_BYTES = 2_000_000
MAX_MODULES = 64  # project modules one file's trace follows (more: it says it was cut short)
MAX_CACHED = 512  # parsed modules kept between the files of one process
_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


@lru_cache(maxsize=1024)
def project_root(directory: str) -> str:
    """The nearest enclosing directory that looks like a project root (else ``directory``)."""
    current = directory
    while True:
        if any(os.path.exists(os.path.join(current, m)) for m in _MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return directory
        current = parent


def display_path(path: str) -> str:
    """Paths as users typed them: relative to the working directory when below it."""
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute)
    except ValueError:
        return absolute
    return absolute if rel.startswith("..") else rel


class ProjectLoader(ModuleLoader):
    """Resolves qualified names to modules of the project the checked file belongs to."""

    def __init__(self) -> None:
        self.modules: dict[str, ModuleInfo | None] = {}
        self.sources: dict[str, str] = {}
        self._files: dict[tuple[str, tuple[str, ...]], str | None] = {}
        self._resolved: dict[tuple[str, str], tuple[ModuleInfo, str] | None] = {}
        self._texts: dict[str, str | None] = {}
        self._matches: dict[tuple[str, str], bool] = {}
        # inherited entry points found inert, per (method, class) (see trace._Inert)
        self.inert: dict[tuple[int, int], Any] = {}

    def trim(self) -> None:
        """Between two checked files: drop the parsed modules when there are many (the next
        file may need others; it re-reads what it shares with the previous ones)."""
        if len(self.modules) > MAX_CACHED or len(self._texts) > MAX_CACHED:
            self.modules.clear()
            self.sources.clear()
            self._resolved.clear()
            self._texts.clear()
            self._matches.clear()
            self.inert.clear()

    def module_for(self, qualname: str, importer: ModuleInfo) -> tuple[ModuleInfo, str] | None:
        key = (importer.path, qualname)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(qualname, importer)
        return self._resolved[key]

    def _resolve(self, qualname: str, importer: ModuleInfo) -> tuple[ModuleInfo, str] | None:
        parts, roots = _import_roots(qualname, os.path.dirname(os.path.abspath(importer.path)))
        if len(parts) < 2:
            return None
        module_parts, attr = parts[:-1], parts[-1]
        for base in roots:
            path = self._module_file(base, module_parts)
            if path is not None:
                module = self.load(path)
                if module is not None:
                    return module, attr
        return None

    def imports_matching(self, module: ModuleInfo, pattern: re.Pattern[str]) -> bool:
        """Whether a project module ``module`` imports from (or one a package ``__init__``
        among them re-exports from) matches ``pattern``; each module is searched once."""
        importer_dir = os.path.dirname(os.path.abspath(module.path))
        pending = [(q, importer_dir) for q in module.imports.values()]
        pending += [(f"{star}x" if star.endswith(".") else f"{star}.x", importer_dir)
                    for star in module.star_imports]
        seen: set[str] = set()
        while pending and len(seen) < MAX_MODULES:
            qualname, base_dir = pending.pop()
            path = self._file_for(qualname, base_dir)
            if path is None or path in seen:
                continue
            seen.add(path)
            key = (path, pattern.pattern)
            found = self._matches.get(key)
            if found is None:
                text = self._text(path)
                found = bool(text is not None and pattern.search(text))
                self._matches[key] = found
            if found:
                return True
            if path.endswith("__init__.py"):
                text = self._text(path) or ""
                for line in text.splitlines():
                    stripped = line.strip()
                    if stripped.startswith("from ") and " import " in stripped:
                        source = stripped[5:].split(" import", 1)[0].strip()
                        pending.append((source + ".x", os.path.dirname(path)))
        return False

    def _file_for(self, qualname: str, importer_dir: str) -> str | None:
        parts, roots = _import_roots(qualname, importer_dir)
        candidates = [parts[:-1], parts] if len(parts) > 1 else [parts]
        for base in roots:
            for module_parts in candidates:
                if not module_parts or not module_parts[0]:
                    continue
                path = self._module_file(base, module_parts)
                if path is not None:
                    return path
        return None

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
                if os.path.getsize(path) > MAX_IMPORTED_BYTES:
                    self._texts[shown] = None
                else:
                    self._texts[shown] = read_python(path)
            except (SourceError, ValueError, OSError):
                self._texts[shown] = None
        return self._texts[shown]

    def load(self, path: str) -> ModuleInfo | None:
        shown = display_path(path)
        if shown in self.modules:
            return self.modules[shown]
        self.modules[shown] = None
        try:
            if os.path.getsize(path) > MAX_IMPORTED_BYTES:
                return None
            text = read_python(path)
            tree = ast.parse(text, filename=shown)
        except (SourceError, SyntaxError, ValueError, RecursionError, MemoryError, OSError):
            return None
        module = ModuleInfo.build(shown, tree)
        self.modules[shown] = module
        self.sources[shown] = text
        return module


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


def _module_file(base: str, parts: list[str]) -> str | None:
    stem = os.path.join(base, *parts)
    for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
        if os.path.isfile(candidate) and "site-packages" not in candidate:
            return candidate
    return None
