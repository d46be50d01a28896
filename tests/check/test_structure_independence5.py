"""LRD004 holds however the plateau's step is reached: a ReduceLROnPlateau stepped inside a
helper, a callback, a lambda or a trainer's method is judged by what the caller hands it
(`step_plateau(scheduler, train_loss)`), not by the helper's parameter name (`metric`).

Each shape comes as a twin pair: the buggy program, which must be reported, and the same
program with the right value (or mode), which must stay silent."""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, findings, messages


def lrd004(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD004"]


# -- a module-level helper, the metric passed positionally or by keyword ----------------------

HELPER = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def step_plateau(scheduler, metric):
    scheduler.step(metric)


def evaluate(model, loader):
    with torch.no_grad():
        return sum(float(model(x).mean()) for x, _ in loader)


def fit(model, loader, val_loader, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    plateau = ReduceLROnPlateau(optimizer, mode="{mode}", patience=3)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
        val_loss = evaluate(model, val_loader)
        val_acc = 1.0 - val_loss
        {call}
"""


def helper(call: str, mode: str = "min") -> str:
    return HELPER.replace("{call}", call).replace("{mode}", mode)


def test_training_loss_handed_positionally_to_a_helper_is_reported() -> None:
    source = helper("step_plateau(plateau, loss)")
    assert lrd004(source) == [7]
    assert any("`loss` (handed to `metric` at line 26)" in m for m in messages(source))


def test_validation_loss_handed_positionally_to_a_helper_is_silent() -> None:
    assert lrd004(helper("step_plateau(plateau, val_loss)")) == []


def test_training_loss_handed_by_keyword_is_reported() -> None:
    assert lrd004(helper("step_plateau(metric=loss, scheduler=plateau)")) == [7]


def test_validation_loss_handed_by_keyword_is_silent() -> None:
    assert lrd004(helper("step_plateau(metric=val_loss, scheduler=plateau)")) == []


def test_accuracy_handed_to_a_min_mode_plateau_is_reported() -> None:
    assert lrd004(helper("step_plateau(plateau, metric=val_acc)")) == [7]


def test_accuracy_handed_to_a_max_mode_plateau_is_silent() -> None:
    assert lrd004(helper("step_plateau(plateau, metric=val_acc)", mode="max")) == []


def test_loss_handed_to_a_max_mode_plateau_is_reported() -> None:
    assert lrd004(helper("step_plateau(plateau, val_loss)", mode="max")) == [7]


def test_helper_parameter_named_like_the_training_loss_is_judged_by_what_it_is_given() -> None:
    # the parameter's name says "train_loss", but every caller hands it the validation loss
    source = helper("step_plateau(plateau, val_loss)").replace(
        "def step_plateau(scheduler, metric):\n    scheduler.step(metric)",
        "def step_plateau(scheduler, train_loss):\n    scheduler.step(train_loss)")
    assert lrd004(source) == []
    buggy = source.replace("step_plateau(plateau, val_loss)", "step_plateau(plateau, loss)")
    assert lrd004(buggy) == [7]


def test_callers_that_disagree_leave_the_helper_silent() -> None:
    # one call hands the training loss, the other the validation loss (the second call of
    # the helper is replayed from the first one's trace: each keeps its own argument)
    source = helper("step_plateau(plateau, loss)\n        step_plateau(plateau, val_loss)")
    assert lrd004(source) == []
    both_wrong = helper("step_plateau(plateau, loss)\n        step_plateau(plateau, loss)")
    assert lrd004(both_wrong) == [7]


def test_a_parameter_the_helper_rebinds_is_not_followed() -> None:
    # `metric` no longer holds what the caller passed once the helper assigns it
    source = helper("step_plateau(plateau, loss)").replace(
        "    scheduler.step(metric)",
        "    metric = evaluate_again()\n    scheduler.step(metric)")
    assert lrd004(source) == []


# -- two levels of helpers --------------------------------------------------------------------

TWO_LEVELS = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def adjust_lr(scheduler, value):
    scheduler.step(value)


def end_of_epoch(scheduler, metric, epoch):
    print("epoch", epoch, "metric", metric)
    adjust_lr(scheduler, metric)


def validate(model, loader):
    return sum(float(model(x).sum()) for x, _ in loader)


def main(model, loader, val_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = ReduceLROnPlateau(optimizer)
    for epoch in range(20):
        running_loss = 0.0
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
            running_loss += loss.item()
        val_loss = validate(model, val_loader)
        end_of_epoch(scheduler, {metric}, epoch)
"""


def test_training_loss_through_two_helpers_is_reported() -> None:
    assert lrd004(TWO_LEVELS.replace("{metric}", "running_loss")) == [7]


def test_validation_loss_through_two_helpers_is_silent() -> None:
    assert lrd004(TWO_LEVELS.replace("{metric}", "val_loss")) == []


# -- a lambda and a closure as the epoch-end callback -----------------------------------------

LAMBDA = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def run(model, loader, val_loader, epochs):
    optimizer = torch.optim.Adam(model.parameters())
    scheduler = ReduceLROnPlateau(optimizer, "min")
    on_epoch_end = lambda m: scheduler.step(m)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = model(x, y)
            loss.backward()
            optimizer.step()
        val_loss = sum(float(model(x, y)) for x, y in val_loader)
        on_epoch_end({metric})
"""

CLOSURE = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def make_hook(scheduler):
    def hook(value):
        scheduler.step(value)
    return hook


def run(model, loader, val_loader, epochs):
    optimizer = torch.optim.Adam(model.parameters())
    hook = make_hook(ReduceLROnPlateau(optimizer, "min"))
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = model(x, y)
            loss.backward()
            optimizer.step()
        val_loss = sum(float(model(x, y)) for x, y in val_loader)
        hook({metric})
"""


def test_training_loss_given_to_a_lambda_callback_is_reported() -> None:
    assert lrd004(LAMBDA.replace("{metric}", "loss")) == [9]


def test_validation_loss_given_to_a_lambda_callback_is_silent() -> None:
    assert lrd004(LAMBDA.replace("{metric}", "val_loss")) == []


def test_training_loss_given_to_a_closure_callback_is_reported() -> None:
    assert lrd004(CLOSURE.replace("{metric}", "loss")) == [8]


def test_validation_loss_given_to_a_closure_callback_is_silent() -> None:
    assert lrd004(CLOSURE.replace("{metric}", "val_loss")) == []


# -- a method of a trainer class; a callback object stepping what it was given ----------------

TRAINER = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class Trainer:
    def __init__(self, model, loader, val_loader):
        self.model = model
        self.loader = loader
        self.val_loader = val_loader
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        self.scheduler = ReduceLROnPlateau(self.optimizer, mode="{mode}", factor=0.5)

    def update_lr(self, metrics):
        self.scheduler.step(metrics)

    def evaluate(self):
        correct = 0
        for x, y in self.val_loader:
            correct += int((self.model(x).argmax(1) == y).sum())
        return correct / len(self.val_loader.dataset)

    def fit(self, epochs):
        for epoch in range(epochs):
            train_loss = 0.0
            for x, y in self.loader:
                self.optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                train_loss += loss.item()
            val_accuracy = self.evaluate()
            self.update_lr({metric})


if __name__ == "__main__":
    Trainer(torch.nn.Linear(4, 2), [], []).fit(10)
"""


def trainer(metric: str, mode: str) -> str:
    return TRAINER.replace("{metric}", metric).replace("{mode}", mode)


def test_training_loss_given_to_a_trainer_method_is_reported() -> None:
    assert lrd004(trainer("train_loss", "min")) == [15]


def test_accuracy_given_to_a_trainer_method_in_min_mode_is_reported() -> None:
    assert lrd004(trainer("val_accuracy", "min")) == [15]


def test_accuracy_given_to_a_trainer_method_in_max_mode_is_silent() -> None:
    assert lrd004(trainer("val_accuracy", "max")) == []
    assert lrd004(trainer("metrics=val_accuracy", "max")) == []


CALLBACK = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class PlateauCallback:
    def __init__(self, target):
        self.target = target

    def on_epoch_end(self, value):
        self.target.step(value)


def train(model, loader, val_loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scheduler = ReduceLROnPlateau(optimizer, mode="{mode}")
    callbacks = [PlateauCallback(scheduler)]
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = model(x, y)
            loss.backward()
            optimizer.step()
        val_loss = sum(float(model(x, y)) for x, y in val_loader)
        val_acc = 1 - val_loss
        for callback in callbacks:
            callback.on_epoch_end({metric})
"""


@pytest.mark.parametrize(("metric", "mode", "found"), [
    ("loss", "min", True),  # the training loss
    ("val_loss", "min", False),
    ("val_acc", "min", True),  # an accuracy in min mode
    ("val_acc", "max", False),
    ("val_loss", "max", True),  # a loss in max mode
])
def test_callback_object_is_judged_by_what_the_loop_hands_it(metric: str, mode: str,
                                                             found: bool) -> None:
    source = CALLBACK.replace("{metric}", metric).replace("{mode}", mode)
    assert lrd004(source) == ([11] if found else [])


# -- the helper in another module of the project ----------------------------------------------

def test_helper_in_another_module_is_judged_by_its_caller(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {
        "utils/schedule.py": """
            def step_scheduler(scheduler, metric=None):
                scheduler.step(metric)
            """,
        "utils/__init__.py": "",
        "train.py": HELPER.replace("{mode}", "min").replace(
            "{call}", "step_scheduler(plateau, loss)").replace(
            "from torch.optim.lr_scheduler import ReduceLROnPlateau",
            "from torch.optim.lr_scheduler import ReduceLROnPlateau\n"
            "from utils.schedule import step_scheduler"),
    }
    found = check_project(tmp_path, monkeypatch, files)
    assert ("utils/schedule.py", 3, "LRD004") in found
    report = check_files(["train.py"], frozenset(CATALOG), jobs=1)
    assert [d.message for d in report.diagnostics if d.code == "LRD004"][0].startswith(
        "ReduceLROnPlateau is stepped with the training loss `loss` (handed to `metric` at "
        "train.py:27)")
    files["train.py"] = files["train.py"].replace("step_scheduler(plateau, loss)",
                                                  "step_scheduler(plateau, val_loss)")
    assert [f for f in check_project(tmp_path / "right", monkeypatch, files)
            if f[2] == "LRD004"] == []


# -- a scheduler wrapper that forwards `*args` / `**kwargs` -------------------------------

WRAPPER = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


class SchedulerWrapper:
    def __init__(self, scheduler):
        self.scheduler = scheduler

    def step(self, {params}):
        self.scheduler.step({forward})


def train(model, loader, val_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    wrapper = SchedulerWrapper(ReduceLROnPlateau(optimizer, mode="{mode}"))
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            loss = model(x, y)
            loss.backward()
            optimizer.step()
        val_loss = sum(float(model(x, y)) for x, y in val_loader)
        wrapper.step({metric})
"""


def wrapper(params: str, forward: str, metric: str, mode: str) -> str:
    return WRAPPER.replace("{params}", params).replace("{forward}", forward).replace(
        "{metric}", metric).replace("{mode}", mode)


@pytest.mark.parametrize(("params", "forward", "metric"), [
    ("*args, **kwargs", "*args, **kwargs", "val_loss"),
    ("*args, **kwargs", "*args, **kwargs", "metrics=val_loss"),
    ("**kwargs", "**kwargs", "metrics=val_loss"),
    ("*args", "*args", "val_loss"),
])
def test_wrapper_forwarding_the_metric_is_judged_by_its_caller(params: str, forward: str,
                                                              metric: str) -> None:
    # the wrapper passes on what it is given: the plateau watches the validation loss
    assert lrd004(wrapper(params, forward, metric, "min")) == []
    assert lrd004(wrapper(params, forward, metric, "max")) == [11]


def test_wrapper_forwarding_an_unknown_kwargs_is_not_called_metric_less() -> None:
    # what `**kwargs` holds is not known here (no caller in view): no "without a metric"
    source = wrapper("**kwargs", "**kwargs", "metrics=val_loss", "min").replace(
        "        wrapper.step(metrics=val_loss)\n", "        pass\n")
    assert lrd004(source) == []


# -- a unit-test module: the validation value is looked for where the helper is called ----

UNIT_TEST = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau


def step_plateau(scheduler, metric):
    scheduler.step(metric)


def test_plateau_lowers_the_lr():
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=1.0)
    scheduler = ReduceLROnPlateau(optimizer, patience=0)
    for epoch in range(3):
        optimizer.zero_grad()
        loss = model(torch.ones(1, 2)).sum()
        loss.backward()
        optimizer.step()
        {validation}
        step_plateau(scheduler, loss)
"""


def test_unit_test_handing_the_training_loss_while_it_validates_is_reported() -> None:
    source = UNIT_TEST.replace("{validation}", "val_loss = float(model(torch.zeros(1, 2)))")
    assert [line for code, line in findings(source, "test_sched.py") if code == "LRD004"] == [7]


def test_unit_test_without_validation_is_silent() -> None:
    source = UNIT_TEST.replace("{validation}", "pass")
    assert [line for code, line in findings(source, "test_sched.py") if code == "LRD004"] == []
