"""``[tool.lrdoctor]`` in ``pyproject.toml``: select, ignore, exclude.

    [tool.lrdoctor]
    select = ["LRD0"]          # codes or prefixes; default: all
    ignore = ["LRD015"]
    exclude = ["legacy/", "notebooks/scratch_*.ipynb"]   # gitignore-style patterns

The file is looked up from the working directory upwards (or given with ``--config``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


class ConfigError(Exception):
    pass


@dataclass
class Config:
    path: str | None = None
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()


def find_pyproject(start: str | None = None) -> str | None:
    current = os.path.abspath(start or os.getcwd())
    while True:
        candidate = os.path.join(current, "pyproject.toml")
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def load(path: str | None = None, explicit: bool = False) -> Config:
    path = path or find_pyproject()
    if path is None:
        return Config()
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ModuleNotFoundError:
            if explicit:
                raise ConfigError("reading pyproject.toml needs Python 3.11+ or `tomli`") from None
            return Config()
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from None
    section = data.get("tool", {}).get("lrdoctor")
    if section is None:
        return Config(path=path if explicit else None)
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.lrdoctor] must be a table")
    unknown = set(section) - {"select", "ignore", "exclude", "extend-exclude"}
    if unknown:
        raise ConfigError(
            f"{path}: unknown [tool.lrdoctor] key(s): {', '.join(sorted(unknown))} "
            "(known: select, ignore, exclude)"
        )
    return Config(
        path=path,
        select=_strings(section, "select", path) if "select" in section else None,
        ignore=_strings(section, "ignore", path),
        exclude=_strings(section, "exclude", path) + _strings(section, "extend-exclude", path),
    )


def _strings(section: dict[str, Any], key: str, path: str) -> list[str]:
    value = section.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.lrdoctor] {key} must be a list of strings")
    return list(value)
