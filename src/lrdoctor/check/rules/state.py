"""Checkpoints and manual LR writes: LRD007, LRD008."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from typing import Any

from lrdoctor.check import constants, names
from lrdoctor.check.constants import parent_map
from lrdoctor.check.context import (
    FileContext,
    class_at,
    definitions_in,
    function_around,
    function_at,
    granularity,
    last_binding,
    receiver,
)
from lrdoctor.check.diagnostic import Diagnostic
from lrdoctor.check.horizon import ignores_first_argument, project_constant
from lrdoctor.check.index import Scope, dotted, last_name, parameters_of
from lrdoctor.check.memo import nodes_in, own_statements, per_node
from lrdoctor.check.model import Event, Loop, built_apart, calling_scope, exclusive
from lrdoctor.check.position import (
    built_at_a_position,
    built_site,
    fast_forwarded,
    fresh_start,
    last_epoch_arg,
    trains_in,
)
from lrdoctor.check.project import display_path, line_at
from lrdoctor.check.rules import rule
from lrdoctor.check.rules.scalers import never_skips, scaler_switch, when
from lrdoctor.check.values import (
    Const,
    DictVal,
    ExprVal,
    FuncVal,
    InstanceVal,
    Obj,
    StateDictVal,
    TupleVal,
    UnionVal,
)
from lrdoctor.schedulers import (
    RESTARTS,
    RESUME_UNMOVED,
    SCHEDULERS,
    recomputes_lr,
    resumed_without_state,
)


def _saved(value: Any, objs: set[int], words: list[str], depth: int = 0) -> bool:
    """Collect what a checkpoint holds; False when part of it is unknown (``**extra``)."""
    if depth > 4:
        return True
    if isinstance(value, DictVal):
        if value.splat and not (depth and value.only_keyed):
            # unknown entries in the checkpoint itself (`**extra`, `ckpt[k] = v` for an
            # unknown pair) may hold any state; inside one of its entries, a record filled
            # under computed keys (`stats[name] = value` in a loop over the layers) holds
            # values, not another object's state
            return False
        for key, item in value.items.items():
            if isinstance(item, Const) or _kept_count(item) or _torch_module_state(item) \
                    or _none_passed(item):
                # `"optimizer": None  # to reduce file size`: nothing of it is saved; and a
                # setting (`"optimizer": "adamw"` of a config dict saved with the run) is a
                # literal, never an object's state; nor is a count the program keeps itself
                # (`"schedule_index": schedule_index`), whatever its key is named
                continue
            words.append(str(key).lower())
            if not _saved(item, objs, words, depth + 1):
                return False
    elif isinstance(value, TupleVal):
        for item in value.items:
            if not _saved(item, objs, words, depth + 1):
                return False
    elif isinstance(value, StateDictVal):
        objs.add(value.obj.id)
    elif isinstance(value, Obj):
        objs.add(value.id)
    elif isinstance(value, UnionVal):
        # the state of a scheduler chosen by a setting: whichever option runs is stored
        for option in value.options:
            if isinstance(option, (StateDictVal, Obj)):
                _saved(option, objs, words, depth + 1)
    elif isinstance(value, ExprVal):
        words.append(_saved_text(value).lower())
    return True


def _saved_text(value: ExprVal) -> str:
    """The text a saved value stands for. What a function of the project returns is not the
    state of the objects handed to it (``"step": train(model, loader, optimizer, scheduler,
    step)`` saves a count): of such a call, the callee and any ``.state_dict()`` written in
    its arguments; of anything else, the whole expression."""
    node = value.node
    if isinstance(node, ast.Call) and value.scope is not None and _project_function(node, value):
        kept = [dotted(node.func) or ast.unparse(node.func)]
        kept += [ast.unparse(n) for arg in (*node.args, *(k.value for k in node.keywords))
                 for n in ast.walk(arg) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Attribute) and n.func.attr == "state_dict"]
        return " ".join(kept)
    return ast.unparse(node)


def _project_function(call: ast.Call, value: ExprVal) -> bool:
    """Whether ``call`` calls a plain function the program defines (a name the scope binds
    to one, or a function of the module): not a method, a class or a library's function."""
    if not isinstance(call.func, ast.Name) or value.scope is None:
        return False
    found = value.scope.lookup(call.func.id)
    fn: ast.AST | None = None
    if isinstance(found, FuncVal):
        fn = found.fn if found.bound is None and found.cls is None else None
    elif found is None:
        fn = value.scope.module.functions.get(call.func.id)
    # one that reads some object's state (`def pack(*objs): return [o.state_dict() ...]`)
    # may return what it was handed: its text is kept whole
    return fn is not None and not any(
        isinstance(n, ast.Attribute) and n.attr in ("state_dict", "__dict__")
        for n in nodes_in(fn))


def _none_passed(item: Any) -> bool:
    """A saved value that picks a literal by a test of a parameter its caller passed as
    ``None``: ``"optimizer": optimizer.state_dict() if optimizer is not None else None`` in a
    ``save_checkpoint(model, optimizer, ...)`` helper called with ``None`` for the optimizer
    (a generator-only or weights-only file). The parameter is never rebound in the function,
    so the test is decided by the argument: the entry holds the literal, no object's state
    (a call that passes an optimizer is traced with that optimizer and keeps the entry)."""
    if not isinstance(item, ExprVal) or not isinstance(item.node, ast.IfExp) \
            or item.scope is None:
        return False
    node = item.node
    test = node.test
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
            and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None and isinstance(test.left, ast.Name):
        name = test.left.id
        # `x is not None` holds for a value, `x is None` for None
        holds_for_value = isinstance(test.ops[0], ast.IsNot)
    elif isinstance(test, ast.Name):
        name, holds_for_value = test.id, True
    else:
        return False
    if negated:
        holds_for_value = not holds_for_value
    value = item.scope.lookup(name)
    if not (isinstance(value, Const) and value.value is None and value.sure
            and not value.defaulted and not value.config):
        return False
    function = function_around(item.scope.module.tree, node)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if name not in {a.arg for a in parameters_of(function)} or any(
            isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
            for n in nodes_in(function)):
        return False
    taken = node.orelse if holds_for_value else node.body
    return isinstance(taken, ast.Constant)


def _torch_module_state(item: Any) -> bool:
    """A saved value that is the state of one of torch's own modules, bound in the saving
    function (``loss_fn = nn.CrossEntropyLoss()`` ... ``"optimizer": loss_fn.state_dict()``):
    a module's parameters and buffers, whatever its key is named; no optimizer's, scheduler's
    or scaler's state is in it."""
    if not isinstance(item, ExprVal) or item.scope is None:
        return False
    node = item.node
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "state_dict" and not node.args and not node.keywords
            and isinstance(node.func.value, ast.Name)):
        return False
    found = item.scope.source_of(node.func.value.id)
    if found is None or not isinstance(found[0], ast.Call):
        return False
    built = dotted(found[0].func) or ""
    head, _, rest = built.partition(".")
    qualname = found[1].module.imports.get(head, head) + (f".{rest}" if rest else "")
    module, _, cls = qualname.rpartition(".")
    return module == "torch.nn" and cls[:1].isupper()


def _kept_count(item: Any) -> bool:
    """A saved value that is a number the program counts itself: the name it is saved from
    (or read back into, ``stage = ckpt["schedule_stage"]``) is only ever bound to a numeric
    literal, advanced by ``+=``/``-=``, or read back from a checkpoint, and is never handed
    as such to a call (``range(stage)``, ``StepLR(..., last_epoch=stage)`` would position a
    schedule with it). Its key may name the schedule; its value is no scheduler's state."""
    if not isinstance(item, ExprVal):
        return False
    node = item.node
    tree = item.scope.module.tree
    if isinstance(node, ast.Name):
        name = node.id
    elif _count_value(node) and not isinstance(node, ast.Constant):
        name = _read_back_into(tree, node) or ""
    else:
        return False
    return bool(name) and _counter(function_around(tree, node), name)


@per_node  # asked for each read of a saved entry
def _read_back_into(tree: ast.Module, read: ast.expr) -> str | None:
    """The plain name a read of a saved entry (``ckpt["key"]``, or ``int(ckpt["key"])`` and
    the subscript inside it) is assigned to, alone: ``n = ckpt["key"]``."""
    for node in ast.walk(function_around(tree, read)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and _count_value(node.value) and (
                    node.value is read or isinstance(node.value, ast.Call)
                    and node.value.args[0] is read):
            return node.targets[0].id
    return None


def _counter(around: ast.AST, name: str) -> bool:
    """``name`` is a number ``around`` only counts and stores: bound only to numeric literals
    and to reads of a saved entry (``ckpt["k"]``, ``int(ckpt["k"])``), advanced only by
    ``+=``/``-=``, and read only where nothing can take a schedule's position from it: a
    test, a value of a dict literal (the checkpoint), a formatted string or ``print``. Read
    anywhere else (``range(n)``, ``last_epoch=n - 1``, ``sched.last_epoch = n``, a lambda a
    LambdaLR calls) it may position a schedule, and it is not taken as a mere count."""
    parents = parent_map(around)
    for node in ast.walk(around):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and node.target.id == name:
            if not isinstance(node.op, (ast.Add, ast.Sub)):
                return False
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                if len(targets) != 1 or not _count_value(node.value):
                    return False
            elif any(isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Store)
                     for t in targets for sub in ast.walk(t)):
                return False  # unpacked or bound in a tuple: not followed
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return False
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr, ast.withitem)):
            bound = node.optional_vars if isinstance(node, ast.withitem) else node.target
            if bound is not None and any(isinstance(sub, ast.Name) and sub.id == name
                                         for sub in ast.walk(bound)):
                return False
        elif isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) \
                and not _only_counted(node, parents):
            return False
    return True


def _only_counted(read: ast.Name, parents: dict[int, ast.AST]) -> bool:
    """Where ``read`` is used, nothing takes a position from it (see ``_counter``)."""
    node: ast.AST = read
    while True:
        parent = parents.get(id(node))
        if parent is None or isinstance(parent, (ast.Lambda, ast.FunctionDef,
                                                 ast.AsyncFunctionDef, ast.ClassDef)):
            return False
        if isinstance(parent, (ast.Compare, ast.BoolOp, ast.JoinedStr)):
            return True
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) \
                and node is parent.test:
            return True
        if isinstance(parent, ast.Dict) and node in parent.values:
            return True
        if isinstance(parent, ast.AugAssign):
            return isinstance(parent.target, ast.Name) and parent.target.id == read.id
        if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) \
                and parent.func.id == "print":
            return True
        if isinstance(parent, (ast.stmt, ast.Call)):
            return False
        node = parent


def _count_value(value: ast.expr | None) -> bool:
    """A numeric literal, or a saved entry read back (``ckpt["k"]``, ``int(ckpt["k"])``)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in ("int", "float") and len(value.args) == 1:
        value = value.args[0]
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    return isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) \
        and isinstance(value.slice.value, str)


def _in_root(ctx: FileContext, root: int, kind: str) -> list[Obj]:
    found: dict[int, Obj] = {}
    for e in ctx.events_by_root.get(root, []):
        candidates = [e.obj, e.info.get("optimizer")]
        for obj in candidates:
            if isinstance(obj, Obj) and obj.kind == kind:
                found[obj.id] = obj
    return list(found.values())


def _names_a_position(e: Event) -> bool:
    """Whether a scheduler step names the position it moves to (``step(epoch)``), which a
    resume then restores by itself. ``step(None)`` names none: torch takes a None epoch as no
    epoch at all (the next step). Nor does a warm-up wrapper's ``inner.step(epoch - warm)``
    inside its own ``def step(self, epoch=None)`` when its caller gives no epoch: it passes
    one on only when given one (``forwarded``), and the caller's plain ``step()`` is the step
    the resume has to restore."""
    if e.info.get("forwarded"):
        return False
    return bool(e.info.get("nargs")) or "epoch" in (e.info.get("kwargs") or [])


def _real_schedulers(ctx: FileContext, root: int, optimizer: Obj | None,
                     at: Event | None = None, plateau: bool = False) -> list[Obj]:
    """Schedulers whose lost state moves the schedule on resume: not timm's, not members of
    a composite, not those rebuilt on resume (``last_epoch=`` / ``.last_epoch = ...``), not a
    scheduler every call of which names its position (``step(epoch)``), not ReduceLROnPlateau
    (its LR lives in the optimizer state; only its patience counter would be lost) nor
    ExponentialLR (its next LR is gamma times the one in the optimizer state), not one
    that lives only inside a call made per epoch (see ``_transient``).

    ``plateau``: the ReduceLROnPlateau schedulers that pass the same tests instead, the ones
    whose best metric and patience count a resume loses (its argument is the metric, not a
    position: ``step(val_loss, epoch)`` restores neither)."""
    # one constructor call is one scheduler of the program, also where separate traces (the
    # training method, a resume method that builds the objects again) each made their own
    rebuilt = {built_site(e.obj) for e in ctx.program.events if e.kind == "set_last_epoch" and e.obj
               and not last_epoch_set_in_vain(ctx, e.obj)}
    rebuilt |= fast_forwarded(ctx)
    rebuilt |= _moved_to_position(ctx)
    positioned: dict[Any, bool] = {}
    # a scheduler picked from several by a setting and handed to the function that steps it
    # can reach that step as a stand-in known by name only: when every such step names its
    # position, so do those of the schedulers never stepped under their own identity
    unbound: bool | None = None
    # the same, for stand-ins stepped in a trace of their own: a trainer class's training
    # method reached only through a dispatch lrdoctor cannot follow (`getattr(self, mode)(...)`)
    # is traced apart, its scheduler known by name only; a scheduler this program builds and
    # never steps under its own identity is stepped there, if anywhere
    apart: bool | None = None
    for e in ctx.program.events:
        if e.kind == "sched_step" and e.obj is not None:
            explicit = _names_a_position(e)
            if e.obj.guessed and (e.info.get("nargs") or 0) >= 2:
                # `scheduler.step(val_metric, epoch)` on a scheduler known by name alone: the
                # plateau's signature (torch's other schedulers take the epoch first and
                # alone); an epoch given there leaves its best value and patience count as
                # they were, so the step names no position its state could be rebuilt from
                explicit = False
            site = built_site(e.obj)
            positioned[site] = positioned.get(site, True) and explicit
            if e.obj.guessed and e.root == root:
                unbound = (True if unbound is None else unbound) and explicit
            elif e.obj.guessed:
                apart = (True if apart is None else apart) and explicit
    if unbound is None:
        unbound = apart
    stepped = {built_site(e.obj) for e in ctx.program.events
               if e.kind in ("sched_step", "sched_step_update") and e.obj is not None}
    # optimizers whose resume builds a scheduler at the resumed position (`if resume: ...
    # sched = A(opt, ..., start_epoch) else: sched = A(opt, ...)`): a checkpoint needs no
    # scheduler state for them
    repositioned = [o for o in ctx.program.objects
                    if o.kind == "scheduler" and o.optimizer is not None
                    and (built_at_a_position(o) or _sized_from_resume(o))]
    out = []
    handoffs = [e for e in ctx.program.events if e.kind == "handoff"] if at is not None else []
    candidates = {s.id: s for s in _in_root(ctx, root, "scheduler")}
    if optimizer is not None:
        # the scheduler that drives this very optimizer belongs to its checkpoint wherever it
        # was seen stepping: a trainer class's training method and its save or resume method,
        # called by code not in view, are traced apart
        for e in ctx.program.events:
            if e.kind == "sched_step" and e.obj is not None and not e.obj.guessed \
                    and e.obj.optimizer is optimizer:
                candidates.setdefault(e.obj.id, e.obj)
    # the optimizer has a scheduler lrdoctor knows (built on it, restored or repositioned or
    # not): a stand-in known by name only and built on no optimizer lrdoctor saw (`l.scheduler`
    # of a loss module's own discriminator) is not this optimizer's
    has_known = optimizer is not None and any(
        o.kind == "scheduler" and not o.guessed and o.optimizer is optimizer
        for o in ctx.program.objects)
    for s in candidates.values():
        if s.origin == "timm" or s.in_composite or built_site(s) in rebuilt:
            continue
        if s.guessed and s.optimizer is None and has_known:
            continue
        if s.guessed and built_site(s) not in stepped:
            # a scheduler of unknown class (a parameter named `scheduler`, a project class or
            # builder lrdoctor cannot read) that this program never steps: nothing to judge
            continue
        if built_site(s) not in stepped and unbound is None and _held_steps(s) is not False:
            # never stepped in this trace, under its own identity or as a stand-in: its state
            # is a fresh one's as far as lrdoctor can see; or a project's trainer holds it
            # (`self.lr_scheduler = lr_scheduler`) and steps it in a method reached through a
            # dispatch lrdoctor cannot follow (`getattr(self, mode)(...)`), every such step
            # naming its position. A step there without one is what the resume loses.
            continue
        if plateau:
            if s.cls != "ReduceLROnPlateau" or s.guessed or built_site(s) not in stepped:
                continue
        elif s.cls == "ReduceLROnPlateau" or s.cls in RESUME_UNMOVED \
                or positioned.get(built_site(s), bool(unbound)):
            # both only scale the LR they find: it is in the optimizer state, and an
            # ExponentialLR built afresh goes on from it exactly (gamma times the current LR)
            continue
        if built_at_a_position(s) or _sized_from_resume(s) or _builder_positioned(s):
            continue
        if _positioned_through_splat(ctx, s) or s.guessed and _stand_in_for_positioned(ctx, s):
            continue
        if s.optimizer is not None and any(
                o.optimizer is not None and built_site(o.optimizer) == built_site(s.optimizer)
                and _stands_for(o, s) for o in repositioned):
            continue
        if optimizer is not None and s.optimizer is not None and s.optimizer is not optimizer \
                and s.optimizer is not optimizer.read_back_of:
            continue
        if optimizer is not None and s.optimizer is None and _drives_others(ctx, s, optimizer):
            continue
        if at is not None and (_transient(ctx, s, at) or _lives_one_pass(ctx, s, at)):
            continue
        if at is not None and _built_apart(ctx, s, at):
            continue
        if at is not None and _handed_off_around(handoffs, s, at):
            continue
        if _range_test(s) or _undone_trial(ctx, s):
            continue
        if at is not None and (_written_before_built(ctx, s, at)
                               or _written_before_stepped(ctx, s, at)):
            continue
        out.append(s)
    return out


def last_epoch_set_in_vain(ctx: FileContext, s: Obj) -> bool:
    """``scheduler.last_epoch = start - 1`` on one of PyTorch's chainable schedulers (StepLR,
    MultiStepLR, CosineAnnealingLR, ...) whose optimizer state no resume of the program
    restores. Such a scheduler scales the LR it finds in the param groups: positioned by its
    count alone it starts again from the base LR of the fresh optimizer, and the decays (or the
    part of the curve) passed before the resume point are never applied (a MultiStepLR resumed
    between its milestones keeps the undecayed LR until the next one). The position is a
    resume only with the LR it belongs to; a closed-form scheduler (LambdaLR, OneCycleLR)
    computes that LR from the count, and one built with ``last_epoch=`` needs the restored
    optimizer's ``initial_lr`` anyway. A CosineAnnealingWarmRestarts is not moved by
    ``.last_epoch`` at all (see below)."""
    if s.guessed or s.origin != "torch" or built_at_a_position(s):
        return False
    site = built_site(s)
    if not any(e.kind == "set_last_epoch" and e.obj is not None and built_site(e.obj) == site
               for e in ctx.program.events):
        return False
    if s.cls == "CosineAnnealingWarmRestarts":
        # it counts its cycle in `T_cur`, which only its constructor's `last_epoch` or a
        # `step(epoch)` sets: `.last_epoch = n` leaves the cycle at its start, optimizer or not
        return True
    if recomputes_lr(s.cls or "") is not False or s.cls == "ReduceLROnPlateau" \
            or s.cls in RESUME_UNMOVED:
        return False
    return not _optimizer_state_restored(ctx)


def _optimizer_state_restored(ctx: FileContext) -> bool:
    """Whether the program restores an optimizer's state anywhere: a traced
    ``optimizer.load_state_dict(...)``, or, in a file of the program, a ``load_state_dict``
    call on a receiver named like an optimizer (a restore lrdoctor did not trace) or one
    handed an entry named like one (``x.load_state_dict(ckpt["optimizer"])``)."""
    if any(e.kind == "load_state" and e.obj is not None and e.obj.kind == "optimizer"
           for e in ctx.program.events):
        return True
    paths = {e.path for e in ctx.program.events if e.kind == "set_last_epoch"} | {ctx.path}
    for path in paths:
        tree = _module_tree(ctx, path)
        if tree is not None and _names_an_optimizer_restore(tree):
            return True
    return False


@per_node  # asked once per file and program
def _names_an_optimizer_restore(tree: ast.Module) -> bool:
    for node in nodes_in(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "load_state_dict"):
            continue
        if "opt" in (last_name(node.func.value) or "").lower():
            return True
        for arg in node.args:
            if any(isinstance(c, ast.Constant) and isinstance(c.value, str)
                   and "opt" in c.value.lower() for c in ast.walk(arg)):
                return True
    return False


def _handed_off_around(handoffs: list[Event], s: Obj, at: Event) -> bool:
    """``s`` is handed, with its optimizer, to a call of code lrdoctor cannot read, written as
    a statement of its own (``restore_schedule(optimizer, scheduler, ckpt)``), on a path that
    can run with the checkpoint ``at``: that call may save or restore the scheduler's state,
    so its loss is not certain. A call on a branch that excludes ``at`` (``if cfg.benchmark:
    run_benchmark(model, optimizer, scheduler); return`` before the resume and the training)
    does nothing to the run that reaches ``at``."""
    return any(
        any(h is s for h in ev.info.get("schedulers", ()))
        and not (ev.root == at.root and exclusive(ev, at))
        for ev in handoffs
    )


def _written_before_built(ctx: FileContext, s: Obj, at: Event) -> bool:
    """The save ``at``, each time this trace reaches it, runs before ``s`` is built (a starting
    point kept before training, an LR range test's snapshot of the optimizer taken when the
    finder is made): the checkpoint holds a moment at which the scheduler did not exist, so a
    scheduler built afresh on resume is where the schedule was then; nothing is lost."""
    if at.kind != "save":
        return False
    made = [ev.order for ev in ctx.program.events
            if ev.kind == "create" and ev.obj is s and ev.root == at.root]
    saved = [ev.order for ev in ctx.program.events
             if ev.kind == "save" and ev.node is at.node and ev.root == at.root]
    return bool(made) and bool(saved) and max(saved) < min(made)


def _written_before_stepped(ctx: FileContext, s: Obj, at: Event) -> bool:
    """The save ``at``, each time this trace reaches it, runs after ``s`` is built and before
    it is first stepped (a starting point kept before training, a round's checkpoint written
    right after the round builds its optimizer and scheduler): the scheduler's state there is
    a fresh one's, so a scheduler built afresh on resume is where the schedule was then;
    nothing is lost. Not when a loop around the save also steps ``s`` while ``s`` is built
    outside that loop (a save at the top of each epoch follows the last epoch's steps from the
    second pass on), nor when a step comes between the build and the save."""
    if at.kind != "save":
        return False
    site = built_site(s)
    made = [ev for ev in ctx.program.events
            if ev.kind == "create" and ev.obj is s and ev.root == at.root]
    steps = [ev for ev in ctx.program.events
             if ev.kind in ("sched_step", "sched_step_update") and ev.obj is not None
             and ev.root == at.root and built_site(ev.obj) == site]
    # the saves that write this checkpoint: one helper's `torch.save(state, path)` writes the
    # dict each of its callers builds, and each caller's dict is a checkpoint of its own
    written = _written_at(at)[1]
    saved = [ev for ev in ctx.program.events
             if ev.kind == "save" and ev.node is at.node and ev.root == at.root
             and _written_at(ev)[1] is written]
    if not made or not steps or not saved:
        return False
    for save in saved:
        before = [c for c in made if c.order < save.order]
        if not before:
            return False
        built = max(before, key=lambda c: c.order)
        if any(built.order < st.order < save.order for st in steps):
            return False
        for loop in (save.loop.ancestors() if save.loop is not None else ()):
            if any(st.in_loop(loop) for st in steps) and not built.in_loop(loop):
                return False
    return True


def _drives_others(ctx: FileContext, s: Obj, optimizer: Obj) -> bool:
    """A scheduler of unknown optimizer (a parameter known by its name, a builder lrdoctor
    cannot read) that every one of its steps takes beside the steps of other optimizers, never
    beside ``optimizer``'s: at each step, the nearest call around it (the step's own function,
    else the ones that called it) in which optimizers are stepped, itself or in what it calls,
    steps only others (a generator's pre-training loop, beside a discriminator trained in a
    function of its own). A scheduler drives the optimizer whose updates it paces, so it is not
    ``optimizer``'s and its state is nothing ``optimizer``'s checkpoint lacks. Where no
    optimizer is stepped around it, or ``optimizer`` is, it may be ``optimizer``'s."""
    if optimizer.call is None:
        return False
    own = built_site(optimizer)
    updates = [e for e in ctx.program.events if e.kind == "opt_step" and e.obj is not None
               and e.obj.kind == "optimizer"]
    steps = [e for e in ctx.program.events if e.kind == "sched_step" and e.obj is s]
    if not steps or not updates:
        return False
    for step in steps:
        frame = step.frame
        beside: list[Obj] | None = None
        while frame is not None and beside is None:
            inside = [u.obj for u in updates if u.obj is not None and _called_from(u, frame)]
            beside = inside or None
            frame = frame.parent
        if beside is None:
            return False
        if any(o.guessed or o.call is None or built_site(o) == own for o in beside):
            return False
    return True


def _called_from(e: Event, frame: Any) -> bool:
    """Whether ``e`` happened in the call ``frame`` stands for or in one it made."""
    f = e.frame
    while f is not None:
        if f is frame:
            return True
        f = f.parent
    return False


# an LR range test ("LR finder": fastai's `lr_find`, torch-lr-finder's `LRFinder`, Lightning's
# `lr_find`), by the words projects use for it: `lr_finder`, `find_lr`, `lrfinder`, `lr_range_test`
_RANGE_TEST = re.compile(r"lr_?find|find_?lr|range_?test")
# a scheduler's own name may say it shorter (`finder_sched`): a scheduler is no finder of anything
_RANGE_TEST_SCHEDULER = re.compile(r"finder|lr_?find|find_?lr|range_?test")


def _range_test(s: Obj) -> bool:
    """A scheduler built only for an LR range test: on the branch where a flag or mode that
    names the test holds (`if args.lr_finder: sched = LambdaLR(opt, grow)`, the `else:` of `if
    not args.find_lr:`), or bound to a name that says so (`scheduler_lrfinder`, `finder_sched`). The test
    sweeps the LR over a short throwaway run to read a loss curve off it; nobody resumes one,
    so its scheduler's state has no place in a checkpoint (the training run's schedulers, built
    on the other branch, are judged as ever)."""
    if _RANGE_TEST_SCHEDULER.search(s.name.lower()):
        return True
    return any(_holds_range_test(c.test, c.branch == 0) for c in s.built_under or ()
               if c.test is not None and c.branch in (0, 1))


def _undone_trial(ctx: FileContext, s: Obj) -> bool:
    """A scheduler kept in a local name of a function that, after building it, puts back the
    optimizer state it saved on the way in (``saved = deepcopy(opt.state_dict())``, a sweep of
    LRs, then ``opt.load_state_dict(saved)``): an LR range test or any trial run that the
    function undoes before it returns. The scheduler does not outlive the call (it is not
    returned or stored elsewhere), so a checkpoint has no state of it to keep. A load of
    anything else (a checkpoint read from disk) is a resume, and the scheduler is judged;
    except in a function that names an LR range test (``def range_test``, ``def find_lr``),
    where a load after the scheduler's last step (in no loop that steps it) puts back the
    starting point the test saved (in a file, when the finder was made)."""
    if s.call is None or not s.name or "." in s.name or not s.path:
        return False
    given = s.arg("optimizer", 0)
    optimizer = dotted(given) if given is not None else None
    tree = _module_tree(ctx, s.path)
    if not optimizer or tree is None:
        return False
    fn = function_at(tree, s.call.lineno)
    if fn is None:
        return False
    # the names the function keeps the optimizer's own state in before building the scheduler
    # (`saved = deepcopy(opt.state_dict())`, `saved = {"optimizer": opt.state_dict(), ...}`)
    kept: set[str] = set()
    for node in nodes_in(fn):
        if isinstance(node, ast.Assign) and node.lineno < s.call.lineno \
                and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                        and c.func.attr == "state_dict" and dotted(c.func.value) == optimizer
                        for c in ast.walk(node.value)):
            kept.add(node.targets[0].id)
    sweep = _RANGE_TEST.search(fn.name.lower()) is not None
    if not kept and not sweep:
        return False  # a load from elsewhere (a checkpoint) is a resume, not an undo
    steps = [n.lineno for n in nodes_in(fn) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Attribute) and n.func.attr == "step"
             and isinstance(n.func.value, ast.Name) and n.func.value.id == s.name]

    def after_the_sweep(load: ast.Call) -> bool:
        """A load in the range test after every step of its scheduler, in no loop stepping it."""
        return sweep and _after_every_step(fn, load.lineno, steps)

    restored = False
    for node in nodes_in(fn):
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and node.value is not None \
                and any(isinstance(n, ast.Name) and n.id == s.name for n in ast.walk(node.value)):
            return False  # handed back to the caller
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Name) \
                and node.value.id == s.name:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(not isinstance(t, ast.Name) for t in targets):
                return False  # kept on an object or in a container
        if isinstance(node, ast.Global) and s.name in node.names:
            return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "load_state_dict" and node.lineno > s.call.lineno \
                and dotted(node.func.value) == optimizer and node.args \
                and (any(isinstance(n, ast.Name) and n.id in kept for n in ast.walk(node.args[0]))
                     or after_the_sweep(node)):
            restored = True
    return restored


def _undoes_the_sweep(ctx: FileContext, e: Event,
                      around: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The load ``e`` sits in a function that names an LR range test (``def range_test``,
    ``def find_lr``) after every scheduler step the function makes, in no loop that makes one:
    the test putting back the starting point it saved before its sweep, not a resume. Nothing
    steps a scheduler after it in that function; a scheduler built later starts afresh, as it
    should after the trial."""
    if not _RANGE_TEST.search(around.name.lower()):
        return False
    end = around.end_lineno or around.lineno
    sweep = [ev.line for ev in ctx.program.events if ev.kind == "sched_step"
             and ev.path == e.path and around.lineno <= ev.line <= end]
    return _after_every_step(around, e.line, sweep)


def _after_every_step(fn: ast.AST, line: int, steps: list[int]) -> bool:
    """``line`` comes after every line of ``steps`` (there is at least one) and in no loop of
    ``fn`` that holds one of them, so it runs once the sweep is over, never between steps."""
    if not steps or max(steps) >= line:
        return False
    return not any(isinstance(n, (ast.For, ast.AsyncFor, ast.While))
                   and n.lineno <= line <= (n.end_lineno or n.lineno)
                   and any(n.lineno <= step <= (n.end_lineno or n.lineno) for step in steps)
                   for n in nodes_in(fn))


def _holds_range_test(test: ast.expr, truth: bool) -> bool:
    """``test`` with the outcome ``truth`` says the run is an LR range test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _holds_range_test(test.operand, not truth)
    if isinstance(test, ast.BoolOp):
        # `if args.lr_finder and rank == 0:` taken: every part holds; `or` not taken: none does
        if isinstance(test.op, ast.And) and truth or isinstance(test.op, ast.Or) and not truth:
            return any(_holds_range_test(v, truth) for v in test.values)
        return False
    if isinstance(test, (ast.Name, ast.Attribute)):
        return truth and bool(_RANGE_TEST.search(last_name(test).lower()))
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        # `if args.mode == "lr_find":` (or `in ("lr_find", ...)`) taken; `!=` not taken
        op, right = test.ops[0], test.comparators[0]
        if isinstance(test.left, ast.Constant):
            right = test.left
        words = [c.value for c in ast.walk(right)
                 if isinstance(c, ast.Constant) and isinstance(c.value, str)]
        if not words or not all(_RANGE_TEST.search(w.lower()) for w in words):
            return False
        if isinstance(op, (ast.Eq, ast.In)):
            return truth
        if isinstance(op, (ast.NotEq, ast.NotIn)):
            return not truth
    return False


def _held_steps(s: Obj) -> bool | None:
    """How the project classes whose instances hold the scheduler in an attribute
    (``self.sched = sched``, seen by the trace) step it there, in their methods or their
    bases': True when every such step names its position (``self.sched.step(global_step)``),
    False when one does not, None when there is no such step."""
    found: bool | None = None
    for info, attr in s.held:
        for cls in info.lineage():
            for method in cls.methods.values():
                for node in ast.walk(method):
                    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                            and node.func.attr == "step"):
                        continue
                    held = node.func.value
                    if not (isinstance(held, ast.Attribute) and held.attr == attr
                            and isinstance(held.value, ast.Name) and held.value.id == "self"):
                        continue
                    if not (node.args or any(k.arg == "epoch" for k in node.keywords)):
                        return False
                    found = True
    return found


def _count_unused(s: Obj) -> bool:
    """A LambdaLR (or MultiplicativeLR) whose function ignores the step count it is given
    (`LambdaLR(opt, lambda _: lr_at(state["step"]))`): the LR follows a counter of the
    program's own, not the scheduler's; its state_dict() holds nothing that moves the
    schedule, so saving it would change nothing on resume. So with a scheduler of the
    project's own class that returns its base LRs at every position (see project_constant)."""
    if project_constant(s):
        return True
    if s.origin != "torch" or s.cls not in ("LambdaLR", "MultiplicativeLR"):
        return False
    given = s.arg("lr_lambda", 1)
    functions = given.elts if isinstance(given, (ast.List, ast.Tuple)) else [given]
    return bool(functions) and all(ignores_first_argument(f, s.scope) for f in functions)


def _stands_for(positioned: Obj, fresh: Obj) -> bool:
    """Whether a scheduler built at a position (``last_epoch=`` other than -1, or sized from
    the resumed epoch) is the resume's rebuild of ``fresh``, a scheduler of the same optimizer
    built from its first value: the same construction (`if resume: sched = A(opt, ...,
    start_epoch) else: sched = A(opt, ...)`), or one whose position is the one a resume read
    back (``last_epoch=start_epoch - 1``, ``ckpt["epoch"]``). A CosineAnnealingLR built at
    ``last_epoch=epochs - 1`` in the `elif mode == "cosine":` branch of a choice between
    schedules stands for no StepLR of the other branches: those restart on resume."""
    if positioned.cls and positioned.cls == fresh.cls and positioned.origin == fresh.origin:
        if positioned.via is None or fresh.via is None:
            return True
        return ast.dump(positioned.via.func) == ast.dump(fresh.via.func)
    return _sized_from_resume(positioned) or _position_read_back(positioned)


# the keys a checkpoint keeps its position under (not `epochs`, a setting of the run)
_READ_BACK = re.compile(r"^(last_|start_|cur_|current_|global_|resume_)?(epoch|step|iter|iteration)$")


def _position_read_back(s: Obj) -> bool:
    """``last_epoch=`` given a value read back from a checkpoint (``ckpt["epoch"]``,
    ``state.get("step")``) or a variable assigned from one."""
    value = last_epoch_arg(s)
    todo: list[tuple[ast.expr, Scope | None]] = [(value, s.scope)] if value is not None else []
    seen: set[str] = set()
    while todo:
        expr, scope = todo.pop()
        for node in ast.walk(expr):
            if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                    and isinstance(node.slice.value, str) \
                    and _READ_BACK.match(node.slice.value.lower()):
                return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and node.func.attr == "get" and node.args \
                    and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str) \
                    and _READ_BACK.match(node.args[0].value.lower()):
                return True
            if isinstance(node, ast.Name) and scope is not None and node.id not in seen \
                    and len(seen) < 8:
                seen.add(node.id)
                found = scope.source_of(node.id)
                if found is not None:
                    todo.append((found[0], found[1]))
    return False


def _positioned_through_splat(ctx: FileContext, s: Obj) -> bool:
    """``kwargs["last_epoch"] = last_epoch`` (or ``kwargs = dict(..., last_epoch=n)`` /
    ``{..., "last_epoch": n}``) then ``Scheduler(optimizer, **kwargs)``: built at a resumed
    position, like ``last_epoch=`` written out. Also where the mapping is built elsewhere and
    handed in (``Holder(model, StepLR, {"step_size": 30, "last_epoch": start - 1})`` reaching
    ``sched_cls(self.opt, **sched_kwargs)``): what the name held when the constructor ran is
    a mapping that gives ``last_epoch`` a value other than the literal -1."""
    if s.call is None:
        return False
    splats = {kw.value.id for kw in s.call.keywords
              if kw.arg is None and isinstance(kw.value, ast.Name)}
    if s.scope is not None and any(_holds_a_position(s.scope.lookup(name)) for name in splats):
        return True
    tree = ctx.tree_of(s.path) if splats else None
    if tree is None:
        return False
    for node in ast.walk(function_around(tree, s.call)):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and target.value.id in splats and isinstance(target.slice, ast.Constant) \
                    and target.slice.value == "last_epoch":
                return True  # kwargs["last_epoch"] = n
        if any(isinstance(t, ast.Name) and t.id in splats for t in node.targets) \
                and _names_last_epoch(node.value):
            return True  # kwargs = dict(..., last_epoch=n) / {..., "last_epoch": n}
    return False


def _stand_in_for_positioned(ctx: FileContext, s: Obj) -> bool:
    """A scheduler known by name only (``self.sched = sched_cls(self.opt, **sched_kwargs)`` in
    a class traced apart, its arguments unknown) bound on the line where every trace that saw
    the arguments built one at a position handed in through ``**``: the same scheduler, and
    as positioned."""
    if not s.path or not s.line:
        return False
    known = [o for o in ctx.program.objects if o.kind == "scheduler" and not o.guessed
             and o.path == s.path and o.line == s.line]
    if known:
        return all(_positioned_through_splat(ctx, o) for o in known)
    # no trace of this file saw the arguments (the class is built in another file): the
    # scheduler's class and the mapping spread into it are both parameters of the function
    # that builds it (`scheduler_class(self.optimizer, **scheduler_params)`), filled by
    # callers lrdoctor does not see from here; it is positioned when a file of the project
    # calls that function (the class, for `__init__`) and builds a mapping that gives
    # `last_epoch` a value
    tree = ctx.tree_of(s.path)
    if tree is None or ctx.loader is None:
        return False
    fn = function_at(tree, s.line)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    spread = any(
        isinstance(node, ast.Call) and node.lineno == s.line
        and isinstance(node.func, ast.Name) and node.func.id in params
        and any(kw.arg is None and isinstance(kw.value, ast.Name) and kw.value.id in params
                for kw in node.keywords)
        for node in ast.walk(fn))
    if not spread:
        return False
    callee = fn.name
    if callee == "__init__":
        owner = class_at(tree, fn.lineno)
        if owner is None:
            return False
        callee = owner.name
    return ctx.loader.builds_last_epoch_mapping(s.path, callee)


def _holds_a_position(value: Any) -> bool:
    """A traced mapping (``**kwargs`` spread into a scheduler's constructor) whose
    ``last_epoch`` is there and not the literal -1 (a fresh start): a position to build at."""
    if isinstance(value, UnionVal):
        return bool(value.options) and all(_holds_a_position(v) for v in value.options)
    if not isinstance(value, DictVal) or "last_epoch" not in value.items:
        return False
    given = value.items["last_epoch"]
    if isinstance(given, ExprVal) and isinstance(given.node, (ast.UnaryOp, ast.Constant)):
        try:
            return ast.literal_eval(given.node) != -1
        except ValueError:
            return True
    return not (isinstance(given, Const) and given.value == -1)


def _names_last_epoch(value: ast.expr) -> bool:
    for node in ast.walk(value):
        if isinstance(node, ast.Dict) and any(
                isinstance(k, ast.Constant) and k.value == "last_epoch" for k in node.keys):
            return True
        if isinstance(node, ast.Call) and any(kw.arg == "last_epoch" for kw in node.keywords):
            return True
    return False


def _moved_to_position(ctx: FileContext) -> set[Any]:
    """Schedulers a resume moves to where the run starts with one step that names the
    position (``if args.start_epoch: scheduler.step(args.start_epoch)``), outside the loops
    that train: ``step(epoch)`` sets the step count and recomputes the LR for it, so the
    position comes back from the resume point, not from a saved state (a deprecated call,
    LRD006, but not a lost schedule), whatever the loop's own ``step()`` calls do next."""
    moved: set[Any] = set()
    for events in ctx.events_by_root.values():
        for e in events:
            if e.kind != "sched_step" or e.obj is None or not isinstance(e.node, ast.Call):
                continue
            given = e.node.args[0] if e.node.args else next(
                (k.value for k in e.node.keywords if k.arg == "epoch"), None)
            if given is None or isinstance(given, ast.Constant):
                continue  # `step()`, `step(None)`, `step(0)`: no position of a resumed run
            if e.loop is not None and trains_in(e.loop, events):
                continue  # a step of the training itself
            moved.add(built_site(e.obj))
    return moved


def _built_apart(ctx: FileContext, sched: Obj, at: Event) -> bool:
    """Built in a branch that excludes the checkpoint ``at`` (``if resume: load ...; sched =
    A(..., start_epoch) elif ...: sched = A(...)``): not the scheduler of that run."""
    return any(e.kind == "create" and e.obj is sched and exclusive(e, at)
               for e in ctx.program.events)


def _runs_once(ctx: FileContext, loop: Loop) -> bool:
    """A loop that runs once as the file states it: ``for epoch in range(args.epochs)`` with
    an argparse default of 1 (FixMatch's driver calls its whole training that way). What it
    calls is the whole run, not one epoch of it."""
    node = loop.node
    if not isinstance(node, (ast.For, ast.AsyncFor)) or not isinstance(node.iter, ast.Call) \
            or dotted(node.iter.func) != "range" or not 1 <= len(node.iter.args) <= 2:
        return False
    module = ctx.module_of(loop.path)
    if module is None:
        return False
    bounds = [constants.resolve(a, None, module) for a in node.iter.args]
    if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds):
        return False
    start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
    return stop - start == 1


def _transient(ctx: FileContext, obj: Obj, at: Event) -> bool:
    """A scheduler (or GradScaler) built and used only inside a function that the epoch loop
    calls (a warm-up built in `train_one_epoch` for the first epoch, a scaler made afresh for
    every epoch): every call builds a new one, so the checkpoint ``at`` (saved or loaded
    outside that call, not deeper in the loop) has no state of it to keep; a resumed run
    builds its own again."""
    created = next((e for e in ctx.program.events
                    if e.kind == "create" and e.obj is obj), None)
    used = [e for e in ctx.program.events if e.obj is obj and e.kind != "create"]
    if created is None or created.loop is None or not used or _runs_once(ctx, created.loop):
        return False
    # the innermost call that both builds it (itself or through a builder helper) and uses it
    frame = created.frame
    while frame is not None and not all(e.within(frame) for e in used):
        frame = frame.parent
    if frame is None:
        return False
    if at.within(frame):
        # saved during the call that made it (a checkpoint every few minutes inside
        # `train_one_epoch`): a GradScaler made afresh on each pass of the loop right around
        # the loop that uses it lives one epoch at most; the resumed run's call makes a new
        # one, as the next epoch would anyway (a scheduler's position within the epoch is lost
        # though: not for those)
        return obj.kind == "scaler" and all(
            e.loop is not None and e.loop.parent is created.loop for e in used)
    # saved once per epoch or outside it; or in a loop of its own inside the same epoch
    # (`for path in checkpoint_paths: save(...)` after the call returned); or in another loop
    # than the one making the calls (a training loop that saves, then a loop that evaluates
    # each saved epoch, its evaluation helper making a GradScaler of its own): whichever, the
    # scheduler or scaler that call made is gone, and the next call makes a new one
    return True


def _lives_one_pass(ctx: FileContext, obj: Obj, at: Event) -> bool:
    """A scheduler built in the body of the loop that also holds the checkpoint ``at``, at
    the same level (``for epoch in ...: if epoch == 0: warm = LambdaLR(...)``, the batch loop
    stepping it ``if epoch == 0: warm.step()``, then ``torch.save(...)`` once per pass), every
    use of which runs only on a pass that builds it (under the same tests as its
    construction): each pass that steps it steps a new one, built by that pass before its
    batches, and the checkpoint is written after them. A resumed run starts at a later pass,
    which builds its own again or never uses it, so the checkpoint has nothing of it to
    keep. Not when a use runs on passes that did not build it (built ``if sched is None:``,
    stepped on every pass), nor for a checkpoint written inside the batch loop."""
    built = [e for e in ctx.program.events if e.kind == "create" and e.obj is obj]
    used = [e for e in ctx.program.events if e.obj is obj and e.kind != "create"]
    if not built or not used or at.loop is None or _runs_once(ctx, at.loop):
        return False
    loop = at.loop
    for b in built:
        if b.loop is not loop or not b.within(at.frame):
            return False
        tests = {(c.text, c.branch) for c in b.conds_inside(loop)}
        if any(not u.in_loop(loop) or u.order < b.order
               or not tests <= {(c.text, c.branch) for c in u.conds_inside(loop)}
               for u in used):
            return False
    return True


# a name for where a resumed run starts: a scheduler sized with it (`total_iters=steps * (epochs
# - start_epoch)`) is rebuilt for the rest of the run on resume, its lost state is not lost
_RESUME_POINT = re.compile(r"(^|_)(start|resume|resumed|begin|initial|first)_(epoch|iter|step)s?$")
# what a project builder is given besides: the epoch a checkpoint was saved at (`last_epoch`
# read back on resume). Not for a constructor inside such a builder, whose `last_epoch`
# parameter (-1 unless given) says nothing about a resume
_BUILDER_RESUME_POINT = re.compile(
    r"(^|_)(start|resume|resumed|begin|initial|first|last)_(epoch|iter|step)s?$")
# a phase of the schedule before the start word (`lr_decay_start_step`, `warmup_begin_iter`):
# the step at which that phase begins, a setting of the schedule, not where a resumed run starts
_PHASE_START = re.compile(r"(decay|warmup|warm_up|anneal|cooldown|cool_down|ramp|cycle|drop)")


def _sized_from_resume(sched: Obj, depth: int = 3) -> bool:
    """True when the scheduler's constructor arguments (or the variables they were computed
    from) name the epoch/iteration the run starts at; for a scheduler that a project builder
    returns (``get_scheduler(config, optimizer, last_epoch)``), the builder's arguments."""
    call = sched.call if sched.call is not None else sched.via
    if call is None:
        return False
    args = call.args[1:] if sched.call is not None else call.args
    point = _RESUME_POINT if sched.call is not None else _BUILDER_RESUME_POINT
    seen: set[str] = set()
    # a project's own scheduler class is built in the scope its call ran in, which reads the
    # names it is given (`Warmup(**parts)` after `parts = dict(..., last_epoch=start - 1)`)
    scope0 = sched.scope if sched.scope is not None or sched.project is None \
        else sched.project[1]
    todo: list[tuple[ast.AST, Scope | None, int]] = [
        (arg, scope0, 0) for arg in [*args, *(k.value for k in call.keywords)]
    ]
    bindings: dict[str, list[ast.AST]] | None = None

    def checkpoint(name: str | None) -> bool:
        # a name that says checkpoint, or one the function binds to what a load returns
        # (`ck = torch.load(path)`); not a config's `cfg["step"]` (a StepLR's step size)
        nonlocal bindings
        if name is None:
            return False
        if _CHECKPOINT_NAME.search(name.lower()):
            return True
        if sched.scope is None or sched.call is None or scope0 is None:
            return False
        if bindings is None:
            bindings = _bindings_before(scope0.module.tree, call)
        return any(isinstance(v, ast.Call) and "load" in (dotted(v.func) or "").lower()
                   for v in bindings.get(name, ()))

    while todo:
        expr, scope, level = todo.pop()
        for node in ast.walk(expr):
            if checkpoint(_reads_back_position(node)):
                return True  # `lambda s: f(s + ckpt["step"])`: the saved position
            word = node.id if isinstance(node, ast.Name) else (
                node.attr if isinstance(node, ast.Attribute) else "")
            if not word:
                continue
            found_point = point.search(word.lower())
            if found_point and not _PHASE_START.search(word.lower()[:found_point.start()]):
                return True
            if isinstance(node, ast.Name) and scope is not None and level < depth \
                    and word not in seen:
                seen.add(word)
                found = scope.source_of(word)
                if found is not None:
                    todo.append((found[0], found[1], level + 1))
                # every binding of the name in the function that builds the scheduler, not
                # only the one the trace kept: `step0 = 0` then `if resume: step0 =
                # ckpt["step"]`, read by the LambdaLR's lambda (or a local `def`) built after
                if scope is not scope0 or sched.scope is None or sched.call is None:
                    continue  # a name of another function (a builder's): its own bindings
                if bindings is None:
                    bindings = _bindings_before(scope.module.tree, call)
                todo.extend((bound, scope, level + 1) for bound in bindings.get(word, ()))
    return False


# names a checkpoint is read back into
_CHECKPOINT_NAME = re.compile(r"ckpt|checkpoint|chkpt|resume|restor|saved|snapshot")


def _reads_back_position(node: ast.AST) -> str | None:
    """``ckpt["step"]`` / ``state.get("epoch")`` under one of the keys a checkpoint keeps its
    position under (see ``_READ_BACK``): the name read from (``ckpt``, ``state``), for the
    caller to say whether it holds a checkpoint; None for anything else."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str) and _READ_BACK.match(node.slice.value.lower()):
        return last_name(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "get" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str) \
            and _READ_BACK.match(node.args[0].value.lower()):
        return last_name(node.func.value)
    return None


def _bindings_before(tree: ast.Module, call: ast.Call) -> dict[str, list[ast.AST]]:
    """What each plain name is bound to in the function around ``call``, before its line: the
    values of its assignments (all of them, branch or not) and the bodies of the functions
    defined under it. One walk of the function."""
    found: dict[str, list[ast.AST]] = {}
    line = getattr(call, "lineno", 0)
    for node in nodes_in(function_around(tree, call)):
        if getattr(node, "lineno", line + 1) > line:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) \
                and node.value is not None:
            found.setdefault(node.target.id, []).append(node.value)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(node.name, []).extend(node.body)
    return found


def _builder_positioned(sched: Obj) -> bool:
    """The scheduler comes from a builder whose ``last_epoch`` setting the same function writes
    before calling it (``configs.train.scheduler.last_epoch = last_epoch`` then
    ``scheduler = configs.train.scheduler(optimizer)``): ``last_epoch`` is a scheduler's
    constructor argument, so the builder makes it at the position written there (a literal -1
    would be a fresh start)."""
    call = sched.via if sched.via is not None else sched.call
    if call is None or sched.scope is None:
        return False
    builder = dotted(call.func)
    if not builder or "." not in builder:
        return False
    around = function_around(sched.scope.module.tree, call)
    for node in ast.walk(around):
        if isinstance(node, ast.Assign) and getattr(node, "lineno", 0) <= call.lineno \
                and not fresh_start(node.value) and any(
                    isinstance(t, ast.Attribute) and t.attr == "last_epoch"
                    and dotted(t.value) == builder for t in node.targets):
            return True
    return False


_SCALER_USES = frozenset({"scale_backward", "scaler_step", "scaler_update", "unscale"})


def _scalers(ctx: FileContext, root: int, at: Event | None = None,
             optimizers: list[Obj] | None = None) -> list[tuple[Obj, str]]:
    """GradScalers that skip steps (always, or when a flag is on), always-on ones first. A
    scaler the program never uses (one a library helper builds only when asked, and is not
    asked) scales nothing: its state moves nothing on resume. With ``at`` (a save or a
    resume), only scalers built in the same run as it: `if lin_eval: linear_eval() else:
    pretrain()` runs one program or the other, and the evaluation's scaler is not the
    pre-training's to save. Nor a scaler built afresh by every call of a function the epoch loop
    makes (see ``_transient``): each epoch starts from a new scale, a resumed run too.
    ``optimizers``: those the checkpoint holds (or the resume restores); a scaler that steps
    one of them belongs to its run wherever it was seen, as when a trainer class's methods are
    each traced on their own because the code that calls them is not in view (`step()` scales
    and steps, `save_checkpoint()` saves, both on the objects `__init__` built)."""
    uses = [e.obj for e in ctx.program.events if e.kind in _SCALER_USES and e.obj is not None]
    used = {o.id for o in uses}
    # a use through a name lrdoctor could not bind (a closure over the scaler) counts by name
    used_names = {o.name for o in uses if o.guessed and o.name}
    candidates = {s.id: s for s in _in_root(ctx, root, "scaler")}
    wanted = {o.id for o in optimizers or []}
    if optimizers and all(_stepped_without_scaler(ctx, o) for o in optimizers):
        return []
    # what each scaler was seen stepping: one that steps only other optimizers (a GAN's
    # discriminator) is not this checkpoint's, though a trainer's methods traced with one
    # instance put it in the same run
    # (by where it is built: a method traced on its own makes its own copy of the objects)
    steps: dict[Any, set[Any]] = {}
    for e in ctx.program.events:
        stepped = e.info.get("optimizer")
        if e.kind == "scaler_step" and e.obj is not None:
            steps.setdefault(built_site(e.obj), set()).add(
                built_site(stepped) if isinstance(stepped, Obj) and not stepped.guessed else None)
        if e.kind == "scaler_step" and e.obj is not None and not e.obj.guessed \
                and isinstance(stepped, Obj) and stepped.id in wanted:
            candidates.setdefault(e.obj.id, e.obj)
    if wanted:
        sites = {built_site(o) for o in optimizers or []}
        candidates = {k: s for k, s in candidates.items()
                      if not steps.get(built_site(s)) or None in steps[built_site(s)]
                      or steps[built_site(s)] & sites}
    # where each scaler is used: a subclass in another module may run its autocast region
    used_in: dict[int, set[str]] = {}
    for o, e in ((e.obj, e) for e in ctx.program.events
                 if e.kind in _SCALER_USES and e.obj is not None):
        used_in.setdefault(o.id, set()).add(e.path)
    found = [(s, flag) for s in candidates.values()
             if (s.id in used or s.name in used_names) and (flag := scaler_switch(s)) is not None
             and not never_skips(s, used_in.get(s.id, ()))
             and (at is None or not _built_apart_from(ctx, s, at) and not _transient(ctx, s, at)
                  and not _another_run(ctx, s, at))]
    return sorted(found, key=lambda pair: bool(pair[1]))


def _stepped_without_scaler(ctx: FileContext, optimizer: Obj) -> bool:
    """``optimizer`` (built where lrdoctor saw it) is stepped by its own ``step()`` and never
    handed to a GradScaler: no ``scaler.step``/``unscale_`` names it, nor an expression
    lrdoctor could not bind that ends in its name. A scaler never touches its gradients, so
    the scaler's state is nothing a checkpoint of that optimizer needs (a classifier trained
    in fp32 to evaluate a GAN, saved with its SGD, beside the GAN's scaler)."""
    if optimizer.guessed:
        return False
    own = _last_part(optimizer.name)
    plain = False
    for e in ctx.program.events:
        if e.kind == "opt_step" and e.obj is not None and e.obj.id == optimizer.id:
            plain = True
        if e.kind not in ("scaler_step", "unscale"):
            continue
        stepped = e.info.get("optimizer")
        if isinstance(stepped, Obj):
            if stepped.id == optimizer.id or built_site(stepped) == built_site(optimizer) \
                    or (stepped.guessed and _last_part(stepped.name) in ("", own)):
                return False
            continue
        call = e.node if isinstance(e.node, ast.Call) else None
        arg = (call.args[0] if call.args else next(
            (k.value for k in call.keywords if k.arg == "optimizer"), None)) if call else None
        if arg is None or not own or last_name(arg) in ("", own):
            return False
    return plain


def _last_part(name: str) -> str:
    """``d_optimizer`` for ``self.opt.d_optimizer``; "" unless it is a plain identifier."""
    part = name.rsplit(".", 1)[-1]
    return part if part.isidentifier() else ""


def _another_run(ctx: FileContext, obj: Obj, at: Event) -> bool:
    """``obj`` was built in one call of a function and the checkpoint ``at`` happens in
    another call of that same function, written elsewhere (a test that runs
    ``run(cfg, smoke=True)``, then ``run(cfg)``, then ``run(cfg, resume=last)``): two runs of
    the training, and what the first one built is nothing the other saves or restores."""
    created = next((e for e in ctx.program.events if e.kind == "create" and e.obj is obj), None)
    if created is None:
        return False
    calls: dict[int, set[int]] = {}
    frame = created.frame
    while frame is not None:
        if frame.fn is not None and frame.call is not None:
            calls.setdefault(id(frame.fn), set()).add(id(frame.call))
        frame = frame.parent
    frame = at.frame
    while frame is not None:
        if frame.fn is not None and frame.call is not None and id(frame.fn) in calls \
                and id(frame.call) not in calls[id(frame.fn)]:
            return True
        frame = frame.parent
    return False


def _built_apart_from(ctx: FileContext, obj: Obj, at: Event) -> bool:
    """Every construction of ``obj`` sits on a branch that excludes ``at``."""
    built = [e for e in ctx.program.events
             if e.kind == "create" and e.obj is obj and e.root == at.root]
    return bool(built) and all(exclusive(b, at) for b in built)


def _scaler_text(scaler: Obj, flag: str) -> str:
    switched = f", {when(flag)}" if flag else ""
    return f"the GradScaler's (`{scaler.name or 'scaler'}`{switched})"


def _mentions_scaler(words: list[str]) -> bool:
    return any("scaler" in w or "amp" in w for w in words)


@rule("LRD007")
def checkpoint_missing_state(ctx: FileContext) -> Iterator[Diagnostic]:
    # a checkpoint written as one file per state (`torch.save(optimizer.state_dict(), ...)`
    # beside the model's and the scheduler's files) is judged at the optimizer's file, with
    # the files written next to it
    # (a resume that restores the optimizer is where a scheduler missing from such files is
    # reported, as for any checkpoint; the file's own judgement is left to the GradScaler)
    saves = [(e, contents) for e in ctx.program.events if e.kind == "save"
             for contents in [_contents(ctx, e) or _lone_optimizer_state(e)]
             if contents is not None]
    resumed = any(e.kind == "load_state" and e.obj is not None and e.obj.kind == "optimizer"
                  for e in ctx.program.events)
    # what every save holds, a lone state dict too (`torch.save(scheduler.state_dict(), p)`
    # is not a checkpoint to judge, but it completes one)
    pieces = [(e, contents) for e in ctx.program.events if e.kind == "save"
              for contents in [_contents(ctx, e) or _lone_state(e)] if contents is not None]
    for e, (objs, words) in saves:
        own = objs, words
        # a checkpoint completed by another save of the same run (a trainer's `save()` for
        # the model and optimizer, the driver's own file for the scheduler and scaler): the
        # state is on disk, next to it
        for other, (more_objs, more_words) in pieces:
            if other is not e and other.root == e.root and not exclusive(other, e) \
                    and other.loop is e.loop:
                objs, words = objs | more_objs, [*words, *more_words]
        lone = _contents(ctx, e) is None
        yield from _check_save(ctx, e, objs, words, own, schedulers=not (lone and resumed))
    scaler_saved = any(_mentions_scaler(words) for _, (_, words) in saves)
    for e in ctx.program.events:
        if e.kind == "load_state" and e.obj is not None and e.obj.kind == "optimizer" \
                and not _copied_from_live(ctx, e):
            yield from _check_resume(ctx, e, scaler_saved or not saves, saves)
    yield from _position_only_resume(ctx)


def _lone_optimizer_state(e: Event) -> tuple[set[int], list[str]] | None:
    value = e.info.get("value")
    if isinstance(value, StateDictVal) and value.obj.kind == "optimizer":
        return {value.obj.id}, []
    return None


def _lone_state(e: Event) -> tuple[set[int], list[str]] | None:
    value = e.info.get("value")
    return ({value.obj.id}, []) if isinstance(value, StateDictVal) else None


def _copied_from_live(ctx: FileContext, e: Event) -> bool:
    """The state loaded was taken from a live object in the same function (``sd =
    optimizer.state_dict()`` ... ``new_optimizer.load_state_dict(convert(sd))``), or kept by
    the same object in a store of its own (see ``_from_own_snapshot``): an optimizer rebuilt
    or reset in place, not a resumed run; nothing was lost in between."""
    if not isinstance(e.node, ast.Call) or not e.node.args:
        return False
    tree = ctx.tree_of(e.path)
    if tree is None:
        return False
    function = function_around(tree, e.node)
    pending: list[tuple[ast.expr, int]] = [(e.node.args[0], e.line)]
    seen: set[tuple[str, int]] = set()
    while pending:
        expr, line = pending.pop()
        if _from_own_snapshot(tree, function, expr):
            return True
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                last = (dotted(node.func) or "").rsplit(".", 1)[-1]
                if last == "state_dict":
                    return True
                if last == "load" or last.startswith("load_") and last != "load_state_dict":
                    return False  # read from a file: a resume
            elif isinstance(node, ast.Name) and (node.id, line) not in seen and len(seen) < 12:
                seen.add((node.id, line))
                pending.extend(_assigned_before(function, node.id, line))
    return False


def _reads_a_file(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and (
        (last := (dotted(n.func) or "").rsplit(".", 1)[-1]) == "load"
        or last.startswith("load_") and last != "load_state_dict") for n in ast.walk(node))


def _takes_live_state(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr == "state_dict" for n in ast.walk(node))


def _self_root(node: ast.AST, me: str) -> str | None:
    """``x`` for ``self.x``, ``self.x[k]``, ``self.x.get(k)``, ``self.x.store``."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        inner = node.func if isinstance(node, ast.Call) else node.value
        if isinstance(node, ast.Attribute) and isinstance(inner, ast.Name) and inner.id == me:
            return node.attr
        node = inner
    return None


def _from_own_snapshot(tree: ast.AST, function: ast.AST, expr: ast.expr) -> bool:
    """``self.snapshots.get("optimizer")`` / ``self.initial["optimizer"]`` where the methods
    of the same class fill ``self.snapshots`` (or ``self.initial``) with a live object's
    ``state_dict()`` and never with a file read: the object puts back a state it took of
    itself (an LR range test undoing its trial run), not a resume from another run."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.args.args:
        return False
    me = function.args.args[0].arg
    attrs = {a for node in ast.walk(expr) if (a := _self_root(node, me)) is not None}
    if not attrs:
        return False
    owner = next((c for c in definitions_in(tree)[1] if any(f is function for f in c.body)),
                 None)
    if owner is None:
        return False
    filled: set[str] = set()
    for method in owner.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
            continue
        this = method.args.args[0].arg
        for node in ast.walk(method):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                into = {a for t in targets if (a := _self_root(t, this)) is not None}
                value = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                into = {a} if (a := _self_root(node.func.value, this)) is not None else set()
                value = node
            else:
                continue
            if not into & attrs or value is None:
                continue
            if _reads_a_file(value):
                return False  # the store is (also) filled from a file: a resume can read it
            if isinstance(value, (ast.Name, ast.Attribute, ast.Subscript)):
                return False  # handed in from elsewhere (a parameter): it may come from a file
            if _takes_live_state(value):
                filled |= into & attrs
    return bool(filled) and filled == attrs


def _assigned_before(body: ast.AST, name: str, line: int) -> list[tuple[ast.expr, int]]:
    """The value of the last ``name = ...`` in ``body`` before ``line`` (with its line), or,
    when the latest binding is the target of a ``for`` loop around ``line`` (``for state in
    self.snapshots:``, ``for weights, state in self.candidates:``), what that loop iterates:
    each pass binds ``name`` to an item of it."""
    found: ast.Assign | ast.For | None = None
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and node.lineno < line and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ) and (found is None or node.lineno > found.lineno):
            found = node
        elif isinstance(node, ast.For) and node.lineno < line <= (node.end_lineno or node.lineno) \
                and any(isinstance(t, ast.Name) and t.id == name for t in ast.walk(node.target)) \
                and (found is None or node.lineno > found.lineno):
            found = node
    if isinstance(found, ast.For):
        return [(found.iter, found.lineno)]
    return [(found.value, found.lineno)] if found is not None else []


def _contents(ctx: FileContext, e: Event) -> tuple[set[int], list[str]] | None:
    """(tracked objects, words of keys and values) of what a save stores; None when the
    file does not show it."""
    objs: set[int] = set()
    words: list[str] = []
    value = e.info.get("value")
    if isinstance(value, DictVal) or isinstance(value, TupleVal) and (
            e.info.get("accelerate") or e.info.get("deepspeed")):
        return (objs, words) if _saved(value, objs, words) else None
    if isinstance(value, TupleVal):
        return _sequence_contents(ctx, e, value, objs, words)
    node: ast.expr | None = None
    scope: Scope | None = None
    if isinstance(value, ExprVal):
        node, scope = value.node, value.scope
    elif value is None and isinstance(e.node, ast.Call) and e.node.args \
            and dotted(e.node.func) == "torch.save":
        node = e.node.args[0]
    if node is None:
        return None
    return _expr_contents(ctx, node, scope, e.node, objs, words)


def _sequence_contents(ctx: FileContext, e: Event, value: TupleVal, objs: set[int],
                       words: list[str]) -> tuple[set[int], list[str]] | None:
    """What a checkpoint written as a tuple or list holds (``torch.save((model.state_dict(),
    optimizer.state_dict()), path)``, ``torch.save([epoch, model.state_dict(),
    optimizer.state_dict()], path)``, or a name bound to one): its items by position, read as
    the values of a dict whose keys are the texts written for them. A known state counts by
    its object, and every item by its text too (``sched_state`` names the schedule, whatever
    the trace knows of its value), as an entry counts by its key. None when the items cannot
    be matched to the expression written (a ``*rest``, a sequence built elsewhere): what it
    holds is not shown."""
    saved: ast.expr | None = None
    if isinstance(e.node, ast.Call):
        saved = e.node.args[0] if e.node.args else next(
            (kw.value for kw in e.node.keywords if kw.arg == "obj"), None)
    if isinstance(saved, ast.Name):
        saved = _binding(ctx, saved.id, e.node)
    if not isinstance(saved, (ast.Tuple, ast.List)) or len(saved.elts) != len(value.items) \
            or any(isinstance(elt, ast.Starred) for elt in saved.elts):
        return None
    for item, elt in zip(value.items, saved.elts, strict=True):
        # the text written for the item is its name, as a key is an entry's
        words.append(ast.unparse(elt).lower())
        if item is not None and not _saved(item, objs, words, 1):
            return None
    return objs, words


def _expr_contents(ctx: FileContext, node: ast.expr, scope: Scope | None, at: ast.AST,
                   objs: set[int], words: list[str]) -> tuple[set[int], list[str]] | None:
    """``dict(model=..., optimizer=...)``, ``asdict(ckpt)`` / ``vars(ckpt)`` /
    ``ckpt.__dict__`` of an instance of the file's own (data)class."""
    if isinstance(node, ast.Name) and scope is None:
        bound = _binding(ctx, node.id, at)
        return _expr_contents(ctx, bound, None, at, objs, words) if bound is not None else None
    if isinstance(node, ast.Call) and dotted(node.func) == "dict" and not node.args:
        if any(kw.arg is None for kw in node.keywords):
            return None  # `dict(**extra)`: part of it is unknown
        for kw in node.keywords:
            assert kw.arg is not None
            if isinstance(kw.value, ast.Constant) and kw.value.value is None:
                continue  # `optimizer=None`: nothing of it is saved
            words.append(kw.arg.lower())
            _value_words(kw.value, scope, objs, words)
        return objs, words
    instance: ast.expr | None = None
    if isinstance(node, ast.Call) and len(node.args) == 1 and (
        (dotted(node.func) or "").rsplit(".", 1)[-1] in ("asdict", "vars")
    ):
        instance = node.args[0]
    elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
        instance = node.value
    built: ast.expr | None = None
    if isinstance(instance, ast.Call):
        # `asdict(TrainState(step, model.state_dict(), opt.state_dict()))`: the instance
        # built in place, as when it is bound to a name first
        built = instance
    elif not isinstance(instance, ast.Name):
        return None
    elif scope is not None:
        found = scope.source_of(instance.id)
        built = found[0] if found is not None else None
    if built is None and isinstance(instance, ast.Name):
        built = _binding(ctx, instance.id, at)
    if not isinstance(built, ast.Call):
        return None
    cls = ctx.module.classes.get(dotted(built.func) or "")
    if cls is None:
        return None
    fields = [
        stmt.target.id for stmt in cls.node.body
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
    ] + list(cls.self_assigns)
    if not fields or any(kw.arg is None for kw in built.keywords):
        return None
    words.extend(f.lower() for f in fields)
    for arg in _stored_arguments(cls.node, built):
        _value_words(arg, scope, objs, words)
    return objs, words


def _stored_arguments(cls: ast.ClassDef, built: ast.Call) -> list[ast.expr]:
    """The arguments of ``built`` (a call of the project class ``cls``) that end up among the
    instance's attributes, which is all ``vars()`` / ``asdict()`` / ``__dict__`` can hold: for
    a class with an ``__init__`` of its own, those handed to a parameter that the ``__init__``
    reads in what it assigns to ``self.<name>`` (``State(model, optimizer, scheduler)`` whose
    ``__init__`` stores only ``model.state_dict()`` and ``optimizer.state_dict()`` keeps no
    scheduler); every argument where that cannot be told (a dataclass's generated
    ``__init__``, ``*args`` / ``**kwargs``, a splatted call)."""
    handed = [*built.args, *(kw.value for kw in built.keywords)]
    init = next((stmt for stmt in cls.body
                 if isinstance(stmt, ast.FunctionDef) and stmt.name == "__init__"), None)
    if init is None or init.args.vararg is not None or init.args.kwarg is not None \
            or any(isinstance(a, ast.Starred) for a in built.args):
        return handed
    params = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
    stored: set[str] = set()
    for node in ast.walk(init):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                   and t.value.id == "self" for t in targets):
                stored |= {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    kept = [arg for i, arg in enumerate(built.args) if i < len(params) and params[i] in stored]
    kept += [kw.value for kw in built.keywords if kw.arg in stored]
    return kept


def _value_words(value: ast.expr, scope: Scope | None, objs: set[int], words: list[str]) -> None:
    words.append(ast.unparse(value).lower())
    target = value
    state_dict = False
    if isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute) \
            and target.func.attr == "state_dict":
        target, state_dict = target.func.value, True
    if scope is None:
        return
    found = _attribute_value(target, scope)
    if isinstance(found, Obj):
        objs.add(found.id)
    elif state_dict and isinstance(found, InstanceVal):
        # `optim=self.optim.state_dict()` where `self.optim` is the project's own wrapper:
        # the checkpoint holds what its `state_dict()` returns (optimizer and scheduler)
        _own_state_dict(found, objs, words)


def _attribute_value(node: ast.expr, scope: Scope) -> Any:
    """The traced value of ``name`` or ``self.a.b`` (None when not known)."""
    if isinstance(node, ast.Name):
        return scope.lookup(node.id)
    if isinstance(node, ast.Attribute):
        base = _attribute_value(node.value, scope)
        if isinstance(base, InstanceVal):
            return base.attrs.get(node.attr)
    return None


def _own_state_dict(instance: InstanceVal, objs: set[int], words: list[str]) -> None:
    """The keys and values of the dict a project class's ``state_dict()`` returns."""
    found = instance.info.find("state_dict")
    if found is None:
        return
    for node in ast.walk(found[0]):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        returned = node.value
        pairs: list[tuple[str, ast.expr]] = []
        if isinstance(returned, ast.Dict):
            pairs = [(ast.unparse(k).strip("'\"").lower(), v)
                     for k, v in zip(returned.keys, returned.values) if k is not None]
        elif isinstance(returned, ast.Call) and dotted(returned.func) == "dict":
            pairs = [(kw.arg.lower(), kw.value) for kw in returned.keywords if kw.arg]
        for key, item in pairs:
            words.extend((key, ast.unparse(item).lower()))
            inner = item.func.value if isinstance(item, ast.Call) and isinstance(
                item.func, ast.Attribute) and item.func.attr == "state_dict" else item
            if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) \
                    and inner.value.id == "self":
                held = instance.attrs.get(inner.attr)
                if isinstance(held, Obj):
                    objs.add(held.id)


def _binding(ctx: FileContext, name: str, at: ast.AST) -> ast.expr | None:
    """The last ``name = <expr>`` before ``at`` in the function (or module) around it."""
    line = getattr(at, "lineno", 0)
    body = ctx.body_around(at)
    found: ast.expr | None = None
    for node in ast.walk(body):
        if isinstance(node, ast.Assign) and node.lineno < line and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            if found is None or node.lineno > getattr(found, "lineno", 0):
                found = node.value
    return found


def _check_save(ctx: FileContext, e: Event, objs: set[int], words: list[str],
                own: tuple[set[int], list[str]] | None = None,
                schedulers: bool = True) -> Iterator[Diagnostic]:
    """``objs``/``words``: what the checkpoint and the saves that complete it hold; ``own``:
    what this save holds by itself, which says whether it is a checkpoint to resume from (a
    weights-only file written beside one is not)."""
    own_objs, own_words = own if own is not None else (objs, words)
    # the optimizers whose state it holds, also one no other call of this trace touches: a
    # trainer class's `save_checkpoint()` traced on its own (its `step()` and `backward()`
    # are called by code not in view) saves the optimizer the class built
    optimizers = [o for o in ctx.program.objects if o.kind == "optimizer" and o.id in own_objs]
    if not optimizers and not any("optim" in w for w in own_words):
        return  # weights only: not meant to resume training
    optimizer = optimizers[0] if optimizers else None
    missing = []
    # how many of the missing states belong to objects this trace saw built (not stand-ins
    # for a function's parameters): of two findings at one place (a base class traced alone
    # and through its subclass), the one that knows more of what is missing is kept, never
    # one that merely guesses at what its caller passed
    sure = 0
    named: list[Obj] = []  # the scheduler (or its alternatives) whose state is missing
    scheds = _real_schedulers(ctx, e.root, optimizer, e) if schedulers else []
    # a scheduler whose function ignores its step count loses nothing (see _count_unused);
    # it still counts as what a save holds, when one option of a choice is such a scheduler
    lost = [s for s in scheds if not _count_unused(s)]
    if scheds and not any(s.id in objs for s in scheds) and not any("sched" in w for w in words):
        if lost:
            # the one named: a scheduler of an optimizer that takes the program's updates (or
            # of one not known) before one whose optimizer is never stepped while others are
            idle = _idle_optimizers(ctx)
            s = min(lost, key=lambda o: o.optimizer is not None
                    and built_site(o.optimizer) in idle)
            classes = _alternatives(lost, s)
            kind = f", {' or '.join(o.cls for o in classes if o.cls)}" if s.cls else ""
            if s.name:
                missing.append(f"the scheduler's (`{s.name}`{kind})")
            else:
                # built without a name (in a comprehension): its class alone, no made-up name
                missing.append(f"the scheduler's ({kind[2:]})" if kind else "the scheduler's")
            named = classes
            sure += _built(s)
    elif scheds:
        left = _left_out(e, scheds, objs, words)
        if left is not None and left in lost:
            kind = f", {left.cls}" if left.cls else ""
            missing.append(f"the second scheduler's (`{left.name}`{kind})")
            named = [left]
            sure += _built(left)
    # a DeepSpeed engine scales fp16 losses itself (its config's `fp16` section) and saves that
    # scale in its own checkpoint: a torch GradScaler beside it serves the program's other,
    # non-DeepSpeed path (`if ds: engine.backward(loss) else: scaler.scale(loss).backward()`)
    scalers = [] if e.info.get("deepspeed") else _scalers(ctx, e.root, e, optimizers)
    if scalers and not any(s.id in objs for s, _ in scalers) and not _mentions_scaler(words) \
            and not _kept_under_its_switch(ctx, e, *scalers[0], "state_dict"):
        missing.append(_scaler_text(*scalers[0]))
        sure += _built(scalers[0][0])
    elif (other := _scaler_left_out(ctx, e, scalers, objs, words, optimizers)) is not None:
        missing.append(_scaler_text(*other).replace("the GradScaler's", "the second GradScaler's"))
        sure += _built(other[0])
    if not missing:
        return
    consequence = []
    if scheds and "scheduler" in missing[0]:
        consequence.append(_set_in_vain_restart(named) if named and all(
            last_epoch_set_in_vain(ctx, o) for o in named) else _restart(named))
    if len(missing) == 2 or "GradScaler" in missing[0]:
        consequence.append("the scale restarts at 65536 and skips steps again")
    if e.info.get("accelerate"):
        # `accelerator.save_state()` writes only what was prepared or registered
        yield Diagnostic.at(
            "LRD007",
            f"`{receiver(e)}.save_state()` stores what went through `prepare()` (the optimizer) "
            f"but not {' or '.join(missing)}, which was neither prepared nor registered with "
            f"`register_for_checkpointing()`: on resume {' and '.join(consequence)}",
            e.path,
            e.node,
            weight=sure,
        )
        return
    if e.info.get("deepspeed"):
        # `engine.save_checkpoint()` writes the engine's own optimizer and scheduler and the
        # client state
        yield Diagnostic.at(
            "LRD007",
            f"`{receiver(e)}.save_checkpoint()` stores the engine's optimizer but not "
            f"{' or '.join(missing)}: it writes only what was handed to "
            f"`deepspeed.initialize()` and what `client_state` holds; on resume "
            f"{' and '.join(consequence)}",
            e.path,
            e.node,
            weight=sure,
        )
        return
    path, node = _written_at(e)
    yield Diagnostic.at(
        "LRD007",
        f"this checkpoint stores the optimizer state but not {' or '.join(missing)}: on "
        f"resume {' and '.join(consequence)}",
        path,
        node,
        weight=sure,
    )


def _kept_under_its_switch(ctx: FileContext, e: Event, scaler: Obj, flag: str,
                           method: str) -> bool:
    """The function of the save (or the resume) ``e`` calls ``<scaler>.state_dict()`` (or
    ``.load_state_dict(...)``) under a test that is the very switch that enables the scaler
    (``if self.use_amp: state["scaler"] = self.scaler.state_dict()`` beside
    ``GradScaler(enabled=self.use_amp)``): the checkpoint holds the scaler in every run where
    it scales. A trace that decided the test one way (the option's default, held in the
    instance) skipped that branch, yet it still judges the scaler by its switch."""
    if not flag or not scaler.name:
        return False
    tree = _module_tree(ctx, e.path)
    around = function_at(tree, e.line) if tree is not None else None
    if around is None:
        return False
    for node in ast.walk(around):
        if not isinstance(node, ast.If) or ast.unparse(node.test) != flag:
            continue
        for call in (n for stmt in node.body for n in ast.walk(stmt)):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) \
                    and call.func.attr == method \
                    and ast.unparse(call.func.value) == scaler.name:
                return True
    return False


def _written_at(e: Event) -> tuple[str, ast.AST]:
    """Where a checkpoint's contents are written: the dict display a caller hands to a save
    helper (``save_checkpoint({"epoch": ..., "optimizer": ...}, path)`` whose body is
    ``torch.save(state, path)``), which is where the missing entry belongs and which tells
    two callers' checkpoints apart; else the save itself. Only a parameter the helper saves
    as it came (not rebound before the save) is followed, one call up."""
    frame = e.frame
    if not isinstance(e.node, ast.Call) or frame is None or frame.fn is None \
            or frame.call is None or not frame.call_path:
        return e.path, e.node
    saved = e.node.args[0] if e.node.args else next(
        (kw.value for kw in e.node.keywords if kw.arg == "obj"), None)
    fn = frame.fn
    if isinstance(saved, ast.Starred) and isinstance(saved.value, ast.Name) \
            and fn.args.vararg is not None and saved.value.id == fn.args.vararg.arg:
        # a pass-through (`def save_on_master(*args, **kwargs): torch.save(*args,
        # **kwargs)`): the object saved is the first argument past the helper's own
        # positional parameters
        return _handed_dict(frame, _first_extra_argument(frame), e)
    if not isinstance(saved, ast.Name):
        return e.path, e.node
    name = saved.id
    if any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, (ast.Store, ast.Del))
           or isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store)
           and isinstance(n.value, ast.Name) and n.value.id == name
           or isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
           and isinstance(n.func.value, ast.Name) and n.func.value.id == name
           and n.func.attr in ("update", "setdefault", "pop")
           for n in nodes_in(fn)):
        return e.path, e.node  # rebound or filled in the helper: its own contents
    if name not in {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}:
        return e.path, e.node
    return _handed_dict(frame, frame.argument(name), e)


def _handed_dict(frame: Any, handed: ast.expr | None, e: Event) -> tuple[str, ast.AST]:
    """The dict display the caller of ``frame`` handed over as ``handed`` (written in the
    call, or bound to a name first), where the checkpoint's contents are written; else the
    save ``e`` itself."""
    if isinstance(handed, ast.Name):
        # the caller's dict under a name of its own (`state = {...}` then `save(state,
        # path)`): its last binding before the call, in the caller's function
        handed = _caller_binding(frame, handed.id)
    if isinstance(handed, ast.Dict) or isinstance(handed, ast.Call) \
            and dotted(handed.func) == "dict" and not handed.args:
        return frame.call_path, handed
    return e.path, e.node


def _first_extra_argument(frame: Any) -> ast.expr | None:
    """The call's first positional argument that lands in the function's ``*args`` (None
    when a ``*xs`` of the call's own comes first, or there is none)."""
    call, fn = frame.call, frame.fn
    at = len([*fn.args.posonlyargs, *fn.args.args]) - frame.skipped
    if at < 0 or at >= len(call.args) or any(
            isinstance(a, ast.Starred) for a in call.args[:at + 1]):
        return None
    return call.args[at]


def _caller_binding(frame: Any, name: str) -> ast.expr | None:
    """The value of the caller's ``name = ...`` written in the same block as the call that
    made ``frame``, before it, with nothing else binding or filling ``name`` in the caller's
    function (``state["scaler"] = ...``, ``state.update(...)``, a loop or ``with`` target,
    an augmented assignment): what the caller hands over is then that display as written."""
    caller, call = frame.parent, frame.call
    if caller is None or caller.fn is None or call is None or caller.path != frame.call_path:
        return None
    parents = parent_map(caller.fn)
    stmt: ast.AST = call
    while id(stmt) in parents and not isinstance(stmt, ast.stmt):
        stmt = parents[id(stmt)]
    # the nearest block, from the call's own outwards (`state = {...}` then `if is_best:
    # save(state, path)`), that binds the name before the statement holding the call
    bound: ast.Assign | None = None
    while bound is None and stmt is not caller.fn:
        holder = parents.get(id(stmt))
        block = next((getattr(holder, f) for f in ("body", "orelse", "finalbody")
                      if stmt in (getattr(holder, f, None) or [])), None)
        if holder is None or block is None:
            return None
        before = [st for st in block[:block.index(stmt)] if isinstance(st, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == name for t in st.targets)]
        if before:
            bound = before[-1]
        stmt = holder
    if bound is None:
        return None
    for n in nodes_in(caller.fn):
        if isinstance(n, ast.Assign) and n is not bound and n.lineno > bound.lineno \
                and n.lineno < call.lineno and any(
                    isinstance(t, ast.Name) and t.id == name for t in n.targets):
            return None
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store) \
                and isinstance(n.value, ast.Name) and n.value.id == name:
            return None
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and isinstance(n.func.value, ast.Name) and n.func.value.id == name \
                and n.func.attr in ("update", "setdefault", "pop"):
            return None
        if isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension,
                          ast.withitem, ast.NamedExpr)):
            target = n.optional_vars if isinstance(n, ast.withitem) else n.target
            if target is not None and any(isinstance(t, ast.Name) and t.id == name
                                          for t in ast.walk(target)):
                return None
    return bound.value


def _built(obj: Obj) -> int:
    """1 for an object whose construction the trace saw (a known class's call, or a builder's
    call of unknown class), 0 for a stand-in for a parameter named like one."""
    return int(obj.call is not None or obj.via is not None)


def _idle_optimizers(ctx: FileContext) -> set[Any]:
    """The construction sites of the optimizers this program builds but never steps (neither
    ``optimizer.step()`` nor ``scaler.step(optimizer)``) while it steps some optimizer: one
    kept to compute a value (a private ``SGD`` whose scheduler serves as a cosine calculator
    inside an optimizer class), not one that takes the training updates. Empty when no step is
    seen at all (a framework steps them)."""
    stepped = {built_site(o) for e in ctx.program.events
               for o in [e.obj if e.kind == "opt_step" else e.info.get("optimizer")
                         if e.kind == "scaler_step" else None]
               if isinstance(o, Obj) and o.kind == "optimizer"}
    if not any(e.kind in ("opt_step", "scaler_step") for e in ctx.program.events):
        return set()
    return {built_site(o) for o in ctx.program.objects
            if o.kind == "optimizer" and not o.guessed} - stepped


def _set_in_vain_restart(lost: list[Obj]) -> str:
    """What a resume does to a chainable scheduler positioned by ``.last_epoch`` alone while
    no optimizer state comes back (`last_epoch_set_in_vain`)."""
    cls = lost[0].cls if len({o.cls for o in lost}) == 1 and lost[0].cls else "scheduler"
    if cls == "CosineAnnealingWarmRestarts":
        return ("the CosineAnnealingWarmRestarts counts its cycle in `T_cur`, which setting "
                "`last_epoch` does not move: the schedule restarts from its first value")
    return (f"the {cls} is positioned by `last_epoch` but scales the LR it finds, and no "
            f"optimizer state is restored: the LR starts again from its base value and the "
            f"decays passed before the resume point are never applied")


def _restart(lost: list[Obj]) -> str:
    """What a resume does to a schedule whose state is lost while the optimizer's is kept
    (`schedulers.resumed_without_state`, checked against torch): closed-form schedules go back
    to their first value, chainable ones replay their decays or ramp from the restored LR.
    ``lost``: the scheduler, or the alternatives of a choice (the class's own reading only when
    every one is the same known class)."""
    classes = {(o.origin, o.cls) for o in lost}
    s = lost[0] if lost else None
    if (s is None or len(classes) != 1 or s.guessed or s.origin != "torch"
            or s.cls not in SCHEDULERS):
        return RESTARTS
    shown = {}
    for param, index in SCHEDULERS[s.cls].horizon_params:
        value = s.arg(param, index)
        if value is not None:
            shown[param] = ast.unparse(value)
    return resumed_without_state(s.cls, shown) or RESTARTS


def _scaler_left_out(ctx: FileContext, e: Event, scalers: list[tuple[Obj, str]], objs: set[int],
                     words: list[str], optimizers: list[Obj]) -> tuple[Obj, str] | None:
    """A checkpoint that stores one GradScaler's state but not another's (a GAN with a scaler
    per network, the discriminator's saved, the generator's forgotten): the scaler not stored,
    when it steps an optimizer the checkpoint holds, no saved scaler steps that optimizer too,
    and no key names it. Each scaler has its own scale; the one not stored restarts at 65536
    on resume and skips its network's first updates again."""
    saved = [s for s, _ in scalers if s.id in objs]
    if not saved or not optimizers:
        return None
    sites = {built_site(o) for o in optimizers}

    def stepped(scaler: Obj) -> set[Any]:
        return {built_site(ev.info["optimizer"]) for ev in ctx.program.events
                if ev.kind == "scaler_step" and ev.obj is not None and ev.obj.id == scaler.id
                and isinstance(ev.info.get("optimizer"), Obj)}

    covered = set().union(*(stepped(s) for s in saved))
    stored_names = {s.name for s in saved}
    for s, flag in scalers:
        if s.id in objs or s.guessed or not s.name or s.name in stored_names:
            continue
        last = _last_part(s.name).lower()
        if not last or any(last in w for w in words):
            continue
        own = stepped(s)
        if not own & sites or own & covered:
            continue
        built = s.built_under or ()
        if built_apart(built, e.conds) or any(built_apart(built, t.built_under or ())
                                              for t in saved):
            continue
        return s, flag
    return None


def _left_out(e: Event, scheds: list[Obj], objs: set[int], words: list[str]) -> Obj | None:
    """A checkpoint that stores one scheduler of the optimizer by its state but not another
    one that runs beside it (a warm-up's state saved, the main schedule's save commented out):
    the scheduler not stored, when no key names it either. Options of one choice share their
    name (``warmup_scheduler`` built per branch): storing one stores the choice; a scheduler
    built under a setting the save's branch, or a stored scheduler's, contradicts is another
    run's."""
    saved = [s for s in scheds if s.id in objs]
    if not saved:
        return None
    stored_names = {s.name for s in saved}
    for s in scheds:
        if s.id in objs or not s.name or s.name in stored_names:
            continue
        last = s.name.rsplit(".", 1)[-1].lower()
        if any(last in w for w in words):
            continue
        built = s.built_under or ()
        if built_apart(built, e.conds) or any(built_apart(built, t.built_under or ())
                                              for t in saved):
            continue
        return s
    return None


def _module_tree(ctx: FileContext, path: str) -> ast.Module | None:
    if path == ctx.path:
        return ctx.tree
    module = ctx.loader.load(path) if ctx.loader is not None else None
    return module.tree if module is not None else None


_SAVED_WORDS = re.compile(r"ckpt|checkpoint|state|saved|resume|restore|load")


@per_node  # asked at each save and load event
def _reads_saved_scheduler_state(tree: ast.Module) -> bool:
    """The module reads a scheduler's saved state back by some route of its own (``shift =
    saved.scheduler_dict["last_epoch"]`` to rebuild the schedule shifted, ``ckpt["scheduler"]``
    handed to a helper): the schedule is not simply lost, so lrdoctor stays silent. The plain
    route, ``x.load_state_dict(ckpt["scheduler"])``, is not counted: the trace models it (a
    helper's ``if scheduler is not None:`` branch may restore nothing this file built)."""
    plain = {
        id(arg) for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and node.func.attr == "load_state_dict"
        for arg in [*node.args, *(k.value for k in node.keywords)]
    }
    for node in ast.walk(tree):
        if id(node) in plain:
            continue
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            key = node.slice.value.lower()
            # `saved["scheduler"]`, `ckpt["lr_scheduler_state"]`; not a setting such as
            # `config["scheduler"] == "cosine"`, nor a count read back into the program's own
            # counter (`stage = ckpt["schedule_stage"]`, advanced by `stage += 1`)
            if "sched" in key and (
                "state" in key or "dict" in key
                or _SAVED_WORDS.search(ast.unparse(node.value).lower())
            ) and not _counter_read(tree, node):
                return True
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            attr = node.attr.lower()
            if "sched" in attr and ("state" in attr or "dict" in attr) and attr != "state_dict":
                return True
    return False


def _counter_read(tree: ast.Module, read: ast.Subscript) -> bool:
    name = _read_back_into(tree, read)
    return name is not None and _counter(function_around(tree, read), name)


def _resume_sets_last_epoch(tree: ast.Module, line: int) -> bool:
    """The function that restores the optimizer also hands the epoch it read back to the
    settings a scheduler is built from (``self.config["lr_scheduler"]["args"]["last_epoch"] =
    start_epoch``, ``sched_kwargs["last_epoch"] = epoch``) instead of restoring the scheduler's
    state: ``last_epoch`` is a scheduler's constructor argument and nothing else's, so the
    resume rebuilds the schedule at the resumed position (a literal -1 would be a fresh start)."""
    around = function_at(tree, line)
    if around is None:
        return False
    # the builders the function calls (`configs.train.scheduler(optimizer)`)
    called = {dotted(node.func) for node in ast.walk(around) if isinstance(node, ast.Call)}
    for node in ast.walk(around):
        if not isinstance(node, ast.Assign):
            continue
        fresh = fresh_start(node.value)
        for target in node.targets:
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant) \
                    and target.slice.value == "last_epoch" and not fresh:
                return True
            # `configs.train.scheduler.last_epoch = last_epoch` and then
            # `configs.train.scheduler(optimizer)`: the setting of a builder the function
            # calls (a config node that makes the scheduler), not a counter of its own
            # (`self.last_epoch = epoch` is never called)
            if isinstance(target, ast.Attribute) and target.attr == "last_epoch" \
                    and not fresh and dotted(target.value) in called:
                return True
    return False


def _checkpoint_names(node: ast.AST) -> set[str]:
    """The names whose items ``node`` reads: ``ckpt`` in ``ckpt["optimizer"]`` or
    ``ckpt.get("optimizer")``."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name):
            out.add(sub.value.id)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) \
                and sub.func.attr == "get" and isinstance(sub.func.value, ast.Name):
            out.add(sub.func.value.id)
    return out


def _hands_saved_position(tree: ast.Module, e: Event, scheds: list[Obj]) -> bool:
    """The function that restores the optimizer from a checkpoint also hands values read
    from that checkpoint to a method of the scheduler other than ``step`` and
    ``load_state_dict`` (which the trace models): ``scheduler.setstate({"epoch":
    ckpt["epoch"], "iters": ckpt["iters"]})`` puts a project's scheduler back at the saved
    position by a route of its own. A method given values from elsewhere (a literal, a
    setting) restores nothing."""
    around = function_at(tree, e.line)
    if around is None or not isinstance(e.node, ast.Call):
        return False
    sources = set().union(*(_checkpoint_names(a) for a in
                            [*e.node.args, *(k.value for k in e.node.keywords)]))
    held = {s.name for s in scheds if s.name}
    if not sources or not held:
        return False
    for node in ast.walk(around):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr not in ("step", "load_state_dict") \
                and dotted(node.func.value) in held \
                and any(_checkpoint_names(a) & sources
                        for a in [*node.args, *(k.value for k in node.keywords)]):
            return True
    return False


def _drives_another_optimizer(sched: Obj, optimizer: Obj | None) -> bool:
    """A scheduler built on an optimizer of its own that is not ``optimizer`` (a GAN's
    ``sched_g`` on ``opt_g``, restored beside ``opt_d``): restoring it restores nothing of
    ``optimizer``'s schedule. Identity is where each was built, as one constructor call is one
    object of the program; a scheduler known by name only, or whose optimizer is not known,
    may be ``optimizer``'s and still counts."""
    other = sched.optimizer
    if sched.guessed or optimizer is None or other is None or other.kind != "optimizer":
        return False
    if other.call is None or optimizer.call is None:
        return False
    return built_site(other) != built_site(optimizer)


def _check_resume(ctx: FileContext, e: Event, check_scaler: bool,
                  saves: list[tuple[Event, tuple[set[int], list[str]]]]
                  ) -> Iterator[Diagnostic]:
    """A resume that restores the optimizer but not the scheduler (or the GradScaler: when the
    file saves it, or shows no save of its own; otherwise the save is what is reported).
    ``saves``: the checkpoints the program writes, with what each holds."""
    optimizer = e.obj
    tree = _module_tree(ctx, e.path)
    if tree is not None:
        around = function_at(tree, e.line)
        if around is not None and around.name == "configure_optimizers":
            # Lightning resumes from its own checkpoint, which holds the schedulers this hook
            # returns; an optimizer state loaded by hand here starts a new run from another
            # run's moments (a warm start), with a schedule that is meant to start over
            return
        if around is not None and _undoes_the_sweep(ctx, e, around):
            return
    restored = [ev for ev in ctx.program.events if ev.kind == "load_state" and ev.obj is not None]
    missing = []
    named: list[Obj] = []  # the scheduler (or its alternatives) never restored
    # where the finding is reported (a helper's call, an optimizer wrapper's caller): the
    # lines the message names are read from there
    site = _helper_call_site(ctx, e)
    path, node, said = e.path, e.node, f"{receiver(e)}.load_state_dict"
    frame = e.frame
    while site is None and frame is not None and frame.fn is not None \
            and frame.fn.name == "load_state_dict" and frame.call is not None \
            and frame.call_path:
        # an optimizer wrapper's own `load_state_dict` handing the state to the optimizer it
        # wraps (`self.optim.load_state_dict(sd)`): the resume is where the program calls
        # the wrapper's method, and the finding goes there
        path, node, said = frame.call_path, frame.call, ast.unparse(frame.call.func)
        frame = frame.parent
    if site is not None:
        path = site[0]
    scheds = _real_schedulers(ctx, e.root, optimizer, e)
    if scheds and tree is not None and _reads_saved_scheduler_state(tree):
        scheds = []
    if scheds and tree is not None and _resume_sets_last_epoch(tree, e.line):
        scheds = []
    if scheds and tree is not None and _hands_saved_position(tree, e, scheds):
        scheds = []
    # a helper's `if scheduler is not None: scheduler.load_state_dict(...)` traced with the
    # parameter left out loads a stand-in known by name only: it restores none of the
    # schedulers this file builds
    known = [s for s in scheds if not s.guessed]
    # a scheduler whose function ignores its step count loses nothing (see _count_unused):
    # when the only known one is such a default (`LambdaLR(opt, lambda step: 1.0)` unless a
    # factory is given), the factory's scheduler is the one whose state is lost
    lost = [s for s in known if not _count_unused(s)] \
        or [s for s in scheds if s.guessed and not _count_unused(s)]
    if known:
        scheds = known
    if lost and all(s.guessed for s in lost) and _helper_restores_given_scheduler(ctx, e):
        # known by name only, and the resume hands a scheduler by that kind of name to the
        # very helper that restores the optimizer, which restores that parameter too
        # (`load_optim(self.optimizer, lr_scheduler, sd)`): the stand-in is restored there
        lost = []
    # restores of a scheduler replaced afterwards (see _superseded), asked once
    superseded = [ev for ev in restored if lost and _superseded(ctx, ev, lost)]
    if lost and not any(
        ev.obj is not None and ev.obj.kind == "scheduler"
        and (ev.obj in scheds or ev.root == e.root and not (known and ev.obj.guessed)
             and not _drives_another_optimizer(ev.obj, optimizer))
        and ev not in superseded
        for ev in restored
    ):
        # a restored scheduler replaced afterwards: name its replacement
        replaced = {id(ev.obj) for ev in superseded}
        lost = [s for s in lost if id(s) not in replaced] + [s for s in lost if id(s) in replaced]
        s = lost[0]
        if s.guessed:  # known by its name only: there is no line to point at
            missing.append(f"`{s.name or 'the scheduler'}`")
        else:
            same = _alternatives(lost, s)
            named = same
            if len(same) > 1:
                options = " or ".join(f"{o.label} at {_where(o, path)}" for o in same)
            else:
                options = f"{s.label}, {_where(s, path)}"
            missing.append(f"`{s.name or 'the scheduler'}` ({options})")
    scalers = _scalers(ctx, e.root, e, [optimizer] if optimizer is not None else None) \
        if check_scaler else []
    if scalers and not any(
        ev.obj is not None and ev.obj.kind == "scaler" and ev.root == e.root
        and not ev.obj.guessed for ev in restored
    ) and not _kept_under_its_switch(ctx, e, *scalers[0], "load_state_dict"):
        scaler, flag = scalers[0]
        switched = f", {when(flag)}" if flag else ""
        missing.append(f"the GradScaler (`{scaler.name or 'scaler'}`{switched})")
    if not missing:
        yield from _plateau_resume(ctx, e, tree, restored, saves)
        return
    consequence = []
    if scheds and missing[0].startswith("`"):
        consequence.append(_restart(named))
    if len(missing) == 2 or missing[0].startswith("the GradScaler"):
        consequence.append("the scale restarts at 65536 and skips steps again")
    if site is not None:
        # a generic helper (`def load(obj, path): obj.load_state_dict(torch.load(path))`,
        # called for the model too): the resume is the call that hands it the optimizer
        _, call, given = site
        yield Diagnostic.at(
            "LRD007",
            f"`{ast.unparse(call.func)}({given}, ...)` restores the optimizer but "
            f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} never restored: "
            f"on resume {' and '.join(consequence)}",
            path,
            call,
        )
        return
    yield Diagnostic.at(
        "LRD007",
        f"`{said}(...)` restores the optimizer but "
        f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} never restored: on "
        f"resume {' and '.join(consequence)}",
        path,
        node,
    )


def _position_only_resume(ctx: FileContext) -> Iterator[Diagnostic]:
    """A resume that reads the training position back from a checkpoint (``start_epoch =
    ckpt["epoch"] + 1``, ``global_step = state["global_step"]``) and goes on from there, while
    it restores neither the optimizer nor a scheduler that the program's own checkpoint holds
    (``scheduler.state_dict()`` is saved, never loaded): the schedule, built afresh, starts
    again from its first value (a warm-up again, the base LR again) at the resumed position,
    and the run ends before the schedule reaches the end of its curve. The save of the
    scheduler's state says the run means to be resumed with it; without it (a model-only warm
    start) nothing is said.

    Silent where something else puts the schedule back: any optimizer or scheduler restore
    (traced, or a ``load_state_dict`` named like one, or the saved scheduler state read by a
    route of the program's own), a scheduler built at a position or sized from the resumed
    one, stepped with its position named (``step(epoch)``) or replayed to the resume point, a
    ReduceLROnPlateau (its LR lives in the optimizer) and a schedule whose count moves
    nothing; also where the function hands the optimizer or the scheduler to a loading
    helper of its own (``load_checkpoint(path, model, optimizer)``), which may restore it."""
    events = ctx.program.events
    if any(e.kind in ("load_state", "set_last_epoch") and e.obj is not None
           and e.obj.kind in ("optimizer", "scheduler") for e in events) \
            or _optimizer_state_restored(ctx):
        return
    saved: dict[int, Event] = {}
    for e in events:
        if e.kind == "save":
            held = _visibly_held(ctx, e)
            for o in ctx.program.objects:
                if o.kind == "scheduler" and o.id in held:
                    saved.setdefault(o.id, e)
    # the options of one choice (`scheduler = build(kind, ...)` returning one class or
    # another), stepped by the same call: the state saved is whichever option runs
    by_call = {id(e.node): saved[e.obj.id] for e in events
               if e.kind == "sched_step" and e.obj is not None and e.obj.id in saved}
    for e in events:
        if e.kind == "sched_step" and e.obj is not None and id(e.node) in by_call:
            saved.setdefault(e.obj.id, by_call[id(e.node)])
    replayed = fast_forwarded(ctx)
    reported: set[Any] = set()
    for s in ctx.program.objects:
        save = saved.get(s.id)
        if save is None or s.guessed or s.cls == "ReduceLROnPlateau" or _count_unused(s) \
                or built_at_a_position(s) or _position_read_back(s) or _sized_from_resume(s) \
                or _builder_positioned(s) or _positioned_through_splat(ctx, s) \
                or built_site(s) in replayed:
            continue
        steps = [e for e in events if e.kind == "sched_step" and e.obj is not None
                 and built_site(e.obj) == built_site(s)]
        if not steps or any(_names_a_position(e) for e in steps):
            continue
        for step in steps:
            if step.loop is None or not trains_in(step.loop, ctx.events_by_root.get(step.root, [])):
                continue
            tree = _module_tree(ctx, step.path)
            if tree is None or _reads_saved_scheduler_state(tree):
                continue
            around = function_around(tree, step.node)
            read = _position_resumed(around, {n for n in (s.name, s.optimizer.name
                                                         if s.optimizer else "") if n})
            if read is None or (step.path, read.lineno) in reported:
                continue
            target = ast.unparse(read.targets[0])
            if _built_from(s, target):
                continue
            reported.add((step.path, read.lineno))
            # the options of a choice stepped by this call, each named with where it is built
            options = [s, *(o for o in _stepped_by(events, step)
                            if o is not s and not o.guessed and o.cls != s.cls)][:3]
            built = " or ".join(f"{o.label}, {_where(o, step.path)}" for o in options)
            yield Diagnostic.at(
                "LRD007",
                f"the resume reads the training position back (`{target} = "
                f"{ast.unparse(read.value)}`) but restores neither the optimizer nor "
                f"`{s.name or receiver(step)}` ({built}), whose state the checkpoint holds "
                f"({line_at(save.path, save.line, step.path)}): on resume {RESTARTS} while "
                f"training goes on from `{target}`",
                step.path,
                read,
            )
            break


def _stepped_by(events: list[Event], step: Event) -> list[Obj]:
    """The schedulers the call of ``step`` steps (the options of one choice), in order."""
    out: list[Obj] = []
    for e in events:
        if e.kind == "sched_step" and e.node is step.node and e.obj is not None \
                and e.obj not in out:
            out.append(e.obj)
    return out


def _visibly_held(ctx: FileContext, e: Event) -> set[int]:
    """The tracked objects whose state the save ``e`` holds where the file shows them, also
    in a checkpoint with parts lrdoctor cannot see (``"config": run_config`` filled by
    ``update``, ``**extra``): what is unknown beside them takes nothing away from them."""
    contents = _contents(ctx, e) or _lone_state(e)
    if contents is not None:
        return contents[0]
    objs: set[int] = set()
    value = e.info.get("value")
    if isinstance(value, DictVal):
        for item in value.items.values():
            _saved(item, objs, [], 1)
    return objs


def _built_from(s: Obj, name: str) -> bool:
    """The scheduler's construction reads ``name``, the position the resume read back
    (``get_cosine_schedule_with_warmup(opt, warmup, total - update_step)``): a schedule laid
    out for the rest of the run on purpose."""
    call = s.call if s.call is not None else s.via
    return call is not None and any(isinstance(node, ast.Name) and node.id == name
                                    for node in ast.walk(call))


# the keys a checkpoint keeps the training position under, any counter of steps, epochs or
# iterations (`update_step`, `global_step`, `epoch`), not a setting (`num_steps`, `max_epoch`)
_POSITION_KEY = re.compile(
    r"^(?!(num|max|total|n|warmup|save|eval|log|print)_)(\w+_)?(epoch|step|iter|iteration)$")


# a call that may load a checkpoint into what it is handed (`load_checkpoint(path, model,
# optimizer)`, `resume(cfg, optimizer, scheduler)`)
_LOADING_CALL = re.compile(r"load|resume|restor")
# a call that restores a run by a route of its own, handed anything or nothing
# (`accelerator.load_state(path)`, `engine.load_checkpoint(dir)`, `resume_training(cfg)`);
# not `gradient_checkpointing_enable()`, which recomputes activations
_RESTORING_CALL = re.compile(
    r"restor|resum|load_?(checkpoint|ckpt|state|snapshot)|(checkpoint|ckpt)s?_?load")
# a saved LR or schedule read back by the program (`ckpt["lr"]`, `state["sched_epoch"]`)
_SCHEDULE_KEY = re.compile(r"(^|_)lr($|_)|learning_rate|sched")


def _keyed_read(node: ast.AST) -> tuple[str, ast.expr] | None:
    """``(key, holder)`` for ``holder["key"]`` read or ``holder.get("key", ...)`` with a string
    literal for the key; None for anything else."""
    key: ast.expr | None = None
    held: ast.expr | None = None
    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
        key, held = node.slice, node.value
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr == "get" and node.args:
        key, held = node.args[0], node.func.value
    if isinstance(key, ast.Constant) and isinstance(key.value, str) and held is not None:
        return key.value, held
    return None


def _position_key_read(node: ast.AST) -> str | None:
    """``ckpt["update_step"]`` / ``state.get("epoch")`` under a position key (see
    ``_POSITION_KEY``): the name read from; None for anything else."""
    read = _keyed_read(node)
    if read is None or not _POSITION_KEY.match(read[0].lower()):
        return None
    held = read[1]
    if isinstance(held, ast.Call):
        # read straight off a load (`json.load(f)["update_step"]`)
        return "load()" if _loads(held) else None
    return last_name(held)


def _loads(call: ast.Call) -> bool:
    """``torch.load(...)``, ``json.load(f)``: a call of a function named ``load``."""
    return (dotted(call.func) or "").rsplit(".", 1)[-1] == "load"


def _read_back(value: ast.expr) -> bool:
    """``ckpt["scheduler"]``, ``ckpt.get("scheduler")`` or ``torch.load(path)``: an item read
    out of a mapping, or what a load returns."""
    if isinstance(value, ast.Subscript):
        return True
    return isinstance(value, ast.Call) and (
        _loads(value) or isinstance(value.func, ast.Attribute) and value.func.attr == "get")


def _schedule_key_read(node: ast.AST) -> str | None:
    """``ckpt["lr"]``, ``state.get("scheduler_epoch")``: an LR or a schedule's position read
    (the name read from, for the caller to say whether it holds a checkpoint). Read back from
    a checkpoint, by a route of the program's own (written into the param groups, handed to
    a builder), it puts the schedule back in its way."""
    read = _keyed_read(node)
    if read is None or not _SCHEDULE_KEY.search(read[0].lower()):
        return None
    held = read[1]
    return "load()" if isinstance(held, ast.Call) and _loads(held) else last_name(held)


def _position_resumed(around: ast.AST, handed: set[str]) -> ast.Assign | None:
    """The assignment in ``around`` (the function that runs the training loop) that reads
    the run's position back from a checkpoint, when the function goes on from it: ``name =
    ckpt["epoch"] + 1`` (or ``state.get("global_step")``) where ``ckpt`` is bound to a load
    (``torch.load(...)``, ``json.load(f)``) or named like a checkpoint, ``name`` starts the
    loop (``range(name, ...)``) or is the counter the loop advances (``name += 1``), and the
    function restores a model's weights (a ``load_state_dict`` call). None as well where the
    function hands ``handed`` (the scheduler's and the optimizer's names) to a loading call of
    its own, which may restore them."""
    starts: set[str] = set()
    advanced: set[str] = set()
    loaded: dict[str, bool] = {}
    restores_weights = False
    reads: list[tuple[ast.Assign, str, str]] = []  # (assignment, name bound, name read from)
    schedule_reads: set[str] = set()
    for node in ast.walk(around):
        if isinstance(node, ast.For) and isinstance(node.iter, ast.Call) \
                and dotted(node.iter.func) == "range" and len(node.iter.args) >= 2 \
                and isinstance(node.iter.args[0], ast.Name):
            starts.add(node.iter.args[0].id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and isinstance(node.op, ast.Add):
            advanced.add(node.target.id)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if dotted(target) in handed and _read_back(node.value):
                # the object itself read back (`scheduler = ckpt["scheduler"]`, `optimizer =
                # torch.load(path)`, pickled whole): the saved one goes on
                return None
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Call):
                loaded[target.id] = loaded.get(target.id, False) or _loads(node.value)
            if isinstance(target, ast.Name):
                source = next((name for sub in ast.walk(node.value)
                               for name in [_position_key_read(sub)] if name), None)
                if source is not None:
                    reads.append((node, target.id, source))
        elif isinstance(node, ast.Call):
            called = (dotted(node.func) or "").lower().rsplit(".", 1)[-1]
            if called == "load_state_dict":
                restores_weights = True
            elif _RESTORING_CALL.search(called) or _LOADING_CALL.search(called) and any(
                    dotted(arg) in handed
                    for arg in [*node.args, *(k.value for k in node.keywords)]):
                return None
        held = _schedule_key_read(node)
        if held is not None:
            schedule_reads.add(held)

    def checkpoint(source: str) -> bool:
        return source == "load()" or loaded.get(source, False) \
            or bool(_CHECKPOINT_NAME.search(source.lower()))

    if not restores_weights or any(checkpoint(held) for held in schedule_reads):
        return None
    for node, name, source in reads:
        if (name in starts or name in advanced) and checkpoint(source):
            return node
    return None


def _superseded(ctx: FileContext, restore: Event, lost: list[Obj]) -> bool:
    """The scheduler whose state ``restore`` loads is replaced before it steps again: another
    scheduler of ``lost`` on the same optimizer is built after the restore in the same run (not
    on a branch the restore excludes) and is the one stepped, while the restored object never
    steps after the restore (``scheduler.load_state_dict(ckpt["scheduler"])`` ... ``scheduler =
    OneCycleLR(optimizer, ...)``), or wrapped by a warm-up built after the restore. The
    restored state goes with the old object; the new one starts its schedule from the
    beginning."""
    old = restore.obj
    if old is None or old.kind != "scheduler":
        return False
    events = ctx.program.events
    if any(x.kind in ("sched_step", "sched_step_update") and x.obj is old
           and x.root == restore.root and x.order > restore.order for x in events):
        return False
    for new in lost:
        if new is old:
            continue
        # a wrapper built around the restored scheduler (the pip GradualWarmupScheduler's
        # `after_scheduler=`) keeps that state inside, but its own warm-up starts over
        if old not in new.members and (new.guessed or new.optimizer is None
                                       or new.optimizer is not old.optimizer):
            continue
        if old in new.members and new.cls == "ChainedScheduler":
            continue  # no state of its own: it steps its members, whose states were restored
        built_after = any(x.kind == "create" and x.obj is new and x.root == restore.root
                          and x.order > restore.order and not exclusive(x, restore)
                          for x in events)
        if built_after and any(x.kind in ("sched_step", "sched_step_update") and x.obj is new
                               and x.root == restore.root for x in events):
            return True
    return False


def _plateau_resume(ctx: FileContext, e: Event, tree: ast.Module | None,
                    restored: list[Event],
                    saves: list[tuple[Event, tuple[set[int], list[str]]]]
                    ) -> Iterator[Diagnostic]:
    """An info, not a warning: a resume that restores the optimizer from a checkpoint the
    program writes with the optimizer's state, while the ReduceLROnPlateau stepped on that
    optimizer is neither in the checkpoint nor restored. The LR it reached comes back with the
    optimizer's param groups; its best metric and its count of bad epochs start over, so the
    next reduction can come up to ``patience`` epochs early or late."""
    optimizer = e.obj
    if optimizer is None or tree is None or _reads_saved_scheduler_state(tree):
        return
    checkpoints = [(objs, words) for _, (objs, words) in saves
                   if optimizer.id in objs or any("optim" in w for w in words)]
    if not checkpoints:
        return  # nothing of this program's own to resume from: not a resume path lrdoctor sees
    if any(ev.obj.kind == "scheduler" and ev.root == e.root for ev in restored if ev.obj):
        return
    for s in _real_schedulers(ctx, e.root, optimizer, e, plateau=True):
        saved = [w for objs, words in checkpoints
                 for w in words if "sched" in w or "plateau" in w] \
            or [""] * any(s.id in objs for objs, _ in checkpoints)
        if saved:
            # the checkpoint holds the plateau's state, but nothing the trace sees loads it
            # back (`checkpoint["lr_scheduler"] = lr_scheduler.state_dict()` written every
            # epoch, a resume that restores only the model and the optimizer): unless the
            # module that builds the plateau reads that state back by a route of its own
            built = _module_tree(ctx, s.path) if s.path else None
            if built is None or _reads_saved_scheduler_state(built):
                continue
        given = s.arg("patience", 3)
        # torch's default is 10; a `**kwargs` or `*args` handed to the constructor may set it
        unknown = s.has_kwargs_splat() or any(isinstance(a, ast.Starred) for a in s.call.args) \
            if s.call is not None else True
        patience = f" ({ast.unparse(given)})" if given is not None else "" if unknown else " (10)"
        yield Diagnostic.at(
            "LRD007",
            f"`{receiver(e)}.load_state_dict(...)` restores the optimizer, and with it the LR "
            f"that `{s.name or 'the scheduler'}` (ReduceLROnPlateau, {_where(s, e.path)}) "
            f"reduced, but the plateau's own state is "
            + (f"saved{' (`' + saved[0] + '`)' if saved[0] else ''} and never loaded back"
               if saved else "neither saved nor restored")
            + ": its best metric and "
            f"patience count restart, so the next reduction can come up to `patience`"
            f"{patience} epochs late or early",
            e.path,
            e.node,
            severity="info",
        )
        return


def _alternatives(lost: list[Obj], s: Obj) -> list[Obj]:
    """``s`` and the other schedulers bound to its variable on other branches (``if
    args.policy == "cosine": sched = CosineAnnealingLR(...) else: sched = MultiStepLR(...)``),
    of distinct classes, at most three: a message names them all, since which one runs is the
    setting's choice."""
    out = [s]
    for o in lost:
        if o is not s and o.name == s.name and not o.guessed and o.line is not None \
                and o.cls not in {x.cls for x in out} and len(out) < 3:
            out.append(o)
    return out


def _called(o: Obj) -> str:
    """``MultiStepLR `sched``` by its class and the name it was bound to; the class alone for
    one a factory returns straight from its constructor (``return MultiStepLR(...)``)."""
    return f"{o.label} `{o.name}`" if o.name else o.label


def _where(o: Obj, path: str) -> str:
    """``line 12`` in the reported file, ``train.py:12`` in another (with its directories
    where the two files share a name: ``policy/ppo.py:90`` beside ``bonus/ppo.py``)."""
    if o.path == path:
        return f"line {o.line}"
    name = os.path.basename(o.path)
    if name == os.path.basename(path):
        name = display_path(o.path)
    return f"{name}:{o.line}"


def _restoring_helper(ctx: FileContext,
                      e: Event) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[str], str] | None:
    """The module-level helper whose ``obj.load_state_dict(...)`` restores the optimizer of
    ``e`` through its own positional parameter ``obj``: (the helper, its positional
    parameters, that parameter's name)."""
    node, optimizer = e.node, e.obj
    if optimizer is None or not optimizer.name or not isinstance(node, ast.Call) \
            or not isinstance(node.func, ast.Attribute) \
            or not isinstance(node.func.value, ast.Name):
        return None
    tree = ctx.tree_of(e.path)
    helper = function_around(tree, node) if tree is not None else None
    if not isinstance(helper, (ast.FunctionDef, ast.AsyncFunctionDef)) or tree is None \
            or helper not in tree.body:
        return None
    params = [a.arg for a in [*helper.args.posonlyargs, *helper.args.args]]
    own = node.func.value.id
    return (helper, params, own) if own in params else None


def _helper_calls(ctx: FileContext, helper: ast.FunctionDef | ast.AsyncFunctionDef
                  ) -> Iterator[tuple[str, ast.Call]]:
    """The calls of ``helper`` (by its name) in the files read: (path, call)."""
    trees = {ctx.path: ctx.tree}
    if ctx.loader is not None:
        trees.update({path: module.tree for path, module in ctx.loader.read_modules()})
    for path, module_tree in trees.items():
        for call in ast.walk(module_tree):
            if isinstance(call, ast.Call) \
                    and (dotted(call.func) or "").rsplit(".", 1)[-1] == helper.name:
                yield path, call


def _given(call: ast.Call, params: list[str], name: str) -> ast.expr | None:
    """What ``call`` hands the helper's parameter ``name`` (by keyword, or by position when no
    starred argument comes before it)."""
    arg = next((k.value for k in call.keywords if k.arg == name), None)
    index = params.index(name)
    if arg is None and index < len(call.args) \
            and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        arg = call.args[index]
    return arg


def _helper_restores_given_scheduler(ctx: FileContext, e: Event) -> bool:
    """The optimizer is restored by a module-level helper that also calls ``load_state_dict``
    on another of its parameters (``if lr_scheduler is not None:
    lr_scheduler.load_state_dict(sd["lr_scheduler"])``), and a call of that helper which hands
    it the optimizer by the name it was bound to hands that parameter a value named as a
    scheduler (not ``None``): the resume restores the scheduler it was given."""
    found = _restoring_helper(ctx, e)
    if found is None or e.obj is None:
        return False
    helper, params, own = found
    restored = {
        call.func.value.id for call in ast.walk(helper)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
        and call.func.attr == "load_state_dict" and isinstance(call.func.value, ast.Name)
        and call.func.value.id in params and call.func.value.id != own
    }
    if not restored:
        return False
    for _, call in _helper_calls(ctx, helper):
        mine = _given(call, params, own)
        if mine is None or ast.unparse(mine) != e.obj.name:
            continue
        for name in restored:
            arg = _given(call, params, name)
            text = dotted(arg) if arg is not None else None
            if text and names.guess_kind_from_name(text) == "scheduler":
                return True
    return False


def _helper_call_site(ctx: FileContext, e: Event) -> tuple[str, ast.Call, str] | None:
    """Where a module-level helper that restores whatever object it is given
    (``obj.load_state_dict(...)`` on its parameter ``obj``) is handed the optimizer: the one
    call, among two or more calls of the helper in the files read, whose argument is the
    optimizer by the name it was bound to (path, call, that argument). None for a helper
    called once (it serves the optimizer alone), or when no call or several calls pass it."""
    found = _restoring_helper(ctx, e)
    if found is None or e.obj is None:
        return None
    helper, params, name = found
    optimizer_name = e.obj.name
    calls = 0
    hits: list[tuple[str, ast.Call, str]] = []
    for path, call in _helper_calls(ctx, helper):
        calls += 1
        arg = _given(call, params, name)
        if arg is not None and ast.unparse(arg) == optimizer_name:
            hits.append((path, call, optimizer_name))
    return hits[0] if calls >= 2 and len(hits) == 1 else None


# schedulers that compute the next LR from the current param_group['lr']: a manual write is
# folded into everything that follows. The others (LambdaLR, OneCycleLR, CyclicLR, ...) compute
# from base_lrs and overwrite a manual value at their next step, which manual warm-ups written
# for the first iterations (YOLOv5-style) rely on.
CHAINABLE = frozenset(
    {"StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "CosineAnnealingLR",
     "PolynomialLR", "MultiplicativeLR", "ReduceLROnPlateau"}
)


@rule("LRD008")
def manual_lr_vs_scheduler(ctx: FileContext) -> Iterator[Diagnostic]:
    for w in ctx.program.events:
        if w.kind != "lr_write" or w.obj is None or _restates_initial_lr(w) \
                or _clamps_current_lr(ctx, w) or _written_only_past_its_bound(ctx, w):
            continue
        root = ctx.events_by_root.get(w.root, [])
        # a warm-up that writes the LR only in the branch where the scheduler does not step
        # (`if epoch < warmup: ... else: scheduler.step()`) hands over; it does not compete
        stepped = {e.obj.id for e in root if e.kind == "sched_step" and e.obj is not None
                   and not exclusive(e, w)}
        drivers = [
            e.obj for e in root
            if e.kind == "create" and e.obj is not None and e.obj.kind == "scheduler"
            and e.obj.optimizer is w.obj and e.order < w.order and e.obj.id in stepped
            and (e.obj.cls in CHAINABLE
                 or e.obj.cls in RECOMPUTED and _overwritten_every_pass(root, w, e.obj))
            and e.obj.origin == "torch"
            # built on another branch of the choice than the write (a project scheduler
            # that sets its first LR in its constructor, on `elif kind == "mine":`, beside
            # a torch one on `elif kind == "plateau":`): never in the same run
            and not exclusive(e, w) and not built_apart(w.conds, e.obj.built_under or ())
            and not _picked_apart(e.obj, w)
        ]
        driver = drivers[0] if drivers else None
        if driver is None:
            rebuilt = _rebuilt_over_the_write(root, w)
            if rebuilt is not None:
                yield Diagnostic.at(
                    "LRD008",
                    f"param_group['lr'] is written here for the training that follows, but "
                    f"{_called(rebuilt)} ({_where(rebuilt, w.path)}) is built again on "
                    "the same optimizer before that training runs, and its constructor resets "
                    "the LR to the schedule's first value: the value written here never trains",
                    w.path,
                    w.node,
                )
            continue
        if _in_range_test(ctx, w, root, driver) or _replaced_after_write(root, w, driver):
            continue
        if _writes_the_schedule_back(ctx, w, root, driver):
            continue
        if driver.cls == "ReduceLROnPlateau" and _in_window(w):
            # ReduceLROnPlateau only scales the LR it finds: a warm-up written while a counter
            # is below its bound hands the LR over to it, as fairseq's and Transformer-XL's do
            continue
        # (not a step on a branch of the choice that built another class: `if cfg.sched ==
        # "onecycle": sched.step()` per batch never steps the StepLR of `cfg.sched == "step"`)
        steps = [e for e in root if e.kind == "sched_step" and e.obj is driver
                 and not exclusive(e, w) and not built_apart(e.conds, driver.built_under or ())]
        if driver.cls == "ReduceLROnPlateau" and _set_before_the_plateau_steps(w, steps):
            continue
        if steps and all(_after_warm_up_epochs(s, w) for s in steps):
            continue
        if steps and all(_done_before(s, w) for s in steps):
            continue  # written after the schedule's last step: the next stage trains on it
        if steps and all(_phase_apart(s, w) for s in steps):
            continue
        if steps and all(_counter_split(s, w) for s in steps):
            continue
        if steps and all(_result_apart(s, w) for s in steps):
            continue
        if _warm_up_before_the_first_drop(w, driver, steps):
            continue
        # the other classes a setting can bind to the same name (`if cfg.scheduler == "step":
        # ... elif ... "cosine":`): the message names them all, not only the first
        same = _alternatives(drivers, driver)
        called = _called(driver) + f" ({_where(driver, w.path)})" if len(same) == 1 else \
            " or ".join(f"{o.label} ({_where(o, w.path)})" for o in same) \
            + (f" `{driver.name}`" if driver.name else "") + ", whichever the setting picks,"
        yield Diagnostic.at(
            "LRD008",
            f"param_group['lr'] is written here while {called} "
            "drives the same optimizer: its next step folds this value in or "
            "overwrites it, so neither the manual LR nor the schedule is what trains",
            w.path,
            w.node,
        )


# torch schedulers whose step computes the LR from the base LR and its count alone, whatever
# the param group holds: a value written between two steps lasts until the next step
RECOMPUTED = frozenset({"LambdaLR", "OneCycleLR", "CyclicLR", "CosineAnnealingWarmRestarts"})


def _overwritten_every_pass(root: list[Event], w: Event, sched: Obj) -> bool:
    """Under a scheduler that recomputes the LR from its base (``RECOMPUTED``), the write and
    a step of it run on every pass of the same loop, under no test inside that loop (a
    warm-up formula written on every batch beside a per-batch LambdaLR): on every pass one
    of the two replaces the other's value before the optimizer steps, so one of them never
    trains. A write under a test inside the loop (``if step < warmup:``) hands over to the
    schedule once its window closes, and is not this shape."""
    loop = w.loop
    value = w.info.get("value")
    if loop is None or w.conds_inside(loop) or not isinstance(value, ast.expr):
        return False
    steps = [e for e in root if e.kind == "sched_step" and e.obj is sched and e.loop is loop
             and not e.conds_inside(loop) and not exclusive(e, w)]
    # a value read from the scheduler (`sched.get_last_lr()[0] * group["scale"]`) is the
    # schedule itself, rescaled per group: what the next step recomputes anyway
    names = {sched.name} | {dotted(e.node.func.value) or "" for e in steps
                            if isinstance(e.node, ast.Call)
                            and isinstance(e.node.func, ast.Attribute)}
    names.discard("")
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and node.attr in ("get_last_lr", "get_lr") \
                or isinstance(node, (ast.Name, ast.Attribute)) and dotted(node) in names:
            return False
    return bool(steps)


def _picked_apart(sched: Obj, w: Event) -> bool:
    """``sched`` exists only on the arm of a conditional expression whose test the write's
    branch contradicts: ``sched = None if args.manual else CosineAnnealingLR(...)`` and the
    write under ``if args.manual:`` (the same flag, nothing it reads rebound between). The
    manual LR and the scheduler never run in one program."""
    picked = sched.picked_fact
    if picked is None:
        return False
    for c in w.conds:
        for fact in (c.fact, *c.parts):
            if fact is not None and fact[0] == picked[0] and fact[1] == picked[1] \
                    and fact[2] != picked[2]:
                return True
    return False


def _done_before(step: Event, w: Event) -> bool:
    """``step`` runs before the write and never again after it: it comes earlier in the
    trace and no loop holds both (a loop around both steps the schedule again on its next
    pass). Stage 1 ends (`for epoch in ...: sched1.step()`), then `g["lr"] = stage2_lr` for
    stage 2, which steps another scheduler or none: nothing folds the written value in.
    Only where the step ran in the same run as the write, before it (in the code that calls
    the write's function, or in what that code called earlier), not in a sibling method
    traced before it by the order of the source."""
    if step.order > w.order or not step.within(calling_scope(w.frame)):
        return False
    loop = step.loop
    while loop is not None:
        if w.in_loop(loop):
            return False
        loop = loop.parent
    return True


def _set_before_the_plateau_steps(w: Event, steps: list[Event]) -> bool:
    """Under ReduceLROnPlateau, the write runs once, before the plateau's first step: it comes
    before every step in the trace and sits in none of the loops that step it (the
    schedule's constructor setting a warm-up's first LR, ``group["lr"] = 0.0`` right after
    building the plateau, as fairseq's plateau schedule does; a setup line before the epoch
    loop). The plateau keeps no LR of its own: each reduction scales the LR it finds in the
    param group, so a value written before any reduction is the LR the plateau starts from,
    and no later reduction can be undone by it. A write inside a loop that also steps the
    plateau (a second stage resetting the LR, a per-epoch write) can run after a reduction,
    and is left to the rest of the rule, as are steps in no loop lrdoctor sees."""
    if not steps:
        return False
    for s in steps:
        # a step in no loop of the trace (a framework's hook: `validation_epoch_end`) runs in
        # a loop lrdoctor does not see, which may run the write again: not taken here
        if s.loop is None or s.order <= w.order \
                or any(w.in_loop(loop) for loop in s.loop.ancestors()):
            return False
    return True


def _phase_apart(step: Event, w: Event) -> bool:
    """The scheduler steps only on the other side of the same test of the object's own state
    that the write sits under: ``if self.epoch < self.warmup: <write> else: sched.step()`` in
    ``step()``, and the same ``if self.epoch < self.warmup: <write>`` in ``load_state_dict()``
    (the warm-up LR put back on a resume). While the test holds, the object writes the LR and
    the scheduler does not step; once it fails, the scheduler takes over from the LR it finds
    (a hand-over, as within one ``if``)."""
    sides = {(c.text, c.branch) for c in w.conds
             if c.test is not None and c.branch in (0, 1) and "self." in c.text}
    return any((c.text, 1 - c.branch) in sides for c in step.conds if c.branch in (0, 1))


def _writes_the_schedule_back(ctx: FileContext, w: Event, root: list[Event], driver: Obj) -> bool:
    """The value written is the driver's own ``get_last_lr()``: directly, through a name or a
    ``self.`` attribute the same function assigned it to last, or through a method of the
    same class (``self.lr = self.current_lr(it)``) that returns it whenever the scheduler is
    set (``if self.scheduler: return self.scheduler.get_last_lr()[0]``). The chainable step
    goes on from the value it set itself, so the schedule is what trains. A value of the
    program's own, or another scheduler's LR, is still a write that competes."""
    value = w.info.get("value")
    tree = _module_tree(ctx, w.path)
    if value is None or tree is None:
        return False
    around = function_at(tree, w.line)
    if around is None:
        return False
    receivers = {driver.name} if driver.name else set()
    for e in root:
        if e.kind == "sched_step" and e.obj is driver and isinstance(e.node, ast.Call) \
                and isinstance(e.node.func, ast.Attribute):
            receivers.add(dotted(e.node.func.value) or "")
    receivers.discard("")
    if not receivers:
        return False
    for _ in range(3):
        bound: ast.expr | None = None
        if isinstance(value, ast.Name):
            bound = last_binding(around, value.id, w.line)
        elif isinstance(value, ast.Attribute) and dotted(value):
            bound = _attribute_bound_before(around, dotted(value) or "", w.line)
        if bound is None:
            break
        value = bound
    if _reads_last_lr_of(value, receivers):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "self":
        method = _method_of_class_around(tree, around, value.func.attr)
        return method is not None and _returns_last_lr_when_set(method, receivers)
    return False


def _attribute_bound_before(around: ast.AST, name: str, line: int) -> ast.expr | None:
    """What the last ``self.x = ...`` before ``line`` in ``around`` assigns."""
    found: ast.Assign | None = None
    for node in ast.walk(around):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and dotted(node.targets[0]) == name and node.lineno < line \
                and (found is None or node.lineno > found.lineno):
            found = node
    return found.value if found is not None else None


def _reads_last_lr_of(value: ast.expr, receivers: set[str]) -> bool:
    """``sched.get_last_lr()[0]`` / ``sched.get_last_lr()`` with ``sched`` one of ``receivers``."""
    if isinstance(value, ast.Subscript):
        value = value.value
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
        and value.func.attr == "get_last_lr" and dotted(value.func.value) in receivers


def _method_of_class_around(tree: ast.Module, around: ast.AST, name: str
                            ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    cls = class_at(tree, getattr(around, "lineno", 0))
    if cls is None or not any(item is around for item in cls.body):
        return None
    return next((item for item in cls.body
                 if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name), None)


def _returns_last_lr_when_set(method: ast.FunctionDef | ast.AsyncFunctionDef,
                              receivers: set[str]) -> bool:
    """The method's first statement (after a docstring) returns the scheduler's last LR, either
    unconditionally or under a test that holds whenever the scheduler is set (``if sched:``,
    ``if sched is not None:``)."""
    body = [s for s in method.body
            if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if not body:
        return False
    first = body[0]
    if isinstance(first, ast.Return):
        return first.value is not None and _reads_last_lr_of(first.value, receivers)
    if not isinstance(first, ast.If):
        return False
    test = first.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.IsNot) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None:
        test = test.left
    if dotted(test) not in receivers or not first.body:
        return False
    ret = first.body[0]
    return isinstance(ret, ast.Return) and ret.value is not None \
        and _reads_last_lr_of(ret.value, receivers)


def _replaced_after_write(root: list[Event], w: Event, driver: Obj) -> bool:
    """The write restarts the LR for a new schedule: right after it, on every path that runs
    the write, a new chainable scheduler is built on the same optimizer and bound to the name
    the driver was stepped through (``group["lr"] = base_lr; scheduler = MultiStepLR(optimizer,
    new_milestones)`` at the start of a second stage), and the driver takes no step in between.
    The old schedule never steps again, and the new one (StepLR, MultiStepLR, ExponentialLR,
    ...) starts from the LR it finds, the one written here: the two do not compete. A new
    scheduler that recomputes the LR from its base values is not taken here (its constructor
    overwrites the written value)."""
    optimizer = w.obj
    for c in root:
        s = c.obj
        if c.kind != "create" or s is None or s is driver or s.kind != "scheduler" \
                or s.optimizer is not optimizer or s.guessed or s.origin != "torch" \
                or s.cls not in CHAINABLE or not s.name or s.name != driver.name \
                or c.order < w.order or not w.within(c.frame) or exclusive(c, w):
            continue
        # built whenever the write runs: in the loop around the write (or in no loop), under
        # the branches the write is under, apart from those inside loops the build is not in
        # (an `if` in the `for group in optimizer.param_groups:` around the write)
        if c.loop is not None and not w.in_loop(c.loop):
            continue
        outer = set(c.loop.ancestors()) if c.loop is not None else set()
        write_branches = {(k.key, k.branch) for k in w.conds if k.loop is None or k.loop in outer}
        if write_branches != {(k.key, k.branch) for k in c.conds}:
            continue
        if any(e.kind == "sched_step" and e.obj is driver and w.order < e.order < c.order
               and not exclusive(e, w) for e in root):
            continue
        return True
    return False


def _in_range_test(ctx: FileContext, w: Event, root: list[Event], driver: Obj) -> bool:
    """The write sweeps the LR in a function that names an LR range test (``def find_lr(self,
    num_iters, init_value, final_value): ... lr *= mult; group["lr"] = lr``), and no step of
    the scheduler happens in that function or what it calls: the test is a short run of its
    own (beside the trainer's ``run_training``), not a schedule the scheduler competes with."""
    tree = ctx.tree_of(w.path)
    fn = function_around(tree, w.node) if tree is not None else None
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
            or not _RANGE_TEST.search(fn.name.lower()):
        return False
    start, end = fn.lineno, fn.end_lineno or fn.lineno
    return not any(
        e.kind == "sched_step" and e.obj is driver and (
            e.path == w.path and start <= e.line <= end
            or w.frame is not None and e.within(w.frame))
        for e in root)


def _rebuilt_over_the_write(root: list[Event], w: Event) -> Obj | None:
    """A scheduler that recomputes the LR from its base values (OneCycleLR, LambdaLR,
    CyclicLR, ...) built anew, on an optimizer that outlives it, each time the code that
    writes the LR runs: ``def train_epoch(optimizer): sched = OneCycleLR(optimizer, ...);
    <batches>; adjust_learning_rate(optimizer, epoch)`` with the optimizer built by the caller,
    or the scheduler built inside an epoch loop around the write. Its constructor takes a
    first step, which sets the LR from its base values, so a manual LR written after it, with
    no update of that optimizer left before the next build, is reset before it trains. A write
    followed by updates (a later stage that trains on it) or by a step of that scheduler (a
    hand-over, as a manual warm-up does) is left to the rest of the rule."""
    optimizer = w.obj
    if optimizer is None:
        return None
    built_opt = [e for e in root if e.kind == "create" and e.obj is optimizer]
    for c in root:
        s = c.obj
        if c.kind != "create" or s is None or s.kind != "scheduler" or s.optimizer is not optimizer \
                or s.guessed or s.origin not in ("torch", "hf") or recomputes_lr(s.cls) is not True \
                or c.order > w.order or not w.within(c.frame) \
                or exclusive(c, w) or built_apart(w.conds, s.built_under or ()):
            continue
        in_loop = c.loop is not None and not any(o.in_loop(c.loop) for o in built_opt)
        # built by a caller (or handed in by code lrdoctor does not see): it outlives the call
        passed_in = c.frame is not None and not any(o.within(c.frame) for o in built_opt)
        if not (in_loop or passed_in):
            continue
        later = [e for e in root if e.order > w.order and not exclusive(e, w) and (
            e.kind == "opt_step" and e.obj is optimizer
            or e.kind == "sched_step" and e.obj is s)]
        if any(e.within(c.frame) or c.loop is not None and e.in_loop(c.loop) for e in later):
            continue
        if _trained_next_pass(root, w, c, optimizer):
            continue
        return s
    return None


def _trained_next_pass(root: list[Event], w: Event, built: Event, optimizer: Obj) -> bool:
    """The write sits in a loop (the epoch loop) that also updates ``optimizer`` and that
    the scheduler's construction ``built`` is outside of: the loop's next pass trains on the
    value written, before any new scheduler is built (a later call of the whole training
    function, which builds its own, comes after the run the write served)."""
    if w.loop is None:
        return False
    return any(
        e.kind == "opt_step" and e.obj is optimizer and not exclusive(e, w)
        and any(e.in_loop(loop) and not built.in_loop(loop) for loop in w.loop.ancestors())
        for e in root)


def _after_warm_up_epochs(step: Event, w: Event) -> bool:
    """The scheduler steps only once the epoch counter is past W (``if epoch > W:`` /
    ``>= W``, in the epoch loop that also runs the write), and the write runs only while a
    running batch count is below ``len(loader) * W`` batches, that is in epochs 0 .. W-1:
    a warm-up handing over to the schedule, the write and the step in different functions
    (the bound passed down as an argument). A per-epoch batch index (a target of a loop
    inside that epoch loop) does not count batches across epochs."""
    if w.loop is None:
        return False
    write_loops = list(w.loop.ancestors())
    for c in step.conds:
        past = _compared(c, below=False)
        if past is None or c.loop is None:
            continue
        counter, epochs = past[0], past[1:]
        epoch_loop = next((lp for lp in c.loop.ancestors() if counter in lp.targets), None)
        if epoch_loop is None or epoch_loop not in write_loops:
            continue
        inner = write_loops[:write_loops.index(epoch_loop)]
        for wc in w.conds:
            below = _compared(wc, below=True)
            if below is None or any(below[0] in lp.targets for lp in inner):
                continue
            sized = {_batches_in(b) for b in below[1:]} - {None}
            if sized & {ast.dump(e) for e in epochs}:
                return True
    return False


def _result_apart(step: Event, w: Event) -> bool:
    """The write runs inside a helper that answers whether it wrote (``def warm_up(opt,
    epoch): if epoch < n: ...lr = ...; return True`` and ``return False`` otherwise), and the
    scheduler steps only when that same call answered no (``if not warm_up(opt, epoch):
    sched.step()``, or through a name bound to its result): the warm-up hands the LR over to
    the schedule, the two never run in one pass."""
    frame = w.frame
    if frame is None or frame.fn is None or frame.call is None \
            or not _writes_only_when_true(frame.fn, w.node):
        return False
    call = frame.call
    for c in step.conds:
        if c.test is None or c.branch not in (0, 1):
            continue
        holds, whole = c.branch == 0, c.test
        while isinstance(whole, ast.UnaryOp) and isinstance(whole.op, ast.Not):
            holds, whole = not holds, whole.operand
        if holds:
            continue  # the step runs where the answer is yes: no hand-over
        if whole is call or isinstance(whole, ast.Name) and any(o is call for o in c.origins):
            return True
    return False


def _truthy_return(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Constant) \
        and bool(stmt.value.value)


def _falsy_return(stmt: ast.Return) -> bool:
    return stmt.value is None or isinstance(stmt.value, ast.Constant) and not stmt.value.value


@per_node
def _writes_only_when_true(fn: ast.FunctionDef | ast.AsyncFunctionDef, node: ast.AST) -> bool:
    """Every path of ``fn`` that runs the statement holding ``node`` goes on to a ``return``
    of a true constant (written after it in a block around it, with no other return between),
    and every other ``return`` of ``fn`` gives a false constant or nothing."""
    parents = parent_map(fn)
    returns = [n for n in own_statements(fn) if isinstance(n, ast.Return)]
    if not returns:
        return False
    child: ast.AST = node
    answer: ast.Return | None = None
    while child is not fn:
        parent = parents.get(id(child))
        if parent is None:
            return False
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and parent is not fn:
            return False
        for field in ("body", "orelse", "finalbody"):
            block = getattr(parent, field, None)
            if isinstance(block, list) and child in block:
                later = block[block.index(child) + 1:]
                between = [r for stmt in later for r in ast.walk(stmt)
                           if isinstance(r, ast.Return)]
                if later and _truthy_return(later[-1]) \
                        and all(r is later[-1] for r in between):
                    answer = later[-1]  # type: ignore[assignment]
                break
        if answer is not None:
            break
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and child in parent.body \
                and any(isinstance(r, ast.Return) for stmt in parent.body for r in ast.walk(stmt)):
            return False
        child = parent
    if answer is None:
        return False
    return all(r is answer or _falsy_return(r) for r in returns)


def _counter_split(step: Event, w: Event) -> bool:
    """The write runs only while a loop's pass counter is below one bound (``if epoch < 5:``,
    ``if args.warm_up and epoch < 5:``) and the scheduler steps only once that same counter
    is past another (``if epoch >= 4 * args.warm_up:``), both inside that loop: the counter
    only grows, so the writes fill the first passes and the steps the last ones, a warm-up
    handing the LR over to the schedule. The two bounds need not be the same expression (one
    a literal, the other read from a setting); where both are numbers, the steps may start at
    most one pass before the writes end."""
    if w.loop is None or step.loop is None:
        return False
    below = {name: bound for c in w.conds if c.test is not None and c.branch in (0, 1)
             for name, bound in _bounds(c.test, c.branch == 0, below=True)}
    if not below:
        return False
    for c in step.conds:
        if c.test is None or c.branch not in (0, 1):
            continue
        for name, past in _bounds(c.test, c.branch == 0, below=False):
            if name not in below:
                continue
            loop = next((lp for lp in w.loop.ancestors()
                         if name in lp.targets | lp.counters and step.in_loop(lp)), None)
            if loop is None or _rebound_in(loop, _names(below[name]) | _names(past)):
                continue
            end, start = constants.resolve(below[name], None), constants.resolve(past, None)
            if _number(end) and _number(start) and start < end - 1:
                continue
            return True
    return False


def _names(expr: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}


def _rebound_in(loop: Loop, watched: set[str]) -> bool:
    """Some of ``watched`` is assigned in the body of ``loop`` (a bound moved on every pass:
    ``warmup = warmup - 1``), so a test on it does not split the passes once for all."""
    for stmt in loop.node.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                    and node.id in watched:
                return True
    return False


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bounds(test: ast.expr, truth: bool, below: bool, depth: int = 0) -> Iterator[tuple[str, ast.expr]]:
    """``(name, bound)`` for each comparison that ``test`` having the outcome ``truth`` says
    holds with a bare name on the small side (``below``: ``name < bound``, ``name <= bound``)
    or on the large side (``name > bound``, ``name >= bound``), through ``and`` / ``or`` /
    ``not`` as ``_holds_below`` reads them."""
    if depth > 8:
        return
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        yield from _bounds(test.operand, not truth, below, depth + 1)
        return
    if isinstance(test, ast.BoolOp):
        if isinstance(test.op, ast.And) == truth:
            for v in test.values:
                yield from _bounds(v, truth, below, depth + 1)
        return
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return
    op = test.ops[0]
    if isinstance(op, (ast.Lt, ast.LtE)):
        smaller, larger = test.left, test.comparators[0]
    elif isinstance(op, (ast.Gt, ast.GtE)):
        smaller, larger = test.comparators[0], test.left
    else:
        return
    if not truth:
        smaller, larger = larger, smaller
    name, bound = (smaller, larger) if below else (larger, smaller)
    if isinstance(name, ast.Name) and not any(
            isinstance(n, ast.Name) and n.id == name.id for n in ast.walk(bound)):
        yield name.id, bound


def _compared(c: Any, below: bool) -> tuple[str, ast.expr, ast.expr] | None:
    """``(name, bound, source)`` where the branch taken says ``name < bound`` (``below``) or
    ``name > bound`` (otherwise), ``<=`` / ``>=`` alike; ``source`` is what a bound name known
    only by its source (Cond.known) stands for, else the bound again."""
    if not isinstance(c.test, ast.Compare) or c.branch not in (0, 1):
        return None
    found = next(_bounds(c.test, c.branch == 0, below), None)
    if found is None:
        return None
    name, bound = found
    known = dict(c.known)
    source = known.get(bound.id, bound) if isinstance(bound, ast.Name) else bound
    return name, bound, source


def _batches_in(bound: ast.expr) -> str | None:
    """``len(loader) * W`` (either order): the dump of ``W``, a count of epochs in batches."""
    if not (isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Mult)):
        return None
    for per_epoch, epochs in ((bound.left, bound.right), (bound.right, bound.left)):
        if isinstance(per_epoch, ast.Call) and isinstance(per_epoch.func, ast.Name) \
                and per_epoch.func.id == "len" and len(per_epoch.args) == 1:
            return ast.dump(epochs)
    return None


def _warm_up_before_the_first_drop(w: Event, driver: Obj, steps: list[Event]) -> bool:
    """A warm-up written on the batches while a counter is below its bound (``if step <
    warmup:``), under a MultiStepLR or StepLR stepped only once per epoch whose first change
    comes after the first epoch (its milestones, or its step_size, stated as numbers of 2 or
    more): the chainable form leaves the LR it finds in place on every step before that, so
    the warm-up's value trains and the schedule's first drop starts from where it ends."""
    if driver.cls not in ("MultiStepLR", "StepLR") or not steps or w.loop is None \
            or w.loop.granularity != "batch" \
            or not (_in_window_around(w) or _first_pass_only(w)):
        return False
    if any(granularity(e)[0] != "epoch" for e in steps):
        return False
    expr = driver.arg("milestones" if driver.cls == "MultiStepLR" else "step_size", 1)
    if expr is None:
        return False
    if isinstance(expr, ast.Call) and dotted(expr.func) in ("list", "tuple", "sorted") \
            and len(expr.args) == 1:
        expr = expr.args[0]  # `list(range(20, 100, 5))`
    if isinstance(expr, ast.Call) and dotted(expr.func) == "range" and len(expr.args) >= 2:
        expr = expr.args[0]  # its first milestone
    value = constants.resolve(expr, driver.scope)
    if isinstance(value, (list, tuple, range)):
        firsts = [v for v in value if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return len(firsts) == len(value) > 0 and min(firsts) >= 2
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 2


def _first_pass_only(w: Event) -> bool:
    """The write sits, inside its batch loop, under a test that the counter of a loop around
    that batch loop equals the first value the loop gives it (``if epoch == 0:`` in ``for
    epoch in range(epochs):``, ``if epoch == start:`` in ``for epoch in range(start, n):``),
    a counter the loop body never rebinds: the warm-up runs on the first pass only, before
    that loop's first per-epoch step."""
    from lrdoctor.check.rules.overrun import range_call
    batch = w.loop
    while batch is not None and batch.granularity != "batch":
        batch = batch.parent
    if batch is None:
        return False
    for c in w.conds_inside(batch):
        test = c.test
        if c.branch != 0 or not isinstance(test, ast.Compare) or len(test.ops) != 1 \
                or not isinstance(test.ops[0], ast.Eq):
            continue
        sides = [test.left, test.comparators[0]]
        for outer in batch.ancestors():
            node = outer.node
            if outer is batch or not isinstance(node, (ast.For, ast.AsyncFor)) \
                    or not isinstance(node.target, ast.Name):
                continue
            call = range_call(outer)
            if call is None:
                continue
            name = node.target.id
            if not any(isinstance(x, ast.Name) and x.id == name for x in sides):
                continue
            other = next(x for x in sides if not (isinstance(x, ast.Name) and x.id == name))
            start = ast.dump(call.args[0]) if len(call.args) == 2 else ast.dump(ast.Constant(0))
            first = constants.resolve(call.args[0], outer.scope) if len(call.args) == 2 else 0
            said = constants.resolve(other, outer.scope)
            same = ast.dump(other) == start or (type(first) is int and said == first)
            rebound = any(isinstance(t, ast.Name) and t.id == name
                          and not isinstance(t.ctx, ast.Load)
                          for stmt in node.body for t in ast.walk(stmt))
            if same and not rebound:
                return True
    return False


def _in_window_around(w: Event) -> bool:
    """``_in_window`` over every test the write is under inside its batch loop, the loop over
    the param groups around the write included."""
    loop = w.loop
    while loop is not None and loop.granularity != "batch":
        loop = loop.parent
    return any(_holds_below(c.test, c.branch == 0) for c in w.conds_inside(loop)
               if c.test is not None and c.branch in (0, 1))


def _in_window(w: Event) -> bool:
    """The write runs only while something is below a bound (``if step < warmup_steps:``,
    also as one of the tests an ``and`` joins: ``if step <= 1000 and step % 50 == 0:``)."""
    return any(_holds_below(c.test, c.branch == 0) for c in w.conds_inside(w.loop)
               if c.test is not None and c.branch in (0, 1))


def _holds_below(test: ast.expr, truth: bool, depth: int = 0) -> bool:
    """Whether ``test`` having the outcome ``truth`` means a comparison says something is
    below a bound: ``a < b`` true, ``a > b`` false, either inside an ``and`` that holds, an
    ``or`` that fails, or a ``not``."""
    if depth > 8:
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _holds_below(test.operand, not truth, depth + 1)
    if isinstance(test, ast.BoolOp):
        # every operand of an `and` that holds holds; every operand of an `or` that fails fails
        if isinstance(test.op, ast.And) == truth:
            return any(_holds_below(v, truth, depth + 1) for v in test.values)
        return False
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return False
    op = type(test.ops[0])
    return op in (ast.Lt, ast.LtE) if truth else op in (ast.Gt, ast.GtE)


def _is_lr_read(node: ast.expr) -> bool:
    """``group['lr']`` / ``opt.param_groups[0]["lr"]`` read as a value."""
    return isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
        and node.slice.value == "lr"


def _clamps_current_lr(ctx: FileContext, w: Event) -> bool:
    """The write holds the LR in force inside a bound: ``max(group['lr'], floor)`` or
    ``min(ceiling, group['lr'])``, directly or through a name bound to it in the same function
    or script (``lr = max(opt.param_groups[0]['lr'], 1e-6)``). The group's own current LR,
    read bare, against values that do not read the LR: what trains is the schedule clamped to the bound,
    which is what such code asks for, and a chainable scheduler that starts its next step from
    the clamped value is clamped back. A decay inside the ``max`` (``max(g['lr'] * 0.5, c)``)
    changes the LR every time and is not a clamp; nor is a ``max`` of settings alone."""
    value = w.info.get("value")
    if value is None:
        return False
    tree = _module_tree(ctx, w.path)
    # the function around the write, or the module for a script's top-level code
    around = function_around(tree, w.node) if tree is not None else None
    if isinstance(value, ast.Name) and around is not None:
        value = last_binding(around, value.id, w.line)
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
            and value.func.id in ("max", "min") and len(value.args) >= 2
            and not value.keywords):
        return False

    def bare_read(arg: ast.expr) -> bool:
        if _is_lr_read(arg):
            return True
        if isinstance(arg, ast.Name) and around is not None:
            bound = last_binding(around, arg.id, w.line)
            return bound is not None and _is_lr_read(bound)
        return False

    reads = [a for a in value.args if bare_read(a)]
    others = [a for a in value.args if not bare_read(a)]
    return len(reads) == 1 and not any(
        _is_lr_read(n) for a in others for n in ast.walk(a) if isinstance(n, ast.expr)
    )


_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _written_only_past_its_bound(ctx: FileContext, w: Event) -> bool:
    """The clamp spelled as a test: ``if group['lr'] < floor: group['lr'] = floor`` (or a
    ceiling, ``if lr > cap: ... = cap``; an ``else:`` branch, the bound on the left, and either
    way of ordering read alike). The write runs only when the LR in force has passed the bound,
    and writes the bound itself: what trains is the schedule held at the bound, as with
    ``max(group['lr'], floor)``. The test reads the group's current LR bare (or a name bound to
    that read) against the very value written, which reads no LR; the ``if`` governs the write
    in its own loop, or around the loop over the optimizer's ``param_groups`` that holds it. A
    write of another value (`if lr < floor: group['lr'] = restart_lr`, a restart) is no
    clamp, nor is a floor at the LR the optimizer was built with (`if lr < args.lr: ... =
    args.lr`), which undoes every decay of the schedule."""
    value = w.info.get("value")
    if value is None or any(_is_lr_read(n) for n in ast.walk(value) if isinstance(n, ast.expr)):
        return False
    tree = _module_tree(ctx, w.path)
    # the function around the write, or the module for a script's top-level code
    around = function_around(tree, w.node) if tree is not None else None

    def resolved(node: ast.expr) -> ast.expr:
        if isinstance(node, ast.Name) and around is not None:
            bound = last_binding(around, node.id, w.line)
            if bound is not None:
                return bound
        return node

    def reads_lr(node: ast.expr) -> bool:
        return _is_lr_read(node) or _is_lr_read(resolved(node))

    written = {ast.unparse(value), ast.unparse(resolved(value))}
    built = w.obj.arg("lr", 1) if w.obj is not None else None
    if built is not None and ast.unparse(built) in written:
        return False  # a floor at the LR the optimizer starts from undoes every decay
    loops = {id(w.loop)}
    if w.loop is not None and w.loop.over_node is not None \
            and "param_groups" in ast.unparse(w.loop.over_node):
        loops.add(id(w.loop.parent))
    for cond in w.conds:
        test = cond.test
        if id(cond.loop) not in loops or cond.branch not in (0, 1) \
                or not isinstance(test, ast.Compare) or len(test.ops) != 1:
            continue
        left, right = test.left, test.comparators[0]
        if not isinstance(test.ops[0], _ORDERING):
            continue
        if reads_lr(right) and not reads_lr(left):
            left, right = right, left
        if not reads_lr(left) or reads_lr(right):
            continue
        if {ast.unparse(right), ast.unparse(resolved(right))} & written:
            return True
    return False


def _restates_initial_lr(w: Event) -> bool:
    """A write outside any loop of the very value the optimizer was built with
    (``Adam(params, lr=lr)`` ... ``if lr is not None: group["lr"] = lr`` after a resume): on a
    fresh run it changes nothing, after a resume it sets the LR the run goes on from. A
    different value (``args.lr * 0.1`` "for the first epoch") is kept for good by a chainable
    schedule, and stays reported."""
    value = w.info.get("value")
    optimizer = w.obj
    if w.loop is not None or value is None or optimizer is None:
        return False
    built = optimizer.arg("lr", 1)
    if built is None:
        return False
    written = ast.unparse(value)
    return written == ast.unparse(built) or any(
        isinstance(n, ast.Name) and n.id == written for n in ast.walk(built)
    ) and isinstance(value, ast.Name)
