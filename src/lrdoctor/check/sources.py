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

import ast
import bisect
import json
import os
import re
import shlex
import stat
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # C-accelerated, stable
from typing import TYPE_CHECKING, Any

from lrdoctor.check.gitignore import IgnoreRules

if TYPE_CHECKING:
    from lrdoctor.check.diagnostic import Diagnostic

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
     "powershell", "shell"}  # `%%shell`: Colab's shell cell
)
# IPython help is a name followed by ? or ?? (`StepLR?`, `np.*load*?`); any other line that
# ends in "?" (a comment `# lr?`, a string) is Python
# `pip install x` / `conda install x` without the `%`: IPython's automagic runs them as the
# %pip / %conda magics (no Python line starts with these two words and a sub-command)
_MAGIC_LINE = re.compile(
    r"^\s*([%!?]|[\w.,\s\[\]]+=\s*[%!]|[\w.*]+\?\??\s*$"
    r"|(pip|pip3|conda|mamba)\s+(install|uninstall|list|show|freeze|download)\b)"
)
# IPython's line magics and shell aliases, and the kernel's own (clear, less, more, man), that
# automagic runs without the `%` (`cd data/`, `ls logs/*/`, `time model.fit(x)`); plus the
# common extensions' (tensorboard, autoreload)
_AUTOMAGICS = frozenset(
    {"alias", "alias_magic", "autoawait", "autocall", "automagic", "bookmark", "cat", "cd",
     "colors", "conda", "config", "cp", "debug", "dhist", "dirs", "doctest_mode", "ed", "edit",
     "env", "gui", "hist", "history", "killbgscripts", "ldir", "lf", "lk", "ll", "load",
     "load_ext", "loadpy", "logoff", "logon", "logstart", "logstate", "logstop", "ls",
     "lsmagic", "lx", "macro", "magic", "matplotlib", "mkdir", "mv", "notebook", "page",
     "pastebin", "pdb", "pdef", "pdoc", "pfile", "pinfo", "pinfo2", "pip", "popd", "pprint",
     "precision", "prun", "psearch", "psource", "pushd", "pwd", "pycat", "pylab", "quickref",
     "recall", "rehashx", "reload_ext", "rep", "rerun", "reset", "reset_selective", "rm",
     "rmdir", "run", "save", "sc", "set_env", "sx", "system", "tb", "time", "timeit",
     "unalias", "unload_ext", "who", "who_ls", "whos", "xdel", "xmode", "clear", "less", "more",
     "man", "tensorboard", "autoreload", "aimport"}
)
_AUTOMAGIC_LINE = re.compile(r"^\s*([A-Za-z_]\w*)(?:\s+(\S.*))?$")
# a bigger .py or .ipynb is generated data, not training code: reading stops there. Checking
# is linear in size and findings (20,000 findings in 0.7 MB take ~4 s), but Python's own AST
# takes ~100-170 bytes of memory per byte of dense source: 32 MiB already needs GBs
MAX_FILE_BYTES = 32 * 2**20
# "line 12" in a message, outside `code spans`
_LINE_REF = re.compile(r"\bline (\d+)\b")


class SourceError(Exception):
    """A file that cannot be read as Python: one line for the user."""


@dataclass
class NotebookSource:
    text: str
    cell_starts: list[tuple[int, int]] = field(default_factory=list)  # (cell number, 1st line)
    cell_lines: dict[int, list[str]] = field(default_factory=dict)
    # the Python files the notebook writes with `%%writefile x.py` cells, in the order written
    written: list[WrittenFile] = field(default_factory=list)

    def locate(self, line: int) -> tuple[int, int]:
        """(cell number, line within the cell) for a line of the joined source."""
        index = bisect.bisect_right(self.cell_starts, line, key=lambda c: c[1]) - 1
        if index < 0:
            return 1, line
        number, first = self.cell_starts[index]
        return number, line - first + 1

    def cell_line(self, line: int) -> str:
        """``cell 3, line 2`` for a line of the joined source."""
        cell, within = self.locate(line)
        return f"cell {cell}, line {within}"

    def place(self, diag: Diagnostic) -> None:
        """Point ``diag`` (found in the joined source) at its cell, and say ``cell N, line M``
        wherever its message or evidence names a line of the notebook."""
        end_line = diag.end_line
        diag.cell, diag.line = self.locate(diag.line)
        if end_line is not None:
            end_cell, diag.end_line = self.locate(end_line)
            if end_cell != diag.cell:  # a span never crosses cells; keep the start only
                diag.end_line = diag.end_col = None
        diag.edits = ()  # notebooks are reported, never rewritten
        diag.message = outside_code(diag.message,
                                     lambda text: _LINE_REF.sub(self._line_ref, text))
        diag.evidence = {**diag.evidence}
        for key, value in list(diag.evidence.items()):
            if (key == "line" or key.endswith("_line")) and type(value) is int:
                cell, within = self.locate(value)
                diag.evidence[key] = within
                diag.evidence[key.removesuffix("line") + "cell"] = cell

    def _line_ref(self, match: re.Match[str]) -> str:
        return self.cell_line(int(match.group(1)))

    def name_cells(self, diag: Diagnostic, shown: str) -> None:
        """A finding in another file (a module the notebook imports) whose message names a
        line of this notebook as ``shown:45`` (a line of the joined cells) says
        ``shown (cell 4, line 14)`` instead."""
        if f"{shown}:" not in diag.message:
            return
        pattern = re.compile(rf"(?<![\w./]){re.escape(shown)}:(\d+)\b")
        diag.message = outside_code(diag.message, lambda text: pattern.sub(
            lambda m: f"{shown} ({self.cell_line(int(m.group(1)))})", text))


@dataclass
class WrittenFile:
    """A ``.py`` file a notebook writes from its ``%%writefile`` (or ``%%file``) cells: a
    separate program (``!python train.py``), never part of the notebook's own code. ``source``
    holds the file's text as those cells write it, with a map back to each cell's lines (the
    magic line blank, so that line numbers match the cell's)."""

    path: str  # where it is written, relative to the notebook's directory, normalised
    source: NotebookSource
    final: bool = True  # False: a later cell writes the file anew (without -a)


def _written_target(head: str) -> tuple[str, bool] | None:
    """(target, whether appended) of a ``%%writefile [-a] target`` line, as IPython reads it
    (its arguments split like a shell's, one pair of quotes taken off the name); None for
    another magic, a target named from a variable (``{path}``, ``$f``) or unclear arguments.

    >>> _written_target('%%writefile -a "src/train.py"')
    ('src/train.py', True)
    """
    name, _, rest = head[2:].strip().partition(" ")
    if name not in ("writefile", "file"):
        return None
    try:
        words = shlex.split(rest)
    except ValueError:
        return None
    append = False
    targets = []
    for word in words:
        if word in ("-a", "--append"):
            append = True
        elif word.startswith("-"):
            return None
        else:
            targets.append(word)
    if len(targets) != 1 or "{" in targets[0] or "$" in targets[0]:
        return None
    return targets[0], append


def _written_path(target: str) -> str:
    """Where a written file lies relative to the notebook: ``./src/train.py`` is
    ``src/train.py``; an absolute target (Colab's ``/content/train.py``) keeps its
    directories below the notebook's, so files written side by side stay side by side."""
    return os.path.normpath(target).lstrip("/")


def _write(written: list[WrittenFile], number: int, lines: list[str]) -> bool:
    """Record the cell ``number`` (its ``lines``) when it writes a Python file; whether it
    writes a file at all (its body is then never the notebook's own code)."""
    lines, first = _leading_clean(lines)
    if first == len(lines) or not lines[first].startswith("%%"):
        return False
    target = _written_target(lines[first])
    if target is None:
        return False
    name, append = target
    if not name.endswith(".py"):
        return True
    path = _written_path(name)
    body = [""] * (first + 1) + lines[first + 1:]
    earlier = next((w for w in reversed(written) if w.path == path), None)
    if append and earlier is not None:
        source = earlier.source
        start = source.text.count("\n") + 1
        source.text += "\n".join(body) + "\n"
        source.cell_starts.append((number, start))
        source.cell_lines[number] = lines
        return True
    if earlier is not None:
        earlier.final = False
    written.append(WrittenFile(path, NotebookSource("\n".join(body) + "\n", [(number, 1)],
                                                    {number: lines})))
    return True


def outside_code(message: str, change: Any) -> str:
    """``change`` applied to the parts of ``message`` outside backtick code spans."""
    parts = message.split("`")
    return "`".join(change(part) if i % 2 == 0 else part for i, part in enumerate(parts))


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def read_bytes(path: str) -> bytes:
    """The bytes of a regular file of at most MAX_FILE_BYTES; SourceError for anything else.

    Opened without blocking and checked on the open descriptor: a FIFO or a device named
    ``.py`` would otherwise wait for a writer or never end."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise SourceError("no such file or directory") from None
    except IsADirectoryError:
        raise SourceError("is a directory, not a file") from None
    except OSError as exc:
        raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    with open(fd, "rb") as fh:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"{_kind(info.st_mode)}, not a regular file")
        try:
            raw = fh.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise SourceError(f"cannot read: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise SourceError(f"larger than {MAX_FILE_BYTES // 2**20} MiB: generated data, "
                          "not training code")
    return raw


# a checkout made without `git lfs pull` holds a three-line pointer where the file should be
_LFS_POINTER = "version https://git-lfs.github.com/spec/"
_LFS_PROBLEM = "a Git LFS pointer, not the file itself; fetch it with `git lfs pull`"


def read_python(path: str) -> str:
    """The text of a ``.py`` file, honouring a PEP 263 coding line; SourceError otherwise."""
    raw = read_bytes(path)
    if raw.startswith(_LFS_POINTER.encode()):
        raise SourceError(_LFS_PROBLEM)
    if b"\x00" in raw[:8192] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise SourceError("binary file (contains NUL bytes), not Python source")
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        # what Windows PowerShell's `>` writes: Python itself cannot run such a file, and no
        # coding line helps (it is read before the text can be decoded)
        raise SourceError("UTF-16 text (it starts with a UTF-16 byte-order mark): Python reads "
                          "source only as UTF-8 or an 8-bit encoding a coding line names; "
                          "save it as UTF-8")
    encoding = "utf-8"
    for line in raw.split(b"\n", 2)[:2]:
        match = re.match(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if match:
            encoding = match.group(1).decode("ascii", "replace")
            break
    try:
        text = raw.decode(encoding)
    except LookupError:
        text = _plain_python_under_unknown_codec(raw, encoding)
    except UnicodeDecodeError as exc:
        raise SourceError(
            f"not valid {encoding} (byte {exc.object[exc.start]:#04x} at offset {exc.start}); "
            "declare its encoding with a `# -*- coding: ... -*-` line"
        ) from None
    return text.removeprefix("\ufeff")


def _plain_python_under_unknown_codec(raw: bytes, encoding: str) -> str:
    """The text of a file whose coding line names a codec this Python does not have.

    Such codecs are installed by a package at run time; the common one, the ``future_fstrings``
    backport, hands the source through unchanged on Python 3.6 and later, so the file is
    plain UTF-8 Python and is checked as such. A codec that rewrites the source into Python
    (a templating syntax) leaves a file that does not parse without it: that one stays
    unchecked, and says why."""
    unknown = f"unknown encoding {encoding!r} in its coding line"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SourceError(unknown) from None
    try:
        # a str source: the parser ignores its coding line, as the codec's own output would
        ast.parse(text.removeprefix("\ufeff"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise SourceError(f"{unknown}, and the file is not plain Python without that codec") from None
    return text


def read_notebook_text(path: str) -> str:
    """The JSON text of a notebook (a UTF-8 byte-order mark is allowed, as Jupyter does)."""
    try:
        return read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SourceError("notebook is not valid UTF-8") from None


def read_notebook(path: str) -> NotebookSource:
    return notebook_source(read_notebook_text(path))


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def notebook_source(raw: str) -> NotebookSource:
    """Join a notebook's code cells into one source, blanking IPython-only lines."""
    raw = raw.removeprefix("\ufeff")
    if not raw.strip():
        # a zero-byte .ipynb (a placeholder committed before its content, a failed save) holds
        # no code: checked, with nothing in it, like an empty .py file (ruff reads it so too)
        return NotebookSource("")
    if raw.startswith(_LFS_POINTER):
        raise SourceError(_LFS_PROBLEM)
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise SourceError(f"broken notebook JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise SourceError("not a Jupyter notebook (top level is not a JSON object)")
    cells = _notebook_cells(data)
    if cells is None:
        raise SourceError("not a Jupyter notebook (no list of cells)")
    if _kernel_language(data) not in (None, "python"):
        # an R, Julia or Scala notebook (IRkernel, IJulia): its cells are not Python, and no
        # PyTorch training runs from them; ruff skips such notebooks too
        return NotebookSource("")
    out: list[str] = []
    nb = NotebookSource("")
    line = 1
    number = 0
    for cell in cells:
        number += 1  # cells are numbered like ruff does: every cell counts, markdown too
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        # a lone surrogate (`"\\udcca"` left of an emoji's pair by an editor that split it)
        # decodes from the JSON but is no text Python can compile: one replacement character
        # stands for it, so the cell is checked and columns still count one per character
        lines = _LONE_SURROGATE.sub("\ufffd", "".join(_source_parts(cell))).splitlines()
        nb.cell_lines[number] = lines
        nb.cell_starts.append((number, line))
        out.extend([""] * len(lines) if _write(nb.written, number, lines) else
                   _python_lines(lines))
        line += len(lines)
    nb.text = "\n".join(out) + ("\n" if out else "")
    return nb


def _kernel_language(data: dict[str, Any]) -> str | None:
    """The language a notebook's metadata says its cells are written in ("python" for any
    Python kernel), or None when the metadata says nothing."""
    meta = data.get("metadata")
    if not isinstance(meta, dict):
        return None
    info, spec = meta.get("language_info"), meta.get("kernelspec")
    stated = [d.get(key) for d, key in ((info, "name"), (spec, "language"))
              if isinstance(d, dict)]
    languages = {s.strip().lower() for s in stated if isinstance(s, str) and s.strip()}
    if not languages:
        return None
    if any(s.startswith(("python", "ipython")) for s in languages):
        return "python"
    return sorted(languages)[0]


def _notebook_cells(data: dict[str, Any]) -> list[Any] | None:
    cells = data.get("cells")
    if cells is None and isinstance(data.get("worksheets"), list):  # nbformat 3
        sheets = [ws.get("cells") for ws in data["worksheets"] if isinstance(ws, dict)]
        cells = [c for sheet in sheets if isinstance(sheet, list) for c in sheet]
    return cells if isinstance(cells, list) else None


def _source_parts(cell: dict[str, Any]) -> list[str]:
    source = cell.get("source", cell.get("input", ""))
    if isinstance(source, str):
        return [source]
    if isinstance(source, list):
        return [s for s in source if isinstance(s, str)]
    return []


class _At(str):
    """A JSON string value that remembers the offset of its opening quote in the raw text."""

    at: int


_WS = re.compile(r"[ \t\n\r]*")
_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null"
                     r"|NaN|-?Infinity")


def _json_value(raw: str, i: int) -> tuple[Any, int]:
    """Just enough of a JSON reader to know where each string value starts."""
    i = _WS.match(raw, i).end()  # type: ignore[union-attr]
    char = raw[i : i + 1]
    if char == '"':
        value, end = scanstring(raw, i + 1)
        located = _At(value)
        located.at = i
        return located, end
    if char in ("{", "["):
        closing = "}" if char == "{" else "]"
        items: list[Any] = []
        pairs: dict[str, Any] = {}
        i = _WS.match(raw, i + 1).end()  # type: ignore[union-attr]
        if raw[i : i + 1] == closing:
            return (pairs if char == "{" else items), i + 1
        while True:
            if char == "{":
                i = _WS.match(raw, i).end()  # type: ignore[union-attr]
                if raw[i : i + 1] != '"':
                    raise ValueError(f"expected a key at {i}")
                key, i = scanstring(raw, i + 1)
                i = _WS.match(raw, i).end()  # type: ignore[union-attr]
                if raw[i : i + 1] != ":":
                    raise ValueError(f"expected ':' at {i}")
                pairs[key], i = _json_value(raw, i + 1)
            else:
                value, i = _json_value(raw, i)
                items.append(value)
            i = _WS.match(raw, i).end()  # type: ignore[union-attr]
            if raw[i : i + 1] == ",":
                i += 1
            elif raw[i : i + 1] == closing:
                return (pairs if char == "{" else items), i + 1
            else:
                raise ValueError(f"expected ',' or {closing!r} at {i}")
    match = _SCALAR.match(raw, i)
    if not match:
        raise ValueError(f"unexpected character at {i}")
    return None, match.end()  # only strings' positions are needed


class RawNotebook:
    r"""Where a cell's code sits in the notebook file itself, for tools that show the raw
    ``.ipynb`` (SARIF viewers, GitHub annotations).

    >>> raw = '{"cells": [\n {"cell_type": "code",\n  "source": ["x = 1\\n", "y = \\"\\u00e9\\""]}]}'
    >>> print(raw)
    {"cells": [
     {"cell_type": "code",
      "source": ["x = 1\n", "y = \"\u00e9\""]}]}
    >>> RawNotebook(raw).position(1, 2, 6)  # cell 1, line 2, column 6: the e-acute
    (3, 32)
    """

    def __init__(self, raw: str) -> None:
        self.raw = raw.removeprefix("\ufeff")
        self.cells: list[Any] = []
        try:
            data, _ = _json_value(self.raw, 0)
        except (ValueError, IndexError, RecursionError):
            return
        if isinstance(data, dict):
            self.cells = _notebook_cells(data) or []
        self._newlines = [i for i, c in enumerate(self.raw) if c == "\n"] if self.cells else []

    def position(self, cell: int, line: int, col: int) -> tuple[int, int] | None:
        """(line, column), both 1-based, in the raw file of ``cell``'s line ``line``, column
        ``col``; None when the notebook is not laid out as expected."""
        if not 0 < cell <= len(self.cells) or not isinstance(self.cells[cell - 1], dict):
            return None
        parts = [p for p in _source_parts(self.cells[cell - 1]) if isinstance(p, _At)]
        text = "".join(parts)
        lines = text.splitlines(keepends=True)
        if not 0 < line <= len(lines):
            return None
        offset = sum(len(x) for x in lines[: line - 1]) + min(col - 1, len(lines[line - 1]))
        for part in parts:
            if offset <= len(part) and (offset < len(part) or part is parts[-1]):
                return self._raw_position(part, offset)
            offset -= len(part)
        return None

    def _raw_position(self, part: _At, chars: int) -> tuple[int, int]:
        i = part.at + 1  # after the opening quote
        raw = self.raw
        for _ in range(chars):  # one decoded character per escape sequence or raw character
            if raw[i] != "\\":
                i += 1
            elif raw[i + 1] != "u":
                i += 2
            elif 0xD800 <= int(raw[i + 2 : i + 6], 16) < 0xDC00 and raw[i + 6 : i + 8] == "\\u":
                i += 12  # a surrogate pair: one character
            else:
                i += 6
        line = bisect.bisect_left(self._newlines, i)
        start = self._newlines[line - 1] + 1 if line else 0
        return line + 1, i - start + 1


def _leading_clean(lines: list[str]) -> tuple[list[str], int]:
    """IPython's first clean-up of a cell, line numbers kept: blank lines before the code are
    dropped, and when the first line of code is indented that same indentation is removed from
    every line that starts with it (a cell pasted from inside a function still runs). Returns
    the lines and the index of the first line of code."""
    first = next((i for i, text in enumerate(lines) if text and not text.isspace()), len(lines))
    if first == len(lines):
        return lines, first
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip(" \t"))]
    if not indent:
        return lines, first
    cut = len(indent)
    return [*lines[:first], *(t[cut:] if t.startswith(indent) else t for t in lines[first:])], first


def _python_lines(lines: list[str]) -> list[str]:
    lines, first = _leading_clean(lines)
    if first < len(lines) and lines[first].startswith("%%"):
        head = lines[first]
        magic = head[2:].split(None, 1)[0] if head[2:].strip() else ""
        if magic in _FOREIGN_CELL_MAGICS:
            return [""] * len(lines)
        lines = [*lines[:first], "", *lines[first + 1:]]
    elif _automagic(lines, first):
        return [""] * len(lines)
    out = []
    continued = False  # the previous Python line ends in a backslash
    in_magic = False  # the previous magic line does: this one is more of the same command
    # IPython reads a magic only where a logical line starts: a line inside open brackets or
    # an open triple-quoted string (`print('%d' \n      % (n,))`) is Python, not a magic
    inside: tuple[int, str | None] = (0, None)
    for text in lines:
        if in_magic:
            out.append("")  # `!python export.py \` then `    --weights w.pt \`: still shell
        elif (not continued and inside == (0, None) and _MAGIC_LINE.match(text)
              and not text.lstrip().startswith("#")):
            indent = text[: len(text) - len(text.lstrip())]
            out.append(f"{indent}pass" if indent else "")
            in_magic = text.rstrip().endswith("\\")
            continue
        else:
            out.append(text)
            inside = _scan_open(text, inside)
        ends = text.rstrip().endswith("\\")
        continued, in_magic = (False, ends) if in_magic else (ends, False)
    return out


def exported_notebook_tree(text: str, filename: str = "<unknown>") -> ast.Module | None:
    """The tree of a ``.py`` file that Python cannot parse only because it is a notebook saved
    as a script: Colab's "Download .py", nbconvert and jupytext keep the cells' IPython escapes
    (`!pip install ...`, `%matplotlib inline`, `files = !ls`) as bare lines, which the notebook
    ran as shell commands and magics. Those lines are blanked as in a notebook's cells (line
    numbers kept) and the rest parsed; None when the file has none, or still does not parse
    without them (a real syntax error, a shell cell's body)."""
    lines = text.split("\n")
    if not any(_MAGIC_LINE.match(line) for line in lines):
        return None
    blanked = _python_lines(lines)
    if blanked == lines:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse("\n".join(blanked), filename=filename)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass
class ExpandedScript:
    """A notebook saved as a script whose Python cell magics were calls: nbconvert writes a
    ``%%time`` (``%%capture``, ``%%prun``...) cell as one statement,
    ``get_ipython().run_cell_magic('time', '', '<the cell's code>')``, and the notebook ran
    that code as Python in its own namespace. ``text`` is the script with each such statement
    replaced by the cell's lines, and ``origin`` maps each of its lines back to the file's:
    a line of a cell to the line of its call, the others to their own."""

    text: str
    origin: list[int]  # a line of ``text`` (index + 1) -> the line of the file
    calls: dict[int, tuple[int, int, int, int]]  # line of ``text`` in a cell -> its call's span

    def file_line(self, line: int) -> int:
        return self.origin[line - 1] if 0 < line <= len(self.origin) else line

    def place(self, diag: Diagnostic) -> None:
        """Point ``diag`` (found in ``text``) at the file's lines: a finding inside a cell at
        its call, as a finding in a notebook points at its cell. The script is reported,
        never rewritten (an edit of the expansion is not one of the file)."""
        span = self.calls.get(diag.line)
        if span is not None:
            diag.line, diag.col, diag.end_line, diag.end_col = span
        else:
            end_line = diag.end_line
            diag.line = self.file_line(diag.line)
            if end_line is not None:
                diag.end_line = self.file_line(end_line)
        diag.edits = ()
        self.name_lines(diag)

    def name_lines(self, diag: Diagnostic, shown: str | None = None) -> None:
        """The lines of ``text`` that ``diag``'s message and evidence name (``line 12``; in a
        finding of another file, ``shown:12``) as lines of the file."""
        if shown is None:
            diag.message = outside_code(diag.message, lambda text: _LINE_REF.sub(
                lambda m: f"line {self.file_line(int(m.group(1)))}", text))
            diag.evidence = {**diag.evidence}
            for key, value in list(diag.evidence.items()):
                if (key == "line" or key.endswith("_line")) and type(value) is int:
                    diag.evidence[key] = self.file_line(value)
        elif f"{shown}:" in diag.message:
            pattern = re.compile(rf"(?<![\w./]){re.escape(shown)}:(\d+)\b")
            diag.message = outside_code(diag.message, lambda text: pattern.sub(
                lambda m: f"{shown}:{self.file_line(int(m.group(1)))}", text))


# line magics whose argument is a Python statement run in the notebook's namespace
# (`%time history = fit(...)`); %timeit runs it in a scope of its own, many times
_PYTHON_LINE_MAGICS = frozenset({"time", "prun"})


def _python_cell_body(stmt: ast.stmt) -> str | None:
    """The code of a ``get_ipython().run_cell_magic(name, line, code)`` statement whose magic
    runs its body as Python (any but the shell, file and other-language ones), or of a
    ``get_ipython().run_line_magic('time', code)`` statement."""
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return None
    call = stmt.value
    func = call.func
    if not (isinstance(func, ast.Attribute)
            and func.attr in ("run_cell_magic", "run_line_magic")
            and isinstance(func.value, ast.Call) and not func.value.args
            and isinstance(func.value.func, ast.Name) and func.value.func.id == "get_ipython"):
        return None
    cell = func.attr == "run_cell_magic"
    if len(call.args) != (3 if cell else 2) or call.keywords \
            or not all(isinstance(a, ast.Constant) and type(a.value) is str for a in call.args):
        return None
    name = str(call.args[0].value).strip()  # type: ignore[attr-defined]
    if not name or name.split()[0] in _FOREIGN_CELL_MAGICS \
            or not cell and name not in _PYTHON_LINE_MAGICS:
        return None
    return str(call.args[-1].value)  # type: ignore[attr-defined]


def _chars(line: str, byte_col: int) -> int:
    """The character column of ``byte_col`` (ast counts UTF-8 bytes) in ``line``."""
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def expand_cell_magics(text: str, tree: ast.Module) -> ExpandedScript | None:
    """``text`` (parsed as ``tree``) with its Python cell magics' calls replaced by the cells'
    code (see :class:`ExpandedScript`); None when it has none whose code parses. A call that
    shares its lines with other statements is left as it is."""
    lines = text.split("\n")
    cells: list[tuple[ast.stmt, list[str]]] = []
    for stmt in tree.body:
        body = _python_cell_body(stmt)
        if body is None or stmt.end_lineno is None or stmt.end_col_offset is None:
            continue
        first, last = lines[stmt.lineno - 1], lines[stmt.end_lineno - 1]
        if first[: stmt.col_offset].strip() or last[stmt.end_col_offset:].strip(" \t;") \
                and not last[stmt.end_col_offset:].strip(" \t;").startswith("#"):
            continue
        code = _python_lines(body.split("\n"))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse("\n".join(code))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        cells.append((stmt, code))
    if not cells:
        return None
    out: list[str] = []
    origin: list[int] = []
    calls: dict[int, tuple[int, int, int, int]] = {}
    done = 0  # lines of the file copied so far
    for stmt, code in cells:
        for number in range(done + 1, stmt.lineno):
            out.append(lines[number - 1])
            origin.append(number)
        end_line = stmt.end_lineno or stmt.lineno
        span = (stmt.lineno, _chars(lines[stmt.lineno - 1], stmt.col_offset) + 1, end_line,
                _chars(lines[end_line - 1], stmt.end_col_offset or 0) + 1)
        for line in code:
            out.append(line)
            origin.append(stmt.lineno)
            calls[len(out)] = span
        done = end_line
    for number in range(done + 1, len(lines) + 1):
        out.append(lines[number - 1])
        origin.append(number)
    return ExpandedScript("\n".join(out), origin, calls)


def _automagic(lines: list[str], first: int) -> bool:
    """A cell of one line that IPython's automagic runs as a magic (`ls logs/`, `cd repo/`):
    the kernel applies it to single-line cells only, to a magic's name followed by anything
    but an assignment; read as one only where the line is no Python statement."""
    code = [t for t in lines[first:] if t.strip()]
    if len(code) != 1:
        return False
    match = _AUTOMAGIC_LINE.match(code[0])
    if match is None or match.group(1) not in _AUTOMAGICS or not match.group(2):
        return False
    if match.group(2)[0] in "=,":
        return False
    try:
        compile(code[0].strip(), "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return True
    return False


def _scan_open(text: str, state: tuple[int, str | None]) -> tuple[int, str | None]:
    """After one more line of Python: how many brackets are open, and the quote of a
    triple-quoted string still open (None when none). Quotes and comments are skipped; a
    one-line string left open (a syntax error anyway) ends with its line."""
    depth, quote = state
    i, n = 0, len(text)
    while i < n:
        if quote is not None:
            if text[i] == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += len(quote)
                quote = None
                continue
            i += 1
            continue
        c = text[i]
        if c == "#":
            break
        if c in "\"'":
            triple = c * 3
            if text.startswith(triple, i):
                quote, i = triple, i + 3
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(0, depth - 1)
        i += 1
    return depth, quote


def discover(
    paths: Iterable[str], exclude: Iterable[str] = (), base: str | None = None,
    respect_gitignore: bool = True, force_exclude: bool = False,
    notes: list[str] | None = None,
) -> tuple[list[str], list[str]]:
    """Files to check under ``paths`` and one-line errors for paths that do not exist.

    Files named explicitly are checked unless ``force_exclude`` (pre-commit names every staged
    file: ``--force-exclude`` applies ``exclude`` to them too); directories are walked. What a
    walk skips that is not plainly ignored (a FIFO named ``.py``) is said in ``notes``; a
    dangling symlink is skipped silently, as git does."""
    files: list[str] = []
    errors: list[str] = []
    seen: set[str] = set()
    patterns = list(exclude)
    rules = IgnoreRules(patterns, base) if force_exclude and patterns else None
    for raw in paths:
        if not os.path.lexists(raw):
            errors.append(f"{raw}: no such file or directory")
            continue
        if os.path.isdir(raw):
            for found in _walk(raw, patterns, base, respect_gitignore, notes):
                key = os.path.realpath(found)
                if key not in seen:
                    seen.add(key)
                    files.append(found)
        elif rules is None or not _excluded(raw, rules):
            key = os.path.realpath(raw)
            if key not in seen:
                seen.add(key)
                files.append(raw)
    return files, errors


def _excluded(path: str, rules: IgnoreRules) -> bool:
    """Whether an explicitly named file, or a directory above it, matches ``rules``."""
    full = os.path.abspath(path)
    parents = []
    parent = os.path.dirname(full)
    while parent != os.path.dirname(parent):
        parents.append(parent)
        parent = os.path.dirname(parent)
    return any(rules.ignored(d, is_dir=True) for d in reversed(parents)) or \
        rules.ignored(full, is_dir=False)


def project_subdirs(parent: str, names: list[str]) -> list[str]:
    """The subdirectories of ``parent`` that a walk of the project's own code enters (to find
    the modules a file imports, or every place that could set a name), sorted: no hidden
    directory, cache, installed packages or virtual environment (under any name). The walk of
    the paths given to ``check`` (``_walk``) also honours exclusions and ``.gitignore``."""
    return sorted(d for d in names
                  if not d.startswith(".") and d not in SKIP_DIRS and not d.endswith(".egg-info")
                  and not os.path.isfile(os.path.join(parent, d, "pyvenv.cfg")))

def _walk(root: str, exclude: list[str], base: str | None,
          respect_gitignore: bool, notes: list[str] | None = None) -> Iterator[str]:
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
                try:
                    regular = entry.is_file()  # follows symlinks: False when dangling
                    if not regular and not entry.is_symlink():
                        kind = _kind(entry.stat(follow_symlinks=False).st_mode)
                    elif not regular and os.path.exists(full):
                        kind = _kind(os.stat(full).st_mode)
                    else:
                        kind = ""
                except OSError:
                    continue
                if regular:
                    yield full
                elif kind and notes is not None:
                    notes.append(f"{full}: skipped: {kind}, not a regular file")
        stack.extend(reversed(subdirs))
