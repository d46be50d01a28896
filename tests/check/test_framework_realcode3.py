"""Framework-based training code (issue 7, batch "fresh-2026-12fx" of bench/realcode): the
general shapes behind the batch's misses, each in our own words, next to the control that must
still (or never) be reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from tests.check.helpers import codes

CODES = frozenset(CATALOG)


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str, int]]:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    report = check_files([str(tmp_path / name) for name in files], CODES, jobs=1)
    return sorted((Path(d.path).name, d.code, d.line) for d in report.diagnostics)


# -- a scheduler stepped by hand inside training_step, under automatic optimization ----------
#
# `self.lr_schedulers()` hands back what configure_optimizers returned in either optimization
# mode. Under automatic optimization Lightning runs training_step (inside the closure it gives
# the optimizer) and only then updates the weights, so a `step()` there advances the schedule
# before the update of that batch: the first value of a warm-up is never used.

_AUTOMATIC = """
import torch
import pytorch_lightning as pl


class Denoiser(pl.LightningModule):
    def __init__(self, net, total_steps):
        super().__init__()
        self.net = net
        self.total_steps = total_steps
{manual}
    def training_step(self, batch, batch_idx):
        loss = self.net(batch).mean()
{body}
        self.log("train_loss", loss)
        return loss
{hooks}
    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
        ramp = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 500))
        return {{"optimizer": opt, "lr_scheduler": ramp}}
"""


def _automatic(body: str = "", hooks: str = "", manual: str = "") -> str:
    return _AUTOMATIC.format(body=textwrap.indent(textwrap.dedent(body), " " * 8),
                             hooks=textwrap.indent(textwrap.dedent(hooks), " " * 4),
                             manual=textwrap.indent(textwrap.dedent(manual), " " * 8))


# (The scheduler is returned from configure_optimizers, so Lightning also steps it at the end
# of every epoch: a hand step on every batch is a double step too, LRD012 since fixes7.)


def test_schedule_stepped_in_training_step_runs_before_lightnings_update() -> None:
    src = _automatic(body="""
        schedule = self.lr_schedulers()
        schedule.step()
    """)
    assert codes(src) == ["LRD001", "LRD012"]


def test_schedule_stepped_through_a_helper_of_training_step_is_reported() -> None:
    src = _automatic(body="self.advance()", hooks="""
        def advance(self):
            self.lr_schedulers().step()
    """)
    assert codes(src) == ["LRD001", "LRD012"]


def test_schedule_stepped_after_the_update_in_the_batch_end_hook_is_not_reported() -> None:
    # control: on_train_batch_end runs once Lightning has stepped the optimizer (no LRD001);
    # Lightning's own step of it at each epoch end makes it a double step (LRD012)
    src = _automatic(hooks="""
        def on_train_batch_end(self, outputs, batch, batch_idx):
            self.lr_schedulers().step()
    """)
    assert codes(src) == ["LRD012"]


def test_schedules_only_read_for_logging_are_not_reported() -> None:
    # control: asking for the schedulers to log the LR steps nothing
    src = _automatic(body="""
        self.log("lr", self.lr_schedulers().get_last_lr()[0])
    """)
    assert codes(src) == []


def test_manual_optimization_stepping_after_its_own_update_is_not_reported() -> None:
    # control: in manual optimization the module updates first, then steps the schedule
    src = _automatic(manual="self.automatic_optimization = False", body="""
        opt = self.optimizers()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
        self.lr_schedulers().step()
    """)
    assert codes(src) == []


def test_manual_optimization_stepping_before_its_own_update_is_still_reported() -> None:
    # control: the rule for manual optimization is unchanged
    src = _automatic(manual="self.automatic_optimization = False", body="""
        opt = self.optimizers()
        self.lr_schedulers().step()
        opt.zero_grad()
        self.manual_backward(loss)
        opt.step()
    """)
    assert codes(src) == ["LRD001"]


# -- the project's subclass of a Hugging Face Trainer, handed optimizers=(opt, sched) ----------
#
# A Trainer subclass that only changes compute_loss (or the sampler) keeps the Trainer's
# `__init__` and training loop: a scheduler handed over in `optimizers=` is stepped after every
# optimizer step, as for the Trainer itself, wherever the subclass is defined.

_SUBCLASS_MODULE = """
import torch
from transformers import Trainer


class WeightedLossTrainer(Trainer):
{init}
    def compute_loss(self, model, inputs, return_outputs=False):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = torch.nn.functional.cross_entropy(outputs.logits, labels)
        return (loss, outputs) if return_outputs else loss
{extra}
"""

_DRIVER = """
import torch
from transformers import TrainingArguments
from weighted import WeightedLossTrainer


def fine_tune(net, train_set, epochs):
    args = TrainingArguments("runs", num_train_epochs=epochs, per_device_train_batch_size=8)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-5)
    decay = {schedule}
    trainer = WeightedLossTrainer(model=net, args=args, train_dataset=train_set,
                                  optimizers=(opt, decay))
    trainer.train()
"""

_EPOCHS = "torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[epochs // 2], gamma=0.1)"


def _subclass(tmp_path: Path, schedule: str = _EPOCHS, init: str = "", extra: str = ""
              ) -> list[str]:
    found = _project(tmp_path, {
        "weighted.py": _SUBCLASS_MODULE.format(init=textwrap.indent(textwrap.dedent(init), " " * 4),
                                               extra=textwrap.indent(textwrap.dedent(extra), " " * 4)),
        "train.py": _DRIVER.format(schedule=schedule),
    })
    return [code for _, code, _ in found]


def test_epoch_sized_schedule_handed_to_a_trainer_subclass_is_stepped_per_update(
        tmp_path: Path) -> None:
    assert _subclass(tmp_path) == ["LRD002"]


def test_subclass_init_passing_its_keywords_on_still_hands_the_schedule_over(
        tmp_path: Path) -> None:
    init = """
    def __init__(self, *args, class_weights=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.class_weights = class_weights
    """
    assert _subclass(tmp_path, init=init) == ["LRD002"]


def test_update_sized_schedule_handed_to_a_trainer_subclass_is_not_reported(
        tmp_path: Path) -> None:
    # control: a horizon in optimizer updates is what the Trainer expects
    schedule = "torch.optim.lr_scheduler.LambdaLR(opt, lambda s: max(0.0, 1 - s / (epochs * len(train_set) // 8)))"
    assert _subclass(tmp_path, schedule=schedule) == []


def test_subclass_init_that_keeps_the_optimizers_keyword_is_left_alone(tmp_path: Path) -> None:
    # control: an __init__ that takes `optimizers` by name decides what reaches the Trainer
    init = """
    def __init__(self, *args, optimizers=(None, None), **kwargs):
        super().__init__(*args, **kwargs)
        self.own_optimizers = optimizers
    """
    assert _subclass(tmp_path, init=init) == []


def test_subclass_with_a_training_loop_of_its_own_is_left_to_that_loop(tmp_path: Path) -> None:
    # control: an overridden train() steps the scheduler where its own code says
    extra = """
    def train(self, *args, **kwargs):
        for batch in self.get_train_dataloader():
            self.training_step(self.model, batch)
    """
    assert _subclass(tmp_path, extra=extra) == []


def test_a_project_class_named_trainer_is_not_the_hf_trainer(tmp_path: Path) -> None:
    # control: the project's own `Trainer` (no transformers base) is not stepped per update
    found = _project(tmp_path, {
        "weighted.py": """
            class WeightedLossTrainer:
                def __init__(self, model=None, args=None, train_dataset=None, optimizers=None):
                    self.optimizer, self.scheduler = optimizers

                def train(self):
                    pass
        """,
        "train.py": _DRIVER.format(schedule=_EPOCHS),
    })
    assert found == []
