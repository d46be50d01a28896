"""Building the training-loop model by tracing a file.

The model is built by *tracing* a file once: its module body, then every function and method
nobody in the file calls (library entry points, Lightning hooks, a Trainer's ``fit``), each
with the objects its callers pass in. Calls to functions and methods of the same file, and of
other modules of the checked project, are followed (inlined) so that ``for epoch: train()``
puts ``train``'s batch loop inside the epoch loop. Every interesting call becomes an
:class:`Event` that knows its object, its loop (with the loop's ancestors), the conditions it
sits under, and its place in execution order.

Tracing is abstract: loops run once, both branches of an ``if`` run, values are only known when
they are objects lrdoctor tracks (optimizers, schedulers, GradScalers, loaders), containers of
them, instances of the file's classes, or expressions kept as source for horizon judgments.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

from lrdoctor.check import inert, names, unset
from lrdoctor.check.constants import (
    attribute_stores,
    class_constant_of,
    read_root,
    record_literal,
    resolve,
    settings,
    string_table,
    yaml_data,
)
from lrdoctor.check.context import function_around
from lrdoctor.check.index import (
    ClassInfo,
    ModuleInfo,
    ModuleLoader,
    Scope,
    SpreadScope,
    class_info,
    dotted,
    exit_stack_calls,
    is_super,
    lambda_function,
    last_name,
    literal_setattr,
    own_nodes,
    star_name,
    super_call,
)
from lrdoctor.check.instantiate import BUILDERS as CONFIG_BUILDERS
from lrdoctor.check.instantiate import LOOKUPS as CONFIG_LOOKUPS
from lrdoctor.check.instantiate import (
    changed_keys,
    partial_node,
    placed_at,
    target_expr,
    written_out,
)
from lrdoctor.check.instantiate import literal_expr as config_literal
from lrdoctor.check.matchcase import match_as_if
from lrdoctor.check.memo import per_node
from lrdoctor.check.model import (
    SELECTOR_KEYS,
    Cond,
    Event,
    Frame,
    Loop,
    Program,
    bounds_of,
    built_apart,
    facts_contradict,
    flag_of,
    impossible_path,
    setting_key,
    setting_tests,
    settings_disagree,
)
from lrdoctor.check.project import MAX_MODULES  # project modules one file's trace follows
from lrdoctor.check.records import (
    NAMED_TUPLE_FACTORIES,
    RECORD_COPIES,
    RecordInit,
    record_init,
    tuple_fields,
)
from lrdoctor.check.registry import only_looked_up, registry_object_pairs
from lrdoctor.check.values import (
    EVERY_FEW_STEPS,
    ClassVal,
    Const,
    DeepSpeedEngineVal,
    DictVal,
    EngineVal,
    ExprVal,
    FuncVal,
    IgniteCheckpoint,
    IgniteLRStep,
    ImportRef,
    InstanceVal,
    ItemsVal,
    LibPartial,
    Obj,
    ParamGroupsVal,
    ParamGroupVal,
    RunnerVal,
    ScaledVal,
    StateDictVal,
    SuperVal,
    TupleVal,
    Unfilled,
    UnionVal,
    const_key,
    flatten,
    is_loader,
    lightning_interval,
    loop_members,
    one_of_loaders,
    options,
    subscript,
)
from lrdoctor.check.yamlconf import (
    HYDRA_COMPOSE,
    UNRESOLVED,
    interpolated,
    names_scheduler_classes,
    sourced,
)
from lrdoctor.check.yamlconf import LOADERS as YAML_LOADERS
from lrdoctor.schedulers import HF_WARMUP_BUILDERS, SCHEDULERS

# per file: a generated file must not trace forever; a file cut short says so in the output
MAX_STATEMENTS = 200_000
MAX_CALL_DEPTH = 16
MAX_EVAL_DEPTH = 60

_loop_ids = itertools.count(10**9)  # clones of loops replayed in another loop


@dataclass(eq=False)
class Summary:
    """What one traced call did, to replay at later calls with the same objects: its events,
    the loops it entered, the context it was first traced in, and what it returned."""

    events: list[Event]
    loops: list[Loop]
    loop: Loop | None  # the caller's loop, branches and call at the first trace
    conds: tuple[Cond, ...]
    frame: Frame | None
    result: Any
    generation: int  # the tracer's generation after the first trace (see Tracer.generation)


def _none_defaulted(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The parameters of ``fn`` whose default is None (``def step(self, epoch=None)``)."""
    names = {p.arg for p, d in zip(fn.args.args[len(fn.args.args) - len(fn.args.defaults):],
                                   fn.args.defaults)
             if isinstance(d, ast.Constant) and d.value is None}
    names |= {p.arg for p, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults)
              if isinstance(d, ast.Constant) and d.value is None}
    return names


class Tracer:
    """Builds a :class:`Program` for one module."""

    def __init__(self, module: ModuleInfo, loader: ModuleLoader | None = None,
                 source: str | None = None) -> None:
        self.module = module
        self.source = source
        self.loader = loader or ModuleLoader()
        self.events: list[Event] = []
        self.objects: list[Obj] = []
        self.loops: list[Loop] = []
        self.lightning: list[tuple[ast.AST, str, Any]] = []
        self.assigned_names: set[str] = set()
        self.called_names: set[str] = set()
        self.validation_sites: list[tuple[str, str, int, int, int, bool]] = []
        self.validation_runs: list[tuple[str, int, Loop | None]] = []
        self.root_classes: list[tuple[int, tuple[tuple[str, int], ...]]] = []
        self.validation_seen: set[tuple[str, int, int | None]] = set()
        # per call in the code (by id) that went to project functions: whether every one of
        # them has an empty body, as of the call's latest evaluation
        self.nothing_calls: dict[int, bool] = {}
        self.own_schedules: dict[int, bool] = {}  # per scheduler class (see own_schedule)
        # calls written as statements of their own (`run_perf(model, optimizer, scheduler)`),
        # by id: whatever such a call returns is dropped on the spot
        self.dropped_calls: set[int] = set()
        self.order = 0
        self.budget = MAX_STATEMENTS
        self.truncated = False
        self.cuts = 0  # how often the trace was cut short (a call cut short is not summarised)
        # ... of which by MAX_CALL_DEPTH: the same call made at the same depth is cut alike
        self.depth_cuts = 0
        self.guessed = 0  # guessed objects looked up (they are shared by a root's calls)
        # the calls being traced whose trace may be kept as inert (see inert.py), innermost
        # last; the inert ones are kept by the loader for the files of one run
        self.recordings: list[inert.Recording] = []
        self.inert: dict[Any, list[inert.Inert]] = getattr(self.loader, "inert", {})
        self.loop: Loop | None = None
        # the loader (or dict entry of loaders) each loop over one iterates, by its statement
        self.loop_loaders: dict[int, Any] = {}
        # the names of the loops running now that take, one at a time, every optimizer,
        # scheduler or scaler of a column (`for opt, sched in zip(optimizers, schedulers):`):
        # each name with its scope and those objects (see column_names)
        self.columns: dict[str, tuple[Scope, UnionVal]] = {}
        self.conds: tuple[Cond, ...] = ()
        self.stack: list[ast.AST] = []
        self.given: list[set[str]] = []  # per traced call: the parameters its caller passed
        # the functions traced, by node (held: an id could be reused once a node is freed)
        self.visited: set[ast.AST] = set()
        self.root = 0
        self.frame: Frame | None = None
        # the scope each call of the code was evaluated in (the caller's, for a function the
        # call traces), to read what the call wrote for the callee's `**kwargs`
        self.call_scopes: dict[ast.Call, Scope] = {}
        self.module_scope = Scope({}, module)
        # the classes of `class` statements inside functions, by statement (see exec_stmt)
        self.local_classes: dict[ast.ClassDef, ClassInfo] = {}
        self.path = module.path
        self.returns: list[Any] | None = None
        self.guesses: dict[str, Obj] = {}
        # the GradScaler a Hugging Face Trainer subclass inherits, per class (see
        # hf_trainer_scaler); reset with each root, as guessed objects are
        self.hf_scalers: dict[int, Obj] = {}
        # GradScalers built at the top level of other project modules (see module_scaler)
        self.module_scalers: dict[tuple[str, str], Obj | None] = {}
        self.instances: dict[str, InstanceVal] = {}
        # per-call summaries; valid while nothing a call could read outside its arguments (an
        # instance attribute, a module global, a container's items) was rebound to or from a
        # tracked object: `generation` counts those rebinds
        self.summaries: dict[tuple[Any, ...], Summary] = {}
        # a decorated function's wrapper, by the function and its closure (see decorated)
        self.decorations: dict[tuple[int, int], tuple[Scope | None, FuncVal | None]] = {}
        self.generation = 0
        self.created = 0  # objects built so far: a call that builds one is never replayed
        # Program.entered / Program.reached; the function of this file traced as the current
        # root (None: the module's own code, or a root defined in another file)
        self.entered: set[tuple[str, int]] = set()
        self.reached: dict[tuple[str, int], tuple[int, set[tuple[str, int] | None]]] = {}
        self.root_fn: tuple[str, int] | None = None
        # Program.skipped: branches this trace left out because a parameter its caller did not
        # pass kept its literal default (`if checkpoint: optimizer.load_state_dict(...)`)
        self.skipped: set[tuple[str, int, int]] = set()
        # how often each name / attribute was (re)bound: a flag tested twice is the same flag
        # only when nothing rebound it between the tests
        self.versions: dict[str, int] = {}
        # events left out as on branches that never run together (see emit)
        self.impossible = 0
        self._targets: dict[tuple[str, str], FuncVal | ClassVal | None] = {}
        self._tables: dict[tuple[str, str], DictVal | None] = {}
        self._target_paths: dict[tuple[str, str], set[str]] = {}
        # (LightningModule instance, configure_optimizers return value)
        self.configured: list[tuple[InstanceVal, Any]] = []
        # schedulers a Hugging Face Trainer steps after every optimizer step: (where it is
        # handed over or built, path, the scheduler)
        self.hf_stepped: list[tuple[ast.AST, str, Obj, float | None, str]] = []
        # Accelerate: the objects each accelerator (by its spelling) was handed to prepare or
        # to register for checkpointing, which its `save_state()` writes
        self.accelerated: dict[str, list[Obj]] = {}
        self.accelerated_opaque: set[str] = set()
        # the `with accelerator.accumulate(model):` blocks being traced, innermost last: the
        # accelerator (built with gradient accumulation) whose prepared optimizers step only
        # on the micro-batches it syncs; events inside carry it as info["accumulating"]
        self.accumulating: list[RunnerVal] = []
        # tracing a LightningModule's optimizer_step override (run once per update)
        self.per_update = False
        # LightningModule instances in manual optimization: (the instance, held so that its id
        # is not reused, optimizers, schedulers) that `self.optimizers()` /
        # `self.lr_schedulers()` return
        self.manual: dict[int, tuple[InstanceVal, list[Obj], list[Obj]]] = {}
        # `Cls(**parts)` with its keywords written out (see spelled_out), by the call
        self.spelled: dict[int, tuple[ast.Call, ast.Call]] = {}
        self.project_option = False  # inside a call on a choice with a project-class option
        self.followed: set[str] = set()  # project modules this trace went into
        self._flags: dict[int, Any] = {}  # flag_of(test) per `if` test node
        # per attribute name: the setting every assignment the trace saw copied into it (""
        # once two assignments disagree or one is not a plain setting read)
        self.setting_copies: dict[str, str] = {}
        # what the program stored on the project's classes themselves (`Runner.scheduler =
        # StepLR(...)`), by the class: read back through the class and through every instance
        # that has no attribute of its own by that name
        self.class_attrs: dict[int, dict[str, Any]] = {}
        self.cond_base = 0  # how many branches the current function was entered under
        # inside a branch that a class test on a known scheduler chose (`if isinstance(sched,
        # CyclicLR): self.per_batch = True`): what it stores follows from that scheduler's class
        self.by_class = 0

    # -- driving -------------------------------------------------------------------------

    def run(self) -> Program:
        self.exec_body(self.module.tree.body, self.module_scope)
        called = _called_names(self.module.tree, self.source)
        for name, fn in self.module.functions.items():
            if name not in called and fn not in self.visited:
                self.trace_root_function(fn, None)
        for cls in self.module.classes.values():
            self.trace_root_class(cls, called)
        # whatever is still unvisited (mutual recursion, calls only from untraced code)
        for fn in self.module.functions.values():
            if fn not in self.visited:
                self.trace_root_function(fn, None)
        for cls in self.module.classes.values():
            for method in cls.methods.values():
                if method not in self.visited:
                    self._new_root()
                    instance = self.instances.get(cls.name) or InstanceVal(cls)
                    self.call_function(FuncVal(method, cls.module, instance, cls), [], {},
                                       root=True)
        self.trace_scheduler_hooks()
        for loop in _training_loops(self.loops, self.events):
            loop.hint = "batch"
        for loop in self.loops:
            loop.batch = loop.iterates_loader or loop.hint == "batch"
        # a batch loop makes the loops around it epoch loops only when it trains: a periodic
        # evaluation over the validation loader inside `for step in range(total)` does not
        updating: set[int] = set()
        roots_updating: set[int] = set()
        stepping: set[int] = set()  # loops with an optimizer step somewhere inside
        for e in self.events:
            if e.kind in _UPDATES and e.loop is not None:
                roots_updating.add(e.root)
                for lp in e.loop.ancestors():
                    updating.add(lp.id)
                    if e.kind in ("opt_step", "scaler_step"):
                        stepping.add(lp.id)
        for loop in self.loops:
            # a loop that takes the next batch of a loader's iterator on each pass (`batch =
            # next(it)`) is the batch loop where the trace sees no update (the step is in a
            # method a subclass not checked here implements): the loop over the validation
            # loader it runs now and then does not make it an epoch loop
            if loop.draws_loader and loop.root not in roots_updating:
                loop.batch = True
        for loop in self.loops:
            if _micro_batch_loop(loop, stepping):
                continue
            if loop.batch and (loop.id in updating or loop.root not in roots_updating) and not (
                    _repeats(loop) and any(a.batch for a in loop.ancestors() if a is not loop)):
                # (`for _ in range(n_critic):` in a batch loop repeats that batch's update: the
                # loop around it still runs once per batch)
                parent = loop.parent
                while parent is not None:
                    if not (parent.draws_loader and loop.id not in updating):
                        parent.contains_batch = True
                    parent = parent.parent
        for loop in self.loops:
            # `while global_step < max_steps: for batch in loader: ...` is the outer loop
            if loop.batch and not loop.iterates_loader and loop.contains_batch:
                loop.batch = False
        update_loops = [e.loop for e in self.events
                        if e.kind in ("opt_step", "scaler_step") and e.loop is not None]
        for loop in self.loops:
            # `for split in loader: for batch in batches(split): ...; optimizer.step()`: each
            # item of the outer loader is a chunk of many batches (a file, a shard); the loop
            # that holds every update is the batch loop, the one around it an epoch loop
            if loop.batch and loop.iterates_loader and _updates_only_in_inner_batches(
                    loop, update_loops):
                loop.batch = False
                loop.contains_batch = True
        for loop in self.loops:
            # a batch loop (by its header, or by holding the updates) that takes its batches
            # with `next(it)` from a loader's iterator, and runs no batch loop inside: it goes
            # over that loader's batches, as `for batch in loader:` would
            if loop.batch and loop.draws_loader and not loop.contains_batch:
                loop.iterates_loader = True
                if isinstance(loop.node, ast.While) and not loop.over_name:
                    loop.over_name = f"next({loop.draws_loader})"
        return Program(
            self.path, self.events, self.objects, self.loops, self.lightning,
            self.assigned_names, self.called_names, self.truncated, frozenset(self.entered),
            tuple((path, line, end, frozenset(roots))
                  for (path, line), (end, roots) in self.reached.items()),
            frozenset(self.skipped), tuple(self.hf_stepped), tuple(self.validation_sites),
            tuple(self.validation_runs), tuple(self.root_classes),
        )

    def hf_schedulers(self, built: list[tuple[ast.AST, Any]], epochs: float | None = None,
                      trainer: str | None = None) -> None:
        """Record the schedulers among ``built`` ((node, value) pairs) as stepped by a
        library's trainer (``trainer``, in words; a Hugging Face Trainer by default): once
        after every optimizer step (the Trainer steps a ReduceLROnPlateau at each evaluation,
        with its metric). ``epochs``: the run's epochs, where its ``TrainingArguments`` say
        (see hf_epochs)."""
        seen: set[int] = set()
        for node, value in built:
            for option in options(value) if isinstance(value, UnionVal) else [value]:
                if isinstance(option, Obj) and option.kind == "scheduler" \
                        and option.id not in seen:
                    seen.add(option.id)
                    self.hf_stepped.append((node, self.path, option, epochs,
                                            trainer or _HF_TRAINER_WORDS))

    def trace_scheduler_hooks(self) -> None:
        """Lightning calls ``lr_scheduler_step(scheduler, metric)`` for each scheduler that
        ``configure_optimizers`` returned, after every batch (``"interval": "step"``) or every
        epoch: trace an override of it in that loop, with that scheduler."""
        for instance, value in self.configured:
            hook = instance.info.find("lr_scheduler_step")
            if hook is None:
                continue
            fn, owner = hook
            for sched, interval in _configured(value):
                if interval == EVERY_FEW_STEPS:
                    continue  # every few batches: neither the batch loop's pace nor the epoch's
                self._new_root()
                epochs = Loop(fn, owner.module.path, None, "epoch", None, frozenset(),  # type: ignore[arg-type]
                              fn.lineno, over_name="Lightning's epochs", root=self.root)
                self.loops.append(epochs)
                self.loop = epochs
                if interval == "step":
                    batches = Loop(fn, owner.module.path, epochs, "batch", None, frozenset(),  # type: ignore[arg-type]
                                   fn.lineno, over_name="Lightning's training batches",
                                   root=self.root)
                    batches.iterates_loader = True
                    self.loops.append(batches)
                    self.loop = batches
                # Lightning hands the hook the monitored value only for a scheduler configured
                # as a plateau (`reduce_on_plateau`: a ReduceLROnPlateau, or the dict's key);
                # any other gets None (`lr_scheduler_step(scheduler, metric)` in 2.x,
                # `(scheduler, optimizer_idx, metric)` in 1.x: the metric is the last)
                given: list[Any] = [sched] + [None] * max(0, len(fn.args.args) - 3)
                if len(fn.args.args) >= 3:
                    given.append(Const(None, sure=True)
                                 if _never_monitored(value, sched) else None)
                self.call_function(FuncVal(fn, owner.module, instance, owner), given, {},
                                   root=True)
                self.loop = None

    def cut(self) -> None:
        """The trace stops short here (a size limit): said in the output."""
        self.truncated = True
        self.cuts += 1

    def _new_root(self) -> None:
        self.root += 1
        self.loop = None
        self.conds = ()
        self.guesses = {}
        self.hf_scalers = {}
        self.summaries = {}  # they hold this root's guessed objects
        self.decorations = {}  # the wrappers hold this root's objects

    def trace_root_function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                            instance: InstanceVal | None) -> None:
        self._new_root()
        self.call_function(FuncVal(fn, self.module, instance), [], {}, root=True)

    def trace_root_class(self, cls: ClassInfo, called: set[str]) -> None:
        self.link(cls)
        instance = InstanceVal(cls)
        init = cls.find("__init__")
        self._new_root()
        # which class this root's instance is (LRD004 tells sibling subclasses apart by it)
        lineage = tuple((c.module.path, c.node.lineno) for c in cls.lineage())
        self.root_classes.append((self.root, lineage))
        if init is not None:
            self.call_function(FuncVal(init[0], init[1].module, instance, init[1]), [], {},
                               root=True)
        hooks = self.trace_manual_optimization(cls, instance) \
            or self.trace_automatic_hooks(cls, instance)
        # `self.lr_scheduler = None` in `__init__`, the scheduler itself assigned by another
        # method (`reset()`, `setup()`) that the project's driver calls first
        placeholders = {k for k, v in instance.attrs.items()
                        if isinstance(v, Const) and v.value is None}
        # a name called only on other objects (`self.model.train()`, a module's mode switch)
        # leaves the class's own `train()` an entry point
        own = _own_method_calls(cls.module, self.source if cls.module is self.module else None) \
            if cls.methods.keys() & called else frozenset()
        # a hook a base class's template calls on itself (`after_train_epoch()` at the end of
        # the base's epoch, `_train_batch()` in its batch loop) runs where the template runs
        # it, traced below with this class's instance; traced first on its own, out of any
        # loop, its scheduler step would read as one made before training
        template = _template_hooks(cls)
        entries = [(method, cls) for name, method in cls.methods.items()
                   if not (name == "__init__" or name in hooks or name in template
                           or (name in called and name in own
                               and name != "configure_optimizers"))]
        # attributes no object filled before the entries run: one an entry reads (`self.
        # scheduler.step(...)` in a hook) and a later entry, or a base's template method,
        # assigns (`self.scheduler = self.build_scheduler(opt)` in the base's
        # configure_optimizers) was read there before it existed, which Python never does
        read_on_self = _self_attrs_read(m for c in cls.lineage() for m in c.methods.values())
        unfilled = {k for k in instance.attrs if not _holds_object(instance.attrs[k])} \
            | {k for k in read_on_self if k not in instance.attrs}
        for method, owner in entries:
            self.loop = None
            self.conds = ()
            self.call_function(FuncVal(method, cls.module, instance, owner), [], {}, root=True)
        # template methods of the base classes (the base owns the epoch loop, this class the
        # per-epoch work): traced with this class's instance, so `self.train_epoch()` runs
        # the override
        inherited = list(self.inherited_entries(cls).values())
        for method, owner in inherited:
            self.loop = None
            self.conds = ()
            self.trace_inherited(FuncVal(method, owner.module, instance, owner))
        # an entry traced before the method that fills a placeholder saw None: the class's own
        # entries again, with the objects in place; an entry (or a base's template method, or
        # a hook it runs) that read an attribute a later one assigns, which Python never does:
        # the entries again, own and inherited
        refill = any(_holds_object(instance.attrs.get(k)) for k in placeholders)
        read_early = not refill and any(_holds_object(instance.attrs.get(k))
                                        for k in unfilled & read_on_self)
        if refill or read_early:
            self._new_root()
            self.root_classes.append((self.root, lineage))
            for method, owner in entries:
                self.loop = None
                self.conds = ()
                self.call_function(FuncVal(method, cls.module, instance, owner), [], {},
                                   root=True)
            for method, owner in inherited if read_early else ():
                self.loop = None
                self.conds = ()
                self.trace_inherited(FuncVal(method, owner.module, instance, owner))
        self.instances[cls.name] = instance

    def trace_manual_optimization(self, cls: ClassInfo, instance: InstanceVal) -> set[str]:
        """A LightningModule in manual optimization steps its own optimizers and schedulers:
        ``self.optimizers()`` / ``self.lr_schedulers()`` are what configure_optimizers
        returned, ``training_step`` runs once per batch of every epoch, and the epoch-end
        hooks once per epoch. Traced in those loops; the names of the hooks traced."""
        if not _manual_optimization(cls):
            return set()
        step, configure = cls.find("training_step"), cls.find("configure_optimizers")
        if step is None or configure is None:
            return set()
        self.loop, self.conds = None, ()
        value = self.call_function(FuncVal(configure[0], configure[1].module, instance,
                                           configure[1]), [], {}, root=True)
        schedulers = [sched for sched, _ in _configured(value)]
        optimizers = _configured_optimizers(value)
        if not optimizers:
            return set()
        self.manual[id(instance)] = (instance, optimizers, schedulers)
        traced = {"configure_optimizers"}
        self._new_root()
        epochs, batches = self.lightning_loops(step)
        # the hooks Lightning calls before training_step: at the start of every epoch, then
        # of every batch (`self.lr_schedulers().step()` in on_train_epoch_start runs before
        # the epoch's first update)
        traced |= self._run_hooks(cls, instance, _EPOCH_START_HOOKS, epochs)
        traced |= self._run_hooks(cls, instance, _BATCH_START_HOOKS, batches)
        traced |= self._run_hooks(cls, instance, ("training_step",), batches)
        traced |= self._run_hooks(cls, instance, _EPOCH_END_HOOKS, epochs)
        self.loop, self.conds = None, ()
        return traced

    def _run_hooks(self, cls: ClassInfo, instance: InstanceVal, hooks: Iterable[str],
                   loop: Loop | None) -> set[str]:
        """Trace each of the class's ``hooks`` it defines, in order, as run inside ``loop``
        (a new root each, as Lightning calls them); the names of those it found."""
        found = set()
        for name in hooks:
            hook = cls.find(name)
            if hook is None:
                continue
            self.loop, self.conds = loop, ()
            self.call_function(FuncVal(hook[0], hook[1].module, instance, hook[1]), [], {},
                               root=True)
            found.add(name)
        return found

    def trace_automatic_hooks(self, cls: ClassInfo, instance: InstanceVal) -> set[str]:
        """A LightningModule in automatic optimization whose own hooks run around its
        batches: Lightning calls ``configure_optimizers`` once before training, then on every
        batch of every epoch ``on_train_batch_start``, ``training_step`` (and steps the
        optimizers after it returns), ``on_train_batch_end``, and its epoch hooks once per
        epoch. A scheduler the module steps by hand in one of them steps where Lightning calls
        it (``self.sched.step()`` in ``on_train_batch_start`` runs before every update).
        Traced in those loops; the names of the hooks traced (none when the module has no
        batch or epoch hook of its own: its ``training_step`` is traced as before)."""
        if _manual_optimization(cls) or not _lightning_module(cls, self.qualified_bases):
            return set()
        step, configure = cls.find("training_step"), cls.find("configure_optimizers")
        if step is None or configure is None:
            return set()
        found = {name: cls.find(name) for name in (*_BATCH_START_HOOKS, *_BATCH_END_HOOKS,
                                                   *_EPOCH_START_HOOKS, *_EPOCH_END_HOOKS,
                                                   *_UPDATE_HOOKS)}
        if _unified_lightning(cls.module):
            # Lightning 1.8 removed these module hooks (1.6 deprecated them); the `lightning`
            # package the module imports is 1.8 or later and never calls them
            for name in _REMOVED_IN_1_8:
                found[name] = None
        if not any(found[name] is not None
                   for name in (*_BATCH_START_HOOKS, *_BATCH_END_HOOKS, *_UPDATE_HOOKS)) \
                and not _asks_for_schedulers(cls) and not _steps_kept_scheduler(cls, found):
            return set()
        self.loop, self.conds = None, ()
        value = self.call_function(FuncVal(configure[0], configure[1].module, instance,
                                           configure[1]), [], {}, root=True)
        optimizers = _configured_optimizers(value)
        if optimizers:
            # `self.optimizers()` / `self.lr_schedulers()` hand back what configure_optimizers
            # returned in automatic optimization too
            self.manual[id(instance)] = (instance, optimizers,
                                         [sched for sched, _ in _configured(value)])
        traced = {"configure_optimizers", "training_step"}
        self._new_root()
        epochs, batches = self.lightning_loops(step)

        def run(names: tuple[str, ...], loop: Loop) -> None:
            for name in names:
                hook = found[name]
                if hook is None:
                    continue
                self.loop, self.conds = loop, ()
                self.call_function(FuncVal(hook[0], hook[1].module, instance, hook[1]), [], {},
                                   root=True)
                traced.add(name)

        run(_EPOCH_START_HOOKS, epochs)
        run(_BATCH_START_HOOKS, batches)
        self.loop, self.conds = batches, ()
        self.call_function(FuncVal(step[0], step[1].module, instance, step[1]), [], {},
                           root=True)
        self.loop, self.conds = batches, ()
        for optimizer in optimizers:
            # Lightning steps each configured optimizer once training_step has returned
            self.emit("opt_step", optimizer, step[0], lightning=True,
                      lightning_module=(cls.module.path, cls.name))
        update = found["optimizer_step"]
        if update is not None:
            # an override of `optimizer_step(epoch, batch_idx, optimizer, closure)` is what
            # Lightning calls for every update in place of its own `optimizer.step(closure)`:
            # a scheduler stepped there after the optimizer steps once per update
            self.loop, self.conds = batches, ()
            self.per_update = True
            try:
                self.call_function(FuncVal(update[0], update[1].module, instance, update[1]),
                                   [None, None, None, None], {}, root=True)
            finally:
                self.per_update = False
            traced.add("optimizer_step")
        run(_BATCH_END_HOOKS, batches)
        run(_EPOCH_END_HOOKS, epochs)
        if cls.find("lr_scheduler_step") is None:
            # Lightning steps each scheduler configure_optimizers returned itself, after every
            # batch (`"interval": "step"`) or at the end of every epoch; an override of
            # `lr_scheduler_step` is traced as that step instead (trace_scheduler_hooks)
            for sched, interval in _configured(value):
                if interval not in (None, "step", "epoch", EVERY_FEW_STEPS):
                    continue
                # (every few batches: in the batch loop, the event saying how often)
                self.loop, self.conds = (epochs if interval in (None, "epoch") else batches), ()
                self.emit("lightning_sched_step", sched, configure[0], interval=interval)
        self.loop, self.conds = None, ()
        return traced

    def trace_inherited(self, fv: FuncVal) -> None:
        """Trace an inherited entry point with the subclass's instance: a large base class
        (a pipeline or model base of a library-sized project) is inherited by hundreds of
        files, each of which would otherwise trace all of its methods again (an inert one is
        skipped, see inert.py)."""
        memo = None
        if fv.module is not self.module and fv.fn.name != "configure_optimizers" \
                and fv.bound is not None:
            memo = ((fv.fn, fv.cls, "entry"), {"b.": fv.bound})
        self.call_function(fv, [], {}, root=True, memo=memo)

    def bump(self, text: str) -> None:
        """``text`` (a name or attribute) is bound anew."""
        self.versions[text] = self.versions.get(text, 0) + 1
        for rec in self.recordings:
            rec.versions[text] = rec.versions.get(text, 0) + 1
        if "." in text:
            # the attribute's name on any object (see Cond.strings)
            self.bump_setting(text.rsplit(".", 1)[1])

    def bump_setting(self, name: str) -> None:
        """A setting called ``name`` is assigned on some object (`x.name = ...`, `x["name"] =
        ...`): a test on it before says nothing of one after (see Cond.strings)."""
        key = "." + name
        self.versions[key] = self.versions.get(key, 0) + 1
        for rec in self.recordings:
            rec.versions[key] = rec.versions.get(key, 0) + 1

    def assigned(self, name: str, target: ast.expr | None = None,
                 source: ast.expr | None = None) -> None:
        self.assigned_names.add(name)
        self.validation_run(name)
        if target is not None and not _placeholder(source) \
                and names.VALIDATION_WORDS.search(name.lower()):
            self.validation_sites.append((
                name, self.path, target.lineno, target.col_offset, self.root,
                self.frame is not None and self.frame.binds_nothing,
            ))
        for rec in self.recordings:
            rec.assigned.add(name)

    def validation_run(self, name: str) -> None:
        """Where a name that says validation is bound or called: in which root and loop (what
        LRD004 asks of a validation metric: is it computed in the run that steps the
        plateau)."""
        key = (name, self.root, self.loop.id if self.loop is not None else None)
        if key not in self.validation_seen and names.VALIDATION_WORDS.search(name.lower()):
            self.validation_seen.add(key)
            self.validation_runs.append((name, self.root, self.loop))

    def called(self, name: str) -> None:
        self.called_names.add(name)
        self.validation_run(name)
        for rec in self.recordings:
            rec.called.add(name)

    def lightning_loops(self, step: tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo]
                        ) -> tuple[Loop, Loop]:
        """The epoch and batch loops Lightning runs ``training_step`` in, stood at its line."""
        fn, owner = step
        epochs = Loop(fn, owner.module.path, None, "epoch", None, frozenset(),  # type: ignore[arg-type]
                      fn.lineno, over_name="Lightning's epochs", root=self.root)
        batches = Loop(fn, owner.module.path, epochs, "batch", None, frozenset(),  # type: ignore[arg-type]
                       fn.lineno, over_name="Lightning's training batches", root=self.root)
        batches.iterates_loader = True
        self.loops.extend((epochs, batches))
        return epochs, batches

    def inherited_entries(self, cls: ClassInfo
                          ) -> dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo]]:
        """Methods an instance of ``cls`` inherits that nothing calls (entry points)."""
        out: dict[str, tuple[ast.FunctionDef | ast.AsyncFunctionDef, ClassInfo]] = {}
        for base in itertools.islice(cls.lineage(), 1, None):
            # a method the template calls on itself is traced from its caller; one called only
            # on other objects (`self.model.train()` vs the trainer's own `train()`) is not
            for name, method in base.methods.items():
                if name.startswith("__") or name in cls.methods or name in out:
                    continue
                if name in self.self_called(base.module) or name in self.self_called(self.module):
                    continue
                if method in self.visited and not _reaches_override(cls, method):
                    # traced already (as an entry of the base itself), and nothing it runs
                    # on itself is this class's own
                    continue
                found = cls.find(name)
                if found is not None and found[0] is method:
                    out[name] = (method, base)
        return out

    def self_called(self, module: ModuleInfo) -> frozenset[str]:
        """Names of methods ``module`` calls as ``self.name(...)`` or, in a classmethod,
        ``cls.name(...)``: a template's ``cls.resume(..., scaler=scaler)`` hands the method its
        objects, so it is no entry point of its own in a subclass either (traced there with
        no arguments, in the root of the template that builds the real objects, its
        parameters' stand-ins read as a restore of nothing)."""
        if module.self_calls is None:
            module.self_calls = frozenset(
                node.func.attr for node in ast.walk(module.tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id in ("self", "cls")
            )
        return module.self_calls

    def link(self, cls: ClassInfo, depth: int = 0) -> None:
        """Find ``cls``'s base classes in the project (other modules, re-exports)."""
        if cls.parents is not None or depth > 8:
            return
        cls.parents = []
        for base in cls.bases:
            found: Any = cls.module.classes.get(base)
            if found is not None:
                found = ClassVal(found)
            elif base.partition(".")[0] in cls.module.imports:
                found = self.project_target(cls.module.qualify(base), cls.module, link=False)
            if isinstance(found, ClassVal) and found.info is not cls:
                cls.parents.append(found.info)
                self.link(found.info, depth + 1)

    def project_target(self, qualname: str, importer: ModuleInfo, depth: int = 0,
                       link: bool = True) -> FuncVal | ClassVal | None:
        """The project's function or class ``qualname`` names, following re-exports through
        a package's ``__init__`` (``from .trainer import Trainer``)."""
        key = (importer.path, qualname)
        if key in self._targets:
            found = self._targets[key]
        else:
            found = None
            self._targets[key] = None  # a re-export cycle ends here
            paths: set[str] = set()  # the modules this name is followed through
            target = self.loader.module_for(qualname, importer)
            added = None
            if target is not None and target[0].path not in self.followed:
                if len(self.followed) >= MAX_MODULES:
                    self.cut()  # said in the output: the trace stops here
                    target = None
                else:
                    added = target[0].path
                    self.followed.add(added)
            if target is not None:
                module, attr = target
                paths.add(module.path)
                if attr in module.functions:
                    found = FuncVal(module.functions[attr], module)
                elif attr in module.classes:
                    found = ClassVal(module.classes[attr])
                elif attr in module.imports and depth < 4:
                    found = self.project_target(module.imports[attr], module, depth + 1, False)
                    paths |= self._target_paths.get((module.path, module.imports[attr]), set())
                elif depth < 4 and not attr.startswith("_"):
                    for star in module.star_imports:
                        qual = star_name(star, attr)
                        found = self.project_target(qual, module, depth + 1, False)
                        paths |= self._target_paths.get((module.path, qual), set())
                        if found is not None:
                            break
            if found is None:
                # a module searched for the name that does not hold it (one of the many a
                # package's `from .x import *` chain re-exports) has nothing of it traced:
                # it is not followed, and does not count against the limit
                if added is not None:
                    self.followed.discard(added)
                paths = set()
            self._targets[key] = found
            self._target_paths[key] = paths
        for rec in self.recordings:
            rec.followed |= self._target_paths.get(key, set())
        if link and isinstance(found, ClassVal):
            self.link(found.info)
        return found

    def project_table(self, qualname: str, importer: ModuleInfo, depth: int = 0
                      ) -> DictVal | None:
        """``SCHEDULERS`` imported from another module of the project where it is a registry:
        a dict bound once at that module's top level, written out (``{"cosine": make_cosine}``)
        or filled by a decorator of that module (``@register(SCHEDULERS, "cosine")`` over
        ``def make_cosine``, ``register`` storing what it decorates under the name it is
        given), changed nowhere else. Its values are the module's functions and classes (None
        where they are something else)."""
        key = (importer.path, "\0table\0" + qualname)
        if key in self._tables:
            cached = self._tables[key]
            if cached is not None:
                for rec in self.recordings:
                    rec.followed |= self._target_paths.get(key, set())
            return cached
        self._tables[key] = None  # a re-export cycle ends here
        found: DictVal | None = None
        target = self.loader.module_for(qualname, importer)
        if target is not None:
            module, attr = target
            if attr in module.imports and depth < 4:
                found = self.project_table(module.imports[attr], module, depth + 1)
            elif attr not in module.functions and attr not in module.classes:
                found = self.table_in(module, attr)
        self._tables[key] = found
        if found is not None and target is not None:
            self._target_paths[key] = {target[0].path}
            for rec in self.recordings:
                rec.followed.add(target[0].path)
        return found

    def table_in(self, module: ModuleInfo, attr: str) -> DictVal | None:
        """The registry ``attr`` of ``module`` (see project_table) as a dict of what it files
        under each key; None when ``attr`` is no registry of it."""
        pairs = _registry_pairs(module.tree, attr, module)
        if pairs is None or not (module.path in self.followed
                                 or len(self.followed) < MAX_MODULES):
            return None
        self.followed.add(module.path)
        found = DictVal({})
        for k, name in pairs:
            value: FuncVal | ClassVal | ImportRef | None = None
            if isinstance(name, ast.Lambda):
                # a lambda at the module's top level: it sees the module's names only
                value = FuncVal(lambda_function(name), module)
            elif name in module.functions:
                value = FuncVal(module.functions[name], module)
            elif name in module.classes:
                value = ClassVal(module.classes[name])
                self.link(value.info)
            elif name in module.imports or "." in name:
                # an imported class or function: the project's own, else the library's
                # (`{"step": StepLR}` after `from torch.optim.lr_scheduler import StepLR`,
                # `{"step": lr_scheduler.StepLR}`)
                qual = module.qualify(name)
                value = self.project_target(qual, module) or ImportRef(qual)
            found.items[k] = value
        return found

    def own_table(self, module: ModuleInfo, attr: str) -> DictVal | None:
        """``table_in`` of the traced file's own registry object, once per trace."""
        key = (module.path, "\0own\0" + attr)
        if key not in self._tables:
            self._tables[key] = None
            self._tables[key] = self.table_in(module, attr)
        return self._tables[key]

    def star_imported(self, name: str, module: ModuleInfo) -> FuncVal | ClassVal | None:
        """``build_optimizer`` after ``from solver.build import *``: the project's function or
        class of that name in the first module star-imported that defines it."""
        if name.startswith("_"):
            return None
        for star in module.star_imports:
            qual = star_name(star, name)
            found = self.project_target(qual, module)
            if found is not None:
                return found
        return None

    def imported_scaler(self, name: str, importer: ModuleInfo, star: bool = False
                        ) -> Obj | None:
        """The GradScaler a project module builds at its top level and ``importer`` imports
        by name (``from util import scaler``: ``name`` is the qualified name) or through
        ``from util import *`` (``star``: ``name`` is the bare name). See module_scaler."""
        if star:
            if name.startswith("_"):
                return None
            quals = [star_name(s, name) for s in importer.star_imports]
        else:
            quals = [name]
        for qual in quals:
            target = self.loader.module_for(qual, importer)
            if target is not None:
                found = self.module_scaler(target[0], target[1])
                if found is not None:
                    return found
        return None

    def module_scaler(self, module: ModuleInfo, name: str) -> Obj | None:
        """``scaler = torch.cuda.amp.GradScaler()`` at the top level of a project module whose
        top level this trace does not run (the module of a function called from the checked
        file, or one it imports from): Python runs that line once, when the module is first
        imported, and every function reading the global (in that module, or in one that
        imports the name) uses that one object. Built here once per module and name, and only
        where the name is bound by that one statement of the module's top level (not under an
        ``if``, not rebound anywhere in the module, not declared ``global`` in a function)."""
        if module is self.module:
            return None
        key = (module.path, name)
        if key in self.module_scalers:
            return self.module_scalers[key]
        self.module_scalers[key] = None
        call = _sole_top_level_call(module.tree, name, names.SCALER_CLASSES)
        if call is None:
            return None
        built = self.eval(call, Scope({}, module))
        if isinstance(built, Obj) and built.kind == "scaler":
            built.name = name  # as the assignment names it
            self.module_scalers[key] = built
            return built
        return None

    # -- functions -----------------------------------------------------------------------

    def call_function(self, fv: FuncVal, args: list[Any], kwargs: dict[str, Any],
                      root: bool = False, site: bool = False,
                      memo: tuple[Any, dict[str, InstanceVal]] | None = None,
                      call: ast.Call | None = None) -> Any:
        """Trace a call to the project's ``fv``. ``site``: made from a call in the code whose
        arguments are all known (no unresolved ``*xs`` / ``**kw``), so a parameter it does not
        pass holds its default; without one (an entry point) such a parameter is unknown.
        ``memo``: how to keep an entry point's trace if it is inert (see inert.py). ``call``:
        the call in the code that makes it, which the call's frame keeps (see Frame)."""
        fn = fv.fn
        if not root and fn.decorator_list and not fv.undecorated:
            wrapper = self.decorated(fv)
            if wrapper is not None:
                # `@scheduled(sched) def train_epoch(): ...`: the call runs the wrapper a
                # decorator of the project returned, which calls the function itself
                return self.call_function(wrapper, args, kwargs, site=site, call=call)
        if call is not None:
            self.nothing_calls[id(call)] = self.nothing_calls.get(id(call), True) \
                and _does_nothing(fn)
        if fn in self.stack:
            for rec in self.recordings:
                if fn in self.stack[:rec.depth]:
                    rec.spoiled = True  # stopped by a call from outside the recorded one
            return None  # recursion: the outer call already traces this body
        for rec in self.recordings:
            rec.deepest = max(rec.deepest, len(self.stack))
        if self.budget <= 0:
            self.cut()
            return None
        if len(self.stack) >= MAX_CALL_DEPTH:
            self.cut()
            self.depth_cuts += 1
            return None
        if fv.preset is not None:
            args, kwargs = [*fv.preset[0], *args], {**fv.preset[1], **kwargs}
        # a closure reads its enclosing function's names as they are at each call: its key
        # adds what each name it reads is bound to there (None: one it rebinds, not cached)
        key = None if root else (*_call_key(fv, args, kwargs), site) if fv.closure is None \
            else _closure_key(fv, args, kwargs, site)
        if key is not None:
            known = self.summaries.get(key)
            if known is not None and known.generation == self.generation:
                for rec in self.recordings:
                    rec.spoiled = True  # what the summarised call read is not known
                return self.replay(known, call)
            if fv.preset is None and fn.name != "configure_optimizers" and fv.closure is None:
                given = inert.call_key(fv.bound, args, kwargs)
                if given is not None:
                    memo = ((fn, fv.cls, site, given[0]), given[1])
        if memo is not None:
            created, cuts = self.created, self.cuts
            skipped = self.skip_inert(*memo)
            if skipped is not _NOT_KEPT:
                if key is not None and self.created == created and self.cuts == cuts:
                    # as after tracing it: the next call with the same objects replays it
                    self.summaries[key] = Summary([], [], self.loop, self.conds, self.frame,
                                                  skipped, self.generation)
                return skipped
        events, loops = self.events, self.loops
        first_event, first_loop, created, cuts = len(events), len(loops), self.created, self.cuts
        impossible = self.impossible
        caller = (self.loop, self.conds, self.frame)
        result = self.trace_recorded(fv, args, kwargs, root, site, memo, call)
        if key is not None and self.created == created and self.cuts == cuts \
                and self.impossible == impossible:
            # what a call that builds no object did can be replayed at every later call with
            # the same objects: the cost of a helper is paid once, not once per call site
            self.summaries[key] = Summary(
                events[first_event:], loops[first_loop:], *caller, result, self.generation,
            )
        return result

    def decorated(self, fv: FuncVal) -> FuncVal | None:
        """The wrapper a plain function's decorators make of it, where every decorator is a
        function of the project (``@timed``, ``@scheduled(sched)``) that returns a function
        (a closure over the one decorated, or that one itself): applied innermost first, as
        Python does when the ``def`` runs. None (the function is called as written) when
        one is not the project's (``@torch.no_grad()``, ``@functools.wraps(f)``), when one
        gives back anything but a function, and for methods."""
        if fv.bound is not None or fv.cls is not None or fv.preset is not None:
            return None
        key = (id(fv.fn), id(fv.closure))
        if key in self.decorations:
            return self.decorations[key][1]
        # (the closure kept with the key, so that its id is not reused; None while the
        # decorators run: a decorator that decorates with itself stops there)
        self.decorations[key] = (fv.closure, None)
        module_scope = self.module_scope if fv.module is self.module else Scope({}, fv.module)
        where = fv.closure if fv.closure is not None else module_scope
        current: Any = replace(fv, undecorated=True)
        for deco in reversed(fv.fn.decorator_list):
            maker = self.eval(deco, where)
            if not isinstance(maker, FuncVal) or maker.bound is not None:
                return None
            current = self.call_function(maker, [current], {}, site=True)
            if not isinstance(current, FuncVal):
                return None
        wrapper = None if current.fn is fv.fn else current
        self.decorations[key] = (fv.closure, wrapper)
        return wrapper

    def trace_recorded(self, fv: FuncVal, args: list[Any], kwargs: dict[str, Any],
                       root: bool, site: bool,
                       memo: tuple[Any, dict[str, InstanceVal]] | None,
                       call: ast.Call | None = None) -> Any:
        """Trace a call, keeping its trace when it is inert (see inert.py)."""
        if memo is None:
            return self.trace_call(fv, args, kwargs, root, site, call)
        # cut short by the call depth alone, it is kept for calls made at this same depth
        before = (len(self.events), len(self.objects), self.cuts - self.depth_cuts,
                  len(self.lightning), len(self.configured), self.guessed)
        created, generation, budget = self.created, self.generation, self.budget
        depth_cuts = self.depth_cuts
        rec = inert.Recording(memo[1], len(self.stack), lowest=budget)
        for value in [*args, *kwargs.values()]:
            rec.hold(value)
        self.recordings.append(rec)
        try:
            result = self.trace_call(fv, args, kwargs, root, site, call)
        finally:
            self.recordings.pop()
        after = (len(self.events), len(self.objects), self.cuts - self.depth_cuts,
                 len(self.lightning), len(self.configured), self.guessed)
        form = None if rec.spoiled or after != before else inert.result_form(result, rec)
        writes = {path: inert.settle(f, rec) for path, f in rec.writes.items()}
        form = inert.settle(form, rec)
        if form is None or any(f is None for f in writes.values()):
            return result
        kept = self.inert.setdefault(memo[0], [])
        if len(kept) >= inert.MAX_KEPT:
            del kept[0]  # the one matched least lately
        kept.append(inert.Inert(
            rec.reads, writes, rec.versions, frozenset(rec.assigned),
            frozenset(rec.called), frozenset(rec.visited), frozenset(rec.followed),
            budget - self.budget, budget - min(rec.lowest, self.budget),
            self.created - created, self.generation - generation, rec.deepest - rec.depth,
            form, self.depth_cuts - depth_cuts,
            rec.depth if self.depth_cuts != depth_cuts else None,
        ))
        return result

    def skip_inert(self, key: Any, roots: dict[str, InstanceVal]) -> Any:
        """The value a call returns when a kept inert trace stands for it (its effects
        applied, and told to the calls being recorded around it), else _NOT_KEPT."""
        kept = self.inert.get(key, [])
        for known in reversed(kept):  # the latest first
            if known.at_depth is not None:
                if len(self.stack) != known.at_depth:
                    continue  # cut short by the depth it was made at: only there alike
            elif len(self.stack) + known.deeper >= MAX_CALL_DEPTH:
                continue
            if self.budget - known.need <= 0 \
                    or len(self.followed | known.followed) > MAX_MODULES \
                    or any(f in known.visited for f in self.stack):
                continue  # tracing it here would be cut short or stopped by a recursion
            held = known.matches(roots)
            if held is None:
                continue
            written = known.written(held)
            for rec in self.recordings:  # what it read, the calls around it read
                for path in known.reads:
                    prefix, _, attr = path.rpartition(".")
                    owner = held[prefix + "."]
                    where = rec.path_of(owner)
                    if where is not None:
                        rec.read(owner, where, attr)
                for path, value in written.items():
                    prefix, _, attr = path.rpartition(".")
                    rec.write(held[prefix + "."].attrs, attr, value)
                rec.deepest = max(rec.deepest, len(self.stack) + known.deeper)
                rec.lowest = min(rec.lowest, self.budget - known.need)
                for name, n in known.versions.items():
                    rec.versions[name] = rec.versions.get(name, 0) + n
                rec.assigned |= known.assigned
                rec.called |= known.called
                rec.visited |= known.visited
                rec.followed |= known.followed
            if known is not kept[-1]:
                kept.remove(known)
                kept.append(known)
            known.write_on(roots, written)
            self.budget -= known.spent
            if known.cuts:
                self.cut()
                self.cuts += known.cuts - 1
                self.depth_cuts += known.cuts
            self.created += known.created
            self.generation += known.generation
            for name, n in known.versions.items():
                self.versions[name] = self.versions.get(name, 0) + n
            self.assigned_names |= known.assigned
            self.called_names |= known.called
            for name in sorted(known.assigned | known.called):
                self.validation_run(name)  # bound (called) here too, by the call it stands for
            self.visited |= known.visited
            self.followed |= known.followed
            return inert.give_back(known.result, held)
        return _NOT_KEPT

    def trace_call(self, fv: FuncVal, args: list[Any], kwargs: dict[str, Any],
                   root: bool, site: bool = False, call: ast.Call | None = None) -> Any:
        fn = fv.fn
        self.visited.add(fn)
        for rec in self.recordings:
            rec.visited.add(fn)
            if fn.name == "configure_optimizers":
                rec.spoiled = True  # what it returns is kept, by the instance's class
        module_scope = self.module_scope if fv.module is self.module else Scope({}, fv.module)
        outer = fv.closure if fv.closure is not None else module_scope
        # a classmethod has no `self`, whether called on the class or on an instance
        classmethod = _is_classmethod(fn)
        scope = Scope({}, fv.module, outer, None if classmethod else fv.bound, owner=fv.cls)
        params = [*fn.args.posonlyargs, *fn.args.args]
        # the leading parameters the call's own arguments do not fill
        skipped = len(fv.preset[0]) if fv.preset is not None else 0
        if (fv.bound is not None or classmethod) and params and not _is_static(fn):
            skipped += 1
            # (`Config.from_args(args)`: the arguments bind to the parameters after `cls`.
            # `cls` was once left unknown after following `return cls(...)` added a held-out
            # false alarm (bench/realcode/README, "Renames, second pass"); session 44 follows
            # it again when called on the class, measured on every case and repository here
            # (README, "lead69"))
            scope.vars[params[0].arg] = None if classmethod else fv.bound
            if classmethod:
                of = fv.bound.info if fv.bound is not None else fv.cls
                if of is not None:
                    scope.cls_of = (params[0].arg, of, fv.bound)
                    if fv.bound is None:
                        # called on the class (`Config.from_args(parser)`): `cls` is that
                        # class, so the alternate constructor's `return cls(settings)`
                        # builds an instance whose methods then run
                        scope.vars[params[0].arg] = ClassVal(of)
            params = params[1:]
        for param in [*params, *fn.args.kwonlyargs]:
            self.bump(param.arg)
        defaults = _literal_defaults(fn) if site and not root else {}
        plain = _plain_parameters(fn)
        left_out = _left_out_by(fn, fv, call) if site and not root else frozenset()
        for i, param in enumerate(params):
            if i < len(args):
                value = args[i]
            elif param.arg in kwargs:
                value = kwargs[param.arg]
            else:
                value = defaults.get(param.arg)
            if isinstance(value, Const) and value.sure and _stores(fn).get(param.arg):
                value = Const(value.value)
            if value is None and i == 0 and fn.decorator_list:
                # `@hydra.main(config_path="conf", config_name="config") def main(cfg)`:
                # Hydra calls it with the config it composes
                value = _hydra_config(fn, fv.module)
            if value is None and param.arg in left_out:
                value = Unfilled(param.arg)
            scope.vars[param.arg] = value if value is not None else (
                None if param.arg in plain else self.guess_param(param, fv.module))
        for param in fn.args.kwonlyargs:
            value = kwargs.get(param.arg, defaults.get(param.arg))
            if isinstance(value, Const) and value.sure and _stores(fn).get(param.arg):
                value = Const(value.value)
            if value is None and param.arg in left_out:
                value = Unfilled(param.arg)
            scope.vars[param.arg] = value if value is not None else (
                None if param.arg in plain else self.guess_param(param, fv.module))
        if call is not None and fv.preset is None:
            scope.handed = _handed_settings(call, params, fn.args.kwonlyargs,
                                            self.frame.handed if self.frame else {})
            caller_scope = self.call_scopes.get(call)
            if caller_scope is not None:
                scope.arguments = _call_arguments(call, params, fn.args.kwonlyargs, caller_scope)
        if fn.args.vararg is not None:
            scope.vars[fn.args.vararg.arg] = TupleVal(list(args[len(params):]))
        if fn.args.kwarg is not None:
            named = {p.arg for p in [*params, *fn.args.kwonlyargs]}
            # a call in the code whose arguments are all known passes exactly the keywords
            # it names: `**kwargs` holds those and nothing else (forwarded on, it gives a
            # callee no parameter the call did not name); an entry point's is open
            scope.vars[fn.args.kwarg.arg] = DictVal(
                {k: v for k, v in kwargs.items() if k not in named}, open=not (site and not root),
                written=_written_keywords(call, named, self.call_scopes.get(call)) if call
                is not None and site and not root else {},
            )
        saved_path, saved_returns, saved_base = self.path, self.returns, self.cond_base
        self.path = fv.module.path
        self.returns = []
        self.cond_base = len(self.conds)
        self.stack.append(fn)
        self.given.append({p.arg for p in params[:len(args)]} | set(kwargs))
        saved_frame = self.frame
        self.frame = Frame(None if root else saved_frame, fn, fv.module.path,
                           None if root else call, saved_path, skipped, handed=scope.handed)
        cuts, saved_root = self.cuts, self.root_fn
        here = (self.path, fn.lineno)
        if root:
            self.root_fn = here if fv.module is self.module else None
        if fv.module is self.module or self.root_fn is not None:
            # this file's functions, and the other files' functions a root of this file goes
            # through (a hook's method in another module that this file's runner calls): where
            # a caller's trace stands in for that root, it stands in for those too
            reached = self.reached.get(here)
            if reached is None:
                reached = self.reached[here] = (fn.end_lineno or fn.lineno, set())
            reached[1].add(self.root_fn)
        try:
            self.exec_body(fn.body, scope)
            if (not root and site and (args or kwargs or fv.bound is not None) and fv.module is not self.module
                  and self.cuts == cuts):
                # another file's function traced whole, with what its caller here passed (or
                # on an instance its caller here built)
                self.entered.add((self.path, fn.lineno))
            if fn.name == "configure_optimizers" and isinstance(fv.bound, InstanceVal) \
                    and not _manual_optimization(fv.bound.info) \
                    and not _without_framework(fv.bound.info):
                for node, value in self.returns:
                    self.lightning.append((node, self.path, value))
                    self.configured.append((fv.bound, value))
            if fn.name in _HF_SCHEDULER_BUILDERS and isinstance(fv.bound, InstanceVal) \
                    and _hf_trainer(fv.bound.info, self.qualified_bases) \
                    and not any(fv.bound.info.find(loop) for loop in _HF_TRAINING_LOOPS):
                # the Trainer steps what its `create_scheduler` returns or stores in
                # `self.lr_scheduler` after every optimizer step
                built = [(node, value) for node, value in self.returns]
                built.append((fn, fv.bound.attrs.get("lr_scheduler")))
                self.hf_schedulers(built)
            owner = fv.bound.info if isinstance(fv.bound, InstanceVal) else fv.cls
            if fn.name == "build_lr_scheduler" and owner is not None \
                    and _d2_trainer(owner, self.qualified_bases) \
                    and not any(owner.find(m) for m in _D2_OWN_LOOPS):
                # detectron2's DefaultTrainer steps what its `build_lr_scheduler` returns
                # after every iteration (its LRScheduler hook), unless the subclass runs or
                # hooks its own loop
                self.hf_schedulers([(node, value) for node, value in self.returns],
                                   trainer=_D2_TRAINER_WORDS)
            return _returned([v for _, v in self.returns])
        finally:
            self.stack.pop()
            self.given.pop()
            self.frame = saved_frame
            self.path, self.returns, self.cond_base = saved_path, saved_returns, saved_base
            self.root_fn = saved_root

    def replay(self, summary: Summary, call: ast.Call | None = None) -> Any:
        """Re-emit a traced call's events in the current loop, branches and call (``call``:
        the call in the code that makes it this time)."""
        self.budget -= len(summary.events) + 1
        if self.budget <= 0:
            self.cut()
            return summary.result
        same_loop = self.loop is summary.loop
        loops: dict[int, Loop | None] = {}
        if not same_loop:
            loops[id(summary.loop)] = self.loop
            for old in summary.loops:  # creation order: a parent before its children
                new = replace(old, parent=loops.get(id(old.parent), old.parent), id=next(_loop_ids))
                loops[id(old)] = new
                self.loops.append(new)
        frames: dict[int, Frame | None] = {id(summary.frame): self.frame}

        def frame_of(old: Frame | None) -> Frame | None:
            if id(old) in frames:
                return frames[id(old)]
            if old is None:
                return self.frame
            if old.parent is summary.frame:  # the called function's own frame: this call's
                frames[id(old)] = replace(old, parent=self.frame, call=call,
                                          call_path=self.path)
            else:
                frames[id(old)] = replace(old, parent=frame_of(old.parent))
            return frames[id(old)]

        inherited = len(summary.conds)
        for e in summary.events:
            own = e.conds[inherited:]
            if not same_loop:
                own = tuple(replace(c, loop=loops.get(id(c.loop), c.loop)) for c in own)
            loop = self.loop if e.loop is summary.loop else (
                e.loop if same_loop else loops.get(id(e.loop), e.loop)
            )
            if e.kind != "create" and impossible_path((*self.conds, *own)):
                continue  # the call's branches never run under this caller's (see emit)
            self.events.append(Event(e.kind, e.obj, e.node, e.path, loop, (*self.conds, *own),
                                     self.next_order(), self.root, e.info, frame_of(e.frame)))
        return summary.result

    def _forwards_optional_epoch(self, node: ast.Call, scope: Scope) -> bool:
        """``inner.step(epoch - self.warmup)`` inside ``def step(self, epoch=None)``: the epoch
        is the one the enclosing function's own caller may pass (none in this trace). Such a
        wrapper passes one on only when given one; the call that gives it is what to judge."""
        arg = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "epoch"), None
        )
        if isinstance(arg, ast.Constant) and arg.value is None:
            # `inner.step(None)`: torch takes a None epoch as none at all, the next step. In a
            # wrapper's `def step(self, epoch=None)` it sits on the `if epoch is None:` branch,
            # which a caller that passes an epoch never takes
            return not self._given_an_epoch(scope)
        if arg is None or not self.stack:
            return False
        fn = self.stack[-1]
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        if self._holds_callers_none(arg, fn, scope):
            return True  # `inner.step(epoch)` where this trace's caller passed epoch=None
        optional = _none_defaulted(fn)
        used = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)} & optional
        if not used:
            return False
        given = self.given[-1] if self.given else set()
        for name in used:
            value = scope.vars.get(name)
            if name in given and not (isinstance(value, Const) and value.value is None):
                return False  # the caller passed an epoch on: this call takes it
        return True

    def _given_an_epoch(self, scope: Scope) -> bool:
        """The enclosing function takes an optional parameter (``epoch=None``) and this
        trace's caller passed it a value other than None."""
        if not self.stack or not self.given:
            return False
        fn = self.stack[-1]
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        optional = _none_defaulted(fn)
        return any(name in self.given[-1]
                   and not (isinstance(v := scope.vars.get(name), Const) and v.value is None)
                   for name in optional)

    def _holds_callers_none(self, arg: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                            scope: Scope) -> bool:
        """``arg`` is a parameter of ``fn`` that is never rebound in it and whose value, in this
        trace, is the None its caller passed (or left as the default): passing it on is
        ``step(None)``, which is ``step()``. A helper between a wrapper's ``step(epoch=None)``
        and the wrapped scheduler forwards what the wrapper was given, nothing more."""
        if not isinstance(arg, ast.Name):
            return False
        params = {p.arg for p in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        if arg.id not in params or _stores(fn).get(arg.id):
            return False
        value = scope.vars.get(arg.id)
        return isinstance(value, Const) and value.value is None

    def guess(self, name: str) -> Any:
        kind = names.guess_kind_from_name(name)
        if not kind:
            return None
        return self._guessed_obj(kind, name)

    def guess_param(self, param: ast.arg, module: ModuleInfo) -> Any:
        """A parameter no caller gave a value: its annotation says what it is
        (``opt: torch.optim.Optimizer``, ``s: LRScheduler | None``), else its name may."""
        kind = _annotated_kind(param.annotation, module)
        if kind:
            return self._guessed_obj(kind, param.arg)
        guessed = self.guess(param.arg)
        if guessed is None:
            # `def prep(self, run_config: RunConfig)`: an instance of the project's class,
            # whatever built it (its methods run on it; its `__init__` did not, so what that
            # would have set stays unknown)
            cls = self.annotated_class(param.annotation, module)
            if cls is not None:
                return InstanceVal(cls)
        return guessed

    def annotated_class(self, node: ast.expr | None, module: ModuleInfo) -> ClassInfo | None:
        """The project class an annotation names (``RunConfig``, ``cfg.RunConfig``,
        ``Optional[RunConfig]``, ``RunConfig | None``, ``"RunConfig"``), else None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            found = [c for c in (self.annotated_class(node.left, module),
                                 self.annotated_class(node.right, module)) if c is not None]
            return found[0] if len(found) == 1 else None
        if isinstance(node, ast.Subscript) and (dotted(node.value) or "").rsplit(".", 1)[-1] \
                == "Optional":
            return self.annotated_class(node.slice, module)
        text = dotted(node) if node is not None else None
        if not text:
            return None
        if text in module.classes:
            self.link(module.classes[text])
            return module.classes[text]
        if text.partition(".")[0] not in module.imports:
            return None
        target = self.project_target(module.qualify(text), module)
        return target.info if isinstance(target, ClassVal) else None

    def _guessed_obj(self, kind: str, name: str) -> Obj:
        self.guessed += 1
        key = f"{kind}:{name}"
        found = self.guesses.get(key)
        if found is None:
            found = Obj(kind, name=name, path=self.path)
            self.guesses[key] = found
            self.objects.append(found)
        return found

    # -- statements ----------------------------------------------------------------------

    def exec_body(self, body: list[ast.stmt], scope: Scope) -> None:
        for i, stmt in enumerate(body):
            if self.budget <= 0:
                self.cut()
                return
            self.budget -= 1
            if self.loop is not None and _periodic_skip(stmt) and i + 1 < len(body):
                # `if (step + 1) % accum != 0: continue`: what follows runs only when the
                # test is false, as if it were the `else` of that `if`
                assert isinstance(stmt, ast.If)
                self.exec_if(stmt, scope)
                self.exec_branch(stmt, 1, stmt.test, body[i + 1:], scope)
                return
            self.exec_stmt(stmt, scope)
            if isinstance(stmt, ast.If) and i + 1 < len(body):
                # (the rest of the body is copied only here: a copy after every statement
                # made a module of many statements quadratic)
                rest = body[i + 1:]
                branch = _branch_that_falls_through(stmt)
                known = self.if_outcome(stmt, scope) if branch is not None else None
                if known is not None and branch == (1 if known else 0):
                    # `if self.mode != "per_epoch": return` where the mode is known: the branch
                    # taken always leaves, so nothing after it runs here
                    return
                if branch is not None and known is None:
                    # `if done: return` / `if i % k: continue`: what follows runs only in
                    # the branch that did not leave, as if written in its `else`
                    saved = self.conds
                    self.conds = (*saved, self.branch_cond(stmt, branch, stmt.test, scope))
                    try:
                        self.exec_body(rest, scope)
                    finally:
                        self.conds = saved
                    return

    def bound_from(self, value: ast.expr) -> None:
        """``value`` was just bound to a name: mark the current call when it is a call of a
        function whose body does nothing."""
        if self.frame is not None and isinstance(value, ast.Call) \
                and self.nothing_calls.get(id(value), False):
            self.frame.binds_nothing = True

    def exec_stmt(self, stmt: ast.stmt, scope: Scope) -> None:
        stored = _literal_setattr(stmt, scope)
        if stored is not None:
            # `setattr(self, "scheduler", StepLR(...))`: the store `self.scheduler = ...`
            # it is, with the name written out
            attribute, stored_value = stored
            self.nothing_calls.pop(id(stored_value), None)
            value = self.eval(stored_value, scope)
            self.bound_from(stored_value)
            self.assign(attribute, value, stored_value, scope)
        elif isinstance(stmt, ast.Expr):
            loop = _comprehension_as_for(stmt)
            if loop is not None:
                # `[scheduler.step() for _ in range(n)]` written as a statement, for the
                # element's effects: the loop it stands for, its target in a scope of its
                # own (as Python gives a comprehension)
                self.exec_for(loop, Scope({}, scope.module, scope, scope.self_val, scope.owner))
                return
            branches = _conditional_as_if(stmt)
            if branches is not None:
                # `sched.step(loss) if monitor else sched.step()` written as a statement: the
                # `if` statement it is (one branch runs, under its test)
                self.exec_if(branches, scope)
                return
            if isinstance(stmt.value, ast.Call):
                self.dropped_calls.add(id(stmt.value))
            self.eval(stmt.value, scope)
        elif isinstance(stmt, ast.Assign):
            self.nothing_calls.pop(id(stmt.value), None)
            value = self.eval(stmt.value, scope)
            self.bound_from(stmt.value)
            for target in stmt.targets:
                self.assign(target, value, stmt.value, scope)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                value = self.eval(stmt.value, scope)
                if (value is None or isinstance(value, ExprVal)) and isinstance(stmt.value, ast.Call):
                    # `self.s: LRScheduler = factory(cfg, opt)`: the annotation names torch's
                    # class, whatever the call and the name are
                    value = self.annotated_obj(stmt, scope) or value
                self.assign(stmt.target, value, stmt.value, scope)
        elif isinstance(stmt, ast.AugAssign):
            self.nothing_calls.pop(id(stmt.value), None)
            grown = self.eval(stmt.value, scope)
            if isinstance(stmt.op, ast.BitOr) and isinstance(stmt.target, ast.Name):
                # `ckpt |= {"scheduler": ...}`: the dict grows in place, as `update()` does
                held = scope.lookup(stmt.target.id)
                if isinstance(held, DictVal):
                    self.grow_dict(held, [grown] if isinstance(grown, DictVal) else [])
                    if not isinstance(grown, DictVal):
                        held.unknown_entries()
            self.bound_from(stmt.value)
            text = dotted(stmt.target)
            if text is not None:
                self.bump(text)
            self.lr_write_target(stmt.target, scope, stmt)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.exec_for(stmt, scope)
        elif isinstance(stmt, ast.While) and (passes := _restarted_passes(stmt)) is not None:
            # `while True: try: batch = next(it) except StopIteration: it = iter(loader)`: the
            # handler runs once per pass over the loader, between the passes
            self.eval(stmt.test, scope)
            self.exec_loop(passes, scope, "", stmt.test, "", frozenset())
        elif isinstance(stmt, ast.While):
            self.eval(stmt.test, scope)
            # `while (batch := next(it, None)) is not None:` draws from the loader's iterator
            # on every pass as a `next(it)` in the body does
            draws = next((ast.unparse(n.args[0]) for n in ast.walk(stmt.test)
                          if isinstance(n, ast.Call) and dotted(n.func) == "next" and n.args
                          and isinstance(n.args[0], (ast.Name, ast.Attribute))
                          and is_loader(self.eval(n.args[0], scope))), "")
            self.exec_loop(stmt, scope, _while_hint(stmt), stmt.test, "", frozenset(),
                           draws=draws)
        elif isinstance(stmt, ast.If):
            self.exec_if(stmt, scope)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            accumulating = None
            managers: list[InstanceVal] = []
            for item in stmt.items:
                value = self.eval(item.context_expr, scope)
                source: ast.expr | None = item.context_expr
                entered = value.info.find("__enter__") if isinstance(value, InstanceVal) \
                    else None
                if isinstance(value, InstanceVal) and entered is not None:
                    # a project class's context manager: its `__enter__` runs on entry and
                    # `as` binds what it returns (the optimizer it zeroed, itself), and its
                    # `__exit__` runs after the block
                    managers.append(value)
                    value = self.call_function(
                        FuncVal(entered[0], entered[1].module, value, entered[1]), [], {},
                        site=True)
                    source = None
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value, source, scope)
                accumulating = accumulating or self.accumulate_block(item.context_expr, scope)
            if accumulating is not None:
                self.accumulating.append(accumulating)
            try:
                self.exec_body(stmt.body, scope)
            finally:
                if accumulating is not None:
                    self.accumulating.pop()
            for manager in reversed(managers):
                exited = manager.info.find("__exit__")
                if exited is not None:
                    self.call_function(
                        FuncVal(exited[0], exited[1].module, manager, exited[1]),
                        [Const(None, sure=True)] * 3, {}, site=True)
            for deferred in reversed(_exit_stack_callbacks(stmt, scope.module)):
                # `stack.callback(sched.step)` in `with contextlib.ExitStack() as stack:`:
                # the call it registered runs as the block exits, the last registered first
                self.eval(deferred, scope)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.exec_body(stmt.body, scope)  # type: ignore[attr-defined]
            stores = [scope.vars] if scope.self_val is None else [scope.vars, scope.self_val.attrs]
            for i, handler in enumerate(stmt.handlers):  # type: ignore[attr-defined]
                tracked = [{k: v for k, v in store.items() if isinstance(v, Obj)}
                           for store in stores]
                self.exec_branch(stmt, i + 2, None, handler.body, scope)
                for store, held in zip(stores, tracked):
                    for name, obj in held.items():
                        now = store.get(name)
                        if isinstance(now, Const) and now.value is None:
                            # `try: sched.load_state_dict(...) except: sched = None`: as after
                            # an `if` that binds None on one side, the name holds the object on
                            # the path that keeps it (None has nothing to track)
                            store[name] = obj
            self.exec_body(stmt.orelse, scope)  # type: ignore[attr-defined]
            self.exec_body(stmt.finalbody, scope)  # type: ignore[attr-defined]
        elif isinstance(stmt, ast.Return):
            value = self.eval(stmt.value, scope) if stmt.value is not None else None
            if value is None and isinstance(stmt.value, ast.Call) and self.stack \
                    and isinstance(self.stack[-1], (ast.FunctionDef, ast.AsyncFunctionDef)):
                # `def create_scheduler(self): return factory(self.optimizer)`: a function
                # named for what it builds, returning an unknown callable applied to the
                # optimizer, builds that (the name it is bound to names it)
                value = self.guess_from_call(stmt.value, self.stack[-1].name, scope)
                if value is not None:
                    value.name = ""
            if self.returns is not None:
                self.returns.append((stmt, value))
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if scope.parent is None and stmt.name in scope.module.shadowed:
                return  # a stand-in for an import that failed (see ModuleInfo.build)
            # a nested function sees the names of the function it is defined in
            scope.vars[stmt.name] = FuncVal(stmt, scope.module,
                                            closure=scope if scope.parent is not None else None)
            for decorator in stmt.decorator_list:
                # `@trainer.on(Events.EPOCH_STARTED)`: a handler of an Ignite engine
                if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
                        and decorator.func.attr == "on" and decorator.args:
                    engine = self.eval(decorator.func.value, scope)
                    event = _ignite_event(decorator.args[0])
                    if isinstance(engine, InstanceVal):
                        engine = engine.engine  # a project subclass of Ignite's Engine
                    if isinstance(engine, EngineVal) and event:
                        engine.handlers.setdefault(event, []).append(
                            (scope.vars[stmt.name], [], {}))
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            # the module's top level was indexed before tracing (ModuleInfo.build), but not
            # what sits under `if __name__ == "__main__":` (a script's `from solver import
            # train`, chosen there by a setting): a name it binds is as global as any other
            scope.module.add_import(stmt)
            if scope.parent is not None and isinstance(stmt, ast.ImportFrom):
                # inside a function the name is the function's own, bound where the import
                # runs: `if name == "sr": from .sr import SRModel as M` / `elif ...: from .gan
                # import GANModel as M` binds M on each branch (the module's table of imports
                # keeps only the last); the project's classes and functions are bound here
                for alias in stmt.names:
                    local = alias.asname or alias.name
                    if alias.name == "*":
                        continue
                    bound = self.project_target(scope.module.imports[local], scope.module)
                    if bound is not None:
                        scope.vars[local] = bound
        elif isinstance(stmt, ast.Match):
            self.eval(stmt.subject, scope)
            chain = match_as_if(stmt)
            if chain is not None:
                # the `if`/`elif` chain the cases amount to: a literal subject picks its case
                self.exec_body(chain, scope)
            else:
                for i, case in enumerate(stmt.cases):
                    self.exec_branch(stmt, i, None, case.body, scope)
        elif isinstance(stmt, ast.ClassDef):
            if scope.parent is not None:
                # a class defined inside the function being traced: its name is bound to
                # the class from here on, as a module-level class's name is (one ClassInfo
                # per statement, whatever the number of traced calls)
                info = self.local_classes.get(stmt)
                if info is None:
                    info = self.local_classes[stmt] = class_info(stmt, scope.module)
                    self.link(info)
                scope.vars[stmt.name] = ClassVal(info)
        elif isinstance(stmt, (ast.Delete, ast.Raise, ast.Assert)):
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.eval(child, scope)

    def exec_by_class(self, body: list[ast.stmt], scope: Scope) -> None:
        """The branch a class test on a known scheduler chose: it runs every time the `if`
        does, and a literal it stores in an attribute records that class."""
        self.by_class += 1
        try:
            self.exec_body(body, scope)
        finally:
            self.by_class -= 1

    def if_outcome(self, stmt: ast.If, scope: Scope) -> bool | None:
        return self.test_outcome(stmt.test, scope)

    def test_outcome(self, test: ast.expr, scope: Scope, depth: int = 0) -> bool | None:
        """The outcome of ``test`` when the program decides it: a class test, a built object
        against None, a name holding one literal, a property on literals; and an ``and`` /
        ``or`` from its operands, each decided by any of those (``if scheduler is not None
        and schd_batch_update:`` with a built scheduler and the literal True a caller
        passed); None when it cannot be told."""
        known = self.isinstance_outcome(test, scope)
        if known is None:
            known = self.none_outcome(test, scope)
        if known is None:
            known = _constant_outcome(test, scope)
        if known is None:
            known = self.property_outcome(test, scope)
        if known is None and isinstance(test, ast.BoolOp) and depth < 4:
            parts = [self.test_outcome(v, scope, depth + 1) for v in test.values]
            decisive = isinstance(test.op, ast.Or)  # the value that settles the whole test
            if decisive in parts:
                return decisive
            if all(p is not None for p in parts):
                return not decisive
        return known

    def property_outcome(self, test: ast.expr, scope: Scope) -> bool | None:
        """The outcome of ``if spec.per_step:`` (or ``not`` of it) where ``per_step`` is a
        property of the project's class returning a test on literals the instance holds
        (``return self.interval == "step"``, the interval stored once by ``__init__``)."""
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, not negate
        returned = self.property_returns(test, scope)
        if returned is None:
            return None
        outcome = _constant_outcome(*returned)
        return None if outcome is None else outcome != negate

    def none_outcome(self, test: ast.expr, scope: Scope) -> bool | None:
        """The outcome of ``x is None`` / ``x is not None`` (or ``not`` of it) when ``x``
        holds an object a constructor built, on no branch (``save(path, state,
        sched)`` into ``def save(path, state, scheduler=None): if scheduler is not None:``):
        such an object is never None, so the other branch does not run for this caller."""
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, not negate
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], (ast.Is, ast.IsNot))
                and isinstance(test.comparators[0], ast.Constant)
                and test.comparators[0].value is None
                and isinstance(test.left, (ast.Name, ast.Attribute))):
            return None
        value = self.eval_pure(test.left, scope)
        if not isinstance(value, Obj) or value.guessed or value.conditional:
            return None
        # one built on a branch may be None on the others, unless the test itself runs only
        # on that branch: `scaler = GradScaler()` in a `main()` called under `if __name__ ==
        # "__main__":` (or in the body of `if step % 100 == 0:`) exists wherever the test
        # `if scaler is not None:` further down that same body runs
        if value.built_under and not all(
                any(c is mine for mine in self.conds) for c in value.built_under):
            return None
        return isinstance(test.ops[0], ast.IsNot) != negate

    def exec_if(self, stmt: ast.If, scope: Scope) -> None:
        self.eval(stmt.test, scope)
        known = self.if_outcome(stmt, scope)
        # the names of the function, and the attributes of `self` in a method
        # (`if lr_scheduler is None: self.lr_scheduler = ... else: self.lr_scheduler = ...`)
        stores = [scope.vars] if scope.self_val is None else [scope.vars, scope.self_val.attrs]
        before = [dict(store) if stmt.orelse and known is None else {} for store in stores]
        narrowed = self.isinstance_narrowing(stmt.test, scope) if known is None else None
        held = [{k: v for k, v in store.items() if _project_instance(v)}
                if known is None else {} for store in stores]
        held_objects = [{k: v for k, v in store.items() if isinstance(v, Obj)}
                        if known is None else {} for store in stores]
        # a test on the class of a known scheduler is decided before the run: the branch it
        # takes runs every time the `if` does, under no condition of its own
        by_class = known is not None and self.isinstance_outcome(stmt.test, scope) is not None
        defaulted = known is not None and not by_class and _tests_a_default(stmt.test, scope)
        decided = known is not None and not by_class and not defaulted
        if defaulted:
            # the caller left the option out: the branch it decides is not run here, but it
            # is code the function offers to other callers (see runner.merge_results)
            left = stmt.body if known is False else stmt.orelse
            if left:
                self.skipped.add((self.path, left[0].lineno,
                                  max(n.end_lineno or n.lineno for n in left)))
        # `if "model" not in ckpt: ckpt = {"model": ckpt}` (no `else`): on the path that skips
        # the body the name keeps what it held, a value whose contents are not known here, so
        # after the `if` they are still not known (the literal's keys are not all it can hold)
        unknown = [{k: v for k, v in store.items() if isinstance(v, ExprVal)}
                   if known is None and not stmt.orelse else {} for store in stores]
        # `if args.sched == "linear": s = LinearLR(...)` then `if args.sched == "exp": s =
        # ExponentialLR(...)` (no `else`): the name holds the scheduler of whichever test the
        # setting passes, not only the last one built
        prior = [{k: v for k, v in store.items() if _chosen_scheduler_value(v)}
                 if known is None and not stmt.orelse else {} for store in stores]
        if known is not False:
            with _narrowed(narrowed, 0):
                if by_class:
                    self.exec_by_class(stmt.body, scope)
                else:
                    self.exec_branch(stmt, 0, stmt.test, stmt.body, scope, decided)
        for store, earlier in zip(stores, prior):
            for name, old in earlier.items():
                now = store.get(name)
                if now is not old and isinstance(now, UnionVal) and _scheduler_choice(now):
                    # `if args.sched == "cosine": s = make_scheduler(...)`, a helper that
                    # itself picks one per setting: an old option built where every new one
                    # cannot be (the StepLR of `args.sched != "cosine"`) is what the name
                    # still holds on the path that skips the body
                    news = options(now)
                    olds = options(old) if isinstance(old, UnionVal) else [old]
                    if all(isinstance(n, Obj) and n.built_under is not None for n in news):
                        staying = [o for o in olds if isinstance(o, Obj) and o not in news
                                   and o.built_under is not None
                                   and all(_built_on_other_paths(o.built_under, n.built_under)
                                           for n in news)]
                        if staying:
                            store[name] = UnionVal([*staying, *news], exclusive=True)
                    continue
                if now is old or not isinstance(now, Obj) or now.kind != "scheduler" \
                        or now.built_under is None:
                    continue
                # the options built where this test cannot hold stay; one built where it may
                # is replaced by the new one, as the last binding (a disabled default
                # rebuilt under `if args.sched is None:` after a choice of `if`/`else`)
                olds = options(old) if isinstance(old, UnionVal) else [old]
                staying = [o for o in olds if isinstance(o, Obj) and o.built_under is not None
                           and _built_on_other_paths(o.built_under, now.built_under)]
                if staying:
                    store[name] = UnionVal([*staying, now], exclusive=True)
        for store, unknown_here in zip(stores, unknown):
            for name, kept in unknown_here.items():
                if isinstance(store.get(name), DictVal):
                    store[name] = kept
        if stmt.orelse and known is not True:
            built = [{k: v for k, v in store.items() if isinstance(v, (Obj, StateDictVal))
                      or _scheduler_choice(v)}
                     if known is None else {} for store in stores]
            projects = [{k: v for k, v in store.items() if isinstance(v, InstanceVal)
                         and was.get(k) is not v} if known is None else {}
                        for store, was in zip(stores, before)]
            chosen = [{k: v for k, v in store.items() if _project_choice(v)
                       and was.get(k) is not v} if known is None else {}
                      for store, was in zip(stores, before)]
            for store, was in zip(stores, before):
                for name, obj in was.items():
                    now = store.get(name)
                    if isinstance(obj, Obj) and isinstance(now, Const) and now.value is None:
                        # `if extend: scheduler = None else: scheduler.last_epoch = n`: the
                        # `else` runs on the path where the first branch did not drop the
                        # object, so what it does to the name it does to that object
                        store[name] = obj
            with _narrowed(narrowed, 1):
                if by_class:
                    self.exec_by_class(stmt.orelse, scope)
                else:
                    self.exec_branch(stmt, 1, stmt.test, stmt.orelse, scope, decided)
            second = [dict(store) if known is None else {} for store in stores]
            for store, projects_here, was in zip(stores, projects, before):
                for name, instance in projects_here.items():
                    now = store.get(name)
                    if isinstance(now, Obj) and now.kind == "scheduler" and was.get(name) is not now:
                        # the project's scheduler on the first branch, a torch one on the other
                        store[name] = UnionVal([instance, now], exclusive=True)
                    elif isinstance(now, Const) and now.value is None:
                        # `if args.amp: scaler = ScalerWrapper() else: scaler = None`: as for
                        # a library object, the name holds the instance of the branch that
                        # built it (None has nothing to track)
                        store[name] = instance
            # `if args.amp: scaler = GradScaler() else: scaler = None`: after the `if` the
            # name holds the object on the branch that built it (None has nothing to track)
            for store, built_here, was in zip(stores, built, before):
                for name, obj in built_here.items():
                    now = store.get(name)
                    if now is not obj and isinstance(now, Const) and now.value is None:
                        # also `if args.fp16: amp_state = scaler.state_dict() else:
                        # amp_state = None`: what a checkpoint then stores is that state
                        store[name] = obj
                    elif not isinstance(obj, Obj):
                        # a state dict, or a choice of schedulers made in a nested `if` (`if
                        # decay > 0: (one scheduler per `kind`) else: s = None`): the choice
                        # is kept over None as a single object is; against a scheduler the
                        # other branch builds (`else: s = LinearLR(...)`), the name holds one of
                        # them all
                        if now is not obj and was.get(name) is not now \
                                and _scheduler_choice(obj) and isinstance(obj, UnionVal) \
                                and isinstance(now, Obj) and now.kind == "scheduler":
                            store[name] = UnionVal([*options(obj), now], exclusive=True)
                        continue
                    elif now is not obj and isinstance(now, Obj) and obj.kind == now.kind \
                            == "scaler" and was.get(name) is not now \
                            and _disabled_scaler(now) and not _disabled_scaler(obj):
                        # `if amp: scaler = GradScaler() else: scaler = GradScaler(enabled=
                        # False)`: the disabled one never scales nor skips, so what is done to
                        # the name matters where the working one was built (the last branch
                        # would otherwise win and the scaler read as off)
                        store[name] = obj
                    elif now is not obj and obj.kind == "optimizer" and was.get(name) is not now \
                            and isinstance(now, (InstanceVal, ExprVal)):
                        # `if args.optim == "sgd": opt = SGD(...) else: opt = ProjectRMSprop(...)`:
                        # an optimizer either way; the one lrdoctor can read stands for the
                        # choice (the last branch would otherwise win and the schedule lose its
                        # optimizer)
                        store[name] = obj
                    elif now is not obj and obj.kind == "scheduler" and was.get(name) is not now \
                            and isinstance(now, InstanceVal):
                        # `if args.sched == "step": s = StepLR(...) else: s = ProjectCosine(...)`:
                        # what is done to the name (a step, a restore) is done to the torch
                        # option when the setting picks it
                        store[name] = UnionVal([obj, now], exclusive=True)
                    elif now is not obj and was.get(name) is not obj \
                            and was.get(name) is not now and _chosen_scheduler(obj, now):
                        # a scheduler chosen by a setting, one per branch: the name holds one
                        # of them, whichever the setting picks
                        rest = options(now) if isinstance(now, UnionVal) else [now]
                        store[name] = UnionVal([obj, *rest], exclusive=True)
            _keep_the_scheduled_optimizer(stores, built, projects, second, before)
            for store, first, was in zip(stores, chosen, before):
                for name, value in first.items():
                    now = store.get(name)
                    if now is not value and was.get(name) is not now \
                            and _project_choice(now) and _project_choice(value) \
                            and len({id(o.info) for o in _leaves_of(value) + _leaves_of(now)
                                     }) > 1:
                        # `if opt.model == "sr": M = SRModel` / `else: M = GANModel` (an import
                        # on each branch, an instance built on each): one of them, whichever
                        # the setting picks; a call on it is a call on that one
                        store[name] = UnionVal([value, *_leaves_of(now)], exclusive=True)

        for store, instances in zip(stores, held):
            for name, instance in instances.items():
                # `if args.distributed: model = DistributedDataParallel(model)`: on the other
                # path the name still holds the project's instance, and the calls made on it
                # after the `if` are followed into its methods
                now = store.get(name, instance)
                if now is not instance and isinstance(now, (ExprVal, type(None))) \
                        and _rebinds_on_one_side(stmt, name, store is scope.vars):
                    store[name] = instance
        for store, objects in zip(stores, held_objects):
            for name, obj in objects.items():
                # `scheduler = OneCycleLR(...)` then `if extend: scheduler = None`: on the
                # other path the name still holds the object, and what is done to it after the
                # `if` (under `if scheduler is not None:`) is done to that object (None has
                # nothing to track), as when the object is built in one branch of the `if`
                now = store.get(name)
                if now is not obj and isinstance(now, Const) and now.value is None \
                        and _rebinds_on_one_side(stmt, name, store is scope.vars):
                    store[name] = obj

    def isinstance_narrowing(self, test: ast.expr, scope: Scope
                             ) -> tuple[dict[str, Any], str, Any, Any] | None:
        """``if isinstance(scheduler, ReduceLROnPlateau):`` on a name that holds one of several
        schedulers (one per setting) whose classes are not all known: each branch runs only
        with the options whose class can take it (``scheduler.step(val_loss)`` is never called
        on the LambdaLR option). Returns where the name lives, the name, and its value in the
        ``if`` branch and in the ``else`` branch; None when nothing narrows."""
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, not negate
        if isinstance(test, ast.BoolOp):
            # `if sched and isinstance(sched, ReduceLROnPlateau):`: the `if` branch runs only
            # when every operand of an `and` holds, so a class test among them narrows that
            # branch (the other branch runs when any one fails, and learns nothing); an `or`
            # narrows its `else` branch the same way
            for operand in test.values:
                found = self.isinstance_narrowing(operand, scope)
                if found is None:
                    continue
                store, key, taken, other = found
                pair = (taken, store[key]) if isinstance(test.op, ast.And) \
                    else (store[key], other)
                if negate:
                    pair = (pair[1], pair[0])
                return store, key, pair[0], pair[1]
            return None
        by_name = self.class_name_test(test, scope)
        if by_name is not None:
            return self.class_name_narrowing(*by_name, negate != by_name[2], scope)
        # `if type(self.sched) in [ReduceLROnPlateau]:` (or `==`, `is`, and the negations):
        # the branch runs only for the options whose class is exactly one of those named
        typed = _type_test(test)
        exact = typed is not None
        if typed is not None:
            test, negate = typed[0], negate != typed[1]
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
                and test.func.id == "isinstance" and len(test.args) == 2):
            return None
        target = test.args[0]
        where = _narrowed_name(target, scope)
        if where is None:
            return None
        store, key = where
        subject = store[key]
        while isinstance(subject, UnionVal) and len(subject.options) == 1:
            # `for s in [make_scheduler(cfg, opt)]:` the loop's one item: the name holds it
            subject = subject.options[0]
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        # (a `Const(None)` not sure to be None: a name set to None on one side of an `if` and
        # to a value lrdoctor cannot follow on the other, `self.s = make(cls) if cls else None`)
        unknown = isinstance(subject, (ExprVal, type(None))) or (
            isinstance(subject, Const) and subject.value is None and not subject.sure)
        if unknown and not negate and classes and all(
                ".lr_scheduler." in (self.qualname(c, scope) if dotted(c) else "")
                for c in classes):
            # `if isinstance(s, torch.optim.lr_scheduler.OneCycleLR): s.step()` on a value of
            # unknown origin: in that branch it is a scheduler (of a class lrdoctor does not
            # take for granted: no horizon, no class-specific rule)
            label = dotted(target) or key
            return store, key, self._guessed_obj("scheduler", label), subject
        if not (isinstance(subject, UnionVal) and subject.exclusive):
            return None
        wanted = set()
        for cls in classes:
            last = (self.qualname(cls, scope) if dotted(cls) else "").rsplit(".", 1)[-1]
            if last not in SCHEDULERS:
                return None
            wanted.add(last)
        sides: tuple[list[Any], list[Any]] = ([], [])
        for option in options(subject):
            known = isinstance(option, Obj) and option.kind == "scheduler" and option.call \
                and option.cls in SCHEDULERS
            taken = (option.cls in wanted) != negate if known else None
            if taken is None and _builds_lambda_lr(option):
                # `get_linear_schedule_with_warmup(...)`: a LambdaLR, whatever the setting
                taken = ("LambdaLR" in wanted) != negate
            if taken is None:
                # the project's own scheduler class: an instance of a torch class only when
                # that class is among its ancestors (`WarmupMultiStepLR(_LRScheduler)` is
                # never a ReduceLROnPlateau)
                ancestors = self.torch_ancestors(option)
                if ancestors is not None:
                    # `type(x) in [...]` is false for a subclass of a class named there
                    taken = (bool(ancestors & wanted) and not exact) != negate
            if taken is not False:
                sides[0].append(option)
            if taken is not True:
                sides[1].append(option)
        return _split_choice(store, key, subject, sides)

    def class_name_narrowing(self, target: ast.expr, wanted: frozenset[str], _: bool,
                             spelled: str, negate: bool, scope: Scope
                             ) -> tuple[dict[str, Any], str, Any, Any] | None:
        """``if self.sched.__class__.__name__ in {"ReduceLROnPlateau", ...}:`` on a name that
        holds one of several schedulers: each branch with the options whose class name says
        so (a torch class by its name, the project's own class by its own)."""
        where = _narrowed_name(target, scope)
        if where is None:
            return None
        store, key = where
        subject = store[key]
        if not (isinstance(subject, UnionVal) and subject.exclusive):
            return None
        sides: tuple[list[Any], list[Any]] = ([], [])
        for option in options(subject):
            named = _class_test_takes(option, wanted, spelled)
            taken = None if named is None else named != negate
            if taken is not False:
                sides[0].append(option)
            if taken is not True:
                sides[1].append(option)
        return _split_choice(store, key, subject, sides)

    def class_name_test(self, test: ast.expr, scope: Scope
                        ) -> tuple[ast.expr, frozenset[str], bool, str] | None:
        """A test of an object's class by its name: ``type(x).__name__ in {"A", "B"}`` (the
        names written there or held by a constant, ``type(x).__name__ in EPOCH_SCHEDULERS``),
        and ``any(s in str(x.__class__) for s in NAMES)`` (a part of the class's text). The
        object tested, the names, whether negated, and how they are matched: "name" (the
        whole class name), "name-part" (a part of it), "text-part" (a part of ``str(cls)``,
        ``<class 'module.Name'>``)."""
        found = _class_name_test(test)
        if found is not None:
            return (*found, "name")
        if isinstance(test, ast.Compare) and len(test.ops) == 1 \
                and isinstance(test.ops[0], (ast.In, ast.NotIn)):
            spelled = _class_text(test.left)
            names = self.constant_strings(test.comparators[0], scope)
            if spelled is not None and spelled[1] == "name" and names:
                return spelled[0], names, isinstance(test.ops[0], ast.NotIn), "name"
            return None
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
                and test.func.id == "any" and len(test.args) == 1 and not test.keywords
                and scope.lookup("any") is None
                and isinstance(test.args[0], (ast.GeneratorExp, ast.ListComp))):
            return None
        gen = test.args[0]
        loop = gen.generators[0]
        elt = gen.elt
        if len(gen.generators) != 1 or loop.ifs or not isinstance(loop.target, ast.Name) \
                or not (isinstance(elt, ast.Compare) and len(elt.ops) == 1
                        and isinstance(elt.ops[0], ast.In) and isinstance(elt.left, ast.Name)
                        and elt.left.id == loop.target.id):
            return None
        # `any(s in str(sched.__class__) for s in EPOCH_SCHEDULERS)`: true when one of the
        # names is a part of the class's text
        spelled = _class_text(elt.comparators[0])
        names = self.constant_strings(loop.iter, scope)
        if spelled is None or not names:
            return None
        return spelled[0], names, False, f"{spelled[1]}-part"

    def constant_strings(self, node: ast.expr, scope: Scope) -> frozenset[str] | None:
        """The strings of a literal list, tuple or set of strings, or of a name that holds one
        (a module's ``EPOCH_SCHEDULERS = ["StepLR", ...]``); None otherwise."""
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = node.elts
            if items and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                             for e in items):
                return frozenset(e.value for e in items)  # type: ignore[attr-defined]
            return None
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        held = self.eval_pure(node, scope)
        if isinstance(held, TupleVal) and held.items and all(
                isinstance(i, Const) and i.sure and isinstance(i.value, str) for i in held.items):
            return frozenset(i.value for i in held.items)
        if held is None and isinstance(node, ast.Name) and not _bound(scope, node.id):
            # a constant of a module whose top level this trace did not run (a function of it
            # called from another file): its one top-level binding, when that is a literal
            bound = scope.module.top_level_binders(node.id)
            if len(bound) == 1 and isinstance(bound[0], ast.Assign) \
                    and len(bound[0].targets) == 1 and isinstance(bound[0].targets[0], ast.Name):
                return self.constant_strings(bound[0].value, scope) \
                    if isinstance(bound[0].value, (ast.List, ast.Tuple, ast.Set)) else None
        return None

    def class_test_outcome(self, test: ast.expr, scope: Scope) -> bool | None:
        """The outcome of a test on the class of a known scheduler, written in place
        (``isinstance(s, ReduceLROnPlateau)``, see isinstance_outcome) or read from a name
        that holds one (``is_plateau = isinstance(s, ReduceLROnPlateau)`` ... ``if not
        is_plateau``), else None."""
        known = self.isinstance_outcome(test, scope)
        if known is not None:
            return known
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, not negate
        if not isinstance(test, (ast.Name, ast.Attribute)):
            return None
        value = self.eval_pure(test, scope)
        if isinstance(value, Const) and value.sure and value.by_class \
                and isinstance(value.value, bool):
            return value.value != negate
        return None

    def isinstance_outcome(self, test: ast.expr, scope: Scope) -> bool | None:
        """The outcome of ``isinstance(scheduler, ReduceLROnPlateau)`` (or ``not`` of it) when
        the scheduler's class is known: the other branch never runs for it. In ``a and b`` a
        class test known false makes the whole test false (``sched and not isinstance(sched,
        OneCycleLR)`` never runs for a OneCycleLR), in ``a or b`` one known true makes it
        true; the other operands are not decided here."""
        if isinstance(test, ast.BoolOp):
            parts = [self.isinstance_outcome(v, scope) for v in test.values]
            decisive = isinstance(test.op, ast.Or)  # the value that settles the whole test
            if decisive in parts:
                return decisive
            return (not decisive) if all(p is not None for p in parts) else None
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, not negate
        by_name = self.class_name_test(test, scope)
        if by_name is not None:
            # `type(s).__name__ == "ReduceLROnPlateau"`: the class of every option says it
            subject = self.eval_pure(by_name[0], scope)
            found = {_class_test_takes(s, by_name[1], by_name[3]) for s in (
                options(subject) if isinstance(subject, UnionVal) else [subject])}
            if len(found) != 1 or None in found:
                return None
            return found.pop() != (negate != by_name[2])
        returned = self.property_returns(test, scope)
        if returned is not None:
            # `if self.sched.is_plateau:` where `is_plateau` is a property of the project's
            # wrapper that returns `isinstance(self.inner, ReduceLROnPlateau)`: that test
            outcome = self.isinstance_outcome(*returned)
            return None if outcome is None else outcome != negate
        # `type(s) == ReduceLROnPlateau`, `type(s) is not ReduceLROnPlateau`, `type(s) in
        # [StepLR, ExponentialLR]` say the same of a scheduler built by torch's constructor
        # (its class is exactly the one named, which no other torch scheduler derives from)
        typed = _type_test(test)
        if typed is not None:
            test, negate = typed[0], negate != typed[1]
        exact = typed is not None
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
                and test.func.id == "isinstance" and len(test.args) == 2):
            return None
        subject = self.eval_pure(test.args[0], scope)
        subjects = options(subject) if isinstance(subject, UnionVal) else [subject]
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        if subjects and classes and all(
            isinstance(s, Obj) and s.kind == "scheduler" and s.call is not None for s in subjects
        ) and all(isinstance(c, ast.Name) and c.id in _PLAIN_TYPES and scope.lookup(c.id) is None
                  for c in classes):
            # `isinstance(self.scheduler, dict)` (a dict of schedulers, one per model, in code
            # shared with such projects) on a scheduler a known constructor built: a scheduler
            # is never a builtin container or number
            return negate
        if not subjects:
            return None
        wanted = set()
        for cls in classes:
            qual = self.qualname(cls, scope) if dotted(cls) else ""
            last = qual.rsplit(".", 1)[-1]
            if last not in SCHEDULERS:
                return None  # a base class (LRScheduler), a project class: not decidable here
            wanted.add(last)
        outcomes = set()
        for s in subjects:
            if isinstance(s, Obj) and s.kind == "scheduler" and s.call and s.cls in SCHEDULERS:
                outcomes.add(s.cls in wanted)
                continue
            # the project's own scheduler class (`class PolyLR(_LRScheduler)`, kept in a
            # warm-up wrapper's `self.after_scheduler`): an instance of a torch class only
            # when that class is among its ancestors, and never exactly of one
            ancestors = self.torch_ancestors(s)
            if ancestors is None:
                return None
            outcomes.add(bool(ancestors & wanted) and not exact)
        return None if len(outcomes) != 1 else outcomes.pop() != negate

    def property_returns(self, test: ast.expr, scope: Scope) -> tuple[ast.expr, Scope] | None:
        """For ``obj.name`` where ``name`` is a property of the project's class of ``obj``
        whose body only returns an expression: that expression, with the scope it is read
        in (``self`` bound to the instance)."""
        if not isinstance(test, ast.Attribute):
            return None
        base = self.eval_pure(test.value, scope)
        if not isinstance(base, InstanceVal):
            return None
        found = base.info.find(test.attr)
        if found is None or not any(
                (isinstance(d, ast.Name) and d.id in ("property", "cached_property"))
                or (isinstance(d, ast.Attribute) and d.attr == "cached_property")
                for d in found[0].decorator_list):
            return None
        body = [stmt for stmt in found[0].body if not (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            return None
        owner = found[1]
        return body[0].value, Scope({"self": base}, owner.module, self.module_scope, base, owner)

    def exec_branch(self, stmt: ast.stmt, branch: int, test: ast.expr | None,
                    body: list[ast.stmt], scope: Scope, decided: bool = False) -> None:
        saved = self.conds
        cond = self.branch_cond(stmt, branch, test, scope)
        if decided:
            cond.decided = True
        self.conds = (*saved, cond)
        try:
            self.exec_body(body, scope)
        finally:
            self.conds = saved

    def branch_cond(self, stmt: ast.stmt | ast.expr, branch: int, test: ast.expr | None,
                    scope: Scope) -> Cond:
        key = (self.path, stmt.lineno, stmt.col_offset)
        fact = None
        parts: list[tuple[str, tuple[Any, ...], bool]] = []
        if test is not None and branch in (0, 1):
            key_of_test = id(test)
            if key_of_test not in self._flags:
                self._flags[key_of_test] = flag_of(test)
            flag = self._flags[key_of_test]
            if flag is not None:
                text, truth, read = flag
                version = tuple(self.flag_version(name, scope) for name in read)
                fact = (text, version, truth if branch == 0 else not truth)
            holds, whole = branch == 0, test
            while isinstance(whole, ast.UnaryOp) and isinstance(whole.op, ast.Not):
                holds, whole = not holds, whole.operand
            if isinstance(whole, ast.BoolOp) and isinstance(whole.op, ast.And) == holds:
                # every part of a true `and` holds; no part of a false `or` does
                for value in whole.values:
                    part = flag_of(value)
                    if part is not None:
                        text, truth, read = part
                        version = tuple(self.flag_version(name, scope) for name in read)
                        parts.append((text, version, truth if holds else not truth))
        origins = _origins(test, scope) if test is not None else ()
        if branch == 0 and isinstance(stmt, ast.If) and self.loop is not None:
            period = _counter_period(stmt, self.loop.node)
            if period is not None:
                origins = (*origins, period)
        bounds = bounds_of(test, branch, lambda text: self.flag_version(text, scope)) \
            if test is not None and branch in (0, 1) else ()
        strings = self.string_facts(test, branch, scope) \
            if test is not None and branch in (0, 1) else ()
        return Cond(key, branch, test, self.loop, fact, origins, self.setting_alias(test, scope),
                    _known_sources(test, scope), parts=tuple(parts),
                    table=_table_lookup(test, scope), bounds=bounds, strings=strings,
                    section=_setting_section(test, scope))

    def string_facts(self, test: ast.expr, branch: int, scope: Scope
                     ) -> tuple[tuple[Any, str, int, frozenset[str], bool], ...]:
        """What the branch ``branch`` of ``if test:`` says of string settings read off an
        object the trace holds (see Cond.strings): a comparison of `obj.name`, `obj["name"]`
        or `obj.get("name")` with a string (`==`, `!=`) or a literal of strings (`in`, `not
        in`); each part of a true `and` or of a false `or`."""
        holds, whole = branch == 0, test
        while isinstance(whole, ast.UnaryOp) and isinstance(whole.op, ast.Not):
            holds, whole = not holds, whole.operand
        parts = [whole]
        if isinstance(whole, ast.BoolOp):
            if isinstance(whole.op, ast.And) != holds:
                return ()  # a true `or`, a false `and`: no part surely holds either way
            parts = list(whole.values)
        out: list[tuple[Any, str, int, frozenset[str], bool]] = []
        for part in parts:
            truth = holds
            while isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not):
                truth, part = not truth, part.operand
            if not (isinstance(part, ast.Compare) and len(part.ops) == 1):
                continue
            left, op, right = part.left, part.ops[0], part.comparators[0]
            if isinstance(left, ast.Constant) and isinstance(op, (ast.Eq, ast.NotEq)):
                left, right = right, left
            if isinstance(right, ast.Constant) and isinstance(right.value, str) \
                    and isinstance(op, (ast.Eq, ast.NotEq)):
                values = frozenset({right.value})
            elif isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str)
                    for e in right.elts) and isinstance(op, (ast.In, ast.NotIn)):
                values = frozenset(e.value for e in right.elts
                                   if isinstance(e, ast.Constant) and isinstance(e.value, str))
            else:
                continue
            inside = truth if isinstance(op, (ast.Eq, ast.In)) else not truth
            read = _setting_read(left)
            if read is None:
                continue
            holder_node, name = read
            holder = self.eval_pure(holder_node, scope)
            # one object the trace holds: a value known by its source (an entry point's
            # `args`, a config read off it), a dict, an instance of the project's class
            if not isinstance(holder, (ExprVal, DictVal, InstanceVal)):
                if holder is not None:
                    continue
                # nothing known of it (an entry point's parameter): the name, followed
                # through the calls that passed it down, in the call where it is read
                found = self.passed_down(holder_node)
                if found is None:
                    continue
                holder, text = found
                name = f"{text}.{name}"
            out.append((holder, name, self.versions.get("." + name.rsplit(".", 1)[-1], 0),
                        values, inside))
        return tuple(out)

    def passed_down(self, node: ast.expr) -> tuple[Frame, str] | None:
        """For a name (or an attribute chain on one) that is a parameter of the function
        being traced: the call of the outermost function it was passed down from, by the
        same name or another (`advance(sched, opts)` into `def advance(sched, cfg)`), and its
        text there; for a parameter of the entry point itself, that call and the text. None
        for anything else (a local name, a value computed on the way)."""
        text = dotted(node)
        frame = self.frame
        if text is None or frame is None or frame.fn is None:
            return None
        for _ in range(MAX_CALL_DEPTH):
            root, dot, rest = text.partition(".")
            fn = frame.fn
            if fn is None or root in ("self", "cls") or root not in {
                    a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}:
                return None
            if frame.call is None or frame.parent is None or frame.parent.fn is None:
                return frame, text
            given = frame.argument(root)
            outer = dotted(given) if given is not None else None
            if outer is None:
                return None
            text, frame = outer + dot + rest, frame.parent
        return None

    def setting_alias(self, test: ast.expr | None, scope: Scope | None = None) -> str | None:
        """The setting the attribute compared by ``test`` was copied from (see Cond.alias);
        for a bare name, the setting the caller handed to that parameter (see
        ``_handed_setting``)."""
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            return None
        subject = test.comparators[0] if isinstance(test.left, ast.Constant) else test.left
        if isinstance(subject, ast.Name) and scope is not None:
            return scope.handed_setting(subject.id)
        if not isinstance(subject, ast.Attribute):
            return None
        return self.setting_copies.get(subject.attr) or None

    def flag_version(self, text: str, scope: Scope) -> Any:
        """What a name in a test stands for: the object it is bound to when lrdoctor knows
        one (the same `scaler` in a helper and its caller), else how often it was rebound."""
        root = text.split(".", 1)[0]
        value = scope.lookup(root)
        if value is not None and not isinstance(value, Const):
            ident: Any = id(value)
        else:
            ident = self.versions.get(root, 0)
        return ident if root == text else (ident, self.versions.get(text, 0))

    def exec_for(self, stmt: ast.For | ast.AsyncFor, scope: Scope) -> None:
        columns = self.column_names(stmt.target, stmt.iter, scope)
        if not columns:
            self.exec_for_body(stmt, scope)
            return
        saved = dict(self.columns)
        self.columns.update(columns)
        try:
            self.exec_for_body(stmt, scope)
        finally:
            self.columns = saved

    def column_names(self, target: ast.expr, over: ast.expr, scope: Scope
                     ) -> dict[str, tuple[Scope, UnionVal]]:
        """The names of a loop's tuple target that take every object of a column, one per
        pass, all schedulers, all optimizers or all scalers: a `zip` argument that holds only
        those (``for opt, sched in zip(optimizers, schedulers)``, also under ``enumerate``),
        or one position of a literal sequence of tuples (``for sched, key in ((sched_g, "g"),
        (sched_d, "d"))``) that holds one in every row. Names are not bound by this: a
        ``load_state_dict`` on one of them restores each of those objects (the loop runs
        once for each)."""
        if not isinstance(target, ast.Tuple):
            return {}
        if isinstance(over, ast.Call) and dotted(over.func) == "enumerate" and len(over.args) == 1 \
                and not over.keywords and len(target.elts) == 2:
            return self.column_names(target.elts[1], over.args[0], scope)
        if any(isinstance(e, ast.Starred) for e in target.elts):
            return {}
        cells: list[list[ast.expr]] = []
        if isinstance(over, ast.Call) and dotted(over.func) == "zip" \
                and len(over.args) == len(target.elts) \
                and not any(isinstance(a, ast.Starred) for a in over.args):
            for arg in over.args:
                members = loop_members(self.eval_pure(arg, scope))
                cells.append([] if members is None else options(members))
        elif isinstance(over, (ast.Tuple, ast.List)) and over.elts and all(
                isinstance(row, (ast.Tuple, ast.List)) and len(row.elts) == len(target.elts)
                and not any(isinstance(c, ast.Starred) for c in row.elts) for row in over.elts):
            rows = [row.elts for row in over.elts if isinstance(row, (ast.Tuple, ast.List))]
            for i in range(len(target.elts)):
                found: list[Any] = []
                for row in rows:
                    value = self.eval_pure(row[i], scope)
                    found.extend(options(value) if isinstance(value, UnionVal) else [value])
                cells.append(found)
        else:
            return {}
        columns: dict[str, tuple[Scope, UnionVal]] = {}
        for elt, found in zip(target.elts, cells):
            kinds = {o.kind if isinstance(o, Obj) else None for o in found}
            if isinstance(elt, ast.Name) and len(kinds) == 1 \
                    and kinds <= {"scheduler", "optimizer", "scaler"}:
                columns[elt.id] = (scope, UnionVal(list(found)))
        return columns

    def exec_for_body(self, stmt: ast.For | ast.AsyncFor, scope: Scope) -> None:
        iterable = self.eval(stmt.iter, scope)
        members = loop_members(iterable)
        if members is not None:
            # a loop over optimizers / schedulers / param groups, not over data
            if isinstance(stmt.iter, ast.Call) and dotted(stmt.iter.func) == "enumerate" \
                    and isinstance(stmt.target, ast.Tuple) and len(stmt.target.elts) == 2:
                members = TupleVal([None, members])  # `for i, group in enumerate(...)`
            self.assign(stmt.target, members, stmt.iter, scope)
            self.exec_body(stmt.body, scope)
            self.exec_body(stmt.orelse, scope)
            return
        instances = _instance_members(iterable)
        if instances is not None and not _holds_loop(stmt) and not _member_decides(stmt):
            # `for hook in self._hooks: hook.after_iter()`: a pass over the project's own
            # objects (hooks, callbacks) a runner keeps in a list, not over data; the body runs
            # for every one of them where the loop stands
            self.assign(stmt.target, instances, None, scope)
            self.exec_body(stmt.body, scope)
            self.exec_body(stmt.orelse, scope)
            return
        self.assign(stmt.target, None, None, scope)
        targets = getattr(stmt.target, "_lrdoctor_targets", None)
        if targets is None:
            targets = frozenset(n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name))
            stmt.target._lrdoctor_targets = targets  # type: ignore[attr-defined]
        # `for x, y in dataloaders[phase]:` over a dict of loaders is a loop over a loader too
        loader = is_loader(iterable) or one_of_loaders(iterable)
        if loader:
            self.loop_loaders[id(stmt)] = iterable
        hint = "batch" if loader else _for_hint(stmt, targets, scope, self)
        name = iterable.name if isinstance(iterable, Obj) else ""
        passes = 1 if loader and _whole_dataset_batches(iterable) else \
            None if loader else self.range_passes(stmt.iter, scope)
        self.exec_loop(stmt, scope, hint, stmt.iter, name, targets, loader, passes=passes)

    def range_passes(self, over: ast.expr, scope: Scope) -> int | None:
        """The number of passes of a loop over ``range(n)`` / ``range(a, b)`` whose bounds are
        integers where it runs (literals, or names and attributes bound to them); None for any
        other loop (a step, a bound that is not known)."""
        if not isinstance(over, ast.Call) or dotted(over.func) != "range" or over.keywords \
                or not 1 <= len(over.args) <= 2 \
                or any(isinstance(a, ast.Starred) for a in over.args):
            return None
        bounds = []
        for arg in over.args:
            value = self.eval_pure(arg, scope)
            number = value.value if isinstance(value, Const) else None
            if type(number) is not int:
                return None
            bounds.append(number)
        return max(0, bounds[-1] - (bounds[0] if len(bounds) == 2 else 0))

    def yielded(self, node: ast.Yield | ast.YieldFrom, value: Any) -> None:
        """A generator function that yields once per batch of a loader (`for b in loader:
        yield b.to(device)`, or `yield from loader`) hands back an iterator over that loader's
        batches: its call stands for the loader, as `(f(b) for b in loader)` does, so a loop
        over it is a loop over the loader. A yield in a loop of its own inside the batch loop
        (several items per batch) or outside any loop over a loader says nothing."""
        if self.returns is None or not self.stack:
            return
        if isinstance(node, ast.YieldFrom):
            if is_loader(value) or one_of_loaders(value):
                self.returns.append((node, value))
            return
        loop, fn = self.loop, self.stack[-1]
        if loop is None or id(loop.node) not in self.loop_loaders or loop.path != self.path \
                or not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or not fn.lineno <= loop.node.lineno <= (fn.end_lineno or fn.lineno):
            return
        self.returns.append((node, self.loop_loaders[id(loop.node)]))

    def exec_loop(self, stmt: ast.For | ast.AsyncFor | ast.While, scope: Scope, hint: str,
                  over: ast.expr, over_name: str, targets: frozenset[str],
                  loader: bool = False, draws: str = "",
                  each: Callable[[], Any] | None = None, passes: int | None = None) -> None:
        loop = Loop(stmt, self.path, self.loop, hint, over, targets, stmt.lineno,
                    over_name=over_name, passes=passes)
        loop.iterates_loader = loader
        loop.draws_loader = draws
        loop.root = self.root
        loop.scope = scope
        if isinstance(stmt, ast.While):
            loop.counters = _while_counters(stmt)
        self.loops.append(loop)
        if loader or hint == "batch":
            for rec in self.recordings:
                rec.spoiled = True  # a batch loop tells the loops around it they hold one
        saved = self.loop
        self.loop = loop
        try:
            if each is not None:
                each()  # what one pass runs, where it is not the statement's own body
            else:
                self.exec_body(stmt.body, scope)
        finally:
            self.loop = saved
        self.exec_body(stmt.orelse, scope)

    def call_per_item(self, node: ast.Call, fn: FuncVal, items: Any, before: list[Any],
                      scope: Scope) -> None:
        """``map(f, loader)`` / ``functools.reduce(f, loader, init)``: ``f`` runs once per item
        (``before``: the arguments ahead of the item, reduce's running value), in a loop over
        the loader's batches located at the call, as ``for b in loader: f(b)`` would run it; over
        the objects a loop goes over (``map(set_lr, opt.param_groups)``) it runs once with any
        of them. Over anything else it is not run: what it goes over is not known here."""
        members = loop_members(items)
        if members is not None:
            self.call_function(fn, [*before, members], {}, site=True, call=node)
            return
        if not (is_loader(items) or one_of_loaders(items)):
            return
        loop = _per_item_loop(node)
        over = node.args[1]
        self.exec_loop(loop, scope, "batch", over,
                       items.name if isinstance(items, Obj) else "", frozenset(), True,
                       each=lambda: self.call_function(fn, [*before, None], {}, site=True,
                                                       call=node))

    # -- assignment ----------------------------------------------------------------------

    def assign(self, target: ast.expr, value: Any, source: ast.expr | None, scope: Scope) -> None:
        if isinstance(target, (ast.Name, ast.Attribute)):
            text = dotted(target)
            if text is not None:
                self.bump(text)
            elif isinstance(target, ast.Attribute):
                self.bump_setting(target.attr)
        elif isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                and isinstance(target.slice.value, str):
            self.bump_setting(target.slice.value)
        if isinstance(target, ast.Name):
            self.assigned(target.id, target, source)
            store = scope.vars
            if self.stack and scope.parent is not None:
                declared = _declared(self.stack[-1])
                if target.id in declared[0]:
                    # `global scheduler` then `scheduler = StepLR(...)` in an `init()`: the
                    # module's name is bound, which every function reading it then sees
                    module = scope
                    while module.parent is not None:
                        module = module.parent
                    store = module.vars
                elif target.id in declared[1] and scope.parent.parent is not None:
                    # `nonlocal sched` in a closure: the enclosing function's name (the
                    # nearest that binds it)
                    outer = scope.parent
                    while outer.parent is not None and outer.parent.parent is not None \
                            and target.id not in outer.vars:
                        outer = outer.parent
                    store = outer.vars
            self.bind(store, target.id, target.id, value, source, scope, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            items: list[Any] | None = None
            if isinstance(value, TupleVal):
                items = value.items
            elif isinstance(value, ItemsVal):
                items = [None, UnionVal(list(value.source.items.values()))]
            elif isinstance(value, UnionVal) and all(isinstance(o, TupleVal) for o in value.options):
                items = None
            elif isinstance(value, InstanceVal):
                # `opt, sched = build(model)` returning `Parts(opt, sched)`, a named tuple: its
                # fields, in order
                fields = tuple_fields(value.info)
                if fields is not None and len(fields) == len(target.elts):
                    items = [value.attrs.get(f) for f in fields]
            sources: list[ast.expr | None] = (
                list(source.elts) if isinstance(source, (ast.Tuple, ast.List)) else []
            )
            # `train_loader, val_loader = get_loader(cfg)`: a builder lrdoctor cannot see whose
            # name says it makes loaders; the targets named as loaders are loaders (the others,
            # `num_classes`, stay unknown)
            builder = source if (
                value is None and isinstance(source, ast.Call)
                and "loader" in (dotted(source.func) or "").lower()
            ) else None
            for i, elt in enumerate(target.elts):
                if isinstance(elt, ast.Starred):
                    self.assign(elt.value, None, None, scope)
                    continue
                item = items[i] if items is not None and i < len(items) else None
                src = sources[i] if i < len(sources) else None
                if item is None and builder is not None and isinstance(
                        elt, (ast.Name, ast.Attribute)):
                    label = dotted(elt)
                    if label and names.guess_kind_from_name(label) == "loader":
                        item = self.guess_from_call(builder, label, scope)
                self.assign(elt, item, src, scope)
        elif isinstance(target, ast.Attribute):
            copied = setting_key(source) if source is not None else None
            if self.setting_copies.get(target.attr, copied) != copied or not copied:
                self.setting_copies[target.attr] = ""
            else:
                self.setting_copies[target.attr] = copied
            base = self.eval(target.value, scope)
            if target.attr == "last_epoch":
                # `scheduler.last_epoch = start_epoch - 1`: a resume that rebuilds the schedule;
                # where the scheduler is one of several picked by a setting, whichever it is
                for option in options(base) if isinstance(base, UnionVal) else [base]:
                    if isinstance(option, Obj) and option.kind == "scheduler":
                        self.emit("set_last_epoch", option, target)
            if target.attr == "optimizer":
                # `scheduler.optimizer = optimizer` (or, through Accelerate's wrapper,
                # `lr_scheduler.scheduler.optimizer = optimizer`): torch's schedulers write the
                # LR into `self.optimizer.param_groups` on every step, so from here on the
                # scheduler drives whatever was stored there
                held = base
                if isinstance(target.value, ast.Attribute) and target.value.attr == "scheduler" \
                        and not (isinstance(base, Obj) and base.kind == "scheduler"):
                    outer = self.eval(target.value.value, scope)
                    if isinstance(outer, Obj) and outer.kind == "scheduler" and outer.prepared:
                        held = outer
                for option in options(held) if isinstance(held, UnionVal) else [held]:
                    if isinstance(option, Obj) and option.kind == "scheduler":
                        self.emit("repoint", option, target,
                                  new=value if isinstance(value, Obj) else None)
            if isinstance(base, UnionVal):
                # `hook.trainer = self` on the loop variable of a pass over hooks: each of them
                for option in options(base):
                    if isinstance(option, InstanceVal):
                        self.bind(option.attrs, target.attr, f"self.{target.attr}", value,
                                  source, scope, target)
            if isinstance(base, ExprVal) and (
                    _tracked(value) or (base.attrs is not None and target.attr in base.attrs)):
                # `args.amp = GradScaler() if args.amp else False`: an object stored on a value
                # known only by its source (a settings namespace, a config object) is that
                # value's attribute from then on, wherever the value is handed
                if base.attrs is None:
                    base.attrs = {}
                for rec in self.recordings:
                    rec.spoiled = True  # a value given to the call is changed
                self.bind(base.attrs, target.attr, dotted(target) or target.attr, value, source,
                          scope, target)
            if isinstance(base, (InstanceVal, ClassVal)):
                self.assigned(target.attr, target, source)
                for held in options(value) if isinstance(value, UnionVal) else [value]:
                    if isinstance(held, Obj) and held.kind == "scheduler" \
                            and (base.info, target.attr) not in held.held:
                        held.held.append((base.info, target.attr))
            if isinstance(base, InstanceVal):
                self.bind(base.attrs, target.attr, f"self.{target.attr}", value, source, scope,
                          target)
            elif isinstance(base, ClassVal) and not isinstance(value, FuncVal):
                # `Runner.scheduler = StepLR(...)`: the class's attribute, which its instances
                # read as `self.scheduler` until they store one of their own (a function
                # stored there is a method the class index already attaches)
                self.bind(self.class_attrs.setdefault(id(base.info), {}), target.attr,
                          f"{base.info.name}.{target.attr}", value, source, scope, target)
        elif isinstance(target, ast.Subscript):
            if self.lr_write_target(target, scope, target, source):
                return
            base = self.eval(target.value, scope)
            key = const_key(target.slice)
            for rec in self.recordings:
                rec.mutate(base)
            if isinstance(base, DictVal) and value is None and isinstance(source, ast.Call) \
                    and isinstance(target.value, (ast.Name, ast.Attribute)):
                # `self.schedulers[name] = cfg.setup(optimizer=self.optimizers[name])`: a
                # builder lrdoctor cannot see, storing into a mapping whose name says what it
                # holds (`schedulers`, `optimizers`): guessed as one such item would be
                label = (dotted(target.value) or "")[:-1]
                if (dotted(target.value) or "").endswith("s") \
                        and names.guess_kind_from_name(label) in ("optimizer", "scheduler"):
                    value = self.guess_from_call(source, label, scope)
                elif self.picked_from_module(source, scope):
                    # `self.s1[name] = getattr(torch.optim.lr_scheduler, entry["type"])(opt)`:
                    # a class taken from torch's scheduler (or optimizer) module builds one,
                    # whatever the mapping is called
                    value = self.guess_from_call(source, dotted(target.value) or "", scope)
            if isinstance(value, Obj) and not value.name \
                    and isinstance(source, ast.Call) and self.picked_from_module(source, scope):
                # (evaluated already, as any call of such a class is: the mapping names it)
                value.name = dotted(target.value) or ""

            if isinstance(base, DictVal):
                if key is not None:
                    if _tracked(value) or _tracked(base.items.get(key)):
                        self.generation += 1
                    # `optimizers["model"] = Adam(...)`: the entry that held one optimizer now
                    # holds another, as a name rebound to a new optimizer does
                    self.rebind_entry(base.items.get(key), value, target,
                                      f"{dotted(target.value) or 'container'}[{key!r}]")
                    if value is None and isinstance(source, ast.IfExp):
                        # `state["optimizer"] = opt.state_dict() if opt is not None else None`:
                        # kept by its source, as the same entry of a dict literal is
                        value = ExprVal(source, scope)
                    base.items[key] = value
                elif _known_entry(value, target.slice, source):
                    # `checkpoint[f"decoder_optimizer_{i}"] = opts[i].state_dict()` in a loop
                    # over the decoders: the key is not known here, but what it holds is (a
                    # tracked object's state, or the weights of a module the key names)
                    if _tracked(value):
                        self.generation += 1
                    base.items[ast.unparse(target.slice)] = value if value is not None \
                        else ExprVal(source, scope) if source is not None else None
                    base.computed.add(ast.unparse(target.slice))
                else:
                    base.unknown_entries(keyed_values=not isinstance(value, Obj))
                    if isinstance(value, Obj):
                        # `schedulers[name] = StepLR(opt, ...)` in a loop over the names: the
                        # dict holds such an object under a key not known here (its values()
                        # and items() yield it; a saved copy is still partly unknown: splat)
                        self.generation += 1
                        base.items[("<key>", target.lineno, target.col_offset)] = value
            elif isinstance(base, TupleVal) and isinstance(value, Obj):
                self.generation += 1
                base.items.append(value)

    def rebind_entry(self, previous: Any, value: Any, node: ast.AST, label: str) -> None:
        """A container entry (a dict's key) that held one optimizer now holds another one."""
        if (
            isinstance(previous, Obj)
            and isinstance(value, Obj)
            and previous is not value
            and previous.kind == value.kind == "optimizer"
        ):
            self.emit("rebind", value, node, old=previous, name=label, entry=True)

    def bind(self, store: dict[str, Any], key: str, label: str, value: Any,
             source: ast.expr | None, scope: Scope, node: ast.AST) -> None:
        if isinstance(value, Obj) and not value.name:
            value.name = label
        elif isinstance(value, DictVal) and label:
            # `self.schedulers = {"main": CosineAnnealingLR(...)}` (or a builder's returned
            # mapping): each unnamed object is known by its entry, `self.schedulers['main']`
            for k, item in value.items.items():
                if isinstance(item, Obj) and not item.name and isinstance(k, str):
                    item.name = f"{label}[{k!r}]"
        previous = store.get(key)
        if (
            isinstance(previous, Obj)
            and isinstance(value, Obj)
            and previous is not value
            and previous.kind == value.kind == "optimizer"
        ):
            self.emit("rebind", value, node, old=previous, name=label)
        if isinstance(previous, DictVal) and isinstance(value, DictVal) and previous is not value:
            # `optimizers = build_optimizers(model, mode="sc")` where the dict held before had
            # its optimizer under the same key: that entry's optimizer is replaced
            for k, item in list(previous.items.items()):
                if isinstance(k, (str, int)):
                    self.rebind_entry(item, value.items.get(k), node, f"{label}[{k!r}]")
        if isinstance(previous, TupleVal) and isinstance(value, TupleVal) \
                and previous is not value and len(previous.items) == len(value.items):
            # `optimizers = [SGD(features), SGD(head)]` built again for the next phase: the
            # optimizer at each position is replaced by the new one at that position (a
            # scheduler built on `optimizers[0]` keeps the first phase's)
            for i, (item, new_item) in enumerate(zip(previous.items, value.items)):
                self.rebind_entry(item, new_item, node, f"{label}[{i}]")
        if store is scope.vars:
            scope.handed.pop(key, None)  # the parameter now holds something else
            scope.arguments.pop(key, None)
            # `kind = cfg.solver.lr_scheduler`: the name is bound to the very object the
            # setting holds, as a parameter the caller fills with it is (see
            # _handed_settings), so `if kind == "cosine":` tests that setting
            held = scope.handed_setting(source.id) if isinstance(source, ast.Name) \
                else setting_key(source) if source is not None else None
            if held:
                scope.handed[key] = held
        if source is not None and store is scope.vars:
            scope.sources[key] = source
        if value is None and label and not isinstance(previous, Obj) \
                and _entry_of_held_objects(source, label, scope):
            # `self.optimizer = self.optimizers["model"]` of a mapping handed in from code not
            # seen here (a trainer given `torch_objs` by its config-built driver): an entry of
            # an unknown mapping, known by the name it is bound to, as an unknown parameter is
            value = self.guess(label)
        if value is None and isinstance(source, ast.Call):
            value = self.guess_from_call(source, label, scope)
            if isinstance(previous, Obj) and isinstance(value, Obj) \
                    and previous.kind == value.kind == "optimizer" \
                    and _given_parameters(source) \
                    and self.optimizer_argument(source, scope) is None:
                # `optimizer = optimizer_class(model.parameters(), lr=1e-4)` with the class
                # taken from torch.optim by a setting: a new optimizer over the parameters
                # (not a wrapper around the old one, which is handed the optimizer)
                self.emit("rebind", value, node, old=previous, name=label)
        if value is None and isinstance(previous, Obj) and previous.kind == "optimizer" \
                and _read_back_from_file(source, scope, label):
            # `optimizer = ckpt["optimizer"]` after `ckpt = torch.load(path)`: the name that
            # held an optimizer now holds the pickled optimizer object the file kept (nothing
            # else that name could be stepped as); a scheduler built on the first one is left
            # on it. (A state dict read back under that name is never stepped: the rule asks
            # for updates of the new object.)
            value = Obj("optimizer", name=label, path=self.path,
                        line=getattr(node, "lineno", 0), col=getattr(node, "col_offset", 0),
                        read_back_of=previous)
            self.objects.append(value)
            self.emit("rebind", value, node, old=previous, name=label)
        if value is None and source is not None:
            value = ExprVal(source, scope)
        if isinstance(value, Const) and value.sure:
            owner = self.stack[-1] if self.stack else self.module.tree
            # a branch the trace decided (`if kind == "onecycle":` with the literal the caller
            # passed) runs every time the `if` does: a store in it is as unconditional as one
            # outside, and a store in the branch it leaves never runs for this caller
            mine = self.conds[self.cond_base:]
            unconditional = all(c.decided for c in mine)
            value = Const(value.value, sure=(
                store is scope.vars and unconditional
                and _stores(owner).get(key, 0) - _dead_stores(owner, mine, key) <= 1
            ) or (
                # `if isinstance(sched, CyclicLR): self.per_batch = True else: ... = False`
                # (or `self.per_batch = isinstance(sched, CyclicLR)`) on a scheduler of known
                # class: the flag says that class, so a later `if self.per_batch:` is decided
                # for this instance (until something stores into it again). Also under a
                # condition of its own (`if sched.optimizer is self.optimizer:`): the
                # scheduler is stored on the same path, so wherever that scheduler is the one
                # stepped, the flag holds what its class says
                scope.self_val is not None and store is scope.self_val.attrs
                and (self.by_class > 0 or value.by_class)
            ) or (
                # `self.step = step` in `__init__`, and no other store of `.step` in the
                # module: the instance holds that one literal in every method
                scope.self_val is not None and store is scope.self_val.attrs and unconditional
                and isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef))
                and owner.name == "__init__"
                and attribute_stores(scope.module.tree).get(key, 0) == 1
                and "*" not in attribute_stores(scope.module.tree)
            ), by_class=value.by_class)
            if not value.sure:
                value.by_class = False
        if (store is not scope.vars or scope.parent is None) and previous is not value and (
            _tracked(value) or _tracked(previous)
        ):
            self.generation += 1  # an attribute or a global now holds another object
        if store is not scope.vars:
            for rec in self.recordings:
                rec.write(store, key, value)
        store[key] = value

    def guess_from_call(self, call: ast.Call, label: str, scope: Scope) -> Obj | None:
        """``scheduler = build_lr_scheduler(cfg, opt)``: a builder lrdoctor cannot see. Also
        any unknown call given the optimizer and bound to a scheduler's name (the project's
        ``build_scheduler(cfg, optimizer)``, ``getattr(lr_scheduler, name)(optimizer)``): a
        scheduler of unknown class, enough for the rules about order, AMP and micro-batches,
        never for those that need its horizon."""
        func = (dotted(call.func) or "").lower()
        named = names.guess_kind_from_name(label)
        optimizer = None
        picked = self.picked_from_module(call, scope)
        if picked:
            # `getattr(torch.optim, cfg.name)(params)`: a class taken from torch's optimizer
            # or scheduler module by a setting, whatever the result is called
            kind = picked
            named = ""
        elif "lr_sched" in func or "lr_schedule" in func:
            kind = "scheduler"
        elif named == "scheduler" and (optimizer := self.optimizer_argument(call, scope)):
            kind = "scheduler"
        elif named == "" and _scheduler_class_name(call) \
                and (optimizer := self.optimizer_argument(call, scope)):
            # `lr_schdr = WarmupPolyLrScheduler(optim, max_iter=...)`: a class lrdoctor cannot
            # see (its module is missing from the checkout, or comes from a package) whose own
            # name says it schedules the LR, given the optimizer, whatever the result is called
            kind = "scheduler"
        elif named in ("scheduler", "") and _chosen_at_run_time(call, scope) \
                and _HORIZON_KEYWORDS & {kw.arg for kw in call.keywords} \
                and (optimizer := self.optimizer_argument(call, scope)):
            # `REGISTRY[cfg.name](optimizer, num_training_steps=n)`: a class picked by a
            # setting, given the optimizer and a scheduler's horizon by its keyword
            kind = "scheduler"
            named = ""
        elif "optim" in func and "lr_" not in func:
            kind = "optimizer"
        elif named == "optimizer" and _given_parameters(call):
            # `optimizer = config.init_obj("optimizer", torch.optim, trainable_params)`
            kind = "optimizer"
        elif named in ("optimizer", "") and self.builds_optimizer(call, scope):
            kind = "optimizer"
        elif "loader" in func:
            kind = "loader"
        else:
            return None
        if named not in (kind, ""):
            return None
        obj = Obj(kind, name=label, path=self.path, line=call.lineno, col=call.col_offset + 1,
                  via=call, scope=scope)
        if kind == "scheduler":
            obj.optimizer = optimizer or self.optimizer_argument(call, scope)
            only = _torch_class_taking(call) if picked else None
            if only is not None:
                # a class of torch's scheduler module given a keyword that only one of them
                # takes (`T_max=`: CosineAnnealingLR); any other would raise TypeError
                obj.cls, obj.origin, obj.call, obj.via = only, "torch", call, None
            elif picked or any(self.qualname(arg, scope) == "torch.optim.lr_scheduler"
                               for arg in call.args if isinstance(arg, (ast.Name,
                                                                        ast.Attribute))):
                # `getattr(lr_scheduler, cfg.name)(opt)`, or a factory handed torch's scheduler
                # module to pick the class from (`config.init_obj("lr_scheduler",
                # torch.optim.lr_scheduler, opt)`): one of torch's classes
                obj.torch_module = True
        self.objects.append(obj)
        self.created += 1
        return obj

    def annotated_obj(self, stmt: ast.AnnAssign, scope: Scope) -> Obj | None:
        """An optimizer or scheduler of unknown class built by a call lrdoctor cannot follow,
        known by the annotation of the name it is bound to (a guess: never for the rules that
        need a scheduler's class or horizon)."""
        call = stmt.value
        kind = _annotated_kind(stmt.annotation, scope.module)
        if kind not in ("optimizer", "scheduler") or not isinstance(call, ast.Call):
            return None
        obj = Obj(kind, name=dotted(stmt.target) or "", path=self.path, line=call.lineno,
                  col=call.col_offset + 1, via=call, scope=scope)
        if kind == "scheduler":
            obj.optimizer = self.optimizer_argument(call, scope)
        self.objects.append(obj)
        self.created += 1
        return obj

    def builds_optimizer(self, call: ast.Call, scope: Scope) -> bool:
        """``cls(model.parameters(), lr=...)`` / ``cls(model.parameters(), **params)`` where
        ``cls`` is a variable of this program holding a class lrdoctor cannot see (chosen from a
        setting, returned by the project's ``get_optimizer(cfg)``): what building an optimizer
        looks like, whatever the result is called. A library function given the parameters
        (``clip_grad_norm_``, ``list``) is not such a call."""
        if not (call.args and _parameters_argument(call.args[0])):
            return False
        if not any(kw.arg is None or kw.arg == "lr" for kw in call.keywords):
            return False
        if not isinstance(call.func, ast.Name):
            return isinstance(call.func, (ast.Call, ast.Subscript))  # `REGISTRY[name](...)`
        name = call.func.id
        local = scope.lookup(name) if name in scope.vars or (
            scope.parent is not None and name in scope.parent.vars) else None
        # (`get_optimizer(cfg)`, a builder by its name, may hand back the class itself)
        return name in scope.vars and (local is None or isinstance(local, ExprVal) or (
            isinstance(local, Obj) and local.kind == "optimizer" and local.guessed))

    def picked_from_module(self, call: ast.Call, scope: Scope) -> str:
        """"optimizer" / "scheduler" for a call of ``getattr(torch.optim, name)`` /
        ``getattr(torch.optim.lr_scheduler, name)`` (the module through any import), else ""."""
        picker: ast.expr | None = call.func
        if isinstance(picker, ast.Name):
            # `cls = getattr(lr_scheduler, args.sched)` then `cls(optimizer, ...)`
            found = scope.source_of(picker.id)
            if found is None and picker.id in scope.vars:
                # a parameter the caller filled with `getattr(torch.optim, name)`
                held = self.eval_pure(picker, scope)
                found = (held.node, held.scope) if isinstance(held, ExprVal) else None
            picker, scope = found if found is not None else (None, scope)
        elif isinstance(picker, ast.Attribute) and isinstance(picker.value, ast.Name) \
                and picker.value.id == "self":
            # `self.cls = getattr(lr_scheduler, name)` then `self.cls(optimizer, ...)`
            held = self.eval_pure(picker, scope)
            picker, scope = (held.node, held.scope) if isinstance(held, ExprVal) else (None, scope)
        elif isinstance(picker, ast.Subscript) and const_key(picker.slice) is not None:
            # `state["optim_method"](params, **cfg)` of a mapping whose entry was filled with
            # `getattr(torch.optim, name)` (handed in as a keyword argument, stored under a
            # constant key): the class the entry holds
            held = self.eval_pure(picker, scope)
            picker, scope = (held.node, held.scope) if isinstance(held, ExprVal) else (None, scope)
        if isinstance(picker, ast.Name) and picker is not call.func:
            # (the entry held the name the class was first bound to)
            found = scope.source_of(picker.id)
            picker, scope = found if found is not None else (None, scope)
        if isinstance(picker, ast.Call) and picker.args \
                and self.qualname(picker.func, scope) == "functools.partial":
            # (a partial of such a class: the class it was made of)
            picker = picker.args[0]
            if isinstance(picker, ast.Name):
                found = scope.source_of(picker.id)
                picker, scope = found if found is not None else (None, scope)
        if not (isinstance(picker, ast.Call) and isinstance(picker.func, ast.Name)
                and picker.func.id == "getattr" and len(picker.args) >= 2):
            return ""
        module = self.qualname(picker.args[0], scope)
        if module == "torch.optim":
            return "optimizer"
        if module == "torch.optim.lr_scheduler":
            return "scheduler"
        return ""

    def optimizer_argument(self, call: ast.Call, scope: Scope) -> Obj | None:
        """The optimizer a call is given (a name or attribute bound to one), if any."""
        for arg in [*call.args, *(kw.value for kw in call.keywords)]:
            if isinstance(arg, ast.Starred):
                arg = arg.value
            if isinstance(arg, ast.Dict) or isinstance(arg, ast.Call) \
                    and isinstance(arg.func, ast.Name) and arg.func.id == "dict":
                # `build_from_cfg(cfg, REGISTRY, default_args=dict(optimizer=optimizer))`:
                # the optimizer handed over in a mapping of keyword arguments
                entries = arg.values if isinstance(arg, ast.Dict) else [
                    kw.value for kw in arg.keywords if kw.arg == "optimizer"]
                keys = [const_key(k) if k is not None else None for k in arg.keys] \
                    if isinstance(arg, ast.Dict) else ["optimizer"] * len(entries)
                for key, entry in zip(keys, entries):
                    if key == "optimizer" and isinstance(entry, (ast.Name, ast.Attribute)):
                        value = self.eval_pure(entry, scope)
                        if isinstance(value, Obj) and value.kind == "optimizer":
                            return value
            if isinstance(arg, (ast.Name, ast.Attribute)):
                value = self.eval_pure(arg, scope)
                if isinstance(value, Obj) and value.kind == "optimizer":
                    return value
                if isinstance(arg, ast.Name):
                    found = self.optimizer_put_into(arg.id, call, scope)
                    if found is not None:
                        return found
            if isinstance(arg, ast.Subscript) \
                    and isinstance(arg.value, (ast.Name, ast.Attribute)):
                # `optimizer=self.optimizers[name]`: the optimizer a mapping holds under the
                # key, stored there earlier (in the same loop over the names)
                value = self.eval_pure(arg, scope)
                if isinstance(value, UnionVal):
                    # a key not known here: one of what the mapping holds, when that is one
                    # optimizer (`optimizers[name] = Adam(...)` earlier in the loop)
                    held = {id(o): o for o in options(value) if isinstance(o, Obj)}
                    value = next(iter(held.values())) if len(held) == 1 else None
                if isinstance(value, Obj) and value.kind == "optimizer":
                    return value
        return None

    def optimizer_put_into(self, name: str, call: ast.Call, scope: Scope) -> Obj | None:
        """A registry's ``build(cfg)`` handed the optimizer inside the settings it builds
        from: ``cfg['optimizer'] = optimizer`` (or ``cfg.optimizer = optimizer``) earlier in
        the function that makes the call, into the mapping it passes (the mmcv-style
        ``build_from_cfg`` of a scheduler registry, which calls the class with the mapping's
        entries as keywords)."""
        owner = self.stack[-1] if self.stack else None
        if not isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        for node in ast.walk(owner):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1 \
                    or getattr(node, "lineno", 0) > call.lineno:
                continue
            target = node.targets[0]
            if isinstance(target, ast.Subscript):
                base, key = target.value, const_key(target.slice)
            elif isinstance(target, ast.Attribute):
                base, key = target.value, target.attr
            else:
                continue
            if not (isinstance(base, ast.Name) and base.id == name and key == "optimizer"
                    and isinstance(node.value, (ast.Name, ast.Attribute))):
                continue
            value = self.eval_pure(node.value, scope)
            if isinstance(value, Obj) and value.kind == "optimizer":
                return value
        return None

    def lr_write_target(self, target: ast.expr, scope: Scope, node: ast.AST,
                        value: ast.expr | None = None) -> bool:
        """``group['lr'] = ...`` / ``opt.param_groups[0]['lr'] *= ...``: an LR write
        (``value``: what a plain assignment writes)."""
        if not isinstance(target, ast.Subscript) or const_key(target.slice) != "lr":
            return False
        base = self.eval(target.value, scope)
        if isinstance(base, UnionVal):
            base = next((o for o in base.options if isinstance(o, ParamGroupVal)), None)
        if isinstance(base, ParamGroupVal):
            self.emit("lr_write", base.optimizer, node, value=value)
            return True
        return False

    # -- expressions ---------------------------------------------------------------------

    def eval(self, node: ast.expr | None, scope: Scope, depth: int = 0) -> Any:
        if node is None or depth > MAX_EVAL_DEPTH:
            return None
        if isinstance(node, ast.Name):
            value = scope.lookup(node.id)
            if self.recordings and value is not None and (
                self.root == 0 or not isinstance(value, _PLAIN)
            ) and self.module_scope.vars.get(node.id) is value:
                # a global of the checked file: an object, an instance or container that code
                # outside the recorded call can change, or any global while the module body
                # still binds them
                for rec in self.recordings:
                    rec.spoiled = True
            if value is None and scope.module.star_imports and not _bound(scope, node.id):
                value = self.star_imported(node.id, scope.module)
                if value is None:
                    value = self.imported_scaler(node.id, scope.module, star=True)
            elif value is None and scope.module is not self.module \
                    and not _bound(scope, node.id):
                value = self.module_scaler(scope.module, node.id)
            if isinstance(value, ImportRef) and "." in value.qualname:
                # `from trainers import Trainer`: the project's class, through re-exports
                return self.project_target(value.qualname, scope.module) \
                    or self.imported_scaler(value.qualname, scope.module) or value
            if isinstance(value, ClassVal) and value.info.parents is None:
                self.link(value.info)
            return value
        if isinstance(node, ast.Call):
            made = self.eval_call(node, scope, depth + 1)
            if made is None and self.picked_from_module(node, scope):
                # `{"main": getattr(lr_scheduler, cfg.name)(optimizer)}`: a class taken from
                # torch's scheduler (or optimizer) module by a setting builds one wherever the
                # result goes (an entry of a mapping, a list, an argument), not only when it is
                # bound to a name
                made = self.guess_from_call(node, "", scope)
            return made
        if isinstance(node, ast.Attribute):
            return self.eval_attribute(node, scope, depth + 1)
        if isinstance(node, ast.Constant):
            return Const(node.value, sure=True)
        if isinstance(node, (ast.Tuple, ast.List)):
            return TupleVal([self.eval(e, scope, depth + 1) for e in node.elts])
        if isinstance(node, ast.Dict):
            d = DictVal({})
            for k, v in zip(node.keys, node.values):
                value = self.eval(v, scope, depth + 1)
                if k is None:
                    if isinstance(value, DictVal):
                        d.items.update(value.items)
                    else:
                        d.unknown_entries()
                    continue
                key = const_key(k)
                if key is None:
                    self.eval(k, scope, depth + 1)
                    d.unknown_entries(keyed_values=not isinstance(value, Obj))
                else:
                    d.items[key] = value if value is not None else ExprVal(v, scope)
            return d
        if isinstance(node, ast.Subscript):
            named = self.global_by_name(node, scope, depth)
            if named is not None:
                return named
            base = self.eval(node.value, scope, depth + 1)
            index = self.eval(node.slice, scope, depth + 1)
            if isinstance(base, InstanceVal) and isinstance(node.ctx, ast.Load) \
                    and isinstance(index, Const) and isinstance(index.value, str):
                found_item = base.info.find("__getitem__")
                if found_item is not None and len(found_item[0].body) == 1 \
                        and isinstance(found_item[0].body[0], ast.Return):
                    # `self["lr_scheduler"]` (a name) of the project's class whose
                    # `__getitem__` only returns an expression (`return self.config[name]`):
                    # what that returns
                    return self.call_function(
                        FuncVal(found_item[0], found_item[1].module, base, found_item[1]),
                        [index], {}, site=True)
            table = None
            if isinstance(base, ImportRef) and "." in base.qualname:
                # `SCHEDULERS["cosine"]` of a registry in another module
                table = self.project_table(base.qualname, scope.module)
                base = table or base
            if isinstance(base, DictVal) and not base.open and const_key(node.slice) is None:
                key = _certain_key(node.slice, index, scope)
                if key is not None and key in base.items:
                    # `SCHEDULERS[cfg["scheduler"]]` with a setting that holds one literal, or
                    # `SCHEDULERS[args.sched]` with its argparse (or YAML) default
                    return base.items[key]
            if table is not None and const_key(node.slice) is None:
                # a key not known here picks one entry of the registry, not all of them: the
                # only one, or one not known (never the first, as a guess)
                return next(iter(table.items.values())) if len(table.items) == 1 else None
            if isinstance(base, InstanceVal) and isinstance(const_key(node.slice), int):
                # `parts[1]` of a named tuple: the field at that place
                fields = tuple_fields(base.info)
                at = const_key(node.slice)
                if fields is not None and 0 <= at < len(fields):
                    return base.attrs.get(fields[at])
            choice = _picked_by_test(node.slice, scope)
            if choice is not None:
                # `schedulers[0 if epoch < warm else 1]` (or `key = "warmup" if ... else
                # "decay"; schedulers[key]`): one entry per evaluation, the one the test picks
                # (as `(warm if epoch < warm_epochs else main)` would be), not every entry
                picks = [subscript(base, side) for side in (choice.body, choice.orelse)]
                if all(p is not None and not isinstance(p, UnionVal) for p in picks):
                    return picks[0] if picks[0] is picks[1] else UnionVal(picks, exclusive=True)
            found = subscript(base, node.slice)
            if found is None and isinstance(base, DictVal) and base.open:
                key = const_key(node.slice)
                if isinstance(key, str):
                    found = self.guess(key)  # `kwargs["scheduler"]`
            return found
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            # `base | {"optimizer": ...}`: a new dict with the items of both, the right's last
            # (partly unknown where one side is not a dict known here)
            left = self.eval(node.left, scope, depth + 1)
            right = self.eval(node.right, scope, depth + 1)
            if not isinstance(left, DictVal) and not isinstance(right, DictVal):
                return None
            merged = DictVal({})
            for side in (left, right):
                if isinstance(side, DictVal):
                    merged.items.update(side.items)
                    if side.splat:
                        merged.unknown_entries()
                    merged.open = merged.open or side.open
                else:
                    merged.unknown_entries()
            return merged
        if isinstance(node, ast.IfExp):
            self.eval(node.test, scope, depth + 1)
            body = self.eval(node.body, scope, depth + 1)
            other = self.eval(node.orelse, scope, depth + 1)
            by_class = self.class_test_outcome(node.test, scope)
            if by_class is not None:
                # `sched if not isinstance(sched, ReduceLROnPlateau) else None` on a scheduler
                # whose class is known: the test is decided before the run, and the value is
                # the branch it takes, every time (None for the plateau scheduler)
                return body if by_class else other
            if isinstance(body, (ImportRef, ClassVal)) and isinstance(other, (ImportRef, ClassVal)):
                return UnionVal([body, other])  # `StepLR if args.step else CosineAnnealingLR`
            if isinstance(body, Obj) and isinstance(other, Obj) and body is not other \
                    and body.kind == other.kind == "scheduler":
                # `(warm if step < warm_steps else cosine).step()`: one of the two schedulers
                # each time, the one the test picks; each is stepped on its own side of the
                # test (as by `if step < warm_steps: warm.step() else: cosine.step()`)
                return UnionVal([body, other], exclusive=True)
            chosen = body if body is not None and not isinstance(body, Const) else other
            if isinstance(chosen, Const) and not (
                    isinstance(body, Const) and body.value == chosen.value):
                # `a * n if per_batch else a`, `"batch" if x else "epoch"`: which constant it
                # is depends on a test not decided here; the expression itself is kept
                return None
            if isinstance(chosen, Obj) and not (isinstance(body, Obj) and isinstance(other, Obj)):
                chosen.conditional = True
                if chosen.picked_by is None:
                    chosen.picked_by = node.test if chosen is body else ast.UnaryOp(
                        op=ast.Not(), operand=node.test)
                    picked = flag_of(node.test)
                    if picked is not None:
                        flag_text, flag_truth, flag_reads = picked
                        version = tuple(self.flag_version(name, scope) for name in flag_reads)
                        chosen.picked_fact = (flag_text, version,
                                              flag_truth if chosen is body else not flag_truth)
            return chosen
        if isinstance(node, ast.NamedExpr):
            value = self.eval(node.value, scope, depth + 1)
            self.assign(node.target, value, node.value, scope)
            return value
        if isinstance(node, ast.Await):
            return self.eval(node.value, scope, depth + 1)
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            self.yielded(node, self.eval(node.value, scope, depth + 1))
            return None
        if isinstance(node, ast.Lambda):
            # `make_sched = lambda opt: StepLR(opt, 30)` then `make_sched(optimizer)`: a
            # function whose body returns the expression (seeing the names of where it is
            # written, as a nested def does)
            return FuncVal(lambda_function(node), scope.module,
                           closure=scope if scope.parent is not None else None)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1:
            # `(Batch(b) for b in loader)` handed to a training function: one item per batch,
            # so a loop over it is a loop over the loader (its first iterable is evaluated in
            # the enclosing scope, as Python does)
            inner = self.eval(node.generators[0].iter, scope, depth + 1)
            if is_loader(inner):
                return inner
            kept = _kept_by_filter(node, inner)
            if kept is not None:
                return kept
            members = loop_members(inner)
            if isinstance(members, UnionVal) and not node.generators[0].ifs \
                    and len(members.options) <= _MAX_COMPREHENDED:
                # `[get_scheduler(o, cfg) for o in self.optimizers]`: one item per tracked
                # object, the element evaluated with the target bound to it (in a scope of
                # its own, as Python does)
                items = []
                for member in members.options:
                    inner_scope = Scope({}, scope.module, scope, scope.self_val, scope.owner)
                    self.assign(node.generators[0].target, member, None, inner_scope)
                    items.append(self.eval(node.elt, inner_scope, depth + 1))
                return TupleVal(items)
            return None
        if isinstance(node, ast.DictComp) and len(node.generators) == 1 and not node.generators[0].ifs:
            # `{name: StepLR(opt, ...) for name, opt in optimizers.items()}`: the value is
            # evaluated once, as a loop's body is, with the target bound to what the iterable
            # holds (in a scope of its own); the dict holds such objects under keys not known
            # here (splat: a saved copy of it is partly unknown)
            gen = node.generators[0]
            mapped = self.dict_comprehended(node, scope, depth)
            if mapped is not None:
                return mapped
            members = loop_members(self.eval(gen.iter, scope, depth + 1))
            inner_scope = Scope({}, scope.module, scope, scope.self_val, scope.owner)
            self.assign(gen.target, members, None, inner_scope)
            value = self.eval(node.value, inner_scope, depth + 1)
            if isinstance(value, Obj):
                return DictVal({("<key>", node.lineno, node.col_offset): value}, splat=True)
            return None
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return None
        for child in _expr_children(node):
            self.eval(child, scope, depth + 1)
        if isinstance(node, ast.Compare) and self.class_name_test(node, scope) is not None:
            outcome = self.isinstance_outcome(node, scope)
            if outcome is not None:
                # `per_epoch = type(sched).__name__ in EPOCH_SCHEDULERS` on a known class
                return Const(outcome, sure=True, by_class=True)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and type(node.ops[0]) in _COMPARE:
            outcome = _constant_outcome(node, scope)
            if outcome is not None:
                # `self.per_iter = self.unit == "iteration"` on a name that holds one literal
                # wherever it is read: the comparison has that one outcome too (kept as a
                # default the caller left where the literal was one)
                read = [_tested_value(n, scope) for n in (node.left, *node.comparators)]
                return Const(outcome, sure=True, defaulted=any(
                    isinstance(v, Const) and v.defaulted for v in read))
        return None

    def dict_comprehended(self, node: ast.DictComp, scope: Scope, depth: int) -> DictVal | None:
        """``{k: v.state_dict() for k, v in parts.items()}`` over a dict whose keys are all
        known (``parts = {"model": model, "optimizer": opt}``, a helper's ``**parts``), or
        ``{name: ... for name in ("model", "optimizer")}`` over known items: the dict it
        builds, key by key, each entry evaluated with the target bound to that item (in a
        scope of its own, as Python does). None when the iterable or a key is not known."""
        gen = node.generators[0]
        over = gen.iter
        pairs: list[Any] = []
        if isinstance(over, ast.Call) and isinstance(over.func, ast.Attribute) \
                and over.func.attr == "items" and not over.args and not over.keywords:
            held = self.eval(over.func.value, scope, depth + 1)
            if not isinstance(held, DictVal) or held.splat or held.open \
                    or not 0 < len(held.items) <= _MAX_COMPREHENDED \
                    or not all(isinstance(k, (str, int)) for k in held.items):
                return None
            pairs = [TupleVal([Const(k, sure=True), v]) for k, v in held.items.items()]
        elif isinstance(over, (ast.Tuple, ast.List)) and 0 < len(over.elts) <= _MAX_COMPREHENDED \
                and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                        for e in over.elts):
            pairs = [Const(e.value, sure=True) for e in over.elts  # type: ignore[attr-defined]
                     ]
        elif isinstance(over, (ast.Name, ast.Attribute)):
            # the names held in a constant first (`KEYS = ("model", "optimizer")` on the class
            # or the module, read as `self.KEYS`): the same, when nothing in the module adds
            # to it
            held = self.eval(over, scope, depth + 1)
            if held is None and isinstance(over, ast.Attribute) \
                    and isinstance(over.value, ast.Name) and over.value.id == "self" \
                    and isinstance(scope.self_val, InstanceVal):
                # a constant of the class body (`class Fitter: KEYS = ("model", ...)`)
                held = _class_constant_names(scope.self_val.info, over.attr)
            if not isinstance(held, TupleVal) or not 0 < len(held.items) <= _MAX_COMPREHENDED \
                    or not all(isinstance(i, Const) and isinstance(i.value, str)
                               for i in held.items) \
                    or _grown_in(scope.module.tree, last_name(over)):
                return None
            pairs = [Const(i.value, sure=True) for i in held.items]
        else:
            return None
        built: dict[Any, Any] = {}
        for item in pairs:
            inner_scope = Scope({}, scope.module, scope, scope.self_val, scope.owner)
            self.assign(gen.target, item, None, inner_scope)
            key = self.eval(node.key, inner_scope, depth + 1)
            if not (isinstance(key, Const) and isinstance(key.value, (str, int))) \
                    or key.value in built:
                return None
            built[key.value] = self.eval(node.value, inner_scope, depth + 1)
        return DictVal(built)

    def eval_attribute(self, node: ast.Attribute, scope: Scope, depth: int) -> Any:
        return self.attribute_of(self.eval(node.value, scope, depth), node, scope, depth)

    def attribute_of(self, base: Any, node: ast.Attribute, scope: Scope, depth: int) -> Any:
        attr = node.attr
        if isinstance(base, UnionVal) and base.exclusive and base.options \
                and all(isinstance(o, InstanceVal) for o in base.options):
            # an attribute of one of the project's classes picked by a setting (`model.
            # scheduler` after `model = A()` / `model = B()` on two branches): what the last
            # option that has it holds, as when the last branch's instance stood for the
            # choice (its methods are called on each option: method_event)
            for option in reversed(base.options):
                found = self.attribute_of(option, node, scope, depth)
                if found is not None:
                    return found
            return None
        if isinstance(base, UnionVal) and not base.exclusive and base.options \
                and all(isinstance(o, InstanceVal) for o in base.options):
            # `for task in tasks: task.scheduler.step()` over the project's own objects a list
            # holds (see _instance_members): the loop body runs for each of them, so the
            # attribute is each member's (all of them, one union when they differ)
            held: list[Any] = []
            for option in base.options:
                value = self.attribute_of(option, node, scope, depth)
                if value is not None and not any(value is f for f in held):
                    held.append(value)
            if len(held) == 1:
                return held[0]
            if held and all(isinstance(f, (Obj, InstanceVal)) for f in held):
                return UnionVal(held)
            return None
        if isinstance(base, InstanceVal):
            for rec in self.recordings:
                prefix = rec.path_of(base)
                if prefix is not None:
                    rec.read(base, prefix, attr)
            if attr in base.attrs:
                return base.attrs[attr]
            stored = self.class_attr(base.info, attr)
            if stored is not None:
                return stored
            found = base.info.find(attr)
            if found is not None and not (base.runner is not None and _runner_copy(found[1])):
                # virtual dispatch: the subclass's override, else the base class's method
                # (not the project's copy of Accelerator's: the library's, see construct)
                getter = FuncVal(found[0], found[1].module, base, found[1])
                kind = _property_kind(found[0])
                if kind is None:
                    return getter
                # `self.scheduler` read through `@property def scheduler(self): return
                # self._scheduler`: the getter's value; a cached_property's is then kept on
                # the instance (its first read stores it there)
                value = self.call_function(getter, [], {}, site=True)
                if kind == "cached" and value is not None:
                    base.attrs[attr] = value
                return value
            source = base.info.self_assigns.get(attr)
            value = None
            if source is not None and depth < MAX_EVAL_DEPTH // 2:
                fallback = Scope({"self": base}, base.info.module, self.module_scope, base)
                value = self.eval_pure(source, fallback)
            if value is None and attr == "scaler":
                value = self.hf_trainer_scaler(base, node)
            if value is None and not _declared_plain_field(base.info, attr):
                value = self.guess(f"self.{attr}")
            if value is not None:
                if isinstance(value, Obj) and not value.name:
                    value.name = f"self.{attr}"
                base.attrs[attr] = value
            return value
        if isinstance(base, DictVal) and base.attribute_keys and attr in base.items:
            return base.items[attr]  # `self.hparams.scheduler` of `save_hyperparameters()`
        if isinstance(base, DictVal) and base.config and isinstance(base.items.get(attr), (
                DictVal, Const, TupleVal)) and attr not in _DICT_METHODS \
                and attr not in changed_keys(scope.module.tree):
            # OmegaConf's `cfg.scheduler` of a YAML config (unless the file stores its own
            # value under that name)
            return base.items[attr]
        if isinstance(base, ExprVal) and base.attrs and attr in base.attrs:
            return base.attrs[attr]  # `args.amp.step(optimizer)` after `args.amp = GradScaler()`
        if isinstance(base, Obj):
            if base.kind == "optimizer" and attr == "param_groups":
                return ParamGroupsVal(base)
            if base.kind == "optimizer" and attr in ("optimizer", "base_optimizer"):
                return base
            if base.kind == "scheduler" and attr == "optimizer":
                return base.optimizer
            return None
        if isinstance(base, ImportRef):
            target = self.project_target(base.qualname, scope.module)
            if not isinstance(target, ClassVal):
                # `common.scaler` after `import common`: the GradScaler that module builds
                qual = f"{base.qualname}.{attr}"
                return self.imported_scaler(qual, scope.module) or ImportRef(qual)
            base = target  # `engine.Trainer.__init__(self, ...)`
        if isinstance(base, ClassVal):
            stored = self.class_attr(base.info, attr)
            if stored is not None:
                return stored
            found = base.info.find(attr)
            if found is not None:
                return FuncVal(found[0], found[1].module, None, found[1])
            return class_constant_of(base.info, attr, scope.module)
        if isinstance(base, SuperVal):
            for parent in base.owner.base_classes():
                hit = parent.find(attr)
                if hit is not None and not (base.instance.runner is not None
                                            and _runner_copy(hit[1])):
                    return FuncVal(hit[0], hit[1].module, base.instance, hit[1])
            return None
        if base is None:
            method = _class_method_of(node, scope)
            if method is not None:
                return method
            text = dotted(node)
            if text is not None and not text.startswith("self.") and "." in text:
                kind = names.guess_kind_from_name(attr)
                if kind and _numeric_setting(attr, scope.module):
                    # `cfg.sched_T_max` where the file states `sched_T_max: int = 10`: a
                    # number, whatever its name says
                    return None
                if kind and kind != "loader":
                    return self._guessed_obj(kind, text)
                if kind == "loader":
                    return self._guessed_obj(kind, text)
        return None

    def class_attr(self, info: ClassInfo, attr: str) -> Any:
        """What the program stored as ``attr`` on ``info`` or the nearest project base class
        that has one (``Runner.scheduler = ...``), else None."""
        for cls in info.lineage():
            stored = self.class_attrs.setdefault(id(cls), {})
            if attr not in stored:
                # `class Runner: schedulers = {}`: one container the class and all its
                # instances share, built when the class body ran (None: no such container)
                registry = _class_registry(cls, attr)
                stored[attr] = None if registry is None \
                    else self.eval_pure(registry, Scope({}, cls.module))
            if stored[attr] is not None:
                return stored[attr]
        return None

    def eval_pure(self, node: ast.expr, scope: Scope) -> Any:
        """Evaluate a ``self.x = ...`` source seen out of order: no events, just the value."""
        saved = (self.events, self.budget)
        self.events = []
        try:
            return self.eval(node, scope, MAX_EVAL_DEPTH // 2)
        finally:
            for rec in self.recordings:  # the statements it spent are given back
                rec.lowest = min(rec.lowest, self.budget)
            self.events, self.budget = saved[0], saved[1]

    def qualname(self, func: ast.expr, scope: Scope) -> str:
        text = dotted(func)
        if text is None:
            return ""
        head, _, rest = text.partition(".")
        if head in scope.vars or (scope.parent is not None and head in scope.parent.vars):
            value = scope.lookup(head)
            if isinstance(value, ImportRef):
                return f"{value.qualname}.{rest}" if rest else value.qualname
            return text
        return scope.module.qualify(text)

    def eval_call(self, node: ast.Call, scope: Scope, depth: int) -> Any:
        self.call_scopes[node] = scope
        dispatched = self.phase_method_calls(node, scope)
        if dispatched is not None:
            # `getattr(self, f"_{phase}_epoch")()` in `for phase in ("train", "val"):`: each
            # method in the order of the phases (one pass of that loop runs them all)
            for call in dispatched:
                self.eval_call(call, scope, depth)
            return None
        node = self.named_method_call(node, scope)
        node = self.global_named_call(node, scope)
        node = self.picked_project_class(node, scope)
        func = node.func
        if isinstance(func, ast.Name) and func.id == "any" and len(node.args) == 1 \
                and not node.keywords and scope.lookup("any") is None:
            outcome = self.isinstance_outcome(node, scope)
            if outcome is not None:
                # `is_epoch = any(s in str(sched.__class__) for s in EPOCH_SCHEDULERS)`
                return Const(outcome, sure=True, by_class=True)
        if isinstance(func, ast.Name) and func.id == "isinstance" and len(node.args) == 2 \
                and not node.keywords and scope.lookup("isinstance") is None:
            outcome = self.isinstance_outcome(node, scope)
            if outcome is not None:
                # `self.per_batch = isinstance(sched, (CyclicLR, OneCycleLR))` on a known class
                return Const(outcome, sure=True, by_class=True)
        if isinstance(func, ast.Name) and func.id == "super" and scope.self_val is not None \
                and scope.owner is not None:
            return SuperVal(scope.self_val, scope.owner)
        if isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) == 2 \
                and not node.keywords and scope.lookup("getattr") is None \
                and (picked_in := self.qualname(node.args[0], scope)) in (
                    "torch.optim", "torch.optim.lr_scheduler"):
            if picked_in == "torch.optim.lr_scheduler":
                named = self.config_named_scheduler(node, scope, depth)
                if named is not None:
                    return named
            # `getattr(torch.optim, opt["name"])`: a class of torch's optimizer (scheduler)
            # module picked by a setting, kept by its source wherever it is handed (a keyword
            # argument, a mapping's entry) for picked_from_module to read at the call that
            # builds the object
            return ExprVal(node, scope)
        # the receiver first: `scaler.scale(loss).backward()` is one event on the scaler
        receiver: Any = None
        method = ""
        if isinstance(func, ast.Attribute):
            receiver = self.eval(func.value, scope, depth)
            method = func.attr
            if isinstance(receiver, ImportRef) and method == "get" and "." in receiver.qualname:
                # `SCHEDULERS.get(name)` of a registry in another module of the project
                receiver = self.project_table(receiver.qualname, scope.module) or receiver
            elif method == "get" and isinstance(func.value, ast.Name) \
                    and isinstance(receiver, (InstanceVal, type(None))) \
                    and _global_name(func.value.id, scope) \
                    and _registry_object(scope.module.tree, func.value.id):
                # ... or of this module's own (`SCHEDULERS = Registry("scheduler")`)
                receiver = self.own_table(scope.module, func.value.id) or receiver
            callee: Any = None
            if isinstance(receiver, (InstanceVal, SuperVal, ClassVal, ImportRef)):
                # the receiver is evaluated once: `Trainer(...).fit()` builds one trainer
                callee = self.attribute_of(receiver, func, scope, depth)
            elif receiver is None:
                callee = _class_method_of(func, scope)  # `cls.resume(...)` in a classmethod
            elif isinstance(receiver, DictVal) and receiver.attribute_keys:
                # `self.hparams.scheduler(optimizer=optimizer)`: the partial it holds
                callee = receiver.items.get(method)
        else:
            callee = self.eval(func, scope, depth)
        args = []
        # every argument the call passes is known (no `*xs` / `**kw` whose items are unknown)
        complete = True
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self.eval(a.value, scope, depth)
                if isinstance(value, TupleVal) and a is node.args[-1]:
                    args.extend(value.items)  # `f(*objects)`: the items, in order
                else:
                    args.append(value)
                    complete = False
            else:
                args.append(self.eval(a, scope, depth))
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is not None:
                kwargs[kw.arg] = self.eval(kw.value, scope, depth)
            else:
                value = self.eval(kw.value, scope, depth)
                if isinstance(value, DictVal):  # `f(**objects)`
                    kwargs.update((k, v) for k, v in value.items.items() if isinstance(k, str))
                if not isinstance(value, DictVal) or value.open or value.splat:
                    complete = False  # `f(**parts)` of a dict partly unknown
                if not isinstance(value, DictVal):
                    self.bind_namespace_splat(kw.value, callee, len(node.args), kwargs, scope,
                                              depth)
        if isinstance(callee, (FuncVal, ClassVal)):
            self.option_strings(node, args, kwargs, scope)
        if isinstance(func, ast.Name):
            self.called(func.id)
        elif method:
            self.called(method)
        if method in _MODULE_RETURNS_SELF and callee is None and isinstance(receiver, InstanceVal) \
                and receiver.info.find(method) is None and self.torch_module(receiver.info):
            # `model = model.to(device)` of the project's nn.Module (or LightningModule): torch's
            # Module.to / cuda / train / ... hand back the module itself
            return receiver
        if isinstance(func, ast.Name) and func.id == "getattr" and callee is None \
                and len(node.args) in (2, 3) and not node.keywords \
                and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) \
                and isinstance(args[0], (InstanceVal, ExprVal)) and args[0].attrs \
                and node.args[1].value in args[0].attrs:
            # the builtin `getattr(self.trainer, "scaler", None)` on an object that holds the
            # attribute (an instance, or a namespace the program stored it on): the same
            # object as `self.trainer.scaler` (a default only stands in for an attribute the
            # object lacks)
            return self.attribute_of(args[0], ast.Attribute(
                value=node.args[0], attr=node.args[1].value, ctx=ast.Load()), scope, depth)
        if isinstance(func, ast.Name) and func.id == "getattr" and callee is None \
                and len(node.args) == 2 and not node.keywords \
                and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and isinstance(args[0], ImportRef) \
                and scope.lookup("getattr") is None:
            # the builtin `getattr(importlib.import_module(...), "build")` of a module the
            # project holds: that module's function or class (as `module.build`)
            named = self.project_target(f"{args[0].qualname}.{node.args[1].value}",
                                        scope.module)
            if named is not None:
                return named
        if isinstance(func, ast.Name) and func.id == "dict" and callee is None \
                and len(args) <= 1:
            # the builtin `dict(optimizer=optimizer, scheduler=scheduler)`: the same dict as
            # the literal `{"optimizer": optimizer, ...}`
            return _dict_built(args, kwargs, node)
        if isinstance(func, ast.Name) and func.id in ("list", "tuple") and callee is None \
                and not kwargs and (not args or isinstance(args[0], TupleVal)):
            # the builtin `list()` (an empty list to fill) or `list(items)`: a new sequence
            return TupleVal(list(args[0].items) if args else [])
        if isinstance(callee, ImportRef) and callee.qualname in YAML_LOADERS:
            # `cfg = yaml.safe_load(open("configs/train.yaml"))`: the file's mapping, its
            # values the defaults the program runs with
            data = yaml_data(scope.module, node)
            if data is not None:
                # OmegaConf resolves `${a.b}` against the whole file; PyYAML leaves it as text
                root = data[0] if callee.qualname == "omegaconf.OmegaConf.load" else None
                return _yaml_value(data[0], scope.module, data[1], root)
        if isinstance(callee, ImportRef) and callee.qualname in HYDRA_COMPOSE:
            # `with initialize(config_path="conf"): cfg = compose(config_name="train")`:
            # the config `@hydra.main` with the same arguments would hand the program
            data = yaml_data(scope.module, node)
            if data is not None:
                return _yaml_value(data[0], scope.module, data[1], data[0])
        if isinstance(callee, ImportRef) and callee.qualname in NAMED_TUPLE_FACTORIES:
            # `State = collections.namedtuple("State", [...])`: the class it makes (index.py)
            made = next((c for c in scope.module.classes.values() if c.made_by is node), None)
            if made is not None:
                return ClassVal(made)
        copied = self.record_copy(node, callee, receiver, method, args, kwargs, scope)
        if copied is not None:
            return copied
        if callee is None and method == "save_hyperparameters" \
                and isinstance(receiver, InstanceVal) and scope.self_val is receiver \
                and _lightning_module(receiver.info, self.qualified_bases):
            kept = self.saved_hyperparameters(node, scope)
            if kept is not None:
                receiver.attrs["hparams"] = kept
            return None
        if callee is None and method == "fit" and not isinstance(receiver, (InstanceVal,
                                                                           SuperVal)):
            self.lightning_fit(node, args, kwargs)
        if isinstance(callee, ImportRef) and callee.qualname in CONFIG_BUILDERS:
            # `hydra.utils.instantiate(cfg.scheduler, optimizer=opt)` of a `_target_` mapping
            built = self.config_built(node, args, kwargs, scope)
            if built is not _NO_EVENT:
                return built
        if isinstance(callee, ImportRef) and callee.qualname in CONFIG_LOOKUPS \
                and len(args) == 1 and not kwargs and isinstance(args[0], Const) \
                and isinstance(args[0].value, str) and target_expr(args[0].value) is not None:
            # `hydra.utils.get_class("torch.optim.lr_scheduler.StepLR")`: the class named
            found_target = self.project_target(args[0].value, scope.module)
            return found_target if found_target is not None else ImportRef(args[0].value)
        node = self.spelled_out(node, scope)

        inherited = _runner_of(receiver) if callee is None and isinstance(
            receiver, (InstanceVal, SuperVal)) else None
        if inherited is not None:
            # a method a project subclass of Accelerator / Fabric inherits: the library's
            if method == "__init__" and inherited.kind == "accelerator":
                # `super().__init__(gradient_accumulation_steps=n, ...)` in the subclass
                inherited.accumulation = _accumulation_count(node)
                inherited.scheduler_unsynced = _scheduler_unsynced(node)
                inherited.half = _half_precision(node, kwargs)
            receiver = inherited
        if isinstance(receiver, SuperVal) and method == "__init__" and callee is None \
                and receiver.instance.engine is not None and receiver.instance.engine.process is None:
            # `super().__init__(self._update)` in a project subclass of Ignite's Engine: the
            # process function it runs on every batch
            process = args[0] if args else kwargs.get("process_function")
            if isinstance(process, FuncVal):
                receiver.instance.engine.process = process
        engine_of = receiver
        if isinstance(receiver, InstanceVal) and receiver.engine is not None and callee is None:
            engine_of = receiver.engine  # a method the project's subclass inherits from Ignite
        if isinstance(engine_of, EngineVal):
            if method == "add_event_handler" and len(node.args) > 1 \
                    and _torch_schedulers(args[1]):
                # `trainer.add_event_handler(Events.ITERATION_STARTED, LRScheduler(sched))`:
                # Ignite steps the wrapped torch scheduler whenever the event fires
                event = _ignite_event(node.args[0])
                if event:
                    engine_of.handlers.setdefault(event, []).append(
                        IgniteLRStep(args[1], _ignite_step_call(node), self.conds))
            elif method == "add_event_handler" and len(node.args) > 1 \
                    and isinstance(args[1], (FuncVal, IgniteCheckpoint)):
                event = _ignite_event(node.args[0])
                handler: Any = args[1]
                if isinstance(handler, IgniteCheckpoint) and len(args) > 2:
                    # `add_event_handler(Events.EPOCH_COMPLETED, checkpointer, {"model": ...})`
                    handler = IgniteCheckpoint(args[2], node)
                elif isinstance(handler, FuncVal):
                    # Ignite calls `handler(engine, *args, **kwargs)` with what follows it
                    handler = (handler, args[2:], kwargs)
                if event:
                    engine_of.handlers.setdefault(event, []).append(handler)
            elif method == "run":
                self.run_engine(engine_of, node,
                                receiver if isinstance(receiver, InstanceVal) else engine_of)
            return None
        if isinstance(receiver, InstanceVal) and not isinstance(callee, FuncVal) \
                and method in ("optimizers", "lr_schedulers") and id(receiver) in self.manual:
            # Lightning hands back one object when one was configured, else a list
            for rec in self.recordings:
                rec.spoiled = True  # objects known by the instance's identity
            _, optimizers, schedulers = self.manual[id(receiver)]
            chosen = optimizers if method == "optimizers" else schedulers
            if not chosen:
                return None
            return chosen[0] if len(chosen) == 1 else TupleVal(list(chosen))
        if method in _LR_TENSOR_WRITES and isinstance(func, ast.Attribute) \
                and self.lr_write_target(func.value, scope, node,
                                         node.args[0] if method in ("fill_", "copy_")
                                         and node.args else None):
            # `group["lr"].fill_(value)`: an LR held as a tensor (`AdamW(lr=torch.tensor(...))`,
            # the compiled-optimizer spelling) written in place, which is what a scheduler's
            # own step does to it; an LR write like `group["lr"] = value`
            return None
        if method and receiver is not None and not isinstance(
                receiver, (InstanceVal, ImportRef, SuperVal, ClassVal)
        ):
            result = self.method_event(receiver, method, node, args, kwargs, scope)
            if result is not _NO_EVENT:
                return result
        if isinstance(receiver, InstanceVal) and callee is None \
                and self.inherited_state_load(receiver, method, node):
            return None
        if method == "backward" and receiver is None and isinstance(func, ast.Attribute) \
                and isinstance(func.value, (ast.Call, ast.BinOp, ast.Subscript)):
            # `sum(losses).backward()`, `(loss_a + loss_b).backward()`, `losses[k].backward()`:
            # a tensor computed in place, whose backward pass this is
            self.emit("backward", None, node)
            return None
        if method == "load_state_dict" and receiver is None and isinstance(func, ast.Attribute) \
                and isinstance(func.value, ast.Name) and func.value.id in self.columns \
                and self.columns[func.value.id][0] is scope:
            # `sched.load_state_dict(...)` (`opt.load_state_dict(...)`) in a loop whose `sched`
            # takes each scheduler (optimizer) of a column in turn: every one is restored
            return self.method_event(self.columns[func.value.id][1], method, node,
                                     args, kwargs, scope)
        if method and receiver is None and method in _RECEIVER_METHODS \
                and isinstance(func, ast.Attribute):
            guessed = self.guess_receiver(func, scope)
            if guessed is not None:
                result = self.method_event(guessed, method, node, args, kwargs, scope)
                if result is not _NO_EVENT:
                    return result

        if isinstance(callee, UnionVal):
            if not callee.exclusive and any(isinstance(o, InstanceVal) for o in options(callee)):
                # `callback(self)` on the loop variable of a pass over the runner's callbacks:
                # a generic entry each of them filters by the event it is told of, not one
                # lrdoctor can place at this point of the loop
                return None
            # a class chosen through a variable: `sched_cls(optimizer)`, `SCHEDULERS[name](...)`
            built = self.call_one_of(options(callee), node, args, kwargs, scope)
            if built is not _NO_EVENT:
                return built
            if callee.exclusive and _project_choice(callee):
                # one of the project's classes, chosen by a setting (`M(opt)` after `from .sr
                # import SRModel as M` on one branch, `from .gan import GANModel as M` on
                # another): each builds its own instance, on its own branch of that choice
                return self.construct_one_of(callee, node, args, kwargs, complete, scope)
            callee = next((o for o in options(callee) if o is not None), None)
        if isinstance(callee, FuncVal):
            args, kwargs = self.known_by_source(callee, node, args, kwargs, scope)
            result = self.call_function(callee, args, kwargs, site=complete, call=node)
            if callee.fn.name == "configure_optimizers" and isinstance(callee.bound, InstanceVal) \
                    and not _manual_optimization(callee.bound.info):
                # the project calls a LightningModule's hook itself: Lightning makes its own
                # call and steps the optimizers of that one, not of this one
                for optimizer in _configured_optimizers(result):
                    self.emit("own_configure", optimizer, node)
            return result
        if isinstance(callee, InstanceVal):
            # `scaler(loss, optimizer, scheduler)`: calling an instance of a project class
            # runs that class's own `__call__`; a library base's is not in the project, except
            # torch's Module.__call__, which runs the project class's `forward` (a trainer
            # written as an nn.Module: `trainer(batch)` back-propagates, `trainer.update()`
            # steps)
            found = callee.info.find("__call__")
            if found is None and any(q in _TORCH_MODULE for q in self.qualified_bases(callee.info)):
                found = callee.info.find("forward")
            if found is not None:
                return self.call_function(FuncVal(found[0], found[1].module, callee, found[1]),
                                          args, kwargs, site=complete, call=node)
        if isinstance(callee, Obj) and callee.kind == "scaler" and callee.cls == "NativeScaler":
            self.native_scaler_call(callee, node, args, kwargs, scope)
            return None
        if node.args and self.qualname(func, scope) == "functools.partial":
            if args and isinstance(args[0], ExprVal) and self.picked_from_module(
                    ast.Call(func=args[0].node, args=[], keywords=[]), args[0].scope):
                # `functools.partial(getattr(torch.optim, name), weight_decay=wd)`: still the
                # class picked from torch's module, with arguments given ahead of the call
                return ExprVal(node, scope)
            if args and isinstance(args[0], FuncVal):
                # `step = functools.partial(train_step, model=model, scheduler=scheduler)`
                first = args[0]
                preset = first.preset or ([], {})
                return replace(first, preset=([*preset[0], *args[1:]], {**preset[1], **kwargs}))
            if not any(isinstance(a, ast.Starred) for a in node.args) \
                    and all(k.arg is not None for k in node.keywords):
                # `make = functools.partial(StepLR, step_size=30)`: a library class lrdoctor
                # builds objects of, with arguments given ahead of the call that builds it
                built_qual = self.qualname(node.args[0], scope)
                if built_qual and names.classify_constructor(built_qual) is not None:
                    return LibPartial(built_qual, node, scope, (list(args[1:]), dict(kwargs)))
        if isinstance(callee, ClassVal):
            return self.construct(callee.info, args, kwargs, node, complete, scope)
        if isinstance(callee, LibPartial):
            return self.call_partial(callee, node, args, kwargs, scope)
        if isinstance(callee, ImportRef) and callee.qualname.startswith(
                "torch.optim.lr_scheduler.") and self.picked_from_module(node, scope):
            # `getattr(lr_scheduler, "StepLR")(opt, **cfg["args"])`: the class its name
            # picks, called with the keywords the mapping holds
            return self.picked_scheduler(callee.qualname, node, args, kwargs, complete, scope)
        if isinstance(callee, ImportRef):
            target = self.project_target(callee.qualname, scope.module)
            if isinstance(target, FuncVal):
                args, kwargs = self.known_by_source(target, node, args, kwargs, scope)
                return self.call_function(target, args, kwargs, site=complete, call=node)
            if isinstance(target, ClassVal):
                return self.construct(target.info, args, kwargs, node, complete, scope)

        qual = self.qualname(func, scope) if isinstance(callee, (ImportRef, type(None))) else ""
        if not qual and isinstance(callee, ImportRef):
            qual = callee.qualname
        if isinstance(receiver, RunnerVal) and method:
            # a method of an Accelerator / Fabric held under any name (`self.acc.save(...)`)
            qual = f"{receiver.kind}.{method}"
        if qual:
            return self.library_call(qual, node, args, kwargs, scope)
        return None

    def config_named_scheduler(self, node: ast.Call, scope: Scope, depth: int) -> Any:
        """``getattr(lr_scheduler, cfg["lr_scheduler"]["type"])`` (``node``) of a name a config
        file the program reads states (see yamlconf): that class, or None. A program that
        writes scheduler class names in its own code tests the name to step each class its
        own way: those tests are not decided here, and the class is left unknown."""
        value = self.eval(node.args[1], scope, depth + 1)
        picked_name = _certain_key(node.args[1], value, scope)
        if isinstance(picked_name, str) and picked_name in SCHEDULERS \
                and picked_name != "SWALR" and isinstance(value, Const) and value.config \
                and not names_scheduler_classes(scope.module.path, scope.module.tree):
            return ImportRef(f"torch.optim.lr_scheduler.{picked_name}")
        return None

    def picked_scheduler(self, qual: str, node: ast.Call, args: list[Any],
                         kwargs: dict[str, Any], complete: bool, scope: Scope) -> Any:
        """A scheduler class of torch picked by a certain name (``getattr(lr_scheduler,
        cfg["type"])``) called with ``*args`` / ``**mapping``: the call written out as the
        program would write it (``torch.optim.lr_scheduler.StepLR(opt, step_size=50,
        gamma=0.1)``, a config's values as literals) so that every rule reads its arguments;
        None (a scheduler of torch's module, class unknown: see guess_from_call) when any
        argument it passes is not known whole."""
        func = target_expr(qual)
        if func is None or not complete:
            return None
        bound: dict[str, Any] = {}

        def stand_in(text: str, value: Any) -> ast.expr:
            while text in bound or scope.lookup(text) is not None \
                    or scope.source_of(text) is not None:
                text += " "  # never a name of the program's
            bound[text] = value
            return ast.Name(id=text, ctx=ast.Load())

        new_args: list[ast.expr] = []
        plain = sum(not isinstance(a, ast.Starred) for a in node.args)
        for a in node.args:
            if not isinstance(a, ast.Starred):
                new_args.append(a)
                continue
            if a is not node.args[-1]:
                return None
            source = ast.unparse(a.value)
            new_args.extend(stand_in(f"{source}[{i}]", v) for i, v in enumerate(args[plain:]))
        keywords: list[ast.keyword] = [k for k in node.keywords if k.arg is not None]
        named = {k.arg for k in keywords}
        changed = changed_keys(scope.module.tree)
        for kw in node.keywords:
            if kw.arg is not None:
                continue
            held = self.eval_pure(kw.value, scope)
            if not isinstance(held, DictVal) or held.open or held.splat or held.computed \
                    or not all(isinstance(k, str) and k.isidentifier() for k in held.items):
                return None
            for key, value in held.items.items():
                if key in named:
                    continue
                named.add(key)
                if key in changed or "*" in changed:
                    # the program stores its own value under this key (`args["T_max"] = n`)
                    expr = config_literal(None, "")
                elif value is None or isinstance(value, (Const, TupleVal)):
                    expr = config_literal(value, held.config)
                else:
                    expr = stand_in(f"{ast.unparse(kw.value)}[{key!r}]", value)
                keywords.append(ast.keyword(key, expr))
        built = placed_at(ast.Call(func=func, args=new_args, keywords=keywords), node)
        if bound:
            scope = SpreadScope(bound, scope.module, parent=scope, self_val=scope.self_val,
                                owner=scope.owner, cls_of=scope.cls_of)
        return self.library_call(qual, built, args, kwargs, scope)

    def config_built(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any],
                     scope: Scope, nested: bool = False) -> Any:
        """What Hydra's ``instantiate(config, *args, **kwargs)`` (``node``) builds from a
        config whose ``_target_`` is certain: the call written out (see check/instantiate.py)
        and evaluated as if the program had made it. _NO_EVENT when the config is not
        certain (the call is then an unknown one)."""
        if "config" in kwargs:
            config, rest = kwargs["config"], list(args)
        else:
            config, rest = (args[0] if args else None), list(args[1:])
        given = {k: v for k, v in kwargs.items() if k != "config"}

        def inner(value: DictVal, at: ast.Call) -> Any:
            # a `_target_` mapping inside the config: Hydra builds it first, with no arguments
            # of the call's own
            built = self.config_built(at, [value], {}, scope, nested=True)
            return None if built is _NO_EVENT else built

        if nested:
            bare = ast.Call(func=node.func, args=[ast.Constant(None)], keywords=[])
            ast.copy_location(bare, node)
            bare.end_lineno, bare.end_col_offset = node.end_lineno, node.end_col_offset
            node = bare
        written = written_out(node, config, rest, given, changed_keys(scope.module.tree), inner)
        if written is None:
            return _NO_EVENT
        target = self.project_target(written.target, scope.module)
        if written.partial:
            if isinstance(target, FuncVal):
                preset = target.preset or ([], {})
                return replace(target, preset=([*preset[0], *written.args],
                                               {**preset[1], **written.kwargs}))
            if target is None and names.classify_constructor(written.target) is not None:
                # `_partial_: true`: called later with the optimizer (Lightning's
                # `self.hparams.scheduler(optimizer=optimizer)`)
                return LibPartial(written.target, partial_node(written), scope,
                                  (list(written.args), dict(written.kwargs)))
            return None
        if isinstance(target, FuncVal):
            return self.call_function(target, written.args, written.kwargs, site=True,
                                      call=written.call)
        if isinstance(target, ClassVal):
            return self.construct(target.info, written.args, written.kwargs, written.call,
                                  True, scope)
        return self.library_call(written.target, written.call, written.args, written.kwargs,
                                 scope)

    def known_by_source(self, fv: FuncVal, node: ast.Call, args: list[Any],
                        kwargs: dict[str, Any], scope: Scope
                        ) -> tuple[list[Any], dict[str, Any]]:
        """The arguments of a call of the project's ``fv`` whose value is unknown, kept as
        their source in the caller's scope (an ExprVal, as ``x = args.step_size`` keeps it):
        a builder's ``step_size`` given ``args.step_size`` then reads as that setting.
        Parameters whose name or annotation says what object they hold keep that guess."""
        fn = fv.fn
        if fv.preset is not None or len(args) != len(node.args) or any(
                isinstance(a, ast.Starred) for a in node.args):
            return args, kwargs
        params = [*fn.args.posonlyargs, *fn.args.args]
        if fv.bound is not None and params and not _is_static(fn):
            params = params[1:]
        by_name = {p.arg: p for p in [*params, *fn.args.kwonlyargs]}

        def kept(param: ast.arg | None, value: Any, source: ast.expr) -> bool:
            return value is None and param is not None and _setting_source(source) and not (
                _annotated_kind(param.annotation, fv.module)
                or names.guess_kind_from_name(param.arg))

        new_args = [ExprVal(a, scope) if i < len(params) and kept(params[i], v, a) else v
                    for i, (a, v) in enumerate(zip(node.args, args))]
        new_kwargs = dict(kwargs)
        for k in node.keywords:
            if k.arg is not None and k.arg in kwargs and kept(by_name.get(k.arg), kwargs[k.arg],
                                                              k.value):
                new_kwargs[k.arg] = ExprVal(k.value, scope)
        return new_args, new_kwargs

    def phase_method_calls(self, node: ast.Call, scope: Scope) -> list[ast.Call] | None:
        """``getattr(self, f"_{phase}_epoch")()`` (or ``getattr(self, phase)()``, ``getattr(
        self, phase + "_step")()``) inside ``for phase in ("train", "val"):`` over literal
        strings, whose target the loop does not store into otherwise: the calls of the methods
        the phases name, in their order, when the receiver is an instance of the project's
        whose class has every one of them; None for anything else."""
        func = _builtin_getattr(node.func, scope, (2,))
        if func is None or self.loop is None:
            return None
        spelled = func.args[1]
        used = {n.id for n in ast.walk(spelled) if isinstance(n, ast.Name)}
        if len(used) != 1 or isinstance(spelled, ast.Constant):
            return None
        (var,) = used
        phases: list[str] | None = None
        loop: Loop | None = self.loop
        fn = self.stack[-1] if self.stack else None
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        while loop is not None and loop.path == self.path \
                and fn.lineno <= loop.node.lineno <= (fn.end_lineno or fn.lineno):
            stmt = loop.node
            if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) \
                    and stmt.target.id == var:
                over = stmt.iter
                if not (isinstance(over, (ast.Tuple, ast.List)) and over.elts and all(
                        isinstance(e, ast.Constant) and isinstance(e.value, str)
                        for e in over.elts)):
                    return None
                if any(isinstance(n, ast.Name) and n.id == var
                       and isinstance(n.ctx, (ast.Store, ast.Del))
                       for b in stmt.body for n in ast.walk(b)):
                    return None
                phases = [e.value for e in over.elts]  # type: ignore[attr-defined]
                break
            loop = loop.parent
        if phases is None or len(phases) > _MAX_COMPREHENDED:
            return None
        receiver = self.eval(func.args[0], scope)
        if not isinstance(receiver, InstanceVal):
            return None
        texts: list[str] = []
        for phase in phases:
            text = _spelled_with(spelled, var, phase)
            if text is None or not text.isidentifier() or receiver.info.find(text) is None:
                return None
            texts.append(text)
        return [_attribute_call(node, "_lrdoctor_phases", func.args[0], t) for t in texts]

    def named_method_call(self, node: ast.Call, scope: Scope) -> ast.Call:
        """``getattr(hook, stage)(...)`` where ``stage`` holds a string known here (a runner
        calling its hooks by the stage's name): the call ``hook.<stage>(...)``, a node made
        once per name and kept on the call."""
        func = _builtin_getattr(node.func, scope, (2, 3))
        if func is None:
            return node
        name = func.args[1]
        held = name.value if isinstance(name, ast.Constant) else None
        if held is None:
            value = self.eval(name, scope) if isinstance(name, ast.Name) else None
            held = value.value if isinstance(value, Const) else None
        if not isinstance(held, str) or not held.isidentifier():
            return node
        return _attribute_call(node, "_lrdoctor_named", func.args[0], held)

    def global_key(self, node: ast.expr, scope: Scope, depth: int) -> str | None:
        """The name ``globals()[name]`` reads (``node``), when the name is known here (a
        literal, a setting holding one, an argparse or YAML default): Python's own
        ``globals()`` is the mapping of the module's global names, so the entry is what that
        global name holds, an import included. None for anything else, when the program binds
        ``globals`` itself, or when the module writes into that mapping (``globals()[k] =
        ...``, ``globals().update(...)``)."""
        if not (isinstance(node, ast.Subscript) and _globals_call(node.value)
                and isinstance(node.ctx, ast.Load) and not _bound(scope, "globals")):
            return None
        index = self.eval(node.slice, scope, depth + 1)
        key = _certain_key(node.slice, index, scope)
        if not isinstance(key, str) or not key.isidentifier():
            return None
        return None if _writes_globals(scope.module.tree) else key

    def global_by_name(self, node: ast.Subscript, scope: Scope, depth: int) -> Any:
        """What ``globals()[name]`` holds (see ``global_key``): the module's global of that
        name, as a plain read of it at module level gives; None when not known."""
        key = self.global_key(node, scope, depth)
        if key is None:
            return None
        module_scope = scope
        while module_scope.parent is not None:
            module_scope = module_scope.parent
        return self.eval(ast.copy_location(ast.Name(id=key, ctx=ast.Load()), node),
                         module_scope, depth + 1)

    def global_named_call(self, node: ast.Call, scope: Scope) -> ast.Call:
        """``globals()[cfg["scheduler"]](optimizer, ...)`` after ``from torch.optim.lr_scheduler
        import *`` (a class picked by its name from the module's globals): the call
        ``OneCycleLR(optimizer, ...)`` of that global name, a node made once per name and kept
        on the call; the call itself when the name is not known, or when the function binds a
        local of that name (which a plain name would read instead of the global)."""
        key = self.global_key(node.func, scope, 0)
        if key is None or (scope.parent is not None and key in scope.vars):
            return node
        made: dict[str, ast.Call] | None = getattr(node, "_lrdoctor_global", None)
        if made is None:
            made = {}
            node._lrdoctor_global = made  # type: ignore[attr-defined]
        call = made.get(key)
        if call is None:
            name = ast.copy_location(ast.Name(id=key, ctx=ast.Load()), node.func)
            call = ast.copy_location(ast.Call(func=name, args=node.args, keywords=node.keywords),
                                     node)
            made[key] = call = ast.fix_missing_locations(call)
        return call

    def picked_project_class(self, node: ast.Call, scope: Scope) -> ast.Call:
        """``getattr(module_trainer, config["trainer"]["type"])(model, ..., lr_scheduler=s)``:
        a class a setting picks from a module of the project (a package gathering its
        trainers). When exactly one class of that module (its own or re-exported) can take the
        call's arguments, the call is ``module_trainer.<Class>(...)``: a node made once per
        class and kept on the call; the call itself for anything else."""
        func = _builtin_getattr(node.func, scope, (2,))
        if func is None or isinstance(func.args[1], ast.Constant) \
                or not isinstance(func.args[0], (ast.Name, ast.Attribute)):
            return node
        held = self.eval_pure(func.args[0], scope)
        if not isinstance(held, ImportRef):
            return node
        target = self.loader.module_for(held.qualname + ".__lrdoctor_any__", scope.module)
        if target is None:
            return node
        module = target[0]
        candidates: dict[str, ClassInfo] = dict(module.classes)
        for name, qual in module.imports.items():
            found = self.loader.module_for(qual, module)
            if found is not None and found[1] in found[0].classes:
                candidates.setdefault(name, found[0].classes[found[1]])
        fitting = [name for name, cls in candidates.items() if _takes_call(cls, node)]
        if len(fitting) != 1:
            return node
        # (one node per class: the call's module argument may differ from one trace of it to
        # the next, a factory picking from whichever module it is handed)
        return _attribute_call(node, "_lrdoctor_picked", func.args[0], fitting[0])

    def run_engine(self, engine: EngineVal, node: ast.Call, this: Any) -> None:
        """``trainer.run(loader, max_epochs=n)``: Ignite's loops, with the handlers attached to
        each event where Ignite calls them and the process function on every batch. ``this``:
        the engine as the functions receive it (the instance of a project subclass of
        ``Engine``, whose attributes they read)."""
        def fire(event: str) -> None:
            for handler in list(engine.handlers.get(event, [])):
                if isinstance(handler, IgniteLRStep):
                    if event not in _IGNITE_LR_DEFERRED:
                        self.ignite_lr_step(handler)
                    continue
                if isinstance(handler, IgniteCheckpoint):
                    if handler.to_save is not None and handler.node is not None:
                        self.emit("save", None, handler.node, value=handler.to_save)
                    continue
                func, args, kwargs = handler
                # Ignite passes the engine first when the handler takes it, else only the
                # arguments it was attached with
                given = [this, *args] if _takes_positional(func, len(args) + 1) else list(args)
                self.call_function(func, given, kwargs, site=True)

        def fire_deferred(event: str) -> None:
            # Ignite's LRScheduler sets the LR of the coming iteration (or epoch) when attached
            # to its *_STARTED event (Ignite >= 0.4.9; earlier versions were attached to
            # *_COMPLETED): either way one scheduler step per pass, taken between the updates
            # of two passes, as a step after the update would be; the check of its order is
            # Ignite's business, not a `step()` ahead of the optimizer's
            for handler in list(engine.handlers.get(event, [])):
                if isinstance(handler, IgniteLRStep):
                    self.ignite_lr_step(handler)

        saved = self.loop
        fire("STARTED")
        # Ignite's loops have no statement in this file: an empty one at the run() call
        stmt = ast.copy_location(ast.While(test=node, body=[], orelse=[]), node)
        epochs = Loop(stmt, self.path, saved, "epoch", None, frozenset(),
                      node.lineno, over_name="the engine's epochs", root=self.root)
        batches = Loop(stmt, self.path, epochs, "batch", None, frozenset(),
                       node.lineno, over_name="the engine's batches", root=self.root)
        batches.iterates_loader = True
        self.loops.extend([epochs, batches])
        for rec in self.recordings:
            rec.spoiled = True  # a batch loop tells the loops around it they hold one
        try:
            self.loop = epochs
            fire("EPOCH_STARTED")
            self.loop = batches
            fire("ITERATION_STARTED")
            if engine.process is not None:
                self.call_function(engine.process, [this, None], {}, site=True)
            elif engine.scaler is not None:
                # Ignite's AMP step: scaler.scale(loss).backward(), scaler.step(optimizer),
                # scaler.update(), at the call that built the engine
                at = engine.built or node
                self.emit("scale_backward", engine.scaler, at)
                self.emit("scaler_step", engine.scaler, _ignite_scaler_call(at, "step"),
                          optimizer=engine.optimizer)
                self.emit("scaler_update", engine.scaler, _ignite_scaler_call(at, "update"))
            elif engine.optimizer is not None:
                self.emit("backward", None, node)
                self.emit("opt_step", engine.optimizer, node)
            fire("ITERATION_COMPLETED")
            fire_deferred("ITERATION_STARTED")
            self.loop = epochs
            fire("EPOCH_COMPLETED")
            fire_deferred("EPOCH_STARTED")
        finally:
            self.loop = saved
        fire("COMPLETED")

    def ignite_scaler(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any],
                      scope: Scope, owner: ast.AST) -> Obj | None:
        """The GradScaler of ``create_supervised_trainer(..., amp_mode="amp", scaler=...)``:
        Ignite builds ``GradScaler(enabled=True)`` for ``scaler=True`` (or steps the one it is
        handed) and only under ``amp_mode="amp"``; without it, or with ``scaler=False``, the
        engine steps the optimizer itself. The scaler is held as one built at the call,
        enabled by what switches both arguments on (``if cfg.fp16: amp, scaler = "amp",
        True``: ``cfg.fp16``)."""
        given = {kw.arg: kw.value for kw in node.keywords if kw.arg is not None}
        amp_node = given.get("amp_mode", node.args[9] if len(node.args) > 9 else None)
        scaler_node = given.get("scaler", node.args[10] if len(node.args) > 10 else None)
        if amp_node is None or scaler_node is None \
                or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        amp_on = _switched_by(amp_node, owner, lambda v: v == "amp")
        handed = kwargs.get("scaler", args[10] if len(args) > 10 else None)
        if isinstance(handed, Obj) and handed.kind == "scaler":
            return handed if amp_on is not False else None
        scaler_on = _switched_by(scaler_node, owner, bool)
        if amp_on is False or scaler_on is False:
            return None
        tests = [t for t in (amp_on, scaler_on) if isinstance(t, ast.expr)]
        if len(tests) == 2 and ast.dump(tests[0]) == ast.dump(tests[1]):
            tests = tests[:1]
        enabled: ast.expr = ast.Constant(True) if not tests else tests[0] if len(tests) == 1 \
            else ast.BoolOp(op=ast.And(), values=tests)
        built: ast.Call | None = getattr(node, "_lrdoctor_ignite_scaler", None)
        if built is None:  # made once per call, so that every trace holds the same one
            built = ast.copy_location(ast.Call(
                func=ast.Name(id="GradScaler", ctx=ast.Load()), args=[],
                keywords=[ast.keyword(arg="enabled", value=enabled)]), node)
            ast.fix_missing_locations(built)
            node._lrdoctor_ignite_scaler = built  # type: ignore[attr-defined]
        obj = Obj("scaler", "GradScaler", "torch", name="scaler", call=built, scope=scope,
                  path=self.path, line=node.lineno, col=node.col_offset + 1)
        obj.order = self.next_order()
        self.objects.append(obj)
        self.created += 1
        self.emit("create", obj, node)
        return obj

    def hf_trainer_scaler(self, instance: InstanceVal, node: ast.Attribute) -> Obj | None:
        """``self.scaler`` read by the project's subclass of a Hugging Face Trainer that never
        assigns it: the GradScaler the Trainer's own ``__init__`` builds (transformers 3.x and
        4.x before Accelerate) when ``args.fp16`` selects native float16 AMP. A subclass that
        copies the Trainer's old training loop steps it (``self.scaler.step(optimizer)``)
        with the scheduler it steps beside it. Held as ``GradScaler(enabled=self.args.fp16)``
        built at the class (one per class and root, as a guessed object is)."""
        info = instance.info
        if any("scaler" in cls.self_assigns for cls in info.lineage()) \
                or not _hf_trainer(info, self.qualified_bases):
            return None
        made = self.hf_scalers.get(id(info))
        if made is not None:
            return made
        flag = ast.Attribute(value=ast.Attribute(value=ast.Name(id="self", ctx=ast.Load()),
                                                 attr="args", ctx=ast.Load()),
                             attr="fp16", ctx=ast.Load())
        built: ast.Call | None = getattr(info.node, "_lrdoctor_hf_scaler", None)
        if built is None:
            built = ast.copy_location(ast.Call(
                func=ast.Name(id="GradScaler", ctx=ast.Load()), args=[],
                keywords=[ast.keyword(arg="enabled", value=flag)]), info.node)
            ast.fix_missing_locations(built)
            info.node._lrdoctor_hf_scaler = built  # type: ignore[attr-defined]
        made = Obj("scaler", "GradScaler", "torch", name="self.scaler", call=built,
                   path=self.path, line=node.lineno, col=node.col_offset + 1)
        made.order = self.next_order()
        self.hf_scalers[id(info)] = made
        self.objects.append(made)
        self.created += 1
        self.emit("create", made, node)
        return made

    def ignite_common_handlers(self, node: ast.Call, args: list[Any],
                               kwargs: dict[str, Any]) -> None:
        """Ignite's ``common.setup_common_training_handlers(trainer, train_sampler, to_save,
        save_every_iters, output_path, lr_scheduler, ...)``: what it attaches to the trainer
        that lrdoctor models. A torch scheduler is stepped after every iteration (a wrapping
        ``LRScheduler`` handler, held as the scheduler it wraps, at the start of the next
        one: the same step per iteration, after the update); ``to_save`` is written by a
        ``Checkpoint`` every ``save_every_iters`` iterations."""
        def given(position: int, name: str) -> Any:
            return args[position] if len(args) > position else kwargs.get(name)

        engine = given(0, "trainer")
        if isinstance(engine, InstanceVal) and engine.engine is not None:
            engine = engine.engine  # a project subclass of Engine
        if not isinstance(engine, EngineVal):
            return
        scheduler = given(5, "lr_scheduler")
        expr = node.args[5] if len(node.args) > 5 else next(
            (kw.value for kw in node.keywords if kw.arg == "lr_scheduler"), None)
        if expr is not None and _torch_schedulers(scheduler):
            engine.handlers.setdefault("ITERATION_COMPLETED", []).append(
                IgniteLRStep(scheduler, _ignite_step_call(node, expr), self.conds))
        to_save = given(2, "to_save")
        if to_save is not None:
            engine.handlers.setdefault("ITERATION_COMPLETED", []).append(
                IgniteCheckpoint(to_save, node))

    def ignite_lr_step(self, handler: IgniteLRStep) -> None:
        """One step of each torch scheduler an Ignite ``LRScheduler`` handler wraps (one option
        of a choice per run), at the ``add_event_handler`` call that attached it."""
        saved = self.conds
        attached = tuple(c for c in handler.conds if c not in saved)
        for option, picks in _union_leaves(handler.scheduler) \
                if isinstance(handler.scheduler, UnionVal) else [(handler.scheduler, ())]:
            if not (isinstance(option, Obj) and option.kind == "scheduler"):
                continue
            self.conds = (*saved, *attached, *_choice_conds(picks))
            try:
                self.emit("sched_step", option, handler.node, nargs=0, kwargs=[], ignite=True)
            finally:
                self.conds = saved

    def construct_one_of(self, choice: UnionVal, node: ast.Call, args: list[Any],
                         kwargs: dict[str, Any], complete: bool, scope: Scope) -> Any:
        """Instances of each project class of an exclusive choice, each built under the
        condition that the choice picked it (as a method called on such a choice runs)."""
        saved = self.conds
        built: list[Any] = []
        for option, picks in _union_leaves(choice):
            if not isinstance(option, ClassVal):
                continue
            self.conds = (*saved, *_choice_conds(picks))
            try:
                built.append(self.construct(option.info, args, kwargs, node, complete, scope))
            finally:
                self.conds = saved
        instances = [b for b in built if isinstance(b, InstanceVal)]
        if len(instances) == len(built) and len(instances) > 1:
            return UnionVal(instances, exclusive=True)
        return built[-1] if built else None

    def call_one_of(self, choices: list[Any], node: ast.Call, args: list[Any],
                    kwargs: dict[str, Any], scope: Scope) -> Any:
        """A call to one of several library classes: the object they all build, of a class
        known only when they agree (else a scheduler of unknown class: no horizon)."""
        kinds = [names.classify_constructor(c.qualname) if isinstance(c, ImportRef) else None
                 for c in choices]
        if not kinds or any(k is None for k in kinds) or len({k[0] for k in kinds if k}) != 1:
            return _NO_EVENT
        first = choices[0]
        assert isinstance(first, ImportRef)
        if len(set(kinds)) == 1:
            return self.library_call(first.qualname, node, args, kwargs, scope)
        kind = kinds[0][0] if kinds[0] else ""
        return self.unknown_class(kind, node, args, kwargs)

    def spelled_out(self, node: ast.Call, scope: Scope) -> ast.Call:
        """``Cls(**parts)`` where ``parts = dict(a=x, b=y)`` (or ``{"a": x, "b": y}``) was
        bound in this very scope and still holds just those keys: the same call with the
        keywords written out, for the rules that read what a constructor was given. The
        values themselves were traced through the dict; nothing is evaluated again."""
        if not any(kw.arg is None and isinstance(kw.value, ast.Name) for kw in node.keywords):
            return node
        cached = self.spelled.get(id(node))
        if cached is not None and cached[0] is node:
            return cached[1]
        keywords: list[ast.keyword] = []
        for kw in node.keywords:
            if kw.arg is not None or not isinstance(kw.value, ast.Name):
                keywords.append(kw)
                continue
            found = scope.source_of(kw.value.id)
            items = _literal_items(found[0]) if found is not None and found[1] is scope \
                else None
            value = scope.lookup(kw.value.id)
            owner = self.stack[-1] if self.stack else self.module.tree
            if items is None or not isinstance(value, DictVal) or value.splat or value.open \
                    or set(value.items) != {k for k, _ in items} \
                    or _dict_changed(owner, kw.value.id):
                return node
            keywords.extend(ast.copy_location(ast.keyword(k, v), v) for k, v in items)
        names = [kw.arg for kw in keywords if kw.arg is not None]
        if len(names) != len(set(names)):
            return node  # a TypeError at run time: nothing to read
        spelled = ast.copy_location(ast.Call(node.func, node.args, keywords), node)
        spelled.end_lineno, spelled.end_col_offset = node.end_lineno, node.end_col_offset
        self.spelled[id(node)] = (node, spelled)
        return spelled

    def unknown_class(self, kind: str, node: ast.Call, args: list[Any],
                      kwargs: dict[str, Any], project: tuple[ClassInfo, Scope] | None = None
                      ) -> Obj:
        """A scheduler/optimizer built here whose class lrdoctor cannot judge; a scheduler
        drives the optimizer it is given first or as ``optimizer=``. ``project``: the project's
        own class it was built from, with the scope of the call."""
        obj = Obj(kind, path=self.path, line=node.lineno, col=node.col_offset + 1, via=node,
                  project=project)
        obj.order = self.next_order()
        if kind == "scheduler":
            candidate = kwargs.get("optimizer", args[0] if args else None)
            if isinstance(candidate, Obj) and candidate.kind == "optimizer":
                obj.optimizer = candidate
        self.objects.append(obj)
        self.created += 1
        self.emit("create", obj, node)
        return obj

    def instantiate(self, cls: ClassInfo, args: list[Any], kwargs: dict[str, Any],
                    node: ast.Call | None = None, complete: bool = False,
                    scope: Scope | None = None) -> InstanceVal | Obj | DictVal:
        self.link(cls)
        if self.typed_dict(cls):
            # `State(model=model, optimizer=optimizer, step=-1)` of a `class State(TypedDict)`:
            # calling a TypedDict builds a plain dict of its arguments
            return _dict_built(args, kwargs, node)
        kind = self.library_base(cls)
        keeps_step = cls.find("step") is None
        plain = kind in ("optimizer", "torch optimizer") and self.plain_optimizer(cls)
        if kind == "torch optimizer":
            # `class ClippedAdam(torch.optim.Adam)`: an optimizer when of torch's API alone
            kind = "optimizer" if plain else None
        if kind is not None and node is not None and (
                keeps_step or kind == "scheduler" and self.own_schedule(cls) or plain):
            # the project's own `class WarmupPolyLR(_LRScheduler)` / `class LARS(Optimizer)`
            # that keeps torch's step(): a scheduler (optimizer) of unknown class. So is a
            # scheduler class whose own step() sets the LRs itself and steps nothing else
            # (`class CosineAnnealingWarmupRestarts(_LRScheduler)` with its own cycle
            # counter), and an optimizer class whose own step() updates the parameters itself
            # and that offers nothing but torch's optimizer methods (a vendored `class
            # AdamW(Optimizer)`, RAdam, LAMB, KFAC: that step() is the update; see
            # plain_optimizer). One whose step() steps another object (a warm-up wrapping
            # another scheduler, Lookahead wrapping its base optimizer) or with methods of its
            # own (SAM's `first_step()`) is traced instead.
            unknown = self.unknown_class(kind, node, args, kwargs,
                                         (cls, scope) if scope is not None else None)
            # (a subclass of torch's ReduceLROnPlateau keeps that class's step(metrics), not
            # the epoch-counting step() of the other schedulers)
            unknown.torch_step = kind == "scheduler" and keeps_step and "ReduceLROnPlateau" \
                not in (self.torch_ancestors(InstanceVal(cls)) or ())
            return unknown
        if node is not None:
            warm = self._gradual_warmup_subclass(cls, node, args, kwargs)
            if warm is not None:
                return warm
        instance = InstanceVal(cls)
        if kind == "scheduler" and node is not None and scope is not None:
            instance.built = (node, scope)
        runner = self.runner_base(cls)
        if runner is not None:
            # `class MyAccelerator(Accelerator)`: the methods it inherits are Accelerate's.
            # What it accumulates over is read from the call only when no `__init__` of the
            # project's stands between (else from its `super().__init__(...)`, see eval_call)
            own_init = any(c.methods.get("__init__") is not None and _runner_copy(c) is None
                           for c in cls.lineage())
            counted = node if runner == "accelerator" and not own_init else None
            instance.runner = _accelerator(runner, counted)
        if any(q.startswith("ignite.") and q.rsplit(".", 1)[-1] == "Engine"
               for q in self.qualified_bases(cls)):
            # `class Trainer(Engine)`: its `super().__init__(update)` names the process function
            instance.engine = EngineVal()
        generated = record_init(cls)
        init = cls.find("__init__")
        if generated is not None:
            self.record_fields(instance, generated, args, kwargs, complete, node, scope)
        elif init is not None and not (instance.runner is not None and _runner_copy(init[1])):
            self.call_function(FuncVal(init[0], init[1].module, instance, init[1]), args, kwargs,
                               site=complete and node is not None,
                               call=node if isinstance(node, ast.Call) else None)
        if any(_tracked(v) for v in instance.attrs.values()):
            self.created += 1  # a call that builds a trainer returns a new one every time
        return instance

    def saved_hyperparameters(self, node: ast.Call, scope: Scope) -> DictVal | None:
        """What a LightningModule's ``self.save_hyperparameters()`` keeps in ``self.hparams``:
        the arguments of the ``__init__`` it is called in, by parameter name (those named, when
        it names some: ``save_hyperparameters("optimizer", "scheduler")``; less those in a
        literal ``ignore=[...]``). None where that is not known (called outside ``__init__``,
        a config object or container passed, names not written as literals)."""
        fn = self.stack[-1] if self.stack else None
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name != "__init__":
            return None
        params = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]][1:]
        named: list[str] = []
        for arg in node.args:
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                return None  # `save_hyperparameters(cfg)`: a config object's entries
            named.append(arg.value)
        ignored: set[str] = set()
        for kw in node.keywords:
            if kw.arg is None:
                return None
            if kw.arg == "ignore":
                value = kw.value
                items = value.elts if isinstance(value, (ast.List, ast.Tuple, ast.Set)) \
                    else [value]
                if not all(isinstance(i, ast.Constant) and isinstance(i.value, str)
                           for i in items):
                    return None
                ignored |= {i.value for i in items}  # type: ignore[attr-defined]
        kept = [p for p in (named or params) if p in params and p not in ignored]
        return DictVal({p: scope.vars.get(p) for p in kept}, attribute_keys=True)

    def lightning_fit(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> None:
        """``trainer.fit(model, ...)`` of Lightning's Trainer (any receiver that is not the
        project's own object) on an instance of a LightningModule built here: Lightning calls
        that instance's ``configure_optimizers`` (the class is also traced on its own, with
        what its ``__init__`` does without arguments; this call sees the arguments it was
        built with, such as the partials ``self.hparams.scheduler(optimizer=...)`` calls)."""
        model = kwargs.get("model", args[0] if args else None)
        if not isinstance(model, InstanceVal) \
                or not _lightning_module(model.info, self.qualified_bases) \
                or _manual_optimization(model.info):
            return
        configure = model.info.find("configure_optimizers")
        if configure is None:
            return
        saved = (self.loop, self.conds)
        self.loop, self.conds = None, ()
        try:
            self.call_function(FuncVal(configure[0], configure[1].module, model, configure[1]),
                               [], {}, site=True, call=node)
        finally:
            self.loop, self.conds = saved

    def record_copy(self, node: ast.Call, callee: Any, receiver: Any, method: str,
                    args: list[Any], kwargs: dict[str, Any], scope: Scope) -> InstanceVal | None:
        """``dataclasses.replace(state, scheduler=s)`` (``attrs.evolve``), ``state._replace(
        scheduler=s)`` of a named tuple: a new record of the same class, built by its generated
        ``__init__`` from the fields the old one holds with the keywords given in their place
        (``__post_init__`` runs again, as it does at run time). None for anything else (a
        class with a written ``__init__``, a keyword that is no field)."""
        if isinstance(callee, ImportRef) and callee.qualname in RECORD_COPIES \
                and len(args) == 1 and isinstance(args[0], InstanceVal):
            old, tuple_copy = args[0], False
        elif callee is None and method == "_replace" and isinstance(receiver, InstanceVal) \
                and not args:
            old, tuple_copy = receiver, True
        else:
            return None
        generated = record_init(old.info)
        if generated is None or generated.post_init == tuple_copy:
            return None
        fields = [f for f in [*generated.positional, *sorted(generated.keyword_only)]
                  if f not in generated.init_only]
        if any(k not in fields and k not in generated.init_only for k in kwargs):
            return None  # a TypeError at run time (or `**changes`)
        carried = {f: old.attrs[f] for f in fields if f in old.attrs and f not in kwargs}
        built = self.instantiate(old.info, [], {**carried, **kwargs}, node, complete=False,
                                 scope=scope)
        return built if isinstance(built, InstanceVal) else None

    def record_fields(self, instance: InstanceVal, generated: RecordInit, args: list[Any],
                      kwargs: dict[str, Any], complete: bool, node: ast.Call | None,
                      scope: Scope | None) -> None:
        """What a dataclass's (or NamedTuple's) generated ``__init__`` does: each argument
        stored as the field of its name, as ``self.<field> = <argument>`` would store it, then
        ``__post_init__`` run with the ``InitVar`` values. A value not known here is left
        unstored: the field is read as the class declares it, as before."""
        given = generated.bind(args, kwargs, complete)
        if given is None:
            return
        if complete and node is not None:
            # a call in the code that leaves a field out gives it the field's literal default,
            # as a written `__init__` binds its parameters' literal defaults
            for name, default in generated.defaults:
                literal = _literal_default(default)
                if name not in given and literal is not None:
                    given[name] = literal
        stores = attribute_stores(instance.info.module.tree)
        for name, value in given.items():
            if value is None or name in generated.init_only:
                continue
            self.assigned(name)
            for held in options(value) if isinstance(value, UnionVal) else [value]:
                if isinstance(held, Obj) and held.kind == "scheduler" \
                        and (instance.info, name) not in held.held:
                    held.held.append((instance.info, name))
            self.bind(instance.attrs, name, f"self.{name}", value, None,
                      scope or self.module_scope, node if node is not None else instance.info.node)
            if isinstance(value, Const):
                # one literal in every method, unless the module stores the attribute too
                instance.attrs[name] = replace(value, sure=value.sure and not stores.get(name)
                                               and "*" not in stores)
        post_init = instance.info.find(generated.post_init_name) \
            if generated.post_init else None
        if post_init is not None:
            self.call_function(FuncVal(post_init[0], post_init[1].module, instance, post_init[1]),
                               generated.init_values(given)
                               if generated.post_init_name == "__post_init__" else [], {},
                               site=complete and node is not None, call=node)

    @staticmethod
    def qualified_bases(cls: ClassInfo) -> Iterator[str]:
        """The dotted names of ``cls``'s bases as their modules import them (``torch.optim.
        lr_scheduler.LRScheduler``), and of its project base classes' bases, nearest first."""
        seen: set[int] = set()
        stack = [cls]
        while stack:
            current = stack.pop()
            if id(current) in seen or len(seen) > 16:
                continue
            seen.add(id(current))
            for base in current.bases:
                yield current.module.qualify(base)
            stack.extend(current.base_classes())

    def torch_ancestors(self, option: Any) -> set[str] | None:
        """The last names of the torch classes a project scheduler class derives from
        (through the project's classes), for an instance of one; None when it is not one, or
        when a base is neither torch's nor the project's (a library's class could derive from
        anything)."""
        if isinstance(option, InstanceVal):
            cls: ClassInfo | None = option.info
        elif isinstance(option, Obj) and option.project is not None:
            cls = option.project[0]
        else:
            return None
        found: set[str] = set()
        seen: set[int] = set()
        stack = [cls]
        while stack:
            current = stack.pop()
            if current is None or id(current) in seen:
                continue
            if len(seen) > 16:
                return None
            seen.add(id(current))
            self.link(current)
            resolved = current.base_classes()
            accounted = len(resolved)
            for base in current.bases:
                qual = current.module.qualify(base)
                if qual.startswith("torch."):
                    found.add(qual.rsplit(".", 1)[-1])
                    accounted += 1
                elif base == "object":
                    accounted += 1
            if accounted < len(current.bases):
                return None
            stack.extend(resolved)
        return found if found else None

    def construct(self, cls: ClassInfo, args: list[Any], kwargs: dict[str, Any], node: ast.Call,
                  complete: bool, scope: Scope) -> Any:
        """A call of the project's class ``cls``: torch's scheduler for a vendored copy of one,
        else an instance of the class."""
        if self.vendored_scheduler(cls):
            return self.library_call(f"torch.optim.lr_scheduler.{cls.name}", node, args, kwargs,
                                     scope)
        runner = _runner_copy(cls)
        if runner is not None:
            # checking Accelerate's (or Lightning's) own repository: its examples and tests
            # import the class from the project itself. Tracing its internals would see half of
            # it (the GradScaler of its backward(), not the AcceleratedOptimizer that steps
            # through that scaler): it is the library class lrdoctor knows
            return _accelerator(runner, node)
        self.hf_subclass_handed(cls, kwargs, node, scope)
        return self.instantiate(cls, args, kwargs, node, complete, scope)

    def hf_subclass_handed(self, cls: ClassInfo, kwargs: dict[str, Any], node: ast.Call,
                           scope: Scope) -> None:
        """``CustomTrainer(..., optimizers=(optimizer, scheduler))`` of the project's subclass
        of a Hugging Face Trainer (a custom ``compute_loss``, a sampler): the keywords reach the
        Trainer's own ``__init__``, and its training loop steps the scheduler after every
        optimizer step, as for the Trainer itself. Not when the subclass runs a training loop
        of its own (it steps the scheduler there), nor when an ``__init__`` of the project's
        may keep the keyword from the Trainer (one that passes its ``**kwargs`` on to
        ``super().__init__`` without naming ``optimizers`` forwards it)."""
        handed = kwargs.get("optimizers")
        if not isinstance(handed, TupleVal) or len(handed.items) != 2:
            return
        self.link(cls)
        if not _hf_trainer(cls, self.qualified_bases):
            return
        if any(cls.find(loop) for loop in _HF_TRAINING_LOOPS):
            return
        init = cls.find("__init__")
        if init is not None and not _forwards_keywords(init[0], "optimizers"):
            return
        self.hf_schedulers([(node, handed.items[1])], _hf_epochs(node, scope))

    def vendored_scheduler(self, cls: ClassInfo) -> bool:
        """A copy of one of torch's schedulers kept in the project (``core/onecyclelr.py`` with
        its own ``class _LRScheduler(object)`` and ``class OneCycleLR(_LRScheduler)``, written
        when torch lacked the class): a class named as a torch scheduler whose base, in the
        project, is a class of the name of torch's scheduler base deriving from nothing else. It
        is that scheduler."""
        if cls.name not in SCHEDULERS or SCHEDULERS[cls.name].composite:
            return False
        self.link(cls)
        seen: set[int] = set()
        stack = list(cls.base_classes())
        while stack:
            base = stack.pop()
            if id(base) in seen or len(seen) > 16:
                continue
            seen.add(id(base))
            if base.name in ("_LRScheduler", "LRScheduler"):
                # a copy of torch's base stands alone; a project base that derives from
                # torch's own (`class LRScheduler(_LRScheduler)`) is a base for custom classes
                return all(b == "object" for b in base.bases)
            stack.extend(base.base_classes())
        return False

    def inherited_state_load(self, instance: InstanceVal, method: str, node: ast.AST) -> bool:
        """``wrapper.load_state_dict(state)`` on an instance of the project's own scheduler
        class that defines no ``load_state_dict`` of its own in its project lineage and derives
        from torch's scheduler base (the vendored GradualWarmupScheduler around a cosine): the
        method is torch's, ``self.__dict__.update(state)``, and the ``state_dict()`` it pairs
        with holds every attribute but the optimizer, the schedulers the wrapper keeps
        (``self.after_scheduler``) with their step counts. Restoring the wrapper restores
        those schedulers: emits a restore of each scheduler it holds. A class with its own
        ``load_state_dict`` (one that leaves the wrapped scheduler out) is traced as written."""
        if method != "load_state_dict" or instance.info.find(method) is not None \
                or self.library_base(instance.info) != "scheduler":
            return False
        held: list[Obj] = []
        for value in instance.attrs.values():
            for item in options(value) if isinstance(value, UnionVal) else [value]:
                if isinstance(item, Obj) and item.kind == "scheduler" \
                        and all(item is not h for h in held):
                    held.append(item)
        for item in held:
            self.emit("load_state", item, node)
        return bool(held)

    def typed_dict(self, cls: ClassInfo) -> bool:
        """Whether ``cls`` derives from ``typing.TypedDict`` (through the project's classes)."""
        return any(qual in ("typing.TypedDict", "typing_extensions.TypedDict")
                   for qual in self.qualified_bases(cls))

    def runner_base(self, cls: ClassInfo) -> str | None:
        """"accelerator" / "fabric" when ``cls`` derives from Accelerate's ``Accelerator`` or
        Lightning's ``Fabric`` (the library's, as its module imports it, or the project's own
        copy of it), through the project's classes."""
        for qual in self.qualified_bases(cls):
            if qual in _RUNNER_CLASSES:
                return _RUNNER_CLASSES[qual]
        for base in cls.lineage():
            if base is not cls:
                copy = _runner_copy(base)
                if copy is not None:
                    return copy
        return None

    def torch_module(self, cls: ClassInfo) -> bool:
        """Whether ``cls`` derives from torch's ``nn.Module`` (or a LightningModule), through
        the project's classes."""
        return any(q in _TORCH_MODULE_BASES for q in self.qualified_bases(cls))

    def library_base(self, cls: ClassInfo) -> str | None:
        """"scheduler" / "optimizer" when ``cls`` derives from torch's LR scheduler or
        optimizer base (or from a scheduler lrdoctor knows), through the project's classes;
        else "torch optimizer" when it derives from one of torch's own optimizers (``class
        ClippedAdam(torch.optim.Adam)``)."""
        concrete = False
        for qual in self.qualified_bases(cls):
            last = qual.rsplit(".", 1)[-1]
            if last in ("_LRScheduler", "LRScheduler") or (last in SCHEDULERS and "lr_scheduler" in qual):
                return "scheduler"
            if last == "Optimizer" and qual.startswith("torch."):
                return "optimizer"
            concrete = concrete or qual.startswith("torch.optim.") \
                and last in names.OPTIMIZER_CLASSES
        return "torch optimizer" if concrete else None

    def plain_optimizer(self, cls: ClassInfo) -> bool:
        """Whether the project's optimizer class ``cls`` is one optimizer of unknown class,
        its ``step()`` the update: no method of its project lineage steps another object (its
        own ``step()`` may move a schedule of its own: Sassha's Hessian-power schedule), and
        the methods it offers beyond torch's optimizer API (``get_params()``,
        ``perturb_weights()``) neither step anything nor are named as steps:
        a vendored AdamW, RAdam, LAMB, KFAC, a second-order optimizer with helpers its
        training loop calls around ``optimizer.step()``. One that steps the optimizer it wraps
        (Lookahead, SAM's ``second_step()``), one whose callers update through a method of
        its own (a SAM variant's ``first_step()`` / ``second_step()``) and one whose method
        steps a scheduler it holds (EDSR's ``schedule()``) is traced."""
        for c in cls.lineage():
            for name, fn in c.methods.items():
                api = name.startswith("_") or name in _OPTIMIZER_API
                if _steps_another(fn, but_schedules=api):
                    return False
                if not api and "step" in name.lower():
                    return False
        return True

    def own_schedule(self, cls: ClassInfo) -> bool:
        """Whether the project's scheduler class ``cls`` (a subclass of torch's scheduler base
        with a ``step()`` of its own) is a schedule by itself: its ``step()`` can be called as
        torch's is (no argument it requires), and no method of its project lineage steps
        another object (``self.after_scheduler.step()``, ``self.optimizer.step()``); only
        ``super().step(...)`` hands on to torch's. Such a step() only moves the class's own
        position and writes the LRs, as a built-in scheduler's does."""
        known = self.own_schedules.get(id(cls))
        if known is not None:
            return known
        found = cls.find("step")
        result = found is not None and _callable_without_arguments(found[0]) and not any(
            _steps_another(method) for c in cls.lineage() for method in c.methods.values())
        self.own_schedules[id(cls)] = result
        return result

    def accumulate_block(self, expr: ast.expr, scope: Scope) -> RunnerVal | None:
        """The accelerator of ``with accelerator.accumulate(model):`` when it was built with
        gradient accumulation (see RunnerVal.accumulation); None for any other context."""
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
                and expr.func.attr == "accumulate"
                and isinstance(expr.func.value, (ast.Name, ast.Attribute))):
            return None  # a receiver that is a call is not evaluated twice
        held = self.eval(expr.func.value, scope)
        if isinstance(held, InstanceVal):
            own = held.info.find("accumulate")
            if own is not None and _runner_copy(own[1]) is None:
                return None  # the project subclass's own accumulate()
        runner = _runner_of(held)
        if runner is not None and runner.kind == "accelerator" \
                and runner.accumulation is not None:
            return runner
        return None

    def guess_receiver(self, func: ast.Attribute, scope: Scope) -> Obj | None:
        recv = func.value
        if isinstance(recv, ast.Name):
            kind = names.guess_kind_from_name(recv.id)
            if kind:
                obj = self._guessed_obj(kind, recv.id)
                scope.vars.setdefault(recv.id, obj)
                return obj
        return None

    def call_partial(self, partial: LibPartial, node: ast.Call, args: list[Any],
                     kwargs: dict[str, Any], scope: Scope) -> Any:
        """Build what a `functools.partial` of a library class builds: one call whose
        arguments are the partial's followed by the call's, as if written out in full. The
        partial's arguments are read where the partial was made; when that is another scope
        only literal ones are joined in (a name there may mean something else here), else
        the object is left unknown."""
        given = [*partial.node.args[1:], *(k.value for k in partial.node.keywords)]
        if partial.scope is not scope and not all(isinstance(v, ast.Constant) for v in given):
            return None
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        joined = ast.Call(func=partial.node.args[0],
                          args=[*partial.node.args[1:], *node.args],
                          keywords=[*partial.node.keywords, *node.keywords])
        ast.copy_location(joined, node)
        joined.end_lineno, joined.end_col_offset = node.end_lineno, node.end_col_offset
        return self.library_call(partial.qualname, joined, [*partial.preset[0], *args],
                                 {**partial.preset[1], **kwargs}, scope)

    def bind_namespace_splat(self, splat: ast.expr, callee: Any, given: int,
                             kwargs: dict[str, Any], scope: Scope, depth: int) -> None:
        """``f(x, **vars(args))`` of the project's ``f``: Python passes every attribute of
        ``args`` as a keyword, so each parameter of ``f`` that no positional or named argument
        binds takes ``args.<parameter>`` (an option's default, an object stored on the
        namespace). Added to ``kwargs`` only where that attribute reads as a known value."""
        if not (isinstance(splat, ast.Call) and isinstance(splat.func, ast.Name)
                and splat.func.id == "vars" and len(splat.args) == 1 and not splat.keywords
                and isinstance(splat.args[0], (ast.Name, ast.Attribute))
                and scope.lookup("vars") is None):
            return
        fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None
        skip = 0
        if isinstance(callee, FuncVal) and callee.preset is None:
            fn = callee.fn
            skip = 1 if callee.bound is not None or callee.cls is not None else 0
        elif isinstance(callee, ClassVal):
            found = callee.info.find("__init__")
            if found is not None:
                fn, skip = found[0], 1
        if fn is None:
            return
        positional = [*fn.args.posonlyargs, *fn.args.args][skip:]
        taken = {a.arg for a in positional[:given]}
        for param in [*positional[given:], *fn.args.kwonlyargs]:
            name = param.arg
            if name in taken or name in kwargs:
                continue
            read = ast.Attribute(value=splat.args[0], attr=name, ctx=ast.Load())
            ast.copy_location(read, splat)
            value = self.eval(read, scope, depth + 1)
            if isinstance(value, Const):
                kwargs[name] = value
                continue
            if value is None:
                # an option of the parser the namespace comes from: its default
                stated = resolve(read, scope, scope.module)
                if isinstance(stated, str):
                    kwargs[name] = Const(stated)

    def option_strings(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any],
                       scope: Scope) -> None:
        """The arguments of a call of the project's function or class that read an option
        the program states a string default for (``Engine(net, args.plan)``,
        ``build(name=cfg.sched)``) and are otherwise unknown here: that string, as the callee
        sees it when the program runs with its defaults (the names of modules and modes)."""
        for i, a in enumerate(node.args):
            if i < len(args) and args[i] is None and isinstance(a, ast.Attribute):
                stated = resolve(a, scope, scope.module)
                if isinstance(stated, str):
                    args[i] = Const(stated)
        for kw in node.keywords:
            if kw.arg is not None and kwargs.get(kw.arg) is None \
                    and isinstance(kw.value, ast.Attribute):
                stated = resolve(kw.value, scope, scope.module)
                if isinstance(stated, str):
                    kwargs[kw.arg] = Const(stated)

    def joined_text(self, expr: ast.expr, scope: Scope, depth: int = 0) -> str | None:
        """The text a string expression builds when every piece of it is known: literals, names
        holding a known string (an option's default handed down), ``+`` and f-strings of them.
        None when any piece is unknown."""
        if depth > 8:
            return None
        if isinstance(expr, ast.Constant):
            return expr.value if isinstance(expr.value, str) else None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            left = self.joined_text(expr.left, scope, depth + 1)
            right = self.joined_text(expr.right, scope, depth + 1) if left is not None else None
            return left + right if left is not None and right is not None else None
        if isinstance(expr, ast.JoinedStr):
            parts = []
            for part in expr.values:
                if isinstance(part, ast.FormattedValue):
                    if part.conversion != -1 or part.format_spec is not None:
                        return None
                    text = self.joined_text(part.value, scope, depth + 1)
                else:
                    text = self.joined_text(part, scope, depth + 1)
                if text is None:
                    return None
                parts.append(text)
            return "".join(parts)
        if isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript)):
            value = self.eval(expr, scope, MAX_EVAL_DEPTH // 2)
            if isinstance(value, Const) and isinstance(value.value, str):
                return value.value
            source: ast.expr = expr
            where = scope
            if isinstance(value, ExprVal) and value.scope is not None:
                # a parameter given `args.plan` by its caller: that setting, read there
                source, where = value.node, value.scope
            elif value is not None:
                return None
            stated = resolve(source, where, where.module)
            if isinstance(stated, str):
                return stated  # an option's (or a config's) stated default
        return None

    def library_call(self, qual: str, node: ast.Call, args: list[Any], kwargs: dict[str, Any],
                     scope: Scope) -> Any:
        last = qual.rsplit(".", 1)[-1]
        runner = _RUNNER_CLASSES.get(qual)
        if runner is not None:
            return _accelerator(runner, node, kwargs)
        if _hf_trainer_class(qual) and isinstance(kwargs.get("optimizers"), TupleVal):
            # `Trainer(..., optimizers=(optimizer, scheduler))`: the Trainer steps the
            # scheduler it is handed after every optimizer step
            handed = kwargs["optimizers"].items
            if len(handed) == 2:
                self.hf_schedulers([(node, handed[1])], _hf_epochs(node, scope))
        if last == "SkipAwareScheduler" and qual.split(".")[0] == "lrdoctor":
            # lrdoctor's wrapper is the scheduler it wraps, stepped only after real updates
            inner = args[0] if args else kwargs.get("scheduler")
            if isinstance(inner, Obj) and inner.kind == "scheduler":
                inner.skip_aware = True
                return inner
            return None
        if qual == "deepspeed.initialize":
            return self.deepspeed_initialize(node, args, kwargs)
        if _optimizer_state_reader(qual):
            # `FSDP.optim_state_dict(model, optim)`, `get_optimizer_state_dict(model, optim)`:
            # the (gathered or sharded) state of the optimizer handed in second
            opt = args[1] if len(args) > 1 else kwargs.get("optim", kwargs.get("optimizers"))
            if isinstance(opt, Obj) and opt.kind == "optimizer":
                return StateDictVal(opt)
        if qual == "importlib.import_module" and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
                and not node.args[0].value.startswith("."):
            # `m = importlib.import_module("torch.optim.lr_scheduler")`: the module, as if
            # imported by name (`getattr(m, cfg.name)` then picks a class of it)
            return ImportRef(node.args[0].value)
        if qual == "importlib.import_module" and len(args) == 1 and not node.keywords:
            picked = _project_module_picked(self.joined_text(node.args[0], scope),
                                            scope.module, self.loader)
            if picked is not None:
                # `importlib.import_module("scheduler." + name)` with `name` known (an option's
                # default handed down): the project module that name picks, read like an import
                return ImportRef(picked)
        if last == "__getattribute__" and "." in qual and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            # `module.__getattribute__("Scheduler")` of a module the project holds: the
            # function or class that name is in that module (as `module.Scheduler`)
            found = self.project_target(f"{qual.rsplit('.', 1)[0]}.{node.args[0].value}",
                                        scope.module)
            if found is not None:
                return found
        if qual == "weakref.proxy" and args:
            # `hook.trainer = weakref.proxy(self)`: the object itself, for what is read through it
            return args[0]
        if last in ("prepare", "register_for_checkpointing", "save_state") and "." in qual:
            # Accelerate's `save_state()` writes what went through `prepare()` and
            # `register_for_checkpointing()` on the same accelerator, and nothing else
            base = qual.rsplit(".", 1)[0]
            if last == "save_state":
                kept = self.accelerated.get(base)
                if kept is None or base in self.accelerated_opaque:
                    # not an accelerator this file prepares objects with, or one that was
                    # handed an object whose state the file does not show
                    return None
                self.emit("save", None, node, value=TupleVal(list(kept)), accelerate=True)
                return None
            values = [*args, *(v for k, v in kwargs.items() if k in _WRAPPED_KEYWORDS)]
            tracked = [o for v in values for o in options(v) if isinstance(o, Obj)]
            registers = last == "register_for_checkpointing"
            if tracked or registers:
                for rec in self.recordings:
                    rec.spoiled = True  # what a later save holds depends on this call
                self.accelerated.setdefault(base, []).extend(tracked)
            if last == "prepare":
                held = self.eval(node.func.value, scope) if isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, (ast.Name, ast.Attribute)) else None
                for o in tracked:
                    o.prepared = True
                    o.prepared_by = _runner_of(held)
            if registers:
                if not values or len(tracked) < sum(len(options(v)) for v in values):
                    # `register_for_checkpointing(train_state)`: a holder of the objects
                    self.accelerated_opaque.add(base)
                return None
        if last in names.PASSTHROUGH_CALLS and (args or kwargs) and "." in qual:
            # `amp.initialize(models=model, optimizers=optimizer)`: keywords, in their order
            values = [*args, *(v for k, v in kwargs.items() if k in _WRAPPED_KEYWORDS)]
            if not values:
                return None
            if last in ("setup", "setup_optimizers") and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, (ast.Name, ast.Attribute)):
                setup_by = _runner_of(self.eval(node.func.value, scope))
                if setup_by is not None and setup_by.kind == "fabric":
                    # `fabric.setup(model, optimizer)`: the optimizer's step() now goes
                    # through Fabric's precision plugin (its GradScaler under float16)
                    for o in (o for v in values for o in options(v) if isinstance(o, Obj)):
                        if o.kind == "optimizer":
                            o.prepared = True
                            o.prepared_by = setup_by
            if not args and [k for k in kwargs if k in _WRAPPED_KEYWORDS] == ["optimizer"]:
                # `cfg.scheduler.setup(optimizer=opt, lr_init=lr)`: a config object building
                # something around the optimizer it is given, not a wrapper handing it back
                # (Fabric, Accelerate and apex take what they wrap by position or as
                # `optimizers=`; DeepSpeed's `initialize(model=..., optimizer=...)` both)
                return None
            return values[0] if len(values) == 1 else TupleVal(values)
        if qual.startswith("ignite.") and last in _IGNITE_LR_WRAPPERS:
            # `LRScheduler(torch_scheduler)`: a handler whose state is the wrapped scheduler's
            # (a checkpoint of it saves that scheduler) and which steps it where it is
            # attached; `create_lr_scheduler_with_warmup(torch_scheduler, ...)` steps it after
            # a warm-up of its own. Held as the scheduler itself (an Ignite scheduler of its
            # own, `CosineAnnealingScheduler(...)`, is not one lrdoctor tracks)
            inner = args[0] if args else kwargs.get("lr_scheduler")
            return inner if _torch_schedulers(inner) else None
        if qual.startswith("ignite.") and last == "setup_common_training_handlers":
            self.ignite_common_handlers(node, args, kwargs)
            return None
        if qual.startswith("ignite.") and last in ("ModelCheckpoint", "Checkpoint"):
            return IgniteCheckpoint(
                (args[0] if args else kwargs.get("to_save")) if last == "Checkpoint" else None,
                node,
            )
        if qual.startswith("ignite.") and last in ("Engine", "create_supervised_trainer"):
            if last == "Engine":
                process = args[0] if args else kwargs.get("process_function")
                return EngineVal(process if isinstance(process, FuncVal) else None)
            optimizer = args[1] if len(args) > 1 else kwargs.get("optimizer")
            owner = self.stack[-1] if self.stack else self.module.tree
            return EngineVal(None, optimizer if isinstance(optimizer, Obj) else None,
                             scaler=self.ignite_scaler(node, args, kwargs, scope, owner),
                             built=node)
        if qual == "next" and args and is_loader(args[0]) and self.loop is not None \
                and not isinstance(node.args[0], ast.Call):
            # `batch = next(it)` on an iterator of a loader kept across passes (`it =
            # iter(loader)`, an `iter(...)` made in the call itself restarts the loader: a
            # sample batch); whether the loop is the batch loop is settled in `run`
            self.loop.draws_loader = ast.unparse(node.args[0])
            for rec in self.recordings:
                rec.spoiled = True
            return None
        if qual == "functools.reduce" and 2 <= len(args) <= 3 and not kwargs \
                and isinstance(args[0], FuncVal) and len(node.args) == len(args):
            # `functools.reduce(train_batch, loader, 0.0)`: the function runs on every batch
            self.call_per_item(node, args[0], args[1], [args[2] if len(args) == 3 else None],
                               scope)
            return None
        if qual in names.ITEMWISE_CALLS and len(args) == 2 and not kwargs:
            # `for x, y in map(to_device, loader):` goes over the loader's batches; `map(
            # train_batch, loader)` runs the function on each of them
            items = args[1]
            if qual == "map" and isinstance(args[0], FuncVal) and len(node.args) == 2:
                self.call_per_item(node, args[0], items, [], scope)
            return items if is_loader(items) or loop_members(items) is not None else None
        if last in names.ITER_WRAPPERS:
            for value in args:
                if is_loader(value) or loop_members(value) is not None:
                    return value
            return None
        if qual in ("torch.save", "save") or last == "save" and qual.split(".")[0] in (
            "accelerator", "fabric", "xm", "torch"
        ):
            saved = args[0] if args else kwargs.get("obj")
            if qual.startswith("fabric"):
                saved = args[1] if len(args) > 1 else kwargs.get("state")
            self.emit("save", None, node, value=saved)
            return None
        if last in ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm", "clip_grads") and (
            qual.startswith("torch.") or qual in ("clip_grad_norm_", "clip_grad_value_")
            or last != "clip_grads" and isinstance(node.func, ast.Attribute)
        ):
            # torch's functions, and the same clip spelled as a library object's method: an
            # FSDP-wrapped model's `model.clip_grad_norm_(max_norm)`, Accelerate's
            # `accelerator.clip_grad_norm_(params, max_norm)`, an engine's
            # `engine.clip_grad_norm(max_norm)` (a project's own method of that name is traced
            # as project code, never reaches here). Each clips the gradients as they are: those
            # a GradScaler of the program's own scaled are still multiplied by its scale
            self.emit("clip", None, node)
            return None
        if last == "set_default_dtype":
            return None
        if last == "optimizer_step" and qual.split(".")[0] in ("xm", "torch_xla") and args:
            # torch_xla's `xm.optimizer_step(optimizer)`: reduces gradients, then steps
            target = args[0]
            if isinstance(target, Obj) and target.kind == "optimizer":
                self.emit("opt_step", target, node)
            return None
        if qual.startswith("torch.cuda.amp.") and last in ("GradScaler", "autocast"):
            pass  # reported by the syntactic rule; still a GradScaler below
        if qual in ("types.SimpleNamespace", "argparse.Namespace") and not args:
            # `state = SimpleNamespace(opt=optimizer, sched=scheduler)`: a record whose
            # attributes are the objects it was given, read back as `state.sched.step()`
            held = {k: v for k, v in kwargs.items() if isinstance(v, Obj)}
            if held:
                return ExprVal(node, scope, held)
        kind = names.classify_constructor(qual)
        if kind is None:
            if last == "get_constant_schedule" and qual.split(".")[0] in (
                    "transformers", "diffusers"):
                return ExprVal(node, scope)  # a factor of 1 at every step (see below)
            if last in ("ReduceLROnPlateau",):
                kind = ("scheduler", last, "torch")
            else:
                handed = _wrapped_schedulers(args, kwargs)
                if handed and id(node) in self.dropped_calls:
                    # written as a statement of its own (a benchmark or a helper of code not
                    # in view given the optimizer and scheduler): what it would build is
                    # dropped at once, so it wraps nothing that steps later; it is an unknown
                    # use of the schedulers, there, under this branch (it may save or restore
                    # their state: see LRD007)
                    self.emit("handoff", None, node, schedulers=handed)
                else:
                    for sched in handed:
                        sched.in_composite = True
                if qual in _GRADUAL_WARMUP:
                    return self._gradual_warmup(node, args, kwargs)
                return None
        if kind[1] in names.LEGACY_HF_WARMUPS and not (
            "optimizer" in kwargs or (args and isinstance(args[0], Obj) and args[0].kind == "optimizer")
        ):
            return None  # a schedule object handed to an optimizer, not an LR scheduler
        if kind[0] == "scheduler" and _constant_schedule(kind[1], node):
            # `get_scheduler("constant", ...)`: a factor of 1 at every step; when or how
            # often it steps, and whether it is saved, never changes the LR
            return ExprVal(node, scope)
        obj = Obj(kind[0], kind[1], kind[2], call=node, scope=scope, path=self.path,
                  line=node.lineno, col=node.col_offset + 1)
        if obj.kind == "scheduler":
            spread = _spread_keywords(node, scope, kwargs)
            if spread is not None:
                obj.spread, obj.scope = spread
        obj.order = self.next_order()
        self.objects.append(obj)
        self.created += 1
        if obj.kind == "scheduler":
            if obj.cls in ("SequentialLR", "ChainedScheduler"):
                children = args[1] if obj.cls == "SequentialLR" and len(args) > 1 else (
                    args[0] if args else kwargs.get("schedulers")
                )
                if obj.cls == "SequentialLR":
                    children = kwargs.get("schedulers", children)
                for child in flatten(children):
                    if isinstance(child, Obj) and child.kind == "scheduler":
                        child.in_composite = True
                        obj.members.append(child)
                        if obj.optimizer is None:
                            obj.optimizer = child.optimizer
            opt_index = 1 if obj.cls == "get_scheduler" else 0
            if obj.cls in ("SequentialLR",) and args:
                opt_index = 0
            candidate = kwargs.get("optimizer")
            if candidate is None and len(args) > opt_index:
                candidate = args[opt_index]
            if obj.origin == "timm" and obj.cls in names.TIMM_SCHEDULER_BUILDERS:
                candidate = args[1] if len(args) > 1 else kwargs.get("optimizer")
            candidate = _the_one_optimizer(candidate)
            if isinstance(candidate, Obj) and candidate.kind == "optimizer":
                obj.optimizer = candidate
            if obj.origin == "timm" and obj.cls in names.TIMM_SCHEDULER_BUILDERS:
                return TupleVal([obj, None])
        self.emit("create", obj, node)
        return obj

    def _gradual_warmup(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any]
                        ) -> Obj | None:
        """The pip package ``warmup_scheduler``'s ``GradualWarmupScheduler(optimizer,
        multiplier, total_epoch, after_scheduler=None)``: a subclass of torch's scheduler base
        that raises the LR over ``total_epoch`` of its own steps, then hands each step to
        ``after_scheduler``. Given an epoch, its ``step(epoch)`` goes to torch's deprecated
        ``step(epoch)`` (its own during the warm-up, the wrapped one's with ``epoch -
        total_epoch`` after it), so it is judged as a scheduler of unknown class that keeps
        torch's step(). With a ReduceLROnPlateau after it, ``step(metrics=..., epoch)`` is
        its own plateau path: nothing is known then."""
        after = kwargs.get("after_scheduler", args[3] if len(args) > 3 else None)
        followers = options(after) if isinstance(after, UnionVal) else [after]
        if not any(isinstance(v, Obj) and v.kind == "optimizer"
                   for v in [args[0] if args else None, kwargs.get("optimizer")]):
            return None
        if any(not (isinstance(f, Obj) and f.kind == "scheduler" and f.origin == "torch"
                    and f.cls != "ReduceLROnPlateau") for f in followers if f is not None):
            return None  # a plateau, or a follower whose class is not known
        obj = self.unknown_class("scheduler", node, args, kwargs)
        obj.torch_step = True
        # after `total_epoch` of its own steps every step is the follower's: the wrapper
        # steps what it is given as often as it is stepped
        obj.members = [f for f in followers if isinstance(f, Obj)]
        return obj

    def _gradual_warmup_subclass(self, cls: ClassInfo, node: ast.Call, args: list[Any],
                                 kwargs: dict[str, Any]) -> Obj | None:
        """The project's own subclass of the pip ``GradualWarmupScheduler`` that keeps the
        package's ``step()`` (``class WarmupV2(GradualWarmupScheduler)`` overriding ``get_lr``
        only): stepped, it does what the package's wrapper does (see ``_gradual_warmup``),
        so it is built as that wrapper is, from what the class hands its base: the call's own
        arguments when the class has no ``__init__`` of its own, or those its ``__init__``
        passes on unchanged to ``super().__init__(...)``. None for a class with its own
        ``step()``, or an ``__init__`` that hands its base anything else."""
        if cls.find("step") is not None \
                or not any(q in _GRADUAL_WARMUP for q in self.qualified_bases(cls)):
            return None
        # (`find` walks the project's classes only: None when none of them has an __init__)
        found = cls.find("__init__")
        given = (args, kwargs) if found is None else _forwarded_to_base(found[0], args, kwargs)
        if given is None:
            return None
        obj = self._gradual_warmup(node, given[0], given[1])
        if obj is not None:
            obj.warmup_wrapper = cls.name
        return obj

    def deepspeed_initialize(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any]
                             ) -> TupleVal:
        """``engine, optimizer, loader, scheduler = deepspeed.initialize(...)``: the optimizer
        and scheduler handed in come back (or ones built from the config, unknown here), and
        the engine steps both."""
        def given(name: str, index: int, kind: str) -> Obj | None:
            value = kwargs.get(name, args[index] if len(args) > index else None)
            return value if isinstance(value, Obj) and value.kind == kind else None

        optimizer = given("optimizer", 2, "optimizer")
        scheduler = given("lr_scheduler", 5, "scheduler")
        if optimizer is None:
            optimizer = self._guessed_obj("optimizer", "optimizer")
        engine = DeepSpeedEngineVal(optimizer, scheduler)
        return TupleVal([engine, optimizer, None, scheduler])

    def method_event(self, receiver: Any, method: str, node: ast.Call, args: list[Any],
                     kwargs: dict[str, Any], scope: Scope) -> Any:
        if isinstance(receiver, DeepSpeedEngineVal):
            if method == "backward":
                self.emit("backward", None, node)
            elif method == "step":
                if receiver.optimizer is not None:
                    self.emit("opt_step", receiver.optimizer, node, engine=True)
                if receiver.scheduler is not None:
                    self.emit("sched_step", receiver.scheduler, node, nargs=0, kwargs=[],
                              engine=True)
            elif method == "save_checkpoint":
                # `engine.save_checkpoint(dir, tag, client_state={...})` writes the engine's
                # optimizer, the scheduler handed to `initialize(lr_scheduler=...)` and what
                # `client_state` holds, and nothing else (a client state the file does not
                # show is left alone)
                given = len(node.args) > 2 or any(k.arg == "client_state" for k in node.keywords)
                state = kwargs.get("client_state", args[2] if len(args) > 2 else None)
                if not given or isinstance(state, DictVal):
                    kept: list[Any] = [o for o in (receiver.optimizer, receiver.scheduler)
                                       if o is not None]
                    if given:
                        kept.append(state)
                    self.emit("save", None, node, value=TupleVal(kept), deepspeed=True)
            return None
        if isinstance(receiver, UnionVal):
            result: Any = _NO_EVENT
            saved = self.conds
            # a call written for the project's own class too (`step(epoch)` of a timm-style
            # scheduler): what it passes the torch option is what that class needs
            # (only an option whose method can take the call's arguments: a project class
            # whose `step(self)` takes none is not what `step(epoch=...)` is written for; nor
            # is a do-nothing stand-in, `def step(self, epoch=None): pass`)
            with_project = any(isinstance(o, InstanceVal) and _may_take(o, method, node)
                               and _does_something(o, method, node)
                               for o in options(receiver))
            here = setting_tests(saved)
            for option, picks in _union_leaves(receiver):
                # one option per run of each exclusive choice on the way to it (a loop over
                # several choices steps one option of each): its calls sit on exclusive
                # branches of that choice
                if picks and here and isinstance(option, Obj) and settings_disagree(
                        setting_tests(option.built_under or ()), here):
                    # `if opt.lr_policy == "plateau": sched.step(metric)` never runs on the
                    # option built under `elif opt.lr_policy == "step":`
                    continue
                # (the key also says how many options the choice has)
                self.conds = (*saved, *_choice_conds(picks))
                try:
                    if isinstance(option, InstanceVal):
                        # the project's own scheduler class on one branch of the choice: its
                        # method runs as it would on that class alone
                        found = option.info.find(method)
                        got = _NO_EVENT if found is None else self.call_function(
                            FuncVal(found[0], found[1].module, option, found[1]), args, kwargs,
                            call=node)
                        if found is None and self.inherited_state_load(option, method, node):
                            got = None
                    else:
                        saved_project, self.project_option = self.project_option, with_project
                        try:
                            got = self.method_event(option, method, node, args, kwargs, scope)
                        finally:
                            self.project_option = saved_project
                finally:
                    self.conds = saved
                if got is not _NO_EVENT:
                    result = got
            return result
        if method == "backward":
            if isinstance(receiver, ScaledVal):
                self.emit("scale_backward", receiver.scaler, node)
            else:
                self.emit("backward", None, node)
            return None
        if isinstance(receiver, ParamGroupVal) and method == "update":
            if "lr" in kwargs or any(isinstance(a, DictVal) and "lr" in a.items for a in args):
                self.emit("lr_write", receiver.optimizer, node)
            return None
        if isinstance(receiver, DictVal):
            if method == "update":
                self.grow_dict(receiver, [a for a in args if isinstance(a, DictVal)], kwargs)
                return None
            if method in ("get", "pop") and node.args:
                key = const_key(node.args[0])
                if key is None and not receiver.open:
                    # `SCHEDULERS.get(args.sched)`: a key its setting's default states
                    key = _certain_key(node.args[0], args[0] if args else None, scope)
                if key is None:
                    return None
                found = receiver.items.get(key)
                if found is None and receiver.open and isinstance(key, str):
                    # `kwargs.pop("scheduler", None)`: the caller may well have passed one
                    found = self.guess(key)
                if found is None and len(args) > 1:
                    found = args[1]
                return found
            if method == "items":
                return ItemsVal(receiver)
            if method == "values":
                return UnionVal(list(receiver.items.values()))
            return _NO_EVENT
        if isinstance(receiver, TupleVal):
            added = (
                [args[0]] if method in ("append", "add") and args
                else [args[1]] if method == "insert" and len(args) > 1
                else list(args[0].items) if method == "extend" and args
                and isinstance(args[0], TupleVal)
                else None
            )
            if added is not None:
                for rec in self.recordings:
                    rec.mutate(receiver)
                self.generation += 1
                receiver.items.extend(added)
                return None
            return _NO_EVENT
        if not isinstance(receiver, Obj):
            return _NO_EVENT
        if method == "state_dict":
            return StateDictVal(receiver)
        if method == "load_state_dict":
            self.emit("load_state", receiver, node)
            return None
        if receiver.kind == "optimizer":
            if method == "step":
                self.emit("opt_step", receiver, node)
            elif method == "zero_grad":
                self.emit("zero_grad", receiver, node)
            else:
                return _NO_EVENT
            return None
        if receiver.kind == "scheduler":
            if method == "step" and receiver.guessed and not receiver.torch_step \
                    and _step_arity(node) >= 3:
                # a "scheduler" known only by its name, stepped with three arguments or more
                # (`scheduler.step(noise_pred, t, latents)`: a diffusion sampler's noise
                # schedule): an LR scheduler's step takes an epoch, or a metric and an epoch
                return _NO_EVENT
            if method == "step":
                self.emit("sched_step", receiver, node, nargs=len(node.args),
                          kwargs=[kw.arg for kw in node.keywords],
                          project_option=self.project_option,
                          forwarded=self._forwards_optional_epoch(node, scope))
            elif method == "step_update":
                self.emit("sched_step_update", receiver, node)
            elif method == "get_lr":
                self.emit("get_lr", receiver, node)
            else:
                return _NO_EVENT
            return None
        if receiver.kind == "scaler":
            if method == "scale":
                return ScaledVal(receiver)
            target = args[0] if args else kwargs.get("optimizer")
            target_obj = target if isinstance(target, Obj) else None
            if method == "step":
                self.emit("scaler_step", receiver, node, optimizer=target_obj)
            elif method == "update":
                self.emit("scaler_update", receiver, node)
            elif method == "unscale_":
                self.emit("unscale", receiver, node, optimizer=target_obj)
            else:
                return _NO_EVENT
            return None
        return _NO_EVENT

    def native_scaler_call(self, scaler: Obj, node: ast.Call, args: list[Any],
                           kwargs: dict[str, Any], scope: Scope) -> None:
        """``loss_scaler(loss, optimizer, clip_grad=None, clip_mode="norm", parameters=None,
        create_graph=False, need_update=True)`` on timm's NativeScaler: the scaled backward,
        then, when ``need_update`` holds (the boundary of an accumulation), ``unscale_`` and a
        clip where ``clip_grad`` is given, ``scaler.step(optimizer)`` and ``update()``."""
        self.emit("scale_backward", scaler, node)
        optimizer = args[1] if len(args) > 1 else kwargs.get("optimizer")
        if not (isinstance(optimizer, Obj) and optimizer.kind == "optimizer"):
            return
        need = next((k.value for k in node.keywords if k.arg == "need_update"), None)
        if isinstance(need, ast.Constant) and not need.value:
            return  # the backward of a micro-batch: no step
        saved = self.conds
        if need is not None and not isinstance(need, ast.Constant):
            self.conds = (*saved, self.branch_cond(node, 0, need, scope))
        try:
            clip = node.args[2] if len(node.args) > 2 else next(
                (k.value for k in node.keywords if k.arg == "clip_grad"), None)
            if clip is not None and not (isinstance(clip, ast.Constant) and clip.value is None):
                self.emit("unscale", scaler, node, optimizer=optimizer)
                self.emit("clip", None, node)
            self.emit("scaler_step", scaler, node, optimizer=optimizer)
            self.emit("scaler_update", scaler, node)
        finally:
            self.conds = saved

    def grow_dict(self, receiver: DictVal, others: list[DictVal],
                  kwargs: dict[str, Any] | None = None) -> None:
        """``d.update(other, k=v)`` / ``d |= other``: the dict itself gains the items (every
        name bound to it sees them)."""
        for rec in self.recordings:
            rec.mutate(receiver)
        self.generation += 1
        for other in others:
            receiver.items.update(other.items)
            receiver.splat = receiver.splat or other.splat
            receiver.open = receiver.open or other.open
        for k, v in (kwargs or {}).items():
            receiver.items[k] = v

    # -- events --------------------------------------------------------------------------

    def next_order(self) -> int:
        self.order += 1
        return self.order

    def emit(self, kind: str, obj: Obj | None, node: ast.AST, **info: Any) -> None:
        if kind == "create" and obj is not None and obj.built_under is None:
            # the branches it was created on, to tell which option of a choice a call under
            # a test of the same setting can reach
            obj.built_under = self.conds
        if self.accumulating:
            info.setdefault("accumulating", self.accumulating[-1])
        if self.per_update:
            # in a LightningModule's optimizer_step override: once per update, whatever
            # `accumulate_grad_batches` makes of Lightning's batches
            info.setdefault("per_update", True)
        if kind != "create" and impossible_path(self.conds):
            # on branches that never run together (see Cond.strings): nothing happens here on
            # this path, but the same call from another may do it, so what this call did is
            # neither summarised nor kept as inert for later calls
            self.impossible += 1
            for rec in self.recordings:
                rec.spoiled = True
            return
        self.events.append(
            Event(kind, obj, node, self.path, self.loop, self.conds, self.next_order(),
                  self.root, info, self.frame)
        )


# in-place tensor methods that change the value of an LR held as a tensor
_LR_TENSOR_WRITES = frozenset({"fill_", "copy_", "mul_", "div_", "add_", "sub_", "clamp_",
                               "lerp_"})


def _runner_of(value: Any) -> RunnerVal | None:
    """The Accelerator / Fabric ``value`` is: itself, an instance of a project subclass of
    one, or ``super()`` in a method of such a subclass."""
    if isinstance(value, RunnerVal):
        return value
    if isinstance(value, InstanceVal):
        return value.runner
    if isinstance(value, SuperVal):
        return value.instance.runner
    return None


def _runner_copy(cls: ClassInfo) -> str | None:
    """"accelerator" / "fabric" when ``cls`` is the project's own definition of one of
    _RUNNER_CLASSES: the class of that name in the module of that dotted path (the repository
    checked is the library, or holds a copy of it)."""
    for qual, kind in _RUNNER_CLASSES.items():
        module, _, name = qual.rpartition(".")
        if cls.name != name:
            continue
        path = "/" + cls.module.path.replace(os.sep, "/")
        stem = "/" + module.replace(".", "/")
        if path.endswith((stem + ".py", stem + "/__init__.py")):
            return kind
    return None


def _accelerator(runner: str, call: ast.Call | None,
                 kwargs: dict[str, Any] | None = None) -> RunnerVal:
    """The RunnerVal of a call of Accelerate's ``Accelerator`` (or Lightning's ``Fabric``):
    what it accumulates over, whether it steps a prepared scheduler on every call, and whether
    it runs float16 mixed precision. ``kwargs``: the call's keyword values as the trace holds
    them, where known."""
    if runner == "fabric" and call is not None:
        return RunnerVal(runner, half=_fabric_half(call, kwargs or {}))
    if runner != "accelerator" or call is None:
        return RunnerVal(runner)
    return RunnerVal(runner, _accumulation_count(call), _scheduler_unsynced(call),
                     _half_precision(call, kwargs or {}))


def _half_precision(call: ast.Call, kwargs: dict[str, Any]) -> str | None:
    """``RunnerVal.half`` of ``Accelerator(...)``: "" for ``mixed_precision="fp16"`` (also as
    the value a name holds, a literal the trace knows) or ``fp16=True``; the setting's text for
    a setting read (``mixed_precision=args.mixed_precision``, ``fp16=cfg.amp``, a plain name
    or attribute or subscript chain); None for any other precision ("bf16", "no"), for one
    not written in the call (chosen at launch by ``accelerate config``), and for an expression
    that picks it (``"bf16" if bf16_ok else "fp16"``: by the hardware, not a setting)."""
    for kw in call.keywords:
        if kw.arg not in ("mixed_precision", "fp16"):
            continue
        held = kwargs.get(kw.arg)
        wanted: Any = "fp16" if kw.arg == "mixed_precision" else True
        if isinstance(kw.value, ast.Constant):
            return "" if kw.value.value == wanted else None
        if isinstance(held, Const) and held.sure:
            return "" if held.value == wanted else None
        if isinstance(held, Const) and held.value != wanted:
            return None  # a literal default that is not float16 (`mixed_precision="no"`)
        return _read_as_written(kw.value)
    return None


def _read_as_written(value: ast.expr) -> str | None:
    """The text of a setting read as it is (``args.precision``, ``cfg["amp"]["mode"]``: a name,
    its attributes and literal keys), None for any other expression (one that picks it)."""
    chain = value
    while isinstance(chain, (ast.Attribute, ast.Subscript)):
        if isinstance(chain, ast.Subscript) and not isinstance(chain.slice, ast.Constant):
            return None
        chain = chain.value
    return ast.unparse(value) if isinstance(chain, ast.Name) else None


_FABRIC_FLOAT16 = ("16-mixed", "16", 16)


def _fabric_half(call: ast.Call, kwargs: dict[str, Any]) -> str | None:
    """``RunnerVal.half`` of ``Fabric(...)``: "" for ``precision="16-mixed"`` (or its older
    spellings ``16`` / ``"16"``; also as the value a name holds, a literal the trace knows),
    whose precision plugin steps the optimizer through a GradScaler; the setting's text for a
    setting read (``precision=args.precision``); None for any other precision ("bf16-mixed",
    "16-true", which scales nothing, "32-true"), for one not written in the call, and for an
    expression that picks it."""
    for kw in call.keywords:
        if kw.arg != "precision":
            continue
        held = kwargs.get(kw.arg)
        if isinstance(kw.value, ast.Constant):
            return "" if kw.value.value in _FABRIC_FLOAT16 else None
        if isinstance(held, Const) and held.sure:
            return "" if held.value in _FABRIC_FLOAT16 else None
        if isinstance(held, Const) and held.value not in _FABRIC_FLOAT16:
            return None
        return _read_as_written(kw.value)
    return None


def _scheduler_unsynced(call: ast.Call) -> bool:
    """``Accelerator(step_scheduler_with_optimizer=False)``: a prepared scheduler's step()
    steps the scheduler it wraps every time it is called, whether the optimizer updated or not
    (the default, True, steps it only with the real updates). Only a literal False counts."""
    return any(kw.arg == "step_scheduler_with_optimizer" and isinstance(kw.value, ast.Constant)
               and kw.value.value is False for kw in call.keywords)


def _accumulation_count(call: ast.Call) -> ast.expr | None:
    """What ``Accelerator(...)`` accumulates over: its ``gradient_accumulation_steps`` unless a
    literal 1 (the default), or the ``gradient_accumulation_plugin`` it is handed."""
    for kw in call.keywords:
        if kw.arg == "gradient_accumulation_steps":
            literal = isinstance(kw.value, ast.Constant) and kw.value.value == 1
            return None if literal else kw.value
        if kw.arg == "gradient_accumulation_plugin" and not (
                isinstance(kw.value, ast.Constant) and kw.value.value is None):
            return kw.value
    return None


_NO_EVENT = object()
# builtin types no scheduler object is an instance of
_PLAIN_TYPES = frozenset({"dict", "list", "tuple", "set", "frozenset", "str", "bytes", "int",
                          "float", "bool", "complex"})
_NOT_KEPT = object()


def _optimizer_state_reader(qual: str) -> bool:
    """torch's functions that return an optimizer's state dict taken through the model it
    trains, for sharded training: FSDP's ``optim_state_dict`` (and its older ``full_`` /
    ``sharded_`` forms) and ``torch.distributed.checkpoint.state_dict``'s
    ``get_optimizer_state_dict(model, optimizers)``."""
    if not qual.startswith("torch.distributed."):
        return False
    cls, _, last = qual.rpartition(".")
    if last == "get_optimizer_state_dict":
        return True
    return cls.rsplit(".", 1)[-1] == "FullyShardedDataParallel" and last in (
        "optim_state_dict", "full_optim_state_dict", "sharded_optim_state_dict")


# library classes whose instances run the training for the user (see RunnerVal): the methods
# of an instance are read as `accelerator.<method>` / `fabric.<method>`, under any name
_RUNNER_CLASSES = {
    "accelerate.Accelerator": "accelerator",
    "accelerate.accelerator.Accelerator": "accelerator",
    "lightning.Fabric": "fabric",
    "lightning.fabric.Fabric": "fabric",
    "lightning.fabric.fabric.Fabric": "fabric",
    "lightning_fabric.Fabric": "fabric",
    "lightning_fabric.fabric.Fabric": "fabric",
}
_PLAIN = (Const, ExprVal, ImportRef, FuncVal, ClassVal)
# keyword arguments of wrapping calls that carry the objects they hand back
_WRAPPED_KEYWORDS = frozenset(
    {"model", "models", "module", "optimizer", "optimizers", "scheduler", "lr_scheduler",
     "dataloader", "data_loader", "train_dataloader", "training_data"}
)
_UPDATES = frozenset({"opt_step", "scaler_step", "backward", "scale_backward"})


def _manual_optimization(info: ClassInfo, depth: int = 0) -> bool:
    """A LightningModule with ``self.automatic_optimization = False`` (or a property returning
    False): Lightning then steps neither the optimizers nor the schedulers that
    configure_optimizers returns; the module's own code does, and is traced as such."""
    value = info.self_assigns.get("automatic_optimization")
    if isinstance(value, ast.Constant) and value.value is False:
        return True
    prop = info.methods.get("automatic_optimization")
    if prop is not None and any(
        isinstance(n, ast.Return) and isinstance(n.value, ast.Constant) and n.value.value is False
        for n in ast.walk(prop)
    ):
        return True
    return depth < 8 and any(_manual_optimization(b, depth + 1) for b in info.base_classes())


def _updates_only_in_inner_batches(loop: Loop, update_loops: list[Loop]) -> bool:
    """Every optimizer step inside ``loop`` runs in a batch loop nested in it."""
    inside = [u for u in update_loops if loop in u.ancestors()]
    return bool(inside) and all(
        any(a is not loop and a.batch and loop in a.ancestors() and not _repeats(a)
            for a in u.ancestors())
        for u in inside
    )


def _repeats(loop: Loop) -> bool:
    """``for _ in range(n_critic): ...`` inside the batch loop: the same batch's update made
    n times (a GAN's critic steps), reading nothing the loop binds; not a loop over batches of
    a chunk the outer item holds."""
    node = loop.node
    if loop.iterates_loader or not isinstance(node, (ast.For, ast.AsyncFor)) \
            or not (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                    and node.iter.func.id == "range"):
        return False
    read = {n.id for stmt in node.body for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return not (loop.targets & read)


# the keywords that size a scheduler's horizon, in torch's and transformers' signatures
_HORIZON_KEYWORDS = frozenset(
    {p for kind in SCHEDULERS.values() for p, _ in kind.horizon_params}
    | {"num_training_steps", "num_warmup_steps"}
)


def _annotated_kind(node: ast.expr | None, module: ModuleInfo) -> str:
    """"optimizer" / "scheduler" / "scaler" / "loader" for an annotation naming torch's
    class (through the module's imports; ``Optional[X]`` and ``X | None`` read as ``X``)."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        kinds = {_annotated_kind(node.left, module), _annotated_kind(node.right, module)} - {""}
        return kinds.pop() if len(kinds) == 1 else ""
    if isinstance(node, ast.Subscript) and (dotted(node.value) or "").rsplit(".", 1)[-1] \
            == "Optional":
        return _annotated_kind(node.slice, module)
    text = dotted(node)
    if not text:
        return ""
    qual = module.qualify(text)
    if not qual.startswith("torch."):
        return ""
    last = qual.rsplit(".", 1)[-1]
    if ".lr_scheduler." in qual and (last in SCHEDULERS or last in ("LRScheduler", "_LRScheduler")):
        return "scheduler"
    if qual in ("torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"):
        return "optimizer"
    if last in names.SCALER_CLASSES:
        return "scaler"
    if last in names.LOADER_CLASSES:
        return "loader"
    return ""


def _parameters_argument(node: ast.expr) -> bool:
    """What an optimizer is built from: ``model.parameters()``, or a list of param groups
    (dicts with a ``"params"`` key)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "parameters" and not node.args:
        return True
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and all(
        isinstance(e, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "params"
                                        for k in e.keys)
        for e in node.elts
    )


_SCHEDULER_CLASS = re.compile(
    r"^(?=[A-Z])\w*(LR|Lr|LearningRate)\w*(Scheduler|Schedule|Sched|Policy)$"
    r"|^[A-Z]\w*[a-z0-9]LR$")


def _scheduler_class_name(call: ast.Call) -> bool:
    """``WarmupPolyLrScheduler(...)``, ``lib.PolyLR(...)``, ``LearningRateSchedule(...)``: a
    call of a class (a capitalised name) whose name says it schedules the learning rate (an LR
    scheduler, schedule or policy, or a name ending in ``LR`` as torch's own: ``PolyLR``,
    ``WarmupMultiStepLR``). A scheduler of something else (``WeightDecayScheduler``) or another
    LR tool (``LRFinder``) is not one."""
    name = dotted(call.func) or ""
    return bool(name) and bool(_SCHEDULER_CLASS.search(name.rsplit(".", 1)[-1]))


def _chosen_at_run_time(call: ast.Call, scope: Scope) -> bool:
    """The callee is picked while the program runs: ``REGISTRY[name](...)``,
    ``registry.get(name)(...)``, ``getattr(module, name)(...)``, or a local variable bound to
    something lrdoctor cannot see (not a name imported from a library)."""
    func = call.func
    if isinstance(func, (ast.Call, ast.Subscript)):
        return True
    return isinstance(func, ast.Name) and func.id in scope.vars \
        and isinstance(scope.vars.get(func.id), (ExprVal, type(None)))


def _project_instance(value: Any) -> bool:
    """``value`` is a project instance: one object (``trainer = Trainer(cfg)``) or one of
    several chosen by a setting (``if opts.trainer == "A": trainer = ATrainer(cfg)`` /
    ``else: trainer = BTrainer(cfg)``), each option an instance."""
    if isinstance(value, InstanceVal):
        return True
    return isinstance(value, UnionVal) and value.exclusive and bool(value.options) \
        and all(isinstance(o, InstanceVal) for o in value.options)


def _rebinds_on_one_side(stmt: ast.If, name: str, plain: bool) -> bool:
    """Exactly one of the two branches of ``stmt`` rebinds ``name`` (a plain name when
    ``plain``, else ``self.name``), in a statement of its own (not in a nested function)."""
    def binds(body: list[ast.stmt]) -> bool:
        for node in (n for st in body for n in ast.walk(st)):
            if plain and isinstance(node, ast.Name) and node.id == name \
                    and isinstance(node.ctx, ast.Store):
                return True
            if not plain and isinstance(node, ast.Attribute) and node.attr == name \
                    and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self":
                return True
        return False
    return binds(stmt.body) != binds(stmt.orelse)


def _training_loops(loops: list[Loop], events: list[Event]) -> list[Loop]:
    """Loops that are batch loops by what they do, whatever their iterable is called: a
    ``for`` over something other than ``range`` (an iterator, a generator, a loader lrdoctor
    could not see built) whose header says nothing, in no batch loop, and whose own body runs
    a backward pass and an optimizer step on every iteration. ``for x in batches:`` and
    ``for i, x in enumerate(it):`` train on one batch per pass. A ``range`` loop or a ``while``
    loop may be anything (a full-batch epoch loop), and stays what its header says; one whose
    header says "iterations" (``while it < total_iters:``) but that only holds such a ``for``
    (its own body steps nothing) leaves that ``for`` a batch loop."""
    stepped: set[int] = set()  # loops whose own body (not a nested loop) steps an optimizer
    backward: set[int] = set()  # loops with a backward pass in them, at any depth
    for e in events:
        if e.loop is None:
            continue
        if e.kind in ("opt_step", "scaler_step"):
            stepped.add(e.loop.id)
        elif e.kind in ("backward", "scale_backward"):
            backward.update(lp.id for lp in e.loop.ancestors())
    found = []
    for loop in loops:
        if loop.hint or loop.iterates_loader or loop.id not in stepped \
                or loop.id not in backward or not isinstance(loop.node, (ast.For, ast.AsyncFor)) \
                or _range_args(loop.node.iter) or loop.node.iter is None:
            continue
        # an enclosing loop over a loader is the batch loop; one that is an iteration loop only
        # by its header (`while it < total_iters:`) is the batch loop when it steps in its own
        # body, and else the loop around the pass over the data (`for data in it:` steps)
        if any(a.iterates_loader or (a.hint == "batch" and a.id in stepped)
               for a in loop.ancestors() if a is not loop):
            continue
        if isinstance(loop.node.iter, (ast.List, ast.Tuple)) and any(
                a.hint == "batch" for a in loop.ancestors() if a is not loop):
            continue  # `for opt in [g_opt, d_opt]:` inside the update loop: not over data
        found.append(loop)
    return found


def _micro_batch_loop(loop: Loop, stepping: set[int]) -> bool:
    """`for i in range(accum_steps): loss.backward()` with the optimizer step after it, in the
    enclosing `for step in range(max_steps)`: the inner loop feeds one update of the outer one
    (gradient accumulation), so the outer loop is the update loop, not an epoch loop. A loop
    over a data loader keeps making its parent an epoch loop (a whole-epoch accumulation)."""
    return (
        loop.batch and not loop.iterates_loader and loop.id not in stepping
        and loop.parent is not None and loop.parent.id in stepping
    )


_IGNITE_EVENTS = frozenset({"STARTED", "EPOCH_STARTED", "ITERATION_STARTED",
                            "ITERATION_COMPLETED", "EPOCH_COMPLETED", "COMPLETED"})
# Ignite's wrappers of a torch scheduler as an event handler
_IGNITE_LR_WRAPPERS = frozenset({"LRScheduler", "create_lr_scheduler_with_warmup"})
# events whose LRScheduler steps are taken where the pass ends (see run_engine)
_IGNITE_LR_DEFERRED = frozenset({"ITERATION_STARTED", "EPOCH_STARTED"})


def _ignite_step_call(node: ast.Call, handler: ast.expr | None = None) -> ast.Call:
    """``handler.step()`` at the place of ``engine.add_event_handler(event, handler)``: the
    scheduler step Ignite takes for the handler, as the rules read a step (no epoch, no
    metric), made once per call and kept on it. ``handler``: the expression of the scheduler
    when it is not the call's second argument (``setup_common_training_handlers(...,
    lr_scheduler=sched)``)."""
    made: ast.Call | None = getattr(node, "_lrdoctor_ignite_step", None)
    if made is None:
        attribute = ast.copy_location(ast.Attribute(
            value=node.args[1] if handler is None else handler, attr="step", ctx=ast.Load()),
            node)
        made = ast.copy_location(ast.Call(func=attribute, args=[], keywords=[]), node)
        made.end_lineno, made.end_col_offset = node.end_lineno, node.end_col_offset
        attribute.end_lineno, attribute.end_col_offset = node.end_lineno, node.end_col_offset
        node._lrdoctor_ignite_step = made  # type: ignore[attr-defined]
    return made


def _ignite_scaler_call(node: ast.Call, method: str) -> ast.Call:
    """``scaler.<method>(...)`` at the place of the ``create_supervised_trainer`` call whose
    engine makes it on every batch, made once per call and kept on it."""
    made: dict[str, ast.Call] = getattr(node, "_lrdoctor_ignite_scaler_calls", None) or {}
    if method not in made:
        attribute = ast.copy_location(ast.Attribute(
            value=ast.copy_location(ast.Name(id="scaler", ctx=ast.Load()), node),
            attr=method, ctx=ast.Load()), node)
        call = ast.copy_location(ast.Call(func=attribute, args=[], keywords=[]), node)
        for part in (call, attribute, attribute.value):
            part.end_lineno, part.end_col_offset = node.end_lineno, node.end_col_offset
        made[method] = call
        node._lrdoctor_ignite_scaler_calls = made  # type: ignore[attr-defined]
    return made[method]


def _switched_by(expr: ast.expr, owner: ast.AST, on: Callable[[Any], bool]
                 ) -> bool | ast.expr:
    """Whether the argument ``expr`` turns a setting on (``on`` of its value): True or False
    for a literal, or for a local name bound only to literals that all agree; for a name bound
    to literals that disagree, the test of the ``if`` whose branches bind the two (``if
    cfg.fp16: scaler = True`` ``else: scaler = False``: ``cfg.fp16``), else the name itself;
    any other expression is a switch of the user's, itself."""
    if isinstance(expr, ast.Constant):
        return on(expr.value)
    if not isinstance(expr, ast.Name):
        return expr
    bound: list[tuple[ast.stmt, Any]] = []
    for stmt in ast.walk(owner):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and stmt is not owner:
            continue
        pairs: list[tuple[ast.expr, ast.expr | None]] = []
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                pairs.extend(_bound_pairs(target, stmt.value))
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            pairs.append((stmt.target, None))
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            targets = [stmt.target] if isinstance(stmt, (ast.For, ast.AsyncFor)) \
                else [i.optional_vars for i in stmt.items if i.optional_vars is not None]
            pairs.extend((t, None) for t in targets)
        for target, value in pairs:
            if any(isinstance(n, ast.Name) and n.id == expr.id for n in ast.walk(target)):
                if not (isinstance(target, ast.Name) and isinstance(value, ast.Constant)):
                    return expr  # bound to something computed: a switch of its own
                bound.append((stmt, on(value.value)))  # type: ignore[arg-type]
    if not bound:
        return expr  # a parameter or a global: a switch of the caller's
    if all(v for _, v in bound) or not any(v for _, v in bound):
        return bound[0][1]
    for test in ast.walk(owner):
        if not isinstance(test, ast.If) or not test.orelse:
            continue
        ons = [v for s, v in bound if _holds(test.body, s)]
        offs = [v for s, v in bound if _holds(test.orelse, s)]
        if len(ons) + len(offs) == len(bound) and ons and offs:
            if all(ons) and not any(offs):
                return test.test
            if all(offs) and not any(ons):
                return ast.UnaryOp(op=ast.Not(), operand=test.test)
    return expr


def _bound_pairs(target: ast.expr, value: ast.expr | None
                 ) -> list[tuple[ast.expr, ast.expr | None]]:
    """``a, b = "amp", True``: each name with the value it gets (None when unknown)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in target.elts):
            return [p for t, v in zip(target.elts, value.elts) for p in _bound_pairs(t, v)]
        return [(t, None) for t in target.elts]
    return [(target, value)]


def _holds(body: list[ast.stmt], stmt: ast.stmt) -> bool:
    """Whether ``stmt`` is one of the statements of ``body`` or nested in them."""
    return any(node is stmt for part in body for node in ast.walk(part))


def _torch_schedulers(value: Any) -> bool:
    """Whether ``value`` is a torch scheduler lrdoctor tracks, or a choice of only such."""
    found = options(value) if isinstance(value, UnionVal) else [value]
    return bool(found) and all(isinstance(o, Obj) and o.kind == "scheduler" for o in found)


def _takes_positional(func: FuncVal, count: int) -> bool:
    """Whether ``func`` (its bound ``self`` and preset arguments aside) accepts ``count``
    positional arguments."""
    spec = func.fn.args
    if spec.vararg is not None:
        return True
    slots = len(spec.posonlyargs) + len(spec.args)
    if func.bound is not None:
        slots -= 1
    if func.preset is not None:
        slots -= len(func.preset[0])
    return slots >= count


def _ignite_event(node: ast.expr) -> str:
    """``Events.EPOCH_STARTED`` (or ``Events.ITERATION_COMPLETED(every=10)``): the name of
    the level the handler runs at. A filtered event keeps its level when it fires every n-th
    time for a literal n (every 10th batch is still a step per so many batches: sized in
    batches, not epochs); every ``len(loader)`` iterations is once per epoch; ``once=``,
    ``before=`` / ``after=`` and ``event_filter=``, or an ``every=`` of a size not known
    here, fire at times lrdoctor cannot tell: no level ("")."""
    call = node if isinstance(node, ast.Call) else None
    if call is not None:
        node = call.func
    name = node.attr if isinstance(node, ast.Attribute) else ""
    if name not in _IGNITE_EVENTS:
        return ""
    if call is None or not (call.args or call.keywords):
        return name
    every = call.keywords[0].value if len(call.keywords) == 1 and not call.args \
        and call.keywords[0].arg == "every" else None
    if every is None:
        return ""
    if isinstance(every, ast.Constant) and isinstance(every.value, int) \
            and not isinstance(every.value, bool):
        return name
    if name.startswith("ITERATION_") and isinstance(every, ast.Call) \
            and isinstance(every.func, ast.Name) and every.func.id == "len" \
            and len(every.args) == 1 and not every.keywords \
            and names.guess_kind_from_name(dotted(every.args[0]) or "") == "loader":
        return "EPOCH_COMPLETED"  # the last batch of every epoch
    return name if name.startswith("EPOCH_") else ""


def _the_one_optimizer(value: Any) -> Any:
    """``value``, or the optimizer it can only be: ``opts[k]`` of a list filled by one
    constructor call (``for k in ...: opts.append(SGD(...))``) is a union of that one object,
    each element an instance of it, so a scheduler built on ``opts[k]`` drives it (and not an
    optimizer of another list stepped beside it). A union of several objects stays unknown."""
    if not isinstance(value, UnionVal):
        return value
    held = {id(o): o for o in options(value) if o is not None}
    if len(held) != 1:
        return value
    only = next(iter(held.values()))
    return only if isinstance(only, Obj) and only.kind == "optimizer" else value


def _wrapped_schedulers(args: list[Any], kwargs: dict[str, Any]) -> list[Obj]:
    """The schedulers a library call lrdoctor does not know is given together with an
    optimizer. Such a call whose value is kept (``GradualWarmupScheduler(optimizer, ...,
    after_scheduler=cosine)``) builds a scheduler that drives the ones it is given: their steps
    and state belong to the wrapper (the caller marks them)."""
    given = [*args, *kwargs.values()]
    if not any(isinstance(v, Obj) and v.kind == "optimizer" for v in given):
        return []
    out: list[Obj] = []
    for value in given:
        # `after_scheduler=scheduler` where a setting chose among several: all of them
        for option in options(value) if isinstance(value, UnionVal) else [value]:
            if isinstance(option, Obj) and option.kind == "scheduler":
                out.append(option)
    return out


def _forwarded_to_base(init: ast.FunctionDef | ast.AsyncFunctionDef, args: list[Any],
                       kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]] | None:
    """What ``init``'s one ``super().__init__(...)`` call hands the base class, from the
    values the traced call gave ``init`` (``args`` after ``self``, ``kwargs``): each argument
    there must be a parameter of ``init`` that it never rebinds, passed on as it came (a
    parameter left out of the call holds its default, read only when it is ``None``). None
    for anything else: a computed argument, ``*args``/``**kwargs`` anywhere, several calls."""
    supers = [n for n in ast.walk(init) if super_call(n, "__init__")]
    spec = init.args
    if len(supers) != 1 or spec.vararg or spec.kwarg or spec.posonlyargs or spec.kwonlyargs:
        return None
    params = [a.arg for a in spec.args[1:]]
    defaults = dict(zip(params[len(params) - len(spec.defaults):], spec.defaults))
    if len(args) > len(params) or any(k not in params for k in kwargs):
        return None
    bound: dict[str, Any] = dict(zip(params, args))
    for name in params:
        if name in kwargs:
            if name in bound:
                return None
            bound[name] = kwargs[name]
        elif name not in bound:
            default = defaults.get(name)
            if not (isinstance(default, ast.Constant) and default.value is None):
                return None
            bound[name] = None
    rebound = {t.id for n in ast.walk(init) if isinstance(n, (ast.Assign, ast.AugAssign,
                                                              ast.AnnAssign))
               for target in (n.targets if isinstance(n, ast.Assign) else [n.target])
               for t in ast.walk(target) if isinstance(t, ast.Name)}
    call = supers[0]

    def passed(expr: ast.expr) -> Any:
        if isinstance(expr, ast.Name) and expr.id in bound and expr.id not in rebound:
            return bound[expr.id]
        raise LookupError(expr)

    try:
        if any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return None
        return [passed(a) for a in call.args], {k.arg: passed(k.value) for k in call.keywords
                                                if k.arg is not None}
    except LookupError:
        return None


# the pip package warmup_scheduler's warm-up wrapper (see Tracer._gradual_warmup)
_GRADUAL_WARMUP = frozenset({"warmup_scheduler.GradualWarmupScheduler",
                             "warmup_scheduler.scheduler.GradualWarmupScheduler"})


# a comprehension over tracked objects is evaluated per object up to this many of them
_MAX_COMPREHENDED = 16


_Picks = tuple[tuple[int, int, int], ...]



def _may_take(instance: InstanceVal, method: str, node: ast.Call) -> bool:
    """Whether the project class's ``method`` can take the keywords the call passes: a call
    naming ``epoch=`` is not written for a class whose ``step(self)`` has no such parameter
    (it would raise there). Positional arguments are left open: ``step(value)`` on a choice may
    be meant for another option (a plateau scheduler's metric) that lrdoctor does not pair."""
    found = instance.info.find(method)
    if found is None:
        return True
    params = found[0].args
    if params.kwarg is not None:
        return True
    names = {a.arg for a in [*params.posonlyargs, *params.args][1:] + params.kwonlyargs}
    return all(k.arg is None or k.arg in names for k in node.keywords)


def _does_something(instance: InstanceVal, method: str, node: ast.Call) -> bool:
    """Whether the project class's ``method`` does anything with a call that passes it
    arguments: a do-nothing stand-in (``def step(self, epoch=None): pass``, the "no
    scheduler" option of a choice) accepts ``step(epoch=...)`` but is not what the call is
    written for; the call's arguments serve the other options. A method lrdoctor cannot see
    counts as doing something."""
    found = instance.info.find(method)
    if found is None or not (node.args or node.keywords):
        return True
    return not all(_inert_statement(stmt) for stmt in found[0].body)


def _inert_statement(stmt: ast.stmt) -> bool:
    """``pass``, a docstring or ``...``, ``return`` / ``return None``."""
    if isinstance(stmt, ast.Pass):
        return True
    if isinstance(stmt, ast.Expr):
        return isinstance(stmt.value, ast.Constant)
    if isinstance(stmt, ast.Return):
        return stmt.value is None or isinstance(stmt.value, ast.Constant) \
            and stmt.value.value is None
    return False


def _instance_members(value: Any) -> UnionVal | None:
    """The project's own objects a container holds (the hooks or callbacks a runner keeps
    in a list), when it holds nothing else lrdoctor knows (an item it cannot tell, a hook of
    a class it could not read, is left out): each of them, one union. The values of a dict
    of them (``for head in heads.values()``) are such a pass too."""
    if isinstance(value, UnionVal) and not value.exclusive and value.options \
            and all(isinstance(o, InstanceVal) for o in value.options):
        return UnionVal(list(value.options))
    if not isinstance(value, TupleVal) or not value.items:
        return None
    found: list[Any] = []
    for item in value.items:
        for option in options(item) if isinstance(item, UnionVal) else [item]:
            if option is None:
                continue
            if not isinstance(option, InstanceVal):
                return None
            found.append(option)
    return UnionVal(found) if found else None


def _class_name_test(test: ast.expr) -> tuple[ast.expr, frozenset[str], bool] | None:
    """``x.__class__.__name__ in {"A", "B"}`` / ``type(x).__name__ == "A"`` (and ``!=``,
    ``not in``): the object tested, the class names, and whether the test is negated."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn))):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant) and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        left, right = right, left
    if not (isinstance(left, ast.Attribute) and left.attr == "__name__"):
        return None
    owner = left.value
    if isinstance(owner, ast.Attribute) and owner.attr == "__class__":
        target = owner.value
    elif isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) \
            and owner.func.id == "type" and len(owner.args) == 1 and not owner.keywords:
        target = owner.args[0]
    else:
        return None
    if isinstance(right, ast.Constant) and isinstance(right.value, str) \
            and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        names = frozenset({right.value})
    elif isinstance(right, (ast.Set, ast.Tuple, ast.List)) and right.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in right.elts) \
            and isinstance(test.ops[0], (ast.In, ast.NotIn)):
        names = frozenset(e.value for e in right.elts)  # type: ignore[attr-defined]
    else:
        return None
    return target, names, isinstance(test.ops[0], (ast.NotEq, ast.NotIn))


def _type_test(test: ast.expr) -> tuple[ast.Call, bool] | None:
    """A test of an object's exact class: ``type(x) == C``, ``type(x) is C``, ``type(x) in
    [C1, C2]`` (a list, tuple or set of classes), and their negations ``!=``, ``is not``,
    ``not in``. Returns the ``isinstance(x, (C1, C2))`` test it makes for classes no other
    class listed derives from, and whether it is negated. (Only the exact class passes
    ``type(x) in [...]``; where the object may be an instance of a subclass, the caller must
    treat that class apart.)"""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name)
            and left.func.id == "type" and len(left.args) == 1 and not left.keywords):
        return None
    if isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
        classes: list[ast.expr] = [right]
    elif isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.List, ast.Tuple, ast.Set)) \
            and right.elts and not any(isinstance(e, ast.Starred) for e in right.elts):
        classes = list(right.elts)
    else:
        return None
    kinds: ast.expr = classes[0] if len(classes) == 1 else ast.Tuple(classes, ast.Load())
    call = ast.Call(ast.Name("isinstance", ast.Load()), [left.args[0], kinds], [])
    return call, isinstance(op, (ast.NotEq, ast.IsNot, ast.NotIn))


def _class_name_of(option: Any) -> str | None:
    """The class name an object would report: a torch scheduler's class, the project's class
    of an instance; None when not known."""
    if isinstance(option, Obj) and option.kind == "scheduler" and option.call \
            and option.cls in SCHEDULERS and option.project is None:
        return option.cls
    if isinstance(option, InstanceVal):
        return option.info.name
    return None


def _class_text(node: ast.expr) -> tuple[ast.expr, str] | None:
    """The object whose class a text spells, and which text: ``x.__class__.__name__`` /
    ``type(x).__name__`` ("name"), ``str(x.__class__)`` / ``str(type(x))`` ("text",
    ``<class 'module.Name'>``); None for anything else."""
    def of_class(expr: ast.expr) -> ast.expr | None:
        if isinstance(expr, ast.Attribute) and expr.attr == "__class__":
            return expr.value
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
                and expr.func.id == "type" and len(expr.args) == 1 and not expr.keywords:
            return expr.args[0]
        return None
    if isinstance(node, ast.Attribute) and node.attr == "__name__":
        target = of_class(node.value)
        return None if target is None else (target, "name")
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("str", "repr") and len(node.args) == 1 and not node.keywords:
        target = of_class(node.args[0])
        return None if target is None else (target, "text")
    return None


def _class_test_takes(option: Any, names: frozenset[str], spelled: str) -> bool | None:
    """Whether a class test by name (see ``Tracer.class_name_test``) holds for ``option``;
    None when its class is not known well enough to say."""
    name = _class_name_of(option)
    if name is None:
        return None
    if spelled == "name":
        return name in names
    if spelled == "name-part":
        return any(part in name for part in names)
    if not (isinstance(option, Obj) and option.kind == "scheduler"):
        return None  # (the project's own class: its module's dotted name is not known here)
    module = "torch.optim.swa_utils" if name == "SWALR" else "torch.optim.lr_scheduler"
    text = f"<class '{module}.{name}'>"
    return any(part in text for part in names)


def _kept_by_filter(node: ast.ListComp | ast.GeneratorExp, inner: Any) -> TupleVal | None:
    """``[h for h in hooks if h is not None]`` over the project's own objects: the same
    objects (the filter only drops empty slots)."""
    gen = node.generators[0]
    if not (isinstance(gen.target, ast.Name) and isinstance(node.elt, ast.Name)
            and node.elt.id == gen.target.id and _instance_members(inner) is not None):
        return None
    name = gen.target.id
    for test in gen.ifs:
        plain = isinstance(test, ast.Name) and test.id == name
        not_none = (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
                    and test.left.id == name and len(test.ops) == 1
                    and isinstance(test.ops[0], ast.IsNot)
                    and isinstance(test.comparators[0], ast.Constant)
                    and test.comparators[0].value is None)
        if not (plain or not_none):
            return None
    assert isinstance(inner, TupleVal)
    return TupleVal(list(inner.items))


def _member_decides(stmt: ast.For | ast.AsyncFor) -> bool:
    """Whether a pass over hooks asks each hook whether it runs here (``if cb.applies(phase):
    cb.fire()``): which of them act at this point is then the hooks' own setting, unknown
    here (``hasattr(hook, "name")`` only asks whether the method exists)."""
    names = {n.id for n in ast.walk(stmt.target) if isinstance(n, ast.Name)}
    tests: list[ast.expr] = []
    for node in ast.walk(ast.Module(body=[*stmt.body, *stmt.orelse], type_ignores=[])):
        if isinstance(node, (ast.If, ast.IfExp, ast.While, ast.Assert)):
            tests.append(node.test)
        elif isinstance(node, ast.BoolOp):
            tests.extend(node.values)
        elif isinstance(node, ast.comprehension):
            tests.extend(node.ifs)
    for test in tests:
        for part in ast.walk(test):
            if isinstance(part, ast.Call) and isinstance(part.func, ast.Name) \
                    and part.func.id == "hasattr":
                continue
            if isinstance(part, ast.Name) and part.id in names and not _only_in_hasattr(
                    test, part):
                return True
    return False


def _only_in_hasattr(test: ast.expr, name: ast.Name) -> bool:
    """Whether ``name`` is read in ``test`` only as the object of a ``hasattr`` call."""
    for node in ast.walk(test):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "hasattr" and node.args and node.args[0] is name:
            return True
    return False


def _holds_loop(stmt: ast.For | ast.AsyncFor) -> bool:
    """Whether a loop's body has a loop of its own (outside functions defined in it)."""
    stack: list[ast.AST] = [*stmt.body, *stmt.orelse]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _project_choice(value: Any) -> bool:
    """A project class or an instance of one, or an exclusive choice among them (of more
    than one class): what a setting picks between in `if`/`elif` branches."""
    if isinstance(value, (ClassVal, InstanceVal)):
        return True
    if isinstance(value, UnionVal) and value.exclusive and value.options:
        kinds = {type(o) for o in options(value)}
        return len(kinds) == 1 and kinds <= {ClassVal, InstanceVal}
    return False


def _choice_conds(picks: _Picks) -> tuple[Cond, ...]:
    """The branches a union's option sits on: one per exclusive choice on the way to it (see
    _union_leaves), keyed by the choice and its number of options."""
    return tuple(Cond(("<choice>", key, count), i, None, None) for key, i, count in picks)


def _leaves_of(value: Any) -> list[Any]:
    return options(value) if isinstance(value, UnionVal) else [value]


def _union_leaves(value: UnionVal, limit: int = 64) -> list[tuple[Any, _Picks]]:
    """The alternatives of a union with, for each, the (choice, index, number of options) of
    every exclusive union on the way to it: a loop over `[choice_g, choice_d]` calls one option
    of each choice, never two options of one choice at once (containers may be cyclic)."""
    out: list[tuple[Any, _Picks]] = []
    seen: set[int] = set()
    stack: list[tuple[Any, _Picks]] = [(value, ())]
    while stack and len(out) < limit:
        item, picks = stack.pop()
        if isinstance(item, UnionVal):
            if id(item) in seen:
                continue
            seen.add(id(item))
            nested = [
                (option, (*picks, (id(item), i, len(item.options))) if item.exclusive
                 else picks)
                for i, option in enumerate(item.options)
            ]
            stack.extend(reversed(nested))
        else:
            out.append((item, picks))
    return out


def _configured(value: Any, depth: int = 0) -> list[tuple[Obj, str | None]]:
    """(scheduler, interval) for each scheduler a ``configure_optimizers`` return value
    names: ``{"scheduler": s, "interval": "step"}``, a bare scheduler (per epoch), lists and
    tuples of them, ``([optimizers], [schedulers])``."""
    if depth > 4:
        return []
    if isinstance(value, Obj):
        return [(value, None)] if value.kind == "scheduler" else []
    if isinstance(value, DictVal):
        entry = value.items.get("lr_scheduler", value)
        if isinstance(entry, DictVal):
            sched = entry.items.get("scheduler")
            interval = lightning_interval(entry)
            if isinstance(sched, Obj) and sched.kind == "scheduler" and interval != "?":
                return [(sched, interval)]
            return []
        return _configured(entry, depth + 1) if entry is not value else []
    if isinstance(value, TupleVal):
        return [pair for item in value.items for pair in _configured(item, depth + 1)]
    return []


def _never_monitored(value: Any, sched: Obj, depth: int = 0) -> bool:
    """Lightning steps ``sched`` (one of the schedulers ``configure_optimizers`` returned as
    ``value``) without a monitored value: it is one of torch's (or transformers') classes other
    than ReduceLROnPlateau, and no dict entry holding it sets ``"reduce_on_plateau"`` (Lightning
    reads that key, defaulting to ``isinstance(scheduler, ReduceLROnPlateau)``)."""
    if depth == 0 and not (sched.origin in ("torch", "hf") and sched.cls
                           and sched.cls != "ReduceLROnPlateau" and sched.project is None
                           and not sched.guessed):
        return False
    if depth > 4:
        return False
    if isinstance(value, DictVal):
        if value.items.get("scheduler") is sched and "reduce_on_plateau" in value.items:
            flag = value.items["reduce_on_plateau"]
            if not (isinstance(flag, Const) and flag.value is False):
                return False
        return all(_never_monitored(v, sched, depth + 1) for v in value.items.values())
    if isinstance(value, TupleVal):
        return all(_never_monitored(v, sched, depth + 1) for v in value.items)
    return True


_EPOCH_END_HOOKS = ("on_train_epoch_end", "training_epoch_end", "on_validation_epoch_end",
                    "validation_epoch_end")
# LightningModule hooks Lightning calls around each training batch (the older names too)
_BATCH_START_HOOKS = ("on_train_batch_start", "on_batch_start")
_BATCH_END_HOOKS = ("on_train_batch_end", "on_batch_end")
_EPOCH_START_HOOKS = ("on_train_epoch_start", "on_epoch_start")
_REMOVED_IN_1_8 = ("on_batch_start", "on_batch_end", "on_epoch_start")


def _unified_lightning(module: Any) -> bool:
    """The module imports Lightning as the unified ``lightning`` package (``import lightning
    as L``, ``from lightning.pytorch import LightningModule``), which exists from 1.8 on, and
    not the older ``pytorch_lightning`` (whose version the code does not say)."""
    imports = getattr(module, "imports", {}) or {}
    qualified = [q for q in imports.values() if isinstance(q, str)]
    return any(q == "lightning" or q.startswith("lightning.") for q in qualified) \
        and not any(q == "pytorch_lightning" or q.startswith("pytorch_lightning.")
                    for q in qualified)
# the LightningModule hook Lightning calls for every optimizer update in automatic
# optimization (an override replaces Lightning's own `optimizer.step(closure=...)`)
_UPDATE_HOOKS = ("optimizer_step",)


# the methods of a Hugging Face Trainer that build the scheduler it steps
_HF_SCHEDULER_BUILDERS = frozenset({"create_scheduler", "create_optimizer_and_scheduler"})
# a Trainer subclass that overrides one of these runs a training loop of its own: where it
# steps its scheduler is in that code, not the Trainer's
_HF_TRAINING_LOOPS = ("train", "_inner_training_loop")
# libraries whose `...Trainer` classes are (or derive from) transformers' Trainer
_HF_TRAINER_ROOTS = frozenset({"transformers", "trl"})


# the trainers in words, for the message of a scheduler they step
_HF_TRAINER_WORDS = "a Hugging Face Trainer, which steps it after every optimizer step"
_D2_TRAINER_WORDS = "detectron2's DefaultTrainer, which steps it after every iteration"
_D2_TRAINERS = frozenset({"detectron2.engine.DefaultTrainer",
                          "detectron2.engine.defaults.DefaultTrainer"})
# a DefaultTrainer subclass that overrides one of these runs (or hooks) a loop of its own:
# where and how often its scheduler is stepped is in that code
_D2_OWN_LOOPS = ("train", "run_step", "build_hooks", "train_loop")


def _d2_trainer(cls: ClassInfo, bases: Callable[[ClassInfo], Iterator[str]]) -> bool:
    """``cls`` derives from detectron2's ``DefaultTrainer`` (through the project's classes)."""
    return any(q in _D2_TRAINERS for q in bases(cls))


def _hf_trainer_class(qual: str) -> bool:
    """``transformers.Trainer``, ``transformers.Seq2SeqTrainer``, ``trl.SFTTrainer``, ..."""
    last = qual.rsplit(".", 1)[-1]
    return qual.split(".")[0] in _HF_TRAINER_ROOTS and last.endswith("Trainer") and "." in qual


def _hf_trainer(cls: ClassInfo, bases: Callable[[ClassInfo], Iterator[str]]) -> bool:
    """``cls`` derives from a Hugging Face Trainer (through the project's classes)."""
    return any(_hf_trainer_class(q) for q in bases(cls))


def _forwards_keywords(init: ast.FunctionDef | ast.AsyncFunctionDef, keyword: str) -> bool:
    """An ``__init__(self, ..., **kwargs)`` that does not take ``keyword`` by name and passes
    its ``**kwargs`` on to ``super().__init__(...)``: a ``keyword=`` given to the class reaches
    the base class unchanged (unless the body rebinds or edits the mapping)."""
    spread = init.args.kwarg.arg if init.args.kwarg is not None else None
    if spread is None:
        return False
    if any(a.arg == keyword for a in (*init.args.posonlyargs, *init.args.args,
                                      *init.args.kwonlyargs)):
        return False
    forwarded = False
    for node in ast.walk(init):
        if isinstance(node, ast.Call) and super_call(node, "__init__"):
            forwarded |= any(k.arg is None and isinstance(k.value, ast.Name)
                             and k.value.id == spread for k in node.keywords)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Delete)) and any(
                isinstance(t, ast.Name) and t.id == spread
                or isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                and t.value.id == spread
                for t in (node.targets if isinstance(node, (ast.Assign, ast.Delete))
                          else [node.target])):
            return False
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == spread \
                and node.func.attr in ("pop", "update", "clear", "setdefault", "popitem"):
            named = node.args[0] if node.func.attr in ("pop", "setdefault") and node.args \
                else None
            if not (isinstance(named, ast.Constant) and isinstance(named.value, str)
                    and named.value != keyword):
                return False  # the mapping edited where the keyword may be concerned
    return forwarded


def _asks_for_schedulers(cls: ClassInfo) -> bool:
    """A method of ``cls`` (or of its project base classes) calls ``self.lr_schedulers()``:
    the module works the schedulers Lightning holds for it by hand, in whichever hook makes
    the call."""
    for owner in cls.lineage():
        for method in owner.methods.values():
            for node in ast.walk(method):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr == "lr_schedulers" \
                        and isinstance(node.func.value, ast.Name) and node.func.value.id == "self":
                    return True
    return False


def _steps_kept_scheduler(cls: ClassInfo, found: dict[str, Any]) -> bool:
    """``training_step`` or an epoch hook of ``cls`` calls ``self.<name>.step()`` with no
    argument for an attribute ``configure_optimizers`` assigns: a scheduler kept on the
    module and stepped by hand where Lightning calls that method."""
    configure = cls.find("configure_optimizers")
    if configure is None:
        return False
    kept = {target.attr for node in ast.walk(configure[0]) if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name) and target.value.id == "self"}
    methods = [cls.find("training_step"), *(found.get(name) for name in (*_EPOCH_START_HOOKS,
                                                                           *_EPOCH_END_HOOKS))]
    for method in methods:
        if method is None:
            continue
        for node in ast.walk(method[0]):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "step" and not node.args and not node.keywords \
                    and isinstance(node.func.value, ast.Attribute) \
                    and node.func.value.attr in kept \
                    and isinstance(node.func.value.value, ast.Name) \
                    and node.func.value.value.id == "self":
                return True
    return False


# torch's module base as project files import it
_TORCH_MODULE = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})


def _without_framework(cls: ClassInfo) -> bool:
    """Every class ``cls`` derives from is the project's own (read here) or torch's
    ``nn.Module``: no framework (Lightning) calls its methods, so a ``configure_optimizers``
    of it is the project's method, called where the project calls it (a base trainer's
    ``self.optimizer, self.scheduler = self.configure_optimizers()``)."""
    seen: set[int] = set()
    stack = [cls]
    while stack:
        current = stack.pop()
        if id(current) in seen or len(seen) > 16:
            return False
        seen.add(id(current))
        parents = current.base_classes()
        names = {p.name for p in parents}
        for base in current.bases:
            if base.rsplit(".", 1)[-1] not in names and base != "object" \
                    and current.module.qualify(base) not in _TORCH_MODULE:
                return False  # a library's class: it could be anything
        stack.extend(parents)
    return True


def _lightning_module(cls: ClassInfo, bases: Callable[[ClassInfo], Iterator[str]]) -> bool:
    """``cls`` derives from Lightning's LightningModule (through the project's classes)."""
    return any(q.split(".")[0] in ("pytorch_lightning", "lightning")
               and q.rsplit(".", 1)[-1] == "LightningModule" for q in bases(cls))


def _configured_optimizers(value: Any, depth: int = 0) -> list[Obj]:
    """The optimizers a ``configure_optimizers`` return value names, in order."""
    if depth > 4:
        return []
    if isinstance(value, Obj):
        return [value] if value.kind == "optimizer" else []
    if isinstance(value, DictVal):
        return _configured_optimizers(value.items.get("optimizer"), depth + 1)
    if isinstance(value, TupleVal):
        return [o for item in value.items for o in _configured_optimizers(item, depth + 1)]
    if isinstance(value, UnionVal):
        # the dict with the scheduler on one path, the bare optimizer on another
        found: list[Obj] = []
        for option in options(value):
            found.extend(o for o in _configured_optimizers(option, depth + 1)
                         if all(o is not f for f in found))
        return found
    return []


@contextmanager
def _narrowed(narrowed: tuple[dict[str, Any], str, Any, Any] | None, branch: int
              ) -> Iterator[None]:
    """Bind the narrowed value of an ``isinstance`` test's name for one branch, then put the
    whole choice back (unless the branch bound the name to something else)."""
    if narrowed is None:
        yield
        return
    store, key, *values = narrowed
    whole = store[key]
    store[key] = values[branch]
    try:
        yield
    finally:
        if store.get(key) is values[branch]:
            store[key] = whole


def _returned(values: list[Any], depth: int = 0) -> Any:
    """What a call returns when its function returns on several paths: as after an ``if``
    that binds a name on each side (``exec_if``), a None returned on one path has nothing
    to track, so it never hides the object another path returns (``if cfg.sched: return
    opt, CosineAnnealingLR(...)`` then ``return opt, None``); tuples of one length are read
    position by position; schedulers returned on different paths (built-in ones and
    instances of the project's own scheduler classes, at least one built-in) are one of
    them, whichever the path taken picks; literals that differ between the paths are no one
    value (None). Anything else is what the last return gives."""
    values = [v for v in values if v is not None]
    if len(values) < 2 or depth > 4:
        return values[-1] if values else None
    others = [v for v in values if not (isinstance(v, Const) and v.value is None)]
    if others and len(others) < len(values) and any(
            isinstance(v, (Obj, InstanceVal, StateDictVal, TupleVal, UnionVal)) for v in others):
        values = others
    if len(values) > 1 and all(isinstance(v, TupleVal) for v in values) \
            and len({len(v.items) for v in values}) == 1:
        return TupleVal([_returned([v.items[i] for v in values], depth + 1)
                         for i in range(len(values[0].items))])
    if all(isinstance(v, Const) for v in values) \
            and len({(type(v.value), repr(v.value)) for v in values}) > 1:
        # `if device.type == "cpu": return False` ... `return True` ... `except: return
        # False`: the value depends on the path the run takes, not one literal (the last
        # return read as sure made `amp = check_amp(model)` a flag fixed to False)
        return None
    merged = _dicts_by_key(values, depth)
    if merged is not None:
        return merged
    distinct: list[Any] = []
    for v in values:
        if all(v is not d for d in distinct):
            distinct.append(v)
    held = _dict_or_member(distinct)
    if held is not None:
        return held
    last = values[-1]
    # (whichever path returns the built-in one: `if kind == "multistep": return
    # WarmupMultiStepLR(...)` then `elif kind == "plateau": return WarmupPlateau(...)`, the
    # project's own plateau class last, is still a choice of the two)
    anchor = next((d for d in reversed(distinct) if isinstance(d, Obj) and d.kind == "scheduler"),
                  None)
    if len(distinct) > 1 and anchor is not None \
            and _chosen_scheduler(anchor, UnionVal([d for d in distinct if d is not anchor],
                                                   exclusive=True)):
        return UnionVal(distinct, exclusive=True)
    return last


# torch's Module methods that return the module itself
_MODULE_RETURNS_SELF = frozenset({"to", "cuda", "cpu", "float", "half", "double", "bfloat16",
                                  "train", "eval", "requires_grad_", "type"})
_TORCH_MODULE_BASES = frozenset({
    "torch.nn.Module", "torch.nn.modules.module.Module", "pytorch_lightning.LightningModule",
    "pytorch_lightning.core.LightningModule", "pytorch_lightning.core.module.LightningModule",
    "lightning.pytorch.LightningModule", "lightning.LightningModule",
})


def _dicts_by_key(values: list[Any], depth: int) -> DictVal | None:
    """A factory that returns a dict literal on each path, with the same keys each time
    (``return {"name": name, "scheduler": ReduceLROnPlateau(opt, mode="min")}`` on one branch,
    ``return {"name": name, "scheduler": ReduceLROnPlateau(opt, mode="max")}`` on another):
    the call gives one of those dicts, whichever the path taken picks, so each key is read as
    a tuple's position is, from what every path put there, and a scheduler stored under a key
    is one of the schedulers the paths built. None unless some key holds schedulers that
    differ between the paths (anything else reads the last return, as before). A path that
    returns None has nothing to track, as in _returned."""
    values = [v for v in values if not (isinstance(v, Const) and v.value is None)]
    if len(values) < 2 or not all(
            isinstance(v, DictVal) and not (v.open or v.splat or v.config or v.attribute_keys
                                            or v.computed) for v in values):
        return None
    keys = list(values[-1].items)
    if any(list(v.items) != keys for v in values):
        return None
    items = {k: _returned([v.items[k] for v in values], depth + 1) for k in keys}
    if not any(_scheduler_choice(item) for item in items.values()):
        return None
    for k in keys:
        # a tag the paths spell differently (`"interval": "step"` beside the OneCycleLR,
        # `"interval": "epoch"` beside the StepLR) is known only together with the path: read
        # apart from the scheduler it came with, it is unknown, not the last path's literal
        said = [v.items[k] for v in values]
        if all(isinstance(s, Const) for s in said) and len({repr(s.value) for s in said}) > 1:
            items[k] = None
    return DictVal(items)


def _dict_or_member(values: list[Any]) -> UnionVal | None:
    """``return {"optimizer": opt, "lr_scheduler": {...}}`` on one path and ``return opt`` on
    another (a ``configure_optimizers`` whose scheduler is optional): the call gives one or
    the other, whichever the path taken picks, so ``f()["optimizer"]`` reads the dict's entry
    and ``f().step()`` the object. Only for one closed dict and objects it holds."""
    dicts = [v for v in values if isinstance(v, DictVal)]
    if len(dicts) != 1 or len(values) < 2 or dicts[0].open or dicts[0].splat:
        return None
    members = [v for v in dicts[0].items.values() if isinstance(v, (Obj, InstanceVal))]
    others = [v for v in values if v is not dicts[0]]
    if not all(isinstance(v, (Obj, InstanceVal)) and any(v is m for m in members)
               for v in others):
        return None
    return UnionVal(values, exclusive=True)


def _keep_the_scheduled_optimizer(stores: list[dict[str, Any]], built: list[dict[str, Any]],
                                  projects: list[dict[str, Any]], second: list[dict[str, Any]],
                                  before: list[dict[str, Any]]) -> None:
    """``if cfg.opt == "adamw": opt = AdamW(...); sched = Warmup(opt, ...) else: opt = SGD(...);
    sched = None``: after the ``if``, the scheduler name holds the scheduler of the branch that
    built one (None has nothing to track), so the optimizer name holds the optimizer that
    scheduler drives. Where the scheduler exists, that is the optimizer the program steps and
    saves; the other branch's optimizer would leave the scheduler tied to an optimizer nothing
    steps. Only when no scheduler after the ``if`` drives the other branch's optimizer.
    (``built`` and ``projects``: what the first branch left in each store, torch objects and
    instances of the project's classes; ``second``: what the other branch left; a scheduler
    built on a project optimizer knows it by the name it was handed.)"""
    first: dict[str, Any] = {}
    for built_here, projects_here, was in zip(built, projects, before):
        first.update(projects_here)
        # (only what the branch bound: an object bound before the `if` is no choice of it)
        first.update((k, v) for k, v in built_here.items() if was.get(k) is not v)
    other: dict[str, Any] = {}
    for store, was in zip(second, before):
        other.update((k, v) for k, v in store.items() if was.get(k) is not v)
    # (a name may hold a choice of schedulers, one per branch: each option survives)
    after = [leaf for store in stores for v in store.values() for leaf in _leaves_of(v)]
    driven: list[Any] = []  # the optimizers the surviving schedulers of either branch drive
    for sched in [*first.values(), *other.values()]:
        if not (isinstance(sched, Obj) and sched.kind == "scheduler"
                and any(v is sched for v in after)):
            continue
        if sched.optimizer is not None:
            driven.append(sched.optimizer)
            continue
        handed = _handed_optimizer(sched)
        side = first if any(sched is v for v in first.values()) else other
        if isinstance(handed, ast.Name) and handed.id in side:
            driven.append(side[handed.id])
    if not driven:
        return
    for store in stores:
        for name, now in list(store.items()):
            choices = [v for v in (first.get(name), other.get(name)) if v is not None]
            if len(choices) < 2 or choices[0] is choices[1] or any(now is d for d in driven) \
                    or not all(_optimizer_like(v) for v in choices):
                continue
            mine = next((v for v in choices if any(v is d for d in driven)), None)
            if mine is not None:
                store[name] = mine


def _handed_optimizer(sched: Obj) -> ast.expr | None:
    """The optimizer argument of the call that built ``sched`` (its first, or ``optimizer=``),
    also for the project's scheduler class, whose call is kept as ``via``."""
    call = sched.call or sched.via
    if call is None:
        return None
    for kw in call.keywords:
        if kw.arg == "optimizer":
            return kw.value
    first = call.args[0] if call.args else None
    return None if isinstance(first, ast.Starred) else first


def _optimizer_like(value: Any) -> bool:
    """An optimizer lrdoctor tracks. (An instance of the project's optimizer class is left
    out: held by the name, the rules read the optimizer the scaler steps as unknown, and on
    fphunt18's EasyNLP that tied the scaler to another program path's checkpoint.)"""
    return isinstance(value, Obj) and value.kind == "optimizer"


def _disabled_scaler(scaler: Obj) -> bool:
    """``GradScaler(enabled=False)``: a scaler switched off by a literal, which neither scales
    nor skips a step; also where a builder's parameter passes it the literal (``def
    build(device, *, enabled): return GradScaler(device, enabled=enabled)`` called with
    ``enabled=False``)."""
    enabled = scaler.arg("enabled", 5 if scaler.cls == "GradScaler" else 99)
    if isinstance(enabled, ast.Name) and scaler.scope is not None:
        held = scaler.scope.lookup(enabled.id)
        return isinstance(held, Const) and held.sure and held.value is False
    return isinstance(enabled, ast.Constant) and not enabled.value


def _scheduler_choice(value: Any) -> bool:
    """An exclusive choice of schedulers (one per branch of a setting's ``if`` / ``elif``
    chain), every option a scheduler object."""
    return isinstance(value, UnionVal) and value.exclusive and bool(value.options) and all(
        isinstance(o, Obj) and o.kind == "scheduler" for o in options(value))


def _built_on_other_paths(a: tuple[Cond, ...], b: tuple[Cond, ...]) -> bool:
    """Whether what was built under the branches ``a`` and what under ``b`` never are both
    built in one run: a string setting they need to hold different values (``built_apart``),
    or one flag they need with opposite truths (``args.sched[0] is None`` / ``is not None``,
    nothing reassigned between)."""
    return built_apart(a, b) or facts_contradict(a, b)


def _chosen_scheduler_value(value: Any) -> bool:
    """A scheduler object, or a setting's choice of several (see _scheduler_choice)."""
    return isinstance(value, Obj) and value.kind == "scheduler" or _scheduler_choice(value)


def _chosen_scheduler(first: Any, other: Any) -> bool:
    """Two branches of one ``if`` that each bind a scheduler to the same name (a built-in
    one, or an instance of the project's own scheduler class: a class with a ``step``)."""
    others = options(other) if isinstance(other, UnionVal) and other.exclusive else [other]
    return first.kind == "scheduler" and bool(others) and all(
        isinstance(o, Obj) and o.kind == "scheduler"
        or isinstance(o, InstanceVal) and o.info.find("step") is not None
        for o in others
    )


_EXPR_FIELDS: dict[type, tuple[str, ...]] = {}


def _expr_children(node: ast.AST) -> list[ast.expr]:
    """The expressions directly inside ``node``, in ``ast.iter_child_nodes`` order (what an
    operator or comparison evaluates; read without its generators on the hot path)."""
    fields = _EXPR_FIELDS.get(type(node))
    if fields is None:
        fields = _EXPR_FIELDS[type(node)] = tuple(node._fields)
    out: list[ast.expr] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.expr):
            out.append(value)
        elif isinstance(value, list):
            out.extend(item for item in value if isinstance(item, ast.expr))
    return out


def _periodic_skip(stmt: ast.stmt) -> bool:
    """``if (i + 1) % accum != 0: continue`` (no ``else``): gradient accumulation written as
    an early ``continue`` on a periodic test."""
    if not (isinstance(stmt, ast.If) and not stmt.orelse and stmt.body
            and isinstance(stmt.body[-1], ast.Continue)):
        return False
    found = getattr(stmt, "_lrdoctor_periodic", None)
    if found is None:
        found = any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
                    for n in ast.walk(stmt.test))
        stmt._lrdoctor_periodic = found  # type: ignore[attr-defined]
    return bool(found)


def _literal_setattr(stmt: ast.stmt, scope: Scope) -> tuple[ast.Attribute, ast.expr] | None:
    """``setattr(obj, "name", value)`` (index.literal_setattr) with Python's own
    ``setattr``: the target ``obj.name`` (a node made once and kept on the call) and the value
    stored there; None for anything else."""
    stored = literal_setattr(stmt)
    if stored is None or _bound(scope, "setattr"):
        return None
    obj, name, value = stored
    call = stmt.value  # type: ignore[attr-defined]
    made: ast.Attribute | None = getattr(call, "_lrdoctor_setattr", None)
    if made is None:
        made = ast.copy_location(ast.Attribute(value=obj, attr=name, ctx=ast.Store()), call)
        call._lrdoctor_setattr = made
    return made, value


def _builds_one_of(tree: ast.Module, call: ast.Call, classes: frozenset[str]) -> bool:
    """``call`` calls a function of the module's top level each of whose ``return``s returns
    a call of one of ``classes`` (``def make_scaler(): return torch.cuda.amp.GradScaler()``):
    the global it binds holds such an object, as a direct construction's would."""
    if not isinstance(call.func, ast.Name):
        return False
    fn = next((s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
               and s.name == call.func.id), None)
    if fn is None:
        return False
    returns = [n for n in own_nodes(fn) if isinstance(n, ast.Return)]
    return bool(returns) and all(
        isinstance(r.value, ast.Call)
        and (dotted(r.value.func) or "").rsplit(".", 1)[-1] in classes for r in returns)


def _sole_top_level_call(tree: ast.Module, name: str,
                         classes: frozenset[str]) -> ast.Call | None:
    """The call ``name = <call>`` of one of ``classes`` (by its last name) in a statement of
    the module's top level, where that is the only statement anywhere in the module that
    binds ``name`` (an assignment, a ``for`` target, an import, a ``def`` or ``class``, a
    ``global`` declaration in a function); None otherwise. (The class is tested before the
    module is walked: ``logger = logging.getLogger(__name__)`` heads most modules of a large
    package, and walking each of them for every global read cost minutes on one.)"""
    found: ast.Call | None = None
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id == name \
                and isinstance(stmt.value, ast.Call):
            if found is not None:
                return None
            found = stmt.value
    if found is None or ((dotted(found.func) or "").rsplit(".", 1)[-1] not in classes
                         and not _builds_one_of(tree, found, classes)):
        return None
    binds = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store):
            binds += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and node.name == name:
            return None
        elif isinstance(node, ast.Global) and name in node.names:
            return None
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.split(".")[0]) == name for a in node.names):
            return None
    return found if binds == 1 else None


@per_node
def _writes_globals(tree: ast.AST) -> bool:
    """Whether the module writes into its ``globals()`` mapping (``globals()[k] = ...``,
    ``globals().update(...)``, ``globals().setdefault(...)``); asked once per module."""
    for sub in ast.walk(tree):
        if isinstance(sub, ast.Subscript) and not isinstance(sub.ctx, ast.Load) \
                and _globals_call(sub.value):
            return True
        if isinstance(sub, ast.Attribute) and sub.attr != "get" and _globals_call(sub.value):
            return True
    return False


def _globals_call(expr: ast.expr) -> bool:
    """Whether ``expr`` is a bare call ``globals()``."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
        and expr.func.id == "globals" and not expr.args and not expr.keywords


def _bound(scope: Scope, name: str) -> bool:
    """Whether ``name`` is a variable of ``scope`` or a scope around it (even bound to None)."""
    current: Scope | None = scope
    while current is not None:
        if name in current.vars:
            return True
        current = current.parent
    return False


# keywords only one of torch's schedulers takes, and that one
_ONLY_TAKEN_BY = {
    "T_max": "CosineAnnealingLR", "T_0": "CosineAnnealingWarmRestarts",
    "T_mult": "CosineAnnealingWarmRestarts", "step_size": "StepLR", "total_steps": "OneCycleLR",
    "steps_per_epoch": "OneCycleLR", "pct_start": "OneCycleLR", "step_size_up": "CyclicLR",
    "base_lr": "CyclicLR", "max_lr": "", "swa_lr": "SWALR", "anneal_epochs": "SWALR",
}


def _torch_class_taking(call: ast.Call) -> str | None:
    """The one torch scheduler class that takes the keywords of ``call`` by name, when a
    keyword says it; None when none does or they disagree."""
    found = {_ONLY_TAKEN_BY.get(kw.arg or "") for kw in call.keywords} - {None, ""}
    return found.pop() if len(found) == 1 else None


def _written_keywords(call: ast.Call, named: set[str],
                      caller: Scope | None) -> dict[str, tuple[ast.expr, Any]]:
    """What ``call`` wrote for each keyword its callee's ``**kwargs`` receives (those not
    named by a parameter), with the caller's scope ``caller`` to read it in."""
    if caller is None:
        return {}
    written: dict[str, tuple[ast.expr, Any]] = {}
    for kw in call.keywords:
        if kw.arg is None:
            # `_cosine(optimizer, **extra)` in a factory whose own `**extra` its caller filled:
            # what that caller wrote
            held = caller.lookup(kw.value.id) if isinstance(kw.value, ast.Name) else None
            if isinstance(held, DictVal):
                written.update((k, v) for k, v in held.written.items() if k not in named)
        elif kw.arg not in named:
            written[kw.arg] = (kw.value, caller)
    return written


def _spread_keywords(node: ast.Call, scope: Scope,
                     kwargs: dict[str, Any]) -> tuple[dict[str, ast.expr], Scope] | None:
    """The keywords the ``**name`` arguments of the constructor call ``node`` pass, each as an
    expression to read in the scope returned, when every such dict is known whole: a
    factory's own ``**kwargs`` filled by a call in the code that names all its arguments
    (``make_scheduler(opt, T_max=epochs)`` reaching ``CosineAnnealingLR(optimizer,
    **kwargs)``), or a dict literal bound to the name. Python passes exactly those keywords,
    as if they were written at the constructor. ``None`` when there is no such argument or one
    of them is partly unknown (an entry point's ``**kwargs``, a dict read from a file).

    A value the caller wrote (``epochs``, ``args.epochs``) is bound, under its own source
    text, in a scope of its own above the constructor's, so that horizons are judged from
    what the caller computed; a number is written as the number."""
    splats = [kw for kw in node.keywords if kw.arg is None]
    if not splats:
        return None
    sources: dict[str, tuple[ast.expr, Any]] = {}
    for kw in splats:
        held = scope.lookup(kw.value.id) if isinstance(kw.value, ast.Name) else None
        if not isinstance(held, DictVal) or held.open or held.splat or held.computed \
                or not all(isinstance(k, str) for k in held.items):
            return None
        sources.update(held.written)
    written = {kw.arg for kw in node.keywords if kw.arg is not None}
    spread: dict[str, ast.expr] = {}
    bound: dict[str, Any] = {}
    stand_ins: dict[str, tuple[ast.expr, Scope]] = {}
    for key, value in kwargs.items():
        if key in written:
            continue
        if value is None and key in sources and sources[key][1] is not None:
            value = ExprVal(sources[key][0], sources[key][1])  # an entry point's parameter
        if value is None:
            continue  # neither known nor written where it is read: as before, unknown
        if isinstance(value, Const) and type(value.value) in (int, float):
            expr: ast.expr = ast.Constant(value.value)
        else:
            text = ast.unparse(value.node) if isinstance(value, ExprVal) else key
            while text in bound or scope.lookup(text) is not None \
                    or scope.source_of(text) is not None:
                text += " "  # never a name of the program's
            bound[text] = value
            if isinstance(value, ExprVal):
                stand_ins[text] = (value.node, value.scope)
            expr = ast.Name(id=text, ctx=ast.Load())
        spread[key] = ast.copy_location(expr, node)
    if not spread:
        return None
    return spread, SpreadScope(bound, scope.module, parent=scope, self_val=scope.self_val,
                               owner=scope.owner, cls_of=scope.cls_of, stand_ins=stand_ins)


def _constant_schedule(cls: str, node: ast.Call) -> bool:
    """Transformers' / diffusers' ``get_scheduler`` asked by a literal name for the constant
    schedule (no warm-up): its LambdaLR multiplies the LR by 1 at every step."""
    if cls != "get_scheduler":
        return False
    name = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "name"), None)
    return isinstance(name, ast.Constant) and name.value == "constant"


def _counter_period(stmt: ast.If, loop: ast.For | ast.AsyncFor | ast.While) -> ast.expr | None:
    """``n % k == 0`` for ``if n == k:`` (or ``n >= k``) whose branch sets ``n`` back to 0 in a
    loop that adds one to ``n`` on every pass (a statement of the loop's body, or of a
    ``with`` / ``try`` block there): a counter that holds once every ``k`` passes, the
    spelled-out form of ``(i + 1) % k == 0`` (gradient accumulation written as ``seen += 1``
    ... ``if seen == accum: ...; seen = 0``). None for any other test."""
    test = stmt.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    op, left, right = test.ops[0], test.left, test.comparators[0]
    if isinstance(op, ast.Eq) and dotted(right) and not dotted(left):
        left, right = right, left  # `k == n`
    elif isinstance(op, ast.LtE):
        op, left, right = ast.GtE(), right, left  # `k <= n`
    if not isinstance(op, (ast.Eq, ast.GtE)):
        return None
    counter = dotted(left)
    if not counter or (isinstance(right, ast.Constant) and not (
            isinstance(right.value, int) and not isinstance(right.value, bool)
            and right.value > 1)):
        return None

    def resets(node: ast.stmt) -> bool:
        return isinstance(node, ast.Assign) and len(node.targets) == 1 \
            and dotted(node.targets[0]) == counter and isinstance(node.value, ast.Constant) \
            and node.value.value == 0 and not isinstance(node.value.value, bool)

    if not any(resets(node) for node in stmt.body):
        return None
    todo: list[ast.stmt] = list(loop.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                and dotted(node.target) == counter and isinstance(node.value, ast.Constant) \
                and node.value.value == 1 and not isinstance(node.value.value, bool):
            return ast.copy_location(ast.Compare(
                ast.copy_location(ast.BinOp(left, ast.Mod(), right), test), [ast.Eq()],
                [ast.copy_location(ast.Constant(0), test)]), test)
        if isinstance(node, (ast.With, ast.AsyncWith)):
            todo += node.body
        elif isinstance(node, ast.Try):
            todo += node.body
    return None


def _origins(test: ast.expr, scope: Scope, depth: int = 2) -> tuple[ast.expr, ...]:
    """The expressions the names read by ``test`` were last assigned from, and theirs in
    turn (``depth`` levels): ``if optimizer_was_run:`` after
    ``optimizer_was_run = scale_before <= scaler.get_scale()``."""
    out: list[ast.expr] = []
    for name in _names_read(test):
        found = scope.source_of(name)
        if found is not None and found[0] is not test:
            out.append(found[0])
            if depth > 1:
                out.extend(_origins(found[0], found[1], depth - 1))
    for node in _calls_in(test):
        returned = _predicate_returns(node, scope)
        if returned is not None:
            # `if self.should_update(i):` with `return (i + 1) % self.accum == 0`: the test
            # reads as the expression the function returns
            out.append(returned)
    return tuple(out)


@per_node
def _calls_in(node: ast.AST) -> tuple[ast.Call, ...]:
    """The calls inside ``node`` (itself included), in ``ast.walk`` order: a branch's test
    is read again at every trace that reaches it."""
    return tuple(n for n in ast.walk(node) if isinstance(n, ast.Call))


def _predicate_returns(call: ast.Call, scope: Scope) -> ast.expr | None:
    """The expression a call of the project's own function or method (a name, or a method
    through ``self``) returns, where its body is that one ``return`` (after a docstring);
    None for anything else."""
    fn: ast.FunctionDef | ast.AsyncFunctionDef | None = None
    if isinstance(call.func, ast.Name):
        found = scope.lookup(call.func.id)
        fn = found.fn if isinstance(found, FuncVal) else None
    elif isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) \
            and call.func.value.id == "self" and scope.self_val is not None:
        hit = scope.self_val.info.find(call.func.attr)
        fn = hit[0] if hit is not None else None
    if fn is None:
        return None
    body = [stmt for stmt in fn.body if not (
        isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _dict_built(args: list[Any], kwargs: dict[str, Any], node: ast.Call | None) -> DictVal:
    """The plain dict a call builds (the builtin ``dict(...)``, a TypedDict class): a first
    argument that is a known dict is copied into it, anything else leaves it incomplete; what
    a ``**more`` adds is taken as partly unknown (a checkpoint built so is not judged), though
    the items it is known to hold are passed on."""
    built = DictVal({})
    if args:
        if isinstance(args[0], DictVal):
            built.items.update(args[0].items)
            built.splat, built.only_keyed = args[0].splat, args[0].only_keyed
        else:
            built.unknown_entries()
    if node is not None and any(kw.arg is None for kw in node.keywords):
        built.unknown_entries()
    built.items.update(kwargs)
    return built


def _given_pairs(call: ast.Call, params: list[ast.arg], kwonly: list[ast.arg]
                 ) -> dict[str, ast.expr]:
    """Each parameter ``call`` fills with an expression of its own: positional arguments up
    to the first ``*xs``, keywords by name (not ``**kw``)."""
    out: dict[str, ast.expr] = {}
    for param, arg in zip(params, call.args):
        if isinstance(arg, ast.Starred):
            break
        out[param.arg] = arg
    named = {p.arg for p in [*params, *kwonly]}
    for kw in call.keywords:
        if kw.arg is not None and kw.arg in named:
            out[kw.arg] = kw.value
    return out


def _call_arguments(call: ast.Call, params: list[ast.arg], kwonly: list[ast.arg],
                    caller: Scope) -> dict[str, tuple[ast.expr, Scope]]:
    """Each parameter ``call`` fills (see _given_pairs), with the caller's scope to read it in."""
    return {name: (arg, caller) for name, arg in _given_pairs(call, params, kwonly).items()}


def _handed_settings(call: ast.Call, params: list[ast.arg], kwonly: list[ast.arg],
                     caller: dict[str, str]) -> dict[str, str]:
    """The parameters a call fills with a setting as it is (`args.scheduler`,
    `cfg["sched"]`, `cfg.get("sched")`), by the setting each then holds: Python binds the
    parameter to the very object the caller's expression gives, so a test of the parameter
    inside (`scheduler_name == "plateau"`) is a test of that setting. The arguments as
    _given_pairs reads them. A bare name the caller passes on holds what it held there
    (``caller``: the caller's own parameters that hold a setting, `build(kind)` inside
    `get_scheduler(kind, ...)`)."""
    out: dict[str, str] = {}
    for name, arg in _given_pairs(call, params, kwonly).items():
        key = caller.get(arg.id) if isinstance(arg, ast.Name) else setting_key(arg)
        if key:
            out[name] = key
    return out


def _table_lookup(test: ast.expr | None, scope: Scope) -> tuple[str, frozenset[str]] | None:
    """For a test that compares a string setting's entry in a constant table with strings
    (``KINDS[cfg.kind] == "StepLR"``, ``TABLE[args.sched] in ("StepLR", "MultiStepLR")``,
    ``KINDS.get(cfg.kind) == "StepLR"``,
    the table ``{"step": "StepLR", ...}`` at the top of this module or of the project module
    it is imported from): the setting's name and the keys whose entry is one of those strings.
    Python evaluates the subscript first: the test holds exactly when the setting is one of
    those keys (any other key makes it False, a missing one raises before any branch runs)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Constant) and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        left, right = right, left
    if isinstance(left, ast.Subscript):
        table_expr, looked_up = left.value, left.slice
    elif isinstance(left, ast.Call) and isinstance(left.func, ast.Attribute) \
            and left.func.attr == "get" and len(left.args) == 1 and not left.keywords:
        # `KINDS.get(cfg.kind) == "StepLR"`: a key not in the table gives None, no string
        table_expr, looked_up = left.func.value, left.args[0]
    else:
        return None
    key = setting_key(looked_up)
    if not key:
        return None
    if isinstance(right, ast.Constant) and isinstance(right.value, str):
        wanted = {right.value}
    elif isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in right.elts) \
            and isinstance(test.ops[0], (ast.In, ast.NotIn)):
        wanted = {e.value for e in right.elts}  # type: ignore[attr-defined]
    else:
        return None
    table = string_table(table_expr, scope)
    if table is None:
        return None
    return key, frozenset(k for k, v in table.items() if v in wanted)


def _known_sources(test: ast.expr | None, scope: Scope) -> tuple[tuple[str, ast.expr], ...]:
    """For an ordering test (``seen < ramp_iters``), the names it reads that hold a value
    known only by its source expression (an ``ExprVal``, which a call passes on to its
    callee's parameter as it is): what the test compares, seen through the calls."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], _ORDERING)):
        return ()
    out = []
    for name in _names_read(test):
        value = scope.lookup(name)
        if isinstance(value, ExprVal):
            node = value.node
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
                # `iters_per_epoch * cfg.warmup_epochs`: the factors' own sources, one level
                sides = []
                for side in (node.left, node.right):
                    inner = value.scope.lookup(side.id) if isinstance(side, ast.Name) else None
                    sides.append(inner.node if isinstance(inner, ExprVal) else side)
                node = ast.BinOp(sides[0], ast.Mult(), sides[1])
            out.append((name, node))
    return tuple(out)


def _names_read(expr: ast.expr) -> tuple[str, ...]:
    """The bare names in ``expr``, in walk order, kept on the node: a test is read at every
    branch the trace takes through it (thousands of times in a large project)."""
    names = getattr(expr, "_lrdoctor_names", None)
    if names is None:
        names = tuple(n.id for n in ast.walk(expr) if isinstance(n, ast.Name))
        expr._lrdoctor_names = names  # type: ignore[attr-defined]
    return names


def _self_attrs_read(methods: Iterable[ast.FunctionDef | ast.AsyncFunctionDef]) -> set[str]:
    """Names of the attributes the ``methods`` read on ``self`` (``self.name.step()``,
    ``self.name is not None``), not those they only assign."""
    out: set[str] = set()
    for method in methods:
        out |= _self_reads(method)
    return out


@per_node
def _self_reads(method: ast.AST) -> frozenset[str]:
    """``_self_attrs_read`` of one method, found once per method (a base class's methods are
    read for every subclass traced)."""
    return frozenset(node.attr for node in ast.walk(method)
                     if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)
                     and isinstance(node.value, ast.Name) and node.value.id == "self")


def _holds_object(value: Any) -> bool:
    """Whether ``value`` is (or may be) an optimizer, scheduler or scaler lrdoctor tracks."""
    if isinstance(value, UnionVal):
        return any(isinstance(o, Obj) for o in options(value))
    return isinstance(value, Obj)


# words of a computed key that say nothing of what the entry holds
_BARE_KEY_WORDS = frozenset({"", "state", "dict", "sd", "ckpt", "checkpoint", "params", "weights"})


def _builtin_getattr(func: ast.expr, scope: Scope, arities: tuple[int, ...]) -> ast.Call | None:
    """``func`` when it is a call of Python's own ``getattr`` (not a name the program binds)
    with as many positional arguments as ``arities`` allows and no keyword: the callee of
    ``getattr(obj, name)(...)``; None for anything else."""
    if isinstance(func, ast.Call) and isinstance(func.func, ast.Name) \
            and func.func.id == "getattr" and len(func.args) in arities and not func.keywords \
            and scope.lookup("getattr") is None and not _bound(scope, "getattr"):
        return func
    return None


def _attribute_call(node: ast.Call, cache: str, receiver: ast.expr, name: str) -> ast.Call:
    """``receiver.<name>(...)`` with the arguments of ``node`` (a ``getattr(receiver,
    ...)(...)`` call whose attribute is known to be ``name``): a node made once per name and
    kept on ``node`` under ``cache``, so that every trace sees the same call site."""
    made: dict[str, ast.Call] | None = getattr(node, cache, None)
    if made is None:
        made = {}
        setattr(node, cache, made)
    call = made.get(name)
    if call is None:
        attribute = ast.copy_location(
            ast.Attribute(value=receiver, attr=name, ctx=ast.Load()), node.func)
        call = ast.copy_location(
            ast.Call(func=attribute, args=node.args, keywords=node.keywords), node)
        made[name] = call = ast.fix_missing_locations(call)
    return call


def _whole_dataset_batches(loader: Any) -> bool:
    """``DataLoader(dataset, batch_size=len(dataset))`` (full-batch training on a small
    table): one batch holds the whole dataset, so a loop over the loader makes exactly one
    pass per epoch. Only when the batch size is ``len()`` of the very dataset the loader is
    given, and no sampler decides how many items an epoch draws."""
    call = loader.call if isinstance(loader, Obj) and loader.kind == "loader" else None
    if call is None:
        return False
    given = {kw.arg: kw.value for kw in call.keywords}
    if "sampler" in given or "batch_sampler" in given or None in given:
        return False
    dataset = given.get("dataset", call.args[0] if call.args else None)
    size = given.get("batch_size", call.args[1] if len(call.args) > 1 else None)
    return dataset is not None and isinstance(size, ast.Call) \
        and (dotted(size.func) or "") == "len" and len(size.args) == 1 \
        and ast.dump(size.args[0]) == ast.dump(dataset)


def _takes_call(cls: ClassInfo, call: ast.Call) -> bool:
    """Whether building ``cls`` could take the arguments of ``call``: its ``__init__`` (its
    own or the nearest base's in the project) has a parameter for every keyword the call
    names and room for its positional arguments. A class with no ``__init__`` in view (a
    library base's) takes nothing known here."""
    found = cls.find("__init__")
    if found is None:
        return False
    args = found[0].args
    names_taken = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
    if any(kw.arg is not None and kw.arg not in names_taken and args.kwarg is None
           for kw in call.keywords):
        return False
    positional = len(args.posonlyargs) + len(args.args) - 1  # without `self`
    given = sum(1 for a in call.args if not isinstance(a, ast.Starred))
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    return given <= positional or args.vararg is not None


def _known_entry(value: Any, key: ast.expr, source: ast.expr | None) -> bool:
    """Whether ``container[key] = value`` under a key computed at run time still says what the
    entry holds: the state of a tracked object (``opts[i].state_dict()``, whichever of the
    listed optimizers ``i`` picks), or a ``.state_dict()`` of something lrdoctor does not track
    (a model) under an f-string key whose text names it (``f"decoder_{i}"``). A key and value
    both unknown (``for k, v in extra.items(): ckpt[k] = v``) leave the container partly
    unknown."""
    if isinstance(value, (Obj, StateDictVal)):
        return True
    if isinstance(value, UnionVal):
        return bool(value.options) and all(isinstance(o, (Obj, StateDictVal))
                                           for o in value.options)
    text = _key_text(key)
    if value is not None or text is None:
        return False
    if not (isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
            and source.func.attr == "state_dict" and not source.args):
        return False
    owner = dotted(source.func.value)
    if owner is None or names.guess_kind_from_name(owner):
        return False  # `sched.state_dict()` of a scheduler lrdoctor did not see built
    return bool(set(re.split(r"[^a-z]+", text.lower())) - _BARE_KEY_WORDS)


def _spelled_with(expr: ast.expr, var: str, value: str) -> str | None:
    """The text ``expr`` spells when the name ``var`` holds ``value``: the name itself, an
    f-string of literal parts and that name (``f"_{phase}_epoch"``), or a sum of literals
    and it (``phase + "_step"``); None for anything else (a format spec, a conversion)."""
    if isinstance(expr, ast.Name):
        return value if expr.id == var else None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.JoinedStr):
        parts: list[str] = []
        for part in expr.values:
            if isinstance(part, ast.FormattedValue):
                if part.conversion != -1 or part.format_spec is not None:
                    return None
                inner = _spelled_with(part.value, var, value)
            else:
                inner = _spelled_with(part, var, value)
            if inner is None:
                return None
            parts.append(inner)
        return "".join(parts)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
        left, right = _spelled_with(expr.left, var, value), _spelled_with(expr.right, var, value)
        return left + right if left is not None and right is not None else None
    return None


def _key_text(key: ast.expr) -> str | None:
    """The literal text of a key formatted at run time (``f"decoder_{i}"``, ``"decoder_%d" %
    i``, ``"decoder_{}".format(i)``); None for any other key."""
    if isinstance(key, ast.JoinedStr):
        return "".join(part.value for part in key.values
                       if isinstance(part, ast.Constant) and isinstance(part.value, str))
    if isinstance(key, ast.BinOp) and isinstance(key.op, ast.Mod) \
            and isinstance(key.left, ast.Constant) and isinstance(key.left.value, str):
        return key.left.value
    if isinstance(key, ast.Call) and isinstance(key.func, ast.Attribute) \
            and key.func.attr == "format" and isinstance(key.func.value, ast.Constant) \
            and isinstance(key.func.value.value, str):
        return key.func.value.value
    return None


def _tracked(value: Any) -> bool:
    """Whether a value is something a call's events could depend on (not a plain value)."""
    if isinstance(value, ExprVal):
        return bool(value.attrs)  # a namespace the code stored an object on
    return value is not None and not isinstance(value, (Const, ImportRef))


def _arg_key(value: Any) -> Any:
    """What of an argument a call's trace depends on: the identity of tracked objects (held
    by the key: a temporary freed after its call could hand its address to a later,
    different object, whose call would then replay the first one's trace); of plain values
    only what tracing reads (flags, imported names, functions)."""
    if isinstance(value, ExprVal) and value.attrs:
        return _Same(value)  # it holds objects (`args.amp = GradScaler()`)
    if value is None or isinstance(value, ExprVal):
        return None
    if isinstance(value, Const):
        v = value.value
        return ("const", v) if v is None or isinstance(v, bool) else ("const",)
    if isinstance(value, ImportRef):
        return ("import", value.qualname)
    if isinstance(value, FuncVal):
        return ("func", _Same(value.fn), _Same(value.bound))
    if isinstance(value, ClassVal):
        return ("class", _Same(value.info))
    return _Same(value)


def _call_key(fv: FuncVal, args: list[Any], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    fn = fv.fn
    params = [p.arg for p in [*fn.args.posonlyargs, *fn.args.args]]
    if fv.bound is not None and params and not _is_static(fn):
        params = params[1:]

    def key(name: str | None, value: Any) -> Any:
        if isinstance(value, Const) and value.sure and name in _tested(fn):
            return ("const", type(value.value).__name__, repr(value.value)[:64])
        return _arg_key(value)

    return (
        _Same(fn), _Same(fv.bound), _Same(fv.closure),
        tuple(key(params[i] if i < len(params) else None, a) for i, a in enumerate(args)),
        tuple(sorted((k, key(k, v)) for k, v in kwargs.items())),
    )


def _closure_key(fv: FuncVal, args: list[Any], kwargs: dict[str, Any], site: bool
                 ) -> tuple[Any, ...] | None:
    """The summary key of a call to a closure: the call's key, and for each name its body
    reads, what that name is bound to in each enclosing scope, and the expression it was
    last assigned from (horizons are judged from it). A tracked object counts by identity,
    as an argument does (`generation` covers what is rebound inside it); a constant by its
    value. None where the body rebinds an enclosing scope's name (``nonlocal``, ``global``):
    such a call changes what later calls read, so it is traced each time."""
    reads = _free_reads(fv.fn)
    if reads is None:
        return None
    outer: list[Any] = []
    scope = fv.closure
    while scope is not None:
        level: list[Any] = [_Same(scope)]
        for name in reads:
            if name in scope.vars:
                value = scope.vars[name]
                level.append((name, ("const", type(value.value).__name__, repr(value.value),
                                     value.sure, value.by_class, value.defaulted)
                              if isinstance(value, Const) else _Same(value),
                              id(scope.sources.get(name))))
            elif name in scope.sources:
                level.append((name, "source", id(scope.sources[name])))
        outer.append(tuple(level))
        scope = scope.parent
    return (*_call_key(fv, args, kwargs), site, "closure", tuple(outer))


class _Same:
    """A key part equal only to another holding the same object: held, so its id is never reused while the
    summary keyed on it lives."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.obj is self.obj


def _exit_stack_callbacks(stmt: ast.With | ast.AsyncWith, module: ModuleInfo) -> list[ast.Call]:
    """The calls ``with contextlib.ExitStack() as stack:`` runs as it exits: one per
    ``stack.callback(f, *args, **kwargs)`` statement of the block itself, as ``f(*args,
    **kwargs)`` (a call made once and kept on the statement, located at it), in the order
    they were registered."""
    made: list[ast.Call] | None = getattr(stmt, "_lrdoctor_exit_calls", None)
    if made is None:
        made = [ast.copy_location(ast.Call(func=call.args[0], args=call.args[1:],
                                           keywords=call.keywords), call)
                for _, call in exit_stack_calls(stmt, module, "callback")]
        stmt._lrdoctor_exit_calls = made  # type: ignore[union-attr]
    return made


@per_node
def _per_item_loop(call: ast.Call) -> ast.For:
    """The loop ``map(f, items)`` / ``functools.reduce(f, items, ...)`` runs: ``for _ in
    items: <the call>``, located at the call."""
    loop = ast.For(target=ast.Name(id="_", ctx=ast.Store()), iter=call.args[1],
                   body=[ast.copy_location(ast.Expr(value=call), call)], orelse=[],
                   type_comment=None)
    return ast.copy_location(loop, call)


@per_node
def _restarted_passes(stmt: ast.While) -> ast.While | None:
    """A ``while`` loop whose body draws ``next(it)`` in a ``try`` whose ``except
    StopIteration:`` handler binds ``it`` again (``it = iter(loader)``, a new pass over the
    loader) as the loop it is: a loop over passes (the ``while``'s test, the handler's
    statements once per pass, after it) around a loop over the batches of one pass (the rest
    of the body, the ``try`` taking its normal path). None for any other loop."""
    for i, child in enumerate(stmt.body):
        if not isinstance(child, ast.Try):
            continue
        drawn = {dotted(n.args[0]) for n in ast.walk(ast.Module(body=child.body, type_ignores=[]))
                 if isinstance(n, ast.Call) and dotted(n.func) == "next" and n.args
                 and isinstance(n.args[0], (ast.Name, ast.Attribute))} - {None}
        handler = next((h for h in child.handlers if h.type is not None and any(
            isinstance(t, ast.Name) and t.id == "StopIteration"
            for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]))), None)
        if handler is None or not drawn:
            continue
        rebound = {dotted(t) for n in handler.body if isinstance(n, ast.Assign)
                   for t in n.targets}
        if not drawn & rebound:
            continue
        batches = ast.copy_location(ast.While(
            test=ast.Constant(value=True),
            body=[*stmt.body[:i], *child.body, *child.orelse, *child.finalbody,
                  *stmt.body[i + 1:]],
            orelse=[]), child)
        return ast.copy_location(ast.While(test=stmt.test, body=[batches, *handler.body],
                                           orelse=stmt.orelse), stmt)
    return None


@per_node
def _comprehension_as_for(stmt: ast.Expr) -> ast.For | None:
    """A list or set comprehension used as a statement (its list thrown away), with one
    synchronous ``for`` clause, as the loop it runs: ``[sched.step() for _ in range(n)]`` is
    ``for _ in range(n): sched.step()`` (its ``if`` clauses as nested ``if`` statements). The
    loop carries the comprehension's position. None for any other statement."""
    comp = stmt.value
    if not isinstance(comp, (ast.ListComp, ast.SetComp)) or len(comp.generators) != 1:
        return None
    gen = comp.generators[0]
    if gen.is_async:
        return None
    body: list[ast.stmt] = [ast.copy_location(ast.Expr(value=comp.elt), comp.elt)]
    for test in reversed(gen.ifs):
        body = [ast.copy_location(ast.If(test=test, body=body, orelse=[]), test)]
    loop = ast.For(target=gen.target, iter=gen.iter, body=body, orelse=[], type_comment=None)
    return ast.copy_location(loop, stmt)


@per_node
def _conditional_as_if(stmt: ast.Expr) -> ast.If | None:
    """A conditional expression used as a statement (its value thrown away), ``a() if test else
    b()``, as the ``if`` statement it runs: ``if test: a()`` / ``else: b()``, at the
    expression's position. None for any other statement."""
    cond = stmt.value
    if not isinstance(cond, ast.IfExp):
        return None
    body: list[ast.stmt] = [ast.copy_location(ast.Expr(value=cond.body), cond.body)]
    orelse: list[ast.stmt] = [ast.copy_location(ast.Expr(value=cond.orelse), cond.orelse)]
    return ast.copy_location(ast.If(test=cond.test, body=body, orelse=orelse), stmt)


@per_node
def _declared(fn: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """The names a function's own body declares ``global``, and those it declares
    ``nonlocal`` (not those of the functions and classes it defines, whose declarations are
    theirs)."""
    declared: tuple[set[str], set[str]] = (set(), set())
    stack: list[ast.AST] = list(getattr(fn, "body", []))
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Global):
            declared[0].update(sub.names)
        elif isinstance(sub, ast.Nonlocal):
            declared[1].update(sub.names)
        elif not isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda, ast.expr)):
            stack.extend(ast.iter_child_nodes(sub))
    return frozenset(declared[0]), frozenset(declared[1])


@per_node
def _free_reads(fn: ast.AST) -> tuple[str, ...] | None:
    """Every name a function's body (with what it nests) reads, sorted; None where it
    declares one ``nonlocal`` or ``global``."""
    names: set[str] = set()
    for sub in ast.walk(fn):
        if isinstance(sub, (ast.Nonlocal, ast.Global)):
            return None
        if isinstance(sub, ast.Name):
            names.add(sub.id)
    return tuple(sorted(names))


_PLAIN_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "list", "tuple", "List",
                                "Tuple", "Sequence", "Literal"})


def _setting_read(node: ast.expr) -> tuple[ast.expr, str] | None:
    """(the object, the setting's name) of a setting read off an object: ``cfg.kind``,
    ``cfg["kind"]``, ``cfg.get("kind")``; None for anything else."""
    if isinstance(node, ast.Attribute):
        return node.value, node.attr
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str):
        return node.value, node.slice.value
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "get" and node.args and isinstance(node.args[0], ast.Constant) \
            and isinstance(node.args[0].value, str):
        return node.func.value, node.args[0].value
    return None


def _setting_section(test: ast.expr | None, scope: Scope) -> str | None:
    """The section of the configuration a compared selector is read from (see
    Cond.section): `scheduler` for `cfg.scheduler.type`, and for `cfg.type` where `cfg` holds
    what the caller passed as `cfg.scheduler` (or `cfg["scheduler"]`); None otherwise."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    subject = test.comparators[0] if isinstance(test.left, ast.Constant) else test.left
    read = _setting_read(subject)
    if read is None or read[1].lower() not in SELECTOR_KEYS:
        return None
    holder = read[0]
    if isinstance(holder, ast.Name):
        value = scope.lookup(holder.id)
        if not isinstance(value, ExprVal):
            return None
        holder = value.node
    if isinstance(holder, ast.Attribute):
        return holder.attr if isinstance(holder.value, (ast.Name, ast.Attribute, ast.Subscript)) \
            else None
    if isinstance(holder, ast.Subscript) and isinstance(holder.slice, ast.Constant) \
            and isinstance(holder.slice.value, str):
        return holder.slice.value
    return None


def _plain_annotation(ann: ast.expr | None, depth: int = 0) -> bool:
    """``int``, ``float``, ``List[int]``, ``Optional[float]``, ``int | None``: a plain value."""
    if ann is None or depth > 4:
        return False
    if isinstance(ann, ast.Constant):
        return ann.value is None
    if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
        return _plain_annotation(ann.left, depth + 1) and _plain_annotation(ann.right, depth + 1)
    if isinstance(ann, ast.Subscript):
        root = ann.value
        name = root.attr if isinstance(root, ast.Attribute) else (
            root.id if isinstance(root, ast.Name) else "")
        if name in ("Optional", "Union"):
            inner = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            return all(_plain_annotation(e, depth + 1) for e in inner)
        return name in _PLAIN_ANNOTATIONS
    name = ann.attr if isinstance(ann, ast.Attribute) else (
        ann.id if isinstance(ann, ast.Name) else "")
    return name in _PLAIN_ANNOTATIONS


def _declared_plain_field(info: ClassInfo, attr: str) -> bool:
    """The class (or a project base) declares ``attr`` in its body as a plain value: a field
    annotated with a plain type (``sched_step_size: int = 7`` in a dataclass config) or bound
    to a literal. Such an attribute holds a setting, whatever its name says
    (``cfg.sched_step_size`` is a number, not a scheduler)."""
    for cls in info.lineage():
        for stmt in cls.node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                    and stmt.target.id == attr:
                if _plain_annotation(stmt.annotation) or (
                        isinstance(stmt.value, ast.Constant) and stmt.value.value is not None):
                    return True
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant) \
                    and stmt.value.value is not None and any(
                        isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
                return True
    return False


def _numeric_setting(name: str, module: ModuleInfo) -> bool:
    """The module states the setting ``name`` (an argparse default, a config class's field, a
    config dict's key) as a number or a list of numbers."""
    stated = settings(module).get(name)
    if stated is None:
        return False
    items = stated.elts if isinstance(stated, (ast.List, ast.Tuple)) else [stated]
    return bool(items) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) for e in items)


def _setting_source(node: ast.expr) -> bool:
    """An argument whose source says what it holds when its value is unknown: a setting
    (``args.step_size``, ``cfg["epochs"]``), arithmetic on settings, ``len(loader)``."""
    if isinstance(node, (ast.Attribute, ast.Subscript, ast.BinOp)):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
        and node.func.id == "len"


def _plain_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Parameters that hold a plain value whatever their name says: a default that is a
    string, number or bool literal (``lr_scheduler_mode="per_epoch"``), or an annotation of
    ``str`` / ``int`` / ``float`` / ``bool``. No caller's value known, they are unknown, never
    an optimizer or scheduler guessed from the name."""
    found: frozenset[str] | None = getattr(fn, "_lrdoctor_plain", None)
    if found is not None:
        return found
    out: set[str] = set()
    for param, default in _defaulted(fn):
        if isinstance(default, ast.Constant) and isinstance(default.value, (bool, int, float, str)):
            out.add(param.arg)
    for param in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]:
        if isinstance(param.annotation, ast.Name) and param.annotation.id in (
                "str", "int", "float", "bool"):
            out.add(param.arg)
    found = fn._lrdoctor_plain = frozenset(out)  # type: ignore[union-attr]
    return found


def _left_out_by(fn: ast.FunctionDef | ast.AsyncFunctionDef, fv: FuncVal,
                 call: ast.Call | None) -> frozenset[str]:
    """The parameters without a default that ``call``, a call written in the code that names
    ``fn`` itself (``train(model=m, optimizer=o)``, ``self.train(...)``), gives no argument:
    Python raises TypeError there, so no object of the caller's is bound to them, whatever
    their names say. Only a call whose arguments are all written out (no ``*args`` /
    ``**kwargs``), to an undecorated function (a decorator may supply them: ``@click.option``)
    with no arguments preset (``functools.partial``)."""
    if call is None or fn.decorator_list or fv.preset is not None \
            or last_name(call.func) != fn.name \
            or any(isinstance(a, ast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return frozenset()
    positional = [*fn.args.posonlyargs, *fn.args.args]
    if fv.bound is not None and positional and not _is_static(fn):
        positional = positional[1:]
    elif _is_classmethod(fn) and positional:
        positional = positional[1:]
    elif positional and positional[0].arg in ("self", "cls"):
        return frozenset()  # a method reached without its instance: which argument is which
    if len(call.args) > len(positional):
        return frozenset()
    defaulted = {p.arg for p, _ in _defaulted(fn)}
    given = {k.arg for k in call.keywords}
    return frozenset(p.arg for p in [*positional[len(call.args):], *fn.args.kwonlyargs]
                     if p.arg not in defaulted and p.arg not in given)


def _defaulted(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[tuple[ast.arg, ast.expr]]:
    """(parameter, its default) for each parameter that has one."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    pairs = list(zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults))
    pairs += [(p, d) for p, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
    return pairs


def _literal_defaults(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Const]:
    """The parameters whose default is a literal (``epoch=None``, ``amp=False``), as the
    constant a call that does not pass them binds (``sure``: nothing else reaches it)."""
    out: dict[str, Const] = {}
    for param, default in _defaulted(fn):
        value = _literal_default(default)
        if value is not None:
            out[param.arg] = value
    return out


def _literal_default(default: ast.expr) -> Const | None:
    """A default that is a literal (``None``, ``False``, ``1e-8``, ``-1``), as the constant a
    call that leaves it out binds; None for any other expression."""
    if isinstance(default, ast.Constant) and isinstance(
        default.value, (bool, int, float, str, type(None))
    ):
        return Const(default.value, sure=True, defaulted=True)
    if isinstance(default, ast.UnaryOp) and isinstance(default.op, ast.USub) \
            and isinstance(default.operand, ast.Constant) \
            and isinstance(default.operand.value, (int, float)) \
            and not isinstance(default.operand.value, bool):
        # `last_epoch=-1`
        return Const(-default.operand.value, sure=True, defaulted=True)
    return None




def _dict_changed(owner: ast.AST, name: str) -> bool:
    """Whether the function (or module) changes the dict held by ``name`` in place:
    ``name[k] = v``, ``del name[k]``, ``name.update(...)`` / ``pop`` / ``setdefault`` ..."""
    for node in ast.walk(owner):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
                and node.value.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == name and node.attr not in ("get", "items", "keys", "values",
                                                                "copy"):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            return True
    return False


_DICT_READS = frozenset({"get", "items", "keys", "values"})  # a dict registry's lookups


def _registry_pairs(tree: ast.Module, name: str, module: ModuleInfo
                    ) -> list[tuple[Any, str | ast.Lambda]] | None:
    """(key, name of the module's function or class, or a lambda written in place) of a
    registry ``name`` of the module (see Tracer.project_table), or None when ``name`` is not
    one."""
    binds = [stmt for stmt in tree.body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
             and any(isinstance(t, ast.Name) and t.id == name
                     for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))]
    if len(binds) == 1 and _registry_object(tree, name):
        found = registry_object_pairs(tree, binds[0], name)
        return None if found is None else [(key, held) for key, held in found]
    if len(binds) != 1 or not isinstance(binds[0].value, ast.Dict):
        return None
    stmt = binds[0]
    if isinstance(stmt, ast.Assign) and (len(stmt.targets) != 1
                                         or not isinstance(stmt.targets[0], ast.Name)):
        return None
    literal = stmt.value
    assert isinstance(literal, ast.Dict)
    pairs: list[tuple[Any, str | ast.Lambda]] = []
    for k, v in zip(literal.keys, literal.values):
        key = const_key(k) if k is not None else None
        if key is not None and isinstance(v, ast.Lambda):
            pairs.append((key, v))  # `"cosine": lambda opt, n: CosineAnnealingLR(opt, n)`
            continue
        held = dotted(v)
        if key is None or held is None or "." in held and held.split(".")[0] not in module.imports:
            return None
        pairs.append((key, held))
    # every other use of the name: a read of an item, or a decorator that registers into it
    decorated: list[ast.expr] = []
    factories: set[str] = set()
    for top in tree.body:
        if not isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for deco in top.decorator_list:
            key = _registered_under(deco, name, module)
            if key is _NOT_REGISTERED:
                continue
            if key is None:
                return None
            pairs.append((key, top.name))
            decorated.append(deco)
            assert isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name)
            factories.add(deco.func.id)
    allowed = {id(n) for d in decorated for n in ast.walk(d)}
    allowed |= {id(n) for f in factories for n in ast.walk(module.functions[f])}
    allowed.add(id(stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target))
    if not only_looked_up(tree, name, allowed, _DICT_READS):
        return None  # changed, rebound or handed on: what it holds is not known here
    return pairs


_NOT_REGISTERED = object()


@per_node
def _registry_objects(tree: ast.AST) -> frozenset[str]:
    """Names a module binds once, at its top level, to a ``Registry(...)`` (fvcore,
    detectron2, mmengine or the project's own copy; see check/registry.py)."""
    assert isinstance(tree, ast.Module)
    bound: dict[str, int] = {}
    made: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            bound[name] = bound.get(name, 0) + 1
            if isinstance(stmt.value, ast.Call) \
                    and (dotted(stmt.value.func) or "").rsplit(".", 1)[-1] == "Registry":
                made.add(name)
    return frozenset(n for n in made if bound[n] == 1)


def _registry_object(tree: ast.Module, name: str) -> bool:
    return name in _registry_objects(tree)


def _registered_under(deco: ast.expr, table: str, module: ModuleInfo) -> Any:
    """The key ``@register(TABLE, "key")`` / ``@register("key")`` stores what it decorates
    under in ``table`` (read from the decorator function of the module: a function returning a
    nested function that stores its parameter as ``t[k] = fn``, ``t`` and ``k`` its factory's
    parameters or ``t`` the module's table), _NOT_REGISTERED when the decorator does not name
    or store into ``table``, None when it may but is not understood."""
    if not (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name)):
        return _NOT_REGISTERED if table not in {n.id for n in ast.walk(deco)
                                                if isinstance(n, ast.Name)} else None
    factory = module.functions.get(deco.func.id)
    names_in = {n.id for n in ast.walk(deco) if isinstance(n, ast.Name)}
    if factory is None:
        return None if table in names_in else _NOT_REGISTERED
    params = [a.arg for a in factory.args.posonlyargs + factory.args.args]
    given: dict[str, ast.expr] = dict(zip(params, deco.args))
    given.update((kw.arg, kw.value) for kw in deco.keywords if kw.arg)
    if len(deco.args) > len(params) or any(kw.arg is None for kw in deco.keywords) \
            or any(isinstance(a, ast.Starred) for a in deco.args):
        return None if table in names_in else _NOT_REGISTERED
    inner = [s for s in factory.body if isinstance(s, ast.FunctionDef)]
    last = factory.body[-1] if factory.body else None
    if len(inner) != 1 or not (isinstance(last, ast.Return) and isinstance(last.value, ast.Name)
                               and last.value.id == inner[0].name):
        return None if table in names_in else _NOT_REGISTERED
    fn = inner[0]
    if len(fn.args.args) != 1:
        return None if table in names_in else _NOT_REGISTERED
    item = fn.args.args[0].arg
    stores = [t for n in ast.walk(fn) if isinstance(n, ast.Assign) for t in n.targets
              if isinstance(t, ast.Subscript)]
    if len(stores) != 1:
        return None if table in names_in else _NOT_REGISTERED
    store = stores[0]
    assign = next(n for n in ast.walk(fn) if isinstance(n, ast.Assign) and store in n.targets)
    if not (isinstance(assign.value, ast.Name) and assign.value.id == item
            and isinstance(store.value, ast.Name) and isinstance(store.slice, ast.Name)):
        return None if table in names_in else _NOT_REGISTERED
    holder = store.value.id
    if holder in params:
        arg = given.get(holder)
        if not (isinstance(arg, ast.Name) and arg.id == table):
            return None if table in names_in else _NOT_REGISTERED
    elif holder != table or holder in {a.arg for a in fn.args.args}:
        return _NOT_REGISTERED if table not in names_in else None
    if any(isinstance(n, ast.Name) and n.id == holder and isinstance(n.ctx, ast.Store)
           for n in ast.walk(factory)):
        return None
    key_arg = given.get(store.slice.id) if store.slice.id in params else None
    key = const_key(key_arg) if key_arg is not None else None
    return key


def _literal_items(expr: ast.expr) -> list[tuple[str, ast.expr]] | None:
    """The (key, expression) pairs of ``dict(a=x, b=y)`` / ``{"a": x, "b": y}``, when they
    are all written out (no ``**more``, no computed key)."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
            and expr.func.id == "dict" and not expr.args:
        if any(kw.arg is None for kw in expr.keywords):
            return None
        return [(kw.arg, kw.value) for kw in expr.keywords if kw.arg is not None]
    if isinstance(expr, ast.Dict):
        pairs: list[tuple[str, ast.expr]] = []
        for k, v in zip(expr.keys, expr.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)
                    and k.value.isidentifier()):
                return None
            pairs.append((k.value, v))
        return pairs
    return None


@per_node
def _stores(node: ast.AST) -> dict[str, int]:
    """How often each name is bound in a function (or module) body."""
    counts: dict[str, int] = {}
    body = node.body if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef)) \
        else [node]
    stack: list[ast.AST] = list(body)
    while stack:
        sub = stack.pop()
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[sub.name] = counts.get(sub.name, 0) + 1
            # a nested function rebinds this scope's names only through `nonlocal`/`global`
            for inner in ast.walk(sub):
                if isinstance(inner, (ast.Global, ast.Nonlocal)):
                    for name in inner.names:
                        counts[name] = counts.get(name, 0) + 2
            continue
        if isinstance(sub, ast.Name) and not isinstance(sub.ctx, ast.Load):
            counts[sub.id] = counts.get(sub.id, 0) + 1
        elif isinstance(sub, ast.expr) and not isinstance(
            sub, (ast.NamedExpr, ast.Tuple, ast.List, ast.Starred, ast.Subscript, ast.Attribute)
        ):
            continue  # no binding inside a plain expression
        stack.extend(ast.iter_child_nodes(sub))
    return counts


def _dead_stores(owner: ast.AST, conds: tuple[Cond, ...], name: str) -> int:
    """How many bindings of ``name`` in ``owner`` lie in the branch a decided ``if`` around the
    current statement leaves (``else: unit = "epoch"`` when the trace took ``if kind ==
    "onecycle": unit = "iteration"``): they never run on this path."""
    if not conds or not all(c.decided for c in conds):
        return 0
    tests = {id(c.test): c.branch for c in conds if c.test is not None}
    dead = 0
    for node in ast.walk(owner):
        if isinstance(node, ast.If) and id(node.test) in tests:
            left = node.orelse if tests[id(node.test)] == 0 else node.body
            dead += sum(_stores(stmt).get(name, 0) for stmt in left)
    return dead


@per_node
def _tested(fn: ast.AST) -> frozenset[str]:
    """Names a function's ``if`` tests read (its summary depends on their constant values)."""
    names_read: set[str] = set()
    for sub in ast.walk(fn):
        if isinstance(sub, (ast.If, ast.IfExp, ast.While)):
            names_read.update(n.id for n in ast.walk(sub.test) if isinstance(n, ast.Name))
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) \
                and sub.func.id == "getattr" and len(sub.args) >= 2 \
                and isinstance(sub.args[1], ast.Name):
            # `getattr(hook, stage)()`: which method runs depends on the name's value
            names_read.add(sub.args[1].id)
    return frozenset(names_read)


_COMPARE = {
    ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
    ast.Is: lambda a, b: a is b, ast.IsNot: lambda a, b: a is not b,
}


def _literal_held(expr: ast.expr, scope: Scope) -> object:
    """What a name, ``self.name`` of the instance whose method runs, or a constant of a
    class (``CFG.scheduler``, see constants.class_constant_of) holds."""
    if isinstance(expr, ast.Name):
        return scope.lookup(expr.id)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        holder = scope.lookup(expr.value.id)
        if isinstance(holder, ClassVal):
            return class_constant_of(holder.info, expr.attr, scope.module)
        if isinstance(holder, ImportRef):
            return _imported_class_constant(holder, expr.attr, scope.module)
        if isinstance(holder, InstanceVal) and holder is not scope.self_val:
            # `spec.interval` of an instance of the project's class whose `__init__` stored
            # one literal there (`self.interval = interval`, built as `Spec(sched, "step")`),
            # the only store of that attribute in its module; read from another module, that
            # module must not store it either. The name must be bound once where it is read:
            # one bound on both sides of an `if` (`model = Trainer(logger=log)` / `else: model
            # = Trainer()`) holds either instance, not the one the trace kept
            value = holder.attrs.get(expr.attr)
            stores = attribute_stores(scope.module.tree)
            around = function_around(scope.module.tree, expr) or scope.module.tree
            if _stores(around).get(expr.value.id, 0) != 1:
                return None
            if isinstance(value, Const) and value.sure and "*" not in stores and (
                    scope.module is holder.info.module or not stores.get(expr.attr)):
                return value
            return None
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) \
            and expr.value.id == "self" and scope.self_val is not None \
            and scope.lookup("self") is scope.self_val:
        return scope.self_val.attrs.get(expr.attr)
    getter = isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) \
        and expr.func.attr == "get"
    root = read_root(expr.func.value) if isinstance(expr, ast.Call) \
        and isinstance(expr.func, ast.Attribute) and getter else read_root(expr)
    if (getter or isinstance(expr, (ast.Subscript, ast.Attribute))) and root is not None \
            and root not in scope.module.imports and _global_name(root, scope):
        # `CONFIG["scheduler"]` / `cfg.scheduler` / `CONFIG.get("scheduler")` (also read from
        # a nested record: `CONFIG["sched"]["name"]`, `cfg.sched.name`) of a config record the
        # module itself writes as literals and never changes: what a config class's constant
        # is to `CFG.scheduler`.
        # Not a settings module of the project (`import config` then `if config.checkpoint
        # != "":`): its values are edited to switch the run's modes, resuming among them
        return record_literal(expr, scope.module, function_around(scope.module.tree, expr))
    return None


def _imported_class_constant(ref: ImportRef, attr: str, reader: ModuleInfo) -> Const | None:
    """``CFG.scheduler`` after ``from config import CFG``, a class of the project: the literal
    its body binds (see constants.class_constant_of), as for a class of the reading file, the
    name being the same object in every module that imports it. Only when no Python file of
    the project stores an attribute of that name (a driver writing ``CFG.scheduler =
    args.scheduler`` before training changes what runs)."""
    loader = reader.loader
    found = loader.module_for(ref.qualname, reader) if loader is not None else None
    if found is None or found[1] not in found[0].classes:
        return None
    other, name = found
    if loader is None or loader.attribute_stored(other.path, attr):
        return None
    return class_constant_of(other.classes[name], attr, reader)


def _class_registry(info: ClassInfo, attr: str) -> ast.expr | None:
    """The empty container the class body binds ``attr`` to, once and to nothing else
    (``schedulers = {}``, ``hooks = []``, ``registry = dict()``): a registry its methods fill."""
    found: list[ast.expr] = []
    for stmt in info.node.body:
        if isinstance(stmt, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
            found.append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
                and stmt.target.id == attr and stmt.value is not None:
            found.append(stmt.value)
    if len(found) != 1:
        return None
    value = found[0]
    empty = isinstance(value, ast.Dict) and not value.keys \
        or isinstance(value, ast.List) and not value.elts \
        or isinstance(value, ast.Call) and dotted(value.func) in ("dict", "list") \
        and not value.args and not value.keywords
    return value if empty else None


def _global_name(name: str, scope: Scope) -> bool:
    """Whether ``name`` read in ``scope`` is the module's: no enclosing function binds it."""
    while scope.parent is not None:
        if name in scope.vars:
            return False
        scope = scope.parent
    return True


def _unset_default(call: ast.Call, scope: Scope) -> Const | None:
    """What ``getattr(self, "name", <literal>)`` gives (the literal) and ``hasattr(self,
    "name")`` gives (False) when no code of the project can set ``name`` on the instance (see
    unset.never_set): an opt-in switch nothing switches on. None when anything may set it, or
    the instance's class takes attributes from a library base, a ``__getattr__``, a
    metaclass or a decorator that could add it."""
    func = call.func
    if not isinstance(func, ast.Name) or func.id not in ("getattr", "hasattr") \
            or call.keywords or scope.lookup(func.id) is not None:
        return None
    arity = 3 if func.id == "getattr" else 2
    if len(call.args) != arity or not isinstance(call.args[0], ast.Name) \
            or not isinstance(call.args[1], ast.Constant) \
            or not isinstance(call.args[1].value, str) or not call.args[1].value.isidentifier():
        return None
    if arity == 3:
        default = call.args[2]
        if not isinstance(default, ast.Constant) \
                or not isinstance(default.value, (bool, int, str, type(None))):
            return None
        given: object = default.value
    else:
        given = False
    if call.args[0].id == "self":
        classes = [c for c in (scope.owner, scope.self_val.info if scope.self_val is not None
                               and scope.lookup("self") is scope.self_val else None)
                   if c is not None]
        if not classes or not all(_own_attributes_only(c) for c in classes):
            return None
    elif not _parsed_options(call.args[0].id, scope):
        return None
    if not unset.never_set(scope.module.path, scope.module.tree, call.args[1].value):
        return None
    return Const(given, sure=True)


def _parsed_options(name: str, scope: Scope) -> bool:
    """Whether ``name`` was last bound, in this function or the module, to what an argparse
    parser of the file parsed (``args = parser.parse_args()``, ``args, _ =
    parser.parse_known_args()``, ``parser`` built as ``argparse.ArgumentParser(...)``): a
    namespace whose attributes are the parser's options and what the project stores."""
    found = scope.source_of(name)
    if found is None:
        return False
    value, where = found
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
            and value.slice.value == 0:
        value = value.value  # `parser.parse_known_args()[0]`
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in ("parse_args", "parse_known_args")
            and isinstance(value.func.value, ast.Name)
            and len(value.args) < 2 and not value.keywords):  # no `namespace=` given
        return False
    built = where.source_of(value.func.value.id)
    return built is not None and isinstance(built[0], ast.Call) \
        and built[1].module.qualify(dotted(built[0].func) or "") == "argparse.ArgumentParser"


def _own_attributes_only(info: ClassInfo) -> bool:
    """Whether every attribute an instance of ``info`` can have comes from the project's own
    code: each class of its lineage has project bases only (or ``object``), no metaclass, no
    decorator but ``dataclass``, and no ``__getattr__`` / ``__getattribute__``."""
    for cls in info.lineage():
        node = cls.node
        if node.keywords or any(b != "object" for b in cls.bases) \
                and len(cls.base_classes()) != len([b for b in cls.bases if b != "object"]):
            return False
        if "" in cls.bases:
            return False  # a base that is not a plain name (`Generic[T]`, a call)
        if any((dotted(d.func if isinstance(d, ast.Call) else d) or "").split(".")[-1]
               != "dataclass" for d in node.decorator_list):
            return False
        if "__getattr__" in cls.methods or "__getattribute__" in cls.methods:
            return False
    return True


def _tests_a_default(test: ast.expr, scope: Scope) -> bool:
    """Whether ``test`` reads a parameter that holds the literal default its caller left."""
    for node in ast.walk(test):
        if isinstance(node, (ast.Name, ast.Attribute)):
            value = _literal_held(node, scope)
            if isinstance(value, Const) and value.defaulted:
                return True
    return False


_VIEW_METHODS = frozenset({"keys", "values", "items"})
_DICT_METHODS = frozenset({"get", "pop", "items", "keys", "values", "update", "copy",
                           "setdefault"})


def _fresh_object(expr: ast.expr) -> bool:
    """Whether evaluating ``expr`` builds a new object each time, one no name can already
    hold: a list, dict or set display, a comprehension or generator expression, a lambda,
    or a mapping's view (``d.keys()``, ``d.values()``, ``d.items()``, a new view per call).
    Tuples are left out: the empty tuple and constant tuples may be shared."""
    if isinstance(expr, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp,
                         ast.SetComp, ast.GeneratorExp, ast.Lambda)):
        return True
    return (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute)
            and expr.func.attr in _VIEW_METHODS and not expr.args and not expr.keywords)


def _tested_value(expr: ast.expr, scope: Scope) -> object:
    """What a test reads: a name or a setting (see _literal_held), or the value of a call
    that reads one (``getattr(self, "name", <literal>)``, ``CONFIG.get("scheduler")``)."""
    found = _unset_default(expr, scope) if isinstance(expr, ast.Call) else None
    return found if found is not None else _literal_held(expr, scope)


def _constant_outcome(test: ast.expr, scope: Scope) -> bool | None:
    """The outcome of a test on a name that can only hold one literal (``step = "epoch"`` ...
    ``if step == "batch":``), else None."""
    negate = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, not negate
    outcome: bool | None = None
    if isinstance(test, ast.Constant):
        # `if False:` / `if 0:`, code switched off by hand
        outcome = bool(test.value)
    elif isinstance(test, ast.BoolOp):
        # `if False and "optimizer" in state:`: one operand decides it
        parts = [_constant_outcome(v, scope) for v in test.values]
        decisive = isinstance(test.op, ast.Or)
        if decisive in parts:
            outcome = decisive
        elif all(p is not None for p in parts):
            outcome = not decisive
    elif isinstance(test, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        value = _tested_value(test, scope)
        if isinstance(value, Const) and value.sure and isinstance(
            value.value, (bool, int, str, type(None))
        ):
            outcome = bool(value.value)
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and (_fresh_object(test.left) or _fresh_object(test.comparators[0])):
        # `if scaler is state.keys():` compares identity with an object built by the test
        # itself, which nothing else can hold: never true (`is not`: always true)
        outcome = isinstance(test.ops[0], ast.IsNot)
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARE:
        left, right = test.left, test.comparators[0]
        if isinstance(left, ast.Constant):
            left, right = right, left
        if isinstance(left, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) \
                and isinstance(right, ast.Constant):
            value = _tested_value(left, scope)
            literal = right.value
            if (isinstance(value, Const) and value.sure
                    and isinstance(value.value, (bool, int, str, type(None)))
                    and isinstance(literal, (bool, int, str, type(None)))):
                outcome = bool(_COMPARE[type(test.ops[0])](value.value, literal))
    if outcome is None:
        return None
    return outcome != negate
_RECEIVER_METHODS = frozenset(
    {"step", "zero_grad", "get_lr", "step_update", "update", "unscale_", "scale",
     "load_state_dict", "state_dict"}
)


_LEAVES = (ast.Return, ast.Raise, ast.Continue, ast.Break)


def _leaves(body: list[ast.stmt]) -> bool:
    """True when a block never falls through to the statement after it."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, _LEAVES):
        return True
    return isinstance(last, ast.If) and _leaves(last.body) and _leaves(last.orelse)


def _branch_that_falls_through(stmt: ast.If) -> int | None:
    """0 or 1: the only branch of ``stmt`` after which the next statement can run (None when
    both can, or neither)."""
    body, orelse = _leaves(stmt.body), _leaves(stmt.orelse)
    if body == orelse:
        return None
    return 1 if body else 0


def _class_method_of(node: ast.Attribute, scope: Scope) -> FuncVal | None:
    """``cls.resume`` in a classmethod: the class's (or the subclass's override of a)
    classmethod or staticmethod by that name, so that ``cls.resume(..., scaler=scaler)`` runs
    with the objects the template hands it. ``cls`` itself stays unknown (see trace_call):
    only a method it names is followed, never an instance it would build."""
    if not isinstance(node.value, ast.Name):
        return None
    inner: Scope | None = scope
    while inner is not None:
        if inner.cls_of is not None:
            break
        if node.value.id in inner.vars:
            return None  # a comprehension's or closure's own name
        inner = inner.parent
    if inner is None or inner.cls_of is None or inner.cls_of[0] != node.value.id:
        return None
    _, info, instance = inner.cls_of
    found = info.find(node.attr)
    if found is None or not (_is_static(found[0]) or _is_classmethod(found[0])):
        return None
    return FuncVal(found[0], found[1].module, instance, found[1])


def _property_kind(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """"plain" for a ``@property`` getter, "cached" for a ``@functools.cached_property``,
    None for anything else (a method, a property's setter)."""
    for deco in fn.decorator_list:
        name = dotted(deco) if not isinstance(deco, ast.Call) else None
        if name == "property":
            return "plain"
        if name is not None and name.rsplit(".", 1)[-1] == "cached_property":
            return "cached"
    return None


def _is_static(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)


def _narrowed_name(target: ast.expr, scope: Scope) -> tuple[dict[str, Any], str] | None:
    """Where the name a class test looks at lives (a variable, or ``self.x`` of the
    instance), and its key; None for anything else."""
    if isinstance(target, ast.Name) and target.id in scope.vars:
        return scope.vars, target.id
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
            and target.value.id == "self" and scope.self_val is not None \
            and target.attr in scope.self_val.attrs:
        return scope.self_val.attrs, target.attr
    return None


def _builds_lambda_lr(option: Any) -> bool:
    """A scheduler a Hugging Face warm-up builder (or a pytorch_transformers warm-up class)
    made: always a LambdaLR. ``get_scheduler`` is left out: its name can pick a plateau."""
    return isinstance(option, Obj) and option.kind == "scheduler" and option.origin == "hf" \
        and option.cls != "get_scheduler" \
        and (option.cls in HF_WARMUP_BUILDERS or option.cls in names.LEGACY_HF_WARMUPS)


def _split_choice(store: dict[str, Any], key: str, subject: Any,
                  sides: tuple[list[Any], list[Any]]
                  ) -> tuple[dict[str, Any], str, Any, Any] | None:
    """A choice narrowed by a class test: (store, key, its value in the ``if`` branch, in the
    ``else`` branch), or None when the test rules no option out on either side."""
    everything = len(options(subject))
    if len(sides[0]) == everything and len(sides[1]) == everything:
        return None
    values = [None if not side else side[0] if len(side) == 1
              else UnionVal(side, exclusive=True) for side in sides]
    return store, key, values[0], values[1]


def _picked_by_test(key: ast.expr, scope: Scope) -> ast.IfExp | None:
    """The conditional expression a subscript's key is (``0 if warm else 1``), or the one the
    key's name was last bound to in this function (``key = "warmup" if epoch < n else
    "decay"``); None for any other key."""
    if isinstance(key, ast.IfExp):
        return key
    if isinstance(key, ast.Name):
        found = scope.source_of(key.id)
        if found is not None and isinstance(found[0], ast.IfExp):
            return found[0]
    return None


def _is_classmethod(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "classmethod" for d in fn.decorator_list)


def _words(node: ast.AST) -> tuple[str, ...]:
    """Identifiers and string constants in ``node`` (cheaper than unparsing it), kept on the
    node: a loop's header is read each time the trace enters the loop."""
    words = getattr(node, "_lrdoctor_words", None)
    if words is not None:
        return words  # type: ignore[no-any-return]
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.append(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.append(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.append(sub.value)
    node._lrdoctor_words = words = tuple(out)  # type: ignore[attr-defined]
    return words


def _range_args(node: ast.expr) -> list[ast.expr]:
    """The arguments of ``range(...)``, also inside ``tqdm(range(...))`` / ``trange(...)``."""
    while isinstance(node, ast.Call):
        name = dotted(node.func) or ""
        last = name.rsplit(".", 1)[-1]
        if last in ("range", "trange"):
            return list(node.args)
        if last in names.ITER_WRAPPERS and node.args:
            node = node.args[0]
            continue
        return []
    return []


def _for_hint(stmt: ast.For | ast.AsyncFor, targets: frozenset[str], scope: Scope,
              tracer: Tracer) -> str:
    iterable = stmt.iter
    if isinstance(iterable, ast.Name):
        # `progress_bar = tqdm(range(len(loader)))` ... `for itr in progress_bar:`
        found = scope.source_of(iterable.id)
        if found is not None and isinstance(found[0], ast.Call):
            iterable = found[0]
    range_args = _range_args(iterable)
    if range_args and not any(names.unit_of_word(t) == "epoch" for t in targets) \
            and _epochs_times_batches(range_args[1] if len(range_args) > 1 else range_args[0]):
        # `for it in range(max_epoch * iters_per_epoch)`: an epoch count times the batches of
        # an epoch is a number of batches, whatever word of it names the epochs
        return "batch"
    for word in [*targets, *(w for a in range_args for w in _words(a))]:
        unit = names.unit_of_word(word)
        if unit == "epoch":
            return "epoch"
    if range_args:
        for arg in range_args:
            for word in _words(arg):
                if names.unit_of_word(word) == "batch":
                    return "batch"
        for name in targets:
            if name in ("step", "it", "iteration", "global_step", "iter_num", "update"):
                return "batch"
        return ""
    # `for batch in get_batches(...)`, a generator of batches with no loader object in sight
    iter_words = _words(iterable)
    if any(names.guess_kind_from_name(w) == "loader" for w in iter_words):
        return "batch"
    return ""


def _epochs_times_batches(stop: ast.expr) -> bool:
    """``stop`` is a product one factor of which counts epochs (``epochs``, ``cfg.max_epoch``)
    and another the batches of one epoch (``iters_per_epoch``, ``len(loader)``)."""
    factors: list[ast.expr] = []
    pending = [stop]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            pending.extend((node.left, node.right))
        else:
            factors.append(node)
    if len(factors) < 2:
        return False
    units = [{names.unit_of_word(w) for w in _words(f)} for f in factors]
    return any("epoch" in u and "batch" not in u for u in units) \
        and any("batch" in u and "epoch" not in u for u in units)


def _while_counters(stmt: ast.While) -> frozenset[str]:
    """The names (or ``self.x``) a ``while`` test compares and the body adds a constant 1 to
    once per pass (``epoch += 1`` / ``epoch = epoch + 1`` at the top level of the body, not
    under a branch or an inner loop): the loop's pass counter."""
    tested: set[str] = set()
    for node in ast.walk(stmt.test):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                text = dotted(side)
                if text is not None:
                    tested.add(text)
    counted: set[str] = set()
    for child in stmt.body:
        if isinstance(child, ast.AugAssign) and isinstance(child.op, ast.Add) \
                and _is_one(child.value):
            text = dotted(child.target)
        elif isinstance(child, ast.Assign) and len(child.targets) == 1 \
                and isinstance(child.value, ast.BinOp) and isinstance(child.value.op, ast.Add) \
                and _is_one(child.value.right) \
                and dotted(child.value.left) == dotted(child.targets[0]):
            text = dotted(child.targets[0])
        else:
            continue
        if text is not None and text in tested:
            counted.add(text)
    return frozenset(counted)


def _is_one(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1 and not isinstance(node.value, bool)


def _while_hint(stmt: ast.While) -> str:
    for word in _words(stmt.test):
        unit = names.unit_of_word(word)
        if unit:
            return unit
    for stmt_node in [stmt.test, *stmt.body]:
        for node in ast.walk(stmt_node):
            if isinstance(node, ast.Call):
                name = dotted(node.func) or ""
                if name in ("next", "get_batch") or name.endswith(".get_batch"):
                    return "batch"
    return ""


_CALLED = re.compile(r"(?<!def )(?<!class )\b([A-Za-z_]\w*)\s*\(")



# words that make a name a setting of an object or a record about it, not the object itself
# (`schedule_index`, `sched_name`, `optimizer_state`, `scheduler_type`)
_SETTING_WORDS = frozenset({
    "index", "idx", "stage", "phase", "name", "type", "kind", "mode", "policy", "step", "epoch",
    "iter", "state", "dict", "cfg", "config", "conf", "args", "kwargs", "params", "fn", "func",
    "cls", "class", "id", "key", "str", "path", "file", "count", "num", "interval", "freq",
    "gamma", "factor", "warmup", "milestones", "patience", "choice", "spec", "opts", "options",
})


def _entry_of_held_objects(source: ast.expr | None, label: str, scope: Scope) -> bool:
    """``source`` reads one entry, by its literal key, of a mapping lrdoctor cannot see
    (``self.optimizers["model"]``, ``objs.get("optimizer")``), bound to ``label``, a name an
    object has: not a plural (several), no word that makes it a setting or a record
    (``schedule_index``, ``sched_name``), and not an entry of a mapping read from a file
    (``checkpoint = torch.load(p)``: what it holds is saved data)."""
    last = label.rsplit(".", 1)[-1].lower()
    if last.endswith("s") or set(last.split("_")) & _SETTING_WORDS:
        return False
    if isinstance(source, ast.IfExp):
        # `self.scheduler = self.schedulers[0] if self.schedulers else None`: where the other
        # branch is None, the entry is what the name holds whenever it holds anything
        nothing = [b for b in (source.body, source.orelse)
                   if isinstance(b, ast.Constant) and b.value is None]
        other = [b for b in (source.body, source.orelse) if not (
            isinstance(b, ast.Constant) and b.value is None)]
        if len(nothing) != 1 or len(other) != 1:
            return False
        source = other[0]
    if isinstance(source, ast.Subscript) and isinstance(const_key(source.slice), str):
        container: ast.expr = source.value
    elif isinstance(source, ast.Subscript) and _literal_index(source.slice) \
            and _holds_kind_of(source.value, label):
        # `self.scheduler = self.schedulers[0]`: an item, by its literal index, of a sequence
        # whose name is the plural of what the item's name says (`schedulers` of schedulers)
        container = source.value
    elif _entry_read(source):
        assert isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute)
        container = source.func.value
    else:
        return False
    while isinstance(container, ast.Subscript):
        container = container.value  # `ckpt["state"]["optimizer"]`
    if isinstance(container, ast.Call):
        return False  # `torch.load(p)["optimizer"]`
    if isinstance(container, ast.Name):
        found = scope.source_of(container.id)
        bound = found[0] if found is not None else None
        if isinstance(bound, ast.Call) and any(
                word in (dotted(bound.func) or "").rsplit(".", 1)[-1].lower()
                for word in ("load", "state_dict", "read")):
            return False  # `checkpoint = torch.load(path)`, `sd = model.state_dict()`
    return True


def _read_back_from_file(source: ast.expr | None, scope: Scope, label: str) -> bool:
    """``source`` is what a loading call returned (``torch.load(path)``), or an entry of it by
    literal keys (``torch.load(path)["optimizer"]``, ``ckpt["optimizer"]`` with ``ckpt =
    torch.load(path)`` bound in view): an object read back from a file."""
    node = source
    while isinstance(node, ast.Subscript) and const_key(node.slice) is not None:
        node = node.value
    if isinstance(node, ast.Name):
        found = scope.source_of(node.id)
        node = found[0] if found is not None else None
    # (a loader handed the optimizer, `load(path, model, optimizer)`, may return that very
    # object with its state restored: not a new one)
    return isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] == "load" \
        and len(node.args) + len(node.keywords) <= 2 \
        and not any(isinstance(a, (ast.Name, ast.Attribute))
                    and ((dotted(a) or "") == label or "optim" in (dotted(a) or ""))
                    for a in [*node.args, *(k.value for k in node.keywords)])


def _literal_index(node: ast.expr) -> bool:
    """``node`` is an integer literal (``0``, ``-1``): a position in a sequence."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int


def _holds_kind_of(container: ast.expr, label: str) -> bool:
    """``container`` is a name (or attribute) whose last part is a plural (`schedulers`,
    `lr_schedulers`, `optimizers`) of the object kind ``label``'s name says: a sequence of such
    objects."""
    text = dotted(container) or ""
    last = text.rsplit(".", 1)[-1]
    if not last.lower().endswith("s") or len(last) < 2:
        return False
    kind = names.guess_kind_from_name(label)
    # (loaders are left out: an item of `loaders` is often one loader of several the loop
    # picks between, which the granularity readings must not take for the epoch's loader)
    return kind in ("optimizer", "scheduler", "scaler") \
        and kind == names.guess_kind_from_name(last[:-1])


def _entry_read(source: ast.expr | None) -> bool:
    """``objs.get("optimizer")`` / ``objs.pop("scheduler", None)``: one entry of a mapping read
    by its literal key."""
    return isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) \
        and source.func.attr in ("get", "pop") and 1 <= len(source.args) <= 2 \
        and not source.keywords and isinstance(const_key(source.args[0]), str)


def _given_parameters(call: ast.Call) -> bool:
    """A call handed the model's parameters (``model.parameters()``, ``trainable_params``,
    ``param_groups``) or the ``torch.optim`` module: what building an optimizer looks like."""
    for arg in [*call.args, *(kw.value for kw in call.keywords)]:
        if isinstance(arg, ast.Starred):
            arg = arg.value
        text = (dotted(arg.func) if isinstance(arg, ast.Call) else dotted(arg)) or ""
        last = text.rsplit(".", 1)[-1].lower()
        held = arg.func if isinstance(arg, ast.Call) else arg
        if not text and isinstance(held, ast.Attribute):
            # `models[name].parameters()`: the method (or attribute) read off an expression
            # that has no dotted name
            last = held.attr.lower()
        if "param" in last or text in ("torch.optim", "optim"):
            return True
    return False


def _template_hooks(cls: ClassInfo) -> frozenset[str]:
    """Methods of ``cls`` that a method of a project base class, inherited by ``cls`` as it
    is (not overridden), calls on ``self``: the base's template (``train()`` running
    ``self.before_train()``, ``self._train_epoch()`` with ``self._train_batch(i, batch)`` in
    its batch loop and ``self.after_train_epoch()`` after it) runs these overrides with an
    instance of ``cls``. A method the template never reaches stays an entry point (and one
    nothing traces at all is traced on its own at the end, see ``Tracer.run``)."""
    out: set[str] = set()
    for base in itertools.islice(cls.lineage(), 1, None):
        for name, method in base.methods.items():
            found = cls.find(name)
            if found is None or found[0] is not method:
                continue  # overridden: the base's version never runs for this class
            out |= _called_on_self(method) & cls.methods.keys()
    return frozenset(out)


@per_node
def _called_on_self(method: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The names of the methods ``method`` calls on ``self`` (``self.before_train()``)."""
    return frozenset(
        node.func.attr for node in ast.walk(method)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "self")


def _reaches_override(cls: ClassInfo, method: ast.FunctionDef | ast.AsyncFunctionDef,
                      limit: int = 64) -> bool:
    """Whether a base class's ``method`` calls on itself, directly or through the methods it
    so calls, a method that ``cls`` defines: with the base's own instance it ran the base's
    version (a `train()` template whose `setup_optimization()` / `training_step()` the
    subclass overrides), with an instance of ``cls`` it runs another."""
    if "__init__" in cls.methods:
        return True  # the subclass's own `__init__` builds another instance
    seen: set[int] = set()
    stack = [method]
    while stack and len(seen) < limit:
        fn = stack.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        for node in ast.walk(fn):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "self":
                name = node.func.attr
                if name in cls.methods:
                    return True
                found = cls.find(name)
                if found is not None:
                    stack.append(found[0])
    return False


def _hf_epochs(trainer: ast.Call, scope: Scope) -> float | None:
    """The epochs a Hugging Face Trainer call runs, when its ``TrainingArguments`` (written in
    the call, or bound to a name of the same function) state them: ``num_train_epochs`` as
    the file states it (3 when not given), None when ``max_steps`` is given (it decides the
    length instead) or the arguments are not written out here."""
    expr: ast.expr | None = next((kw.value for kw in trainer.keywords if kw.arg == "args"),
                                 trainer.args[1] if len(trainer.args) > 1 else None)
    where: Scope | None = scope
    for _ in range(4):
        if not isinstance(expr, ast.Name) or where is None:
            break
        found = where.source_of(expr.id)
        if found is None:
            return None
        expr, where = found
    if not (isinstance(expr, ast.Call)
            and (dotted(expr.func) or "").rsplit(".", 1)[-1].endswith("TrainingArguments")):
        return None
    stated = {kw.arg: kw.value for kw in expr.keywords}
    if None in stated or "max_steps" in stated or expr.args:
        return None  # `**kwargs` or positional fields: not all of it is written here
    if "num_train_epochs" not in stated:
        return 3.0  # the Trainer's default
    value = resolve(stated["num_train_epochs"], where)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


_DOT_CALL = re.compile(r"\.\s*([A-Za-z_]\w*)\s*\(")
_RECEIVER_TAIL = re.compile(r"[A-Za-z_][\w.]*$")
# what stands before a class's name where a name is bound to an instance of it: `x = `,
# `self.x = `, `x: ` (an annotation), with a dotted prefix (`models.Trainer`) or a quote
_BINDS_BEFORE = re.compile(r"(self\.)?\b([A-Za-z_]\w*)[ \t]*(?:(:)[ \t]*[\"']?|(?::[^=\n]*)?(?<![=!<>])=[ \t]*)"
                           r"(?:\w+\.)*$")


def _callee_before(text: str) -> str | None:
    """The dotted name called by the call that ``text`` ends with (``text`` ends in ``)``):
    ``self.scaler.scale`` for ``... self.scaler.scale(loss)``; "" when no name precedes its
    ``(``, None when the ``(`` is not in ``text``."""
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        char = text[i]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                tail = _RECEIVER_TAIL.search(text[:i].rstrip())
                return tail.group(0) if tail is not None else ""
    return None


def _own_method_calls(module: ModuleInfo, source: str | None = None) -> frozenset[str]:
    """Names ``module`` calls on a receiver that may be an instance of one of its own classes
    (found once per module): ``self.name()``, ``super().name()``, ``Cls.name(self)``,
    ``Cls(...).name()``, a variable or a ``self.attr`` bound to ``Cls(...)`` or annotated
    ``Cls`` (a plain ``name()`` calls a function, never a method). A variable bound to
    anything else (``model.eval()`` with ``model`` a parameter, ``optimizer.step()``) holds
    another class's object. An object the file does not say (``self.model``,
    ``self.models[k]``, another call's result) may be ours, unless the call cannot reach our
    method: ``self.model.train()`` with no argument where every ``train`` of the file's
    classes takes some (a trainer's ``train(dataset, epochs)``).
    Read from the source text (the tracer's other name scans do the same, at C speed); a
    name in a string or comment only makes a method look called, as before."""
    if module.own_calls is not None:
        return module.own_calls
    if source is None:
        source = ast.unparse(module.tree)
    classes = set(module.classes)
    bound: set[str] = {"self", "cls", *classes}  # names that may hold an instance
    bound_attrs: set[str] = set()  # `self.<attr>` that may hold one
    if classes:
        alternatives = "|".join(re.escape(c) for c in sorted(classes))
        for match in re.finditer(rf"\b(?:{alternatives})\b", source):
            line = source.rfind("\n", max(0, match.start() - 200), match.start()) + 1
            binds = _BINDS_BEFORE.search(source, line, match.start())
            if binds is None or not (binds.group(3) or source[match.end():match.end() + 80]
                                     .lstrip().startswith("(")):
                continue  # an assignment binds an instance only when it calls the class
            (bound_attrs if binds.group(1) else bound).add(binds.group(2))
    # the fewest arguments each method name takes (past `self`) among the file's classes
    needs: dict[str, int] = {}
    for info in module.classes.values():
        for name, fn in info.methods.items():
            given = fn.args.posonlyargs + fn.args.args
            required = len(given) - len(fn.args.defaults) - 1
            needs[name] = min(needs.get(name, required), max(required, 0))
    methods = set(needs)
    out: set[str] = set()
    for match in _DOT_CALL.finditer(source):
        name = match.group(1)
        if name not in methods or name in out:
            continue
        start = match.start()
        before = source[source.rfind("\n", max(0, start - 200), start) + 1:start].rstrip()
        if before.endswith(")"):
            # `super().name()`, `Cls(...).name()`: ours; `scaler.scale(loss).backward()`: the
            # result of another call (a call not read whole in view counts, as before)
            callee = _callee_before(source[max(0, start - 400):start].rstrip())
            own = callee is None or callee.rsplit(".", 1)[-1] in ("super", *classes)
        else:
            tail = _RECEIVER_TAIL.search(before) if not before.endswith("]") else None
            parts = tail.group(0).split(".") if tail is not None else []
            if len(parts) == 1:
                own = parts[0] in bound
            elif len(parts) == 2 and parts[0] == "self" and parts[1] in bound_attrs:
                own = True
            else:
                # an object the file does not say (`self.model`, `self.models[k]`, `a.b`): it
                # may be ours, unless the call cannot reach any of our methods of that name -
                # `self.model.train()` with no argument, where ours takes some (the module's
                # mode switch vs a trainer's `train(dataset, epochs)`)
                bare = source[match.end():match.end() + 40].lstrip().startswith(")")
                own = not (bare and needs[name] > 0)
        if own:
            out.add(name)
    module.own_calls = frozenset(out)
    return module.own_calls


def _placeholder(source: ast.expr | None) -> bool:
    """A literal a value starts from (`self.val_loss = 0.0`, `best_val = -1`, `None`)."""
    if isinstance(source, ast.UnaryOp):
        source = source.operand
    return isinstance(source, ast.Constant)


@per_node
def _does_nothing(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body of `pass`, a docstring, `...` or a bare `return` / `return None` (an abstract
    method is a placeholder for its overrides, not a choice of nothing)."""
    if any((dotted(d.func) if isinstance(d, ast.Call) else dotted(d)) in (
            "abstractmethod", "abc.abstractmethod") for d in fn.decorator_list):
        return False
    return all(
        isinstance(stmt, ast.Pass)
        or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        or (isinstance(stmt, ast.Return) and (
            stmt.value is None
            or (isinstance(stmt.value, ast.Constant) and stmt.value.value is None)))
        for stmt in fn.body
    )


def _called_names(tree: ast.Module, source: str | None = None) -> set[str]:
    """Names of functions/methods called anywhere in the module (to find entry points)."""
    if source is not None:
        # the source text answers this at C speed; a name in a string or comment only makes a
        # function look called, so it is traced through its callers (or as a leftover root)
        return set(_CALLED.findall(source))
    called: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                called.add(func.id)
            elif isinstance(func, ast.Attribute):
                called.add(func.attr)
    return called


def _step_arity(call: ast.Call) -> int:
    """How many arguments a call names: its positional ones and its named keywords (a
    ``*args`` / ``**kwargs`` adds nothing it can be sure of)."""
    return sum(not isinstance(a, ast.Starred) for a in call.args) \
        + sum(kw.arg is not None for kw in call.keywords)


def _yaml_value(data: Any, module: ModuleInfo, shown: str, root: Any = None,
                depth: int = 0) -> Any:
    """A YAML file's data as the trace's values: mappings as dicts (``shown``: the file that
    states them, relative to the project root), lists as tuples, plain values as constants.
    ``root``: the whole config when OmegaConf reads it, to resolve an interpolation of
    another of its values (``${trainer.max_epochs}``); any other (a resolver, ``???``, no
    root) is filled in at run time: unknown. The values of a composed Hydra config carry the
    file of their own (see yamlconf.sourced)."""
    if depth > 16:
        return None
    found = sourced(data, module)
    if found is not None:
        data, shown = found
    if isinstance(data, dict):
        stated = next((f[1] for v in data.values() if (f := sourced(v, module)) is not None),
                      shown)
        return DictVal({k: _yaml_value(v, module, stated, root, depth + 1)
                        for k, v in data.items()
                        if isinstance(k, (str, int)) and not isinstance(k, bool)},
                       config=stated)
    if isinstance(data, list):
        return TupleVal([_yaml_value(v, module, shown, root, depth + 1) for v in data[:256]])
    if isinstance(data, str) and ("${" in data or data == "???"):
        target = interpolated(data, root) if root is not None else UNRESOLVED
        if target is UNRESOLVED or isinstance(target, dict) \
                or set(re.findall(r"\w+", data)) & changed_keys(module.tree):
            return None  # (or a value the program itself stores a new one into)
        return _yaml_value(target, module, shown, None, depth + 1)
    if isinstance(data, (bool, int, float, str)) or data is None:
        return Const(data, config=True)
    return None


def _hydra_config(fn: ast.FunctionDef | ast.AsyncFunctionDef, module: ModuleInfo) -> Any:
    """The config ``@hydra.main(...)`` over ``fn`` composes, as a trace value; None when it
    has no such decorator or the config is not certain."""
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Call) and module.qualify(dotted(dec.func) or "") == "hydra.main":
            found = yaml_data(module, dec)
            if found is not None:
                return _yaml_value(found[0], module, found[1], found[0])
    return None


def _certain_key(expr: ast.expr, value: Any, scope: Scope) -> str | int | None:
    """The key ``expr`` (whose trace value is ``value``) looks a registry up by, when it is
    certain: a literal held by a name bound once, a value of the YAML config the program
    loads, or the default of an argparse option nothing in the file changes; None
    otherwise."""
    if isinstance(value, Const) and value.sure and isinstance(value.value, (str, int)) \
            and not isinstance(value.value, bool):
        return value.value
    if isinstance(value, Const) and value.config and isinstance(value.value, (str, int)) \
            and not isinstance(value.value, bool):
        return value.value  # `cfg.scheduler.name` of a YAML config the program loads
    if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)
            and _parsed_options(expr.value.id, scope)):
        return None
    # an argparse option (`args.sched`): its default, unless the file stores into it
    # (`args.sched = ...`, a `setattr` on it, `vars(args).update(cfg)`)
    stores = attribute_stores(scope.module.tree)
    changed = changed_keys(scope.module.tree)
    if stores.get(expr.attr) or stores.get("*") or stores.get("@" + expr.value.id) \
            or expr.attr in changed or "*" in changed:
        return None
    stated = resolve(expr, scope)
    if isinstance(stated, (str, int)) and not isinstance(stated, bool):
        return stated
    return None


def _callable_without_arguments(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``fn`` (a method) can be called with no argument past ``self``: every other positional
    parameter and every keyword-only one has a default."""
    if isinstance(fn, ast.AsyncFunctionDef) or fn.decorator_list:
        return False
    args = fn.args
    positional = args.posonlyargs + args.args
    if not positional:
        return False  # no `self`: not a method as the instance calls it
    return len(positional) - 1 <= len(args.defaults) and all(
        d is not None for d in args.kw_defaults)


# what torch's optimizers offer their callers: a project optimizer class that adds nothing
# else is taken as one optimizer (see Tracer.plain_optimizer)
_OPTIMIZER_API = frozenset({"step", "zero_grad", "state_dict", "load_state_dict",
                            "add_param_group", "share_memory"})


def _steps_another(fn: ast.FunctionDef | ast.AsyncFunctionDef, but_schedules: bool = False
                   ) -> bool:
    """``fn`` calls ``<something>.step(...)`` on anything but ``super()`` (a scheduler it
    wraps, an optimizer). ``but_schedules``: not on what is named as a scheduler either
    (``self.hessian_power_scheduler.step()`` in an optimizer's own ``step()`` moves a
    schedule of its own, it steps no other optimizer). Without it, still not on one whose
    step's value is used (``self.power = self.power_scheduler.step()``): torch's LR
    schedulers' step() returns nothing, so that is a schedule of some other quantity."""
    discarded = {id(node.value) for node in ast.walk(fn) if isinstance(node, ast.Expr)}
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("step", "step_update"):
            if is_super(node.func.value):
                continue
            if (but_schedules or id(node) not in discarded) and names.guess_kind_from_name(
                    last_name(node.func.value)) == "scheduler":
                continue
            return True
    return False


def _grown_in(tree: ast.AST, name: str) -> bool:
    """Whether ``tree`` adds to a sequence named ``name`` anywhere (``name.append(...)``,
    ``self.name += [...]``, ``name.extend(...)`` / ``.insert(...)``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "extend", "insert") \
                and last_name(node.func.value) == name:
            return True
        if isinstance(node, ast.AugAssign) and last_name(node.target) == name:
            return True
    return False


def _class_constant_names(info: ClassInfo, attr: str) -> TupleVal | None:
    """The strings a class body (of ``info`` or the nearest project base class binding it)
    binds ``attr`` to once, as a tuple or list literal, when no method assigns it on the
    instance: ``KEYS = ("model", "optimizer")``."""
    for cls in info.lineage():
        if attr in cls.self_assigns:
            return None
        found = [stmt.value for stmt in cls.node.body if isinstance(stmt, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets)]
        if not found:
            continue
        value = found[0]
        if len(found) != 1 or not isinstance(value, (ast.Tuple, ast.List)) or not all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts):
            return None
        return TupleVal([Const(e.value, sure=True) for e in value.elts  # type: ignore[attr-defined]
                         ])
    return None


def _project_module_picked(name: str | None, importer: ModuleInfo, loader: Any) -> str | None:
    """The dotted ``name`` ``importlib.import_module`` is handed when it names a module of the
    project (``"scheduler." + name`` with ``name`` an option's default handed down), else
    None: a name the program does not fix, or a library's module, is left as it was (an
    unknown module)."""
    if name is None or not name or name.startswith(".") or not all(p.isidentifier() for p in name.split(".")):
        return None
    found = loader.module_for(f"{name}.__name__", importer)
    return name if found is not None else None
