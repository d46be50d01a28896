"""False alarms found on whole repositories nobody here wrote (fphunt10), each next to a
control that must still be reported."""

from __future__ import annotations

import json
from pathlib import Path

from lrdoctor.check.engine import check_file
from lrdoctor.check.sources import notebook_source


def _notebook(*cells: str) -> str:
    out = [{"cell_type": "code", "metadata": {}, "source": c.splitlines(True), "outputs": [],
            "execution_count": None} for c in cells]
    return json.dumps({"cells": out, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


# a course notebook's epoch report: the %-format's operator starts the continuation line
_EPOCH_REPORT = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "loader = DataLoader(list(range(64)), batch_size=8)\n"
    "model = torch.nn.Linear(4, 1)\n"
    "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5)\n"
    "for epoch in range(10):\n"
    "    for x in loader:\n"
    "        opt.step()\n"
    "        sched.step()\n"
    "    print('epoch %d, lr %.4f'\n"
    "          % (epoch + 1, opt.param_groups[0]['lr']))\n"
)


def test_percent_operator_starting_a_bracketed_continuation_line_is_python(
    tmp_path: Path,
) -> None:
    # inside open brackets a line that starts with `%` (or `!`) continues the expression:
    # IPython reads magics only where a logical line starts, so the cell is valid Python and
    # is checked (its per-batch StepLR is still reported)
    path = tmp_path / "course.ipynb"
    path.write_text(_notebook(_EPOCH_REPORT))
    result = check_file(str(path))
    assert result.errors == []
    assert [d.code for d in result.diagnostics] == ["LRD002"]


def test_percent_line_inside_a_triple_quoted_string_is_kept() -> None:
    nb = notebook_source(_notebook('doc = """\n% done\n!not a shell line\n"""\nx = 1\n%time y = 2'))
    assert nb.text.splitlines() == ['doc = """', "% done", "!not a shell line", '"""', "x = 1", ""]


def test_magic_after_a_closed_bracket_is_still_blanked() -> None:
    # control: once the brackets close, a `%` or `!` line starts a logical line: a magic
    nb = notebook_source(_notebook("print('a %d'\n      % (1,))\n%matplotlib inline\n"
                                   "s = ')'  # (\n!ls\nx = [1,\n     2]\n%time y = 2"))
    assert nb.text.splitlines() == ["print('a %d'", "      % (1,))", "", "s = ')'  # (", "",
                                    "x = [1,", "     2]", ""]


def test_single_line_automagic_cell_is_not_a_syntax_error(tmp_path: Path) -> None:
    # `ls logs/*/` or `cd repo/` alone in a cell: IPython's automagic runs the %ls / %cd
    # magic (the kernel applies it to single-line cells), so the notebook is valid
    path = tmp_path / "tour.ipynb"
    path.write_text(_notebook("ls lightning_logs/*/\n", "cd repo/", "\ntime run_all(x)\n\n",
                              _EPOCH_REPORT))
    result = check_file(str(path))
    assert result.errors == []
    assert [d.code for d in result.diagnostics] == ["LRD002"]


def test_automagic_word_in_a_longer_cell_is_still_a_syntax_error(tmp_path: Path) -> None:
    # control: in a cell of two lines the kernel does not apply automagic; `ls logs/` there
    # is a syntax error when the cell runs
    path = tmp_path / "tour.ipynb"
    path.write_text(_notebook("# what was written\nls lightning_logs/", _EPOCH_REPORT))
    result = check_file(str(path))
    assert len(result.errors) == 1 and "syntax error" in result.errors[0]
    assert [d.code for d in result.diagnostics] == ["LRD002"]


def test_single_line_python_starting_with_a_magic_name_is_kept() -> None:
    # control: a one-line cell that is Python (an assignment, a call) stays Python
    nb = notebook_source(_notebook("ls = sorted(files)", "time.sleep(1)", "run(model)"))
    assert nb.text.splitlines() == ["ls = sorted(files)", "time.sleep(1)", "run(model)"]


_SNAPSHOT_CYCLES = '''
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--cycles", type=int, default=5)
args = parser.parse_args()

loader = DataLoader(list(range(64)), batch_size=8)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
cycle_step = {horizon}
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cycle_step, 1e-5)
for epoch in range(args.epochs):
    for x in loader:
        opt.step()
    sched.step()
    if (epoch + 1) % cycle_step == 0:
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, cycle_step, 1e-5)
'''


def test_horizon_computed_from_epochs_counts_epochs_whatever_its_name(tmp_path: Path) -> None:
    # snapshot ensembling: `cycle_step = epochs // cycles` is a length in epochs, stepped once
    # per epoch; the "step" in the name does not make it a count of batches
    path = tmp_path / "train.py"
    path.write_text(_SNAPSHOT_CYCLES.format(horizon="args.epochs // args.cycles"))
    result = check_file(str(path))
    assert [d.code for d in result.diagnostics if d.code in ("LRD002", "LRD003")] == []


def test_horizon_computed_from_batches_stepped_per_epoch_is_still_lrd003(tmp_path: Path) -> None:
    # control: the same name computed from the loader's length counts batches
    path = tmp_path / "train.py"
    path.write_text(_SNAPSHOT_CYCLES.format(horizon="args.epochs * len(loader) // args.cycles"))
    result = check_file(str(path))
    assert "LRD003" in [d.code for d in result.diagnostics]
