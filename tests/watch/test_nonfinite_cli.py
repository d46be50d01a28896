"""`lrdoctor run`, `--nan-trace` and `--nan-record` on scripts whose loss turns NaN."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

SCRIPT = """
import torch
torch.manual_seed(0)
model = torch.nn.Linear(8, 1).half()
opt = torch.optim.SGD(model.parameters(), lr=1e-2)
for step in range(5):
    x = torch.randn(16, 8).half() * (1 if step < 2 else 60)
    prob = torch.sigmoid(model(x))
    loss = -torch.log(prob).mean()  # LOG
    opt.zero_grad()
    loss.backward()
    opt.step()
print("done")
"""


@pytest.mark.parametrize("flags", [[], ["--nan-trace"]])
def test_run_reports_the_log_line_and_passes_the_exit_code(tmp_path, flags):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(SCRIPT))
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "lrdoctor", "run", "--json", str(report), *flags, str(script)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
    assert "LRD104" in proc.stderr and "`log`" in proc.stderr
    findings = json.loads(report.read_text())["findings"]
    (f,) = [f for f in findings if f["code"] == "LRD104"]
    assert f["line"] == 9  # the dedented script starts with an empty line
    assert f["evidence"]["step"] == 3
    assert f["evidence"]["op"] == "log"


ONE_OFF_IN_A_MODULE = """
import torch
torch.manual_seed(0)

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)

    def forward(self, x, shift):
        return torch.log(self.body(x).abs() + 1 - shift)  # LOG

model = Net()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(1, 12):
    loss = model(torch.randn(16, 8), 1e9 if step == 8 else 0.0).pow(2).mean()
    opt.zero_grad()
    loss.backward()  # BACKWARD
    if torch.isfinite(loss):
        opt.step()
"""


@pytest.mark.parametrize("flags", [[], ["--nan-record"]])
def test_nan_record_names_the_module_of_a_one_off(tmp_path, flags):
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(ONE_OFF_IN_A_MODULE))
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "lrdoctor", "run", "--json", str(report), *flags, str(script)],
        capture_output=True, text=True, cwd=tmp_path, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    (f,) = [f for f in json.loads(report.read_text())["findings"] if f["code"] == "LRD104"]
    assert f["evidence"]["step"] == 8
    lines = textwrap.dedent(ONE_OFF_IN_A_MODULE).splitlines()
    if flags:  # recorded from the first step: the first occurrence is localized
        assert f["evidence"]["module"] == "model" and f["evidence"]["op"] == "log"
        assert "# LOG" in lines[f["line"] - 1]
    else:  # reported at its step and line; the module is not named, and the report says how
        assert "module" not in f["evidence"]
        assert "# BACKWARD" in lines[f["line"] - 1]
        assert "--nan-record" in f["message"]


def test_nan_record_is_documented_in_run_help():
    proc = subprocess.run([sys.executable, "-m", "lrdoctor", "run", "--help"],
                          capture_output=True, text=True, timeout=60)
    assert "--nan-record" in proc.stdout and "--nan-trace" in proc.stdout
