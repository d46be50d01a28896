"""lrdoctor inside other tools: flake8 (plugin) and pre-commit (hook definition)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BUGGY = (
    "import torch\n"
    "loader = torch.utils.data.DataLoader(list(range(8)))\n"
    "opt = torch.optim.SGD([], lr=0.1)\n"
    "sched = torch.optim.lr_scheduler.StepLR(opt, 5)\n"
    "for epoch in range(3):\n"
    "    for x in loader:\n"
    "        opt.step()\n"
    "        sched.step()\n"
)


def test_flake8_plugin_reports_lrd_codes(tmp_path: Path) -> None:
    import ast

    from lrdoctor.check.flake8_plugin import LrdoctorChecker

    path = tmp_path / "train.py"
    path.write_text(BUGGY)
    results = list(LrdoctorChecker(ast.parse(BUGGY), str(path), BUGGY.splitlines(True)).run())
    assert [(line, col, msg.split()[0]) for line, col, msg, _ in results] == [(8, 8, "LRD002")]


def test_flake8_runs_the_plugin_through_its_entry_point(tmp_path: Path) -> None:
    pytest.importorskip("flake8")
    from importlib.metadata import entry_points

    if not any(ep.name == "LRD" for ep in entry_points(group="flake8.extension")):
        pytest.skip("lrdoctor is not installed with its entry points")
    path = tmp_path / "train.py"
    path.write_text(BUGGY)
    proc = subprocess.run([sys.executable, "-m", "flake8", "--select", "LRD", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert ":8:9: LRD002 StepLR(step_size=5)" in proc.stdout


def test_pre_commit_hook_runs_lrdoctor_check() -> None:
    text = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert "- id: lrdoctor\n" in text
    assert "entry: lrdoctor check --force-exclude\n" in text  # pre-commit names every file
    assert "types_or: [python, jupyter]" in text
