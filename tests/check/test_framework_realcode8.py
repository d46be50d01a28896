"""Shapes met while measuring the fresh-2026-12gc batch of framework programs (issue 7), in our
own words.

PyTorch-Ignite's ``create_supervised_trainer(model, optimizer, loss_fn, amp_mode="amp",
scaler=True)`` builds an engine whose update on every batch is ``scaler.scale(loss).backward()``,
``scaler.step(optimizer)``, ``scaler.update()`` with a GradScaler of Ignite's own (or the one it
is handed as ``scaler=``). Ignite uses the scaler only under ``amp_mode="amp"``; with
``scaler=False`` (the default) it steps the optimizer itself. A scheduler stepped on every
iteration of that engine (by hand in an ``Events.ITERATION_COMPLETED`` handler, or through
Ignite's ``LRScheduler`` wrapper) then advances on the updates the scaler skipped too (LRD005),
as in a hand-written loop. The switch is read from the arguments: a literal, or a local name
whose literal values are bound in the two branches of an ``if`` (the ``if``'s test is the flag
in the message), or the expression the user passes.

Silent: no ``amp_mode`` or ``amp_mode="apex"``, ``scaler=False`` (also bound to a name), a
scheduler stepped once per epoch, a plateau scheduler, an engine without AMP.
"""

from __future__ import annotations

import pytest

from tests.check.helpers import findings, messages

_PROGRAM = """
import torch
from ignite.engine import Events, create_supervised_trainer
from ignite.handlers import LRScheduler


def train(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-3, epochs=cfg.epochs, steps_per_epoch=len(loader))
{SETUP}
    trainer = create_supervised_trainer(model, optimizer, torch.nn.CrossEntropyLoss(),
                                        device="cuda"{AMP})
{ATTACH}
    trainer.run(loader, max_epochs=cfg.epochs)
"""

_BY_HAND = """
    @trainer.on(Events.ITERATION_COMPLETED)
    def _step(engine):
        scheduler.step()
"""

_PER_EPOCH = """
    @trainer.on(Events.EPOCH_COMPLETED)
    def _step(engine):
        scheduler.step()
"""

_WRAPPED = """
    trainer.add_event_handler(Events.ITERATION_COMPLETED, LRScheduler(scheduler))
"""

_BRANCHES = """
    if cfg.fp16:
        amp, scaler = "amp", True
    else:
        amp, scaler = None, False
"""


def _program(amp: str, attach: str = _BY_HAND, setup: str = "") -> str:
    return _PROGRAM.replace("{AMP}", amp).replace("{ATTACH}", attach).replace("{SETUP}", setup)


def _lrd005(source: str) -> list[int]:
    return [line for code, line in findings(source) if code == "LRD005"]


def test_scheduler_stepped_by_hand_on_every_iteration_of_an_amp_engine():
    source = _program(', amp_mode="amp", scaler=True')
    assert _lrd005(source) == [source.splitlines().index("        scheduler.step()") + 1]


def test_ignite_lr_scheduler_wrapper_on_every_iteration_of_an_amp_engine():
    assert len(_lrd005(_program(', amp_mode="amp", scaler=True', _WRAPPED))) == 1


def test_switch_bound_in_the_branches_of_an_if_names_the_test():
    source = _program(", amp_mode=amp, scaler=scaler", setup=_BRANCHES)
    assert _lrd005(source)
    found = [m for m in messages(source) if "GradScaler skips" in m]
    assert found and "`cfg.fp16`" in found[0]


def test_switch_passed_as_a_setting():
    source = _program(', amp_mode="amp", scaler=cfg.amp')
    found = [m for m in messages(source) if "GradScaler skips" in m]
    assert found and "`cfg.amp`" in found[0]


def test_a_grad_scaler_handed_to_the_engine():
    setup = '    grad_scaler = torch.amp.GradScaler("cuda")\n'
    assert _lrd005(_program(', amp_mode="amp", scaler=grad_scaler', setup=setup))


@pytest.mark.parametrize("amp", [
    "",  # no AMP at all
    ', scaler=True',  # a scaler without amp_mode="amp" is not used
    ', amp_mode="apex", scaler=True',
    ', amp_mode="amp"',  # autocast only: nothing skips
    ', amp_mode="amp", scaler=False',
])
def test_engines_that_never_skip_an_update(amp):
    assert not _lrd005(_program(amp))


def test_scaler_switched_off_through_a_name():
    setup = '    amp, scaler = "amp", False\n'
    assert not _lrd005(_program(", amp_mode=amp, scaler=scaler", setup=setup))


def test_scheduler_stepped_once_per_epoch():
    assert not _lrd005(_program(', amp_mode="amp", scaler=True', _PER_EPOCH))


def test_plateau_scheduler_on_an_amp_engine():
    source = _program(', amp_mode="amp", scaler=True').replace(
        """torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=1e-3, epochs=cfg.epochs, steps_per_epoch=len(loader))""",
        "torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)").replace(
        "scheduler.step()", "scheduler.step(engine.state.output)")
    assert not _lrd005(source)


def test_no_other_finding_on_the_correct_engine():
    # the same engine with the scheduler stepped per epoch: nothing else is said about the
    # scaler Ignite keeps (no scale/step/update of the user's to check)
    source = _program(', amp_mode="amp", scaler=True', _PER_EPOCH).replace(
        "OneCycleLR(\n        optimizer, max_lr=1e-3, epochs=cfg.epochs, "
        "steps_per_epoch=len(loader))", "StepLR(optimizer, step_size=10)")
    assert [code for code, _ in findings(source)] == []


_CHECKPOINTED = """
import torch
from ignite.engine import Events, create_supervised_trainer
from ignite.handlers import Checkpoint, DiskSaver


def train(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
    trainer = create_supervised_trainer(model, optimizer, torch.nn.CrossEntropyLoss(),
                                        device="cuda", amp_mode="amp", scaler={SCALER})
    state = {"model": model, "optimizer": optimizer, "scheduler": scheduler, "trainer": trainer}
    trainer.add_event_handler(Events.EPOCH_COMPLETED, Checkpoint(state, DiskSaver("ckpt")))
    if cfg.resume:
        Checkpoint.load_objects(to_load=state, checkpoint=torch.load(cfg.resume))

    @trainer.on(Events.EPOCH_COMPLETED)
    def _step(engine):
        scheduler.step()

    trainer.run(loader, max_epochs=cfg.epochs)
"""


def test_checkpoint_of_an_amp_engine_without_its_scaler():
    # as for an Engine whose process function steps a GradScaler of the user's: the scale
    # restarts at its initial value on resume
    assert [c for c, _ in findings(_CHECKPOINTED.replace("{SCALER}", "True"))] == ["LRD007"]


def test_checkpoint_of_an_engine_without_a_scaler():
    assert findings(_CHECKPOINTED.replace("{SCALER}", "False")) == []
