"""LRD102 across modules: a trainer class builds its Adam from the model it is handed, and the
driver module casts that model to float16 before handing it over.

Programs written for these tests; no third-party code.

`AdamW(self.model.parameters())` with the default eps=1e-8 in `trainer.py`, and `model =
Net().half()` then `Trainer(model)` in `train.py`: eps is 0 in float16 and a zero gradient
gives 0/0 = NaN. Checked in one file the shape was found; split in two, the driver (which holds
the cast) was never judged, because it does not name Adam itself. Now the optimizers the
driver's run builds in other modules are judged too, when the driver hands the cast model to
the class (or function) that builds them after the cast, in the same function.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr EPS)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
"""

DRIVER = """
import torch

from trainer import Trainer


def main(loader):
    model = torch.nn.Linear(16, 1).cuda()
    BEFORE
    trainer = Trainer(model, lr=1e-4)
    trainer.fit(loader, 10)
    AFTER


if __name__ == "__main__":
    main([])
"""


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str = "pass",
            after: str = "pass", eps: str = "") -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "trainer.py": TRAINER.replace(" EPS", eps),
        "train.py": DRIVER.replace("BEFORE", before).replace("AFTER", after),
    })


def test_a_model_cast_in_the_driver_and_handed_to_the_trainer_is_lrd102(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert project(tmp_path, monkeypatch, before="model = model.half()") == [
        ("trainer.py", 8, "LRD102")]


def test_the_finding_names_the_drivers_file_and_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from lrdoctor.catalog import CATALOG
    from lrdoctor.check.runner import check_files

    project(tmp_path, monkeypatch, before="model = model.half()")
    (found,) = check_files(["trainer.py", "train.py"], frozenset(CATALOG), jobs=1).diagnostics
    assert "(`model` is cast to float16 at train.py:9)" in found.message


def test_a_copy_cast_for_export_after_training_is_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    after = "model = model.half()\n    torch.save(model.state_dict(), 'fp16.pt')"
    assert project(tmp_path, monkeypatch, after=after) == []


def test_a_large_enough_eps_is_right(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert project(tmp_path, monkeypatch, before="model = model.half()", eps=", eps=1e-4") == []
