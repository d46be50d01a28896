"""Shapes seen in the fresh-2026-12zzc102 batch (rcnew102, bench/realcode/README.md):
multi-stage training and the lifetime of optimizers and schedulers.

Programs written for these tests; no third-party code.

- One of several schedulers a setting chooses (``if args.scheduler == "warmup": sch =
  get_cosine_schedule_with_warmup(...)`` / ``elif ...: sch = CosineAnnealingLR(...)`` /
  ``else: sch = ReduceLROnPlateau(...)``), stepped once per epoch under a test of that same
  setting (``if args.scheduler == "plateau": pass`` / ``elif args.scheduler == "warmup":
  sch.step()``). lrdoctor left every per-epoch step of a chosen scheduler alone when a test
  inside the epoch loop guarded it ("stepped per epoch only when a setting says"), so the
  warm-up schedule sized in batches and stepped per epoch went unreported. A test that the
  branches the scheduler was built on decide as taken (the same setting, the same value, or a
  value those branches rule out compared with ``!=``) says nothing new: whenever that
  scheduler is the one built, the step runs once per epoch. A test on another setting
  (``if args.step_per_epoch:``) still leaves the step alone.
- (probes of the theme) A schedule sized for one run of the epoch loop and stepped per batch
  (``OneCycleLR(epochs=E, steps_per_epoch=len(loader))``, ``CosineAnnealingLR(T_max=E *
  len(loader))``), built once before a loop over stages or folds that runs that epoch loop
  again (``for stage in range(2): for epoch in range(E): ...``, or ``for fold in range(5):
  train_fold(...)``). lrdoctor compared the horizon with the epoch loop alone, which spends it
  exactly, and missed that the second pass steps past it (OneCycleLR raises, a cosine climbs
  back). It now reports LRD010 when the loop around runs 2 or more passes (a number where it
  runs), with no test between the loops around the step, no ``break`` / ``return`` in it, and
  the scheduler neither rebuilt, restored nor given a new LR (nor a new optimizer built on its
  optimizer) during one of its passes.
- (probes of the theme) A stage boundary that writes the next stage's LR into the param
  groups after the last step of the first stage's scheduler (``for g in
  optimizer.param_groups: g["lr"] = stage2_lr``), then trains stage 2 under a scheduler of
  its own or none: LRD008 said the first scheduler's next step would fold the value in, but
  it has no next step. A step of that scheduler after the write, or a loop holding both,
  is still LRD008.
- Other shapes of the theme (a stage-2 optimizer beside the stage-1 scheduler, a scheduler
  built before a fold loop, SWA phases either/or or both stepped, a warm-up and a cosine both
  stepped, a schedule sized for one stage and stepped through two): lrdoctor already followed
  them; the tests keep it so, each with a correct twin that must stay silent.
"""

from __future__ import annotations

from .helpers import codes

# -- a chosen scheduler stepped per epoch under its own setting ------------------------------

CHOSEN = '''
import argparse
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, ReduceLROnPlateau
from transformers import get_cosine_schedule_with_warmup


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--scheduler", choices=["cosine", "plateau", "warmup"], default="cosine")
    parser.add_argument("--warmup-steps", type=int, default=500)
    args = parser.parse_args()
    model = torch.nn.Linear(16, 3)
    loader = torch.utils.data.DataLoader(torch.randn(256, 16), batch_size=32)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    total = len(loader) * args.epochs
    if args.scheduler == "warmup":
        sch = get_cosine_schedule_with_warmup(opt, args.warmup_steps, total)
    elif args.scheduler == "cosine":
        sch = CosineAnnealingLR(opt, T_max=args.epochs)
    else:
        sch = ReduceLROnPlateau(opt, mode="max", patience=3)
    for epoch in range(args.epochs):
        for x in loader:
            loss = model(x).square().mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
        score = float(model(torch.randn(8, 16)).mean())
STEP_AT_THE_END


if __name__ == "__main__":
    main()
'''

ELIF_CHAIN = '''\
        if args.scheduler == "plateau":
            sch.step(score)
        elif args.scheduler == "warmup":
            sch.step()
        else:
            sch.step()
'''


def test_warmup_chosen_and_stepped_per_epoch_under_its_setting_is_found() -> None:
    assert codes(CHOSEN.replace("STEP_AT_THE_END\n", ELIF_CHAIN)) == ["LRD003"]


def test_warmup_stepped_per_epoch_under_a_test_its_build_rules_in_is_found() -> None:
    step = '''\
        if args.scheduler != "plateau":
            sch.step()
        else:
            sch.step(score)
'''
    assert codes(CHOSEN.replace("STEP_AT_THE_END\n", step)) == ["LRD003"]


def test_warmup_chosen_and_stepped_per_batch_under_its_setting_is_silent() -> None:
    source = CHOSEN.replace(
        "            opt.zero_grad()\n",
        "            opt.zero_grad()\n"
        "            if args.scheduler == \"warmup\":\n"
        "                sch.step()\n").replace(
        "STEP_AT_THE_END\n",
        "        if args.scheduler == \"plateau\":\n"
        "            sch.step(score)\n"
        "        elif args.scheduler == \"cosine\":\n"
        "            sch.step()\n")
    assert "STEP_AT_THE_END" not in source
    assert codes(source) == []


def test_chosen_scheduler_stepped_per_epoch_under_another_setting_is_silent() -> None:
    source = CHOSEN.replace(
        '    parser.add_argument("--warmup-steps", type=int, default=500)\n',
        '    parser.add_argument("--warmup-steps", type=int, default=500)\n'
        '    parser.add_argument("--step-per-epoch", action="store_true")\n').replace(
        "            opt.zero_grad()\n",
        "            opt.zero_grad()\n"
        "            if not args.step_per_epoch and args.scheduler != \"plateau\":\n"
        "                sch.step()\n").replace(
        "STEP_AT_THE_END\n",
        "        if args.step_per_epoch:\n"
        "            sch.step()\n")
    assert "step_per_epoch" in source
    assert "LRD003" not in codes(source)


def test_epoch_sized_choice_stepped_per_epoch_under_its_setting_is_silent() -> None:
    source = CHOSEN.replace(
        "        sch = get_cosine_schedule_with_warmup(opt, args.warmup_steps, total)\n",
        "        sch = CosineAnnealingLR(opt, T_max=args.epochs - 1)\n").replace(
        "STEP_AT_THE_END\n", ELIF_CHAIN)
    assert "get_cosine_schedule_with_warmup(opt" not in source
    assert codes(source) == []


# -- the theme's other shapes: kept as they are -----------------------------------------------

HEAD = '''
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import CosineAnnealingLR, LambdaLR, OneCycleLR, StepLR
from torch.optim.swa_utils import AveragedModel, SWALR

model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,))), batch_size=8)
loss_fn = nn.CrossEntropyLoss()


def one_epoch(optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
'''

STAGE_TWO = HEAD + '''
optimizer = torch.optim.SGD(model[2].parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=4)
for epoch in range(8):
    one_epoch(optimizer)
    scheduler.step()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(8):
    one_epoch(optimizer)
    scheduler.step()
'''


def test_stage_two_optimizer_beside_the_stage_one_scheduler_is_found() -> None:
    assert codes(STAGE_TWO) == ["LRD014"]


def test_stage_two_optimizer_with_its_own_scheduler_is_silent() -> None:
    source = STAGE_TWO.replace(
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n",
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.01)\n"
        "scheduler = StepLR(optimizer, step_size=4)\n")
    assert source != STAGE_TWO
    assert codes(source) == []


FOLDS = HEAD + '''
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=6)
for fold in range(4):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(6):
        one_epoch(optimizer)
        scheduler.step()
'''


def test_scheduler_built_before_the_fold_loop_is_found() -> None:
    assert "LRD014" in codes(FOLDS)


def test_optimizer_and_scheduler_built_per_fold_are_silent() -> None:
    source = FOLDS.replace(
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "scheduler = CosineAnnealingLR(optimizer, T_max=6)\n"
        "for fold in range(4):\n"
        "    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n",
        "for fold in range(4):\n"
        "    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "    scheduler = CosineAnnealingLR(optimizer, T_max=6)\n")
    assert source != FOLDS
    assert codes(source) == []


SWA_BOTH = HEAD + '''
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = CosineAnnealingLR(optimizer, T_max=30)
swa_model = AveragedModel(model)
swa_scheduler = SWALR(optimizer, swa_lr=0.05)
for epoch in range(30):
    one_epoch(optimizer)
    scheduler.step()
    if epoch >= 20:
        swa_model.update_parameters(model)
        swa_scheduler.step()
'''


def test_swa_scheduler_and_cosine_both_stepped_in_the_swa_phase_is_found() -> None:
    assert codes(SWA_BOTH) == ["LRD012"]


def test_swa_scheduler_or_cosine_either_or_is_silent() -> None:
    source = SWA_BOTH.replace(
        "    scheduler.step()\n"
        "    if epoch >= 20:\n"
        "        swa_model.update_parameters(model)\n"
        "        swa_scheduler.step()\n",
        "    if epoch >= 20:\n"
        "        swa_model.update_parameters(model)\n"
        "        swa_scheduler.step()\n"
        "    else:\n"
        "        scheduler.step()\n").replace("T_max=30", "T_max=20")
    assert source != SWA_BOTH
    assert codes(source) == []


WARM_AND_COSINE = HEAD + '''
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
warm = LambdaLR(optimizer, lambda e: min(1.0, (e + 1) / 5))
cosine = CosineAnnealingLR(optimizer, T_max=30)
for epoch in range(30):
    one_epoch(optimizer)
    warm.step()
    cosine.step()
'''


def test_warmup_and_cosine_both_stepped_every_epoch_is_found() -> None:
    assert codes(WARM_AND_COSINE) == ["LRD012"]


def test_warmup_then_cosine_phases_is_silent() -> None:
    source = WARM_AND_COSINE.replace(
        "    warm.step()\n    cosine.step()\n",
        "    if epoch < 5:\n        warm.step()\n    else:\n        cosine.step()\n").replace(
        "T_max=30", "T_max=25")
    assert source != WARM_AND_COSINE
    assert codes(source) == []


ONE_STAGE_HORIZON = HEAD + '''
stage1_epochs = 10
stage2_epochs = 10
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = CosineAnnealingLR(optimizer, T_max=stage1_epochs)
for epoch in range(stage1_epochs):
    one_epoch(optimizer)
    scheduler.step()
for p in model[0].parameters():
    p.requires_grad = False
for epoch in range(stage2_epochs):
    one_epoch(optimizer)
    scheduler.step()
'''


def test_cosine_of_stage_one_stepped_through_stage_two_is_found() -> None:
    assert codes(ONE_STAGE_HORIZON) == ["LRD010"]


def test_cosine_rebuilt_for_stage_two_is_silent() -> None:
    source = ONE_STAGE_HORIZON.replace(
        "for p in model[0].parameters():\n",
        "scheduler = CosineAnnealingLR(optimizer, T_max=stage2_epochs)\n"
        "for p in model[0].parameters():\n")
    assert source != ONE_STAGE_HORIZON
    assert codes(source) == []


ONECYCLE_LONGER_LOOP = HEAD + '''
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = OneCycleLR(optimizer, max_lr=1e-2, epochs=5, steps_per_epoch=len(loader))
for epoch in range(10):
    for x, y in loader:
        optimizer.zero_grad()
        loss_fn(model(x), y).backward()
        optimizer.step()
        scheduler.step()
'''


def test_onecycle_sized_for_half_the_epochs_is_found() -> None:
    assert codes(ONECYCLE_LONGER_LOOP) == ["LRD010"]


def test_onecycle_sized_for_the_loop_is_silent() -> None:
    source = ONECYCLE_LONGER_LOOP.replace("epochs=5,", "epochs=10,")
    assert source != ONECYCLE_LONGER_LOOP
    assert codes(source) == []


# -- a schedule spent by one run of the epoch loop, run again by a loop around it -------------

STAGES = HEAD + '''
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = OneCycleLR(optimizer, max_lr=1e-2, epochs=5, steps_per_epoch=len(loader))
for stage in range(2):
    for epoch in range(5):
        for x, y in loader:
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()
            scheduler.step()
'''


def test_onecycle_sized_for_one_stage_run_by_a_stage_loop_is_found() -> None:
    assert codes(STAGES) == ["LRD010"]


def test_onecycle_built_in_every_stage_is_silent() -> None:
    source = STAGES.replace(
        "scheduler = OneCycleLR(optimizer, max_lr=1e-2, epochs=5, steps_per_epoch=len(loader))\n"
        "for stage in range(2):\n",
        "for stage in range(2):\n"
        "    scheduler = OneCycleLR(optimizer, max_lr=1e-2, epochs=5, "
        "steps_per_epoch=len(loader))\n")
    assert source != STAGES
    assert codes(source) == []


def test_onecycle_stage_loop_of_one_pass_is_silent() -> None:
    source = STAGES.replace("for stage in range(2):", "for stage in range(1):")
    assert source != STAGES
    assert codes(source) == []


def test_onecycle_stepped_only_in_the_first_stage_is_silent() -> None:
    source = STAGES.replace(
        "            scheduler.step()\n",
        "            if stage == 0:\n                scheduler.step()\n")
    assert source != STAGES
    assert codes(source) == []


def test_stage_loop_that_may_stop_after_one_pass_is_silent() -> None:
    source = STAGES + "    if stage == 0:\n        break\n"
    assert codes(source) == []


FOLDS_BY_BATCH = HEAD + '''
EPOCHS = 3
start = {k: v.clone() for k, v in model.state_dict().items()}


def train_fold(optimizer, scheduler):
    for epoch in range(EPOCHS):
        for x, y in loader:
            optimizer.zero_grad()
            loss_fn(model(x), y).backward()
            optimizer.step()
            scheduler.step()


optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
scheduler = CosineAnnealingLR(optimizer, T_max=EPOCHS * len(loader))
for fold in range(5):
    model.load_state_dict(start)
    train_fold(optimizer, scheduler)
'''


def test_batch_cosine_built_before_the_fold_loop_is_found() -> None:
    assert codes(FOLDS_BY_BATCH) == ["LRD010"]


def test_batch_cosine_built_per_fold_is_silent() -> None:
    source = FOLDS_BY_BATCH.replace(
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "scheduler = CosineAnnealingLR(optimizer, T_max=EPOCHS * len(loader))\n"
        "for fold in range(5):\n",
        "for fold in range(5):\n"
        "    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "    scheduler = CosineAnnealingLR(optimizer, T_max=EPOCHS * len(loader))\n")
    assert source != FOLDS_BY_BATCH
    assert codes(source) == []


# -- the LR written for stage 2 after stage 1's scheduler has stopped -------------------------

STAGE_LR = HEAD + '''
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
stage1 = CosineAnnealingLR(optimizer, T_max=10)
for epoch in range(10):
    one_epoch(optimizer)
    stage1.step()
for group in optimizer.param_groups:
    group["lr"] = 0.01
STAGE_TWO_LOOP
'''


def test_stage_two_lr_written_then_its_own_scheduler_is_silent() -> None:
    source = STAGE_LR.replace(
        "STAGE_TWO_LOOP\n",
        "stage2 = StepLR(optimizer, step_size=3)\n"
        "for epoch in range(10):\n"
        "    one_epoch(optimizer)\n"
        "    stage2.step()\n")
    assert codes(source) == []


def test_stage_two_lr_written_then_constant_is_silent() -> None:
    source = STAGE_LR.replace(
        "STAGE_TWO_LOOP\n",
        "for epoch in range(5):\n"
        "    one_epoch(optimizer)\n")
    assert codes(source) == []


def test_stage_two_lr_written_while_stage_one_scheduler_goes_on_is_found() -> None:
    source = STAGE_LR.replace("T_max=10", "T_max=20").replace(
        "STAGE_TWO_LOOP\n",
        "for epoch in range(10):\n"
        "    one_epoch(optimizer)\n"
        "    stage1.step()\n")
    assert codes(source) == ["LRD008"]


def test_lr_written_each_epoch_after_the_step_is_found() -> None:
    source = HEAD + '''

def set_lr(optimizer, epoch):
    if epoch == 5:
        for group in optimizer.param_groups:
            group["lr"] = 0.01


optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = CosineAnnealingLR(optimizer, T_max=20)
for epoch in range(20):
    one_epoch(optimizer)
    scheduler.step()
    set_lr(optimizer, epoch)
'''
    assert codes(source) == ["LRD008"]


def test_stage_two_lr_written_between_stage_functions_is_silent() -> None:
    source = HEAD + '''

def stage_one(optimizer, epochs):
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        one_epoch(optimizer)
        scheduler.step()


def stage_two(optimizer, epochs):
    for epoch in range(epochs):
        one_epoch(optimizer)


def main():
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    stage_one(optimizer, 10)
    for group in optimizer.param_groups:
        group["lr"] = 0.001
    stage_two(optimizer, 5)


if __name__ == "__main__":
    main()
'''
    assert codes(source) == []
