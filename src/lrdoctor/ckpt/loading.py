"""Reading checkpoint files without running them.

Every file is loaded with ``torch.load(..., weights_only=True)``: tensors, numbers, strings and
containers come back, and nothing in the file is imported or called. A file that needs more
(a pickled class, a function) is refused with the names it wanted to import; ``--unsafe-load``
opts in to full unpickling, which runs whatever code the file names.

Each failure is a :class:`CheckpointError` with one line a user can act on.
"""

from __future__ import annotations

import io
import pickletools
import re
import struct
import warnings
import zipfile
from pathlib import Path
from typing import Any

UNSAFE_WARNING = (
    "lrdoctor ckpt: --unsafe-load: {path} is unpickled in full. Unpickling imports and calls "
    "whatever the file names (os.system, subprocess, anything installed): a malicious or "
    "tampered checkpoint runs its code with your permissions. Use it only for files you made "
    "or fully trust."
)


_GLOBAL_NAME = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)+$")


class CheckpointError(Exception):
    """A file that cannot be audited; ``str()`` is the one-line reason."""


def _globals_named_in_pickle(data: bytes) -> list[str]:
    """The globals a pickle would import, read from its opcodes (nothing is executed)."""
    names: list[str] = []
    strings: list[str] = []
    try:
        for op, arg, _ in pickletools.genops(io.BytesIO(data)):
            if op.name in ("GLOBAL", "INST") and isinstance(arg, str):
                names.append(arg.replace(" ", "."))
            elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
                names.append(f"{strings[-2]}.{strings[-1]}")
            elif isinstance(arg, str):
                strings.append(arg)
    except Exception:  # a truncated or odd pickle: report what was read so far
        pass
    return names


def _unsafe_globals(path: Path, message: str) -> list[str]:
    import torch

    names: list[str] = []
    try:
        names = list(torch.serialization.get_unsafe_globals_in_checkpoint(str(path)))
    except Exception:
        pass
    if not names:
        names = re.findall(r"GLOBAL ([\w.]+)", message)
    if not names:
        try:
            safe = set(_safe_names())
            names = [n for n in _globals_named_in_pickle(path.read_bytes()) if n not in safe]
        except OSError:
            pass
    return sorted(set(names))


def _safe_names() -> list[str]:
    try:
        from torch._weights_only_unpickler import _get_allowed_globals

        return list(_get_allowed_globals())
    except Exception:
        return []


def load(path: Path, unsafe: bool = False) -> Any:
    """The object saved in ``path``, loaded on the CPU; raises :class:`CheckpointError`."""
    import pickle

    import torch

    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError as exc:
        raise CheckpointError(f"cannot be read: {exc.strerror or exc}") from None
    if not head:
        raise CheckpointError("is empty (0 bytes): not a checkpoint")
    is_zip = head == b"PK\x03\x04"
    is_pickle = head[:1] == b"\x80"
    if not (is_zip or is_pickle):
        raise CheckpointError("is not a PyTorch checkpoint (neither a torch.save archive nor a pickle)")
    if is_zip and not _is_torch_archive(path):
        if _zip_is_readable(path):
            raise CheckpointError("is a zip archive but not a torch.save checkpoint (no data.pkl inside)")
        raise CheckpointError("is truncated or corrupt: the torch.save archive cannot be read "
                              "(its end is missing: an interrupted save or copy?)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            # a torch.save archive is memory-mapped: counting a model's parameters reads no weights
            return torch.load(path, map_location="cpu", weights_only=not unsafe, mmap=is_zip)
        except pickle.UnpicklingError as exc:
            message = str(exc)
            if unsafe or "Weights only load failed" not in message:
                raise CheckpointError(f"is truncated or corrupt: {_first_line(message)}") from None
            names = _unsafe_globals(path, message)
            allowed = _safe_names()
            if any(not _GLOBAL_NAME.match(n) or any(a.startswith(n) for a in allowed) for n in names):
                # a name cut in half (``to.``): the pickle itself is cut short, not malicious
                raise CheckpointError("is truncated or corrupt: its pickle data is cut short or "
                                      "damaged") from None
            wanted = ", ".join(names) if names else "objects other than tensors and containers"
            raise CheckpointError(
                f"refused: loading it needs arbitrary unpickling (it imports {wanted}), which "
                "runs code from the file; rerun with --unsafe-load only if you trust where it "
                "came from") from None
        except (EOFError, RuntimeError, ValueError, KeyError, IndexError, TypeError, AttributeError,
                ModuleNotFoundError, ImportError, struct.error) as exc:
            if isinstance(exc, (ModuleNotFoundError, ImportError)) and unsafe:
                raise CheckpointError(f"cannot be unpickled here: {exc}") from None
            if isinstance(exc, EOFError):
                raise CheckpointError("is truncated: its data ends too early (an interrupted save "
                                      "or copy?)") from None
            reason = _first_line(str(exc)) or type(exc).__name__
            raise CheckpointError(f"is truncated or corrupt: {reason}") from None


def _is_torch_archive(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as z:
            return any(n.endswith("/data.pkl") or n == "data.pkl" for n in z.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def _zip_is_readable(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path):
            return True
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:200]


def pickled_flags(path: Path, names: tuple[str, ...]) -> dict[str, bool]:
    """Boolean fields of a pickled object (Hugging Face's training_args.bin) read from the
    pickle's opcodes without unpickling it: ``{"fp16": True}``. Only a field name directly
    followed by True/False counts; anything else is left out."""
    data = b""
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                inner = [n for n in z.namelist() if n.endswith("data.pkl")]
                data = z.read(inner[0]) if inner else b""
        else:
            data = path.read_bytes()
    except (OSError, zipfile.BadZipFile, KeyError):
        return {}
    found: dict[str, bool] = {}
    previous: Any = None
    try:
        for op, arg, _ in pickletools.genops(io.BytesIO(data)):
            if op.name in ("NEWTRUE", "NEWFALSE") and previous in names and previous not in found:
                found[previous] = op.name == "NEWTRUE"
            if op.name in ("MEMOIZE", "PUT", "BINPUT", "LONG_BINPUT"):
                continue
            previous = arg if isinstance(arg, str) else None
    except Exception:
        pass
    return found
