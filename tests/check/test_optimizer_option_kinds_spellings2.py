"""An optimizer chosen by a setting between a torch optimizer and one lrdoctor cannot read
(the project's own class, an unknown library's): either way the scheduler drives it and the
loop steps it, so the schedule rules judge the scheduler as usual. A warm-up wrapper around a
scheduler chosen among several (`after_scheduler=scheduler`) owns whichever was chosen."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

V: dict[str, tuple[list[str], str]] = {}
_O = '''
import torch
from torch.optim.lr_scheduler import OneCycleLR, StepLR
from my_project.optim import Lamb

class RMSpropTF(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01):
        super().__init__(params, dict(lr=lr))

    def step(self, closure=None):
        return None

def train(model, loader, args):
{choice}
    scheduler = {sched}
    for epoch in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
{batch}
{epoch}
'''
CH = {
    "torch_or_project_class": '''    if args.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    elif args.optim == "rmsprop":
        optimizer = RMSpropTF(model.parameters(), lr=args.lr)
    else:
        raise ValueError(args.optim)''',
    "torch_or_unknown_library": '''    if args.optim == "adamw":
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    else:
        optimizer = Lamb(model.parameters(), lr=args.lr)''',
    "unknown_library_first": '''    if args.optim == "lamb":
        optimizer = Lamb(model.parameters(), lr=args.lr)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)''',
}
OC = "OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.epochs * len(loader))"
for n, c in CH.items():
    V[f"{n}_onecycle_per_batch_correct"] = ([], _O.format(choice=c, sched=OC, batch="            scheduler.step()", epoch=""))
    V[f"{n}_onecycle_per_epoch_buggy"] = (["LRD003"], _O.format(choice=c, sched=OC, batch="", epoch="        scheduler.step()"))
    V[f"{n}_steplr_per_epoch_correct"] = ([], _O.format(choice=c, sched="StepLR(optimizer, 30)", batch="", epoch="        scheduler.step()"))
    V[f"{n}_steplr_per_batch_buggy"] = (["LRD002"], _O.format(choice=c, sched="StepLR(optimizer, 30)", batch="            scheduler.step()", epoch=""))
    V[f"{n}_checkpoint_without_scheduler_buggy"] = (["LRD007"], _O.format(choice=c, sched="StepLR(optimizer, 30)", batch="", epoch='''        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()}, "last.pt")'''))

# the pip package's GradualWarmupScheduler hands step(epoch) to torch's deprecated
# step(epoch) (fixes13), as torch's CosineAnnealingLR stepped the same way would be: LRD006,
# a warning, and nothing on the chosen schedulers it owns
V["warmup_wrapper_around_a_chosen_scheduler_stepped_by_position"] = (["LRD006"], '''
import torch
from warmup_scheduler import GradualWarmupScheduler

def train(model, loader, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if cfg["sched"] == "cosine":
        scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
    elif cfg["sched"] == "step":
        scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
    if cfg["warmup"] > 0:
        scheduler = GradualWarmupScheduler(optimizer, multiplier=2, total_epoch=cfg["warmup"], after_scheduler=scheduler)
    for epoch in range(1, cfg["epochs"] + 1):
        steps, total = 0, len(loader)
        for x, y in loader:
            steps += 1
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step(epoch - 1 + steps / total)
        torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, "ckpt.pth")
''')
_H = '''
import torch

class RMSpropTF(torch.optim.Optimizer):
    def __init__(self, params, lr=0.01):
        super().__init__(params, dict(lr=lr))

def run_epoch(model, loader, optimizer, epoch, scheduler=None):
    total, steps = len(loader), 0
    for x, y in loader:
        steps += 1
        loss = torch.nn.functional.cross_entropy(model(x), y)
        if optimizer:
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        if scheduler is not None:
            scheduler.step({pos})

def train(model, loader, cfg):
    if cfg["optimizer"] == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    elif cfg["optimizer"] == "rmsprop":
        optimizer = RMSpropTF(model.parameters(), lr=0.1)
    else:
        raise ValueError(cfg["optimizer"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
    for epoch in range(1, cfg["epochs"] + 1):
        run_epoch(model, loader, optimizer, epoch, scheduler=scheduler)
        torch.save({{"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}}, "ckpt.pth")
'''
V["optimizer_choice_with_project_class_helper_steps_by_position_correct"] = (["LRD006"], _H.format(pos="epoch - 1 + steps / total"))
V["optimizer_choice_with_project_class_helper_steps_plainly_buggy"] = (["LRD002", "LRD007"], _H.format(pos=""))


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_correct")))
def test_correct_code_with_an_unreadable_optimizer_option(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_buggy")))
def test_bug_with_an_unreadable_optimizer_option_is_reported(situation: str) -> None:
    expected, source = V[situation]
    assert sorted(codes(source)) == expected
