"""Gaps of `lrdoctor check` closed in session 41 (devmiss41), each by its semantics, with the
buggy shape found and a correct twin left silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, codes

# -- 1. a parameter the call leaves out is nothing the caller built ----------------------------

# the loop steps the schedule it is handed; the checkpoint keeps the optimizer only
LOOP = """
import torch

def fit(net, opt, sched, loader, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        sched.step()
        torch.save({"net": net.state_dict(), "opt": opt.state_dict()}, "last.pt")
"""

# the driver builds the optimizer and the schedule and hands them to the loop
DRIVER = """
import torch
from loop import fit

net = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = {schedule}
loader = [(torch.randn(2, 4), torch.randn(2, 1))]
if __name__ == "__main__":
    fit({given})
"""


def _fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, schedule: str, given: str) -> list[str]:
    found = check_project(tmp_path, monkeypatch, {
        "loop.py": LOOP,
        "main.py": DRIVER.format(schedule=schedule, given=given),
    })
    return [f"{path}:{code}" for path, _, code in found if code == "LRD007"]


STEP = "torch.optim.lr_scheduler.StepLR(opt, step_size=30)"
EXPONENTIAL = "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)"


def test_schedule_the_driver_passes_is_judged_by_its_class(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _fit(tmp_path, monkeypatch, STEP,
                "net=net, opt=opt, sched=sched, loader=loader, epochs=90") == ["loop.py:LRD007"]


def test_passed_exponential_schedule_resumes_from_the_optimizer_lr(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a fresh ExponentialLR multiplies the LR it finds in the restored optimizer state
    assert _fit(tmp_path, monkeypatch, EXPONENTIAL,
                "net=net, opt=opt, sched=sched, loader=loader, epochs=90") == []


def test_schedule_the_call_leaves_out_is_not_guessed_from_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `fit(...)` without `sched`: the call raises TypeError, no schedule of the driver's is
    # bound to the parameter, whatever it is called
    assert _fit(tmp_path / "by_name", monkeypatch, STEP,
                "net=net, opt=opt, loader=loader, epochs=90") == []
    assert _fit(tmp_path / "in_order", monkeypatch, STEP,
                "net, opt, loader=loader, epochs=90") == []


def test_schedule_passed_through_unknown_keywords_is_still_guessed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `fit(**settings)` may fill it: the name stands for a schedule, as for an entry point
    assert _fit(tmp_path, monkeypatch, STEP, "net, opt, **settings") == ["loop.py:LRD007"]


SINGLE = """
import torch

def fit(net, opt, sched, loader, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        sched.step()
        torch.save({{"net": net.state_dict(), "opt": opt.state_dict()}}, "last.pt")

net = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loader = [(torch.randn(2, 4), torch.randn(2, 1))]
fit({given})
"""


def test_left_out_parameter_in_one_file() -> None:
    built = "torch.optim.lr_scheduler.StepLR(opt, step_size=30)"
    assert codes(SINGLE.format(given=f"net, opt, {built}, loader, 90")) == ["LRD007"]
    assert codes(SINGLE.format(given="net, opt, loader=loader, epochs=90")) == []


def test_decorated_function_may_be_given_the_parameter() -> None:
    # a decorator may fill what the call leaves out (`@click.option`, a wrapper that builds
    # the schedule): the parameter is guessed from its name, as before
    decorated = SINGLE.format(given="net, opt, loader=loader, epochs=90").replace(
        "def fit(", "@with_schedule\ndef fit(").replace(
        "import torch", "import torch\nfrom helpers import with_schedule")
    assert codes(decorated) == ["LRD007"]


METHOD = """
import torch

class Runner:
    def __init__(self, net, opt):
        self.net, self.opt = net, opt

    def fit(self, sched, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.opt.zero_grad()
                torch.nn.functional.mse_loss(self.net(x), y).backward()
                self.opt.step()
            sched.step()
            torch.save({{"net": self.net.state_dict(), "opt": self.opt.state_dict()}}, "last.pt")

net = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
loader = [(torch.randn(2, 4), torch.randn(2, 1))]
Runner(net, opt).fit({given})
"""


def test_left_out_parameter_of_a_method() -> None:
    built = "torch.optim.lr_scheduler.StepLR(opt, step_size=30)"
    assert codes(METHOD.format(given=f"{built}, loader, 90")) == ["LRD007"]
    assert codes(METHOD.format(given="loader=loader, epochs=90")) == []


# -- 1b. a schedule of unknown optimizer is paired with the optimizers stepped beside it -------

TWO_PHASES = """
import torch
from schedules import make_schedule  # not in view: the schedules' optimizers are unknown

def pretrain(gen, opt_g, sched_g, loader):
    for x, y in loader:
        opt_g.zero_grad()
        torch.nn.functional.mse_loss(gen(x), y).backward()
        opt_g.step()
        sched_g.step()

def train_critic(critic, opt_c, {critic_params}loader):
    for x, y in loader:
        opt_c.zero_grad()
        torch.nn.functional.mse_loss(critic(x), y).backward()
        opt_c.step()
        {critic_step}
    torch.save({{"critic": critic.state_dict(), "opt_c": opt_c.state_dict()}}, "critic.pt")

gen = torch.nn.Linear(4, 1)
critic = torch.nn.Linear(4, 1)
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3)
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
loader = [(torch.randn(2, 4), torch.randn(2, 1))]
pretrain(gen, opt_g, make_schedule(opt_g), loader)
train_critic(critic, opt_c, {critic_args}loader)
"""


def test_schedule_stepped_beside_another_optimizer_is_not_the_checkpoints() -> None:
    # the generator's schedule paces opt_g's updates; the critic's checkpoint lacks nothing
    assert codes(TWO_PHASES.format(critic_params="", critic_step="pass",
                                   critic_args="")) == []


def test_schedule_stepped_beside_the_saved_optimizer_is_still_missing() -> None:
    assert codes(TWO_PHASES.format(critic_params="sched_c, ", critic_step="sched_c.step()",
                                   critic_args="make_schedule(opt_c), ")) == ["LRD007"]
