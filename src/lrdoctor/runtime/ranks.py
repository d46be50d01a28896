"""A process's place in a torchrun job, and the files its ranks leave in one run directory.

lrdoctor never issues a collective operation of its own (it must never be the reason a job
hangs): ranks talk only through files. Each rank writes ``rank<N>.json`` into the run directory
twice: a small "running" note when it starts (its pid and host, so rank 0 can tell a rank that
died from one that is still busy), and its whole trace when it ends. At exit rank 0 waits a
bounded time for the other ranks' traces, then reports on what it found.

Nothing here imports torch: ``lrdoctor report`` reads the same files on a machine without it.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass
from typing import Any

from lrdoctor import __version__

DEFAULT_ROOT = os.path.join(".lrdoctor", "runs")
TRACE_KIND = "lrdoctor-rank-trace"


@dataclass(frozen=True)
class RankPlace:
    """Where this process sits in the job (read from torchrun's environment variables)."""

    rank: int
    world_size: int
    local_rank: int
    local_world_size: int
    node_rank: int
    run_id: str
    run_dir: str

    @property
    def trace_path(self) -> str:
        return os.path.join(self.run_dir, f"rank{self.rank}.json")

    def local_ranks(self) -> list[int]:
        """The global ranks that ran on this node: torchrun numbers each node's workers
        contiguously in node order. Their traces are in this node's run directory."""
        if self.local_world_size >= self.world_size:
            return list(range(self.world_size))
        first = self.node_rank * self.local_world_size
        return list(range(first, min(first + self.local_world_size, self.world_size)))


def _int_env(name: str, default: int) -> int:
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


def in_job() -> bool:
    """Whether this process is one rank of several (RANK set and WORLD_SIZE > 1)."""
    return "RANK" in os.environ and _int_env("WORLD_SIZE", 1) > 1


def place_in_job(run_dir: str | None = None, run_id: str | None = None) -> RankPlace | None:
    """This process's place in a multi-process job, or None when it runs alone (no RANK and
    WORLD_SIZE > 1 in the environment: plain ``python``, or torchrun with one process)."""
    if not in_job():
        return None
    world = _int_env("WORLD_SIZE", 1)
    run_id = run_id or default_run_id()
    return RankPlace(
        rank=_int_env("RANK", 0),
        world_size=world,
        local_rank=_int_env("LOCAL_RANK", 0),
        local_world_size=_int_env("LOCAL_WORLD_SIZE", world),
        node_rank=_int_env("GROUP_RANK", 0),
        run_id=run_id,
        run_dir=run_dir or os.path.join(DEFAULT_ROOT, run_id),
    )


def default_run_id() -> str:
    """A run id every rank of the job computes alike without talking to the others:
    ``LRDOCTOR_RUN_ID``, else torchrun's ``--rdzv-id`` (TORCHELASTIC_RUN_ID; "none" unless
    given), else the start time and pid of the torchrun agent that launched this node's ranks.
    A restart of the workers (``--max-restarts``) gets its own id."""
    run_id = os.environ.get("LRDOCTOR_RUN_ID") or os.environ.get("TORCHELASTIC_RUN_ID", "")
    if not run_id or run_id == "none":
        run_id = _launcher_id()
    restart = _int_env("TORCHELASTIC_RESTART_COUNT", 0)
    if restart > 0:
        run_id += f"-restart{restart}"
    return _safe_name(run_id)


def _launcher_id() -> str:
    parent = os.getppid()
    started = _process_start_time(parent)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(started)) if started else "run"
    return f"{stamp}-{parent}"


def _process_start_time(pid: int) -> float | None:
    """When ``pid`` started (Linux: from /proc), or None."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        ticks = int(fields[19])  # field 22 of stat: start time in clock ticks after boot
        with open("/proc/stat", encoding="ascii") as fh:
            boot = next(int(line.split()[1]) for line in fh if line.startswith("btime"))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


def _safe_name(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)[:120] or "run"


def check_run_dir(place: RankPlace) -> str | None:
    """Why this rank could not write its trace (None if it can), found before training."""
    try:
        os.makedirs(place.run_dir, exist_ok=True)
    except OSError as exc:
        return f"cannot create the run directory {place.run_dir!r}: {exc.strerror or exc}"
    if not os.access(place.run_dir, os.W_OK):
        return f"cannot write to the run directory {place.run_dir!r}"
    return None


def _header(place: RankPlace, status: str, started: float) -> dict[str, Any]:
    return {
        "kind": TRACE_KIND, "lrdoctor": __version__, "status": status,
        "run_id": place.run_id, "rank": place.rank, "world_size": place.world_size,
        "local_rank": place.local_rank, "node_rank": place.node_rank,
        "host": socket.gethostname(), "pid": os.getpid(), "started": started,
    }


def announce(place: RankPlace, started: float) -> None:
    """Say "running" (replacing a trace an earlier run with the same id left here)."""
    write_json(place.trace_path, _header(place, "running", started))


def write_trace(place: RankPlace, started: float, report: dict[str, Any], exit_code: int | None,
                terminated: bool = False) -> None:
    trace = _header(place, "finished", started)
    trace.update(finished=time.time(), exit_code=exit_code, terminated=terminated, report=report)
    write_json(place.trace_path, trace)


def write_json(path: str, data: Any) -> None:
    """Write atomically: a reader never sees half a file."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1)
        fh.write("\n")
    os.replace(tmp, path)


def read_trace(path: str) -> dict[str, Any] | None:
    """A rank's trace, or None if the file is not one (half-written files never exist)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or data.get("kind") != TRACE_KIND:
        return None
    if not isinstance(data.get("rank"), int):
        return None
    return data


def _alive(pid: Any) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    # a zombie (dead, not yet reaped by torchrun) is not alive
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def collect(place: RankPlace, started: float, wait_s: float) -> dict[int, dict[str, Any]]:
    """Rank 0's view of the run directory: each rank's trace, waiting up to ``wait_s`` for
    this node's ranks that are still running. A rank whose process is gone (it crashed hard,
    was killed or ran out of memory before lrdoctor's exit) is not waited for. A file left by an
    earlier run with the same id (it finished before this rank started) is ignored."""
    deadline = time.monotonic() + max(0.0, wait_s)
    host = socket.gethostname()
    expected = set(place.local_ranks())
    while True:
        traces = read_run_dir(place.run_dir)
        for rank, trace in list(traces.items()):
            finished = trace.get("finished")
            if isinstance(finished, (int, float)) and finished < started - 1.0:
                del traces[rank]  # stale: from an earlier run with this id
        waiting = [r for r in expected
                   if r not in traces or (traces[r].get("status") == "running"
                                          and (traces[r].get("host") != host
                                               or _alive(traces[r].get("pid"))))]
        if not waiting or time.monotonic() >= deadline:
            return traces
        time.sleep(0.05)


def read_run_dir(path: str) -> dict[int, dict[str, Any]]:
    traces: dict[int, dict[str, Any]] = {}
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return traces
    for name in names:
        if name.startswith("rank") and name.endswith(".json"):
            trace = read_trace(os.path.join(path, name))
            if trace is not None:
                trace.setdefault("source", os.path.join(path, name))
                traces[trace["rank"]] = trace
    return traces
