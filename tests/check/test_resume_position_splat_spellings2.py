"""A scheduler rebuilt at the resumed position through a keyword dict (`kwargs["last_epoch"] =
last_epoch; Cls(optimizer, **kwargs)`, `dict(..., last_epoch=n)`) needs no saved scheduler state,
as `last_epoch=` written out does; the same class built without the position still loses it."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

SCRIPT = """
import torch


class Context:
    def __init__(self, model, cfg):
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.create_lr_scheduler(-1)

    def create_lr_scheduler(self, last_epoch):
{build}
        self.lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, **kwargs)

    def recover(self, state, last_epoch):
        self.optimizer.load_state_dict(state)
        self.create_lr_scheduler(last_epoch)

    def step(self):
        self.optimizer.step()
        self.lr_scheduler.step()
"""

POSITIONED = {
    "subscript_assign": """\
        kwargs = {"T_max": self.cfg.t_max}
        kwargs["last_epoch"] = last_epoch""",
    "dict_call": """\
        kwargs = dict(T_max=self.cfg.t_max, last_epoch=last_epoch)""",
    "dict_literal": """\
        kwargs = {"T_max": self.cfg.t_max, "last_epoch": last_epoch}""",
}


@pytest.mark.parametrize("spelling", sorted(POSITIONED))
def test_scheduler_rebuilt_at_the_resumed_position_is_silent(spelling: str) -> None:
    assert codes(SCRIPT.format(build=POSITIONED[spelling])) == []


def test_scheduler_rebuilt_from_scratch_on_resume_is_lrd007() -> None:
    build = """\
        kwargs = {"T_max": self.cfg.t_max}"""
    assert codes(SCRIPT.format(build=build)) == ["LRD007"]
