"""Shapes seen in the fresh-2026-12zzi108 batch (rcnew108, bench/realcode/README.md): gradient
accumulation and hand-written warm-ups in training loops (schedulers inside or outside the
accumulation test, warm-ups written to ``param_group['lr']`` then handed to a scheduler,
schedulers stepped at the top of the epoch).

Programs written for these tests; no third-party code.

One dev miss of the batch, fixed: a LambdaLR whose factor closes over ``total_steps =
epochs * steps_per_epoch`` and is stepped only under ``(step + 1) % accum == 0``, in a batch
loop ``for step in range(num_steps)`` handed ``steps_per_epoch``. Two gaps hid it (LRD003):
the length of a LambdaLR factor was followed only into a closure, not into a function of the
module (``def lr_lambda(step):`` at the top of a script), and a count of steps the walk could
not resolve (``args.steps_per_epoch``, set from the data when 0) ended the walk, although it is
the very count the batch loop makes its passes by: one micro-batch per pass, so ``epochs *``
that count is a horizon in micro-batches whatever the program set it from.

Beside it, the rule that reads an accumulation count the program states as 1 (an option's
default) as no accumulation now follows the count through the parameters it is handed in by
(``train_epoch(..., args.accum)``), as it already did for a count read where the scheduler
was built; and it yields to the project's own launch scripts and docs when they run the
program with more (``--gradient-accumulation-steps 4`` in a README or a shell script).

Probing the family: one false alarm, fixed (LRD008). A warm-up helper that answers whether it
wrote the LR (``return True`` after the writes, ``return False`` otherwise) and a scheduler
stepped only when it answered no (``if not adjust_lr(opt, epoch): sched.step()``, or through a
name bound to the answer) hand over as ``if epoch < warm: ... else: sched.step()`` does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, project_codes

# -- LRD003: a LambdaLR sized in micro-batches, stepped once per accumulated update ----------

MODULE_FACTOR = '''
import math
import torch
from torch.utils.data import DataLoader

net = torch.nn.Linear(8, 1)
rows = DataLoader(torch.randn(512, 8), batch_size=16)
opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
n_epochs, warm = 5, 100
total = {total}


def factor(step):
    if step < warm:
        return step / max(1, warm)
    done = (step - warm) / max(1, total - warm)
    return max(0.1, 0.5 * (1.0 + math.cos(math.pi * done)))


sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
merge = 4
for epoch in range(n_epochs):
    for k, x in enumerate(rows):
        (net(x).pow(2).mean() / merge).backward()
        if (k + 1) % merge == 0:
            opt.step()
            sched.step()
            opt.zero_grad()
'''


def test_module_level_factor_over_loader_batches_is_reported() -> None:
    assert "LRD003" in codes(MODULE_FACTOR.replace("{total}", "n_epochs * len(rows)"))


def test_module_level_factor_over_updates_is_silent() -> None:
    assert "LRD003" not in codes(MODULE_FACTOR.replace("{total}", "n_epochs * len(rows) // 4"))


TRIP_COUNT = '''
import argparse
import math
import torch
{extra_import}
cli = argparse.ArgumentParser()
cli.add_argument("--epochs", type=int, default=5)
cli.add_argument("--steps-per-epoch", type=int, default=0)
cli.add_argument("--accum", type=int, default={accum})
cli.add_argument("--warmup", type=int, default=100)
pool = torch.randn(4096, 8)


def sample(bs):
    return pool[torch.randint(0, pool.shape[0], (bs,))]


def run_epoch(model, optimizer, scheduler, num_steps, accum):
    optimizer.zero_grad()
    {header}
        x = sample(32)
        (model(x).pow(2).mean() / accum).backward()
        if (step + 1) % accum == 0:
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()


def main():
    args = cli.parse_args()
    if args.steps_per_epoch <= 0:
        args.steps_per_epoch = len(pool) // 32
    model = torch.nn.Linear(8, 1)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    total_steps = {total}

    def lr_lambda(s):
        if s < args.warmup:
            return s / max(1, args.warmup)
        progress = (s - args.warmup) / max(1, total_steps - args.warmup)
        return max(0.1, 0.5 * (1.0 + math.cos(math.pi * progress)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    for epoch in range(args.epochs):
        run_epoch(model, optimizer, scheduler, args.steps_per_epoch, args.accum)


main()
'''


def _trip(total: str = "args.epochs * args.steps_per_epoch", accum: int = 4,
          header: str = "for step in range(num_steps):", extra_import: str = "") -> str:
    return (TRIP_COUNT.replace("{total}", total).replace("{accum}", str(accum))
            .replace("{header}", header).replace("{extra_import}", extra_import))


def test_horizon_of_epochs_times_the_loops_own_count_is_reported() -> None:
    assert "LRD003" in codes(_trip())


def test_loop_count_through_a_progress_bar_is_the_same_count() -> None:
    source = _trip(header="pbar = tqdm(range(num_steps))\n    for step in pbar:",
                   extra_import="from tqdm import tqdm")
    assert "LRD003" in codes(source)


def test_horizon_divided_by_the_accumulation_count_is_silent() -> None:
    assert "LRD003" not in codes(_trip(total="args.epochs * args.steps_per_epoch // args.accum"))


def test_loop_making_accum_passes_per_counted_step_is_silent() -> None:
    # `range(num_steps * accum)`: the count the horizon multiplies is one of updates
    assert "LRD003" not in codes(_trip(header="for step in range(num_steps * accum):"))


def test_accumulation_option_defaulting_to_one_handed_in_is_silent() -> None:
    assert "LRD003" not in codes(_trip(accum=1))


HANDED_COUNT = '''
import argparse
import torch
from torch.utils.data import DataLoader

p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--merge-steps", type=int, default=1)
args = p.parse_args()


def train_one_epoch(net, feed, opt, sched, merge):
    for k, rows in enumerate(feed):
        (net(rows).pow(2).mean() / merge).backward()
        if (k + 1) % merge == 0:
            opt.step()
            opt.zero_grad()
            sched.step()


net = torch.nn.Linear(6, 1)
feed = DataLoader(torch.randn(320, 6), batch_size=20)
opt = torch.optim.AdamW(net.parameters(), lr=5e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=args.epochs * len(feed))
for epoch in range(args.epochs):
    train_one_epoch(net, feed, opt, sched, args.merge_steps)
'''


def test_count_defaulting_to_one_through_a_parameter_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {"train.py": HANDED_COUNT})
    assert "LRD003" not in project_codes(found)


@pytest.mark.parametrize("doc, text", [
    ("README.md", "```bash\npython train.py --epochs 3 --merge-steps 4\n```\n"),
    ("scripts/run.sh", "python train.py --merge_steps=8 --epochs 3\n"),
])
def test_launch_text_running_it_with_more_is_reported(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, doc: str, text: str) -> None:
    found = check_project(tmp_path, monkeypatch, {"train.py": HANDED_COUNT, doc: text},
                          checked=["train.py"])
    assert "LRD003" in project_codes(found)


def test_launch_text_running_it_with_one_is_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "train.py": HANDED_COUNT, "run.sh": "python train.py --merge-steps 1\n"},
        checked=["train.py"])
    assert "LRD003" not in project_codes(found)


# -- LRD008: a warm-up helper that answers whether it wrote ------------------------------------

ANSWERING_WARM_UP = '''
import torch
from torch.utils.data import DataLoader

net = torch.nn.Linear(8, 1)
feed = DataLoader(torch.randn(512, 8), batch_size=16)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)


def warm_up(optimizer, epoch, warm=5):
    if epoch < warm:
        for g in optimizer.param_groups:
            g["lr"] = 0.1 * (epoch + 1) / warm
        return True
    return {otherwise}


sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=25)
for epoch in range(30):
    for x in feed:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
{tail}
'''


def _answering(tail: str, otherwise: str = "False") -> str:
    return ANSWERING_WARM_UP.replace("{tail}", tail).replace("{otherwise}", otherwise)


def test_step_on_the_helpers_no_is_a_hand_over() -> None:
    assert "LRD008" not in codes(_answering("    if not warm_up(opt, epoch):\n"
                                            "        sched.step()"))


def test_step_on_a_name_bound_to_the_answer_is_a_hand_over() -> None:
    assert "LRD008" not in codes(_answering("    warming = warm_up(opt, epoch)\n"
                                            "    if not warming:\n        sched.step()"))


def test_step_whatever_the_helper_answers_is_reported() -> None:
    assert "LRD008" in codes(_answering("    warm_up(opt, epoch)\n    sched.step()"))


def test_step_on_the_helpers_yes_is_reported() -> None:
    assert "LRD008" in codes(_answering("    if warm_up(opt, epoch):\n        sched.step()"))


def test_helper_answering_yes_either_way_is_reported() -> None:
    assert "LRD008" in codes(_answering("    if not warm_up(opt, epoch):\n        sched.step()",
                                        otherwise="True"))


# -- shapes of the batch lrdoctor already read right (kept as regression tests) ----------------

TOP_OF_RUN = '''
import torch
from torch.utils.data import DataLoader

net = torch.nn.Linear(8, 1)
feed = DataLoader(torch.randn(512, 8), batch_size=16)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)


def run(train=True, epoch=0):
    if train:
        {first}
        net.train()
    else:
        net.eval()
    for x in feed:
        loss = net(x).pow(2).mean()
        if train:
            opt.zero_grad()
            loss.backward()
            opt.step()
    {last}


for epoch in range(30):
    run(True, epoch)
    run(False, epoch)
'''


def test_scheduler_at_the_top_of_a_train_mode_run_is_lrd001() -> None:
    assert "LRD001" in codes(TOP_OF_RUN.replace("{first}", "sched.step()")
                             .replace("{last}", "pass"))


def test_scheduler_at_the_end_of_a_train_mode_run_is_silent() -> None:
    source = TOP_OF_RUN.replace("{first}", "pass").replace(
        "{last}", "if train:\n        sched.step()")
    assert "LRD001" not in codes(source)


HAND_OVER_AT_THE_TOP = '''
import torch
from torch.utils.data import DataLoader

net = torch.nn.Linear(8, 1)
feed = DataLoader(torch.randn(512, 8), batch_size=16)
opt = torch.optim.Adam(net.parameters(), lr=1e-5)
warm = 5
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30 - warm, eta_min=1e-5)
for epoch in range(30):
    if 0 < epoch <= warm:
        opt.param_groups[0]["lr"] = 1e-5 + 9e-5 / warm * epoch
    elif epoch > warm:
        sched.step()
    for x in feed:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
'''


def test_warm_up_handing_over_at_the_top_of_the_epoch_is_silent() -> None:
    assert set(codes(HAND_OVER_AT_THE_TOP)) & {"LRD001", "LRD008"} == set()


WARM_EPOCH_THEN_DECAY = '''
import torch
from torch.utils.data import DataLoader

net = torch.nn.Linear(8, 1)
feed = DataLoader(torch.randn(512, 8), batch_size=16)
opt = torch.optim.AdamW(net.parameters(), lr=2e-5)
warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, s / 300))
decay = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
for epoch in range(5):
    if epoch >= 1:
        decay.step()
    for x in feed:
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
        if epoch == 0:
            warm.step()
'''


def test_warm_up_in_epoch_zero_then_decay_from_epoch_one_is_silent() -> None:
    assert set(codes(WARM_EPOCH_THEN_DECAY)) & {"LRD001", "LRD008", "LRD012"} == set()


WHOLE_EPOCH_ACCUMULATION = '''
import torch
from torch.utils.data import DataLoader

net = torch.nn.Linear(8, 1)
feed = DataLoader(torch.randn(512, 8), batch_size=16)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=30)
accumulation = len(feed)
for epoch in range(30):
    opt.zero_grad()
    for i, x in enumerate(feed):
        (net(x).pow(2).mean() / accumulation).backward()
        if (i + 1) % accumulation == 0:
            opt.step()
            opt.zero_grad()
    sched.step()
'''


def test_full_batch_accumulation_with_an_epoch_scheduler_is_silent() -> None:
    assert set(codes(WHOLE_EPOCH_ACCUMULATION)) & {"LRD003", "LRD017", "LRD002"} == set()


def test_message_names_the_launch_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, {
        "train.py": HANDED_COUNT, "README.md": "python train.py --merge-steps 4\n"},
        checked=["train.py"])
    assert "LRD003" in project_codes(found)
    assert any("README.md runs it with `--merge-steps 4`" in m
               for m in messages_of(tmp_path, monkeypatch))


def messages_of(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.chdir(tmp_path)
    report = check_files(["train.py"], frozenset(CATALOG), jobs=1)
    return [d.message for d in report.diagnostics]
