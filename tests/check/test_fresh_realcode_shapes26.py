"""A shape met while reading the fresh-2026-12zg batch of real code (issue 7), in our own words.

A training loop that walks the phases of an epoch over a dict of loaders, one entry per phase
(``dataloaders = {"train": DataLoader(...), "val": DataLoader(...)}`` or a dict comprehension
over the phase names, then ``for phase in ...: for x, y in dataloaders[phase]:``), the shape of
PyTorch's transfer-learning tutorial and of many trainer classes that keep the dict on ``self``
or on a config object. The loop's iterable is one of several loaders, which one depending on
the phase; lrdoctor read it as an unknown iterable, so the loop was not known to run over a
loader's batches, and a scheduler whose literal horizon is sized in epochs
(``StepLR(step_size=7)``) stepped after every update in it went unreported (LRD002). An entry
of a dict whose every value is a loader is a loader whichever entry it is.

Controls: the scheduler stepped once per epoch after the training phase (the tutorial's own
order), a schedule sized in batches stepped per batch over the same dict (OneCycleLR,
CyclicLR), and a dict of loaders lrdoctor cannot see built (a parameter), whose entries stay
unknown iterables.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

_SCRIPT = """
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
scheduler = {SCHEDULER}
{LOADERS}
for epoch in range(25):
    for phase in ["train", "val"]:
        for inputs, labels in dataloaders[phase]:
            optimizer.zero_grad()
            with torch.set_grad_enabled(phase == "train"):
                loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                if phase == "train":
                    loss.backward()
                    optimizer.step()
{PER_BATCH}
{PER_EPOCH}
"""

_COMPREHENSION = (
    'dataloaders = {x: torch.utils.data.DataLoader(list(range(10)), batch_size=4)\n'
    '               for x in ["train", "val"]}'
)
_LITERAL = (
    'dataloaders = {"train": torch.utils.data.DataLoader(list(range(10)), batch_size=4),\n'
    '               "val": torch.utils.data.DataLoader(list(range(4)), batch_size=4)}'
)
_STEPLR = "torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)"


def _script(scheduler: str = _STEPLR, loaders: str = _COMPREHENSION,
            per_epoch: bool = False) -> str:
    per_batch = "" if per_epoch else "                    scheduler.step()"
    after = '        if phase == "train":\n            scheduler.step()' if per_epoch else ""
    return _SCRIPT.format(SCHEDULER=scheduler, LOADERS=loaders, PER_BATCH=per_batch,
                          PER_EPOCH=after)


def test_steplr_stepped_per_batch_over_a_dict_comprehension_of_loaders_is_reported() -> None:
    assert findings(_script()) == [("LRD002", 18)]


def test_steplr_stepped_per_batch_over_a_dict_literal_of_loaders_is_reported() -> None:
    assert codes(_script(loaders=_LITERAL)) == ["LRD002"]


def test_the_message_names_the_phase_entry_as_the_batch_loop() -> None:
    [message] = messages(_script())
    assert "the batch loop over `dataloaders[phase]`" in message
    assert "StepLR(step_size=7)" in message


_TRAINER = """
import torch


class TrainConfig:
    def __init__(self, model, loaders, optimizer, scheduler=None):
        self.model = model
        self.loaders = loaders
        self.optimizer = optimizer
        self.scheduler = scheduler


class Trainer:
    def __init__(self, config):
        self.config = config

    def train(self, epochs):
        for epoch in range(epochs):
            for phase in ("train", "val"):
                for x, y in self.config.loaders[phase]:
                    self.config.optimizer.zero_grad()
                    with torch.set_grad_enabled(phase == "train"):
                        loss = torch.nn.functional.mse_loss(self.config.model(x), y)
                        if phase == "train":
                            loss.backward()
                            self.config.optimizer.step()
                            if self.config.scheduler is not None:
                                self.config.scheduler.step()


model = torch.nn.Linear(4, 2)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
scheduler = {SCHEDULER}
loaders = {{"train": torch.utils.data.DataLoader(list(range(10)), batch_size=2),
            "val": torch.utils.data.DataLoader(list(range(4)), batch_size=2)}}
Trainer(TrainConfig(model, loaders, optimizer, scheduler)).train(300)
"""


def test_trainer_reading_the_loaders_dict_off_a_config_object_is_reported() -> None:
    source = _TRAINER.format(
        SCHEDULER="torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.1)")
    assert codes(source) == ["LRD002"]


def test_cycliclr_stepped_per_batch_by_the_same_trainer_is_silent() -> None:
    source = _TRAINER.format(
        SCHEDULER="torch.optim.lr_scheduler.CyclicLR(optimizer, 1e-3, 1e-2, "
                  "cycle_momentum=False)")
    assert codes(source) == []


def test_steplr_stepped_once_per_epoch_after_the_training_phase_is_silent() -> None:
    assert codes(_script(per_epoch=True)) == []


def test_onecycle_stepped_per_batch_over_the_dict_is_silent() -> None:
    scheduler = ("torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, epochs=25, "
                 "steps_per_epoch=10)")
    assert codes(_script(scheduler=scheduler)) == []


def test_a_dict_of_loaders_handed_in_as_a_parameter_stays_an_unknown_iterable() -> None:
    source = """
    import torch


    def train(model, dataloaders, epochs=25):
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
        for epoch in range(epochs):
            for phase in ["train", "val"]:
                for inputs, labels in dataloaders[phase]:
                    optimizer.zero_grad()
                    loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                        scheduler.step()
    """
    assert codes(source) == []
