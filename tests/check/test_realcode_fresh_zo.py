"""Shapes met in the fresh real-code batch "fresh-2026-12zo" of issue 7 (bench/realcode, dev
half): a training script that puts a directory of the project on ``sys.path`` itself, with a
literal (``sys.path.append('./Models/')``), and then imports a plain module name from it
(``from coat_model import build_training``), a factory that returns the optimizer, the
scheduler and the GradScaler the script's loop steps. The import was left unresolved, so the
loop's objects had no class and the scheduler stepped after a possibly skipped
``scaler.step`` went unreported (LRD005). Each test is the shape in our own words, with its
correct twin and the controls that must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, project_codes

# the factory module, in a directory that is no package and not beside the script
_FACTORY = """
import torch


def build_training(model, steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = {SCHEDULER}
    scaler = torch.amp.GradScaler("cuda")
    return optimizer, scheduler, scaler
"""

_PER_UPDATE = "torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-4, total_steps=steps)"
_PER_EPOCH = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)"

# the script: run from the project root, it extends sys.path and imports the factory by its
# plain module name; the loop reads the factory's objects as module globals
_SCRIPT = """
import sys
import torch
{PATH}
from coat_model import build_training


def train_one_epoch(model, loader):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
{UPDATE}


if __name__ == "__main__":
    model = torch.nn.Linear(8, 1).cuda()
    data = torch.utils.data.TensorDataset(torch.randn(40, 8), torch.randn(40, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    optimizer, scheduler, scaler = build_training(model, 10 * len(loader))
    for epoch in range(10):
        train_one_epoch(model, loader)
"""

_UNGUARDED = """\
        scaler.update()
        scheduler.step()"""

_GUARDED = """\
        scale = scaler.get_scale()
        scaler.update()
        if scale <= scaler.get_scale():
            scheduler.step()"""


def _project(path_line: str = "sys.path.append('./Models/')", update: str = _UNGUARDED,
             scheduler: str = _PER_UPDATE, module_at: str = "Models/coat_model.py",
             script_at: str = "TRAIN/train_coat.py") -> dict[str, str]:
    script = _SCRIPT.replace("{PATH}", path_line).replace("{UPDATE}", update)
    return {script_at: script, module_at: _FACTORY.replace("{SCHEDULER}", scheduler)}


def test_a_step_after_a_skippable_update_through_a_sys_path_import_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = check_project(tmp_path, monkeypatch, _project())
    assert ("TRAIN/train_coat.py", 16, "LRD005") in got


def test_the_same_step_guarded_by_the_scale_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    got = check_project(tmp_path, monkeypatch, _project(update=_GUARDED))
    assert "LRD005" not in project_codes(got)


def test_an_epoch_schedule_from_an_inserted_joined_directory_stepped_per_batch_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `sys.path.insert(0, os.path.join("lib", "models"))`: the factory's StepLR counts epochs,
    # the loop steps it after every batch
    files = _project(path_line='import os\nsys.path.insert(0, os.path.join("lib", "models"))',
                     scheduler=_PER_EPOCH, module_at="lib/models/coat_model.py")
    got = check_project(tmp_path, monkeypatch, files)
    assert "LRD002" in project_codes(got)


def test_its_twin_stepped_once_per_epoch_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = _project(path_line='import os\nsys.path.insert(0, os.path.join("lib", "models"))',
                     scheduler=_PER_EPOCH, module_at="lib/models/coat_model.py",
                     update="        scaler.update()")
    files["TRAIN/train_coat.py"] = files["TRAIN/train_coat.py"].replace(
        "        train_one_epoch(model, loader)\n",
        "        train_one_epoch(model, loader)\n        scheduler.step()\n")
    got = check_project(tmp_path, monkeypatch, files)
    assert not {"LRD002", "LRD005"} & set(project_codes(got))


def test_a_directory_named_from_the_scripts_own_place_is_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a script run where it lies: `sys.path.append("../common")` from `scripts/`
    files = _project(path_line='sys.path.append("../common")', module_at="common/coat_model.py",
                     script_at="scripts/train_coat.py")
    got = check_project(tmp_path, monkeypatch, files)
    assert ("scripts/train_coat.py", 16, "LRD005") in got


def test_a_module_in_a_directory_the_script_never_adds_stays_unresolved(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the script adds `./Configs/`; the factory lies in `Models/`, which Python would not find
    got = check_project(tmp_path, monkeypatch, _project(path_line="sys.path.append('./Configs/')"))
    assert "LRD005" not in project_codes(got)
