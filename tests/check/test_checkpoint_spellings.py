"""LRD007 on the many ways real code builds, saves and restores a checkpoint: a literal dict, a
dict filled key by key, `dict(...)`, `.update(...)`, a `save_checkpoint(state, ...)` helper, a
helper handed the objects, a trainer's `save()` method; resumes through `load_state_dict` or a
`load_checkpoint(path, model, optimizer)` helper. Whatever the spelling, a resumable checkpoint
without the stepped scheduler is reported, and one with it is not."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import shutil
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def save_checkpoint(state, is_best, filename="checkpoint.pth.tar"):
    torch.save(state, filename)
    if is_best:
        shutil.copyfile(filename, "model_best.pth.tar")

def save_training_state(path, model, optimizer, epoch, scheduler=None):
    state = {{"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}}
    if scheduler is not None:
        state["scheduler"] = scheduler.state_dict()
    torch.save(state, path)

def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        scheduler.step()
{save}
"""

# (save without the scheduler, save with it)
_SAVES = {
    "literal_dict": (
        '        torch.save({"epoch": epoch, "model": model.state_dict(),\n'
        '                    "optimizer": optimizer.state_dict()}, "last.pt")',
        '        torch.save({"epoch": epoch, "model": model.state_dict(),\n'
        '                    "optimizer": optimizer.state_dict(),\n'
        '                    "scheduler": scheduler.state_dict()}, "last.pt")'),
    "filled_key_by_key": (
        "        ckpt = {}\n"
        '        ckpt["model"] = model.state_dict()\n'
        '        ckpt["optimizer"] = optimizer.state_dict()\n'
        '        torch.save(ckpt, "last.pt")',
        "        ckpt = {}\n"
        '        ckpt["model"] = model.state_dict()\n'
        '        ckpt["optimizer"] = optimizer.state_dict()\n'
        '        ckpt["lr_scheduler"] = scheduler.state_dict()\n'
        '        torch.save(ckpt, "last.pt")'),
    "dict_call": (
        "        torch.save(dict(epoch=epoch, model=model.state_dict(),\n"
        '                        optim_state=optimizer.state_dict()), "last.pt")',
        "        torch.save(dict(epoch=epoch, model=model.state_dict(),\n"
        "                        optim_state=optimizer.state_dict(),\n"
        '                        sched_state=scheduler.state_dict()), "last.pt")'),
    "dict_updated": (
        '        state = {"epoch": epoch, "model": model.state_dict()}\n'
        '        state.update({"optimizer": optimizer.state_dict()})\n'
        '        torch.save(state, "last.pt")',
        '        state = {"epoch": epoch, "model": model.state_dict()}\n'
        '        state.update({"optimizer": optimizer.state_dict(),\n'
        '                      "scheduler": scheduler.state_dict()})\n'
        '        torch.save(state, "last.pt")'),
    "save_checkpoint_helper_given_the_state": (
        '        save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict(),\n'
        '                         "optimizer": optimizer.state_dict()}, False)',
        '        save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict(),\n'
        '                         "optimizer": optimizer.state_dict(),\n'
        '                         "scheduler": scheduler.state_dict()}, False)'),
    "helper_given_the_objects": (
        '        save_training_state("last.pt", model, optimizer, epoch)',
        '        save_training_state("last.pt", model, optimizer, epoch, scheduler=scheduler)'),
    "state_named_then_saved_under_a_rank_guard": (
        '        checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),\n'
        '                      "epoch": epoch}\n'
        "        if torch.distributed.get_rank() == 0:\n"
        '            torch.save(checkpoint, f"checkpoint_{epoch}.pth")',
        '        checkpoint = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),\n'
        '                      "lr_scheduler": scheduler.state_dict(), "epoch": epoch}\n'
        "        if torch.distributed.get_rank() == 0:\n"
        '            torch.save(checkpoint, f"checkpoint_{epoch}.pth")'),
}


@pytest.mark.parametrize("save", sorted(_SAVES))
def test_checkpoint_without_the_scheduler_is_lrd007(save: str) -> None:
    assert codes(_SCRIPT.format(save=_SAVES[save][0])) == ["LRD007"]


@pytest.mark.parametrize("save", sorted(_SAVES))
def test_checkpoint_with_the_scheduler_is_correct(save: str) -> None:
    assert codes(_SCRIPT.format(save=_SAVES[save][1])) == []


_TRAINER = """
import torch

class Trainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.scheduler = torch.optim.lr_scheduler.StepLR(self.optimizer, step_size=30)
        self.start_epoch = 0

    def save(self, path, epoch):
        torch.save({{"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(){extra_save}}}, path)

    def resume(self, path):
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
{extra_load}        self.start_epoch = ckpt["epoch"] + 1

    def fit(self, resume_from=None):
        if resume_from:
            self.resume(resume_from)
        for epoch in range(self.start_epoch, self.epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            self.scheduler.step()
            self.save("last.pt", epoch)
"""


def test_trainer_save_and_resume_without_the_scheduler_is_lrd007_twice() -> None:
    assert codes(_TRAINER.format(extra_save="", extra_load="")) == ["LRD007", "LRD007"]


def test_trainer_save_and_resume_with_the_scheduler_is_correct() -> None:
    src = _TRAINER.format(
        extra_save=',\n                    "scheduler": self.scheduler.state_dict()',
        extra_load='        self.scheduler.load_state_dict(ckpt["scheduler"])\n',
    )
    assert codes(src) == []


_RESUME = """
import torch

def load_checkpoint(path, model, optimizer=None, scheduler=None):
    checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    model.load_state_dict(checkpoint["model"])
    if optimizer is not None and "optimizer" in checkpoint:
        optimizer.load_state_dict(checkpoint["optimizer"])
    if scheduler is not None:
        scheduler.load_state_dict(checkpoint["scheduler"])
    return checkpoint.get("epoch", 0)

def main(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
    start_epoch = 0
    if args.resume:
{resume}
    for epoch in range(start_epoch, 90):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
        scheduler.step()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch + 1}}, "last.pt")
"""

# (resume without the scheduler, resume with it)
_RESUMES = {
    "load_state_dict_calls": (
        '        checkpoint = torch.load(args.resume, map_location="cpu")\n'
        '        model.load_state_dict(checkpoint["model"])\n'
        '        optimizer.load_state_dict(checkpoint["optimizer"])\n'
        '        start_epoch = checkpoint["epoch"]',
        '        checkpoint = torch.load(args.resume, map_location="cpu")\n'
        '        model.load_state_dict(checkpoint["model"])\n'
        '        optimizer.load_state_dict(checkpoint["optimizer"])\n'
        '        scheduler.load_state_dict(checkpoint["scheduler"])\n'
        '        start_epoch = checkpoint["epoch"]'),
    "helper_given_positional_objects": (
        "        start_epoch = load_checkpoint(args.resume, model, optimizer)",
        "        start_epoch = load_checkpoint(args.resume, model, optimizer, scheduler)"),
    "helper_given_keyword_objects": (
        "        start_epoch = load_checkpoint(args.resume, model, optimizer=optimizer)",
        "        start_epoch = load_checkpoint(args.resume, model, optimizer=optimizer,\n"
        "                                      scheduler=scheduler)"),
}


@pytest.mark.parametrize("resume", sorted(_RESUMES))
def test_resume_without_the_scheduler_is_lrd007(resume: str) -> None:
    assert codes(_RESUME.format(resume=_RESUMES[resume][0])) == ["LRD007"]


@pytest.mark.parametrize("resume", sorted(_RESUMES))
def test_resume_with_the_scheduler_is_correct(resume: str) -> None:
    assert codes(_RESUME.format(resume=_RESUMES[resume][1])) == []


_OWN_STATE_DICT = """
import torch

class Trainer:
    def __init__(self, model, loader, epochs):
        self.model, self.loader, self.epochs = model, loader, epochs
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer,
                                                                       T_max=epochs)

    def state_dict(self):
        return {{"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(){extra}}}

    def fit(self):
        for epoch in range(self.epochs):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            self.lr_scheduler.step()
            torch.save(self.state_dict(), f"epoch_{{epoch}}.pt")
"""


def test_trainer_state_dict_method_without_the_scheduler_is_lrd007() -> None:
    assert codes(_OWN_STATE_DICT.format(extra="")) == ["LRD007"]


def test_trainer_state_dict_method_with_the_scheduler_is_correct() -> None:
    src = _OWN_STATE_DICT.format(
        extra=',\n                "lr_scheduler": self.lr_scheduler.state_dict()')
    assert codes(src) == []


def test_scheduler_entry_written_only_when_there_is_one_is_correct() -> None:
    src = _SCRIPT.format(save=(
        '        ckpt = {"model": model.state_dict(), "optimizer": optimizer.state_dict()}\n'
        '        ckpt["scheduler"] = scheduler.state_dict() if scheduler is not None else None\n'
        '        torch.save(ckpt, "last.pt")'))
    assert codes(src) == []


_AMP_RESUME = """
import torch

def main(model, loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    start = 0
    if args.resume:
        ckpt = torch.load(args.resume, map_location="cpu", weights_only=True)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
{restore}        start = ckpt["epoch"] + 1
    for epoch in range(start, args.epochs):
        for x in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=args.amp):
                loss = model(x).sum()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "scaler": scaler.state_dict(), "epoch": epoch}}, "last.pt")
"""

_SCALER_RESTORES = {
    "unconditional": '        scaler.load_state_dict(ckpt["scaler"])\n',
    "when_saved": ('        if "scaler" in ckpt:\n'
                   '            scaler.load_state_dict(ckpt["scaler"])\n'),
    "when_amp_is_on": ('        if args.amp:\n'
                       '            scaler.load_state_dict(ckpt["scaler"])\n'),
}


@pytest.mark.parametrize("restore", sorted(_SCALER_RESTORES))
def test_resume_restoring_the_switched_scaler_is_correct(restore: str) -> None:
    assert codes(_AMP_RESUME.format(restore=_SCALER_RESTORES[restore])) == []


def test_resume_forgetting_the_switched_scaler_is_lrd007() -> None:
    assert codes(_AMP_RESUME.format(restore="")) == ["LRD007"]
