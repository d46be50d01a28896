"""Merging the traces a torchrun job's ranks left in their run directories (no torch needed):
what ``lrdoctor report RUN_DIR...`` and rank 0's report at exit are built from."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from lrdoctor.report import ranks as merged_report
from lrdoctor.runtime import ranks


def trace(rank: int, lr_history: list[list[float]], *, world: int = 2, steps: int = 8,
          schedulers: list[dict] | None = None, status: str = "finished", **extra) -> dict:
    report = {"epochs": 2, "error": None, "findings": [],
              "optimizers": [{"name": "AdamW", "steps": steps, "lr_first": lr_history[0][1:],
                              "lr_last": lr_history[-1][1:], "lr_history": lr_history,
                              "epoch_steps": [steps // 2, steps // 2]}],
              "schedulers": schedulers or []}
    out = {"kind": ranks.TRACE_KIND, "status": status, "run_id": "job", "rank": rank,
           "world_size": world, "host": socket.gethostname(), "pid": os.getpid(),
           "started": time.time(), "finished": time.time(), "report": report}
    out.update(extra)
    return out


def write(directory: Path, *traces: dict) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    for t in traces:
        (directory / f"rank{t['rank']}.json").write_text(json.dumps(t))
    return directory


def report(*paths: Path, as_json: bool = False) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lrdoctor", "report", *(["--json"] if as_json
                           else []), *map(str, paths)], capture_output=True, text=True,
                          env={**os.environ, "NO_COLOR": "1"}, timeout=60)


def test_same_lrs_on_every_rank_is_silent(tmp_path):
    history = [[1, 0.001], [5, 0.0005]]
    run = write(tmp_path / "run", trace(0, history, exit_code=0), trace(1, history, exit_code=3))
    result = report(run)
    assert result.returncode == 0
    assert "No problems found." in result.stdout
    assert "rank 0: 2 epochs, 8 optimizer steps; AdamW lr 0.001 -> 0.0005\n" in result.stdout
    assert "rank 1: 2 epochs, 8 optimizer steps; AdamW lr 0.001 -> 0.0005 (exit code 3)" \
        in result.stdout


def test_scheduler_stepped_only_on_rank_0_is_reported_with_the_step_counts(tmp_path):
    sched = {"name": "StepLR(step_size=4)", "class": "StepLR", "optimizer_index": 0,
             "location": {"path": "train.py", "line": 41}, "in_composite": False}
    run = write(tmp_path / "run",
                trace(0, [[1, 0.1], [5, 0.01]], schedulers=[dict(sched, steps=8)]),
                trace(1, [[1, 0.1]], schedulers=[dict(sched, steps=0)]),
                trace(2, [[1, 0.1]], world=3, schedulers=[dict(sched, steps=0)]))
    result = report(run)
    assert result.returncode == 1
    assert ("train.py:41: LRD013 [error] ranks train AdamW with different LRs from optimizer step "
            "5 (epoch 2): rank 0 lr 0.01, ranks 1, 2 lr 0.1") in result.stdout
    assert "stepped a different number of times on the ranks (rank 0 8 steps, ranks 1, 2 0 steps)" \
        in result.stdout


def test_ranks_that_agree_again_are_reported_with_the_span(tmp_path):
    run = write(tmp_path / "run", trace(0, [[1, 0.1], [3, 0.01]]),
                trace(1, [[1, 0.1], [5, 0.01]]))
    [finding] = merged_report.merge(*ranks_and_dirs(run)).findings
    assert "from optimizer step 3 (epoch 1): rank 0 lr 0.01, rank 1 lr 0.1, until step 4 " \
        "(equal again from step 5)" in finding["message"]


def ranks_and_dirs(run: Path) -> tuple[dict, list[str]]:
    traces, dirs = merged_report.load_traces([str(run)])
    return traces, dirs


def test_steps_only_one_rank_reached_are_not_compared(tmp_path):
    # rank 1 failed after 4 steps; rank 0 changed its LR at step 6, which rank 1 never reached
    run = write(tmp_path / "run", trace(0, [[1, 0.1], [6, 0.01]]),
                trace(1, [[1, 0.1]], steps=4))
    assert merged_report.merge(*ranks_and_dirs(run)).findings == []


def test_a_rank_with_a_running_note_and_no_process_is_missing(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    note = {"kind": ranks.TRACE_KIND, "status": "running", "run_id": "job", "rank": 1,
            "world_size": 2, "host": socket.gethostname(), "pid": int(dead), "started": 0}
    run = write(tmp_path / "run", trace(0, [[1, 0.1]]), note)
    result = report(run, as_json=True)
    data = json.loads(result.stdout)
    assert result.returncode == 1 and data["missing_ranks"] == [1]
    assert data["ranks"][1]["status"] == "missing"
    assert "died without writing its trace" in data["ranks"][1]["why"]


def test_rank_0_does_not_wait_for_a_dead_rank(tmp_path):
    place = ranks.RankPlace(rank=0, world_size=2, local_rank=0, local_world_size=2, node_rank=0,
                            run_id="job", run_dir=str(tmp_path))
    started = time.time()
    write(tmp_path, trace(0, [[1, 0.1]]),
          {"kind": ranks.TRACE_KIND, "status": "running", "rank": 1, "world_size": 2,
           "host": socket.gethostname(), "pid": 2 ** 22 + 12345, "started": started})
    begin = time.monotonic()
    traces = ranks.collect(place, started, wait_s=30)
    assert time.monotonic() - begin < 5  # rank 1's process is gone: nothing to wait for
    run = merged_report.merge(traces, [str(tmp_path)], local_ranks=place.local_ranks(),
                              waited_s=30, live=True)
    assert [(r.rank, r.status) for r in run.ranks] == [(0, "finished"), (1, "missing")]


def test_a_trace_an_earlier_run_left_under_the_same_id_is_not_this_runs(tmp_path):
    place = ranks.RankPlace(rank=0, world_size=2, local_rank=0, local_world_size=2, node_rank=0,
                            run_id="job", run_dir=str(tmp_path))
    started = time.time()
    old = trace(1, [[1, 0.5]])
    old["finished"] = started - 3600
    write(tmp_path, trace(0, [[1, 0.1]]), old)
    traces = ranks.collect(place, started, wait_s=0.2)
    run = merged_report.merge(traces, [str(tmp_path)], local_ranks=place.local_ranks(),
                              waited_s=0.2, live=True)
    assert [(r.rank, r.status) for r in run.ranks] == [(0, "finished"), (1, "missing")]
    assert run.findings == []  # its LR 0.5 is not compared with this run's 0.1


def test_ranks_of_another_node_are_named_with_how_to_merge_them(tmp_path):
    place = ranks.RankPlace(rank=0, world_size=4, local_rank=0, local_world_size=2, node_rank=0,
                            run_id="job", run_dir=str(tmp_path))
    assert place.local_ranks() == [0, 1]
    run = merged_report.merge({0: trace(0, [[1, 0.1]], world=4), 1: trace(1, [[1, 0.1]], world=4)},
                              [str(tmp_path)], local_ranks=place.local_ranks())
    text = merged_report.render_merged(run)
    assert "rank 2: elsewhere: ran on another node" in text
    assert "`lrdoctor report DIR1 DIR2` merges them" in text


def test_report_on_a_path_without_traces_is_a_clear_error(tmp_path):
    (tmp_path / "notes.json").write_text("{}")
    for path in (tmp_path, tmp_path / "notes.json", tmp_path / "absent"):
        result = report(path)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert result.stderr.startswith("lrdoctor report: ")


def test_the_run_id_comes_from_torchrun_or_the_launcher(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("LRDOCTOR_RUN_ID", raising=False)
    monkeypatch.delenv("TORCHELASTIC_RESTART_COUNT", raising=False)
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "job/42")
    place = ranks.place_in_job()
    assert place is not None and place.run_id == "job_42"
    assert place.trace_path == os.path.join(".lrdoctor", "runs", "job_42", "rank1.json")
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "none")  # torchrun without --rdzv-id
    assert ranks.default_run_id().endswith(f"-{os.getppid()}")
    monkeypatch.setenv("TORCHELASTIC_RESTART_COUNT", "2")
    assert ranks.default_run_id().endswith("-restart2")
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert ranks.place_in_job() is None


def test_json_under_torchrun_goes_to_rank_0_unless_the_path_names_the_rank(monkeypatch, tmp_path):
    from lrdoctor.runtime.runner import _json_target, check_json_path

    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    assert _json_target("report.json") is None  # rank 0 writes the merged report there
    assert check_json_path(str(tmp_path / "missing-dir" / "report.json")) is None
    assert _json_target("report.rank{rank}.json") == "report.rank1.json"
    monkeypatch.setenv("RANK", "0")
    assert _json_target("report.json") == "report.json"
    assert "cannot write" in (check_json_path(str(tmp_path / "missing-dir" / "r.json")) or "")
    monkeypatch.delenv("RANK")
    monkeypatch.setenv("WORLD_SIZE", "1")
    assert _json_target("report.{rank}.json") == "report.0.json"


def test_an_unwritable_run_directory_stops_the_rank_before_training(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    script = tmp_path / "train.py"
    script.write_text("print('trained')\n")
    env = {**os.environ, "RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", "--run-dir",
                             str(blocker / "runs"), str(script)], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 2 and "trained" not in result.stdout
    assert "cannot create the run directory" in result.stderr and "--run-dir" in result.stderr


def test_rank_traces_go_to_the_chosen_run_directory(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nopt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], "
                      "lr=0.1)\nopt.step()\n")
    env = {**os.environ, "RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", "--run-dir",
                             str(tmp_path / "traces"), str(script)], capture_output=True,
                            text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""  # only rank 0 reports
    trace = json.loads((tmp_path / "traces" / "rank1.json").read_text())
    assert trace["status"] == "finished" and trace["report"]["optimizers"][0]["steps"] == 1
