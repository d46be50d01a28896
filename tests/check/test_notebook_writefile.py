"""Notebooks that write their training script with a ``%%writefile train.py`` cell and run it
with ``!python train.py`` (Colab, TPU and Kaggle tutorials). Each written ``.py`` file is
checked as its own program, where the notebook writes it (so written modules import one
another), and reported at the notebook's cell and line. Notebooks built here in our own
words."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from lrdoctor.check.sources import notebook_source
from lrdoctor.cli import main as cli_main

CODES = frozenset(CATALOG)

LOOP = """
import torch
from torch import nn, optim

model = nn.Linear(2, 2)
opt = optim.SGD(model.parameters(), lr=0.1)
sched = optim.lr_scheduler.StepLR(opt, step_size=10)
for epoch in range(3):
    for batch in range(10):
        {first}
        loss = model(torch.randn(4, 2)).sum()
        loss.backward()
        {second}
"""
WRONG = LOOP.format(first="sched.step()", second="opt.step()")
RIGHT = LOOP.format(first="opt.zero_grad()", second="opt.step()").rstrip() + \
    "\n    sched.step()\n"


def notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *cells: str,
             name: str = "tpu.ipynb") -> str:
    """The cells (a markdown cell first) written as a notebook in a project root; its name."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    out: list[dict[str, object]] = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Train on a TPU\n"]}]
    for cell in cells:
        out.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                    "source": textwrap.dedent(cell).strip("\n").splitlines(True)})
    data = {"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / name).write_text(json.dumps(data, indent=1))
    return name


def written(magic: str, body: str) -> str:
    return magic + "\n" + textwrap.dedent(body).strip("\n") + "\n"


def main(args: list[str]) -> int:
    return cli_main(["check", *args])


def found(*paths: str) -> list[tuple[str, int | None, int, str]]:
    report = check_files(list(paths), CODES, jobs=1)
    assert report.errors == []
    return [(d.path, d.cell, d.line, d.code) for d in report.diagnostics]


def test_a_written_training_script_is_checked_at_its_cell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # cell 1 is markdown; the script's `sched.step()` is line 10 of cell 3 (the magic line 1)
    nb = notebook(tmp_path, monkeypatch, "!pip install accelerate",
                  written("%%writefile train.py", WRONG), "!accelerate launch train.py")
    assert found(nb) == [(nb, 3, 10, "LRD001")]


@pytest.mark.parametrize("magic", ["%%writefile -a train.py", "%%file train.py",
                                   "%%writefile 'my train.py'", '%%writefile "src/train.py"',
                                   "%%writefile ./src/../train.py", "%%writefile /content/train.py",
                                   "%%writefile --append train.py"])
def test_other_spellings_of_the_magic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      magic: str) -> None:
    nb = notebook(tmp_path, monkeypatch, written(magic, WRONG))
    assert found(nb) == [(nb, 2, 10, "LRD001")]


def test_a_correct_script_and_a_non_python_target_stay_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", RIGHT),
                  written("%%writefile train.sh", WRONG), written("%%writefile config.yaml", WRONG),
                  written("%%writefile {script}", WRONG))
    assert found(nb) == []


def test_the_written_file_is_never_joined_to_the_notebook_cells(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # two programs: the script (cell 2) and the notebook's own correct loop (cell 3)
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", WRONG), RIGHT)
    assert found(nb) == [(nb, 2, 10, "LRD001")]
    parsed = notebook_source((tmp_path / nb).read_text())
    size = len(parsed.cell_lines[2])
    assert set(parsed.text.splitlines()[:size]) == {""}  # the written cell is blank here
    assert parsed.text.splitlines()[size] == "import torch"  # cell 3
    assert [(w.path, w.source.cell_starts) for w in parsed.written] == [("train.py", [(2, 1)])]
    assert parsed.written[0].source.text.splitlines()[9] == "        sched.step()"


def test_appended_cells_make_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    head, _, loop = WRONG.partition("for epoch")
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", head),
                  "print('the model is ready')",
                  written("%%writefile -a train.py", "for epoch" + loop))
    # the loop's `sched.step()` is line 4 of cell 4, after its magic line
    assert found(nb) == [(nb, 4, 4, "LRD001")]


def test_a_rewritten_file_is_checked_in_each_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", WRONG),
                  written("%%writefile train.py", RIGHT))
    assert found(nb) == [(nb, 2, 10, "LRD001")]


HELPERS = """
import torch

def build_scheduler(optimizer, total_steps):
    return torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=total_steps)
"""
DRIVER = """
import torch
from torch import nn, optim
from model import Net
from utils import build_scheduler

model = Net()
opt = optim.SGD(model.parameters(), lr=0.1)
loader = torch.utils.data.DataLoader(list(range(100)), batch_size=10)
sched = build_scheduler(opt, 30 * len(loader))
for epoch in range(30):
    for batch in loader:
        loss = model(torch.randn(4, 2)).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    {step}
"""
MODEL = """
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        return self.fc(x)
"""


def test_written_modules_form_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the OneCycleLR is built in utils.py: only the written helper says that the per-epoch
    # step of train.py (line 17 of cell 4) is wrong
    nb = notebook(tmp_path, monkeypatch, written("%%writefile model.py", MODEL),
                  written("%%writefile utils.py", HELPERS),
                  written("%%writefile train.py", DRIVER.format(step="sched.step()")),
                  "!python train.py")
    assert found(nb) == [(nb, 4, 17, "LRD003")]
    right = DRIVER.format(step="pass").replace("opt.zero_grad()", "opt.zero_grad()\n        sched.step()")
    nb = notebook(tmp_path, monkeypatch, written("%%writefile model.py", MODEL),
                  written("%%writefile utils.py", HELPERS), written("%%writefile train.py", right),
                  name="right.ipynb")
    assert found(nb) == []


def test_a_written_module_is_preferred_to_a_file_of_the_same_name_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "utils.py").write_text("def build_scheduler(optimizer, total_steps):\n"
                                       "    return None\n")
    nb = notebook(tmp_path, monkeypatch, written("%%writefile utils.py", HELPERS),
                  written("%%writefile train.py", DRIVER.format(step="sched.step()")
                          .replace("from model import Net\n", "").replace("Net()", "nn.Linear(2, 2)")))
    assert found(nb) == [(nb, 3, 16, "LRD003")]


ENGINE = """
def train_one_epoch(model, optimizer, scheduler, batches):
    for x in batches:
        scheduler.step()
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
"""
MAIN = """
import torch
from torch import nn, optim
from engine import train_one_epoch

model = nn.Linear(2, 2)
opt = optim.SGD(model.parameters(), lr=0.1)
sched = optim.lr_scheduler.LambdaLR(opt, lambda step: 1.0)
for epoch in range(3):
    train_one_epoch(model, opt, sched, [torch.randn(4, 2)] * 10)
"""


def test_a_finding_inside_a_written_helper_is_placed_at_its_cell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the inline cells import the written engine too, as they can once it is written
    nb = notebook(tmp_path, monkeypatch, written("%%writefile engine.py", ENGINE),
                  written("%%writefile main.py", MAIN))
    assert found(nb) == [(nb, 2, 4, "LRD001")]
    inline = notebook(tmp_path, monkeypatch, written("%%writefile engine.py", ENGINE), MAIN,
                      name="inline.ipynb")
    assert found(inline) == [(inline, 2, 4, "LRD001")]


def test_a_broken_written_cell_is_one_skipped_cell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = notebook(tmp_path, monkeypatch, written("%%writefile helpers.py", "def f(:\n    pass"),
                  written("%%writefile train.py", WRONG))
    report = check_files([nb], CODES, jobs=1)
    assert [(d.cell, d.line, d.code) for d in report.diagnostics] == [(3, 10, "LRD001")]
    assert [(p.code, p.path, p.cell, p.line, p.whole_file) for p in report.problems] == \
        [("E999", nb, 2, 2, False)]
    assert report.unchecked == 0


def test_noqa_select_and_ignore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    quiet = WRONG.replace("sched.step()", "sched.step()  # noqa: LRD001")
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", quiet))
    assert found(nb) == []
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", WRONG), name="b.ipynb")
    assert main(["--no-gitignore", "--ignore", "LRD001", nb]) == 0
    assert main(["--no-gitignore", "--select", "LRD001", "--no-source", nb]) == 1
    assert f"{nb}:cell 2:line 10:9: LRD001" in capsys.readouterr().out


def test_text_json_and_sarif_positions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", WRONG))
    main([nb])
    text = capsys.readouterr().out
    assert f"{nb}:cell 2:line 10:9: LRD001" in text
    assert "optimizer.step() (cell 2, line 13)" in text and "10 |         sched.step()" in text
    main(["--format", "json", nb])
    [item] = json.loads(capsys.readouterr().out)
    assert (item["path"], item["cell"], item["line"], item["column"]) == (nb, 2, 10, 9)
    assert (item["evidence"]["update_cell"], item["evidence"]["update_line"]) == (2, 13)
    main(["--format", "sarif", nb])
    [result] = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    raw = (tmp_path / nb).read_text().splitlines()
    line = raw[region["startLine"] - 1]
    assert line.strip() == '"        sched.step()\\n",'
    assert line[region["startColumn"] - 1:].startswith("sched.step()")


def test_fix_leaves_the_notebook_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = notebook(tmp_path, monkeypatch, written("%%writefile train.py", WRONG))
    before = (tmp_path / nb).read_bytes()
    main(["--fix", "--unsafe-fixes", nb])
    assert (tmp_path / nb).read_bytes() == before


RESUMED = """
import torch
from torch import nn, optim
from utils import build_scheduler

model = nn.Linear(2, 2)
opt = optim.SGD(model.parameters(), lr=0.1)
sched = build_scheduler(opt, 300)
ckpt = torch.load("last.pt")
opt.load_state_dict(ckpt["optimizer"])
for epoch in range(ckpt["epoch"], 30):
    for batch in range(10):
        loss = model(torch.randn(4, 2)).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        sched.step()
"""


def test_a_message_naming_a_written_file_says_its_cell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nb = notebook(tmp_path, monkeypatch, written("%%writefile utils.py", HELPERS),
                  written("%%writefile train.py", RESUMED))
    report = check_files([nb], CODES, jobs=1)
    [diag] = [d for d in report.diagnostics if d.code == "LRD007"]
    assert (diag.cell, diag.line) == (3, 10)
    # the scheduler is built at line 5 of utils.py, line 5 of cell 2 (after the magic line)
    assert "(OneCycleLR, utils.py (cell 2, line 5))" in diag.message
