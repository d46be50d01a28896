"""Floating-point facts and cheap finiteness flags.

Checking ``isfinite(t).all()`` on every tensor of every step would synchronize the device each
time. Instead a step contributes one float32 *sum* per tensor group (a NaN or inf anywhere makes
the sum non-finite), kept by reference in a :class:`FlagBook` and read in bulk: at once on CPU,
where reading is free, and on accelerators at a bounded interval or where PyTorch synchronizes
anyway (GradScaler's own update, epoch boundaries, the end of the run). A non-finite sum is
confirmed with an exact ``isfinite`` before anything is reported (a float32 sum of huge finite
values can overflow on its own).

>>> fmt_mag(71234.5)
'7.1e+04'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

FLOAT16_MAX = 65504.0
FLOAT16_TINY = 2.0**-24  # smallest positive subnormal, about 5.96e-8

# Ops that hand back uninitialized memory: their output is garbage until something writes it.
UNINITIALIZED_OPS = frozenset({"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
                               "empty_permuted"})


def fmt_mag(x: float) -> str:
    return f"{x:.2g}" if abs(x) < 1e4 else f"{x:.1e}"


def dtype_name(dtype: Any) -> str:
    return str(dtype).replace("torch.", "")


def dtype_max(dtype: Any) -> float | None:
    import torch

    try:
        return float(torch.finfo(dtype).max)
    except TypeError:
        return None


def is_float_tensor(t: Any) -> bool:
    import torch

    return isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex()) and t.numel() > 0


def all_finite(t: Any) -> bool:
    """Exact check (one synchronization); only used once something already tripped."""
    import torch

    if not is_float_tensor(t):
        return True
    try:
        return bool(torch.isfinite(t.detach()).all())
    except RuntimeError:  # meta tensors, sparse layouts
        return True


def nonfinite_summary(t: Any) -> dict[str, int]:
    """``{"nan": n, "inf": n, "numel": n}`` for one tensor (synchronizes)."""
    import torch

    d = t.detach()
    return {
        "nan": int(torch.isnan(d).sum()),
        "inf": int(torch.isinf(d).sum()),
        "numel": d.numel(),
    }


def describe_nonfinite(t: Any) -> str:
    s = nonfinite_summary(t)
    parts = []
    if s["nan"]:
        parts.append(f"{s['nan']} NaN")
    if s["inf"]:
        parts.append(f"{s['inf']} inf")
    return " and ".join(parts) + f" of {s['numel']} values"


def kind_of_nonfinite(t: Any) -> str:
    """``"NaN"`` if any NaN, else ``"inf"``/``"-inf"``/``"inf and -inf"``."""
    import torch

    d = t.detach()
    if bool(torch.isnan(d).any()):
        return "NaN"
    pos, neg = bool((d == math.inf).any()), bool((d == -math.inf).any())
    return "inf and -inf" if pos and neg else ("-inf" if neg else "inf")


def sum_flag(tensors: list[Any]) -> Any:
    """One float32 scalar tensor that is non-finite iff some tensor (probably) is; no sync.

    ``tensors`` must be floating point and non-empty.
    """
    import torch

    if len(tensors) == 1:
        return tensors[0].detach().sum(dtype=torch.float32)
    if not on_cpu(tensors[0]):
        # on an accelerator one fused multi-tensor kernel instead of a launch per tensor: the
        # float32 L2 norms carry NaN and inf just as well
        try:
            return torch.stack(torch._foreach_norm([t.detach() for t in tensors], 2,
                                                   dtype=torch.float32)).sum()
        except (RuntimeError, TypeError):  # mixed devices or layouts
            pass
    return torch.stack([t.detach().sum(dtype=torch.float32) for t in tensors]).sum()


def read_scalar(t: Any) -> float:
    return float(t.item()) if hasattr(t, "item") else float(t)


def on_cpu(t: Any) -> bool:
    return getattr(t, "is_cpu", True)


def eps_vanishes(eps: float, dtype: Any) -> bool:
    """Whether ``eps`` is below ``dtype``'s smallest subnormal (so adding it changes nothing
    where the rest is 0, and ``x / (0 + eps)`` is a division by zero)."""
    import torch

    try:
        tiny = float(torch.finfo(dtype).smallest_normal) * float(torch.finfo(dtype).eps)
    except TypeError:
        return False
    return 0.0 <= eps < tiny


@dataclass(slots=True)
class Flag:
    step: int
    what: str  # "loss", "params", "grads"
    value: Any  # a scalar tensor not read yet
    context: Any = None


class FlagBook:
    """Finiteness flags kept by reference and read in bulk.

    ``add`` returns the verdict at once when it costs nothing (a CPU tensor, or ``eager``);
    otherwise the flag waits and ``due`` says when ``drain`` should read them.
    """

    def __init__(self, interval: int = 64, eager: bool | None = None) -> None:
        self.interval = interval
        self.eager = eager  # None: decide per tensor (CPU reads at once)
        self.pending: list[Flag] = []

    def add(self, flag: Flag) -> bool | None:
        eager = self.eager if self.eager is not None else on_cpu(flag.value)
        if eager:
            return math.isfinite(read_scalar(flag.value))
        self.pending.append(flag)
        return None

    @property
    def due(self) -> bool:
        return len(self.pending) >= self.interval

    def drain(self) -> list[Flag]:
        """Read every pending flag (one synchronization); return the non-finite ones in order."""
        pending, self.pending = self.pending, []
        if not pending:
            return []
        import torch

        try:
            # one stack and one copy per device: a single synchronization each
            by_device: dict[Any, list[int]] = {}
            for i, f in enumerate(pending):
                by_device.setdefault(f.value.device, []).append(i)
            finite = [True] * len(pending)
            for indices in by_device.values():
                values = torch.stack([pending[i].value.reshape(()).float() for i in indices]).cpu()
                for i, ok in zip(indices, torch.isfinite(values).tolist()):
                    finite[i] = ok
        except Exception:
            finite = [math.isfinite(read_scalar(f.value)) for f in pending]
        return [f for f, ok in zip(pending, finite) if not ok]
