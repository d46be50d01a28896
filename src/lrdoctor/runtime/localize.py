"""Find the first op that turned finite values into NaN/inf, in which module, and why.

The normal path costs nothing here: :mod:`lrdoctor.runtime.checks.nonfinite` keeps, for each
top-level module call of the current step, the module, its arguments by reference and the RNG
state before it. When a cheap flag trips, :func:`replay` re-runs those calls under
:class:`OpChecker`, a dispatch mode that checks the inputs and outputs of every op, with the RNG
restored to its state before the original call (and put back after) and on copies of the module
buffers (BatchNorm's running statistics), so the originals, which the user's own backward may
have saved, keep their values and version counters. The backward pass is replayed with
``torch.autograd.grad`` from the gradient that reached the module's output, which never touches
``.grad``. ``--nan-trace`` keeps the same checker on for every op of every step instead.

Ops outside any module (a hand-written loss) are checked on the autograd graph of the loss
before its backward runs: each node's saved tensors show whether it turned finite inputs into a
non-finite result (:func:`walk_loss_graph`).
"""

from __future__ import annotations

import contextlib
import linecache
import math
import re
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lrdoctor.runtime.callsite import display_path, user_frame
from lrdoctor.runtime.numerics import (
    UNINITIALIZED_OPS,
    all_finite,
    dtype_max,
    dtype_name,
    fmt_mag,
    is_float_tensor,
    kind_of_nonfinite,
)

Site = tuple[str, int]
LABEL = "lrdoctor_module"

LOG_OPS = frozenset({"log", "log_", "log2", "log2_", "log10", "log10_", "log1p", "log1p_", "xlogy",
                     "special_xlog1py"})
DIV_OPS = frozenset({"div", "div_", "true_divide", "true_divide_", "addcdiv", "addcdiv_",
                     "_foreach_addcdiv", "_foreach_addcdiv_", "_foreach_div", "_foreach_div_"})
RECIP_OPS = frozenset({"reciprocal", "reciprocal_", "rsqrt", "rsqrt_"})
# Ops whose outputs are finite whenever their inputs are (views, copies within a dtype, max,
# masking, indexing): their outputs are not checked, only marked. Casts (``_to_copy``,
# ``copy_`` across dtypes) are not here: float32 -> float16 overflows.
FINITE_PRESERVING = frozenset({
    "view", "_unsafe_view", "reshape", "_reshape_alias", "t", "transpose", "permute", "expand",
    "squeeze", "unsqueeze", "select", "slice", "alias", "detach", "clone", "contiguous", "flatten",
    "view_as", "as_strided", "split", "split_with_sizes", "chunk", "unbind", "cat", "stack",
    "relu", "relu_", "threshold_backward", "max_pool2d_with_indices",
    "max_pool2d_with_indices_backward", "embedding", "index_select", "gather", "zeros_like",
    "ones_like", "zero_", "fill_", "new_zeros", "new_ones", "zeros", "ones", "full", "arange",
    "scalar_tensor", "lift_fresh", "lift_fresh_copy", "_to_dim_order_copy", "unsafe_split",
    "native_dropout", "native_dropout_backward", "split_with_sizes_copy", "unbind_copy",
})
# In-place ops that replace their destination without reading it.
OVERWRITING = frozenset({"copy_", "fill_", "zero_", "normal_", "uniform_", "bernoulli_", "random_",
                         "exponential_", "geometric_", "cauchy_", "log_normal_", "set_"})
SQRT_OPS = frozenset({"sqrt", "sqrt_", "_foreach_sqrt", "_foreach_sqrt_"})
# Ops that write a constant: given a non-finite constant (``masked_fill(mask, -inf)``, the
# normal attention mask, ``torch.where(mask, x, -inf)``, ``torch.full(..., -inf)``), their
# non-finite output is made on purpose, not an origin. What is computed from it is judged on:
# softmax turning it back into finite weights is normal; an op turning it into NaN (a fully
# masked row) is the origin.
FILL_OPS = frozenset({"masked_fill", "fill", "full", "full_like", "new_full", "where", "index_fill",
                      "scalar_tensor", "masked_scatter", "index_put", "lift_fresh", "lift_fresh_copy"})


@dataclass
class Culprit:
    """The first op whose output turned non-finite from finite inputs (or the named source
    of a non-finite input)."""

    phase: str  # "forward", "backward", "optimizer", "loss" (outside modules), "input"
    op: str  # aten op ("log", "addmm") or the source ("parameter")
    kind: str  # "NaN", "inf", "-inf"
    reason: str
    module: str | None = None  # qualified name, e.g. "model.encoder.layers.3.attn"
    module_type: str | None = None  # "Linear"
    site: Site | None = None
    node: str | None = None  # autograd node for backward ops ("LogBackward0")
    evidence: dict[str, Any] = field(default_factory=dict)
    then: str | None = None  # what turned it into NaN next (inf - inf)

    def describe(self) -> str:
        if self.phase == "input":
            return self.reason
        where = f"`{self.module}` ({self.module_type})" if self.module and self.module_type else (
            f"`{self.module}`" if self.module else "")
        op = f"`{self.op}`"
        if self.phase == "backward":
            fwd = _forward_name(self.node)
            what = f"the backward of {fwd} ({op} in {self.node})" if fwd else f"{op} in the backward pass"
            text = f"{what}{' in ' + where if where else ''} produced {self.kind}"
        elif self.phase == "optimizer":
            text = f"the optimizer step's {op}{' on ' + where if where else ''} produced {self.kind}"
        elif self.phase == "loss":
            text = f"{op} in the loss computation produced {self.kind}"
        else:
            text = f"{where} produced {self.kind} in {op}" if where else f"{op} produced {self.kind}"
        text += f": {self.reason}"
        if self.then:
            text += f"; then {self.then}"
        return text


def _forward_name(node: str | None) -> str | None:
    if not node:
        return None
    m = re.match(r"(\w+?)Backward\d*$", node)
    if not m:
        return None
    return "`" + re.sub(r"(?<!^)(?=[A-Z])", "_", m.group(1)).lower() + "`"


# ---- reasons -------------------------------------------------------------------------------


def _first_tensor(args: Any) -> Any:
    for a in _flat(args):
        if is_float_tensor(a):
            return a
    return None


def _count(mask: Any) -> int:
    return int(mask.sum())


def _underflow_note(t: Any) -> str:
    import torch

    if t.dtype in (torch.float16, torch.bfloat16):
        tiny = float(torch.finfo(t.dtype).smallest_normal) * float(torch.finfo(t.dtype).eps)
        return f" (in {dtype_name(t.dtype)} anything below {tiny:.2g} rounds to 0)"
    return ""


def explain(func: Any, op: str, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> tuple[str, dict[str, Any]]:
    """Why ``func(*args)`` turned finite inputs into the non-finite ``result``."""
    import torch

    kind = kind_of_nonfinite(result)
    base = op.rstrip("_").replace("_foreach_", "")
    tensors = [a for a in _flat(args) if isinstance(a, torch.Tensor)]
    try:
        if op in LOG_OPS and tensors:
            x = tensors[-1] if op == "xlogy" else tensors[0]
            zeros, neg = _count(x == 0), _count(x < 0)
            if zeros and "inf" in kind:
                are = "is" if zeros == 1 else "are"
                return (f"log of 0: {zeros} of its {x.numel()} inputs {are} exactly 0{_underflow_note(x)}",
                        {"zeros": zeros})
            if neg:
                return f"log of a negative number ({neg} negative inputs)", {"negative": neg}
        if op in SQRT_OPS and tensors and kind == "NaN":
            neg = _count(tensors[0] < 0)
            if neg:
                return f"sqrt of a negative number ({neg} negative inputs)", {"negative": neg}
        if (op in DIV_OPS or op in RECIP_OPS) and tensors:
            num: Any
            den: Any
            if op in RECIP_OPS:
                num, den = None, tensors[0]
            elif base in ("addcdiv",):
                num, den = tensors[1] if len(tensors) > 2 else None, tensors[-1]
            else:
                num, den = tensors[0], tensors[1] if len(tensors) > 1 else None
            if den is not None:
                zero = den == 0
                zeros = _count(zero)
                if zeros:
                    if num is not None and kind == "NaN":
                        both = _count(zero & (num == 0)) if num.shape == den.shape or num.dim() == 0 else 0
                        if both:
                            return (f"0/0: {both} elements divide 0 by 0{_underflow_note(den)}",
                                    {"zero_over_zero": both})
                    are = "divisor is" if zeros == 1 else "divisors are"
                    return (f"division by zero: {zeros} {are} exactly 0{_underflow_note(den)}",
                            {"zero_divisors": zeros})
    except Exception:
        pass
    # overflow: recompute in a wider type to see how large the value really was
    out_dtype = result.dtype
    limit = dtype_max(out_dtype)
    mag = _wide_magnitude(func, args, kwargs, out_dtype)
    if mag is not None and limit is not None and mag > limit:
        return (f"its output exceeded {dtype_name(out_dtype)}'s maximum {limit:g} "
                f"(largest |x| before the cast: {fmt_mag(mag)})", {"max_abs": mag, "dtype_max": limit})
    if mag is not None and math.isfinite(mag):
        top = f", {dtype_name(out_dtype)}'s maximum {limit:g}" if limit is not None else ""
        return (f"an intermediate value overflowed {dtype_name(out_dtype)} inside `{op}` (computed in "
                f"a wider type the result is finite, largest |x| {fmt_mag(mag)}{top})",
                {"max_abs": mag, "dtype_max": limit})
    if mag is not None and not math.isfinite(mag) and "inf" in kind:
        return "overflow: the result is infinite even in float64", {}
    return f"`{op}` produced {kind} from finite inputs", {}


def _wide_magnitude(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], dtype: Any) -> float | None:
    """Largest |x| of ``func`` recomputed in a wider float type (None if not recomputable)."""
    import torch

    if torch.Tag.nondeterministic_seeded in getattr(func, "tags", ()):
        return None  # recomputing would consume random numbers
    if any(getattr(a, "is_out", False) for a in func._schema.arguments) or "out" in kwargs:
        return None
    wide = torch.float64 if dtype in (torch.float32, torch.float64) else torch.float32

    def up(a: Any) -> Any:
        if isinstance(a, torch.Tensor) and a.is_floating_point():
            return a.detach().to(wide, copy=True)
        if isinstance(a, (list, tuple)):
            return type(a)(up(x) for x in a)
        return a

    try:
        with torch.no_grad():
            out = func(*up(args), **{k: up(v) for k, v in kwargs.items() if k != "dtype"})
        t = _first_tensor(out)
        if t is None:
            return None
        t = t.detach().abs()
        finite = t[torch.isfinite(t)]
        if not bool(torch.isfinite(t).all()):
            return math.inf
        return float(finite.max()) if finite.numel() else None
    except Exception:
        return None


def _nan_from_inf(op: str, inputs: list[Any]) -> str:
    base = op.rstrip("_")
    if base in ("sub", "add", "rsub") or "softmax" in base or "sum" in base or "mean" in base:
        return f"`{op}` turned inf into NaN (inf - inf)"
    if base in ("mul", "mm", "addmm", "bmm", "matmul"):
        return f"`{op}` turned inf into NaN (inf * 0)"
    if base in ("div",):
        return f"`{op}` turned inf into NaN (inf / inf)"
    return f"`{op}` turned inf into NaN"


# ---- the checker ----------------------------------------------------------------------------


def _flat(x: Any) -> Iterator[Any]:
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flat(y)
    elif isinstance(x, dict):
        for y in x.values():
            yield from _flat(y)
    else:
        yield x


class Tracer:
    """Module-call context for the checker: which module runs now, how modules and parameters
    are named, and which autograd node belongs to which module."""

    def __init__(self) -> None:
        self._active = False
        # told when ``active`` changes (NonFinite.install: the module-call wrapper that tracks
        # modules is put in place only while the tracer is active)
        self.on_active: Callable[[bool], None] | None = None
        self.phase = "forward"
        self.stack: list[Any] = []
        self.roots: list[tuple[Any, str]] = []  # (module, how the user calls it)
        self._names: dict[int, str] = {}
        self._param_names: dict[int, str] = {}
        self._named_roots: set[int] = set()

    @property
    def active(self) -> bool:
        """Whether module calls are tracked (a replay, or --nan-trace)."""
        return self._active

    @active.setter
    def active(self, on: bool) -> None:
        changed = on != self._active
        self._active = on
        if changed and self.on_active is not None:
            self.on_active(on)

    def call(self, original: Any, module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if not self.stack and id(module) not in self._named_roots:
            self.add_root(module, None)
        self.stack.append(module)
        try:
            out = original(module, *args, **kwargs)
        finally:
            self.stack.pop()
        try:
            self._label(module, out)
        except Exception:
            pass
        return out

    def _label(self, module: Any, out: Any) -> None:
        """Tag the autograd nodes this call created with the module (innermost call first)."""
        todo = [t.grad_fn for t in _flat(out) if getattr(t, "grad_fn", None) is not None]
        seen = 0
        while todo and seen < 100_000:
            node = todo.pop()
            if node is None:
                continue
            meta = node.metadata
            if LABEL in meta or type(node).__name__ == "AccumulateGrad":
                continue
            meta[LABEL] = weakref.ref(module)
            seen += 1
            todo.extend(n for n, _ in node.next_functions if n is not None)

    def add_root(self, module: Any, label: str | None) -> None:
        if id(module) in self._named_roots:
            return
        self._named_roots.add(id(module))
        label = label or _var_name(module) or type(module).__name__
        self.roots.append((module, label))
        for name, sub in module.named_modules():
            self._names.setdefault(id(sub), f"{label}.{name}" if name else label)
        for name, p in module.named_parameters():
            self._param_names.setdefault(id(p), f"{label}.{name}")
        for name, b in module.named_buffers():
            self._param_names.setdefault(id(b), f"{label}.{name} (buffer)")

    def name_of(self, module: Any) -> str:
        return self._names.get(id(module)) or type(module).__name__

    def param_name(self, t: Any) -> str | None:
        return self._param_names.get(id(t))

    def current(self) -> Any:
        return self.stack[-1] if self.stack else None


def _var_name(obj: Any) -> str | None:
    """The name the user's code gives ``obj`` (``model``), found in the user's frames."""
    frame = user_frame(2)
    hops = 0
    while frame is not None and hops < 20:
        for scope in (frame.f_locals, frame.f_globals):
            for k, v in scope.items():
                if v is obj and k != "self" and not k.startswith("_"):
                    return k
        frame = frame.f_back
        hops += 1
    return None


def _checker_base() -> type:
    from torch.utils._python_dispatch import TorchDispatchMode

    return TorchDispatchMode


def make_checker(tracer: Tracer) -> Any:
    """A dispatch mode that finds the first op turning finite inputs into NaN/inf."""
    import torch

    class OpChecker(_checker_base()):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.culprit: Culprit | None = None
            self.bad_input: Culprit | None = None  # a non-finite value that came from outside
            self.done = False
            self._finite: dict[int, tuple[Any, int, bool]] = {}  # id -> (ref, version, finite)
            self._uninit: dict[int, str] = {}  # data_ptr -> op that allocated it
            # id -> (ref, version, fill op): tensors non-finite on purpose (see FILL_OPS)
            self._intended: dict[int, tuple[Any, int, str]] = {}
            self.ops = 0

        def reset(self) -> None:
            self.culprit = self.bad_input = None
            self.done = False
            self._uninit.clear()
            self._finite.clear()
            self._intended.clear()

        def intended(self, t: Any) -> str | None:
            """The fill op that made ``t`` non-finite on purpose, if it was one."""
            entry = self._intended.get(id(t))
            if entry is None and getattr(t, "_base", None) is not None:
                entry = self._intended.get(id(t._base))
                if entry is not None and entry[0]() is t._base:
                    return entry[2]
                return None
            if entry is not None and entry[0]() is t and entry[1] == t._version:
                return entry[2]
            return None

        def intend(self, t: Any, fill: str) -> None:
            try:
                self._intended[id(t)] = (weakref.ref(t), t._version, fill)
            except TypeError:
                pass

        def _constant_fill(self, op: str, args: Any, kwargs: Any) -> bool:
            """``op`` writes a non-finite constant: a Python number or a one-element tensor."""
            if op.rstrip("_") not in FILL_OPS:
                return False
            for a in _flat([args, kwargs]):
                if isinstance(a, float) and not math.isfinite(a):
                    return True
                if (isinstance(a, torch.Tensor) and a.is_floating_point() and a.numel() == 1
                        and not self.finite(a)):
                    return True
            return False

        def finite(self, t: Any, fresh: bool = False) -> bool:
            # ``fresh`` for an op's results: an in-place op's version counter is bumped only
            # after the dispatch returns, so a cached verdict for it would be stale
            entry = None if fresh else self._finite.get(id(t))
            if entry is not None and entry[0]() is t and entry[1] == t._version:
                return entry[2]
            try:
                # one reduction, no boolean mask: NaN and inf survive a float32 sum; a sum that
                # overflows on its own is told apart by the exact check
                ok = math.isfinite(float(t.detach().sum(dtype=torch.float32)))
            except (RuntimeError, TypeError):
                ok = True
            if not ok:
                ok = all_finite(t)
            self.mark(t, ok)
            return ok

        def mark(self, t: Any, ok: bool) -> None:
            try:
                self._finite[id(t)] = (weakref.ref(t), t._version, ok)
            except TypeError:
                pass

        def __torch_dispatch__(self, func: Any, types: Any, args: tuple[Any, ...] = (), kwargs: Any = None) -> Any:
            kwargs = kwargs or {}
            if self.done or tracer.phase == "optimizer":
                # the optimizer's ops are covered by the per-step parameter check and its diagnosis
                return func(*args, **kwargs)
            self.ops += 1
            op = func.overloadpacket.__name__
            if op in UNINITIALIZED_OPS:
                out = func(*args, **kwargs)
                for t in _flat(out):
                    if isinstance(t, torch.Tensor):
                        self._uninit[t.data_ptr()] = op
                return out
            schema = func._schema.arguments
            out_names = {a.name for a in schema if a.is_out}
            written = [a.name for a in schema if a.alias_info is not None and a.alias_info.is_write]
            # what the op reads: not its out= arguments, nor what an overwriting op (copy_,
            # fill_) is about to replace
            skip = out_names | (set(written) if op in OVERWRITING else set())
            inputs = [t for a, s in zip(args, schema) if s.name not in skip
                      for t in _flat(a) if is_float_tensor(t)]
            inputs += [t for k, v in kwargs.items() if k not in skip for t in _flat(v) if is_float_tensor(t)]
            bad = [t for t in inputs if not self.finite(t)]
            if self._constant_fill(op, args, kwargs) and all(self.intended(t) or t.numel() == 1
                                                             for t in bad):
                # a mask filled with -inf on purpose: not an origin (see FILL_OPS)
                out = func(*args, **kwargs)
                results = [t for t in _flat(out) if is_float_tensor(t)]
                if op.endswith("_"):
                    results += [t for t in _flat(args[:1]) if is_float_tensor(t)]
                for r in results:
                    if not self.finite(r, fresh=True):
                        self.intend(r, op.rstrip("_"))
                return out
            fills = [self.intended(t) for t in bad]
            if bad and all(fills):
                return self._from_intended(func, op, args, kwargs, bad, fills)
            before = args
            if written and not bad and not out_names and op not in FINITE_PRESERVING:
                # an in-place op overwrites its input: keep it to explain the result
                names = set(written)
                before = tuple(a.detach().clone() if s.name in names and isinstance(a, torch.Tensor) else a
                               for a, s in zip(args, schema)) + tuple(args[len(schema):])
            out = func(*args, **kwargs)
            if not bad and op in FINITE_PRESERVING:
                for t in _flat(out):
                    if is_float_tensor(t):
                        self.mark(t, True)
                return out
            results = [t for t in _flat(out) if is_float_tensor(t)]
            if written:
                by_name = dict(zip((a.name for a in schema), args))
                by_name.update(kwargs)
                results += [t for n in written for t in _flat(by_name.get(n)) if is_float_tensor(t)]
                for t in _flat([by_name.get(n) for n in written]):
                    if isinstance(t, torch.Tensor):
                        self._uninit.pop(t.data_ptr(), None)
            if not bad:
                for r in results:
                    if not self.finite(r, fresh=True):
                        self._blame(func, op, before, kwargs, r)
                        break
            else:
                if self.bad_input is None and self.culprit is None:
                    self.bad_input = self._source_of(op, bad)
                if self.culprit is not None and self.culprit.then is None and self.culprit.kind != "NaN":
                    if any(kind_of_nonfinite(r) == "NaN" for r in results if not self.finite(r, fresh=True)):
                        self.culprit.then = _nan_from_inf(op, bad) + self._where()
                if self.culprit is not None and self.culprit.then is not None:
                    self.done = True
            return out

        def _from_intended(self, func: Any, op: str, args: Any, kwargs: Any, bad: list[Any],
                           fills: list[Any]) -> Any:
            """An op whose only non-finite inputs were filled on purpose: finite results are the
            normal case (softmax over a mask), inf carried along stays intended, NaN made from
            it is the origin (a row masked everywhere)."""
            out = func(*args, **kwargs)
            results = [t for t in _flat(out) if is_float_tensor(t)]
            if op.endswith("_"):
                results += [t for t in _flat(args[:1]) if is_float_tensor(t)]
            had_nan = any("NaN" in kind_of_nonfinite(t) for t in bad)
            for r in results:
                if self.finite(r, fresh=True):
                    continue
                if "NaN" in kind_of_nonfinite(r) and not had_nan and self.culprit is None:
                    reason = (f"{_nan_from_inf(op, bad)}: the inf came from `{fills[0]}`, a fill "
                              f"made on purpose (a mask), and every value it combined was filled")
                    self._blame(func, op, args, kwargs, r, reason=reason)
                    break
                self.intend(r, fills[0])
            return out

        def _where(self) -> str:
            mod = tracer.current()
            node: Any = torch._C._current_autograd_node()
            if node is not None:
                ref = node.metadata.get(LABEL)
                mod = ref() if ref is not None else None
            return f" in `{tracer.name_of(mod)}`" if mod is not None else ""

        def _blame(self, func: Any, op: str, args: Any, kwargs: Any, result: Any,
                   reason: str | None = None) -> None:
            if self.culprit is not None:
                return
            if reason is None:
                reason, evidence = explain(func, op, args, kwargs, result)
            else:
                evidence = {"from_fill": True}
            node: Any = torch._C._current_autograd_node()
            phase = "backward" if node is not None else tracer.phase
            module = None
            if node is not None:
                ref = node.metadata.get(LABEL)
                module = ref() if ref is not None else None
            elif phase == "forward":
                module = tracer.current()
            site = None
            name = tracer.name_of(module) if module is not None else None
            mtype = type(module).__name__ if module is not None else None
            if phase == "optimizer":
                for a in _flat(args):
                    pname = tracer.param_name(a) if isinstance(a, torch.Tensor) else None
                    if pname:
                        name, mtype = pname, None
                        break
            if phase != "backward":
                frame = user_frame(3)
                if frame is not None:
                    site = (frame.f_code.co_filename, frame.f_lineno)
            self.culprit = Culprit(phase, op, kind_of_nonfinite(result), reason, name, mtype, site,
                                   type(node).__name__ if node is not None else None, evidence)
            if self.culprit.kind == "NaN":
                self.done = True

        def _source_of(self, op: str, bad: list[Any]) -> Culprit:
            t = bad[0]
            kind = kind_of_nonfinite(t)
            alloc = self._uninit.get(t.data_ptr())
            if alloc is not None:
                return Culprit("forward", op, kind, f"`{op}` read uninitialized memory from `{alloc}` "
                               f"(garbage that happens to be {kind})", *self._module_of())
            pname = tracer.param_name(t)
            if pname is None and t._base is not None:
                pname = tracer.param_name(t._base)
            if pname is not None:
                return Culprit("input", "parameter", kind, f"{kind} input propagated from parameter "
                               f"`{pname}`", pname, None, evidence={"parameter": pname})
            name, mtype = self._module_of()
            where = f" of `{name}`" if name else ""
            return Culprit("input", op, kind, f"a {kind} value reached `{op}`{where} from outside "
                           f"(the batch, a buffer or an earlier step)", name, mtype)

        def _module_of(self) -> tuple[str | None, str | None]:
            mod = tracer.current()
            if mod is None:
                return None, None
            return tracer.name_of(mod), type(mod).__name__

    return OpChecker()


# ---- replay ---------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)
class Call:
    """One top-level module call of the current step, enough to run it again (made on every
    top-level call: kept small)."""

    module: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    rng: Any  # CPU generator state before the call (None if its forward draws none)
    device_rng: Any = None  # (device type, state) of the accelerator generator, if in use
    site: Site | None = None
    autocast: tuple[tuple[str, Any], ...] = ()  # (device type, dtype) autocast was on for
    output_nodes: frozenset[int] | set[int] = frozenset()  # ids of the outputs' grad_fn
    strong: Any = None  # the outputs themselves, kept only while a localization is armed
    grad_outputs: Any = None  # the gradient that reached the outputs (captured in backward)


def _restore_rng(torch: Any, call: Call) -> None:
    if call.rng is not None:  # None: the call draws no random numbers (see NonFinite.install)
        torch.set_rng_state(call.rng)
    if call.device_rng is not None:
        torch.cuda.set_rng_state(call.device_rng)


_WRAPPERS = frozenset({"DistributedDataParallel", "DataParallel"})


def replayable(module: Any) -> Any:
    """The module to run again: never a DDP/DataParallel wrapper (its forward prepares the
    gradient reduction of the next backward, and DataParallel scatters across devices), never a
    ``torch.compile`` wrapper (the replay runs eagerly under the checker)."""
    for _ in range(4):
        inner = getattr(module, "_orig_mod", None)
        if inner is None and type(module).__name__ in _WRAPPERS:
            inner = getattr(module, "module", None)
        if inner is None:
            return module
        module = inner
    return module


def replay(calls: list[Call], tracer: Tracer, checker: Any, backward: bool = False) -> Culprit | None:
    """Re-run ``calls`` (and, with ``backward``, their backward from the captured output
    gradients) under ``checker``; restore RNG and buffers. Returns the culprit, if any."""
    import torch

    if not calls:
        return None
    saved_rng = torch.get_rng_state()
    saved_dev = torch.cuda.get_rng_state() if torch.cuda.is_initialized() else None
    # The replay runs on copies of the buffers it may mutate (BatchNorm's running statistics):
    # writing the originals back would bump their version counters and break the user's own
    # backward, which saved them.
    swapped: list[tuple[dict[str, Any], str, Any]] = []
    seen: set[int] = set()
    for call in calls:
        for mod in call.module.modules():
            if id(mod) in seen:
                continue
            seen.add(id(mod))
            for name, buf in list(mod._buffers.items()):
                if buf is not None:
                    swapped.append((mod._buffers, name, buf))
                    mod._buffers[name] = buf.detach().clone()
    tracer.active = True
    tracer.phase = "forward"
    checker.reset()
    try:
        for call in calls:
            tracer.add_root(call.module, None)
            _restore_rng(torch, call)
            with contextlib.ExitStack() as amp:
                for device_type, dtype in call.autocast:
                    amp.enter_context(torch.autocast(device_type, dtype=dtype))
                with torch.enable_grad(), checker:
                    out = tracer.call(_original_call(), replayable(call.module), call.args, call.kwargs)
                    if checker.culprit is None and backward and call.grad_outputs is not None:
                        outs = [t for t in _flat(out) if isinstance(t, torch.Tensor) and t.requires_grad]
                        grads = list(_flat(call.grad_outputs))
                        params = [p for p in replayable(call.module).parameters() if p.requires_grad]
                        if outs and params and len(outs) == len(grads):
                            torch.autograd.grad(outs, params, grads, allow_unused=True)
            if checker.culprit is not None:
                if checker.culprit.site is None:
                    checker.culprit.site = call.site  # a backward op: the line that ran its forward
                break
    finally:
        tracer.active = False
        tracer.stack.clear()
        for owner, name, buf in swapped:
            owner[name] = buf
        torch.set_rng_state(saved_rng)
        if saved_dev is not None:
            torch.cuda.set_rng_state(saved_dev)
    return checker.culprit or checker.bad_input


_ORIGINAL_CALL: list[Any] = []


def _original_call() -> Any:
    import torch

    return _ORIGINAL_CALL[0] if _ORIGINAL_CALL else torch.nn.Module.__call__


# ---- the loss code, outside modules ---------------------------------------------------------

_RESULT_OPS = ("Sigmoid", "Softmax", "LogSoftmax", "Exp", "Sqrt", "Rsqrt", "Reciprocal", "Tanh",
               "Pow", "Expm1")


def _saved(node: Any, name: str) -> Any:
    try:
        return getattr(node, name)
    except (AttributeError, RuntimeError):  # not saved, or freed by an earlier backward
        return None


def _recompute(name: str, node: Any) -> tuple[str, Any, list[Any]] | None:
    """(op, result, inputs) for a node whose forward can be recomputed from saved tensors."""
    import torch

    s, o = _saved(node, "_saved_self"), _saved(node, "_saved_other")
    if name in ("Log", "Log2", "Log10", "Log1p") and s is not None:
        fn = {"Log": torch.log, "Log2": torch.log2, "Log10": torch.log10, "Log1p": torch.log1p}[name]
        return name.lower(), fn(s), [s]
    if name == "Div" and s is not None and o is not None:
        return "div", s / o, [s, o]
    if name == "Mul" and s is not None and o is not None:
        return "mul", s * o, [s, o]
    if name == "Pow":
        e = _saved(node, "_saved_exponent")
        if s is not None and e is not None:
            return "pow", torch.pow(s, e), [s]
    r = _saved(node, "_saved_result")
    if r is not None and isinstance(r, torch.Tensor):
        ins = [t for t in (s, o) if isinstance(t, torch.Tensor)]
        return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower(), r, ins
    return None


def walk_loss_graph(loss: Any, stop: set[int], max_nodes: int = 2000,
                    inputs_known: bool = False) -> Culprit | None:
    """Check the loss's autograd graph down to the module outputs (``stop``: ids of their
    grad_fn) for a node that turned finite saved inputs into a non-finite result.
    ``inputs_known``: only nodes that saved their inputs are judged (a walk with no module
    output to stop at: a node that saved its result only, a ``tanh`` of a NaN, would look like
    the origin)."""
    import torch

    root = getattr(loss, "grad_fn", None)
    if root is None:
        return None
    best: tuple[int, Culprit] | None = None
    todo: list[tuple[Any, int]] = [(root, 0)]
    seen: set[int] = set()
    while todo and len(seen) < max_nodes:
        node, depth = todo.pop(0)
        if node is None or id(node) in seen or id(node) in stop:
            continue
        seen.add(id(node))
        cls = type(node).__name__
        if cls == "AccumulateGrad" or LABEL in node.metadata:
            continue
        m = re.match(r"(\w+?)Backward\d*$", cls)
        if m:
            rec = _recompute(m.group(1), node)
            if rec is not None:
                op, result, ins = rec
                judged = not inputs_known or any(isinstance(t, torch.Tensor) for t in ins)
                if (judged and isinstance(result, torch.Tensor) and not all_finite(result)
                        and all(all_finite(t) for t in ins if isinstance(t, torch.Tensor))):
                    func = getattr(torch.ops.aten, op, None)
                    reason, ev = explain(getattr(func, "default", None) or torch.ops.aten.log.default,
                                         op, tuple(ins), {}, result)
                    c = Culprit("loss", op, kind_of_nonfinite(result), reason, node=cls, evidence=ev)
                    if best is None or depth >= best[0]:
                        best = (depth, c)
        todo.extend((n, depth + 1) for n, _ in node.next_functions)
    return best[1] if best else None


def find_source_line(op: str, first: Site | None, last: Site | None) -> Site | None:
    """The user's line between ``first`` (the model call) and ``last`` (``backward()``) that
    spells ``op``: where a loss computed outside any module calls ``torch.log`` & co."""
    if last is None:
        return None
    path, end = last
    start = first[1] if first is not None and first[0] == path and first[1] <= end else max(1, end - 30)
    tokens = {"div": ("/", "div("), "mul": ("*", "mul("), "pow": ("**", "pow(")}.get(op, (op + "(",))
    for line in range(start, end + 1):
        text = linecache.getline(path, line).split("#")[0]
        if any(tok in text for tok in tokens):
            return (path, line)
    return None


def fmt_site(site: Site | None) -> str:
    return f"{display_path(site[0])}:{site[1]}" if site else "?"


def site_of_frame(depth: int = 2) -> Site | None:
    frame = user_frame(depth + 1)
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None

