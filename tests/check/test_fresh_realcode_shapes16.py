"""Shapes met in the fresh-2026-12s batch of real code (issue 7), written in our own words.

A text classifier sizes its warm-up schedule as ``len(train_loader) // batch_size *
epochs``. ``len(train_loader)`` already counts batches (the loader was built with that very
batch size), so dividing by the batch size again makes the horizon about batch_size times too
short: the scheduler, stepped after every update, reaches the end of its schedule early and is
then stepped past it (LRD010, schedule-overrun). The same count written from the dataset
(``len(train_set) // batch_size``, ``len(loader.dataset) // batch_size``) is right and stays
silent, as do a division by the accumulation steps and a division by some other number that
merely equals the batch size by value.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

_SCRIPT = """
import argparse

import torch
from torch.utils.data import DataLoader
from transformers import get_scheduler


def main(args, train_set, model):
    train_loader = DataLoader(train_set, shuffle=True, batch_size=args.batch_size)
    total = {TOTAL}
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = get_scheduler("linear", optimizer=optimizer,
                              num_warmup_steps=int(0.1 * total), num_training_steps=total)
    for epoch in range(args.epochs):
        for step, batch in enumerate(train_loader):
            loss = model(**batch).loss / args.accum
            loss.backward()
            if (step + 1) % args.accum == 0:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--accum", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=2e-5)
"""


def _script(total: str) -> str:
    return _SCRIPT.replace("{TOTAL}", total)


def test_loader_length_divided_by_its_batch_size_again_is_lrd010() -> None:
    source = _script("(len(train_loader) // args.batch_size) // args.accum * args.epochs")
    found = findings(source)
    assert ("LRD010", 11) in found
    message = next(m for m in messages(source) if "already a number of batches" in m)
    assert "`args.batch_size`" in message and "len(train_loader)" in message


def test_same_division_through_a_name_and_a_true_division_is_lrd010() -> None:
    source = _script("int(steps_per_epoch * args.epochs)")
    source = source.replace(
        "    total = ",
        "    steps_per_epoch = math.ceil(len(train_loader) / args.batch_size)\n    total = ",
    ).replace("import argparse", "import argparse\nimport math")
    assert "LRD010" in codes(source)


def test_torch_onecycle_sized_the_same_way_is_lrd010() -> None:
    source = """
    import torch
    from torch.utils.data import DataLoader

    def train(model, data, bs, epochs):
        loader = DataLoader(data, batch_size=bs, shuffle=True)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=0.1, epochs=epochs, steps_per_epoch=len(loader) // bs)
        for epoch in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                torch.nn.functional.mse_loss(model(x), y).backward()
                opt.step()
                sched.step()
    """
    assert "LRD010" in codes(source)


def test_control_loader_length_alone_is_silent() -> None:
    assert "LRD010" not in codes(_script("len(train_loader) // args.accum * args.epochs"))


def test_control_dataset_length_divided_by_batch_size_is_silent() -> None:
    assert "LRD010" not in codes(_script("len(train_set) // args.batch_size * args.epochs"))
    assert "LRD010" not in codes(
        _script("len(train_loader.dataset) // args.batch_size * args.epochs"))


def test_control_division_by_another_number_is_silent() -> None:
    # the loader's batch size is a setting; a literal 8 equal to its default is not that value
    assert "LRD010" not in codes(_script("len(train_loader) // 8 * args.epochs"))


def test_control_scheduler_stepped_per_epoch_is_not_lrd010() -> None:
    source = _script("(len(train_loader) // args.batch_size) * args.epochs").replace(
        "                scheduler.step()\n", "").replace(
        "                optimizer.zero_grad()\n",
        "                optimizer.zero_grad()\n        scheduler.step()\n")
    assert "LRD010" not in codes(source)
