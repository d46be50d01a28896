"""Shapes behind the fresh-2026-12zd77 batch (rcnew77, bench/realcode/README.md): gradient
accumulation in real training loops (Accelerate, DeepSpeed engines, hand-written guards).

Programs written for these tests; no third-party code.

- ``Accelerator(..., step_scheduler_with_optimizer=False)``: a prepared scheduler's step()
  then steps the scheduler it wraps on every call, synced or not (the default, True, steps it
  only with the real updates). lrdoctor took every prepared scheduler for one that follows the
  updates: a schedule sized in updates and stepped inside ``accumulate()`` was silent (it
  advances once per micro-batch: LRD017), and one sized in micro-batches (``total * accum``),
  which is right there, was reported as a horizon in micro-batches stepped per update
  (LRD003).
- A warm-up written as a literal fraction of the horizon (``num_warmup_steps=total // 10``)
  made the whole schedule read as "divided by something, so counted in updates", even when the
  accumulation count is a name bound to another number: a horizon of ``epochs * len(loader)``
  stepped once per update inside ``accumulate()`` was missed (LRD003). A literal equal to the
  accumulation count still reads as that count.
- ``scheduler.optimizer = optimizer`` after rebuilding the optimizer (and, through
  Accelerate's wrapper, ``lr_scheduler.scheduler.optimizer = optimizer``): torch's schedulers
  write the LR into ``self.optimizer.param_groups``, so the scheduler drives the new
  optimizer from then on. lrdoctor reported the scheduler as left on the old one (LRD014).
- Further spellings seen in the batch, found or silent as they should be on both builds:
  DeepSpeed's engine stepping the client scheduler it was handed (silent; stepping it by hand
  as well is LRD012), an accumulation loop that runs backward passes until enough samples are
  seen before one update, ``if (step + 1) % accum != 0: continue`` before the update, a bare
  scheduler stepped under ``if accelerator.sync_gradients:`` (silent; stepped inside
  ``accumulate()`` unguarded it is LRD017), a counter reset after each update and a
  ``no_sync()`` flag branch with the scheduler stepped after them (LRD017).
"""

from __future__ import annotations

from .helpers import codes, messages

# one Accelerate program, six ways: whether the prepared scheduler steps with the optimizer
# (`step_scheduler_with_optimizer=False` or Accelerate's default) and how the horizon is sized
ACCELERATE = """
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup

accum = 4
epochs = 3
accelerator = Accelerator(gradient_accumulation_steps=accumUNSYNCED)
model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,))), batch_size=16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
HORIZON
model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
for epoch in range(epochs):
    for x, y in loader:
        with accelerator.accumulate(model):
            loss = torch.nn.functional.cross_entropy(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
"""

TENTH_WARMUP = "scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=total // 10, num_training_steps=total)"
TIMES_ACCUM = ("updates = epochs * len(loader) // accum\n"
               "scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100 * accum, "
               "num_training_steps=updates * accum)")


def accelerate(unsynced: bool, horizon: str) -> str:
    return ACCELERATE.replace("UNSYNCED", ", step_scheduler_with_optimizer=False" if unsynced else "") \
        .replace("HORIZON", horizon)


UNSYNCED_STEPS = accelerate(True, "total = epochs * len(loader) // accum\n" + TENTH_WARMUP)
UNSYNCED_MICRO_HORIZON = accelerate(True, "total = epochs * len(loader)\n" + TENTH_WARMUP)
UNSYNCED_TIMES_ACCUM = accelerate(True, TIMES_ACCUM)
SYNCED_TIMES_ACCUM = accelerate(False, TIMES_ACCUM)
SYNCED_MICRO_HORIZON_TENTH_WARMUP = accelerate(False, "total = epochs * len(loader)\n" + TENTH_WARMUP)
SYNCED_LITERAL_ACCUM = accelerate(False, "total = epochs * len(loader)\n"
                                  "scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=100, "
                                  "num_training_steps=total // 4)")

REPOINTED = """
import torch
from torch.optim.lr_scheduler import LambdaLR

model = torch.nn.Linear(8, 2)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scheduler = LambdaLR(optimizer, lambda s: max(0.0, 1 - s / 1000))
for step in range(1000):
    if step == 500:
        model = torch.nn.Linear(8, 2)
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
        scheduler.optimizer = optimizer
    model(torch.randn(16, 8)).pow(2).mean().backward()
    optimizer.step()
    optimizer.zero_grad()
    scheduler.step()
"""

CLASS_REPOINTED = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class Grower:
    def __init__(self, steps):
        self.model = torch.nn.Linear(8, 2)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.scheduler = CosineAnnealingLR(self.optimizer, T_max=steps)
        self.steps = steps

    def grow(self):
        self.model = torch.nn.Linear(8, 2)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.scheduler.optimizer = self.optimizer

    def fit(self):
        for step in range(self.steps):
            if step == self.steps // 2:
                self.grow()
            self.model(torch.randn(16, 8)).pow(2).mean().backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            self.scheduler.step()


Grower(1000).fit()
"""

WRAPPER_REPOINTED = """
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup

accelerator = Accelerator(gradient_accumulation_steps=4)
model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,))), batch_size=16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
total = 3 * len(loader) // 4
lr_scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=10, num_training_steps=total)
model, optimizer, loader, lr_scheduler = accelerator.prepare(model, optimizer, loader, lr_scheduler)
done = 0
for epoch in range(3):
    for x, y in loader:
        with accelerator.accumulate(model):
            if done == 20:
                new_model = torch.nn.Linear(8, 2)
                new_optimizer = torch.optim.AdamW(new_model.parameters(), lr=1e-4)
                model, optimizer = accelerator.prepare(new_model, new_optimizer)
                lr_scheduler.scheduler.optimizer = optimizer
            loss = torch.nn.functional.cross_entropy(model(x), y)
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
        if accelerator.sync_gradients:
            done += 1
"""

ENGINE_OWNS_SCHEDULE = """
import deepspeed
import torch
from torch.optim.lr_scheduler import LambdaLR

model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,))), batch_size=16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
accum = 4
total = 3 * len(loader) // accum
scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 10) * max(0.0, 1 - s / total))
engine, optimizer, _, scheduler = deepspeed.initialize(model=model, optimizer=optimizer, lr_scheduler=scheduler,
                                                       config={"train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": accum})
for epoch in range(3):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(engine(x), y)
        engine.backward(loss)
        engine.step()
"""

ENGINE_AND_HAND = """
import deepspeed
import torch
from torch.optim.lr_scheduler import LambdaLR

model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,))), batch_size=16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
accum = 4
total = 3 * len(loader) // accum
scheduler = LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 10) * max(0.0, 1 - s / total))
engine, optimizer, _, scheduler = deepspeed.initialize(model=model, optimizer=optimizer, lr_scheduler=scheduler,
                                                       config={"train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": accum})
for epoch in range(3):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(engine(x), y)
        engine.backward(loss)
        engine.step()
        scheduler.step()
"""

WHILE_ACCUMULATES = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, LinearLR, SequentialLR

model = torch.nn.Linear(8, 2)
data = iter(torch.randn(10**6, 8).split(16))
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
max_steps = 1000
scheduler = SequentialLR(optimizer, [LinearLR(optimizer, 1e-3, 1.0, 50), CosineAnnealingLR(optimizer, max_steps - 50)], [50])


def forward_backward(total):
    seen = 0
    while True:
        x = next(data)
        model(x).pow(2).mean().backward()
        seen += x.shape[0]
        if seen >= total:
            break


for step in range(max_steps):
    forward_backward(64)
    optimizer.step()
    optimizer.zero_grad()
    scheduler.step()
"""

CONTINUE_GUARD = """
import torch
from transformers import get_linear_schedule_with_warmup

model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 8)), batch_size=16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
grad_accum = 4
total = 5 * len(loader) // grad_accum
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=20, num_training_steps=total)
for epoch in range(5):
    for step, (x,) in enumerate(loader):
        (model(x).pow(2).mean() / grad_accum).backward()
        if (step + 1) % grad_accum != 0:
            continue
        optimizer.step()
        optimizer.zero_grad()
        scheduler.step()
"""

SYNC_GUARDED_BARE_SCHEDULER = """
import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup

accelerator = Accelerator(gradient_accumulation_steps=8)
model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 8)), batch_size=16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
total = 5 * len(loader) // 8
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=20, num_training_steps=total)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
for epoch in range(5):
    for (x,) in loader:
        with accelerator.accumulate(model):
            accelerator.backward(model(x).pow(2).mean())
            optimizer.step()
            optimizer.zero_grad()
        if accelerator.sync_gradients:
            scheduler.step()
"""

COUNTER_GUARD = """
import torch
from transformers import get_cosine_schedule_with_warmup

model = torch.nn.Linear(8, 2)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(256, 8)), batch_size=16)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
accum_steps = 4
total = 5 * len(loader) // accum_steps
scheduler = get_cosine_schedule_with_warmup(optimizer, num_warmup_steps=20, num_training_steps=total)
for epoch in range(5):
    counter = 0
    for (x,) in loader:
        (model(x).pow(2).mean() / accum_steps).backward()
        counter += 1
        if counter == accum_steps:
            optimizer.step()
            optimizer.zero_grad()
            counter = 0
        scheduler.step()
"""

NO_SYNC_FLAG = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.optim.lr_scheduler import LambdaLR

model = DDP(torch.nn.Linear(8, 2))
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
passes_per_step = 4
total_steps = 10000
lr_scheduler = LambdaLR(opt, lambda s: min(1.0, s / 500) * max(0.0, 1 - s / total_steps))
data = torch.randn(10**5, 8).split(16)
for it, x in enumerate(data):
    is_accumulation_step = (it + 1) % passes_per_step != 0
    loss = model(x).pow(2).mean() / passes_per_step
    if is_accumulation_step:
        with model.no_sync():
            loss.backward()
    else:
        loss.backward()
        opt.step()
        opt.zero_grad()
    lr_scheduler.step()
"""


def test_unsynced_prepared_scheduler_runs_ahead_of_accumulated_updates() -> None:
    assert "LRD017" in codes(UNSYNCED_STEPS)
    assert any("step_scheduler_with_optimizer=False" in m for m in messages(UNSYNCED_STEPS))


def test_synced_prepared_scheduler_is_silent() -> None:
    synced = UNSYNCED_STEPS.replace(", step_scheduler_with_optimizer=False", "")
    assert "LRD017" not in codes(synced)
    assert "LRD003" not in codes(synced)


def test_unsynced_scheduler_sized_in_micro_batches_is_silent() -> None:
    assert "LRD017" not in codes(UNSYNCED_MICRO_HORIZON)
    assert "LRD003" not in codes(UNSYNCED_MICRO_HORIZON)


def test_unsynced_scheduler_scaled_by_accumulation_is_silent() -> None:
    assert "LRD003" not in codes(UNSYNCED_TIMES_ACCUM)
    assert "LRD017" not in codes(UNSYNCED_TIMES_ACCUM)


def test_synced_scheduler_scaled_by_accumulation_lags() -> None:
    assert "LRD003" in codes(SYNCED_TIMES_ACCUM)


def test_literal_warmup_fraction_does_not_hide_a_micro_batch_horizon() -> None:
    assert "LRD003" in codes(SYNCED_MICRO_HORIZON_TENTH_WARMUP)


def test_literal_equal_to_the_accumulation_count_is_that_count() -> None:
    assert "LRD003" not in codes(SYNCED_LITERAL_ACCUM)


def test_scheduler_repointed_at_the_rebuilt_optimizer_is_silent() -> None:
    assert "LRD014" not in codes(REPOINTED)


def test_rebuilt_optimizer_without_repointing_is_stale() -> None:
    assert "LRD014" in codes(REPOINTED.replace("        scheduler.optimizer = optimizer\n", ""))


def test_repointing_inside_a_method_is_silent() -> None:
    assert "LRD014" not in codes(CLASS_REPOINTED)
    stale = CLASS_REPOINTED.replace("        self.scheduler.optimizer = self.optimizer\n", "")
    assert "LRD014" in codes(stale)


def test_repointing_through_accelerate_wrapper_is_silent() -> None:
    assert "LRD014" not in codes(WRAPPER_REPOINTED)
    stale = WRAPPER_REPOINTED.replace("                lr_scheduler.scheduler.optimizer = optimizer\n", "")
    assert "LRD014" in codes(stale)


def test_repointing_back_at_the_old_optimizer_stays_stale() -> None:
    back = REPOINTED.replace("optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)\nscheduler",
                             "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)\n"
                             "first = optimizer\nscheduler").replace(
        "        scheduler.optimizer = optimizer\n", "        scheduler.optimizer = first\n")
    assert "first = optimizer" in back and "scheduler.optimizer = first" in back
    assert "LRD014" in codes(back)


def test_engine_stepping_its_client_scheduler_is_silent() -> None:
    assert codes(ENGINE_OWNS_SCHEDULE) == []


def test_engine_scheduler_stepped_by_hand_too_is_reported() -> None:
    assert "LRD012" in codes(ENGINE_AND_HAND)


def test_accumulating_until_enough_samples_then_one_update_is_silent() -> None:
    assert codes(WHILE_ACCUMULATES) == []


def test_continue_before_the_update_is_silent() -> None:
    assert codes(CONTINUE_GUARD) == []


def test_bare_scheduler_under_sync_gradients_is_silent() -> None:
    assert codes(SYNC_GUARDED_BARE_SCHEDULER) == []
    unguarded = SYNC_GUARDED_BARE_SCHEDULER.replace(
        "        if accelerator.sync_gradients:\n            scheduler.step()",
        "            scheduler.step()")
    assert "LRD017" in codes(unguarded)


def test_counter_guard_with_the_scheduler_outside_runs_ahead() -> None:
    assert "LRD017" in codes(COUNTER_GUARD)


def test_no_sync_flag_branch_with_the_scheduler_outside_runs_ahead() -> None:
    assert "LRD017" in codes(NO_SYNC_FLAG)
