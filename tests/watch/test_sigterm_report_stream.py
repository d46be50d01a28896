"""Where a rank's report goes when torchrun's SIGTERM ends it: to a stream that outlives the
process. torch.distributed's excepthook (installed by ``init_process_group``) swaps
``sys.stderr`` for a StringIO while it formats the traceback of a rank's failure; when one rank
dies, the survivor's collective fails and torchrun's SIGTERM comes at about that moment, so the
report made by the SIGTERM handler went into that StringIO and was lost with the process (the
torchrun crash test of test_distributed.py failed so in CI: neither the traceback nor the report
reached stderr). Each script runs as rank 0 of a two-rank job (the environment torchrun sets),
alone, with no wait for rank 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("torch")

RANK0 = {"RANK": "0", "WORLD_SIZE": "2", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2", "NO_COLOR": "1"}

# the script's own excepthook stands for the traceback formatting inside torch's: the SIGTERM
# comes while it runs (with sys.stderr swapped by whatever wraps it)
TRAIN = """
    import os, signal, socket, sys, time
    import torch

    def hook_that_is_interrupted(*args):
        os.kill(os.getpid(), signal.SIGTERM)  # torchrun stops the job meanwhile
        for _ in range(200):
            time.sleep(0.01)
        sys.__excepthook__(*args)

    sys.excepthook = hook_that_is_interrupted
    {setup}
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(3):
        optimizer.zero_grad()
        model(torch.randn(8, 4)).sum().backward()
        optimizer.step()
    raise RuntimeError("a collective failed: the other rank is gone")
"""

# torch.distributed's own excepthook wraps the script's (a process group of one, over TCP)
TORCH_DISTRIBUTED = """
    import torch.distributed as dist
    sock = socket.socket(); sock.bind(("127.0.0.1", 0)); port = sock.getsockname()[1]; sock.close()
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
"""

# the same swap, written out: what any wrapper of sys.excepthook that collects its output does
STRINGIO_WRAPPER = """
    import io
    inner = sys.excepthook
    def collecting_hook(*args):
        saved, sys.stderr = sys.stderr, io.StringIO()
        try:
            inner(*args)
        finally:
            buffered, sys.stderr = sys.stderr.getvalue(), saved
        sys.stderr.write(buffered)
    sys.excepthook = collecting_hook
"""

# the script sends its own stderr to a log file: the report goes there, as it always did
LOG_FILE = """
    sys.stderr = open("train.log", "w", buffering=1)
"""


def run_rank0(tmp_path: Path, setup: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent(TRAIN).replace("{setup}", textwrap.dedent(setup).strip())
    (tmp_path / "train.py").write_text(script)
    env = {**os.environ, **RANK0, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, "-m", "lrdoctor", "run", "--run-id", "job", "--rank-wait",
                           "0", "train.py"], capture_output=True, text=True, timeout=120, env=env,
                          cwd=tmp_path)


def assert_report_of_a_terminated_rank_0(text: str) -> None:
    assert "lrdoctor: distributed run job: 2 ranks" in text
    assert "rank 0: 3 optimizer steps" in text and "stopped by SIGTERM" in text
    assert "rank 1: missing" in text


@pytest.mark.parametrize("setup", [TORCH_DISTRIBUTED, STRINGIO_WRAPPER],
                         ids=["torch.distributed's excepthook", "a StringIO-collecting excepthook"])
def test_a_sigterm_while_stderr_is_swapped_for_a_stringio_still_prints_the_report(tmp_path, setup):
    result = run_rank0(tmp_path, setup)
    assert result.returncode == -signal.SIGTERM  # ended by the signal, as without lrdoctor
    assert_report_of_a_terminated_rank_0(result.stderr)
    # the trace was written either way; the report is what the swap used to swallow
    assert (tmp_path / ".lrdoctor/runs/job/rank0.json").exists()


def test_a_script_that_sends_stderr_to_a_file_gets_the_report_there(tmp_path):
    # a stream with a file descriptor outlives the process: it is kept
    result = run_rank0(tmp_path, LOG_FILE)
    assert result.returncode == -signal.SIGTERM
    assert_report_of_a_terminated_rank_0((tmp_path / "train.log").read_text())
    assert "distributed run" not in result.stderr
