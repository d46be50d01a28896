"""Enough of ``.gitignore`` semantics to skip what a project ignores.

Patterns without a slash match a name at any depth, patterns with one are anchored to the
directory of the file that holds them, a trailing ``/`` matches directories only, ``!``
re-includes, ``**`` spans directories, and the last matching pattern wins.

>>> rules = IgnoreRules(["build/", "*.py", "!keep.py"], base="/p")
>>> rules.ignored("/p/a/build", is_dir=True), rules.ignored("/p/x.py", False)
(True, True)
>>> rules.ignored("/p/keep.py", False)
False
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class _Pattern:
    base: str
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool


@lru_cache(maxsize=4096)
def _translate(pattern: str) -> re.Pattern[str]:
    out = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
            continue
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end
        elif c == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 1
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out) + r"\Z")


def _parse(line: str, base: str) -> _Pattern | None:
    line = line.rstrip("\n").rstrip("\r")
    if not line.strip() or line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip()
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    line = line.lstrip("/")
    return _Pattern(base, _translate(line), negate, dir_only, anchored)


class IgnoreRules:
    """An ordered list of ignore patterns, each relative to its own base directory."""

    def __init__(self, lines: list[str] | None = None, base: str | None = None,
                 patterns: tuple[_Pattern, ...] = ()) -> None:
        base = os.path.abspath(base or os.getcwd())
        parsed = [p for p in (_parse(line, base) for line in lines or []) if p is not None]
        self.patterns: tuple[_Pattern, ...] = (*patterns, *parsed)

    def with_file(self, path: str) -> IgnoreRules:
        if not os.path.isfile(path):  # absent, or a FIFO that would block the walk
            return self
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            return self
        return IgnoreRules(lines, os.path.dirname(os.path.abspath(path)), self.patterns)

    def with_parents(self, directory: str) -> IgnoreRules:
        """Add the .gitignore files of the enclosing git repository, above ``directory``."""
        chain = []
        current = os.path.abspath(directory)
        while True:
            parent = os.path.dirname(current)
            if parent == current:
                return self  # not inside a git repository: nothing above applies
            current = parent
            chain.append(current)
            if os.path.exists(os.path.join(current, ".git")):
                break
        rules = self
        for d in reversed(chain):
            rules = rules.with_file(os.path.join(d, ".gitignore"))
        return rules

    def ignored(self, path: str, is_dir: bool) -> bool:
        if not self.patterns:
            return False
        full = os.path.abspath(path)
        name = os.path.basename(full)
        result = False
        for p in self.patterns:
            if p.dir_only and not is_dir:
                continue
            if p.anchored:
                rel = os.path.relpath(full, p.base)
                if rel.startswith(".."):
                    continue
                subject = rel.replace(os.sep, "/")
            else:
                subject = name
            if p.regex.match(subject):
                result = not p.negate
        return result
