"""Notebooks and directory walks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lrdoctor.check.engine import check_file
from lrdoctor.check.gitignore import IgnoreRules
from lrdoctor.check.sources import discover, notebook_source
from lrdoctor.cli import main


def notebook(*cells: str | tuple[str, str]) -> str:
    out = []
    for cell in cells:
        kind, source = cell if isinstance(cell, tuple) else ("code", cell)
        out.append({"cell_type": kind, "metadata": {}, "source": source.splitlines(True),
                    **({"outputs": [], "execution_count": None} if kind == "code" else {})})
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


NB_CELLS = (
    "%matplotlib inline\n!pip install -q torch\nimport torch\nfrom torch.utils.data import DataLoader",
    ("markdown", "# Training"),
    "loader = DataLoader(list(range(64)), batch_size=8)\nmodel = torch.nn.Linear(4, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)",
    "%%time\nsched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)\n"
    "for epoch in range(10):\n    for x in loader:\n        opt.step()\n        sched.step()",
    "%%bash\nls -la\nfor x in *; do echo $x; done",
)


def test_notebook_findings_point_at_cell_and_line(tmp_path: Path) -> None:
    path = tmp_path / "train.ipynb"
    path.write_text(notebook(*NB_CELLS))
    result = check_file(str(path))
    assert result.errors == []
    [diag] = result.diagnostics
    # cells count like ruff counts them: the markdown cell is cell 2
    assert (diag.code, diag.cell, diag.line) == ("LRD002", 4, 6)
    assert str(diag.finding().location).endswith("train.ipynb:cell 4:line 6")


def test_notebook_text_output_shows_the_cell_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("train.ipynb").write_text(notebook(*NB_CELLS))
    assert main(["check", "."]) == 1
    out = capsys.readouterr().out
    assert "train.ipynb:cell 4:line 6:9: LRD002" in out
    assert "6 |         sched.step()" in out


def test_magics_and_shell_escapes_are_blanked_keeping_line_numbers() -> None:
    nb = notebook_source(notebook("x = 1\n%time y = 2\nfiles = !ls\nif x:\n    %debug\nz = 3"))
    assert nb.text.splitlines() == ["x = 1", "", "", "if x:", "    pass", "z = 3"]


def test_ipython_help_is_blanked_but_a_line_ending_in_a_question_mark_is_python() -> None:
    nb = notebook_source(notebook(
        "StepLR?\nnp.*load*??\nsched.step()  # lr?\nprint('why?')"))
    assert nb.text.splitlines() == ["", "", "sched.step()  # lr?", "print('why?')"]


def test_a_step_on_a_line_whose_comment_ends_in_a_question_mark_is_checked(
    tmp_path: Path,
) -> None:
    cells = list(NB_CELLS)
    cells[3] = cells[3].replace("sched.step()", "sched.step()  # per batch?")
    path = tmp_path / "train.ipynb"
    path.write_text(notebook(*cells))
    assert [d.code for d in check_file(str(path)).diagnostics] == ["LRD002"]


def test_a_broken_cell_is_skipped_and_the_others_checked(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    cells = list(NB_CELLS)
    cells.insert(1, "def broken(:\n    pass")
    path.write_text(notebook(*cells))
    result = check_file(str(path))
    assert len(result.errors) == 1 and "cell 2:line 1: syntax error" in result.errors[0]
    assert [d.code for d in result.diagnostics] == ["LRD002"]


def test_notebook_without_cells_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "x.ipynb"
    path.write_text('{"metadata": {}}')
    assert "not a Jupyter notebook" in check_file(str(path)).errors[0]


def test_gitignore_patterns() -> None:
    rules = IgnoreRules(["/build", "*.log", "data/**/raw", "!data/keep/raw", "out/"], base="/p")
    assert rules.ignored("/p/build", True)
    assert not rules.ignored("/p/src/build", True)
    assert rules.ignored("/p/a/b.log", False)
    assert rules.ignored("/p/data/x/y/raw", True)
    assert not rules.ignored("/p/data/keep/raw", True)
    assert rules.ignored("/p/src/out", True)
    assert not rules.ignored("/p/src/out", False)


def test_discover_walks_directories_and_keeps_explicit_files(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("skip.py\n")
    (tmp_path / "pkg").mkdir()
    for name in ("a.py", "skip.py", "pkg/b.py", "pkg/c.ipynb", "pkg/d.txt"):
        (tmp_path / name).write_text("x = 1\n")
    files, errors = discover([str(tmp_path)])
    assert sorted(Path(f).relative_to(tmp_path).as_posix() for f in files) == [
        "a.py", "pkg/b.py", "pkg/c.ipynb"]
    files, _ = discover([str(tmp_path / "skip.py")])
    assert len(files) == 1 and errors == []


def test_notebook_messages_and_evidence_name_the_cell_line(tmp_path: Path) -> None:
    path = tmp_path / "train.ipynb"
    path.write_text(notebook(*NB_CELLS))
    [diag] = check_file(str(path)).diagnostics
    # the batch loop is the 4th line of cell 4, not the 10th line of the joined cells
    assert "the batch loop over `loader` (cell 4, line 4)" in diag.message
    assert "line 10" not in diag.message
    assert (diag.evidence["loop_cell"], diag.evidence["loop_line"]) == (4, 4)


def test_notebook_with_a_utf8_byte_order_mark_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "train.ipynb"
    path.write_bytes(b"\xef\xbb\xbf" + notebook(*NB_CELLS).encode())
    result = check_file(str(path))
    assert result.errors == []
    assert [(d.code, d.cell, d.line) for d in result.diagnostics] == [("LRD002", 4, 6)]


def raw_notebook(*cells: str) -> str:
    """As Jupyter writes it: indented one space, one source line per JSON string."""
    return json.dumps({
        "cells": [{"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]}] + [
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
             "source": cell.splitlines(True)} for cell in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }, indent=1, ensure_ascii=False)


NB_TRAIN = (
    "import torch\nfrom torch.utils.data import DataLoader\n"
    "loader = DataLoader(list(range(64)), batch_size=8)\n"
    "model = torch.nn.Linear(4, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)",
    "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=7)  # «décroissance»\n"
    "for epoch in range(10):\n    for x in loader:\n        opt.step()\n"
    "        note = \"tab\\there\"; sched.step()",
)


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_notebook_locations_point_into_the_raw_ipynb(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    raw = raw_notebook(*NB_TRAIN)
    Path("train.ipynb").write_text(raw, encoding="utf-8")
    assert main(["check", "--format", fmt, "train.ipynb"]) == 1
    out = capsys.readouterr().out
    if fmt == "sarif":
        [result] = json.loads(out)["runs"][0]["results"]
        region = result["locations"][0]["physicalLocation"]["region"]
        line, col = region["startLine"], region["startColumn"]
        end = region["endColumn"]
        assert result["properties"] == {"cell": 3, "lineInCell": 5, "columnInCell": 29}
        assert result["message"]["text"].startswith("cell 3, line 5: StepLR(step_size=7)")
    else:
        assert out.startswith("::error file=train.ipynb,line=")
        props = dict(p.split("=", 1) for p in out.split("::")[1].split(" ", 1)[1].split(","))
        line, col, end = int(props["line"]), int(props["col"]), None
        assert "::cell 3, line 5: StepLR(step_size=7)" in out
    text = raw.splitlines()[line - 1]
    # the JSON string escapes the backslash and the quotes: the column counts them as written
    assert text[col - 1 :].startswith('sched.step()\\n"') or text[col - 1 :].startswith(
        'sched.step()"')
    if end is not None:
        assert text[col - 1 : end - 1] == "sched.step()"
