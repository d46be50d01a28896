"""GradScaler.update() under the general path reads the scale and, for each optimizer's state,
its found-inf flags (whether the iteration's update was skipped). A shortcut that takes a flag
for 0 without reading it (a flag of an optimizer that torch's own ``scaler.step()`` has just
stepped reads 0) must keep every record: these scripts are the shapes where it would not be
sound, kept as the comparison for any such shortcut (perf55 built one, measured it as more
instructions than the two reads it saved, and did not keep it: bench/OVERHEAD.md).

Each script runs as ``lrdoctor run`` does and with nothing routine (a token in
Engine.every_step, Backward and ScalerUnscale handlers), same seed, and must keep every record,
finding, scaler record and scale history, the AMP check's and NaN detection's state and the
trained parameters (bit for bit) the same: a fused optimizer (stepped by scaler.step() whatever
its flags read), an optimizer unscaled and not stepped, a flag written by hand between
scaler.step() and update(), a flag replaced by another tensor, a GradScaler subclass that steps
whatever the flags read, and one optimizer under GradScaler (update()'s one-state path)."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import ScalerUpdate
from tests.watch.test_amp_lane_folded import _amp_state
from tests.watch.test_multi_opt_lane import _full_snapshot
from tests.watch.test_multi_opt_scaled_lane import (
    BACKWARD,
    COSINES,
    LOOP,
    SCHEDS,
    STEPS,
    _indent,
    _nothing_routine,
    _params,
)

torch = pytest.importorskip("torch")

_FILL_B = ("for f in scaler._per_optimizer_states[id(opt_b)]['found_inf_per_device'].values():\n"
           "    f.fill_(1.0)")
_REPLACE_A = ("st = scaler._per_optimizer_states[id(opt_a)]\n"
              "st['found_inf_per_device'] = {k: torch.ones_like(v) for k, v in st['found_inf_per_device'].items()}")
_ALWAYS = ("class AlwaysScaler(torch.amp.GradScaler):\n"
           "    def _maybe_opt_step(self, optimizer, optimizer_state, *args, **kwargs):\n"
           "        return optimizer.step(*args, **kwargs)  # whatever the flags read\n"
           "scaler = AlwaysScaler('cpu', init_scale=2.0 ** 8)\n")

# name -> (setup, one iteration)
SCRIPTS: dict[str, tuple[str, str]] = {
    "a fused Adam for head, an inf gradient of head at steps 60 and 100": (
        "opt_b = torch.optim.Adam(head.parameters(), lr=1e-3, fused=True)\n" + COSINES,
        BACKWARD + "\nif step in (60, 100): head.weight.grad[0, 0] = float('inf')\n" + STEPS + "\n" + SCHEDS),
    "opt_b unscaled every step and not stepped at step 100": (
        COSINES, BACKWARD + "\nscaler.unscale_(opt_b)\nscaler.step(opt_a)\nif step != 100: scaler.step(opt_b)\n"
        "scaler.update()\n" + SCHEDS),
    "opt_b's flag written to 1 by hand after its step at steps 40 and 100": (
        COSINES, BACKWARD + "\nscaler.step(opt_a); scaler.step(opt_b)\nif step in (40, 100):\n"
        + "\n".join("    " + line for line in _FILL_B.splitlines()) + "\nscaler.update()\n" + SCHEDS),
    "opt_a's flag replaced by a tensor reading 1 after its step at step 100": (
        COSINES, BACKWARD + "\nscaler.step(opt_a)\nif step == 100:\n"
        + "\n".join("    " + line for line in _REPLACE_A.splitlines()) + "\nscaler.step(opt_b); scaler.update()\n"
        + SCHEDS),
    "a GradScaler subclass that steps whatever the flags read, an inf gradient at step 100": (
        _ALWAYS + COSINES, BACKWARD + "\nif step == 100: head.weight.grad[0, 0] = float('inf')\n" + STEPS + "\n"
        + SCHEDS),
    "an inf gradient of model every 30th step": (
        COSINES, BACKWARD + "\nif step % 30 == 0: model.weight.grad[0, 0] = float('inf')\n" + STEPS + "\n" + SCHEDS),
    "one optimizer under GradScaler, its flag written to 1 by hand at step 100": (
        COSINES, "scaler.scale(torch.nn.functional.mse_loss(model(x), y)).backward()\nscaler.step(opt_a)\n"
        "if step == 100:\n    for f in scaler._per_optimizer_states[id(opt_a)]['found_inf_per_device'].values():\n"
        "        f.fill_(1.0)\nscaler.update()\nsched_a.step()"),
}


def _script(name: str) -> str:
    setup, batch = SCRIPTS[name]
    return LOOP.replace("SETUP", setup).replace("BATCH", _indent(batch))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_update_with_noted_flags_keeps_the_records_of_reading_every_flag(name, run_script, monkeypatch):
    fast = run_script(_script(name))
    _nothing_routine(monkeypatch)
    slow = run_script(_script(name))
    assert _full_snapshot(fast.watch) == _full_snapshot(slow.watch)
    assert _amp_state(fast.watch) == _amp_state(slow.watch)
    for a, b in zip(_params(fast), _params(slow), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)  # the same training, bit for bit


def _scaler_record(ran):
    [record] = ran.watch.engine.scalers.values()
    return record


def test_a_flag_written_by_hand_is_read(run_script, monkeypatch):
    """opt_b's flag, written to 1 after scaler.step() stepped it, is read by update(): the
    watch sees a skipped update at steps 40 and 100 and nowhere else, as torch does (its scale
    backs off twice). A noted flag taken for 0 in spite of the write would see none."""
    skips: list[int] = []
    init = Engine.__init__

    def with_handler(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.subscribe(ScalerUpdate, lambda ev: skips.append(ev.scaler.updates) if ev.skipped_any else None,
                       every_step=False)

    monkeypatch.setattr(Engine, "__init__", with_handler)
    ran = run_script(_script("opt_b's flag written to 1 by hand after its step at steps 40 and 100"))
    assert skips == [40, 100]
    assert ran.ns["scaler"].get_scale() == 2.0 ** 6  # torch's two back-offs from 2 ** 8 (no growth: interval 2000)
