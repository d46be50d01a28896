"""The per-step state every hook reads (Engine.Lane, perf12): what the hooks used to read from
the engine, the NaN check and per-hook objects is kept on the lane, and kept right when it
changes. These tests hold the bookkeeping: the gate a backward() reads, the NaN check's
state mirrored for its module-call wrapper, and a token added to every_step closing the lane."""

from __future__ import annotations

import pytest

import lrdoctor
from lrdoctor.runtime.engine import CLOSED, GATE_EVENT, GATE_LOSS, GATE_NONE
from lrdoctor.runtime.events import Backward, BackwardDone

torch = pytest.importorskip("torch")


def _loop(steps: int, watch, between=None, loss_of=None):
    """A plain CPU loop (one optimizer, a per-batch scheduler, a DataLoader): the lane opens."""
    torch.manual_seed(0)
    data = torch.utils.data.TensorDataset(torch.randn(4 * steps, 4), torch.randn(4 * steps, 1))
    loader = torch.utils.data.DataLoader(data, batch_size=4)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0 / (1 + s))
    with watch:
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x), y)
            if loss_of is not None:
                loss = loss_of(loss, i)
            loss.backward()
            opt.step()
            sched.step()
            if between is not None:
                between(watch.engine, i)
    return model


def test_the_gate_follows_what_a_backward_needs():
    w = lrdoctor.watch(echo=lambda m: None).start()
    try:
        eng = w.engine
        nf = eng.loss_gate
        assert eng.lane.gate == GATE_LOSS  # NaN detection reads a finite CPU scalar loss
        nf.arm_backward = True
        assert eng.lane.gate == GATE_EVENT
        nf.arm_backward = False
        assert eng.lane.gate == GATE_LOSS
        nf.eager_until = 10
        assert eng.lane.gate == GATE_EVENT
        nf.eager_until = 0
        assert eng.lane.gate == GATE_LOSS

        def handler(ev):
            return None

        eng.subscribe(BackwardDone, handler)  # a handler for every backward(): none is routine
        assert eng.lane.gate == GATE_EVENT
        eng.unsubscribe(BackwardDone, handler)
        assert eng.lane.gate == GATE_LOSS
    finally:
        w.stop()


def test_without_nan_detection_every_unscaled_backward_is_routine_unless_a_handler_wants_it():
    w = lrdoctor.watch(nan_check=False, echo=lambda m: None).start()
    try:
        eng = w.engine
        assert eng.loss_gate is None and eng.lane.gate == GATE_NONE
        seen = []
        eng.subscribe(Backward, seen.append)
        assert eng.lane.gate == GATE_EVENT
        eng.unsubscribe(Backward, seen.append)
        assert eng.lane.gate == GATE_NONE
    finally:
        w.stop()


def test_the_nan_checks_state_is_mirrored_where_its_wrapper_reads_it():
    w = lrdoctor.watch(echo=lambda m: None).start()
    try:
        nf, lane = w.engine.loss_gate, w.engine.lane
        nf.grads_checked = False
        assert lane.nf_quick is True
        nf.grads_checked = True  # gradients kept for a backward replay: the general record
        assert lane.nf_quick is False
        nf.grads_checked = False
        nf.arm_backward = True  # outputs kept for an armed localization: the general record
        assert lane.nf_quick is False
        nf.arm_backward = False
        nf.learned = set()
        assert lane.nf_learning is True
        nf.learned = None
        assert lane.nf_learning is False
        nf.backwards_seen = 7
        assert lane.nf_seen == 7
        assert nf._calls is lane.nf_calls and nf._done_calls is lane.nf_done_calls
    finally:
        w.stop()


def test_a_token_added_while_the_lane_is_open_closes_it_and_keeps_every_step():
    counts = {}

    def add_token(eng, i):
        if i == 20:
            assert eng.lane.phase != CLOSED  # the lane is open by now
            eng.every_step.add("a check that wants every step")
            assert eng.lane.phase == CLOSED
            counts["at"] = eng.optimizers[next(iter(eng.optimizers))].attempts

    w = lrdoctor.watch(echo=lambda m: None)
    _loop(30, w, between=add_token)
    info = next(iter(w.engine.optimizers.values()))
    assert counts["at"] == 21  # the lane's steps tallied when the token came
    assert info.attempts == 30
    sched = next(iter(w.engine.schedulers.values()))
    assert sched.user_steps == 30


def test_routine_steps_count_backwards_on_the_lane_and_a_nan_is_still_found():
    def nan_at_25(loss, i):
        return loss * float("nan") if i == 25 else loss

    w = lrdoctor.watch(echo=lambda m: None)
    _loop(30, w, loss_of=nan_at_25)
    assert w.engine.routine_backwards_done >= 20
    codes = {f.code for f in w.findings}
    assert "LRD104" in codes
    f = next(f for f in w.findings if f.code == "LRD104")
    assert "step 26" in f.message
