"""Loaders, optimizers and schedulers handed through ``accelerator.prepare(...)`` or Fabric's
``setup``/``setup_dataloaders`` are still the same objects."""

from __future__ import annotations

from tests.check.helpers import codes

_ACCELERATE = """
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader
from torch.optim.lr_scheduler import StepLR

def train(model, dataset, val_dataset, epochs):
    accelerator = Accelerator()
    train_dl = DataLoader(dataset, batch_size=32)
    val_dl = DataLoader(val_dataset, batch_size=32)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=7)
    model, optimizer, train_dl, val_dl, scheduler = accelerator.prepare(
        model, optimizer, train_dl, val_dl, scheduler
    )
    for epoch in range(epochs):
        for x in train_dl:
            accelerator.backward(model(x).sum())
            optimizer.step()
{per_batch}
{per_epoch}
"""


def test_loader_unpacked_from_accelerator_prepare_is_the_batch_loop() -> None:
    src = _ACCELERATE.format(per_batch="            scheduler.step()", per_epoch="")
    assert codes(src) == ["LRD002"]


def test_prepared_scheduler_stepped_per_epoch_is_correct() -> None:
    src = _ACCELERATE.format(per_batch="", per_epoch="        scheduler.step()")
    assert codes(src) == []


_FABRIC = """
import torch
from lightning.fabric import Fabric
from torch.utils.data import DataLoader
from torch.optim.lr_scheduler import OneCycleLR

def train(model, dataset, epochs):
    fabric = Fabric()
    loader = fabric.setup_dataloaders(DataLoader(dataset, batch_size=32))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model, optimizer = fabric.setup(model, optimizer)
    scheduler = OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(loader))
    for epoch in range(epochs):
        for x in loader:
            fabric.backward(model(x).sum())
            optimizer.step()
{per_batch}
{per_epoch}
"""


def test_onecycle_stepped_per_epoch_after_fabric_setup_dataloaders_is_lrd003() -> None:
    assert codes(_FABRIC.format(per_batch="", per_epoch="        scheduler.step()")) == ["LRD003"]


def test_onecycle_stepped_per_batch_over_a_fabric_loader_is_correct() -> None:
    assert codes(_FABRIC.format(per_batch="            scheduler.step()", per_epoch="")) == []


_APEX = """
import torch
from apex import amp
from torch.optim.lr_scheduler import LambdaLR

def train(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = LambdaLR(optimizer, lambda step: min(1.0, step / args.warmup_steps))
    if args.fp16:
        model, optimizer = amp.initialize(models=model, optimizers=optimizer, opt_level="O1")
    for step, batch in enumerate(loader):
        loss = model(batch)
        loss.backward()
{order}
"""


def test_scheduler_stepped_before_an_apex_initialized_optimizer_is_lrd001() -> None:
    order = "        scheduler.step()\n        optimizer.step()\n        optimizer.zero_grad()"
    assert codes(_APEX.format(order=order)) == ["LRD001"]


def test_scheduler_stepped_after_an_apex_initialized_optimizer_is_correct() -> None:
    order = "        optimizer.step()\n        scheduler.step()\n        optimizer.zero_grad()"
    assert codes(_APEX.format(order=order)) == []
