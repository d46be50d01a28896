"""Shapes of the fresh-2026-12zzp115 batch (rcnew115, bench/realcode/README.md): schedule
horizons against the loop that really runs (OneCycleLR, CyclicLR, warm-up + cosine, resume,
early stopping, wall-clock budgets, accumulation).

Programs written for these tests; no third-party code.

One dev miss, fixed (LRD010): an agent-run experiment script steps
``SequentialLR([LinearLR(total_iters=10), CosineAnnealingLR(T_max=66)], milestones=[10])``
once per epoch in ``for epoch in range(MAX_EPOCHS)`` with ``MAX_EPOCHS = 100`` and a
30-minute wall-clock ``break`` at the top of each pass; a ``if cfg.debug: MAX_EPOCHS = 3``
further down. Three gaps, each its own semantics:

- a SequentialLR whose last scheduler is a CosineAnnealingLR ends its cosine at the last
  milestone plus T_max; stepped once per epoch in a loop that makes more passes, the cosine
  climbs back up (the rule judged only a bare CosineAnnealingLR);
- a ``break`` that only ends a wall-clock budget (``if elapsed >= limit: break``, the elapsed
  time read from ``time.time()`` and the like) does not make the loop shorter than its count
  when the machine is fast enough: such a stop no longer silences the epoch-cosine and the
  OneCycleLR-epochs rules, and the message says the limit may end the loop first (a
  ``break`` on anything else, early stopping on a metric, still does);
- the trace held the count of the debug rebinding (3 passes) for the loop; a module constant
  bound once at the module's top level to a number (100) is what the loop makes on every path
  that skips the rebinding, and that count is judged too.
"""

from __future__ import annotations

from .helpers import codes, findings, messages

HEAD = '''
import time
import torch
from torch.utils.data import DataLoader

model = torch.nn.Linear(4, 2)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(torch.randn(80, 4), batch_size=8)
'''

EPOCH_BODY = '''
    for x in loader:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    sched.step()
'''

SEQUENTIAL = '''
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=WARM)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=TMAX, eta_min=5e-5)
sched = torch.optim.lr_scheduler.SequentialLR(opt, schedulers=[warm, cosine], milestones=[WARM])
'''

BUDGET = '''
start = time.time()
for epoch in range(EPOCHS):
    elapsed_min = (time.time() - start) / 60.0
    if elapsed_min >= 30.0:
        print("out of time")
        break
'''

PLAIN_LOOP = '''
for epoch in range(EPOCHS):
'''


def _program(schedule: str, loop: str, warm: str = "10", tmax: str = "66",
             epochs: str = "100") -> str:
    text = HEAD + f"WARM = {warm}\nEPOCHS = {epochs}\n" + schedule + loop + EPOCH_BODY
    return text.replace("TMAX", tmax)


def test_sequential_warmup_cosine_per_epoch_runs_past_its_end() -> None:
    source = _program(SEQUENTIAL, PLAIN_LOOP)
    assert codes(source) == ["LRD010"]
    assert "SequentialLR ending in CosineAnnealingLR(T_max=66)" in messages(source)[0]


def test_sequential_cosine_past_its_end_under_a_wall_clock_budget() -> None:
    source = _program(SEQUENTIAL, BUDGET)
    found = findings(source)
    assert [code for code, _ in found] == ["LRD010"]
    assert "wall-clock limit" in messages(source)[0]


def test_sequential_cosine_sized_to_the_loop_is_silent() -> None:
    # 10 epochs of warm-up and 90 of cosine in a loop of 100
    assert codes(_program(SEQUENTIAL, BUDGET, tmax="EPOCHS - WARM")) == []
    assert codes(_program(SEQUENTIAL, PLAIN_LOOP, tmax="EPOCHS - WARM")) == []


def test_sequential_cosine_with_the_loop_extended_by_the_warmup_is_silent() -> None:
    # T_max = EPOCHS after a warm-up of WARM epochs, in a loop of EPOCHS + WARM passes
    loop = "for epoch in range(EPOCHS + WARM):\n"
    assert codes(_program(SEQUENTIAL, loop, tmax="EPOCHS")) == []


def test_sequential_cosine_sized_to_fewer_epochs_than_the_loop_by_settings() -> None:
    loop = "for epoch in range(EPOCHS + 10):\n"
    assert codes(_program(SEQUENTIAL, loop, tmax="EPOCHS - WARM")) == ["LRD010"]


def test_sequential_ending_in_an_exponential_decay_is_silent() -> None:
    schedule = SEQUENTIAL.replace(
        "torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=TMAX, eta_min=5e-5)",
        "torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.97)")
    assert codes(_program(schedule, PLAIN_LOOP)) == []


def test_sequential_with_milestones_held_in_a_name_is_left_alone() -> None:
    schedule = SEQUENTIAL.replace("milestones=[WARM]", "milestones=MILESTONES")
    source = _program("MILESTONES = [WARM]\n" + schedule, PLAIN_LOOP)
    assert codes(source) == []


def test_three_stage_sequential_ends_at_the_last_milestone_plus_tmax() -> None:
    schedule = '''
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=5)
hold = torch.optim.lr_scheduler.ConstantLR(opt, factor=1.0, total_iters=5)
cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=60)
sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, hold, cosine], milestones=[5, 10])
'''
    assert codes(_program(schedule, PLAIN_LOOP)) == ["LRD010"]  # 10 + 60 < 100
    assert codes(_program(schedule.replace("T_max=60", "T_max=90"), PLAIN_LOOP)) == []


COSINE = '''
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=TMAX)
'''


def test_cosine_shorter_than_the_loop_under_a_wall_clock_budget() -> None:
    source = _program(COSINE, BUDGET, tmax="76")
    assert codes(source) == ["LRD010"]
    assert "wall-clock limit" in messages(source)[0]


def test_cosine_sized_to_the_loop_under_a_wall_clock_budget_is_silent() -> None:
    assert codes(_program(COSINE, BUDGET, tmax="EPOCHS")) == []


def test_budget_beside_early_stopping_on_a_metric_is_silent() -> None:
    loop = BUDGET + '''    if epoch > 10 and float(model(torch.randn(2, 4)).sum()) > 0:
        break
'''
    assert codes(_program(COSINE, loop, tmax="76")) == []


def test_budget_test_joined_with_a_metric_is_early_stopping() -> None:
    loop = '''
start = time.time()
best = 0.0
for epoch in range(EPOCHS):
    if time.time() - start > 1800 or best > 0.99:
        break
'''
    assert codes(_program(COSINE, loop, tmax="76")) == []


def test_budget_read_through_perf_counter_names() -> None:
    loop = '''
t0 = time.perf_counter()
for epoch in range(EPOCHS):
    now = time.perf_counter()
    spent = now - t0
    if spent > 1800:
        break
'''
    assert codes(_program(COSINE, loop, tmax="76")) == ["LRD010"]


ONECYCLE = '''
import time
import torch
from torch.utils.data import DataLoader

EPOCHS = 20
model = torch.nn.Linear(4, 2)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
loader = DataLoader(torch.randn(80, 4), batch_size=8)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, epochs=EPOCHS,
                                            steps_per_epoch=len(loader))
start = time.time()
for epoch in range(LOOP):
    if time.time() - start > 600:
        break
    for x in loader:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
        sched.step()
'''


def test_onecycle_for_fewer_epochs_than_the_loop_under_a_wall_clock_budget() -> None:
    source = ONECYCLE.replace("LOOP", "EPOCHS + 5")
    assert codes(source) == ["LRD010"]
    assert "wall-clock limit" in messages(source)[0]


def test_onecycle_sized_to_the_loop_under_a_wall_clock_budget_is_silent() -> None:
    assert codes(ONECYCLE.replace("LOOP", "EPOCHS")) == []


DEBUG_REBIND = '''
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--debug", action="store_true")
args = parser.parse_args()
EPOCHS = 100
if args.debug:
    EPOCHS = 2
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=TMAX)
loader = [torch.randn(8, 4) for _ in range(10)]
for epoch in range(EPOCHS):
    for x in loader:
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    sched.step()
'''


def test_count_rebound_under_a_test_keeps_the_count_the_module_binds() -> None:
    source = DEBUG_REBIND.replace("TMAX", "80")
    assert codes(source) == ["LRD010"]
    assert "100 passes the file binds" in messages(source)[0]


def test_count_rebound_under_a_test_with_a_horizon_from_the_same_name_is_silent() -> None:
    assert codes(DEBUG_REBIND.replace("TMAX", "EPOCHS")) == []


def test_count_rebound_to_more_under_a_test_keeps_the_trace_count() -> None:
    source = DEBUG_REBIND.replace("TMAX", "100").replace("EPOCHS = 2", "EPOCHS = 3")
    assert codes(source) == []
