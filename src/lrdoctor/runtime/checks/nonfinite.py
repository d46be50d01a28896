"""Runtime checks of non-finite values: LRD104 (the loss), LRD105 (an optimizer step wrote
NaN/inf into parameters) and LRD106 (GradScaler skipping step after step).

Detection is always on and costs one float32 sum per step and tensor group, read without a
device synchronization (see :mod:`lrdoctor.runtime.numerics`): the loss before each
``backward()``, the gradients before an ``optimizer.step()`` that GradScaler does not guard,
and the parameters after it. Under GradScaler the gradients are checked by the scaler itself
(an occasional inf gradient is normal there), and the parameters at a bounded interval.

When a check trips, :mod:`lrdoctor.runtime.localize` names the op, the module and the reason by
replaying the step under a per-op checker (``--nan-trace`` keeps that checker on throughout).
"""

from __future__ import annotations

import math
import sys
import types
from collections.abc import Sequence
from typing import Any

from lrdoctor.findings import Finding
from lrdoctor.runtime import numerics
from lrdoctor.runtime.amphooks import install_amp_hooks
from lrdoctor.runtime.callsite import display_path, remember_site
from lrdoctor.runtime.engine import ROUTINE_PERIOD, Engine, location
from lrdoctor.runtime.events import (
    Attempt,
    Backward,
    BackwardDone,
    EpochStart,
    OptimizerStep,
    RunEnd,
    ScalerUpdate,
)
from lrdoctor.runtime.hooks import compiling_test
from lrdoctor.runtime.localize import (
    _ORIGINAL_CALL,
    Call,
    Culprit,
    Tracer,
    _forward_name,
    find_source_line,
    make_checker,
    replay,
    walk_loss_graph,
)
from lrdoctor.runtime.numerics import (
    Flag,
    FlagBook,
    all_finite,
    describe_nonfinite,
    eps_vanishes,
    is_float_tensor,
    kind_of_nonfinite,
    sum_flag,
)
from lrdoctor.runtime.patching import Patcher

MAX_CALLS = 8  # top-level module calls kept per step (a model, a criterion, ...)
SKIP_RUN = 10  # consecutive GradScaler skips that make a finding
# float32 parameters (and all under GradScaler): taken steps between parameter checks; the
# engine hands this check every ROUTINE_PERIOD-th step for it (as an event on the general path,
# or, when the lane keeps that step, by a call to lane_check)
PARAM_INTERVAL = ROUTINE_PERIOD
EAGER_AFTER_TRIP = 64  # steps read at once after a late (device) flag tripped
RNG_RECHECK = 256  # top-level calls of a module between checks that it draws no random numbers
# The module-call wrapper (on torch.nn.Module) records the top-level module calls a replay needs
# only while NaN detection may replay them: during the first LEARN_BACKWARDS backward() calls
# (the models are named from them: tracer.roots, for the parameter names of findings), and for
# good once recording is armed (record_calls): after a first non-finite loss, gradient or
# parameter, with float16/bfloat16 parameters, while an LRD106 localization is armed, and under
# --nan-trace or --nan-record. Otherwise torch's own __call__ sits there: a routine step runs no
# lrdoctor code per module call, and a NaN made inside a module is localized at its recurrence
# (the first occurrence is reported at once with its step and line; see bad_loss)
LEARN_BACKWARDS = 2
# appended to a first LRD104 whose module calls were not recorded (replaced once it recurs)
NOT_RECORDED = ("; the module that made it is not named yet: module calls are recorded from now "
                "on, so a recurrence is localized (--nan-record records them from the first step)")


def _float_params(opt: Any) -> list[Any]:
    return [p for g in opt.param_groups for p in g["params"] if is_float_tensor(p)]


def _names(items: list[str], limit: int = 3) -> str:
    shown = ", ".join(f"`{n}`" for n in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


class NonFinite:
    """LRD104, LRD105, LRD106."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.flags = FlagBook()
        self.tracer = Tracer()
        self.checker: Any = None
        self.nan_trace = False
        self.suspended = False  # --nan-trace: the checker is off during an optimizer step
        # top-level module calls since the last backward(), and those of the last finished
        # backward(): raw tuples (see install) or Calls; read them through calls/done_calls
        self._calls: list[Any] = []
        self._done_calls: list[Any] = []
        self.strong_kept = False  # some Call of self._calls holds its outputs (armed LRD106)
        self.known_bad: set[int] = set()  # ids of parameters already non-finite
        self.written_at: dict[int, str] = {}  # id(parameter) -> the optimizer step(s) that made it so
        self.seen_opts: set[int] = set()
        self.seen_modules: set[int] = set()  # ids of the modules record() has looked at
        self.rng_use: dict[int, int] = {}  # see install()
        # Whether the module-call wrapper records (see LEARN_BACKWARDS): learning, during the
        # first backward() calls; recording, for good (record_calls); neither: torch's own
        # __call__ is on torch.nn.Module
        self.learning = True
        self.learn_end = LEARN_BACKWARDS  # backwards() (see _backwards) that end the learning
        self.recording = False
        # the line of the first top-level call of a module with parameters (the model): with no
        # call recorded, the loss code is looked for between it and backward()
        self.model_site: Any = None
        self.nan_record = False  # --nan-record: recording from the start (install)
        self.event_backwards = 0  # backward() calls that made an event (the others are counted
        # by engine.routine_backwards_done)
        self._apply_calls: Any = None  # puts the wrapper where the state above says (install)
        self.tensor_type = _tensor_type()
        self.half_dtypes, self.float32 = _dtypes()  # (float16, bfloat16), float32
        self.grad_mode = _grad_mode()  # (is_grad_enabled, set_grad_enabled), torch's C functions
        # whether gradients are checked before the next update (see before_step): then the
        # gradient reaching each module output is kept for a backward replay
        self.grads_checked = True
        self.param_cache: dict[int, tuple[Any, Any, list[Any]]] = {}
        self.read_float32 = False  # see _flag
        self.low_precision: dict[int, tuple[Any, bool]] = {}  # id(optimizer) -> (it, any float16/bf16)
        # id(optimizer) -> it, for optimizers seen with float32 parameters only: their
        # gradients are not read before a step unless something tripped (see before_step)
        self.plain_opts: dict[int, Any] = {}
        self.bad_loss_steps: list[int] = []
        self.bad_loss_step: int | None = None
        self.grad_culprit: tuple[int, Culprit | None, list[str]] | None = None
        self.spread: dict[int, int] = {}  # step -> parameters a bad loss's step then destroyed
        self.last_checked: dict[int, int] = {}  # optimizer key -> step of the last parameter check
        # (read through the properties below: a write recomputes the backward hook's route)
        self._arm_backward = False
        self._eager_until = 0
        self.tries = 0
        self.scale_tries = 0  # LRD106 localizations armed (one per long run of skips, at most 3)
        self.scale_culprit: tuple[int, Culprit] | None = None  # (step, op) found for LRD106
        self.replay_errors: list[str] = []
        self._register_pre: Any = None  # registers the optimizer pre-hook (install)
        self._pre_handle: Any = None
        # a routine backward() runs the backward hook's quick test of the loss only (a finite
        # CPU scalar, read as it is, while eager_until, arm_backward and flags.eager say
        # nothing is pending: amphooks), and counts itself done (engine.routine_backwards_done,
        # caught up with by sync_calls); the others make events
        engine.subscribe(Backward, self.on_backward, every_step=False)
        engine.subscribe(BackwardDone, self.on_backward_done, every_step=False)
        engine.loss_gate = self
        engine.reroute_backward()
        self.backwards_seen = engine.routine_backwards_done  # at the last sync_calls()
        # a routine optimizer step (taken, a finite float LR, no GradScaler) needs nothing
        # from this check unless it is periodic (the parameter check, every ROUTINE_PERIOD
        # steps) or something asked for every step (self.every_step below)
        engine.subscribe(OptimizerStep, self.on_optimizer_step, every_step=False)
        # a routine scaler update (Engine.on_scaler_update: nothing skipped, no run of skips,
        # the flags not due) has nothing for on_scaler_update to do
        engine.subscribe(ScalerUpdate, self.on_scaler_update, every_step=False)
        engine.subscribe(EpochStart, lambda ev: self.drain())
        # the taken count at which each optimizer's parameters are checked next (also after
        # skipped steps, under GradScaler: on_optimizer_step), kept in its record, where the
        # engine reads it to hand that step over
        for info in engine.optimizers.values():
            self._due(info)
        engine.new_optimizer_callbacks.append(self._due)
        engine.subscribe(RunEnd, self.on_end)

    @property
    def arm_backward(self) -> bool:
        """Whether the next backward() localizes (LRD106's op search): no backward is routine."""
        return self._arm_backward

    @arm_backward.setter
    def arm_backward(self, value: bool) -> None:
        self._arm_backward = value
        self.engine.reroute_backward()

    @property
    def eager_until(self) -> int:
        """The step until which every loss and parameter is read at once (0: none)."""
        return self._eager_until

    @eager_until.setter
    def eager_until(self, value: int) -> None:
        self._eager_until = value
        self.engine.reroute_backward()

    @staticmethod
    def _due(info: Any) -> None:
        """A new optimizer: no parameter check yet, so the one after PARAM_INTERVAL taken steps
        is due."""
        info.due_taken = PARAM_INTERVAL

    # ---- installation -----------------------------------------------------------------------

    def install(self, patcher: Patcher) -> None:
        import torch
        from torch.optim.optimizer import register_optimizer_step_pre_hook

        install_amp_hooks(self.engine, patcher)
        self.nan_trace = bool(getattr(self.engine, "nan_trace", False))
        self.nan_record = bool(getattr(self.engine, "nan_record", False))
        if self.nan_trace:
            self.every_step()
        elif self.nan_record:
            self.recording = True  # the wrapper is put on torch.nn.Module for good below
        self.checker = make_checker(self.tracer)
        module_cls = torch.nn.Module
        original = module_cls.__dict__["__call__"]
        _ORIGINAL_CALL[:] = [original]
        patcher.on_undo(_ORIGINAL_CALL.clear)
        tracer, engine = self.tracer, self.engine
        tls = _Busy()
        is_grad_enabled, get_rng_state = torch.is_grad_enabled, torch.get_rng_state
        cuda_ready = torch.cuda.is_initialized
        cuda_mod: Any = torch.cuda
        # torch.cuda._initialized is what is_initialized() reads first: while it is False (every
        # CPU run) the check costs an attribute read, not a Python frame
        if not isinstance(getattr(cuda_mod, "_initialized", None), bool):
            cuda_mod = types.SimpleNamespace(_initialized=True)
        any_autocast = torch._C._is_any_autocast_enabled
        autocast_on, autocast_dtype = torch.is_autocast_enabled, torch.get_autocast_dtype
        # is_built(), not is_available(): that would initialize CUDA while the script imports
        # torch, before it has set CUDA_VISIBLE_DEVICES
        amp_devices = ("cpu", "cuda") if torch.backends.cuda.is_built() else ("cpu",)
        record = self.record
        seen = self.seen_modules
        equal = torch.equal
        # id(module) (~id(module) in eval mode) -> calls since its forward was last seen not to draw
        # random numbers on the CPU generator; RNG_RECHECK + 1: it draws
        rng_use = self.rng_use
        tensor_type = self.tensor_type
        getframe = sys._getframe
        sites: dict[int, Any] = {}  # the callers' lines (callsite.remember_site)
        check = self
        from lrdoctor import ScheduleError

        # Module.__call__ is torch's _wrapped_call_impl, which only picks the compiled call or
        # _call_impl: this wrapper makes that choice itself and calls _call_impl directly, so a
        # watched module call runs as many Python frames as an unwatched one (a nested call
        # pays two attribute reads). Anything else found there (another tool's wrapper) is
        # called as it is.
        direct = original is module_cls.__dict__.get("_wrapped_call_impl") and "_call_impl" in module_cls.__dict__

        # Runs on every module call, nested ones included; a top-level call keeps what a replay
        # needs (the RNG state, the arguments by reference, the line) in one tuple, made into a
        # Call only if a replay runs.
        def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
            cur = module_cls.__call__
            if cur is not placed[0]:
                # another tool's __call__ was put on torch.nn.Module after ours (torch.fx's
                # tracer while it traces, a profiler) and chains to ours: torch's own runs, as
                # it would without lrdoctor (ours would run on fx's proxies, or call that tool's
                # wrapper a second time)
                return original(self, *args, **kwargs)
            if tls.busy or not is_grad_enabled():
                if direct and self._compiled_call_impl is None:
                    return self._call_impl(*args, **kwargs)
                return original(self, *args, **kwargs)
            tls.busy = True
            try:
                dev = None
                if direct and self._compiled_call_impl is None:
                    fwd, fargs = self._call_impl, args
                else:
                    fwd, fargs = original, (self, *args)
                if cuda_mod._initialized and cuda_ready():
                    rng, dev = get_rng_state(), torch.cuda.get_rng_state()
                    out = fwd(*fargs, **kwargs)
                else:
                    # The CPU generator's state (5 kB) is copied only for modules whose forward
                    # draws random numbers (dropout): learned by comparing the state around a
                    # call, per module and train/eval mode, and checked again every
                    # RNG_RECHECK calls
                    rkey = id(self) if self.training else ~id(self)  # an int: no tuple to make
                    uses = rng_use.get(rkey, RNG_RECHECK)  # not seen yet: learn it now
                    if uses >= RNG_RECHECK:
                        rng = get_rng_state()
                        out = fwd(*fargs, **kwargs)
                        if uses > RNG_RECHECK:
                            pass  # known to draw: keep the state as every call does
                        elif equal(rng, get_rng_state()):
                            rng_use[rkey] = 0
                            rng = None
                        else:
                            rng_use[rkey] = RNG_RECHECK + 1  # draws: copy on every call
                    else:
                        rng_use[rkey] = uses + 1
                        rng = None
                        out = fwd(*fargs, **kwargs)
            finally:
                tls.busy = False
            try:
                caller = getframe(1)
                # the replay must compute in the same precision: autocast as it was for this call
                amp: tuple[tuple[str, Any], ...] = ()
                if any_autocast():
                    for d in amp_devices:
                        if autocast_on(d):
                            amp += ((d, autocast_dtype(d)),)
                if (type(out) is tensor_type and not check.grads_checked and not check._arm_backward
                        and id(self) in seen):
                    # the common case: one output tensor, nothing armed; ids only (a forward
                    # whose output is dropped must not keep its graph alive here). A tensor
                    # with a grad_fn is a floating-point (or complex) one
                    fn = out.grad_fn
                    done = engine.routine_backwards_done
                    if check.backwards_seen != done:
                        # a backward() returned since: this is a new step's first call. The
                        # last step's calls are let go now, not kept as done_calls: what reads
                        # them (the gradient and parameter checks) ran at its optimizer step,
                        # and its inputs (a batch on the GPU) must not outlive the step by more
                        # than they do without lrdoctor
                        if done - check.backwards_seen == 1 and not check.strong_kept:
                            check._done_calls, check._calls = [], []
                            check.backwards_seen = done
                            if check.learning:
                                check.learn_tick()
                        else:
                            check.sync_calls()
                        if not check.learning and not check.recording:
                            return out  # the learning ended: this step's calls are not kept
                    calls = check._calls
                    # the caller's line as its code and instruction (decoded if a Call is made)
                    # (and the id of the output's grad_fn, 0 for none)
                    calls.append((self, args, kwargs, rng, dev, caller.f_code, caller.f_lasti, amp,
                                  id(fn) if fn is not None else 0))
                    if len(calls) > MAX_CALLS:
                        del calls[0]
                else:
                    entry = sites.get(caller.f_lasti)
                    site = entry[1] if entry is not None and entry[0] is caller.f_code else remember_site(sites, caller)
                    record(self, args, kwargs, rng, dev, site, out, amp)
            except ScheduleError:
                raise
            except Exception as exc:
                engine.internal_error(exc)
            return out

        patcher.setattr(module_cls, "__call__", __call__)

        # While the tracer is active (a replay, --nan-trace) every module call goes through it
        # instead: the wrapper above never asks whether it is
        def tracked_call(self: Any, *args: Any, **kwargs: Any) -> Any:
            return tracer.call(original, self, args, kwargs)

        ours = (__call__, tracked_call)
        placed = [__call__]  # what apply_calls last put on torch.nn.Module

        def apply_calls() -> None:
            """Put on torch.nn.Module what the state says: tracked_call while the tracer is
            active; else the wrapper while it learns or records, torch's own __call__ when it
            does neither. A __call__ that is not ours (another tool's, set after ours) is left
            alone."""
            if self._apply_calls is None:  # undone
                return
            current = module_cls.__dict__.get("__call__")
            if current in ours or current is placed[0]:
                want = (tracked_call if tracer.active
                        else __call__ if self.recording or self.learning else original)
                if current is not want:
                    module_cls.__call__ = want  # type: ignore[method-assign]
                placed[0] = want

        self._apply_calls = apply_calls
        patcher.on_undo(lambda: setattr(self, "_apply_calls", None))

        def on_active(on: bool) -> None:
            apply_calls()

        tracer.on_active = on_active
        patcher.on_undo(lambda: setattr(tracer, "on_active", None))
        before_step = self.before_step
        is_compiling = compiling_test(torch)

        plain = self.plain_opts
        check = self
        in_scaler_step = engine._in_scaler_step
        seen_opts = self.seen_opts

        def pre(opt: Any, args: Any, kwargs: Any) -> None:
            if is_compiling():
                # torch.compile is tracing an optimizer step: our reductions and reads would
                # break its graph (the step is still counted, see hooks.py; its gradients are
                # not checked)
                return
            if (plain.get(id(opt)) is opt and not check._eager_until and not check.nan_trace
                    and id(opt) not in in_scaler_step):
                check.grads_checked = False  # before_step()'s verdict for a float32 optimizer
                return
            if id(opt) in in_scaler_step and id(opt) in seen_opts and not check.nan_trace:
                # before_step()'s verdict under GradScaler, once the optimizer was looked at
                check.grads_checked = bool(check._eager_until)
                return
            try:
                before_step(opt)
            except ScheduleError:
                raise
            except Exception as exc:
                engine.internal_error(exc)

        # The pre-hook is needed only while some optimizer's gradients are checked or an
        # optimizer has not been looked at yet: once every optimizer is a float32 one (stepped
        # by GradScaler or not) it is taken out (a frame less per step), and put back when a new
        # optimizer appears or this check starts watching every step
        self._register_pre = lambda: register_optimizer_step_pre_hook(pre)
        self.arm()
        patcher.on_undo(self._uninstall_pre)
        engine.new_optimizer_callbacks.append(lambda info: self.arm())
        if self.nan_trace:
            tracer.active = True
            self.checker.__enter__()

            def leave() -> None:
                tracer.active = False
                if not self.suspended:
                    self.checker.__exit__(None, None, None)

            patcher.on_undo(leave)

    # ---- where the module-call wrapper sits ----------------------------------------------------

    def _backwards(self) -> int:
        """backward() calls so far (routine ones and those that made an event)."""
        return self.engine.routine_backwards_done + self.event_backwards

    def learn_tick(self) -> None:
        """A backward() returned while learning: at the end of the learning (once a top-level
        call was recorded), torch's own __call__ goes back on torch.nn.Module unless recording
        is armed."""
        if not self.learning or self._backwards() < self.learn_end:
            return
        if not self.seen_modules:
            # no module call at top level yet (with gradients enabled): go on learning
            self.learn_end = self._backwards() + LEARN_BACKWARDS
            return
        self.learning = False
        if not self.recording and self._apply_calls is not None:
            self._apply_calls()

    def record_calls(self) -> None:
        """From now on every top-level module call is recorded (the wrapper on torch.nn.Module
        for good): a non-finite value made inside a module is localized when it recurs."""
        if self.recording:
            return
        self.recording = True
        if self._apply_calls is not None:
            self._apply_calls()

    def record(self, module: Any, args: Any, kwargs: Any, rng: Any, dev: Any, site: Any, out: Any,
               amp: tuple[tuple[str, Any], ...] = ()) -> None:
        self.sync_calls()
        if not self.learning and not self.recording:
            return  # the learning ended (sync_calls): this step's calls are not kept
        call = Call(module, args, kwargs, rng, dev, site, autocast=amp)
        key = id(module)
        if key not in self.seen_modules:  # once per module (a loss module has no parameters)
            self.seen_modules.add(key)
            if next(module.parameters(), None) is not None:
                self.tracer.add_root(module, None)  # once per model: named while the user's frame is live
                if self.model_site is None:
                    self.model_site = site  # where the loss code starts (see localize_forward)
        if type(out) is self.tensor_type:  # the common case, without walking containers
            tensors = [out] if out.is_floating_point() else []
        else:
            tensors = [t for t in _tensors(out) if t.is_floating_point()]
        # ids only: a forward whose output is dropped (validation without no_grad) must not keep
        # its graph alive here; only an armed localization (LRD106) needs the outputs themselves
        call.output_nodes = {id(t.grad_fn) for t in tensors if t.grad_fn is not None}
        if self._arm_backward:
            call.strong = tensors
            self.strong_kept = True
        if self.grads_checked:
            wanted = [t for t in tensors if t.requires_grad]
            if 0 < len(wanted) <= 8:
                # the gradient that reaches the output, kept by reference: what a backward replay
                # starts from (the hook lives on the autograd node, the tensor may be dropped);
                # only while the gradients are checked, the only time a backward replay runs
                call.grad_outputs = [None] * len(wanted)
                for i, t in enumerate(wanted):
                    t.register_hook(_keeper(call, i))
        calls = self._calls
        calls.append(call)
        if len(calls) > MAX_CALLS:
            del calls[0]

    @property
    def calls(self) -> list[Call]:
        """The top-level module calls since the last ``backward()``, as Calls."""
        self.sync_calls()
        return _as_calls(self._calls)

    @property
    def done_calls(self) -> list[Call]:
        """The top-level module calls of the last finished ``backward()``, as Calls."""
        self.sync_calls()
        return _as_calls(self._done_calls)

    def _params(self, opt: Any) -> list[Any]:
        """The optimizer's floating-point parameters (cached while its groups keep their size)."""
        groups = opt.param_groups
        n = 0
        for g in groups:  # a loop, not sum() over a generator: no frame per group
            n += len(g["params"])
        sig = (len(groups), n)
        cached = self.param_cache.get(id(opt))
        if cached is None or cached[0] != sig or cached[1] is not opt:
            cached = (sig, opt, _float_params(opt))
            self.param_cache[id(opt)] = cached
        return cached[2]

    def _low_precision(self, opt: Any) -> bool:
        """Whether ``opt`` updates float16/bfloat16 parameters (cached; looked at again at each
        periodic parameter check, so a later ``model.half()`` is seen)."""
        cached = self.low_precision.get(id(opt))
        if cached is not None and cached[0] is opt:
            return cached[1]
        low, half = False, self.half_dtypes
        for p in self._params(opt):  # a loop, not any() over a generator: no frame per parameter
            if p.dtype in half:
                low = True
                break
        self.low_precision[id(opt)] = (opt, low)
        if low:
            self.every_step()  # float16/bfloat16 parameters are checked after every update
        return low

    def _has_low_precision(self, opt: Any) -> bool:
        """Whether ``opt`` updates float16/bfloat16 parameters, looked at now, with none of
        _low_precision's effects (no cache entry, no every_step())."""
        half = self.half_dtypes
        for p in self._params(opt):
            if p.dtype in half:
                return True
        return False

    def every_step(self) -> None:
        """From now on every optimizer step is handed to this check (a run that saw a NaN, or
        float16 parameters, or --nan-trace): its steps are no longer routine, and every module
        call is seen (the module-call wrapper stays on torch.nn.Module)."""
        self.engine.every_step.add(self)
        self.arm()
        self.record_calls()

    def arm(self) -> None:
        """Put the optimizer pre-hook (before_step) in place, if it is not."""
        if self._pre_handle is None and self._register_pre is not None:
            self._pre_handle = self._register_pre()

    def disarm(self) -> None:
        """Take the pre-hook out. Called from the optimizer post-hook or at the end, never from
        the pre-hook itself (PyTorch is iterating over the pre-hooks then)."""
        handle, self._pre_handle = self._pre_handle, None
        if handle is not None:
            handle.remove()

    def _uninstall_pre(self) -> None:
        self._register_pre = None  # for good: the end of the run may still call every_step()
        self.disarm()

    def _pre_hook_needed(self) -> bool:
        """Whether some optimizer still needs before_step(): gradients checked, or not looked
        at yet (its parameters are looked at once, before the first update), or float16/bfloat16
        parameters."""
        if self.nan_trace or self._eager_until or self in self.engine.every_step:
            return True
        plain = self.plain_opts
        for info in self.engine.optimizers.values():
            opt = info.obj
            if opt is not None and plain.get(info.key) is not opt:
                return True
        return False

    def step_no(self) -> int:
        return 1 + self.engine.most_attempts

    # ---- flags --------------------------------------------------------------------------------

    def _flag(self, step: int, what: str, tensors: list[Any], context: Any = None) -> bool | None:
        """Whether ``tensors`` are all finite (None: not known yet, a device flag kept for
        drain()); ``read_float32`` says afterwards whether they were read here, on the CPU, and
        every one was float32."""
        self.read_float32 = False
        if not tensors:
            return True
        if self._eager_until and step <= self._eager_until:
            self.flags.eager = True
            self.engine.reroute_backward()
        elif self.flags.eager and self._eager_until:
            self.flags.eager, self.eager_until = None, 0  # (the setter reroutes)
        if self.flags.eager is not False and numerics.on_cpu(tensors[0]):
            # reading is free on CPU: a Python sum of per-tensor sums, no stack (on so few
            # elements torch.stack and one .item() cost more than an .item() per tensor), with
            # gradient mode off instead of a detach() per tensor; a float32 tensor is summed
            # as it is (sum(dtype=float32) of it is the same sum, with a keyword to parse)
            total, f32 = 0.0, self.float32
            others = 0
            enabled, set_enabled = self.grad_mode
            was = enabled()
            set_enabled(False)
            try:
                for t in tensors:
                    if t.dtype is f32:
                        total += t.sum().item()
                    else:
                        total += t.sum(dtype=f32).item()
                        others += 1
            finally:
                set_enabled(was)
            verdict: bool | None = math.isfinite(total)
            self.read_float32 = not others
        else:
            verdict = self.flags.add(Flag(step, what, sum_flag(tensors), context))
        if verdict is False:
            # a float32 sum of huge finite values can overflow on its own: confirm
            verdict = all(all_finite(t) for t in tensors)
        if verdict is None and self.flags.due:
            self.drain()
        return verdict

    def drain(self) -> None:
        """Read the flags kept on a device (one synchronization for many steps)."""
        for flag in self.flags.drain():
            self.eager_until = self.step_no() + EAGER_AFTER_TRIP
            self.every_step()
            if flag.what == "loss":
                self.bad_loss(flag.step, None, late=True)
            elif flag.what == "params" and not self.engine.has_finding("LRD105", flag.context):
                opt = self.engine.optimizers.get(flag.context)
                if opt is not None and opt.obj is not None:
                    self.bad_params(flag.step, opt.obj, opt.label, None, late=True)

    # ---- the loss -----------------------------------------------------------------------------

    def on_backward_done(self, ev: BackwardDone) -> None:
        self.event_backwards += 1
        self.sync_calls()
        self.after_backward()

    def sync_calls(self) -> None:
        """Catch up with the routine backward() calls that returned since the last look: each
        moves the calls since the one before into done_calls (two or more leave it empty)."""
        done = self.engine.routine_backwards_done
        n, self.backwards_seen = done - self.backwards_seen, done
        if n:
            self.after_backward()
            if n > 1:
                self.after_backward()

    def after_backward(self) -> None:
        """A backward() returned: the module calls since the last one are its calls."""
        if self.strong_kept:
            self.strong_kept = False
            for call in self._calls:
                if type(call) is Call:
                    call.strong = None
        self._done_calls, self._calls = self._calls, []
        if self.learning:
            self.learn_tick()

    def on_backward(self, ev: Backward) -> None:
        loss = ev.loss
        if (type(loss) is self.tensor_type and not self._eager_until and self.flags.eager is not False
                and loss.is_cpu and loss.numel() == 1 and loss.is_floating_point()):
            # a CPU scalar loss is read as it is (no tensor op)
            if math.isfinite(loss.item()):
                if self._arm_backward:
                    self.arm_backward = False
                    self.localize_backward_now(ev)
                return
        if not is_float_tensor(loss):
            return
        step = self.step_no()
        if self._flag(step, "loss", [loss]) is False:
            self.bad_loss(step, ev)
        elif self._arm_backward:
            self.arm_backward = False
            self.localize_backward_now(ev)

    def bad_loss(self, step: int, ev: Backward | None, late: bool = False) -> None:
        self.bad_loss_steps.append(step)
        self.bad_loss_step = step
        # this step's module calls were not recorded (routine steps record none: see
        # LEARN_BACKWARDS); every_step() arms the recording for the next ones
        recorded = bool(self.recording or self.nan_trace or self.calls)
        self.every_step()
        eng = self.engine
        first = not eng.has_finding("LRD104")
        culprit: Culprit | None = None
        if ev is not None and (first or self._needs_culprit("LRD104")) and self.tries < 3:
            self.tries += 1
            culprit = self.localize_forward(ev)
        if not first:
            if culprit is not None and self._localizes_first(culprit, recorded):
                self._attach("LRD104", culprit, step)
            return
        kind = kind_of_nonfinite(ev.loss) if ev is not None else "non-finite"
        message = f"loss became {kind} at step {step}"
        if late:
            message += " (read from a device flag; localized at the next non-finite step)"
        evidence: dict[str, Any] = {"step": step, "kind": kind}
        where = location(ev.site) if ev is not None else None
        if culprit is not None:
            message += ": " + culprit.describe()
            evidence.update(_culprit_evidence(culprit))
            where = location(culprit.site) or where
        elif ev is not None and recorded:
            message += ": no op of this step produced it from finite values"
            if self.replay_errors:
                evidence["replay_error"] = self.replay_errors[-1]
                message += " that a replay could check (see the evidence)"
        if ev is not None and not recorded and self._unlocalized(culprit):
            # the op may be named (walking the loss's graph), the module that ran it is not:
            # the next occurrence is localized from the calls recorded from now on
            message += NOT_RECORDED
            evidence["module_recorded"] = False
            if where is not None:
                evidence["first_line"] = f"{where.path}:{where.line}"
        eng.report(Finding("LRD104", message, where, evidence=evidence))

    @staticmethod
    def _unlocalized(culprit: Culprit | None) -> bool:
        """Whether a culprit found without recorded module calls leaves the module unnamed: none,
        an op of the loss's graph not spelled in the loss code, or a non-finite input that is
        not a parameter."""
        return (culprit is None or culprit.phase == "graph"
                or (culprit.phase == "input" and culprit.op != "parameter"))

    def _localizes_first(self, culprit: Culprit, recorded: bool) -> bool:
        """Whether a recurrence's culprit may stand for the first occurrence. Not a non-finite
        parameter when the first one was reported without its module: the first non-finite
        loss's own update (no GradScaler) wrote NaN into the parameters, and later losses are
        non-finite from them, not from the op that started it."""
        f = self.engine._findings.get(("LRD104", None))
        if f is not None and f.evidence.get("module_recorded") is False:
            return recorded and not self._unlocalized(culprit) and culprit.op != "parameter"
        return True

    def _needs_culprit(self, code: str) -> bool:
        f = self.engine._findings.get((code, None))
        if f is None:
            return False
        if f.evidence.get("module_recorded") is False:
            return "localized_at_step" not in f.evidence
        return "op" not in f.evidence and "parameter" not in f.evidence

    def _attach(self, code: str, culprit: Culprit, step: int, key: Any = None) -> None:
        f = self.engine._findings.get((code, key))
        if f is None or "localized_at_step" in f.evidence:
            return
        if f.evidence.get("module_recorded") is False:
            # a first occurrence reported without its module: localized at this recurrence
            evidence = dict(f.evidence, **_culprit_evidence(culprit), localized_at_step=step)
            evidence.pop("module_recorded")
            if culprit.node is None:
                evidence.pop("autograd_node", None)  # the first walk's, not this culprit's
            base = f.message.replace(NOT_RECORDED, "")
            first_line = f.evidence.get("first_line")
            if first_line and "step" in f.evidence:  # the finding will point at the culprit's line
                at = f"at step {f.evidence['step']}"
                base = base.replace(at, f"{at} ({first_line})", 1)
            when = (f"at step {step}" if step != f.evidence.get("step")
                    else "before the next optimizer step")  # none was taken since
            self.engine.update_finding(
                code, key, message=f"{base}; localized at its recurrence {when}: {culprit.describe()}",
                evidence=evidence, location=location(culprit.site) or f.location)
            return
        if "op" in f.evidence:
            return
        evidence = dict(f.evidence, **_culprit_evidence(culprit), localized_at_step=step)
        self.engine.update_finding(code, key, message=f"{f.message}; at step {step}: {culprit.describe()}",
                                   evidence=evidence, location=location(culprit.site) or f.location)

    def localize_forward(self, ev: Backward) -> Culprit | None:
        """The first op of this step that made the loss non-finite (graph still intact)."""
        for call in self.calls:
            self.tracer.add_root(call.module, None)
        culprit: Culprit | None = None
        if self.nan_trace:
            culprit = self.checker.culprit or self.checker.bad_input
        elif self.calls:
            culprit = self._replay(self.calls)
        if culprit is None and not self.calls:
            # no module call recorded (a routine step): a non-finite parameter of the models
            # named so far explains the loss before any op of the graph is judged
            culprit = self._bad_parameter()
        if culprit is None or (culprit.phase == "input" and culprit.op != "parameter"):
            stop = {n for call in self.calls for n in call.output_nodes}
            walked = walk_loss_graph(ev.tensor, stop, inputs_known=not self.calls)
            if walked is not None:
                last = self.calls[-1].site if self.calls else self.model_site
                spelled = find_source_line(walked.op, last, ev.site)
                if spelled is not None and not self.calls and not _in_caller_code(ev.frame, spelled):
                    spelled = None  # spelled in a function defined there (a forward), not the loss code
                if spelled is None and not self.calls:
                    # no module call recorded: the walk went through the modules' ops too, and
                    # the op is not spelled in the loss code: it ran in the loss computation
                    # or in a module (named when it recurs)
                    walked.phase = "graph"
                walked.site = spelled or ev.site
                culprit = walked
        if culprit is None:
            culprit = self._bad_parameter()
        if culprit is None or (culprit.phase == "input" and culprit.op != "parameter"):
            culprit = self._bad_batch() or culprit
        if culprit is not None and culprit.op == "parameter":
            bad = [p for root, _ in self.tracer.roots for name, p in root.named_parameters()
                   if self.tracer.param_name(p) == culprit.module]
            self._attribute_unchecked(bad)
            self._remember_bad_params()
            written = [self.written_at[id(p)] for p in bad if id(p) in self.written_at]
            if written:
                culprit.reason += f" (written by {written[0]}: see LRD105)"
            elif sinces := [s for s in map(self._unchecked_since, bad) if s is not None]:
                since = max(sinces)
                when = f"finite after optimizer step {since}; an update since then" if since else "an update"
                culprit.reason += (f" ({when}, or a write outside the optimizer, made it non-finite: "
                                   f"float32 parameters are checked every {PARAM_INTERVAL} steps)")
            else:
                culprit.reason += " (made non-finite outside any optimizer step we saw)"
        return culprit

    def _unchecked_since(self, p: Any) -> int | None:
        """For a parameter some optimizer updated without its result being checked since: the
        last step it was checked after (0: never); None if every update of it was checked."""
        for info in self.engine.optimizers.values():
            opt = info.obj
            if opt is None or not info.taken or not any(q is p for q in self._params(opt)):
                continue
            since = self.last_checked.get(info.key, 0)
            if since < info.attempts:
                return since
        return None

    def _attribute_unchecked(self, bad: list[Any]) -> None:
        """Non-finite parameters found by a later loss: float32 updates are not checked on
        every step, so ask each optimizer that updated them unchecked whether it wrote them.
        It did if its state for them (Adam's moments, a momentum buffer) or their gradient is
        non-finite too; a NaN planted between steps leaves both finite."""
        for info in list(self.engine.optimizers.values()):
            opt = info.obj
            if opt is None or not info.taken or self.engine.has_finding("LRD105", info.key):
                continue
            mine = [p for p in bad if id(p) not in self.known_bad and any(q is p for q in self._params(opt))]
            if not any(_update_trace(opt, p) for p in mine):
                continue
            since = self.last_checked.get(info.key, 0)
            if since >= info.attempts:
                continue
            self.last_checked[info.key] = info.attempts
            self.bad_params(info.attempts, opt, info.label, None, since=since)

    def _bad_parameter(self) -> Culprit | None:
        """A non-finite parameter of the modules this step called (of the models named so far
        when its calls were not recorded)."""
        modules = [c.module for c in self.calls] or [root for root, _ in self.tracer.roots]
        for root in {id(m): m for m in modules}.values():
            for name, p in root.named_parameters():
                if not all_finite(p):
                    qual = self.tracer.param_name(p) or name
                    return Culprit("input", "parameter", kind_of_nonfinite(p),
                                   f"{kind_of_nonfinite(p)} input propagated from parameter `{qual}` "
                                   f"({describe_nonfinite(p)})", qual, evidence={"parameter": qual})
        return None

    def _bad_batch(self) -> Culprit | None:
        """A non-finite tensor among the arguments of the step's module calls."""
        from lrdoctor.runtime.localize import _flat

        for call in self.calls:
            for t in _flat([call.args, call.kwargs]):
                if is_float_tensor(t) and not all_finite(t):
                    name = self.tracer.name_of(call.module)
                    kind = kind_of_nonfinite(t)
                    return Culprit("input", "batch", kind,
                                   f"the input passed to `{name}` already contained {describe_nonfinite(t)}",
                                   name, type(call.module).__name__, site=call.site,
                                   evidence={"input_of": name})
        return None

    def _remember_bad_params(self) -> None:
        for root, _ in self.tracer.roots:
            for p in root.parameters():
                if not all_finite(p):
                    self.known_bad.add(id(p))

    # ---- gradients and parameters -------------------------------------------------------------

    def before_step(self, opt: Any) -> None:
        if self.nan_trace and not self.suspended:
            # the optimizer's ops are covered by the parameter check below and its diagnosis;
            # leaving the mode spares them the dispatch
            self.tracer.phase = "optimizer"
            self.checker.__exit__(None, None, None)
            self.suspended = True
        key = id(opt)
        if key not in self.seen_opts:
            self.seen_opts.add(key)
            for p in self._params(opt):  # once: parameters that were non-finite before any update
                if not all_finite(p):
                    self.known_bad.add(id(p))
        if key in self.engine._in_scaler_step:
            # GradScaler checks these gradients itself, and nothing reads the gradients that
            # reach the module outputs (an armed LRD106 localization computes its own): the
            # next steps' module calls keep none (no autograd hook per output and step)
            self.grads_checked = bool(self.nan_trace or self._eager_until)
            if not self.grads_checked and not self._has_low_precision(opt):
                # float32 parameters: the verdict is the same in and out of scaler.step()
                # (nothing checked), as for a float32 optimizer outside GradScaler, so the
                # pre-hook's fast path applies, and once every optimizer is such a one the
                # pre-hook is taken out (a frame less per step; arm() puts it back when a
                # flag trips, a new optimizer appears or every step is watched, and the
                # periodic rescan takes out an optimizer whose parameters were cast since); the
                # answer is kept as _low_precision() keeps it (a float16/bfloat16 one is left to
                # it: it also asks for every step)
                self.low_precision[key] = (opt, False)
                self.plain_opts[key] = opt
            return
        # Gradients cost one reduction per tensor to check, so they are read on every step only
        # where a non-finite gradient would otherwise go unnoticed or unexplained: float16 and
        # bfloat16 parameters, --nan-trace, and the steps after a late (device) flag tripped.
        # A non-finite float32 gradient writes NaN into the parameters it updates; the next
        # step's loss (checked on every step) or the periodic parameter check finds them.
        self.grads_checked = bool(self.nan_trace or self._eager_until or self._low_precision(opt))
        if not self.grads_checked:
            if not self._eager_until and not self.nan_trace:
                self.plain_opts[key] = opt  # the pre-hook's fast path from now on
            return
        params = self._params(opt)
        step = self.step_no()
        strided = _strided()
        grads = [g for g in (p.grad for p in params) if g is not None and g.layout == strided]
        if self._flag(step, "grads", grads, id(opt)) is False and self.bad_loss_step != step:
            bad = [self.tracer.param_name(p) or f"param {i}" for i, p in enumerate(params)
                   if p.grad is not None and not all_finite(p.grad)]
            culprit = None
            if self.nan_trace:
                culprit = self.checker.culprit
            elif self.done_calls and self.tries < 3:
                self.tries += 1
                culprit = self._replay_backward(self.done_calls)
            self.grad_culprit = (step, culprit, bad)
            self.every_step()

    def _replay_backward(self, calls: list[Call]) -> Culprit | None:
        for call in calls:
            self.tracer.add_root(call.module, None)
            if call.grad_outputs is not None and not all(all_finite(g) for g in call.grad_outputs if g is not None):
                return Culprit("loss", "backward", "non-finite",
                               f"the gradient reaching `{self.tracer.name_of(call.module)}`'s output was "
                               f"already non-finite: the loss computation's backward produced it",
                               site=call.site)
        return self._replay(calls, backward=True)

    def _replay(self, calls: list[Call], backward: bool = False) -> Culprit | None:
        """A replay that fails (a module that cannot run twice, sharded parameters) only costs
        the localization: training goes on and the finding says what is known."""
        from lrdoctor import ScheduleError

        try:
            return replay(calls, self.tracer, self.checker, backward=backward)
        except ScheduleError:
            raise
        except Exception as exc:
            self.replay_errors.append(f"{type(exc).__name__}: {exc}"[:200])
            return None

    def localize_backward_now(self, ev: Backward) -> None:
        """Before this backward runs: find the op whose gradient turns non-finite (LRD106)."""
        import torch

        calls = [c for c in self.calls if c.strong]
        outs, owners = [], []
        for call in calls:
            for t in call.strong:
                if isinstance(t, torch.Tensor) and t.requires_grad:
                    outs.append(t)
                    owners.append(call)
        if not outs:
            return
        # the loss computation's own backward, down to the module outputs, under the checker
        self.checker.reset()
        if self.nan_trace:
            grads = torch.autograd.grad(ev.tensor, outs, retain_graph=True, allow_unused=True)
        else:
            with self.checker:
                grads = torch.autograd.grad(ev.tensor, outs, retain_graph=True, allow_unused=True)
        culprit = self.checker.culprit
        if culprit is not None:
            fwd = (_forward_name(culprit.node) or "").strip("`")
            last = calls[-1].site if calls else None
            culprit.site = find_source_line(fwd, last, ev.site) if fwd else None
            culprit.site = culprit.site or ev.site
        else:
            for call in calls:
                call.grad_outputs = []
            for call, g, t in zip(owners, grads, outs):
                call.grad_outputs.append(g if g is not None else torch.zeros_like(t))
            culprit = self._replay_backward(calls)
        for call in calls:
            call.grad_outputs = [None] * len(call.grad_outputs or ())
        if culprit is not None:
            self.scale_culprit = (self.step_no(), culprit)
            for key in [k for (code, k) in self.engine._findings if code == "LRD106"]:
                self._attach("LRD106", culprit, self.step_no(), key)

    def on_optimizer_step(self, ev: OptimizerStep) -> None:
        if self._pre_handle is not None and not self._pre_hook_needed():
            self.disarm()
        attempt = ev.attempt
        lrs = ev.lrs
        # one finite float LR (the common case; _finite_lrs below decides the others)
        finite_lr = len(lrs) == 1 and type(lrs[0]) is float and _isfinite_float(lrs[0])
        if (finite_lr and attempt.taken is True and not self.nan_trace and self.grad_culprit is None
                and self.bad_loss_step != attempt.index):
            # the common case under GradScaler (whose steps are never routine): a taken update
            # with a finite LR and nothing tripped; its parameters are read every
            # PARAM_INTERVAL steps (below)
            key = ev.optimizer.key
            lp = self.low_precision.get(key)
            if ev.via_scaler or (lp is not None and lp[1] is False and lp[0] is ev.optimizer.ref()):
                if (attempt.index % PARAM_INTERVAL
                        and ev.optimizer.taken < ev.optimizer.due_taken):
                    return
        opt = ev.optimizer.obj
        if self.nan_trace:
            self.tracer.phase = "forward"
            if self.suspended:
                self.suspended = False
                self.checker.__enter__()
        if opt is None or ev.attempt.taken is False:
            self._reset_trace()
            return
        step = ev.attempt.index
        key = ev.optimizer.key
        # An update computes finite float32 parameters from finite gradients and a finite LR:
        # every step is checked where that does not hold (float16/bfloat16 parameters, gradients
        # found non-finite before this step, a non-finite LR); otherwise (and under GradScaler,
        # which checks the gradients itself) every PARAM_INTERVAL steps and at the end.
        forced = (self.bad_loss_step == step or (not finite_lr and not _finite_lrs(lrs))
                  or (self.grad_culprit is not None and self.grad_culprit[0] == step))
        rescan = False
        if not forced and (ev.via_scaler or not self._low_precision(opt)):
            # every PARAM_INTERVAL-th step (the engine hands it over even when routine), and
            # after PARAM_INTERVAL taken steps (under GradScaler some of them are skipped)
            if step % PARAM_INTERVAL and ev.optimizer.taken < ev.optimizer.due_taken:
                if self.nan_trace:
                    self._reset_trace()
                return
            rescan = True
        self._check_params(step, opt, ev.optimizer, rescan, ev)
        if self.nan_trace:
            self._reset_trace()

    def _check_params(self, step: int, opt: Any, info: Any, rescan: bool, ev: OptimizerStep | None) -> None:
        """The parameter check after update ``step`` of ``opt`` (record ``info``); ``rescan``:
        look at the dtypes again (a later ``.half()``: the optimizer's parameters are then
        checked after every update, its gradients before it), which the check's own read
        answers when it read every parameter on the CPU as float32. ``ev``: the step's event
        (None: made by Engine.lane_period's keeping, only if something is found)."""
        # the parameters are checked again after PARAM_INTERVAL more taken steps: the engine
        # hands that step over even when it is routine otherwise (under GradScaler, after
        # skipped steps)
        key = info.key
        info.due_taken = info.taken + PARAM_INTERVAL
        previous = self.last_checked.get(key, 0)
        self.last_checked[key] = step
        verdict = self._flag(step, "params", self._params(opt), key)
        if rescan and not self.read_float32:
            self.low_precision.pop(key, None)
            if self._low_precision(opt):
                self.plain_opts.pop(key, None)  # its gradients are checked from the next step
        if verdict is False:
            self.bad_params(step, opt, info.label, ev or self._lane_event(info), since=previous)

    def lane_check(self, info: Any, via_scaler: bool = False) -> None:
        """on_optimizer_step for the periodic step of a lane that stays open through it
        (Engine.lane_period; Engine.scaled_lane_period: made by scaler.step(), ``via_scaler``):
        a taken update, trained with the finite float LR its last scheduler step left, already
        tallied. In the common case (a float32
        optimizer looked at before, nothing tripped or traced, no pre-hook in place) this is
        the parameter check that on_optimizer_step makes on such a step, without the event;
        otherwise on_optimizer_step itself is called with the event the general path makes."""
        step = info.attempts
        key = info.key
        lp = self.low_precision.get(key)
        opt = info.ref()
        if (self._pre_handle is not None or self.nan_trace or self.grad_culprit is not None
                or self.bad_loss_step == step or lp is None or lp[1] is not False or lp[0] is not opt
                or opt is None):
            self.on_optimizer_step(self._lane_event(info, via_scaler))
            return
        self._check_params(step, opt, info, True, self._lane_event(info, True) if via_scaler else None)

    def _lane_event(self, info: Any, via_scaler: bool = False) -> OptimizerStep:
        """The event the general path makes of the tallied update ``info.attempts`` (taken,
        its LRs the known ones; made by scaler.step() if ``via_scaler``)."""
        return OptimizerStep(info, Attempt(info.attempts, self.engine.clock, True), info.known_lrs, via_scaler)

    def _reset_trace(self) -> None:
        if self.nan_trace and self.checker is not None:
            self.checker.reset()

    def bad_params(self, step: int, opt: Any, label: str, ev: OptimizerStep | None, late: bool = False,
                   exact: bool = True, since: int | None = None) -> None:
        for call in self.done_calls:
            self.tracer.add_root(call.module, None)
        params = _float_params(opt)
        bad = [p for p in params if id(p) not in self.known_bad and not all_finite(p)]
        if not bad:
            return
        self.known_bad.update(id(p) for p in bad)
        written = f"optimizer step {step}"
        if not late and since is not None and since < step - 1:
            written = f"an optimizer step between {since + 1} and {step}"
        for p in bad:
            self.written_at.setdefault(id(p), written)
        if self.bad_loss_step == step:
            # the loss of this very step was already non-finite: the update only spread it
            self.spread[step] = self.spread.get(step, 0) + len(bad)
            return
        key = id(opt)
        if self.engine.has_finding("LRD105", key):
            return
        names = [self.tracer.param_name(p) or _param_label(opt, p) for p in bad]
        found = {k for p in bad for k in kind_of_nonfinite(p).split(" and ")}
        kinds = [k for k in ("NaN", "inf", "-inf") if k in found]
        total = sum(p.numel() for p in bad)
        nonfinite = sum(int((~_isfinite(p)).sum()) for p in bad)
        if late:
            # read from a device flag steps later: the state now is not the state of that step
            evidence: dict[str, Any] = {"read_after_step": self.step_no() - 1}
            when = (f"optimizer step {step} of {label}" if exact else
                    f"an optimizer step of {label} (parameters last checked before step {step})")
            how = "read from a device flag" if exact else "found by the check at the end"
            message = (f"{when} wrote non-finite values into its parameters ({how} after step "
                       f"{self.step_no() - 1}, when {_names(names)} hold {_names_and(kinds)})")
        else:
            cause, evidence = self._cause(step, opt, bad, ev)
            when = written
            if since is not None and since < step - 1:
                evidence["checked_last_at_step"] = since
            message = (f"{when} of {label} wrote {_names_and(kinds)} into "
                       f"{len(bad)} parameter tensor{'s' if len(bad) != 1 else ''} ({nonfinite} of "
                       f"{total} values): {_names(names)}" + (f": {cause}" if cause else ""))
        where = location(ev.site) if ev is not None and ev.site else None
        if where is None and ev is not None:
            where = location(self.engine.optimizers[ev.optimizer.key].created_site)
        evidence.update({"step": step, "parameters": names, "nonfinite_values": nonfinite})
        self.engine.report(Finding("LRD105", message, where, evidence=evidence), key=key)

    def _cause(self, step: int, opt: Any, bad: list[Any], ev: OptimizerStep | None) -> tuple[str, dict[str, Any]]:
        if self.nan_trace and self.checker.culprit is not None:
            c = self.checker.culprit
            return c.describe(), _culprit_evidence(c)
        bad_grads = [p for p in bad if p.grad is not None and not all_finite(p.grad)]
        if bad_grads or (self.grad_culprit is not None and self.grad_culprit[0] == step):
            culprit = self.grad_culprit[1] if self.grad_culprit and self.grad_culprit[0] == step else None
            unguarded = "" if ev is not None and ev.via_scaler else " and no GradScaler skipped the step"
            text = f"the gradients were already non-finite{unguarded}"
            if culprit is not None:
                return f"{text}: {culprit.describe()}", _culprit_evidence(culprit)
            return text, {"cause": "non-finite gradients"}
        traces = [(p, _update_trace(opt, p)) for p in bad]
        traced = [(p, name) for p, name in traces if name]
        if traced and (self.grad_culprit is None or self.grad_culprit[0] != step):
            # float32 gradients are not read on every step: the optimizer's own state shows them
            p, name = traced[0]
            return (f"the gradients were non-finite and no GradScaler skipped the step (the optimizer's "
                    f"`{name}` of `{self.tracer.param_name(p) or 'it'}` holds NaN/inf; the gradients of "
                    f"float32 parameters are not read on every step, so the op is not named)",
                    {"cause": "non-finite gradients", "state": name})
        for group in opt.param_groups:
            members = [p for p in bad if any(p is q for q in group["params"])]
            if not members:
                continue
            lr = group.get("lr")
            try:
                if lr is not None and not _finite_number(float(lr)):
                    return f"its learning rate is {lr}", {"cause": "lr", "lr": lr}
            except (TypeError, ValueError):
                pass
            eps = group.get("eps")
            for p in members:
                state = opt.state.get(p, {})
                sq = state.get("exp_avg_sq")
                if isinstance(eps, float) and sq is not None and eps_vanishes(eps, p.dtype):
                    import torch

                    mask = ~torch.isfinite(p.detach())
                    zero = int((sq.detach()[mask] == 0).sum())
                    return (f"{type(opt).__name__}'s eps={eps:g} is 0 in {str(p.dtype).replace('torch.', '')}, so "
                            f"exp_avg / (sqrt(exp_avg_sq) + eps) divides 0 by 0 where the gradient has "
                            f"always been 0 ({zero} of the non-finite values of `{self.tracer.param_name(p) or 'it'}`; "
                            f"see LRD102)",
                            {"cause": "eps vanishes", "op": "div", "reason": "0/0", "eps": eps,
                             "zero_over_zero": zero})
        return "the update produced them from finite gradients", {"cause": "update"}

    # ---- GradScaler -----------------------------------------------------------------------------

    def on_scaler_update(self, ev: ScalerUpdate) -> None:
        if self.flags.due:
            self.drain()
        info = ev.scaler
        if info.consecutive_skips < SKIP_RUN or self.engine.has_finding("LRD106", info.key):
            return
        if info.consecutive_skips == SKIP_RUN and self.scale_tries < 3:
            # a long run of skips: find, on the next backward, the op whose gradient turns
            # non-finite (kept until the run proves to be a collapse, dropped if it recovers)
            self.scale_tries += 1
            self.arm_backward = True
            self.record_calls()  # the next step's calls, with their outputs (record())
        scaler = info.ref()
        backoff = getattr(scaler, "_backoff_factor", 0.5) if scaler is not None else 0.5
        before = ev.scale_before if isinstance(ev.scale_before, float) else None
        if before is None or before * backoff >= 1.0:
            # Skipping while the scale is above 1 is GradScaler searching for a scale that fits
            # (an init_scale set high): it may still recover. Below 1 nothing is scaled up any
            # more: gradients still non-finite there are non-finite for another reason.
            return
        self._report_collapse(info, before * backoff, ongoing=True)

    def _report_collapse(self, info: Any, scale: float | None, ongoing: bool) -> None:
        first = f" (from {info.first_scale:g})" if info.first_scale is not None else ""
        if ongoing:
            message = (f"GradScaler skipped {info.consecutive_skips} steps in a row, scale now "
                       f"{scale:g}{first}: the gradients stay non-finite even below scale 1, where "
                       f"nothing is scaled up, so no scale fixes this; once the scale reaches a "
                       f"subnormal or 0 its inf check misses")
        else:
            at = f", scale {scale:g}" if scale is not None else ""
            message = (f"GradScaler skipped the last {info.consecutive_skips} steps in a row{at}"
                       f"{first} and training ended before any scale gave finite gradients")
        self.engine.report(
            Finding("LRD106", message, None,
                    evidence={"consecutive_skips": info.consecutive_skips, "scale": scale}),
            key=info.key,
        )
        if self.scale_culprit is not None:
            step, culprit = self.scale_culprit
            self._attach("LRD106", culprit, step, info.key)

    # ---- the end -----------------------------------------------------------------------------

    def on_end(self, ev: RunEnd) -> None:
        self.drain()
        eng = self.engine
        # parameters checked only every PARAM_INTERVAL steps under GradScaler: once more now
        for opt_info in list(eng.optimizers.values()):
            opt = opt_info.obj
            if opt is not None and opt_info.taken and not eng.has_finding("LRD105", id(opt)):
                if not all(all_finite(p) for p in self._params(opt)):
                    last = self.last_checked.get(opt_info.key, 0) + 1
                    self.bad_params(last, opt, opt_info.label, None, late=True, exact=False)
        f = eng._findings.get(("LRD104", None))
        if f is not None:
            n = len(self.bad_loss_steps)
            extra = ""
            if n > 1:
                extra += f" ({n} steps had a non-finite loss, the last at step {self.bad_loss_steps[-1]})"
            spread = self.spread.get(f.evidence.get("step", -1), 0)
            if spread:
                extra += (f"; step {f.evidence.get('step')}'s update then wrote NaN into {spread} "
                          f"parameter tensor{'s' if spread != 1 else ''}")
            message = f.message
            if f.evidence.get("module_recorded") is False:
                # never localized: not recurred (or no recurrence named it), and it will not now
                if n == 1:
                    again = "it did not recur"
                elif self.spread.get(f.evidence.get("step", -1), 0):
                    again = "later losses were non-finite from the parameters its update wrote NaN into"
                else:
                    again = "its recurrences did not name it either"
                message = (message.replace(NOT_RECORDED, "") + f"; the module that made it is not named: "
                           f"{again}, and module calls are recorded only after a first non-finite "
                           f"value (`lrdoctor run --nan-record` or `watch(nan_record=True)` records "
                           f"them from the first step)")
            if extra or message != f.message:
                eng.update_finding("LRD104", None, message=message + extra,
                                   evidence=dict(f.evidence, nonfinite_steps=n))
        for info in eng.scalers.values():
            f = eng._findings.get(("LRD106", info.key))
            if f is None and info.consecutive_skips >= SKIP_RUN and ev.error is None and not ev.interrupted:
                # the run ended inside a long run of skips: training never got past it
                scale = info.last_scale if isinstance(info.last_scale, float) else None
                scaler = info.ref()
                backoff = getattr(scaler, "_backoff_factor", 0.5) if scaler is not None else 0.5
                self._report_collapse(info, scale * backoff if scale is not None else None,
                                      ongoing=False)
                continue
            if f is None:
                continue
            scale = info.last_scale if isinstance(info.last_scale, float) else None
            tail = (f"; longest run {info.max_consecutive_skips} skips, scale at the last update "
                    f"{scale:.3g}" if scale is not None else "")
            if scale is not None and scale < 1.1754944e-38:
                tail += " (subnormal or 0: the scaler can no longer recover)"
            elif info.consecutive_skips == 0:
                tail += "; later the gradients were finite again and steps were taken"
            if "longest run" not in f.message:
                eng.update_finding("LRD106", info.key, message=f.message + tail,
                                   evidence=dict(f.evidence, longest_run=info.max_consecutive_skips,
                                                 last_scale=scale))


def _in_caller_code(frame: Any, site: tuple[str, int]) -> bool:
    """Whether ``site`` is a line of the code (function or module body, not the functions and
    classes defined in it) of the user's frame at or above ``frame``: the one that called
    ``backward()``."""
    from lrdoctor.runtime.callsite import _verdict

    while frame is not None and _verdict(frame.f_code) != 2:
        frame = frame.f_back
    if frame is None:
        return True  # not known: as before
    code = frame.f_code
    return code.co_filename == site[0] and any(line == site[1] for _, _, line in code.co_lines())


def _update_trace(opt: Any, p: Any) -> str | None:
    """The name of a non-finite tensor in ``opt``'s state for ``p`` (``exp_avg``,
    ``momentum_buffer``, ...) or ``"grad"``: what a non-finite gradient leaves behind."""
    if p.grad is not None and not all_finite(p.grad):
        return "grad"
    for name, value in opt.state.get(p, {}).items():
        if name != "step" and is_float_tensor(value) and not all_finite(value):
            return name
    return None


class _Busy:
    """Whether a top-level module call is in progress. Shared by all threads, not thread-local
    (see amphooks._Depth): a module called from another thread meanwhile counts as a nested
    call (nn.DataParallel's replicas are run that way)."""

    __slots__ = ("busy",)

    def __init__(self) -> None:
        self.busy = False


def _names_and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _keeper(call: Call, i: int) -> Any:
    def hook(grad: Any) -> None:
        kept = call.grad_outputs
        if kept is not None and i < len(kept):
            kept[i] = grad

    return hook


def _as_calls(raw: list[Any]) -> list[Call]:
    """``raw`` with its tuples (recorded by the module-call hook) made into Calls, in place."""
    for i, c in enumerate(raw):
        if type(c) is tuple:
            module, args, kwargs, rng, dev, code, lasti, amp, node = c
            raw[i] = Call(module, args, kwargs, rng, dev, _site_at(code, lasti), autocast=amp,
                          output_nodes={node} if node else set())
    return raw


def _site_at(code: Any, lasti: int) -> tuple[str, int]:
    """``(filename, line)`` of instruction ``lasti`` (a frame's ``f_lasti``) of ``code``."""
    for start, end, line in code.co_lines():
        if start <= lasti < end and line is not None:
            return (code.co_filename, line)
    return (code.co_filename, code.co_firstlineno)


def _tensors(out: Any) -> list[Any]:
    from lrdoctor.runtime.localize import _flat

    return [t for t in _flat(out) if hasattr(t, "grad_fn")]


_isfinite_float = math.isfinite


def _finite_lrs(lrs: Any) -> bool:
    try:
        for lr in lrs or ():
            if not math.isfinite(lr if type(lr) is float else float(lr)):
                return False
    except (TypeError, ValueError):
        pass
    return True


def _tensor_type() -> Any:
    import torch

    return torch.Tensor


def _dtypes() -> tuple[tuple[Any, Any], Any]:
    import torch

    return (torch.float16, torch.bfloat16), torch.float32


def _grad_mode() -> tuple[Any, Any]:
    import torch

    return torch.is_grad_enabled, torch._C._set_grad_enabled


def _strided() -> Any:
    import torch

    return torch.strided


def _isfinite(p: Any) -> Any:
    import torch

    return torch.isfinite(p.detach())


def _finite_number(x: float) -> bool:
    return x == x and abs(x) != float("inf")


def _param_label(opt: Any, p: Any) -> str:
    for gi, group in enumerate(opt.param_groups):
        for pi, q in enumerate(group["params"]):
            if q is p:
                return f"param_groups[{gi}]['params'][{pi}] {tuple(p.shape)}"
    return f"parameter {tuple(p.shape)}"


def _culprit_evidence(c: Culprit) -> dict[str, Any]:
    ev: dict[str, Any] = {"phase": c.phase, "op": c.op, "kind": c.kind, "reason": c.reason}
    if c.module:
        ev["module"] = c.module
    if c.module_type:
        ev["module_type"] = c.module_type
    if c.node:
        ev["autograd_node"] = c.node
    if c.site:
        ev["line"] = f"{display_path(c.site[0])}:{c.site[1]}"
    if c.then:
        ev["then"] = c.then
    if c.op == "parameter" and c.module:
        ev["parameter"] = c.module
    ev.update(c.evidence)
    return ev


CHECKS = (NonFinite,)
