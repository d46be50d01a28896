"""Two gaps found by the fresh-2026-12yd batch (rcnew50, bench/realcode/README.md).

Programs written for these tests; no third-party code.

1. A scheduler built before an ``if`` that drops it on one path (``if extend: scheduler =
   None``, the LR then frozen by hand) was lost on the other path too: the tracer runs the
   branches one after the other on one set of names, so after the ``if`` (and in its
   ``else``) the name held None, and a per-batch ``scheduler.step()`` under ``if scheduler
   is not None:`` after ``scaler.step`` was no longer seen (a missed LRD005). On the path
   that keeps it the name still holds the scheduler: None has nothing to track. An
   ``else`` that repositions the kept scheduler (``scheduler.last_epoch = n``) repositions
   that scheduler, so the resume does not lose it (no LRD007).
2. LRD103 read any bare ``BCELoss(...)`` that no import gives as torch's BCELoss. A file that
   binds the name itself (``BCELoss = lossbank.SoftBCEWithLogits()``, or a function of its
   own) calls what it bound; when that is ``nn.BCELoss()``, the constructor is reported
   where it is built.
3. Found while probing the batch's shapes with bugs written in: an LR factor a factory made
   and kept on ``self`` (``self.lf = one_cycle(1, lrf, self.steps)`` then ``LambdaLR(opt,
   lr_lambda=self.lf)``) was read as a bound method, so its horizon was unknown (a missed
   LRD003 when stepped per epoch). And a factory parameter whose name says no unit
   (``def cosine(horizon)``) is read from the argument the factory was called with
   (``cosine(epochs * len(batches))`` counts batches); a parameter named for its unit
   (``num_training_steps``) keeps that reading.
"""

from __future__ import annotations

from .helpers import codes, findings

# 1. a scheduler dropped on one path ---------------------------------------------------------

HELPER_STEPS = """
import torch
from torch.utils.data import DataLoader


def one_epoch(net, batches, opt, sched, scaler):
    for inputs, targets in batches:
        opt.zero_grad()
        with torch.autocast("cuda"):
            loss = torch.nn.functional.mse_loss(net(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(opt)
{after_step}


def run(settings, data):
    net = torch.nn.Linear(8, 1)
    batches = DataLoader(data, batch_size=16)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, epochs=settings.epochs,
                                                steps_per_epoch=len(batches))
    scaler = torch.amp.GradScaler("cuda")
    if settings.constant_lr:
{drop}
    for epoch in range(settings.epochs):
        one_epoch(net, batches, opt, sched, scaler)
"""

UNGUARDED = """        scaler.update()
        if sched is not None:
            sched.step()"""
SKIP_AWARE = """        scale = scaler.get_scale()
        scaler.update()
        if sched is not None and scaler.get_scale() >= scale:
            sched.step()"""
DROP = "        sched = None"


def test_scheduler_dropped_on_one_path_still_steps_after_skipped_updates() -> None:
    assert "LRD005" in codes(HELPER_STEPS.format(after_step=UNGUARDED, drop=DROP))


def test_scheduler_dropped_on_one_path_twin_steps_only_after_real_updates() -> None:
    assert "LRD005" not in codes(HELPER_STEPS.format(after_step=SKIP_AWARE, drop=DROP))


def test_scheduler_kept_on_both_paths_was_already_found() -> None:
    # the same program without the drop: found before this fix too
    assert "LRD005" in codes(HELPER_STEPS.format(after_step=UNGUARDED, drop="        pass"))


INLINE = """
import torch
from torch.utils.data import DataLoader


def main(cfg, data):
    net = torch.nn.Linear(8, 1)
    batches = DataLoader(data, batch_size=16)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg.epochs * len(batches))
    scaler = torch.amp.GradScaler("cuda")
    if cfg.no_schedule:
        sched = None
    for epoch in range(cfg.epochs):
        for inputs, targets in batches:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(net(inputs), targets)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            if sched:
                sched.step()
"""


def test_scheduler_dropped_in_the_same_function_still_steps_after_skipped_updates() -> None:
    assert "LRD005" in codes(INLINE)


def test_plain_loop_twin_with_the_drop_stays_silent() -> None:
    # no AMP: nothing is skipped, and the per-batch cosine sized in batches is right
    plain = (INLINE.replace('    scaler = torch.amp.GradScaler("cuda")\n', "")
             .replace('            with torch.autocast("cuda"):\n                loss', "            loss")
             .replace("            scaler.scale(loss).backward()\n", "            loss.backward()\n")
             .replace("            scaler.step(opt)\n            scaler.update()\n",
                      "            opt.step()\n"))
    assert "scaler" not in plain and "autocast" not in plain
    assert codes(plain) == []


TRAINER = """
import torch


class Trainer:
    def __init__(self, net, batches, cfg):
        self.net = net
        self.batches = batches
        self.opt = torch.optim.SGD(net.parameters(), lr=0.05)
        self.sched = torch.optim.lr_scheduler.OneCycleLR(
            self.opt, max_lr=0.05, epochs=cfg.epochs, steps_per_epoch=len(batches))
        self.scaler = torch.amp.GradScaler("cuda")
        if cfg.constant_lr:
            self.sched = None
        self.epochs = cfg.epochs

    def fit(self):
        for epoch in range(self.epochs):
            for inputs, targets in self.batches:
                self.opt.zero_grad()
                with torch.autocast("cuda"):
                    loss = torch.nn.functional.mse_loss(self.net(inputs), targets)
                self.scaler.scale(loss).backward()
                self.scaler.step(self.opt)
{after_step}
"""


def test_attribute_dropped_on_one_path_still_steps_after_skipped_updates() -> None:
    after = """                self.scaler.update()
                if self.sched is not None:
                    self.sched.step()"""
    assert "LRD005" in codes(TRAINER.format(after_step=after))


def test_attribute_dropped_on_one_path_twin_steps_only_after_real_updates() -> None:
    after = """                scale = self.scaler.get_scale()
                self.scaler.update()
                if self.sched is not None and self.scaler.get_scale() >= scale:
                    self.sched.step()"""
    assert "LRD005" not in codes(TRAINER.format(after_step=after))


RESUME = """
import torch
from torch.utils.data import DataLoader


def main(cfg, data):
    net = torch.nn.Linear(8, 1)
    batches = DataLoader(data, batch_size=16)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.05, epochs=cfg.epochs,
                                                steps_per_epoch=len(batches))
    scaler = torch.amp.GradScaler("cuda")
    first = 0
    if cfg.resume:
        state = torch.load(cfg.resume)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        scaler.load_state_dict(state["scaler"])
        first = state["epoch"] + 1
{reposition}
    for epoch in range(first, cfg.epochs):
        for inputs, targets in batches:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = torch.nn.functional.mse_loss(net(inputs), targets)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            if sched is not None:
                sched.step()
        torch.save({{"net": net.state_dict(), "opt": opt.state_dict(),
                    "scaler": scaler.state_dict(), "epoch": epoch}}, "last.pt")
"""

FREEZE_OR_REPOSITION = """        if cfg.epochs > state["epochs"]:
            sched = None
        else:
            sched.last_epoch = first * len(batches) - 1"""
REPOSITION_ONLY = "        sched.last_epoch = first * len(batches) - 1"
NOTHING = "        pass"


def test_resume_that_freezes_or_repositions_keeps_the_schedule() -> None:
    found = codes(RESUME.format(reposition=FREEZE_OR_REPOSITION))
    assert "LRD005" in found
    assert "LRD007" not in found


def test_resume_that_repositions_only_was_already_silent_on_lrd007() -> None:
    found = codes(RESUME.format(reposition=REPOSITION_ONLY))
    assert "LRD005" in found
    assert "LRD007" not in found


def test_resume_that_neither_restores_nor_repositions_loses_the_schedule() -> None:
    assert "LRD007" in codes(RESUME.format(reposition=NOTHING))


# 2. a name the file binds itself is not torch's BCELoss ------------------------------------

OWN_LOSS = """
import torch
{imports}
from torch.utils.data import DataLoader

{binding}


def criterion(pred, target):
    return {call}


def train(net, batches, opt):
    scaler = torch.amp.GradScaler("cuda")
    for inputs, targets in batches:
        opt.zero_grad()
        with torch.autocast("cuda"):
            loss = criterion(net(inputs), targets)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
"""


def test_loss_object_named_bceloss_from_another_library_is_not_bceloss() -> None:
    source = OWN_LOSS.format(imports="import lossbank",
                             binding="BCELoss = lossbank.SoftBCEWithLogits()",
                             call="BCELoss(pred, target)")
    assert "LRD103" not in codes(source)


def test_own_function_named_bceloss_on_logits_is_not_bceloss() -> None:
    source = OWN_LOSS.format(
        imports="import torch.nn.functional as F",
        binding=("def BCELoss(logits, target):\n"
                 "    return F.binary_cross_entropy_with_logits(logits, target)"),
        call="BCELoss(pred, target)")
    assert "LRD103" not in codes(source)


def test_torch_bceloss_bound_to_that_name_is_reported_where_it_is_built() -> None:
    source = OWN_LOSS.format(imports="", binding="BCELoss = torch.nn.BCELoss()",
                             call="BCELoss(torch.sigmoid(pred), target)")
    found = [line for code, line in findings(source) if code == "LRD103"]
    built = next(i for i, text in enumerate(source.splitlines(), 1)
                 if text.startswith("BCELoss = "))
    assert found == [built]


def test_bare_bceloss_from_a_star_import_is_still_bceloss() -> None:
    source = OWN_LOSS.format(imports="from torch.nn import *", binding="",
                             call="BCELoss()(torch.sigmoid(pred), target)")
    assert "LRD103" in codes(source)


# 3. an LR factor a factory made, kept on `self` or in a name -------------------------------

HELD_FACTOR = """
import math
import torch


def cosine_factor(horizon):
    return lambda x: (1 + math.cos(x * math.pi / horizon)) / 2


class Trainer:
    def __init__(self, net, batches, cfg):
        self.net = net
        self.batches = batches
        self.total = cfg.total_steps
        self.epochs = math.ceil(self.total / len(batches))
        self.factor = cosine_factor({horizon})
        self.opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, lr_lambda=self.factor)

    def train(self):
        for epoch in range(self.epochs):
            for inputs, targets in self.batches:
                self.opt.zero_grad()
                torch.nn.functional.cross_entropy(self.net(inputs), targets).backward()
                self.opt.step()
{step}
"""

PER_BATCH = "                self.sched.step()"
PER_EPOCH = "            self.sched.step()"


def test_factor_held_on_self_sized_in_batches_stepped_per_epoch() -> None:
    assert "LRD003" in codes(HELD_FACTOR.format(horizon="self.total", step=PER_EPOCH))


def test_factor_held_on_self_sized_in_batches_twin_stepped_per_batch() -> None:
    assert codes(HELD_FACTOR.format(horizon="self.total", step=PER_BATCH)) == []


def test_factor_held_on_self_sized_in_epochs_stepped_per_batch() -> None:
    assert "LRD002" in codes(HELD_FACTOR.format(horizon="cfg.epochs", step=PER_BATCH))


def test_factor_held_on_self_sized_in_epochs_twin_stepped_per_epoch() -> None:
    assert codes(HELD_FACTOR.format(horizon="cfg.epochs", step=PER_EPOCH)) == []


LOCAL_FACTOR = """
import math
import torch
from torch.utils.data import DataLoader


def cosine_factor(horizon):
    return lambda x: (1 + math.cos(x * math.pi / horizon)) / 2


def train(net, data, epochs):
    batches = DataLoader(data, batch_size=16)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    factor = cosine_factor({horizon})
    sched = torch.optim.lr_scheduler.LambdaLR(opt, factor)
    for epoch in range(epochs):
        for inputs, targets in batches:
            opt.zero_grad()
            torch.nn.functional.mse_loss(net(inputs), targets).backward()
            opt.step()
        sched.step()
"""


def test_factory_parameter_given_batches_stepped_per_epoch() -> None:
    # the parameter's name says nothing; the call hands it the number of batches
    assert "LRD003" in codes(LOCAL_FACTOR.format(horizon="epochs * len(batches)"))


def test_factory_parameter_given_epochs_twin_stepped_per_epoch() -> None:
    assert codes(LOCAL_FACTOR.format(horizon="epochs")) == []


def test_factory_parameter_named_steps_given_epochs_is_not_read_as_batches() -> None:
    # `def cosine_factor(steps)` handed the epoch count: the parameter's name and the argument
    # disagree, so neither sizes the schedule (a false LRD003 on main)
    source = LOCAL_FACTOR.replace("def cosine_factor(horizon):", "def cosine_factor(steps):") \
        .replace("math.pi / horizon", "math.pi / steps")
    assert codes(source.format(horizon="epochs")) == []


def test_factory_parameter_named_steps_given_batches_is_still_batches() -> None:
    source = LOCAL_FACTOR.replace("def cosine_factor(horizon):", "def cosine_factor(steps):") \
        .replace("math.pi / horizon", "math.pi / steps")
    assert "LRD003" in codes(source.format(horizon="epochs * len(batches)"))
