"""Framework-based training code (issue 7, batch "fresh-2026-12fz" of bench/realcode): the
shapes behind the batch, in our own words.

The batch's dev half had no miss and no false alarm. Its Ignite program hands a torch
scheduler to Ignite wrapped in ``LRScheduler(...)`` and attaches the wrapper to an event of the
engine: Ignite then steps the torch scheduler each time that event fires. lrdoctor did not see
those steps at all, so the same scheduler attached at the wrong level (an epoch-sized StepLR
after every iteration, a OneCycleLR once per epoch) went unreported, and so did a checkpoint
handler that leaves the scheduler out. The wrapper is now the scheduler it wraps, stepped
where it is attached: after every iteration for ``ITERATION_STARTED`` / ``ITERATION_COMPLETED``,
after every epoch for ``EPOCH_STARTED`` / ``EPOCH_COMPLETED``. Ignite (0.4.9 on) wants the
wrapper on ``*_STARTED``, where it sets the LR of the coming pass; earlier versions on
``*_COMPLETED``. Both are the framework's own correct use, never a step before the update.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, codes, findings, project_codes

_ENGINE = '''
import torch
from ignite.engine import Engine, Events
from ignite.handlers import LRScheduler{extra_import}


def fit(net, batches, n_epochs):
    sgd = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)

    def update(engine, batch):
        sgd.zero_grad()
        loss = net(batch).square().mean()
        loss.backward()
        sgd.step()
        return loss.item()

    engine = Engine(update)
    {build}
    engine.add_event_handler(Events.{event}, handler)
    engine.run(batches, max_epochs=n_epochs)
'''


def _engine(build: str, event: str, extra_import: str = "") -> str:
    return _ENGINE.format(build=build, event=event, extra_import=extra_import)


_STEP_BY_EPOCHS = "handler = LRScheduler(torch.optim.lr_scheduler.StepLR(sgd, step_size=20, gamma=0.5))"
_ONE_CYCLE = ("handler = LRScheduler(torch.optim.lr_scheduler.OneCycleLR("
              "sgd, max_lr=0.1, total_steps=n_epochs * len(batches)))")


# -- the wrong level, reported ----------------------------------------------------------------


@pytest.mark.parametrize("event", ["ITERATION_COMPLETED", "ITERATION_STARTED"])
def test_epoch_sized_steplr_attached_to_every_iteration_is_reported(event: str) -> None:
    found = findings(_engine(_STEP_BY_EPOCHS, event))
    assert ("LRD002", 19) in found


@pytest.mark.parametrize("event", ["EPOCH_COMPLETED", "EPOCH_STARTED"])
def test_batch_sized_one_cycle_attached_to_every_epoch_is_reported(event: str) -> None:
    found = findings(_engine(_ONE_CYCLE, event))
    assert ("LRD003", 19) in found


def test_warmup_helper_around_an_epoch_sized_multistep_per_iteration_is_reported() -> None:
    build = ("handler = create_lr_scheduler_with_warmup(torch.optim.lr_scheduler.MultiStepLR("
             "sgd, milestones=[30, 60]), warmup_start_value=0.0, warmup_duration=200)")
    found = codes(_engine(build, "ITERATION_STARTED",
                          extra_import=", create_lr_scheduler_with_warmup"))
    assert "LRD002" in found


def test_wrapper_from_a_choice_in_another_module_is_judged_per_option(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    helpers = '''
    import torch
    from ignite.handlers import LRScheduler


    def make_schedule(kind, sgd, total):
        table = {
            "one_cycle": lambda: LRScheduler(torch.optim.lr_scheduler.OneCycleLR(
                sgd, max_lr=0.1, total_steps=total)),
            "cosine": lambda: LRScheduler(torch.optim.lr_scheduler.CosineAnnealingLR(
                sgd, T_max=total)),
        }
        return table[kind]()
    '''
    script = '''
    import torch
    from ignite.engine import Engine, Events
    from schedules import make_schedule


    def fit(net, batches, n_epochs, kind):
        sgd = torch.optim.SGD(net.parameters(), lr=0.05)

        def update(engine, batch):
            sgd.zero_grad()
            net(batch).square().mean().backward()
            sgd.step()

        engine = Engine(update)
        handler = make_schedule(kind, sgd, n_epochs * len(batches))
        engine.add_event_handler(Events.{event}, handler)
        engine.run(batches, max_epochs=n_epochs)
    '''
    wrong = check_project(tmp_path / "wrong", monkeypatch, {
        "schedules.py": helpers, "train.py": script.replace("{event}", "EPOCH_COMPLETED")})
    assert "LRD003" in project_codes(wrong)
    right = check_project(tmp_path / "right", monkeypatch, {
        "schedules.py": helpers, "train.py": script.replace("{event}", "ITERATION_COMPLETED")})
    assert project_codes(right) == []


def test_checkpoint_handler_without_the_wrapped_scheduler_is_reported() -> None:
    source = '''
    import torch
    from ignite.engine import Engine, Events
    from ignite.handlers import Checkpoint, DiskSaver, LRScheduler


    def fit(net, batches, n_epochs):
        sgd = torch.optim.SGD(net.parameters(), lr=0.05)

        def update(engine, batch):
            sgd.zero_grad()
            net(batch).square().mean().backward()
            sgd.step()

        engine = Engine(update)
        handler = LRScheduler(torch.optim.lr_scheduler.MultiStepLR(sgd, milestones=[30, 60]))
        engine.add_event_handler(Events.EPOCH_COMPLETED, handler)
        objects = {"net": net, "sgd": sgd, "engine": engine}
        engine.add_event_handler(Events.EPOCH_COMPLETED, Checkpoint(objects, DiskSaver("runs")))
        engine.run(batches, max_epochs=n_epochs)
    '''
    assert "LRD007" in codes(source)
    saved = source.replace('"engine": engine}', '"engine": engine, "schedule": handler}')
    assert "LRD007" not in codes(saved)


# -- the framework's correct use, silent ------------------------------------------------------


@pytest.mark.parametrize("event", ["ITERATION_STARTED", "ITERATION_COMPLETED"])
def test_batch_sized_one_cycle_attached_to_every_iteration_is_silent(event: str) -> None:
    # ITERATION_STARTED is Ignite's documented place: no step ahead of the update (LRD001)
    assert codes(_engine(_ONE_CYCLE, event)) == []


@pytest.mark.parametrize("event", ["EPOCH_STARTED", "EPOCH_COMPLETED"])
def test_epoch_sized_steplr_attached_to_every_epoch_is_silent(event: str) -> None:
    assert codes(_engine(_STEP_BY_EPOCHS, event)) == []


def test_warmup_helper_around_a_batch_sized_cosine_per_iteration_is_silent() -> None:
    build = ("handler = create_lr_scheduler_with_warmup(torch.optim.lr_scheduler."
             "CosineAnnealingLR(sgd, T_max=n_epochs * len(batches)), warmup_start_value=0.0, "
             "warmup_duration=200)")
    assert codes(_engine(build, "ITERATION_STARTED",
                         extra_import=", create_lr_scheduler_with_warmup")) == []


def test_ignite_own_param_scheduler_is_not_taken_for_a_torch_one() -> None:
    # Ignite's CosineAnnealingScheduler writes the LR itself: not a scheduler lrdoctor tracks
    build = ('handler = CosineAnnealingScheduler(sgd, "lr", start_value=0.05, end_value=0.0, '
             'cycle_size=len(batches))')
    source = _engine(build, "ITERATION_STARTED",
                     extra_import=", CosineAnnealingScheduler")
    assert codes(source) == []


def test_wrapper_attached_with_a_literal_filter_keeps_its_level() -> None:
    # every 50th iteration is still a step counted in iterations: an epoch-sized StepLR there
    # is as wrong as on every iteration
    source = _engine(_STEP_BY_EPOCHS, "ITERATION_COMPLETED(every=50)")
    assert "LRD002" in codes(source)


# -- detectron2's DefaultTrainer --------------------------------------------------------------
# The batch's detectron2 program subclasses DefaultTrainer and leaves the schedule to the
# config. A subclass may instead return a torch scheduler from `build_lr_scheduler`; the
# trainer's LRScheduler hook steps it after every iteration, as the HF Trainer does after
# every optimizer step.

_D2 = '''
import torch
from detectron2.engine import DefaultTrainer, hooks


class RotatedTrainer(DefaultTrainer):
    @classmethod
    def build_lr_scheduler(cls, cfg, optimizer):
        return {schedule}
{extra}

def main(cfg):
    trainer = RotatedTrainer(cfg)
    trainer.resume_or_load(resume=False)
    return trainer.train()
'''


def _d2(schedule: str, extra: str = "") -> str:
    return _D2.format(schedule=schedule, extra=extra)


def test_detectron2_trainer_with_an_epoch_sized_steplr_is_reported() -> None:
    found = findings(_d2("torch.optim.lr_scheduler.StepLR(optimizer, step_size=8, gamma=0.1)"))
    assert found == [("LRD002", 9)]


@pytest.mark.parametrize("schedule", [
    "torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=cfg.SOLVER.STEPS)",
    "torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.SOLVER.MAX_ITER)",
    "torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: 1 - it / cfg.SOLVER.MAX_ITER)",
])
def test_detectron2_trainer_with_an_iteration_sized_schedule_is_silent(schedule: str) -> None:
    assert codes(_d2(schedule)) == []


def test_detectron2_trainer_that_replaces_its_hooks_is_not_judged() -> None:
    # the subclass drops (or replaces) the per-iteration LRScheduler hook: how often the
    # scheduler is stepped is in its own hooks, not known here
    extra = '''
    def build_hooks(self):
        kept = super().build_hooks()
        return [h for h in kept if not isinstance(h, hooks.LRScheduler)]
'''
    source = _d2("torch.optim.lr_scheduler.StepLR(optimizer, step_size=8, gamma=0.1)",
                 extra=extra)
    assert codes(source) == []
