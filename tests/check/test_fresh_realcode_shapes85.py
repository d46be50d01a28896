"""rcnew83 (batch fresh-2026-12zj83, Kaggle code): shapes of real code the checker got wrong,
fixed by semantics, in our own words.

1. A scheduler picked by a string setting through a constant table: the builder tests
   ``TABLE[cfg.kind] == "StepLR"`` (``TABLE = {"step": "StepLR", ...}``, at the top of the
   module or imported from the project's config module) and the loop steps it under ``if
   cfg.kind == "plat": sched.step(val_loss)``. Python looks the setting up first, so the
   builder's test holds exactly for the keys whose entry is that class: under the step's
   guard only the plateau is built, and step(val_loss) is its metric (no LRD006). The guard
   decided nothing before, so every option was named. A guard on a key whose entry is a
   chainable class still reports LRD006, naming that class alone.
2. A plateau stepped with a validation function's running loss: ``epoch_loss = running /
   seen``, ``running`` summed in a loop over ``bar = tqdm(enumerate(valid_loader))`` and
   started by ``running, seen = 0.0, 0``. The value was judged by the name `epoch_loss` (a
   training-loss name): the sum it divides was not followed, the loop's data was read only
   from the loop's header, and the tuple start counted as a value added. The same code over
   the training loader still reports LRD004.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, project_codes

TABLE_BUILDER = """
import torch
from torch.optim import lr_scheduler

KINDS = {"cos": "CosineAnnealingLR", "plat": "ReduceLROnPlateau", "step": "StepLR"}


def build(opt, cfg):
    if KINDS[cfg.kind] == "CosineAnnealingLR":
        sched = lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs)
    elif KINDS[cfg.kind] == "ReduceLROnPlateau":
        sched = lr_scheduler.ReduceLROnPlateau(opt, patience=2)
    elif KINDS[cfg.kind] == "StepLR":
        sched = lr_scheduler.StepLR(opt, step_size=3)
    return sched


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            total += float(model(x).sum())
    return total


def main(cfg, model, train_loader, val_loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = build(opt, cfg)
    for epoch in range(cfg.epochs):
        for x, y in train_loader:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.step()
        val_loss = evaluate(model, val_loader)
        if cfg.kind == "plat":
            sched.step(val_loss)
        else:
            sched.step()
"""


def test_plateau_key_of_a_class_table_is_no_epoch_argument() -> None:
    assert "LRD006" not in codes(TABLE_BUILDER)


def test_step_key_of_a_class_table_names_that_class_alone() -> None:
    src = TABLE_BUILDER.replace('if cfg.kind == "plat":', 'if cfg.kind == "step":').replace(
        "sched.step(val_loss)", "sched.step(epoch)")
    found = [m for m in messages(src) if "deprecated" in m]
    assert len(found) == 1
    assert "hands `epoch` to StepLR," in found[0]


def test_table_entry_tested_with_in() -> None:
    src = TABLE_BUILDER.replace('KINDS[cfg.kind] == "ReduceLROnPlateau"',
                                'KINDS[cfg.kind] in ("ReduceLROnPlateau",)')
    assert "LRD006" not in codes(src)


def test_table_changed_in_place_decides_nothing() -> None:
    # a table the program writes into may map the key to anything: every option stays
    src = TABLE_BUILDER.replace("def build(opt, cfg):",
                                'KINDS["plat"] = "StepLR"\n\n\ndef build(opt, cfg):')
    assert "LRD006" in codes(src)


CONFIGS = """
KINDS = {"cos": "CosineAnnealingLR", "plat": "ReduceLROnPlateau", "step": "StepLR"}
"""


def test_class_table_imported_from_the_config_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    train = TABLE_BUILDER.replace(
        'KINDS = {"cos": "CosineAnnealingLR", "plat": "ReduceLROnPlateau", "step": "StepLR"}',
        "from configs import KINDS")
    found = check_project(tmp_path, monkeypatch, {"configs.py": CONFIGS, "train.py": train})
    assert "LRD006" not in project_codes(found)
    buggy = train.replace('if cfg.kind == "plat":', 'if cfg.kind == "step":').replace(
        "sched.step(val_loss)", "sched.step(epoch)")
    found = check_project(tmp_path / "b", monkeypatch, {"configs.py": CONFIGS, "train.py": buggy})
    assert "LRD006" in project_codes(found)


RUNNING_VALIDATION = """
import torch
from tqdm import tqdm


def train_one_epoch(model, train_loader, optimizer, criterion):
    model.train()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


def valid_one_epoch(model, valid_loader, criterion, scheduler):
    model.eval()
    running, seen = 0.0, 0
    bar = tqdm(enumerate(valid_loader), total=len(valid_loader))
    for step, (x, y) in bar:
        with torch.no_grad():
            loss = criterion(model(x), y)
        running += loss.item() * x.size(0)
        seen += x.size(0)
    epoch_loss = running / seen
    scheduler.step(epoch_loss)
    return epoch_loss


def main(model, train_loader, valid_loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=2)
    criterion = torch.nn.MSELoss()
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, criterion)
        val_loss = valid_one_epoch(model, valid_loader, criterion, scheduler)
        print(epoch, val_loss)
"""


def test_running_loss_of_the_validation_batches_is_the_validation_loss() -> None:
    assert "LRD004" not in codes(RUNNING_VALIDATION)


def test_running_loss_with_plain_starts_is_the_validation_loss() -> None:
    src = RUNNING_VALIDATION.replace("    running, seen = 0.0, 0\n",
                                     "    running = 0.0\n    seen = 0\n")
    assert "LRD004" not in codes(src)


def test_running_loss_of_the_training_batches_is_still_reported() -> None:
    src = RUNNING_VALIDATION.replace(
        "val_loss = valid_one_epoch(model, valid_loader,",
        "val_loss = valid_one_epoch(model, train_loader,").replace(
        "def valid_one_epoch(model, valid_loader,", "def valid_one_epoch(model, train_loader,"
    ).replace("enumerate(valid_loader), total=len(valid_loader)",
              "enumerate(train_loader), total=len(train_loader)")
    assert "LRD004" in codes(src)
