"""An optimizer chosen by a setting, one constructor per branch (`if args.optim == "adam":
... elif args.optim == "sgd": ...`, `match`, `in (...)`): the name holds whichever the setting
picks, so each option is the optimizer the scheduler drives and the loop steps; the second
branch never "replaces" the first (no LRD014), and the schedule rules judge the scheduler as
usual whichever optimizer it drives."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

V: dict[str, tuple[list[str], str]] = {}
# ---- optimizer chosen per branch ----
_OPT = '''
import torch
from torch.optim.lr_scheduler import OneCycleLR, StepLR

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
_OPT_CHOICES = {
    "if_elif": '''    if args.optim == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    elif args.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)''',
    "if_elif_else_raise": '''    if args.optim == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    elif args.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    else:
        raise ValueError(args.optim)''',
    "if_else": '''    if args.optimizer.lower() == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    else:
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.wd)''',
    "adam_last": '''    if args.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    elif args.optim == "rmsprop":
        optimizer = torch.optim.RMSprop(model.parameters(), lr=args.lr)
    elif args.optim == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)''',
    "in_tuple": '''    if args.optim in ("adam", "adamw"):
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)''',
    "match": '''    match args.optim:
        case "adam":
            optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
        case _:
            optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)''',
}
for n, c in _OPT_CHOICES.items():
    V[f"optimizer_choice_{n}_steplr_per_epoch_correct"] = ([], _OPT.format(choice=c, sched="StepLR(optimizer, step_size=30)", batch="", epoch="        scheduler.step()"))
    V[f"optimizer_choice_{n}_onecycle_per_batch_correct"] = ([], _OPT.format(choice=c, sched="OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.epochs * len(loader))", batch="            scheduler.step()", epoch=""))
    V[f"optimizer_choice_{n}_steplr_per_batch_buggy"] = (["LRD002"], _OPT.format(choice=c, sched="StepLR(optimizer, step_size=30)", batch="            scheduler.step()", epoch=""))
    V[f"optimizer_choice_{n}_onecycle_per_epoch_buggy"] = (["LRD003"], _OPT.format(choice=c, sched="OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.epochs * len(loader))", batch="", epoch="        scheduler.step()"))
    V[f"optimizer_choice_{n}_scheduler_first_buggy"] = (["LRD001"], _OPT.format(choice=c, sched="StepLR(optimizer, step_size=30)", batch="", epoch="").replace("        for x, y in loader:", "        scheduler.step()\n        for x, y in loader:"))
    V[f"optimizer_choice_{n}_checkpoint_complete_correct"] = ([], _OPT.format(choice=c, sched="StepLR(optimizer, step_size=30)", batch="", epoch='''        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(), "epoch": epoch}, "ckpt.pt")'''))
    V[f"optimizer_choice_{n}_checkpoint_without_scheduler_buggy"] = (["LRD007"], _OPT.format(choice=c, sched="StepLR(optimizer, step_size=30)", batch="", epoch='''        scheduler.step()
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}, "ckpt.pt")'''))
# fp16 with an optimizer chosen per branch: eps in one branch only
V["optimizer_choice_fp16_adam_branch_default_eps_buggy"] = (["LRD102"], '''
import torch

def train(model, loader, args):
    model = model.half()
    if args.optim == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    elif args.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        optimizer.step()
''')
V["optimizer_choice_fp16_adam_branch_safe_eps_correct"] = ([], '''
import torch

def train(model, loader, args):
    model = model.half()
    if args.optim == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, eps=1e-4)
    elif args.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x.half()), y.half()).backward()
        optimizer.step()
''')
# a scheduler per optimizer option: both drive the chosen optimizer
V["optimizer_choice_with_sgd_only_scheduler_correct"] = ([], '''
import torch

def train(model, loader, args):
    scheduler = None
    if args.optim == "sgd":
        optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    elif args.optim == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
        if scheduler is not None:
            scheduler.step()
''')



@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_correct")))
def test_correct_code_with_an_optimizer_choice_is_silent(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_buggy")))
def test_bug_with_an_optimizer_choice_is_reported(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected
