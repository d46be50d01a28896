"""False alarms of fphunt45's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. A scheduler step that hands over what no chainable scheduler's ``step(epoch=None)``
   accepts: two positional arguments (``self.after.step(metrics, None)``) or a keyword other
   than ``epoch`` (``self.after.step(metrics=val)``). On LambdaLR (or StepLR, or any
   LRScheduler) such a call raises TypeError at once, so wherever it runs the object is of
   another class (ReduceLROnPlateau's ``step(metrics, epoch=None)``): a warm-up wrapper whose
   after-scheduler a factory builds (LambdaLR on one option, ``getattr(lr_scheduler, name)``
   on the others) keeps a method for the plateau option, called only when the
   after-scheduler is a plateau. LRD006 took the LambdaLR option for the object there and
   said the metric became its epoch. Still reported: the same wrapper handing the epoch alone
   (``self.after.step(epoch)``) to it, and a LambdaLR stepped ``step(epoch=e)``.

Each has a control that must still be reported.
"""

from __future__ import annotations

from .helpers import codes

# -- 1. a step call with a plateau's arguments on a factory-built scheduler ---------------------

WARMUP = """
import torch
from torch.optim.lr_scheduler import LambdaLR, _LRScheduler


class WarmupThen(_LRScheduler):
    def __init__(self, optimizer, cfg):
        self.warmup_epochs = cfg["warmup"]
        self.after = self.make_after(optimizer, cfg)
        self.done = False
        super().__init__(optimizer)

    def make_after(self, optimizer, cfg):
        name = cfg["name"]
        if name == "LambdaLR":
            return LambdaLR(optimizer, lr_lambda=lambda e: 0.97 ** e)
        return getattr(torch.optim.lr_scheduler, name)(optimizer, **cfg["kwargs"])

    def get_lr(self):
        if self.last_epoch >= self.warmup_epochs:
            self.done = True
            return self.after.get_last_lr()
        return [b * (self.last_epoch + 1) / self.warmup_epochs for b in self.base_lrs]

    def plateau_step(self, metrics, epoch=None):
        if epoch is None:
            self.after.step(metrics, None)
        else:
            self.after.step(metrics, epoch - self.warmup_epochs)

    def step(self, epoch=None, metrics=None):
        if type(self.after) != torch.optim.lr_scheduler.ReduceLROnPlateau:
            if self.done:
                self.after.step()
            else:
                super().step()
        else:
            self.plateau_step(metrics, epoch)

"""

TWO_ARGS = "self.after.step(metrics, None)"
TWO_ARGS_EPOCH = "self.after.step(metrics, epoch - self.warmup_epochs)"


def test_step_with_a_metric_and_an_epoch_on_a_factory_scheduler_is_silent() -> None:
    assert "LRD006" not in codes(WARMUP)


def test_step_with_a_metrics_keyword_is_silent() -> None:
    source = WARMUP.replace(TWO_ARGS, "self.after.step(metrics=metrics)").replace(
        TWO_ARGS_EPOCH, "self.after.step(metrics=metrics)")
    assert "LRD006" not in codes(source)


def test_the_same_wrapper_handing_the_epoch_alone_is_still_lrd006() -> None:
    source = WARMUP.replace(TWO_ARGS, "self.after.step(epoch)").replace(
        TWO_ARGS_EPOCH, "self.after.step(epoch - self.warmup_epochs)")
    assert "LRD006" in codes(source)


def test_starred_arguments_decide_nothing_and_stay_reported() -> None:
    source = WARMUP.replace(TWO_ARGS, "self.after.step(*[epoch])").replace(
        TWO_ARGS_EPOCH, "self.after.step(epoch)")
    assert "LRD006" in codes(source)


LAMBDA_EPOCH = """
import torch
from torch.optim.lr_scheduler import LambdaLR


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = LambdaLR(optimizer, lambda e: 0.95 ** e)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        scheduler.step(epoch=epoch)
"""


def test_lambdalr_stepped_with_its_epoch_keyword_is_still_lrd006() -> None:
    assert "LRD006" in codes(LAMBDA_EPOCH)


# -- 2. a scheduler built on an element of another list of optimizers --------------------------

LISTS = """
import torch
from torch.optim.lr_scheduler import MultiStepLR


def train(models, loader, epochs, k_models):
    warm_opts = []
    for k in range(k_models):
        warm_opts.append(torch.optim.SGD(models[k].parameters(), lr=0.1))
    scheds, opts = [], []
    for k in range(k_models):
        scheds.append(MultiStepLR(warm_opts[k], milestones=[100], gamma=0.1))
        opts.append(torch.optim.SGD(models[k].parameters(), lr=0.01))
    for epoch in range(epochs):
        for x, y in loader:
            loss = sum((models[k](x) - y).pow(2).mean() for k in range(k_models))
            loss.backward()
            for k in range(k_models):
                scheds[k].step()
                opts[k].step()
                models[k].zero_grad()
"""


def test_scheduler_on_an_element_of_another_optimizer_list_is_not_lrd001() -> None:
    # the scheduler drives warm_opts[k], never stepped here: opts[k].step() after it is not
    # the update whose first LR value it would skip
    assert "LRD001" not in codes(LISTS)


def test_scheduler_on_an_element_of_the_stepped_list_is_still_lrd001() -> None:
    assert "LRD001" in codes(LISTS.replace("MultiStepLR(warm_opts[k]", "MultiStepLR(opts[k]")
                             .replace(
        "        scheds.append(MultiStepLR(opts[k], milestones=[100], gamma=0.1))\n"
        "        opts.append(torch.optim.SGD(models[k].parameters(), lr=0.01))\n",
        "        opts.append(torch.optim.SGD(models[k].parameters(), lr=0.01))\n"
        "        scheds.append(MultiStepLR(opts[k], milestones=[100], gamma=0.1))\n"))
