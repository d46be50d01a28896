"""Schedulers lrdoctor cannot see built: project factories, legacy Hugging Face warm-ups,
objects passed through ``**kwargs``, import shims, ``isinstance`` branches, wrapper classes,
classes chosen through a variable."""

from __future__ import annotations

from tests.check.helpers import codes

_FACTORY = """
import torch
from myproject.solver import build_scheduler

def train(cfg, model, loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = build_scheduler(cfg, optimizer)
    for epoch in range(cfg.epochs):
{before}
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
{after}
"""


def test_factory_scheduler_stepped_before_the_updates_is_lrd001() -> None:
    assert codes(_FACTORY.format(before="        scheduler.step()", after="")) == ["LRD001"]


def test_factory_scheduler_stepped_after_the_updates_is_correct() -> None:
    assert codes(_FACTORY.format(before="", after="        scheduler.step()")) == []


def test_factory_scheduler_stepped_per_batch_gets_no_horizon_finding() -> None:
    # its class and horizon are unknown: per batch may be exactly what it was built for
    src = _FACTORY.format(before="", after="").replace(
        "            optimizer.step()\n", "            optimizer.step()\n            scheduler.step()\n"
    )
    assert codes(src) == []


def test_factory_scheduler_stepped_on_amp_skips_is_lrd005() -> None:
    src = """
    import torch
    from myproject.solver import build_scheduler

    def train(cfg, model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = build_scheduler(cfg, optimizer)
        scaler = torch.amp.GradScaler("cuda")
        for epoch in range(cfg.epochs):
            for x in loader:
                scaler.scale(model(x).sum()).backward()
                scaler.step(optimizer)
                scaler.update()
                scheduler.step()
    """
    assert codes(src) == ["LRD005"]


_LEGACY = """
import torch
from pytorch_transformers import AdamW, WarmupLinearSchedule

def train(model, loader, epochs):
    optimizer = AdamW(model.parameters(), lr=5e-5)
    scheduler = WarmupLinearSchedule(optimizer, warmup_steps=100, t_total=epochs * len(loader))
    for epoch in range(epochs):
        for batch in loader:
            model(**batch)[0].backward()
            optimizer.step()
{per_batch}
{per_epoch}
"""


def test_legacy_warmup_linear_schedule_stepped_per_epoch_is_lrd003() -> None:
    assert codes(_LEGACY.format(per_batch="", per_epoch="        scheduler.step()")) == ["LRD003"]


def test_legacy_warmup_linear_schedule_stepped_per_update_is_correct() -> None:
    assert codes(_LEGACY.format(per_batch="            scheduler.step()", per_epoch="")) == []


def test_pretrained_bert_warmup_schedule_object_is_not_an_lr_scheduler() -> None:
    # pytorch_pretrained_bert's schedules take no optimizer: get_lr(progress) is their API
    src = """
    import torch
    from pytorch_pretrained_bert.optimization import WarmupLinearSchedule

    def train(model, loader, epochs, lr):
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        schedule = WarmupLinearSchedule(warmup=0.1, t_total=epochs * len(loader))
        step = 0
        for epoch in range(epochs):
            for batch in loader:
                model(batch).backward()
                for group in optimizer.param_groups:
                    group["lr"] = lr * schedule.get_lr(step)
                optimizer.step()
                step += 1
    """
    assert codes(src) == []


_KWARGS = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR

class Trainer:
    def __init__(self, model, **kwargs):
        self.model = model
        self.optimizer = kwargs["optimizer"]
        self.scheduler = kwargs.get("scheduler")

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for x in loader:
                self.model(x).sum().backward()
                self.optimizer.step()
            self.scheduler.step()

def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = CosineAnnealingLR(optimizer, T_max={horizon})
    Trainer(model, optimizer=optimizer, scheduler=scheduler).fit(loader, epochs)
"""


def test_scheduler_passed_through_kwargs_sized_in_batches_stepped_per_epoch_is_lrd003() -> None:
    assert codes(_KWARGS.format(horizon="len(loader)")) == ["LRD003"]


def test_scheduler_passed_through_kwargs_sized_in_epochs_stepped_per_epoch_is_correct() -> None:
    assert codes(_KWARGS.format(horizon="epochs")) == []


def test_objects_unpacked_from_star_args_are_tracked() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    def train_epoch(model, loader, *objects):
        optimizer, scheduler = objects
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
            scheduler.step()

    def main(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=5)
        for epoch in range(epochs):
            train_epoch(model, loader, optimizer, scheduler)
    """
    assert codes(src) == ["LRD002"]


_SHIM = """
import torch
try:
    from transformers import get_linear_schedule_with_warmup
except ImportError:
    def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
        return None

def train(model, loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    scheduler = get_linear_schedule_with_warmup(optimizer, 100, epochs * len(loader))
    for epoch in range(epochs):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
{per_batch}
{per_epoch}
"""


def test_import_shim_with_a_stand_in_function_tracks_the_real_scheduler() -> None:
    assert codes(_SHIM.format(per_batch="", per_epoch="        scheduler.step()")) == ["LRD003"]


def test_import_shim_stepped_per_update_is_correct() -> None:
    assert codes(_SHIM.format(per_batch="            scheduler.step()", per_epoch="")) == []


_ISINSTANCE = """
import torch
from torch.optim.lr_scheduler import ReduceLROnPlateau, StepLR

def train(model, loader, val_loss_of, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = {built}
    for epoch in range(epochs):
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
        val_loss = val_loss_of(model)
        if isinstance(scheduler, ReduceLROnPlateau):
            scheduler.step(val_loss)
        else:
            scheduler.step()
"""


def test_isinstance_plateau_branches_are_correct_for_a_plateau_scheduler() -> None:
    assert codes(_ISINSTANCE.format(built="ReduceLROnPlateau(optimizer, mode='min')")) == []


def test_isinstance_plateau_branches_are_correct_for_a_step_scheduler() -> None:
    assert codes(_ISINSTANCE.format(built="StepLR(optimizer, step_size=30)")) == []


def test_isinstance_negated_check_picks_the_branch_that_runs() -> None:
    src = _ISINSTANCE.format(built="StepLR(optimizer, step_size=30)").replace(
        "        if isinstance(scheduler, ReduceLROnPlateau):\n"
        "            scheduler.step(val_loss)\n"
        "        else:\n"
        "            scheduler.step()\n",
        "        if not isinstance(scheduler, ReduceLROnPlateau):\n"
        "            scheduler.step(epoch)\n",
    )
    assert codes(src) == ["LRD006"]


def test_type_comparison_picks_the_branch_that_runs_for_a_step_scheduler() -> None:
    # a warm-up wrapper's `if type(self.after) != ReduceLROnPlateau: ... else: after.step(m)`
    src = _ISINSTANCE.format(built="StepLR(optimizer, step_size=30)").replace(
        "if isinstance(scheduler, ReduceLROnPlateau):", "if type(scheduler) == ReduceLROnPlateau:"
    ).replace("scheduler.step(val_loss)", "scheduler.step(val_loss, epoch)")
    assert codes(src) == []
    negated = src.replace("type(scheduler) == ReduceLROnPlateau", "type(scheduler) is not "
                          "ReduceLROnPlateau").replace("scheduler.step(val_loss, epoch)",
                                                       "scheduler.step(epoch)")
    assert codes(negated) == ["LRD006"]  # the branch with step(epoch) now runs
    # StepLR's step(epoch=None) cannot take (val_loss, epoch): that call raises TypeError at
    # once, so it is no deprecated epoch argument (test_whole_repo_false_alarms31)
    raises = negated.replace("scheduler.step(epoch)", "scheduler.step(val_loss, epoch)")
    assert codes(raises) == []


def test_step_with_none_is_a_plain_step() -> None:
    src = _ISINSTANCE.format(built="StepLR(optimizer, step_size=30)").replace(
        "            scheduler.step()\n", "            scheduler.step(None)\n"
    )
    assert codes(src) == []


_WRAPPER = """
import torch
from torch.optim.lr_scheduler import StepLR

class OptimizerWithSchedule:
    def __init__(self, optimizer, decay_every):
        self.optimizer = optimizer
        self.scheduler = StepLR(optimizer, step_size=decay_every)

    def step(self):
        self.optimizer.step()
        self.scheduler.step()

    def zero_grad(self):
        self.optimizer.zero_grad()

def train(model, loader, epochs):
    optim = OptimizerWithSchedule(torch.optim.SGD(model.parameters(), lr=0.1), decay_every={n})
    for epoch in range(epochs):
        for x in loader:
            optim.zero_grad()
            model(x).sum().backward()
            optim.step()
"""


def test_scheduler_owned_by_an_optimizer_wrapper_stepped_every_batch_is_lrd002() -> None:
    assert codes(_WRAPPER.format(n=10)) == ["LRD002"]


def test_optimizer_wrapper_with_a_per_update_horizon_is_correct() -> None:
    assert codes(_WRAPPER.format(n="epochs * len(loader)")) == []


_CHOSEN = """
import torch
from torch.optim.lr_scheduler import CosineAnnealingLR, StepLR

SCHEDULERS = {{"step": StepLR, "cosine": CosineAnnealingLR}}

def train(model, loader, args):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    sched_cls = {choice}
    scheduler = sched_cls(optimizer, **args.scheduler_kwargs)
    for epoch in range(args.epochs):
{before}
        for x in loader:
            model(x).sum().backward()
            optimizer.step()
{after}
"""


def test_class_chosen_by_a_conditional_stepped_before_the_updates_is_lrd001() -> None:
    src = _CHOSEN.format(choice="StepLR if args.step else CosineAnnealingLR",
                         before="        scheduler.step()", after="")
    assert codes(src) == ["LRD001"]


def test_class_chosen_from_a_dict_stepped_after_the_updates_is_correct() -> None:
    src = _CHOSEN.format(choice="SCHEDULERS[args.scheduler]", before="",
                         after="        scheduler.step()")
    assert codes(src) == []


def test_class_chosen_from_a_dict_stepped_per_batch_gets_no_horizon_finding() -> None:
    # StepLR or CosineAnnealingLR, sized by unknown kwargs: nothing to say about its horizon
    src = _CHOSEN.format(choice="SCHEDULERS[args.scheduler]", before="", after="").replace(
        "            optimizer.step()\n", "            optimizer.step()\n            scheduler.step()\n"
    )
    assert codes(src) == []


_CUSTOM = """
import torch
from torch.optim.lr_scheduler import _LRScheduler


class WarmupPolyLR(_LRScheduler):
    def __init__(self, optimizer, max_iters, power=0.9, last_epoch=-1):
        self.max_iters = max_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        factor = (1 - self.last_epoch / self.max_iters) ** self.power
        return [base_lr * factor for base_lr in self.base_lrs]


def train(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    lr_scheduler = WarmupPolyLR(optimizer, max_iters=epochs * len(loader))
    for epoch in range(epochs):
        for images in loader:
{before}
            optimizer.zero_grad()
            model(images).sum().backward()
            optimizer.step()
{after}
"""


def test_project_scheduler_class_stepped_before_the_update_is_lrd001() -> None:
    assert codes(_CUSTOM.format(before="            lr_scheduler.step()", after="")) == ["LRD001"]


def test_project_scheduler_class_stepped_after_the_update_is_correct() -> None:
    assert codes(_CUSTOM.format(before="", after="            lr_scheduler.step()")) == []


def test_project_warmup_with_its_own_step_is_traced_into_the_scheduler_it_wraps() -> None:
    src = """
    import torch
    from torch.optim.lr_scheduler import _LRScheduler, StepLR


    class GradualWarmup(_LRScheduler):
        def __init__(self, optimizer, warmup_epochs, after_scheduler):
            self.warmup_epochs = warmup_epochs
            self.after_scheduler = after_scheduler
            super().__init__(optimizer)

        def step(self, epoch=None):
            # delegates every step to the scheduler it wraps
            self.after_scheduler.step()


    def train(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        scheduler = GradualWarmup(optimizer, 5, StepLR(optimizer, step_size=30))
        for epoch in range(epochs):
            for images in loader:
                optimizer.zero_grad()
                model(images).sum().backward()
                optimizer.step()
                scheduler.step()
    """
    assert codes(src) == ["LRD002"]
