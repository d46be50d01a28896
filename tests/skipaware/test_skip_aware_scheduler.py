"""SkipAwareScheduler and step_was_skipped on real float16 GradScaler skips (CPU autocast):
the schedule advances once per real update, for fused and non-fused optimizers."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
import torch

import lrdoctor

ORDER_WARNING = "Detected call of `lr_scheduler.step()` before `optimizer.step()`"

OPTIMIZERS: dict[str, Callable[[Any], torch.optim.Optimizer]] = {
    "SGD": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
    # no momentum: torch 2.13's fused CPU SGD fills the momentum buffer from the gradients of
    # a step GradScaler skipped (inf), and every later update is NaN
    "SGD-fused": lambda p: torch.optim.SGD(p, lr=0.1, fused=True),
    "SGD-foreach": lambda p: torch.optim.SGD(p, lr=0.1, foreach=True),
    "Adam": lambda p: torch.optim.Adam(p, lr=0.1),
    "Adam-fused": lambda p: torch.optim.Adam(p, lr=0.1, fused=True),
    "AdamW": lambda p: torch.optim.AdamW(p, lr=0.1),
    "AdamW-fused": lambda p: torch.optim.AdamW(p, lr=0.1, fused=True),
    "AdamW-foreach": lambda p: torch.optim.AdamW(p, lr=0.1, foreach=True),
}


def make_scheduler(opt: torch.optim.Optimizer) -> torch.optim.lr_scheduler.LRScheduler:
    # cycle_momentum=False: OneCycleLR would turn momentum on for SGD (see SGD-fused above)
    return torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=40,
                                               cycle_momentum=False)


def train_amp(make_opt: Callable[[Any], torch.optim.Optimizer], wrap: bool, steps: int = 14,
              accumulate: int = 1, init_scale: float = 2.0**20) -> tuple[list[float], int, list[str]]:
    """A float16 AMP loop whose first updates overflow (init_scale far above float16's range).
    Returns the LR each real update trained with (a real update is one that changed the
    parameters), the number of skipped updates, and the warnings raised."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    opt = make_opt(model.parameters())
    sched = make_scheduler(opt)
    if wrap:
        sched = lrdoctor.SkipAwareScheduler(sched)
    scaler = torch.amp.GradScaler("cpu", init_scale=init_scale)
    # the LR the update trains with, read as the optimizer starts its step (after the
    # wrapper's own pre-hook, which may just have decided a deferred scheduler step)
    in_step: list[float] = []
    opt.register_step_pre_hook(lambda o, a, k: in_step.append(o.param_groups[0]["lr"]))
    data = [(torch.randn(4, 8), torch.randn(4, 1)) for _ in range(accumulate)]
    lrs, skipped = [], 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(steps):
            for x, y in data:
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = torch.nn.functional.mse_loss(model(x), y) / accumulate
                scaler.scale(loss).backward()
            before = [p.detach().clone() for p in model.parameters()]
            in_step.clear()
            scaler.step(opt)
            scaler.update()
            sched.step()
            opt.zero_grad()
            if any(not torch.equal(b, p) for b, p in zip(before, model.parameters())):
                lrs.append(in_step[-1])
            else:
                skipped += 1
    return lrs, skipped, [str(w.message) for w in caught]


def schedule_without_skips(updates: int) -> list[float]:
    """The LRs a run with no skipped step applies to its first ``updates`` updates."""
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
    sched = make_scheduler(opt)
    out = []
    for _ in range(updates):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_schedule_follows_real_updates_when_gradscaler_skips(name: str) -> None:
    lrs, skipped, caught = train_amp(OPTIMIZERS[name], wrap=True)
    assert skipped >= 3  # the run really skipped its first updates
    assert len(lrs) >= 5
    assert lrs == pytest.approx(schedule_without_skips(len(lrs)), rel=1e-12)
    assert not any(ORDER_WARNING in w for w in caught)


@pytest.mark.parametrize("name", ["SGD", "Adam-fused"])
def test_bare_scheduler_runs_ahead_of_real_updates(name: str) -> None:
    # the same loop without the wrapper: the schedule has moved on during the skipped steps
    lrs, skipped, caught = train_amp(OPTIMIZERS[name], wrap=False)
    assert skipped >= 3
    assert lrs != pytest.approx(schedule_without_skips(len(lrs)), rel=1e-12)
    # non-fused: optimizer.step() never ran before the first scheduler step, so PyTorch warns
    assert any(ORDER_WARNING in w for w in caught) == (name == "SGD")


@pytest.mark.parametrize("name", ["AdamW", "AdamW-fused", "SGD-fused"])
def test_gradient_accumulation_steps_once_per_real_update(name: str) -> None:
    lrs, skipped, caught = train_amp(OPTIMIZERS[name], wrap=True, accumulate=3)
    assert skipped >= 3
    assert lrs == pytest.approx(schedule_without_skips(len(lrs)), rel=1e-12)
    assert not any(ORDER_WARNING in w for w in caught)


def test_no_skips_means_the_same_schedule_as_the_bare_scheduler() -> None:
    wrapped, skipped, _ = train_amp(OPTIMIZERS["Adam"], wrap=True, init_scale=1.0)
    bare, _, _ = train_amp(OPTIMIZERS["Adam"], wrap=False, init_scale=1.0)
    assert skipped == 0
    assert wrapped == bare


def test_step_was_skipped_guards_a_scheduler_step_by_hand() -> None:
    for name in ("SGD", "Adam-fused"):
        torch.manual_seed(0)
        model = torch.nn.Linear(8, 1)
        opt = OPTIMIZERS[name](model.parameters())
        sched = make_scheduler(opt)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)
        x, y = torch.randn(4, 8), torch.randn(4, 1)
        lrs, answers = [], []
        lrdoctor.step_was_skipped(opt)  # tracking starts before the first step
        for _ in range(12):
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            before = model.weight.detach().clone()
            lr = opt.param_groups[0]["lr"]
            scaler.step(opt)
            scaler.update()
            skipped = lrdoctor.step_was_skipped(opt)
            answers.append(skipped)
            if not skipped:
                sched.step()
            opt.zero_grad()
            assert skipped == torch.equal(before, model.weight), name
            if not skipped:
                lrs.append(lr)
        assert answers[0] and not answers[-1], name
        assert lrs == pytest.approx(schedule_without_skips(len(lrs)), rel=1e-12), name


def test_state_dict_is_the_wrapped_schedulers_both_ways() -> None:
    opt = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
    opt_b = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
    bare = torch.optim.lr_scheduler.StepLR(opt_b, step_size=2, gamma=0.5)
    wrapped = lrdoctor.SkipAwareScheduler(torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5))
    for _ in range(3):
        opt.step()
        opt_b.step()
        bare.step()
        wrapped.step()
    assert wrapped.state_dict() == bare.state_dict()
    assert wrapped.get_last_lr() == bare.get_last_lr() == [0.05]
    assert wrapped.last_epoch == 3 and wrapped.optimizer is opt

    # saved from the wrapper, loaded into a bare scheduler, and the other way round
    opt2 = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
    fresh = torch.optim.lr_scheduler.StepLR(opt2, step_size=2, gamma=0.5)
    fresh.load_state_dict(wrapped.state_dict())
    assert fresh.last_epoch == 3
    opt3 = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
    fresh_wrapped = lrdoctor.SkipAwareScheduler(torch.optim.lr_scheduler.StepLR(opt3, step_size=2, gamma=0.5))
    fresh_wrapped.load_state_dict(bare.state_dict())
    assert fresh_wrapped.last_epoch == 3 and fresh_wrapped.scheduler.last_epoch == 3

    wrapped.last_epoch = 7  # writes go to the wrapped scheduler
    assert wrapped.scheduler.last_epoch == 7
    assert isinstance(wrapped, torch.optim.lr_scheduler.LRScheduler)
    assert "StepLR" in repr(wrapped)


def test_a_step_before_any_update_does_not_move_the_schedule() -> None:
    opt = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
    sched = lrdoctor.SkipAwareScheduler(torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sched.step()
    assert sched.get_last_lr() == [0.1]
    assert not caught
    opt.step()
    sched.step()
    sched.step()  # no update since the last step
    assert sched.get_last_lr() == [0.05]


def test_flags_read_later_give_the_same_schedule(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CUDA path, simulated on the CPU: each fused step's flag is still "in flight" when
    the scheduler steps, so the decision waits for the optimizer's next step."""
    from lrdoctor import skipaware

    real_init = skipaware._Flag.__init__
    pending: list[Any] = []

    class NotYet:
        def query(self) -> bool:
            return False

        def synchronize(self) -> None:
            pending.append(1)

    def slow_init(self: Any, found_inf: torch.Tensor) -> None:
        real_init(self, found_inf)
        self.tensor = found_inf.detach().clone()
        self.event = NotYet()

    monkeypatch.setattr(skipaware._Flag, "__init__", slow_init)
    monkeypatch.setattr(skipaware, "_readable_now", lambda found_inf: False)
    lrs, skipped, caught = train_amp(OPTIMIZERS["Adam-fused"], wrap=True)
    assert skipped >= 3 and pending  # decisions were deferred and then read
    assert lrs == pytest.approx(schedule_without_skips(len(lrs)), rel=1e-12)
    assert not any(ORDER_WARNING in w for w in caught)


def test_wrapped_optimizer_is_unwrapped() -> None:
    class FrameworkOptimizer:  # the shape of Lightning's LightningOptimizer
        def __init__(self, optimizer: torch.optim.Optimizer) -> None:
            self._optimizer = optimizer

        def step(self) -> None:
            self._optimizer.step()

    opt = torch.optim.SGD(torch.nn.Linear(2, 1).parameters(), lr=0.1)
    torch.optim.lr_scheduler.StepLR(opt, step_size=1)  # the scheduler being guarded
    wrapper = FrameworkOptimizer(opt)
    assert lrdoctor.step_was_skipped(wrapper)  # never stepped
    wrapper.step()
    assert not lrdoctor.step_was_skipped(wrapper)
    assert lrdoctor.step_was_skipped(wrapper)  # nothing since the last question


@pytest.mark.parametrize("name", ["SGD", "Adam", "Adam-fused", "AdamW-fused"])
def test_step_was_skipped_first_asked_inside_the_loop(name: str) -> None:
    """The guard written only in the loop: the first question comes after the first (skipped)
    step, before any tracking; its answer is still right."""
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = OPTIMIZERS[name](model.parameters())
    sched = make_scheduler(opt)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)
    x, y = torch.randn(4, 8), torch.randn(4, 1)
    for _ in range(8):
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        before = model.weight.detach().clone()
        scaler.step(opt)
        scaler.update()
        skipped = lrdoctor.step_was_skipped(opt)
        if not skipped:
            sched.step()
        opt.zero_grad()
        assert skipped == torch.equal(before, model.weight), name


def test_pickled_and_deep_copied_wrapper_keeps_working() -> None:
    import copy
    import io

    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = lrdoctor.SkipAwareScheduler(torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5))
    opt.step()
    sched.step()
    buffer = io.BytesIO()
    torch.save({"model": model, "opt": opt, "sched": sched}, buffer)  # the whole objects
    buffer.seek(0)
    loaded = torch.load(buffer, weights_only=False)
    assert isinstance(loaded["sched"], lrdoctor.SkipAwareScheduler)
    assert loaded["sched"].get_last_lr() == [0.05]
    copied = copy.deepcopy({"opt": opt, "sched": sched})
    for restored in (loaded, copied):
        restored["sched"].step()  # no update of the restored optimizer yet
        assert restored["sched"].get_last_lr() == [0.05]
        restored["opt"].step()
        restored["sched"].step()
        assert restored["sched"].get_last_lr() == [0.025]
    assert sched.get_last_lr() == [0.05]  # the original is untouched
