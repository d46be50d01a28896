"""Known misses of `lrdoctor check` on real code (issue 7, fixes9): tracer gaps, each fixed by
what the code means, with neighbours that must stay silent (or still be reported).

Programs written for these tests; no third-party code."""

from __future__ import annotations

from .helpers import codes, messages

# 1. A trainer library's own `train()` is its entry point. The same name called on another
# object (`self.model.train()`, the module's mode switch; `model.eval()` on a parameter) does
# not call it, so it is traced with the trainer's own instance, after `__init__`, and not only
# as a template inherited by a subclass whose overrides hide the base's scheduler step.

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loss_func, optimizer):
        self.model = model
        self.loss_func = loss_func
        self.optimizer = optimizer
        self.scheduler = None

    def make_scheduler(self):
        return {build}

    def epoch_start(self):
        self.model.train()

    def step_scheduler(self):
        self.scheduler.step({position})

    def train(self, loader, num_epochs, scheduler_factory=None):
        self.scheduler_factory = scheduler_factory
        self.scheduler = self.make_scheduler()
        for epoch in range(num_epochs):
            self.epoch_start()
            for x, y in loader:
                self.optimizer.zero_grad()
                self.loss_func(self.model(x), y).backward()
                self.optimizer.step()
            self.epoch = epoch + 1
            self.step_scheduler()

    def save_checkpoint(self, path):
        torch.save({{"model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(){saved}}}, path)
{subclass}
"""

WARMUP_SUBCLASS = """

class TrainerWithPerUpdateScheduler(Trainer):
    def step_scheduler(self):
        self.scheduler.step_update(num_updates=self.epoch)
"""

STEPLR = "torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)"
FACTORY = "self.scheduler_factory(self.optimizer)"


def trainer(build: str = STEPLR, position: str = "", saved: str = "",
            subclass: str = WARMUP_SUBCLASS, caller: str = "") -> str:
    return TRAINER.format(build=build, position=position, saved=saved,
                          subclass=subclass) + caller


def test_trainer_train_hidden_by_model_train_is_an_entry_point() -> None:
    # the base's plain `self.scheduler.step()` runs when the base trainer itself is used
    assert codes(trainer()) == ["LRD007"]


def test_factory_scheduler_of_the_trainer_is_missing_from_its_checkpoint() -> None:
    found = messages(trainer(build=FACTORY))
    assert len(found) == 1 and "self.scheduler" in found[0]


def test_trainer_that_saves_its_scheduler_stays_silent() -> None:
    saved = ', "scheduler": self.scheduler.state_dict()'
    assert codes(trainer(saved=saved)) == []
    assert codes(trainer(build=FACTORY, saved=saved)) == []


def test_factory_scheduler_stepped_with_its_epoch_stays_silent() -> None:
    # `step(epoch)` names the position: nothing the checkpoint could hold is lost
    assert codes(trainer(build=FACTORY, position="self.epoch", subclass="")) == []


def test_factory_plateau_fed_a_metric_stays_silent() -> None:
    # a scheduler fed a metric is a plateau: its LR lives in the optimizer state
    assert codes(trainer(build=FACTORY, position="self.validate()", subclass="")) == []


def test_train_called_on_the_trainer_itself_is_traced_once_from_its_caller() -> None:
    caller = """

def main(model, loss_func, optimizer, loader):
    runner = Trainer(model, loss_func, optimizer)
    runner.train(loader, 10)
    runner.save_checkpoint("last.pt")
"""
    assert codes(trainer(caller=caller)) == ["LRD007"]


PER_BATCH_METHOD = """
import torch


class Trainer:
    def __init__(self, model, optimizer, loader):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)

    def evaluate(self, model):
        model.eval()

    def step(self, x):
        self.optimizer.zero_grad()
        self.model(x).mean().backward()
        self.optimizer.step()
        {after_update}

    def train(self, num_epochs):
        for epoch in range(num_epochs):
            self.model.train()
            for x in self.loader:
                self.step(x)
            {after_epoch}
"""


def test_step_method_hidden_by_optimizer_step_is_still_judged() -> None:
    # `self.optimizer.step()` is not a call of the trainer's own `step()`; `self.step(x)` is,
    # so the per-batch scheduler step is seen in its batch loop
    wrong = PER_BATCH_METHOD.format(after_update="self.scheduler.step()", after_epoch="pass")
    assert codes(wrong) == ["LRD002"]
    right = PER_BATCH_METHOD.format(after_update="pass", after_epoch="self.scheduler.step()")
    assert codes(right) == []
