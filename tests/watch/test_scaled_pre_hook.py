"""NaN detection's optimizer pre-hook under GradScaler. Before an update the hook says whether
this step's gradients are checked; for an optimizer of float32 parameters the answer is "no"
whether ``scaler.step()`` makes the update or not (GradScaler checks its gradients itself),
so once every optimizer is such a one the hook is taken out, as it already was outside
GradScaler (a frame less per step). It must stay while some optimizer has float16/bfloat16
parameters, come back when the parameters are cast later, and a run must find what it found
with the hook in place."""

from __future__ import annotations

import pytest

import lrdoctor
from lrdoctor.runtime.checks.nonfinite import NonFinite

torch = pytest.importorskip("torch")
optmod = pytest.importorskip("torch.optim.optimizer")

STEPS = 150  # past two periodic steps (ROUTINE_PERIOD = 64)


def _check(w) -> NonFinite:
    check = w.engine.loss_gate
    assert isinstance(check, NonFinite)
    return check


def _ours(hooks) -> list:
    return [h for h in hooks.values() if "nonfinite" in getattr(getattr(h, "__code__", None), "co_filename", "")]


def _train(w, steps: int = STEPS, cast_at: int | None = None, dtype=None, inf_at=(), probe=None) -> list:
    """A CPU float16-autocast loop under ``torch.amp.GradScaler("cpu")``; ``dtype``: the
    parameters' dtype from the start, ``cast_at``: the step after which they are cast to
    bfloat16; ``inf_at``: steps whose gradient is made inf (the scaler skips them); ``probe``:
    called after each step with the step number. Returns the parameters at the end."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    if dtype is not None:
        model.to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
    xs, ys = torch.randn(steps, 4, 8), torch.randn(steps, 4, 1)
    with w:
        for i in range(1, steps + 1):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(xs[i - 1].to(model[0].weight.dtype)).float(), ys[i - 1])
            scaler.scale(loss).backward()
            if i in inf_at:
                model[0].weight.grad[0, 0] = float("inf")
            scaler.step(opt)
            scaler.update()
            sched.step()
            if probe is not None:
                probe(i)
            if i == cast_at:
                model.to(torch.bfloat16)
    return [p.detach().clone() for p in model.parameters()]


def test_the_pre_hook_is_taken_out_for_float32_parameters_under_gradscaler():
    w = lrdoctor.watch(echo=lambda m: None)
    seen: list[tuple[int, bool, int]] = []
    _train(w, probe=lambda i: seen.append((i, _check(w)._pre_handle is not None, len(_check(w).seen_opts))))
    # the optimizer was looked at before its first update (its parameters read once), and the
    # hook is out from then on
    assert [armed for _, armed, _ in seen] == [False] * STEPS, seen
    assert seen[0][2] == 1
    assert not w.findings, w.report()
    assert w.engine._internal_errors == 0
    assert not _ours(optmod._global_optimizer_pre_hooks)


def test_the_pre_hook_stays_for_bfloat16_parameters_under_gradscaler():
    w = lrdoctor.watch(echo=lambda m: None)
    seen: list[bool] = []
    _train(w, steps=80, dtype=torch.bfloat16, probe=lambda i: seen.append(_check(w)._pre_handle is not None))
    assert all(seen[5:]), seen
    assert w.engine._internal_errors == 0


def test_the_pre_hook_comes_back_when_the_parameters_are_cast_to_bfloat16_later():
    w = lrdoctor.watch(echo=lambda m: None)
    seen: dict[int, bool] = {}
    _train(w, cast_at=70, probe=lambda i: seen.__setitem__(i, _check(w)._pre_handle is not None))
    assert not any(seen[i] for i in range(20, 70)), seen
    # seen at the next periodic parameter check (its dtype rescan), and kept from then on
    assert all(seen[i] for i in range(140, STEPS + 1)), seen
    assert w.engine._internal_errors == 0


def test_training_and_findings_are_those_of_a_run_that_keeps_the_pre_hook(monkeypatch):
    inf_at = tuple(range(30, 42))  # a run of skips: LRD106 (scale collapse) at the 10th
    w = lrdoctor.watch(echo=lambda m: None)
    params = _train(w, inf_at=inf_at)
    unwatched = _train(lrdoctor.watch(checks=()), inf_at=inf_at)
    # the same loop with the pre-hook never taken out (as before this change)
    monkeypatch.setattr(NonFinite, "_pre_hook_needed", lambda self: True)
    kept = lrdoctor.watch(echo=lambda m: None)
    armed: list[bool] = []
    params_kept = _train(kept, inf_at=inf_at, probe=lambda i: armed.append(_check(kept)._pre_handle is not None))
    assert all(armed)
    assert all(torch.equal(a, b) for a, b in zip(params, params_kept))
    assert all(torch.equal(a, b) for a, b in zip(params, unwatched))
    codes = sorted(f.code for f in w.findings)
    assert codes == sorted(f.code for f in kept.findings)
    assert [f.message for f in w.findings] == [f.message for f in kept.findings]
    assert "LRD005" in codes, w.report()
    assert w.engine._internal_errors == 0 and kept.engine._internal_errors == 0
