"""False alarms found by checking whole repositories (fphunt17), each with the buggy
neighbour that must still be reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, project_codes

# -- LRD003 / LRD007: a LambdaLR whose function reads a counter of its own --------------------

_STATEFUL_LAMBDA = """
import torch


def compile_schedule(optimizer, clock, total_batches):
    def factor(epoch):
        {use}
        return max(0.0, 1.0 - clock.batches_seen / total_batches)

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


class Trainer:
    def __init__(self, model, clock, total_batches):
        self.model = model
        self.clock = clock
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        self.scheduler = compile_schedule(self.optimizer, clock, total_batches)

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x, y in loader:
                self.optimizer.zero_grad()
                self.model(x).sub(y).pow(2).mean().backward()
                self.optimizer.step()
                self.clock.batches_seen += 1
            self.scheduler.step()

    def load(self, path):
        saved = torch.load(path)
        self.model.load_state_dict(saved["model"])
        self.optimizer.load_state_dict(saved["optimizer"])
"""


def test_lambda_that_deletes_its_step_count_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `del epoch`: the factor follows the trainer's own clock, so how often the scheduler is
    # stepped sizes nothing, and its state_dict holds nothing a resume would lose
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": _STATEFUL_LAMBDA.replace("{use}", "del epoch  # unused"),
    })
    assert found == []


def test_lambda_that_counts_its_steps_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same factor read from the step count it is given: a horizon in batches stepped per
    # epoch (LRD003), and a position the resume loses (LRD007)
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": _STATEFUL_LAMBDA.replace(
            "{use}", "clock.batches_seen = epoch"),
    })
    assert sorted(set(project_codes(found))) == ["LRD003", "LRD007"]


# -- LRD005: `scheduler.step(epoch)` inside the batch loop -------------------------------------

_POSITIONED = """
import torch


def train_one_epoch(model, loader, optimizer, scheduler, scaler, epoch, per_batch):
    step = 0
    for i, batch in enumerate(loader):
        batch["epoch"] = epoch
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model(batch["x"]).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        step += 1
        if per_batch:
            scheduler.step({position})


def main(model, loader, epochs, per_batch):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=10)
    scaler = torch.amp.GradScaler()
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer, scheduler, scaler, epoch, per_batch)
        if not per_batch:
            scheduler.step(epoch)
"""


def test_step_to_the_epoch_inside_the_batch_loop_is_quiet_under_amp(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every batch sets the schedule to the same epoch: a skipped update moves it no further
    found = check_project(tmp_path, monkeypatch, {
        "train.py": _POSITIONED.replace("{position}", "epoch"),
    })
    assert "LRD005" not in project_codes(found)


@pytest.mark.parametrize("position", ["epoch + i / len(loader)", "step"])
def test_position_the_batch_loop_advances_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, position: str) -> None:
    # the fractional epoch (from the batch index) and a counter bumped every batch move on
    # whether the update was made or skipped
    found = check_project(tmp_path, monkeypatch, {
        "train.py": _POSITIONED.replace("{position}", position),
    })
    assert "LRD005" in project_codes(found)


# -- LRD003: a StepLR step size named after the scheduler's own "step" -------------------------

_DRIVER = """
import argparse

from model import Recommender

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--lr_dc_step", type=int, default={default},
                    help="the number of steps after which the learning rate decays")
opt = parser.parse_args()


def run(loader):
    model = Recommender(opt)
    for epoch in range(opt.epochs):
        model.train_epoch(loader)
"""

_MODEL = """
import torch


class Recommender(torch.nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.layer = torch.nn.Linear(8, 8)
        self.optimizer = torch.optim.Adam(self.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.StepLR(
            self.optimizer, step_size=opt.lr_dc_step, gamma=0.1)

    def train_epoch(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            self.layer(x).sub(y).pow(2).mean().backward()
            self.optimizer.step()
        self.scheduler.step()
"""


def test_small_step_size_setting_named_step_is_quiet_per_epoch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `--lr_dc_step` defaults to 3 in a 30-epoch run: its "step" is one scheduler.step(),
    # a decay every 3 epochs; 3 batches would be no schedule at all
    found = check_project(tmp_path, monkeypatch, {
        "main.py": _DRIVER.replace("{default}", "3"), "model.py": _MODEL,
    })
    assert "LRD003" not in project_codes(found)


def test_large_step_size_setting_named_step_is_still_reported_per_epoch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a default of 5000 steps is a count of batches: stepped once per epoch it never decays
    found = check_project(tmp_path, monkeypatch, {
        "main.py": _DRIVER.replace("{default}", "5000"), "model.py": _MODEL,
    })
    assert "LRD003" in project_codes(found)


def test_step_size_setting_named_in_iterations_is_reported_per_epoch_when_it_outlasts_the_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `lr_dc_iters` names a unit of its own; a default of 5000 decays would never come
    found = check_project(tmp_path, monkeypatch, {
        "main.py": _DRIVER.replace("{default}", "5000").replace("lr_dc_step", "lr_dc_iters"),
        "model.py": _MODEL.replace("lr_dc_step", "lr_dc_iters"),
    })
    assert "LRD003" in project_codes(found)


def test_small_step_size_setting_named_in_iterations_is_quiet_per_epoch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # lead53 (reverses this file's earlier reading): `lr_dc_iters` defaults to 3 in a 30-epoch
    # run: stepped per epoch it decays every 3 epochs, a schedule that plays out; read as
    # batches it would be spent in the first epoch. The stated numbers say epochs
    found = check_project(tmp_path, monkeypatch, {
        "main.py": _DRIVER.replace("{default}", "3").replace("lr_dc_step", "lr_dc_iters"),
        "model.py": _MODEL.replace("lr_dc_step", "lr_dc_iters"),
    })
    assert "LRD003" not in project_codes(found)


# -- LRD008: an LR range test of the trainer, beside the scheduler of its training -------------

_RANGE_TEST = """
import torch


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        self.lr_scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)

    def run_iteration(self):
        x, y = next(self.loader)
        self.optimizer.zero_grad()
        loss = self.model(x).sub(y).pow(2).mean()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def run_training(self, epochs):
        for epoch in range(epochs):
            for _ in range(250):
                self.run_iteration()
            self.lr_scheduler.step()

    def {name}(self, num_iters=1000, init_value=1e-6, final_value=10.0):
        mult = (final_value / init_value) ** (1 / num_iters)
        lr = init_value
        losses = []
        for batch_num in range(1, num_iters + 1):
            losses.append(self.run_iteration())
            lr *= mult
            self.optimizer.param_groups[0]["lr"] = lr
        return losses
"""


def test_lr_range_test_method_beside_the_training_scheduler_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `find_lr` sweeps the LR over a throwaway run of its own; the StepLR is stepped only by
    # `run_training`
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": _RANGE_TEST.replace("{name}", "find_lr"),
    })
    assert "LRD008" not in project_codes(found)


def test_lr_written_by_another_method_of_the_trainer_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the same write in a method of the training run competes with the StepLR
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": _RANGE_TEST.replace("{name}", "train_more"),
    })
    assert "LRD008" in project_codes(found)


def test_range_test_that_steps_the_scheduler_itself_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a "finder" that also steps the training scheduler in its sweep fights it
    found = check_project(tmp_path, monkeypatch, {
        "trainer.py": _RANGE_TEST.replace("{name}", "find_lr").replace(
            '            self.optimizer.param_groups[0]["lr"] = lr\n',
            '            self.optimizer.param_groups[0]["lr"] = lr\n'
            '            self.lr_scheduler.step()\n'),
    })
    assert "LRD008" in project_codes(found)


# -- LRD012: one helper that makes an update and steps the scheduler, called at two levels ----

_PAIRED_HELPER = """
import torch


class ScheduleTest:
    def setup(self, model):
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.sched = torch.optim.lr_scheduler.OneCycleLR(self.opt, max_lr=0.1, total_steps=400)

    def step(self, scheduler):
{update}
        scheduler.step()

    def run(self, cycle_len):
        for _ in range(3):
            self.step(self.sched)
            for _ in range(cycle_len - 2):
                self.opt.step()
                self.sched.step()
"""


def test_helper_pairing_an_update_with_each_step_is_quiet_at_two_levels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # every scheduler step, in the outer loop as in the inner one, follows an update of its
    # own: one step per update
    found = check_project(tmp_path, monkeypatch, {
        "test_schedule.py": _PAIRED_HELPER.replace("{update}", "        self.opt.step()"),
    })
    assert "LRD012" not in project_codes(found)


@pytest.mark.parametrize("update", [
    "        pass",
    "        if len(self.opt.param_groups) > 1:\n            self.opt.step()",
])
def test_outer_step_without_an_update_of_its_own_is_still_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update: str) -> None:
    # no update (or one only under a test of its own) before the outer step: once per update
    # plus once per outer pass
    found = check_project(tmp_path, monkeypatch, {
        "test_schedule.py": _PAIRED_HELPER.replace("{update}", update),
    })
    assert "LRD012" in project_codes(found)
