"""Shapes behind dev misses of issue 7 revisited with batch fresh-2026-12o: a training engine
(a trainer class of a library) whose methods are called by a training loop that is not in
view. Its `step()` makes one update and then steps the scheduler; its `save_checkpoint()`
writes the optimizer's state. Each method is traced on its own, so the loop that would tell
how often `step()` runs, and the run the save belongs to, are missing: the scheduler step is
paired with the update made just before it in the same call, and the GradScaler that steps
the saved optimizer, like the scheduler that drives it, belongs to that optimizer's
checkpoint wherever it was seen."""

from __future__ import annotations

from tests.check.helpers import codes, findings, messages

ENGINE = """
import torch


class Engine:
    def __init__(self, model, build_optimizer, build_schedule, use_amp=False):
        self.net = model
        self.opt = build_optimizer(model.parameters())
        self.lr_sched = build_schedule(self.opt)
        self.amp_scaler = torch.amp.GradScaler("cuda") if use_amp else None

    def backward(self, loss):
        if self.amp_scaler is not None:
            self.amp_scaler.scale(loss).backward()
        else:
            loss.backward()

    def step(self):
        if self.amp_scaler is not None:
            self.amp_scaler.step(self.opt)
            self.amp_scaler.update()
        else:
            self.opt.step()
{sched}
        self.opt.zero_grad()

    def save_checkpoint(self, folder):
        torch.save(self.net.state_dict(), folder + "/net.pt")
        torch.save(self.opt.state_dict(), folder + "/opt.pt")
        torch.save(self.lr_sched.state_dict(), folder + "/sched.pt")
{more}
"""

PLAIN = "        self.lr_sched.step()"
# the scale backs off exactly when the scaler found inf/NaN gradients and skipped the update
GUARDED = """        if self.amp_scaler is None or self.amp_scaler.get_scale() >= self.scale_before:
            self.lr_sched.step()"""
SCALER_SAVED = """        if self.amp_scaler is not None:
            torch.save(self.amp_scaler.state_dict(), folder + "/scaler.pt")"""


def _engine(sched: str = PLAIN, more: str = "") -> str:
    src = ENGINE.format(sched=sched, more=more)
    if sched is GUARDED:
        src = src.replace("            self.amp_scaler.step(self.opt)",
                          "            self.scale_before = self.amp_scaler.get_scale()\n"
                          "            self.amp_scaler.step(self.opt)")
    return src


def _line(src: str, text: str) -> int:
    return next(i for i, line in enumerate(src.splitlines(), 1) if text in line)


def test_an_engine_step_that_steps_the_scheduler_after_its_scaler_step_is_reported() -> None:
    # no training loop in view: each call of step() makes one update and one scheduler step
    found = findings(_engine())
    assert ("LRD005", _line(_engine(), "self.lr_sched.step()")) in found
    assert any("runs after every update even when GradScaler skips" in m
               for m in messages(_engine()))


def test_an_engine_step_that_steps_the_scheduler_only_after_applied_updates_is_fine() -> None:
    assert "LRD005" not in codes(_engine(GUARDED))


def test_a_scheduler_stepped_by_another_method_is_not_paired_with_the_update() -> None:
    # `end_epoch()` runs when the caller decides (once per epoch): not after every update
    src = _engine("        pass").replace(
        "    def save_checkpoint",
        "    def end_epoch(self):\n        self.lr_sched.step()\n\n    def save_checkpoint",
    )
    assert "LRD005" not in codes(src)


def test_a_scheduler_step_naming_its_position_is_not_paired_with_the_update() -> None:
    src = _engine("        self.lr_sched.step(self.epoch)")
    assert "LRD005" not in codes(src)


def test_the_engine_checkpoint_without_the_scaler_that_steps_its_optimizer_is_reported() -> None:
    # the files hold the optimizer's and the scheduler's states; the GradScaler that steps
    # this optimizer (in step(), traced apart from save_checkpoint()) is left out
    src = _engine(GUARDED)
    found = findings(src)
    assert [f for f in found if f[0] == "LRD007"] == [("LRD007", _line(src, "/opt.pt"))]


def test_the_engine_checkpoint_with_the_scaler_state_is_fine() -> None:
    assert "LRD007" not in codes(_engine(GUARDED, SCALER_SAVED))


def _lazy_scaler(stepped: str) -> str:
    # the scaler is made by the first backward() (a method the unseen loop calls, traced on its
    # own), not by __init__: only what it steps ties it to a checkpoint
    return _engine(GUARDED).replace(
        '        self.amp_scaler = torch.amp.GradScaler("cuda") if use_amp else None',
        "        self.use_amp = use_amp\n        self.amp_scaler = None\n"
        "        self.disc_opt = torch.optim.Adam(model.parameters())",
    ).replace(
        "    def backward(self, loss):\n",
        "    def backward(self, loss):\n"
        "        if self.use_amp and self.amp_scaler is None:\n"
        '            self.amp_scaler = torch.amp.GradScaler("cuda")\n',
    ).replace("            self.amp_scaler.step(self.opt)",
              f"            self.amp_scaler.step({stepped})")


def test_a_scaler_made_apart_that_steps_the_saved_optimizer_is_missed_from_its_checkpoint() -> None:
    assert "LRD007" in codes(_lazy_scaler("self.opt"))


def test_a_scaler_made_apart_that_steps_another_optimizer_is_not_this_checkpoint_s() -> None:
    # it steps the discriminator's optimizer, whose state this save does not hold
    assert "LRD007" not in codes(_lazy_scaler("self.disc_opt"))


# a trainer class whose training method is traced apart from its save and resume methods
# (`train` is also the name of `model.train()`, so it counts as called from elsewhere)
TRAINER = """
import torch


class Trainer:
    def __init__(self, model, critic, loader, epochs):
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        self.critic_opt = torch.optim.AdamW(critic.parameters(), lr=1e-4)
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(
            {driven}, 1e-3, total_steps=epochs * len(loader))

    def train(self, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x, y in self.loader:
                loss = torch.nn.functional.mse_loss(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                self.critic_opt.step()
                self.optimizer.zero_grad()
                self.scheduler.step()

    def save(self, path):
        torch.save({{"model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict(){extra}}}, path)

    def load(self, path):
        ckpt = torch.load(path)
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
{load_extra}
"""


def test_a_trainer_class_checkpoint_without_the_scheduler_its_training_method_steps() -> None:
    src = TRAINER.format(driven="self.optimizer", extra="", load_extra="")
    assert sorted(findings(src)) == [
        ("LRD007", _line(src, "torch.save(")), ("LRD007", _line(src, "self.optimizer.load_state_dict")),
    ]


def test_a_trainer_class_checkpoint_with_the_scheduler_state_is_fine() -> None:
    src = TRAINER.format(
        driven="self.optimizer", extra=', "scheduler": self.scheduler.state_dict()',
        load_extra='        self.scheduler.load_state_dict(ckpt["scheduler"])')
    assert codes(src) == []


def test_a_scheduler_of_another_optimizer_is_not_this_checkpoint_s() -> None:
    # the schedule drives the critic's optimizer, which this checkpoint does not hold
    src = TRAINER.format(driven="self.critic_opt", extra="", load_extra="")
    assert codes(src) == []


# a LambdaLR whose function reads a counter of the program's own (restored from the
# checkpoint) instead of the step count the scheduler hands it
COUNTER = """
import math
import os

import torch


def lr_at(step, warmup, total):
    if step < warmup:
        return step / warmup
    return 0.5 * (1 + math.cos(math.pi * (step - warmup) / (total - warmup)))


def fit(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    progress = {{"step": 0, "epoch": 0}}
{factor}
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, {lr_lambda})
    if os.path.exists("last.pt"):
        ckpt = torch.load("last.pt")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        progress.update(ckpt["progress"])
    for epoch in range(progress["epoch"], epochs):
        for x, y in loader:
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
            progress["step"] += 1
            scheduler.step()
        progress["epoch"] = epoch + 1
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "progress": progress}}, "last.pt")
"""


def test_a_lambda_that_reads_a_restored_counter_loses_nothing_with_the_scheduler() -> None:
    src = COUNTER.format(
        factor="", lr_lambda='lambda _: lr_at(progress["step"], 1000, epochs * len(loader))')
    assert codes(src) == []


def test_a_named_function_that_ignores_the_scheduler_count_loses_nothing_either() -> None:
    factor = ('    def factor(count):\n'
              '        return lr_at(progress["step"], 1000, epochs * len(loader))\n')
    assert codes(COUNTER.format(factor=factor, lr_lambda="factor")) == []


def test_a_lambda_that_reads_the_scheduler_count_is_still_lost_without_its_state() -> None:
    src = COUNTER.format(factor="", lr_lambda="lambda it: lr_at(it, 1000, epochs * len(loader))")
    assert codes(src) == ["LRD007", "LRD007"]


def test_a_named_function_that_reads_the_scheduler_count_is_still_lost() -> None:
    factor = '    def factor(count):\n        return lr_at(count, 1000, epochs * len(loader))\n'
    assert codes(COUNTER.format(factor=factor, lr_lambda="factor")) == ["LRD007", "LRD007"]


# a resume that positions the scheduler with one `step(epoch)` call before the loop
POSITIONED = """
import os

import torch


def fit(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)
    first = 0
    if os.path.exists("last.pt"):
        ckpt = torch.load("last.pt")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        first = ckpt["epoch"]
{position}
    for epoch in range(first, epochs):
        for x, y in loader:
            torch.nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
        torch.save({{"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "epoch": epoch + 1}}, "last.pt")
"""


def test_a_resume_that_steps_the_scheduler_to_the_saved_epoch_keeps_the_schedule() -> None:
    # step(epoch) sets the count and recomputes the LR (deprecated: LRD006 says so)
    assert codes(POSITIONED.format(position="        scheduler.step(first)")) == ["LRD006"]
    assert codes(POSITIONED.format(position="        scheduler.step(epoch=first)")) == ["LRD006"]


def test_a_resume_that_leaves_the_scheduler_where_it_was_built_is_still_lost() -> None:
    assert codes(POSITIONED.format(position="")) == ["LRD007", "LRD007"]


def test_a_positioning_step_inside_the_loop_is_not_a_resume_position() -> None:
    # `step(epoch)` once per epoch in the loop beside a plain step() per batch: the batch
    # steps move it on from where the epoch put it; not a one-off position
    src = POSITIONED.format(position="").replace(
        "        scheduler.step()\n", "        scheduler.step(epoch)\n"
    ).replace("            optimizer.zero_grad()\n",
              "            optimizer.zero_grad()\n            scheduler.step()\n")
    assert "LRD007" in codes(src)
