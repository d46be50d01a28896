"""The one-line LR sparkline in ``lrdoctor run``'s text report: log scale when the LR spans
decades, epoch boundaries marked, plain ASCII when the terminal is not UTF-8."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lrdoctor.report.sparkline import block_chart, column_ranges, sparkline

EXAMPLES = Path(__file__).resolve().parents[2] / "src" / "lrdoctor" / "examples"


def test_a_step_per_batch_collapse_reads_as_a_falling_log_line_with_epoch_ticks(run_script):
    from lrdoctor.report.text import render_run

    ran = run_script((EXAMPLES / "LRD002_wrong.py").read_text())
    text = render_run(ran.watch.engine, unicode=True)
    (line,) = [x for x in text.splitlines() if x.startswith("    lr ")]
    assert line.endswith("(log scale, │ = epoch boundary)")
    curve = line.split()[1]
    assert curve.count("│") == 2  # 3 epochs
    bars = curve.replace("│", "")
    assert bars[0] == "█" and bars[-1] == "▁"
    assert list(bars) == sorted(bars, reverse=True)  # never rises
    ascii_text = render_run(ran.watch.engine, unicode=False)
    assert ascii_text.isascii() and "    lr @" in ascii_text


def test_a_constant_lr_is_a_flat_linear_line(run_script):
    from lrdoctor.report.text import render_run

    ran = run_script((EXAMPLES / "LRD002_right.py").read_text())
    (line,) = [x for x in render_run(ran.watch.engine, unicode=True).splitlines()
               if x.startswith("    lr ")]
    assert "(linear scale" in line
    assert len(set(line.split()[1].replace("│", ""))) == 1


def test_run_on_a_non_utf8_terminal_prints_ascii():
    pytest.importorskip("torch")
    env = {**os.environ, "NO_COLOR": "1", "PYTHONIOENCODING": "ascii"}
    result = subprocess.run([sys.executable, "-m", "lrdoctor", "run",
                             str(EXAMPLES / "LRD002_wrong.py")], env=env, capture_output=True,
                            timeout=120)
    err = result.stderr.decode("ascii")  # raises if anything non-ASCII was written
    assert "    lr @" in err and "|" in err


def test_column_ranges_see_a_one_step_spike_inside_a_wide_column():
    points = [(1.0, 1.0), (500.0, 9.0), (501.0, 1.0)]
    cols = column_ranges(points, 10_000, 10)
    assert cols[0] == (1.0, 9.0) and cols[1] == (1.0, 1.0)
    assert sparkline(points, 10_000, 10, unicode=False)[0] == "@"


def test_block_chart_labels_its_range_and_marks_epoch_starts():
    lines = block_chart([1.0] * 5 + [0.001] * 5, width=10, height=4, unicode=False, epoch_len=5)
    assert lines[0].startswith("    1 |#####")
    assert lines[3].startswith("0.001 |     #####")
    assert lines[4].endswith("+----+----")
    assert "log scale" in lines[5]
