"""A scheduler SPEC such as ``"OneCycleLR(max_lr=0.1, total_steps=1000)"``, read with ``ast``
(never ``eval``) and built on a throwaway optimizer.

Accepted: one call of a known class or warm-up schedule name, the optimizer left out, with
literal arguments only (numbers, strings, booleans, None, lists/tuples of them); the
``schedulers`` of ``SequentialLR`` / ``ChainedScheduler`` are a list of such calls. Anything else
(attribute access, a call of anything unknown, a name, an expression) is a :class:`SpecError`
with a one-line message, raised before anything is built.

>>> parse_spec("StepLR(step_size=7, gamma=0.1)").name
'StepLR'
"""

from __future__ import annotations

import ast
import functools
import inspect
import math
from dataclasses import dataclass, field
from typing import Any

from lrdoctor.schedulers import SCHEDULERS

MAX_SPEC_CHARS = 10_000

# what cannot be previewed from literals, and why
NOT_PREVIEWABLE = {
    "ReduceLROnPlateau": "its LR follows the metric you feed it, which a preview does not have",
    "LambdaLR": "its factor is a Python function, which a SPEC cannot hold (literals only); "
                "the warm-up schedules are available by name: linear_with_warmup, ...",
    "MultiplicativeLR": "its factor is a Python function, which a SPEC cannot hold (literals only)",
}
# the torch.optim.lr_scheduler classes lrdoctor knows (schedulers.py) whose values depend only
# on their arguments and the step
TORCH_CLASSES = tuple(name for name, kind in SCHEDULERS.items()
                      if name not in NOT_PREVIEWABLE and kind.library.startswith("torch."))
COMPOSITES = tuple(kind.name for kind in SCHEDULERS.values() if kind.composite)


class SpecError(ValueError):
    """A SPEC that is not accepted; the message is one line."""


# ---- warm-up schedules named like Hugging Face's, as LambdaLR factors ----------------------
# Each returns the multiplier of the base LR before the ``step``-th scheduler step.


def _warming(step: int, warmup: int) -> float:
    return step / max(1, warmup)


def linear_with_warmup(step: int, num_warmup_steps: int, num_training_steps: int) -> float:
    if step < num_warmup_steps:
        return _warming(step, num_warmup_steps)
    return max(0.0, (num_training_steps - step) / max(1, num_training_steps - num_warmup_steps))


def cosine_with_warmup(step: int, num_warmup_steps: int, num_training_steps: int,
                       num_cycles: float = 0.5) -> float:
    if step < num_warmup_steps:
        return _warming(step, num_warmup_steps)
    done = (step - num_warmup_steps) / max(1, num_training_steps - num_warmup_steps)
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * float(num_cycles) * 2.0 * done)))


def cosine_with_restarts(step: int, num_warmup_steps: int, num_training_steps: int,
                         num_cycles: int = 1) -> float:
    if step < num_warmup_steps:
        return _warming(step, num_warmup_steps)
    done = (step - num_warmup_steps) / max(1, num_training_steps - num_warmup_steps)
    if done >= 1.0:
        return 0.0
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * ((float(num_cycles) * done) % 1.0))))


def constant_with_warmup(step: int, num_warmup_steps: int) -> float:
    return _warming(step, num_warmup_steps) if step < num_warmup_steps else 1.0


def constant(step: int) -> float:
    return 1.0


def polynomial_with_warmup(step: int, num_warmup_steps: int, num_training_steps: int,
                           lr_end: float = 1e-7, power: float = 1.0, *, lr_init: float) -> float:
    if step < num_warmup_steps:
        return _warming(step, num_warmup_steps)
    if step > num_training_steps:
        return lr_end / lr_init
    left = 1 - (step - num_warmup_steps) / (num_training_steps - num_warmup_steps)
    return ((lr_init - lr_end) * left**power + lr_end) / lr_init


def inverse_sqrt(step: int, num_warmup_steps: int, timescale: int | None = None) -> float:
    if timescale is None:
        timescale = num_warmup_steps or 10_000
    if step < num_warmup_steps:
        return _warming(step, num_warmup_steps)
    return 1.0 / math.sqrt((step + timescale - num_warmup_steps) / timescale)


WARMUP_SCHEDULES = {f.__name__: f for f in (linear_with_warmup, cosine_with_warmup,
                                            cosine_with_restarts, constant_with_warmup, constant,
                                            polynomial_with_warmup, inverse_sqrt)}
# the builder names in transformers.optimization, for people who paste them
WARMUP_ALIASES = {
    "get_linear_schedule_with_warmup": "linear_with_warmup",
    "get_cosine_schedule_with_warmup": "cosine_with_warmup",
    "get_cosine_with_hard_restarts_schedule_with_warmup": "cosine_with_restarts",
    "get_constant_schedule_with_warmup": "constant_with_warmup",
    "get_constant_schedule": "constant",
    "get_polynomial_decay_schedule_with_warmup": "polynomial_with_warmup",
    "polynomial_decay_with_warmup": "polynomial_with_warmup",
    "get_inverse_sqrt_schedule": "inverse_sqrt",
}


# ---- parsing ------------------------------------------------------------------------------


@dataclass
class Spec:
    name: str
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    children: list[Spec] = field(default_factory=list)  # SequentialLR / ChainedScheduler

    def __str__(self) -> str:
        parts = [f"[{', '.join(map(str, self.children))}]"] if self.children else []
        parts += [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def known_names() -> list[str]:
    return [*TORCH_CLASSES, *WARMUP_SCHEDULES]


def parse_spec(text: str) -> Spec:
    if len(text) > MAX_SPEC_CHARS:
        raise SpecError(f"SPEC is {len(text)} characters long; at most {MAX_SPEC_CHARS}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise SpecError(f"SPEC is not a Python call: {exc.msg} (write it like "
                        "'StepLR(step_size=7, gamma=0.1)')") from None
    return _call(tree.body, top=True)


def _call(node: ast.AST, top: bool = False) -> Spec:
    if not isinstance(node, ast.Call):
        what = "a scheduler call" if top else "a list of scheduler calls"
        raise SpecError(f"expected {what} like 'StepLR(step_size=7)', got "
                        f"{_shown(node)!r}")
    if isinstance(node.func, ast.Attribute):
        raise SpecError(f"attribute access is not allowed ({_shown(node.func)!r}): name the "
                        "class alone, e.g. 'StepLR(...)'")
    if not isinstance(node.func, ast.Name):
        raise SpecError(f"not a class name: {_shown(node.func)!r}")
    name = WARMUP_ALIASES.get(node.func.id, node.func.id)
    if name in NOT_PREVIEWABLE:
        raise SpecError(f"{name} cannot be previewed: {NOT_PREVIEWABLE[name]}")
    if name not in TORCH_CLASSES and name not in WARMUP_SCHEDULES:
        raise SpecError(f"unknown scheduler {node.func.id!r}; known: {', '.join(known_names())}")
    spec = Spec(name)
    args = list(node.args)
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in node.keywords):
        raise SpecError("*args and **kwargs are not allowed in a SPEC")
    if name in COMPOSITES:
        scheds = None
        if args:
            scheds = args.pop(0)
        for k in node.keywords:
            if k.arg == "schedulers":
                if scheds is not None:
                    raise SpecError(f"{name}: schedulers given twice")
                scheds = k.value
        if not isinstance(scheds, (ast.List, ast.Tuple)) or not scheds.elts:
            raise SpecError(f"{name} needs a list of scheduler calls first, e.g. "
                            f"{name}([LinearLR(start_factor=0.1, total_iters=5), "
                            "CosineAnnealingLR(T_max=95)], milestones=[5])")
        spec.children = [_call(e) for e in scheds.elts]
    for a in args:
        spec.args.append(_literal(a, name))
    for k in node.keywords:
        if k.arg == "schedulers" and name in COMPOSITES:
            continue
        if k.arg in ("optimizer", "lr_lambda", "scale_fn"):
            raise SpecError(f"{name}: {k.arg!r} cannot be given in a SPEC (the preview "
                            "builds the optimizer itself; functions are not literals)")
        assert k.arg is not None
        spec.kwargs[k.arg] = _literal(k.value, name)
    return spec


def _literal(node: ast.AST, name: str) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise SpecError(f"{name}: arguments must be literals (numbers, strings, lists), not "
                        f"{_shown(node)!r}") from None


def _shown(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:
        text = type(node).__name__
    return text if len(text) <= 60 else text[:57] + "..."


# ---- building -----------------------------------------------------------------------------


def throwaway_optimizer(lr: float) -> Any:
    """A one-parameter SGD with momentum (OneCycleLR and CyclicLR cycle the momentum)."""
    import torch

    return torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=lr, momentum=0.9)


def build(spec: Spec, optimizer: Any) -> Any:
    """The real scheduler for ``spec`` on ``optimizer``; SpecError (one line) on bad arguments."""
    import torch

    if spec.name in WARMUP_SCHEDULES:
        fn = WARMUP_SCHEDULES[spec.name]
        params = list(inspect.signature(fn).parameters)[1:]
        if spec.name == "polynomial_with_warmup":
            params = params[:-1]  # lr_init comes from the optimizer, as in transformers
        unknown = [k for k in spec.kwargs if k not in params]
        if unknown:
            raise SpecError(f"{spec.name}: unexpected argument {unknown[0]!r} "
                            f"(parameters: {', '.join(params)})")
        try:
            bound = inspect.signature(fn).bind_partial(0, *spec.args, **spec.kwargs)
        except TypeError as exc:
            raise SpecError(f"{spec.name}: {exc} (parameters: {', '.join(params)})") from None
        given = dict(bound.arguments)
        given.pop("step", None)
        if "lr_init" in given:
            raise SpecError(f"{spec.name}: lr_init is the optimizer's LR (--lr)")
        missing = [p for p in params if p not in given
                   and inspect.signature(fn).parameters[p].default is inspect.Parameter.empty]
        if missing:
            raise SpecError(f"{spec.name}: missing {', '.join(missing)} "
                            f"(parameters: {', '.join(params)})")
        if spec.name == "polynomial_with_warmup":
            lr_init = optimizer.defaults["lr"]
            if not lr_init > given.get("lr_end", 1e-7):
                raise SpecError(f"{spec.name}: lr_end must be smaller than the LR ({lr_init})")
            given["lr_init"] = lr_init
        factor = functools.partial(fn, **given)
        try:
            factor(0)
        except Exception as exc:
            raise SpecError(f"{spec.name}: {type(exc).__name__}: {exc}") from None
        return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)

    home = torch.optim.swa_utils if spec.name == "SWALR" else torch.optim.lr_scheduler
    cls: Any = getattr(home, spec.name)
    children = [build(c, optimizer) for c in spec.children]
    if spec.name == "SequentialLR":
        call_args: list[Any] = [optimizer, children, *spec.args]
    elif spec.name == "ChainedScheduler":
        call_args = [children, *spec.args]
    else:
        call_args = [optimizer, *spec.args]
    signature = inspect.signature(cls)
    params = [p for p in signature.parameters if p not in ("optimizer", "self")]
    unknown = [k for k in spec.kwargs if k not in signature.parameters]
    if unknown:
        raise SpecError(f"{spec.name}: unexpected argument {unknown[0]!r} "
                        f"(parameters: {', '.join(params)})")
    try:
        signature.bind(*call_args, **spec.kwargs)
    except TypeError as exc:
        raise SpecError(f"{spec.name}: {exc} (parameters: {', '.join(params)})") from None
    try:
        return cls(*call_args, **spec.kwargs)
    except Exception as exc:
        message = " ".join(str(exc).split())
        raise SpecError(f"{spec.name}: {type(exc).__name__}: {message}") from None
