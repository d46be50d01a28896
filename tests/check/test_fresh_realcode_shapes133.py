"""Checkpoints written as a tuple or a list (rcnew129, batch fresh-2026-12zzzd129 in
bench/realcode/README.md).

Programs written for these tests; no third-party code.

A resumable checkpoint is not always a dict: ``torch.save((model.state_dict(),
optimizer.state_dict()), path)`` (read back with ``model_state, optimizer_state =
torch.load(path)``), ``torch.save([epoch, model.state_dict(), optimizer.state_dict()], path)``
or a tuple bound to a name first. Such a file holds the optimizer's state as much as a dict
does; one that leaves out the scheduler (or the GradScaler in use) loses it on resume the same
way. lrdoctor judged dicts only and said nothing at the save. It now reads a tuple or list
written in the save (or bound to the name saved) item by item, as the values of a dict whose
keys are the texts written for them: a known state counts by its object, and every item by
its text too (``sched_state`` names the schedule), as a dict entry counts by its key. A sequence whose items cannot be matched to the expression written (a ``*rest``, one
built elsewhere) is not judged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings, messages, project_codes

HEAD = '''
import os
import torch
from torch.utils.data import DataLoader, TensorDataset

data = DataLoader(TensorDataset(torch.randn(96, 6), torch.randn(96, 2)), batch_size=12)
net = torch.nn.Linear(6, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
'''

EPOCH_SCHED = "sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[4, 7], gamma=0.2)\n"

LOOP = '''
for epoch in range(start, 10):
    for xb, yb in data:
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(xb), yb).backward()
        opt.step()
    sched.step()
'''


def _lrd007(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD007"]


def _line_of(source: str, text: str) -> int:
    """The (1-based) line of ``source`` that holds ``text``."""
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def test_list_with_the_epoch_and_the_optimizer_state_is_a_checkpoint() -> None:
    src = HEAD + EPOCH_SCHED + "start = 0\n" + LOOP + (
        '    torch.save([epoch, net.state_dict(), opt.state_dict()], "state.pt")\n')
    assert _lrd007(src) == [len(src.splitlines())]
    assert any("not the scheduler's (`sched`, MultiStepLR)" in m for m in messages(src))


def test_tuple_of_states_written_in_the_save_and_read_back_by_unpacking() -> None:
    src = HEAD + EPOCH_SCHED + '''
start = 0
if os.path.exists("ckpt.pt"):
    net_state, opt_state = torch.load("ckpt.pt")
    net.load_state_dict(net_state)
    opt.load_state_dict(opt_state)
''' + LOOP + '''    torch.save((net.state_dict(), opt.state_dict()), "ckpt.pt")
'''
    lines = _lrd007(src)
    # the resume and the save
    assert len(lines) == 2
    assert lines[-1] == len(src.splitlines())


def test_tuple_bound_to_a_name_then_saved() -> None:
    src = HEAD + EPOCH_SCHED + "start = 0\n" + LOOP + '''    snapshot = (epoch, net.state_dict(), opt.state_dict())
    torch.save(snapshot, "snap.pt")
'''
    assert _lrd007(src) == [len(src.splitlines())]


def test_list_given_as_the_obj_keyword() -> None:
    src = HEAD + EPOCH_SCHED + "start = 0\n" + LOOP + (
        '    torch.save(obj=[net.state_dict(), opt.state_dict()], f="state.pt")\n')
    assert _lrd007(src) == [len(src.splitlines())]


def test_tuple_saved_in_a_function_of_the_driver() -> None:
    src = HEAD + '''
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, total_steps=10 * len(data))


def keep(path):
    torch.save((net.state_dict(), opt.state_dict()), path)


for epoch in range(10):
    for xb, yb in data:
        opt.zero_grad()
        torch.nn.functional.mse_loss(net(xb), yb).backward()
        opt.step()
        sched.step()
    keep("last.pt")
'''
    assert _lrd007(src) == [_line_of(src, "torch.save((net.state_dict()")]
    assert any("OneCycleLR" in m for m in messages(src))


def test_list_with_the_scheduler_but_not_the_always_on_scaler() -> None:
    src = HEAD + EPOCH_SCHED + '''
scaler = torch.cuda.amp.GradScaler()
for epoch in range(10):
    for xb, yb in data:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(net(xb), yb)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    sched.step()
    torch.save([net.state_dict(), opt.state_dict(), sched.state_dict()], "state.pt")
'''
    assert _lrd007(src) == [len(src.splitlines())]
    assert any("GradScaler" in m for m in messages(src))


# -- the same shapes, complete or not checkpoints at all: silent --------------------------------


@pytest.mark.parametrize("saved", [
    "(net.state_dict(), opt.state_dict(), sched.state_dict())",
    "[epoch, net.state_dict(), opt.state_dict(), sched.state_dict()]",
    "[net.state_dict(), opt.state_dict(), {'schedule': sched.state_dict(), 'epoch': epoch}]",
    "(net.state_dict(), opt, sched)",
    "(net.state_dict(), epoch)",
    "[*parts, opt.state_dict()]",
])
def test_complete_or_weights_only_sequences_are_silent(saved: str) -> None:
    src = HEAD + EPOCH_SCHED + "start = 0\nparts = [net.state_dict()]\n" + LOOP + (
        f'    torch.save({saved}, "state.pt")\n')
    assert _lrd007(src) == []


def test_an_unknown_item_that_names_the_schedule_counts_as_its_state() -> None:
    src = HEAD + EPOCH_SCHED + '''
def schedule_position(s):
    return {"last_epoch": s.last_epoch}


start = 0
''' + LOOP + '''    sched_state = schedule_position(sched)
    torch.save((net.state_dict(), opt.state_dict(), sched_state), "state.pt")
'''
    assert _lrd007(src) == []


def test_a_data_tuple_is_no_checkpoint() -> None:
    src = HEAD + EPOCH_SCHED + "start = 0\n" + LOOP + '''
xs = torch.randn(10, 6)
ys = torch.randn(10, 2)
torch.save((xs, ys), "data.pt")
'''
    assert _lrd007(src) == []


def test_tuple_with_the_scheduler_rebuilt_at_the_resumed_epoch_is_silent() -> None:
    src = HEAD + '''
start = 0
if os.path.exists("ckpt.pt"):
    start, net_state, opt_state = torch.load("ckpt.pt")
    net.load_state_dict(net_state)
    opt.load_state_dict(opt_state)
    start += 1
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, last_epoch=start - 1)
''' + LOOP + '''    torch.save((epoch, net.state_dict(), opt.state_dict()), "ckpt.pt")
'''
    assert _lrd007(src) == []


def test_tuple_checkpoint_of_a_trainer_class_in_a_package(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "fit/__init__.py": "",
        "fit/runner.py": '''
import os
import torch


class Runner:
    def __init__(self, net, data, epochs):
        self.net, self.data, self.epochs = net, data, epochs
        self.opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)
        self.first = 0

    def resume(self, path):
        first, net_state, opt_state = torch.load(path)
        self.net.load_state_dict(net_state)
        self.opt.load_state_dict(opt_state)
        self.first = first + 1

    def run(self, path):
        if os.path.exists(path):
            self.resume(path)
        for epoch in range(self.first, self.epochs):
            for xb, yb in self.data:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.net(xb), yb).backward()
                self.opt.step()
            self.sched.step()
            torch.save((epoch, self.net.state_dict(), self.opt.state_dict()), path)
''',
        "main.py": '''
import torch
from torch.utils.data import DataLoader, TensorDataset
from fit.runner import Runner

if __name__ == "__main__":
    data = DataLoader(TensorDataset(torch.randn(64, 5), torch.randn(64, 1)), batch_size=8)
    Runner(torch.nn.Linear(5, 1), data, 20).run("runner.pt")
''',
    }
    found = check_project(tmp_path, monkeypatch, files)
    assert project_codes(found).count("LRD007") == 2
    assert ("fit/runner.py", 28, "LRD007") in found


def test_complete_tuple_checkpoint_of_a_trainer_class_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "fit/__init__.py": "",
        "fit/runner.py": '''
import os
import torch


class Runner:
    def __init__(self, net, data, epochs):
        self.net, self.data, self.epochs = net, data, epochs
        self.opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=epochs)
        self.first = 0

    def resume(self, path):
        first, net_state, opt_state, sched_state = torch.load(path)
        self.net.load_state_dict(net_state)
        self.opt.load_state_dict(opt_state)
        self.sched.load_state_dict(sched_state)
        self.first = first + 1

    def run(self, path):
        if os.path.exists(path):
            self.resume(path)
        for epoch in range(self.first, self.epochs):
            for xb, yb in self.data:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.net(xb), yb).backward()
                self.opt.step()
            self.sched.step()
            torch.save((epoch, self.net.state_dict(), self.opt.state_dict(),
                        self.sched.state_dict()), path)
''',
        "main.py": '''
import torch
from torch.utils.data import DataLoader, TensorDataset
from fit.runner import Runner

if __name__ == "__main__":
    data = DataLoader(TensorDataset(torch.randn(64, 5), torch.randn(64, 1)), batch_size=8)
    Runner(torch.nn.Linear(5, 1), data, 20).run("runner.pt")
''',
    }
    assert "LRD007" not in project_codes(check_project(tmp_path, monkeypatch, files))
