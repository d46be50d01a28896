"""False alarms found by checking whole repositories (fphunt16), each with the buggy
neighbour that must still be reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from tests.check.helpers import check_project, project_codes

# -- LRD005: a skip test that leaves from inside the AMP branch --------------------------------

_TRAINER = """
import torch


class Trainer:
    def __init__(self, model, float16):
        self.model = model
        self.float16 = float16
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            self.optimizer, max_lr=0.1, total_steps=10000)
        if float16:
            self.scaler = torch.amp.GradScaler()

    def update(self, loss):
        self.optimizer.zero_grad()
        if self.float16:
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            before = self.scaler.get_scale()
            self.scaler.update()
            if before != self.scaler.get_scale():
                print("the scaler skipped this update")
{exit}
        else:
            loss.backward()
            self.optimizer.step()
        self.iteration += 1
        self.scheduler.step()
        return True

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.update(self.model(x).sub(y).pow(2).mean())
"""


def test_skip_test_returning_inside_the_amp_branch_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the scale shrank: the update was skipped and the method returns before the scheduler
    # steps; the other branch makes no scaled update
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": _TRAINER.replace("{exit}", "                return False"),
    })
    assert "LRD005" not in project_codes(found)


def test_skip_test_that_only_logs_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": _TRAINER.replace("{exit}", "                pass"),
    })
    assert ("trainer.py", 29, "LRD005") in found


def test_other_test_returning_inside_the_amp_branch_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a test that does not ask about the skip tells nothing about it
    source = _TRAINER.replace("{exit}", "                pass").replace(
        "            self.scaler.update()\n",
        "            self.scaler.update()\n            if self.iteration > 10 ** 9:\n"
        "                return False\n")
    found = check_project(tmp_path, monkeypatch, {"trainer.py": source})
    assert "LRD005" in project_codes(found)


_LOOP = """
import torch

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=5000)
use_amp = True
scaler = torch.amp.GradScaler(enabled=use_amp)

for epoch in range(5):
    for x, y in loader:
        loss = (model(x) - y).pow(2).mean()
        optimizer.zero_grad()
        if use_amp:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scale_before = scaler.get_scale()
            scaler.update()
{guard}
        else:
            loss.backward()
            optimizer.step()
        scheduler.step()
"""


def test_skip_test_continuing_the_batch_loop_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    guard = ("            if scale_before > scaler.get_scale():\n"
             "                continue")
    found = check_project(tmp_path, monkeypatch, {"train.py": _LOOP.replace("{guard}", guard)})
    assert "LRD005" not in project_codes(found)


def test_skip_test_continuing_an_inner_loop_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the `continue` goes round a loop of its own (logging per group): the scheduler step
    # after that loop still runs after a skipped update
    guard = ("            for group in optimizer.param_groups:\n"
             "                if scale_before > scaler.get_scale():\n"
             "                    continue\n"
             "                print(group['lr'])")
    found = check_project(tmp_path, monkeypatch, {"train.py": _LOOP.replace("{guard}", guard)})
    assert ("train.py", 26, "LRD005") in found


# -- E902: a checkout without `git lfs pull` ----------------------------------------------------

_POINTER = ("version https://git-lfs.github.com/spec/v1\n"
            "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
            "size 18728\n")


def _problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
              files: dict[str, str]) -> dict[tuple[str, str | None], str]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    report = check_files(sorted(files), frozenset(CATALOG), jobs=1)
    return {(p.path, p.code): p.message for p in report.problems}


def test_notebook_kept_in_git_lfs_is_named_as_a_pointer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the repository keeps its notebooks in Git LFS: the file is not broken JSON, it is not
    # there yet; still not checked (E902), with the way to get it
    found = _problems(tmp_path, monkeypatch, {"tour.ipynb": _POINTER, "script.py": _POINTER})
    assert "git lfs pull" in found[("tour.ipynb", "E902")]
    assert "git lfs pull" in found[("script.py", "E902")]  # not a syntax error (E999)


def test_broken_notebook_json_is_still_broken_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = _problems(tmp_path, monkeypatch, {"tour.ipynb": '{"cells": [\n'})
    assert found[("tour.ipynb", "E902")].startswith("broken notebook JSON")
