"""Schedulers lrdoctor cannot see the class of, as real code gets them: a library factory, a
project helper it cannot read, `**kwargs` (`kwargs["scheduler"]`, `.get`, `.pop`), a class
looked up by name, Hydra's `instantiate`. Stepped before the update it is LRD001 (order needs
no horizon); stepped after the update, per batch or per epoch, nothing is guessed."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch
import hydra
from detectron2.solver import build_lr_scheduler
from mylib import utils

def train(model, loader, cfg, args, **kwargs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
{build}
    for epoch in range(cfg.epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
{before}            optimizer.step()
{after}{epoch}"""

_BUILDS = {
    "library_factory": "    scheduler = build_lr_scheduler(cfg, optimizer)",
    "module_attribute_factory": "    scheduler = utils.make_scheduler(args, optimizer)",
    "kwargs_subscript": '    scheduler = kwargs["scheduler"]',
    "kwargs_get": '    scheduler = kwargs.get("lr_scheduler")',
    "kwargs_pop_with_default": '    scheduler = kwargs.pop("scheduler", None)',
    "class_looked_up_by_name": (
        "    sched_cls = getattr(torch.optim.lr_scheduler, args.scheduler)\n"
        "    scheduler = sched_cls(optimizer, **args.scheduler_kwargs)"),
    "hydra_instantiate": (
        "    scheduler = hydra.utils.instantiate(cfg.scheduler, optimizer=optimizer)"),
}

_STEP = "            scheduler.step()\n"
_EPOCH_STEP = "        scheduler.step()\n"


@pytest.mark.parametrize("build", sorted(_BUILDS))
def test_unknown_scheduler_stepped_before_the_update_is_lrd001(build: str) -> None:
    src = _SCRIPT.format(build=_BUILDS[build], before=_STEP, after="", epoch="")
    assert codes(src) == ["LRD001"]


@pytest.mark.parametrize("build", sorted(_BUILDS))
def test_unknown_scheduler_stepped_after_every_update_is_not_judged(build: str) -> None:
    src = _SCRIPT.format(build=_BUILDS[build], before="", after=_STEP, epoch="")
    assert codes(src) == []


@pytest.mark.parametrize("build", sorted(_BUILDS))
def test_unknown_scheduler_stepped_once_per_epoch_is_not_judged(build: str) -> None:
    src = _SCRIPT.format(build=_BUILDS[build], before="", after="", epoch=_EPOCH_STEP)
    assert codes(src) == []
