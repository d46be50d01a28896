"""The backward() wrapper tests the tensor's type and a pending compiled step once for both of
its short paths (the unscaled one with nothing scaled, the scaled one of the AMP lanes), then
whether anything is scaled (bench/OVERHEAD.md, perf59). Each kind of backward must still take
the path it took before: these tests hold on both sides of that change."""

from __future__ import annotations

import pytest

import lrdoctor

torch = pytest.importorskip("torch")

STEPS = 40


def _train(watch, amp: bool, backward=None, unscaled_every=0):
    """A small CPU loop (AdamW, a per-batch cosine); with ``amp`` under float16 autocast and
    GradScaler('cpu'). ``backward(t)`` replaces ``t.backward()``; ``unscaled_every``: every
    n-th step also backpropagates an unscaled loss of a second model (nothing of it scaled)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    side = torch.nn.Linear(8, 1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    side_opt = torch.optim.SGD(side.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=STEPS)
    scaler = torch.amp.GradScaler("cpu", init_scale=1024.0) if amp else None
    xs, ys = torch.randn(STEPS, 4, 8), torch.randint(0, 4, (STEPS, 4))
    back = backward or (lambda t: t.backward())
    ctx = watch if watch is not None else _Null()
    with ctx:
        for i in range(STEPS):
            opt.zero_grad()
            if scaler is not None:
                with torch.autocast("cpu", dtype=torch.float16):
                    loss = torch.nn.functional.cross_entropy(model(xs[i]), ys[i])
                back(scaler.scale(loss))
                if unscaled_every and i % unscaled_every == 0:
                    side_opt.zero_grad()
                    back(side(xs[i]).pow(2).mean())
                    side_opt.step()
                scaler.step(opt)
                scaler.update()
            else:
                back(torch.nn.functional.cross_entropy(model(xs[i]), ys[i]))
                opt.step()
            sched.step()
    return torch.cat([p.detach().flatten() for p in [*model.parameters(), *side.parameters()]])


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _watch():
    messages: list[str] = []
    return lrdoctor.watch(echo=messages.append), messages


def _findings(w):
    return sorted((f.code, f.message) for f in w.findings)


@pytest.mark.parametrize("amp", [False, True], ids=["plain", "amp"])
def test_a_tensor_backward_takes_its_short_path_with_and_without_a_scaler(amp):
    w, messages = _watch()
    params = _train(w, amp)
    assert torch.equal(params, _train(None, amp))  # training computes the same
    # nearly every backward was routine: the unscaled short path, or the scaled one of the lane
    assert w.engine.routine_backwards_done >= STEPS - 8, w.engine.routine_backwards_done
    assert not w.findings, w.report()
    assert w.engine._internal_errors == 0, messages


@pytest.mark.parametrize("amp", [False, True], ids=["plain", "amp"])
def test_a_backward_on_a_list_keeps_the_records_of_a_tensor_backward(amp):
    # a list is not a tensor: neither short path takes it, the general path decides
    tensor_w, _ = _watch()
    tensor_params = _train(tensor_w, amp)
    list_w, messages = _watch()
    list_params = _train(list_w, amp, backward=lambda t: torch.autograd.backward([t]))
    assert torch.equal(tensor_params, list_params)
    assert _findings(list_w) == _findings(tensor_w)
    assert list_w.engine._internal_errors == 0, messages


def test_an_unscaled_backward_beside_a_scaled_loop_is_decided_as_before():
    # something is scaled (the AMP loop's outputs) when the side model's unscaled loss is
    # backpropagated: the unscaled short path is not taken, and the records stay those of
    # the general path; training computes the same as without lrdoctor
    w, messages = _watch()
    params = _train(w, True, unscaled_every=5)
    assert torch.equal(params, _train(None, True, unscaled_every=5))
    assert w.engine._internal_errors == 0, messages
    side_steps = sum(o.attempts for o in w.engine.optimizers.values() if o.attempts == STEPS // 5)
    assert side_steps == STEPS // 5, [o.attempts for o in w.engine.optimizers.values()]


def test_a_non_finite_scaled_loss_is_still_found():
    def back(t):
        if back.n == 25:
            t = t * float("nan")
        back.n += 1
        t.backward()

    back.n = 0
    w, messages = _watch()
    _train(w, True, backward=back)
    assert "LRD104" in {f.code for f in w.findings}, w.report()
    assert w.engine._internal_errors == 0, messages
