"""Following imports into the checked project: ``from engine import Trainer`` in ``train.py``
makes ``engine.py`` (found beside it, at the project root or under ``src/``) part of the trace.

Only files inside the project are read, never installed packages. Each module is parsed once
per process.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache

from lrdoctor.check.index import ModuleInfo, ModuleLoader
from lrdoctor.check.sources import SourceError, read_python

MAX_IMPORTED_BYTES = 2_000_000
MAX_MODULES = 64
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

    def module_for(self, qualname: str, importer: ModuleInfo) -> tuple[ModuleInfo, str] | None:
        if len(self.modules) >= MAX_MODULES:
            return None
        key = (importer.path, qualname)
        if key not in self._resolved:
            self._resolved[key] = self._resolve(qualname, importer)
        return self._resolved[key]

    def _resolve(self, qualname: str, importer: ModuleInfo) -> tuple[ModuleInfo, str] | None:
        importer_dir = os.path.dirname(os.path.abspath(importer.path))
        level = len(qualname) - len(qualname.lstrip("."))
        parts = qualname.lstrip(".").split(".")
        if len(parts) < 2:
            return None
        module_parts, attr = parts[:-1], parts[-1]
        if level:
            base = importer_dir
            for _ in range(level - 1):
                base = os.path.dirname(base)
            roots = [base]
        else:
            root = project_root(importer_dir)
            roots = list(dict.fromkeys([importer_dir, root, os.path.join(root, "src")]))
        for base in roots:
            key = (base, tuple(module_parts))
            if key not in self._files:  # `torch.zeros(...)` is looked up once, not per call
                self._files[key] = _module_file(base, module_parts)
            path = self._files[key]
            if path is not None:
                module = self.load(path)
                if module is not None:
                    return module, attr
        return None

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


def _module_file(base: str, parts: list[str]) -> str | None:
    stem = os.path.join(base, *parts)
    for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
        if os.path.isfile(candidate) and "site-packages" not in candidate:
            return candidate
    return None
