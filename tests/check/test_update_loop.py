"""Which loop is the update loop: a step-counted loop with a periodic evaluation is still the
batch loop; progress-bar wrappers over a loader are loops over the loader."""

from __future__ import annotations

from tests.check.helpers import codes

_STEP_LOOP = """
import torch
from torch.optim.lr_scheduler import {sched}

def train(model, train_loader, val_loader, total_steps, eval_every):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = {built}
    it = iter(train_loader)
    for step in range(total_steps):
        x = next(it)
        model(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
        if step % eval_every == 0:
            with torch.no_grad():
                for vx in val_loader:
                    model(vx)
"""


def test_step_loop_with_periodic_validation_is_the_batch_loop_for_onecycle() -> None:
    src = _STEP_LOOP.format(
        sched="OneCycleLR", built="OneCycleLR(optimizer, max_lr=1e-3, total_steps=total_steps)"
    )
    assert codes(src) == []


def test_step_loop_with_periodic_validation_steps_an_epoch_schedule_per_batch() -> None:
    src = _STEP_LOOP.format(
        sched="CosineAnnealingLR", built="CosineAnnealingLR(optimizer, T_max=num_epochs)"
    ).replace("total_steps, eval_every", "total_steps, eval_every, num_epochs")
    assert codes(src) == ["LRD002"]


def test_epoch_loop_around_a_training_batch_loop_is_still_an_epoch_loop() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR

    def train(model, train_loader, val_loader, epochs):
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        scheduler = OneCycleLR(optimizer, max_lr=1e-3, total_steps=epochs * len(train_loader))
        for i in range(epochs):
            for x in train_loader:
                model(x).sum().backward()
                optimizer.step()
            for vx in val_loader:
                model(vx)
            scheduler.step()
    """
    assert codes(src) == ["LRD003"]


_PROGRESS = """
import torch
from tqdm import tqdm_notebook
from rich.progress import Progress
from torch.utils.data import DataLoader
from torch.optim.lr_scheduler import StepLR

def train(model, dataset, epochs):
    train_loader = DataLoader(dataset, batch_size=32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=7)
    for epoch in range(epochs):
{loop}
            model(x).sum().backward()
            optimizer.step()
            scheduler.step()
"""


def test_tqdm_notebook_over_a_loader_variable_is_the_batch_loop() -> None:
    loop = ("        pbar = tqdm_notebook(train_loader, desc=f'epoch {epoch}')\n"
            "        for x in pbar:")
    assert codes(_PROGRESS.format(loop=loop)) == ["LRD002"]


def test_rich_progress_track_over_a_loader_is_the_batch_loop() -> None:
    loop = ("        progress = Progress()\n"
            "        for x in progress.track(train_loader):")
    assert codes(_PROGRESS.format(loop=loop)) == ["LRD002"]


def test_per_epoch_step_after_a_tqdm_notebook_batch_loop_is_correct() -> None:
    src = _PROGRESS.format(
        loop="        for x in tqdm_notebook(train_loader):"
    ).replace("            scheduler.step()\n", "        scheduler.step()\n")
    assert codes(src) == []


_RANGE_BAR = """
import torch
from tqdm import tqdm
from torch.optim.lr_scheduler import {built}

def train(model, train_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = {sched}
    for epoch in range(epochs):
        progress_bar = tqdm(range(len(train_loader)))
        batches = iter(train_loader)
        for itr in progress_bar:
            batch = next(batches)
            model(batch).sum().backward()
            optimizer.step()
            scheduler.step()
"""


def test_progress_bar_over_range_of_len_loader_in_a_variable_is_the_batch_loop() -> None:
    src = _RANGE_BAR.format(built="CosineAnnealingLR",
                            sched="CosineAnnealingLR(optimizer, T_max=epochs)")
    assert codes(src) == ["LRD002"]


def test_progress_bar_over_range_of_len_loader_with_a_per_batch_schedule_is_correct() -> None:
    src = _RANGE_BAR.format(
        built="OneCycleLR",
        sched="OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(train_loader))",
    )
    assert codes(src) == []
