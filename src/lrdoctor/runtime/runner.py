"""``lrdoctor run``: run a script or module exactly as ``python`` would, watched.

What ``python SCRIPT`` does, this does too: ``__name__ == "__main__"`` in a fresh ``__main__``
module, ``__file__`` absolute (as typed, joined to the working directory), ``sys.argv ==
[SCRIPT, *ARGS]`` as typed, ``sys.path[0]`` the script's real directory (the working directory
for ``-m``); an uncaught exception goes to ``sys.excepthook``; non-daemon threads are waited
for; an uncaught KeyboardInterrupt ends the process by SIGINT (after atexit handlers). torch is
not imported before the script imports it (the watcher starts from an import hook).

lrdoctor only adds its report, on stderr, once the script and its threads are done.
"""

from __future__ import annotations

import atexit
import builtins
import importlib.util
import os
import runpy
import signal
import sys
import time
import types
from collections.abc import Callable
from types import TracebackType
from typing import TextIO

from lrdoctor import ScheduleError
from lrdoctor.runtime import ranks
from lrdoctor.runtime.session import Watch

_LRDOCTOR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_OUR_FILES = (_LRDOCTOR + os.sep, runpy.__file__.rstrip("c"))
_USER_INSIDE = tuple(os.path.join(_LRDOCTOR, d) + os.sep for d in ("examples", "demo"))

# the script's __main__ module stays alive until the process ends, as under python (objects
# in its globals are finalized at shutdown, not when the script's last line has run)
_main_modules: list[types.ModuleType] = []


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


def _print_uncaught(exc: BaseException) -> None:
    """Hand the exception to ``sys.excepthook`` as the interpreter would."""
    tb = _user_traceback(exc)
    exc = exc.with_traceback(tb)
    hook = getattr(sys, "excepthook", None)
    try:
        if hook is None:
            raise RuntimeError("lost sys.excepthook")
        hook(type(exc), exc, tb)
    except BaseException as hook_error:  # what python prints when the hook itself fails
        print("Error in sys.excepthook:", file=sys.stderr)
        sys.__excepthook__(type(hook_error), hook_error, hook_error.__traceback__)
        print("\nOriginal exception was:", file=sys.stderr)
        sys.__excepthook__(type(exc), exc, tb)


def check_json_path(path: str) -> str | None:
    """Why the report could not be written to ``path`` (None if it can), found before the
    script runs rather than after hours of training. Nothing is left behind."""
    target = _json_target(path)
    if target is None:
        return None
    path = target
    if os.path.isdir(path):
        return f"{path!r} is a directory"
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot write {path!r}: {exc.strerror or exc}"
    if not existed:
        try:
            os.remove(path)
        except OSError:
            pass
    return None


def run_target(target: str, args: list[str], *, is_module: bool = False,
               json_path: str | None = None, strict: bool = False, quiet: bool = False,
               nan_trace: bool = False, nan_check: bool = True, nan_record: bool = False,
               run_dir: str | None = None,
               run_id: str | None = None, rank_wait: float = 5.0,
               html_path: str | None = None) -> int:
    if not is_module and not os.path.exists(target):
        print(f"lrdoctor run: can't open file {os.path.abspath(target)!r}: no such file",
              file=sys.stderr)
        return 2
    if importlib.util.find_spec("torch") is None:  # found, not imported: the script imports it
        print("lrdoctor run: PyTorch is not installed in this environment "
              "(the runtime watcher needs torch 2.2 or newer)", file=sys.stderr)
        return 2
    for flag, path in (("--json", json_path), ("--html", html_path)):
        problem = check_json_path(path) if path else None
        if problem:
            print(f"lrdoctor run: {flag}: {problem}", file=sys.stderr)
            return 2
    started = time.time()
    place = ranks.place_in_job(run_dir, run_id)
    if place is not None:
        problem = ranks.check_run_dir(place)
        if problem is None:
            try:
                ranks.announce(place, started)
            except OSError as exc:
                problem = f"cannot write {place.trace_path!r}: {exc.strerror or exc}"
        if problem:
            print(f"lrdoctor run: {problem} (--run-dir chooses another)", file=sys.stderr)
            return 2
    job = _Job(place, started, rank_wait) if place is not None else None

    saved_argv, saved_path0 = sys.argv[:], sys.path[0] if sys.path else None
    sys.argv = [target, *args]
    path0 = os.getcwd() if is_module else os.path.dirname(os.path.realpath(target))
    if sys.path:
        sys.path[0] = path0
    else:
        sys.path.insert(0, path0)

    watch = Watch(strict=strict, nan_trace=nan_trace, nan_check=nan_check, nan_record=nan_record)
    # registered before the script runs, so it runs after the script's own atexit handlers
    atexit.register(_die_by_sigint)
    if job is not None:
        _report_on_sigterm(watch, json_path, quiet, job)
    code = 0
    error: BaseException | None = None
    interrupted = False
    try:
        watch.start_when_torch_imported()
        if is_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            _run_script(target)
    except SystemExit as exc:
        code = _exit_code(exc)
    except KeyboardInterrupt as exc:
        interrupted = True
        error = exc
        _print_uncaught(exc)
        code = 130
        _ending["by_sigint"] = True
    except BaseException as exc:
        error = exc
        _print_uncaught(exc)
        code = 1
    finally:
        _flush()
        _wait_for_threads()
        watch.stop(error, interrupted)
        sys.argv = saved_argv
        if saved_path0 is not None and sys.path:
            sys.path[0] = saved_path0
    _emit_report(watch, json_path, quiet, job, code, html_path=html_path,
                 script=target)
    if _ending["sigterm"]:  # torchrun stopped the job while the report was being made
        _die_by(signal.SIGTERM)
    return code


def _run_script(target: str) -> None:
    """Run ``target`` as python runs a script: in its own ``__main__`` module."""
    filename = target if os.path.isabs(target) else os.path.join(os.getcwd(), target)
    code = None
    if not os.path.isdir(filename):
        with open(filename, "rb") as fh:
            source = fh.read()
        try:
            code = compile(source, filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            if not _is_zip(filename):
                raise
    if code is None:
        # a directory or zip application with __main__.py: runpy knows how; argv[0] stays
        # as typed (runpy sets it to the path it was given)
        argv0 = sys.argv[0]
        try:
            runpy.run_path(filename, run_name="__main__")
        finally:
            sys.argv[0] = argv0
        return
    from importlib.machinery import SourceFileLoader

    main = types.ModuleType("__main__")
    main.__file__ = filename
    main.__cached__ = None  # type: ignore[attr-defined]
    main.__loader__ = SourceFileLoader("__main__", filename)
    main.__builtins__ = builtins  # type: ignore[attr-defined]
    main.__annotations__ = {}
    main.__spec__ = None
    main.__package__ = None
    _main_modules.append(main)
    sys.modules["__main__"] = main
    exec(code, main.__dict__)


def _is_zip(path: str) -> bool:
    import zipfile

    try:
        return zipfile.is_zipfile(path)
    except OSError:
        return False


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _wait_for_threads() -> None:
    """Wait for the script's non-daemon threads, as the interpreter does before exiting:
    training in such a thread is part of the run the report is about. This is the
    interpreter's own step (``threading._shutdown``): it first tells thread pools the script
    never shut down that no more work is coming, so their idle workers end, then joins."""
    threading = sys.modules.get("threading")
    if threading is None:  # the script started no thread through the threading module
        return
    try:
        shutdown = getattr(threading, "_shutdown", None)
        if shutdown is not None and threading.current_thread() is threading.main_thread():
            shutdown()  # the interpreter calls it again at exit; the second call does nothing
            return
        for call in reversed(getattr(threading, "_threading_atexits", [])):
            call()
        while True:
            pending = [t for t in threading.enumerate()
                       if not t.daemon and t is not threading.current_thread() and t.is_alive()]
            if not pending:
                return
            for thread in pending:
                thread.join()
    except KeyboardInterrupt:  # a second Ctrl-C: report what was seen
        return
    except Exception as exc:
        print(f"lrdoctor: could not wait for the script's threads: {exc}", file=sys.stderr)


# how the process is ending: "reporting" while a report is being made, "reported" once one is
# out (a SIGTERM after it only ends the process), "terminating" once a SIGTERM's handling has
# begun (it ends the process, after the report if none is out)
_ending = {"by_sigint": False, "reporting": False, "reported": False, "sigterm": False,
           "terminating": False}


def _die_by_sigint() -> None:
    """After an uncaught KeyboardInterrupt, end the process by SIGINT once the atexit handlers
    have run, as python does, so the parent shell sees a process killed by Ctrl-C (and stops a
    loop of runs)."""
    if _ending["by_sigint"]:
        _die_by(signal.SIGINT)


def _die_by(sig: signal.Signals) -> None:
    """End the process by ``sig``, as it would have ended without lrdoctor."""
    _flush()
    try:
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    except Exception:
        pass


class _Job:
    """This process as one rank of a torchrun job: where its trace goes, and for rank 0 how
    long to wait for the others'."""

    def __init__(self, place: ranks.RankPlace, started: float, rank_wait: float) -> None:
        self.place = place
        self.started = started
        self.rank_wait = rank_wait


def _report_on_sigterm(watch: Watch, json_path: str | None, quiet: bool, job: _Job) -> None:
    """When one rank fails, torchrun ends the others with SIGTERM, which kills a Python process
    on the spot: the survivors' traces, and rank 0's report, would be lost with it. Unless the
    process already handles SIGTERM, write them first, then end by SIGTERM as before. A handler
    the script installs replaces this one.

    Python runs a signal handler only between bytecodes: a rank blocked inside a collective op
    or a device synchronization would not run it, and torchrun would SIGKILL it 30 s later. So a
    thread woken by the signal (through Python's wakeup fd) does the same work when the main
    thread has not started it within a second, then ends the process by SIGTERM."""
    try:
        if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return
    except Exception:
        return

    owner = os.getpid()

    def report_and_die(in_main_thread: bool) -> None:
        with _report_lock:
            if _ending["terminating"]:
                return
            _ending["terminating"] = True
            report = not _ending["reported"]  # else the report is out: only end the process
        stderr = sys.stderr
        try:
            if report:
                try:
                    _flush()
                    # the process ends right after the report: it must go to a stream that
                    # outlives the process (see _lasting_stderr)
                    sys.stderr = _lasting_stderr(stderr)
                    watch.stop(None, interrupted=True)
                    _emit_report(watch, json_path, quiet, job, None, terminated=True)
                except BaseException:
                    pass
            if in_main_thread:
                _die_by(signal.SIGTERM)
            else:
                _die_by_from_thread(signal.SIGTERM)
        finally:  # (reached only if the signal did not end the process)
            sys.stderr = stderr

    def on_sigterm(signum: int, frame: object) -> None:
        if os.getpid() != owner:  # a forked child (a DataLoader worker) inherited the handler
            _die_by(signal.SIGTERM)
            return
        _ending["sigterm"] = True
        if _ending["reporting"] or _ending["terminating"]:
            return  # a report is being made; the process ends by SIGTERM after it
        report_and_die(True)

    try:
        signal.signal(signal.SIGTERM, on_sigterm)
    except (ValueError, OSError):  # not the main thread, or no signals here
        return
    _wake_on_sigterm(lambda: report_and_die(False))


def _lasting_stderr(stream: TextIO) -> TextIO:
    """Where a report made just before the process ends by a signal goes: ``stream`` (the
    script's ``sys.stderr``) when it writes to a file descriptor, else the process's own
    stderr. A stream with no file descriptor may hold what it is given in memory, which the
    process's end loses: torch.distributed's excepthook (set up by ``init_process_group``)
    swaps ``sys.stderr`` for a StringIO while the traceback of a rank's failure is formatted,
    which is when torchrun's SIGTERM often comes (the other rank has died too)."""
    try:
        stream.fileno()
        return stream
    except Exception:
        return sys.__stderr__ if sys.__stderr__ is not None else stream


def _wake_on_sigterm(on_blocked: Callable[[], None], grace_s: float = 1.0) -> None:
    """Run ``on_blocked`` in a thread when SIGTERM arrived and the main thread has not run its
    handler within ``grace_s`` (it is blocked in C). Not when the script or a library already
    uses the wakeup fd (asyncio does): then only the handler remains."""
    import socket
    import threading

    try:
        reader, writer = socket.socketpair()
        writer.setblocking(False)
        previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except (ValueError, OSError, AttributeError):
        return
    if previous != -1:  # someone else's: give it back
        signal.set_wakeup_fd(previous)
        reader.close()
        writer.close()
        return
    _keep.extend((reader, writer))

    def after_fork_in_child() -> None:
        # a forked child (a DataLoader worker) must neither wake this thread, which is not
        # there, nor run the rank's handler: it gets python's default back
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
        except Exception:
            pass

    os.register_at_fork(after_in_child=after_fork_in_child)

    def wait_for_sigterm() -> None:
        try:
            while True:
                data = reader.recv(64)
                if not data:
                    return
                if signal.SIGTERM not in data:
                    continue
                # A main thread that is making its report (the script ended as the signal
                # came) is not blocked: it ends by SIGTERM once the report is out, so wait for
                # it rather than race it with a second report and end the process under it
                deadline = time.monotonic() + grace_s
                while not _ending["terminating"] and (time.monotonic() < deadline
                                                      or _ending["reporting"]):
                    time.sleep(0.02)
                if not _ending["terminating"]:
                    on_blocked()
                return
        except Exception:
            return

    threading.Thread(target=wait_for_sigterm, name="lrdoctor-sigterm", daemon=True).start()


def _die_by_from_thread(sig: signal.Signals) -> None:
    """End the process by ``sig`` from a thread other than the main one: python lets only the
    main thread reset a signal's handler, so reset it in the C library, then send it."""
    _flush()
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.signal.restype = ctypes.c_void_p
        libc.signal.argtypes = (ctypes.c_int, ctypes.c_void_p)
        libc.signal(int(sig), None)  # SIG_DFL is 0
        os.kill(os.getpid(), sig)
        time.sleep(5)  # the signal is delivered; this never returns
    except Exception:
        pass
    os._exit(128 + int(sig))


_report_lock = __import__("threading").Lock()
_keep: list[object] = []  # the wakeup socket pair lives as long as the process


def _json_target(path: str) -> str | None:
    """Where this process writes ``--json``. Under torchrun, rank 0 writes the report merged
    from every rank and the other ranks write nothing, unless the path has ``{rank}``: then
    each rank writes its own report there. Single-process runs keep the path."""
    place = ranks.place_in_job("-", "-")
    if place is None:
        return path.replace("{rank}", "0")
    if "{rank}" in path:
        return path.replace("{rank}", str(place.rank))
    return path if place.rank == 0 else None


def _emit_report(watch: Watch, json_path: str | None, quiet: bool, job: _Job | None = None,
                 exit_code: int | None = None, terminated: bool = False,
                 html_path: str | None = None, script: str | None = None) -> None:
    _ending["reporting"] = True
    try:
        if job is None:
            _emit_own_report(watch, json_path, quiet, html_path, script)
        else:
            _emit_rank_report(watch, json_path, quiet, job, exit_code, terminated, html_path,
                              script)
    finally:
        _ending["reported"] = True  # first: the SIGTERM thread must never see neither
        _ending["reporting"] = False


def _write_html(report: dict, html_path: str, data_next_to: str, script: str | None) -> None:
    """The HTML report at ``html_path`` and the CSV of its data next to ``data_next_to`` (the
    JSON report, or the HTML file without one)."""
    try:
        from lrdoctor.report.html import write_csv, write_html

        if script:
            report = dict(report, script=script)
        write_html(report, html_path)
        write_csv(report, data_next_to)
    except Exception as exc:  # the report must never turn a good run into a failure
        print(f"lrdoctor: could not write the HTML report: {exc}", file=sys.stderr)


def _emit_rank_report(watch: Watch, json_path: str | None, quiet: bool, job: _Job,
                      exit_code: int | None, terminated: bool, html_path: str | None = None,
                      script: str | None = None) -> None:
    """Every rank leaves its trace in the run directory; rank 0 then merges the ranks' traces
    and prints the one report of the job (the other ranks print nothing)."""
    from lrdoctor.report import ranks as merged_report
    from lrdoctor.report.text import use_color

    place = job.place
    try:
        own = watch.to_dict()
        ranks.write_trace(place, job.started, own, exit_code, terminated)
    except Exception as exc:
        print(f"[rank {place.rank}] lrdoctor: could not write this rank's trace to "
              f"{place.trace_path!r}: {exc}", file=sys.stderr)
        own = None
    target = _json_target(json_path) if json_path else None
    if target and "{rank}" in (json_path or "") and own is not None:
        _write_json(target, own)
    html_target = _json_target(html_path) if html_path else None
    if html_target and "{rank}" in (html_path or "") and own is not None:
        _write_html(own, html_target, target or html_target, script)
    if place.rank != 0:
        return
    try:
        traces = ranks.collect(place, job.started, job.rank_wait)
        run = merged_report.merge(traces, [place.run_dir], local_ranks=place.local_ranks(),
                                  waited_s=job.rank_wait, live=True)
        if not quiet or run.findings or run.missing:
            print("\n" + merged_report.render_merged(run, color=use_color(sys.stderr)),
                  file=sys.stderr, flush=True)
        # a PATH with {rank} gets each rank's own report, not the merged one
        merged_json = "{rank}" not in (json_path or "")
        merged_html = "{rank}" not in (html_path or "")
        if (target and merged_json) or (html_target and merged_html):
            merged = run.to_dict()
            if target and merged_json:
                _write_json(target, merged)
            if html_target and merged_html:  # every rank's LR lines
                _write_html(merged, html_target, target if target and merged_json else html_target,
                            script)
    except Exception as exc:  # the report must never turn a good run into a failure
        print(f"lrdoctor: could not merge the ranks' traces in {place.run_dir!r}: {exc}",
              file=sys.stderr)


def _write_json(path: str, data: object) -> None:
    import json

    try:
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
    except Exception as exc:
        print(f"lrdoctor: could not write the JSON report: {exc}", file=sys.stderr)


def _emit_own_report(watch: Watch, json_path: str | None, quiet: bool,
                     html_path: str | None = None, script: str | None = None) -> None:
    from lrdoctor.report.text import use_color

    # the text report comes first and does not depend on the JSON file being writable
    try:
        # quiet: only findings, and the one thing silence would hide: unwatched training
        if not quiet or watch.findings or (watch.children and not watch.optimizer_steps):
            # (only a process that runs alone gets here: ranks of a job report through rank 0)
            text = watch.report(color=use_color(sys.stderr))
            print("\n" + text, file=sys.stderr, flush=True)
    except Exception as exc:  # the report must never turn a good run into a failure
        print(f"lrdoctor: could not print the report: {exc}", file=sys.stderr)
    if not (json_path or html_path):
        return
    try:
        report = watch.to_dict()
    except Exception as exc:
        what = " and ".join(w for w, p in (("JSON", json_path), ("HTML", html_path)) if p)
        print(f"lrdoctor: could not write the {what} report: {exc}", file=sys.stderr)
        return
    if json_path:
        _write_json(json_path.replace("{rank}", "0"), report)
    if html_path:
        html = html_path.replace("{rank}", "0")
        _write_html(report, html, json_path.replace("{rank}", "0") if json_path else html, script)
