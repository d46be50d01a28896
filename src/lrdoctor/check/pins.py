"""The versions of a library a project pins in its own requirement files (``requirements.txt``
and the like, ``environment.yml``, ``setup.py`` / ``setup.cfg`` / ``pyproject.toml``): what a
user who installs the project as it says gets. A rule whose reading of a library depends on
its version asks whether every version the project allows is older than one."""

from __future__ import annotations

import os
import re
from functools import lru_cache

from lrdoctor.check.project import project_root

_FILES = re.compile(r"^(requirements[\w.-]*\.txt|constraints[\w.-]*\.txt|environment[\w.-]*\.ya?ml"
                    r"|setup\.py|setup\.cfg|pyproject\.toml)$", re.IGNORECASE)
_MAX_BYTES = 200_000


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


@lru_cache(maxsize=256)
def _texts(directory: str) -> tuple[str, ...]:
    """The requirement files' texts from ``directory`` up to its project root."""
    out: list[str] = []
    root = project_root(directory)
    current = directory
    while True:
        try:
            names = sorted(os.listdir(current))
        except OSError:
            names = []
        for name in names:
            path = os.path.join(current, name)
            if _FILES.match(name) and os.path.isfile(path) and os.path.getsize(path) < _MAX_BYTES:
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        out.append(handle.read())
                except OSError:
                    continue
        parent = os.path.dirname(current)
        if current == root or parent == current:
            return tuple(out)
        current = parent


def pinned_before(path: str, package: str, version: tuple[int, ...]) -> bool:
    """The project around ``path`` pins ``package`` to versions older than ``version`` only
    (``package==0.15.0``, conda's ``package=0.15.0``, ``package<0.16``, ``package<=0.15.2``),
    in some requirement file from the file's folder up to the project root, and nowhere
    allows a later one. Unpinned, bounded below only, or not named: False."""
    name = re.escape(package)
    spec = re.compile(rf"(?<![\w.-]){name}\s*(?:\[[^\]]*\])?\s*(==|=|<=|<|>=|~=|>)\s*"
                      rf"v?(\d+(?:\.\d+){{0,2}})", re.IGNORECASE)
    before = found = False
    for text in _texts(os.path.dirname(os.path.abspath(path))):
        for op, number in spec.findall(text):
            found = True
            given = _version(number)
            if op in ("==", "=", "<="):
                older = given < version
            elif op == "<":
                older = given <= version
            else:
                return False  # a lower bound: later versions allowed
            if not older:
                return False
            before = True
    return found and before
