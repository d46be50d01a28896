"""Shapes behind the dev misses and the false alarm of the fresh-2026-12yq batch (rcnew63,
bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A base "job" class keeps the scheduler on the instance in a method of its own
  (``self.sched = self.make_sched(opt)`` in ``setup_optim()``), a subclass overrides the
  factory and steps ``self.sched`` in a hook the framework calls later. The subclass's own
  methods were traced before the base's template filled the attribute, so the hook saw no
  scheduler: ``step(count)`` (LRD006) and ``get_lr()`` for logging (LRD015) went unreported.
  Silent twin: the hook calls ``step()`` and logs ``get_last_lr()``.
- A LambdaLR factor that compares its counter with a milestone list named ``steps``
  (``i < steps[0]``) is not sized in batches by that name: the list names where the LR steps
  down. Stepped once per epoch, nothing to report; a factor dividing by a warm-up counted in
  iterations still is.
- ``step(global_step // accumulate_every)``: "acc" of an accumulation setting is no accuracy,
  so the message does not call the argument a loss or a score.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, findings, messages, project_codes

BASE_JOB = """
import torch
from torch import nn


class Job(nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0
        self.net = nn.Linear(8, 2)

    def make_optim(self):
        raise NotImplementedError

    def make_sched(self, opt):
        raise NotImplementedError

    def fit_batch(self, batch):
        loss = self.compute(batch)
        record = {"loss": loss.item(), "lr": self.sched.{read}()}
        return loss, record

    def setup_optim(self):
        opt = self.make_optim()
        self.sched = self.make_sched(opt)
        return [opt]
"""

STEP_JOB = """
import torch

from jobs.base import Job


class DecayJob(Job):
    def make_optim(self):
        return torch.optim.AdamW(self.net.parameters(), lr=3e-4)

    def make_sched(self, opt):
        return torch.optim.lr_scheduler.StepLR(opt, 20000, gamma=0.7)

    def compute(self, batch):
        return self.net(batch).pow(2).mean()

    def after_backward(self, opt):
        opt.step()
        opt.zero_grad()
        if self.sched is not None:
            self.sched.step({arg})
"""


def _job(read: str, arg: str) -> dict[str, str]:
    return {"jobs/__init__.py": "", "jobs/base.py": BASE_JOB.replace("{read}", read),
            "runs/decay.py": STEP_JOB.replace("{arg}", arg)}


def test_base_template_fills_the_scheduler_a_subclass_hook_steps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _job("get_lr", "self.count"))
    assert sorted(project_codes(found)) == ["LRD006", "LRD015"]
    assert ("runs/decay.py", 21, "LRD006") in found
    assert ("jobs/base.py", 20, "LRD015") in found


def test_base_template_scheduler_stepped_plainly_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_project(tmp_path, monkeypatch, _job("get_last_lr", "")) == []


MILESTONE_FACTOR = """
import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
settings = {"kind": "lambda", "ramp": 3, "steps": [40, 70]}
ramp, steps = settings["ramp"], settings["steps"]


def factor(i):
    if i < ramp:
        return (i + 1) / ramp
    if i < steps[0]:
        return 1.0
    if i < steps[1]:
        return 0.1
    return 0.01


sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
for epoch in range(90):
    for x in torch.randn(16, 8, 4):
        opt.zero_grad()
        model(x).pow(2).mean().backward()
        opt.step()
    sched.step()
"""


def test_milestone_list_named_steps_is_no_batch_horizon() -> None:
    assert findings(MILESTONE_FACTOR) == []


def test_factor_over_iteration_warmup_still_found() -> None:
    source = MILESTONE_FACTOR.replace(
        'settings = {"kind": "lambda", "ramp": 3, "steps": [40, 70]}',
        'settings = {"kind": "lambda", "warmup_iters": 2000, "steps": [40, 70]}',
    ).replace('settings["ramp"]', 'settings["warmup_iters"]')
    assert [code for code, _ in findings(source)] == ["LRD003"]


ACCUMULATED_STEP = """
import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, 1000)
accumulate_every = 4
global_step = 0
for x in torch.randn(64, 8, 4):
    model(x).pow(2).mean().backward()
    global_step += 1
    if global_step % accumulate_every == 0:
        opt.step()
        opt.zero_grad()
        sched.step(global_step // accumulate_every)
"""


def test_accumulation_setting_is_not_called_a_score() -> None:
    assert [code for code, _ in findings(ACCUMULATED_STEP)] == ["LRD006"]
    (text,) = messages(ACCUMULATED_STEP)
    assert "loss or score" not in text
    metric = ACCUMULATED_STEP.replace(
        "sched.step(global_step // accumulate_every)", "sched.step(val_loss)"
    ).replace("global_step = 0", "global_step = 0\nval_loss = 0.5")
    assert any("loss or score" in m for m in messages(metric))
