"""The lane for several optimizers under GradScaler (Engine.MultiLane with a scaler: a GAN or
actor-critic under AMP, one scaled backward, ``scaler.step()`` for each optimizer, one
``scaler.update()``, each optimizer's scheduler). Each script runs as ``lrdoctor run`` does
and again with that lane forced off (``Engine.multi_under_scaler``: every step then takes the
general path and its short paths, tests/watch/test_multi_opt_scaled_lane.py), same seed, and
must keep every record (optimizers, schedulers, loaders, clock), finding (message, location,
evidence), scaler record and scale history, the AMP check's own state, NaN detection's state
and the trained parameters (bit for bit) the same. The scripts of test_multi_opt_scaled_lane.py
(compared there with a run where nothing is routine) run here too, beside ones that end the
lane at its edges: an inf gradient, a scale written by hand, an ``unscale_`` or a clip inside
the lane, the scale's growth every few updates, a third optimizer, the update order changed."""

from __future__ import annotations

import pytest

from lrdoctor.runtime import callsite
from lrdoctor.runtime.engine import Engine
from tests.watch.test_amp_lane_folded import _amp_state
from tests.watch.test_multi_opt_lane import _full_snapshot
from tests.watch.test_multi_opt_scaled_lane import (
    BACKWARD,
    COSINES,
    EPOCHS,
    HEALTHY,
    LOOP,
    SCHEDS,
    SCRIPTS,
    STEPS,
    _indent,
    _params,
)

torch = pytest.importorskip("torch")

THREE = ("tail = torch.nn.Linear(8, 1)\nopt_c = torch.optim.SGD(tail.parameters(), lr=0.01)\n" + COSINES
         + "\nsched_c = torch.optim.lr_scheduler.CosineAnnealingLR(opt_c, T_max=400)")

# name -> (setup, one iteration, codes that must be found); the scripts of
# test_multi_opt_scaled_lane.py and these
MORE: dict[str, tuple[str, str, set[str]]] = {
    "inf gradients of model at step 60 and of head at step 64 (LRD005)": (
        COSINES, BACKWARD + "\nif step == 60: model.weight.grad[0, 0] = float('inf')\n"
        "if step == 64: head.weight.grad[0, 0] = float('inf')\n" + STEPS + "\n" + SCHEDS, {"LRD005"}),
    "an inf gradient of head at step 128, the periodic update (LRD005)": (
        COSINES, BACKWARD + "\nif step == 128: head.weight.grad[0, 0] = float('inf')\n" + STEPS + "\n" + SCHEDS,
        {"LRD005"}),
    "a NaN written into head's weight at step 100": (
        COSINES, HEALTHY + "\nif step == 100:\n    with torch.no_grad(): head.weight[0, 0] = float('nan')", set()),
    "opt_b's LR written by hand at step 80": (
        COSINES, BACKWARD + "\n" + STEPS + "\nif step == 80: opt_b.param_groups[0]['lr'] = 0.5\n" + SCHEDS, set()),
    "the scale written by hand at step 100": (
        COSINES, "if step == 100: scaler._scale.fill_(16.0)\n" + HEALTHY, set()),
    "the scale written by hand between scaler.step() and update() at step 100": (
        COSINES, BACKWARD + "\nscaler.step(opt_a); scaler.step(opt_b)\n"
        "if step == 100: scaler._scale.fill_(16.0)\nscaler.update()\n" + SCHEDS, set()),
    "unscale_ of opt_b alone at step 100, no clip": (
        COSINES, BACKWARD + "\nif step == 100: scaler.unscale_(opt_b)\n" + STEPS + "\n" + SCHEDS, set()),
    "unscale_ of both and a clip of all parameters at step 100 only": (
        COSINES, BACKWARD + "\nif step == 100:\n    scaler.unscale_(opt_a); scaler.unscale_(opt_b)\n"
        "    torch.nn.utils.clip_grad_norm_(list(model.parameters()) + list(head.parameters()), 1.0)\n"
        + STEPS + "\n" + SCHEDS, set()),
    "unscale_ of opt_a and a clip of head at step 100 (LRD108)": (
        COSINES, BACKWARD + "\nif step == 100:\n    scaler.unscale_(opt_a)\n"
        "    torch.nn.utils.clip_grad_norm_(head.parameters(), 1.0)\n" + STEPS + "\n" + SCHEDS, {"LRD108"}),
    "an unscale_ after update(), before the next scaled backward, at step 100": (
        COSINES, HEALTHY + "\nif step == 100: scaler.unscale_(opt_a)", set()),
    "scale growth every 3 updates": (
        COSINES + "\nscaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 2, growth_interval=3)", HEALTHY, set()),
    "the schedulers first, then the scaled backward and the steps": (
        COSINES, "if step > 1: " + SCHEDS + "\n" + BACKWARD + "\n" + STEPS, set()),
    "scaler.step(opt_b) before scaler.step(opt_a) from step 100": (
        COSINES, BACKWARD + "\nif step < 100: scaler.step(opt_a); scaler.step(opt_b)\n"
        "else: scaler.step(opt_b); scaler.step(opt_a)\nscaler.update()\n" + SCHEDS, set()),
    "three optimizers under one scaler": (
        THREE, "scaler.scale(forward(x, y) + torch.nn.functional.mse_loss(tail(x), y)).backward()\n"
        "scaler.step(opt_a); scaler.step(opt_b); scaler.step(opt_c); scaler.update()\n"
        "sched_a.step(); sched_b.step(); sched_c.step()", set()),
    "the schedulers stepped from a helper from step 60": (
        COSINES + "\ndef both(): sched_a.step(); sched_b.step()",
        BACKWARD + "\n" + STEPS + "\nif step < 60: " + SCHEDS + "\nelse: both()", set()),
    "sched_b stepped twice at step 100 (LRD017)": (
        COSINES, HEALTHY + "\nif step >= 100: sched_b.step()", {"LRD017"}),
    "sched_b not stepped at step 100": (
        COSINES, BACKWARD + "\n" + STEPS + "\nsched_a.step()\nif step != 100: sched_b.step()", set()),
    "a scheduler step past T_max=120 (LRD010)": (
        "sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
        "sched_b = torch.optim.lr_scheduler.OneCycleLR(opt_b, max_lr=1e-3, total_steps=130)",
        BACKWARD + "\n" + STEPS + "\nsched_a.step()\nif step <= 130: sched_b.step()", set()),
}
ALL = {**SCRIPTS, **MORE}
# scripts whose steady steps the lane takes: fewer than a quarter of the updates reach on_attempt
STEADY = ("healthy", "healthy, each optimizer's scheduler right after its step",
          "unscale_ of both and a clip of all parameters, every step", "three optimizers under one scaler",
          "the schedulers first, then the scaled backward and the steps")


def _script(name: str) -> str:
    setup, batch, _ = ALL[name]
    return LOOP.replace("SETUP", setup).replace("BATCH", _indent(batch))


def _run_both(name, run_script, monkeypatch, **options):
    """The script with the lane (counting the updates that reach Engine.on_attempt and the
    update()s that reach Engine.on_scaler_update) and with the lane forced off."""
    general: list[str] = []
    on_attempt, on_scaler_update = Engine.on_attempt, Engine.on_scaler_update

    def counting(self, *args, **kwargs):
        general.append("attempt")
        return on_attempt(self, *args, **kwargs)

    def counting_update(self, *args, **kwargs):
        general.append("update")
        return on_scaler_update(self, *args, **kwargs)

    # (not user frames: a finding's line is looked for above them, in the script)
    for fn in (counting, counting_update):
        monkeypatch.setitem(callsite._verdicts, id(fn.__code__), (fn.__code__, 0))
    monkeypatch.setattr(Engine, "on_attempt", counting)
    monkeypatch.setattr(Engine, "on_scaler_update", counting_update)
    fast = run_script(_script(name), **options)
    fast_general = list(general)
    monkeypatch.setattr(Engine, "multi_under_scaler", False)
    general.clear()
    slow = run_script(_script(name), **options)
    return fast, fast_general, slow, list(general)


def _same(fast, slow) -> None:
    assert _full_snapshot(fast.watch) == _full_snapshot(slow.watch)
    assert _amp_state(fast.watch) == _amp_state(slow.watch)
    for a, b in zip(_params(fast), _params(slow), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)  # the same training, bit for bit


@pytest.mark.parametrize("name", sorted(ALL))
def test_the_lane_under_gradscaler_keeps_the_records_of_the_general_path(name, run_script, monkeypatch):
    fast, fast_general, slow, slow_general = _run_both(name, run_script, monkeypatch)
    _same(fast, slow)
    attempts = sum(o.attempts for o in slow.watch.engine.optimizers.values())
    # the reference run: every update on the general path
    assert slow_general.count("attempt") == attempts
    assert ALL[name][2] <= {f.code for f in fast.watch.findings}, fast.watch.report()
    if name in STEADY:
        # the lane took the steady steps (on the base every update reached on_attempt, every
        # update() on_scaler_update)
        assert fast_general.count("attempt") < attempts / 4, (fast_general.count("attempt"), attempts)
        assert fast_general.count("update") < EPOCHS * 52 / 4


@pytest.mark.parametrize("name", ["healthy", "inf gradients from step 90 to 104 (LRD005, LRD106)",
                                  "unscale_ of opt_a and a clip of head at step 100 (LRD108)",
                                  "opt_b.step() directly after the scaled backward at step 100 (LRD109)"])
def test_without_nan_detection(name, run_script, monkeypatch):
    fast, fast_general, slow, _ = _run_both(name, run_script, monkeypatch, nan_check=False)
    _same(fast, slow)
    # (LRD106 is NaN detection's)
    assert ALL[name][2] - {"LRD106"} <= {f.code for f in fast.watch.findings}, fast.watch.report()
    if name == "healthy":
        attempts = sum(o.attempts for o in slow.watch.engine.optimizers.values())
        assert fast_general.count("attempt") < attempts / 4


def test_the_lane_is_held_by_the_scaler_iteration(run_script):
    """In the healthy loop the lane opens between an update() and the next scaled backward,
    and what the AMP check is told at its close says where the iteration stood: after the run,
    with every update() made, nothing scaled awaits an update()."""
    ran = run_script(_script("healthy"))
    eng = ran.watch.engine
    amp = eng.scaled_gate
    assert not amp.scaled and not amp.unscaled and amp not in eng.every_direct_step
    assert sorted(amp.updates.values()) == [EPOCHS * 52]
    [scaler] = eng.scalers.values()
    assert scaler.updates == EPOCHS * 52
    assert {f.code for f in ran.watch.findings} == {"LRD011"}, ran.watch.report()


def test_no_lane_without_the_amp_check(run_script, monkeypatch):
    """Without the AMP check (it is what tells where the scaler's iteration stands when the lane
    would open) the loop takes the general path, as before."""
    fast, fast_general, slow, slow_general = _run_both("healthy", run_script, monkeypatch, checks=())
    assert _full_snapshot(fast.watch) == _full_snapshot(slow.watch)
    assert fast_general == slow_general
