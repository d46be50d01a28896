"""Shapes seen in the fresh-2026-12zzk110 batch (rcnew110, bench/realcode/README.md): gradient
accumulation in hand-written loops (GPT/BERT fine-tuning, speech, vision): the optimizer, the
scheduler and the GradScaler stepped every k micro-batches or every batch, the accumulation
written as a modulo on the batch index or a global step, a counter, a flag, a helper
predicate, an inner loop over micro-batches or an early ``continue``; schedule totals with
and without the accumulation factor; the last partial window; clipping and ``unscale_``.

Programs written for these tests; no third-party code.

The batch's real cases were all judged right at first sight. Probing the family turned up one
false alarm, fixed: LRD010's "the horizon divides len(loader) by the loader's batch size a
second time" took a divisor for the loader's batch size whenever both reached the same
number. ``accum = 4`` beside ``DataLoader(ds, batch_size=4)`` made ``len(loader) // accum``
(the correct count of updates per epoch) read as ``len(loader) // batch_size``. A divisor
written as a name now counts as the batch size only when it is the expression the loader was
given (the same name, or names bound to the same non-literal expression such as
``args.batch_size``); when the two meet only in the literal both hold, the divisor is another
quantity that happens to equal the batch size. A literal divisor beside a named batch size
and the same name in both places are still reported.

And one miss, fixed (LRD010): OneCycleLR sized with whole accumulation windows
(``total_steps=len(loader) // accum * epochs``) and stepped with the updates of a test that
also flushes the last partial window (``if (i + 1) % accum == 0 or i + 1 == len(loader):``).
Each epoch then makes ``ceil(len(loader) / accum)`` updates where the schedule counts the
floor, one more whenever the loader's length is not a multiple of the window, and OneCycleLR
raises before the last epoch ends. Reported when the modulo and the divisor are the same
expression and the loader is the one the batch loop runs over; silent with a ceiling, without
the flush, with a padded count, or when the numbers are known to divide.
"""

from __future__ import annotations

import pytest

from .helpers import codes

HEAD = '''
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

model = nn.Linear(8, 2)
ds = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
'''


def _program(body: str, loader: str = "loader = DataLoader(ds, batch_size=4, shuffle=True)"
             ) -> str:
    return HEAD + loader + "\n" + body


# --- the fixed false alarm: an accumulation factor equal to a literal batch size ---

ONECYCLE_PER_UPDATE = '''
accum = 4
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=1e-3, total_steps=len(loader) // DIVISOR * 3)
for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
'''


def test_accumulation_factor_equal_to_a_literal_batch_size_is_not_the_batch_size() -> None:
    source = _program(ONECYCLE_PER_UPDATE.replace("DIVISOR", "accum"))
    assert codes(source) == []


def test_hf_no_trainer_count_of_updates_with_a_coinciding_factor_is_silent() -> None:
    body = '''
import math
from transformers import get_scheduler
accum = 4
updates_per_epoch = math.ceil(len(loader) / accum)
max_train_steps = 3 * updates_per_epoch
lr_scheduler = get_scheduler("linear", optimizer=optimizer, num_warmup_steps=10,
                             num_training_steps=max_train_steps)
completed = 0
for epoch in range(3):
    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if step % accum == 0 or step == len(loader) - 1:
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
            completed += 1
        if completed >= max_train_steps:
            break
'''
    assert codes(_program(body)) == []


def test_two_names_bound_to_the_same_number_are_a_coincidence() -> None:
    loader = "bs = 4\nloader = DataLoader(ds, batch_size=bs, shuffle=True)"
    source = _program(ONECYCLE_PER_UPDATE.replace("DIVISOR", "accum"), loader)
    assert codes(source) == []


def test_the_loaders_own_batch_size_name_divided_again_is_still_reported() -> None:
    loader = "bs = 4\nloader = DataLoader(ds, batch_size=bs, shuffle=True)"
    body = '''
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=1e-3, total_steps=len(loader) // bs * 3)
for epoch in range(3):
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
'''
    assert set(codes(_program(body, loader))) == {"LRD010"}


def test_a_literal_divisor_beside_a_named_batch_size_is_still_reported() -> None:
    loader = "bs = 4\nloader = DataLoader(ds, batch_size=bs, shuffle=True)"
    body = '''
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=1e-3, total_steps=len(loader) // 4 * 3)
for epoch in range(3):
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
'''
    assert set(codes(_program(body, loader))) == {"LRD010"}


def test_the_same_attribute_as_batch_size_and_divisor_is_still_reported() -> None:
    loader = '''import argparse
args = argparse.Namespace(batch_size=4, epochs=3)
loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)'''
    body = '''
total = len(loader) // args.batch_size * args.epochs
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=total)
for epoch in range(args.epochs):
    for x, y in loader:
        criterion(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
'''
    assert set(codes(_program(body, loader))) == {"LRD010"}


# --- where the scheduler steps, for each spelling of the accumulation boundary ---

WARMUP = "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))\n"

BOUNDARIES = {
    "modulo": ("for i, (x, y) in enumerate(loader):", "if (i + 1) % accum == 0:"),
    "negated": ("for i, (x, y) in enumerate(loader):", "if not (i + 1) % accum:"),
    "k_minus_one": ("for i, (x, y) in enumerate(loader):", "if i % accum == accum - 1:"),
    "with_tail": ("for i, (x, y) in enumerate(loader):",
                  "if (i + 1) % accum == 0 or i + 1 == len(loader):"),
}


def _boundary_loop(header: str, test: str, inside: bool) -> str:
    step_in = "            scheduler.step()\n" if inside else ""
    step_out = "" if inside else "        scheduler.step()\n"
    return ("accum = 4\n" + WARMUP + "for epoch in range(3):\n    " + header + "\n"
            "        loss = criterion(model(x), y) / accum\n"
            "        loss.backward()\n"
            "        " + test + "\n"
            "            optimizer.step()\n"
            "            optimizer.zero_grad()\n" + step_in + step_out)


@pytest.mark.parametrize("spelling", sorted(BOUNDARIES))
def test_scheduler_inside_the_update_branch_is_silent(spelling: str) -> None:
    header, test = BOUNDARIES[spelling]
    assert codes(_program(_boundary_loop(header, test, inside=True))) == []


@pytest.mark.parametrize("spelling", sorted(BOUNDARIES))
def test_scheduler_after_every_micro_batch_is_reported(spelling: str) -> None:
    header, test = BOUNDARIES[spelling]
    assert codes(_program(_boundary_loop(header, test, inside=False))) == ["LRD017"]


FLAG = '''
accum = 4
''' + WARMUP + '''for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        do_step = (i + 1) % accum == 0 or i + 1 == len(loader)
        if do_step:
            optimizer.step()
            optimizer.zero_grad()
        STEP
'''


def test_flag_tested_again_for_the_scheduler_is_silent() -> None:
    source = _program(FLAG.replace("STEP", "if do_step:\n            scheduler.step()"))
    assert codes(source) == []


def test_flag_guarding_only_the_optimizer_is_reported() -> None:
    assert codes(_program(FLAG.replace("STEP", "scheduler.step()"))) == ["LRD017"]


COUNTER = '''
accum = 4
count = 0
''' + WARMUP + '''for epoch in range(3):
    for x, y in loader:
        loss = criterion(model(x), y) / accum
        loss.backward()
        count += 1
        if count == accum:
            optimizer.step()
            optimizer.zero_grad()
            count = 0
INSIDE        OUTSIDE
'''


def test_counter_reset_with_the_scheduler_in_its_branch_is_silent() -> None:
    source = _program(COUNTER.replace("INSIDE", "            scheduler.step()\n")
                      .replace("OUTSIDE", ""))
    assert codes(source) == []


def test_counter_with_the_scheduler_after_every_batch_is_reported() -> None:
    source = _program(COUNTER.replace("INSIDE", "").replace("OUTSIDE", "scheduler.step()"))
    assert codes(source) == ["LRD017"]


INNER = '''
accum = 4
it = iter(loader)
''' + WARMUP + '''for step in range(100):
    for k in range(accum):
        x, y = next(it)
        loss = criterion(model(x), y) / accum
        loss.backward()
INNER_STEP    optimizer.step()
OUTER_STEP    optimizer.zero_grad()
'''


def test_inner_micro_batch_loop_with_one_scheduler_step_per_update_is_silent() -> None:
    source = _program(INNER.replace("INNER_STEP", "")
                      .replace("OUTER_STEP", "    scheduler.step()\n"))
    assert codes(source) == []


def test_scheduler_inside_the_inner_micro_batch_loop_is_reported() -> None:
    source = _program(INNER.replace("INNER_STEP", "        scheduler.step()\n")
                      .replace("OUTER_STEP", ""))
    assert codes(source) == ["LRD017"]


PREDICATE = '''
accum = 4
''' + WARMUP + '''

def should_step(i, n):
    return (i + 1) % accum == 0 or i + 1 == n


for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if should_step(i, len(loader)):
            optimizer.step()
            optimizer.zero_grad()
INSIDE        OUTSIDE
'''


def test_helper_predicate_with_the_scheduler_in_its_branch_is_silent() -> None:
    source = _program(PREDICATE.replace("INSIDE", "            scheduler.step()\n")
                      .replace("OUTSIDE", ""))
    assert codes(source) == []


def test_helper_predicate_guarding_only_the_optimizer_is_reported() -> None:
    source = _program(PREDICATE.replace("INSIDE", "").replace("OUTSIDE", "scheduler.step()"))
    assert codes(source) == ["LRD017"]


def test_early_continue_before_the_update_is_silent() -> None:
    body = '''
accum = 4
''' + WARMUP + '''for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum != 0:
            continue
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
'''
    assert codes(_program(body)) == []


def test_flag_set_in_one_method_and_read_in_another_is_silent() -> None:
    body = '''
class Loop:
    def __init__(self, accum):
        self.accum = accum
        self.sync = False
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 100))

    def backward(self, i, loss):
        (loss / self.accum).backward()
        self.sync = (i + 1) % self.accum == 0

    def maybe_step(self):
        if self.sync:
            optimizer.step()
            self.scheduler.step()
            optimizer.zero_grad()

    def run(self):
        for epoch in range(3):
            for i, (x, y) in enumerate(loader):
                self.backward(i, criterion(model(x), y))
                self.maybe_step()


Loop(4).run()
'''
    assert codes(_program(body)) == []


# --- schedules sized in updates, stepped once per epoch ---

ONECYCLE_UPDATES = '''
accum = 4
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=1e-3, total_steps=len(loader) // accum * 3)
for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            optimizer.zero_grad()
STEP
'''


def test_update_sized_schedule_stepped_after_the_batch_loop_is_reported() -> None:
    source = _program(ONECYCLE_UPDATES.replace("STEP", "    scheduler.step()"))
    assert codes(source) == ["LRD003"]


def test_update_sized_schedule_stepped_on_the_last_batch_only_is_reported() -> None:
    source = _program(ONECYCLE_UPDATES.replace(
        "STEP", "        if i + 1 == len(loader):\n            scheduler.step()"))
    assert codes(source) == ["LRD003"]


def test_epoch_sized_step_decay_after_an_accumulating_batch_loop_is_silent() -> None:
    body = '''
accum = 4
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
for epoch in range(30):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
    scheduler.step()
'''
    assert codes(_program(body)) == []


# --- GradScaler, clipping and unscale_ under accumulation ---

AMP = '''
accum = 4
scaler = torch.amp.GradScaler("cuda")
''' + WARMUP + '''for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(model(x), y) / accum
        scaler.scale(loss).backward()
MICRO        if (i + 1) % accum == 0:
BOUNDARY            scale = scaler.get_scale()
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            if scaler.get_scale() >= scale:
                scheduler.step()
'''

CLIP = "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"


def test_unscale_then_clip_at_the_boundary_with_a_skip_aware_scheduler_is_silent() -> None:
    source = _program(AMP.replace("MICRO", "").replace(
        "BOUNDARY", "            scaler.unscale_(optimizer)\n            " + CLIP))
    assert codes(source) == []


def test_clip_at_the_boundary_without_unscale_is_reported() -> None:
    source = _program(AMP.replace("MICRO", "").replace("BOUNDARY", "            " + CLIP))
    assert codes(source) == ["LRD108"]


def test_clip_after_every_scaled_micro_batch_is_reported() -> None:
    source = _program(AMP.replace("MICRO", "        " + CLIP).replace(
        "BOUNDARY", "            scaler.unscale_(optimizer)\n"))
    assert codes(source) == ["LRD108"]


# --- the last partial window: OneCycleLR counts floor(len / accum) updates per epoch ---

TAIL = '''
accum = 5
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, HORIZON)
for epoch in range(3):
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum
        loss.backward()
        if GUARD:
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
'''

FLOOR = "total_steps=len(loader) // accum * 3"
WITH_TAIL = "(i + 1) % accum == 0 or i + 1 == len(loader)"


def _tail(horizon: str = FLOOR, guard: str = WITH_TAIL,
          loader: str = "loader = DataLoader(ds, batch_size=4, shuffle=True)") -> str:
    return _program(TAIL.replace("HORIZON", horizon).replace("GUARD", guard), loader)


def test_floor_count_with_a_flushed_last_window_is_reported() -> None:
    found = codes(_tail())
    assert found == ["LRD010"]


def test_floor_count_per_epoch_with_the_epochs_argument_is_reported() -> None:
    assert codes(_tail("epochs=3, steps_per_epoch=len(loader) // accum")) == ["LRD010"]


def test_flush_spelled_with_an_index_minus_one_is_reported() -> None:
    guard = "not (i + 1) % accum or i == len(loader) - 1"
    assert codes(_tail(guard=guard)) == ["LRD010"]


def test_ceiling_count_with_a_flushed_last_window_is_silent() -> None:
    source = "import math\n" + _tail("total_steps=math.ceil(len(loader) / accum) * 3")
    assert codes(source) == []


def test_floor_count_without_a_flush_is_silent() -> None:
    assert codes(_tail(guard="(i + 1) % accum == 0")) == []


def test_floor_count_padded_with_a_step_per_epoch_is_silent() -> None:
    assert codes(_tail("total_steps=len(loader) // accum * 3 + 3")) == []


def test_loader_length_known_to_be_a_multiple_of_the_window_is_silent() -> None:
    items = ", ".join(str(n) for n in range(20))  # 5 batches of 4: one window of 5
    loader = f"loader = DataLoader([{items}], batch_size=4)"
    assert codes(_tail(loader=loader)) == []


def test_loader_length_known_not_to_be_a_multiple_of_the_window_is_reported() -> None:
    items = ", ".join(str(n) for n in range(24))  # 6 batches of 4: a window and a tail
    loader = f"loader = DataLoader([{items}], batch_size=4)"
    assert codes(_tail(loader=loader)) == ["LRD010"]
