"""Distributed training where the loss is all-reduced only to be printed (`if i % log_every
== 0: dist.all_reduce(running)`): at the ReduceLROnPlateau step after the batch loop the value
is what each rank added since, so the ranks cut their LR at different times (LRD013, and the
message says the reduction is only for logging). A reduction just before the step, every
batch, or a step inside the same logging branch is fine. A scheduler stepped under a period
of its own (`if i % 500 == 0:`) that no optimizer step shares runs every N batches by design:
not LRD002."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

V: dict[str, tuple[list[str], str]] = {}
_D = '''
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler

def main(model, dataset, epochs, log_every=50):
    dist.init_process_group("nccl")
    sampler = DistributedSampler(dataset)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        running = torch.zeros(1)
        for i, (x, y) in enumerate(loader):
            loss = torch.nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.detach()
{log}
{end}
'''
_LOGS = {
    "inplace_all_reduce_under_log": '''            if i % log_every == 0:
                dist.all_reduce(running)
                print(running.item() / dist.get_world_size())''',
    "reassigned_reduce_under_log": '''            if (i + 1) % log_every == 0:
                running = reduce_tensor(running)
                if dist.get_rank() == 0:
                    print(running.item())''',
    "copy_reduced_under_log": '''            if i % log_every == 0:
                shown = running.clone()
                dist.all_reduce(shown)
                print(shown.item())''',
}
for n, log in _LOGS.items():
    V[f"plateau_on_running_loss_reduced_only_when_logging_{n}_buggy"] = (["LRD013"], _D.format(log=log, end="        scheduler.step(running)"))
    V[f"plateau_on_running_loss_reduced_before_step_{n}_correct"] = ([], _D.format(log=log, end="        dist.all_reduce(running)\n        scheduler.step(running)"))
V["plateau_on_running_loss_reduced_every_batch_correct"] = ([], _D.format(log="            dist.all_reduce(running)", end="        scheduler.step(running)"))
V["plateau_inside_log_branch_after_reduce_correct"] = ([], _D.format(log='''            if i % log_every == 0:
                dist.all_reduce(running)
                scheduler.step(running)''', end=""))
V["plateau_every_n_batches_after_log_reduce_correct"] = ([], _D.format(log='''            if i % log_every == 0:
                dist.all_reduce(running)
            if i % 500 == 0:
                scheduler.step(running)''', end=""))
V["plateau_on_mean_loss_reduce_mean_under_log_buggy"] = (["LRD013"], _D.format(log='''            if i % log_every == 0 and i > 0:
                mean = reduce_mean(running)
                running = mean''', end="        scheduler.step(running.item() / len(loader))"))
V["plateau_on_epoch_loss_reduced_after_loop_correct"] = ([], _D.format(log='''            if i % log_every == 0:
                print(loss.item())''', end='''        epoch_loss = running / len(loader)
        dist.all_reduce(epoch_loss, op=dist.ReduceOp.AVG)
        scheduler.step(epoch_loss)'''))
V["plateau_on_unreduced_epoch_loss_with_log_print_buggy"] = (["LRD013"], _D.format(log='''            if i % log_every == 0:
                print(loss.item())''', end='''        epoch_loss = running / len(loader)
        scheduler.step(epoch_loss)'''))


PERIODIC_STEPLR = """
import torch

def train(model, loader, epochs, decay_every=1000):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30, gamma=0.5)
    global_step = 0
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            global_step += 1
{step}
"""
V["steplr_stepped_every_n_updates_by_design_correct"] = ([], PERIODIC_STEPLR.format(step="""\
            if global_step % decay_every == 0:
                scheduler.step()"""))
V["steplr_stepped_with_every_update_buggy"] = (["LRD002"], PERIODIC_STEPLR.format(step="""\
            scheduler.step()"""))


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_correct")))
def test_correct_distributed_logging_is_silent(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_buggy")))
def test_metric_reduced_only_for_logging_is_reported(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


def test_message_says_the_reduction_is_only_for_logging() -> None:
    _, source = V["plateau_on_running_loss_reduced_only_when_logging_inplace_all_reduce_under_log_buggy"]
    (message,) = messages(source)
    assert "only under `if i % log_every == 0:`" in message and "for logging" in message
