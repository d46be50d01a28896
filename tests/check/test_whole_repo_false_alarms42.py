"""fphunt54: false alarms of unseen real code (HiFi-GAN / UnivNet / DiffWave vocoders,
pix2pix and SRGAN image GANs, actor-critic agents, Ignite trainers), and of probes written
in our own words after their shapes, each fixed by semantics. Every false shape, written
here in our own words, must be silent; a buggy twin must still be reported.

1. A scheduler handed on only when it is not a ReduceLROnPlateau:
   ``lr_scheduler=sched if not is_plateau else None`` (``is_plateau = isinstance(sched,
   ReduceLROnPlateau)``) to Ignite's ``common.setup_common_training_handlers``, which steps
   what it is given after every iteration. When the scheduler's class is known, the test is
   decided before the run: for the plateau scheduler the expression is None and nothing is
   attached, so no step without a metric (LRD004) and none on a skipped AMP update (LRD005)
   happens there. lrdoctor evaluated the conditional expression as "the scheduler, on a
   condition" whatever the test said, and a name bound to the class test lost the mark that
   it says the class. For another class the scheduler is handed on and stepped every
   iteration: still reported. The message now writes such a receiver as Python reads it,
   ``(sched if not is_plateau else None).step()``.

2. LRD012, a warm-up and a main scheduler kept in a list and one of them picked by the
   epoch: ``schedulers[0 if epoch < warm else 1].step()``. The subscript takes one entry per
   evaluation, the one the test selects, exactly as ``if epoch < warm: warm_s.step() else:
   main_s.step()`` would; lrdoctor read an index it could not compute as "every entry of
   the list" and reported the two as stepping the optimizer together. An index computed
   otherwise (``schedulers[epoch % 2]``) still reads as every entry.

3. (a miss found by a probe) ``(warm if step < warm_steps else cosine).step()`` in the batch
   loop: lrdoctor kept only the first scheduler of the conditional expression, so a cosine
   sized in epochs stepped there on every batch went unreported (LRD002). Both are now
   stepped, each on its own side of the test, so they do not compete (no LRD012).
"""

from __future__ import annotations

from .helpers import codes, messages

# {build}: the scheduler's constructor; {handed}: what goes to lr_scheduler=
_IGNITE = """
import torch
from torch import nn, optim
from ignite.engine import Engine
from ignite.contrib.engines import common


def fit(settings, batches):
    net = nn.Linear(6, 2)
    opt = optim.AdamW(net.parameters(), lr=1e-3)
    sched = {build}
    is_plateau = isinstance(sched, optim.lr_scheduler.ReduceLROnPlateau)
    scaler = torch.amp.GradScaler("cuda", enabled=settings.fp16)

    def update(engine, x):
        opt.zero_grad()
        with torch.autocast("cuda", enabled=settings.fp16):
            loss = net(x).square().mean()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return {"loss": loss.item()}

    trainer = Engine(update)
    common.setup_common_training_handlers(
        trainer,
        to_save={"net": net, "opt": opt, "sched": sched, "scaler": scaler},
        save_every_iters=500,
        output_path=settings.out,
        lr_scheduler={handed},
        output_names=["loss"],
    )
    trainer.run(batches, max_epochs=settings.epochs)
"""

_PLATEAU = "optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2000)"
_STEP = "optim.lr_scheduler.StepLR(opt, step_size=2000)"


def ignite(build: str, handed: str) -> str:
    return _IGNITE.replace("{build}", build).replace("{handed}", handed)


def test_plateau_kept_from_the_iteration_handler_by_a_named_class_test_is_silent() -> None:
    found = codes(ignite(_PLATEAU, "sched if not is_plateau else None"))
    assert "LRD004" not in found
    assert "LRD005" not in found


def test_plateau_kept_from_the_iteration_handler_by_an_inline_class_test_is_silent() -> None:
    handed = "None if isinstance(sched, optim.lr_scheduler.ReduceLROnPlateau) else sched"
    found = codes(ignite(_PLATEAU, handed))
    assert "LRD004" not in found
    assert "LRD005" not in found


def test_step_scheduler_handed_on_by_the_same_test_is_still_stepped_on_skipped_updates() -> None:
    assert "LRD005" in codes(ignite(_STEP, "sched if not is_plateau else None"))


def test_plateau_handed_on_by_an_inverted_test_still_steps_without_a_metric() -> None:
    assert "LRD004" in codes(ignite(_PLATEAU, "sched if is_plateau else None"))


def test_conditional_receiver_is_written_with_parentheses() -> None:
    text = " ".join(messages(ignite(_STEP, "sched if not is_plateau else None")))
    assert "`(sched if not is_plateau else None).step()`" in text


# {pick}: the statement that steps one of the two schedulers at the end of an epoch
_PHASES = """
import torch
from torch import nn


def fit(settings, batches):
    net = nn.Linear(6, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    phases = [
        torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.05, total_iters=settings.warm),
        torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=settings.epochs - settings.warm),
    ]
    for epoch in range(settings.epochs):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        {pick}
"""


def phases(pick: str) -> str:
    return _PHASES.replace("{pick}", pick)


def test_list_entry_picked_by_the_epoch_is_silent() -> None:
    assert "LRD012" not in codes(phases("phases[0 if epoch < settings.warm else 1].step()"))


def test_list_entries_picked_by_the_epoch_parity_still_compete() -> None:
    assert "LRD012" in codes(phases("phases[epoch % 2].step()"))


def test_both_list_entries_stepped_still_compete() -> None:
    assert "LRD012" in codes(phases("phases[0].step()\n        phases[1].step()"))


# {pick}: the statement that steps one of the two schedulers after every update
_PER_BATCH = """
import torch
from torch import nn


def fit(settings, batches):
    net = nn.Linear(6, 2)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-4)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=settings.warm_steps)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max={horizon})
    step = 0
    for epoch in range(settings.epochs):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            (warm if step < settings.warm_steps else cosine).step()
            step += 1
"""


def test_conditional_pair_sized_in_steps_is_silent() -> None:
    found = codes(_PER_BATCH.replace("{horizon}", "settings.epochs * len(batches) - settings.warm_steps"))
    assert "LRD012" not in found
    assert "LRD002" not in found


def test_conditional_pair_with_an_epoch_sized_cosine_stepped_per_batch_is_found() -> None:
    assert "LRD002" in codes(_PER_BATCH.replace("{horizon}", "settings.epochs"))


_BOUND_PAIR = """
import torch
from torch import nn


def fit(settings, batches):
    net = nn.Linear(6, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    sched = (torch.optim.lr_scheduler.OneCycleLR(opt, 0.05, total_steps=settings.epochs * len(batches))
             if settings.one_cycle else torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max={horizon}))
    for epoch in range(settings.epochs):
        for x, y in batches:
            opt.zero_grad()
            nn.functional.mse_loss(net(x), y).backward()
            opt.step()
            sched.step()
"""


def test_conditional_pair_bound_to_a_name_checks_the_second_scheduler_too() -> None:
    assert "LRD002" in codes(_BOUND_PAIR.replace("{horizon}", "settings.epochs"))
    assert "LRD002" not in codes(_BOUND_PAIR.replace("{horizon}", "settings.epochs * len(batches)"))
