"""A finding on one option of a scheduler choice says which setting picks it ("When
`args.sched == 'cosine'`, ..."), as LRD005 says "when `args.amp` is on": the bug happens only
for that setting, and the user must know which run is affected."""

from __future__ import annotations

import textwrap

import pytest

from lrdoctor.check.engine import check_source

SCRIPT = """
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR, StepLR

def train(model, loader, args, cfg):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
{choice}
    for epoch in range(args.epochs):
        for x in loader:
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
{batch}
{epoch}
"""

ONECYCLE = "OneCycleLR(optimizer, max_lr=0.1, total_steps=args.epochs * len(loader))"

# (how the choice is written, where the scheduler is stepped, the code, the setting quoted)
CASES = {
    "elif_cosine_per_batch": ("""\
    if args.sched == "onecycle":
        scheduler = {onecycle}
    elif args.sched == "cosine":
        scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs)""", "batch", "LRD002",
                              "args.sched == 'cosine'"),
    "if_onecycle_per_epoch": ("""\
    if args.sched == "onecycle":
        scheduler = {onecycle}
    else:
        scheduler = StepLR(optimizer, step_size=30)""", "epoch", "LRD003",
                              "args.sched == 'onecycle'"),
    "else_option_per_batch": ("""\
    if args.sched == "onecycle":
        scheduler = {onecycle}
    else:
        scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs)""", "batch", "LRD002",
                              "args.sched != 'onecycle'"),
    "config_key_per_epoch": ("""\
    if cfg["scheduler"] == "cosine":
        scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs)
    elif cfg["scheduler"] == "onecycle":
        scheduler = {onecycle}""", "epoch", "LRD003", "cfg['scheduler'] == 'onecycle'"),
    "boolean_flag_per_epoch": ("""\
    if args.use_onecycle:
        scheduler = {onecycle}
    else:
        scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs)""", "epoch", "LRD003",
                               "args.use_onecycle"),
}


def _messages(choice: str, where: str) -> list[tuple[str, str]]:
    src = SCRIPT.format(
        choice=choice.format(onecycle=ONECYCLE),
        batch="            scheduler.step()" if where == "batch" else "",
        epoch="        scheduler.step()" if where == "epoch" else "",
    )
    result = check_source(textwrap.dedent(src), "train.py")
    return [(d.code, d.message) for d in result.diagnostics]


@pytest.mark.parametrize("case", sorted(CASES))
def test_finding_on_one_option_names_the_setting_that_picks_it(case: str) -> None:
    choice, where, code, setting = CASES[case]
    found = _messages(choice, where)
    assert [c for c, _ in found] == [code]
    assert found[0][1].startswith(f"When `{setting}`, ")


def test_finding_on_a_scheduler_nobody_chooses_names_no_setting() -> None:
    found = _messages("    scheduler = CosineAnnealingLR(optimizer, T_max=args.epochs)", "batch")
    assert [c for c, _ in found] == ["LRD002"]
    assert found[0][1].startswith("CosineAnnealingLR(T_max=args.epochs)")
