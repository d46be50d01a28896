"""`lrdoctor check --unsafe-fixes`: fixes that change the LR schedule on purpose (LRD001,
LRD005, LRD006, LRD015), shown as a diff first, applied with --fix. Each is checked before and
after on a small training script: the fixed file parses, passes `lrdoctor check`, and keeps
its comments; where a fix does not apply, the file is left as it was and the reason is said."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lrdoctor.check.engine import check_source
from lrdoctor.cli import main

HEADER = """\
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randn(64, 1)), batch_size=8)
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # plain SGD
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def fixed(capsys: pytest.CaptureFixture[str], source: str, *options: str) -> tuple[str, str]:
    """Write train.py, show the unsafe fixes as a diff (changing nothing), apply them, and
    check the result: (the fixed text, what --fix said on stderr)."""
    Path("train.py").write_text(source)
    code, diff, _ = run(capsys, "--diff", "--unsafe-fixes", *options, "train.py")
    assert Path("train.py").read_text() == source  # --diff changes nothing
    code, _, err = run(capsys, "--fix", "--unsafe-fixes", *options, "train.py")
    after = Path("train.py").read_text()
    if after != source:
        assert diff.startswith("--- a/train.py"), diff
        assert "--- a/train.py" in err  # each unsafe fix is shown before it is written
        ast.parse(after)
        assert [d.code for d in check_source(after, "train.py").diagnostics] == []
        assert code == 0
    return after, err


# -- LRD001 ------------------------------------------------------------------------------------

LRD001_EPOCH = HEADER + """\
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for epoch in range(4):
    scheduler.step()  # decay the LR
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    print(epoch)
"""


def test_lrd001_step_moves_after_the_batch_loop(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    after, _ = fixed(capsys, LRD001_EPOCH)
    assert after == HEADER + """\
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

for epoch in range(4):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()  # decay the LR
    print(epoch)
"""


def test_lrd001_per_batch_step_moves_after_optimizer_step(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = HEADER + """\
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=4 * len(loader))
for epoch in range(4):
    for x, y in loader:
        scheduler.step()
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
"""
    after, _ = fixed(capsys, source)
    assert after.endswith("""\
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
        scheduler.step()
""")
    assert after.count("scheduler.step()") == 1


def test_lrd001_update_in_a_called_function_moves_to_the_end_of_the_epoch(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = HEADER + """\
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)


def train_one_epoch():
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


for epoch in range(4):
    scheduler.step()
    train_one_epoch()
    print("epoch", epoch)
"""
    after, _ = fixed(capsys, source)
    assert after.endswith("""\
for epoch in range(4):
    train_one_epoch()
    print("epoch", epoch)
    scheduler.step()
""")


def test_lrd001_step_inside_an_expression_is_left_with_the_reason(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = LRD001_EPOCH.replace("    scheduler.step()  # decay the LR",
                                  "    lrs = [scheduler.step(), scheduler.get_last_lr()]")
    assert source != LRD001_EPOCH
    after, err = fixed(capsys, source)
    assert after == source
    assert "LRD001 not fixed: the step is part of a larger expression or statement" in err


def test_lrd001_continue_after_the_step_is_left_with_the_reason(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = HEADER + """\
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)


def train_one_epoch():
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


for epoch in range(4):
    scheduler.step()
    train_one_epoch()
    if epoch % 2:
        continue
    print("epoch", epoch)
"""
    after, err = fixed(capsys, source)
    assert after == source
    assert "`continue` or `break`" in err and "left as it is" in err


# -- LRD005 ------------------------------------------------------------------------------------

LRD005_WRONG = HEADER + """\
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.1, total_steps=4 * len(loader)  # one step per batch
)
scaler = torch.amp.GradScaler("cuda")
for epoch in range(4):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda"):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""


def test_lrd005_scheduler_is_wrapped_where_it_is_built(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    after, _ = fixed(capsys, LRD005_WRONG)
    assert after == LRD005_WRONG.replace(
        "from torch.utils.data import DataLoader, TensorDataset\n",
        "from torch.utils.data import DataLoader, TensorDataset\nimport lrdoctor\n",
    ).replace(
        "scheduler = torch.optim.lr_scheduler.OneCycleLR(\n"
        "    optimizer, max_lr=0.1, total_steps=4 * len(loader)  # one step per batch\n"
        ")\n",
        "scheduler = lrdoctor.SkipAwareScheduler(torch.optim.lr_scheduler.OneCycleLR(\n"
        "    optimizer, max_lr=0.1, total_steps=4 * len(loader)  # one step per batch\n"
        "))\n",
    )


def test_lrd005_scheduler_built_elsewhere_gets_its_step_guarded(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = LRD005_WRONG.replace(
        "scheduler = torch.optim.lr_scheduler.OneCycleLR(\n"
        "    optimizer, max_lr=0.1, total_steps=4 * len(loader)  # one step per batch\n"
        ")\n",
        "schedulers = [torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, "
        "total_steps=4 * len(loader))]\nscheduler = schedulers[0]\n",
    )
    assert source != LRD005_WRONG
    assert [d.code for d in check_source(source, "train.py").diagnostics] == ["LRD005"]
    after, _ = fixed(capsys, source)
    assert after.endswith("""\
        scaler.update()
        if not lrdoctor.step_was_skipped(optimizer):
            scheduler.step()
""")
    assert "import lrdoctor\n" in after


def test_lrd005_step_sharing_its_line_is_left_with_the_reason(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = LRD005_WRONG.replace(
        "scheduler = torch.optim.lr_scheduler.OneCycleLR(\n"
        "    optimizer, max_lr=0.1, total_steps=4 * len(loader)  # one step per batch\n"
        ")\n",
        "schedulers = [torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, "
        "total_steps=4 * len(loader))]\nscheduler = schedulers[0]\n",
    ).replace("        scaler.update()\n        scheduler.step()\n",
              "        scaler.update(); scheduler.step()\n")
    after, err = fixed(capsys, source)
    assert after == source
    assert "LRD005 not fixed: the statement shares its line with other code" in err


# -- LRD006 ------------------------------------------------------------------------------------

LRD006_WRONG = HEADER + """\
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3, 6], gamma=0.1)
for epoch in range(8):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step(epoch)  # closed form
"""


def test_lrd006_epoch_argument_is_dropped(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    after, _ = fixed(capsys, LRD006_WRONG)
    assert after == LRD006_WRONG.replace("scheduler.step(epoch)  # closed form",
                                         "scheduler.step()  # closed form")


def test_lrd006_without_unsafe_fixes_nothing_changes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("train.py").write_text(LRD006_WRONG)
    code, _, _ = run(capsys, "--fix", "train.py")
    assert code == 1 and Path("train.py").read_text() == LRD006_WRONG


def test_lrd006_step_at_the_top_of_the_epoch_is_left_with_the_reason(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # dropping the argument would make it LRD001 (stepped before the epoch's updates): the
    # re-check refuses the fix rather than trading one finding for another
    source = LRD006_WRONG.replace("    scheduler.step(epoch)  # closed form\n", "").replace(
        "for epoch in range(8):\n", "for epoch in range(8):\n    scheduler.step(epoch)\n")
    assert source != LRD006_WRONG
    after, err = fixed(capsys, source, "--select", "LRD006")
    assert after == source
    assert "LRD006 not fixed" in err and "LRD001" in err


# -- LRD015 ------------------------------------------------------------------------------------

LRD015_WRONG = HEADER + """\
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
for epoch in range(6):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()
    scheduler.step()
    print(f"lr {scheduler.get_lr()[0]:.4f}")  # the LR in force
"""


def test_lrd015_get_lr_becomes_get_last_lr(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    after, _ = fixed(capsys, LRD015_WRONG)
    assert after == LRD015_WRONG.replace("scheduler.get_lr()[0]", "scheduler.get_last_lr()[0]")


def test_lrd015_through_getattr_is_not_a_method_call_and_stays(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lrdoctor.check.diagnostic import Diagnostic
    from lrdoctor.check.unsafe import plan_fix

    source = "import torch\nlr = getattr(scheduler, 'get_lr')()\n"
    diag = Diagnostic("LRD015", "m", "train.py", 2, 6)
    plan = plan_fix(diag, source, ast.parse(source))
    assert plan.edits == () and plan.reason == "the call is not written `x.get_lr()`"


def test_all_four_in_one_file_keep_windows_line_endings(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = LRD015_WRONG.replace("    scheduler.step()\n", "    scheduler.step(epoch)\n")
    crlf = source.replace("\n", "\r\n")
    Path("train.py").write_bytes(crlf.encode())
    code, _, _ = run(capsys, "--fix", "--unsafe-fixes", "train.py")
    after = Path("train.py").read_bytes().decode()
    assert after == LRD015_WRONG.replace("scheduler.get_lr()[0]", "scheduler.get_last_lr()[0]") \
        .replace("\n", "\r\n")
    assert code == 0


def test_unsafe_fixes_needs_fix_or_diff(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    Path("train.py").write_text(LRD015_WRONG)
    code, _, err = run(capsys, "--unsafe-fixes", "train.py")
    assert code == 2 and "--unsafe-fixes" in err


# -- the checker reads the wrapper ---------------------------------------------------------------


@pytest.mark.parametrize("spelling", [
    ("import lrdoctor\n", "lrdoctor.SkipAwareScheduler"),
    ("from lrdoctor import SkipAwareScheduler\n", "SkipAwareScheduler"),
])
def test_wrapped_scheduler_is_still_judged_but_not_for_skipped_steps(
    project: Path, spelling: tuple[str, str]
) -> None:
    # (in a project of the user's: lrdoctor is an installed library, not traced into)
    imports, wrapper = spelling
    skip_aware = LRD005_WRONG.replace(
        "scheduler = torch.optim.lr_scheduler.OneCycleLR(\n", f"scheduler = {wrapper}(torch.optim.lr_scheduler.OneCycleLR(\n"
    ).replace("# one step per batch\n)\n", "# one step per batch\n))\n")
    assert skip_aware != LRD005_WRONG
    assert [d.code for d in check_source(imports + skip_aware, "train.py").diagnostics] == []
    # the wrapped scheduler keeps its horizon: sized in epochs and stepped per batch is LRD002
    epoch_sized = (imports + skip_aware).replace(
        "OneCycleLR(\n    optimizer, max_lr=0.1, total_steps=4 * len(loader)",
        "StepLR(\n    optimizer, step_size=2")
    assert epoch_sized != imports + skip_aware
    assert [d.code for d in check_source(epoch_sized, "train.py").diagnostics] == ["LRD002"]


@pytest.mark.parametrize("code", sorted(["LRD001", "LRD005", "LRD006", "LRD015"]))
def test_each_catalog_wrong_example_is_fixed_to_clean_code(
    project: Path, capsys: pytest.CaptureFixture[str], code: str
) -> None:
    import lrdoctor

    wrong = (Path(lrdoctor.__file__).parent / "examples" / f"{code}_wrong.py").read_text()
    assert code in [d.code for d in check_source(wrong, "train.py").diagnostics]
    after, err = fixed(capsys, wrong)
    assert after != wrong, err


def test_notebook_is_not_rewritten_and_says_why(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
              "source": LRD015_WRONG.splitlines(keepends=True)}]
    notebook = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    Path("train.ipynb").write_text(notebook)
    code, out, err = run(capsys, "--fix", "--unsafe-fixes", "train.ipynb")
    assert Path("train.ipynb").read_text() == notebook
    assert "LRD015 not fixed: notebooks are reported, never rewritten; left as it is" in err, out
    assert code == 1
