"""The abstract values of a trace: what lrdoctor knows a name or expression stands for.

Tracking is deliberately narrow: optimizers, schedulers, GradScalers and loaders (:class:`Obj`),
containers of them, instances of the file's own classes, and expressions kept as source
(:class:`ExprVal`) so that horizons can be judged from what was written (``epochs *
len(loader)``). Everything else is ``None``: unknown.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lrdoctor.check.index import ClassInfo, ModuleInfo, Scope
    from lrdoctor.check.model import Cond

_ids = itertools.count(1)


@dataclass(eq=False)
class Obj:
    """An optimizer, scheduler, GradScaler or data loader."""

    kind: str
    cls: str = ""  # constructor class or builder ("StepLR"); "" when only a name says what it is
    origin: str = ""  # "torch" | "hf" | "timm" | "" (unknown library or guessed from a name)
    name: str = ""  # where it was first bound: "scheduler", "self.lr_scheduler"
    call: ast.Call | None = None
    scope: Scope | None = None  # where the constructor ran, to read its arguments
    path: str = ""
    line: int = 0
    col: int = 0
    order: int = 0  # when it was created
    optimizer: Obj | None = None  # schedulers: the optimizer they drive
    members: list[Obj] = field(default_factory=list)  # composite schedulers' children
    in_composite: bool = False
    conditional: bool = False  # `GradScaler() if args.amp else None`: may not exist at run time
    # the test of the conditional expression that picked it, negated for its `else` arm
    # (`build_scaler() if args.amp else None` in the caller of the builder that made it)
    picked_by: ast.expr | None = None
    # what that test says, as a branch's ``Cond.fact`` does: (the flag's source, the versions
    # of the names it reads, the truth the arm needs); None when the test is not one flag
    picked_fact: tuple[str, tuple[Any, ...], bool] | None = None
    # the branches it was built on (None until its creation is traced): the
    # CosineAnnealingLR of `elif args.sched == "cosine":` exists only when args.sched is "cosine"
    built_under: tuple[Cond, ...] | None = None
    # an instance of the project's own subclass of torch's LRScheduler that keeps torch's
    # step(): its class is unknown, but what step(epoch) does is torch's
    torch_step: bool = False
    # an optimizer object read back from a file in place of this earlier one (`optimizer =
    # ckpt["optimizer"]`): the same run's optimizer, continued, as far as its checkpoint's
    # contents go
    read_back_of: Obj | None = None
    # built from the pip package warmup_scheduler's GradualWarmupScheduler or from the
    # project's own subclass of it that keeps its step(): the class's name
    warmup_wrapper: str = ""
    # a class of torch.optim.lr_scheduler that a setting picks (`getattr(lr_scheduler,
    # cfg.name)(opt)`, a factory handed that module: `config.init_obj("lr_scheduler",
    # torch.optim.lr_scheduler, opt)`): one of torch's classes, which one is not known
    torch_module: bool = False
    skip_aware: bool = False  # wrapped in lrdoctor.SkipAwareScheduler: steps only on real updates
    # handed to an Accelerator's prepare(): an optimizer that skips the steps accumulate()
    # does not sync, a scheduler that skips them with it
    prepared: bool = False
    # the Accelerator (its RunnerVal) whose prepare() it went through, where the trace knows it
    prepared_by: Any = None
    via: ast.Call | None = None  # the project's builder call it came from, its class unknown
    # built from the project's own subclass of torch's scheduler base (one that keeps torch's
    # step()): that class and the scope of the call, to read its horizons from its get_lr()
    project: tuple[Any, Any] | None = None
    # the project classes whose instances keep it in an attribute (``self.sched = sched``):
    # (ClassInfo, attribute name)
    held: list[tuple[Any, str]] = field(default_factory=list)
    # the keywords a `**kwargs` of the constructor call passes, when that dict is known whole
    # (a factory's own `**kwargs`, filled by a call that names every argument): each as an
    # expression to read in ``scope`` (see ``trace._spread_keywords``)
    spread: dict[str, ast.expr] | None = None
    id: int = field(default_factory=lambda: next(_ids))

    @property
    def guessed(self) -> bool:
        return self.call is None

    def arg(self, name: str, index: int) -> ast.expr | None:
        """The constructor argument by keyword or position (``None`` when absent or unknown)."""
        if self.call is None:
            return None
        for kw in self.call.keywords:
            if kw.arg == name:
                return kw.value
        if self.spread is not None and name in self.spread:
            return self.spread[name]
        if any(isinstance(a, ast.Starred) for a in self.call.args[: index + 1]):
            return None
        if index < len(self.call.args):
            return self.call.args[index]
        return None

    def has_kwargs_splat(self) -> bool:
        return self.call is not None and any(kw.arg is None for kw in self.call.keywords)

    @property
    def label(self) -> str:
        return self.cls or self.name or self.kind


@dataclass(eq=False)
class Unfilled:
    """A parameter without a default that the traced call leaves out (no ``*``/``**`` there to
    fill it): that call raises TypeError, so the name holds nothing the caller built. Neither
    its name nor its annotation makes it an optimizer or a scheduler (see ``trace_call``)."""

    name: str


@dataclass(eq=False)
class TupleVal:
    items: list[Any]


@dataclass(eq=False)
class DictVal:
    items: dict[Any, Any]
    splat: bool = False  # built with ** from something unknown
    # partly unknown only through entries stored under keys computed at run time whose values
    # are not known either (`stats[name] = compute(w)` in a loop over the parameters), never
    # through a `**` of something unknown: a record of values, not an unknown set of entries
    only_keyed: bool = False
    # a function's `**kwargs`: a key it lacks may still be passed; it is guessed from its name
    open: bool = False
    # a mapping read from a YAML config: the file (relative to the project root) that states
    # it; its keys read as attributes too (OmegaConf's `cfg.scheduler`)
    config: str = ""
    # its keys read as attributes too, and nothing else does: Lightning's ``self.hparams``
    # (an AttributeDict of the ``__init__`` arguments ``save_hyperparameters()`` kept)
    attribute_keys: bool = False
    # the keys of entries stored under a key computed at run time (`optimizers[name] = ...`
    # in a loop over names read from a setting), as the items spell them
    computed: set[Any] = field(default_factory=set)
    # a function's `**kwargs` filled by a call in the code: the expression that call wrote for
    # each key, with the scope it is read in (its value may be unknown: a parameter of an
    # entry point)
    written: dict[str, tuple[ast.expr, Any]] = field(default_factory=dict)

    def unknown_entries(self, keyed_values: bool = False) -> None:
        """Some entries are not known: ``keyed_values`` when they are values stored under
        keys computed at run time (see ``only_keyed``), else anything (a ``**`` of something
        unknown, a merge), which the dict stays partly unknown through for good."""
        self.only_keyed = keyed_values and (self.only_keyed or not self.splat)
        self.splat = True


@dataclass(eq=False)
class UnionVal:
    """One of several objects (the loop variable of ``for s in schedulers``)."""

    options: list[Any]
    # exactly one of them, chosen by branches (`if args.sched == "cosine": scheduler = ...
    # else: scheduler = ...`): a call on it is a call on one option, never on all at once
    exclusive: bool = False


@dataclass(eq=False)
class Const:
    value: Any
    # the name holding it can have no other value where it is tested: a literal bound once,
    # unconditionally, and never rebound in its function (`step = "epoch"`)
    sure: bool = False
    # the outcome of a class test on a scheduler of known class (`isinstance(s, CyclicLR)`)
    by_class: bool = False
    # the literal default of a parameter its caller left out (`checkpoint=None`)
    defaulted: bool = False
    # a value of a YAML config the program loads (a default the user runs with)
    config: bool = False


@dataclass(eq=False)
class ExprVal:
    """A value known only by its source (kept to judge horizons: ``epochs * len(loader)``)."""

    node: ast.expr
    scope: Scope
    # tracked objects the code stored on it (`args.amp = GradScaler()` on an argparse
    # namespace), read back as its attributes wherever the value goes
    attrs: dict[str, Any] | None = None


@dataclass(eq=False)
class StateDictVal:
    obj: Obj


@dataclass(eq=False)
class ScaledVal:
    scaler: Obj


@dataclass(eq=False)
class ParamGroupsVal:
    optimizer: Obj


@dataclass(eq=False)
class ParamGroupVal:
    optimizer: Obj


@dataclass(eq=False)
class ItemsVal:
    """``d.items()``: pairs of (key, value)."""

    source: DictVal


@dataclass(eq=False)
class ImportRef:
    qualname: str


@dataclass(eq=False)
class FuncVal:
    fn: ast.FunctionDef | ast.AsyncFunctionDef
    module: ModuleInfo
    bound: InstanceVal | None = None
    cls: ClassInfo | None = None
    # the function's scope a nested function was defined in (its closure)
    closure: Scope | None = None
    # `functools.partial(f, *args, **kwargs)`: the arguments given ahead of the call
    preset: tuple[list[Any], dict[str, Any]] | None = None
    # the function as written, its decorators already applied (the value a project
    # decorator's wrapper calls): a call runs its own body
    undecorated: bool = False




@dataclass(eq=False)
class LibPartial:
    """``functools.partial(LibraryClass, *args, **kwargs)`` of a class lrdoctor builds objects
    of (a scheduler, an optimizer, a GradScaler): calling it builds that object with the
    arguments given ahead joined to those of the call (``node`` is the partial's own call,
    ``scope`` the scope its arguments are read in)."""

    qualname: str
    node: ast.Call
    scope: Any
    preset: tuple[list[Any], dict[str, Any]]


@dataclass(eq=False)
class RunnerVal:
    """An instance of a library class that runs the training for the user and whose methods
    lrdoctor knows by the class, not by the name it is held under: Accelerate's
    ``Accelerator`` (``kind`` "accelerator") and Lightning's ``Fabric`` ("fabric").
    ``self.acc.save(state, path)`` is ``accelerator.save``, whatever the attribute is called."""

    kind: str
    # Accelerate: built with gradient accumulation (``gradient_accumulation_steps`` other than
    # a literal 1, or a ``gradient_accumulation_plugin``), so inside ``accumulate()`` a
    # prepared optimizer's step() does nothing on the micro-batches that do not sync; the
    # count's spelling, to tell a schedule sized in micro-batches (``total * accum``)
    accumulation: ast.expr | None = None
    # Accelerate: built with ``step_scheduler_with_optimizer=False``: a prepared scheduler's
    # step() then steps the wrapped scheduler on every call, synced or not (the default, True,
    # steps it only with the real updates)
    scheduler_unsynced: bool = False
    # Accelerate: float16 mixed precision, whose GradScaler makes a prepared optimizer's step()
    # skip the update on inf/NaN gradients: "" when the call says so (``mixed_precision=
    # "fp16"``, ``fp16=True``), the setting's source text when a setting picks it
    # (``mixed_precision=args.mixed_precision``), None when it is off or not said in the code
    # (bf16, "no", chosen at launch, picked from the hardware)
    half: str | None = None


@dataclass(eq=False)
class DeepSpeedEngineVal:
    """The engine ``deepspeed.initialize`` returns: ``engine.backward(loss)`` is the backward,
    ``engine.step()`` the optimizer step (at accumulation boundaries) and a step of the
    scheduler handed to ``initialize(lr_scheduler=...)``."""

    optimizer: Obj | None = None
    scheduler: Obj | None = None


@dataclass(eq=False)
class EngineVal:
    """A PyTorch-Ignite ``Engine(process_function)`` (or ``create_supervised_trainer``): its
    ``run(loader, max_epochs=...)`` loops over epochs and batches, calling the process function
    on each batch and the handlers attached to its events around them."""

    process: FuncVal | None = None
    optimizer: Obj | None = None  # create_supervised_trainer's: stepped on every batch
    # create_supervised_trainer(amp_mode="amp", scaler=...)'s GradScaler: the update of every
    # batch goes through its step(), which skips the optimizer step on inf/NaN gradients
    scaler: Obj | None = None
    built: ast.Call | None = None  # the create_supervised_trainer call, where its steps are
    # per event: functions to call with the arguments given after them in
    # `add_event_handler(event, fn, *args, **kwargs)`, what an Ignite checkpoint handler
    # saves there, or the torch scheduler an Ignite ``LRScheduler`` handler steps there
    handlers: dict[str, list[tuple[FuncVal, list[Any], dict[str, Any]] | IgniteCheckpoint
                             | IgniteLRStep]] = field(default_factory=dict)


@dataclass(eq=False)
class IgniteCheckpoint:
    """``ModelCheckpoint(dir, prefix)`` / ``Checkpoint(to_save, saver)``: a handler that saves
    the objects it is given (``to_save``) when the event it is attached to fires."""

    to_save: Any = None
    node: ast.Call | None = None


@dataclass(eq=False)
class IgniteLRStep:
    """Ignite's ``LRScheduler(torch_scheduler)`` (or ``create_lr_scheduler_with_warmup`` around
    one) attached to an event: Ignite steps the wrapped scheduler each time the event fires.
    ``scheduler``: the torch scheduler (or a choice of them); ``node``: the
    ``add_event_handler`` call; ``conds``: the branches it was attached on."""

    scheduler: Any
    node: ast.Call
    conds: tuple[Any, ...] = ()


@dataclass(eq=False)
class ClassVal:
    info: ClassInfo


@dataclass(eq=False)
class SuperVal:
    """``super()`` in a method of ``owner`` called on ``instance``."""

    instance: InstanceVal
    owner: ClassInfo


@dataclass(eq=False)
class InstanceVal:
    info: ClassInfo
    attrs: dict[str, Any] = field(default_factory=dict)
    # an instance of a project subclass of Ignite's ``Engine``: the engine it is (its process
    # function is the one its ``__init__`` hands to ``super().__init__``)
    engine: EngineVal | None = None
    # an instance of the project's own scheduler class with a step() of its own (a warm-up
    # wrapper): the call that built it and the scope it was written in, to read its horizons
    built: tuple[ast.Call, Any] | None = None
    # an instance of a project subclass of Accelerate's ``Accelerator`` (or Lightning's
    # ``Fabric``): the runner it is for the methods the project does not write itself
    runner: RunnerVal | None = None



def const_key(node: ast.expr) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return node.value
    return None


def options(value: UnionVal, limit: int = 64) -> list[Any]:
    """The alternatives of a union, nested unions flattened (containers may be cyclic)."""
    out: list[Any] = []
    seen: set[int] = set()
    stack = [value]
    while stack and len(out) < limit:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, UnionVal):
            stack.extend(reversed(item.options))
        else:
            out.append(item)
    return out


def subscript(base: Any, index: ast.expr, depth: int = 0) -> Any:
    key = const_key(index)
    if isinstance(base, DictVal):
        if key is None:
            return UnionVal(list(base.items.values()))
        if key not in base.items:
            # `optimizers["model"]` of a mapping filled in a loop over names read from a
            # setting (`optimizers[name] = build(...)`): the key is one of those names, so
            # the entry is what the loop stored
            unnamed = list({id(v): v for k, v in base.items.items()
                            if k in base.computed or isinstance(k, tuple)
                            and k[:1] == ("<key>",)}.values())
            if unnamed:
                return unnamed[0] if len(unnamed) == 1 else UnionVal(unnamed)
        return base.items.get(key)
    if isinstance(base, TupleVal):
        if isinstance(key, int) and -len(base.items) <= key < len(base.items):
            return base.items[key]
        return UnionVal(base.items) if base.items else None
    if isinstance(base, ParamGroupsVal):
        return ParamGroupVal(base.optimizer)
    if isinstance(base, UnionVal) and depth < 4:
        return UnionVal([subscript(o, index, depth + 1) for o in options(base)])
    return None


def flatten(value: Any, depth: int = 0) -> list[Any]:
    if depth > 6:
        return []
    if isinstance(value, TupleVal):
        return [x for item in value.items for x in flatten(item, depth + 1)]
    if isinstance(value, UnionVal):
        return [x for item in options(value) for x in flatten(item, depth + 1)]
    return [value]


def loop_members(value: Any) -> Any:
    """What a loop variable is bound to when the loop iterates tracked objects, else None."""
    if isinstance(value, ParamGroupsVal):
        return ParamGroupVal(value.optimizer)
    if isinstance(value, ItemsVal):
        return TupleVal([None, UnionVal(list(value.source.items.values()))])
    if isinstance(value, (TupleVal, DictVal, UnionVal)):
        items = (
            value.items if isinstance(value, TupleVal)
            else list(value.items.values()) if isinstance(value, DictVal)
            else options(value)
        )
        tracked = [i for i in items if _tracked_member(i)]
        if tracked and len(tracked) == len(items):
            return UnionVal(tracked)
    return None


def _tracked_member(item: Any) -> bool:
    """An item a loop over tracked objects may hold: a tracked object, or a choice among
    tracked objects (`[get_scheduler(opt_g), get_scheduler(opt_d)]` where each builder picks
    a class per setting), kept whole so the choice stays one object per run."""
    if isinstance(item, Obj):
        return item.kind != "loader"
    if isinstance(item, UnionVal):
        found = options(item)
        return bool(found) and all(isinstance(o, Obj) and o.kind != "loader" for o in found)
    return False


def is_loader(value: Any) -> bool:
    if isinstance(value, Obj):
        return value.kind == "loader"
    if isinstance(value, TupleVal):
        return any(isinstance(v, Obj) and v.kind == "loader" for v in value.items)
    return False


def one_of_loaders(value: Any) -> bool:
    """``value`` is one of several data loaders, which one not decided here: the entry of a
    dict of loaders picked by a key the code varies (``dataloaders[phase]`` over
    ``{"train": DataLoader(...), "val": DataLoader(...)}`` or ``{x: DataLoader(...) for x in
    phases}``). A loop over it runs over a loader's batches whichever entry it is."""
    if not isinstance(value, UnionVal):
        return False
    found = options(value)
    return bool(found) and all(isinstance(o, Obj) and o.kind == "loader" for o in found)


# the interval of a Lightning scheduler config `{"interval": "step", "frequency": N}` whose
# frequency is not 1 (or not known): Lightning steps it after every N-th batch, not every batch
EVERY_FEW_STEPS = "step/frequency"


def lightning_interval(entry: DictVal) -> str | None:
    """When Lightning steps the scheduler of a config dict ``{"scheduler": s, ...}``: None
    without an ``interval`` (once per epoch), its literal value (``"step"``, ``"epoch"``),
    ``"?"`` for one not written as a literal, and ``EVERY_FEW_STEPS`` for ``"step"`` with a
    ``frequency`` other than a literal 1: Lightning then steps it once every ``frequency``
    batches (``"frequency": len(train_loader)`` is once per epoch), not after every batch."""
    interval = entry.items.get("interval")
    if interval is None:
        return None
    if not isinstance(interval, Const) or not isinstance(interval.value, str):
        return "?"
    if interval.value == "step" and "frequency" in entry.items:
        freq = entry.items["frequency"]
        if not (isinstance(freq, Const) and freq.value == 1
                and not isinstance(freq.value, bool)):
            return EVERY_FEW_STEPS
    return str(interval.value)
