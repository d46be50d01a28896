"""Step an LR scheduler only on real optimizer updates: :class:`SkipAwareScheduler` and
:func:`step_was_skipped` (the fix for LRD005).

How PyTorch 2.x tells a skipped update (``torch/amp/grad_scaler.py``):

- a non-fused optimizer (the default, and ``foreach=True``) is simply not called:
  ``GradScaler.step`` reads ``found_inf`` on the host and calls ``optimizer.step()`` only when
  it is 0. An optimizer step post-hook therefore runs exactly once per real update.
- a fused optimizer (``fused=True``: ``_step_supports_amp_scaling``) is always called; GradScaler
  sets ``optimizer.found_inf`` (a fresh 0-d tensor) for the duration of the call and the kernel
  skips the update when it is non-zero. The post-hook runs while that attribute is set and keeps
  the tensor by reference. On the CPU it is read at once (no device); on CUDA a non-blocking copy
  to pinned memory is started there and read only when its event has completed, so no step waits
  for the device: a scheduler step whose flag is still in flight is decided at the optimizer's
  next step (a pre-hook, before that step reads its LR) or when the scheduler's state is read.

Nothing here patches torch: one post-hook and one pre-hook per wrapped optimizer, through
``Optimizer.register_step_post_hook``/``register_step_pre_hook``, removed when the wrapper is
garbage-collected.
"""

from __future__ import annotations

import sys
import weakref
from typing import Any

import torch
from torch.optim import Optimizer

try:
    from torch.optim.lr_scheduler import LRScheduler
except ImportError:  # PyTorch < 2.0
    from torch.optim.lr_scheduler import _LRScheduler as LRScheduler  # type: ignore[attr-defined,no-redef]

__all__ = ["SkipAwareScheduler", "step_was_skipped"]


def unwrap_optimizer(optimizer: Any) -> Optimizer:
    """The torch optimizer that really steps behind a framework's wrapper (Lightning's
    ``LightningOptimizer._optimizer``, Accelerate's ``AcceleratedOptimizer.optimizer``): hooks
    registered on a wrapper never run, since its ``step()`` calls the inner one."""
    seen = 0
    while seen < 8:
        inner = None
        for attr in ("optimizer", "_optimizer"):
            candidate = getattr(optimizer, attr, None)
            if isinstance(candidate, Optimizer) and candidate is not optimizer:
                inner = candidate
                break
        if inner is None:
            break
        optimizer, seen = inner, seen + 1
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not a torch.optim.Optimizer")
    return optimizer


class _Flag:
    """One fused step's ``found_inf``, readable without waiting for the device."""

    __slots__ = ("tensor", "event")

    def __init__(self, found_inf: torch.Tensor) -> None:
        self.event: Any = None
        if found_inf.device.type == "cuda":
            host = torch.empty((), dtype=found_inf.dtype, pin_memory=True)
            host.copy_(found_inf.detach(), non_blocking=True)
            self.event = torch.cuda.Event()
            self.event.record()
            self.tensor = host
        else:
            self.tensor = found_inf.detach()

    def ready(self) -> bool:
        return self.event is None or bool(self.event.query())

    def skipped(self) -> bool:
        """Whether the kernel skipped the update; waits for the copy if it is not done."""
        if self.event is not None:
            self.event.synchronize()  # only as far as this step's copy, not the whole queue
        return bool(self.tensor.item() != 0)


def _readable_now(found_inf: torch.Tensor) -> bool:
    """A CPU flag is read at once: no device to wait for."""
    return found_inf.device.type == "cpu"


class _Updates:
    """What one optimizer did since it was last asked: real updates counted, fused steps whose
    flag is still in flight listed. Fed by a step post-hook that holds only a weak reference to
    its owner, so a dropped wrapper stops costing anything."""

    def __init__(self, optimizer: Optimizer, owner: Any) -> None:
        self.real = 0
        self.in_flight: list[_Flag] = []
        owner_ref = weakref.ref(owner)
        handles: list[Any] = []

        def post(opt: Any, args: Any, kwargs: Any) -> None:
            if owner_ref() is None:
                for h in handles:
                    h.remove()
                return
            # GradScaler sets found_inf on a fused optimizer only while it calls step()
            found_inf = getattr(opt, "found_inf", None)
            if found_inf is None or not isinstance(found_inf, torch.Tensor):
                self.real += 1
                return
            if _readable_now(found_inf):
                self.real += 1 if found_inf.item() == 0 else 0
                return
            self.in_flight.append(_Flag(found_inf))
            self._settle_ready()

        handles.append(optimizer.register_step_post_hook(post))
        self.handles = handles

    def _settle_ready(self) -> None:
        while self.in_flight and self.in_flight[0].ready():
            self.real += 0 if self.in_flight.pop(0).skipped() else 1

    def take(self) -> tuple[int, list[_Flag]]:
        """The updates since the last take: (real ones known, flags still in flight)."""
        self._settle_ready()
        out = (self.real, self.in_flight)
        self.real, self.in_flight = 0, []
        return out

    def remove(self) -> None:
        for h in self.handles:
            h.remove()


# optimizer -> its tracker for step_was_skipped(); weak, so an optimizer is never kept alive
_trackers: weakref.WeakKeyDictionary[Optimizer, _Updates] = weakref.WeakKeyDictionary()


def step_was_skipped(optimizer: Any) -> bool:
    """Whether ``optimizer`` made no real update since the previous call (GradScaler skipped
    its step(s) on inf/NaN gradients), for guarding a scheduler step by hand::

        scaler.step(optimizer)
        scaler.update()
        if not lrdoctor.step_was_skipped(optimizer):
            scheduler.step()

    Exact for fused and non-fused optimizers once tracking has begun: tracking starts with the
    first call for an optimizer (call it once before the loop to cover the very first step).
    Otherwise the first answer says whether any real update happened before: exact for
    non-fused optimizers (from whether ``optimizer.step()`` ever ran) and fused Adam/AdamW
    (from their step count), not for a fused SGD. Framework wrappers (LightningOptimizer,
    AcceleratedOptimizer) are accepted. For a fused optimizer on CUDA the answer reads the
    step's ``found_inf`` (it waits for that step's kernel); :class:`SkipAwareScheduler` defers
    that read instead.
    """
    opt = unwrap_optimizer(optimizer)
    tracker = _trackers.get(opt)
    if tracker is None:
        _trackers[opt] = _Updates(opt, opt)
        return not _ever_updated(opt)
    real, in_flight = tracker.take()
    return real == 0 and all(flag.skipped() for flag in in_flight)


def _ever_updated(opt: Optimizer) -> bool:
    """Whether ``opt`` made a real update before tracking began (the first question)."""
    # an LR scheduler built on it patched optimizer.step to record that it ran; without one,
    # a non-fused optimizer with state has run (plain SGD keeps none: assumed to have run)
    called = getattr(opt, "_opt_called", None)
    if called is None:  # set on the first call by that patch, when there is one
        called = False if hasattr(opt.step, "_wrapped_by_lr_sched") else bool(opt.state) or \
            not getattr(opt, "_step_supports_amp_scaling", False)
    if not called:
        return False
    if getattr(opt, "_step_supports_amp_scaling", False):
        # fused Adam/AdamW take back a skipped step's count (state["step"] -= found_inf);
        # fused SGD keeps no count: assumed to have updated. Read once, not per step.
        steps = [st["step"] for st in opt.state.values()
                 if isinstance(st, dict) and isinstance(st.get("step"), torch.Tensor)]
        if steps:
            return bool(torch.stack([t.detach().float().reshape(()) for t in steps]).gt(0).any())
    return True


_OWN = frozenset({"scheduler", "_updates", "_deferred", "_pre_handle", "_burst"})


class SkipAwareScheduler(LRScheduler):
    """Wraps an LR scheduler so that ``step()`` advances it only when its optimizer really
    updated since the previous ``step()``: steps GradScaler skipped (inf/NaN gradients under
    float16) no longer move the schedule, and PyTorch's "Detected call of lr_scheduler.step()
    before optimizer.step()" warning goes away. Everything else is the wrapped scheduler's:
    ``state_dict()`` is its state dict (checkpoints load either way), ``get_last_lr()``,
    attributes (``optimizer``, ``last_epoch``, ``total_steps``...) read and write through. It is
    an ``LRScheduler``, so Lightning (returned from ``configure_optimizers``), Hugging Face
    ``Trainer(optimizers=(opt, sched))`` and ``accelerator.prepare(sched)`` take it unchanged.

    >>> scheduler = SkipAwareScheduler(OneCycleLR(optimizer, max_lr=0.01, total_steps=n))  # doctest: +SKIP
    >>> scaler.step(optimizer); scaler.update(); scheduler.step()  # doctest: +SKIP
    """

    _lrdoctor_skip_aware = True  # lrdoctor's watcher records the wrapped scheduler's steps

    def __init__(self, scheduler: Any) -> None:
        # LRScheduler.__init__ is not called: the wrapped scheduler already made its
        # construction step and owns every piece of state
        if isinstance(scheduler, SkipAwareScheduler):
            scheduler = scheduler.scheduler
        opt = getattr(scheduler, "optimizer", None)
        if opt is None or not callable(getattr(scheduler, "step", None)):
            raise TypeError(
                f"SkipAwareScheduler wraps an LR scheduler with an `optimizer`; got "
                f"{type(scheduler).__name__}"
            )
        optimizer = unwrap_optimizer(opt)
        object.__setattr__(self, "scheduler", scheduler)
        object.__setattr__(self, "_updates", _Updates(optimizer, self))
        # steps decided later, in order: (real updates known, flags in flight, args, kwargs)
        object.__setattr__(self, "_deferred", [])
        object.__setattr__(self, "_burst", None)
        self_ref = weakref.ref(self)

        def pre(opt: Any, args: Any, kwargs: Any) -> None:
            wrapper = self_ref()
            if wrapper is not None and wrapper._deferred:
                wrapper._settle()  # the next update must train with the decided LR

        object.__setattr__(self, "_pre_handle", optimizer.register_step_pre_hook(pre))

    def __del__(self) -> None:
        try:
            self._pre_handle.remove()
            self._updates.remove()
        except Exception:
            pass

    # -- stepping --------------------------------------------------------------------------

    def step(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        """Step the wrapped scheduler if its optimizer made a real update since the last call
        (arguments, e.g. ReduceLROnPlateau's metric, are passed on)."""
        repeat = self._repeated_call()
        if repeat is not None:
            if repeat:
                self.scheduler.step(*args, **kwargs)
            return
        real, in_flight = self._updates.take()
        if self._deferred or (not real and in_flight and not all(f.ready() for f in in_flight)):
            self._deferred.append((real, in_flight, args, kwargs))
            return
        self._decide(real, in_flight, args, kwargs)

    def _decide(self, real: int, in_flight: list[_Flag], args: Any, kwargs: Any) -> None:
        updated = real > 0 or any(not flag.skipped() for flag in in_flight)
        if self._burst is not None:
            object.__setattr__(self, "_burst", (self._burst[0], updated))
        if updated:
            self.scheduler.step(*args, **kwargs)

    def _settle(self) -> None:
        """Decide the steps whose fused flags were still on their way from the device."""
        deferred = list(self._deferred)
        self._deferred.clear()
        for real, in_flight, args, kwargs in deferred:
            self._decide(real, in_flight, args, kwargs)

    def _repeated_call(self) -> bool | None:
        """Accelerate's AcceleratedScheduler steps its scheduler once per process in one call
        (by design, for per-process batches): those calls share the first one's decision.
        Returns that decision for a repeat, None for a new call."""
        caller: Any = sys._getframe(2)
        if caller.f_globals.get("__name__") == "lrdoctor.runtime.hooks":
            caller = caller.f_back  # lrdoctor's watcher wraps step(): look past it
        if caller is None or caller.f_code.co_name != "step" or caller.f_globals.get("__name__") != "accelerate.scheduler":
            if self._burst is not None:
                object.__setattr__(self, "_burst", None)
            return None
        burst = self._burst
        if burst is not None and burst[0] is caller:
            if self._deferred:
                self._settle()  # the first call's decision is needed now
            return bool(self._burst[1])
        # the frame is held until the next call, so a new call can never reuse its identity
        object.__setattr__(self, "_burst", (caller, False))
        return None

    # -- the wrapped scheduler's state and API ----------------------------------------------

    def get_last_lr(self) -> list[Any]:
        if self._deferred:
            self._settle()
        return self.scheduler.get_last_lr()  # type: ignore[no-any-return]

    def get_lr(self) -> list[Any]:
        return self.scheduler.get_lr()  # type: ignore[no-any-return]

    def state_dict(self) -> dict[str, Any]:
        """The wrapped scheduler's own state dict: a checkpoint saved through the wrapper loads
        into the bare scheduler, and the other way round."""
        if self._deferred:
            self._settle()
        return self.scheduler.state_dict()  # type: ignore[no-any-return]

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if self._deferred:
            self._settle()
        self.scheduler.load_state_dict(state_dict)

    def print_lr(self, *args: Any, **kwargs: Any) -> None:
        self.scheduler.print_lr(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        # only called for names the wrapper does not have: everything else is the scheduler's
        scheduler = self.__dict__.get("scheduler")
        if scheduler is None or name.startswith("__"):
            raise AttributeError(name)
        if self.__dict__.get("_deferred"):
            self._settle()
        return getattr(scheduler, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OWN:
            object.__setattr__(self, name, value)
        else:  # `scheduler.last_epoch = ...`, Accelerate's `_step_count += 1`
            setattr(self.scheduler, name, value)

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled (torch.save(scheduler)) or deep-copied as "the wrapper around this
        # scheduler": the hooks are registered again on the copy's optimizer, not copied
        if self._deferred:
            self._settle()
        return (SkipAwareScheduler, (self.scheduler,))

    def __repr__(self) -> str:
        return f"SkipAwareScheduler({self.scheduler!r})"


# LRScheduler defines these as class attributes; the wrapped scheduler's values must show


def _passthrough(name: str) -> property:
    def get(self: SkipAwareScheduler) -> Any:
        return getattr(self.scheduler, name)

    def put(self: SkipAwareScheduler, value: Any) -> None:
        setattr(self.scheduler, name, value)

    return property(get, put)


for _name in ("_get_lr_called_within_step", "_is_initial"):
    if hasattr(LRScheduler, _name):
        setattr(SkipAwareScheduler, _name, _passthrough(_name))
del _name
