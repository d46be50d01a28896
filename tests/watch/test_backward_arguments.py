"""The backward() wrapper takes torch.autograd.backward's own parameters and forwards them as a
plain call (no ``*args, **kwargs`` packing on every step): each argument must reach torch as
given, by position or by keyword, on the routine path and on the general one, and a torch whose
backward() has other parameters gets a wrapper that forwards whatever it is given."""

from __future__ import annotations

import inspect

import pytest

import lrdoctor
from lrdoctor.runtime import amphooks

torch = pytest.importorskip("torch")


def _watch() -> tuple[lrdoctor.Watch, list[str]]:
    messages: list[str] = []
    return lrdoctor.watch(echo=messages.append), messages


def test_the_wrapper_takes_torchs_parameters_and_no_star_arguments():
    if not amphooks._has_params(torch.autograd.backward, amphooks._BACKWARD_PARAMS):
        pytest.skip("this torch's backward() has other parameters")
    original = torch.autograd.backward
    w, _ = _watch()
    with w:
        code = torch.autograd.backward.__code__
        assert "lrdoctor" in code.co_filename
        assert not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)
        assert code.co_varnames[:6] == tuple(name for name, _ in amphooks._BACKWARD_PARAMS)
        # what introspection says is torch's own signature
        assert inspect.signature(torch.autograd.backward) == inspect.signature(original)


def _grads(call, watched: bool, nan: bool = False) -> tuple[list, lrdoctor.Watch | None]:
    """Run ``call(loss, a, b)`` once on a small graph; the gradients of a and b after it."""
    torch.manual_seed(0)
    a = torch.randn(3, requires_grad=True)
    b = torch.randn(3, requires_grad=True)
    w = None
    if watched:
        w, _ = _watch()
        w.start()
    try:
        loss = (a * b).sum() * (float("nan") if nan else 1.0)
        call(loss, a, b)
    finally:
        if w is not None:
            w.stop()
    return [None if t.grad is None else t.grad.clone() for t in (a, b)], w


CALLS = {
    "plain": lambda loss, a, b: loss.backward(),
    "inputs": lambda loss, a, b: loss.backward(inputs=[a]),
    "positional": lambda loss, a, b: torch.autograd.backward(loss, torch.tensor(2.0), None, False, None, [b]),
    "keywords": lambda loss, a, b: torch.autograd.backward(tensors=[loss], grad_tensors=[torch.tensor(3.0)],
                                                           inputs=(a, b)),
    "retain_graph": lambda loss, a, b: (loss.backward(retain_graph=True), loss.backward()),
    "create_graph": lambda loss, a, b: torch.autograd.backward(loss, create_graph=True),
}


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True")
@pytest.mark.parametrize("how", list(CALLS))
def test_every_argument_reaches_torch_as_given(how):
    expected, _ = _grads(CALLS[how], watched=False)
    got, w = _grads(CALLS[how], watched=True)
    assert all((e is None and g is None) or torch.equal(e, g) for e, g in zip(expected, got)), (expected, got)
    assert w is not None and not w.findings, w.report()


@pytest.mark.filterwarnings(r"ignore:Using backward\(\) with create_graph=True")
def test_create_graph_is_forwarded():
    got, _ = _grads(lambda loss, a, b: torch.autograd.backward(loss, create_graph=True), watched=True)
    assert got[0] is not None and got[0].grad_fn is not None  # a graph of the gradient was made


def test_an_unknown_keyword_is_refused_as_torch_refuses_it():
    with pytest.raises(TypeError):
        _grads(lambda loss, a, b: torch.autograd.backward(loss, not_a_parameter=1), watched=False)
    with pytest.raises(TypeError):
        _grads(lambda loss, a, b: torch.autograd.backward(loss, not_a_parameter=1), watched=True)


def test_a_non_finite_loss_passed_by_keyword_is_found():
    _, w = _grads(lambda loss, a, b: torch.autograd.backward(tensors=loss, inputs=[a]), watched=True, nan=True)
    assert w is not None and any(f.code == "LRD104" for f in w.findings), w.report()


def test_a_backward_with_other_parameters_gets_the_forwarding_wrapper(monkeypatch):
    """Another torch (or a tool that replaced backward() before the watch started) whose
    backward() has other parameters: every call goes to the general path, which decides as
    before and forwards exactly what it was given."""
    original = torch.autograd.backward
    seen: list[tuple] = []

    def backward(tensors, *args, extra=None, **kwargs):  # not torch's parameters
        seen.append((args, extra, kwargs))
        return original(tensors, *args, **kwargs)

    monkeypatch.setattr(torch.autograd, "backward", backward)
    assert not amphooks._has_params(backward, amphooks._BACKWARD_PARAMS)
    w, messages = _watch()
    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with w:
        assert torch.autograd.backward is not backward
        assert torch.autograd.backward.__code__.co_flags & inspect.CO_VARKEYWORDS
        for step in range(6):
            opt.zero_grad()
            loss = model(torch.randn(2, 4)).pow(2).mean()
            if step == 4:
                loss = loss * float("nan")
            torch.autograd.backward(loss, None, extra="x", retain_graph=False)
            opt.step()
    assert seen == [((None,), "x", {"retain_graph": False})] * 6
    assert w.engine.routine_backwards_done == 4  # decided by the general path, as routine
    assert [f.code for f in w.findings if f.code == "LRD104"] == ["LRD104"], w.report()
    assert w.engine._internal_errors == 0, messages
