"""False alarms of fphunt34's whole-repository hunt (bench/realcode/FPHUNT.md), by shape.

Programs written for these tests; no third-party code.

1. Gradient accumulation whose leftover micro-batches are applied after the batch loop
   (``if n % accum != 0:``), the update written as an ``if``/``else`` (``scaler.step(opt)``
   under float16, ``opt.step()`` otherwise), then one scheduler step: the schedule is stepped
   once per update, so a horizon counted in updates is right (LRD003 said it was stepped once
   per epoch: the update it goes with sat under a test of its own). A flush whose ``else``
   makes no update is still reported.
2. A manual LR written at the end of each pass of the epoch loop, a OneCycleLR built before
   that loop on an optimizer one branch of a helper builds from a class lrdoctor does not know
   (the program runs the whole training again for another seed): the next epoch trains on the
   value written (LRD008 said a rebuilt scheduler resets it first). A scheduler built inside
   the function the epoch loop calls, after which nothing trains, still resets it.
3. A LambdaLR factor written over names of its own: ``T_max = iter_max // 1`` (the very count
   of the epoch loop, ``for epoch in range(iter_max)``) and ``warm_up_iter = 10`` (a number
   within those passes): stepped once per epoch it runs its course (LRD003 read "iter" in the
   names as batches). A cosine over ``iter_max * len(loader)``, or a warm-up longer than the
   run's passes, is still reported.
4. A project scheduler whose ``get_lr()`` reads the position it was built for (an attribute
   its constructor stores), built anew on every batch and stepped before the update: the step
   writes that same value, nothing advances (LRD001 said the schedule advanced before the
   update). One whose ``get_lr()`` reads ``self.last_epoch`` is still reported.
5. A warm-up written on the batches while a running count is below its bound, under a
   MultiStepLR stepped once per epoch whose first milestone is epoch 20: the chainable form
   leaves the LR it finds alone until then, so the warm-up trains and the first drop starts
   from its end (LRD008 said neither the manual LR nor the schedule trains). A write on every
   fifth batch of the run, or a first milestone at epoch 1, is still reported.

Each has a control that must still be reported.
"""

from __future__ import annotations

from .helpers import codes, messages

# -- 1. a leftover-accumulation flush whose update is an if/else ------------------------------

FLUSHED = """
import torch
from torch.cuda.amp import GradScaler


def main(args, model, loader):
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    updates = args.epochs * (len(loader) // args.accum + 1)
    warm = torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, total_iters=args.warmup_steps)
    rest = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=updates - args.warmup_steps)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warm, rest],
                                                      milestones=[args.warmup_steps])
    half = not args.bf16
    scaler = GradScaler(enabled=half)
    for epoch in range(args.epochs):
        seen = 0
        for i, (x, y) in enumerate(loader):
            loss = (model(x) - y).pow(2).mean() / args.accum
            if half:
                scaler.scale(loss).backward()
            else:
                loss.backward()
            if (i + 1) % args.accum == 0:
                if half:
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
            seen += 1
        if seen % args.accum != 0:
            if half:
                scaler.step(optimizer)
                scaler.update()
            else:
                OTHERWISE
            optimizer.zero_grad()
            scheduler.step()
"""


def test_a_flush_whose_update_is_an_if_else_steps_the_schedule_per_update() -> None:
    assert "LRD003" not in codes(FLUSHED.replace("OTHERWISE", "optimizer.step()"))


def test_control_a_flush_whose_else_makes_no_update_is_still_reported() -> None:
    found = messages(FLUSHED.replace("OTHERWISE", 'print("nothing to apply")'))
    assert any("stepped once per epoch" in m for m in found)


# -- 2. a manual LR written per epoch, trained on by the next epoch ---------------------------

NEXT_EPOCH = """
import torch
import geoopt
from torch.optim import lr_scheduler


def adjust_learning_rate(optimizer, epoch, args):
    if args.lradj == "half":
        lr = args.learning_rate * (0.5 ** (epoch - 1))
        for group in optimizer.param_groups:
            group["lr"] = lr


class Exp:
    def __init__(self, args, model):
        self.args = args
        self.model = model

    def _select_optimizer(self):
        if self.args.kind == "flat":
            opt = torch.optim.AdamW(params=self.model.parameters(), lr=self.args.learning_rate)
            return opt
        opt = geoopt.optim.RiemannianAdam(params=self.model.parameters(),
                                          lr=self.args.learning_rate)
        return opt

    def train(self, loader):
        optim = self._select_optimizer()
        scheduler = lr_scheduler.OneCycleLR(optimizer=optim, steps_per_epoch=len(loader),
                                            epochs=self.args.epochs,
                                            max_lr=self.args.learning_rate)
        for epoch in range(self.args.epochs):
            for x, y in loader:
                optim.zero_grad()
                loss = (self.model(x) - y).pow(2).mean()
                loss.backward()
                optim.step()
                if self.args.lradj == "onecycle":
                    scheduler.step()
            if self.args.lradj != "onecycle":
                adjust_learning_rate(optim, epoch + 1, self.args)
        return self.model


def main(args, model, loader):
    for seed in range(args.repeats):
        Exp(args, model).train(loader)
"""

RESET_BEFORE_TRAINING = """
import torch


def adjust_learning_rate(optimizer, epoch, base):
    for group in optimizer.param_groups:
        group["lr"] = base * (0.5 ** epoch)


def train_epoch(model, loader, optimizer, epoch, base):
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=base,
                                                    total_steps=len(loader))
    for x, y in loader:
        optimizer.zero_grad()
        loss = (model(x) - y).pow(2).mean()
        loss.backward()
        optimizer.step()
        scheduler.step()
    adjust_learning_rate(optimizer, epoch, base)


def main(model, loader, epochs, base):
    optimizer = torch.optim.SGD(model.parameters(), lr=base)
    for epoch in range(epochs):
        train_epoch(model, loader, optimizer, epoch, base)
"""


def test_a_write_at_the_end_of_an_epoch_trains_the_next_epoch() -> None:
    assert "LRD008" not in codes(NEXT_EPOCH)


def test_control_a_scheduler_built_after_the_write_still_resets_it() -> None:
    found = messages(RESET_BEFORE_TRAINING)
    assert any("is built again on the same optimizer" in m for m in found)


# -- 3. a LambdaLR counted in the epoch loop's own count under other names ---------------------

RENAMED_COUNT = """
import math
import torch


def main(model, loader):
    iter_max = 80
    warm_up_iter, T_max, lr_max, lr_min = WARM, HORIZON, 5e-3, 5e-4
    factor = lambda cur_iter: lr_max * cur_iter / warm_up_iter if cur_iter < warm_up_iter else \\
        (lr_min + 0.5 * (lr_max - lr_min) * (
            1.0 + math.cos((cur_iter - warm_up_iter) / (T_max - warm_up_iter) * math.pi))) / 0.1
    optimizer = torch.optim.Adam(model.parameters(), lr=lr_max)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda=factor)
    for epoch_id in range(iter_max):
        for x, y in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()
        scheduler.step()
"""


def test_a_factor_over_the_epoch_count_under_another_name_is_counted_in_epochs() -> None:
    source = RENAMED_COUNT.replace("WARM", "10").replace("HORIZON", "iter_max // 1")
    assert "LRD003" not in codes(source)


def test_control_a_factor_over_the_batches_of_the_run_is_still_reported() -> None:
    source = RENAMED_COUNT.replace("WARM", "10").replace("HORIZON", "iter_max * len(loader)")
    assert any("stepped once per epoch" in m for m in messages(source))


def test_control_a_warm_up_longer_than_the_run_is_still_reported() -> None:
    source = RENAMED_COUNT.replace("WARM", "500").replace("HORIZON", "iter_max // 1")
    assert any("stepped once per epoch" in m for m in messages(source))


# -- 4. a scheduler built anew every batch for the position it is handed ----------------------

BUILT_PER_BATCH = """
import math
import torch
from torch.optim.lr_scheduler import _LRScheduler


class PolyAt(_LRScheduler):
    def __init__(self, optimizer, total, at, power=0.9):
        self.total = total
        self.at = at
        self.power = power
        super().__init__(optimizer)

    def get_lr(self):
        return [base * math.pow(1 - POSITION / self.total, self.power) for base in self.base_lrs]


def train_one_epoch(args, model, loader, optimizer, epoch):
    n = len(loader)
    for i, (x, y) in enumerate(loader):
        scheduler = PolyAt(optimizer, total=args.epochs * n, at=(epoch - 1) * n + i)
        scheduler.step()
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()


def main(args, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    for epoch in range(1, args.epochs + 1):
        train_one_epoch(args, model, loader, optimizer, epoch)
"""


def test_a_scheduler_built_each_batch_for_its_position_advances_nothing() -> None:
    assert "LRD001" not in codes(BUILT_PER_BATCH.replace("POSITION", "self.at"))


def test_control_one_that_reads_its_step_count_is_still_reported() -> None:
    found = messages(BUILT_PER_BATCH.replace("POSITION", "self.last_epoch"))
    assert any("runs before optimizer.step()" in m for m in found)


# -- 5. a warm-up on the first batches under a per-epoch MultiStepLR ---------------------------

WARMED_UP = """
import torch


def train(args, model, loader):
    optimizer = torch.optim.Adam(model.parameters(), args.lr)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, MILESTONES, gamma=0.5)
    seen, epoch = 0, 0
    while epoch < args.n_epochs:
        for x, y in loader:
            ramp = 100
            if WINDOW:
                for group in optimizer.param_groups:
                    group["lr"] = (seen / ramp) * args.lr
            loss = (model(x) - y).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            seen += 1
        scheduler.step()
        epoch += 1
"""


def test_a_warm_up_before_the_first_milestone_epoch_hands_over() -> None:
    source = WARMED_UP.replace("MILESTONES", "list(range(20, 100, 5))") \
        .replace("WINDOW", "seen <= ramp and seen % 5 == 0")
    assert "LRD008" not in codes(source)


def test_control_a_write_on_every_fifth_batch_of_the_run_is_still_reported() -> None:
    source = WARMED_UP.replace("MILESTONES", "list(range(20, 100, 5))") \
        .replace("WINDOW", "seen % 5 == 0")
    assert any("drives the same optimizer" in m for m in messages(source))


def test_control_a_milestone_after_the_first_epoch_is_still_reported() -> None:
    source = WARMED_UP.replace("MILESTONES", "[1, 30, 60]") \
        .replace("WINDOW", "seen <= ramp and seen % 5 == 0")
    assert any("drives the same optimizer" in m for m in messages(source))
