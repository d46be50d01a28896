"""``lrdoctor check`` on a terminal: a progress bar on large trees (none in CI, piped or for a
few files), colours that follow NO_COLOR and FORCE_COLOR."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from lrdoctor.check.progress import DELAY_S, MIN_FILES, ProgressBar, wanted

WRONG = (Path(__file__).resolve().parents[2] / "src" / "lrdoctor" / "examples"
         / "LRD002_wrong.py").read_text()


class FakeTty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_only_on_a_terminal_for_a_large_tree_and_never_in_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert wanted(MIN_FILES, FakeTty())
    assert not wanted(MIN_FILES - 1, FakeTty())  # a handful of files: no bar
    assert not wanted(MIN_FILES, io.StringIO())  # piped or redirected
    monkeypatch.setenv("CI", "true")
    assert not wanted(10_000, FakeTty())


def test_bar_waits_a_moment_redraws_in_place_and_erases_itself():
    now = [0.0]
    out = FakeTty()
    bar = ProgressBar(400, out, width=10, clock=lambda: now[0])
    bar.update(10)
    assert out.getvalue() == ""  # a quick check never shows a bar
    now[0] = DELAY_S + 0.01
    bar.update(200)
    assert out.getvalue() == "\rlrdoctor check: [#####-----] 200/400 files"
    bar.update(201)  # too soon to redraw
    now[0] += 1
    bar.update(400)
    assert out.getvalue().endswith("\rlrdoctor check: [##########] 400/400 files")
    bar.close()
    assert out.getvalue().endswith("\r\033[K")


def _check(tmp_path, env_extra: dict[str, str], files: int = 1) -> subprocess.CompletedProcess:
    for i in range(files):
        (tmp_path / f"train_{i}.py").write_text(WRONG)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CI")}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "lrdoctor", "check", str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_large_tree_piped_gets_no_progress_bar(tmp_path):
    result = _check(tmp_path, {}, files=MIN_FILES + 5)
    assert result.returncode == 1
    assert "lrdoctor check: [" not in result.stderr and "\r" not in result.stderr


def test_force_color_colours_piped_output_and_no_color_wins(tmp_path):
    forced = _check(tmp_path, {"FORCE_COLOR": "1"})
    assert "\033[" in forced.stdout
    plain = _check(tmp_path, {})
    assert "\033[" not in plain.stdout and "LRD002" in plain.stdout
    both = _check(tmp_path, {"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\033[" not in both.stdout


def test_check_on_a_terminal_draws_the_bar_while_files_are_checked_and_erases_it(
        tmp_path, monkeypatch, capsys):
    """The wiring, end to end in this process: stderr is a terminal, the tree is large, and the
    delay is taken away (a real check of 200 small files can finish before half a second)."""
    from lrdoctor.check import progress
    from lrdoctor.cli import main

    for i in range(MIN_FILES):
        (tmp_path / f"train_{i}.py").write_text(WRONG)
    err = FakeTty()
    monkeypatch.setattr(progress, "DELAY_S", 0.0)
    monkeypatch.setattr(progress, "EVERY_S", 0.0)
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert main(["check", "--jobs", "1", str(tmp_path)]) == 1
    drawn = err.getvalue()
    assert f"\rlrdoctor check: [##############################] {MIN_FILES}/{MIN_FILES} files" in drawn
    assert f"] 1/{MIN_FILES} files" in drawn
    assert drawn.endswith("\r\033[K")
    assert "LRD002" in capsys.readouterr().out  # the findings are on stdout, as always
