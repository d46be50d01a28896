"""Loops inside the batch loop that are not over data: moving a batch dict to the device,
logging a dict of metrics, a loop over param groups, a GAN's critic iterations, micro-batch
chunks of the batch. None of them makes the batch loop an epoch loop: a OneCycleLR stepped
after the update is still stepped per batch (correct), and an epoch cosine there is LRD002."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

_SCRIPT = """
import torch
from torch.optim.lr_scheduler import OneCycleLR, CosineAnnealingLR

def train(model, loader, epochs, device, writer, n_critic=5):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = {build}
    step = 0
    for epoch in range(epochs):
        for batch in loader:
{inner}
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            step += 1
"""

_INNER = {
    "batch_dict_to_device": """            for k, v in batch.items():
                batch[k] = v.to(device)
            model(batch).sum().backward()""",
    "batch_dict_comprehension_then_metrics": """            batch = {k: v.to(device) for k, v in batch.items()}
            loss = model(batch).sum()
            loss.backward()
            metrics = {"loss": loss.item()}
            for name, value in metrics.items():
                writer.add_scalar(name, value, step)""",
    "param_group_lr_logging": """            model(batch).sum().backward()
            for i, group in enumerate(optimizer.param_groups):
                writer.add_scalar(f"lr/{i}", group["lr"], step)""",
    "micro_batch_chunks": """            for chunk in batch.chunk(4):
                (model(chunk).sum() / 4).backward()""",
    "list_of_tensors_to_device": """            inputs = [t.to(device) for t in batch]
            for t in inputs:
                t.requires_grad_(False)
            model(inputs[0]).sum().backward()""",
}

_BUILDS = {
    "per_update": "OneCycleLR(optimizer, max_lr=1e-3, total_steps=epochs * len(loader))",
    "per_epoch": "CosineAnnealingLR(optimizer, T_max=epochs)",
}


@pytest.mark.parametrize("inner", sorted(_INNER))
def test_onecycle_stepped_after_the_update_with_an_inner_loop_is_correct(inner: str) -> None:
    assert codes(_SCRIPT.format(build=_BUILDS["per_update"], inner=_INNER[inner])) == []


@pytest.mark.parametrize("inner", sorted(_INNER))
def test_epoch_cosine_stepped_after_the_update_with_an_inner_loop_is_lrd002(inner: str) -> None:
    assert codes(_SCRIPT.format(build=_BUILDS["per_epoch"], inner=_INNER[inner])) == ["LRD002"]
