"""The lane under GradScaler for one optimizer (Engine._open_scaled_lane, perf50/51) decides its
``scaler.update()`` with no read of the found-inf flag: the update that ``scaler.step()`` made
in the lane implies the flag read 0, because torch's own GradScaler steps the optimizer only
then. Two shapes break that implication: a GradScaler subclass that overrides how the step is
made (``_maybe_opt_step``, ``step``, ``update``), and a flag written (or replaced) by hand
between ``scaler.step()`` and ``update()``. In both the lane must keep the general path's
records and findings: each script here runs as ``lrdoctor run`` does, with the lane forced off
(the general path with its short paths) and with nothing routine, same seed, and every record,
finding, scaler record and scale history, the AMP check's state and the trained parameters
(bit for bit) must be the same; and the same training must come out of a run with no lrdoctor
at all (bench/OVERHEAD.md, perf57)."""

from __future__ import annotations

import runpy
import textwrap

import pytest

from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import ScalerUpdate
from tests.watch.test_amp_lane import COSINE, LOOP, SGD, _amp_snapshot
from tests.watch.test_amp_lane_folded import _amp_state, _nothing_routine

torch = pytest.importorskip("torch")

STEP = "scaler.step(optimizer); scaler.update(); scheduler.step()"
BACKWARD = "optimizer.zero_grad()\n        scaler.scale(forward(x, y)).backward()\n        "
INF_100 = "if step == 100: model[0].weight.grad[0, 0] = float('inf')\n        "

# GradScaler subclasses, each bound to ``scaler``
ALWAYS = ("class AlwaysScaler(torch.amp.GradScaler):\n"
          "    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):\n"
          "        return optimizer.step(*args, **kwargs)  # whatever the flags read\n"
          "scaler = AlwaysScaler('cpu', init_scale=2.0 ** 10)\n")
SKIPPING = ("class SkippingScaler(torch.amp.GradScaler):\n"
            "    calls = 0\n"
            "    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):\n"
            "        self.calls += 1\n"
            "        if self.calls % 50 == 0: return None  # no step, whatever the flags read\n"
            "        return super()._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)\n"
            "scaler = SkippingScaler('cpu', init_scale=2.0 ** 10)\n")
PASSING = ("class PassingScaler(torch.amp.GradScaler):\n"
           "    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):\n"
           "        return super()._maybe_opt_step(optimizer, optimizer_state, *args, **kwargs)\n"
           "scaler = PassingScaler('cpu', init_scale=2.0 ** 10)\n")
STEP_OVERRIDE = ("class StepScaler(torch.amp.GradScaler):\n"
                 "    def step(self, optimizer, *args, **kwargs):\n"
                 "        if step == 100:  # the optimizer stepped whatever the flags read\n"
                 "            self.unscale_(optimizer)\n"
                 "            return optimizer.step()\n"
                 "        return super().step(optimizer, *args, **kwargs)\n"
                 "scaler = StepScaler('cpu', init_scale=2.0 ** 10)\n")
UPDATE_OVERRIDE = ("class HalvingScaler(torch.amp.GradScaler):\n"
                   "    def update(self, new_scale=None):\n"
                   "        if step == 100:  # the scale halved, not by torch's update()\n"
                   "            self._scale.mul_(0.5)\n"
                   "            self._per_optimizer_states.clear()\n"
                   "            return None\n"
                   "        return super().update(new_scale)\n"
                   "scaler = HalvingScaler('cpu', init_scale=2.0 ** 10)\n")
UPDATE_FLAGS = ("class FlagScaler(torch.amp.GradScaler):\n"
                "    def update(self, new_scale=None):\n"
                "        if step in (70, 100):  # a flag set before torch's update reads it\n"
                "            for st in self._per_optimizer_states.values():\n"
                "                for f in st['found_inf_per_device'].values(): f.fill_(1.0)\n"
                "        return super().update(new_scale)\n"
                "scaler = FlagScaler('cpu', init_scale=2.0 ** 10)\n")
FILL = ("for f in scaler._per_optimizer_states[id(optimizer)]['found_inf_per_device'].values():\n"
        "                f.fill_(1.0)")
REPLACE = ("st = scaler._per_optimizer_states[id(optimizer)]\n"
           "            st['found_inf_per_device'] = {k: torch.ones_like(v) for k, v in"
           " st['found_inf_per_device'].items()}")

# name -> (setup, batch)
SCRIPTS: dict[str, tuple[str, str]] = {
    "healthy (torch's GradScaler)": (COSINE, BACKWARD + STEP),
    "a subclass that steps whatever the flags read, an inf gradient at step 100": (
        ALWAYS + COSINE, BACKWARD + INF_100 + STEP),
    "a subclass that steps whatever the flags read, inf gradients at steps 90-104": (
        ALWAYS + COSINE, BACKWARD + "if 90 <= step <= 104: model[0].weight.grad[0, 0] = float('inf')\n        "
        + STEP),
    "a subclass that skips every 50th step with flags reading 0": (SKIPPING + COSINE, BACKWARD + STEP),
    "a subclass whose _maybe_opt_step calls torch's, an inf gradient at step 100": (
        PASSING + COSINE, BACKWARD + INF_100 + STEP),
    "a subclass whose step() steps the optimizer itself at step 100 after an inf gradient": (
        STEP_OVERRIDE + COSINE, BACKWARD + INF_100 + STEP),
    "a subclass whose update() halves the scale itself at step 100": (UPDATE_OVERRIDE + COSINE, BACKWARD + STEP),
    "a subclass whose update() sets the flags at steps 70 and 100": (UPDATE_FLAGS + COSINE, BACKWARD + STEP),
    "the flag written to 1 by hand after scaler.step() at steps 40 and 100": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n        if step in (40, 100):\n            " + FILL
        + "\n        scaler.update(); scheduler.step()"),
    "the flag replaced by a tensor reading 1 after scaler.step() at step 100": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n        if step == 100:\n            " + REPLACE
        + "\n        scaler.update(); scheduler.step()"),
    "the flag written to 1 by hand after scaler.step() at the periodic step 128": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n        if step == 128:\n            " + FILL
        + "\n        scaler.update(); scheduler.step()"),
    "the flag written to 1 by hand after unscale_ and a clip at step 100": (
        COSINE, BACKWARD + "scaler.unscale_(optimizer)\n        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        if step == 100:\n            " + FILL + "\n        " + STEP),
    "the flag written to 0 by hand after an inf gradient at step 100": (
        COSINE, BACKWARD + INF_100 + "scaler.step(optimizer)\n        if step == 100:\n            "
        + FILL.replace("fill_(1.0)", "fill_(0.0)") + "\n        scaler.update(); scheduler.step()"),
    "the growth tracker written by hand at step 80 (growth_interval=100)": (
        "scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 4, growth_interval=100)\n" + COSINE,
        BACKWARD + "scaler.step(optimizer)\n        if step == 80: scaler._growth_tracker.fill_(95)\n"
        "        scaler.update(); scheduler.step()"),
    "growth_interval written by hand at step 80": (
        "scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 4, growth_interval=1000)\n" + COSINE,
        BACKWARD + "scaler.step(optimizer)\n        if step == 80: scaler._growth_interval = 5\n"
        "        scaler.update(); scheduler.step()"),
}


def _script(name: str) -> str:
    setup, batch = SCRIPTS[name]
    return LOOP.replace("\nSGD\n", f"\n{SGD}\n").replace("SETUP", setup).replace("BATCH", batch).replace(
        "EPOCH", "pass")


def _params(ns) -> list:
    return [p.detach().clone() for p in ns["model"].parameters()]


def _lane_off(monkeypatch) -> None:
    """No lane under GradScaler for one optimizer: the general path with its short paths."""
    monkeypatch.setattr(Engine, "_open_scaled_lane", lambda self, *args: setattr(self, "_routine_scaled", None))


def _counting_updates(monkeypatch) -> list[int]:
    """Appends 1 for each update() the general path decides (Engine.on_scaler_update)."""
    calls: list[int] = []
    original = Engine.on_scaler_update

    def counted(self, *args, **kwargs):
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "on_scaler_update", counted)
    return calls


def _unwatched(tmp_path, source: str) -> list:
    path = tmp_path / "plain.py"
    path.write_text(textwrap.dedent(source))
    return _params(runpy.run_path(str(path), run_name="__main__"))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_scaled_lane_keeps_the_general_paths_records(name, run_script, monkeypatch, tmp_path):
    source = _script(name)
    plain = _unwatched(tmp_path, source)
    fast = run_script(source)
    with monkeypatch.context() as m:
        _lane_off(m)
        off = run_script(source)
    _nothing_routine(monkeypatch)
    slow = run_script(source)
    assert _amp_snapshot(fast.watch) == _amp_snapshot(off.watch)
    assert _amp_snapshot(fast.watch) == _amp_snapshot(slow.watch)
    assert [(f.code, f.message) for f in fast.findings] == [(f.code, f.message) for f in off.findings]
    assert _amp_state(fast.watch) == _amp_state(off.watch) == _amp_state(slow.watch)
    for ran in (fast, off, slow):
        for a, b in zip(_params(ran.ns), plain, strict=True):
            torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)  # the same training, bit for bit


def test_a_flag_written_by_hand_is_read_inside_the_lane(run_script, monkeypatch):
    """The flag written to 1 after scaler.step() at steps 40 and 100: the watch sees skipped
    updates there and nowhere else, as torch does (its scale backs off twice), while the lane
    takes most of the other updates (before perf57 the lane took those two as well, with no
    skip seen)."""
    skips: list[int] = []
    init = Engine.__init__

    def with_handler(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.subscribe(ScalerUpdate, lambda ev: skips.append(ev.scaler.updates) if ev.skipped_any else None,
                       every_step=False)

    monkeypatch.setattr(Engine, "__init__", with_handler)
    general = _counting_updates(monkeypatch)
    ran = run_script(_script("the flag written to 1 by hand after scaler.step() at steps 40 and 100"))
    assert skips == [40, 100]
    assert ran.ns["scaler"].get_scale() == 2.0 ** 8  # torch's two back-offs from 2 ** 10
    assert len(general) < 144 // 4, len(general)  # the lane's updates: not the general path's


def test_no_lane_under_a_gradscaler_subclass(run_script, monkeypatch):
    """A subclass may step an optimizer whatever its flags read: every update() of its scaler
    is the general path's, which reads the flags."""
    general = _counting_updates(monkeypatch)
    run_script(_script("a subclass whose _maybe_opt_step calls torch's, an inf gradient at step 100"))
    assert len(general) == 144
    general.clear()
    run_script(_script("healthy (torch's GradScaler)"))
    assert len(general) < 144 // 4, len(general)
