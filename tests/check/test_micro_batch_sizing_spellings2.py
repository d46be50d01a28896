"""Gradient accumulation with the scheduler stepped every micro-batch: a bug (LRD017) when the
schedule is counted in updates (`len(loader) // accum * epochs`, a fixed warm-up), but a design
when its length is counted in loader batches (`epochs * len(loader)`, directly, through a name,
or through a builder's `epoch_steps` parameter): stepped per micro-batch it then runs its whole
course over training. A builder's `epoch_steps` is batches per epoch, not epochs (no LRD002)."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes

V: dict[str, tuple[list[str], str]] = {}
_M = '''
import torch
from transformers import get_linear_schedule_with_warmup

def build(optimizer, epoch_steps, cfg):
    return get_linear_schedule_with_warmup(optimizer, num_warmup_steps=cfg.warmup_epochs * epoch_steps, num_training_steps=cfg.epochs * epoch_steps)

def train(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    {sched}
    for epoch in range(cfg.epochs):
        for itr, (x, y) in enumerate(loader):
            loss = torch.nn.functional.mse_loss(model(x), y) / cfg.grad_accumulation
            loss.backward()
            if (itr + 1) % cfg.grad_accumulation == 0:
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()
'''
V["micro_batch_sized_via_builder_correct"] = ([], _M.format(sched="scheduler = build(optimizer, len(loader), cfg)"))
V["micro_batch_sized_inline_correct"] = ([], _M.format(sched="scheduler = get_linear_schedule_with_warmup(optimizer, 100, cfg.epochs * len(loader))"))
V["micro_batch_sized_through_name_correct"] = ([], _M.format(sched="total = len(loader) * cfg.epochs\n    scheduler = get_linear_schedule_with_warmup(optimizer, 100, total)"))
V["update_sized_floor_div_buggy"] = (["LRD017"], _M.format(sched="scheduler = get_linear_schedule_with_warmup(optimizer, 100, cfg.epochs * len(loader) // cfg.grad_accumulation)"))
V["update_sized_named_buggy"] = (["LRD017"], _M.format(sched="num_update_steps = len(loader) // cfg.grad_accumulation * cfg.epochs\n    scheduler = get_linear_schedule_with_warmup(optimizer, 100, num_update_steps)"))
V["fixed_warmup_lambda_buggy"] = (["LRD017"], _M.format(sched="scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 4000))"))

V["micro_batch_sized_from_dataset_and_batch_size_correct"] = ([], _M.format(sched="total_steps = len(loader.dataset)\n    scheduler = get_linear_schedule_with_warmup(optimizer, cfg.warmup * (total_steps // cfg.batch_size), cfg.epochs * (total_steps // cfg.batch_size))"))
V["update_sized_from_dataset_batch_and_accumulation_buggy"] = (["LRD017"], _M.format(sched="total_steps = len(loader.dataset)\n    scheduler = get_linear_schedule_with_warmup(optimizer, 100, cfg.epochs * total_steps // (cfg.batch_size * cfg.grad_accumulation))"))

@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_correct")))
def test_schedule_sized_in_loader_batches_stepped_per_micro_batch_is_silent(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


@pytest.mark.parametrize("situation", sorted(n for n in V if n.endswith("_buggy")))
def test_schedule_sized_in_updates_stepped_per_micro_batch_is_lrd017(situation: str) -> None:
    expected, source = V[situation]
    assert codes(source) == expected


@pytest.mark.parametrize("name", ["epoch_steps", "epoch_iters", "iters_epoch", "epoch_len",
                                  "steps_epoch"])
def test_batches_per_epoch_names_are_batches(name: str) -> None:
    from lrdoctor.check.names import unit_of_word
    assert unit_of_word(name) == "batch"


@pytest.mark.parametrize("name", ["epochs", "num_epochs", "epoch_step", "lr_decay_epoch"])
def test_epoch_names_stay_epochs(name: str) -> None:
    from lrdoctor.check.names import unit_of_word
    assert unit_of_word(name) == "epoch"
