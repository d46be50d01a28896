"""LRD014 where the scheduler's optimizer comes out of the project's builder (``optimizer =
build_optimizer(model)``, ``optimizer, scheduler = build(model)``) and the trainer ignores it,
building and stepping its own: lead61, from metamorphic.py's factory rewrite of a dev case
(a Kaggle pneumothorax pipeline). The rule stayed silent whenever the optimizer's name was
returned by the function that built it (it may be updated out of sight); a builder whose one
return hands it to callers that keep it confined (only the scheduler and traced calls that
ignore it) is followed to them now."""

from __future__ import annotations

import pytest

from .helpers import findings

PROGRAM = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Trainer:
    def __init__(self, model, optimizer, scheduler, loader):
        self.net = model
        self.optimizer = {trainer_optimizer}
        self.scheduler = scheduler
        self.loader = loader

    def start(self, epochs, validate):
        for epoch in range(epochs):
            for x, y in self.loader:
                self.optimizer.zero_grad()
                torch.nn.functional.mse_loss(self.net(x), y).backward()
                self.optimizer.step()
            self.scheduler.step(validate(self.net))


{build}


model = torch.nn.Linear(4, 1)
{bind}
Trainer(model, optimizer, scheduler, []).start(10, lambda m: 0.0)
"""

TUPLE = ("""def build(m):
    optimizer = torch.optim.Adam(m.parameters(), lr=1e-3)
    scheduler = ReduceLROnPlateau(optimizer, patience=3)
    return optimizer, scheduler""", "optimizer, scheduler = build(model)")
SINGLE = ("""def build(m):
    optimizer = torch.optim.Adam(m.parameters(), lr=1e-3)
    return optimizer""", "optimizer = build(model)\nscheduler = ReduceLROnPlateau(optimizer, patience=3)")
IGNORED = "torch.optim.Adam(self.net.parameters(), lr=1e-3)"


@pytest.mark.parametrize("build, bind", [TUPLE, SINGLE])
def test_an_optimizer_from_a_builder_that_the_trainer_replaces_is_found(
        build: str, bind: str) -> None:
    assert findings(PROGRAM.format(trainer_optimizer=IGNORED, build=build, bind=bind)) \
        == [("LRD014", 19)]


@pytest.mark.parametrize("build, bind", [TUPLE, SINGLE])
def test_a_trainer_that_steps_the_optimizer_it_is_given_is_silent(build: str, bind: str) -> None:
    assert findings(PROGRAM.format(trainer_optimizer="optimizer", build=build, bind=bind)) == []


@pytest.mark.parametrize("escape", [
    "    log_optimizer(optimizer)\n",  # handed to a call the trace does not follow
    "    KEEP.append(optimizer)\n",  # kept in a container
])
def test_an_optimizer_that_leaves_the_builder_another_way_stays_silent(escape: str) -> None:
    build = TUPLE[0].replace("    return optimizer, scheduler", escape + "    return optimizer, scheduler")
    assert findings(PROGRAM.format(trainer_optimizer=IGNORED, build=build, bind=TUPLE[1])) == []


def test_a_caller_that_hands_the_result_on_stays_silent() -> None:
    bind = "optimizer, scheduler = build(model)\nlog_optimizer(optimizer)"
    assert findings(PROGRAM.format(trainer_optimizer=IGNORED, build=TUPLE[0], bind=bind)) == []
