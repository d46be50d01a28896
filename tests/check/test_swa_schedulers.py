"""SWALR beside the schedule it takes over from (LRD012): once SWA starts, SWALR holds the LR at
``swa_lr``; another scheduler of the same optimizer still stepped on every pass moves it away,
so the SWA epochs train with neither schedule. PyTorch's recipe steps one or the other."""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source

HEAD = """
import torch
from torch.optim.swa_utils import SWALR, AveragedModel

net = torch.nn.Linear(4, 1)
batches = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
averaged = AveragedModel(net)
decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=100)
hold = SWALR(opt, swa_lr=0.05)
start = 75
"""


def _found(loop: str) -> list[tuple[str, int]]:
    source = textwrap.dedent(HEAD) + textwrap.dedent(loop)
    return [(d.code, d.line) for d in check_source(source, "train.py").diagnostics]


def test_the_decay_still_stepped_after_swa_starts_is_reported() -> None:
    found = _found("""
        for epoch in range(100):
            for x in batches:
                net(x.float().unsqueeze(1)).sum().backward()
                opt.step()
                opt.zero_grad()
            if epoch > start:
                averaged.update_parameters(net)
                hold.step()
            decay.step()
    """)
    assert found == [("LRD012", 21)]


def test_a_per_batch_decay_beside_the_epoch_swalr_is_reported() -> None:
    found = _found("""
        for epoch in range(100):
            for x in batches:
                net(x.float().unsqueeze(1)).sum().backward()
                opt.step()
                opt.zero_grad()
                decay.step()
            if epoch > start:
                averaged.update_parameters(net)
                hold.step()
    """)
    # (the cosine's T_max=100 also counts epochs: LRD002 says that part)
    assert sorted(code for code, _ in found) == ["LRD002", "LRD012"]


def test_the_recipe_steps_one_or_the_other() -> None:
    assert _found("""
        for epoch in range(100):
            for x in batches:
                net(x.float().unsqueeze(1)).sum().backward()
                opt.step()
                opt.zero_grad()
            if epoch > start:
                averaged.update_parameters(net)
                hold.step()
            else:
                decay.step()
    """) == []


def test_two_opposite_tests_hand_over_as_well() -> None:
    assert _found("""
        for epoch in range(100):
            for x in batches:
                net(x.float().unsqueeze(1)).sum().backward()
                opt.step()
                opt.zero_grad()
            if epoch >= start:
                averaged.update_parameters(net)
                hold.step()
            if epoch < start:
                decay.step()
    """) == []


def test_a_decay_under_its_own_epoch_test_is_left_alone() -> None:
    # not provably exclusive with SWALR's test, but written to stop somewhere: not reported
    assert _found("""
        for epoch in range(100):
            for x in batches:
                net(x.float().unsqueeze(1)).sum().backward()
                opt.step()
                opt.zero_grad()
            if epoch > start:
                averaged.update_parameters(net)
                hold.step()
            if epoch < start - 5:
                decay.step()
    """) == []
