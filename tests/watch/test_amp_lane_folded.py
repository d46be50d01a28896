"""The lane under GradScaler keeps the AMP check's per-iteration state itself and decides a
routine ``scaler.update()`` without reading a tensor (bench/OVERHEAD.md, perf50).

On a routine step of that lane the AMP check is not called (``scaled_backward``,
``unscaled_by`` and ``updated`` were three calls a step): the lane keeps the user's line of
the scaled backward and whether ``unscale_`` ran, and hands them over when it closes
(AmpMisuse.lane_closed); and ``update()`` reads neither the scale nor the found-inf flag (two
``.item()`` a step): the lane's update follows an optimizer step that ``scaler.step()`` made,
which GradScaler makes only when every found-inf flag reads 0, the scale tensor's version
counter says nothing but ``update()`` wrote it, and the lane stops before the update whose
scale the growth interval changes. Every script below runs as ``lrdoctor run`` does and with
nothing routine (as in test_amp_lane.py), and every record, finding, message and the AMP
check's own state must be the same; findings made after many routine lane steps come at the
right step."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.checks.amp import AmpMisuse
from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import Backward
from tests.watch.test_amp_lane import COSINE, LOOP, SGD, _amp_snapshot

torch = pytest.importorskip("torch")

STEP = "scaler.step(optimizer); scaler.update(); scheduler.step()"
BACKWARD = "optimizer.zero_grad()\n        scaler.scale(forward(x, y)).backward()\n        "

# name -> (setup, batch, codes that must be reported)
SCRIPTS: dict[str, tuple[str, str, set[str]]] = {
    "healthy": (COSINE, BACKWARD + STEP, set()),
    # the scale grows inside what would be a lane: the lane stops before the update that
    # starts from the grown scale, which the general path reads
    "scale growth every 20 updates": (
        "scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 4, growth_interval=20)\n" + COSINE,
        BACKWARD + STEP, set()),
    "scale growth every 50 updates": (
        "scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 4, growth_interval=50)\n" + COSINE,
        BACKWARD + STEP, set()),
    "scale growth every 63 updates": (
        "scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 4, growth_interval=63)\n" + COSINE,
        BACKWARD + STEP, set()),
    # the scale written outside update(): by update(new_scale), by load_state_dict, by hand
    "update(new_scale) at step 90": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n"
        "        scaler.update(256.0 if step == 90 else None); scheduler.step()", set()),
    "update(new_scale) with the same scale at step 90": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n"
        "        scaler.update(1024.0 if step == 90 else None); scheduler.step()", set()),
    "load_state_dict with another scale at step 100": (
        COSINE, BACKWARD + STEP + "\n"
        "        if step == 100:\n"
        "            state = scaler.state_dict(); state['scale'] = 128.0; scaler.load_state_dict(state)", set()),
    "the scale tensor filled by hand at step 100, before the update": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n"
        "        if step == 100: scaler._scale.fill_(64.0)\n"
        "        scaler.update(); scheduler.step()", set()),
    "a new scale tensor put in at step 100": (
        COSINE, BACKWARD + STEP + "\n"
        "        if step == 100: scaler._scale = torch.full((), 32.0)", set()),
    # findings made after many routine lane steps, at their step
    "inf gradient at step 100": (
        COSINE, BACKWARD + "if step == 100: model[0].weight.grad[0, 0] = float('inf')\n        " + STEP,
        {"LRD005"}),
    "inf gradients from step 90 to 104 (the scale collapses)": (
        COSINE, BACKWARD + "if 90 <= step <= 104: model[0].weight.grad[0, 0] = float('inf')\n        " + STEP,
        {"LRD005", "LRD106"}),
    "clip_grad_norm_ before unscale_ at step 100 only": (
        COSINE, BACKWARD + "if step == 100: torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n        "
        + STEP, {"LRD108"}),
    "unscale_ and clip, then a clip before unscale_ at step 101": (
        COSINE, BACKWARD + "if step != 101: scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n        " + STEP, {"LRD108"}),
    "optimizer.step() after a scaled backward at step 100": (
        COSINE, BACKWARD + "if step == 100: optimizer.step()\n"
        "        else: scaler.step(optimizer); scaler.update()\n"
        "        scheduler.step()", {"LRD109"}),
    "optimizer.step() after scaler.step() at step 100": (
        COSINE, BACKWARD + "scaler.step(optimizer)\n"
        "        if step == 100: optimizer.step()\n"
        "        scaler.update(); scheduler.step()", {"LRD109"}),
    "scaler.step() and no more update() from step 120": (
        COSINE, BACKWARD + "if step < 120: scaler.step(optimizer); scaler.update()\n"
        "        elif step == 120: scaler.step(optimizer)\n"
        "        scheduler.step()", {"LRD110"}),
    "two scaled backwards in one iteration at step 100 (accumulation)": (
        COSINE, BACKWARD + "if step == 100: scaler.scale(forward(x, y)).backward()\n        " + STEP, set()),
    "the scaled backward from another line every 7th step": (
        COSINE, "optimizer.zero_grad()\n"
        "        if step % 7: scaler.scale(forward(x, y)).backward()\n"
        "        else: scaler.scale(forward(x, y)).backward()\n"
        "        if step == 99: optimizer.step()\n"
        "        " + STEP, {"LRD109"}),
    "a second scaler from step 100": (
        COSINE + "\nscaler2 = torch.amp.GradScaler('cpu', init_scale=2.0 ** 10)",
        "s = scaler2 if step >= 100 else scaler\n"
        "        optimizer.zero_grad(); s.scale(forward(x, y)).backward(); s.step(optimizer); s.update()\n"
        "        scheduler.step()", set()),
}


def _script(name: str) -> str:
    setup, batch, _ = SCRIPTS[name]
    return LOOP.replace("\nSGD\n", f"\n{SGD}\n").replace("SETUP", setup).replace("BATCH", batch).replace(
        "EPOCH", "pass")


def _amp_state(watch) -> dict:
    """What the AMP check keeps (its keys are ids: by value)."""
    amp = watch.engine.scaled_gate
    return {
        "updates": sorted(amp.updates.values()),
        "scaled": sorted(repr(site) for _, site in amp.scaled.values()),
        "unscaled": sorted(len(v) for v in amp.unscaled.values()),
        "seen": len(amp.seen),
        "every_direct_step": amp in watch.engine.every_direct_step,
    }


def _nothing_routine(monkeypatch) -> None:
    init = Engine.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")  # no step is routine
        self.subscribe(Backward, lambda ev: None)  # no backward() is routine

    monkeypatch.setattr(Engine, "__init__", general)


def _counting(monkeypatch, cls, name: str, calls: list) -> None:
    original = getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls.append(name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counted)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_folded_amp_lane_keeps_the_records_of_the_general_path(name, run_script, monkeypatch):
    told: list[str] = []
    for method in ("scaled_backward", "unscaled_by", "updated"):
        _counting(monkeypatch, AmpMisuse, method, told)
    fast = run_script(_script(name))
    fast_told = len(told)
    _nothing_routine(monkeypatch)
    slow = run_script(_script(name))
    assert _amp_snapshot(fast.watch) == _amp_snapshot(slow.watch)
    assert _amp_state(fast.watch) == _amp_state(slow.watch)
    assert SCRIPTS[name][2] <= {f.code for f in fast.watch.findings}, fast.watch.report()
    if name == "healthy":
        # the AMP check is told of the steps around the lane's openings only (the lane under
        # GradScaler closes at each periodic step): before, three calls a step
        assert fast_told < 3 * 144 // 4, fast_told
    if name.startswith("scale growth"):
        # the scale grew during the run, and every growth is in the scale's history
        (scaler,) = fast.watch.engine.scalers.values()
        assert len({s for _, s in scaler.scale_history.points}) > 2, scaler.scale_history.points


@pytest.mark.parametrize(("name", "code", "step"), [
    ("clip_grad_norm_ before unscale_ at step 100 only", "LRD108", 100),
    ("unscale_ and clip, then a clip before unscale_ at step 101", "LRD108", 101),
])
def test_a_finding_after_many_routine_amp_steps_comes_at_its_step(name, code, step, run_script):
    fast = run_script(_script(name))
    (finding,) = [f for f in fast.watch.findings if f.code == code]
    assert finding.evidence["step"] == step
    # the scaled backward's line, kept by the lane, is in the message
    assert "train.py:" in finding.message


def test_the_lane_stops_before_the_update_that_starts_from_a_grown_scale(run_script, monkeypatch):
    """growth_interval=20: the updates that start from a grown scale (21, 41, 61, ...) are
    not routine (ScalerUpdate events), so the lane's updates stop at the growth."""
    seen: list[float] = []
    on_scaler_update = Engine.on_scaler_update

    def counting(self, scaler, before, skipped):
        seen.append(before)
        return on_scaler_update(self, scaler, before, skipped)

    monkeypatch.setattr(Engine, "on_scaler_update", counting)
    fast = run_script(_script("scale growth every 20 updates"))
    (scaler,) = fast.watch.engine.scalers.values()
    scales = [s for _, s in scaler.scale_history.points]
    assert scales[:4] == [16.0, 32.0, 64.0, 128.0], scales
    # every scale the run trained with was read by the general path at its first update
    for scale in scales:
        assert scale in seen


def _count_reads(source: str, run_script, monkeypatch, watched: bool) -> list[int]:
    """``.item()`` and other scalar reads (aten::_local_scalar_dense) per step, steps 81-140."""
    from torch.utils._python_dispatch import TorchDispatchMode

    reads: list[int] = [0]

    class Reads(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func is torch.ops.aten._local_scalar_dense.default:
                reads[0] += 1
            return func(*args, **(kwargs or {}))

    per_step: list[int] = []
    mode = Reads()
    source = source.replace("        step += 1\n", "        step += 1\n"
                            "        if 81 <= step <= 141: per_step.append(COUNT())\n"
                            "        if step == 81: MODE.__enter__()\n"
                            "        if step == 141: MODE.__exit__(None, None, None)\n")

    def count() -> int:
        n, reads[0] = reads[0], 0
        return n

    source = source.replace("scaler = SCALER", "scaler = SCALER\nfrom builtins import __dict__ as _b\n"
                            "COUNT, MODE, per_step = _b['_lrd_count'], _b['_lrd_mode'], _b['_lrd_steps']")
    import builtins

    monkeypatch.setattr(builtins, "_lrd_count", count, raising=False)
    monkeypatch.setattr(builtins, "_lrd_mode", mode, raising=False)
    monkeypatch.setattr(builtins, "_lrd_steps", per_step, raising=False)
    if watched:
        run_script(source)
    else:
        import runpy
        import tempfile
        from pathlib import Path

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "train.py"
            path.write_text(source)
            runpy.run_path(str(path), run_name="__main__")
    return per_step[1:]


def test_a_routine_amp_step_reads_the_loss_and_the_flag_not_the_scale(run_script, monkeypatch):
    """Under GradScaler the watched step reads two scalars more than the plain one, the loss
    NaN detection checks (as in the loop with no scaler) and the optimizer's found-inf flag
    (which torch's update() reads too: a flag written by hand after scaler.step() must be seen,
    perf57), except on the steps around the lane's openings; update() does not read the scale
    (before perf50: three reads more on every step)."""
    source = _script("healthy")
    plain = _count_reads(source, run_script, monkeypatch, watched=False)
    watched = _count_reads(source, run_script, monkeypatch, watched=True)
    assert len(plain) == len(watched) == 60
    extra = [w - p for w, p in zip(watched, plain)]
    # (the others: the lane's opening reads the scale and the growth tracker once, and the
    # periodic step the parameters)
    assert extra.count(2) >= 50, extra
    assert sum(extra) <= 120 + 30, extra
