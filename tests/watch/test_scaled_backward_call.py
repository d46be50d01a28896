"""A backward() of a scaled loss outside the lane goes through the backward hook's general path
(only the lane's routine scaled backward is decided in the wrapper itself, which calls torch
plainly too). That path hands torch the arguments the wrapper took
(torch.autograd.backward's own five) as a plain call, not a star call that builds a list, a
tuple and a dict each step; what torch is given must be exactly what the user passed."""

from __future__ import annotations

import dis
import sys

import pytest

import lrdoctor

torch = pytest.importorskip("torch")


def _backward_of(torch_backward):
    """A stand-in for torch.autograd.backward with its parameters (so that the wrapper with
    torch's parameters is used), which notes how its caller called it and what it got."""
    calls: list[tuple[str, tuple]] = []

    def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
                 grad_variables=None, inputs=None):
        caller = sys._getframe(1)
        # the instruction being executed: the last one at or before f_lasti (a CALL's inline
        # caches follow it, and f_lasti may point at the last of them)
        op = [i.opname for i in dis.get_instructions(caller.f_code) if i.offset <= caller.f_lasti][-1]
        calls.append((op, (grad_tensors, retain_graph, create_graph, grad_variables, inputs)))
        return torch_backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)

    return backward, calls


def _scaled_steps(w, keep: list) -> None:
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 8)
    x, y = torch.randn(8, 4), torch.randn(8, 1)
    with w:
        for _ in range(3):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.float16):
                loss = torch.nn.functional.mse_loss(model(x).float(), y)
            scaled = scaler.scale(loss)
            scaled.backward(retain_graph=True)
            keep.append(model.weight.grad.clone())
            scaled.backward(inputs=[model.bias])  # the bias' gradient accumulates, the weight's not
            keep.append(model.bias.grad.clone())
            scaler.step(opt)
            scaler.update()


def test_a_scaled_backward_reaches_torch_as_a_plain_call_with_what_was_passed(monkeypatch):
    stand_in, calls = _backward_of(torch.autograd.backward)
    monkeypatch.setattr(torch.autograd, "backward", stand_in)
    watched: list = []
    w = lrdoctor.watch(echo=lambda m: None)
    _scaled_steps(w, watched)
    assert w.engine._internal_errors == 0
    assert len(calls) == 6
    # Tensor.backward passes (gradient, retain_graph, create_graph, inputs=...): torch's
    # autograd.backward gets them in its own order
    assert [c[1][1] for c in calls] == [True, None] * 3
    assert all(c[1][4] is None for c in calls[::2]) and all(len(c[1][4]) == 1 for c in calls[1::2])
    assert {op for op, _ in calls} == {"CALL"}, calls
    calls.clear()
    plain: list = []
    _scaled_steps(lrdoctor.watch(checks=()), plain)  # no backward hook: torch's own path
    assert all(torch.equal(a, b) for a, b in zip(watched, plain)) and len(plain) == len(watched)
