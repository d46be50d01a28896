"""Everything the watcher installs into torch, and nothing else.

- optimizers: the global step post-hook PyTorch provides (one removable handle); it sees
  every optimizer, created before or after watching began. ``add_param_group`` and
  ``load_state_dict`` are wrapped to learn where an optimizer was built and when its LRs are
  legitimately replaced.
- GradScaler ``step``/``update``: wrapped at class level to learn which
  attempts were skipped (a non-fused optimizer is simply not called; a fused one is called and
  reads ``optimizer.found_inf``, which we keep by reference and read later) and the scale
  before ``update()`` changes it.
- LR schedulers: ``step`` wrapped on every class that defines one (built-in and user
  subclasses, including classes defined while watching); construction steps and the steps a
  composite makes on its children are told apart from the user's own calls.
- DataLoader ``__iter__`` and the iterator's ``__next__``: epoch boundaries and which loader
  fed the batch an optimizer step trained on.

All of it is undone by :meth:`Patcher.undo_all`. No hook synchronizes a device or changes an
argument, a return value or any state that training reads.
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import threading
import warnings
from collections.abc import Callable
from types import FrameType
from typing import Any

from lrdoctor import ScheduleError
from lrdoctor.runtime.callsite import _verdict, remember_site, user_frame, user_site
from lrdoctor.runtime.engine import (
    ATTEMPTS_OFF,
    COLLAPSE_RATIO,
    EXPECT_ATTEMPT,
    EXPECT_SCHEDULER_STEP,
    EXPECT_UPDATE,
    IN_MULTI_STEP,
    IN_SCHEDULER_STEP,
    MULTI,
    Engine,
    lrs_of,
)
from lrdoctor.runtime.events import ScalerUpdate, Site
from lrdoctor.runtime.patching import Patcher

_tls = threading.local()
_show_previous: Callable[[Any], Any] | None = None  # what showed warnings before our relay
INF = float("inf")
_THIS_FILE = os.path.abspath(__file__)


def _guard(engine: Engine, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run an engine call (the lane's tallies kept first: see Engine.sync); an internal error
    is reported, never raised into training."""
    try:
        engine.sync()
        return fn(*args, **kwargs)
    except ScheduleError:
        raise
    except Exception as exc:
        engine.internal_error(exc)
        return None


# a parameter with no default (see _has_params)
_REQUIRED = inspect.Parameter.empty


def _has_params(fn: Any, expected: tuple[tuple[str, Any], ...]) -> bool:
    """Whether ``fn`` takes exactly ``expected``: names, defaults (compared by identity) and
    order, all positional-or-keyword; False when its signature cannot be read."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    return len(params) == len(expected) and all(
        p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and p.name == name and p.default is default
        for p, (name, default) in zip(params, expected))


def _scalar(t: Any) -> Any:
    """A CPU tensor's value now; a device tensor is copied (async) and read later."""
    if t is None:
        return None
    if getattr(t, "device", None) is not None and t.device.type == "cpu":
        return float(t.item())
    return t.detach().clone()


def compiling_test(torch: Any) -> Callable[[], bool]:
    """The cheapest test Dynamo answers True while tracing: ``is_dynamo_compiling`` is one
    frame that returns False in eager code, ``is_compiling`` two (it asks TorchScript too)."""
    return getattr(torch.compiler, "is_dynamo_compiling", None) or torch.compiler.is_compiling


class _NoProfiler:
    """Stands for torch.autograd.profiler where the step is seen by a post-hook."""

    _is_profiler_enabled = False


_NO_PROFILER = _NoProfiler()
_NOOP_OPS = frozenset({"RESUME", "NOP", "CACHE", "LOAD_CONST", "RETURN_VALUE", "RETURN_CONST"})


def _step_seam(torch: Any) -> Callable[[Any], None] | None:
    """torch's ``Optimizer._optimizer_step_code`` when it is the no-op every optimizer's wrapped
    ``step()`` calls after the update and before the step post-hooks (torch >= 1.13: "an entry
    point for the profiler"), a plain function of ``self`` alone that does nothing; else None
    (the step is then seen by a global step post-hook)."""
    import dis
    import types

    base = torch.optim.Optimizer
    fn = base.__dict__.get("_optimizer_step_code")
    if not isinstance(fn, types.FunctionType) or any(
            "_optimizer_step_code" in cls.__dict__ for cls in _all_subclasses(base) if cls is not base):
        return None  # (a class with one of its own: see own_seam)
    code = fn.__code__
    if (code.co_argcount != 1 or code.co_kwonlyargcount or code.co_varnames != ("self",)
            or code.co_names or code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE
                                                 | inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)):
        return None
    try:
        ops = {ins.opname for ins in dis.get_instructions(fn)}
    except Exception:
        return None
    return fn if ops <= _NOOP_OPS else None


def install(engine: Engine, patcher: Patcher) -> None:
    import torch

    _install_optimizer_hooks(engine, patcher, torch)
    _install_scaler_hooks(engine, patcher, torch)
    _install_scheduler_hooks(engine, patcher, torch)
    _install_loader_hooks(engine, patcher, torch)


# ---- optimizers ---------------------------------------------------------------------------


def _install_optimizer_hooks(engine: Engine, patcher: Patcher, torch: Any) -> None:
    from torch.optim.optimizer import register_optimizer_step_post_hook

    in_scaler_step = engine._in_scaler_step
    compiled_steps = engine.compiled_steps
    is_compiling = compiling_test(torch)
    on_attempt = engine.on_attempt
    lane_period = engine.lane_period
    scaled_lane_period = engine.scaled_lane_period
    multi_period = engine.multi_period
    lane = engine.lane
    multi = engine.multi
    every_step = engine.every_step
    every_direct_step = engine.every_direct_step

    # Where the step is seen (see _step_seam): in place of torch's own no-op
    # Optimizer._optimizer_step_code, which every optimizer's wrapped step() calls right after
    # the update (the step then runs no frame more than unwatched), or else as a global step
    # post-hook. ``profiler``: torch.autograd.profiler, whose flag says when a profiler is on
    # (torch's Python tracer then needs its own code object called: see below)
    seam = _step_seam(torch)
    profiler: Any = sys.modules.get("torch.autograd.profiler") if seam is not None else None
    if profiler is None or not isinstance(getattr(profiler, "_is_profiler_enabled", None), bool):
        seam, profiler = None, _NO_PROFILER

    def post(self: Any, args: Any = None, kwargs: Any = None) -> None:
        # ``self``: the optimizer that has just stepped (named so for torch's profiler, which
        # reads the optimizer of an _optimizer_step_code frame from its ``self``)
        if profiler._is_profiler_enabled:
            # a profiler is on: torch's Python tracer recognises the optimizer step by its own
            # no-op's code object, which is called as it is without lrdoctor
            seam(self)  # type: ignore[misc]
        if is_compiling():
            # torch.compile is tracing a function that steps the optimizer: anything more than
            # this append would break the user's graph. The append is replayed each time the
            # compiled code runs, and the engine counts the step at its next eager hook. Only
            # into an empty list: Dynamo guards on the list, and a growing one would make it
            # recompile (steps made while one is pending are not counted: see drain_compiled)
            if not compiled_steps:
                compiled_steps.append(self)
            return
        # the lane (Engine.Lane): a routine update of the optimizer it is open for, trained
        # with the LR object the last step left, on a batch of the same iterator
        # (lane.opt_ref answers None while the lane is closed, also when another thread closed
        # it meanwhile)
        if (lane.phase == EXPECT_ATTEMPT and lane.opt_ref() is self and lane.left
                and engine.last_fetch == lane.fetch and not in_scaler_step and not compiled_steps
                and not every_step):
            try:
                [group] = self.param_groups  # ValueError: not one group (the general path)
                if group["lr"] is lane.lr:
                    # the batches its iterator has yielded (read from the iterator, which
                    # yielded last: the __next__ hook may be off, see FetchHook); an
                    # AttributeError when the iterator is gone: the general path
                    lane.yielded = lane.it_ref()._num_yielded
                    lane.left -= 1
                    lane.phase = lane.after_attempt
                    return
            except (ValueError, KeyError, AttributeError):
                pass
            except Exception as exc:
                engine.internal_error(exc)
        # runs on every step: the guard is written inline rather than through _guard()
        # the LRs are read after the step: optimizers do not change param_group['lr'] while
        # stepping, so this is the LR the update trained with (one hook instead of two)
        try:
            if compiled_steps:
                engine.drain_compiled()
            if not in_scaler_step:  # the common case: no GradScaler step in progress
                if lane.phase == MULTI:
                    # the lane for several optimizers (Engine.MultiLane): the cycle's next
                    # step is this optimizer's routine update, trained with the LR object its
                    # last step left, on a batch of the same iterator (whose batch count is
                    # read from it)
                    event = multi.cycle[multi.pos]
                    if (event.ref() is self and engine.last_fetch == multi.fetch
                            and not every_step and not every_direct_step):
                        if multi.left:
                            try:
                                [group] = self.param_groups
                                if group["lr"] is event.slot.lr:
                                    multi.yielded = multi.it_ref()._num_yielded
                                    multi.left -= 1
                                    multi.pos = event.next
                                    return
                            except (ValueError, KeyError, AttributeError):
                                pass  # (the general path)
                        elif multi.periodic and multi_period(self):
                            # the optimizer's periodic update, the lane's next event: kept
                            # (Engine.multi_period), unless it needs the general path
                            return
                # the lane's last update of a period: the periodic step it keeps open through
                # (Engine.lane_period), unless that step needs the general path
                if lane.phase == EXPECT_ATTEMPT and lane.opt_ref() is self and lane_period(self):
                    return
                on_attempt(self, True, None, False)
                return
            key = id(self)
            in_scaler = key in in_scaler_step
            taken: bool | None
            if in_scaler:
                in_scaler_step[key] = True
                if lane.phase == lane.scaled_phase and lane.opt_ref() is self:
                    if lane.left and engine.last_fetch == lane.fetch and not every_step:
                        # the lane under GradScaler: the update scaler.step() makes after the
                        # scaled backward (taken: an optimizer that takes no found_inf of its
                        # own is called only then, and the lane opens for no other:
                        # Engine._open_scaled_lane), trained with the LR object the last step
                        # left, on a batch of the same iterator, whose batch count is read from
                        # it (the __next__ hook may be off: FetchHook), or, for a lane that
                        # does not know its iterator, from what the hook noted
                        # (one param group, unpacked as the plain lane's path does: fewer steps
                        # than a type, a length and a get(), perf60)
                        try:
                            [group] = self.param_groups  # ValueError: not one group (the general path)
                            routine = group["lr"] is lane.lr
                        except (ValueError, KeyError, TypeError):
                            routine = False
                        if routine:
                            try:
                                lane.yielded = lane.it_ref()._num_yielded
                            except AttributeError:  # (None: the iterator is not known, or gone)
                                if not lane.unhooked:  # (gone while unhooked: the general path)
                                    lane.yielded = engine.last_yielded
                                    lane.left -= 1
                                    lane.phase = EXPECT_UPDATE
                                    return
                            else:
                                lane.left -= 1
                                lane.phase = EXPECT_UPDATE
                                return
                    elif lane.periodic and not lane.left and scaled_lane_period(self):
                        # the lane's last update of a period: the periodic step it keeps open
                        # through (Engine.scaled_lane_period)
                        return
                elif lane.phase == MULTI:
                    # the lane for several optimizers under GradScaler (Engine.MultiLane): the
                    # cycle's next event is this optimizer's update, made by scaler.step() after
                    # the iteration's scaled backward (taken: GradScaler calls the step of an
                    # optimizer that takes no found_inf of its own only then, and the lane opens
                    # for no other), trained with the LR object its last step left, on a batch of
                    # the same iterator, whose batch count is read from it
                    event = multi.cycle[multi.pos]
                    if (event.sref() is self and multi.left and multi.sphase >= 0
                            and engine.last_fetch == multi.fetch and not every_step):
                        try:
                            [group] = self.param_groups  # ValueError: not one group (the general path)
                            if group["lr"] is event.slot.lr:
                                # (an AttributeError when the iterator is gone: the general path)
                                multi.yielded = multi.it_ref()._num_yielded
                                multi.left -= 1
                                multi.pos = event.next
                                multi.sphase += 1
                                return
                        except (ValueError, KeyError, AttributeError):
                            pass
                    elif multi.periodic and not multi.left and event.sref() is self and multi_period(self):
                        # the optimizer's periodic update, the lane's next event: kept
                        # (Engine.multi_period), unless it needs the general path
                        return
                # (taken and found_inf are set only here, past the lanes' paths, which return)
                taken, found_inf = True, getattr(self, "found_inf", None)
                if found_inf is not None:
                    # fused optimizer: the kernel itself skipped the update if found_inf != 0
                    value = _scalar(found_inf)
                    if isinstance(value, float):
                        taken, found_inf = value == 0.0, None
                    else:
                        taken, found_inf = None, value
            else:
                taken, found_inf = True, None
            engine.on_attempt(self, taken, found_inf, in_scaler)
        except ScheduleError:
            raise
        except Exception as exc:
            engine.internal_error(exc)

    opt_cls = torch.optim.Optimizer
    if seam is not None:
        post.__name__ = post.__qualname__ = "_optimizer_step_code"
        patcher.setattr(opt_cls, "_optimizer_step_code", post)
    else:
        patcher.handle(register_optimizer_step_post_hook(post))

    def own_seam(opt: Any) -> None:
        """An optimizer whose class has an _optimizer_step_code of its own (not torch's, not
        ours) would step unseen, or seen twice if its method calls super()'s: the watch goes
        back to torch's no-op and a global step post-hook, for good (steps seen so far were
        each seen once)."""
        nonlocal seam, profiler
        if seam is None or getattr(type(opt), "_optimizer_step_code", post) is post:
            return
        opt_cls._optimizer_step_code = seam  # (the patcher's undo finds it back)
        seam, profiler = None, _NO_PROFILER
        patcher.handle(register_optimizer_step_post_hook(post))

    for name in ("load_state_dict", "add_param_group"):
        original = opt_cls.__dict__[name]

        def make(original: Callable[..., Any], name: str) -> Callable[..., Any]:
            @functools.wraps(original)
            def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
                result = original(self, *args, **kwargs)
                if name == "add_param_group" and id(self) not in engine.optimizers:
                    # the constructor adds the first group: remember where it was built
                    _guard(engine, own_seam, self)
                    _guard(engine, engine.on_optimizer_created, self, user_site(3))
                else:
                    _guard(engine, engine.on_lrs_replaced, self)
                return result

            return wrapper

        patcher.setattr(opt_cls, name, make(original, name))


# ---- GradScaler ---------------------------------------------------------------------------


def _scaler_classes(torch: Any) -> list[type]:
    classes: list[type] = []
    for modname in ("torch.amp.grad_scaler", "torch.cuda.amp.grad_scaler", "torch.cpu.amp.grad_scaler"):
        mod = sys.modules.get(modname)
        if mod is None:
            try:
                __import__(modname)
                mod = sys.modules[modname]
            except Exception:
                continue
        cls = getattr(mod, "GradScaler", None)
        if isinstance(cls, type) and cls not in classes:
            classes.append(cls)
    return classes


def _install_scaler_hooks(engine: Engine, patcher: Patcher, torch: Any) -> None:
    for cls in _scaler_classes(torch):
        if "step" in cls.__dict__:
            patcher.setattr(cls, "step", _wrap_scaler_step(engine, cls.__dict__["step"]))
        if "update" in cls.__dict__:
            patcher.setattr(cls, "update", _wrap_scaler_update(engine, cls.__dict__["update"]))


def _wrap_scaler_step(engine: Engine, original: Callable[..., Any]) -> Callable[..., Any]:
    in_scaler_step = engine._in_scaler_step
    optimizers = engine.optimizers
    aliases = engine._aliases

    def skipped(self: Any, optimizer: Any) -> None:
        """scaler.step() did not call the optimizer's step."""
        if getattr(self, "_enabled", True) and _guard(engine, _found_inf, self, optimizer) is not False:
            # a skipped step: the user's line is looked up only now (a walk up the stack,
            # which a taken step does not need), from the same depth
            site = _guard(engine, user_site, 4)
            _guard(engine, engine.on_attempt, optimizer, False, None, True, site)

    @functools.wraps(original)
    def step(self: Any, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        key = id(optimizer)
        if key in in_scaler_step:  # nested
            return original(self, optimizer, *args, **kwargs)
        info = optimizers.get(key)
        if info is not None and info.ref() is optimizer and not aliases:
            # the common case, a known optimizer and no wrapper anywhere: one key to mark
            in_scaler_step[key] = False
            try:
                if args or kwargs:
                    return original(self, optimizer, *args, **kwargs)
                return original(self, optimizer)  # (a plain call: no star call a step)
            finally:
                if not in_scaler_step.pop(key, False):
                    skipped(self, optimizer)
        # a framework's wrapper (AcceleratedOptimizer...) steps the optimizer it wraps: the
        # step-hook sees that one, so every object of this optimizer is marked
        keys = _guard(engine, _same_optimizer_keys, engine, optimizer) or [key]
        for k in keys:
            in_scaler_step[k] = False
        try:
            return original(self, optimizer, *args, **kwargs)
        finally:
            called = False
            for k in keys:
                called = in_scaler_step.pop(k, False) or called
            if not called:
                skipped(self, optimizer)

    return step


def _same_optimizer_keys(engine: Engine, optimizer: Any) -> list[int]:
    return [id(o) for o in engine.optimizer_objects(optimizer)]


def _found_inf(scaler: Any, optimizer: Any) -> bool | None:
    """Whether ``scaler.step(optimizer)`` found inf/NaN gradients (read only when the
    optimizer's own step was not called: scaler.step has just read these flags itself, so
    nothing new is waited for). False means the step was not skipped for overflow: a wrapper
    chose not to update (Accelerate during gradient accumulation) and no attempt happened."""
    state = getattr(scaler, "_per_optimizer_states", {}).get(id(optimizer))
    flags = (state or {}).get("found_inf_per_device")
    if not flags:
        return None
    return any(float(t.item()) != 0.0 for t in flags.values())


def _before_update(engine: Engine, scaler: Any) -> tuple[Any, bool | None]:
    """The scale before ``scaler.update()`` (see _scalar) and whether any optimizer's step was
    skipped (None: not known now, or no flags)."""
    before = None
    skipped: bool | None = None
    scale = getattr(scaler, "_scale", None)
    if scale is not None:
        before = _guard(engine, _scalar, scale)
        states = getattr(scaler, "_per_optimizer_states", {})
        flags = [
            t
            for state in states.values()
            for t in state.get("found_inf_per_device", {}).values()
        ]
        if flags:
            values = [_guard(engine, _scalar, t) for t in flags]
            if all(isinstance(v, float) for v in values):
                skipped = any(v != 0.0 for v in values)
    return before, skipped


_UPDATE_PARAMS = (("self", _REQUIRED), ("new_scale", None))  # GradScaler.update's (torch 2.x)


def _wrap_scaler_update(engine: Engine, original: Callable[..., Any]) -> Callable[..., Any]:
    import torch

    tensor_type = torch.Tensor
    lane = engine.lane
    multi = engine.multi
    every_step = engine.every_step
    every_step_handlers = engine._every_step_handlers

    def read(self: Any) -> tuple[Any, bool | None]:
        """_before_update(), read inline where every tensor is a plain CPU one."""
        before: Any = None
        skipped: bool | None = None
        try:
            scale = self._scale
            if type(scale) is tensor_type and scale.is_cpu:
                before = float(scale.item())
                read = False
                for state in self._per_optimizer_states.values():
                    for t in state["found_inf_per_device"].values():
                        if type(t) is not tensor_type or not t.is_cpu:
                            raise LookupError  # read as _before_update() does
                        if read:
                            skipped = skipped or float(t.item()) != 0.0
                        else:
                            read, skipped = True, float(t.item()) != 0.0
                # (no flags: skipped stays None)
                return before, skipped
        except Exception:
            pass
        return _before_update(engine, self)

    def after(self: Any, before: Any, skipped: bool | None) -> None:
        """After the update: the lane's routine one (see below), or on_scaler_update."""
        # the lane under GradScaler (Engine.Lane): a routine update (Engine.on_scaler_update)
        # of its scaler after the update it counted, from the scale the lane started with
        if (lane.phase == EXPECT_UPDATE and lane.scaler_ref() is self and skipped is False
                and type(before) is float and before == lane.scale and not every_step
                and ScalerUpdate not in every_step_handlers):
            try:
                nf = engine.loss_gate
                if nf is None or not nf.flags.due:
                    # (the AMP check's updated(): told when the lane closes, AmpMisuse.lane_closed)
                    lane.updates += 1
                    lane.phase = EXPECT_SCHEDULER_STEP
                    return
            except Exception as exc:
                engine.internal_error(exc)
                return
        _guard(engine, engine.on_scaler_update, self, before, skipped)

    if _has_params(original, _UPDATE_PARAMS):
        # torch's own update(self, new_scale=None), called as it is (no star call a step)
        @functools.wraps(original)
        def update(self: Any, new_scale: Any = None) -> Any:
            # The lane's routine update (Engine.on_scaler_update), decided with no read of the
            # scale: the update scaler.step() made in the lane (torch's own GradScaler, which
            # steps the optimizer only when its found-inf flag reads 0: Engine._open_scaled_lane),
            # that optimizer's state the only one, its flag reading 0 now (read: a flag written
            # by hand since the step is what torch's update() reads, perf57), and the scale the
            # one the lane started with: the same tensor, written by nothing since but the
            # lane's own updates (its version counter: each update() bumps it by one, any other
            # write too), none of which grew it (the lane opens with no more updates than
            # growth_interval leaves: Engine._open_scaled_lane)
            if lane.phase == EXPECT_UPDATE and new_scale is None and lane.scaler_ref() is self:
                try:
                    scale = self._scale
                    states = self._per_optimizer_states
                    # (not asked: whether NaN detection's device flags are due, which its
                    # ScalerUpdate handler would drain. They never are between two hooks: a flag
                    # waits only in NonFinite._flag, which drains the book as soon as it is due,
                    # so it holds fewer than its interval at every other moment, perf60)
                    routine = (scale is lane.scale_t and scale._version == lane.scale_v + lane.updates
                               and not every_step and ScalerUpdate not in every_step_handlers)
                    if routine:
                        # the optimizer's one found-inf flag (a ValueError: not one optimizer's
                        # state, or not one flag), read (a plain CPU tensor): it read 0 when
                        # scaler.step() stepped the optimizer, but a flag written or replaced by
                        # hand since is what torch's update() reads, and so must the watch
                        # (tests/watch/test_amp_lane_subclass.py, perf57). Any object with
                        # is_cpu and item() is read as the general path's _before_update()
                        # reads it (a CPU tensor of a subclass too: float(item()) != 0.0);
                        # anything else raises here: the general path
                        [state] = states.values()
                        [flag] = state["found_inf_per_device"].values()
                        routine = flag.is_cpu and flag.item() == 0.0
                except Exception:
                    routine = False
                if routine:
                    result = original(self, None)
                    # (the AMP check's updated(): told when the lane closes, AmpMisuse.lane_closed)
                    lane.updates += 1
                    lane.phase = EXPECT_SCHEDULER_STEP
                    return result
            elif lane.phase == MULTI and new_scale is None and multi.scaler_ref() is self:
                # The lane for several optimizers under GradScaler (Engine.MultiLane): once
                # scaler.step() made an update of every optimizer in the lane since the
                # iteration's scaled backward, those optimizers' states the scaler's only ones,
                # the scale the lane started with (the same tensor, written by nothing but the
                # lane's own update()s since: its version counter), not past the update() that
                # may grow it, and every found-inf flag reading 0 (read here, plain CPU tensors:
                # the general path's read of the flags, which a hand-written or replaced flag
                # makes differ from what scaler.step() read), the update is the general path's
                # routine one (Engine.on_scaler_update) with no read of the scale
                try:
                    scale = self._scale
                    states = self._per_optimizer_states
                    routine = (multi.sphase == multi.nopt and multi.updates < multi.grow
                               and scale is multi.scale_t and scale._version == multi.scale_v + multi.updates
                               and len(states) == multi.nopt and not every_step
                               and ScalerUpdate not in every_step_handlers)  # (flags never due: above)
                    if routine:
                        for state in states.values():
                            for t in state["found_inf_per_device"].values():
                                if type(t) is not tensor_type or not t.is_cpu or t.item() != 0.0:
                                    routine = False
                except Exception:
                    routine = False
                if routine:
                    result = original(self, None)
                    # (the AMP check's updated(): told when the lane closes, AmpMisuse.lane_closed_multi)
                    multi.updates += 1
                    multi.sphase = -1
                    multi.unscaled.clear()
                    return result
            if not getattr(self, "_enabled", True):
                return original(self, new_scale)
            # the common case first, read in fewer steps than read(): one optimizer's state
            # with one found-inf flag, both plain CPU tensors (a skipped update, or anything
            # else, is read(), which reads the same values)
            before: Any = None
            skipped: bool | None = None
            try:
                scale = self._scale
                states = self._per_optimizer_states
                if len(states) == 1:
                    [state] = states.values()
                    [flag] = state["found_inf_per_device"].values()
                    if type(scale) is tensor_type and type(flag) is tensor_type and scale.is_cpu and flag.is_cpu:
                        before = float(scale.item())
                        skipped = float(flag.item()) != 0.0
                    else:
                        before, skipped = read(self)
                else:  # (several optimizers' states: read() reads them all, with no exception raised)
                    before, skipped = read(self)
            except Exception:
                before, skipped = read(self)
            result = original(self, new_scale)
            # not the lane's routine update (tested above): the general path, which closes the
            # lane (the lane's later updates are not read, so this one must not stay in it);
            # _guard() written here (on_scaler_update syncs first itself)
            try:
                engine.on_scaler_update(self, before, skipped)
            except ScheduleError:
                raise
            except Exception as exc:
                engine.internal_error(exc)
            return result

        return update

    @functools.wraps(original)
    def update_any(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not getattr(self, "_enabled", True):
            return original(self, *args, **kwargs)
        before, skipped = read(self)
        result = original(self, *args, **kwargs)
        after(self, before, skipped)
        return result

    return update_any


# ---- LR schedulers ------------------------------------------------------------------------

_CONSTRUCTION = frozenset({"__init__", "_initial_step", "__setstate__", "load_state_dict"})


def _scheduler_base(torch: Any) -> type:
    sched = torch.optim.lr_scheduler
    return getattr(sched, "LRScheduler", None) or sched._LRScheduler


def _all_subclasses(cls: type) -> list[type]:
    out, todo = [], [cls]
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.__subclasses__())
    return out


def _is_construction_step(torch_dir: str, depth: int = 3) -> bool:
    """Whether the step being made comes from a scheduler's constructor (torch's own code
    between the wrapper and the user's frame contains ``__init__``/``_initial_step``);
    ``depth``: the wrapper's caller, from here."""
    frame: Any = sys._getframe(depth)
    while frame is not None:
        code = frame.f_code
        if not code.co_filename.startswith(torch_dir):
            # a user subclass' __init__ calling super().__init__() shows up as torch frames
            # above; a user __init__ that steps explicitly is a construction step too
            return code.co_name == "__init__" and _is_scheduler_self(frame)
        if code.co_name in _CONSTRUCTION:
            return True
        frame = frame.f_back
    return False


def _is_scheduler_self(frame: Any) -> bool:
    obj = frame.f_locals.get("self")
    return obj is not None and hasattr(obj, "optimizer") and hasattr(obj, "step")


def _install_scheduler_hooks(engine: Engine, patcher: Patcher, torch: Any) -> None:
    base = _scheduler_base(torch)
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
    classes = _all_subclasses(base)
    plateau = getattr(torch.optim.lr_scheduler, "ReduceLROnPlateau", None)
    if plateau is not None and plateau not in classes:  # PyTorch < 2.2: not an LRScheduler
        classes += _all_subclasses(plateau)

    def wrap_class(cls: type) -> None:
        if "step" in cls.__dict__ and not getattr(cls.__dict__["step"], "_lrdoctor", False):
            patcher.setattr(cls, "step", _wrap_scheduler_step(engine, cls.__dict__["step"], torch_dir))

    for cls in classes:
        wrap_class(cls)

    # classes defined while watching (a user's subclass in the script) are wrapped on creation
    had_own = "__init_subclass__" in base.__dict__
    previous = base.__dict__.get("__init_subclass__")

    def init_subclass(cls: type, **kwargs: Any) -> None:
        if had_own and previous is not None:
            previous.__func__(cls, **kwargs)
        else:
            super(base, cls).__init_subclass__(**kwargs)  # type: ignore[arg-type]
        _guard(engine, wrap_class, cls)

    patcher.setattr(base, "__init_subclass__", classmethod(init_subclass))


def _relaying_warnings(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` (a scheduler's own ``step``) so that its warnings read exactly as without
    lrdoctor. PyTorch warns from ``step()`` with ``stacklevel=2`` (the order warning on the
    first step, the epoch deprecation), which names our wrapper instead of its caller; such a
    warning is re-issued, at the moment it is shown, for the wrapper's caller - the user's line,
    Lightning's or Accelerate's - with that caller's module and once-per-location registry,
    so the user's filters decide as they would have. ``catch_warnings`` is not used: entering
    it resets every module's registry, and warnings shown once would then show again."""
    previous = getattr(warnings, "_showwarnmsg", None)
    if previous is None or getattr(previous, "_lrdoctor_relay", False):
        return fn(*args, **kwargs)
    global _show_previous
    _show_previous = previous
    warnings._showwarnmsg = _relay  # type: ignore[attr-defined]
    try:
        return fn(*args, **kwargs)
    finally:
        if getattr(warnings, "_showwarnmsg", None) is _relay:
            warnings._showwarnmsg = previous  # type: ignore[attr-defined]
        # what was attributed to our line was kept in our registry: forget it, so the next
        # caller's identical warning is judged at its own location
        globals().get("__warningregistry__", {}).clear()


def _relay(msg: Any) -> None:
    previous = _show_previous or warnings._showwarnmsg_impl  # type: ignore[attr-defined]
    caller = None
    if os.path.abspath(msg.filename) == _THIS_FILE:
        frame: Any = sys._getframe(1)
        while frame is not None:
            if frame.f_lineno == msg.lineno and os.path.abspath(frame.f_code.co_filename) == _THIS_FILE:
                caller = frame.f_back
                break
            frame = frame.f_back
    if caller is None:
        return previous(msg)
    g = caller.f_globals
    warnings.warn_explicit(msg.message, msg.category, caller.f_code.co_filename, caller.f_lineno,
                           module=g.get("__name__", "<string>"),
                           registry=g.setdefault("__warningregistry__", {}), module_globals=g,
                           source=msg.source)
    return None


_relay._lrdoctor_relay = True  # type: ignore[attr-defined]


class _SchedDepth:
    """Scheduler steps in progress (a composite stepping its children, super().step()).
    Shared by all threads: see amphooks._Depth for why it is not thread-local."""

    __slots__ = ("depth",)

    def __init__(self) -> None:
        self.depth = 0


_sched_tls = _SchedDepth()
# code objects of user code (not a constructor) seen calling scheduler.step(): the caller is
# then the user's line, with no frame walk (scheduler steps come from a few lines of a script)
# (keyed by id: hashing a code object hashes its constants, microseconds for module-level code)
_user_callers: dict[int, Any] = {}
_skip_aware: dict[type, bool] = {}  # scheduler class -> whether it is a SkipAwareScheduler
# LRScheduler.step's parameters (torch 1.x and 2.x), and what the wrapper's epoch reads when none is given
_SCHED_STEP_PARAMS = (("self", _REQUIRED), ("epoch", None))
_NO_EPOCH = object()


def _wrap_scheduler_step(engine: Engine, original: Callable[..., Any], torch_dir: str) -> Callable[..., Any]:
    tls = _sched_tls
    getframe = sys._getframe
    compiled_steps = engine.compiled_steps
    on_scheduler_step = engine.on_scheduler_step
    lane = engine.lane
    multi = engine.multi
    every_step = engine.every_step
    sites: dict[int, Any] = {}  # the user's lines that step schedulers (callsite.remember_site)

    def off_lane(sched_obj: Any, error: BaseException | None) -> None:
        """A step the lane began but cannot note (it failed, or the lane closed meanwhile):
        the general path's, from the lane's line, with the LR it started from."""
        sched = lane.sched
        _guard(engine, on_scheduler_step, sched_obj, sched.last_site if sched else None,
               (lane.lr,), (), {}, error)

    def off_multi(sched_obj: Any, event: Any, error: BaseException | None) -> None:
        """A step of the lane for several optimizers that it cannot note: the general path's
        (which closes the lane first), from the step's line, with the LR it started from."""
        _guard(engine, on_scheduler_step, sched_obj, event.site, (event.slot.lr,), (), {}, error)

    def general(self: Any, args: Any, kwargs: Any) -> Any:
        """Every step but the lane's (the wrappers below), with the arguments it was given: the
        caller of the scheduler's step() is two frames up."""
        if tls.depth or lane.phase == IN_SCHEDULER_STEP or lane.phase == IN_MULTI_STEP:
            # a composite stepping its children, or a subclass calling super().step()
            return original(self, *args, **kwargs)
        skip_aware = _skip_aware.get(type(self))
        if skip_aware is None:
            skip_aware = _skip_aware[type(self)] = bool(getattr(type(self), "_lrdoctor_skip_aware", False))
        if skip_aware:
            # lrdoctor.SkipAwareScheduler: its wrapped scheduler's steps are the real ones
            # (recorded with the user's line when the wrapper makes them); the wrapper itself
            # is not a schedule of its own
            return original(self, *args, **kwargs)
        if compiled_steps:  # optimizer steps made in compiled code come first
            _guard(engine, engine.drain_compiled)
        caller_frame = getframe(2)
        caller = caller_frame.f_code
        frame: FrameType | None = caller_frame
        site: Site | None = None
        direct = False  # the caller is the user's frame: the lane may open after this step
        if _user_callers.get(id(caller)) is caller:
            direct = True
            entry = sites.get(caller_frame.f_lasti)
            site = entry[1] if entry is not None and entry[0] is caller else remember_site(sites, caller_frame)
        else:
            if (caller.co_name == "__init__" or caller.co_filename.startswith(torch_dir)) and _guard(
                    engine, _is_construction_step, torch_dir, 4):
                tls.depth = 1
                try:
                    return original(self, *args, **kwargs)
                finally:
                    tls.depth = 0
                    _guard(engine, engine.on_internal_scheduler_step, self)
            if caller.co_name != "__init__" and _verdict(caller) == 2:
                _user_callers[id(caller)] = caller  # user_frame(3) is the caller itself: no walk next time
            else:
                frame = user_frame(3)
            site = (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None
        try:
            groups = self.optimizer.param_groups  # lrs_of(), inlined for one group, a float LR
            lr = groups[0].get("lr") if len(groups) == 1 else None
            before = (lr,) if type(lr) is float else lrs_of(self.optimizer)
        except Exception:  # no optimizer (a scheduler of our own kind), or no param groups
            before = ()
        tls.depth = 1
        error: BaseException | None = None
        try:
            # PyTorch warns from step() with stacklevel=2 (its order warning on the first step,
            # the epoch deprecation when an argument is passed); our wrapper is one frame
            # deeper, so such warnings are relayed to our caller's line, as without lrdoctor.
            if args or kwargs or getattr(self, "_step_count", 1) <= 1:
                return _relaying_warnings(original, self, *args, **kwargs)
            return original(self, *args, **kwargs)
        except BaseException as exc:
            error = exc
            raise
        finally:
            tls.depth = 0
            try:
                info = on_scheduler_step(self, site, before, args, kwargs, error)
                if info is not None and direct:
                    engine.open_lane(self, info, caller, caller_frame.f_lasti)
            except ScheduleError:
                raise
            except Exception as exc:
                engine.internal_error(exc)


    # The lane's path is the same text in both wrappers below (a test compares them:
    # tests/watch/test_sched_step_forms.py): the one with torch's own parameters is the common
    # one, the other takes whatever a class's own step() takes
    if _has_params(original, _SCHED_STEP_PARAMS):
        # torch's own step(self, epoch=None) (every LRScheduler but SequentialLR,
        # ChainedScheduler and ReduceLROnPlateau, and a subclass's step() with the same
        # parameters): the wrapper takes the same ones, so that step() with no argument makes
        # no tuple and dict for a star call (bench/OVERHEAD.md, perf57). An epoch given, by
        # position or by name, is passed on by position: the same call of the same step()
        @functools.wraps(original)
        def step(self: Any, epoch: Any = _NO_EPOCH) -> Any:
            if epoch is not _NO_EPOCH:
                return general(self, (epoch,), {})
            if not compiled_steps and not every_step:
                # the lane (Engine.Lane): the step after a routine update, made from the very
                # instruction that made the step before (lane.sched_ref answers None while the lane
                # is closed, also when another thread closed it meanwhile); inside the horizon, since
                # the lane takes no more updates than the horizon leaves steps (Engine.open_lane).
                # Tested before the depth (general()): while the lane's step runs, the lane's phase
                # is IN_SCHEDULER_STEP, which stands for the depth (one store less a step)
                if lane.phase == EXPECT_SCHEDULER_STEP and lane.sched_ref() is self:
                    caller_frame = getframe(1)
                    if caller_frame.f_lasti == lane.lasti and caller_frame.f_code is lane.code:
                        lane.phase = IN_SCHEDULER_STEP
                        try:
                            result = original(self)
                        except BaseException as exc:
                            if lane.phase == IN_SCHEDULER_STEP:
                                lane.phase = EXPECT_SCHEDULER_STEP
                            off_lane(self, exc)
                            raise
                        if lane.phase != IN_SCHEDULER_STEP:
                            # something the step called closed the lane (an engine entry point syncs):
                            # the step is then the general path's to note, as a step that failed is
                            off_lane(self, None)
                            return result
                        try:
                            try:
                                [group] = self.optimizer.param_groups
                                lr = group["lr"]
                            except (ValueError, KeyError):  # not one group with an LR
                                lr = None
                            # a finite float at least COLLAPSE_RATIO of the highest LR so far (NaN
                            # compares false), kept as the float itself (no tuple a step: Engine.sync)
                            if type(lr) is float and lr >= lane.floor and lr < INF:
                                lane.lrs_after.append(lr)
                                lane.lr = lr
                                lane.phase = EXPECT_ATTEMPT
                                if lr > lane.peak:
                                    lane.peak = lr
                                    lane.floor = lr * COLLAPSE_RATIO
                            else:  # the next update is not routine: it takes the general path
                                lane.last_after = (lr,) if type(lr) is float else lrs_of(self.optimizer)
                                lane.phase = ATTEMPTS_OFF
                        except Exception as exc:
                            engine.internal_error(exc)
                        return result
                elif lane.phase == MULTI:
                    # the lane for several optimizers (Engine.MultiLane): the cycle's next step is this
                    # scheduler's, made from the very instruction that made its last one; its LR noted
                    # when routine (a finite float at least COLLAPSE_RATIO of the highest so far, and
                    # with no horizon above what the checks take for 0), else noted by the general path
                    event = multi.cycle[multi.pos]
                    if event.ref() is self and multi.left:
                        caller_frame = getframe(1)
                        if caller_frame.f_lasti == event.lasti and caller_frame.f_code is event.code:
                            lane.phase = IN_MULTI_STEP
                            try:
                                result = original(self)
                            except BaseException as exc:
                                if lane.phase == IN_MULTI_STEP:
                                    lane.phase = MULTI
                                off_multi(self, event, exc)
                                raise
                            if lane.phase != IN_MULTI_STEP:  # closed meanwhile: the general path's
                                off_multi(self, event, None)
                                return result
                            lane.phase = MULTI
                            try:
                                try:
                                    [group] = self.optimizer.param_groups
                                    lr = group["lr"]
                                except (ValueError, KeyError):  # not one group with an LR
                                    lr = None
                                slot = event.slot
                                if type(lr) is float and lr >= slot.floor and lr < INF:
                                    slot.lrs.append(lr)
                                    slot.lr = lr
                                    multi.left -= 1
                                    multi.pos = event.next
                                    if lr > slot.peak:
                                        slot.peak = lr
                                        slot.floor = max(lr * COLLAPSE_RATIO, slot.zero)
                                else:
                                    off_multi(self, event, None)
                            except Exception as exc:
                                engine.internal_error(exc)
                            return result
            return general(self, (), {})
    else:

        @functools.wraps(original)
        def step(self: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            if not args and not kwargs and not compiled_steps and not every_step:
                # the lane (Engine.Lane): the step after a routine update, made from the very
                # instruction that made the step before (lane.sched_ref answers None while the lane
                # is closed, also when another thread closed it meanwhile); inside the horizon, since
                # the lane takes no more updates than the horizon leaves steps (Engine.open_lane).
                # Tested before the depth (general()): while the lane's step runs, the lane's phase
                # is IN_SCHEDULER_STEP, which stands for the depth (one store less a step)
                if lane.phase == EXPECT_SCHEDULER_STEP and lane.sched_ref() is self:
                    caller_frame = getframe(1)
                    if caller_frame.f_lasti == lane.lasti and caller_frame.f_code is lane.code:
                        lane.phase = IN_SCHEDULER_STEP
                        try:
                            result = original(self)
                        except BaseException as exc:
                            if lane.phase == IN_SCHEDULER_STEP:
                                lane.phase = EXPECT_SCHEDULER_STEP
                            off_lane(self, exc)
                            raise
                        if lane.phase != IN_SCHEDULER_STEP:
                            # something the step called closed the lane (an engine entry point syncs):
                            # the step is then the general path's to note, as a step that failed is
                            off_lane(self, None)
                            return result
                        try:
                            try:
                                [group] = self.optimizer.param_groups
                                lr = group["lr"]
                            except (ValueError, KeyError):  # not one group with an LR
                                lr = None
                            # a finite float at least COLLAPSE_RATIO of the highest LR so far (NaN
                            # compares false), kept as the float itself (no tuple a step: Engine.sync)
                            if type(lr) is float and lr >= lane.floor and lr < INF:
                                lane.lrs_after.append(lr)
                                lane.lr = lr
                                lane.phase = EXPECT_ATTEMPT
                                if lr > lane.peak:
                                    lane.peak = lr
                                    lane.floor = lr * COLLAPSE_RATIO
                            else:  # the next update is not routine: it takes the general path
                                lane.last_after = (lr,) if type(lr) is float else lrs_of(self.optimizer)
                                lane.phase = ATTEMPTS_OFF
                        except Exception as exc:
                            engine.internal_error(exc)
                        return result
                elif lane.phase == MULTI:
                    # the lane for several optimizers (Engine.MultiLane): the cycle's next step is this
                    # scheduler's, made from the very instruction that made its last one; its LR noted
                    # when routine (a finite float at least COLLAPSE_RATIO of the highest so far, and
                    # with no horizon above what the checks take for 0), else noted by the general path
                    event = multi.cycle[multi.pos]
                    if event.ref() is self and multi.left:
                        caller_frame = getframe(1)
                        if caller_frame.f_lasti == event.lasti and caller_frame.f_code is event.code:
                            lane.phase = IN_MULTI_STEP
                            try:
                                result = original(self)
                            except BaseException as exc:
                                if lane.phase == IN_MULTI_STEP:
                                    lane.phase = MULTI
                                off_multi(self, event, exc)
                                raise
                            if lane.phase != IN_MULTI_STEP:  # closed meanwhile: the general path's
                                off_multi(self, event, None)
                                return result
                            lane.phase = MULTI
                            try:
                                try:
                                    [group] = self.optimizer.param_groups
                                    lr = group["lr"]
                                except (ValueError, KeyError):  # not one group with an LR
                                    lr = None
                                slot = event.slot
                                if type(lr) is float and lr >= slot.floor and lr < INF:
                                    slot.lrs.append(lr)
                                    slot.lr = lr
                                    multi.left -= 1
                                    multi.pos = event.next
                                    if lr > slot.peak:
                                        slot.peak = lr
                                        slot.floor = max(lr * COLLAPSE_RATIO, slot.zero)
                                else:
                                    off_multi(self, event, None)
                            except Exception as exc:
                                engine.internal_error(exc)
                            return result
            return general(self, args, kwargs)

    step._lrdoctor = True  # type: ignore[attr-defined]
    return step


# ---- data loaders -------------------------------------------------------------------------


class FetchHook:
    """The DataLoader iterators' ``__next__`` hook, which notes which iterator yielded the
    latest batch and its batch count (what the optimizer step after it was fed by), and which
    a lane may take off.

    ``_BaseDataLoaderIter.__next__`` is replaced by one function object for the whole watch,
    whose code is either the hook (a frame that calls torch's ``__next__`` and notes the
    batch) or torch's own ``__next__`` code itself, run with torch's globals, no closure and no
    defaults: exactly torch's function, no frame more. Switching swaps the function's code
    and defaults; the class is not touched, so nothing CPython specialised on the iterator
    classes is invalidated (a class attribute assignment would be: bench/OVERHEAD.md, perf17).

    A lane kept through a periodic step (Engine.lane_period, scaled_lane_period, and
    multi_period for several optimizers) drops the hook while its
    iterator is the only live DataLoader iterator: every batch is then that iterator's, so
    the hook would note the same iterator each time, and the lane reads the batch count from
    the iterator itself at each update (Lane.it_ref). The hook is back (``restore``) when the
    lane closes (Engine.sync, before the general path reads what the hook notes) and when
    another iterator is made (``__init__``). The watch cannot count the iterators made before
    it started (looking for them means a walk over the whole heap: ~0.1-1 s); one that feeds
    an update while the hook is on (Engine.foreign_fetch) keeps the hook on for good. One that
    first does so while the hook is off is not seen: its batch is taken for the lane's
    iterator's, which fed the step before it (the general path would name that loader too,
    as the loader of the last known batch, but would not count the lane iterator's batches
    for it)."""

    def __init__(self, engine: Engine, original: Any, hooked: Any, defaults: tuple[Any, ...]) -> None:
        import types
        import weakref

        self.engine = engine
        self.plain_code = original.__code__
        self.hooked_code = hooked.__code__
        self.hooked_defaults = defaults
        # the function in the class: torch's globals, so that torch's code runs as it does
        # without lrdoctor once it is swapped in
        self.fn = types.FunctionType(self.hooked_code, original.__globals__, original.__name__, defaults, None)
        functools.update_wrapper(self.fn, original)
        self.live: Any = weakref.WeakSet()  # the iterators made while watching, still alive

    @staticmethod
    def droppable(original: Any) -> bool:
        """Whether ``original`` is a plain function whose code can run in its place: no
        closure, no defaults (torch's own ``__next__``; not another tool's wrapper)."""
        import types

        return (type(original) is types.FunctionType and original.__closure__ is None
                and original.__defaults__ is None and original.__kwdefaults__ is None
                and original.__code__.co_argcount == 1 and not original.__code__.co_freevars)

    def drop(self, it: Any) -> None:
        """Run torch's ``__next__`` alone while ``it``, the open lane's iterator, is the only
        live DataLoader iterator (else nothing)."""
        from torch.utils.data.dataloader import _BaseDataLoaderIter

        engine = self.engine
        lane = engine.lane
        if (lane.unhooked or engine.foreign_fetch or not isinstance(it, _BaseDataLoaderIter)
                or engine.compiled_steps or len(self.live) != 1 or it not in self.live
                or id(it) != engine.last_fetch):
            return
        fn = self.fn
        fn.__code__ = self.plain_code  # (then no defaults: torch's code takes none)
        fn.__defaults__ = None
        lane.unhooked = True
        if len(self.live) != 1:
            # another thread made an iterator meanwhile (its __init__ adds it, then puts the
            # hook back if it is off: one of the two sees the other)
            self.restore()

    def restore(self) -> None:
        """The hook back, with what it would have noted by now: the lane's iterator yielded
        every batch since the drop."""
        lane = self.engine.lane
        if not lane.unhooked:
            return
        fn = self.fn
        fn.__defaults__ = self.hooked_defaults  # (first: the hook's code needs them)
        fn.__code__ = self.hooked_code
        lane.unhooked = False
        it = lane.it_ref()
        if it is not None and id(it) == self.engine.last_fetch:
            try:
                self.engine.last_yielded = it._num_yielded
            except AttributeError:
                pass


def _next_hooked(self: Any, _lrdoctor_engine: Any = None, _lrdoctor_next: Any = None,
                 _lrdoctor_compiled: Any = None, _lrdoctor_drain: Any = None) -> Any:
    """``_BaseDataLoaderIter.__next__`` while watched (FetchHook): run with torch's globals,
    so it names nothing but builtins and its defaults (set by FetchHook)."""
    if _lrdoctor_compiled:
        _lrdoctor_drain()
    batch = _lrdoctor_next(self)
    _lrdoctor_engine.last_fetch = id(self)
    _lrdoctor_engine.last_yielded = self._num_yielded  # what the lane's updates record (Engine.Lane)
    return batch


def _install_loader_hooks(engine: Engine, patcher: Patcher, torch: Any) -> None:
    """The start of each pass, and which iterator yielded the latest batch (one attribute
    store per batch; the batch counts themselves are read from the iterators' own counters)."""
    from torch.utils.data import DataLoader
    from torch.utils.data.dataloader import _BaseDataLoaderIter

    original_iter = DataLoader.__dict__["__iter__"]
    original_next = _BaseDataLoaderIter.__dict__["__next__"]
    original_init = _BaseDataLoaderIter.__dict__["__init__"]

    @functools.wraps(original_iter)
    def __iter__(self: Any) -> Any:
        depth = getattr(_tls, "loader_depth", 0)
        _tls.loader_depth = depth + 1
        try:
            it = original_iter(self)
        finally:
            _tls.loader_depth = depth
        if depth == 0:  # a subclass calling super().__iter__() starts one pass, not two
            _guard(engine, engine.on_loader_iter, self, it)
        return it

    compiled_steps = engine.compiled_steps

    def drain() -> None:
        _guard(engine, engine.drain_compiled)

    if FetchHook.droppable(original_next):
        fetch = FetchHook(engine, original_next, _next_hooked, (engine, original_next, compiled_steps, drain))
        live = fetch.live
        lane = engine.lane

        @functools.wraps(original_init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            original_init(self, *args, **kwargs)
            try:
                live.add(self)
                if lane.unhooked:  # another iterator: every batch is noted again
                    fetch.restore()
            except Exception as exc:
                engine.internal_error(exc)

        def off() -> None:
            fetch.restore()
            engine.fetch_hook = None

        engine.fetch_hook = fetch
        patcher.on_undo(off)
        patcher.setattr(_BaseDataLoaderIter, "__init__", __init__)
        patcher.setattr(_BaseDataLoaderIter, "__next__", fetch.fn)
    else:  # another tool's wrapper is there: a hook of its own, never dropped

        @functools.wraps(original_next)
        def __next__(self: Any) -> Any:
            if compiled_steps:
                drain()
            batch = original_next(self)
            engine.last_fetch = id(self)
            engine.last_yielded = self._num_yielded  # what the lane's updates record (Engine.Lane)
            return batch

        patcher.setattr(_BaseDataLoaderIter, "__next__", __next__)
    patcher.setattr(DataLoader, "__iter__", __iter__)
