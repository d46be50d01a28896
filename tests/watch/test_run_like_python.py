"""``lrdoctor run SCRIPT`` is indistinguishable from ``python SCRIPT``: same stdout, same exit
status, same files written (byte for byte), same stderr up to lrdoctor's report at the end.

Each script here is run both ways from the same directory; what it writes goes to ``out/``,
which is collected and wiped between the two runs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

ENV = {**os.environ, "NO_COLOR": "1", "PYTHONHASHSEED": "0"}
ENV.pop("OMP_NUM_THREADS", None)


def _run(cmd: list[str], cwd: Path) -> tuple[subprocess.CompletedProcess, dict[str, bytes]]:
    out = cwd / "out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    result = subprocess.run(cmd, cwd=cwd, env=ENV, capture_output=True, timeout=180)
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    return result, files


def both_ways(tmp_path: Path, source: str, *args: str, name: str = "proj/train.py"):
    """Run ``name`` (a path relative to ``tmp_path``, as typed by the user) under python and
    under lrdoctor run; assert they are indistinguishable; return the lrdoctor run's result."""
    script = tmp_path / name
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(textwrap.dedent(source))
    plain, plain_files = _run([sys.executable, name, *args], tmp_path)
    watched, watched_files = _run([sys.executable, "-m", "lrdoctor", "run", name, *args], tmp_path)
    assert watched.stdout == plain.stdout
    assert watched.returncode == plain.returncode, watched.stderr.decode()[-2000:]
    assert watched_files == plain_files
    # lrdoctor only adds its report at the end of stderr
    assert watched.stderr.startswith(plain.stderr), (plain.stderr.decode(), watched.stderr.decode())
    assert b"lrdoctor:" in watched.stderr[len(plain.stderr):]
    return watched, watched_files


def test_file_is_absolute_so_a_script_can_chdir_to_its_own_directory(tmp_path):
    watched, files = both_ways(tmp_path, """
        import os, sys
        here = os.path.dirname(__file__)
        os.chdir(here)  # fails when __file__ is relative to a directory we just left
        os.chdir(os.path.dirname(__file__))
        with open("../out/where.json", "w") as fh:
            main = sys.modules["__main__"]
            print({"file": __file__, "argv": sys.argv, "path0": sys.path[0], "name": __name__,
                   "spec": __spec__, "package": __package__, "cwd": os.getcwd(),
                   "main_is_module": main.__dict__ is globals(),
                   "globals": sorted(globals())}, file=fh)
    """, "--lr", "0.1")
    assert str(tmp_path / "proj" / "train.py") in files["where.json"].decode()


def test_torch_is_not_imported_before_the_script_sets_its_environment(tmp_path):
    both_ways(tmp_path, """
        import os, sys
        print("before import:", sorted(m for m in ("torch", "numpy") if m in sys.modules))
        os.environ["OMP_NUM_THREADS"] = "1"  # read by torch when it loads
        import torch
        print("threads:", torch.get_num_threads())
    """)


def test_a_script_without_torch_does_not_load_torch(tmp_path):
    watched, _ = both_ways(tmp_path, """
        import sys
        print("hello")
        print("torch loaded:", "torch" in sys.modules)
    """)
    assert b"torch loaded: False" in watched.stdout
    assert b"nothing was watched" in watched.stderr and b"No problems found" not in watched.stderr


TRAIN = """
    import struct, sys
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    torch.manual_seed(0)
    loader = DataLoader(TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=16,
                        shuffle=True)
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
    for epoch in range(3):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()
        print(f"epoch {epoch}: loss {loss.item():.6f} lr {scheduler.get_last_lr()[0]}")
    with open("out/params.bin", "wb") as fh:
        for p in model.parameters():
            values = p.detach().flatten().tolist()
            fh.write(struct.pack(f"{len(values)}d", *values))
"""


def test_training_prints_and_writes_the_same_bytes(tmp_path):
    watched, files = both_ways(tmp_path, TRAIN)
    assert len(files["params.bin"]) == 5 * 8
    assert b"3 epochs, 12 optimizer steps" in watched.stderr


def test_uncaught_exception_traceback_and_exit_status(tmp_path):
    watched, _ = both_ways(tmp_path, """
        import torch
        def load(name):
            raise KeyError(name)
        print("starting", flush=True)
        load("missing column")
    """)
    assert watched.returncode == 1
    assert f'File "{tmp_path / "proj" / "train.py"}", line 4'.encode() in watched.stderr


@pytest.mark.parametrize("how", ["sys.exit(3)", "sys.exit('bad config')", "sys.exit()",
                                 "raise SystemExit(None)"])
def test_exit_status_passes_through(tmp_path, how):
    both_ways(tmp_path, f"""
        import sys
        print("before exit")
        {how}
    """)


def test_custom_excepthook_is_honoured(tmp_path):
    watched, files = both_ways(tmp_path, """
        import sys
        def hook(kind, value, tb):
            with open("out/crash.txt", "w") as fh:
                fh.write(f"{kind.__name__}: {value} at line {tb.tb_lineno}\\n")
            print("reported by my hook")
        sys.excepthook = hook
        raise ValueError("boom")
    """)
    assert files["crash.txt"] == b"ValueError: boom at line 8\n"
    assert b"Traceback" not in watched.stderr


def test_atexit_handlers_and_non_daemon_threads_finish_as_under_python(tmp_path):
    watched, files = both_ways(tmp_path, """
        import atexit, threading, time
        atexit.register(lambda: print("atexit ran"))
        def work():
            time.sleep(0.3)
            with open("out/thread.txt", "w") as fh:
                fh.write("thread finished")
            print("thread done", flush=True)
        threading.Thread(target=work).start()
        print("main done", flush=True)
    """)
    assert files["thread.txt"] == b"thread finished"
    assert watched.stdout == b"main done\nthread done\natexit ran\n"


def test_a_thread_pool_the_script_never_shut_down_does_not_hang_the_run(tmp_path):
    # its idle workers are non-daemon threads that end only when told the interpreter exits
    both_ways(tmp_path, """
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(2)
        print(pool.submit(sum, [1, 2, 3]).result())
    """)


def test_training_in_a_non_daemon_thread_is_reported_after_the_thread(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import threading, time, torch
        from torch.utils.data import DataLoader, TensorDataset
        def train():
            time.sleep(0.2)  # the main thread is long done
            loader = DataLoader(TensorDataset(torch.randn(64, 2), torch.randn(64, 1)), batch_size=8)
            model = torch.nn.Linear(2, 1)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3)
            for epoch in range(3):
                for x, y in loader:
                    optimizer.zero_grad()
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    optimizer.step()
                    scheduler.step()
            print("trained", flush=True)
        threading.Thread(target=train).start()
    """))
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", str(script)], env=ENV,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout == "trained\n"
    assert "24 optimizer steps" in result.stderr and "LRD002" in result.stderr


def test_training_in_spawned_children_is_said_to_be_unwatched(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import multiprocessing as mp
        def train(rank):
            print("child", rank, "trains here", flush=True)
        if __name__ == "__main__":
            procs = [mp.get_context("spawn").Process(target=train, args=(r,)) for r in range(2)]
            for p in procs:
                p.start()
            for p in procs:
                p.join()
    """))
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", str(script)], env=ENV,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.count("trains here") == 2
    assert "2 child processes" in result.stderr and "not watched" in result.stderr
    assert "No problems found" not in result.stderr
    quiet = subprocess.run([sys.executable, "-m", "lrdoctor", "run", "-q", str(script)], env=ENV,
                           capture_output=True, text=True, timeout=120)
    assert "2 child processes" in quiet.stderr  # -q hides clean reports, not unwatched training


def test_data_loader_workers_are_not_taken_for_training_children(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent("""
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        loader = DataLoader(TensorDataset(torch.randn(32, 2), torch.randn(32, 1)), batch_size=8,
                            num_workers=1, multiprocessing_context="fork")
        model = torch.nn.Linear(2, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
    """))
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", str(script)], env=ENV,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "4 optimizer steps" in result.stderr and "child process" not in result.stderr
    assert "No problems found." in result.stderr


def test_a_script_that_uses_lrdoctor_watch_itself_works_under_run(tmp_path):
    out = tmp_path / "report.json"
    watched, _ = both_ways(tmp_path, """
        import torch, lrdoctor
        model = torch.nn.Linear(2, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        with lrdoctor.watch() as w:
            loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
                torch.randn(64, 2), torch.randn(64, 1)), batch_size=8)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=3)
            for epoch in range(3):
                for x, y in loader:
                    optimizer.zero_grad()
                    torch.nn.functional.mse_loss(model(x), y).backward()
                    optimizer.step()
                    scheduler.step()
        print("my watch found", [f.code for f in w.findings])
    """)
    assert watched.stdout == b"my watch found ['LRD002']\n"
    # lrdoctor run's own report names the script's watch and carries its finding
    report = watched.stderr.decode()
    assert "its own lrdoctor.watch() at proj/train.py:5" in report and "LRD002" in report
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", "--json", str(out),
                             "proj/train.py"], cwd=tmp_path, env=ENV, capture_output=True)
    assert result.returncode == 0
    assert [f["code"] for f in json.loads(out.read_text())["findings"]] == ["LRD002"]


def test_unwritable_json_path_is_refused_before_the_script_runs(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("open('ran.txt', 'w').write('the script ran')\n")
    for bad in (tmp_path / "no" / "such" / "dir" / "r.json", tmp_path):
        result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", "--json", str(bad),
                                 str(script)], cwd=tmp_path, env=ENV, capture_output=True,
                                text=True, timeout=60)
        assert result.returncode == 2
        assert result.stderr.startswith("lrdoctor run: --json: ") and "Traceback" not in result.stderr
        assert not (tmp_path / "ran.txt").exists()
    assert not list((tmp_path).glob("*.json"))


def test_text_report_is_printed_even_when_the_json_cannot_be_written_at_the_end(tmp_path):
    # the directory disappears while the script runs: the JSON is lost, the text report is not
    (tmp_path / "reports").mkdir()
    script = tmp_path / "train.py"
    script.write_text("import shutil\nshutil.rmtree('reports')\n")
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run", "--json", "reports/r.json",
                             str(script)], cwd=tmp_path, env=ENV, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0
    assert "nothing was watched" in result.stderr
    assert "could not write the JSON report" in result.stderr
