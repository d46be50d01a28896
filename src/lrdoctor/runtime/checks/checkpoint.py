"""LRD007 at run time: checkpoints that lose the LR schedule (or the GradScaler's scale).

Two moments are judged, both off the per-step path:

- **a save**: ``torch.save`` of an object holding an optimizer's ``state_dict()`` but not the
  state of a scheduler attached to that optimizer (nor, while an enabled GradScaler is in use,
  the scaler's). State dicts are matched to their owners by identity: the dict each
  ``state_dict()`` call returned is remembered (until the next optimizer step) and looked for
  in what is saved, at any depth (dicts, lists, tuples, dataclasses, plain objects). A
  checkpoint written as several files (Hugging Face's optimizer.pt, scheduler.pt, scaler.pt)
  is judged as a whole: every save made before the next optimizer step belongs to it.
- **a resume**: ``optimizer.load_state_dict()`` restoring a trained optimizer (step counts
  above 0) while a scheduler attached to it starts from scratch: never loaded, still at
  ``last_epoch`` 0 when the optimizer next steps, and then stepped without an epoch argument.

Silent, by semantics: a scheduler whose state equals a fresh one's (never stepped); a
scheduler the code positions itself on resume (constructed with ``last_epoch=``, stepped with
``step(epoch)``); ``ReduceLROnPlateau`` (its LR reductions live in the optimizer's param groups,
which the optimizer's state restores; what is lost is its best metric and patience count,
which does not move the schedule: a resume that never loads it is an info-level LRD007 at its
first step, a save without it nothing); a state dict copied before saving (not the dict
the scheduler returned, but recognised by its keys: a scheduler-shaped dict in the checkpoint
counts as the scheduler's state); weights-only saves.
"""

from __future__ import annotations

import ast
import functools
import linecache
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lrdoctor.findings import Finding
from lrdoctor.runtime.callsite import user_site
from lrdoctor.runtime.engine import Engine, fmt_lrs, location, lrs_of
from lrdoctor.runtime.events import OptimizerStep, RunEnd, ScalerUpdate, SchedulerStep, Site
from lrdoctor.runtime.hooks import _all_subclasses, _guard, _scaler_classes, _scheduler_base
from lrdoctor.runtime.patching import Patcher
from lrdoctor.schedulers import RESUME_UNMOVED, SCHEDULERS, resumed_without_state
from lrdoctor.statedicts import is_scaler_state, is_scheduler_state, optimizer_steps, walk

_tls = threading.local()


@dataclass
class _Needed:
    """A scheduler whose state a checkpoint of its optimizer must hold."""

    key: int
    label: str
    last_epoch: int
    lrs: tuple[Any, ...]
    first_lrs: tuple[Any, ...]
    # what a resume does to it (a chainable torch scheduler replays from the restored LR);
    # None: it goes back to its first value
    effect: str | None = None


@dataclass
class _Save:
    site: Site | None
    # optimizer record key -> (label, step count, schedulers it needs)
    optimizers: dict[int, tuple[str, int | None, list[_Needed]]] = field(default_factory=dict)
    needs_scaler: str = ""  # the scale of an in-use scaler when optimizer state was saved
    schedulers: set[int] = field(default_factory=set)  # scheduler ids whose state is saved
    any_scheduler_state: bool = False  # a scheduler-shaped dict we cannot attribute
    scaler_state: bool = False


@dataclass
class _Resume:
    optimizer_key: int
    label: str
    steps: int | None
    site: Site | None
    # scheduler id -> (weak ref, label): candidates found at the optimizer's next step
    candidates: dict[int, tuple[Any, str]] = field(default_factory=dict)
    # the same for ReduceLROnPlateau schedulers never loaded: an info at their next step
    plateaus: dict[int, tuple[Any, str]] = field(default_factory=dict)
    judged: bool = False
    # its first step went through a GradScaler: the scaler's first update then tells whether
    # the scaler started from scratch
    scaler_pending: bool = False


class CheckpointState:
    """LRD007: a save or a resume that loses the scheduler's (or the scaler's) state."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        # id(dict returned by state_dict()) -> (that dict, "optimizer"/"scheduler"/"scaler", owner)
        self.returned: dict[int, tuple[Any, str, Any]] = {}
        self.loaded: weakref.WeakSet[Any] = weakref.WeakSet()  # schedulers given load_state_dict
        self.scaler_loaded = False  # any GradScaler given load_state_dict in this run
        self._listening_scalers = False
        # id(scheduler) -> (weak ref, the user's line that constructed it)
        self.constructed: dict[int, tuple[Any, Site | None]] = {}
        self.saves: list[_Save] = []  # the checkpoint being written (saves since the last step)
        self.resumes: list[_Resume] = []
        self._listening = False
        self._listening_schedulers = False
        self._sources: dict[str, ast.Module | None] = {}
        engine.subscribe(RunEnd, self.on_end)

    # ---- hooks (none of them runs per training step) --------------------------------------

    def install(self, patcher: Patcher) -> None:
        import torch

        patcher.on_undo(self._forget)
        for owner in {torch, torch.serialization}:
            if getattr(owner, "save", None) is not None:
                patcher.setattr(owner, "save", self._wrap_save(owner.save))
        opt_cls = torch.optim.Optimizer
        patcher.setattr(opt_cls, "state_dict", self._wrap_state_dict(opt_cls.__dict__["state_dict"], "optimizer"))
        patcher.setattr(opt_cls, "load_state_dict",
                        self._wrap_optimizer_load(opt_cls.load_state_dict))
        base = _scheduler_base(torch)
        classes = _all_subclasses(base)
        plateau = getattr(torch.optim.lr_scheduler, "ReduceLROnPlateau", None)
        if plateau is not None and plateau not in classes:
            classes += _all_subclasses(plateau)
        for cls in classes:
            if "state_dict" in cls.__dict__:
                patcher.setattr(cls, "state_dict", self._wrap_state_dict(cls.__dict__["state_dict"], "scheduler"))
            if "load_state_dict" in cls.__dict__:
                patcher.setattr(cls, "load_state_dict", self._wrap_scheduler_load(cls.__dict__["load_state_dict"]))
        if "__init__" in base.__dict__:
            patcher.setattr(base, "__init__", self._wrap_scheduler_init(base.__dict__["__init__"]))
        if plateau is not None and plateau is not base and "__init__" in plateau.__dict__:
            # torch 2's ReduceLROnPlateau does not call LRScheduler.__init__: a resume that
            # never loads it is judged at its next step (an info, see _report_plateau_resume)
            patcher.setattr(plateau, "__init__", self._wrap_scheduler_init(plateau.__dict__["__init__"]))
        for cls in _scaler_classes(torch):
            if "state_dict" in cls.__dict__:
                patcher.setattr(cls, "state_dict", self._wrap_state_dict(cls.__dict__["state_dict"], "scaler"))
            if "load_state_dict" in cls.__dict__:
                patcher.setattr(cls, "load_state_dict",
                                self._wrap_scaler_load(cls.__dict__["load_state_dict"]))
        self._torch = torch

    def _forget(self) -> None:
        self.returned.clear()
        self._stop_listening()

    def _wrap_save(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def save(obj: Any, *args: Any, **kwargs: Any) -> Any:
            if getattr(_tls, "saving", False):  # torch.save calling itself (a subclass, a shim)
                return original(obj, *args, **kwargs)
            _tls.saving = True
            try:
                result = original(obj, *args, **kwargs)
            finally:
                _tls.saving = False
            if self.returned or self.saves:
                _guard(self.engine, self.on_save, obj, user_site(3))
            return result

        return save

    def _wrap_state_dict(self, original: Callable[..., Any], kind: str) -> Callable[..., Any]:
        @functools.wraps(original)
        def state_dict(obj: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(obj, *args, **kwargs)
            if isinstance(result, dict):
                # kept (strongly, so the identity is sure) only until the next optimizer step
                self.returned[id(result)] = (result, kind, obj)
                self._listen()
            return result

        return state_dict

    def _wrap_optimizer_load(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def load_state_dict(opt: Any, state_dict: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(opt, state_dict, *args, **kwargs)
            _guard(self.engine, self.on_optimizer_load, opt, state_dict, user_site(3))
            return result

        return load_state_dict

    def _wrap_scheduler_load(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def load_state_dict(sched: Any, *args: Any, **kwargs: Any) -> Any:
            result = original(sched, *args, **kwargs)
            _guard(self.engine, self._on_scheduler_loaded, sched)
            return result

        return load_state_dict

    def _wrap_scaler_load(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def load_state_dict(scaler: Any, *args: Any, **kwargs: Any) -> Any:
            self.scaler_loaded = True
            return original(scaler, *args, **kwargs)

        return load_state_dict

    def _on_scheduler_loaded(self, sched: Any) -> None:
        try:
            self.loaded.add(sched)
        except TypeError:
            pass
        # the schedule resumes where the checkpoint left it: checks that judge how far a
        # schedule got (LRD011) count from there
        last_epoch = _last_epoch(sched)
        if last_epoch:
            info = self.engine.scheduler(sched)
            info.restored_steps = max(0, last_epoch - info.user_steps)

    def _wrap_scheduler_init(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def __init__(sched: Any, *args: Any, **kwargs: Any) -> None:
            original(sched, *args, **kwargs)
            if id(sched) not in self.constructed or self.constructed[id(sched)][0]() is not sched:
                _guard(self.engine, self._on_scheduler_created, sched, user_site(3))

        return __init__

    def _on_scheduler_created(self, sched: Any, site: Site | None) -> None:
        if len(self.constructed) > 256:  # schedulers come and go in long sessions
            for key in [k for k, (ref, _) in self.constructed.items() if ref() is None]:
                del self.constructed[key]
        self.constructed[id(sched)] = (weakref.ref(sched), site)

    # ---- listening to the next optimizer step, only while something waits for it ------------

    def _listen(self) -> None:
        if not self._listening:
            self._listening = True
            self.engine.subscribe(OptimizerStep, self.on_step)

    def _stop_listening(self) -> None:
        if self._listening:
            self._listening = False
            self.engine.unsubscribe(OptimizerStep, self.on_step)
        if self._listening_schedulers:
            self._listening_schedulers = False
            self.engine.unsubscribe(SchedulerStep, self.on_scheduler_step)
        if self._listening_scalers:
            self._listening_scalers = False
            self.engine.unsubscribe(ScalerUpdate, self.on_scaler_update)

    def on_step(self, ev: OptimizerStep) -> None:
        self.returned.clear()
        if self.saves:
            self._judge_checkpoint()
        for resume in self.resumes:
            if not resume.judged and resume.optimizer_key == ev.optimizer.key:
                self._find_fresh_schedulers(resume)
                if ev.via_scaler and not self.scaler_loaded:
                    resume.scaler_pending = True
        self._prune_resumes()
        if any(r.scaler_pending for r in self.resumes) and not self._listening_scalers:
            self._listening_scalers = True
            self.engine.subscribe(ScalerUpdate, self.on_scaler_update)
        if not any(not r.judged for r in self.resumes):
            self._listening = False
            self.engine.unsubscribe(OptimizerStep, self.on_step)
        if any(r.candidates or r.plateaus for r in self.resumes) and not self._listening_schedulers:
            self._listening_schedulers = True
            self.engine.subscribe(SchedulerStep, self.on_scheduler_step)

    # ---- saves -------------------------------------------------------------------------------

    def on_save(self, obj: Any, site: Site | None) -> None:
        torch = self._torch
        base = _scheduler_base(torch)
        plateau = getattr(torch.optim.lr_scheduler, "ReduceLROnPlateau", base)
        scalers = tuple(_scaler_classes(torch))
        save = _Save(site)

        leaves = (torch.Tensor, torch.nn.Module, torch.optim.Optimizer, base, plateau) + scalers

        def leaf(x: Any) -> bool:
            return isinstance(x, leaves) or type(x).__module__.startswith(("numpy", "torch"))

        for _, x in walk(obj, leaf=leaf):
            entry = self.returned.get(id(x))
            if entry is not None and entry[0] is x:
                kind, owner = entry[1], entry[2]
            elif isinstance(x, torch.optim.Optimizer):
                kind, owner = "optimizer", x
            elif isinstance(x, (base, plateau)):
                kind, owner = "scheduler", x
            elif scalers and isinstance(x, scalers):
                kind, owner = "scaler", x
            else:
                if is_scheduler_state(x):
                    save.any_scheduler_state = True
                elif is_scaler_state(x):
                    save.scaler_state = True
                continue
            if kind == "optimizer":
                self._saved_optimizer(save, owner, x)
            elif kind == "scheduler":
                save.schedulers.add(id(owner))
                # a composite's state holds its children's
                save.schedulers.update(id(c) for c in getattr(owner, "_schedulers", ()) or ())
            elif kind == "scaler":
                save.scaler_state = True
        if save.optimizers or save.schedulers or save.any_scheduler_state or save.scaler_state:
            self.saves.append(save)
            self._listen()

    def _saved_optimizer(self, save: _Save, opt: Any, state: Any) -> None:
        engine = self.engine
        info = engine.optimizer(opt)
        if info.key in save.optimizers:
            return
        steps = optimizer_steps(state) if isinstance(state, dict) else None
        needed = [n for n in (self._needed(s) for s in self._schedulers_of(info)) if n is not None]
        save.optimizers[info.key] = (info.label, steps if steps is not None else info.attempts, needed)
        if not save.needs_scaler:
            for scaler_info in engine.scalers.values():
                scaler = scaler_info.ref()
                if scaler is not None and scaler_info.updates and getattr(scaler, "_enabled", True):
                    scale = scaler_info.last_scale
                    save.needs_scaler = f"{scale:g}" if isinstance(scale, float) else "?"

    def _schedulers_of(self, info: Any) -> list[Any]:
        """The live schedulers driving the optimizer of ``info`` (outermost ones: a composite
        stands for its children)."""
        engine = self.engine
        found: dict[int, Any] = {}
        for s in info.schedulers:
            obj = s.obj
            if obj is not None:
                found[id(obj)] = obj
        for ref, _ in self.constructed.values():
            obj = ref()
            opt = getattr(obj, "optimizer", None)
            if obj is not None and opt is not None and engine.known_optimizer(opt) is info:
                found[id(obj)] = obj
        children = {id(c) for s in found.values() for c in getattr(s, "_schedulers", ()) or ()}
        return [s for key, s in found.items() if key not in children]

    def _needed(self, sched: Any) -> _Needed | None:
        """The scheduler, if losing its state moves the schedule of a resumed run."""
        torch = self._torch
        plateau = getattr(torch.optim.lr_scheduler, "ReduceLROnPlateau", None)
        if plateau is not None and isinstance(sched, plateau):
            return None
        last_epoch = _last_epoch(sched)
        if not last_epoch:  # never stepped: a fresh scheduler is the same
            return None
        built = self.constructed.get(id(sched))
        if built is not None and built[0]() is sched and self._call_has(built[1], "last_epoch"):
            return None  # rebuilt at the right position on resume
        info = self.engine.schedulers.get(id(sched))
        if info is not None and info.obj is sched and self._step_has_epoch(info.last_site):
            return None  # positioned by step(epoch)
        moves, effect = _resume_effect(sched)
        if not moves:
            return None  # ExponentialLR goes on from the restored LR exactly
        opt = getattr(sched, "optimizer", None)
        first = info.first_lrs if info is not None and info.first_lrs else None
        if first is None:
            first = tuple(getattr(sched, "base_lrs", ()) or ())
        return _Needed(id(sched), info.label if info is not None else type(sched).__name__,
                       last_epoch, lrs_of(opt) if opt is not None else (), first, effect)

    def _judge_checkpoint(self) -> None:
        saves, self.saves = self.saves, []
        saved_schedulers = set().union(*(s.schedulers for s in saves))
        any_scheduler = any(s.any_scheduler_state for s in saves)
        scaler_saved = any(s.scaler_state for s in saves)
        done: set[int] = set()
        for save in saves:
            for key, (label, steps, needed) in save.optimizers.items():
                if key in done:
                    continue
                done.add(key)
                missing = [] if any_scheduler else [n for n in needed if n.key not in saved_schedulers]
                scaler = save.needs_scaler if not scaler_saved else ""
                if missing or scaler:
                    self._report_save(save.site, label, steps, missing, scaler)

    def _report_save(self, site: Site | None, label: str, steps: int | None, missing: list[_Needed],
                     scale: str) -> None:
        what = []
        consequences = []
        for n in missing:
            what.append(f"{n.label}'s (last_epoch {n.last_epoch})")
            lr_change = ""
            if n.effect is not None:
                lr_change = f" ({n.effect})"
            elif fmt_lrs(n.first_lrs) != fmt_lrs(n.lrs):
                lr_change = f" (LR back to {fmt_lrs(n.first_lrs)} from {fmt_lrs(n.lrs)})"
            consequences.append(f"restarts {n.label} from last_epoch 0{lr_change}")
        if scale:
            what.append(f"the GradScaler's (scale {scale})")
            consequences.append("restarts the GradScaler at its initial scale, skipping steps again")
        steps_text = f" after {steps} steps" if steps else ""
        self.engine.report(
            Finding(
                "LRD007",
                f"torch.save stored {label}'s state{steps_text} but not {' or '.join(what)}: "
                f"a run resumed from this checkpoint {' and '.join(consequences)}",
                location(site),
                evidence={"optimizer": label, "optimizer_steps": steps,
                          "missing_schedulers": [n.label for n in missing],
                          "missing_scaler": bool(scale)},
            ),
            key=("save", site),
        )

    # ---- resumes -----------------------------------------------------------------------------

    def on_optimizer_load(self, opt: Any, state: Any, site: Site | None) -> None:
        if not isinstance(state, dict) or not isinstance(state.get("state"), dict) or not state["state"]:
            return  # an optimizer that never stepped: nothing to restore out of step with
        steps = optimizer_steps(state)
        if steps == 0:
            return
        info = self.engine.optimizer(opt)
        self.resumes = [r for r in self.resumes if r.optimizer_key != info.key]
        self.resumes.append(_Resume(info.key, info.label, steps, site))
        self._listen()

    def _find_fresh_schedulers(self, resume: _Resume) -> None:
        resume.judged = True
        info = self.engine.optimizers.get(resume.optimizer_key)
        if info is None:
            return
        plateau = getattr(self._torch.optim.lr_scheduler, "ReduceLROnPlateau", None)
        for sched in self._schedulers_of(info):
            if plateau is not None and isinstance(sched, plateau):
                if sched not in self.loaded:
                    rec = self.engine.schedulers.get(id(sched))
                    label = rec.label if rec is not None and rec.obj is sched else "ReduceLROnPlateau"
                    resume.plateaus[id(sched)] = (weakref.ref(sched), label)
                continue
            if sched in self.loaded or _last_epoch(sched) != 0:
                continue  # restored, or positioned by the code (last_epoch=, fast-forward steps)
            if not _resume_effect(sched)[0]:
                continue  # ExponentialLR goes on from the restored LR exactly
            built = self.constructed.get(id(sched))
            if built is not None and built[0]() is sched and self._call_has(built[1], "last_epoch"):
                continue
            rec = self.engine.schedulers.get(id(sched))
            label = rec.label if rec is not None and rec.obj is sched else type(sched).__name__
            resume.candidates[id(sched)] = (weakref.ref(sched), label)

    def _prune_resumes(self) -> None:
        """Drop the resumes with nothing left to judge."""
        self.resumes = [r for r in self.resumes
                        if not r.judged or r.candidates or r.plateaus or r.scaler_pending]

    def on_scheduler_step(self, ev: SchedulerStep) -> None:
        for resume in self.resumes:
            lost = resume.plateaus.pop(ev.scheduler.key, None)
            if lost is not None:
                sched = lost[0]()
                if sched is not None and sched not in self.loaded:
                    self._report_plateau_resume(resume, lost[1], sched)
                continue
            entry = resume.candidates.pop(ev.scheduler.key, None)
            if entry is None:
                continue
            ref, label = entry
            sched = ref()
            if sched is None or sched in self.loaded:
                continue
            if not (ev.args or ev.kwargs):  # step(epoch) positions the schedule itself
                self._report_resume(resume, label, _resume_effect(sched)[1])
        self._prune_resumes()
        if not any(r.candidates or r.plateaus for r in self.resumes):
            self._listening_schedulers = False
            self.engine.unsubscribe(SchedulerStep, self.on_scheduler_step)

    def on_scaler_update(self, ev: ScalerUpdate) -> None:
        """The first GradScaler update after a resumed optimizer's first step: a scaler that was
        never loaded and updates for the first time in this run started from its initial scale,
        so it backs off again from there, skipping updates the original run had got past."""
        pending = [r for r in self.resumes if r.scaler_pending]
        for resume in pending:
            resume.scaler_pending = False
        scaler = ev.scaler.ref()
        enabled = getattr(scaler, "is_enabled", None)
        if (not self.scaler_loaded and ev.scaler.updates == 1
                and (enabled is None or enabled())):
            for resume in pending:
                self._report_scaler_resume(resume, ev.scale_before)
        self._prune_resumes()
        self._listening_scalers = False
        self.engine.unsubscribe(ScalerUpdate, self.on_scaler_update)

    def _report_scaler_resume(self, resume: _Resume, scale: Any) -> None:
        steps = f" trained for {resume.steps} steps" if resume.steps else " with trained state"
        at = f" ({scale:g})" if isinstance(scale, float) else ""
        self.engine.report(
            Finding(
                "LRD007",
                f"optimizer.load_state_dict() restored {resume.label}{steps}, but the GradScaler "
                f"was never loaded and started from its initial scale{at}: the resumed run "
                f"backs off from there again, skipping updates on inf gradients that the "
                f"original run had already got past",
                location(resume.site),
                evidence={"optimizer": resume.label, "optimizer_steps": resume.steps,
                          "missing": "GradScaler", "scale": scale if isinstance(scale, float) else None},
            ),
            key=("resume-scaler", resume.site),
        )

    def _report_resume(self, resume: _Resume, label: str, effect: str | None) -> None:
        steps = f" trained for {resume.steps} steps" if resume.steps else " with trained state"
        if effect is None:
            effect = ("the resumed run replays the schedule from its first value (warm-up again, "
                      "LR back at its peak) instead of continuing it")
        self.engine.report(
            Finding(
                "LRD007",
                f"optimizer.load_state_dict() restored {resume.label}{steps}, but {label} was never loaded and started "
                f"from scratch (last_epoch 0): {effect}",
                location(resume.site),
                evidence={"optimizer": resume.label, "optimizer_steps": resume.steps, "scheduler": label},
            ),
            key=("resume", resume.site, label),
        )

    def _report_plateau_resume(self, resume: _Resume, label: str, sched: Any) -> None:
        """An info, not a warning: the LR the plateau reached came back with the optimizer's
        param groups; its best metric and bad-epoch count did not."""
        steps = f" trained for {resume.steps} steps" if resume.steps else " with trained state"
        patience = getattr(sched, "patience", None)
        self.engine.report(
            Finding(
                "LRD007",
                f"optimizer.load_state_dict() restored {resume.label}{steps}, and with it the LR "
                f"that {label} reduced, but {label} was never loaded: its best metric and patience "
                f"count restarted, so its next reduction can come up to patience"
                f"{f' ({patience})' if patience is not None else ''} epochs late or early",
                location(resume.site),
                severity="info",
                evidence={"optimizer": resume.label, "optimizer_steps": resume.steps,
                          "scheduler": label, "patience": patience},
            ),
            key=("resume-plateau", resume.site, label),
        )

    def on_end(self, ev: RunEnd) -> None:
        if self.saves:
            self._judge_checkpoint()
        for resume in self.resumes:
            for ref, label in resume.candidates.values():
                sched = ref()
                if sched is not None:  # trained after the resume, the schedule never moved on
                    self._report_resume(resume, label, _resume_effect(sched)[1])
        self.resumes = []
        self.returned.clear()

    # ---- what the user's code says, read from its source (only when a save is judged) ------

    def _call_has(self, site: Site | None, keyword: str) -> bool:
        """Whether a call on the line of ``site`` passes ``keyword=`` (other than -1)."""
        for call in self._calls_at(site):
            for kw in call.keywords:
                if kw.arg == keyword and not (isinstance(kw.value, ast.UnaryOp)
                                              and isinstance(kw.value.operand, ast.Constant)
                                              and kw.value.operand.value == 1):
                    return True
        return False

    def _step_has_epoch(self, site: Site | None) -> bool:
        return any(isinstance(c.func, ast.Attribute) and c.func.attr == "step" and (c.args or c.keywords)
                   for c in self._calls_at(site))

    def _calls_at(self, site: Site | None) -> list[ast.Call]:
        if site is None:
            return []
        filename, line = site
        if filename not in self._sources:
            tree = None
            try:
                source = "".join(linecache.getlines(filename))
                tree = ast.parse(source) if source else None
            except (SyntaxError, ValueError):
                tree = None
            self._sources[filename] = tree
        tree = self._sources[filename]
        if tree is None:
            return []
        return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                and n.lineno <= line <= (n.end_lineno or n.lineno)]


def _last_epoch(sched: Any) -> int | None:
    value = getattr(sched, "last_epoch", None)
    if value is None:  # ChainedScheduler keeps none of its own: its children's tell
        children = getattr(sched, "_schedulers", None) or ()
        values = [v for v in (_last_epoch(c) for c in children) if v is not None]
        return max(values) if values else None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


CHECKS = (CheckpointState,)


def _resume_effect(sched: Any) -> tuple[bool, str | None]:
    """Whether losing ``sched``'s state moves a resumed run's schedule, and how, when it is one
    of PyTorch's chainable schedulers (they scale the LR restored with the optimizer; see
    `schedulers.resumed_without_state`); (True, None) for the rest, which go back to their
    first value (the caller says so with the LRs it knows). Only torch's own classes are read
    by name: a subclass may compute its LR differently."""
    cls = type(sched)
    name = cls.__name__
    if cls.__module__ != "torch.optim.lr_scheduler" or name not in SCHEDULERS:
        return True, None
    if name in RESUME_UNMOVED:
        return False, None
    shown = {}
    for param, _ in SCHEDULERS[name].horizon_params:
        value = getattr(sched, param, None)
        if param == "milestones" and value is not None:
            value = sorted(value)
        if value is not None and not callable(value):
            shown[param] = str(value)
    return True, resumed_without_state(name, shown)
