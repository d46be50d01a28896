"""Framework-based training code (issue 7, batch "fresh-2026-12fw" of bench/realcode): the
general shapes behind the batch's misses and false alarms, each in our own words, next to the
control that must still (or never) be reported."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.catalog import CATALOG
from lrdoctor.check.runner import check_files
from tests.check.helpers import codes

CODES = frozenset(CATALOG)


def _project(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, str, int]]:
    (tmp_path / ".git").mkdir()
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    report = check_files([str(tmp_path / name) for name in files], CODES, jobs=1)
    return sorted((Path(d.path).name, d.code, d.line) for d in report.diagnostics)


# -- a scheduler built by a registry from settings the optimizer was put into ----------------
#
# mmcv-style frameworks keep every scheduler class in a registry and build one from a mapping
# of settings: `cfg["optimizer"] = optimizer; REGISTRY.build(cfg)` calls the class with the
# mapping's entries as keywords. The optimizer reaches the constructor through the mapping, and
# the result is bound to a scheduler's name: a scheduler of unknown class driving that
# optimizer, enough for the rules about order and AMP.

_REGISTRY = """
class Registry:
    def __init__(self, name):
        self.name = name
        self.classes = {}

    def register(self, cls):
        self.classes[cls.__name__] = cls
        return cls

    def build(self, config):
        settings = dict(config)
        return self.classes[settings.pop("type")](**settings)


LR_POLICIES = Registry("lr policies")
"""

_BUILDER = """
from registry import LR_POLICIES


class NoSchedule:
    def step(self):
        pass


def make_schedule(optimizer, settings):
    {build}
"""

_BUILD_INTO_SETTINGS = """settings["optimizer"] = optimizer
    schedule = LR_POLICIES.build(settings)
    return schedule"""

_LOOP = """
import torch
from builder import make_schedule


def fit(net, batches, settings, total_iters, half):
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    schedule = make_schedule(opt, settings)
    grad_scaler = torch.amp.GradScaler("cuda", enabled=half)
    for it, (x, y) in zip(range(total_iters), batches):
        opt.zero_grad()
        with torch.autocast("cuda", enabled=half):
            loss = net(x, y)
        grad_scaler.scale(loss).backward()
        grad_scaler.step(opt)
        {after}
        schedule.step()
"""


def test_registry_built_schedule_steps_after_a_skippable_scaler_step(tmp_path: Path) -> None:
    found = _project(tmp_path, {
        "registry.py": _REGISTRY,
        "builder.py": _BUILDER.format(build=_BUILD_INTO_SETTINGS),
        "fit.py": _LOOP.format(after="grad_scaler.update()"),
    })
    assert ("fit.py", "LRD005", 17) in found


def test_registry_built_schedule_or_a_no_op_stand_in_is_still_the_schedule(tmp_path: Path) -> None:
    # the trainer falls back to a do-nothing object when no policy is configured: where one
    # is, the registry's scheduler is what steps
    loop = _LOOP.format(after="grad_scaler.update()").replace(
        "from builder import make_schedule", "from builder import make_schedule, NoSchedule"
    ).replace(
        "    schedule = make_schedule(opt, settings)\n",
        "    if settings:\n        schedule = make_schedule(opt, settings)\n"
        "    else:\n        schedule = NoSchedule()\n",
    )
    found = _project(tmp_path, {
        "registry.py": _REGISTRY,
        "builder.py": _BUILDER.format(build=_BUILD_INTO_SETTINGS),
        "fit.py": loop,
    })
    assert ("fit.py", "LRD005", 20) in found


def test_registry_built_schedule_stepped_only_after_real_updates_is_not_reported(
    tmp_path: Path,
) -> None:
    # control: the step waits for the scale to hold (no skipped update behind it)
    guarded = """scale_before = grad_scaler.get_scale()
        grad_scaler.update()
        if grad_scaler.get_scale() < scale_before:
            continue"""
    found = _project(tmp_path, {
        "registry.py": _REGISTRY,
        "builder.py": _BUILDER.format(build=_BUILD_INTO_SETTINGS),
        "fit.py": _LOOP.format(after=guarded),
    })
    assert [f for f in found if f[1] == "LRD005"] == []


def test_something_else_built_from_settings_holding_the_optimizer_is_not_a_scheduler() -> None:
    # control: a hook built from a mapping that holds the optimizer is not a scheduler because
    # of it; only a result bound to a scheduler's name is taken for one
    src = """
    import torch
    from registry import HOOKS

    def fit(net, batches, settings):
        opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
        settings["optimizer"] = opt
        hook = HOOKS.build(settings)
        grad_scaler = torch.amp.GradScaler("cuda")
        for x, y in batches:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = net(x, y)
            grad_scaler.scale(loss).backward()
            grad_scaler.step(opt)
            grad_scaler.update()
            hook.step()
    """
    assert codes(src) == []


def test_mmcv_default_args_mapping_hands_over_the_optimizer() -> None:
    src = """
    import torch
    from mmlike import build_from_cfg, LR_POLICIES

    def fit(net, batches, cfg):
        opt = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
        schedule = build_from_cfg(cfg.lr_config, LR_POLICIES, default_args=dict(optimizer=opt))
        grad_scaler = torch.amp.GradScaler("cuda")
        for x, y in batches:
            opt.zero_grad()
            with torch.autocast("cuda"):
                loss = net(x, y)
            grad_scaler.scale(loss).backward()
            grad_scaler.step(opt)
            grad_scaler.update()
            schedule.step()
    """
    assert codes(src) == ["LRD005"]


# -- the scheduler of a Hugging Face Trainer ---------------------------------------------------
#
# transformers' Trainer steps its scheduler once after every optimizer step, whether the
# scheduler was handed over in `optimizers=(optimizer, scheduler)` or built by a subclass's
# `create_scheduler` (a ReduceLROnPlateau is stepped at evaluation, with its metric). A
# scheduler whose horizon is sized in epochs collapses within the first epoch there, as one
# returned from a LightningModule with "interval": "step" does.

_HANDED_OVER = """
import torch
from transformers import Trainer, TrainingArguments


def fine_tune(net, train_set, epochs):
    args = TrainingArguments("runs", num_train_epochs=epochs, per_device_train_batch_size=8)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-5)
    decay = {schedule}
    Trainer(model=net, args=args, train_dataset=train_set, optimizers=(opt, decay)).train()
"""


def test_epoch_sized_scheduler_handed_to_the_hf_trainer_is_stepped_per_update() -> None:
    src = _HANDED_OVER.format(
        schedule="torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[epochs // 2], gamma=0.1)")
    assert codes(src) == ["LRD002"]


def test_small_literal_step_size_handed_to_the_hf_trainer_is_reported() -> None:
    src = _HANDED_OVER.format(schedule="torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)")
    assert codes(src) == ["LRD002"]


def test_update_sized_schedule_handed_to_the_hf_trainer_is_not_reported() -> None:
    # control: a warm-up sized in optimizer steps is what the Trainer expects
    src = _HANDED_OVER.format(
        schedule="get_linear_schedule_with_warmup(opt, 100, epochs * (len(train_set) // 8))").replace(
        "from transformers import Trainer", "from transformers import get_linear_schedule_with_warmup, Trainer")
    assert codes(src) == []


def test_plateau_handed_to_the_hf_trainer_is_not_reported() -> None:
    # control: the Trainer steps a ReduceLROnPlateau at evaluation time, with the metric
    src = _HANDED_OVER.format(
        schedule="torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2)")
    assert codes(src) == []


_SUBCLASS = """
import torch
from transformers import Trainer


class DecayingTrainer(Trainer):
    def create_scheduler(self, num_training_steps, optimizer=None):
        if self.lr_scheduler is None:
            self.lr_scheduler = {schedule}
        return self.lr_scheduler
{extra}
"""


def test_epoch_sized_scheduler_from_create_scheduler_is_stepped_per_update() -> None:
    src = _SUBCLASS.format(schedule=(
        "torch.optim.lr_scheduler.CosineAnnealingLR(\n"
        "                optimizer or self.optimizer, T_max=int(self.args.num_train_epochs))"),
        extra="")
    assert codes(src) == ["LRD002"]


def test_update_sized_scheduler_from_create_scheduler_is_not_reported() -> None:
    # control: sized by the num_training_steps the Trainer passes in
    src = _SUBCLASS.format(schedule=(
        "torch.optim.lr_scheduler.CosineAnnealingLR(\n"
        "                optimizer or self.optimizer, T_max=num_training_steps)"), extra="")
    assert codes(src) == []


def test_trainer_subclass_with_a_training_loop_of_its_own_is_left_to_that_loop() -> None:
    # control: a subclass that overrides `train` steps its scheduler where its own loop does
    extra = '''
    def train(self, resume_from_checkpoint=None, **kwargs):
        for epoch in range(int(self.args.num_train_epochs)):
            for batch in self.get_train_dataloader():
                loss = self.compute_loss(self.model, batch)
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.lr_scheduler.step()
'''
    src = _SUBCLASS.format(schedule=(
        "torch.optim.lr_scheduler.CosineAnnealingLR(\n"
        "                optimizer or self.optimizer, T_max=int(self.args.num_train_epochs))"),
        extra=extra)
    assert "LRD002" not in codes(src)


def test_a_trainer_class_of_the_projects_own_is_not_the_hf_trainer() -> None:
    # control: a project class named Trainer with its own loop is traced as written
    src = """
    import torch

    class Trainer:
        def __init__(self, net, loader, epochs, optimizers=(None, None)):
            self.net, self.loader, self.epochs = net, loader, epochs
            self.opt, self.sched = optimizers

        def fit(self):
            for epoch in range(self.epochs):
                for x, y in self.loader:
                    self.opt.zero_grad()
                    torch.nn.functional.mse_loss(self.net(x), y).backward()
                    self.opt.step()
                self.sched.step()

    def main(net, loader, epochs):
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=epochs // 3)
        Trainer(net, loader, epochs, optimizers=(opt, sched)).fit()
    """
    assert codes(src) == []


# -- a hook told by a literal where to step ------------------------------------------------------
#
# Trainer frameworks with hooks let one LR hook step per iteration or per epoch by a flag
# given when the hook is built (`LrHook(by_epoch=False)`). Where the caller passes a literal,
# the trace knows which branch runs: the step under `if not self.by_epoch:` in the iteration
# hook runs after every batch, whatever the test looks like, as an unconditional step would.

_HOOKED_RUNNER = """
import torch


class Hook:
    def after_iter(self, runner):
        pass

    def after_epoch(self, runner):
        pass


class LrStepper(Hook):
    def __init__(self, by_epoch=True):
        self.by_epoch = by_epoch

    def after_iter(self, runner):
        if not self.by_epoch:
            runner.sched.step()

    def after_epoch(self, runner):
        if self.by_epoch:
            runner.sched.step()


class Runner:
    def __init__(self, net, batches, epochs, hooks):
        self.net, self.batches, self.epochs, self.hooks = net, batches, epochs, hooks
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        self.sched = torch.optim.lr_scheduler.MultiStepLR(self.opt, milestones=[epochs // 2])

    def fire(self, event):
        for hook in self.hooks:
            getattr(hook, event)(self)

    def run(self):
        for epoch in range(self.epochs):
            for x, y in self.batches:
                self.opt.zero_grad()
                torch.nn.functional.cross_entropy(self.net(x), y).backward()
                self.opt.step()
                self.fire("after_iter")
            self.fire("after_epoch")


def main(net, batches, epochs, settings):
    Runner(net, batches, epochs, [{hook}]).run()
"""


def test_hook_told_by_a_literal_to_step_per_iteration_steps_an_epoch_schedule_per_batch() -> None:
    assert codes(_HOOKED_RUNNER.format(hook="LrStepper(by_epoch=False)")) == ["LRD002"]


def test_hook_left_at_its_per_epoch_default_is_not_reported() -> None:
    # control: by default the same hook steps once per epoch
    assert codes(_HOOKED_RUNNER.format(hook="LrStepper()")) == []


def test_hook_told_by_a_literal_to_step_per_epoch_is_not_reported() -> None:
    assert codes(_HOOKED_RUNNER.format(hook="LrStepper(by_epoch=True)")) == []


def test_hook_given_a_setting_is_still_the_authors_choice() -> None:
    # control: a flag read from the settings is not known here; a step under a flag of its
    # own stays the author's choice of when it steps
    assert codes(_HOOKED_RUNNER.format(hook="LrStepper(by_epoch=settings.by_epoch)")) == []
