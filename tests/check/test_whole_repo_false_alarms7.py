"""Whole repositories nobody here wrote (fphunt15): false alarms and misses found by reading
the training code, each next to a control that must stay as it is."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

CODES = frozenset(CATALOG)


def check_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                  files: dict[str, str]) -> list[tuple[str, int, str]]:
    """(path, line, code) of every finding for a project made of ``files``."""
    (tmp_path / ".git").mkdir(parents=True)
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), CODES, jobs=1)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics]


def codes(found: list[tuple[str, int, str]]) -> list[str]:
    return [code for _, _, code in found]


# -- a plateau fed, at a script's top level, what a validation function returns ----------------
# A flat script defines `fit_one_epoch()` and `valid()`, each of which computes its own local
# `epoch_loss`, and only the validation one returns it. The epoch loop runs at module
# level: `epoch_loss = valid(epoch)` and then `plateau.step(epoch_loss)`. The name is
# generic, but the value the module's own scope gives it comes from the validation function:
# it is the held-out loss. The training function's local of the same name is another variable.

_FLAT_SCRIPT = """
import torch

net = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
fit_loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
val_loader = torch.utils.data.DataLoader(list(range(16)), batch_size=8)


def fit_one_epoch(epoch):
    total = 0.0
    for x in fit_loader:
        opt.zero_grad()
        loss = net(torch.randn(8, 4)).sum()
        loss.backward()
        opt.step()
        total += loss.item()
    epoch_loss = total / len(fit_loader)
    {fit_return}


def valid(epoch):
    total = 0.0
    with torch.no_grad():
        for x in val_loader:
            total += net(torch.randn(8, 4)).sum().item()
    epoch_loss = total / len(val_loader)
    return epoch_loss


for epoch in range(20):
    {loop}
    plateau.step(epoch_loss)
"""


def test_module_level_plateau_fed_the_validation_return_is_quiet(tmp_path, monkeypatch):
    src = _FLAT_SCRIPT.format(
        fit_return="print(epoch_loss)",
        loop="fit_one_epoch(epoch)\n    epoch_loss = valid(epoch)",
    )
    assert "LRD004" not in codes(check_project(tmp_path, monkeypatch, {"train.py": src}))


def test_module_level_plateau_fed_the_training_return_is_reported(tmp_path, monkeypatch):
    src = _FLAT_SCRIPT.format(
        fit_return="return epoch_loss",
        loop="epoch_loss = fit_one_epoch(epoch)\n    valid(epoch)",
    )
    assert "LRD004" in codes(check_project(tmp_path, monkeypatch, {"train.py": src}))
