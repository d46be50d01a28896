"""The lane under GradScaler is kept through the optimizer's periodic step
(Engine.scaled_lane_period, bench/OVERHEAD.md perf51), as the plain lane is (Engine.lane_period):
the periodic update that ``scaler.step()`` makes is counted by the lane, NaN detection's
parameter check is made there, and the lane stays open for the next period, so the steps
around the periodic one no longer take the general path and, while the lane's iterator is the
only one, DataLoader batches run through torch's own ``__next__`` (hooks.FetchHook) under
GradScaler too.

52 batches an epoch, three epochs: the periodic steps 64 and 128 fall inside an epoch. Every
script runs as ``lrdoctor run`` does and with nothing routine, and every record, finding
(message, evidence), scaler field, scale history and the AMP check's own state must be the
same, with the periodic step where the scale grows, where a step is skipped, where the
horizon ends, where a check finds something, and where another iterator appears."""

from __future__ import annotations

import gc

import pytest

from lrdoctor.runtime.checks.nonfinite import NonFinite
from lrdoctor.runtime.engine import ROUTINE_PERIOD, Engine
from tests.watch.test_amp_lane import PRELUDE, _amp_snapshot
from tests.watch.test_amp_lane_folded import _amp_state, _nothing_routine

torch = pytest.importorskip("torch")

# an unused parameter in the optimizer (no gradient: never updated), for a NaN the periodic
# parameter check finds; 52 batches an epoch (the last of one sample)
UNUSED = "model.extra = torch.nn.Parameter(torch.zeros(3))  # in the optimizer, not in the forward"
LOOP = PRELUDE.replace("batch_size=16", "batch_size=5").replace(
    "\nSGD\n", f"\n{UNUSED}\noptimizer = torch.optim.SGD(model.parameters(), lr=0.05)\n") + """
from torch.utils.data.dataloader import _BaseDataLoaderIter

def plain_next():
    return "lrdoctor" not in _BaseDataLoaderIter.__dict__["__next__"].__code__.co_filename

scaler = SCALER
SETUP
off = []
step = 0
for epoch in range(3):
    for x, y in loader:
        step += 1
        BATCH
        off.append(plain_next())
"""

COSINE = "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=400)"
STEP = "scaler.step(optimizer); scaler.update(); scheduler.step()"
BACKWARD = "optimizer.zero_grad()\n        scaler.scale(forward(x, y)).backward()\n        "


def _growth(interval: int) -> str:
    return f"scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 4, growth_interval={interval})\n" + COSINE


def _inf_grad(cond: str) -> str:
    return BACKWARD + f"if {cond}: model[0].weight.grad[0, 0] = float('inf')\n        " + STEP


def _cosine(t_max: int) -> str:
    return f"scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max={t_max})"


# name -> (setup, batch, codes that must be reported)
SCRIPTS: dict[str, tuple[str, str, set[str]]] = {
    "healthy": (COSINE, BACKWARD + STEP, set()),
    "no scheduler": ("", BACKWARD + "scaler.step(optimizer); scaler.update()", set()),
    # the scale grows at, right before or right after the periodic update (64, 128)
    **{f"scale growth every {n} updates": (_growth(n), BACKWARD + STEP, set()) for n in (20, 32, 63, 64, 65, 66)},
    # skipped steps: the periodic step itself, the steps next to it, and early ones (the taken
    # count then lags the attempts: the parameter check is due by both)
    **{f"inf gradient at step {n}": (COSINE, _inf_grad(f"step == {n}"), {"LRD005"}) for n in (2, 63, 64, 65, 127)},
    "inf gradients at steps 10-12": (COSINE, _inf_grad("10 <= step <= 12"), {"LRD005"}),
    # the horizon ends at or next to a periodic step
    **{f"cosine horizon T_max={n}": (_cosine(n), BACKWARD + STEP, set()) for n in (64, 65, 66, 128, 129, 130)},
    # what the periodic parameter check finds: a NaN written into a parameter no update touches
    "NaN in an unused parameter at step 100": (
        COSINE, BACKWARD + STEP + "\n        if step == 100:\n"
        "            with torch.no_grad(): model.extra[0] = float('nan')", {"LRD105"}),
    "NaN in an unused parameter at step 127": (
        COSINE, BACKWARD + STEP + "\n        if step == 127:\n"
        "            with torch.no_grad(): model.extra[0] = float('nan')", {"LRD105"}),
    # the AMP check's findings at and right after the periodic step
    "clip_grad_norm_ before unscale_ at step 64": (
        COSINE, BACKWARD + "if step == 64: torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n        "
        + STEP, {"LRD108"}),
    "clip_grad_norm_ before unscale_ at step 65": (
        COSINE, BACKWARD + "if step == 65: torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n        "
        + STEP, {"LRD108"}),
    "optimizer.step() after a scaled backward at step 64": (
        COSINE, BACKWARD + "if step == 64: optimizer.step()\n"
        "        else: scaler.step(optimizer); scaler.update()\n"
        "        scheduler.step()", {"LRD109"}),
    "optimizer.step() after scaler.step() at step 128": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n"
        "        if step == 128: optimizer.step()\n"
        "        scaler.update(); scheduler.step()", {"LRD109"}),
    "scaler.step() and no more update() from step 64": (
        COSINE, BACKWARD + "if step < 64: scaler.step(optimizer); scaler.update()\n"
        "        elif step == 64: scaler.step(optimizer)\n"
        "        scheduler.step()", {"LRD110"}),
    "update(new_scale) at step 64": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n"
        "        scaler.update(256.0 if step == 64 else None); scheduler.step()", set()),
    "the scale tensor filled by hand at step 70": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n"
        "        if step == 70: scaler._scale.fill_(64.0)\n"
        "        scaler.update(); scheduler.step()", set()),
    "the LR written at step 64": (
        COSINE, BACKWARD + STEP + "\n        if step == 64: optimizer.param_groups[0]['lr'] = 0.01", set()),
    # other DataLoader iterators while the hook is off
    "another loader's iterator read at step 70": (
        COSINE + "\nother = DataLoader(data, batch_size=7)",
        BACKWARD + STEP + "\n        if step == 70: next(iter(other))", set()),
    "another loader's batch trains step 70": (
        COSINE + "\nother = DataLoader(data, batch_size=7)",
        "if step == 70: x, y = next(iter(other))\n        " + BACKWARD + STEP, set()),
}


def _script(name: str) -> str:
    setup, batch, _ = SCRIPTS[name]
    return LOOP.replace("SETUP", setup).replace("BATCH", batch)


@pytest.fixture(autouse=True)
def _no_iterators_left():
    """An iterator an earlier test left to the garbage collector would count as made before
    the watch (and keep the __next__ hook on)."""
    gc.collect()


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_scaled_lane_kept_through_the_periodic_step_keeps_the_records(name, run_script, monkeypatch):
    fast = run_script(_script(name))
    _nothing_routine(monkeypatch)
    slow = run_script(_script(name))
    assert _amp_snapshot(fast.watch) == _amp_snapshot(slow.watch)
    assert _amp_state(fast.watch) == _amp_state(slow.watch)
    assert SCRIPTS[name][2] <= {f.code for f in fast.watch.findings}, fast.watch.report()
    # and the training is the same (bit for bit)
    for a, b in zip(fast.ns["model"].parameters(), slow.ns["model"].parameters()):
        assert torch.allclose(a, b, rtol=0, atol=0, equal_nan=True)


def test_the_periodic_steps_stay_in_the_scaled_lane(run_script, monkeypatch):
    """Healthy: after the lane opens in the first epoch, no update takes the general path
    until the epoch ends, the periodic steps 64 and 128 included; their parameters are checked
    (by the lane, not by handing the step to NaN detection); and from the periodic step to the
    epoch's end the batches come through torch's own __next__ (on the base the lane closed at
    each periodic step and the hook stayed on under GradScaler)."""
    general: list[int] = []
    on_attempt = Engine.on_attempt

    def counting(self, opt, *args, **kwargs):
        general.append(self.optimizer(opt).attempts + 1)
        return on_attempt(self, opt, *args, **kwargs)

    monkeypatch.setattr(Engine, "on_attempt", counting)
    handed: list[int] = []
    on_optimizer_step = NonFinite.on_optimizer_step

    def counting_handed(self, ev):
        handed.append(ev.attempt.index)
        return on_optimizer_step(self, ev)

    monkeypatch.setattr(NonFinite, "on_optimizer_step", counting_handed)
    checked: list[int] = []
    check_params = NonFinite._check_params

    def counting_checks(self, step, *args, **kwargs):
        checked.append(step)
        return check_params(self, step, *args, **kwargs)

    monkeypatch.setattr(NonFinite, "_check_params", counting_checks)
    ran = run_script(_script("healthy"))
    assert ROUTINE_PERIOD not in general and 2 * ROUTINE_PERIOD not in general, general
    assert ROUTINE_PERIOD + 1 not in general and 2 * ROUTINE_PERIOD + 1 not in general, general
    # the first steps, and the steps around each new epoch's lane opening only
    assert len(general) <= 3 * 8, general
    assert handed == [1, 2, 3, 4], handed
    assert checked == [ROUTINE_PERIOD, 2 * ROUTINE_PERIOD], checked
    off = ran.ns["off"]
    assert len(off) == 156
    assert not any(off[:63])  # before the first periodic step
    assert all(off[63:104])  # from the periodic step 64 to the epoch's end
    assert not any(off[104:127])  # the next epoch's iterator: on again, to the periodic step 128
    assert all(off[127:])  # from the periodic step 128 to the run's last batch
    assert ran.watch.engine.lane.unhooked is False
    # (T_max=400 over 156 steps: the horizon finding, LRD011, and nothing non-finite)
    assert not {"LRD005", "LRD104", "LRD105"} & {f.code for f in ran.findings}, ran.watch.report()


def test_the_scaled_lane_stops_before_a_grown_scale_after_the_periodic_step(run_script, monkeypatch):
    """growth_interval=65: the update right after the periodic one (65) grows the scale, so
    the lane kept through the periodic step takes that one and not the next, whose update
    starts from the grown scale and is read by the general path (as is every growth)."""
    seen: list[float] = []
    on_scaler_update = Engine.on_scaler_update

    def counting(self, scaler, before, skipped):
        seen.append(before)
        return on_scaler_update(self, scaler, before, skipped)

    monkeypatch.setattr(Engine, "on_scaler_update", counting)
    kept: list[bool] = []
    scaled_lane_period = Engine.scaled_lane_period

    def counting_kept(self, opt):
        result = scaled_lane_period(self, opt)
        kept.append(result)
        return result

    monkeypatch.setattr(Engine, "scaled_lane_period", counting_kept)
    ran = run_script(_script("scale growth every 65 updates"))
    assert True in kept  # the periodic step 64 was kept
    (scaler,) = ran.watch.engine.scalers.values()
    scales = [s for _, s in scaler.scale_history.points]
    assert scales[:3] == [16.0, 32.0, 64.0], scales
    for scale in scales:
        assert scale in seen


def test_a_nan_found_by_the_periodic_check_in_the_scaled_lane(run_script):
    """LRD105 from the parameter check the lane makes at the periodic step 128, for a NaN
    written at step 100 (after many routine lane steps), names the step and the steps since
    the last check, as the general path does (the records are compared above)."""
    ran = run_script(_script("NaN in an unused parameter at step 100"))
    lrd105 = ran.only("LRD105")
    assert lrd105.evidence["step"] == 2 * ROUTINE_PERIOD
    assert "extra" in lrd105.message
