"""Known misses of `lrdoctor check` on real code (issue 7, fixes7), each fixed by what the
code means, with a control that must still be reported (or stay silent).

Programs written for these tests; no third-party code."""

from __future__ import annotations

from .helpers import codes, findings

# 1. Lightning in automatic optimization steps every scheduler configure_optimizers returns,
# after every batch (`"interval": "step"`) or at the end of every epoch (the default). A module
# that steps the same scheduler by hand as well (through `self.lr_schedulers()` or an attribute
# it kept) steps it twice. In manual optimization (`automatic_optimization = False`) Lightning
# steps nothing; an `lr_scheduler_step` override is how Lightning steps it (traced as such).

HEAD = """
import torch
import lightning.pytorch as pl


class Regressor(pl.LightningModule):
    def __init__(self, manual=False):
        super().__init__()
        self.net = torch.nn.Linear(8, 1)
{init}
    def training_step(self, batch, batch_idx):
        out = self.net(batch).mean()
{train}
        return out
{hooks}
    def configure_optimizers(self):
        opt = torch.optim.Adam(self.net.parameters(), lr=3e-4)
{configure}
"""


def module(configure: str, train: str = "", hooks: str = "", init: str = "") -> str:
    def indent(text: str, n: int) -> str:
        return "\n".join(" " * n + line if line else line for line in text.strip("\n").splitlines())
    return HEAD.format(init=indent(init, 8) if init else "", train=indent(train, 8) if train else "",
                       hooks=indent(hooks, 4) if hooks else "", configure=indent(configure, 8))


EPOCH_RETURN = """
decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=50)
return [opt], [decay]
"""
STEP_KEPT = """
self.warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=2000)
return {"optimizer": opt, "lr_scheduler": {"scheduler": self.warm, "interval": "step"}}
"""
EPOCH_END_BY_HAND = """
def on_train_epoch_end(self):
    self.lr_schedulers().step()
"""


def lrd012_lines(src: str) -> list[int]:
    return [line for code, line in findings(src) if code == "LRD012"]


def test_lightning_epoch_scheduler_also_stepped_at_epoch_end_is_a_double_step() -> None:
    src = module(EPOCH_RETURN, hooks=EPOCH_END_BY_HAND)
    lines = lrd012_lines(src)
    assert len(lines) == 1
    assert "self.lr_schedulers().step()" in src.splitlines()[lines[0] - 1]


def test_lightning_step_scheduler_kept_on_self_and_stepped_in_training_step() -> None:
    src = module(STEP_KEPT, train="self.warm.step()")
    lines = lrd012_lines(src)
    assert len(lines) == 1
    assert "self.warm.step()" in src.splitlines()[lines[0] - 1]


def test_lightning_epoch_scheduler_stepped_after_every_batch_by_hand() -> None:
    hooks = """
def on_train_batch_end(self, outputs, batch, batch_idx):
    self.lr_schedulers().step()
"""
    assert len(lrd012_lines(module(EPOCH_RETURN, hooks=hooks))) == 1


def test_lightning_step_interval_and_a_hand_step_at_epoch_end_is_still_double() -> None:
    # per batch by Lightning plus one per epoch by hand: len(loader) + 1 steps an epoch,
    # ahead of the horizon sized for len(loader) per epoch
    hooks = """
def on_train_epoch_end(self):
    self.warm.step()
"""
    assert len(lrd012_lines(module(STEP_KEPT, hooks=hooks))) == 1


def test_control_manual_optimization_steps_only_by_hand() -> None:
    src = module(EPOCH_RETURN, hooks=EPOCH_END_BY_HAND, init="self.automatic_optimization = False")
    assert "LRD012" not in codes(src)


def test_control_scheduler_not_returned_from_configure_optimizers() -> None:
    configure = """
self.decay = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=50)
return opt
"""
    hooks = """
def on_train_epoch_end(self):
    self.decay.step()
"""
    assert "LRD012" not in codes(module(configure, hooks=hooks))


def test_control_lr_scheduler_step_override_and_a_guarded_hand_step() -> None:
    override = """
def lr_scheduler_step(self, scheduler, metric):
    scheduler.step()
"""
    assert "LRD012" not in codes(module(EPOCH_RETURN, hooks=override))
    guarded = """
def on_train_batch_end(self, outputs, batch, batch_idx):
    if self.trainer.is_last_batch:
        self.lr_schedulers().step()
"""
    assert "LRD012" not in codes(module(EPOCH_RETURN, hooks=guarded))


def test_control_lightning_batch_scheduler_without_step_interval_still_reported() -> None:
    configure = """
cycle = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=5000)
return [opt], [cycle]
"""
    assert "LRD003" in codes(module(configure))


# 2. Optimizers and schedulers kept as the values of dicts, one per parameter group, each built
# by a config object lrdoctor cannot see (`cfg.setup(params=...)`, `cfg.setup(optimizer=...)`):
# the mapping's name says what it holds, and the scheduler is handed the optimizer the other
# mapping holds under the same (unknown) key. Stepped in loops over `.items()` after
# `scaler.step(opt)` for each, the schedulers advance on updates the scaler skipped.

GROUPS = """
import torch
from torch.amp import GradScaler


class GroupOptim:
    def __init__(self, settings, groups):
        self.optimizers = {}
        self.schedulers = {}
        for key, params in groups.items():
            self.optimizers[key] = settings[key]["optim"].setup(params=params)
            if settings[key]["sched"]:
                self.schedulers[key] = settings[key]["sched"].setup(
                    optimizer=self.optimizers[key], base_lr=settings[key]["optim"].lr)

    def zero_all(self):
        for opt in self.optimizers.values():
            opt.zero_grad()

    def step_all(self, scaler):
        for _, opt in self.optimizers.items():
            {step}

    def sched_all(self):
        for _, sched in self.schedulers.items():
            sched.step()


class Runner:
    def __init__(self, settings, field, iters):
        self.field = field
        self.iters = iters
        self.amp = settings.amp
        self.scaler = GradScaler("cuda", enabled=self.amp)
        self.groups = GroupOptim(settings.groups, field.param_groups())

    def fit(self):
        for it in range(self.iters):
            self.groups.zero_all()
            with torch.autocast("cuda", enabled=self.amp):
                loss = self.field(it)
            self.scaler.scale(loss).backward()
            self.groups.step_all(self.scaler)
            self.scaler.update()
            self.groups.sched_all()
"""


def test_dict_held_schedulers_step_after_skippable_scaler_steps() -> None:
    src = GROUPS.replace("{step}", "scaler.step(opt)")
    found = findings(src)
    assert any(code == "LRD005" and "sched.step()" in src.splitlines()[line - 1]
               for code, line in found)


def test_control_dict_held_schedulers_without_a_scaler_step() -> None:
    # the optimizers stepped directly: no update is ever skipped
    src = GROUPS.replace("{step}", "opt.step()").replace("self.scaler.scale(loss).backward()",
                                                          "loss.backward()")
    assert "LRD005" not in codes(src)


def test_control_mapping_named_for_schedulers_built_without_an_optimizer() -> None:
    # a builder not handed an optimizer makes no scheduler lrdoctor can tie to the update
    src = GROUPS.replace("{step}", "scaler.step(opt)").replace(
        "optimizer=self.optimizers[key], base_lr", "base_lr")
    assert "LRD005" not in codes(src)


# 3. Ignite's filtered events: `Events.ITERATION_COMPLETED(every=n)` with a literal n fires on
# every n-th batch, still a step per so many batches (a horizon sized in epochs collapses, just
# n times later); every `len(loader)` iterations is the last batch of each epoch (once per
# epoch); `once=`, `event_filter=` or an `every=` of a size not known here fire at times not
# known here, so no loop level is read from them.

IGNITE = """
import torch
from ignite.engine import Engine, Events


def fit(model, train_loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = {sched}

    def update(engine, batch):
        optimizer.zero_grad()
        model(batch).sum().backward()
        optimizer.step()

    trainer = Engine(update)

    @trainer.on(Events.{event})
    def advance(engine):
        scheduler.step()

    trainer.run(train_loader, max_epochs=epochs)
"""
EPOCH_SIZED = "torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])"
BATCH_SIZED = ("torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, "
               "total_steps=epochs * len(train_loader))")


def ignite(sched: str, event: str) -> list[str]:
    return codes(IGNITE.format(sched=sched, event=event))


def test_ignite_every_literal_iterations_is_still_per_batch() -> None:
    assert "LRD002" in ignite(EPOCH_SIZED, "ITERATION_COMPLETED(every=20)")


def test_ignite_every_len_loader_iterations_is_once_per_epoch() -> None:
    assert "LRD002" not in ignite(EPOCH_SIZED, "ITERATION_COMPLETED(every=len(train_loader))")
    assert "LRD003" in ignite(BATCH_SIZED, "ITERATION_COMPLETED(every=len(train_loader))")


def test_control_ignite_once_or_a_filter_has_no_level() -> None:
    assert "LRD002" not in ignite(EPOCH_SIZED, "ITERATION_COMPLETED(once=500)")
    assert "LRD002" not in ignite(EPOCH_SIZED,
                                  "ITERATION_COMPLETED(event_filter=lambda e, i: i % 9 == 0)")
    assert "LRD002" not in ignite(EPOCH_SIZED, "ITERATION_COMPLETED(every=steps_per_epoch)")
    # the plain events keep their levels
    assert "LRD002" in ignite(EPOCH_SIZED, "ITERATION_COMPLETED")
    assert "LRD003" in ignite(BATCH_SIZED, "EPOCH_COMPLETED(every=2)")


def test_control_mapping_named_for_something_else_guesses_nothing() -> None:
    # a mapping of statistics filled by a call whose name mentions optimizers holds no optimizer
    src = GROUPS.replace("{step}", "scaler.step(opt)").replace(
        "self.optimizers[key] = settings[key][\"optim\"].setup(params=params)",
        "self.optimizers[key] = settings[key][\"optim\"].setup(params=params)\n"
        "            self.stats = {}\n"
        "            self.stats[key] = summarize_optim_state(params)")
    assert "LRD005" in codes(src)
    assert all(code != "LRD014" for code in codes(src))
