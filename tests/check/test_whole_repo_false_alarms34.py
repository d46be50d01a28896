"""False alarms of fphunt48's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. A settings class of its own module, ``class Settings: schedule = "cosine"`` in
   ``settings.py``, imported by the trainer (``from settings import Settings``) that steps
   the warm-up in its batch loop under ``if Settings.schedule != "epochwise":`` and a
   per-epoch option in its epoch loop under ``if Settings.schedule == "epochwise":``. The
   class states the value for the program as written, as a class of the trainer's own file
   does (which lrdoctor already read): the epoch-loop step is never run for the warm-up.
   lrdoctor read the imported name as an unknown import and judged the epoch-loop step as a
   step of the warm-up (LRD003). Still reported: the same warm-up stepped in the epoch loop
   under a test that the class's value passes, and any value some file of the project
   stores into the class (``Settings.schedule = args.schedule``), which is then unknown.
2. A warm-up LambdaLR whose multiplier is a nested function (``def factor(x): alpha = x /
   warmup_iters; return start * (1 - alpha) + alpha``) with ``start = 1. / 1000`` and
   ``warmup_iters = min(1000, len(loader) - 1)``, stepped on every pass of the batch loop
   while the optimizer steps every ``accumulate`` passes: the warm-up is sized in loader
   batches, so stepping it per micro-batch runs it exactly as sized (lrdoctor's own
   "sized in micro-batches" reading). lrdoctor did not follow the multiplier to the length
   it reads, and took the division inside it (the step over the length) and the constant
   factor ``1. / 1000`` for a count divided into updates (LRD017). Still reported: a
   warm-up length that says nothing of the loader (a literal 1000).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, project_codes

# -- 1. a settings class imported from its own module ------------------------------------------

SETTINGS = """
class Settings:
    schedule = "cosine"
    epochs = 12
    lr = 2e-4
"""

TRAINER = """
import torch
from transformers import get_cosine_schedule_with_warmup
from settings import Settings


def make_schedule(conf, optimizer, total):
    if conf.schedule == "cosine":
        return get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=total // 10,
                                               num_training_steps=total)
    if conf.schedule == "epochwise":
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=4)
    raise ValueError(conf.schedule)


def one_epoch(model, batches, optimizer, schedule):
    for x, y in batches:
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if Settings.schedule != "epochwise":
            schedule.step()


def fit(model, batches):
    optimizer = torch.optim.AdamW(model.parameters(), lr=Settings.lr)
    schedule = make_schedule(Settings, optimizer, Settings.epochs * len(batches))
    for epoch in range(Settings.epochs):
        one_epoch(model, batches, optimizer, schedule)
        if Settings.schedule == {epoch_test!r}:
            schedule.step()
"""


def test_an_epoch_step_guarded_by_an_imported_settings_class_that_rules_it_out_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "settings.py": SETTINGS,
        "trainer.py": TRAINER.replace("{epoch_test!r}", repr("epochwise")),
    })
    assert "LRD003" not in project_codes(found)


def test_an_epoch_step_of_the_warm_up_that_the_imported_class_selects_is_still_lrd003(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "settings.py": SETTINGS,
        "trainer.py": TRAINER.replace("{epoch_test!r}", repr("cosine")),
    })
    assert ("trainer.py", 32, "LRD003") in found


PLAIN = """
import torch
from transformers import get_cosine_schedule_with_warmup
from settings import Settings


def fit(model, batches):
    optimizer = torch.optim.AdamW(model.parameters(), lr=Settings.lr)
    total = Settings.epochs * len(batches)
    schedule = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=total // 10,
                                               num_training_steps=total)
    for epoch in range(Settings.epochs):
        for x, y in batches:
            loss = torch.nn.functional.mse_loss(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            if Settings.schedule != "epochwise":
                schedule.step()
        if Settings.schedule == "epochwise":
            schedule.step()
"""


def test_a_settings_class_some_driver_writes_into_is_not_taken_at_its_literal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    driver = """
    import argparse
    from settings import Settings
    from trainer import fit

    parser = argparse.ArgumentParser()
    parser.add_argument("--schedule", default="cosine")
    Settings.schedule = parser.parse_args().schedule
    """
    as_written = check_project(tmp_path / "a", monkeypatch, {
        "settings.py": SETTINGS, "trainer.py": PLAIN}, checked=["trainer.py"])
    driven = check_project(tmp_path / "b", monkeypatch, {
        "settings.py": SETTINGS, "trainer.py": PLAIN, "main.py": driver},
        checked=["trainer.py"])
    assert "LRD003" not in project_codes(as_written)
    # the value a run holds is the driver's: `--schedule epochwise` steps the warm-up per epoch
    assert ("trainer.py", 21, "LRD003") in driven


# -- 2. a warm-up multiplier sized in loader batches, stepped per micro-batch ---------------

WARMUP = """
import torch


def warmup_schedule(optimizer, warmup_iters, start):
    def factor(x):
        if x >= warmup_iters:
            return 1
        alpha = float(x) / warmup_iters
        return start * (1 - alpha) + alpha
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def train(model, loader, epochs, accumulate=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for epoch in range(epochs):
        schedule = None
        if epoch == 0:
            start = 1. / 1000
            warmup_iters = {length}
            schedule = warmup_schedule(optimizer, warmup_iters, start)
        for i, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(model(x), y) / accumulate
            loss.backward()
            if (i + 1) % accumulate == 0:
                optimizer.step()
                optimizer.zero_grad()
            if schedule is not None:
                schedule.step()
"""


def test_a_warm_up_sized_in_loader_batches_through_its_multiplier_is_not_lrd017() -> None:
    assert "LRD017" not in codes(WARMUP.replace("{length}", "min(1000, len(loader) - 1)"))


def test_a_lambda_multiplier_reading_a_loader_length_is_not_lrd017() -> None:
    source = WARMUP.replace("{length}", "len(loader)").replace(
        "schedule = warmup_schedule(optimizer, warmup_iters, start)",
        "schedule = torch.optim.lr_scheduler.LambdaLR(\n"
        "                optimizer, lambda x: start + (1 - start) * min(1.0, x / warmup_iters))")
    assert "LRD017" not in codes(source)


def test_a_warm_up_of_a_literal_length_stepped_per_micro_batch_is_still_lrd017() -> None:
    assert "LRD017" in codes(WARMUP.replace("{length}", "1000"))
