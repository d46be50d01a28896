"""A scheduler chosen by a setting, one constructor per branch (`if args.sched == "onecycle":
... elif ...: ... else: ...`): the name holds whichever the setting picks, so every option is
judged where it is stepped, and the options never compete with each other."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch
from torch.optim.lr_scheduler import OneCycleLR, StepLR, CosineAnnealingLR

def train(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
{choice}
    for epoch in range(args.epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
{batch_step}
{epoch_step}"""

_CHOICES = {
    "if_elif_else": """    if args.sched == "onecycle":
        scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(loader))
    elif args.sched == "cosine":
        scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs)
    else:
        scheduler = StepLR(optimizer, step_size=30)""",
    "onecycle_last": """    if args.sched == "step":
        scheduler = StepLR(optimizer, step_size=30)
    else:
        scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(loader))""",
    "onecycle_first": """    if args.sched == "onecycle":
        scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(loader))
    else:
        scheduler = StepLR(optimizer, step_size=30)""",
}

_BATCH = "            scheduler.step()"
_EPOCH = "        scheduler.step()"


@pytest.mark.parametrize("choice", sorted(_CHOICES))
def test_per_update_option_stepped_once_per_epoch_is_lrd003(choice: str) -> None:
    assert codes(_SCRIPT.format(choice=_CHOICES[choice], batch_step="",
                                epoch_step=_EPOCH)) == ["LRD003"]


@pytest.mark.parametrize("choice", sorted(_CHOICES))
def test_epoch_option_stepped_every_batch_is_lrd002(choice: str) -> None:
    assert codes(_SCRIPT.format(choice=_CHOICES[choice], batch_step=_BATCH,
                                epoch_step="")) == ["LRD002"]


def test_each_option_stepped_where_its_setting_says_is_correct() -> None:
    src = _SCRIPT.format(
        choice=_CHOICES["onecycle_first"] + "\n    per_batch = args.sched == \"onecycle\"",
        batch_step="            if per_batch:\n                scheduler.step()",
        epoch_step="        if not per_batch:\n            scheduler.step()",
    )
    assert codes(src) == []


def test_options_of_one_choice_do_not_compete() -> None:
    src = _SCRIPT.format(
        choice=_CHOICES["if_elif_else"].replace(
            "OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(loader))",
            "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 0.95 ** e)"),
        batch_step="", epoch_step=_EPOCH)
    assert codes(src) == []


def test_get_lr_on_a_scheduler_chosen_among_a_project_one_is_left_alone() -> None:
    src = _SCRIPT.format(
        choice="""    class PolyLR(torch.optim.lr_scheduler.LRScheduler):
        def get_lr(self):
            return [lr * (1 - self.last_epoch / 100) ** 0.9 for lr in self.base_lrs]
    if args.sched == "step":
        scheduler = StepLR(optimizer, step_size=30)
    else:
        scheduler = PolyLR(optimizer)""",
        batch_step="", epoch_step=_EPOCH + "\n        print(scheduler.get_lr()[0])")
    assert codes(src) == []
