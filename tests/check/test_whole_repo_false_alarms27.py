"""False alarms of fphunt41's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. One accumulator for both passes of an epoch: ``total_loss`` summed over the training
   batches, started over (``total_loss = 0``) in a statement every path to the plateau's step
   runs, then summed over the validation batches, and the step given ``total_loss / n``. What
   the step reads is the validation total (LRD004 said it was the training loss, judging the
   name by everything the function ever added to it). A sum handed on divided by a count is
   judged by the sum. Still reported: no start-over between the passes, a start-over only on
   one branch (``if epoch % 5 == 0:``) that the step does not sit in, and a start-over followed by
   training batches.
2. (wording) LRD008 named a scheduler that a factory returns straight from one of its
   constructors (``return CosineAnnealingLR(...)`` on one branch, ``return MultiStepLR(...)``
   on another) with empty quotes; it now names the class alone, and a scheduler bound to a
   name as before.

Each has a control that must still be reported.
"""

from __future__ import annotations

from .helpers import codes, messages

# -- 1. an accumulator started over between the training and the validation pass --------------

SHARED_TOTAL = """
import torch
import torch.nn.functional as F


def fit(model, train_batches, val_batches, epochs):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=3)
    best_val_loss = float("inf")
    for epoch in range(epochs):
        total_loss = 0
        for x, y in train_batches:
            opt.zero_grad()
            loss = F.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            total_loss += loss.item()
        print("train", total_loss / len(train_batches))
        total_loss = 0
        with torch.no_grad():
            for i, (x, y) in enumerate(val_batches):
                total_loss += F.mse_loss(model(x), y).item()
        if plateau is not None:
            plateau.step(total_loss / (i + 1))
        if total_loss < best_val_loss:
            best_val_loss = total_loss
"""


def test_accumulator_started_over_before_the_validation_pass_is_silent() -> None:
    assert "LRD004" not in codes(SHARED_TOTAL)


def test_accumulator_started_over_held_in_a_plain_name_is_silent() -> None:
    plain = SHARED_TOTAL.replace(
        "plateau.step(total_loss / (i + 1))", "plateau.step(total_loss)")
    assert "LRD004" not in codes(plain)


def test_training_total_without_a_start_over_is_still_reported() -> None:
    kept = SHARED_TOTAL.replace("        total_loss = 0\n        with", "        with").replace(
        "total_loss += F.mse_loss(model(x), y).item()",
        "best_val_loss = min(best_val_loss, F.mse_loss(model(x), y).item())")
    assert "LRD004" in codes(kept)


def test_start_over_on_a_branch_the_step_is_not_in_is_still_reported() -> None:
    branch = SHARED_TOTAL.replace(
        "        total_loss = 0\n        with torch.no_grad():\n"
        "            for i, (x, y) in enumerate(val_batches):\n"
        "                total_loss += F.mse_loss(model(x), y).item()\n",
        "        if epoch % 5 == 0:\n"
        "            total_loss = 0\n"
        "            with torch.no_grad():\n"
        "                for i, (x, y) in enumerate(val_batches):\n"
        "                    total_loss += F.mse_loss(model(x), y).item()\n")
    assert "LRD004" in codes(branch)


def test_start_over_followed_by_training_batches_is_still_reported() -> None:
    again = SHARED_TOTAL.replace(
        "        with torch.no_grad():\n",
        "        for x, y in train_batches:\n"
        "            total_loss += F.mse_loss(model(x), y).item()\n"
        "        with torch.no_grad():\n")
    assert "LRD004" in codes(again)


# -- 2. (wording) a scheduler a factory returns unnamed ------------------------------------------

FACTORY_SCHEDULE = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, MultiStepLR


def make_schedule(opt, settings):
    if settings.policy == "cosine":
        return CosineAnnealingLR(opt, T_max=settings.epochs)
    if settings.policy == "drops":
        return MultiStepLR(opt, milestones=settings.drops, gamma=0.1)
    return None


if __name__ == "__main__":
    settings = read_settings()
    model = build_model(settings)
    opt = torch.optim.SGD(model.parameters(), lr=settings.lr)
    schedule = make_schedule(opt, settings)
    for epoch in range(settings.epochs):
        for x, y in loader_of(settings):
            for group in opt.param_groups:
                group["lr"] = settings.lr * settings.factor
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()
        schedule.step()
"""


def test_scheduler_returned_by_a_factory_is_named_by_its_class() -> None:
    said = [m for m in messages(FACTORY_SCHEDULE) if "drives the same optimizer" in m]
    assert said and "``" not in said[0] and "CosineAnnealingLR (line" in said[0]


def test_scheduler_bound_to_a_name_is_still_named() -> None:
    bound = FACTORY_SCHEDULE.replace(
        "    schedule = make_schedule(opt, settings)\n",
        "    schedule = MultiStepLR(opt, milestones=settings.drops, gamma=0.1)\n")
    said = [m for m in messages(bound) if "drives the same optimizer" in m]
    assert said and "MultiStepLR `schedule`" in said[0]
