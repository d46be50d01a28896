"""LRD015 where `get_lr()` is read the ways real code logs it (printed, sent to a writer,
kept in a variable, read in a logging helper, through `self`) on a built-in scheduler whose
get_lr() is the chainable formula; silent on schedulers whose get_lr() is the value in force
(LambdaLR and the Hugging Face warm-ups built on it, OneCycleLR) and on `get_last_lr()`."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch
from torch.optim import lr_scheduler
from torch.utils.tensorboard import SummaryWriter
from transformers import get_linear_schedule_with_warmup

def log_lr(sched, step):
    print(f"step {{step}} lr {{sched.{read}()[0]:.6f}}")

class Trainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        optimizer = self.optimizer
        total = epochs * len(loader)
        self.scheduler = {build}
        self.writer = SummaryWriter()

    def fit(self):
        step = 0
        for epoch in range(self.epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
                self.scheduler.step()
                step += 1
{log}
"""

_LOGS = {
    "printed": "                print('lr', self.scheduler.{read}()[0])",
    "written_to_tensorboard": ("                self.writer.add_scalar('lr', "
                               "self.scheduler.{read}()[0], step)"),
    "kept_in_a_variable": ("                current_lr = self.scheduler.{read}()\n"
                           "                self.writer.add_scalar('lr', current_lr[0], step)"),
    "logging_helper": "                log_lr(self.scheduler, step)",
}

_CHAINABLE = {
    "cosine": "lr_scheduler.CosineAnnealingLR(optimizer, T_max=total)",
    "step": "lr_scheduler.StepLR(optimizer, step_size=10 * len(loader))",
    "exponential_per_batch_gentle": "lr_scheduler.ExponentialLR(optimizer, gamma=0.9999)",
}

_CLOSED_FORM = {
    "lambda": "lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))",
    "hf_linear_warmup": "get_linear_schedule_with_warmup(optimizer, 100, total)",
    "onecycle": "lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=total)",
}


def _script(build: str, log: str, read: str) -> str:
    return _SCRIPT.format(build=build, log=_LOGS[log].format(read=read), read=read)


@pytest.mark.parametrize("log", sorted(_LOGS))
@pytest.mark.parametrize("sched", sorted(_CHAINABLE))
def test_get_lr_on_a_chainable_scheduler_is_lrd015(sched: str, log: str) -> None:
    assert codes(_script(_CHAINABLE[sched], log, "get_lr")) == ["LRD015"]


@pytest.mark.parametrize("log", sorted(_LOGS))
@pytest.mark.parametrize("sched", sorted(_CLOSED_FORM))
def test_get_lr_on_a_closed_form_scheduler_is_correct(sched: str, log: str) -> None:
    assert codes(_script(_CLOSED_FORM[sched], log, "get_lr")) == []


@pytest.mark.parametrize("log", sorted(_LOGS))
def test_get_last_lr_is_correct(log: str) -> None:
    assert codes(_script(_CHAINABLE["cosine"], log, "get_last_lr")) == []
