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

import pytest

from .helpers import check_project, codes, messages

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


# The engine scales fp16 losses itself and saves its scale with its own checkpoint; a torch
# GradScaler in the same program serves the path without DeepSpeed (used only in the `else`
# of the same flag): the engine's save owes it nothing (a whole-repository scan found this
# reported on the first merge, where the scaler came from a set-up helper in another module).
TWO_PATHS = """
import deepspeed
import torch


def setup(config, net):
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda", enabled=config.fp16)
    if hasattr(config, "deepspeed") and config.deepspeed.enable:
        model, optimizer, _, _ = deepspeed.initialize(model=net, optimizer=optimizer,
                                                      config=config.ds)
    else:
        model = net
    return model, optimizer, scaler


def train_one_epoch(model, optimizer, scaler, loader, config, epoch):
    for step, (x, y) in enumerate(loader):
        if step and step % 1000 == 0:
            if hasattr(config, "deepspeed") and config.deepspeed.enable:
                model.save_checkpoint("out", tag=f"e{epoch}", client_state={"epoch": epoch})
            else:
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "scaler": scaler.state_dict()}, "last.pt")
        if hasattr(config, "deepspeed") and config.deepspeed.enable:
            loss = model(x, y)
            model.backward(loss)
            model.step()
        else:
            with torch.autocast("cuda", dtype=torch.float16, enabled=config.fp16):
                loss = model(x, y)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()


def main(config, net, loader):
    model, optimizer, scaler = setup(config, net)
    for epoch in range(10):
        train_one_epoch(model, optimizer, scaler, loader, config, epoch)
"""


def test_engine_save_owes_nothing_to_the_scaler_of_the_path_without_deepspeed() -> None:
    assert "LRD007" not in codes(TWO_PATHS)


def test_engine_save_in_an_epoch_function_traced_on_its_own() -> None:
    # the epoch function alone (its caller in another module): the scaler is a parameter
    alone = TWO_PATHS[:TWO_PATHS.index("def setup(")] + TWO_PATHS[
        TWO_PATHS.index("def train_one_epoch("):TWO_PATHS.index("def main(")]
    assert "LRD007" not in codes(alone)


def test_control_the_plain_save_without_the_scaler_is_still_reported() -> None:
    source = TWO_PATHS.replace('\n                            "scaler": scaler.state_dict()}', "}")
    found = [m for m in messages(source) if "GradScaler" in m]
    assert len(found) == 1 and "this checkpoint stores the optimizer state" in found[0]


SETUP_MODULE = """
import deepspeed
import torch


def setup(config, net):
    if hasattr(config, "deepspeed") and config.deepspeed.enable:
        scaler = None
        model, optimizer, _, _ = deepspeed.initialize(model=net, config=config.ds)
    else:
        model = net
        optimizer = torch.optim.AdamW(net.parameters(), lr=1e-4)
        scaler = torch.amp.GradScaler("cuda", enabled=config.fp16)
    return model, optimizer, scaler
"""


def test_engine_save_with_the_scaler_built_by_a_setup_module(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = ("from utils import setup\n"
              + TWO_PATHS[TWO_PATHS.index("import deepspeed"):TWO_PATHS.index("def setup(")]
              + TWO_PATHS[TWO_PATHS.index("def train_one_epoch("):])
    found = check_project(tmp_path, monkeypatch, {"utils.py": SETUP_MODULE, "train.py": driver})
    assert [f for f in found if f[2] == "LRD007"] == []


ONE_PATH = """
import deepspeed
import torch


def train_one_epoch(model, optimizer, scaler, loader, config, epoch):
    for step, (x, y) in enumerate(loader):
        if step and step % 1000 == 0:
            model.save_checkpoint("out", tag=f"e{epoch}", client_state={"epoch": epoch})
        with torch.autocast("cuda", dtype=torch.float16, enabled=config.fp16):
            loss = model(x, y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def main(config, net, loader):
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-4)
    scaler = torch.amp.GradScaler("cuda", enabled=config.fp16)
    model, optimizer, _, _ = deepspeed.initialize(model=net, optimizer=optimizer, config=config.ds)
    for epoch in range(10):
        train_one_epoch(model, optimizer, scaler, loader, config, epoch)
"""


def test_the_engines_save_is_not_judged_by_a_torch_scaler() -> None:
    # the engine scales fp16 itself; a torch GradScaler stepping the engine's optimizer is a
    # misuse of its own, not a state the engine's checkpoint should hold (reported on the first
    # merge: the same reading gave InternVideo's two-path trainer a false LRD007)
    assert "LRD007" not in codes(ONE_PATH)
