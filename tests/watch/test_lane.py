"""The lane (Engine.Lane) must be invisible: a run keeps exactly the same tallies, findings and
report with the lane as with every step taking the general path. Each script below is run
twice in this process, same seed: once as `lrdoctor run` does, once with the lane never opened,
and every record the engine keeps is compared field by field."""

from __future__ import annotations

import dataclasses

import pytest

from lrdoctor.runtime import callsite
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
# The periodic step kept by the lane (Engine.lane_period) against the general path: each
# finding a check can make around a periodic step, with the periodic steps inside an epoch
# (ODD: 52 batches), at an epoch's end (16 batches: 64 is the end of epoch 4) and right after
# a change of schedule; ``BEFORE``: lines run before the optimizer is made
COSINE400 = "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=400)"
UNUSED = "model.extra = torch.nn.Parameter(torch.zeros(3))  # in the optimizer, not in the forward"


def _bad_grad(step: int, value: str) -> str:
    """A batch whose update writes ``value`` into ``model.extra`` (not in the loss, so only the
    parameter check can find it) at ``step``."""
    return ("optimizer.zero_grad(); torch.nn.functional.mse_loss(model(x), y).backward()\n"
            f"        if step == {step}: model.extra.grad = torch.full((3,), float('{value}'))\n"
            "        optimizer.step(); scheduler.step()")


def _drop(at: int) -> str:
    """A scheduler of its own class (no horizon: the lane takes its steps) whose LR falls to
    1e-9 of the base LR from its step ``at`` on (the update ``at + 1`` trains with it)."""
    return ("class Drop(torch.optim.lr_scheduler.LRScheduler):\n"
            "    def get_lr(self):\n"
            f"        return [base * (1.0 if self.last_epoch < {at} else 1e-9) for base in self.base_lrs]\n"
            "scheduler = Drop(optimizer)")


LOW_HIGH_LOW = (
    "class LowHighLow(torch.optim.lr_scheduler.LRScheduler):\n"
    "    def get_lr(self):\n"
    "        low = self.last_epoch < 4 or self.last_epoch >= 130\n"
    "        return [base * (1e-7 if low else 1.0) for base in self.base_lrs]\n"
    "scheduler = LowHighLow(optimizer)")
PERIODIC = {
    "NaN written by the update at step 70 into a parameter the loss does not read": (
        ODD + COSINE400, _bad_grad(70, "nan"), "pass", UNUSED),
    "inf written by the periodic update 128 itself": (ODD + COSINE400, _bad_grad(128, "inf"), "pass", UNUSED),
    "-inf written by the update at step 127": (ODD + COSINE400, _bad_grad(127, "-inf"), "pass", UNUSED),
    "NaN written at step 129, right after a periodic step": (ODD + COSINE400, _bad_grad(129, "nan"), "pass", UNUSED),
    "NaN written at step 60, periodic steps at epoch ends": (COSINE400, _bad_grad(60, "nan"), "pass", UNUSED),
    "LR collapse after a rise, back to the LR of the first steps (step 131)": (ODD + LOW_HIGH_LOW, "train_batch(x, y); scheduler.step()", "pass"),
    "LR collapse at the periodic step 128": (ODD + _drop(127), "train_batch(x, y); scheduler.step()", "pass"),
    "LR collapse right after the periodic step 128": (ODD + _drop(128), "train_batch(x, y); scheduler.step()", "pass"),
    "StepLR stepped per batch (periodic steps inside an epoch)": (
        ODD + "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "StepLR(step_size=64) per batch: the LR changes at the periodic step": (
        ODD + "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=64)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "OneCycleLR stepped per epoch (periodic steps inside an epoch)": (
        ODD + "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=400)",
        "train_batch(x, y)", "scheduler.step()"),
    "cosine horizon ends at the periodic step 128, trained past it": (
        ODD + "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=128)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "cosine horizon ends right before the periodic step 128": (
        ODD + "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=127)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "cosine horizon ends right after the periodic step 128": (
        ODD + "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=129)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "HF linear decay to 0 at step 130, trained past it": (
        ODD + "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: max(0.0, 1 - s / 130))",
        "train_batch(x, y); scheduler.step()", "pass"),
    "cosine far from complete at the end (T_max=5000)": (
        ODD + "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5000)",
        "train_batch(x, y); scheduler.step()", "pass"),
    "LR written at the periodic step 128": (
        ODD + COSINE400, "if step == 128: optimizer.param_groups[0]['lr'] = 0.5\n        "
        "train_batch(x, y); scheduler.step()", "pass"),
    "LR written right after the periodic step 128": (
        ODD + COSINE400, "train_batch(x, y); scheduler.step()\n"
        "        if step == 128: optimizer.param_groups[0]['lr'] = 0.5", "pass"),
    "scheduler per micro-batch from the periodic step 128 on": (
        ODD + COSINE400, "train_batch(x, y); scheduler.step()\n        if step >= 128: scheduler.step()", "pass"),
    "scheduler per micro-batch from step 129 on": (
        ODD + COSINE400, "train_batch(x, y); scheduler.step()\n        if step >= 129: scheduler.step()", "pass"),
    "warm-up to step 64, then constant": (
        ODD + "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, s / 64))",
        "train_batch(x, y); scheduler.step()", "pass"),
    "SequentialLR: warm-up, then cosine from the periodic step 64": (
        ODD + "warm = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=64)\n"
        "cos = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=300)\n"
        "scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warm, cos], milestones=[64])",
        "train_batch(x, y); scheduler.step()", "pass"),
    "a new scheduler replaces the first at step 126": (
        ODD + COSINE400, "train_batch(x, y); scheduler.step()\n"
        "        if step == 126: scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)", "pass"),
    "a new scheduler replaces the first at step 128, periodic steps at epoch ends": (
        COSINE400, "train_batch(x, y); scheduler.step()\n"
        "        if step == 128: scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)", "pass"),
    "model.half() after step 100, seen at the periodic step 128": (
        ODD + COSINE400, "if step > 100: x, y = x.half(), y.half()\n"
        "        train_batch(x, y); scheduler.step()\n"
        "        if step == 100: model.half()", "pass"),
    "model.to(torch.bfloat16) after step 64, seen at the periodic step 128": (
        ODD + COSINE400, "if step > 64: x, y = x.bfloat16(), y.bfloat16()\n"
        "        train_batch(x, y); scheduler.step()\n"
        "        if step == 64: model.to(torch.bfloat16)", "pass"),
    "per-batch cosine, trained into a second loader pass at step 64 (epoch end)": (
        COSINE400, "train_batch(x, y); scheduler.step()", "pass"),
    "warm-up in steps of 3 equal LRs, the peak rising through the periodic steps 64-192": (
        ODD + "scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s // 3 + 1) / 70))",
        "train_batch(x, y); scheduler.step()", "pass"),
}
# the DataLoader __next__ hook, which a lane kept through a periodic step takes off while its
# iterator is the only one (hooks.FetchHook), with other iterators about
AUX = "aux_it = iter(DataLoader(TensorDataset(torch.randn(4096, 8), torch.randn(4096, 1)), batch_size=1))"
FETCHES = {
    "a second loader's iterator read after each batch (it yielded last at every update)": (
        ODD + COSINE400 + "\n" + AUX, "xa, ya = next(aux_it)\n        train_batch(x, y); scheduler.step()", "pass"),
    "a second loader's iterator read before the update every 3rd step from step 100": (
        ODD + COSINE400 + "\n" + AUX, "if step > 100 and step % 3 == 0: next(aux_it)\n"
        "        train_batch(x, y); scheduler.step()", "pass"),
    "an iterator made with loader._get_iterator() at step 100 (no __iter__), read every other step": (
        ODD + COSINE400, "if step == 100: direct = loader._get_iterator()\n"
        "        if 100 < step <= 180 and step % 2: next(direct)\n"
        "        train_batch(x, y); scheduler.step()", "pass"),
    "each epoch left at its 45th batch, one more step trained on that batch after the loop": (
        ODD + COSINE400, "train_batch(x, y); scheduler.step()\n        if step % 45 == 0: break",
        "train_batch(x, y); scheduler.step()"),
}
SCRIPTS.update(PERIODIC)
SCRIPTS.update(FETCHES)
LANE_USED = ("per-batch cosine", "no scheduler", "per-batch cosine, periodic steps inside an epoch",
             "no scheduler, periodic steps inside an epoch", "OneCycleLR, periodic steps inside an epoch",
             "cosine horizon ends inside a lane (T_max=90), trained past it", "validation pass each epoch", "HF warm-up from 0",
             "a custom scheduler class", "clip_grad_norm_ every step", "clip_grad_value_ every step")


def _script(name: str) -> str:
    setup, batch, epoch, *before = SCRIPTS[name]
    optimizer = "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    setup = "".join(line + "\n" for line in before) + optimizer + setup
    return LOOP.replace("SETUP", setup).replace("BATCH", batch).replace("EPOCH", epoch)


def _plain(value):
    """A record's field as comparable data (ids and weak references left out)."""
    if hasattr(value, "runs") and hasattr(value, "count"):  # StepMarks
        return (value.to_list(), value.count, value.dropped)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value):
        return {f.name: _plain(getattr(value, f.name)) if f.name != "attempts_seen"
                else _counts(getattr(value, f.name)) for f in dataclasses.fields(value)
                if f.name not in ("key", "ref", "optimizer_key", "parent_key", "iterator", "lr_lambdas",
                                  "shape", "kind")}
    if type(value).__name__ == "Attempt":
        return (value.index, value.taken)
    if isinstance(value, float) and value != value:
        return "nan"  # two runs' NaNs are distinct objects, and NaN != NaN
    return value


def _counts(seen):
    """SchedulerInfo.attempts_seen (optimizer id -> attempts) without the ids."""
    return None if seen is None else sorted(seen.values())


def _snapshot(watch) -> dict:
    eng = watch.engine
    return {
        "clock": eng.clock,
        "most_attempts": eng.most_attempts,
        "optimizers": sorted((_plain(o) for o in eng.optimizers.values()), key=lambda o: o["label"]),
        "schedulers": [_plain(s) for s in eng.schedulers.values()],
        "loaders": [_plain(i) for i in eng.loaders.values()],
        "findings": [(f.code, f.severity, f.message, str(f.location), _plain(f.evidence))
                     for f in watch.findings],
        "nan_detection": _nan_state(eng.loss_gate),
    }


def _nan_state(nf) -> dict | None:
    """What NaN detection keeps between steps (the parameter checks made, what they found);
    None without NaN detection."""
    if nf is None:
        return None
    return {
        "last_checked": sorted(nf.last_checked.values()),
        "known_bad": len(nf.known_bad),
        "written_at": sorted(nf.written_at.values()),
        "low_precision": sorted(low for _, low in nf.low_precision.values()),
        "plain": len(nf.plain_opts),
        "every_step": nf in nf.engine.every_step,
        "bad_loss_steps": nf.bad_loss_steps,
    }


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_lane_keeps_the_same_records_as_the_general_path(name, run_script, monkeypatch):
    general_calls = []
    on_attempt = Engine.on_attempt

    def counting(self, *args, **kwargs):
        general_calls.append(1)
        return on_attempt(self, *args, **kwargs)

    # (not a user frame: a finding's line is looked for above it, in the script)
    monkeypatch.setitem(callsite._verdicts, id(counting.__code__), (counting.__code__, 0))
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
def test_the_lane_stays_open_through_a_periodic_step(name, run_script, monkeypatch):
    """The periodic step (every ROUTINE_PERIOD-th), routine in every other respect, is kept by
    the lane (Engine.lane_period: the tallies kept, NaN detection's parameter check called,
    the lane left open): neither it nor the step after it reaches the general path (each was
    a general-path step, which cost the mean step time several routine steps' worth)."""
    general: list[int] = []
    kept: list[int] = []
    on_attempt, lane_period = Engine.on_attempt, Engine.lane_period

    def counting(self, opt, *args, **kwargs):
        result = on_attempt(self, opt, *args, **kwargs)
        general.append(self.optimizers[id(opt)].attempts)  # (the lane's steps tallied first)
        return result

    def keeping(self, opt):
        result = lane_period(self, opt)
        if result:
            kept.append(self.optimizers[id(opt)].attempts)
        return result

    monkeypatch.setattr(Engine, "on_attempt", counting)
    monkeypatch.setattr(Engine, "lane_period", keeping)
    ran = run_script(_script(name))
    periodic = [n for n in range(ROUTINE_PERIOD, EPOCHS * 52 + 1, ROUTINE_PERIOD)]
    assert len(periodic) == 4 and kept == periodic, (kept, general)
    assert not [n for n in general if n in periodic or n - 1 in periodic], general
    # ... and NaN detection's parameter check ran on each of them, as on the general path
    nf = ran.watch.engine.loss_gate
    (opt,) = ran.watch.engine.optimizers.values()
    assert nf.last_checked[opt.key] == periodic[-1]
    assert opt.due_taken == periodic[-1] + ROUTINE_PERIOD


@pytest.mark.parametrize(("name", "step", "written", "kinds"), [
    ("NaN written by the update at step 70 into a parameter the loss does not read", 128,
     "an optimizer step between 65 and 128", "NaN"),
    # (SGD: a gradient of inf writes -inf)
    ("inf written by the periodic update 128 itself", 128, "an optimizer step between 65 and 128", "-inf"),
    ("-inf written by the update at step 127", 128, "an optimizer step between 65 and 128", "inf"),
    ("NaN written at step 129, right after a periodic step", 192, "an optimizer step between 129 and 192", "NaN"),
    ("NaN written at step 60, periodic steps at epoch ends", 64, "an optimizer step between 1 and 64", "NaN"),
])
def test_the_periodic_parameter_check_kept_by_the_lane_finds_what_it_found(name, step, written, kinds,
                                                                              run_script, monkeypatch):
    """NaN/inf written into a parameter the loss does not read (only the periodic parameter
    check can see it) is found by the periodic step the lane keeps (Engine.lane_period), with
    the step, the span since the last check, the parameter and the user's line, as the
    general path found it (test_the_lane_keeps_the_same_records_as_the_general_path compares
    the whole report)."""
    kept: list[int] = []
    lane_period = Engine.lane_period

    def keeping(self, opt):
        result = lane_period(self, opt)
        if result:
            kept.append(self.optimizers[id(opt)].attempts)
        return result

    monkeypatch.setitem(callsite._verdicts, id(keeping.__code__), (keeping.__code__, 0))
    monkeypatch.setattr(Engine, "lane_period", keeping)
    script = _script(name)
    ran = run_script(script)
    assert step in kept, kept  # found there, not on the general path
    assert "LRD105" in ran.codes and "LRD104" not in ran.codes
    (finding,) = [f for f in ran.watch.findings if f.code == "LRD105"]
    assert finding.evidence["step"] == step and finding.evidence["parameters"] == ["model.extra"]
    assert finding.message.startswith(f"{written} of SGD wrote {kinds} into 1 parameter tensor (3 of 3 values)"), \
        finding.message
    line = script.splitlines().index("        optimizer.step(); scheduler.step()") + 1
    assert str(finding.location).endswith(f"train.py:{line}")  # the user's optimizer.step()


@pytest.mark.parametrize("name", [n for n in PERIODIC if n.startswith("model.")])
def test_a_later_cast_to_low_precision_is_seen_at_the_next_periodic_step(name, run_script, monkeypatch):
    """float16/bfloat16 parameters are checked after every update: a model cast after the
    start is seen at the next periodic parameter check (the dtypes looked at again, here by
    the check's own read when the lane keeps the periodic step), which then watches every
    step (the lane closes)."""
    kept: list[int] = []
    lane_period = Engine.lane_period

    def keeping(self, opt):
        result = lane_period(self, opt)
        if result:
            kept.append(self.optimizers[id(opt)].attempts)
        return result

    monkeypatch.setattr(Engine, "lane_period", keeping)
    ran = run_script(_script(name))
    assert kept == [64, 128], kept  # kept by the lane, and 128 saw the cast (the lane then closed)
    nf = ran.watch.engine.loss_gate
    (opt,) = ran.watch.engine.optimizers.values()
    assert nf.low_precision[opt.key][1] is True and nf in ran.watch.engine.every_step
    assert nf.last_checked[opt.key] == EPOCHS * 52  # every step from then on


@pytest.mark.parametrize("back_at", [31, 131])
def test_a_fall_back_to_the_lr_of_the_first_steps_is_a_collapse(back_at, run_script):
    """LRD009 when the LR falls back to the very LR of the last step LR collapse saw (the first
    steps, at 1e-8) after routine steps it did not see rose to 0.1: the fall is measured from
    0.1. Its skip of a step whose LRs did not change took the LRs alone, and missed this fall
    within one period on main (31); at 131 main found it only because the periodic step 64,
    handed to every check, refreshed what the check had last seen, which the lane that stays
    open through periodic steps no longer does."""
    script = _script("LR collapse after a rise, back to the LR of the first steps (step 131)")
    ran = run_script(script.replace("self.last_epoch >= 130", f"self.last_epoch >= {back_at - 1}"))
    assert ran.codes == ["LRD009"]
    (finding,) = ran.watch.findings
    assert finding.evidence["step"] == back_at
    assert "fell from 0.1 to 1e-08" in finding.message, finding.message


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
