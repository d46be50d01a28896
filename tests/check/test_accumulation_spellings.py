"""Gradient accumulation, spelled the ways real loops spell the "is this an update?" test: a
per-update schedule stepped under the same test as the optimizer is correct, stepped every
micro-batch is LRD017, stepped under the test but before the update is LRD001."""

from __future__ import annotations

import pytest

from tests.check.helpers import codes, messages

_SCRIPT = """
import torch
from transformers import get_linear_schedule_with_warmup

def train(model, loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    total = len(loader) // args.gradient_accumulation_steps * args.num_train_epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, total)
    accum = args.gradient_accumulation_steps
    for epoch in range(args.num_train_epochs):
        for {target} in {iterable}:
            loss = model(batch).sum() / accum
            loss.backward()
            if {test}:
{update}
{after}"""

# (loop target, iterable, the "is this an update" test)
_TESTS = {
    "plus_one_modulo_equals_zero": ("step, batch", "enumerate(loader)",
                                    "(step + 1) % accum == 0"),
    "modulo_equals_accum_minus_one": ("step, batch", "enumerate(loader)",
                                      "step % accum == accum - 1"),
    "not_modulo": ("step, batch", "enumerate(loader)", "not (step + 1) % accum"),
    "or_last_batch": ("step, batch", "enumerate(loader)",
                      "(step + 1) % accum == 0 or step == len(loader) - 1"),
    "or_last_batch_parenthesised": ("step, batch", "enumerate(loader)",
                                    "((step + 1) % accum == 0) or (step + 1 == len(loader))"),
    "enumerate_from_one": ("step, batch", "enumerate(loader, start=1)", "step % accum == 0"),
    "args_attribute_directly": ("step, batch", "enumerate(loader)",
                                "(step + 1) % args.gradient_accumulation_steps == 0"),
}

_UPDATE_THEN_STEP = """                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()"""
_STEP_THEN_UPDATE = """                scheduler.step()
                optimizer.step()
                optimizer.zero_grad()"""
_UPDATE_ONLY = """                optimizer.step()
                optimizer.zero_grad()"""
_STEP_EVERY_MICRO_BATCH = "            scheduler.step()\n"


def _script(test: str, update: str, after: str = "") -> str:
    target, iterable, condition = _TESTS[test]
    return _SCRIPT.format(target=target, iterable=iterable, test=condition, update=update,
                          after=after)


@pytest.mark.parametrize("test", sorted(_TESTS))
def test_warmup_stepped_with_each_accumulated_update_is_correct(test: str) -> None:
    assert codes(_script(test, _UPDATE_THEN_STEP)) == []


@pytest.mark.parametrize("test", sorted(_TESTS))
def test_warmup_stepped_every_micro_batch_is_lrd017(test: str) -> None:
    assert codes(_script(test, _UPDATE_ONLY, _STEP_EVERY_MICRO_BATCH)) == ["LRD017"]


@pytest.mark.parametrize("test", sorted(_TESTS))
def test_warmup_stepped_before_the_accumulated_update_is_lrd001(test: str) -> None:
    assert codes(_script(test, _STEP_THEN_UPDATE)) == ["LRD001"]


_ACCELERATE = """
import torch
from accelerate import Accelerator
from transformers import get_scheduler

def main(model, dataset, args):
    accelerator = Accelerator(gradient_accumulation_steps=args.accum)
    loader = torch.utils.data.DataLoader(dataset, batch_size=8)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = get_scheduler("linear", optimizer, num_warmup_steps=100,
                              num_training_steps=args.max_train_steps)
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader,
                                                              scheduler)
    for epoch in range(args.epochs):
        for batch in loader:
            with accelerator.accumulate(model):
                loss = model(batch).sum()
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if accelerator.sync_gradients:
                global_step = 1
"""


def test_accelerate_accumulate_block_with_the_scheduler_inside_is_correct() -> None:
    assert codes(_ACCELERATE) == []


_COUNTER = """
import torch
from torch.optim.lr_scheduler import OneCycleLR

def train(model, loader, epochs, accum_iter):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = OneCycleLR(optimizer, max_lr=0.1,
                           total_steps=epochs * len(loader) // accum_iter)
    micro = 0
    for epoch in range(epochs):
        for batch in loader:
            (model(batch).sum() / accum_iter).backward()
            micro += 1
            if micro % accum_iter == 0:
                optimizer.step()
                optimizer.zero_grad()
{step}"""


def test_micro_batch_counter_guarding_update_and_scheduler_is_correct() -> None:
    assert codes(_COUNTER.format(step="                scheduler.step()\n")) == []


def test_micro_batch_counter_guarding_only_the_update_is_lrd017() -> None:
    assert codes(_COUNTER.format(step="            scheduler.step()\n")) == ["LRD017"]


# The same accumulation written as an early `continue`: what follows the `if` is the update.
_EARLY_CONTINUE = """
import torch
from transformers import get_linear_schedule_with_warmup

def train(model, loader, args):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    total = len(loader) // args.accum * args.epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, total)
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            (model(batch).sum() / args.accum).backward()
{before}            if {test}:
                continue
            optimizer.step()
            optimizer.zero_grad()
{after}"""

_SKIP_TESTS = ["(step + 1) % args.accum != 0", "not (step + 1) % args.accum == 0",
               "step % args.accum < args.accum - 1"]


@pytest.mark.parametrize("test", _SKIP_TESTS)
def test_warmup_stepped_after_an_early_continue_update_is_correct(test: str) -> None:
    src = _EARLY_CONTINUE.format(test=test, before="",
                                 after="            scheduler.step()\n")
    assert codes(src) == []


@pytest.mark.parametrize("test", _SKIP_TESTS)
def test_warmup_stepped_before_the_early_continue_is_lrd017(test: str) -> None:
    src = _EARLY_CONTINUE.format(test=test, before="            scheduler.step()\n",
                                 after="")
    assert "LRD017" in codes(src)


def test_early_continue_guard_is_named_as_the_condition_of_the_update() -> None:
    src = _EARLY_CONTINUE.format(test=_SKIP_TESTS[0], before="            scheduler.step()\n",
                                 after="")
    message = next(m for m in messages(src) if "micro-batch" in m)
    assert "only when `(step + 1) % args.accum == 0`" in message
