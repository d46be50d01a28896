"""LRD014 for a schedule whose optimizer no longer trains: (1) a scheduler handed to a stage
function again with another optimizer after its own optimizer's last update (`train(model,
opt, sched, 5)` then `train(model, opt2, sched, 20)`: the second stage steps the schedule on
`opt`, which nothing updates any more), and (2) a scheduler built on an optimizer made inline
in its own call (`StepLR(Adam(model.parameters()), 10)`) while the loop steps another one.
Silent twins: a new scheduler for the new optimizer, a loop over stages that trains the first
optimizer again, stages that alternate every epoch, a wrapper built from the first optimizer,
and an inline optimizer reached through `scheduler.optimizer`. (lead56's probes; rcnew102 and
lead55 saw both in real code.)"""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

HEAD = """
import torch
from torch import nn

model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)


def train(model, optimizer, scheduler, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        scheduler.step()

"""

STAGES_REPORTED = {
    "handed again": """
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
train(model, opt, sched, 5)
opt2 = torch.optim.SGD(model.parameters(), lr=1e-4)
train(model, opt2, sched, 20)
""",
    "keywords, inside main": """
def main():
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30)
    train(model, optimizer=opt, scheduler=sched, epochs=10)
    finetune_opt = torch.optim.SGD(model.parameters(), lr=1e-4)
    train(model, optimizer=finetune_opt, scheduler=sched, epochs=20)


if __name__ == "__main__":
    main()
""",
}

STAGES_SILENT = {
    "a scheduler of its own": """
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
train(model, opt, sched, 5)
opt2 = torch.optim.SGD(model.parameters(), lr=1e-4)
sched2 = torch.optim.lr_scheduler.StepLR(opt2, step_size=10)
train(model, opt2, sched2, 20)
""",
    "stages in a loop": """
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
opt2 = torch.optim.SGD(model.parameters(), lr=1e-4)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
for stage in range(3):
    train(model, opt, sched, 5)
    train(model, opt2, sched, 5)
""",
    "a wrapper of the first optimizer": """
class Wrapped:
    def __init__(self, base):
        self.base = base
        self.param_groups = base.param_groups

    def step(self):
        self.base.step()

    def zero_grad(self):
        self.base.zero_grad()


opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
train(model, opt, sched, 5)
opt2 = Wrapped(opt)
train(model, opt2, sched, 20)
""",
    "the same optimizer twice": """
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
train(model, opt, sched, 5)
train(model, opt, sched, 20)
""",
    "first optimizer kept in a list": """
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10)
history = [opt]
train(model, opt, sched, 5)
opt2 = torch.optim.SGD(model.parameters(), lr=1e-4)
train(model, opt2, sched, 20)
""",
}


@pytest.mark.parametrize("tail", STAGES_REPORTED.values(), ids=STAGES_REPORTED.keys())
def test_schedule_handed_to_a_later_stage_with_another_optimizer(tail: str) -> None:
    assert codes(HEAD + tail) == ["LRD014"]


@pytest.mark.parametrize("tail", STAGES_SILENT.values(), ids=STAGES_SILENT.keys())
def test_stages_that_keep_the_schedule_on_a_trained_optimizer_are_silent(tail: str) -> None:
    assert "LRD014" not in codes(HEAD + tail)


def test_the_message_names_the_stage_call() -> None:
    source = HEAD + STAGES_REPORTED["handed again"]
    (message,) = [m for m in messages(source) if "not updated after an earlier stage" in m]
    call = source.splitlines().index("train(model, opt2, sched, 20)") + 1
    assert f"the call at line {call}" in message and "(SGD, line" in message


INLINE = """
import torch
from torch import nn

model = nn.Linear(4, 2)
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randint(0, 2, (64,))),
    batch_size=8)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = {built}
for epoch in range(30):
    for x, y in loader:
        {opt}.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        {opt}.step()
    scheduler.step()
"""


def test_scheduler_on_an_optimizer_built_inline_is_reported() -> None:
    built = "torch.optim.lr_scheduler.StepLR(torch.optim.Adam(model.parameters(), lr=1e-3), 10)"
    assert codes(INLINE.format(built=built, opt="optimizer")) == ["LRD014"]
    built = ("torch.optim.lr_scheduler.CosineAnnealingLR(optimizer=torch.optim.SGD("
             "model.parameters(), lr=0.1), T_max=30)")
    assert codes(INLINE.format(built=built, opt="optimizer")) == ["LRD014"]


def test_inline_optimizer_reached_through_the_scheduler_is_silent() -> None:
    built = "torch.optim.lr_scheduler.StepLR(torch.optim.Adam(model.parameters(), lr=1e-3), 10)"
    assert codes(INLINE.format(built=built, opt="scheduler.optimizer")) == []
    assert codes(INLINE.format(built="torch.optim.lr_scheduler.StepLR(optimizer, 10)",
                               opt="optimizer")) == []
