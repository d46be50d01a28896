"""DeepSpeed's ``engine.save_checkpoint()`` and a scheduler the engine does not hold
(rcnew51, batch fresh-2026-12ye).

Programs written for these tests; no third-party code.

DeepSpeed steps a scheduler handed to ``deepspeed.initialize(lr_scheduler=...)`` after every
update; its documentation says to keep a scheduler meant to step at another interval (once
per epoch) out of ``initialize`` and to manage it yourself. ``engine.save_checkpoint(dir,
tag, client_state={...})`` then writes the engine's model, optimizer and own scheduler, plus
``client_state``, and nothing else: an epoch scheduler stepped by hand is lost on resume
unless ``client_state`` carries its state. The save was not read as a checkpoint at all.
"""

from __future__ import annotations

from .helpers import codes, messages

EPOCH_SCHEDULER = """
import deepspeed
import torch


def main(args, model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    engine, optimizer, _, _ = deepspeed.initialize(args=args, model=model, optimizer=optimizer)
    start = 0
    if args.resume:
        _, client = engine.load_checkpoint(args.ckpt_dir)
        start = client["epoch"] + 1
    for epoch in range(start, epochs):
        for batch in loader:
            loss = engine(batch)
            engine.backward(loss)
            engine.step()
        scheduler.step()
        {save}
"""


def epoch_scheduler(save: str) -> str:
    return EPOCH_SCHEDULER.format(save=save)


def test_client_state_without_the_scheduler() -> None:
    assert codes(epoch_scheduler(
        'engine.save_checkpoint(args.ckpt_dir, client_state={"epoch": epoch})')) == ["LRD007"]


def test_no_client_state() -> None:
    assert codes(epoch_scheduler("engine.save_checkpoint(args.ckpt_dir)")) == ["LRD007"]


def test_client_state_by_position() -> None:
    assert codes(epoch_scheduler(
        'engine.save_checkpoint(args.ckpt_dir, None, {"epoch": epoch})')) == ["LRD007"]


def test_client_state_with_the_scheduler_state_is_silent() -> None:
    assert codes(epoch_scheduler(
        'engine.save_checkpoint(args.ckpt_dir, client_state={"epoch": epoch, '
        '"scheduler": scheduler.state_dict()})')) == []


def test_client_state_the_file_does_not_show_is_silent() -> None:
    assert codes(epoch_scheduler(
        "engine.save_checkpoint(args.ckpt_dir, client_state=make_state(epoch))")) == []


def test_the_message_says_what_the_engine_writes() -> None:
    [message] = messages(epoch_scheduler("engine.save_checkpoint(args.ckpt_dir)"))
    assert "`engine.save_checkpoint()`" in message
    assert "CosineAnnealingLR" in message and "client_state" in message


TRAINER = """
import deepspeed
import torch
from transformers import get_linear_schedule_with_warmup


class Trainer:
    def __init__(self, args, model, loader):
        self.args = args
        self.loader = loader
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
        total = len(loader) * args.epochs
        self.scheduler = get_linear_schedule_with_warmup(optimizer, 100, total)
        self.engine, self.optimizer, _, {returned} = deepspeed.initialize(
            args=args, model=model, optimizer=optimizer{handed})

    def train(self):
        for epoch in range(self.args.epochs):
            for batch in self.loader:
                loss = self.engine(batch)
                self.engine.backward(loss)
                self.engine.step()
{by_hand}            self.engine.save_checkpoint(self.args.out, tag=f"epoch{{epoch}}")
"""

BY_HAND = "                self.scheduler.step()\n"


def test_a_trainer_class_stepping_its_scheduler_by_hand() -> None:
    assert codes(TRAINER.format(returned="_", handed="", by_hand=BY_HAND)) == ["LRD007"]


def test_a_trainer_class_handing_its_scheduler_to_the_engine_is_silent() -> None:
    # the engine steps it after every update and saves it with its own state
    source = TRAINER.format(returned="self.scheduler", handed=", lr_scheduler=self.scheduler",
                            by_hand="")
    assert codes(source) == []


def test_no_scheduler_is_silent() -> None:
    source = epoch_scheduler("engine.save_checkpoint(args.ckpt_dir)").replace(
        "        scheduler.step()\n", "").replace(
        "    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)\n",
        "")
    assert codes(source) == []
