"""The lane (Engine.Lane) must be invisible: a run keeps exactly the same tallies, findings and
report with the lane as with every step taking the general path. Each script below is run
twice in this process, same seed: once as `lrdoctor run` does, once with the lane never opened,
and every record the engine keeps is compared field by field."""

from __future__ import annotations

import dataclasses

import pytest

from lrdoctor.runtime.engine import ROUTINE_PERIOD, Engine
from tests.watch.conftest import PRELUDE

torch = pytest.importorskip("torch")

EPOCHS = 6  # 6 x 16 batches: past ROUTINE_PERIOD, so periodic steps close and reopen the lane
assert EPOCHS * 16 > ROUTINE_PERIOD

LOOP = PRELUDE + f"""
SETUP
step = 0
for epoch in range({EPOCHS}):
    for x, y in loader:
        step += 1
        BATCH
    EPOCH
"""

# 52 batches an epoch (the last of one sample): the periodic steps fall inside an epoch, where
# the lane opens again right after them (with 16 a periodic step ends an epoch)
ODD = "loader = DataLoader(data, batch_size=5, shuffle=True)\n"

SCRIPTS = {
    "per-batch cosine, periodic steps inside an epoch": (
        ODD + "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=400)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "no scheduler, periodic steps inside an epoch": (ODD, "train_batch(x, y)", "pass"),
    "NaN written into a weight at step 70, right after a periodic step": (
        ODD + "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=400)",
        "train_batch(x, y); scheduler.step()\n"
        "        if step == 70:\n"
        "            with torch.no_grad(): model.weight[0, 0] = float('nan')", "pass"),
    "OneCycleLR, periodic steps inside an epoch": (
        ODD + "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=400)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "per-batch cosine": ("scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)",
                         "train_batch(x, y); scheduler.step()", "pass"),
    "StepLR stepped per batch": ("scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)",
                                 "train_batch(x, y); scheduler.step()", "pass"),
    "no scheduler": ("pass", "train_batch(x, y)", "pass"),
    "HF warm-up from 0": (
        "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, s / 20))",
        "train_batch(x, y); scheduler.step()", "pass"),
    "HF linear decay to 0 at step 50, trained past it": (
        "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / 50))",
        "train_batch(x, y); scheduler.step()", "pass"),
    "a custom scheduler class": (
        "class Halving(torch.optim.lr_scheduler.LRScheduler):\n"
        "    def get_lr(self):\n"
        "        return [base * 0.5 ** (self.last_epoch // 40) for base in self.base_lrs]\n"
        "scheduler = Halving(optimizer)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "epoch scheduler": ("scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)",
                        "train_batch(x, y)", "scheduler.step()"),
    "LR written at step 30": ("scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)",
                              "train_batch(x, y); scheduler.step()\n"
                              "        if step == 30: optimizer.param_groups[0]['lr'] = 0.5", "pass"),
    "LR collapse at step 40": (
        "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0 if s < 40 else 1e-9)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "validation pass each epoch": (
        "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=200)\n"
        "val = DataLoader(data, batch_size=64)",
        "train_batch(x, y); scheduler.step()",
        "with torch.no_grad():\n        for vx, vy in val: model(vx)"),
    "scheduler per micro-batch from step 20": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=1000)",
        "train_batch(x, y); scheduler.step()\n        if step > 20: scheduler.step()", "pass"),
    "two optimizers": (
        "other = torch.nn.Linear(8, 1)\nopt2 = torch.optim.Adam(other.parameters(), lr=1e-3)\n"
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)",
        "train_batch(x, y); scheduler.step()\n"
        "        opt2.zero_grad(); torch.nn.functional.mse_loss(other(x), y).backward(); opt2.step()",
        "pass"),
    "NaN loss at step 37": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)",
        "x = x * float('nan') if step == 37 else x\n        train_batch(x, y); scheduler.step()", "pass"),
    "a batch drawn without an update": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)",
        "if step % 10 == 0: continue\n        train_batch(x, y); scheduler.step()", "pass"),
    "loop left early": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)",
        "train_batch(x, y); scheduler.step()\n        if step % 16 == 12: break", "pass"),
    "checkpoint saved at step 50": (
        "import io\nscheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)",
        "train_batch(x, y); scheduler.step()\n"
        "        if step == 50: torch.save({'model': model.state_dict(), 'optimizer': optimizer.state_dict()},"
        " io.BytesIO())", "pass"),
}

COSINE200 = "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)"

# the end of the horizon inside a lane (the lane takes no more updates than the horizon leaves
# scheduler steps), at a periodic step, and an LR the lane cannot keep as a routine float
SCRIPTS.update({
    "cosine horizon ends inside a lane (T_max=90), trained past it": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "cosine horizon ends at the periodic step (T_max=64)": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=64)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "cosine horizon ends one step after the lane opens (T_max=7)": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=7)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "StepLR per batch, horizon inside the second period (step_size=75)": (
        "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=75)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "LR becomes NaN at step 70": (
        "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: float('nan') if s >= 70 else 1.0)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "LR becomes inf at step 50": (
        "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: float('inf') if s >= 50 else 1.0)",
        "train_batch(x, y); scheduler.step()", "pass"),
})


def _clipped(clip: str, when: str = "True") -> str:
    """A batch whose gradients are clipped by ``clip`` between backward() and step() when ``when``."""
    return ("optimizer.zero_grad(); torch.nn.functional.mse_loss(model(x), y).backward()\n"
            f"        if {when}: {clip}\n"
            "        optimizer.step(); scheduler.step()")


# gradient clipping (no GradScaler: nothing for the AMP check to do, no event, the lane stays open)
SCRIPTS.update({
    "clip_grad_norm_ every step": (COSINE200, _clipped("torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"),
                                   "pass"),
    "clip_grad_norm_ on some steps": (
        COSINE200, _clipped("torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)", "step % 3 == 0"), "pass"),
    "clip_grad_value_ every step": (COSINE200, _clipped("torch.nn.utils.clip_grad_value_(model.parameters(), 0.1)"),
                                    "pass"),
    "NaN gradient at step 45, clipped": (
        COSINE200,
        "optimizer.zero_grad(); torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "        if step == 45: model.weight.grad[0, 0] = float('nan')\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=False)\n"
        "        optimizer.step(); scheduler.step()", "pass"),
})
LANE_USED = ("per-batch cosine", "no scheduler", "per-batch cosine, periodic steps inside an epoch",
             "no scheduler, periodic steps inside an epoch", "OneCycleLR, periodic steps inside an epoch",
             "cosine horizon ends inside a lane (T_max=90), trained past it", "validation pass each epoch", "HF warm-up from 0",
             "a custom scheduler class", "clip_grad_norm_ every step", "clip_grad_value_ every step")


def _script(name: str) -> str:
    setup, batch, epoch = SCRIPTS[name]
    optimizer = "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    return LOOP.replace("SETUP", optimizer + setup).replace("BATCH", batch).replace("EPOCH", epoch)


def _plain(value):
    """A record's field as comparable data (ids and weak references left out)."""
    if hasattr(value, "runs") and hasattr(value, "count"):  # StepMarks
        return (value.to_list(), value.count, value.dropped)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.name not in ("key", "ref", "optimizer_key", "parent_key", "iterator", "lr_lambdas",
                                  "shape", "kind")}
    if type(value).__name__ == "Attempt":
        return (value.index, value.taken)
    if isinstance(value, float) and value != value:
        return "nan"  # two runs' NaNs are distinct objects, and NaN != NaN
    return value


def _snapshot(watch) -> dict:
    eng = watch.engine
    return {
        "clock": eng.clock,
        "most_attempts": eng.most_attempts,
        "optimizers": sorted((_plain(o) for o in eng.optimizers.values()), key=lambda o: o["label"]),
        "schedulers": [_plain(s) for s in eng.schedulers.values()],
        "loaders": [_plain(i) for i in eng.loaders.values()],
        "findings": [(f.code, f.severity, f.message, str(f.location)) for f in watch.findings],
    }


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_lane_keeps_the_same_records_as_the_general_path(name, run_script, monkeypatch):
    general_calls = []
    on_attempt = Engine.on_attempt

    def counting(self, *args, **kwargs):
        general_calls.append(1)
        return on_attempt(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "on_attempt", counting)
    with_lane = run_script(_script(name))
    lane_general = len(general_calls)
    monkeypatch.setattr(Engine, "open_lane", lambda *args, **kwargs: None)
    general_calls.clear()
    without = run_script(_script(name))
    assert _snapshot(with_lane.watch) == _snapshot(without.watch)
    attempts = sum(o.attempts for o in without.watch.engine.optimizers.values())
    assert len(general_calls) == attempts  # without the lane every update takes the general path
    if name in LANE_USED:
        # ... and with it, only the first steps and the periodic ones do
        assert lane_general < attempts / 4, (lane_general, attempts)
    if "clip" in name:  # and the clips made no event
        assert with_lane.watch.engine.routine_clips > 0


def test_the_lane_hands_the_steps_from_the_horizon_on_to_the_checks(run_script, monkeypatch):
    """CosineAnnealingLR(T_max=90) stepped 96 times: the lane opens again after the periodic
    step at 64, takes the routine steps up to the horizon, and every scheduler step from the
    90th on (not routine: past the horizon) reaches the engine's general path, where the
    checks see it."""
    general: list[int] = []
    on_scheduler_step = Engine.on_scheduler_step

    def counting(self, sched, *args, **kwargs):
        result = on_scheduler_step(self, sched, *args, **kwargs)
        general.append(self.schedulers[id(sched)].user_steps)
        return result

    monkeypatch.setattr(Engine, "on_scheduler_step", counting)
    ran = run_script(_script("cosine horizon ends inside a lane (T_max=90), trained past it"))
    (sched,) = ran.watch.engine.schedulers.values()
    assert sched.horizon == 90 and sched.user_steps == EPOCHS * 16
    assert set(range(90, EPOCHS * 16 + 1)) <= set(general), general
    assert len([n for n in general if 70 <= n < 90]) < 5, general  # the lane took those


@pytest.mark.parametrize("name", [n for n in SCRIPTS if n.endswith("periodic steps inside an epoch")])
def test_the_lane_opens_again_right_after_a_periodic_step(name, run_script, monkeypatch):
    """The periodic step (every ROUTINE_PERIOD-th) goes to every check; when it is routine
    otherwise, the lane opens after it, so the step after it is a lane step (it was a
    general-path step of its own, which cost the mean step time as much as the periodic
    one's bookkeeping)."""
    general: list[int] = []
    on_attempt = Engine.on_attempt

    def counting(self, opt, *args, **kwargs):
        result = on_attempt(self, opt, *args, **kwargs)
        general.append(self.optimizers[id(opt)].attempts)  # (the lane's steps tallied first)
        return result

    monkeypatch.setattr(Engine, "on_attempt", counting)
    run_script(_script(name))
    periodic = [n for n in range(ROUTINE_PERIOD, EPOCHS * 52 + 1, ROUTINE_PERIOD)]
    assert len(periodic) == 4 and all(n in general for n in periodic), general
    assert not [n for n in general if n - 1 in periodic], general


def test_the_lane_is_used_and_the_report_reads_the_same(run_script):
    ran = run_script(_script("StepLR stepped per batch"))
    assert ran.codes == ["LRD002"]
    (opt,) = ran.watch.engine.optimizers.values()
    assert opt.attempts == EPOCHS * 16
    (sched,) = ran.watch.engine.schedulers.values()
    assert sched.user_steps == EPOCHS * 16
    assert sched.step_marks.to_list() == [[1, 1, EPOCHS * 16]]


@pytest.mark.parametrize("before", [[], [5], [1, 2, 3], [2, 4, 6], [1, 2, 3, 9], [0, 10], [3, 4]])
def test_step_marks_in_bulk_are_the_marks_one_by_one(before):
    from lrdoctor.runtime.series import StepMarks

    for first in (before[-1] + 1 if before else 1, 20):
        for count in (1, 2, 7):
            one, bulk = StepMarks(), StepMarks()
            for i in before:
                one.add(i)
                bulk.add(i)
            for i in range(first, first + count):
                one.add(i)
            bulk.add_consecutive(first, count)
            assert (bulk.runs, bulk.count, bulk.dropped) == (one.runs, one.count, one.dropped)
