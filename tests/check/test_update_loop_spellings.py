"""Which loop is the update loop, spelled the many ways real training code spells it: an
epoch-sized cosine stepped inside the loop over batches is LRD002 and stepped after it is
correct, whether the batches come from `enumerate`, a progress bar, `next()` on an iterator,
or a counted range; and the epoch loop itself may be a `range`, a progress bar or a `while`."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import itertools
import torch
import tqdm as tqdm_module
from tqdm import tqdm, trange
from tqdm.auto import tqdm as auto_tqdm
from torch.optim.lr_scheduler import CosineAnnealingLR, OneCycleLR

def train(model, loader, epochs, start_epoch=0):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = {sched}
{body}
"""

_SCHEDULERS = {
    "epoch": "CosineAnnealingLR(optimizer, T_max=epochs)",
    "batch": "OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))",
}

# The loop over batches, with `{step}` where a per-batch scheduler step goes and `{after}`
# where a per-epoch step goes (after the batches, inside the epoch loop).
_BATCH_LOOPS = {
    "enumerate": """
        for i, (x, y) in enumerate(loader):
            optimizer.zero_grad()
            model(x).sum().backward()
            optimizer.step()
{step}""",
    "enumerate_start_zero": """
        for i, data in enumerate(loader, 0):
            inputs, labels = data
            optimizer.zero_grad()
            model(inputs).sum().backward()
            optimizer.step()
{step}""",
    "tqdm_with_desc": """
        for batch in tqdm(loader, desc=f"epoch {{epoch}}"):
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}""",
    "enumerate_of_tqdm": """
        for step, batch in enumerate(tqdm(loader, leave=False)):
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}""",
    "tqdm_of_enumerate_in_a_variable": """
        pbar = tqdm(enumerate(loader), total=len(loader))
        for i, batch in pbar:
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            pbar.set_postfix(loss=0.0)
{step}""",
    "module_tqdm": """
        for batch in tqdm_module.tqdm(loader):
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}""",
    "auto_tqdm": """
        for batch in auto_tqdm(loader, total=len(loader)):
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}""",
    "next_over_range_len": """
        batches = iter(loader)
        for _ in range(len(loader)):
            batch = next(batches)
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}""",
    "while_next_until_stop_iteration": """
        batches = iter(loader)
        while True:
            try:
                batch = next(batches)
            except StopIteration:
                break
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}""",
    "progress_bar_context_updated_by_hand": """
        with tqdm(total=len(loader)) as pbar:
            for batch in loader:
                model(batch).sum().backward()
                optimizer.step()
                optimizer.zero_grad()
                pbar.update(1)
{step_deeper}""",
}

_EPOCH_LOOPS = {
    "range": "    for epoch in range(epochs):",
    "range_from_start": "    for epoch in range(start_epoch, epochs):",
    "trange": "    for epoch in trange(epochs, desc='epochs'):",
    "tqdm_range": "    for epoch in tqdm(range(start_epoch, epochs)):",
}

_STEP_IN_BATCH = "            scheduler.step()\n"
_STEP_IN_BATCH_DEEPER = "                scheduler.step()\n"
_STEP_AFTER_BATCHES = "        scheduler.step()\n"


def _script(sched: str, epoch_loop: str, batch_loop: str, per_batch: bool) -> str:
    batch = _BATCH_LOOPS[batch_loop]
    step = _STEP_IN_BATCH if per_batch else ""
    deeper = _STEP_IN_BATCH_DEEPER if per_batch else ""
    body = _EPOCH_LOOPS[epoch_loop] + batch.format(step=step, step_deeper=deeper)
    if not per_batch:
        body += "\n" + _STEP_AFTER_BATCHES
    return _SCRIPT.format(sched=_SCHEDULERS[sched], body=body)


@pytest.mark.parametrize("batch_loop", sorted(_BATCH_LOOPS))
def test_epoch_cosine_stepped_in_the_batch_loop_is_lrd002(batch_loop: str) -> None:
    assert codes(_script("epoch", "range", batch_loop, per_batch=True)) == ["LRD002"]


@pytest.mark.parametrize("batch_loop", sorted(_BATCH_LOOPS))
def test_epoch_cosine_stepped_after_the_batch_loop_is_correct(batch_loop: str) -> None:
    assert codes(_script("epoch", "range", batch_loop, per_batch=False)) == []


@pytest.mark.parametrize("batch_loop", sorted(_BATCH_LOOPS))
def test_onecycle_stepped_after_the_batch_loop_is_lrd003(batch_loop: str) -> None:
    assert codes(_script("batch", "range", batch_loop, per_batch=False)) == ["LRD003"]


@pytest.mark.parametrize("batch_loop", sorted(_BATCH_LOOPS))
def test_onecycle_stepped_in_the_batch_loop_is_correct(batch_loop: str) -> None:
    assert codes(_script("batch", "range", batch_loop, per_batch=True)) == []


@pytest.mark.parametrize("epoch_loop", sorted(_EPOCH_LOOPS))
def test_epoch_loop_spellings_per_batch_cosine_is_lrd002(epoch_loop: str) -> None:
    assert codes(_script("epoch", epoch_loop, "enumerate", per_batch=True)) == ["LRD002"]


@pytest.mark.parametrize("epoch_loop", sorted(_EPOCH_LOOPS))
def test_epoch_loop_spellings_per_epoch_cosine_is_correct(epoch_loop: str) -> None:
    assert codes(_script("epoch", epoch_loop, "enumerate", per_batch=False)) == []


_WHILE_EPOCHS = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
    epoch = 0
    while epoch < epochs:
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}        epoch += 1
"""


def test_while_epoch_counter_with_a_per_batch_cosine_is_lrd002() -> None:
    assert codes(_WHILE_EPOCHS.format(step="            scheduler.step()\n")) == ["LRD002"]


def test_while_epoch_counter_with_a_per_epoch_cosine_is_correct() -> None:
    assert codes(_WHILE_EPOCHS.format(step="        scheduler.step()\n")) == []


# Iteration-based training: one loop counts updates and draws a batch each time, restarting
# the loader when it runs out. The counted loop is the update loop.
_ITERATION_TRAINING = """
import torch
from torch.optim.lr_scheduler import {cls}

def train(model, loader, max_steps, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = {sched}
    data_iter = iter(loader)
{loop}
        model(batch).sum().backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
"""

_ITERATION_LOOPS = {
    "range_with_restart": """    for step in range(max_steps):
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)""",
    "while_global_step": """    global_step = 0
    while global_step < max_steps:
        global_step += 1
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)""",
    "tqdm_range_with_restart": """    for step in tqdm(range(1, max_steps + 1)):
        try:
            batch = next(data_iter)
        except StopIteration:
            data_iter = iter(loader)
            batch = next(data_iter)""",
}


@pytest.mark.parametrize("loop", sorted(_ITERATION_LOOPS))
def test_iteration_loop_stepping_a_cosine_over_max_steps_is_correct(loop: str) -> None:
    src = _ITERATION_TRAINING.format(
        cls="CosineAnnealingLR", sched="CosineAnnealingLR(optimizer, T_max=max_steps)",
        loop=_ITERATION_LOOPS[loop],
    ).replace("import torch\n", "import torch\nfrom tqdm import tqdm\n", 1)
    assert codes(src) == []


@pytest.mark.parametrize("loop", sorted(_ITERATION_LOOPS))
def test_iteration_loop_stepping_a_cosine_over_epochs_is_lrd002(loop: str) -> None:
    src = _ITERATION_TRAINING.format(
        cls="CosineAnnealingLR", sched="CosineAnnealingLR(optimizer, T_max=epochs)",
        loop=_ITERATION_LOOPS[loop],
    ).replace("import torch\n", "import torch\nfrom tqdm import tqdm\n", 1)
    assert codes(src) == ["LRD002"]


# Hugging Face style: an outer `while` until the step budget is spent around a loader loop.
_STEP_BUDGET = """
import torch
from transformers import get_linear_schedule_with_warmup

def train(model, loader, max_steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = get_linear_schedule_with_warmup(optimizer, 100, max_steps)
    global_step = 0
    while global_step < max_steps:
        for batch in loader:
            model(batch).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
{step}
            global_step += 1
            if global_step >= max_steps:
                break
"""


def test_step_budget_loop_with_a_per_update_warmup_is_correct() -> None:
    assert codes(_STEP_BUDGET.format(step="            scheduler.step()")) == []


def test_step_budget_loop_with_the_warmup_stepped_per_pass_is_lrd003() -> None:
    src = _STEP_BUDGET.format(step="").replace(
        "            if global_step >= max_steps:\n                break\n",
        "            if global_step >= max_steps:\n                break\n"
        "        scheduler.step()\n",
    )
    assert codes(src) == ["LRD003"]


# The loader reaches the loop under many names and through many hands.
_LOADERS = """
import torch
from torch.utils.data import DataLoader
from torch.optim.lr_scheduler import CosineAnnealingLR

def build_loaders(cfg):
    train = DataLoader(cfg.train_set, batch_size=cfg.batch_size, shuffle=True)
    val = DataLoader(cfg.val_set, batch_size=cfg.batch_size)
    return train, val

class Data:
    def __init__(self, cfg):
        self.train_loader, self.val_loader = build_loaders(cfg)

    def train_dataloader(self):
        return self.train_loader

def train(model, cfg, epochs, dataloaders, trainloader, train_dl, data_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
    data = Data(cfg)
    train_loader, val_loader = build_loaders(cfg)
    for epoch in range(epochs):
        for batch in {loader}:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
{step}"""

_LOADER_SPELLINGS = {
    "tuple_from_a_builder": "train_loader",
    "dict_of_loaders": 'dataloaders["train"]',
    "tutorial_name": "trainloader",
    "short_name": "train_dl",
    "generic_name": "data_loader",
    "attribute_of_a_data_object": "data.train_loader",
    "method_of_a_data_object": "data.train_dataloader()",
}


@pytest.mark.parametrize("loader", sorted(_LOADER_SPELLINGS))
def test_epoch_cosine_stepped_in_a_loop_over_any_loader_is_lrd002(loader: str) -> None:
    src = _LOADERS.format(loader=_LOADER_SPELLINGS[loader],
                          step="            scheduler.step()\n")
    assert codes(src) == ["LRD002"]


@pytest.mark.parametrize("loader", sorted(_LOADER_SPELLINGS))
def test_epoch_cosine_stepped_after_a_loop_over_any_loader_is_correct(loader: str) -> None:
    src = _LOADERS.format(loader=_LOADER_SPELLINGS[loader], step="        scheduler.step()\n")
    assert codes(src) == []
