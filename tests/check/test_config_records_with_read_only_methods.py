"""A settings record (a dataclass, also pydantic's) handed to the training function as an
annotated parameter, whose class also has methods that only read it (``def
is_last_epoch(self, epoch): return epoch == self.num_epochs - 1``) called in the loop: lead61,
from a dev case's false LRD003 (ECMWFCode4Earth/DeepR: a warm-up cosine under Accelerate's
``accumulate()`` with the accumulation count a class constant of 1). A record was only read
for its values when it had no method but ``__post_init__``; a method that never stores on
the instance (nor hands it on, nor reaches its ``__dict__``) cannot change those values, so
the count is the 1 the class states and nothing is accumulated. A method that stores the
attribute, or ``setattr``s the instance, still leaves it unknown ("when ... > 1")."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, project_codes

CONFIGS = """
from {module} import dataclass


@dataclass
class TrainingConfig:
    num_epochs: int = 20
    gradient_accumulation_steps{accum}
    learning_rate: float = 1e-4
    save_every: int = 5

    def __post_init__(self):
        if self.save_every < 1:
            raise ValueError("save_every must be positive")

    def is_last_epoch(self, epoch: int) -> bool:
        return epoch == self.num_epochs - 1

    def is_save_time(self, epoch: int) -> bool:
        return (epoch + 1) % self.save_every == 0 or self.is_last_epoch(epoch)
{extra}
"""

TRAINER = """
import torch
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup

from project.configs import TrainingConfig


def train(config: TrainingConfig, model, dataset):
    accelerator = Accelerator(gradient_accumulation_steps=config.gradient_accumulation_steps)
    loader = torch.utils.data.DataLoader(dataset, batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.learning_rate)
    scheduler = get_cosine_schedule_with_warmup(
        optimizer, num_warmup_steps=100, num_training_steps=len(loader) * config.num_epochs)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    for epoch in range(config.num_epochs):
        for x, y in loader:
            with accelerator.accumulate(model):
                loss = torch.nn.functional.mse_loss(model(x), y)
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
        if config.is_save_time(epoch):
            accelerator.save_state("checkpoints")
"""


def _found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, accum: str, extra: str = "",
           module: str = "dataclasses") -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "project/__init__.py": "",
        "project/configs.py": CONFIGS.format(module=module, accum=accum, extra=extra),
        "project/trainer.py": TRAINER,
    })


@pytest.mark.parametrize("module", ["dataclasses", "pydantic.dataclasses"])
@pytest.mark.parametrize("accum", [" = 1", ": int = 1"])
def test_a_count_of_one_in_a_record_with_read_only_methods_accumulates_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, accum: str, module: str) -> None:
    assert _found(tmp_path, monkeypatch, accum, module=module) == []


def test_a_stated_count_above_one_is_still_found(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    found = _found(tmp_path, monkeypatch, ": int = 4")
    assert found == [("project/trainer.py", 22, "LRD003")]


@pytest.mark.parametrize("extra", [
    "\n    def enable_accumulation(self, steps):\n        self.gradient_accumulation_steps = steps\n",
    "\n    def override(self, **kw):\n        for k, v in kw.items():\n            setattr(self, k, v)\n",
    "\n    def override(self, **kw):\n        self.__dict__.update(kw)\n",
])
def test_a_method_that_may_change_the_count_leaves_it_unknown(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: str) -> None:
    # no caller states the record's values, and a method may set the count: "when > 1"
    assert project_codes(_found(tmp_path, monkeypatch, " = 1", extra)) == ["LRD003"]


CLASS_TRAINER = """
import torch
from accelerate import Accelerator
from transformers import get_cosine_schedule_with_warmup

from project.configs import TrainingConfig


class Trainer:
    def __init__(self, config: TrainingConfig, model, dataset):
        self.config = config
        self.model = model
        self.dataset = dataset

    def run(self):
        accelerator = Accelerator(
            gradient_accumulation_steps=self.config.gradient_accumulation_steps)
        loader = torch.utils.data.DataLoader(self.dataset, batch_size=8)
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.config.learning_rate)
        scheduler = get_cosine_schedule_with_warmup(
            optimizer, num_warmup_steps=100,
            num_training_steps=len(loader) * self.config.num_epochs)
        model, optimizer, loader, scheduler = accelerator.prepare(
            self.model, optimizer, loader, scheduler)
        for epoch in range(self.config.num_epochs):
            for x, y in loader:
                with accelerator.accumulate(model):
                    loss = torch.nn.functional.mse_loss(model(x), y)
                    accelerator.backward(loss)
                    optimizer.step()
                    scheduler.step()
                    optimizer.zero_grad()
"""


@pytest.mark.parametrize("accum, found", [(" = 1", []), (": int = 4", ["LRD003"])])
def test_the_record_read_through_the_trainers_own_attribute(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, accum: str, found: list[str]) -> None:
    # `self.config.gradient_accumulation_steps`, the record the trainer's __init__ stored
    assert project_codes(check_project(tmp_path, monkeypatch, {
        "project/__init__.py": "",
        "project/configs.py": CONFIGS.format(module="dataclasses", accum=accum, extra=""),
        "project/trainer.py": CLASS_TRAINER,
    })) == found
