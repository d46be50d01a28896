"""The routine step under GradScaler, and the general path with two optimizers, in fewer
frames (bench/OVERHEAD.md, perf48).

- In the lane under GradScaler, the routine scaled backward (what ``scaler.scale()`` returned,
  for the lane's scaler, a finite CPU scalar loss) is decided in the backward wrapper itself:
  neither the wrapper's general path nor its line lookup (``scaled_site``) is called on such a
  step, and the AMP check is told exactly what it was told before.
- GradScaler's ``scale``, ``unscale_``, ``update`` and ``step`` wrappers call torch's own
  function with a plain call (no tuple and dict built for a star call each step), with exactly
  what they were given.
- With two optimizers, each with its own scheduler, StepOrder's LRD012 test (a rival scheduler
  on the same optimizer) is not called at all, and no lane candidate is built per update.

What is found, and what is trained, must not move: tests/watch/test_amp_lane.py compares every
record of such runs with the general path's; here the findings and the parameters."""

from __future__ import annotations

import dis
import functools
import inspect
import sys

import pytest

import lrdoctor
from lrdoctor.runtime.checks import schedule
from tests.watch.conftest import PRELUDE
from tests.watch.test_two_optimizers_general_path import TWO

torch = pytest.importorskip("torch")

AMP = PRELUDE + """
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=160)
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
step = 0
for epoch in range(10):
    for x, y in loader:
        step += 1
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            loss = torch.nn.functional.mse_loss(model(x).float(), y)
        BACKWARD
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
"""
ROUTINE = "scaler.scale(loss).backward()"


def _calls_by_name(names: set[str]):
    """A profile function counting the calls of lrdoctor's functions named in ``names``."""
    seen: dict[str, int] = {}

    def profile(frame, event, arg):
        if event == "call" and frame.f_code.co_name in names and "lrdoctor" in frame.f_code.co_filename:
            seen[frame.f_code.co_name] = seen.get(frame.f_code.co_name, 0) + 1

    return profile, seen


def test_the_lanes_routine_scaled_backward_calls_no_general_path_and_no_line_lookup(run_script):
    profile, seen = _calls_by_name({"general", "scaled_site", "scaled_backward"})
    sys.setprofile(profile)
    try:
        ran = run_script(AMP.replace("BACKWARD", ROUTINE))
    finally:
        sys.setprofile(None)
    assert ran.codes == [], ran.watch.report()
    steps = 10 * 16
    assert ran.watch.engine.routine_backwards_done == steps  # every scaled backward routine
    # the AMP check is told of those the lane did not take (directly: no event); the lane
    # keeps what it would be told and hands it over when it closes (perf50: AmpMisuse.lane_closed)
    assert 0 < seen.get("scaled_backward", 0) < steps // 4, seen
    # general() only around the lane's opening and its periodic steps (it closes there under
    # GradScaler); before, on every step
    assert seen.get("general", 0) < steps // 4, seen
    # the line of the backward is looked up once, then remembered
    assert seen.get("scaled_site", 0) < steps // 4, seen


def test_the_amp_findings_are_still_found_in_the_lane(run_script):
    # a NaN loss at step 90, in the lane: LRD104 (the general path decides that backward)
    ran = run_script(AMP.replace("BACKWARD", "loss = loss * float('nan') if step == 90 else loss\n        "
                                 + ROUTINE))
    assert "LRD104" in ran.codes, ran.watch.report()
    # optimizer.step() after a scaled backward at step 90: LRD109, with the backward's line
    ran = run_script(AMP.replace("BACKWARD", ROUTINE + "\n        if step == 90: optimizer.step()"))
    lrd109 = ran.only("LRD109")
    assert "train.py:" in lrd109.message, lrd109.message
    # clip_grad_norm_ before unscale_ from step 80: LRD108 at step 80
    ran = run_script(AMP.replace("BACKWARD", ROUTINE + "\n        if step >= 80: "
                                 "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"))
    assert ran.only("LRD108").evidence["step"] == 80


def test_a_watched_scaled_run_trains_bit_identically(run_script, tmp_path):
    source = AMP.replace("BACKWARD", ROUTINE)
    ran = run_script(source)
    watched = [p.detach().clone() for p in ran.ns["model"].parameters()]
    ns: dict = {}
    exec(compile(source, str(tmp_path / "plain.py"), "exec"), ns)
    plain = list(ns["model"].parameters())
    assert all(torch.equal(a, b) for a, b in zip(watched, plain)) and len(watched) == len(plain)


def _recording(fn, calls):
    """``fn``'s stand-in with the same parameters, noting the opcode its caller used."""

    def stand_in(*args, **kwargs):
        caller = sys._getframe(1)
        op = [i.opname for i in dis.get_instructions(caller.f_code) if i.offset <= caller.f_lasti][-1]
        calls.append((fn.__name__, op, len(args), sorted(kwargs)))
        return fn(*args, **kwargs)

    wrapped = functools.wraps(fn)(stand_in)
    wrapped.__signature__ = inspect.signature(fn)  # type: ignore[attr-defined]
    return wrapped


def test_gradscaler_wrappers_call_torch_plainly_with_what_they_were_given(monkeypatch):
    cls = torch.amp.GradScaler
    calls: list = []
    for name in ("scale", "unscale_", "update", "step"):
        if name not in cls.__dict__:
            pytest.skip(f"this PyTorch's GradScaler has no {name} of its own")
        monkeypatch.setattr(cls, name, _recording(cls.__dict__[name], calls))
    if list(inspect.signature(cls.scale).parameters) != ["self", "outputs"]:
        pytest.skip("this PyTorch's GradScaler.scale has other parameters")

    def run(w):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8)
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        with w:
            for i in range(3):
                opt.zero_grad()
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = torch.nn.functional.mse_loss(model(x).float(), y)
                scaler.scale(loss).backward()
                scaler.unscale_(opt)
                scaler.step(opt)
                scaler.update(2.0 ** 8 if i == 1 else None)
        return [p.detach().clone() for p in model.parameters()]

    watched = run(lrdoctor.watch(echo=lambda m: None))
    by_wrapper = list(calls)
    calls.clear()
    plain = run(lrdoctor.watch(checks=(), nan_check=False))  # no AMP hooks but step/update's
    assert all(torch.equal(a, b) for a, b in zip(watched, plain))
    # each reached with a plain CALL (scaler.step's inner unscale_ is torch's own call), with
    # the arguments given: self and one argument, none by keyword
    by_name = {}
    for name, op, nargs, kwargs in by_wrapper:
        by_name.setdefault(name, set()).add((op, nargs, tuple(kwargs)))
    assert by_name["scale"] == {("CALL", 2, ())}, by_name
    assert by_name["step"] == {("CALL", 2, ())}, by_name
    assert by_name["update"] == {("CALL", 2, ())}, by_name
    assert ("CALL", 2, ()) in by_name["unscale_"] and all(op == "CALL" for op, _, _ in by_name["unscale_"]), by_name


def test_two_optimizers_each_with_its_scheduler_run_no_rival_search_and_build_no_lane_candidate(
        run_script, monkeypatch):
    competing: list[int] = []
    real = schedule.StepOrder._competing
    monkeypatch.setattr(schedule.StepOrder, "_competing",
                        lambda self, *a: competing.append(1) or real(self, *a))
    ran = run_script(TWO)
    assert ran.codes == [], ran.watch.report()
    assert competing == []  # each optimizer has one scheduler: no rival to look for
    assert ran.watch.engine._routine_opt is None and ran.watch.engine.lane.opt is None


def test_a_rival_scheduler_beside_another_optimizer_is_still_found(run_script):
    ran = run_script(TWO.replace(
        "sched_b = torch.optim.lr_scheduler.OneCycleLR(opt_b, max_lr=1e-3, total_steps=48)",
        "sched_b = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)"))
    assert "LRD012" in ran.codes, ran.watch.report()
