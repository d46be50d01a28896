"""A shape met in the fresh-2026-12ze batch of real code (issue 7), written in our own words.

Point-cloud trainers of one lineage step an epoch scheduler after the batch loop and then hold
the LR above a floor: they read the LR the scheduler just set and write back the larger of it
and a small constant (``lr = max(opt.param_groups[0]['lr'], 1e-6); for g in
opt.param_groups: g['lr'] = lr``). The checker reported LRD008 (a manual LR write fighting a
chainable scheduler: "neither the manual LR nor the schedule is what trains").

A clamp of the scheduled value composes with the schedule instead of fighting it. While the
schedule is above the floor the write stores the value already in force; once it falls below,
the floor is what trains, and a chainable scheduler's next step starts from the floor and is
clamped back to it. What trains is ``max(schedule, floor)``, which is what the code asks for.
So a write of ``max``/``min`` of the group's own current LR (read from a param group, directly
or through a name bound in the same function) and values that do not read the LR is not
reported.

Controls that keep LRD008: a manual decay with a floor (``max(g['lr'] * 0.5, 1e-6)``: the
write changes the LR every time, and the chainable scheduler folds it in), a ``max`` of a
constant alone against the scheduler (``max(args.lr, 1e-6)``: a reset, not a clamp), and a
plain manual value.
"""

from __future__ import annotations

from tests.check.helpers import codes

_FLOOR = """
import torch
from torch.optim.lr_scheduler import StepLR


def train(model, loader, epochs):
    optim = torch.optim.Adam(model.parameters(), lr=1e-3)
    sched = StepLR(optim, 20, 0.5)
    for epoch in range(epochs):
        for x, y in loader:
            optim.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optim.step()
        sched.step()
{WRITE}
"""


def _floor(write: str) -> str:
    return _FLOOR.replace("{WRITE}", write)


def test_floor_through_a_name_read_from_the_first_group_is_silent() -> None:
    write = (
        "        lr = max(optim.param_groups[0]['lr'], 1e-6)\n"
        "        for group in optim.param_groups:\n"
        "            group['lr'] = lr\n"
    )
    assert codes(_floor(write)) == []


def test_floor_of_each_group_in_place_is_silent() -> None:
    write = (
        "        for group in optim.param_groups:\n"
        "            group['lr'] = max(group['lr'], 1e-6)\n"
    )
    assert codes(_floor(write)) == []


def test_ceiling_with_min_and_a_setting_is_silent() -> None:
    src = _floor(
        "        for g in optim.param_groups:\n"
        "            g[\"lr\"] = min(max_lr, g[\"lr\"])\n"
    ).replace("def train(model, loader, epochs):", "def train(model, loader, epochs, max_lr=1e-2):")
    assert codes(src) == []


def test_manual_decay_with_a_floor_is_still_reported() -> None:
    write = (
        "        for group in optim.param_groups:\n"
        "            group['lr'] = max(group['lr'] * 0.5, 1e-6)\n"
    )
    assert codes(_floor(write)) == ["LRD008"]


def test_max_of_settings_alone_is_a_reset_and_still_reported() -> None:
    write = (
        "        for group in optim.param_groups:\n"
        "            group['lr'] = max(1e-3, 1e-6)\n"
    )
    assert codes(_floor(write)) == ["LRD008"]


def test_a_plain_manual_value_is_still_reported() -> None:
    write = (
        "        if epoch == 10:\n"
        "            for group in optim.param_groups:\n"
        "                group['lr'] = 1e-4\n"
    )
    assert codes(_floor(write)) == ["LRD008"]
