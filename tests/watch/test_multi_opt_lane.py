"""The lane for several optimizers (Engine.MultiLane) must be invisible: a loop that steps two
optimizers each iteration (a GAN, actor-critic, one optimizer per head), each with its own
scheduler or none, keeps exactly the same tallies, findings (messages and evidence) and trained
parameters as a run where no step is routine (a token in Engine.every_step for the whole run,
and a Backward handler: every step reaches every check). Each script runs both ways in this
process, same seed; 52 batches an epoch, three epochs, so the periodic updates (64, 128) fall
inside an epoch."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import Backward
from tests.watch.test_lane import _plain, _snapshot

torch = pytest.importorskip("torch")

EPOCHS = 3

# ``model`` trained by ``opt_a``, ``head`` by ``opt_b``; SETUP builds their schedulers, BATCH is
# one iteration (``step`` counts from 1)
LOOP = """
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
loader = DataLoader(data, batch_size=5, shuffle=True)  # 52 batches, the last of one sample
model = torch.nn.Linear(8, 1)
head = torch.nn.Linear(8, 1)
opt_a = torch.optim.SGD(model.parameters(), lr=0.05)
opt_b = torch.optim.Adam(head.parameters(), lr=1e-3)
SETUP
step = 0
for epoch in range(EPOCHS):
    for x, y in loader:
        step += 1
        opt_a.zero_grad(); opt_b.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(head(x), y)
        loss.backward()
BATCH
""".replace("EPOCHS", str(EPOCHS))

TWO_COSINES = ("sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
               "sched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=400)")
ONE_CYCLES = ("sched_a = torch.optim.lr_scheduler.OneCycleLR(opt_a, max_lr=0.05, total_steps=400)\n"
              "sched_b = torch.optim.lr_scheduler.OneCycleLR(opt_b, max_lr=1e-3, total_steps=400)")
BOTH_THEN_SCHEDS = "opt_a.step(); opt_b.step(); sched_a.step(); sched_b.step()"


def _indent(text: str) -> str:
    return "\n".join("        " + line for line in text.splitlines())


# name -> (setup, one iteration, codes that must be found)
SCRIPTS: dict[str, tuple[str, str, set[str]]] = {
    "healthy: two updates, then two scheduler steps": (TWO_COSINES, BOTH_THEN_SCHEDS, set()),
    "healthy OneCycleLR pair": (ONE_CYCLES, BOTH_THEN_SCHEDS, set()),
    "healthy, each optimizer followed by its scheduler": (
        TWO_COSINES, "opt_a.step(); sched_a.step(); opt_b.step(); sched_b.step()", set()),
    "healthy, the second scheduler stepped before the first": (
        TWO_COSINES, "opt_a.step(); opt_b.step(); sched_b.step(); sched_a.step()", set()),
    "no schedulers (a GAN's two Adams)": ("pass", "opt_a.step(); opt_b.step()", set()),
    "one scheduler, one optimizer without": (
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)",
        "opt_a.step(); opt_b.step(); sched_a.step()", set()),
    "ExponentialLR pair (no horizon)": (
        "sched_a = torch.optim.lr_scheduler.ExponentialLR(opt_a, gamma=0.99)\n"
        "sched_b = torch.optim.lr_scheduler.ExponentialLR(opt_b, gamma=0.98)",
        BOTH_THEN_SCHEDS, set()),
    "StepLR pair (past step_size the general path)": (
        "sched_a = torch.optim.lr_scheduler.StepLR(opt_a, step_size=30, gamma=0.5)\n"
        "sched_b = torch.optim.lr_scheduler.StepLR(opt_b, step_size=45, gamma=0.5)",
        BOTH_THEN_SCHEDS, set()),
    "LRD014: opt_b stops after the first epoch": (
        TWO_COSINES, "opt_a.step()\nif epoch == 0: opt_b.step()\nsched_a.step(); sched_b.step()", {"LRD014"}),
    "LRD014: opt_b skipped once, at step 100": (
        TWO_COSINES, "opt_a.step()\nif step != 100: opt_b.step()\nsched_a.step(); sched_b.step()", {"LRD014"}),
    "LRD014: opt_b stops for the run's last batch": (
        TWO_COSINES, "opt_a.step()\nif step != 156: opt_b.step()\nsched_a.step(); sched_b.step()",
        {"LRD014"}),
    "LRD017: sched_b stepped twice per update from step 90": (
        TWO_COSINES, BOTH_THEN_SCHEDS + "\nif step >= 90: sched_b.step()", {"LRD017"}),
    "LRD012: a LambdaLR built on opt_a at step 100 and stepped beside sched_a": (
        TWO_COSINES, BOTH_THEN_SCHEDS + "\nif step == 100: extra = torch.optim.lr_scheduler.LambdaLR("
        "opt_a, lambda s: 0.99 ** s)\nif step >= 100: extra.step()", {"LRD012"}),
    "LRD002: an epoch-sized StepLR stepped per batch beside a healthy pair": (
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
        "sched_b = torch.optim.lr_scheduler.StepLR(opt_b, step_size=2)",
        BOTH_THEN_SCHEDS, {"LRD002"}),
    "LRD002: sched_a's T_max=40 passed inside the first epoch, after the lane's steps": (
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=40)\n"
        "sched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=400)",
        BOTH_THEN_SCHEDS, {"LRD002"}),
    "LRD010: sched_b's cosine overrun at step 100": (
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
        "sched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=100)",
        BOTH_THEN_SCHEDS, {"LRD010"}),
    "opt_b's LR written by hand at step 80": (
        TWO_COSINES, "opt_a.step(); opt_b.step()\n"
        "if step == 80:\n    for g in opt_b.param_groups: g['lr'] = 0.5\nsched_a.step(); sched_b.step()",
        set()),
    "a NaN written into head.weight at step 100": (
        TWO_COSINES, BOTH_THEN_SCHEDS + "\nif step == 100:\n    with torch.no_grad(): head.weight[0, 0] = float('nan')",
        set()),
    "a third optimizer built at step 70": (
        TWO_COSINES, BOTH_THEN_SCHEDS + "\nif step == 70: opt_c = torch.optim.SGD(head.parameters(), lr=0.01)",
        set()),
    "another loader's batch between the updates at step 90": (
        TWO_COSINES, "opt_a.step()\nif step == 90: next(iter(DataLoader(data, batch_size=3)))\n"
        "opt_b.step(); sched_a.step(); sched_b.step()", set()),
    "the schedulers stepped from a helper from step 60": (
        TWO_COSINES + "\ndef tick():\n    sched_a.step(); sched_b.step()",
        "opt_a.step(); opt_b.step()\nif step < 60: sched_a.step(); sched_b.step()\nelse: tick()", set()),
    "GradScaler (disabled on the CPU: enabled=False) stepping both": (
        TWO_COSINES + "\nscaler = torch.amp.GradScaler('cpu', enabled=False)",
        "scaler.step(opt_a); scaler.step(opt_b); scaler.update(); sched_a.step(); sched_b.step()", set()),
    "a scheduler subclass calling super().step(), raising once at its 100th step": (
        "class Flaky(torch.optim.lr_scheduler.ExponentialLR):\n"
        "    def step(self):\n"
        "        if self.last_epoch == 99:\n"
        "            self.last_epoch += 1\n"
        "            raise RuntimeError('flaky')\n"
        "        super().step()\n"
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
        "sched_b = Flaky(opt_b, gamma=0.99)",
        "opt_a.step(); opt_b.step(); sched_a.step()\ntry:\n    sched_b.step()\nexcept RuntimeError:\n    pass",
        set()),
    "three optimizers, three schedulers": (
        TWO_COSINES + "\nthird = torch.nn.Linear(8, 1)\nopt_c = torch.optim.SGD(third.parameters(), lr=0.01)\n"
        "sched_c = torch.optim.lr_scheduler.CosineAnnealingLR(opt_c, T_max=300)",
        "opt_c.zero_grad(); torch.nn.functional.mse_loss(third(x), y).backward()\n"
        "opt_a.step(); opt_b.step(); opt_c.step(); sched_c.step(); sched_a.step(); sched_b.step()", set()),
    "GradScaler on the CPU stepping both, an inf gradient at step 100": (
        TWO_COSINES + "\nscaler = torch.amp.GradScaler('cpu')",
        "if step == 100:\n    head.weight.grad[0, 0] = float('inf')\n"
        "opt_a.zero_grad(); model.weight.grad = None\n"
        "scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\n"
        "scaler.step(opt_a); scaler.step(opt_b); scaler.update(); sched_a.step(); sched_b.step()", {"LRD005"}),
}

# scripts whose loop is steady from early on: the lane takes most updates
LANE_USED = {
    "healthy: two updates, then two scheduler steps",
    "healthy OneCycleLR pair",
    "healthy, each optimizer followed by its scheduler",
    "healthy, the second scheduler stepped before the first",
    "no schedulers (a GAN's two Adams)",
    "one scheduler, one optimizer without",
    "ExponentialLR pair (no horizon)",
    "three optimizers, three schedulers",
}


def _script(name: str) -> str:
    setup, batch, _ = SCRIPTS[name]
    return LOOP.replace("SETUP", setup).replace("BATCH", _indent(batch))


def _params(ran) -> list:
    return [p.detach().clone() for m in (ran.ns["model"], ran.ns["head"]) for p in m.parameters()]


def _full_snapshot(watch) -> dict:
    snap = _snapshot(watch)
    snap["evidence"] = [(f.code, repr(sorted(f.evidence.items()))) for f in watch.findings]
    snap["scalers"] = [{**_plain(s), "scale_history": list(s.scale_history.points)}
                       for s in watch.engine.scalers.values()]
    return snap


def _run_both(name, run_script, monkeypatch):
    general: list[int] = []
    on_attempt = Engine.on_attempt

    def counting(self, *args, **kwargs):
        general.append(1)
        return on_attempt(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "on_attempt", counting)
    fast = run_script(_script(name))
    fast_general = len(general)
    init = Engine.__init__

    def nothing_routine(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")  # no step is routine
        self.subscribe(Backward, lambda ev: None)  # no backward() is routine

    monkeypatch.setattr(Engine, "__init__", nothing_routine)
    general.clear()
    slow = run_script(_script(name))
    return fast, fast_general, slow, len(general)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_lane_for_several_optimizers_keeps_every_record(name, run_script, monkeypatch):
    fast, fast_general, slow, slow_general = _run_both(name, run_script, monkeypatch)
    assert _full_snapshot(fast.watch) == _full_snapshot(slow.watch)
    for a, b in zip(_params(fast), _params(slow), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)  # the same training, bit for bit
    attempts = sum(o.attempts for o in slow.watch.engine.optimizers.values())
    assert slow_general == attempts  # the reference run: every update on the general path
    assert SCRIPTS[name][2] <= {f.code for f in fast.watch.findings}, fast.watch.report()
    if name in LANE_USED:
        # the lane took most updates (not the first ones, nor those around the periodic ones)
        assert fast_general < attempts / 4, (fast_general, attempts)


def test_the_lane_opens_for_two_optimizers_and_takes_their_scheduler_steps(run_script, monkeypatch):
    """The lane for several optimizers opens: once a cycle of routine steps was seen, the
    updates and the scheduler steps of the steady state reach the engine's general path only
    around the periodic updates (64 and 128) and at the epochs' starts."""
    sched_general: list[int] = []
    on_scheduler_step = Engine.on_scheduler_step

    def counting(self, sched, *args, **kwargs):
        result = on_scheduler_step(self, sched, *args, **kwargs)
        sched_general.append(self.schedulers[id(sched)].user_steps)
        return result

    monkeypatch.setattr(Engine, "on_scheduler_step", counting)
    ran = run_script(_script("healthy: two updates, then two scheduler steps"))
    steps = EPOCHS * 52
    assert all(s.user_steps == steps for s in ran.watch.engine.schedulers.values())
    assert len(sched_general) < 2 * steps / 4, sched_general



@pytest.mark.parametrize("options", [{"checks": ()}, {"nan_check": False}], ids=["no checks", "no NaN check"])
@pytest.mark.parametrize("name", ["healthy: two updates, then two scheduler steps",
                                  "LRD014: opt_b skipped once, at step 100",
                                  "LRD017: sched_b stepped twice per update from step 90",
                                  "healthy, the second scheduler stepped before the first"])
def test_the_lane_for_several_optimizers_with_fewer_checks(name, options, run_script, monkeypatch):
    """With no check subscribed to scheduler steps (the watcher alone) no attempt counts are
    kept (SchedulerInfo.attempts_seen stays None both ways); without NaN detection the
    backward() hook asks nothing. The records are the general path's either way."""
    fast = run_script(_script(name), **options)
    init = Engine.__init__

    def nothing_routine(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")

    monkeypatch.setattr(Engine, "__init__", nothing_routine)
    slow = run_script(_script(name), **options)
    assert _full_snapshot(fast.watch) == _full_snapshot(slow.watch)
    for a, b in zip(_params(fast), _params(slow), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)
