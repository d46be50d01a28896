"""A function that nothing in its own file calls is traced there as a root, its parameters
guessed from their names. When another checked file calls it with arguments and traces it whole,
that trace knows the objects, and the findings inside the function are its to make
(runner.merge_results). The layout is the commonest in real projects: a driver script that builds
the optimizer and the schedule (and resumes them) and a trainer module that runs the loop."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check import runner
from lrdoctor.check.runner import check_files

CODES = frozenset(CATALOG)

# the trainer saves the model and the optimizer, not the scheduler
TRAINER = """
import torch
{amp_import}

def train(model, optimizer, scheduler, loader, start_epoch, epochs, ckpt_dir):
    for epoch in range(start_epoch, epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch}}, f"{{ckpt_dir}}/last.pt")
{extra}
"""

# the driver resumes: the schedule is rebuilt at the resumed epoch (`last_epoch=`), so the
# scheduler's own state is not needed in the checkpoint
DRIVER = """
import argparse
import json
import torch
from pkg.solver import train


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--resume", default="")
    args = parser.parse_args()
    model = torch.nn.Linear(4, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    start = 0
    if args.resume:
        ckpt = torch.load(args.resume, weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start = ckpt["epoch"] + 1
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30{last_epoch})
    data = torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=8)
    {call}


if __name__ == "__main__":
    main()
"""

CALL = 'train(model, optimizer, scheduler, loader, start, 100, "ckpt")'
SAVE_LINE = 13  # the torch.save line of TRAINER


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, last_epoch: bool = True,
            call: str = CALL, amp_import: str = "", extra: str = "") -> list[str]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/solver.py").write_text(
        textwrap.dedent(TRAINER).format(amp_import=amp_import, extra=textwrap.dedent(extra)))
    (tmp_path / "run.py").write_text(textwrap.dedent(DRIVER).format(
        last_epoch=", last_epoch=start - 1" if last_epoch else "", call=call))
    monkeypatch.chdir(tmp_path)
    return ["run.py", "pkg/__init__.py", "pkg/solver.py"]


def found(paths: list[str], jobs: int = 1) -> list[tuple[str, int, str]]:
    report = check_files(paths, CODES, jobs=jobs)
    assert report.errors == []
    return [(d.path, d.line, d.code) for d in report.diagnostics]


def test_a_schedule_the_caller_rebuilds_on_resume_needs_no_state_in_the_trainers_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = project(tmp_path, monkeypatch)
    assert found(paths) == []


def test_the_trainer_checked_alone_still_reports_what_it_cannot_know(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # with no caller in the run, the guessed scheduler is all there is to go on
    project(tmp_path, monkeypatch)
    assert found(["pkg/solver.py"]) == [("pkg/solver.py", SAVE_LINE, "LRD007")]


def test_control_a_caller_that_resumes_without_rebuilding_the_schedule_still_gets_the_finding(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = project(tmp_path, monkeypatch, last_epoch=False)
    # the caller's own trace reports the trainer's save (and its own resume), once each
    assert ("pkg/solver.py", SAVE_LINE, "LRD007") in found(paths)
    assert [f for f in found(paths) if f[0] == "pkg/solver.py"] == [
        ("pkg/solver.py", SAVE_LINE, "LRD007")]


def test_a_call_whose_arguments_are_not_known_leaves_the_findings_to_the_trainer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `**settings` read from a file: the trace does not know all that the trainer was given
    paths = project(tmp_path, monkeypatch,
                    call='train(model, optimizer, **json.load(open("settings.json")))')
    assert ("pkg/solver.py", SAVE_LINE, "LRD007") in found(paths)


def test_a_function_the_caller_never_calls_keeps_its_own_findings(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = """
    def finetune(model, optimizer, scheduler, loader, epochs, ckpt_dir):
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                optimizer.step()
            scheduler.step()
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       f"{ckpt_dir}/ft.pt")
    """
    paths = project(tmp_path, monkeypatch, extra=extra)
    assert [f for f in found(paths) if f[0] == "pkg/solver.py"] == [
        ("pkg/solver.py", SAVE_LINE + 10, "LRD007")]


def test_a_deprecated_import_in_the_trainer_is_reported_whoever_calls_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = """
    def make_scaler():
        return amp.GradScaler()
    """
    paths = project(tmp_path, monkeypatch, amp_import="from torch.cuda import amp", extra=extra)
    assert [code for path, _, code in found(paths) if path == "pkg/solver.py"] == ["LRD101"]


def test_the_same_answer_when_the_files_are_checked_in_parallel(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = project(tmp_path, monkeypatch)
    monkeypatch.setattr(runner, "PARALLEL_MIN_FILES", 1)
    monkeypatch.setattr(runner, "PARALLEL_MIN_BYTES", 0)
    assert found(paths, jobs=2) == []
    (tmp_path / "b").mkdir()
    paths = project(tmp_path / "b", monkeypatch, last_epoch=False)
    assert ("pkg/solver.py", SAVE_LINE, "LRD007") in found(paths, jobs=2)


TRAINER_CLASS = """
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader, start_epoch=0):
        self.model, self.optimizer, self.scheduler = model, optimizer, scheduler
        self.loader, self.start_epoch = loader, start_epoch

    def fit(self, epochs):
        for epoch in range(self.start_epoch, epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.model(x), y).backward()
                self.optimizer.step()
            self.scheduler.step()
            self.save(epoch)

    def save(self, epoch):
        torch.save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                    "epoch": epoch}, "last.pt")
"""

CLASS_DRIVER = """
import torch
from trainer import Trainer

model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
start = 0
ckpt = torch.load("last.pt", weights_only=True) if {resume} else None
if ckpt is not None:
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    start = ckpt["epoch"] + 1
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60]{last_epoch})
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(64, 4),
                                                                    torch.randn(64, 1)))
Trainer(model, optimizer, scheduler, loader, start).fit(90)
"""


@pytest.mark.parametrize("last_epoch", [True, False])
def test_a_trainer_class_built_by_the_driver_is_judged_with_the_drivers_objects(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, last_epoch: bool) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "trainer.py").write_text(textwrap.dedent(TRAINER_CLASS))
    (tmp_path / "main.py").write_text(textwrap.dedent(CLASS_DRIVER).format(
        resume="True", last_epoch=", last_epoch=start - 1" if last_epoch else ""))
    monkeypatch.chdir(tmp_path)
    in_trainer = [f for f in found(["main.py", "trainer.py"]) if f[0] == "trainer.py"]
    # fit() takes no argument: the driver's instance is what it knows
    assert in_trainer == ([] if last_epoch else [("trainer.py", 20, "LRD007")])
