"""A test on a key of a config record written as literals is decided (rcnew44, fresh-2026-12zx).

Kaggle notebooks keep their settings in a dict literal at the top (`CONFIG = {"scheduler":
"CosineAnnealingWarmRestarts", "T_0": 20, ...}`) and a factory picks the scheduler with
`if CONFIG["scheduler"] == "CosineAnnealingLR": ... elif CONFIG["scheduler"] ==
"ReduceLROnPlateau": ...`. When nothing changes the record, only the branch of the configured
name can run, exactly as for a plain constant or a config class's attribute: a plateau on a
branch the record rules out is not stepped without a metric (no LRD004). The record is also
handed to loggers (`wandb.init(config=CONFIG)`), which read it. It stays undecided when the
module stores into it, pops from it, binds it to a second name or hands it to a function of
the project (any of these can change the setting), and a configured plateau is still reported.

Programs written for these tests; no third-party code."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

PROGRAM = """
import torch
from torch.optim import lr_scheduler
{imports}
{config}
{between}
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


def get_scheduler(optimizer):
    if {read} == "CosineAnnealingLR":
        scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=500, eta_min=1e-6)
    elif {read} == "ReduceLROnPlateau":
        scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", patience=7)
    elif {read} == "CosineAnnealingWarmRestarts":
        scheduler = lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=20, eta_min=1e-6)
    return scheduler


def train_fn(loader, scheduler):
    for x, y in loader:
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()


loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(12)]
scheduler = get_scheduler(optimizer)
for epoch in range(50):
    train_fn(loader, scheduler)
"""

DICT = 'CONFIG = {{"epochs": 50, "scheduler": "{name}", "min_lr": 1e-6}}'
CALL = 'CONFIG = dict(epochs=50, scheduler="{name}", min_lr=1e-6)'
NAMESPACE = 'CONFIG = SimpleNamespace(epochs=50, scheduler="{name}", min_lr=1e-6)'


def program(name: str, config: str = DICT, read: str = 'CONFIG["scheduler"]',
            imports: str = "", between: str = "") -> str:
    return PROGRAM.format(imports=imports, config=config.format(name=name), between=between,
                          read=read)


@pytest.mark.parametrize("config, read, imports", [
    (DICT, 'CONFIG["scheduler"]', ""),
    (CALL, 'CONFIG["scheduler"]', ""),
    (NAMESPACE, "CONFIG.scheduler", "from types import SimpleNamespace"),
])
def test_plateau_branch_ruled_out_by_the_config_record_is_not_reported(config, read, imports):
    assert "LRD004" not in codes(program("CosineAnnealingWarmRestarts", config, read, imports))


@pytest.mark.parametrize("config, read, imports", [
    (DICT, 'CONFIG["scheduler"]', ""),
    (CALL, 'CONFIG["scheduler"]', ""),
    (NAMESPACE, "CONFIG.scheduler", "from types import SimpleNamespace"),
])
def test_plateau_chosen_by_the_config_record_is_still_reported(config, read, imports):
    assert "LRD004" in codes(program("ReduceLROnPlateau", config, read, imports))


def test_record_handed_to_a_logger_still_decides_the_branch():
    source = program("CosineAnnealingWarmRestarts", imports="import wandb",
                     between="wandb.init(project='hubmap', config=CONFIG)\nprint(CONFIG)")
    assert "LRD004" not in codes(source)


@pytest.mark.parametrize("between", [
    'CONFIG["scheduler"] = "ReduceLROnPlateau"',
    'CONFIG.update(scheduler="ReduceLROnPlateau")',
    'CONFIG.pop("scheduler")\nCONFIG.setdefault("scheduler", "ReduceLROnPlateau")',
    'cfg = CONFIG\ncfg["scheduler"] = "ReduceLROnPlateau"',
    'def tune(cfg):\n    cfg["scheduler"] = "ReduceLROnPlateau"\n\n\ntune(CONFIG)',
])
def test_record_that_may_change_leaves_the_branch_open(between):
    assert "LRD004" in codes(program("CosineAnnealingWarmRestarts", between=between))


def test_function_parameter_of_the_same_name_is_not_the_record():
    source = """
    import torch
    from torch.optim import lr_scheduler

    CONFIG = {"scheduler": "CosineAnnealingLR"}
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)


    def get_scheduler(optimizer, CONFIG):
        if CONFIG["scheduler"] == "CosineAnnealingLR":
            return lr_scheduler.CosineAnnealingLR(optimizer, T_max=500)
        return lr_scheduler.ReduceLROnPlateau(optimizer, mode="min")


    def train(loader, scheduler):
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()


    scheduler = get_scheduler(optimizer, {"scheduler": "ReduceLROnPlateau"})
    for epoch in range(10):
        train([(torch.randn(8, 4), torch.randn(8, 1))], scheduler)
    """
    assert "LRD004" in codes(source)


def _notebook(cells: list[str]) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                   "outputs": [], "source": textwrap.dedent(c).strip("\n").splitlines(True)}
                  for c in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    })


NOTEBOOK_CELLS = [
    """
    import torch
    import wandb
    from torch.optim import lr_scheduler
    """,
    """
    CONFIG = {
        "BATCH_SIZE": 8,
        "NUM_EPOCHS": 50,
        "scheduler": "%s",
        "T_max": 500,
        "T_0": 20,
        "min_lr": 1e-6,
    }
    run = wandb.init(project="hubmap", config=CONFIG)
    """,
    """
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    train_loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(12)]
    """,
    """
    def get_scheduler(optimizer):
        if CONFIG["scheduler"] == 'CosineAnnealingLR':
            scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=CONFIG['T_max'],
                                                       eta_min=CONFIG['min_lr'])
        elif CONFIG["scheduler"] == 'ReduceLROnPlateau':
            scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, mode='min', patience=7)
        elif CONFIG['scheduler'] == 'CosineAnnealingWarmRestarts':
            scheduler = lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=CONFIG['T_0'],
                                                                 eta_min=CONFIG['min_lr'])
        return scheduler
    """,
    """
    def train_fn(loader, model, optimizer, scheduler):
        for data, targets in loader:
            loss = ((model(data) - targets) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if scheduler is not None:
                scheduler.step()
    """,
    """
    scheduler = get_scheduler(optimizer)
    for epoch in range(CONFIG["NUM_EPOCHS"]):
        train_fn(train_loader, model, optimizer, scheduler)
    """,
]


@pytest.mark.parametrize("name, reported", [
    ("CosineAnnealingWarmRestarts", False),
    ("ReduceLROnPlateau", True),
])
def test_notebook_config_cell_picks_the_scheduler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  name: str, reported: bool):
    cells = [c % name if "%s" in c else c for c in NOTEBOOK_CELLS]
    found = check_project(tmp_path, monkeypatch, {"train.ipynb": _notebook(cells)})
    assert ("LRD004" in project_codes(found)) is reported


def test_settings_module_of_the_project_is_not_decided(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch):
    # `import config` then `config.scheduler`: the project's settings file is edited to switch
    # a run's modes (like a command line), so its value does not rule a branch out
    settings = 'scheduler = "CosineAnnealingWarmRestarts"\nepochs = 50\n'
    driver = program("unused", config="", read="config.scheduler", imports="import config")
    found = check_project(tmp_path, monkeypatch, {"config.py": settings, "train.py": driver})
    assert "LRD004" in project_codes(found)
