"""`lrdoctor check` as users run it: formats, exit codes, selection, noqa, configuration,
fixes, and bad input that must never end in a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lrdoctor.cli import main

BUGGY = """\
import torch
from torch.utils.data import DataLoader

loader = DataLoader(list(range(64)), batch_size=8)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)
for epoch in range(10):
    for x in loader:
        optimizer.step()
        scheduler.step()
    print(scheduler.get_lr())
"""
CLEAN = """\
import torch
print(torch.__version__)
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(BUGGY)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_text_output_shows_the_line_with_a_caret_and_the_fix(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "train.py")
    assert code == 1
    assert "train.py:11:9: LRD002 [error] StepLR(step_size=7) is stepped inside the batch loop" \
        in out
    assert "11 |         scheduler.step()" in out
    assert "   |         ^^^^^^^^^^^^^^^^" in out
    assert "= fix: step it once per epoch" in out
    assert "Found 2 findings" in out


def test_clean_file_exits_zero(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "clean.py")
    assert code == 0
    assert "All checks passed" in out


def test_json_output_is_an_array_of_findings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "--format", "json", ".")
    data = json.loads(out)
    assert code == 1
    assert [(d["code"], d["line"]) for d in data] == [("LRD002", 11), ("LRD015", 12)]
    for key in ("code", "severity", "message", "path", "line", "column"):
        assert key in data[0]
    assert data[0]["path"] == "train.py"


def test_sarif_output_is_sarif_2_1_0(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "--format", "sarif", "train.py")
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    result = run0["results"][0]
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == "LRD002"
    assert result["level"] == "error"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (11, 9)


def test_github_format_prints_workflow_annotations(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out, _ = run(capsys, "--format", "github", "train.py")
    lines = out.splitlines()
    assert lines[0].startswith("::error file=train.py,line=11,col=9,")
    assert "title=LRD002 epoch-scheduler-per-batch::StepLR(step_size=7)" in lines[0]
    assert lines[1].startswith("::notice file=train.py,line=12,")


def test_select_and_ignore_by_code_and_prefix(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(capsys, "--select", "LRD015", "train.py")[0] == 1
    code, out, _ = run(capsys, "--ignore", "LRD0", "train.py")
    assert code == 0
    code, out, _ = run(capsys, "--select", "LRD1", "train.py")
    assert code == 0


def test_unknown_code_is_a_usage_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--select", "LRD999", "train.py")
    assert code == 2
    assert "unknown code or prefix 'LRD999'" in err


def test_exit_zero_and_statistics(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--exit-zero", "--statistics", "train.py")
    assert code == 0
    assert "1\tLRD002\t    epoch-scheduler-per-batch" in out


def test_noqa_silences_one_line(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = BUGGY.replace("scheduler.step()", "scheduler.step()  # noqa: LRD002")
    src = src.replace("print(scheduler.get_lr())", "print(scheduler.get_lr())  # noqa")
    Path("train.py").write_text(src)
    assert run(capsys, "train.py")[0] == 0
    Path("train.py").write_text(BUGGY.replace("scheduler.step()", "scheduler.step()  # noqa: E501"))
    _, out, _ = run(capsys, "--select", "LRD002", "train.py")
    assert "LRD002" in out


def test_pyproject_configures_select_ignore_and_exclude(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("legacy").mkdir()
    Path("legacy/old.py").write_text(BUGGY)
    Path("pyproject.toml").write_text(textwrap.dedent("""
        [tool.lrdoctor]
        ignore = ["LRD015"]
        exclude = ["legacy/"]
    """))
    _, out, _ = run(capsys, "--format", "json", ".")
    assert [(d["path"], d["code"]) for d in json.loads(out)] == [("train.py", "LRD002")]


def test_bad_pyproject_is_a_clear_usage_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("pyproject.toml").write_text("[tool.lrdoctor]\nselekt = ['LRD0']\n")
    code, _, err = run(capsys, ".")
    assert code == 2
    assert "unknown [tool.lrdoctor] key(s): selekt" in err


def test_gitignored_and_virtualenv_files_are_skipped(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("generated/\n*_tmp.py\n")
    for name in ("generated/a.py", "x_tmp.py", "env/lib/site-packages/pkg/b.py", "myenv/c.py"):
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BUGGY)
    (project / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    _, out, _ = run(capsys, "--format", "json", ".")
    assert {d["path"] for d in json.loads(out)} == {"train.py"}


def test_diff_shows_fixes_and_fix_applies_them(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("amp.py").write_text("import torch\nscaler = torch.cuda.amp.GradScaler()  # note\n")
    code, out, err = run(capsys, "--diff", "amp.py")
    assert code == 1
    assert '+scaler = torch.amp.GradScaler("cuda")  # note' in out
    assert Path("amp.py").read_text().count("cuda.amp") == 1
    code, out, err = run(capsys, "--fix", "amp.py")
    assert code == 0
    assert "Fixed 1 finding" in err
    assert Path("amp.py").read_text() == 'import torch\nscaler = torch.amp.GradScaler("cuda")  # note\n'


# -- bad input ---------------------------------------------------------------------------------


def test_bad_files_are_reported_as_not_checked_and_the_rest_is_checked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("broken.py").write_text("def f(:\n    pass\n")
    Path("latin1.py").write_bytes(b"x = '\xe9t\xe9'\n")
    Path("binary.py").write_bytes(b"\x00\x01\x02")
    Path("broken.ipynb").write_text('{"cells": [')
    code, out, err = run(capsys, "--format", "json", ".", "missing.py")
    assert code == 2  # a path that does not exist is a usage error
    entries = {(d["path"], d["code"]) for d in json.loads(out)}
    assert entries == {
        ("train.py", "LRD002"), ("train.py", "LRD015"),
        ("broken.py", "E999"), ("latin1.py", "E902"), ("binary.py", "E902"),
        ("broken.ipynb", "E902"), ("missing.py", "E902"),
    }
    # the JSON is for machines; the CI log still says why, one line per file
    lines = err.strip().splitlines()
    assert "Traceback" not in err
    assert "lrdoctor: missing.py: no such file or directory (file not checked)" in lines
    assert any(line.startswith("lrdoctor: broken.py:1:7: syntax error") for line in lines)
    assert any("latin1.py: not valid utf-8" in line for line in lines)
    assert any("binary.py: binary file" in line for line in lines)
    assert any("broken.ipynb: broken notebook JSON" in line for line in lines)
    assert len(lines) == 5


def test_syntax_error_alone_exits_one(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("broken.py").write_text("for x in :\n")
    code, out, err = run(capsys, "broken.py")
    assert code == 1
    assert "broken.py:1:10: E999 [error] syntax error: invalid syntax (file not checked)" in out
    assert "All checks passed" not in out
    assert err == ""


def test_five_megabyte_generated_file(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = "".join(f"w{i} = torch.zeros({i % 7}).step({i})\n" for i in range(120_000))
    Path("gen.py").write_text("import torch\n" + body)
    assert Path("gen.py").stat().st_size > 4_000_000
    started = time.process_time()  # one file: checked in this process
    code, _, err = run(capsys, "gen.py")
    elapsed = time.process_time() - started
    assert "Traceback" not in err
    assert code in (0, 1)
    # linear in the statements: 8 s of CPU here; the tracer's copy of the rest of the body
    # after each statement made it 90 s
    assert elapsed < 45, f"{elapsed:.1f} s of CPU for 120,000 statements"


def test_deeply_nested_expression_is_an_error_not_a_crash(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("deep.py").write_text("import torch\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    code, out, err = run(capsys, "deep.py")
    assert code == 1
    assert "Traceback" not in err and "deep.py:" in out and "E999" in out


def test_directory_with_ten_thousand_files(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(10_000):
        sub = root / f"d{i // 500}"
        sub.mkdir(exist_ok=True)
        (sub / f"m{i}.py").write_text(f"x{i} = {i}\n" if i != 4321 else BUGGY)
    proc = subprocess.run(
        [sys.executable, "-m", "lrdoctor", "check", "--format", "json", str(root)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 1, proc.stderr
    assert [d["code"] for d in json.loads(proc.stdout)] == ["LRD002", "LRD015"]


def test_check_never_imports_torch(project: Path) -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from lrdoctor.cli import main\n"
        "raise SystemExit(main(['check', '--format', 'json', '.']))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert len(json.loads(proc.stdout)) == 2


def test_help_explains_formats_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["check", "--help"])
    out = capsys.readouterr().out
    for needle in ("--format", "sarif", "--select", "--fix", "--diff", "# noqa: LRD002",
                   "[tool.lrdoctor]", "exit status"):
        assert needle in out


def test_empty_notebook_is_checked_with_nothing_in_it(project: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # a zero-byte .ipynb (a placeholder in a course repository) holds no code, as an empty .py
    # file does: checked, no E902, exit 0; a notebook that is really broken is still reported
    Path("placeholder.ipynb").write_text("")
    Path("blank.ipynb").write_text("\n  \n")
    code, out, err = run(capsys, "placeholder.ipynb", "blank.ipynb")
    assert (code, err) == (0, "")
    assert "All checks passed" in out and "2 files" in out
    Path("broken.ipynb").write_text("{ not json")
    code, out, err = run(capsys, "placeholder.ipynb", "broken.ipynb")
    assert code == 1
    assert "broken.ipynb" in out and "E902" in out and "placeholder.ipynb" not in out
