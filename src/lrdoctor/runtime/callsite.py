"""Find the user's line that made a call: the first frame outside torch, lrdoctor, the
standard library and installed packages (falling back to the first frame outside torch and
lrdoctor, so a call made by a library such as Accelerate still points somewhere useful).

Verdicts are cached per code object, so a lookup costs a handful of dictionary hits.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from types import CodeType, FrameType

_LRDOCTOR_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _library_prefixes() -> tuple[str, ...]:
    prefixes = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            prefixes.add(os.path.abspath(sysconfig.get_paths()[key]))
        except KeyError:
            pass
    for shims in ("bin", "Scripts"):  # console-script shims such as .venv/bin/lrdoctor
        prefixes.add(os.path.join(os.path.abspath(sys.prefix), shims) + os.sep)
    for p in sys.path:
        if p.rstrip("/").endswith(("site-packages", "dist-packages")):
            prefixes.add(os.path.abspath(p))
    return tuple(sorted(prefixes))


_LIBRARY = _library_prefixes()
_USER_INSIDE_LRDOCTOR = tuple(os.path.join(_LRDOCTOR_DIR, d) + os.sep for d in ("examples", "demo"))
_TORCH_DIR: str | None = None

# id(code object) -> (it, 0 (ours or torch), 1 (other library) or 2 (user code)); keyed by id:
# hashing a code object hashes its constants, microseconds for a script's module-level code
_verdicts: dict[int, tuple[CodeType, int]] = {}


def _torch_dir() -> str:
    global _TORCH_DIR
    if _TORCH_DIR is None:
        mod = sys.modules.get("torch")
        path = getattr(mod, "__file__", None)
        _TORCH_DIR = os.path.dirname(os.path.abspath(path)) if path else "\0"
    return _TORCH_DIR


def _verdict(code: CodeType) -> int:
    entry = _verdicts.get(id(code))
    if entry is not None and entry[0] is code:
        return entry[1]
    fn = code.co_filename
    absfn = os.path.abspath(fn) if not fn.startswith("<") else fn
    if absfn.startswith(_USER_INSIDE_LRDOCTOR):
        v = 2  # our bundled example and demo scripts are user code
    elif absfn.startswith((_LRDOCTOR_DIR + os.sep, _torch_dir() + os.sep)):
        v = 0
    elif fn.startswith("<frozen") or absfn.startswith(_LIBRARY):
        v = 1
    else:
        v = 2
    _verdicts[id(code)] = (code, v)
    return v


def user_frame(depth: int = 2) -> FrameType | None:
    """The innermost user frame above ``sys._getframe(depth)``."""
    try:
        frame: FrameType | None = sys._getframe(depth)
    except ValueError:
        return None
    fallback = None
    while frame is not None:
        v = _verdict(frame.f_code)
        if v == 2:
            return frame
        if v == 1 and fallback is None:
            fallback = frame
        frame = frame.f_back
    return fallback


def user_site(depth: int = 3) -> tuple[str, int] | None:
    """``(filename, line)`` of the user's call (see :func:`user_frame`)."""
    frame = user_frame(depth)
    if frame is None:
        return None
    return _line_of(frame)


def user_site_from(frame: FrameType | None) -> tuple[str, int] | None:
    """``(filename, line)`` of the innermost user frame at or above ``frame``."""
    fallback = None
    while frame is not None:
        v = _verdict(frame.f_code)
        if v == 2:
            return _line_of(frame)
        if v == 1 and fallback is None:
            fallback = frame
        frame = frame.f_back
    return (fallback.f_code.co_filename, fallback.f_lineno) if fallback is not None else None


# the user's lines found by user_site() and user_site_from(), by instruction offset (see
# remember_site): a hook that runs on every step (GradScaler's backward) decodes its line once
_user_sites: dict[int, tuple[CodeType, tuple[str, int]]] = {}


def _line_of(frame: FrameType) -> tuple[str, int]:
    entry = _user_sites.get(frame.f_lasti)
    if entry is not None and entry[0] is frame.f_code:
        return entry[1]
    return remember_site(_user_sites, frame)


def display_path(filename: str) -> str:
    """A path relative to the working directory when it lies below it."""
    if filename.startswith("<"):
        return filename
    try:
        rel = os.path.relpath(filename)
    except ValueError:
        return filename
    return filename if rel.startswith("..") else rel


def remember_site(sites: dict[int, tuple[CodeType, tuple[str, int]]], frame: FrameType) -> tuple[str, int]:
    """``(filename, line)`` of ``frame``, remembered in ``sites`` by instruction offset.

    ``frame.f_lineno`` decodes the code object's line table on every read (the most expensive
    part of a per-step hook), while ``f_lasti`` is a field: a hook looks its caller up as

        entry = sites.get(frame.f_lasti)
        site = entry[1] if entry is not None and entry[0] is frame.f_code else remember_site(sites, frame)

    so the few lines that call it every step (``model(x)``, ``scheduler.step()``) are decoded
    once."""
    code = frame.f_code
    site = (code.co_filename, frame.f_lineno)
    if len(sites) >= 256:  # many distinct callers: start over rather than grow
        sites.clear()
    sites[frame.f_lasti] = (code, site)
    return site
