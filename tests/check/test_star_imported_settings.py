"""Settings read from a config object that a project module binds and the checked file takes
through ``from config import *`` (lead60, from a Kaggle trainer: ``cfg = CFG()`` in cfg.py,
``from cfg import *`` in the training module). The name was resolved for ``from cfg import
cfg`` only: through the star import ``cfg.accumulation_steps`` had no value, so a warm-up
sized in loader batches and stepped under ``(step + 1) % cfg.accumulation_steps == 0`` got an
error-level LRD003 "when `cfg.accumulation_steps` > 1" although the config says 1."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

CFG = """
    from util import *


    class CFG:
        epochs = 4
        accumulation_steps = {accum}
        amp = {amp}


    cfg = CFG()
"""

UTIL = """
    import os
    import random
"""

TRAIN = """
    import torch
    from transformers import get_linear_schedule_with_warmup
    {imports}


    def run(model, loader):
        opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
        sch = get_linear_schedule_with_warmup(opt, 0, len(loader) * cfg.epochs)
        for epoch in range(cfg.epochs):
            for step, batch in enumerate(loader):
                loss = model(batch).mean() / cfg.accumulation_steps
                loss.backward()
                if (step + 1) % cfg.accumulation_steps == 0:
                    opt.step()
                    opt.zero_grad()
                    sch.step()
"""


def _files(accum: int, imports: str, amp: bool = False) -> dict[str, str]:
    return {"cfg.py": CFG.format(accum=accum, amp=amp), "util.py": UTIL,
            "train.py": TRAIN.format(imports=imports.replace("\n", "\n    "))}


@pytest.mark.parametrize("imports", ["from cfg import *", "from cfg import cfg",
                                     "from util import *\nfrom cfg import *"])
def test_accumulation_of_one_read_through_the_import_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str) -> None:
    assert project_codes(check_project(tmp_path, monkeypatch, _files(1, imports))) == []


@pytest.mark.parametrize("imports", ["from cfg import *", "from cfg import cfg"])
def test_real_accumulation_read_through_the_import_is_found(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, imports: str) -> None:
    assert project_codes(check_project(tmp_path, monkeypatch, _files(4, imports))) == ["LRD003"]


def test_star_import_of_a_module_that_star_imports_the_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # train.py star-imports helpers.py, which star-imports cfg.py: cfg is cfg.py's
    files = _files(1, "from helpers import *")
    files["helpers.py"] = "from cfg import *\n\ndef seed_everything(s):\n    return s\n"
    assert project_codes(check_project(tmp_path / "one", monkeypatch, files)) == []
    files = _files(4, "from helpers import *")
    files["helpers.py"] = "from cfg import *\n\ndef seed_everything(s):\n    return s\n"
    assert project_codes(check_project(tmp_path / "four", monkeypatch, files)) == ["LRD003"]


def test_a_name_the_file_binds_itself_is_not_the_star_imported_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the file's own `cfg` (bound after the star import) is read, not cfg.py's
    own = "from cfg import *\n\nclass Own:\n    epochs = 4\n    accumulation_steps = 4\n\ncfg = Own()"
    assert project_codes(check_project(tmp_path, monkeypatch, _files(1, own))) == ["LRD003"]


def test_a_module_level_scaler_built_by_a_factory_of_that_module_is_the_scaler(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `scaler = make_scaler()` at util.py's top level, star-imported by the training module
    # (lead60, from metamorphic.py's factory rewrite of a Kaggle trainer): the global holds
    # the GradScaler the function returns, as `scaler = GradScaler()` there would
    files = {
        "util.py": """
            import torch


            def make_scaler():
                return torch.amp.GradScaler("cuda")


            scaler = make_scaler()
        """,
        "train.py": """
            import torch
            from util import *


            def train(model, loader, optimizer, scheduler):
                for x, y in loader:
                    with torch.autocast("cuda"):
                        loss = torch.nn.functional.mse_loss(model(x), y)
                    optimizer.zero_grad()
                    scaler.scale(loss).backward()
                    scaler.step(optimizer)
                    scaler.update()
                    scheduler.step()
        """,
    }
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == ["LRD005"]


def test_a_flag_returned_by_a_check_that_answers_both_ways_is_a_switch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `amp = check_amp(model)` where the project's check returns False on the CPU, True when
    # a float16 forward agrees, False when it fails (lead60, from yolov5 checked inside its
    # repository): the last `return False` was read as the flag's one value, so the scaler
    # was taken as disabled and its absence from the checkpoint went unreported (LRD007)
    files = {
        "util.py": """
            import torch


            def check_amp(model):
                device = next(model.parameters()).device
                if device.type in ("cpu", "mps"):
                    return False
                try:
                    assert torch.allclose(model(torch.ones(1, 4)), model(torch.ones(1, 4)))
                    return True
                except Exception:
                    return False
        """,
        "train.py": """
            import torch
            from util import check_amp


            def train(model, loader, epochs):
                amp = check_amp(model)
                optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
                scaler = torch.amp.GradScaler("cuda", enabled=amp)
                for epoch in range(epochs):
                    for x, y in loader:
                        with torch.autocast("cuda", enabled=amp):
                            loss = torch.nn.functional.mse_loss(model(x), y)
                        optimizer.zero_grad()
                        scaler.scale(loss).backward()
                        scaler.step(optimizer)
                        scaler.update()
                    ckpt = {"epoch": epoch, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict()}
                    torch.save(ckpt, "last.pt")
        """,
    }
    assert project_codes(check_project(tmp_path, monkeypatch, files)) == ["LRD007"]
    # a check that always answers the same is that answer: False, a scaler never enabled
    files["util.py"] = "def check_amp(model):\n    if model is None:\n        return False\n    return False\n"
    assert project_codes(check_project(tmp_path / "off", monkeypatch, files)) == []
