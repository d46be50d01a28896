"""What gets checked: ``.py`` files and Jupyter notebooks, found by walking directories.

A notebook becomes one Python source (its code cells in order, IPython magics and shell
escapes blanked out so that line numbers still match), plus a map back to ``cell N, line M``.
Directory walks honour ``.gitignore`` files and skip virtual environments and
``site-packages``.

>>> nb = notebook_source('{"cells": [{"cell_type": "code", "source": ["%matplotlib inline\\\\n", "x = 1"]}]}')
>>> nb.text.splitlines()
['', 'x = 1']
>>> nb.locate(2)
(1, 2)
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from lrdoctor.check.gitignore import IgnoreRules

SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "__pycache__", "site-packages", "dist-packages", "node_modules",
     ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".ruff_cache", ".pytest_cache",
     ".ipynb_checkpoints", ".eggs"}
)
EXTENSIONS = (".py", ".ipynb")
# cell magics whose body is not Python
_FOREIGN_CELL_MAGICS = frozenset(
    {"bash", "sh", "script", "html", "javascript", "js", "latex", "markdown", "perl", "ruby",
     "svg", "writefile", "file", "sql", "R", "system", "sx", "python2", "pypy", "cmd",
     "powershell"}
)
_MAGIC_LINE = re.compile(r"^\s*([%!?]|[\w.,\s\[\]]+=\s*[%!])|.*\?\s*$")


class SourceError(Exception):
    """A file that cannot be read as Python: one line for the user."""


@dataclass
class NotebookSource:
    text: str
    cell_starts: list[tuple[int, int]] = field(default_factory=list)  # (cell number, 1st line)
    cell_lines: dict[int, list[str]] = field(default_factory=dict)

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, line within the cell) for a line of the joined source."""
        cell, start = 1, 1
        for number, first in self.cell_starts:
            if first > line:
                break
            cell, start = number, first
        return cell, line - start + 1


def read_python(path: str) -> str:
    """The text of a ``.py`` file, honouring a PEP 263 coding line; SourceError otherwise."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        raise SourceError("no such file") from None
    except IsADirectoryError:
        raise SourceError("is a directory") from None
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    if b"\x00" in raw[:8192] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SourceError("binary file (contains NUL bytes), not Python source")
    encoding = "utf-8"
    for line in raw.split(b"\n", 2)[:2]:
        match = re.match(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if match:
            encoding = match.group(1).decode("ascii", "replace")
            break
    try:
        text = raw.decode(encoding)
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r} in its coding line") from None
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"not valid {encoding} (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "declare its encoding with a `# -*- coding: ... -*-` line"
        ) from None
    return text.removeprefix("\ufeff")


def notebook_source(raw: str) -> NotebookSource:
    """Join a notebook's code cells into one source, blanking IPython-only lines."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SourceError(f"broken notebook JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise SourceError("not a Jupyter notebook (top level is not a JSON object)")
    cells = data.get("cells")
    if cells is None and isinstance(data.get("worksheets"), list):  # nbformat 3
        cells = [c for ws in data["worksheets"] if isinstance(ws, dict)
                 for c in ws.get("cells", [])]
    if not isinstance(cells, list):
        raise SourceError("not a Jupyter notebook (no list of cells)")
    out: list[str] = []
    nb = NotebookSource("")
    line = 1
    number = 0
    for cell in cells:
        number += 1  # cells are numbered like ruff does: every cell counts, markdown too
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", cell.get("input", ""))
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            source = ""
        lines = source.splitlines()
        nb.cell_lines[number] = lines
        nb.cell_starts.append((number, line))
        out.extend(_python_lines(lines))
        line += len(lines)
    nb.text = "\n".join(out) + ("\n" if out else "")
    return nb


def _python_lines(lines: list[str]) -> list[str]:
    if lines and lines[0].startswith("%%"):
        magic = lines[0][2:].split(None, 1)[0] if lines[0][2:].strip() else ""
        if magic in _FOREIGN_CELL_MAGICS:
            return [""] * len(lines)
        lines = ["", *lines[1:]]
    out = []
    continued = False
    for text in lines:
        if not continued and _MAGIC_LINE.match(text) and not text.lstrip().startswith("#"):
            indent = text[: len(text) - len(text.lstrip())]
            out.append(f"{indent}pass" if indent else "")
        else:
            out.append(text)
        continued = text.rstrip().endswith("\\")
    return out


def discover(
    paths: Iterable[str], exclude: Iterable[str] = (), base: str | None = None,
    respect_gitignore: bool = True,
) -> tuple[list[str], list[str]]:
    """Files to check under ``paths`` and one-line errors for paths that do not exist.

    Files named explicitly are always checked; directories are walked."""
    files: list[str] = []
    errors: list[str] = []
    seen: set[str] = set()
    patterns = list(exclude)
    for raw in paths:
        if not os.path.lexists(raw):
            errors.append(f"{raw}: no such file or directory")
            continue
        if os.path.isdir(raw):
            for found in _walk(raw, patterns, base, respect_gitignore):
                key = os.path.realpath(found)
                if key not in seen:
                    seen.add(key)
                    files.append(found)
        else:
            key = os.path.realpath(raw)
            if key not in seen:
                seen.add(key)
                files.append(raw)
    return files, errors


def _walk(root: str, exclude: list[str], base: str | None,
          respect_gitignore: bool) -> Iterator[str]:
    rules = IgnoreRules(exclude, base)
    if respect_gitignore:
        rules = rules.with_parents(os.path.abspath(root))
    stack: list[tuple[str, IgnoreRules]] = [(root, rules)]
    while stack:
        directory, dir_rules = stack.pop()
        if respect_gitignore:
            dir_rules = dir_rules.with_file(os.path.join(directory, ".gitignore"))
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            continue
        subdirs = []
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            full = os.path.join(directory, name)
            if is_dir:
                if name in SKIP_DIRS or name.endswith(".egg-info"):
                    continue
                if os.path.exists(os.path.join(full, "pyvenv.cfg")):
                    continue  # a virtual environment under any name
                if dir_rules.ignored(full, is_dir=True):
                    continue
                subdirs.append((full, dir_rules))
            elif name.endswith(EXTENSIONS) and not dir_rules.ignored(full, is_dir=False):
                yield full
        stack.extend(reversed(subdirs))
