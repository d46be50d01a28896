"""Shapes met while hunting false alarms in 318 research repositories whose labelled case is
in the dev split (fphunt31): the correct variant stays quiet and the buggy neighbour is still
reported."""

from __future__ import annotations

from tests.check.helpers import codes

# -- a plateau fed the validation loss unpacked from the evaluation's result -------------------

# A classifier trainer: each epoch trains, then an evaluation function returns the mean loss
# over the held-out loader together with a confusion matrix; the plateau watches that loss,
# unpacked into a variable simply called `loss`. {unpack} is the line that gives `loss` a value.
_UNPACKED = """
import torch


def train_one_epoch(loader, model, loss_fn, optimizer):
    model.train()
    total = 0.0
    for x, y in loader:
        loss = loss_fn(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / len(loader)


def evaluate(loader, model, loss_fn):
    model.eval()
    total, confusion = 0.0, {{}}
    with torch.no_grad():
        for x, y in loader:
            total += loss_fn(model(x), y).item()
    val_loss = total / len(loader)
    return val_loss, confusion


def fit(model, train_loader, val_loader, loss_fn, epochs):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, "min", patience=3)
    for epoch in range(epochs):
        {unpack}
        scheduler.step(loss)
"""


def test_plateau_fed_the_loss_unpacked_from_the_evaluation_of_val_data_is_quiet() -> None:
    src = _UNPACKED.format(unpack="train_one_epoch(train_loader, model, loss_fn, optimizer)\n"
                                  "        loss, cm = evaluate(val_loader, model, loss_fn)")
    assert "LRD004" not in codes(src)


def test_plateau_fed_the_validation_item_of_a_literal_tuple_is_quiet() -> None:
    src = _UNPACKED.format(unpack="train_one_epoch(train_loader, model, loss_fn, optimizer)\n"
                                  "        val_mean, _ = evaluate(val_loader, model, loss_fn)\n"
                                  "        loss, n = val_mean, len(val_loader)")
    assert "LRD004" not in codes(src)


def test_plateau_fed_the_training_loss_unpacked_from_the_training_pass_is_reported() -> None:
    src = _UNPACKED.format(unpack="loss, n = train_one_epoch(train_loader, model, loss_fn, "
                                  "optimizer), len(train_loader)\n"
                                  "        val_loss, cm = evaluate(val_loader, model, loss_fn)")
    assert "LRD004" in codes(src)


def test_plateau_fed_the_training_item_of_a_pass_over_both_loaders_is_reported() -> None:
    # one call reads training and validation data: which item is which is not known, and
    # `train_loss` says which one the plateau watches
    src = _UNPACKED.replace(
        "def fit(", "def run(model, train_loader, val_loader, loss_fn, optimizer):\n"
        "    return (train_one_epoch(train_loader, model, loss_fn, optimizer),\n"
        "            evaluate(val_loader, model, loss_fn)[0])\n\n\ndef fit(").format(
        unpack="train_loss, val_loss = run(model, train_loader, val_loader, loss_fn, "
               "optimizer)\n        loss = train_loss")
    assert "LRD004" in codes(src)


# -- a test that the deprecated epoch argument warns ----------------------------------------

# A library's unit test of its own scheduler (a torch LRScheduler subclass): it steps with an
# explicit epoch inside a block that records warnings and asserts the deprecation warning came.
# {block} opens the block around the step, {after} follows the step inside it.
_WARNS_TEST = """
import warnings

import pytest
import torch


class StairLR(torch.optim.lr_scheduler.LRScheduler):
    def __init__(self, optimizer, stairs, last_epoch=-1):
        self.stairs = stairs
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        level = max(v for k, v in self.stairs if k <= self.last_epoch)
        return [level for _ in self.base_lrs]


def test_closed_form():
    model = torch.nn.Linear(2, 1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StairLR(optimizer, [(0, 0.01), (5, 0.1)])
    for epoch in range(10):
        {block}
            optimizer.step()
            scheduler.step(epoch)
            {after}
"""


def test_epoch_step_inside_a_block_whose_record_is_asserted_is_quiet() -> None:
    src = _WARNS_TEST.format(block="with warnings.catch_warnings(record=True) as caught:",
                             after="assert len(caught) == 1")
    assert "LRD006" not in codes(src)


def test_epoch_step_under_pytest_warns_is_quiet() -> None:
    src = _WARNS_TEST.format(block="with pytest.warns(UserWarning):", after="pass")
    assert "LRD006" not in codes(src)


def test_epoch_step_whose_warning_is_only_silenced_is_reported() -> None:
    src = _WARNS_TEST.format(block="with warnings.catch_warnings():",
                             after="warnings.simplefilter('ignore')")
    assert "LRD006" in codes(src)


def test_epoch_step_under_a_record_nobody_reads_is_reported() -> None:
    src = _WARNS_TEST.format(block="with warnings.catch_warnings(record=True) as caught:",
                             after="pass")
    assert "LRD006" in codes(src)


# -- a loop named for epochs whose every pass is one update ------------------------------------

# A sampler trained by gradient steps on freshly drawn batches: the outer loop runs `--epochs`
# passes, each calling a step function that draws one batch, backpropagates and steps the
# optimizer once; a LambdaLR cuts the LR tenfold after `--step_point` passes. {loop} is the body
# of the outer loop before the scheduler's step.
# (`--step_point` defaults beyond the passes: a cut at pass 7000 of 25000 states an epoch
# schedule whatever the factor's words say, silent since lead55 as StepLR's was since lead53.)
_PASSES = """
import argparse

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=25000)
parser.add_argument("--step_point", type=int, default=70000)
args = parser.parse_args()


def train_step(model, optimizer, batch):
    optimizer.zero_grad()
    loss = model.loss(batch)
    loss.backward()
    optimizer.step()
    return loss.item()


def main(model, sampler, loader):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    factor = lambda iteration: 0.1 if iteration >= args.step_point else 1.0
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=factor)
    for i in range(args.epochs + 1):
        {loop}
        scheduler.step()
"""


def test_iteration_factor_stepped_once_per_pass_that_makes_one_update_is_quiet() -> None:
    src = _PASSES.format(loop="train_step(model, optimizer, sampler.sample())")
    assert "LRD003" not in codes(src)


def test_iteration_factor_stepped_once_per_pass_over_a_loader_is_reported() -> None:
    src = _PASSES.format(loop="for batch in loader:\n"
                              "            train_step(model, optimizer, batch)")
    assert "LRD003" in codes(src)


def test_iteration_factor_stepped_after_a_helper_that_loops_over_batches_is_reported() -> None:
    src = _PASSES.replace(
        "def main(", "def train_epoch(model, optimizer, loader):\n"
        "    for batch in loader:\n"
        "        train_step(model, optimizer, batch)\n\n\ndef main(").format(
        loop="train_epoch(model, optimizer, loader)")
    assert "LRD003" in codes(src)
