"""`lrdoctor run` and `lrdoctor run --nan-trace` on a script whose loss turns NaN."""

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
