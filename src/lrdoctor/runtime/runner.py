"""``lrdoctor run``: run a script or module exactly as ``python`` would, watched.

The script gets ``__name__ == "__main__"``, ``sys.argv == [SCRIPT, *ARGS]`` and
``sys.path[0]`` = the script's directory (the working directory for ``-m``). Its output is
untouched; lrdoctor writes its report to stderr when the script ends, raises or is
interrupted, and passes the script's exit code through.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import traceback
from types import TracebackType

from lrdoctor import ScheduleError
from lrdoctor.runtime.session import Watch

_LRDOCTOR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OUR_FILES = (_LRDOCTOR + os.sep, runpy.__file__.rstrip("c"))
_USER_INSIDE = tuple(os.path.join(_LRDOCTOR, d) + os.sep for d in ("examples", "demo"))


def _exit_code(exc: SystemExit) -> int:
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _ours(filename: str) -> bool:
    if filename.startswith("<frozen runpy"):
        return True
    path = os.path.abspath(filename)
    return path.startswith(_OUR_FILES) and not path.startswith(_USER_INSIDE)


def _user_traceback(exc: BaseException) -> TracebackType | None:
    """The traceback as ``python SCRIPT`` would show it: without the leading lrdoctor/runpy
    frames, and for our own ScheduleError ending at the user's line that triggered it."""
    tb = exc.__traceback__
    while tb is not None and _ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    if isinstance(exc, ScheduleError):
        last_user = cursor = tb
        while cursor is not None:
            if not _ours(cursor.tb_frame.f_code.co_filename):
                last_user = cursor
            cursor = cursor.tb_next
        if last_user is not None:
            last_user.tb_next = None
    return tb


def run_target(target: str, args: list[str], *, is_module: bool = False,
               json_path: str | None = None, strict: bool = False, quiet: bool = False,
               nan_trace: bool = False, nan_check: bool = True) -> int:
    if not is_module and not os.path.exists(target):
        print(f"lrdoctor run: can't open file {target!r}: no such file", file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
    except ImportError:
        print("lrdoctor run: PyTorch is not installed in this environment "
              "(the runtime watcher needs torch 2.2 or newer)", file=sys.stderr)
        return 2

    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    if is_module:
        sys.argv = [target, *args]
        path0 = os.getcwd()
    else:
        sys.argv = [target, *args]
        path0 = os.path.dirname(os.path.abspath(target))
    if sys.path:
        sys.path[0] = path0
    else:
        sys.path.insert(0, path0)

    watch = Watch(strict=strict, nan_trace=nan_trace, nan_check=nan_check)
    watch.start()
    code = 0
    error: BaseException | None = None
    interrupted = False
    try:
        if is_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(target, run_name="__main__")
    except SystemExit as exc:
        code = _exit_code(exc)
    except KeyboardInterrupt as exc:
        interrupted = True
        error = exc
        traceback.print_exception(type(exc), exc, _user_traceback(exc))
        code = 130
    except BaseException as exc:
        error = exc
        traceback.print_exception(type(exc), exc, _user_traceback(exc))
        code = 1
    finally:
        try:
            sys.stdout.flush()
        except Exception:
            pass
        watch.stop(error, interrupted)
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path:
            sys.path[0] = saved_path0
    _emit_report(watch, json_path, quiet)
    return code


def _per_rank(path: str) -> str:
    """Under torchrun every rank writes its own report: ``{rank}`` in the path is replaced,
    otherwise ``.rankN`` goes before the extension (single-process runs keep the path)."""
    rank = os.environ.get("RANK")
    if rank is None or os.environ.get("WORLD_SIZE", "1") == "1":
        return path.replace("{rank}", "0")
    if "{rank}" in path:
        return path.replace("{rank}", rank)
    root, ext = os.path.splitext(path)
    return f"{root}.rank{rank}{ext}"


def _emit_report(watch: Watch, json_path: str | None, quiet: bool) -> None:
    from lrdoctor.report.text import use_color

    try:
        if json_path:
            json_path = _per_rank(json_path)
            with open(json_path, "w", encoding="utf-8") as fh:
                json.dump(watch.to_dict(), fh, indent=2)
                fh.write("\n")
        if not quiet or watch.findings:
            rank = os.environ.get("RANK")
            text = watch.report(color=use_color(sys.stderr))
            if rank is not None and os.environ.get("WORLD_SIZE", "1") != "1":
                text = "\n".join(f"[rank {rank}] {line}" for line in text.splitlines())
            print("\n" + text, file=sys.stderr, flush=True)
    except Exception as exc:  # the report must never turn a good run into a failure
        print(f"lrdoctor: could not write the report: {exc}", file=sys.stderr)
