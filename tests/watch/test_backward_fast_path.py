"""The backward() hook's common case (a finite CPU scalar loss, nothing scaled, nothing armed)
is decided in a short path written first; everything else must reach the general path and be
decided exactly as before: these tests hold on both sides of that split."""

from __future__ import annotations

import pytest

import lrdoctor
from lrdoctor.runtime.events import Backward, BackwardDone

torch = pytest.importorskip("torch")

STEPS = 12


def _train(loss_of, watch, steps: int = STEPS, backward=None, setup=None) -> None:
    """A small CPU loop; ``loss_of(out, y, step)`` makes the tensor backward() is called on."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=100)
    xs, ys = torch.randn(steps, 2, 4), torch.randn(steps, 2, 1)
    with watch:
        if setup is not None:
            setup(watch.engine)
        for i in range(steps):
            opt.zero_grad()
            loss = loss_of(model(xs[i]), ys[i], i)
            if backward is None:
                loss.backward()
            else:
                backward(loss)
            opt.step()
            sched.step()


def _mse(out, y, step):
    return torch.nn.functional.mse_loss(out, y)


def _watch(**options):
    messages: list[str] = []
    return lrdoctor.watch(echo=messages.append, **options), messages


def test_finite_cpu_scalar_losses_make_no_backward_event():
    w, messages = _watch()
    _train(_mse, w)
    assert w.engine.routine_backwards_done == STEPS
    assert not w.findings, w.report()
    assert w.engine._internal_errors == 0, messages


def test_a_subscribed_backward_handler_sees_every_backward():
    w, messages = _watch()
    seen: list[Backward] = []
    _train(_mse, w, setup=lambda engine: engine.subscribe(Backward, seen.append))
    assert len(seen) == STEPS
    assert w.engine.routine_backwards_done == 0
    assert w.engine._internal_errors == 0, messages


def test_a_loss_with_one_element_but_one_dimension_takes_the_general_path():
    # shape (1,), not a scalar: not the routine case, so each backward makes an event
    w, messages = _watch()
    _train(lambda out, y, i: torch.nn.functional.mse_loss(out, y).reshape(1), w)
    assert w.engine.routine_backwards_done == 0
    assert not w.findings, w.report()
    assert w.engine._internal_errors == 0, messages


def test_backward_called_on_a_one_tensor_list_is_routine_as_before():
    w, messages = _watch()
    _train(_mse, w, backward=lambda loss: torch.autograd.backward([loss]))
    assert w.engine.routine_backwards_done == STEPS
    assert w.engine._internal_errors == 0, messages


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_a_non_finite_loss_is_still_found_at_its_step(bad):
    def loss_of(out, y, step):
        loss = torch.nn.functional.mse_loss(out, y)
        return loss * bad if step == 7 else loss

    w, messages = _watch()
    _train(loss_of, w)
    assert "LRD104" in {f.code for f in w.findings}, w.report()
    assert w.engine.routine_backwards_done < STEPS
    assert w.engine._internal_errors == 0, messages


def test_an_internal_error_in_the_routine_test_is_swallowed_and_training_goes_on():
    # the routine test reads the engine's backward route (kept by Engine.reroute_backward):
    # broken state there is reported once and never raised into the training loop
    class Broken:
        def __eq__(self, other):
            raise RuntimeError("broken on purpose")

        __hash__ = None

    def break_route(engine):
        engine.backward_route = Broken()

    w, messages = _watch()
    trained: list[int] = []
    _train(lambda out, y, i: trained.append(i) or torch.nn.functional.mse_loss(out, y), w, setup=break_route)
    assert trained == list(range(STEPS))  # every step trained
    assert w.engine._internal_errors >= 1
    assert sum("internal error" in m for m in messages) == 1  # reported once


def test_the_backward_route_follows_nan_detection_state():
    # the hook reads one attribute; every change of what it stands for recomputes it
    from lrdoctor.runtime.engine import ROUTE_EVENT, ROUTE_FREE, ROUTE_READ

    w, _ = _watch()
    seen = []
    _train(_mse, w, setup=lambda engine: seen.append(engine.backward_route))
    assert seen == [ROUTE_READ]  # NaN detection on and quiet: read the loss
    engine = w.engine
    nf = engine.loss_gate
    nf.arm_backward = True
    assert engine.backward_route == ROUTE_EVENT
    nf.arm_backward = False
    assert engine.backward_route == ROUTE_READ
    nf.eager_until = 10
    assert engine.backward_route == ROUTE_EVENT
    nf.eager_until = 0
    assert engine.backward_route == ROUTE_READ
    engine.subscribe(BackwardDone, print)
    assert engine.backward_route == ROUTE_EVENT
    engine.unsubscribe(BackwardDone, print)
    assert engine.backward_route == ROUTE_READ
    engine.loss_gate = None
    engine.reroute_backward()
    assert engine.backward_route == ROUTE_FREE


def test_an_unsubscribed_backward_handler_gives_the_common_case_back():
    # a handler that leaves (a check done with its warm-up) must not keep every later
    # backward() off the short path
    w, messages = _watch()
    seen: list[Backward] = []

    def subscribe_then_leave(engine):
        engine.subscribe(Backward, seen.append)
        engine.unsubscribe(Backward, seen.append)

    _train(_mse, w, setup=subscribe_then_leave)
    assert seen == []
    assert w.engine.routine_backwards_done == STEPS
    assert w.engine._internal_errors == 0, messages
