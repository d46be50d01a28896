"""The lane under GradScaler for one optimizer reads the optimizer's found-inf flag at
``update()`` (perf57) as the general path's ``_before_update()`` reads it: any object with
``is_cpu`` and ``item()``, a CPU tensor of a subclass too, is read (``item() == 0.0``; perf58
dropped the exact-type test before the read); anything else takes the general path. Each script
runs as ``lrdoctor run`` does, with the lane forced off and with nothing routine, same seed:
every record, finding, scaler record, the AMP check's state and the trained parameters (bit for
bit, and against a run with no lrdoctor) must be the same (the harness of
test_amp_lane_subclass.py)."""

from __future__ import annotations

import pytest

from tests.watch.test_amp_lane import COSINE, LOOP, SGD, _amp_snapshot
from tests.watch.test_amp_lane_folded import _amp_state, _nothing_routine
from tests.watch.test_amp_lane_subclass import (
    BACKWARD,
    INF_100,
    _counting_updates,
    _lane_off,
    _params,
    _unwatched,
)

torch = pytest.importorskip("torch")

FLAG_CLASS = "class Flag(torch.Tensor):\n    pass\n"


def _replace(expr: str) -> str:
    """Each flag of the optimizer's state replaced by ``expr`` (of ``v``, the flag) after
    scaler.step(), before update() reads it."""
    return ("st = scaler._per_optimizer_states[id(optimizer)]\n"
            "            st['found_inf_per_device'] = {k: " + expr + " for k, v in"
            " st['found_inf_per_device'].items()}")


def _after_step(when: str, what: str) -> str:
    return (BACKWARD + "scaler.step(optimizer)\n        if " + when + ":\n            " + what
            + "\n        scaler.update(); scheduler.step()")


SCRIPTS: dict[str, tuple[str, str]] = {
    "every flag a Tensor subclass (reading 0) from step 20 on": (
        FLAG_CLASS + COSINE, _after_step("step >= 20", _replace("v.as_subclass(Flag)"))),
    "the flag a Tensor subclass reading 1 at steps 40 and 100": (
        FLAG_CLASS + COSINE, _after_step("step in (40, 100)", _replace("torch.ones_like(v).as_subclass(Flag)"))),
    "every flag a Tensor subclass, an inf gradient at step 100": (
        FLAG_CLASS + COSINE, BACKWARD + INF_100 + "scaler.step(optimizer)\n        if step >= 20:\n            "
        + _replace("v.as_subclass(Flag)") + "\n        scaler.update(); scheduler.step()"),
}


def _script(name: str) -> str:
    setup, batch = SCRIPTS[name]
    return LOOP.replace("\nSGD\n", f"\n{SGD}\n").replace("SETUP", setup).replace("BATCH", batch).replace(
        "EPOCH", "pass")


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_scaled_lane_reads_other_flag_forms_as_the_general_path_does(name, run_script, monkeypatch,
                                                                        tmp_path):
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
            torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)


def test_a_flag_of_a_tensor_subclass_reading_0_is_the_lanes_update(run_script, monkeypatch):
    """A flag of a Tensor subclass that reads 0 is a routine update the lane takes (before
    perf58 every such update took the general path), and one that reads 1 is a skip the watch
    sees (its update() the general path's)."""
    general = _counting_updates(monkeypatch)
    ran = run_script(_script("every flag a Tensor subclass (reading 0) from step 20 on"))
    assert len(general) < 144 // 4, len(general)  # the lane's updates: not the general path's
    general.clear()
    ran = run_script(_script("the flag a Tensor subclass reading 1 at steps 40 and 100"))
    assert ran.ns["scaler"].get_scale() == 2.0 ** 8  # torch's two back-offs from 2 ** 10
    assert ran.watch.engine.scalers and 2 <= len(general) < 144 // 4, len(general)
