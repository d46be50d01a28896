"""NaN detection's CPU read of a tensor group (NonFinite._flag): one float32 sum per tensor,
taken with gradient mode off (no detach() per tensor) and put back as it was, whatever happens."""

from __future__ import annotations

import pytest
import torch

from lrdoctor.runtime.checks.nonfinite import NonFinite
from lrdoctor.runtime.engine import ROUTINE_PERIOD, Engine


def _check() -> NonFinite:
    return NonFinite(Engine(echo=lambda m: None))


@pytest.mark.parametrize("grad_on", [True, False])
def test_the_read_finds_nan_and_inf_and_leaves_gradient_mode_as_it_was(grad_on):
    check = _check()
    finite = torch.nn.Parameter(torch.ones(3, 4))
    with torch.set_grad_enabled(grad_on):
        assert check._flag(1, "params", [finite, torch.nn.Parameter(torch.zeros(5))]) is True
        assert torch.is_grad_enabled() is grad_on
        for bad in (float("nan"), float("inf"), -float("inf")):
            p = torch.nn.Parameter(torch.zeros(5))
            with torch.no_grad():
                p[2] = bad
            assert check._flag(1, "params", [finite, p]) is False
            assert torch.is_grad_enabled() is grad_on
    assert finite.grad_fn is None and not finite.grad  # nothing recorded for autograd


def test_low_precision_tensors_are_summed_in_float32():
    # two float16 values whose float16 sum overflows to inf: finite, and read as finite
    big = torch.full((2,), 60000.0, dtype=torch.float16)
    assert not torch.isfinite(big.sum())
    check = _check()
    assert check._flag(1, "params", [big, torch.ones(2)]) is True
    assert check._flag(1, "params", [torch.ones(2, dtype=torch.bfloat16), big]) is True


def test_gradient_mode_is_put_back_when_a_read_raises():
    class Broken(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            if func is torch.Tensor.sum:
                raise RuntimeError("no sum here")
            return super().__torch_function__(func, types, args, kwargs or {})

    broken = torch.zeros(3).as_subclass(Broken)
    check = _check()
    assert torch.is_grad_enabled()
    with pytest.raises(RuntimeError, match="no sum here"):
        check._flag(1, "params", [torch.ones(2), broken])
    assert torch.is_grad_enabled()


def test_periodic_parameter_check_in_a_watched_loop_keeps_autograd_working(run_script):
    # float32 parameters are read every ROUTINE_PERIOD-th step, from the optimizer's post-hook:
    # the gradient mode the user's code sees after each step is the one it had before
    ran = run_script(f"""
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 2)
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        modes = []
        for step in range(1, {2 * ROUTINE_PERIOD + 10}):
            opt.zero_grad()
            model(torch.randn(8, 4)).square().mean().backward()
            opt.step()
            modes.append(torch.is_grad_enabled())
            with torch.no_grad():
                opt.step()  # a second update in no_grad: the mode stays off inside
                modes.append(not torch.is_grad_enabled())
    """)
    assert len(ran.ns["modes"]) == 2 * (2 * ROUTINE_PERIOD + 9) and all(ran.ns["modes"])
    assert not ran.findings
