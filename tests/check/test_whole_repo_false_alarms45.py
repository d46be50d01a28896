"""lead50: LRD012 on the torchvision detection reference's epoch-0 warm-up (read in the whole
repositories of the regression set: an image-processing tutorial repository reported it on
four of its trainers).

``train_one_epoch(model, opt, loader, epoch)`` builds a local warm-up scheduler under ``if
epoch == 0:`` and steps it after every update; the driver steps its main schedule once per
epoch, after the call. All the warm-up's steps come before the main schedule's first step, and
no later pass builds or steps the warm-up again (its name is local to the call), so the two
never step the optimizer in turn: a hand-over, not two competing schedules. With a main
schedule that recomputes the LR from its base values (a cosine LambdaLR) lrdoctor reported
"LambdaLR recomputes the LR ... erasing what the warm-up did" (with a chainable MultiStepLR it
was already silent). Now a scheduler that steps only on the first pass of the loop that holds
both steps, and before the other's step there, does not compete with it: every step of it is
under a test that holds on no later pass (``epoch == 0``, ``epoch < 1``, ``not epoch``, the
``else`` of ``epoch > 0``), or it is built under such a test in a function the loop calls,
held in a local name of that call and stepped only there. A warm-up rebuilt on every pass, kept
alive across passes, stepped on more than the first pass, or handed back to the caller is
still reported.

2. LRD003 on a Lightning module (an alignment trainer of a face-analysis repository)
   returning ``LambdaLR(opt, lr_step_func)`` with ``"interval": "epoch"``, where ``def
   lr_step_func(epoch): return 0.1 ** len([m for m in [15, 25, 28] if m <= epoch])`` counts
   the milestones passed (epochs; ``max_epochs=30``). lrdoctor read the word ``len`` in the
   factor as "batches" (as in ``len(loader)``) and so the horizon as counted in batches.
   ``len`` of a collection the factor writes out itself counts its items; ``len(loader)``
   still says batches.

3. (probes, lead50) LRD003 on a CyclicLR / OneCycleLR whose length the code fixes at a small
   number, stepped once per epoch: ``CyclicLR(step_size_up=5)`` cycles over ten epochs,
   ``OneCycleLR(total_steps=30)`` runs its whole schedule over 30 epochs. lrdoctor read the
   horizon as batches from the class's design alone and said "one cycle takes thousands of
   epochs". A length of at most 100 fixed in the code reads as epochs; the CyclicLR default
   (2,000 steps), a length the code does not fix, and ``steps_per_epoch`` are still batches.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files

from .helpers import check_project, codes, project_codes

_ENGINE = """
import torch


def warm_up(optimizer, iters, factor):
    def f(x):
        if x >= iters:
            return 1
        alpha = float(x) / iters
        return factor * (1 - alpha) + alpha

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=f)


def train_one_epoch(model, optimizer, loader, epoch):
    model.train()
    warm = None
    if {guard}:
        warm = warm_up(optimizer, min(1000, len(loader) - 1), 1.0 / 1000)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if warm is not None:
            warm.step()
    return loss.item()
"""

_DRIVER = """
import math
import torch
from engine import train_one_epoch


def main(args, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    lf = lambda e: ((1 + math.cos(e * math.pi / args.epochs)) / 2) * 0.9 + 0.1
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=lf)
    for epoch in range({start}args.epochs):
        train_one_epoch(model, optimizer, loader, epoch)
        scheduler.step()
"""


@pytest.mark.parametrize("guard", ["epoch == 0", "epoch < 1", "not epoch",
                                   "epoch == 0 and args_warmup"])
@pytest.mark.parametrize("start", ["", "args.start_epoch, "])
def test_epoch_zero_warm_up_in_the_epoch_function_hands_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: str, start: str) -> None:
    engine = _ENGINE.replace("{guard}", guard).replace(
        "def train_one_epoch(model, optimizer, loader, epoch):",
        "def train_one_epoch(model, optimizer, loader, epoch, args_warmup=True):")
    found = check_project(tmp_path, monkeypatch, {
        "engine.py": engine, "train.py": _DRIVER.replace("{start}", start)})
    assert "LRD012" not in project_codes(found)


@pytest.mark.parametrize("guard", ["True", "epoch < 3", "epoch > 0", "epoch != 0"])
def test_warm_up_built_on_later_passes_still_competes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: str) -> None:
    # rebuilt on every pass (or on passes after the first): each warm-up restarts from the
    # base LR over the decay the main schedule set
    found = check_project(tmp_path, monkeypatch, {
        "engine.py": _ENGINE.replace("{guard}", guard),
        "train.py": _DRIVER.replace("{start}", "")})
    assert "LRD012" in project_codes(found)


def test_warm_up_handed_back_to_the_driver_still_competes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    engine = _ENGINE.replace("{guard}", "epoch == 0").replace(
        "    return loss.item()", "    return warm")
    driver = _DRIVER.replace("{start}", "").replace(
        "        train_one_epoch(model, optimizer, loader, epoch)\n",
        "        warm = train_one_epoch(model, optimizer, loader, epoch)\n"
        "        for x, y in loader:\n"
        "            optimizer.step()\n"
        "            warm.step()\n")
    found = check_project(tmp_path, monkeypatch, {"engine.py": engine, "train.py": driver})
    assert "LRD012" in project_codes(found)


_ONE_FILE = """
import math
import torch

model = torch.nn.Linear(4, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
warm = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda i: min(1.0, (i + 1) / 50))
main_sched = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda e: 0.5 * (1 + math.cos(math.pi * e / 30)))
loader = [(torch.randn(8, 4), torch.randint(0, 2, (8,))) for _ in range(60)]
for epoch in range(30):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if {guard}:
            warm.step()
    main_sched.step()
"""


@pytest.mark.parametrize("guard", ["epoch == 0", "epoch < 1"])
def test_warm_up_stepped_only_in_the_first_epoch_hands_over(guard: str) -> None:
    assert "LRD012" not in codes(_ONE_FILE.replace("{guard}", guard))


@pytest.mark.parametrize("guard", ["epoch < 3", "True", "epoch % 2 == 0"])
def test_warm_up_stepped_in_later_epochs_competes(guard: str) -> None:
    # the main schedule's decay at the end of epoch 0 is erased by the warm-up's next step
    assert "LRD012" in codes(_ONE_FILE.replace("{guard}", guard))


def test_main_schedule_stepped_before_the_warm_up_competes() -> None:
    # the main schedule steps at the top of the epoch, before the warm-up's steps: the
    # warm-up's first step erases it
    src = _ONE_FILE.replace("{guard}", "epoch == 0").replace(
        "    main_sched.step()\n", "").replace(
        "for epoch in range(30):\n", "for epoch in range(30):\n    main_sched.step()\n")
    assert "LRD012" in codes(src)


def test_both_stepped_every_batch_of_the_first_epoch_compete() -> None:
    # both step after every update of epoch 0: the loop that holds both is the batch loop,
    # on every pass of which both step
    src = _ONE_FILE.replace("{guard}", "epoch == 0").replace(
        "            warm.step()\n    main_sched.step()\n",
        "            warm.step()\n        main_sched.step()\n")
    assert "LRD012" in codes(src)


_LIGHTNING = """
import torch
import lightning.pytorch as pl


class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)

    def configure_optimizers(self):
        opt = torch.optim.SGD(self.parameters(), lr=0.1, momentum=0.9)
{factor}
        sched = torch.optim.lr_scheduler.LambdaLR(optimizer=opt, lr_lambda=factor)
        return [opt], [{{"scheduler": sched, "interval": "epoch", "frequency": 1}}]


def main(train_loader):
    trainer = pl.Trainer(max_epochs=30)
    trainer.fit(Net(), train_loader)
"""


@pytest.mark.parametrize("factor", [
    "        def factor(epoch):\n"
    "            return 0.1 ** len([m for m in [15, 25, 28] if m <= epoch])",
    "        def factor(epoch):\n"
    "            return 0.1 ** len(tuple(m for m in (15, 25, 28) if m <= epoch))",
    "        factor = lambda epoch: 0.5 ** len([m for m in [10, 20] if epoch >= m])",
])
def test_lambda_counting_milestones_passed_is_sized_in_epochs(factor: str) -> None:
    assert "LRD003" not in codes(_LIGHTNING.format(factor=factor))


@pytest.mark.parametrize("factor", [
    "        n = 10 * len(self.trainer.datamodule.train_dataloader())\n"
    "        factor = lambda step: min(1.0, step / n)",
    "        warmup_steps = 2000\n"
    "        factor = lambda step: min(1.0, (step + 1) / warmup_steps)",
])
def test_lambda_sized_in_batches_returned_per_epoch_is_still_found(factor: str) -> None:
    assert "LRD003" in codes(_LIGHTNING.format(factor=factor))


def test_a_loop_in_another_file_is_named_with_its_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # lead50: a hook's step reported in the hook's file named the epoch loop of the trainer's
    # file by its line alone ("the epoch loop (line 48)"), a line of the wrong file
    check_project(tmp_path, monkeypatch, {
        "hooks.py": """
            def end_of_epoch(scheduler):
                scheduler.step()
        """,
        "train.py": """
            import torch
            from hooks import end_of_epoch


            def main(loader):
                model = torch.nn.Linear(3, 1)
                opt = torch.optim.SGD(model.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.OneCycleLR(
                    opt, max_lr=0.1, epochs=10, steps_per_epoch=len(loader))
                for epoch in range(10):
                    for x, y in loader:
                        loss = torch.nn.functional.mse_loss(model(x), y)
                        opt.zero_grad()
                        loss.backward()
                        opt.step()
                    end_of_epoch(sched)
        """})
    report = check_files(["train.py"], frozenset(CATALOG), jobs=1)
    found = [d for d in report.diagnostics if d.code == "LRD003"]
    assert [d.path for d in found] == ["hooks.py"]
    assert "the epoch loop (train.py:11)" in found[0].message


_PER_EPOCH = """
import torch


def main(args, loader):
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = {sched}
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
"""


@pytest.mark.parametrize("sched", [
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.001, 0.1, step_size_up=5)",
    "torch.optim.lr_scheduler.CyclicLR(opt, base_lr=1e-4, max_lr=1e-2, step_size_up=10, "
    "mode='triangular2')",
    "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=30)",
])
def test_a_short_cycle_fixed_in_the_code_stepped_per_epoch_is_silent(sched: str) -> None:
    assert "LRD003" not in codes(_PER_EPOCH.format(sched=sched))


@pytest.mark.parametrize("sched", [
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.001, 0.1)",
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.001, 0.1, step_size_up=2000)",
    "torch.optim.lr_scheduler.CyclicLR(opt, 0.001, 0.1, step_size_up=4 * len(loader))",
    "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=5000)",
    "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=args.epochs, "
    "steps_per_epoch=len(loader))",
    "torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=10, steps_per_epoch=50)",
])
def test_a_cycle_in_batches_stepped_per_epoch_is_found(sched: str) -> None:
    assert "LRD003" in codes(_PER_EPOCH.format(sched=sched))
