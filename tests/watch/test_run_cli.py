"""``lrdoctor run`` behaves like ``python SCRIPT`` and always leaves a report."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "src" / "lrdoctor" / "examples"


def lrdoctor(*args: str, cwd: Path | None = None, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "lrdoctor", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300, **kw)


def write(path: Path, source: str) -> Path:
    path.write_text(textwrap.dedent(source))
    return path


def test_script_sees_main_argv_and_path0_and_its_exit_code_passes_through(tmp_path):
    (tmp_path / "helper_mod.py").write_text("VALUE = 42\n")
    script = write(tmp_path / "train.py", """
        import sys, json
        import helper_mod  # importable because sys.path[0] is the script's directory
        print(json.dumps({"name": __name__, "argv": sys.argv, "path0": sys.path[0],
                          "value": helper_mod.VALUE}))
        sys.exit(3)
    """)
    result = lrdoctor("run", str(script), "--epochs", "2", "--json", "x.json", cwd=ROOT)
    assert result.returncode == 3
    seen = json.loads(result.stdout.strip().splitlines()[0])
    assert seen == {"name": "__main__", "argv": [str(script), "--epochs", "2", "--json", "x.json"],
                    "path0": str(tmp_path), "value": 42}
    # it never imported torch: nothing was watched, and that is not a clean bill of health
    assert "nothing was watched" in result.stderr and "No problems found" not in result.stderr
    assert not (ROOT / "x.json").exists()  # the script's --json is the script's, not ours


def test_module_mode_runs_like_python_dash_m(tmp_path):
    pkg = tmp_path / "mypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    write(pkg / "train.py", """
        import sys
        print("module", __name__, sys.argv[1:])
    """)
    result = lrdoctor("run", "-m", "mypkg.train", "a", "b", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "module __main__ ['a', 'b']" in result.stdout


def test_failing_script_shows_its_traceback_and_the_report(tmp_path):
    script = write(tmp_path / "train.py", """
        import torch
        opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 1)
        sched.step()
        def bad():
            raise KeyError("missing column")
        bad()
    """)
    result = lrdoctor("run", str(script))
    assert result.returncode == 1
    err = result.stderr
    assert "Traceback (most recent call last)" in err and "KeyError: 'missing column'" in err
    assert "runpy" not in err and "lrdoctor/runtime" not in err  # our frames are not shown
    assert "the script failed: KeyError" in err
    assert err.index("KeyError: 'missing column'") < err.index("lrdoctor: watched")


def test_json_report_schema(tmp_path):
    out = tmp_path / "report.json"
    result = lrdoctor("run", "--json", str(out), str(EXAMPLES / "LRD002_wrong.py"))
    assert result.returncode == 0
    report = json.loads(out.read_text())
    assert {"findings", "optimizers", "schedulers", "epochs", "schema"} <= report.keys()
    (finding,) = report["findings"]
    assert finding["code"] == "LRD002" and finding["severity"] == "error"
    assert finding["location"]["path"].endswith("LRD002_wrong.py")
    assert finding["location"]["line"] == 17 and finding["line"] == 17
    (sched,) = report["schedulers"]
    assert sched["steps_per_epoch"] == [32, 32, 32] and sched["horizon"] == 7
    assert report["epochs"] == 3


def test_strict_raises_schedule_error_in_the_training_process(tmp_path):
    result = lrdoctor("run", "--strict", str(EXAMPLES / "LRD002_wrong.py"))
    assert result.returncode == 1
    assert "lrdoctor.ScheduleError: LRD002" in result.stderr
    assert "LRD002_wrong.py\", line 17" in result.stderr  # raised at the user's call


def test_missing_script_is_a_clear_usage_error(tmp_path):
    result = lrdoctor("run", str(tmp_path / "nope.py"))
    assert result.returncode == 2
    assert "can't open file" in result.stderr and "Traceback" not in result.stderr
    result = lrdoctor("run")
    assert result.returncode == 2 and "name a SCRIPT" in result.stderr


def test_ctrl_c_gives_a_partial_report_and_dies_by_the_signal(tmp_path):
    script = write(tmp_path / "train.py", """
        import atexit, sys, time, torch
        atexit.register(lambda: print("atexit ran", flush=True))  # python runs it before dying
        model = torch.nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 7)
        for step in range(10**9):
            opt.zero_grad()
            model(torch.randn(8, 4)).sum().backward()
            opt.step()
            sched.step()
            if step == 20:
                print("training", flush=True)
    """)
    env = {**os.environ, "NO_COLOR": "1"}
    # Ctrl-C's default action, as in a terminal: a shell's background job (`pytest ... &`)
    # starts with SIGINT ignored, and python then installs no KeyboardInterrupt handler
    proc = subprocess.Popen([sys.executable, "-m", "lrdoctor", "run", str(script)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert proc.stdout.readline().strip() == "training"
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:  # never leave the endless training loop running
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGINT  # it died by the signal, as under python
    assert out.splitlines()[-1] == "atexit ran"
    assert "KeyboardInterrupt" in err
    assert "interrupted: partial report" in err
    assert "scheduler StepLR" in err


def test_help_lists_commands():
    result = lrdoctor("--help")
    assert result.returncode == 0
    for word in ("check", "run", "explain", "demo"):
        assert word in result.stdout
    result = lrdoctor("run", "--help")
    assert result.returncode == 0 and "--strict" in result.stdout


@pytest.mark.parametrize("code", ["LRD003", "LRD005", "LRD011"])
def test_end_of_run_checks_work_after_the_script_has_freed_its_objects(tmp_path, code):
    # under `lrdoctor run` the script's globals are gone when the report is made
    out = tmp_path / "r.json"
    result = lrdoctor("run", "--json", str(out), str(EXAMPLES / f"{code}_wrong.py"))
    assert result.returncode == 0, result.stderr
    assert [f["code"] for f in json.loads(out.read_text())["findings"]] == [code]


def _free_port() -> int:
    # a fixed port collides with another test run on the same machine
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_under_torchrun_rank_0_reports_for_all_and_each_rank_writes_its_own_json(tmp_path):
    torchrun = Path(sys.executable).with_name("torchrun")
    if not torchrun.exists():
        pytest.fail("torchrun is installed with torch; it must be there")
    script = write(tmp_path / "ddp.py", """
        import torch, torch.distributed as dist
        from torch.utils.data import DataLoader, TensorDataset
        from torch.utils.data.distributed import DistributedSampler
        dist.init_process_group("gloo")
        torch.manual_seed(0)
        ds = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
        loader = DataLoader(ds, batch_size=16, sampler=DistributedSampler(ds))
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3)
        for epoch in range(2):
            loader.sampler.set_epoch(epoch)
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                sched.step()
        dist.destroy_process_group()
    """)
    env = {**os.environ, "NO_COLOR": "1", "MASTER_ADDR": "127.0.0.1"}
    result = subprocess.run(
        [str(torchrun), "--nproc_per_node", "2", "--master_addr", "127.0.0.1",
         "--master_port", str(_free_port()), "-m", "lrdoctor", "run", "--json",
         str(tmp_path / "report.rank{rank}.json"), str(script)],
        capture_output=True, text=True, timeout=180, env=env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    for rank in (0, 1):
        report = json.loads((tmp_path / f"report.rank{rank}.json").read_text())
        assert [f["code"] for f in report["findings"]] == ["LRD002"]
        assert report["schedulers"][0]["steps_per_epoch"] == [8, 8]  # 128 samples per rank
    # one report, rank 0's, with each finding once for the ranks that found it
    assert result.stderr.count("LRD002 [error]") == 1
    assert "  rank 1: 2 epochs, 16 optimizer steps" in result.stderr


def test_no_nan_check_leaves_the_schedule_checks_on(tmp_path):
    import lrdoctor as lrd
    from lrdoctor.runtime.checks import NONFINITE_CHECKS

    with lrd.watch(nan_check=False, echo=lambda m: None) as w:
        pass
    # no check of the NaN detection was installed; the schedule checks were
    kinds = {type(h.__self__) for hs in w.engine._handlers.values() for h in hs
             if hasattr(h, "__self__")}
    assert kinds and not kinds & set(NONFINITE_CHECKS)
    result = lrdoctor("run", "--no-nan-check", str(EXAMPLES / "LRD002_wrong.py"))
    assert result.returncode == 0 and "LRD002" in result.stderr
