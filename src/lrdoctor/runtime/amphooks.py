"""Hooks on the loss's way to the optimizer: ``backward()``, ``GradScaler.scale``/``unscale_``
and gradient clipping. They emit :class:`Backward`, :class:`ScalerUnscale` and
:class:`GradClip`; the numerics and AMP checks read them. Installed once per engine, whichever
check asks first, and undone with everything else.
"""

from __future__ import annotations

import functools
import sys
import weakref
from collections.abc import Callable
from typing import Any

from lrdoctor.runtime.callsite import _verdict, user_site, user_site_from
from lrdoctor.runtime.engine import (
    CLOSED,
    EXPECT_ATTEMPT,
    EXPECT_SCALED_ATTEMPT,
    MULTI,
    ROUTE_EVENT,
    ROUTE_FREE,
    ROUTE_READ,
    Engine,
)
from lrdoctor.runtime.events import Backward, BackwardDone, GradClip, ScalerUnscale
from lrdoctor.runtime.hooks import _REQUIRED, _guard, _has_params, _scaler_classes
from lrdoctor.runtime.patching import Patcher


class _Depth:
    """backward() and clipping calls in progress. Shared by all threads, not thread-local: a
    thread-local attribute costs about 800 machine instructions a read or write, on every
    step; a backward() that starts while another is in progress (activation checkpointing,
    even when autograd runs it on a device thread) is an inner one."""

    __slots__ = ("depth", "clip_depth")

    def __init__(self) -> None:
        self.depth = 0
        self.clip_depth = 0


_tls = _Depth()

# torch.autograd.backward's parameters, each with its default (``_REQUIRED``: none), in order,
# every one positional-or-keyword: the wrapper that takes the same ones is used only then
_BACKWARD_PARAMS = (("tensors", _REQUIRED), ("grad_tensors", None), ("retain_graph", None),
                    ("create_graph", False), ("grad_variables", None), ("inputs", None))
_NO_KWARGS: dict[str, Any] = {}  # (never written to)
_NOT_TOLD = object()  # (see _wrap_unscale)
# GradScaler.scale's and unscale_'s parameters (torch 2.x)
_SCALE_PARAMS = (("self", _REQUIRED), ("outputs", _REQUIRED))
_UNSCALE_PARAMS = (("self", _REQUIRED), ("optimizer", _REQUIRED))


def install_amp_hooks(engine: Engine, patcher: Patcher) -> None:
    if getattr(engine, "_lrdoctor_amp_hooks", False):
        return
    import torch

    engine._lrdoctor_amp_hooks = True  # type: ignore[attr-defined]
    patcher.on_undo(lambda: setattr(engine, "_lrdoctor_amp_hooks", False))
    # id(scaled output) -> (output, scaler, loss), all weak so nothing is kept alive; looked up
    # by id and confirmed by identity (a WeakKeyDictionary would compare tensors with ==)
    scaled: dict[int, tuple[Any, Any, Any]] = {}
    patcher.on_undo(scaled.clear)

    for cls in _scaler_classes(torch):
        if "scale" in cls.__dict__:
            patcher.setattr(cls, "scale", _wrap_scale(engine, cls.__dict__["scale"], scaled, torch))
        if "unscale_" in cls.__dict__:
            patcher.setattr(cls, "unscale_", _wrap_unscale(engine, cls.__dict__["unscale_"]))

    from lrdoctor import ScheduleError

    original_backward = torch.autograd.backward
    emit = engine.emit
    compiled_steps = engine.compiled_steps
    tensor_type = torch.Tensor
    lane = engine.lane
    multi = engine.multi
    verdict = _verdict
    getframe = sys._getframe
    # the user's line of a routine scaled backward, by the caller's instruction offset:
    # (caller's code, the user's code and offset above it or None, the line) (see scaled_site)
    backward_sites: dict[int, tuple[Any, Any, int, Any]] = {}

    def scaled_site(frame: Any) -> Any:
        """user_site_from(frame), remembered for a caller that is the user's code, or torch's
        code called from the user's: Tensor.backward() called from a training loop. The
        answer depends on those frames' code objects and instruction offsets alone."""
        entry = backward_sites.get(frame.f_lasti)
        if entry is not None and entry[0] is frame.f_code:
            above = entry[1]
            if above is None:
                return entry[3]
            back = frame.f_back
            if back is not None and back.f_code is above and back.f_lasti == entry[2]:
                return entry[3]
        site = user_site_from(frame)
        if len(backward_sites) >= 64:
            backward_sites.clear()
        v = verdict(frame.f_code)
        if v == 2:
            backward_sites[frame.f_lasti] = (frame.f_code, None, 0, site)
        elif v == 0:
            back = frame.f_back
            if back is not None and verdict(back.f_code) == 2:
                backward_sites[frame.f_lasti] = (frame.f_code, back.f_code, back.f_lasti, site)
        return site

    def routine_scaled_done(by: Any, frame: Any) -> None:
        """After a routine scaled backward by the scaler ``by``, called from ``frame`` (the
        caller of backward()): counted, the lane's next update expected from scaler.step(), and
        the AMP check told directly (AmpMisuse.scaled_backward)."""
        engine.routine_backwards_done += 1
        held = lane.phase == EXPECT_ATTEMPT and lane.scaler_ref() is by
        if held:
            lane.phase = EXPECT_SCALED_ATTEMPT
        amp = engine.scaled_gate
        if amp is not None:
            try:
                if held:  # the lane keeps what the AMP check is told (AmpMisuse.lane_closed)
                    lane.bsite, lane.unscaled = scaled_site(frame), False
                    lane.bcall = None  # (Lane.bcall: not remembered on this path)
                    return
                amp.scaled_backward(by, scaled_site(frame))
            except ScheduleError:
                raise
            except Exception as exc:
                engine.internal_error(exc)

    # Only torch.autograd.backward is wrapped: Tensor.backward() calls it (looked up on the
    # module at call time), so one wrapper sees both, and the step pays one frame, not two.

    def general(tensors: Any, args: Any, kwargs: Any) -> Any:
        """The wrapper's path for every backward() but the routine unscaled one it runs itself
        (it decides that case the same way). Called from the wrapper: the caller of
        backward() is two frames up."""
        # the Backward event, or for a routine scaled backward a tuple (its scaler,)
        ev: Any = None
        fast = False
        try:
            if compiled_steps:  # optimizer steps made in compiled code come first
                engine.drain_compiled()
            tensor = tensors
            if type(tensors) is not tensor_type and isinstance(tensors, (list, tuple)):
                tensor = tensors[0] if len(tensors) == 1 else None
            # the loss NaN detection reads (Backward.loss): the one scale() was given while it
            # lives, else what backward() was called on
            scaler, loss = None, tensor
            if scaled:
                entry = scaled.get(id(tensor))
                if entry is not None and entry[0]() is tensor:
                    scaler, given = entry[1](), entry[2]()
                    if given is not None:
                        loss = given
            # A routine backward (nothing asked for every backward, and for NaN detection a
            # finite CPU scalar loss, read as it is with no tensor op, nothing armed: see
            # NonFinite.loss_gate) makes no events; a count tells the checks it returned. The
            # test is written here, not called: it runs on every step. Under GradScaler, not
            # while a lane is open, except one under GradScaler waiting for this scaler's next
            # step (which then expects that step from scaler.step() only): the event's sync
            # closes it (the steps after a scaled backward are no longer routine for it, see
            # Engine.every_direct_step); what the AMP check does with a scaled backward's
            # BackwardDone is done below (AmpMisuse.scaled_backward)
            if ((scaler is None or lane.phase == CLOSED
                    or (lane.phase == EXPECT_ATTEMPT and lane.scaler_ref() is scaler))
                    and (route := engine.backward_route) != ROUTE_EVENT):
                if route == ROUTE_FREE:
                    fast = True
                elif type(loss) is tensor_type and loss.is_cpu and not loss.ndim:
                    value = loss.item()
                    fast = value - value == 0.0  # finite: not inf, not NaN
                if fast and scaler is not None:
                    # a routine scaled backward: marked by ev, counted apart from the unscaled
                    # ones (their path pays nothing for it)
                    ev, fast = (scaler,), False
            if not fast and ev is None:
                ev = Backward(tensor, scaler, loss, sys._getframe(2))
                emit(ev)
        except ScheduleError:
            raise
        except Exception as exc:
            engine.internal_error(exc)
        _tls.depth = 1
        try:
            if kwargs is _NO_KWARGS:
                # from the wrapper with torch's own parameters (every backward() under
                # GradScaler comes this way): its five arguments forwarded as a plain call, no
                # list, tuple and dict made for a star call (bench/OVERHEAD.md, perf19, perf47)
                grad_tensors, retain_graph, create_graph, grad_variables, inputs = args
                return original_backward(tensors, grad_tensors, retain_graph, create_graph,
                                         grad_variables, inputs)
            return original_backward(tensors, *args, **kwargs)
        finally:
            _tls.depth = 0
            if fast:
                engine.routine_backwards_done += 1
            elif type(ev) is tuple:  # a routine scaled backward
                routine_scaled_done(ev[0], sys._getframe(2))
            elif ev is not None:
                ev.done = True
                try:
                    emit(BackwardDone(ev))
                except ScheduleError:
                    raise
                except Exception as exc:
                    engine.internal_error(exc)
                finally:
                    ev.frame = None  # the event must not keep the user's frame alive

    # The wrapper takes torch's own parameters, so that the call it forwards is a plain one:
    # with ``*args, **kwargs`` every backward() packed its arguments into a tuple and a dict
    # (Tensor.backward passes ``inputs=`` by keyword) and unpacked them again for torch, which
    # cost more than the rest of its routine path (bench/OVERHEAD.md, perf19). Used when
    # torch.autograd.backward has exactly these parameters (every torch since 1.8); otherwise
    # the wrapper forwards whatever it is given and leaves every backward() to general().
    if _has_params(original_backward, _BACKWARD_PARAMS):

        @functools.wraps(original_backward)
        def autograd_backward(tensors: Any, grad_tensors: Any = None, retain_graph: Any = None,
                              create_graph: Any = False, grad_variables: Any = None, inputs: Any = None) -> Any:
            if _tls.depth:  # a backward run from inside a backward (checkpointing): not the user's
                return original_backward(tensors, grad_tensors, retain_graph, create_graph, grad_variables, inputs)
            # The common case first, general()'s routine test in fewer steps: backward() on one
            # tensor that no scale() made (nothing scaled at all), no compiled optimizer step
            # pending, nothing asked for every backward, and for NaN detection a finite CPU
            # scalar loss with nothing armed. Anything else (or any doubt) takes general(),
            # which decides the same way.
            # (the tensor's type and a pending compiled step tested once for both short paths below)
            if type(tensors) is tensor_type and not compiled_steps:
                if not scaled:
                    try:
                        # Engine.backward_route: nothing asks for every backward, and NaN
                        # detection is absent (free) or quiet (read the loss)
                        route = engine.backward_route
                        if route == ROUTE_READ:
                            if tensors.is_cpu and not tensors.ndim:
                                value = tensors.item()
                                # finite (not inf, not NaN); an integer or bool loss cannot be
                                # backpropagated, and would be routine in general() too (no event
                                # for NaN detection, which reads floating-point losses only)
                                routine = value - value == 0.0
                            else:
                                routine = False
                        else:
                            routine = route == ROUTE_FREE
                    except ScheduleError:
                        raise
                    except Exception:
                        routine = False  # the general path decides (and reports an internal error)
                    if routine:
                        _tls.depth = 1
                        try:
                            return original_backward(tensors, grad_tensors, retain_graph, create_graph,
                                                     grad_variables, inputs)
                        finally:
                            _tls.depth = 0
                            engine.routine_backwards_done += 1
                elif lane.phase == EXPECT_ATTEMPT or lane.phase == CLOSED or lane.phase == MULTI:
                    # The lane under GradScaler's common case, general()'s routine scaled backward
                    # decided the same way with no frame more: backward() on what scale() returned
                    # (confirmed by identity) for the lane's scaler (or, with no lane open, for any
                    # scaler: every step of a loop with several optimizers under GradScaler),
                    # nothing asked for every backward, and for NaN detection the finite CPU scalar
                    # loss scale() was given (or the output itself once that is gone); for the lane
                    # for several optimizers under GradScaler (Engine.MultiLane), its scaler's
                    # backward after update(). Anything else takes general().
                    scaler = None
                    try:
                        entry = scaled.get(id(tensors))
                        if entry is not None and entry[0]() is tensors:
                            scaler = entry[1]()
                            if scaler is not None and (lane.scaler_ref() is scaler or lane.phase == CLOSED or (
                                    multi.scaler_ref() is scaler and multi.sphase < 0 and lane.phase == MULTI)):
                                route = engine.backward_route
                                if route == ROUTE_READ:
                                    loss = entry[2]()
                                    if loss is None:
                                        loss = tensors
                                    if type(loss) is tensor_type and loss.is_cpu and not loss.ndim:
                                        value = loss.item()
                                        if value - value != 0.0:  # not finite: general() (an event)
                                            scaler = None
                                    else:
                                        scaler = None
                                elif route != ROUTE_FREE:
                                    scaler = None
                            else:
                                scaler = None
                    except ScheduleError:
                        raise
                    except Exception:
                        scaler = None  # the general path decides (and reports an internal error)
                    if scaler is not None:
                        _tls.depth = 1
                        try:
                            return original_backward(tensors, grad_tensors, retain_graph, create_graph,
                                                     grad_variables, inputs)
                        finally:
                            # routine_scaled_done(), written here: it runs on every step
                            _tls.depth = 0
                            engine.routine_backwards_done += 1
                            if lane.phase == EXPECT_ATTEMPT and lane.scaler_ref() is scaler:
                                lane.phase = EXPECT_SCALED_ATTEMPT
                                held = True
                            elif lane.phase == MULTI:
                                # the lane for several optimizers under GradScaler: the updates
                                # scaler.step() makes come next; the line is kept in Lane.bsite
                                # (the lane for one optimizer is closed meanwhile), handed to the AMP
                                # check when it closes (AmpMisuse.lane_closed_multi)
                                if multi.scaler_ref() is scaler and multi.sphase < 0:
                                    multi.sphase = 0
                                    held = True
                                else:  # (it cannot hold this backward: closed first)
                                    engine.sync()
                                    held = False
                            else:
                                held = False
                            amp = engine.scaled_gate
                            if amp is not None:
                                try:
                                    frame = getframe(1)
                                    if (held and frame.f_code is lane.bcall and (back := frame.f_back) is not None
                                            and back.f_lasti == lane.blasti and back.f_code is lane.bcode):
                                        # the lane's last scaled backward was made from the same
                                        # torch caller (Tensor.backward) on the same user's
                                        # instruction, the only frames its line depends on
                                        # (Lane.bcall): Lane.bsite is this one's line too
                                        lane.unscaled = False
                                    else:
                                        # scaled_site()'s remembered answer for the same caller and
                                        # instruction (and the same user's line above a torch caller)
                                        site_entry = backward_sites.get(frame.f_lasti)
                                        if site_entry is not None and site_entry[0] is frame.f_code and (
                                                site_entry[1] is None
                                                or ((back := frame.f_back) is not None and back.f_code is site_entry[1]
                                                    and back.f_lasti == site_entry[2])):
                                            site = site_entry[3]
                                        else:
                                            site = scaled_site(frame)
                                        if held:
                                            # the lane keeps what the AMP check's scaled_backward() is
                                            # told, and hands it over when it closes (AmpMisuse.lane_closed)
                                            lane.bsite, lane.unscaled = site, False
                                            # and, for a torch caller below the user's code, the
                                            # frames that line depends on (Lane.bcall)
                                            back = frame.f_back
                                            if (back is not None and verdict(frame.f_code) == 0
                                                    and verdict(back.f_code) == 2):
                                                lane.bcall, lane.bcode, lane.blasti = frame.f_code, back.f_code, back.f_lasti
                                            else:
                                                lane.bcall = None
                                        else:
                                            amp.scaled_backward(scaler, site)
                                except ScheduleError:
                                    raise
                                except Exception as exc:
                                    engine.internal_error(exc)
            return general(tensors, (grad_tensors, retain_graph, create_graph, grad_variables, inputs), _NO_KWARGS)
    else:

        @functools.wraps(original_backward)
        def autograd_backward(tensors: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            if _tls.depth:
                return original_backward(tensors, *args, **kwargs)
            return general(tensors, args, kwargs)

    patcher.setattr(torch.autograd, "backward", autograd_backward)

    import torch.nn.utils.clip_grad as clip_mod

    for name in ("clip_grad_norm_", "clip_grad_value_"):
        original = getattr(clip_mod, name, None)
        if original is None:
            continue
        wrapped = _wrap_clip(engine, name, original, torch)
        patcher.setattr(clip_mod, name, wrapped)
        if getattr(torch.nn.utils, name, None) is original:
            patcher.setattr(torch.nn.utils, name, wrapped)


def _wrap_scale(engine: Engine, original: Callable[..., Any], scaled: Any, torch: Any) -> Callable[..., Any]:
    tensor_type = torch.Tensor
    ref = weakref.ref

    def note(self: Any, outputs: Any, result: Any) -> None:
        if len(scaled) >= 64:  # drop the entries whose output is gone
            for key in [k for k, v in scaled.items() if v[0]() is None]:
                del scaled[key]
        try:
            scaled[id(result)] = (ref(result), ref(self), ref(outputs))
        except TypeError:
            pass

    if _has_params(original, _SCALE_PARAMS):
        # torch's own scale(self, outputs): called as it is, with no tuple and dict made for
        # a star call on every step (as the backward wrapper: bench/OVERHEAD.md, perf48)
        @functools.wraps(original)
        def scale(self: Any, outputs: Any) -> Any:
            result = original(self, outputs)
            # (no test of the scaler's _enabled: torch's scale() returns the outputs themselves
            # when it is not enabled, and a new tensor only when it is, perf60)
            if result is not outputs and (type(result) is tensor_type or isinstance(result, tensor_type)):
                if len(scaled) < 64:
                    try:
                        scaled[id(result)] = (ref(result), ref(self), ref(outputs))
                    except TypeError:
                        pass
                else:
                    note(self, outputs, result)
            return result

        return scale

    @functools.wraps(original)
    def scale_any(self: Any, outputs: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, outputs, *args, **kwargs)
        if isinstance(result, tensor_type) and result is not outputs and getattr(self, "_enabled", True):
            note(self, outputs, result)
        return result

    return scale_any


def _wrap_unscale(engine: Engine, original: Callable[..., Any]) -> Callable[..., Any]:
    lane = engine.lane
    multi = engine.multi
    every_step = engine._every_step_handlers
    handlers = engine._handlers
    optimizers = engine.optimizers
    from lrdoctor import ScheduleError

    def told(self: Any, optimizer: Any, amp: Any) -> Any:
        """general()'s event outside any lane, when its one handler is the AMP check's
        on_unscale(), which reads the scaler and the optimizer's record alone (no line): that
        call made directly, with the record of an optimizer known by itself (not a wrapper's
        alias, which on_unscale maps to the wrapped one). Returns what torch's unscale_
        returned, or _NOT_TOLD (torch's not called): general() decides."""
        hs = handlers.get(ScalerUnscale)
        if hs is None or len(hs) != 1 or hs[0] != amp.on_unscale:
            return _NOT_TOLD
        info = optimizers.get(id(optimizer))
        if info is None or info.ref() is not optimizer:
            return _NOT_TOLD
        result = original(self, optimizer)
        if getattr(self, "_enabled", True):
            try:
                amp.unscaled_by(id(self), info.key, self)
            except ScheduleError:
                raise
            except Exception as exc:
                engine.internal_error(exc)
        return result

    def general(self: Any, optimizer: Any, args: Any, kwargs: Any) -> Any:
        by_step = id(optimizer) in engine._in_scaler_step
        site = None if by_step else _guard(engine, user_site, 4)
        if kwargs is _NO_KWARGS:  # from unscale_ (torch's parameters): a plain call
            result = original(self, optimizer)
        else:
            result = original(self, optimizer, *args, **kwargs)
        if getattr(self, "_enabled", True):
            _guard(engine, engine.emit, ScalerUnscale(self, optimizer, site, by_step))
        return result

    # the lane under GradScaler, after its scaled backward: an unscale_ of the lane's optimizer
    # by the lane's scaler, made by scaler.step() or by the user's code before it (to clip the
    # gradients), is noted by the lane (Lane.unscaled), which tells the AMP check
    # (ScalerUnscale's every_step=False handler, which reads the scaler and the optimizer alone)
    # when it closes; anything else is general()'s
    if _has_params(original, _UNSCALE_PARAMS):
        # torch's own unscale_(self, optimizer): called as it is (no star call a step)
        @functools.wraps(original)
        def unscale_(self: Any, optimizer: Any) -> Any:
            amp = engine.scaled_gate
            if (lane.phase == EXPECT_SCALED_ATTEMPT and lane.opt_ref() is optimizer and lane.scaler_ref() is self
                    and amp is not None and ScalerUnscale not in every_step):
                result = original(self, optimizer)
                if getattr(self, "_enabled", True):
                    lane.unscaled = True  # (the AMP check's unscaled_by(): AmpMisuse.lane_closed)
                return result
            # outside any lane (several optimizers under GradScaler with no lane), the event's
            # one handler called directly when it is the AMP check's (told())
            if lane.phase == CLOSED and amp is not None and ScalerUnscale not in every_step:
                result = told(self, optimizer, amp)
                if result is not _NOT_TOLD:
                    return result
            # the lane for several optimizers under GradScaler (Engine.MultiLane), after its
            # scaled backward: an unscale_ by its scaler of a known optimizer (every one is the
            # lane's), by scaler.step() or by the user's code, noted (MultiLane.unscaled) and
            # told to the AMP check, the event's only handler then (Engine._multi_scaler), when
            # the lane closes (AmpMisuse.lane_closed_multi)
            elif (lane.phase == MULTI and multi.scaler_ref() is self and multi.sphase >= 0 and amp is not None
                    and ScalerUnscale not in every_step):
                info = optimizers.get(id(optimizer))
                if info is not None and info.ref() is optimizer:
                    result = original(self, optimizer)
                    if getattr(self, "_enabled", True):
                        multi.unscaled.add(info.key)
                    return result
            return general(self, optimizer, (), _NO_KWARGS)

        return unscale_

    @functools.wraps(original)
    def unscale_any(self: Any, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        amp = engine.scaled_gate
        if (lane.phase == EXPECT_SCALED_ATTEMPT and lane.opt_ref() is optimizer and lane.scaler_ref() is self
                and amp is not None and ScalerUnscale not in every_step):
            result = original(self, optimizer, *args, **kwargs)
            if getattr(self, "_enabled", True):
                lane.unscaled = True
            return result
        return general(self, optimizer, args, kwargs)

    return unscale_any


def _wrap_clip(engine: Engine, name: str, original: Callable[..., Any], torch: Any) -> Callable[..., Any]:
    every_step = engine._every_step_handlers
    tokens = engine.every_step
    lane = engine.lane
    multi = engine.multi

    @functools.wraps(original)
    def clip(parameters: Any, *args: Any, **kwargs: Any) -> Any:
        if _tls.clip_depth:
            return original(parameters, *args, **kwargs)
        # A routine clip makes no event, so it leaves the lane open, and is counted
        # (Engine.routine_clips): no handler asks for every clip, no check for every step, and
        # the AMP check (GradClip's every_step=False handler) has nothing to do for it
        # (AmpMisuse.clip_is_routine, whose quick case, nothing scaled, is inlined; the lane
        # under GradScaler keeps its own iteration's state: after its scaled backward and
        # before scaler.step(), the gradients are scaled until unscale_)
        amp = engine.scaled_gate
        if (GradClip not in every_step and not tokens
                and (amp is None or ((not amp.scaled or amp.clip_is_routine())
                                     and (lane.phase != EXPECT_SCALED_ATTEMPT or lane.unscaled)
                                     # (the lane for several optimizers under GradScaler after its
                                     # scaled backward: every optimizer unscaled)
                                     and (lane.phase != MULTI or multi.sphase < 0
                                          or len(multi.unscaled) == multi.nopt)))):
            engine.routine_clips += 1
        else:
            if not isinstance(parameters, torch.Tensor):
                parameters = list(parameters)  # a generator can be read once: read it for both
            params = [parameters] if isinstance(parameters, torch.Tensor) else parameters
            _guard(engine, engine.emit, GradClip(name, params, user_site(3)))
        _tls.clip_depth = 1
        try:
            return original(parameters, *args, **kwargs)
        finally:
            _tls.clip_depth = 0

    return clip
