"""When and how often schedulers step: LRD001-006, LRD012, LRD014, LRD015, LRD017."""

from __future__ import annotations

import ast
import copy
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

from lrdoctor.check import constants, names
from lrdoctor.check.constants import read_root
from lrdoctor.check.context import (
    FileContext,
    class_at,
    definitions_in,
    function_around,
    function_at,
    granularity,
    last_binding,
    receiver,
    step_call,
)
from lrdoctor.check.diagnostic import Diagnostic
from lrdoctor.check.horizon import (
    HF_STEPS_INDEX,
    LITERAL_JUDGED,
    Horizon,
    advances_torch_count,
    class_horizons,
    horizon_of,
    label,
    literal_value,
    lr_factor,
    project_constant,
    project_horizons,
    project_recomputes,
    reads_no_position,
    short_source,
    stated_setting,
    unit_evidence,
)
from lrdoctor.check.horizon import (
    SMALL_LITERAL as EPOCH_SIZED_LITERAL,
)
from lrdoctor.check.index import ModuleInfo, dotted, main_guard, origin, parameters_of
from lrdoctor.check.memo import nodes_in, own_nodes
from lrdoctor.check.meters import backpropagates, holds_backpropagated_loss, recorded_name
from lrdoctor.check.model import (
    Cond,
    Event,
    Frame,
    Loop,
    calling_scope,
    exclusive,
    facts_contradict,
    setting_tests,
    settings_disagree,
)
from lrdoctor.check.passed import Passed, passed_chain
from lrdoctor.check.passed import function_holds as holds_line
from lrdoctor.check.pins import pinned_before
from lrdoctor.check.position import built_at_a_position, replays_to_resume
from lrdoctor.check.project import display_path, lightning_accumulation, line_at
from lrdoctor.check.rules import rule
from lrdoctor.check.rules.first_pass import (
    COMPARE,
    Symbol,
    block_of,
    derived_values,
    entry_values,
    first_value,
    first_values,
    holds_first,
    taken_by_build,
)
from lrdoctor.check.rules.overrun import (
    plus_literal,
    range_call,
    range_count,
    while_bounds,
    while_count,
)
from lrdoctor.check.rules.scalers import (
    ALWAYS,
    built_with_the_gpu,
    never_skips,
    scaler_switch,
    when,
)
from lrdoctor.check.unset import launched_above
from lrdoctor.check.values import (
    EVERY_FEW_STEPS,
    Const,
    DictVal,
    ExprVal,
    FuncVal,
    InstanceVal,
    Obj,
    RunnerVal,
    TupleVal,
    UnionVal,
    lightning_interval,
)
from lrdoctor.schedulers import HF_WARMUP_BUILDERS, SCHEDULERS, recomputes_lr

# a literal horizon up to this many steps, stepped per batch inside an epoch loop, is epochs
SMALL_LITERAL = 200
# a CosineAnnealingWarmRestarts whose literal first period is at most this many steps restarts
# every few batches when stepped per batch: a period meant in epochs (SGDR's own T_0 are 1-10
# epochs, Kaggle configs 1-50)
RESTART_LITERAL = 50
_SCALE_GUARD_WORDS = ("scale", "skip", "finite", "overflow", "nan", "inf", "found_inf")
_IDENTIFIER = re.compile(r"[a-z_][a-z0-9_]*")
# the words of a test that asks about the update itself, whatever else it reads
_SKIP_WORDS = ("scale", "skip", "overflow", "found_inf")


def _reads_the_scale(test: str) -> bool:
    """Whether a test asks if the update was skipped (`scale_before <= scaler.get_scale()`,
    `found_inf`, `skip_lr_sched`); asking only whether there is a scaler (`scaler is not None`,
    `if self.scaler:`) is not such a test."""
    tokens = [token for token in _IDENTIFIER.findall(test.lower()) if "scaler" not in token]
    if any("loss" in token for token in tokens) and not any(
        w in token for token in tokens for w in _SKIP_WORDS
    ):
        # `if not np.isfinite(loss.item()): raise ...` asks whether the forward pass gave a
        # NaN, not whether the update was skipped: scaled gradients overflow (and GradScaler
        # skips the step) while the loss is finite
        return False
    return any(w in token for token in tokens for w in _SCALE_GUARD_WORDS)


_ACCUM_WORDS = ("accum", "sync_gradients", "update_freq", "grad_acc", "accumulate", "%")


def _sched_steps(ctx: FileContext) -> Iterator[Event]:
    for e in ctx.program.events:
        if e.kind == "sched_step" and e.obj is not None and e.obj.origin != "timm":
            yield e


def _narrowed_to_plateau(e: Event) -> bool:
    """The step runs under ``isinstance(<the same receiver>, ReduceLROnPlateau)`` (or in the
    ``else`` of ``not isinstance``): a scheduler whose class lrdoctor cannot see (a class the
    user passes in, a registry's) is a ReduceLROnPlateau there."""
    node = e.node
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    target = dotted(node.func.value)
    if target is None:
        return False
    for cond in e.conds:
        test, negate = cond.test, False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, not negate
        if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
                and test.func.id == "isinstance" and len(test.args) == 2
                and dotted(test.args[0]) == target) or cond.branch not in (0, 1):
            continue
        classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        if any((dotted(c) or "").rsplit(".", 1)[-1] == "ReduceLROnPlateau" for c in classes) \
                and (cond.branch == 0) != negate:
            return True
    return False


def _plain_step(e: Event) -> bool:
    if not e.info.get("nargs") and not e.info.get("kwargs"):
        return True
    # `step(None)`, `step(epoch=None)`: torch's step with no epoch given, as `step()` is
    # (the hand-over of a warm-up wrapper's `self.after_scheduler.step(None)`)
    node = e.node
    if not isinstance(node, ast.Call) or len(node.args) + len(node.keywords) != 1:
        return False
    given = node.args[0] if node.args else node.keywords[0].value
    keyword_ok = not node.keywords or node.keywords[0].arg == "epoch"
    return keyword_ok and isinstance(given, ast.Constant) and given.value is None


def _scheduler_bookkeeping(ctx: FileContext, c: Cond) -> bool:
    """The test ``c`` sits in the ``step`` method of the project's own subclass of torch's
    scheduler base and reads only that scheduler's attributes and the method's parameters
    (``if self.finished and self.after_scheduler:`` of a copied GradualWarmupScheduler): the
    scheduler's own state machine, which every call of its step() goes through, not a choice
    the training loop makes about when to step."""
    if c.test is None or c.key[0] == "<choice>":
        return False
    tree = ctx.tree_of(c.key[0])
    if tree is None:
        return False
    fn = function_at(tree, c.key[1])
    if not isinstance(fn, ast.FunctionDef) or fn.name != "step":
        return False
    owner = next((node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                  and fn in node.body), None)
    if owner is None or not any((dotted(b) or "").rsplit(".", 1)[-1] in ("_LRScheduler",
                                                                          "LRScheduler")
                                for b in owner.bases):
        return False
    # what the class's state may be tested on: a flag its methods other than __init__ set as
    # the schedule runs (`self.finished = True`), or an object it holds and steps (`self.
    # after_scheduler.step(...)`, tested for being there); a setting copied in __init__
    # (`self.mode = mode`) is a choice, not state
    state: set[str] = set()
    held: set[str] = set()
    for method in owner.body:
        if not isinstance(method, ast.FunctionDef):
            continue
        for node in ast.walk(method):
            if method.name != "__init__" and isinstance(node, ast.Attribute) \
                    and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) \
                    and node.value.id == "self":
                state.add(node.attr)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                    and isinstance(node.func.value, ast.Attribute) \
                    and isinstance(node.func.value.value, ast.Name) \
                    and node.func.value.value.id == "self":
                held.add(node.func.value.attr)
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
    parts = c.test.values if isinstance(c.test, ast.BoolOp) else [c.test]
    for part in parts:
        inner = part.operand if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not) \
            else part
        if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) \
                and inner.value.id == "self" and (inner.attr in state or inner.attr in held):
            continue
        if isinstance(inner, ast.Compare) and len(inner.ops) == 1 \
                and isinstance(inner.ops[0], (ast.Is, ast.IsNot)) \
                and isinstance(inner.comparators[0], ast.Constant) \
                and inner.comparators[0].value is None and isinstance(inner.left, ast.Name) \
                and inner.left.id in params:
            continue  # `epoch is None`: how the caller called it
        return False
    return True


def _loop_where(loop: Loop, here: str) -> str:
    """The loop and its line; seen from the reported file ``here``, a loop of another file
    (the step in a helper, the loop in its caller) carries its path."""
    at = line_at(loop.path, loop.line, here)
    if loop.granularity == "batch":
        return f"the batch loop over `{loop.over}` ({at})"
    if loop.granularity == "epoch":
        return f"the epoch loop ({at})"
    return f"the loop over `{loop.over}` ({at})"


# -- LRD001 ------------------------------------------------------------------------------------


@rule("LRD001")
def scheduler_before_optimizer(ctx: FileContext) -> Iterator[Diagnostic]:
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        if sched.cls == "ReduceLROnPlateau" or project_constant(sched):
            continue  # a constant schedule's first value is every value: nothing is skipped
        if e.loop is None:
            found = _step_before_training(ctx, e)
            if found is not None:
                yield found
            continue
        loop = e.loop
        if _built_each_pass(ctx, e, sched, loop) and reads_no_position(sched):
            continue  # a new scheduler every pass, set by what its constructor is handed
        ahead = None if _plain_step(e) else _explicit_position_ahead(ctx, e, loop)
        if not _plain_step(e) and ahead is None:
            continue
        # an update in a branch the step never shares a pass with (the step in an `if` that
        # returns early, the update after it) is not the one the step runs before
        updates = [u for u in ctx.updates_in(loop, e.root, sched.optimizer)
                   if not exclusive(e, u)]
        if not updates or _unmodelled_update_before(ctx, e, updates):
            continue
        if _steps_without_gradients(ctx, e, loop):
            continue  # a plot of the schedule that calls optimizer.step() on no gradient
        first = min(updates, key=lambda u: u.order)
        if e.order < first.order and not _skips_first_pass(ctx, e, first, loop) \
                and not _other_order_offered(ctx, e, first, loop):
            what = "optimizer.step()" if first.kind == "opt_step" else "scaler.step(optimizer)"
            if first.info.get("lightning"):
                what = "the optimizer step Lightning takes after training_step"
            called = f"{receiver(e)}.step()" if ahead is None or not isinstance(e.node, ast.AST) \
                else ast.unparse(e.node)
            told = "" if ahead is None else (
                f" and is told position {ahead} on the first pass, so position 0 is never "
                "trained with")
            # the scheduler's own optimizer, stepped right after it by a call lrdoctor could
            # not model, is the update it runs before (not another optimizer's, later)
            own = _own_unmodelled_update(ctx, e, updates)
            line, path = (own.lineno, e.path) if own is not None else (first.line, first.path)
            place = _cited_line(e, path, line).removeprefix(", ")
            if own is not None:
                what = f"`{ast.unparse(own)}`"
                place += ", the update of its own optimizer"
            yield Diagnostic.at(
                "LRD001",
                f"`{called}` runs before {what} ({place}) in each "
                f"iteration of {_loop_where(loop, e.path)}{told}: the schedule advances "
                "before any update used its first LR value",
                e.path,
                e.node,
                evidence={"update_line": line, "update_path": path},
            )


def _unmodelled_update_before(ctx: FileContext, e: Event, updates: list[Event]) -> bool:
    """The scheduler's optimizer is not known (a project class wrapping a library's sharded
    optimizer: ``self.optimizer = ShardedAdam(model, params)``), and the block that steps it
    calls ``.step()`` on something named as an optimizer just before, a call lrdoctor could not
    model as an update (``self.optimizer.step(); self.lr_scheduler.step()``): the update that
    scheduler follows is that one, not a later update of another optimizer in the same pass."""
    return bool(_unmodelled_updates(ctx, e, updates)[0])


def _unmodelled_updates(ctx: FileContext, e: Event,
                        updates: list[Event]) -> tuple[list[ast.Call], list[ast.Call]]:
    """For a scheduler whose optimizer is not known, the ``.step()`` calls with no argument on
    something named as an optimizer that the trace did not model as updates, in the block
    that steps the scheduler: (those before the step, those after it)."""
    sched = e.obj
    before: list[ast.Call] = []
    after: list[ast.Call] = []
    if sched is None or sched.optimizer is not None or not isinstance(e.node, ast.Call):
        return before, after
    tree = ctx.tree_of(e.path)
    around = function_around(tree, e.node) if tree is not None else None
    if around is None:
        return before, after
    modelled = {id(u.node) for u in updates}
    for node in ast.walk(around):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            index = next((i for i, stmt in enumerate(block)
                          if isinstance(stmt, ast.Expr) and stmt.value is e.node), None)
            if index is None:
                continue
            for i, stmt in enumerate(block):
                call = stmt.value if isinstance(stmt, ast.Expr) else None
                if i != index and isinstance(call, ast.Call) \
                        and isinstance(call.func, ast.Attribute) \
                        and call.func.attr == "step" and not call.args and not call.keywords \
                        and id(call) not in modelled \
                        and names.guess_kind_from_name(dotted(call.func.value) or "") \
                        == "optimizer":
                    (before if i < index else after).append(call)
    return before, after


def _own_unmodelled_update(ctx: FileContext, e: Event, updates: list[Event]) -> ast.Call | None:
    """The update after ``e``, in the block that steps the scheduler, of the optimizer the
    scheduler was built on, when lrdoctor could not model it (see _unmodelled_updates): the
    call of ``.step()`` on the expression handed to the scheduler's constructor
    (``OneCycleLR(self.optimizer, ...)``, then ``self.optimizer.step()``), both in one class
    of the reported file (or both outside any class)."""
    sched = e.obj
    if sched is None or sched.call is None or sched.path != e.path:
        return None
    given = sched.arg("optimizer", 0)
    tree = ctx.tree_of(e.path)
    if given is None or tree is None:
        return None
    text = ast.unparse(given)

    built_in = class_at(tree, sched.call.lineno)
    return next((call for call in _unmodelled_updates(ctx, e, updates)[1]
                 if isinstance(call.func, ast.Attribute) and ast.unparse(call.func.value) == text
                 and class_at(tree, call.lineno) is built_in), None)


# the words of a test under which a step before training repositions a resumed schedule
_RESUME_WORDS = re.compile(r"resum|ckpt|checkpoint|restor|load|start_epoch|start_iter|"
                           r"last_epoch|pretrain|continue", re.I)


def _phase_start(cond: Cond, loop: Loop) -> int | None:
    """How many first passes of ``loop`` the branch ``cond`` takes never runs in: ``if epoch >=
    start:`` (or ``> start``, ``start <= epoch``, the ``else`` of ``epoch < start``, one part of
    an ``and``) with ``epoch`` the loop's own ``for epoch in range(...)`` counter (not rebound
    in its body), its first value and ``start`` numbers the file states (a literal, a constant,
    a setting's stated default). None when the test says anything else, or holds from the
    first pass."""
    target = loop.node.target if isinstance(loop.node, (ast.For, ast.AsyncFor)) else None
    call = range_call(loop)
    if not isinstance(target, ast.Name) or call is None or not 1 <= len(call.args) <= 2 \
            or cond.test is None:
        return None
    first = constants.resolve(call.args[0], loop.scope) if len(call.args) == 2 else 0
    if type(first) is not int:
        return None
    for node in ast.walk(loop.node):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) \
                and any(isinstance(t, ast.Name) and t.id == target.id
                        for t in ast.walk(node) if isinstance(t, ast.Name)
                        and isinstance(getattr(t, "ctx", None), ast.Store)):
            return None
    test = cond.test
    if cond.branch == 0:
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
            else [test]
        wanted: tuple[type, ...] = (ast.GtE, ast.Gt)
    elif cond.branch == 1 and not isinstance(test, ast.BoolOp):
        parts, wanted = [test], (ast.Lt, ast.LtE)  # the else of `epoch < start`
    else:
        return None
    for part in parts:
        if not (isinstance(part, ast.Compare) and len(part.ops) == 1):
            continue
        op, left, right = part.ops[0], part.left, part.comparators[0]
        flipped = {ast.LtE: ast.GtE, ast.Lt: ast.Gt, ast.GtE: ast.LtE, ast.Gt: ast.Lt}
        if isinstance(right, ast.Name) and right.id == target.id \
                and not (isinstance(left, ast.Name) and left.id == target.id):
            op, left, right = flipped.get(type(op), type(op))(), right, left
        if not (isinstance(left, ast.Name) and left.id == target.id) \
                or not isinstance(op, wanted):
            continue
        start = constants.resolve(right, loop.scope)
        if type(start) is not int:
            continue
        # passes where `epoch >= start` (or the else of `epoch < start`) fails
        skipped = start - first if isinstance(op, (ast.GtE, ast.Lt)) else start - first + 1
        if skipped > 0:
            return skipped
    return None


@rule("LRD001")
def scheduler_stepped_before_a_late_update(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler stepped on every pass of a counted loop while every step of its optimizer in
    that loop waits for a phase to begin (``if epoch >= disc_start:`` around the
    discriminator's update in a GAN whose adversarial training starts late): on the passes
    before it, the scheduler steps and the optimizer does not, so the schedule starts before
    the first update. PyTorch warns "Detected call of `lr_scheduler.step()` before
    `optimizer.step()`", and every step taken meanwhile is spent on no update: a warm-up is
    over, a decay under way, before the optimizer trains at all. Judged only where the phase
    is the loop's own counter against a number the file states that makes it false on the
    first pass, the step runs under no test of its own in that loop, and the scheduler is built
    before the loop."""
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        if sched.cls == "ReduceLROnPlateau" or project_constant(sched) or not _plain_step(e) \
                or e.loop is None or sched.optimizer is None:
            continue
        loop: Loop | None = e.loop
        while loop is not None:
            updates = [u for u in ctx.updates_in(loop, e.root, sched.optimizer)
                       if u.kind in ("opt_step", "scaler_step") and not exclusive(e, u)]
            if updates and not e.conds_inside(loop) and not any(
                    x.kind == "create" and x.obj is sched and x.in_loop(loop)
                    for x in ctx.events_by_root.get(e.root, [])):
                gates = []
                for u in updates:
                    found = [(c, n) for c in u.conds_inside(loop) if c.loop is not None
                             for n in [_phase_start(c, loop)] if n is not None]
                    if not found:
                        break
                    gates.append((u, *found[0]))
                else:
                    if e.order < min(g[0].order for g in gates):
                        break  # stepped before the update in each pass: the rule above
                    u, cond, skipped = min(gates, key=lambda g: g[2])
                    unit = "pass" if skipped == 1 else "passes"
                    yield Diagnostic.at(
                        "LRD001",
                        f"`{receiver(e)}.step()` runs on every pass of the loop over "
                        f"`{loop.over}` ({line_at(loop.path, loop.line, e.path)}), but its "
                        f"optimizer steps only once `{_holds(cond)}` holds "
                        f"({line_at(u.path, u.line, e.path)}), false for the first {skipped} "
                        f"{unit}: the schedule advances before the first update (PyTorch warns "
                        "that lr_scheduler.step() came before optimizer.step()), and what it "
                        "runs through meanwhile (a warm-up, the top of a decay) is spent on no "
                        "update; step the scheduler under the same test as its optimizer",
                        e.path,
                        e.node,
                    )
                    break
            loop = loop.parent


def _step_before_training(ctx: FileContext, e: Event) -> Diagnostic | None:
    """``scheduler.step()`` run once, outside any loop, before the loop that makes the
    optimizer's first update (``scheduler.step()`` right before ``for epoch in ...``): the
    schedule advances before any update used its first value, the same shift as a step at the
    top of the epoch loop (every milestone comes one step early). A step that repositions a
    resumed schedule (under a resume test, after ``load_state_dict`` or ``last_epoch =``, on a
    scheduler built with ``last_epoch=``), one after an update, one a scheduler class takes
    on itself, and a second step of the same scheduler are not this shape."""
    sched = e.obj
    node = e.node
    if sched is None or not _plain_step(e) or not isinstance(node, ast.Call) \
            or not isinstance(node.func, ast.Attribute) or dotted(node.func.value) == "self":
        return None
    if any(c.key[0] != "<choice>" and _RESUME_WORDS.search(c.text) for c in e.conds):
        return None
    if _on_a_branch_never_taken(ctx, e):
        return None
    fn = e.frame.fn if e.frame is not None else None
    if fn is not None and fn.name.startswith("step") \
            and (dotted(node.func.value) or "").startswith("self."):
        # a wrapper's own step() stepping the scheduler it holds (a warm-up class handing
        # over to `self.after_scheduler` once its own state says so): that runs as part of
        # the wrapper's step, whose place in the program is the question, not this line
        return None
    if built_at_a_position(sched):
        return None  # built where a resumed run left off (`last_epoch=start_epoch - 1`)
    # what ran before it whenever it runs (a load under `if args.resume:` does not: a fresh run
    # still steps the schedule before its first update)
    here = {(c.key, c.branch) for c in e.conds}
    if any(x.obj is sched and x.order < e.order
           and x.kind in ("sched_step", "load_state", "set_last_epoch")
           and all((c.key, c.branch) in here for c in x.conds if c.key[0] != "<choice>")
           for x in ctx.events_by_root.get(e.root, [])):
        return None
    updates = [u for u in ctx.updates_in(None, e.root, sched.optimizer) if not exclusive(e, u)
               and not _other_calls_guess(e, sched, u)]
    if any(u.order < e.order for u in updates):
        return None
    later = [u for u in updates if u.order > e.order and u.loop is not None]
    if not later:
        return None
    first = min(later, key=lambda u: u.order)
    what = "optimizer.step()" if first.kind == "opt_step" else "scaler.step(optimizer)"
    assert first.loop is not None
    return Diagnostic.at(
        "LRD001",
        f"`{receiver(e)}.step()` runs once before the training loop, before any {what} "
        f"(first at {line_at(first.path, first.line, e.path)}, in "
        f"{_loop_where(first.loop, e.path)}): the schedule advances "
        "before any update used its first LR value, so every later value comes one step "
        "early; remove it, or step only after the updates",
        e.path,
        node,
        evidence={"update_line": first.line, "update_path": first.path, "before_loop": True},
    )


def _on_a_branch_never_taken(ctx: FileContext, e: Event) -> bool:
    """``e`` runs only on a branch of a test no command line can turn: the ``else`` of ``if
    opt.warmup:`` where the parser says ``add_argument("--warmup", action="store_true",
    default=True)`` (the flag can only set what is already set), in the module that tests it
    or a project module it imports. Code there never runs. Each test is read in the module
    it is written in (the step may sit in a helper module the driver's test calls into)."""
    if not e.conds:
        return False
    # the modules this file's check read (not every module the process loaded before it:
    # another project's `options.py` states other defaults)
    loaded = dict(ctx.loader.read_modules()) if ctx.loader is not None else {}
    parsers_of: dict[str, tuple[Any, list[Any]]] = {}
    for c in e.conds:
        if c.test is None or c.key[0] == "<choice>" or c.decided:
            continue
        if c.key[0] not in parsers_of:
            module = ctx.module_of(c.key[0])
            parsers_of[c.key[0]] = (module, [] if module is None
                                    else _parsers_beside(module, loaded))
        module, parsers = parsers_of[c.key[0]]
        if module is None:
            continue
        value = constants.fixed_flag(c.test, module, parsers)
        if value is not None and value != (c.branch == 0):
            return True
    return False


def _parsers_beside(module: Any, loaded: dict[str, Any]) -> list[Any]:
    """``module`` and the project modules it imports among ``loaded`` (where an argument
    parser it reads may be built)."""
    parsers = [module]
    wanted = set()
    for qual in module.imports.values():
        parts = qual.lstrip(".").split(".")
        for n in (len(parts), len(parts) - 1):
            if n > 0:
                wanted.add("/".join(parts[:n]))
    for path, other in loaded.items():
        stem = os.path.splitext(os.path.abspath(path))[0].replace(os.sep, "/")
        if other is not None and other is not module and any(
                stem.endswith("/" + w) or stem.endswith("/" + w + "/__init__") for w in wanted):
            parsers.append(other)
    return parsers


def _other_calls_guess(e: Event, sched: Obj, u: Event) -> bool:
    """``u`` updates an optimizer known only by its name (``opt = make_optimizer(model)``, a
    builder lrdoctor could not follow) in another call than the one that steps ``sched``, the
    two calls side by side (two test methods of one class, neither called from the other),
    while ``sched`` and the optimizer it drives were built in the stepping call as its own
    local names that never leave it (not returned, yielded, stored in an attribute or a
    container, or handed to any call but the one that built the scheduler). A function's
    locals die with its call: the other call's optimizer is another object, whatever its
    name."""
    opt = u.obj if u.kind == "opt_step" else u.info.get("optimizer")
    own = sched.optimizer
    if opt is None or not opt.guessed or opt.cls or own is None or own is opt or own.guessed:
        return False
    if e.frame is None or u.frame is None or e.within(u.frame) or u.within(e.frame):
        return False
    fn = e.frame.fn
    if fn is None or sched.held or own.held:
        return False
    names_ = {sched.name, own.name}
    if not all(n.isidentifier() for n in names_):
        return False  # `self.optimizer`, `opts[0]`: reachable from outside the call
    params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs,
                              fn.args.vararg, fn.args.kwarg] if a is not None}
    if names_ & params:
        return False
    bound: set[str] = set()
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(fn):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
        if isinstance(node, (ast.Global, ast.Nonlocal)) and names_ & set(node.names):
            return False
    for node in ast.walk(fn):
        if not isinstance(node, ast.Name) or node.id not in names_:
            continue
        up = parents.get(node)
        if isinstance(node.ctx, ast.Store):
            if not (isinstance(up, ast.Assign) and node in up.targets):
                return False  # unpacked, a loop target, a `with ... as`: not one plain binding
            bound.add(node.id)
            continue
        if isinstance(up, ast.Attribute) and up.value is node:
            continue  # `sched.step()`, `opt.param_groups`: read, not handed on
        if isinstance(up, ast.Call) and node in up.args and node.id == own.name:
            outer = parents.get(up)
            if isinstance(outer, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == sched.name for t in outer.targets):
                continue  # `sched = build_scheduler(opt, ...)`: the scheduler's own builder
        return False
    return bound == names_


# what Lightning counts from pass to pass of the loops it runs a module's hooks in (and
# `trainer.is_last_batch`, false on every batch of an epoch but its last)
_LIGHTNING_COUNTERS = frozenset({"global_step", "current_epoch", "is_last_batch"})


def _skips_first_pass(ctx: FileContext, e: Event, update: Event, loop: Loop) -> bool:
    """True when a guard of the scheduler step may be false on the loop's first pass (``if
    epoch > 0``, ``if epoch > start_epoch``, or a threshold the file does not state). A guard
    the update shares (``if (i + 1) % accum == 0:`` around both) cancels out; one that holds
    on the first pass (``if phase == "train"`` in ``for phase in ["train", "val"]``) skips
    nothing."""
    shared = {(c.key, c.branch) for c in update.conds} | {
        (c.text, c.branch) for c in update.conds if c.text
    }
    loops = list(loop.ancestors())
    # what changes from pass to pass: the loop variables, and the names the loops rebind
    # (`iteration = epoch * len(loader) + i`, `global_step += 1`)
    loop_vars = {v for lp in loops for v in lp.targets} | _rebound_in(loop)
    env = first_values(loops)
    if any(isinstance(lp.node, (ast.FunctionDef, ast.AsyncFunctionDef)) for lp in loops):
        # Lightning's loops, stood at a hook of the module: the counters Lightning advances
        # between passes (`self.global_step`, `self.trainer.current_epoch`) are theirs, and
        # `training_step(self, batch, batch_idx)` is told each batch's index, from 0
        loop_vars |= _LIGHTNING_COUNTERS
        for lp in loops:
            fn = lp.node
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and fn.name == "training_step" and len(fn.args.args) >= 3 \
                    and fn.args.args[0].arg == "self":
                index = fn.args.args[2].arg
                loop_vars.add(index)
                env.setdefault(index, 0)
    module = ctx.module if e.path == ctx.path else None
    counters = _called_function_varies(ctx, e, loop, env)
    # `it = epoch * len(loader) + i`: its first value, where the loop variables tell it
    loop_vars |= derived_values(loops, env, module)
    # `first_task = True` right before the loop: its value on the first pass
    entry_values(loops, ctx.tree_of(e.path), env, loop_vars - {v for lp in loops for v in lp.targets})
    _handed_numbers(e.conds_inside(loop), loop, loop_vars, env)
    built = (e.obj.built_under or ()) if e.obj is not None else ()

    def varies(test: ast.expr) -> bool:
        """The test reads what changes from pass to pass (a loop variable, a counter)."""
        return bool(set(names.words(ast.unparse(test))) & loop_vars) or bool(counters) and any(
            isinstance(n, ast.Attribute) and dotted(n) in counters
            or isinstance(n, ast.Name) and n.id in counters for n in ast.walk(test))

    for c in e.conds_inside(loop):
        if (c.key, c.branch) in shared or (c.text, c.branch) in shared:
            continue
        if c.test is None or not varies(c.test):
            continue  # a setting (`if args.scheduler == "step"`): the same on every pass
        if holds_first(c, env, module, built, varying=True) is not True and not (
                _plain_step(e)
                and _taken_first_where_settings_allow(c, varies, env, module, built)):
            return True
    return False


def _handed_numbers(conds: list[Cond], loop: Loop, loop_vars: set[str],
                   env: dict[str, Any]) -> None:
    """Puts in ``env`` the number a name of the guards holds where the trace knows it as one
    (``train(..., warm=WARM)`` with ``WARM = 5``: the parameter ``warm`` of the function whose
    loop steps the scheduler holds 5), as a literal bound in the file is read: ``epoch <
    warm`` then holds on the first pass. Names that change from pass to pass are not
    numbers of the run, and a name ``env`` already knows keeps its value."""
    if loop.scope is None:
        return
    for cond in conds:
        for node in ast.walk(cond.test) if cond.test is not None else ():
            if not isinstance(node, ast.Name) or node.id in env or node.id in loop_vars:
                continue
            value = loop.scope.lookup(node.id)
            if isinstance(value, Const) and type(value.value) is int:
                env[node.id] = value.value


def _taken_first_where_settings_allow(cond: Cond, varies: Callable[[ast.expr], bool],
                                      env: dict[str, Any], module: ModuleInfo | None,
                                      built: tuple[Cond, ...]) -> bool:
    """The body of ``if <setting> and <test of the pass>:`` runs on the first pass wherever it
    runs at all: ``if warmup is not None and epoch < n_warmup: warmup.step()`` at the top of
    the batch loop. A part that reads nothing that changes from pass to pass (a setting, a
    test that the scheduler exists) is the same on every pass, as a whole test of a setting
    is (which the caller passes over); the parts that do change must hold on the first pass.
    A setting part known to be false keeps the body from ever running, and one that asks
    whether the run resumes (``args.start_epoch > 0``, ``if ckpt and ...``) holds only where the
    first pass is not the first of the training; the ``else`` of such a test, and an ``or``,
    are left as they were read."""
    test = cond.test
    if cond.branch != 0 or not isinstance(test, ast.BoolOp) or not isinstance(test.op, ast.And):
        return False
    changing = [part for part in test.values if varies(part)]
    settings = [part for part in test.values if not varies(part)]
    if not changing or not settings \
            or any(_RESUME_WORDS.search(ast.unparse(part)) for part in settings):
        return False
    if any(holds_first(replace(cond, test=part), env, module, built) is False
           for part in settings):
        return False  # `if use_warmup and epoch < 5:` with `use_warmup = False`: never runs
    return all(holds_first(replace(cond, test=part), env, module, built, varying=True) is True
               for part in changing)


def _called_function_varies(ctx: FileContext, e: Event, loop: Loop,
                            env: dict[str, Any]) -> set[str]:
    """The step sits in a method or function that ``loop`` calls on each pass (a trainer's
    ``train_epoch``), not in the function that holds the loop. A parameter that a call in the
    loop's body fills from a loop variable (``trainer.train_epoch(loader, ep)``) is that
    variable there, with its first value in ``env`` where known. A
    counter of the instance that the method only advances (``self.epoch += 1``) and that the
    class's ``__init__`` starts at a literal (``self.epoch = 0``) changes from pass to pass
    from that value: its text goes to ``env`` with the literal. Returns the parameters' names
    and the counters' texts (a test that reads one varies with the loop; the parameter only
    as a name, `self.epoch` is not the parameter `epoch`). A counter read through a local copy, or one
    whose start is not written, is not followed: the test then reads as it always did."""
    tree = ctx.tree_of(e.path)
    if tree is None or not isinstance(e.node, ast.AST):
        return set()
    fn = function_around(tree, e.node)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set()
    node = loop.node
    if loop.path == e.path and fn.lineno <= getattr(node, "lineno", 0) <= (fn.end_lineno or 0):
        return set()  # the loop is the function's own: what it rebinds, the loop's body shows
    counters: set[str] = set()
    module = ctx.module if e.path == ctx.path else None
    owner = class_at(tree, fn.lineno)
    init = next((s for s in owner.body if isinstance(s, ast.FunctionDef)
                 and s.name == "__init__"), None) if owner is not None else None
    if init is not None:
        advanced: dict[str, int] = {}  # `self.epoch` -> how many statements advance it
        rebound: set[str] = set()
        for target in _assigned_in(fn):
            text = dotted(target) if isinstance(target, ast.Attribute) else None
            if text is not None and text.startswith("self.") and text.count(".") == 1:
                rebound.add(text)
        for sub in ast.walk(fn):
            if isinstance(sub, ast.AugAssign) and isinstance(sub.op, ast.Add):
                text = dotted(sub.target) if isinstance(sub.target, ast.Attribute) else None
                if text in rebound:
                    advanced[text] = advanced.get(text, 0) + 1
        plain = {dotted(t) for sub in ast.walk(fn) if isinstance(sub, ast.Assign)
                 for t in sub.targets if isinstance(t, ast.Attribute)}
        for text in advanced:
            if text in plain:
                continue  # also reset or set in the method: no steady count
            start = [sub.value.value for sub in ast.walk(init) if isinstance(sub, ast.Assign)
                     and isinstance(sub.value, ast.Constant)
                     and type(sub.value.value) is int
                     and any(dotted(t) == text for t in sub.targets)]
            if len(start) == 1:
                counters.add(text)
                env.setdefault(text, start[0])
    if not isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
        return counters
    params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)]
    method = bool(params) and params[0] in ("self", "cls")
    looped = {v for lp in loop.ancestors() for v in lp.targets}
    for call in ast.walk(ast.Module(body=[*node.body], type_ignores=[])):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        callee = func.attr if isinstance(func, ast.Attribute) else (
            func.id if isinstance(func, ast.Name) else "")
        if callee != fn.name or any(isinstance(a, ast.Starred) for a in call.args):
            continue
        offset = 1 if method and isinstance(func, ast.Attribute) else 0
        pairs = [(params[i + offset], a) for i, a in enumerate(call.args)
                 if i + offset < len(params)]
        pairs += [(k.arg, k.value) for k in call.keywords if k.arg in params]
        for param, arg in pairs:
            if set(names.words(ast.unparse(arg))) & looped:
                counters.add(param)
                # its first value: the caller's expression on the first pass (`ep`, `ep + 1`)
                first = first_value(arg, dict(env), module)
                if first is None:
                    env.pop(param, None)
                else:
                    env[param] = first
    return counters


def _explicit_position_ahead(ctx: FileContext, e: Event, loop: Loop) -> int | None:
    """``scheduler.step(epoch)`` before the updates, in ``for epoch in range(1, n)``: the
    position it is told on the first pass (1 here), when that is a whole number of 1 or more;
    None when it is 0 (the first value is kept) or cannot be told."""
    call = e.node
    if not isinstance(call, ast.Call):
        return None
    arg = call.args[0] if len(call.args) == 1 and not call.keywords else next(
        (k.value for k in call.keywords if k.arg == "epoch"), None) if not call.args else None
    if arg is None:
        return None
    module = ctx.module if e.path == ctx.path else None
    value = _first_number(arg, list(loop.ancestors()), module, 0, ctx.tree_of(e.path))
    return value if isinstance(value, int) and value >= 1 else None


def _first_number(expr: ast.expr, loops: list[Loop], module: Any, depth: int,
                  tree: ast.AST | None = None) -> int | None:
    """The whole number ``expr`` holds on the first pass through ``loops`` (a loop variable of
    ``range(start, n)`` holds ``start``, the counter of ``while epoch < n: ...; epoch += 1``
    what the statement before the loop gives it; a setting, the default the file gives it)."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Constant):
        value = expr.value
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult)):
        left = _first_number(expr.left, loops, module, depth + 1, tree)
        right = _first_number(expr.right, loops, module, depth + 1, tree)
        if left is None or right is None:
            return None
        if isinstance(expr.op, ast.Add):
            return left + right
        return left - right if isinstance(expr.op, ast.Sub) else left * right
    if isinstance(expr, ast.Name):
        for lp in loops:
            node = lp.node
            if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name) \
                    and node.target.id == expr.id:
                it = node.iter
                if isinstance(it, ast.Call) and (dotted(it.func) or "").rsplit(".", 1)[-1] \
                        in ("range", "trange") and it.args:
                    start = it.args[0] if len(it.args) > 1 else ast.Constant(0)
                    return _first_number(start, loops, module, depth + 1, tree)
                return None
            if isinstance(node, ast.While) and expr.id in lp.counters and tree is not None:
                before = _bound_before(tree, node, expr.id)
                return None if before is None else \
                    _first_number(before, loops, module, depth + 1, tree)
    # a setting: `args.start_epoch`, `cfg["start_epoch"]`, `cfg.get("start_epoch", 0)`
    if isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) \
            and module is not None:
        if any(expr.id in lp.targets for lp in loops) if isinstance(expr, ast.Name) else False:
            return None
        value = constants.resolve(expr, None, module)
        return value if isinstance(value, int) and not isinstance(value, bool) else None
    return None


def _bound_before(tree: ast.AST, loop: ast.stmt, name: str) -> ast.expr | None:
    """The value of ``name = <expr>``, the statement nearest before ``loop`` in its block that
    binds ``name``, when it is that plain assignment (None for any other binding)."""
    block = block_of(tree, loop)
    if block is None:
        return None
    index = next(i for i, stmt in enumerate(block) if stmt is loop)
    for stmt in reversed(block[:index]):
        if not any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
                   for n in ast.walk(stmt)):
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name):
            return stmt.value
        return None
    return None


def _other_order_offered(ctx: FileContext, e: Event, update: Event, loop: Loop) -> bool:
    """True when the same loop also steps the scheduler after ``update`` in a branch that
    never runs with ``e``'s (``if not new_torch: sched.step()`` before the update, ``if
    new_torch: sched.step()`` after it): the program offers both orders and which one a run
    takes is not in the code."""
    return any(
        s is not e and s.obj is e.obj and s.loop is loop and s.order > update.order
        and exclusive(e, s)
        for s in _sched_steps(ctx)
    )


def _assigned_in(node: ast.AST, loops: bool = False) -> Iterator[ast.expr]:
    """The targets of the assignments inside ``node`` (and of its ``for`` loops, if asked)."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Assign):
            yield from sub.targets
        elif isinstance(sub, (ast.AugAssign, ast.AnnAssign)):
            yield sub.target
        elif loops and isinstance(sub, (ast.For, ast.AsyncFor)):
            yield sub.target


def _rebound_in(loop: Loop) -> set[str]:
    """The names assigned in the body of ``loop`` (the function around a traced call's
    loop is not searched: only what the loop statement itself holds): plain names, and the
    attribute an attribute store rebinds (``self.best = acc`` rebinds ``best``, never
    ``self``: ``self.args.warmup`` stays the same setting on every pass)."""
    out: set[str] = set()
    for target in _assigned_in(loop.node):
        out |= _target_words(target)
    return out


def _target_words(target: ast.expr) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {w for item in target.elts for w in _target_words(item)}
    if isinstance(target, ast.Starred):
        return _target_words(target.value)
    if isinstance(target, ast.Attribute):
        return {target.attr}
    if isinstance(target, ast.Subscript):
        # `counts[k] += 1` / `self.stats["step"] = n`: the container changes
        return _target_words(target.value) | {
            n.value for n in ast.walk(target.slice)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


# -- LRD002 / LRD003 ---------------------------------------------------------------------------


def _epoch_consequence(sched: Obj, h: Horizon) -> str:
    value = int(h.value) if h.value is not None else None
    if sched.cls == "StepLR":
        every = f"every {value} batches" if value else f"every {h.source} batches"
        return f"the LR is multiplied by {_gamma_text(sched)} {every} and collapses within the " \
            "first epoch"
    if sched.cls == "CosineAnnealingLR":
        return "the cosine completes within the first epoch and oscillates for the rest of training"
    if sched.cls == "MultiStepLR":
        return "every milestone passes within the first epoch"
    if sched.cls == "ReduceLROnPlateau":
        return f"patience={h.source} counts batches, so the LR drops after a few noisy batches"
    if sched.cls == "PolynomialLR":
        return "the LR reaches its floor within the first epoch and stays there"
    if sched.cls == "CosineAnnealingWarmRestarts":
        return f"the cosine restarts after {h.source} batches instead of epochs, many times " \
            "within the first epoch"
    return "the whole schedule passes within the first epoch"


def _gamma(sched: Obj, index: int, default: float) -> float | None:
    """The decay factor as the file states it (its default when not passed); None when the
    file does not say (``gamma=args.gamma`` with no default in sight)."""
    expr = sched.arg("gamma", index)
    if expr is None:
        return None if sched.has_kwargs_splat() else default
    value = constants.resolve(expr, sched.scope)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _collapsing_gamma(sched: Obj) -> float | None:
    """The gamma of an ExponentialLR that the file states at 0.98 or less: stepped after every
    batch (or every update), it multiplies the LR by gamma each time, 2e-9x or less after 1000
    steps, a decay meant per epoch. None for any other scheduler, or a gamma not stated."""
    if sched.cls != "ExponentialLR":
        return None
    gamma = _gamma(sched, 1, 1.0)
    return gamma if gamma is not None and 0 < gamma <= 0.98 else None


def _per_step_decay(gamma: float, per: str, plural: str) -> str:
    return f"the LR shrinks {gamma:g}x per {per} ({gamma ** 1000:.0e}x after 1000 {plural}); " \
        "gamma is meant per epoch"


def _gamma_text(sched: Obj) -> str:
    gamma = _gamma(sched, 2, 0.1)
    if gamma is not None:
        return f"{gamma:g}"
    expr = sched.arg("gamma", 2)
    return f"gamma (`{ast.unparse(expr)}`)" if expr is not None else "gamma"


def _project_phase_per_batch(ctx: FileContext, e: Event, sched: Obj,
                             loop: Loop) -> Iterator[Diagnostic]:
    """The project's own scheduler class stepped every batch, built with one horizon counted
    in batches and another in epochs (a cosine over `epochs * len(loader)` steps after a warm-up
    of `epochs / 24`): the call sizes the schedule per step, and the phase sized in epochs
    passes within the first epoch. Horizons all in epochs, or unread, say nothing here: the
    class may count its own way."""
    horizons = project_horizons(sched)
    in_batches = [h for h in horizons if h.unit == "batch"]
    in_epochs = [h for h in horizons if h.unit == "epoch"]
    if not in_batches or not in_epochs or not loop.iterates_loader:
        return
    cls, _ = sched.project or (None, None)
    name = getattr(cls, "name", "") or "the scheduler"
    h, other = in_epochs[0], in_batches[0]
    yield Diagnostic.at(
        "LRD002",
        f"{_option_prefix(ctx, e)}{name}({h.described}, {other.described}) is stepped inside "
        f"{_loop_where(loop, e.path)}: {other.param} counts batches but {h.param} is sized in epochs, "
        f"so that phase passes within the first {h.source} batches instead of epochs",
        e.path,
        e.node,
        evidence={"horizon": h.source, "loop_line": loop.line},
    )


def _project_batch_horizon(sched: Obj) -> Horizon | None:
    """The horizon in batches of a scheduler built from the project's own subclass of torch's
    base that keeps torch's step() (``WarmupInvSqrt(opt, warmup_steps=args.warmup_steps)``,
    whose ``get_lr()`` sets the step count against the stored ``warmup_steps``): every horizon
    the call gives it is counted in batches (a total rather than the warm-up where both are
    read). None when one is sized in epochs, is not read, or fills a parameter named in epochs,
    or when none is read: the class may count its own way."""
    horizons = project_horizons(sched)
    if not horizons or any(h.unit != "batch" or names.unit_of_word(h.param) == "epoch"
                           for h in horizons):
        # one unread, sized in epochs, or a parameter named in epochs given a count named
        # in steps (`warmup_epochs=model_warmup_steps`): the class may count epochs
        return None
    return next((h for h in horizons if "warm" not in h.param.lower()), horizons[0])


def _per_batch_problem(sched: Obj, loop: Loop) -> Horizon | None:
    """The horizon that makes stepping ``sched`` every batch of ``loop`` wrong, or None."""
    h = horizon_of(sched)
    if h.unit == "epoch":
        return h
    if loop.iterates_loader and loop.parent is not None and _small_literal(sched, h):
        # (a literal above the loop's epoch count is still read as epochs here: the
        # catalog's own example, StepLR(step_size=7) over range(3), is that shape, and the
        # per-batch decay does its damage whichever unit was meant)
        return h
    if loop.iterates_loader and loop.parent is not None and _short_restart_period(sched, h):
        return h
    if loop.iterates_loader and _within_the_epochs(sched, h, loop):
        return h
    return None


def _short_restart_period(sched: Obj, h: Horizon) -> bool:
    """``CosineAnnealingWarmRestarts(opt, T_0=3)``: a first restart period written as a literal
    of a few steps (at most ``RESTART_LITERAL``). Stepped with a plain ``step()`` after every
    batch of a loop inside an epoch loop, each step counts one batch, so the cosine anneals
    and jumps back to the initial LR every few batches (and, with ``T_mult``, over periods
    that grow from there): a period meant in epochs. A period sized from the loader, an
    iteration count in the hundreds or more, or a step given the fractional epoch (the
    documented per-batch use) is not this shape."""
    return sched.cls == "CosineAnnealingWarmRestarts" and h.param == "T_0" \
        and h.unit == "literal" and h.value is not None and 0 < h.value <= RESTART_LITERAL


def _within_the_epochs(sched: Obj, h: Horizon, loop: Loop) -> bool:
    """A literal horizon too large for ``_small_literal`` to read as epochs (``MultiStepLR(
    milestones=[150, 250])``) that an epoch loop around ``loop`` reaches: the loop's count, as
    the code states it (a literal, a name or setting assigned one, a parameter its caller
    fills with one), is at least the horizon, so the schedule fits the run counted in epochs
    and, stepped every batch, ends within its first epochs. A horizon above the epoch count
    may count iterations and is left alone, as is one whose decay per step is gentle."""
    if h.unit != "literal" or sched.cls not in LITERAL_JUDGED or h.value is None \
            or h.value <= 0 or not _steep(sched, h):
        return False
    outer = loop.parent
    while outer is not None:
        count = _stated_passes(outer)
        if count is not None:
            return h.value <= count
        outer = outer.parent
    return False


def _stated_passes(loop: Loop) -> float | None:
    """The epoch count of ``for e in range(n)`` / ``range(start, n)`` as the code states it:
    ``n`` (less a literal ``start``) read as a number where the loop's header is written; None
    for other loops or a count the code does not state. A start that is not a literal (a
    resumed run's ``start_epoch + 1``) leaves ``n``, the run's last epoch."""
    if loop.passes is not None:  # bounds the trace knew where the loop ran
        return float(loop.passes)
    call = range_call(loop)
    if call is None and loop.scope is not None:
        counted = while_bounds(loop)  # `epoch = 1` then `while epoch <= n: ...; epoch += 1`
        if counted is not None:
            first, bound, inclusive = counted
            base, k = plus_literal(bound)
            last = _stated_number(base, loop.scope)
            return None if last is None else last + k - first + (1 if inclusive else 0)
    if call is None or loop.scope is None:
        return None
    base, k = plus_literal(call.args[-1])
    stop = _stated_number(base, loop.scope)
    if stop is None:
        return None
    start = _number_literal(call.args[0]) if len(call.args) == 2 else None
    return stop + k - (start or 0.0)


def _stated_number(expr: ast.expr, scope: Any, depth: int = 0) -> float | None:
    """The number ``expr`` stands for where ``scope`` reads it (see ``constants.resolve``),
    through the parameters its callers fill, and for ``holder.attr`` the literal the function
    writing the read stores in it just before (``settings.num_epochs = 300`` then
    ``trainer.train(settings.num_epochs)``), when the module stores that attribute nowhere
    else."""
    value = constants.resolve(expr, scope)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if scope is None or depth > 4:
        return None
    if isinstance(expr, ast.Name):
        held = scope.lookup(expr.id)
        if isinstance(held, ExprVal) and held.node is not expr:
            return _stated_number(held.node, held.scope, depth + 1)
        return None
    if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name)):
        return None
    tree = scope.module.tree
    if constants.attribute_stores(tree).get(expr.attr) != 1:
        return None
    text = dotted(expr)
    for node in ast.walk(function_around(tree, expr)):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and dotted(node.targets[0]) == text and node.lineno < expr.lineno:
            return _number_literal(node.value)
    return None


def _beyond_epochs(h: Horizon, epochs: float | None) -> bool:
    """A literal horizon larger than the run's stated number of epochs (a Hugging Face
    Trainer's TrainingArguments): read as epochs, it would never be reached in this run, so
    the guess that it counts epochs fails (LRD002 is an epoch-sized horizon stepped per
    batch; this one may well count updates, and how many updates the run makes is not
    known here, so nothing is said)."""
    return h.unit == "literal" and h.value is not None and epochs is not None \
        and 0 < epochs < h.value


def _small_literal(sched: Obj, h: Horizon) -> bool:
    """A literal horizon small enough to be epochs (used only where the script has epochs)."""
    if (
        h.unit != "literal"
        or sched.cls not in LITERAL_JUDGED
        or h.value is None
        or not 0 < h.value <= SMALL_LITERAL
    ):
        return False
    return _steep(sched, h)


def _steep(sched: Obj, h: Horizon) -> bool:
    """Not a gentle per-step decay: a gentle one is a plausible design; one that divides the
    LR by more than 100 every 1000 batches (`StepLR(step_size=10, gamma=0.95)`) is not,
    whatever its gamma."""
    gamma = _gamma(sched, 2, 0.1) if sched.cls == "StepLR" else None
    # (a gamma of 1 or more never divides the LR: not computed, it could overflow)
    return gamma is None or gamma < 0.95 or (
        gamma < 1 and h.value is not None and gamma ** (1000 / h.value) < 0.01)


def _built_each_pass(ctx: FileContext, e: Event, sched: Obj, loop: Loop) -> bool:
    """Every construction of ``sched`` in the trace that steps it (``e``) runs inside
    ``loop``: each pass builds a new scheduler (`opt = SGD(...); sched = StepLR(opt, 1);
    sched.step()` in the loop body, or in a function or module ``forward`` it calls), so no
    scheduler is stepped once per pass of that loop."""
    built = [c for c in ctx.events_by_root.get(e.root, [])
             if c.kind == "create" and c.obj is sched and c.order < e.order]
    # (built under no test inside the loop: `if sched is None: sched = StepLR(...)` builds
    # one on the first pass only)
    return bool(built) and all(c.loop is not None and c.in_loop(loop)
                               and not c.conds_inside(loop) and _bound_afresh(ctx, c)
                               for c in built)


def _bound_afresh(ctx: FileContext, built: Event) -> bool:
    """The construction ``built`` is assigned to plain local names of a function that is not
    an accessor (no decorator: a ``cached_property`` builds once, on first read), so each run
    of it makes a new object; not when it is stored on an object (``self.sched = ...``, kept
    across calls) or returned."""
    tree = ctx.tree_of(built.path)
    if tree is None or not isinstance(built.node, ast.Call):
        return False
    fn = function_around(tree, built.node)
    if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.decorator_list:
        return False
    return any(isinstance(node, ast.Assign) and node.value is built.node
               and all(isinstance(t, ast.Name) for t in node.targets) for node in ast.walk(fn))


@rule("LRD002", "LRD003")
def granularity_mismatch(ctx: FileContext) -> Iterator[Diagnostic]:
    # a Lightning config is reported where it is fixed (configure_optimizers' interval), not a
    # second time at the lr_scheduler_step hook that steps the same scheduler
    lightning = list(_lightning(ctx))
    from_config = {sched.id for _, sched in lightning}
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        handed = _handed_on_by_gradual_warmup(sched)
        if handed is not None:
            sched = handed  # judged by the schedule it hands every step to after the warm-up
        elif sched.guessed and sched.project is None or sched.in_composite:
            continue
        plateau = sched.cls == "ReduceLROnPlateau"
        gran, loop = granularity(e)
        if loop is None or not gran:
            continue
        if _built_each_pass(ctx, e, sched, loop):
            continue  # a new scheduler every pass of the loop, each stepped once
        if not plateau and not _plain_step(e) \
                and not (gran == "epoch" and (_steps_to_the_epoch_count(e, loop) or _hands_a_metric(e))):
            continue
        if _never_ends(sched):
            continue  # `CosineAnnealingLR(opt, T_max=int(1e10))`: a constant LR by design
        if project_constant(sched):
            # `LinearLR(opt, start_factor=1, end_factor=1, total_iters=n_epochs)` as "no
            # scheduler": every position has the same LR, so how often it steps changes nothing
            continue
        if replays_to_resume(ctx, e):
            continue  # `for _ in range(start_epoch * n): sched.step()`: a resume's fast-forward
        if _one_batch_per_epoch(ctx, e, loop, gran):
            continue  # `DataLoader(ds, batch_size=len(ds))`: a batch is an epoch
        if gran == "batch":
            shared = _update_conds(ctx, e, loop)
            own = [c for c in e.conds_inside(loop)
                   if not _only_accumulation(c) and not _tests_existence(c, e)
                   and (c.key, c.branch) not in shared and not c.decided
                   and not _scheduler_bookkeeping(ctx, c)]
            if sched.cls == "ExponentialLR":
                gamma = _collapsing_gamma(sched)
                # `if (it + 1) % 2000 == 0: scheduler.step()` with no update under the test:
                # a decay every N batches by design, not gamma per batch
                periodic = bool(own) or _periodic_of_its_own(ctx, e, loop)
                if gamma is not None and loop.iterates_loader \
                        and loop.parent is not None and not periodic:
                    yield Diagnostic.at(
                        "LRD002",
                        f"ExponentialLR(gamma={gamma:g}) is stepped inside "
                        f"{_loop_where(loop, e.path)}: {_per_step_decay(gamma, 'batch', 'batches')}",
                        e.path,
                        e.node,
                    )
                continue
            if own and all(_last_batch_test(c) for c in own) and not plateau \
                    and loop.iterates_loader and sched.id not in from_config:
                # `if self.trainer.is_last_batch:` / `if i == len(loader) - 1:`: once per epoch
                whole = horizon_of(sched)
                if whole.unit == "batch":
                    yield Diagnostic.at(
                        "LRD003",
                        f"{_option_prefix(ctx, e)}{label(sched, whole)} is stepped once per epoch, "
                        f"on the last batch (`{own[0].text}`) of {_loop_where(loop, e.path)}, but its "
                        f"horizon is counted in batches: {_batch_consequence(sched)}",
                        e.path,
                        e.node,
                        evidence={"horizon": whole.source, "loop_line": loop.line},
                    )
                continue
            steady = [c for c in own if _steady_over(c, loop)
                      and _picks_phase_or_option(c, loop, sched, e)]
            if steady and _contradicts_build(steady, sched):
                continue  # the option built under another setting never takes this step
            if [c for c in own if c not in steady]:
                continue  # `if i % 50 == 0 and i > 0: scheduler.step()`: a choice of its own
            if _periodic_of_its_own(ctx, e, loop):
                continue  # `if i % eval_every == 0: scheduler.step(val_loss)`: a period by design
            if sched.project is not None:
                yield from _project_phase_per_batch(ctx, e, sched, loop)
                continue
            problem = _per_batch_problem(sched, loop)
            if problem is None:
                outer = _sized_to_an_outer_loop(ctx, e, sched, loop)
                if outer is not None:
                    whole = horizon_of(sched)
                    yield Diagnostic.at(
                        "LRD002",
                        f"{_option_prefix(ctx, e)}{label(sched, whole)} is stepped after every "
                        f"update, in {_loop_where(loop, e.path)}, but its horizon is the number of "
                        f"passes of the loop at line {outer.line} around it "
                        f"(`{_loop_count(ctx, outer)}`): every pass of that loop makes several "
                        "updates, so the schedule ends after a fraction of the run and stays "
                        "at its final value for the rest",
                        e.path,
                        e.node,
                        evidence={"horizon": whole.source, "loop_line": loop.line,
                                  "outer_loop_line": outer.line},
                    )
                    continue
                divided = _factor_divided_by_an_outer_count(ctx, e, sched, loop)
                if divided is not None:
                    outer, count = divided
                    yield Diagnostic.at(
                        "LRD002",
                        f"{_option_prefix(ctx, e)}{label(sched, horizon_of(sched))} is stepped "
                        f"after every update, in {_loop_where(loop, e.path)}, but its factor divides "
                        f"the step count by `{count}`, the number of passes of the loop at line "
                        f"{outer.line} around it: every pass of that loop makes several updates, "
                        "so that part of the schedule runs its course within a fraction of the "
                        "run (a cosine over it turns back up and repeats)",
                        e.path,
                        e.node,
                        evidence={"horizon": count, "loop_line": loop.line,
                                  "outer_loop_line": outer.line},
                    )
                continue
            h = problem
            size = f"its horizon of {int(h.value)} steps" if h.unit == "literal" and h.value \
                else "its horizon"
            stated_in = _yaml_origin(sched, h) if size != "its horizon" else ""
            if stated_in:
                size += f" (the default in {stated_in})"
            yield Diagnostic.at(
                "LRD002",
                f"{_option_prefix(ctx, e)}{label(sched, h)} is stepped inside {_loop_where(loop, e.path)}, but {size} "
                f"is sized in epochs: {_epoch_consequence(sched, h)}",
                e.path,
                e.node,
                evidence={"horizon": h.source, "loop_line": loop.line},
            )
        elif gran == "epoch" and not plateau:
            h = horizon_of(sched)
            shown = ""
            if h.unit != "batch" and not h.param and sched.project is not None:
                own = [c for c in e.conds_inside(loop)
                       if not _tests_existence(c, e) and not c.decided]
                if own:
                    # `if cfg["type"] != "Poly": sched.step()` while the project's class is
                    # built under `== "Poly"` (and stepped per batch elsewhere): a step under
                    # a test of its own may never reach this class
                    continue
                h = _project_batch_horizon(sched) or h
                name = getattr(sched.project[0], "name", "")
                shown = f"{name}({h.described})" if name and h.param else ""
            if h.unit != "batch" or sched.id in from_config or _epochs_by_its_size(h):
                continue
            if _steps_named_after_epoch_positions(e, sched, h, loop):
                continue  # `step_size=cfg["lr_dc_step"]`, stepped `sched.step(epoch=epoch)`
            if _only_traces_the_schedule(ctx, e, loop):
                continue  # an LR plot: `for epoch in range(n): sched.step(); lrs.append(...)`
            if _one_update_per_pass(ctx, e, loop):
                continue  # full-graph training: each pass of `for epoch in ...` is one update
            if _counts_passes_of(ctx, sched, h, loop):
                continue  # `for _ in trange(n_iters): <batches>; sched.step()`, T_0=n_iters // 10
            if _counts_items_of(ctx, sched, h, loop):
                continue  # `for i, chunk in enumerate(collector)`, T_max=total // per_chunk
            if _one_chunk_per_pass(ctx, sched, h, loop):
                continue  # T_max=total // per_chunk; inside: `for _ in range(per_chunk // mb)`
            if _divided_like_its_loop(ctx, sched, h, loop):
                continue  # total_iters=warmup // rollout, `for it in range(total // rollout)`
            if _paced_like_its_while(ctx, sched, h, loop):
                continue  # `while global_step < total: ... global_step += rollout`, total // rollout
            if _chosen(e) and e.conds_inside(loop) \
                    and not _taken_whenever_built(e.conds_inside(loop), sched):
                continue  # one of several schedulers, stepped per epoch only when a setting says
            if _fits_the_passes(sched, h, loop):
                continue  # `total_steps=EPOCHS` through a helper: as many steps as epochs
            if _named_batches_within_the_passes(sched, h, loop):
                continue  # `StepLR(step_size=opt.lr_decay_iters)`, default 50 of 200 epochs
            calls = [c for c in ctx.same_root(e, "sched_step") if c.obj is sched and _plain_step(c)]
            pair = _two_levels(ctx, calls, sched)
            if pair is not None and pair[0] is e:
                continue  # also stepped after every update: LRD012 says what happens
            if _flushes_the_last_update(ctx, e, sched, loop, calls):
                continue  # the leftover accumulated update after the batch loop, and its step
            position, consequence = "", _batch_consequence(sched)
            given = _sole_position(e.node) if _hands_a_metric(e) else None
            if given is not None:
                position = f" with `{ast.unparse(given)}` (a loss or score) as its position"
                consequence = ("a loss or a score counts no batches, so the schedule stays near "
                               "its start: it never reaches its peak and never anneals")
                per_batch = next((c for c in calls if c is not e and granularity(c)[0] == "batch"), None)
                if per_batch is not None:
                    # also stepped after every update (`train(..., scheduler)`): the loss
                    # puts it back near its start at every epoch's end
                    consequence = (f"it is also stepped after every update "
                                   f"({line_at(per_batch.path, per_batch.line, e.path)}), and "
                                   "each epoch the loss puts it back near its start, so it "
                                   "replays its first epoch and never anneals")
            yield Diagnostic.at(
                "LRD003",
                f"{_option_prefix(ctx, e)}{shown or label(sched, h)} is stepped once per epoch, in {_loop_where(loop, e.path)}{position}, "
                f"but its horizon is counted in batches: {consequence}",
                e.path,
                e.node,
                evidence={"horizon": h.source, "loop_line": loop.line},
            )
    yield from (diagnostic for diagnostic, sched in lightning
                if diagnostic.code != "LRD003" or not _stepped_each_update_by_hand(ctx, sched))
    yield from _lightning_project(ctx)
    yield from _hf_trainer_stepped(ctx)


def _hf_trainer_stepped(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler handed to a Hugging Face Trainer (``optimizers=(optimizer, scheduler)``)
    or built by a Trainer subclass's ``create_scheduler``: the Trainer steps it after every
    optimizer step, so a horizon sized in epochs runs out within the first epoch."""
    seen = {e.obj.id for e in _sched_steps(ctx) if e.obj is not None}  # stepped by hand
    for node, path, sched, epochs, trainer in ctx.program.hf_stepped:
        if sched.id in seen or sched.guessed or sched.origin == "timm" \
                or sched.cls == "ReduceLROnPlateau" or sched.in_composite:
            continue
        seen.add(sched.id)
        gamma = _collapsing_gamma(sched)
        if gamma is not None:
            yield Diagnostic.at(
                "LRD002",
                f"ExponentialLR(gamma={gamma:g}) ({line_at(sched.path, sched.line, path)}) is the "
                "scheduler of "
                f"{trainer}: {_per_step_decay(gamma, 'update', 'updates')}",
                path,
                node,
            )
            continue
        h = horizon_of(sched)
        if h.unit == "epoch" or (_small_literal(sched, h) and not _beyond_epochs(h, epochs)):
            yield Diagnostic.at(
                "LRD002",
                f"{label(sched, h)} ({line_at(sched.path, sched.line, path)}) is the scheduler of "
                f"{trainer}, but "
                f"its horizon ({h.described}) is sized in epochs: "
                f"{_epoch_consequence(sched, h)}",
                path,
                node,
            )


# a horizon of this many steps or more is never reached by any run, batch by batch or epoch by
# epoch: the schedule is held (near) its first value on purpose
NEVER_REACHED = 1e8


def _never_ends(sched: Obj) -> bool:
    """The horizon is a number no run reaches (``T_max=int(1e10)``, ``MAX_STEP = 10 ** 10``):
    however often it is stepped, the LR stays where it starts, so the granularity is moot."""
    h = horizon_of(sched)
    if not h.source or h.source.endswith("..."):
        return False
    try:
        expr = ast.parse(h.source, mode="eval").body
    except SyntaxError:
        return False
    value = _number(expr, sched.scope, 0)
    return value is not None and value >= NEVER_REACHED


def _number(expr: ast.expr, scope: Any, depth: int) -> float | None:
    """The number a literal expression stands for: ``1e10``, ``int(1e10)``, ``10 ** 10``,
    ``2 * 10 ** 9``, or a name assigned one of these."""
    if depth > 6:
        return None
    if isinstance(expr, ast.Constant):
        value = expr.value
        return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
            else None
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
            and expr.func.id in ("int", "float") and len(expr.args) == 1 and not expr.keywords:
        return _number(expr.args[0], scope, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Pow)):
        left, right = _number(expr.left, scope, depth + 1), _number(expr.right, scope, depth + 1)
        if left is None or right is None or (isinstance(expr.op, ast.Pow) and right > 30):
            return None
        try:
            return left * right if isinstance(expr.op, ast.Mult) else left ** right
        except OverflowError:  # `1e20 ** 20`: past any float, so past any horizon a run reaches
            return float("inf")
    if isinstance(expr, ast.Name) and scope is not None:
        found = scope.source_of(expr.id)
        if found is not None:
            return _number(found[0], found[1], depth + 1)
        value = scope.lookup(expr.id)
        if isinstance(value, Const) and isinstance(value.value, (int, float)) \
                and not isinstance(value.value, bool):
            return float(value.value)
    return None


def _steps_named_after_epoch_positions(e: Event, sched: Obj, h: Horizon, loop: Loop) -> bool:
    """``StepLR(opt, step_size=cfg["lr_dc_step"])`` stepped ``sched.step(epoch=epoch)`` with the
    epoch loop's own index: the horizon is read as batches only from the word "step" in a
    setting's name, and a scheduler's steps are whatever the program steps it by; this one is
    set to the epoch's index on every step, so its steps are epochs. Only for a horizon whose
    unit rests on such names alone (not on what it is computed from, nor on another unit word:
    ``iters``, ``batches_per_epoch``), and a class not counted in batches by design
    (OneCycleLR, CyclicLR)."""
    kind = SCHEDULERS.get(sched.cls)
    if h.evidence != "name" or kind is None or kind.design == "batch" \
            or not _steps_to_the_epoch_count(e, loop):
        return False
    try:
        source = ast.parse(h.source, mode="eval").body
    except SyntaxError:
        return False
    words = [n.id for n in ast.walk(source) if isinstance(n, ast.Name)]
    words += [n.attr for n in ast.walk(source) if isinstance(n, ast.Attribute)]
    words += [n.value for n in ast.walk(source)
              if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    counted = [w for w in words if names.unit_of_word(w)]
    if not counted:
        return False
    for word in counted:
        tokens = [t for t in word.lower().split("_") if t]
        if not any(t.startswith("step") for t in tokens) or any(
                names.unit_of_word(t) for t in tokens if not t.startswith("step")):
            return False
    return True


def _steps_to_the_epoch_count(e: Event, loop: Loop) -> bool:
    """``scheduler.step(epoch)`` (or ``step(epoch + 1)``, ``step(epoch=epoch)``) where ``epoch``
    is the counter of the epoch loop the call runs in: the schedule is set to the epoch's index,
    once per epoch, the same granularity as a plain ``step()`` there (a batch-sized horizon then
    moves by one batch's worth per epoch). A position counted in batches (``step(epoch *
    len(loader))``, ``step(global_step)``) is another matter and is left alone."""
    counters = loop.targets | loop.counters  # `for epoch in ...` / `while epoch < n: ...`
    arg = _sole_position(e.node)
    if arg is None or not counters:
        return False
    if isinstance(arg, ast.BinOp) and isinstance(arg.op, (ast.Add, ast.Sub)) \
            and isinstance(arg.right, ast.Constant) and isinstance(arg.right.value, int):
        arg = arg.left
    return dotted(arg) in counters


def _epochs_by_its_size(h: Horizon) -> bool:
    """A horizon read as batches only because its class is designed for per-batch stepping
    (CyclicLR, OneCycleLR), whose length the code fixes at a number small enough to count
    epochs: ``CyclicLR(step_size_up=5)`` or ``OneCycleLR(total_steps=30)`` stepped once per
    epoch cycle over 5 epochs or run over 30, a complete schedule (one of 2,000 steps, the
    CyclicLR default, would take thousands of epochs: still reported). ``steps_per_epoch``
    says batches whatever its size."""
    return h.evidence == "design" and h.param in ("step_size_up", "step_size_down",
                                                   "total_steps") \
        and h.value is not None and 0 < h.value <= EPOCH_SIZED_LITERAL


def _fits_the_passes(sched: Obj, h: Horizon, loop: Loop) -> bool:
    """Whether the schedule's whole length, a number the code itself fixes where the scheduler
    is built (``total_steps=EPOCHS`` handed to a helper's parameter, ``epochs *
    steps_per_epoch``), is at most the number of passes of the epoch loop that steps it, a
    number fixed the same way: the schedule was sized in passes of that loop, whatever the
    words around it say (more passes than steps is LRD010's). Settings (an option's default,
    a config attribute) are left out: the run may give them other values."""
    passes = range_count(loop, lambda bound: _code_number(bound, loop.scope))
    if passes is None:
        passes = while_count(loop, lambda bound: _code_number(bound, loop.scope))
    if passes is None or not h.param:
        return False
    if sched.cls == "OneCycleLR" and h.param == "steps_per_epoch":
        epochs = _code_number(sched.arg("epochs", 3), sched.scope)
        per_epoch = _code_number(sched.arg("steps_per_epoch", 4), sched.scope)
        total = epochs * per_epoch if epochs is not None and per_epoch is not None else None
    else:
        index = 2 if sched.cls == "OneCycleLR" and h.param == "total_steps" else None
        kind = SCHEDULERS.get(sched.cls or "")
        if index is None and kind is not None:
            index = dict(kind.horizon_params).get(h.param)
        total = _code_number(sched.arg(h.param, index), sched.scope) if index is not None else None
    return total is not None and 0 < total <= passes


def _named_batches_within_the_passes(sched: Obj, h: Horizon, loop: Loop) -> bool:
    """A horizon read as batches only from a word or a help text (``StepLR(step_size=
    opt.lr_decay_iters)``, "multiply by a gamma every lr_decay_iters iterations") of a class
    whose steps do real damage when they come fast (a StepLR / MultiStepLR decay, a cosine, a
    polynomial), where the number the program states for it (the option's default, a config
    constant) is at most the number of passes of the epoch loop that steps it, stated the
    same way. Stepped once per epoch, the schedule plays out within the run (a decay every 50
    of 200 epochs); stepped every batch, as the word says, the same number would decay the LR
    every 50 batches and be spent within the first epochs, a schedule no one sizes on
    purpose. The numbers say epochs and the word is a misnomer: nothing is "far from
    complete". What a value is computed from (``len(loader) * epochs``) still says batches.
    The same for a Hugging Face warm-up schedule's ``num_training_steps`` and OneCycleLR's
    ``total_steps`` (``num_training_steps=args.total_steps``, default 30 of 30 epochs): the
    whole warm-up and decay, spent within the first epoch if stepped every batch."""
    if h.evidence not in ("name", "doc") or not h.param or sched.cls == "ReduceLROnPlateau":
        return False
    if h.param == "lr_lambda":
        return _factor_settings_within_the_passes(sched, loop)
    if sched.cls == "SequentialLR" and h.param == "milestones":
        return _members_within_the_passes(sched, h, loop)
    index: int | None = None
    if sched.origin == "hf" and h.param == "num_training_steps":
        index = HF_STEPS_INDEX.get(sched.cls or "", 2)
    elif sched.cls == "OneCycleLR" and h.param == "total_steps":
        index = 2
    elif sched.cls in LITERAL_JUDGED or sched.cls in _WARMUPS:
        kind = SCHEDULERS.get(sched.cls or "")
        index = dict(kind.horizon_params).get(h.param) if kind is not None else None
    given = sched.arg(h.param, index) if index is not None else None
    if given is None:
        return False
    stated = stated_setting(given, sched.scope)
    if stated is None or stated[1] is None or stated[1] <= 0:
        return False
    passes = _stated_passes(loop)
    if passes is None:
        return False
    if stated[1] > passes and not (h.param == "milestones"
                                   and _milestones_start_within(given, sched, passes)):
        return False
    return _steep(sched, Horizon("literal", h.param, h.source, stated[1], "literal"))


def _milestones_start_within(given: ast.expr, sched: Obj, passes: float) -> bool:
    """Whether the decay points a program states for a MultiStepLR read as batches only from a
    word (``milestones=cfg.DOWNSTEPS``, ``[60, 80]``, stepped once per epoch of 60) start within
    the epoch loop's passes and none lies beyond twice them: read as epochs, the first decay
    falls within the run and the later ones are decays this run stops short of (an epoch count
    lowered after the milestones were written); read as batches, the same numbers would make
    every decay within the first epoch or two, a schedule no one sizes on purpose. Numbers far
    beyond the passes (``[30, 5000]`` of 60 epochs) still say batches."""
    value = constants.resolve(given, sched.scope)
    if not isinstance(value, (list, tuple)) or not value or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return False
    return 0 < min(value) <= passes and max(value) <= 2 * passes


_WARMUPS = frozenset({"LinearLR", "ConstantLR"})


def _members_within_the_passes(sched: Obj, h: Horizon, loop: Loop) -> bool:
    """The same for a SequentialLR read as batches from the name of its milestones
    (``milestones=[args.warmup_iters]``): the hand-over and every member's length (a warm-up's
    ``total_iters``, a cosine's ``T_max=args.num_steps - args.warmup_iters``) state numbers
    within the passes, or a member counts epochs by what it reads. A member whose length is
    computed (``len(loader) * epochs``) or unknown still says batches."""
    given = sched.arg("milestones", 2)
    stated = stated_setting(given, sched.scope) if given is not None else None
    passes = _stated_passes(loop)
    if stated is None or stated[1] is None or passes is None or not 0 < stated[1] <= passes:
        return False
    for member in sched.members:
        mh = horizon_of(member)
        if mh.unit == "epoch":
            continue
        if mh.unit != "batch" or member.cls == "SequentialLR" \
                or not _named_batches_within_the_passes(member, mh, loop):
            return False
    return bool(sched.members)


def _factor_settings_within_the_passes(sched: Obj, loop: Loop) -> bool:
    """The same for a LambdaLR / MultiplicativeLR factor read as batches from the words of the
    settings it reads (``lambda it: (1 - it / args.max_iter) ** 0.9``): every such setting
    states a number (an argparse default, a config constant) of at most the epoch loop's
    passes. Stepped per epoch the factor runs its course within the run; stepped per batch,
    as the word says, it would be spent (a poly factor gone to 0, then negative) within the
    first epoch. A setting that states no number, or one beyond the passes, still reports."""
    factor = lr_factor(sched)
    passes = _stated_passes(loop)
    if factor is None or passes is None:
        return False
    body, params = factor
    read = False
    for node in ast.walk(body):
        if isinstance(node, ast.Call) and dotted(node.func) == "len":
            return False  # `1 - it / (len(loader) * epochs)`: a count of batches
        if isinstance(node, ast.Name):
            word = node.id
        elif isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
            word = constants.setting_name(node) or ""
        else:
            continue
        if not word or word in params:
            continue
        stated = stated_setting(node, sched.scope) if isinstance(node, ast.expr) else None
        number = stated[1] if stated is not None else None
        if number is not None and number > passes:
            return False  # `ramp = cfg["warmup_iters"]` (2000) read under another name
        if names.unit_of_word(word) != "batch":
            continue
        if number is None or number <= 0:
            return False
        read = True
    return read


def _code_number(expr: ast.expr | None, scope: Any) -> int | None:
    """The integer ``expr`` stands for when the code fixes it: literals and names bound to
    them (a module's constant, a helper's parameter its caller fills with one), arithmetic on
    those; None for a setting (``args.epochs``, ``cfg["epochs"]``), a call or anything else."""
    if expr is None:
        return None
    resolved, _ = origin(expr, scope, 8)
    if any(isinstance(n, (ast.Attribute, ast.Subscript, ast.Call))
           for form in (expr, resolved) for n in ast.walk(form)):
        return None
    value = constants.resolve(expr, scope)
    return value if type(value) is int else None


def _hands_a_metric(e: Event) -> bool:
    """``scheduler.step(val_loss)`` on a scheduler that is no plateau: its one argument reads a
    loss or a score (see _reads_a_metric), which the scheduler takes as its epoch position. That
    is no positioning of the schedule (``step(epoch * len(loader))`` is): once per epoch it is
    a step per epoch, with a position near 0 besides."""
    arg = _sole_position(e.node)
    return arg is not None and _reads_a_metric(arg)


def _sole_position(node: ast.AST) -> ast.expr | None:
    """The position a ``step`` call hands its scheduler when that is its only argument
    (``step(x)`` or ``step(epoch=x)``); None for any other call."""
    if not isinstance(node, ast.Call) or len(node.args) + len(node.keywords) != 1:
        return None
    args = list(node.args) + [k.value for k in node.keywords if k.arg == "epoch"]
    return args[0] if args else None


def _steady_over(cond: Cond, loop: Loop) -> bool:
    """A test that has one value for the whole run of ``loop`` (``if not args.swa:``, ``if
    epoch <= swa_start:`` inside the batch loop of that epoch): no call, nothing the loop
    binds or assigns (its variables, names or attribute chains set in its body). A step under
    it runs on every pass whenever it holds: a per-batch step, not a period of its own."""
    test = cond.test
    if test is None or any(isinstance(n, (ast.Call, ast.Await, ast.NamedExpr))
                           for n in ast.walk(test)):
        return False
    assigned: set[str] = set(loop.targets)
    for target in _assigned_in(loop.node, loops=True):
        for sub in ast.walk(target):
            text = dotted(sub) if isinstance(sub, (ast.Name, ast.Attribute)) else None
            if text:
                assigned.add(text)
    for node in ast.walk(test):
        if isinstance(node, (ast.Name, ast.Attribute)):
            text = dotted(node)
            if text is None or text.split(".")[0] == "self":
                return False  # an attribute of the object the loop runs in may move with it
            if any(text == a or text.startswith(a + ".") or a.startswith(text + ".")
                   for a in assigned):
                return False
        elif isinstance(node, ast.Subscript):
            return False
    return True


def _picks_phase_or_option(cond: Cond, loop: Loop, sched: Obj, e: Event | None = None) -> bool:
    """A steady test that says which schedule is in force, not when to step it: it reads the
    variable of a loop around ``loop`` (``if epoch <= swa_start:``, a phase of training; also
    a parameter the call running the test was handed such a variable for, ``ep`` of
    ``one_epoch(..., ep)`` called as ``one_epoch(..., k)`` in ``for k in range(n)``), or a
    setting that also chose which scheduler was built (``if not args.decay_type == "swa":``
    for a scheduler built under ``args.decay_type == ...``). A flag of its own (``if
    cfg.decay_every_update:``) is the author's choice of when it steps."""
    read = {dotted(n) for n in ast.walk(cond.test) if isinstance(n, (ast.Name, ast.Attribute))} \
        if cond.test is not None else set()
    read.discard(None)
    outer = {v for lp in loop.ancestors() if lp is not loop for v in lp.targets}
    if read & outer:
        return True
    if e is not None and read & set(_fed_by_outer_loops(e, cond, loop)):
        return True
    chose = {dotted(n) for c in (sched.built_under or ()) if c.test is not None
             for n in ast.walk(c.test) if isinstance(n, (ast.Name, ast.Attribute))}
    chose.discard(None)
    return bool({r for r in read if r and "." in r} & chose)


def _contradicts_build(conds: list[Cond], sched: Obj) -> bool:
    """A test the branches ``sched`` was built on decide as False (built under
    ``args.sched == "cosine"``, stepped under ``if args.sched == "onecycle":``)."""
    built = sched.built_under or ()
    return bool(built) and any(holds_first(c, {}, None, built) is False for c in conds)


def _update_conds(ctx: FileContext, e: Event, loop: Loop) -> set[tuple[Any, int]]:
    """The branches (inside ``loop``) that an update of the scheduler's optimizer, made
    before the step in the same pass, sits in too: `if not args.fp16: optimizer.step();
    scheduler.step()` is stepped with every update on that path, not by a choice of its own."""
    sched = e.obj
    assert sched is not None
    out: set[tuple[Any, int]] = set()
    for u in ctx.same_root(e, "opt_step") + ctx.same_root(e, "scaler_step"):
        target = u.obj if u.kind == "opt_step" else u.info.get("optimizer")
        if u.loop is not loop or u.order > e.order or target is None:
            continue
        if sched.optimizer is not None and target is not sched.optimizer:
            continue
        mine = {(c.key, c.branch) for c in e.conds_inside(loop)}
        theirs = {(c.key, c.branch) for c in u.conds_inside(loop)}
        out |= mine & theirs
    return out


# calls a loop that only records a schedule makes (besides stepping it)
_RECORDING_CALLS = frozenset({"step", "get_last_lr", "get_lr", "append", "print", "item",
                              "extend", "float", "range", "len", "enumerate", "format"})


_COUNTING_WRAPPERS = frozenset({"range", "trange", "tqdm", "tqdm.tqdm", "tqdm.trange",
                                 "tqdm.auto.tqdm", "tqdm.auto.trange", "enumerate"})


def _sized_to_an_outer_loop(ctx: FileContext, e: Event, sched: Obj, loop: Loop) -> Loop | None:
    """The loop around ``loop`` whose count is the scheduler's horizon, when the scheduler is
    stepped after every update of ``loop``, several updates a pass of that outer loop: a PPO
    ``LinearLR(total_iters=num_updates)`` stepped after every minibatch of every update epoch
    of ``for update in range(num_updates):`` runs out after 1 / (epochs * minibatches) of the
    run. The horizon must be that loop's own bound, written as the same name (or handed down
    to the builder under another); a horizon that multiplies in anything else (a count of
    batches) is not this. Not when the scheduler's loop itself is bounded by the same count, or
    when ``loop`` runs once a pass by its header (``for x in [batch]``)."""
    if not _plain_step(e) or sched.cls not in SCHEDULERS and sched.cls not in HF_WARMUP_BUILDERS:
        return None
    h = horizon_of(sched)
    expr = _horizon_expr(sched, h)
    if isinstance(expr, ast.Name):
        expr = _handed_down(ctx, sched, expr, loop) or expr
    text = dotted(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    if text is None or _loop_count(ctx, loop) == text:
        return None
    if _runs_once_a_pass(loop):
        return None
    return _outer_loop_counting(ctx, loop, text)


def _runs_once_a_pass(loop: Loop) -> bool:
    """``loop`` runs its body once a pass by its header (``for x in [batch]:``) or breaks out
    after the first item (``for batch in loader: ...; break``)."""
    node = loop.node
    if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, (ast.List, ast.Tuple)) \
            and len(node.iter.elts) <= 1:
        return True
    return any(isinstance(stmt, ast.Break) for stmt in getattr(node, "body", []))


def _outer_loop_counting(ctx: FileContext, loop: Loop, text: str) -> Loop | None:
    """The ``for`` loop around ``loop`` that runs ``text`` passes (``for epoch in
    range(text):``); None when none does."""
    outer = loop.parent
    while outer is not None:
        # a `for` over a range only: `while step < max_steps:` counts updates, not passes
        if isinstance(outer.node, (ast.For, ast.AsyncFor)) and _loop_count(ctx, outer) == text:
            return outer
        outer = outer.parent
    return None


def _factor_divided_by_an_outer_count(ctx: FileContext, e: Event, sched: Obj,
                                      loop: Loop) -> tuple[Loop, str] | None:
    """A LambdaLR stepped after every update of ``loop`` whose factor divides its own step
    count by the count of a loop around ``loop`` (``0.5 * (1 + cos(pi * s / args.max_epoch))``
    inside ``for epoch in range(args.max_epoch): for batch in loader:``): the factor is told
    the number of updates but sized by the number of passes of that outer loop, so that part
    of the schedule is over after one pass's worth of updates per unit. The divisor must be
    that loop's own bound, as written, handed down to the helper that builds the scheduler, or
    through the one name bound to it there (a count of batches multiplied in, ``args.max_epoch
    * len(loader)``, is another divisor); the warm-up beside it, sized in updates, does not
    matter. Not when ``loop`` itself runs that many passes, nor when it runs once a pass."""
    if sched.cls != "LambdaLR" or not _plain_step(e):
        return None
    factor = lr_factor(sched)
    if factor is None:
        return None
    body, own = factor
    if not own or _runs_once_a_pass(loop):
        return None
    inner = _loop_count(ctx, loop)
    for div in ast.walk(body):
        if not isinstance(div, ast.BinOp) or not isinstance(div.op, (ast.Div, ast.FloorDiv)) \
                or not isinstance(div.right, (ast.Name, ast.Attribute)):
            continue
        if not any(isinstance(n, ast.Name) and n.id in own for n in ast.walk(div.left)):
            continue  # not the step count divided
        right: ast.expr = div.right
        if isinstance(right, ast.Name) and right.id in own:
            continue
        if isinstance(right, ast.Name):
            handed = _handed_down(ctx, sched, right, loop)
            # (or the one name bound to it where the scheduler is built: `total = args.epochs`)
            bound = sched.scope.source_of(right.id) if handed is None \
                and sched.scope is not None else None
            right = handed or (bound[0] if bound is not None else right)
        text = dotted(right) if isinstance(right, (ast.Name, ast.Attribute)) else None
        if text is None or text == inner:
            continue
        outer = _outer_loop_counting(ctx, loop, text)
        if outer is not None:
            return outer, text
    return None


def _counts_passes_of(ctx: FileContext, sched: Obj, h: Any, loop: Loop) -> bool:
    """The horizon is written in terms of the count of the very loop the scheduler steps in:
    ``for _ in trange(n_iters): for batch in loader: ...; sched.step()`` with ``T_0=n_iters //
    10``. Whatever its name says (iterations, steps), that count is the number of passes of
    this loop, so the horizon is counted in the units the schedule is stepped in. A horizon
    that also multiplies in a count of batches (``n_iters * len(loader)``) is left to the
    rule. A LambdaLR's factor is read the same way: ``lambda update: 1 - update /
    num_updates`` stepped once per pass of ``for update in range(num_updates):`` (a PPO
    rollout loop around its epochs of minibatch updates) ends with that loop; its own
    parameter, the step count it is handed, is not a count that takes part."""
    expr: ast.AST | None = _horizon_expr(sched, h)
    own: set[str] = set()
    if expr is None and h.param == "lr_lambda":
        factor = lr_factor(sched)
        if factor is not None:
            expr, own = factor
    bound = _loop_count(ctx, loop)
    if expr is None or bound is None:
        return False
    if isinstance(expr, ast.Name):
        handed = _handed_down(ctx, sched, expr, loop)
        if isinstance(handed, ast.Name) and handed.id != bound and loop.scope is not None:
            # `total = args.parts * args.epochs; sched = build(opt, total)`: the name handed
            # down, unless it is the loop's own count, is read through the one binding it
            # has in the function whose loop steps the scheduler, as a name bound where the
            # scheduler is built is
            found = loop.scope.source_of(handed.id)
            handed = found[0] if found is not None else handed
        expr = handed or expr
    shared = False
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id in own:
            continue
        if isinstance(node, ast.Call):
            func = dotted(node.func) or ""
            if func == "len" or func.endswith(".__len__"):
                return False  # a count of batches multiplied in
        if isinstance(node, ast.Name) and node.id != bound \
                and _bound_to_a_length(node, sched, loop):
            return False  # `n = len(loader)` multiplied in: the same count, under a name
        if isinstance(node, (ast.Name, ast.Attribute)):
            text = dotted(node)
            if text == bound:
                shared = True
            elif isinstance(node, ast.Name) and _named_count_of(sched, node, bound, loop):
                shared = True
            elif isinstance(node, ast.Name) and _within_passes(sched, node, loop):
                continue  # `warm_up_iter = 10` in a run of `range(80)` passes: a number
            elif text is not None and names.unit_of_word(text.rsplit(".", 1)[-1]) == "batch" \
                    and not bound.endswith(text) and not text.startswith(bound + "."):
                return False  # another count, of batches, takes part in it
    return shared


def _bound_to_a_length(name: ast.Name, sched: Obj, loop: Loop) -> bool:
    """``name`` is computed from the length of a collection (``n = len(loader)``, ``iters =
    len(train_loader) // accum``), where the scheduler is built or in the function whose loop
    steps it: a count of batches kept under a name, which takes part in a horizon as
    ``len(loader)`` written out does, whatever the name says (a short ``n`` says nothing)."""
    for scope in (sched.scope, loop.scope):
        if scope is None or scope.source_of(name.id) is None:
            continue
        unit, _, evidence = unit_evidence(name, scope)
        return unit == "batch" and evidence == "flow"
    return False


def _named_count_of(sched: Obj, name: ast.Name, bound: str, loop: Loop) -> bool:
    """``name`` is assigned, where the scheduler is built, an expression of the loop's own
    count (``T_max = iter_max // 1`` for ``for epoch in range(iter_max):``) with no count of
    batches in it: the count of passes under another name."""
    found = sched.scope.source_of(name.id) if sched.scope is not None else None
    if found is None:
        return False
    nodes = list(ast.walk(found[0]))
    return any(isinstance(n, (ast.Name, ast.Attribute)) and dotted(n) == bound for n in nodes) \
        and not any(isinstance(n, ast.Call) for n in nodes)


def _within_passes(sched: Obj, name: ast.Name, loop: Loop) -> bool:
    """``name`` stands for a number the code states (``warm_up_iter = 10``) no larger than the
    passes the loop makes as written (``range(80)``): whatever its name says, it fits a count
    of those passes."""
    value = _stated_number(name, sched.scope) if sched.scope is not None else None
    passes = _stated_passes(loop)
    return value is not None and passes is not None and 0 <= value <= passes


def _divided_like_its_loop(ctx: FileContext, sched: Obj, h: Any, loop: Loop) -> bool:
    """The horizon and the stepped loop's count are quotients by one and the same size: a PPO
    run of ``num_iterations = total_timesteps // (num_envs * n_steps)`` rollouts, warmed up
    over ``total_iters=warmup_steps // (num_envs * n_steps)``. Whatever the numerators count
    (environment steps here), dividing both by the size of one pass makes them counts of
    passes: the schedule is stepped in the units it is counted in. Names are followed to the
    value they are bound to once (``rollout = num_envs * n_steps``), and a helper's parameters
    to what its caller passed; the factors of the size are compared as written, in any order.
    A quotient by a literal alone, or a horizon that reads ``len()``, is left to the rule."""
    expr = _horizon_expr(sched, h)
    count = _loop_count(ctx, loop)
    tree = ctx.tree_of(loop.path)
    if expr is None or count is None or "." in count or tree is None:
        return False
    horizon_name = _horizon_names(ctx, sched)

    def loop_name(name: str) -> ast.expr | None:
        return _bound_to(tree, loop.node, name)

    counted = loop_name(count)
    if counted is None:
        return False
    size = _size_divided_by(expr, horizon_name)
    return size is not None and size == _size_divided_by(counted, loop_name) \
        and not any(isinstance(n, ast.Call) and (dotted(n.func) or "") == "len"
                    for n in ast.walk(expr))


def _paced_like_its_while(ctx: FileContext, sched: Obj, h: Any, loop: Loop) -> bool:
    """The horizon is the number of passes of the ``while`` loop that steps it: a PPO
    ``while global_step < total_timesteps:`` whose body advances ``global_step`` by the size of
    one rollout (``global_step += num_envs`` once per pass of ``for step in range(num_steps):``,
    or ``global_step += batch_size`` at the top of the body), with the horizon that very total
    divided by that very size (``total_timesteps // (num_steps * num_envs)``, through names
    bound once). Whatever the total counts (environment steps), the loop makes total / size
    passes, so the schedule is stepped in the units it is counted in. A counter advanced
    anywhere else in the body, under a branch, or by a size not written as a product of names
    is left to the rule, as is a horizon with any other factor (minibatch updates)."""
    node = loop.node
    tree = ctx.tree_of(loop.path)
    expr = _horizon_expr(sched, h)
    if not isinstance(node, ast.While) or tree is None or expr is None:
        return False
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if isinstance(test.ops[0], (ast.Lt, ast.LtE)):
        counter, total = test.left, test.comparators[0]
    elif isinstance(test.ops[0], (ast.Gt, ast.GtE)):
        counter, total = test.comparators[0], test.left
    else:
        return False
    if not isinstance(counter, ast.Name) or not isinstance(total, (ast.Name, ast.Attribute)):
        return False
    name = counter.id
    # every store into the counter in the body: exactly one `counter += X`, at the top of the
    # body or at the top of a `for _ in range(m):` at the top of the body
    stores = [n for n in ast.walk(ast.Module(body=node.body, type_ignores=[]))
              if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)]
    if len(stores) != 1:
        return False
    step: list[ast.expr] = []
    for child in node.body:
        inner: list[ast.stmt] = [child]
        repeat: list[ast.expr] = []
        if isinstance(child, ast.For) and not child.orelse:
            over = child.iter
            if not (isinstance(over, ast.Call) and dotted(over.func) == "range"
                    and not over.keywords and (len(over.args) == 1 or (
                        len(over.args) == 2 and _number_literal(over.args[0]) == 0))):
                continue
            inner, repeat = child.body, [over.args[-1]]
        for stmt in inner:
            if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) \
                    and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
                step = [*repeat, stmt.value]
    if not step:
        return False
    horizon_name = _horizon_names(ctx, sched)

    def loop_name(text: str) -> ast.expr | None:
        return _bound_to(tree, node, text)

    size = step[0] if len(step) == 1 else ast.BinOp(left=step[0], op=ast.Mult(), right=step[1])
    pace = _size_divided_by(ast.BinOp(left=total, op=ast.FloorDiv(), right=size), loop_name)
    horizon = _size_divided_by(expr, horizon_name)
    if pace is None or horizon is None or pace != horizon:
        return False
    if any(isinstance(n, ast.Call) and (dotted(n.func) or "") == "len" for n in ast.walk(expr)):
        return False
    numerator = _dividend(expr, horizon_name)
    return numerator is not None and (dotted(numerator) in _spellings(total, sched.scope)
                                      or dotted(total) in _spellings(numerator, sched.scope))


def _quotient_under(expr: ast.expr, bound: Any, through_max: bool) -> ast.expr | None:
    """``expr`` with the names ``bound`` follows replaced by their values and rounding wrappers
    (``int(...)``, ``math.ceil(...)``) taken off, and with ``through_max`` also ``max(1, ...)``
    (at least one pass); None when a name is not followed."""
    for _ in range(6):
        if isinstance(expr, ast.Name):
            found = bound(expr.id)
            if found is None:
                return None
            expr = found
        elif isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords \
                and (dotted(expr.func) or "") in _ROUNDING:
            expr = expr.args[0]
        elif through_max and isinstance(expr, ast.Call) and (dotted(expr.func) or "") == "max" \
                and len(expr.args) == 2 and not expr.keywords \
                and _number_literal(expr.args[0]) is not None:
            expr = expr.args[1]
        else:
            break
    return expr


def _dividend(expr: ast.expr, bound: Any) -> ast.expr | None:
    """The count a quotient horizon divides (``total`` of ``int(total // size)``), through
    names ``bound`` follows and rounding wrappers."""
    unwrapped = _quotient_under(expr, bound, through_max=False)
    if unwrapped is None:
        return None
    expr = unwrapped
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.FloorDiv, ast.Div)) \
            and isinstance(expr.left, (ast.Name, ast.Attribute)):
        return expr.left
    return None


def _size_divided_by(expr: ast.expr, bound: Any) -> tuple[str, ...] | None:
    """The factors, sorted, of what ``expr`` divides a count by (``total // (a * b)`` gives
    ``("a", "b")``), through rounding and ``max(1, ...)`` wrappers and names ``bound`` follows;
    None when it is not such a quotient of one count (or a literal share of it) or the size
    is a literal alone."""
    unwrapped = _quotient_under(expr, bound, through_max=True)
    if unwrapped is None:
        return None
    expr = unwrapped
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.FloorDiv, ast.Div))):
        return None
    whole = expr.left
    if isinstance(whole, ast.BinOp) and isinstance(whole.op, ast.Mult) \
            and _number_literal(whole.left) is not None:
        whole = whole.right  # `0.1 * total_timesteps // size`: a share of one count
    if not isinstance(whole, (ast.Name, ast.Attribute)) or dotted(whole) is None:
        return None  # `timesteps * update_epochs // size` counts more than the passes
    factors: list[str] = []
    pending: list[ast.expr] = [expr.right]
    while pending and len(factors) < 8:
        node = pending.pop()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            pending += [node.left, node.right]
            continue
        if isinstance(node, ast.Name):
            found = bound(node.id)
            if found is not None and not isinstance(found, ast.Constant):
                pending.append(found)
                continue
        text = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
        if text is None:
            return None
        factors.append(text)
    if pending or not factors:
        return None
    return tuple(sorted(factors))


def _handed_down(ctx: FileContext, sched: Obj, expr: ast.Name, loop: Loop) -> ast.expr | None:
    """The count a horizon parameter was handed down from, when the scheduler is built in a
    helper called (through helpers) from the function whose loop steps it:
    ``def build(self, n): get_scheduler(..., num_training_steps=n)`` called as
    ``self.build(total_steps)`` in the function whose loop is ``for i in range(total_steps):``
    gives ``total_steps``. Followed only through parameters that their function does not
    rebind, and only up to that loop's own function; None otherwise."""
    built = next((c for c in ctx.program.events if c.kind == "create" and c.obj is sched), None)
    target = ctx.function_of(loop.path, loop.node)
    if built is None or target is None:
        return None
    frame, name = built.frame, expr.id
    for _ in range(6):
        if frame is None or frame.fn is None or frame.call is None:
            return None
        fn = frame.fn
        params = {a.arg for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]}
        if name not in params or any(
                isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
                for n in ast.walk(fn)):
            return None
        passed = frame.argument(name)
        if passed is None:
            return None
        caller = frame.parent.fn if frame.parent is not None else None
        if caller is target:
            return passed
        if not isinstance(passed, ast.Name):
            return None
        frame, name = frame.parent, passed.id
    return None


def _horizon_expr(sched: Obj, h: Any) -> ast.expr | None:
    """The expression a scheduler's horizon parameter was given, through one name bound to it
    (``T_max=n_chunks`` with ``n_chunks = total // per_chunk``); for a Hugging Face builder,
    its ``num_training_steps`` (or the warm-up its horizon is)."""
    if not h.param:
        return None
    kind = SCHEDULERS.get(sched.cls)
    if sched.cls in HF_WARMUP_BUILDERS:
        index: int | None = HF_STEPS_INDEX.get(sched.cls, 2) \
            if h.param == "num_training_steps" else 1
    elif kind is None:
        return None
    else:
        index = dict(kind.horizon_params).get(h.param)
    if index is None:
        return None
    expr = sched.arg(h.param, index)
    if isinstance(expr, ast.Name) and sched.scope is not None:
        found = sched.scope.source_of(expr.id)
        if found is not None:
            expr = found[0]
    return expr


_ROUNDING = frozenset({"int", "round", "math.ceil", "math.floor"})
_ITERATION_WRAPPERS = frozenset({"enumerate", "iter", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm",
                                 "tqdm.notebook.tqdm"})


def _counts_items_of(ctx: FileContext, sched: Obj, h: Any, loop: Loop) -> bool:
    """The horizon is how many items the stepped loop's own iterable yields: the loop runs
    over an object built from a total and a chunk size (``collector = Collector(env, policy,
    frames_per_batch=f, total_frames=t)``, ``for i, chunk in enumerate(collector):``) and the
    horizon divides that very total by that very chunk size (``T_max=t // f``). Its name says
    batches, but they are the batches this loop iterates, so the schedule is stepped in the
    units it is counted in. The chunk size alone, or a quotient with any number the iterable
    was not built from (a count of minibatch updates), is left to the rule."""
    expr = _horizon_expr(sched, h)
    built = _iterable_built_by(ctx, loop)
    if expr is None or built is None:
        return False
    expr = _whole_or_part(expr)
    if expr is None or not (isinstance(expr, ast.BinOp)
                            and isinstance(expr.op, (ast.FloorDiv, ast.Div))):
        return False
    scope = sched.scope
    total, size = _spellings(expr.left, scope), _spellings(expr.right, scope)
    given: set[str] = set()
    for value in [*built.args, *(k.value for k in built.keywords)]:
        given |= _spellings(value, scope)
    return bool(total & given) and bool(size & given) and not total & size


def _one_chunk_per_pass(ctx: FileContext, sched: Obj, h: Any, loop: Loop) -> bool:
    """The horizon divides a total by a chunk size (``T_max=total_frames // frames_per_batch``)
    and a loop inside the stepped loop's pass runs over that very chunk in smaller pieces
    (``for _ in range(frames_per_batch // sub_batch_size):``, the minibatch updates): each pass
    consumes one chunk, so the horizon counts passes of the loop the scheduler steps in, whatever
    the word "batch" in the chunk's name says (TorchRL's PPO recipe: one scheduler step per
    collected batch of frames). Only where what the loop iterates is not built in sight (a
    helper in another module returns the collector): where it is, what it was built from
    decides (_counts_items_of). A horizon divided by the piece size (a count of updates), or a
    chunk the inner loops do not split, is left to the rule."""
    if _iterable_built_by(ctx, loop) is not None:
        return False  # what the loop iterates is built in sight: _counts_items_of decides
    expr = _horizon_expr(sched, h)
    expr = _whole_or_part(expr) if expr is not None else None
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.FloorDiv, ast.Div))):
        return False
    scope = sched.scope
    total, chunk = _spellings(expr.left, scope), _spellings(expr.right, scope)
    if not total or not chunk or total & chunk:
        return False
    for inner in ctx.program.loops:
        node = inner.node
        if inner is loop or not any(a is loop for a in inner.ancestors()) \
                or not isinstance(node, (ast.For, ast.AsyncFor)):
            continue
        over = node.iter
        if not (isinstance(over, ast.Call) and (dotted(over.func) or "").endswith("range")
                and over.args):
            continue
        # (_whole_or_part also takes off `int(...)` and the other rounding calls)
        count = _whole_or_part(over.args[1] if len(over.args) >= 2 else over.args[0])
        if isinstance(count, ast.BinOp) and isinstance(count.op, (ast.FloorDiv, ast.Div)) \
                and _spellings(count.left, scope) & chunk \
                and not _spellings(count.right, scope) & chunk:
            return True
    return False


def _whole_or_part(expr: ast.expr) -> ast.expr | None:
    """The count inside a horizon that is that count or a part of it: ``int(n)``, ``n // 3``,
    ``int(0.3 * n)``, ``math.ceil(n / 4)`` all give ``n``; a multiple (``n * 2``) gives None."""
    for _ in range(8):
        if isinstance(expr, ast.Call) and (dotted(expr.func) or "") in _ROUNDING \
                and len(expr.args) == 1 and not expr.keywords:
            expr = expr.args[0]
            continue
        if isinstance(expr, ast.BinOp):
            right = _number_literal(expr.right)
            left = _number_literal(expr.left)
            if isinstance(expr.op, (ast.FloorDiv, ast.Div)) and right is not None and right >= 1:
                expr = expr.left
                continue
            if isinstance(expr.op, ast.Mult) and (right is not None and 0 < right <= 1):
                expr = expr.left
                continue
            if isinstance(expr.op, ast.Mult) and (left is not None and 0 < left <= 1):
                expr = expr.right
                continue
        return expr
    return None


def _number_literal(expr: ast.expr) -> float | None:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) \
            and not isinstance(expr.value, bool):
        return float(expr.value)
    return None


def _spellings(expr: ast.expr, scope: Any) -> set[str]:
    """How a plain number setting is written: its own name or attribute chain, and for a name
    bound once to a setting (``total_frames = cfg.total_frames``), that setting too."""
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return set()
    text = dotted(expr)
    found = {text} if text else set()
    if isinstance(expr, ast.Name) and scope is not None:
        source = scope.source_of(expr.id)
        if source is not None and isinstance(source[0], (ast.Name, ast.Attribute)):
            alias = dotted(source[0])
            if alias:
                found.add(alias)
    return found


def _iterable_built_by(ctx: FileContext, loop: Loop) -> ast.Call | None:
    """The constructor call that built what a ``for`` loop iterates, through ``enumerate``,
    ``tqdm`` and a name bound once around the loop (``for i, x in enumerate(collector)`` with
    ``collector = Collector(...)``); None for a ``range`` or anything not built in sight."""
    node = loop.node
    if not isinstance(node, (ast.For, ast.AsyncFor)):
        return None
    over: ast.expr | None = node.iter
    for _ in range(4):
        if isinstance(over, ast.Call) and (dotted(over.func) or "") in _ITERATION_WRAPPERS \
                and over.args:
            over = over.args[0]
        elif isinstance(over, ast.Name):
            over = _bound_to(ctx.tree_of(loop.path), node, over.id)
        else:
            break
    if not isinstance(over, ast.Call) or (dotted(over.func) or "") in _COUNTING_WRAPPERS:
        return None
    return over


def _loop_count(ctx: FileContext, loop: Loop) -> str | None:
    """The name (or attribute chain) that bounds a ``for`` loop over a range of it:
    ``range(n)``, ``range(start, n)``, ``trange(n)``, ``tqdm(range(n))``, also through a name
    bound by ``with trange(n) as t:`` or ``t = tqdm(range(n))`` in the function around it."""
    node = loop.node
    if isinstance(node, ast.While):
        return _while_bound(node, loop)
    if not isinstance(node, (ast.For, ast.AsyncFor)):
        return None
    over: ast.expr | None = node.iter
    if isinstance(over, ast.Name):
        over = _bound_to(ctx.tree_of(loop.path), node, over.id)
    for _ in range(3):
        if not isinstance(over, ast.Call) or (dotted(over.func) or "") not in _COUNTING_WRAPPERS:
            return None
        func = dotted(over.func) or ""
        if not over.args:
            return None
        if func.endswith("range"):
            count = over.args[1] if len(over.args) >= 2 else over.args[0]
            if len(over.args) == 2 and isinstance(count, ast.BinOp) \
                    and isinstance(count.op, ast.Add):
                # `range(FIRST, total + FIRST)`: shifted by its start, `total` passes
                start = ast.dump(over.args[0])
                if ast.dump(count.right) == start:
                    count = count.left
                elif ast.dump(count.left) == start:
                    count = count.right
            if isinstance(count, ast.Call) and (dotted(count.func) or "") in ("int", "round") \
                    and len(count.args) == 1:
                count = count.args[0]
            return dotted(count) if isinstance(count, (ast.Name, ast.Attribute)) else None
        over = over.args[0]
    return None


def _while_bound(node: ast.While, loop: Loop) -> str | None:
    """The name a ``while`` loop's pass counter is compared against (``while epoch <
    cfg.max_iter:`` with ``epoch += 1`` once per pass, or ``while cfg.max_iter > epoch:``):
    the number of passes it makes, as ``range(n)``'s ``n`` is for a ``for`` loop."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if isinstance(op, (ast.Lt, ast.LtE)) and dotted(left) in loop.counters:
        bound = right
    elif isinstance(op, (ast.Gt, ast.GtE)) and dotted(right) in loop.counters:
        bound = left
    else:
        return None
    return dotted(bound) if isinstance(bound, (ast.Name, ast.Attribute)) else None


def _horizon_names(ctx: FileContext, sched: Obj) -> Callable[[str], ast.expr | None]:
    """What a name in a scheduler's horizon is bound to: in the scope the scheduler was built
    in, else, for a parameter of the function that built it, what that call passed."""
    frame = next((c.frame for c in ctx.program.events if c.kind == "create" and c.obj is sched),
                 None)

    def horizon_name(name: str) -> ast.expr | None:
        if sched.scope is not None:
            found = sched.scope.source_of(name)
            if found is not None:
                return found[0]
        if frame is not None and frame.fn is not None and frame.call is not None \
                and name in {a.arg for a in [*frame.fn.args.posonlyargs, *frame.fn.args.args,
                                             *frame.fn.args.kwonlyargs]}:
            return frame.argument(name)
        return None

    return horizon_name


def _bound_to(tree: ast.Module | None, loop: ast.stmt, name: str) -> ast.expr | None:
    """What ``name`` is bound to just around ``loop``: ``with X as name:`` enclosing it, or a
    single ``name = X`` in the function (or module) that holds it."""
    if tree is None:
        return None
    holder: ast.AST | None = None
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)) and any(
                n is loop for n in ast.walk(fn)):
            holder = fn  # the innermost one wins: ast.walk goes outside in
    if holder is None:
        return None
    found: list[ast.expr] = []
    for n in ast.walk(holder):
        if isinstance(n, (ast.With, ast.AsyncWith)) and any(s is loop for b in n.body
                                                             for s in ast.walk(b)):
            found += [item.context_expr for item in n.items
                      if isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == name]
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], ast.Name) and n.targets[0].id == name:
            found.append(n.value)
    return found[0] if len(found) == 1 else None


def _only_traces_the_schedule(ctx: FileContext, e: Event, loop: Loop) -> bool:
    """A loop that trains nothing (no update anywhere in its program) and only steps the
    scheduler and records its LR: a visualisation of the schedule, whose steps stand for
    whatever the author says they are."""
    if any(u.kind in ("opt_step", "scaler_step", "backward", "scale_backward")
           for u in ctx.events_by_root.get(e.root, [])):
        return False
    for node in ast.walk(loop.node):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node.func, ast.Name) else "")
            if name not in _RECORDING_CALLS:
                return False
    return True


def _steps_without_gradients(ctx: FileContext, e: Event, loop: Loop) -> bool:
    """The loop steps the optimizer, but nothing in the program computes a gradient (no
    ``backward``, scaled or not) and the loop calls nothing besides stepping, zeroing and
    recording (no forward pass, no loss): ``optimizer.step()`` over parameters whose ``.grad``
    is None changes nothing, so no update ever uses an LR value and none is skipped. It is a
    plot of the schedule that steps the optimizer only to keep PyTorch's order warning quiet
    (``for i in range(n): sched.step(); lrs.append(sched.get_last_lr()); opt.step()``)."""
    if any(u.kind in ("backward", "scale_backward")
           for u in ctx.events_by_root.get(e.root, [])):
        return False
    for node in ast.walk(loop.node):
        if isinstance(node, (ast.For, ast.AsyncFor)) and not _counts_only(node.iter):
            return False  # `for x in loader:` draws data: a batch the trace may not model
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node.func, ast.Name) else "")
            if name not in _RECORDING_CALLS and name not in ("zero_grad", "tqdm", "trange"):
                return False
    return True


def _counts_only(iterable: ast.expr) -> bool:
    """``range(n)``, ``trange(n)``, or one of them wrapped in ``enumerate``/``tqdm``: a loop
    over numbers that draws no data."""
    if not isinstance(iterable, ast.Call) or not iterable.args:
        return False
    name = dotted(iterable.func) or ""
    if name in ("range", "trange", "tqdm.trange"):
        return True
    return name in ("enumerate", "tqdm", "tqdm.tqdm") and _counts_only(iterable.args[0])


def _one_batch_per_epoch(ctx: FileContext, e: Event, loop: Loop, gran: str) -> bool:
    """Every batch loop the step is counted against draws the whole dataset in one batch
    (``DataLoader(ds, batch_size=len(ds))``, see the trace's ``_whole_dataset_batches``): a
    step per batch is a step per epoch, and a horizon in batches is one in epochs, so neither
    LRD002 nor LRD003 has anything to say."""
    if gran == "batch":
        return loop.iterates_loader and loop.passes == 1
    updates = [u for u in ctx.updates_in(loop, e.root, e.obj.optimizer if e.obj else None)
               if u.loop is not None and u.loop is not loop]
    return bool(updates) and all(u.loop.iterates_loader and u.loop.passes == 1
                                 for u in updates if u.loop is not None)


def _one_update_per_pass(ctx: FileContext, e: Event, loop: Loop) -> bool:
    """The loop that steps the scheduler makes its updates in its own body, one pass one
    update, and runs no batch loop inside (full-batch training on a graph or a small table:
    ``for epoch in range(n): loss = model(graph); loss.backward(); opt.step();
    sched.step()``): stepping once per pass is stepping once per update, whatever unit the
    horizon's names suggest; the same when each pass calls a helper that draws one batch and
    steps once (``for i in trange(args.epochs): train_step(...); sched.step()``: an epoch loop
    by its header alone). Not when a data loader's loop runs inside it (a whole epoch of
    batches accumulated into one update), or when some update sits in a nested loop."""
    if loop.contains_batch or loop.batch:
        return False
    updates = [u for u in ctx.events_by_root.get(e.root, [])
               if u.kind in ("opt_step", "scaler_step") and u.in_loop(loop)]
    return bool(updates) and all(u.loop is loop for u in updates)


def _last_batch_test(cond: Cond) -> bool:
    """The branch taken holds only on the last batch of an epoch: ``is_last_batch`` (Lightning's
    ``self.trainer.is_last_batch``), ``i == len(loader) - 1``, ``i + 1 == len(loader)``."""
    test = cond.test
    if cond.branch != 0 or test is None:
        return False
    if isinstance(test, (ast.Name, ast.Attribute)):
        name = test.id if isinstance(test, ast.Name) else test.attr
        return name in ("is_last_batch", "last_batch", "is_last_step_in_epoch")
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = [test.left, test.comparators[0]]
        if not any(isinstance(n, ast.Call) and (dotted(n.func) or "") == "len"
                   for side in sides for n in ast.walk(side)):
            return False
        return any(isinstance(side, ast.BinOp) and isinstance(side.right, ast.Constant)
                   and side.right.value == 1 for side in sides) or any(
            isinstance(side, ast.Name) and side.id in _counted_from_one(cond.loop)
            for side in sides)
    return False


def _counted_from_one(loop: Loop | None) -> set[str]:
    """The indexes that count the batches of ``loop`` (or of a loop around it) from 1:
    `for i, batch in enumerate(loader, start=1):` has `i == len(loader)` on the last batch."""
    out: set[str] = set()
    for lp in loop.ancestors() if loop is not None else ():
        node = lp.node
        if not isinstance(node, (ast.For, ast.AsyncFor)) or not isinstance(node.iter, ast.Call) \
                or dotted(node.iter.func) != "enumerate" \
                or not isinstance(node.target, ast.Tuple) or not node.target.elts \
                or not isinstance(node.target.elts[0], ast.Name):
            continue
        call = node.iter
        start = call.args[1] if len(call.args) > 1 else next(
            (k.value for k in call.keywords if k.arg == "start"), None)
        if isinstance(start, ast.Constant) and start.value == 1 \
                and not isinstance(start.value, bool):
            out.add(node.target.elts[0].id)
    return out


def _option_prefix(ctx: FileContext, e: Event) -> str:
    """"When `args.sched == "cosine"`, " for a step on one of several schedulers a setting
    chooses between, from the branch that built this option; "" otherwise (or when the
    branch's test is too long to quote)."""
    sched = e.obj
    if sched is None or not _chosen(e):
        return ""
    built = next((c for c in ctx.program.events if c.kind == "create" and c.obj is sched), None)
    if built is None:
        return ""
    shared = {(c.key, c.branch) for c in e.conds}
    own = [c for c in built.conds if (c.key, c.branch) not in shared and c.test is not None]
    if not own:
        return ""
    # `elif args.sched == "cosine":` says it all; the tests it passed on the way are noise.
    # An option built in the `else` of an inner test (`if args.sched: if args.sched ==
    # "exp": ... else: CosineAnnealingLR(...)`) also names that test, negated.
    # The tests of the caller that reached the choice (`if cfg.type == "trainer_e2e":`
    # around a call of the builder that picks by its own section's `cfg.type`) are another
    # file's: only the builder's file says which option this is.
    own = [c for c in own if c.key[0] == own[-1].key[0]]
    taken = [c for c in own if c.branch == 0] or own
    if own[-1] not in taken:
        taken.append(own[-1])
    text = " and ".join(c.text if c.branch == 0 else _holds(c) for c in taken)
    if len(text) > 80:
        return ""
    return f"When `{text}`, "


def _chosen(e: Event) -> bool:
    """A call on one of several schedulers a setting chooses between (see UnionVal)."""
    return any(c.key[0] == "<choice>" for c in e.conds)


def _taken_whenever_built(conds: list[Cond], sched: Obj) -> bool:
    """Every test around the step holds on the branches ``sched`` was built on: built under
    ``if args.sched == "warmup":`` and stepped under ``elif args.sched == "warmup":`` (after
    ``if args.sched == "plateau": pass``), the setting that chose this scheduler is the one
    that takes the step, so whenever it is the scheduler it is stepped there."""
    built = sched.built_under or ()
    return bool(built) and all(taken_by_build(c, built) is True for c in conds)


def _tests_existence(cond: Cond, e: Event) -> bool:
    """``if self.scheduler is not None: self.scheduler.step()`` (or ``if scheduler:``): the
    test only asks whether the stepped object exists, which is the same on every batch, so
    the step still runs once per batch."""
    test = cond.test
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and isinstance(test.ops[0], (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) \
            and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        test = test.left
    if not isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)):
        return False
    text = ast.unparse(test)
    # stepped under another name (`if scheduler is not None: for cb in callbacks:
    # cb.on_batch_end()`, the callback stepping `self.target`): the test still asks whether
    # the object exists when it names the scheduler as it was bound where it was built
    if text == receiver(e):
        return True
    obj = e.obj
    if obj is None or obj.guessed:
        return False
    held = {f"self.{attr}" for _, attr in obj.held}
    return text == obj.name or text in held


def _batch_consequence(sched: Obj) -> str:
    if sched.cls == "OneCycleLR":
        epochs, per_epoch = sched.arg("epochs", 3), sched.arg("steps_per_epoch", 4)
        if epochs is not None and per_epoch is not None:
            e, p = ast.unparse(epochs), ast.unparse(per_epoch)
            n = literal_value(epochs, sched.scope)
            if n is not None:
                return (f"after {n:g} epochs it has taken {n:g} of its {n:g} * {p} steps, so it "
                        "ends inside the warm-up and never anneals")
            return (f"it takes one of its {e} * {p} steps per epoch, so it ends inside the "
                    "warm-up and never anneals")
        return "it takes one of its steps per epoch, ends inside the warm-up and never anneals"
    if sched.cls == "CyclicLR":
        return "one cycle takes thousands of epochs, so the LR barely moves"
    if sched.origin == "hf":
        return "the warm-up alone lasts for num_warmup_steps epochs and the decay never happens"
    return "the schedule advances one step per epoch and ends far from complete"


def _stepped_each_update_by_hand(ctx: FileContext, sched: Obj) -> bool:
    """The module steps the scheduler configure_optimizers returned itself, on every batch
    (``self.lr_schedulers().step()`` in ``optimizer_step`` or ``on_train_batch_end``, with
    no test around it): its horizon in batches is run through at that pace, whatever Lightning
    adds at the end of each epoch (LRD012 says so at the call), so the schedule does not
    advance "once per epoch". The scheduler is matched by where it is built: each trace (the
    module's class, a driver that instantiates it) makes its own object for the one
    ``configure_optimizers`` call, and the hand step is the same object's in Python."""
    return any(e.kind == "sched_step" and _same_construction(e.obj, sched) and not e.conds
               and e.loop is not None and e.loop.granularity == "batch" and _plain_step(e)
               for events in ctx.events_by_root.values() for e in events)


def _same_construction(a: Obj | None, b: Obj) -> bool:
    """``a`` and ``b`` stand for one scheduler: the same traced object, or two traces' objects
    built by the same constructor call of the same file."""
    return a is b or (a is not None and a.call is not None and a.call is b.call
                      and a.path == b.path)


def _lightning(ctx: FileContext) -> Iterator[tuple[Diagnostic, Obj]]:
    for node, path, value in ctx.program.lightning:
        for returned, interval in _lightning_schedulers(value):
            # the warm-up wrapper of the pip package hands every step after its warm-up to
            # the scheduler it holds: Lightning steps that one at the wrapper's interval
            sched = _handed_on_by_gradual_warmup(returned) or returned
            if sched is returned and sched.guessed or sched.origin == "timm" \
                    or sched.cls == "ReduceLROnPlateau":
                continue
            h = horizon_of(sched)
            if interval in (None, "epoch") and h.unit == "batch" and not _epochs_by_its_size(h):
                how = "without \"interval\": \"step\"" if interval is None else \
                    "with \"interval\": \"epoch\""
                yield Diagnostic.at(
                    "LRD003",
                    f"{label(sched, h)} ({line_at(sched.path, sched.line, path)}) is returned "
                    "from "
                    f"configure_optimizers {how}: Lightning steps it once per epoch, but its "
                    f"horizon is counted in batches; {_batch_consequence(sched)}",
                    path,
                    node,
                    evidence={"scheduler": f"{sched.path}:{sched.line}"},
                ), sched
            elif interval == "step" and _collapsing_gamma(sched) is not None:
                gamma = _collapsing_gamma(sched)
                assert gamma is not None
                yield Diagnostic.at(
                    "LRD002",
                    f"ExponentialLR(gamma={gamma:g}) ({line_at(sched.path, sched.line, path)}) is "
                    "returned with "
                    f"\"interval\": \"step\", so Lightning steps it every batch: "
                    f"{_per_step_decay(gamma, 'batch', 'batches')}",
                    path,
                    node,
                ), sched
            elif interval == "step" and (h.unit == "epoch" or _small_literal(sched, h)):
                yield Diagnostic.at(
                    "LRD002",
                    f"{label(sched, h)} ({line_at(sched.path, sched.line, path)}) is returned "
                    "with \"interval\": "
                    f"\"step\", so Lightning steps it every batch, but its horizon "
                    f"({h.described}) is sized in epochs: {_epoch_consequence(sched, h)}",
                    path,
                    node,
                ), sched


def _lightning_project(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler of the project's own class (a subclass of torch's base whose ``get_lr()``
    sets the step count against the horizons its constructor stores) returned from
    configure_optimizers without ``"interval": "step"``, built with horizons all sized in
    batches (``total_epoch=self.num_train_steps``): Lightning steps it once per epoch, as it
    would a built-in one. The class's own step() must still advance torch's count (it calls
    ``super().step()``); a horizon sized in epochs, or none read, says nothing."""
    for node, path, value in ctx.program.lightning:
        found: list[tuple[Any, Any, ast.Call, str | None]] = []
        for sched, interval in _lightning_schedulers(value):
            if sched.project is not None and sched.via is not None \
                    and not horizon_of(sched).unit and advances_torch_count(sched.project[0]):
                found.append((sched.project[0], sched.project[1], sched.via, interval))
        for instance, interval in _lightning_project_schedulers(value):
            if instance.built is not None and advances_torch_count(instance.info):
                call, scope = instance.built
                found.append((instance.info, scope, call, interval))
        for cls, scope, call, interval in found:
            if interval not in (None, "epoch"):
                continue
            horizons = class_horizons(cls, scope, call)
            in_batches = [h for h in horizons if h.unit == "batch"]
            if not in_batches or any(h.unit == "epoch" for h in horizons):
                continue
            h = next((h for h in in_batches if "warm" not in h.param.lower()), in_batches[0])
            how = "without \"interval\": \"step\"" if interval is None else \
                "with \"interval\": \"epoch\""
            yield Diagnostic.at(
                "LRD003",
                f"{getattr(cls, 'name', '') or 'the scheduler'}({h.described}) (line "
                f"{call.lineno}) is returned from configure_optimizers {how}: Lightning steps "
                "it once per epoch, but its horizon is counted in batches; the schedule "
                "advances one step per epoch and ends far from complete",
                path,
                node,
            )


def _lightning_schedulers(value: Any, depth: int = 0) -> Iterator[tuple[Obj, str | None]]:
    """(scheduler, interval) pairs from a configure_optimizers return value; interval is
    None when not given and "?" when not a literal."""
    for sched, interval in _lightning_entries(value, depth):
        if isinstance(sched, Obj):
            yield sched, interval


def _lightning_project_schedulers(value: Any) -> Iterator[tuple[InstanceVal, str | None]]:
    """As ``_lightning_schedulers``, the instances of the project's own scheduler classes that
    write a step() of their own (traced as instances, not as schedulers of known class)."""
    for sched, interval in _lightning_entries(value):
        if isinstance(sched, InstanceVal):
            yield sched, interval


def _lightning_entries(value: Any, depth: int = 0
                       ) -> Iterator[tuple[Obj | InstanceVal, str | None]]:
    if depth > 4:
        return
    if isinstance(value, DictVal):
        if "lr_scheduler" in value.items:
            yield from _scheduler_entry(value.items["lr_scheduler"])
        elif "scheduler" in value.items:
            yield from _scheduler_entry(value)
    elif isinstance(value, (TupleVal, UnionVal)):
        items = value.items if isinstance(value, TupleVal) else value.options
        if (
            len(items) == 2
            and isinstance(items[1], (TupleVal, Obj, DictVal, InstanceVal))
            and not isinstance(items[0], DictVal)
        ):
            second = items[1]
            for entry in second.items if isinstance(second, TupleVal) else [second]:
                yield from _scheduler_entry(entry)
        else:
            for item in items:
                if isinstance(item, DictVal):
                    yield from _lightning_entries(item, depth + 1)


def _is_scheduler(entry: Any) -> bool:
    return isinstance(entry, Obj) and entry.kind == "scheduler" \
        or isinstance(entry, InstanceVal) and entry.built is not None


def _scheduler_entry(entry: Any, depth: int = 0
                     ) -> Iterator[tuple[Obj | InstanceVal, str | None]]:
    if depth > 4:
        return
    if _is_scheduler(entry):
        yield entry, None
    elif isinstance(entry, DictVal):
        sched = entry.items.get("scheduler")
        if not isinstance(sched, (Obj, InstanceVal)) or not _is_scheduler(sched) \
                or entry.splat:
            return
        yield sched, lightning_interval(entry)
    elif isinstance(entry, TupleVal):
        for item in entry.items:
            yield from _scheduler_entry(item, depth + 1)


# -- LRD004 ------------------------------------------------------------------------------------


@rule("LRD004")
def plateau_metric(ctx: FileContext) -> Iterator[Diagnostic]:
    base = ctx.path.replace("\\", "/").rsplit("/", 1)[-1]
    unit_tests = base.startswith("test_") or base.endswith("_test.py")
    validation = sorted(
        (n for n in ctx.program.assigned_names if names.VALIDATION_WORDS.search(n.lower())),
        key=lambda n: (not (names.LOSS_WORDS.search(n) or names.ACC_WORDS.search(n)), n),
    )
    validation_calls = sorted(
        n for n in ctx.program.called_names  # validate(), evaluate(); not model.eval()
        if names.VALIDATION_WORDS.search(n.lower()) and n not in ("eval", "test")
    )
    # per step followed out to what its callers passed: (the event, what its verdict is, the
    # finding or None); one call of a helper that its callers give different values is
    # judged only where they all agree
    followed: list[tuple[Event, str, Diagnostic | None]] = []
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        narrowed = sched.cls != "ReduceLROnPlateau" and sched.guessed and _narrowed_to_plateau(e)
        if sched.cls != "ReduceLROnPlateau" and not narrowed:
            continue
        node = e.node
        assert isinstance(node, ast.Call)
        chain = _metric_chain(e)
        if narrowed and chain is None:
            continue  # only what it watches is judged for a plateau known by the test alone
        if chain is None:
            # (only a test the metric step is not under guards the call: the choice of the
            # scheduler, or the `if __name__ == "__main__":` both sit in, is no guard)
            if any(_metric_step(other) and _guarded_apart(e, other)
                   for other in ctx.program.of("sched_step", sched)):
                # the same plateau is stepped with a metric elsewhere: a metric-less call would
                # raise the first time it ran, so this guarded one is a branch that never runs
                # (`if step == "batch": scheduler.step()` with step = "epoch")
                continue
            yield Diagnostic.at(
                "LRD004",
                f"{_option_prefix(ctx, e)}"
                f"`{receiver(e)}.step()` is called without a metric: ReduceLROnPlateau needs "
                "the value to watch and raises TypeError; pass the validation loss",
                e.path,
                node,
            )
            continue
        if sched.call is not None and _never_reduces(sched.call):
            continue  # what it watches (and in which mode) never moves the LR
        counted = None if narrowed else _pass_index_watched(e, chain)
        if counted is not None:
            passed, loop = counted
            yield Diagnostic.at(
                "LRD004",
                f"ReduceLROnPlateau is stepped with `{ast.unparse(passed.expr)}`, the index of "
                f"the loop at {line_at(loop.path, loop.line, e.path)}: step(x) of a plateau "
                "reads x as the metric to watch, not as an epoch, and a counter that only "
                "grows is never an improvement in mode='min' (the LR is cut every `patience` "
                "passes) and always one in mode='max' (never cut); pass the validation metric",
                e.path,
                node,
            )
            continue
        verdict, found = _watched_verdict(ctx, e, chain, (validation, validation_calls),
                                          unit_tests, narrowed)
        if len(chain) > 1:
            followed.append((e, verdict, found))
        elif found is not None:
            yield found
    verdicts: dict[tuple[int, int], set[str]] = {}
    for e, verdict, _ in followed:
        verdicts.setdefault((id(e.node), id(e.obj)), set()).add(verdict)
    for e, _, found in followed:
        if found is not None and len(verdicts[id(e.node), id(e.obj)]) == 1:
            yield found


def _pass_index_watched(e: Event, chain: list[Passed]) -> tuple[Passed, Loop] | None:
    """The plateau step's metric, as the step reads it or as a caller passed it on, is the
    index of a loop the step runs in (`for epoch in range(n): ... scheduler.step(epoch)`, a
    `while` loop's counter) that the loop's body never rebinds: (that spelling, the loop),
    else None. A loop over values (`for loss in losses`) is no index."""
    for passed in chain:
        if passed.key is not None or not isinstance(passed.expr, ast.Name):
            continue
        name = passed.expr.id
        line = getattr(passed.at, "lineno", 0)
        for loop in e.loop.ancestors() if e.loop is not None else ():
            if loop.path != passed.path \
                    or not loop.node.lineno <= line <= (loop.node.end_lineno or 0):
                continue
            over = loop.node.iter if isinstance(loop.node, (ast.For, ast.AsyncFor)) else None
            counts = isinstance(loop.node, (ast.For, ast.AsyncFor)) \
                and isinstance(loop.node.target, ast.Name) and loop.node.target.id == name \
                and isinstance(over, ast.Call) and isinstance(over.func, ast.Name) \
                and over.func.id == "range"
            rebound = any(isinstance(n, ast.Name) and n.id == name
                          and isinstance(n.ctx, ast.Store) and not isinstance(up, ast.AugAssign)
                          for statement in loop.node.body for up in ast.walk(statement)
                          for n in ast.iter_child_nodes(up))
            if (counts or name in loop.counters) and not rebound:
                return passed, loop
    return None


def _watched_verdict(ctx: FileContext, e: Event, chain: list[Passed],
                     validation: tuple[list[str], list[str]], unit_tests: bool, narrowed: bool
                     ) -> tuple[str, Diagnostic | None]:
    """What a plateau step given a metric watches, judged from ``chain`` (the metric as the
    step reads it, then as each caller passed it): ("" , None) when it is fine, else the kind
    of fault and its finding."""
    sched = e.obj
    assert sched is not None
    node = e.node
    watched_at = _judged(chain)
    metric = watched_at.expr
    text = ast.unparse(metric)
    inner = ast.unparse(chain[0].expr) + (f"[{chain[0].key!r}]" if chain[0].key else "")
    line = getattr(watched_at.at, "lineno", 0)
    place = f"line {line}" if watched_at.path == e.path else \
        f"{display_path(watched_at.path)}:{line}"
    passed = "" if watched_at is chain[0] else f" (handed to `{inner}` at {place})"
    kinds = {k for k in (_kind_of(p.expr) for p in chain) if k}
    lower = text.lower()
    if not kinds and not names.ACC_WORDS.search(lower) and not names.LOSS_WORDS.search(lower):
        # `scheduler.step(validate(model, loader))`: the words of what the function returns
        returned = _returned_text(ctx, watched_at)
        if returned is not None:
            function, said = returned
            kinds = {k for k in [_kind_of(said)] if k}
            lower = ast.unparse(said).lower()
            passed += f" (`{function.name}` returns `{short_source(said)}`)"
    mode_expr = sched.arg("mode", 1)
    # the mode as the file states it: a literal, or a setting holding one (`CFG.mode`)
    stated = constants.resolve(mode_expr, sched.scope) if mode_expr is not None else None
    mode = stated if isinstance(stated, str) else (
        "min" if mode_expr is None and not sched.has_kwargs_splat() and not narrowed else None
    )
    acc_like = bool(names.ACC_WORDS.search(lower))
    loss_like = bool(names.LOSS_WORDS.search(lower))
    if sum(_reverses(p.expr) for p in chain) % 2:
        # `-val_loss`, `1 - val_acc`, `-1 * loss` handed on: the step watches the value the
        # words name with its order reversed, a negated loss rising as the loss falls
        acc_like, loss_like = loss_like, acc_like
        kinds = {"loss" if k == "acc" else "acc" for k in kinds}
        if not kinds and not acc_like and not loss_like:
            return "", None  # how the program keeps the value says nothing of its negation
    built = f"line {sched.line}" if sched.path in ("", e.path) else \
        f"{display_path(sched.path)}:{sched.line}"  # where the plateau is built
    # the mode as the message names it: where a setting holds it, which one
    mode_said = f"mode='{mode}'" + (f" (`{short_source(mode_expr)}`)" if mode_expr is not None
                                    and not isinstance(mode_expr, ast.Constant) else "")
    chosen = mode in ("min", "max") and _metric_chosen_by_setting(ctx, e, mode)
    if chosen:
        pass  # the mode fits the metric of the other branch of the setting
    elif mode == "min" and acc_like and not loss_like and kinds == {"acc"}:
        return "min-acc", Diagnostic.at(
            "LRD004",
            f"ReduceLROnPlateau ({built}) watches `{text}`{passed} with "
            f"{mode_said}, but it is an accuracy-like metric: the LR is cut whenever it "
            "improves; use mode='max'",
            e.path,
            node,
        )
    elif mode == "max" and loss_like and not acc_like and kinds == {"loss"}:
        return "max-loss", Diagnostic.at(
            "LRD004",
            f"ReduceLROnPlateau ({built}) watches `{text}`{passed} with "
            f"{mode_said}, but it is a loss: the LR is cut whenever the loss goes down; use "
            "mode='min'",
            e.path,
            node,
        )
    elif (mode == "min" and acc_like and not loss_like) or (
            mode == "max" and loss_like and not acc_like):
        return "", None  # the callers' names disagree on what it is
    elif mode in ("min", "max") and not kinds and not acc_like and not loss_like:
        kept = _direction_kept(ctx, chain)  # the words say nothing: how the program keeps it
        if kept is not None and (kept[0] == "higher") == (mode == "min"):
            better, test, kept_path = kept
            at = f"line {test.lineno}" if kept_path == e.path else \
                f"{display_path(kept_path)}:{test.lineno}"
            cut = "improves" if better == "higher" else "goes down, which is better"
            return f"{mode}-kept", Diagnostic.at(
                "LRD004",
                f"ReduceLROnPlateau ({built}) watches `{text}`{passed} with "
                f"mode='{mode}', but the program keeps its best value with "
                f"`{ast.unparse(test.test)}` ({at}): {better} is better, so the LR is cut "
                f"whenever it {cut}; use mode='{'max' if mode == 'min' else 'min'}'",
                e.path,
                node,
            )
    gran, loop = granularity(e)
    if gran == "batch" and not any(not _accumulation(c.meaning) for c in e.conds_inside(loop)):
        return "", None  # reported as LRD002 (patience counted in batches)
    watched = _aggregated(metric)  # np.mean(epoch_loss) watches epoch_loss
    evidence = _validation_of_run(ctx, e, validation)
    # a score the run computes on its training split (`train_acc`, `trainF1`) says as little
    # about generalisation as the training loss does
    scored = _is_training_score(watched)
    training = (_is_training_loss(watched) or scored
                or _meter_of_training_loss(ctx, watched_at)
                or _returned_training_loss(ctx, watched_at)) \
        and not any(_mentions_validation(p.expr) for p in chain) \
        or _copy_of_the_training_loss(ctx, watched_at, watched) \
        or _running_training_loss(ctx, watched_at, watched)
    if training and evidence and unit_tests:
        # each test of a unit-test module is a program of its own: what the module's other
        # tests (or the library code they call) name is no validation of this loop's run
        own = _names_in_test(ctx, e.path, e.node) | _names_in_test(
            ctx, watched_at.path, watched_at.at)
        evidence = [n for n in evidence if n in own]
    if training and evidence and not _computed_from_validation(
        ctx, watched_at.path, watched_at.at, watched
    ) and not any(_validation_first(ctx, p) for p in chain) and not any(
        other is not e and exclusive(other, e) and _metric_step(other)
        and not _is_training_loss(_aggregated(_watched(other).expr))
        and not _is_training_score(_aggregated(_watched(other).expr))
        for other in ctx.program.of("sched_step", sched)
    ):  # (a setting that picks the training or the validation loss is the user's choice)
        cited, where = _cited_validation(ctx, e, evidence)
        what = "training metric" if scored else "training loss"
        return "training-loss", Diagnostic.at(
            "LRD004",
            f"ReduceLROnPlateau is stepped with the {what} `{text}`{passed} while a "
            f"validation metric exists (`{cited}`{where}): it reacts to training noise, "
            "not to generalisation; pass the validation metric",
            e.path,
            node,
        )
    return "", None


def _returned_text(ctx: FileContext, watched_at: Passed
                   ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.expr] | None:
    """What a metric returned by a function says it is, with that function: the metric is a
    call of a function (see _function_returns: `validate(model, loader)`, `self.evaluate()`),
    or a name the function around bound last to such a call (`result = validate(...)`, or one
    position of `val_l, val_a = validate(...)`), and every `return` of that function returns
    one expression there, the same words each time (`return accuracy`). None otherwise."""
    found = _function_returns(ctx, watched_at)
    if found is None:
        return None
    function, returned = found
    if any(isinstance(r, ast.Tuple) for r in returned):
        return None
    kinds = {_kind_of(r) for r in returned}
    return (function, returned[0]) if len(kinds) == 1 and "" not in kinds else None


def _function_returns(ctx: FileContext, watched_at: Passed
                      ) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, list[ast.expr]] | None:
    """The function a metric comes from (one of its module, one the module imports from the
    project, or a method of the class around: see _called_function), and what each of its
    `return`s hands back there: the metric (its negation read through) is a call of that
    function, a name the function around bound last to such a call, one item of a tuple
    target bound to it (`val_l, val_a = validate(...)`: the item at that position of every
    return, each a tuple of as many items), or one item of the call's result taken by a
    literal index (`evaluate(...)[1]`: that item of every return, each a tuple long enough).
    None when any return is bare or not of that shape."""
    tree = ctx.tree_of(watched_at.path)
    module = ctx.module_of(watched_at.path)
    if tree is None or module is None or watched_at.key is not None:
        return None
    metric: ast.expr | None = watched_at.expr
    if isinstance(metric, ast.UnaryOp) and isinstance(metric.op, ast.USub):
        metric = metric.operand  # `-val_l`: which value is negated (the rule counts the sign)
    # (index, length) of `a, b = validate(...)`; (index, None) of `validate(...)[1]`
    position: tuple[int, int | None] | None = None
    if isinstance(metric, ast.Name):
        around = function_around(tree, watched_at.at)
        line = getattr(watched_at.at, "lineno", 0)
        unpacked = _unpacked_binding(around, metric.id, line)
        plain = _last_plain_assign(around, metric.id, line)
        if unpacked is not None and (plain is None or unpacked[0].lineno > plain.lineno):
            metric, position = unpacked[0].value, unpacked[1:]
        else:
            metric = plain.value if plain is not None else None
    if position is None and isinstance(metric, ast.Subscript) \
            and isinstance(metric.slice, ast.Constant) and type(metric.slice.value) is int \
            and metric.slice.value >= 0:
        position, metric = (metric.slice.value, None), metric.value
    if not isinstance(metric, ast.Call):
        return None
    function = _called_function(tree, module, metric)
    if function is None:
        return None
    returned = [n.value for n in ast.walk(function) if isinstance(n, ast.Return)
                and function_around(function, n) is function]
    if not returned or any(r is None for r in returned):
        return None
    if position is not None:
        index, length = position
        if not all(isinstance(r, ast.Tuple) and (len(r.elts) == length if length is not None
                                                 else len(r.elts) > index)
                   and not any(isinstance(x, ast.Starred) for x in r.elts) for r in returned):
            return None
        return function, [r.elts[index] for r in returned if isinstance(r, ast.Tuple)]
    return function, [r for r in returned if r is not None]


def _last_plain_assign(around: ast.AST, name: str, line: int) -> ast.Assign | None:
    """The last plain assignment to ``name`` before ``line`` in ``around`` (last_binding's)."""
    found: ast.Assign | None = None
    for node in ast.walk(around):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name \
                and node.lineno <= line and (found is None or node.lineno > found.lineno):
            found = node
    return found


def _returned_training_loss(ctx: FileContext, watched_at: Passed) -> bool:
    """The metric is what a module-level function of its file returns (see _function_returns)
    and every return hands back the loss that function backpropagates, summed or kept: a
    running sum or a list of its numbers (`total += loss.item()` ... `return total /
    len(loader)`, `losses.append(loss.item())` ... `return np.mean(losses)`), or a copy of it
    (`return loss.item()`). Such a function is a training pass; what it returns is its
    training loss, whatever the caller names it."""
    found = _function_returns(ctx, watched_at)
    if found is None:
        return False
    function, returned = found
    losses = {n.func.value.id for n in ast.walk(function)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
              and n.func.attr == "backward" and isinstance(n.func.value, ast.Name)}
    losses |= {name for name in {recorded_name(a) for n in ast.walk(function)
                                 if isinstance(n, ast.Call) for a in n.args} - {None}
               if name is not None and backpropagates(function, name)}
    if not losses:
        return False
    kept: set[str] = set()  # names that sum or collect the numbers of a backpropagated loss
    for node in ast.walk(function):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) \
                and isinstance(node.target, ast.Name) and recorded_name(node.value) in losses:
            kept.add(node.target.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "append" and isinstance(node.func.value, ast.Name) \
                and len(node.args) == 1 and recorded_name(node.args[0]) in losses:
            kept.add(node.func.value.id)
    for value in returned:
        base = _aggregated(value)
        while isinstance(base, ast.BinOp) and isinstance(base.op, (ast.Div, ast.Mult)):
            base = base.left
        if isinstance(base, ast.Name) and base.id in kept:
            continue
        if recorded_name(base) in losses and not isinstance(base, ast.Name):
            continue  # `return loss.item()`
        return False
    return True


def _unpacked_binding(around: ast.AST, name: str, line: int
                      ) -> tuple[ast.Assign, int, int] | None:
    """The last assignment before ``line`` in ``around`` that binds ``name`` as one item of a
    tuple target (``val_l, val_a = validate(...)``): (it, the name's index, the target's
    length); None when there is none or the target is starred or nested."""
    found: tuple[ast.Assign, int, int] | None = None
    for node in ast.walk(around):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], (ast.Tuple, ast.List))
                and node.lineno <= line and (found is None or node.lineno > found[0].lineno)):
            continue
        elts = node.targets[0].elts
        if any(not isinstance(x, ast.Name) for x in elts):
            continue
        for i, x in enumerate(elts):
            if isinstance(x, ast.Name) and x.id == name:
                found = (node, i, len(elts))
    return found


def _direction_kept(ctx: FileContext, chain: list[Passed]) -> tuple[str, ast.If, str] | None:
    """Which way the program itself says a metric is better: a test in the function that reads
    it (as the step reads it, or as a caller passed it on) that stores it as the new best
    (``if metric > best: best = metric`` says higher; ``if metric < best: best = metric`` or
    ``if best > metric: ...`` says lower). ("higher" | "lower", the test, its file), or None
    when no such test is written, or tests keep it both ways."""
    found: dict[str, tuple[ast.If, str]] = {}
    for passed in chain:
        if passed.key is not None or not isinstance(passed.expr, (ast.Name, ast.Attribute)):
            continue
        tree = ctx.tree_of(passed.path)
        if tree is None:
            continue
        text = ast.unparse(passed.expr)
        for node in ast.walk(function_around(tree, passed.at)):
            if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare) \
                    or len(node.test.ops) != 1:
                continue
            op = node.test.ops[0]
            if not isinstance(op, (ast.Gt, ast.GtE, ast.Lt, ast.LtE)):
                continue
            left, right = node.test.left, node.test.comparators[0]
            if ast.unparse(left) == text:
                best, higher = right, isinstance(op, (ast.Gt, ast.GtE))
            elif ast.unparse(right) == text:
                best, higher = left, isinstance(op, (ast.Lt, ast.LtE))
            else:
                continue
            kept = ast.unparse(best)
            if any(isinstance(s, ast.Assign) and ast.unparse(s.value) == text
                   and any(ast.unparse(target) == kept for target in s.targets)
                   for s in node.body):
                found.setdefault("higher" if higher else "lower", (node, passed.path))
    if len(found) != 1:
        return None
    (better, (test, path)), = found.items()
    return better, test, path


def _meter_of_training_loss(ctx: FileContext, watched_at: Passed) -> bool:
    """The metric is a meter's summary (`opt.losses.avg`) and every place that fills the
    meter, in its file or in the project modules that file imports names from (`from engine
    import train_epoch`), fills it with the loss that place backpropagates."""
    tree = ctx.tree_of(watched_at.path)
    if tree is None:
        return False
    module = ctx.module_of(watched_at.path)
    imported: dict[str, ast.AST] = {}
    if module is not None and ctx.loader is not None:
        for qualname in module.imports.values():
            found = ctx.loader.module_for(qualname, module)
            if found is not None and found[0].path != module.path:
                imported[found[0].path] = found[0].tree
    return holds_backpropagated_loss(tree, watched_at.expr, watched_at.at,
                                     list(imported.values()))


def _validation_of_run(ctx: FileContext, e: Event, validation: tuple[list[str], list[str]]
                       ) -> list[str]:
    """The validation metrics that count for the run stepping ``e``: of ``validation`` (every
    name the program assigns that says validation, then every such function it calls), those
    the run computes while it trains (`_during_run`), less those it computes from nothing. A
    trainer subclass made to train without validation overrides the per-batch validation
    method its base's validation pass sums with an empty body: where each validation value
    this run assigns is built in a call that bound what such a method returns, the
    statements that assign them name no validation metric, whatever other subclasses compute
    there. A name assigned anywhere else (or by a call the trace replayed from its summary,
    whose assignments it does not list) still counts. The functions called count where no
    name assigned during the run does."""
    assigned, calls = validation
    assigned = [n for n in assigned if not _parts_of_training_value(ctx, n)
                and not _feeds_training_loss(ctx, n)]
    if not assigned:
        return _during_run(ctx, e, calls)
    sites = ctx.program.validation_sites
    own = [s for s in sites if s[4] == e.root]
    # the statements this run ran only in such a call
    hollow = {s[1:4] for s in own if s[5]} - {s[1:4] for s in own if not s[5]}
    if hollow:
        listed = {s[0] for s in sites}
        assigned = [n for n in assigned if n not in listed or any(
            s[0] == n and s[1:4] not in hollow for s in sites)]
        if not assigned:
            return []
    return _during_run(ctx, e, assigned) or _during_run(ctx, e, calls)


_VAL_WORD = re.compile(r"(^|_)(val|vali|valid|validation)(_|$|\d)")


def _parts_of_training_value(ctx: FileContext, name: str) -> bool:
    """Every place the trace binds ``name`` (a name that says validation) is the target of a
    loop over the parts of a training value: `for key, loss_val in loss.items():` where the
    function around backpropagates `loss`, or over a collection whose name says training and
    not validation (`for key, loss_val in train_loss_total.items():`). There `val` is short
    for value: each is a component of the training loss, not a validation metric."""
    sites = [s for s in ctx.program.validation_sites if s[0] == name]
    if not sites:
        return False
    for _, path, line, col, _, _ in sites:
        tree = ctx.tree_of(path)
        loop = None if tree is None else next(
            (node for node in ast.walk(tree)
             if isinstance(node, (ast.For, ast.AsyncFor)) and node.lineno == line
             and any(isinstance(t, ast.Name) and t.id == name and t.col_offset == col
                     for t in ast.walk(node.target))), None)
        if tree is not None and loop is None and _copies_backpropagated(tree, line, col, name):
            continue  # `loss_val = loss.item()` after `loss.backward()`: the training loss
        if tree is None or loop is None:
            return False
        over = loop.iter
        while isinstance(over, (ast.Call, ast.Attribute, ast.Subscript)):
            over = over.func if isinstance(over, ast.Call) else over.value
        if not isinstance(over, ast.Name):
            return False
        said = [w.lower() for w in names.words(over.id)]
        if any(names.VALIDATION_WORDS.search(w) for w in said):
            return False
        if not any("train" in w for w in said) \
                and not backpropagates(ctx.function_of(path, loop) or tree, over.id):
            return False
    return True


def _copy_of_the_training_loss(ctx: FileContext, watched_at: Passed, watched: ast.expr) -> bool:
    """The metric is a name that every binding of it in the function around the step makes a
    copy of the loss just backpropagated (`loss_val = loss.item()` after `loss.backward()`,
    see _copies_backpropagated), whatever its name says: the training loss. A name also
    accumulated (`+=`) or bound any other way is not."""
    if not isinstance(watched, ast.Name):
        return False
    tree = ctx.tree_of(watched_at.path)
    if tree is None or not isinstance(tree, ast.Module):
        return False
    name, copies = watched.id, 0
    for node in ast.walk(function_around(tree, watched_at.at)):
        if isinstance(node, ast.NamedExpr) and node.target.id == name:
            return False
        if isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)) \
                and _binds(node, name) and not any(
                    _binds(s, name) for s in getattr(node, "body", [])):
            return False
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target)):
                if not (isinstance(target, ast.Name)
                        and _statement_copies_backpropagated(tree, node, name)):
                    return False
                copies += 1
    return copies > 0


def _running_training_loss(ctx: FileContext, watched_at: Passed, watched: ast.expr) -> bool:
    """The metric is a name the function around the step keeps as a running figure of the loss
    it backpropagates: every binding of it there either starts it (a literal: `None`, `0.0`)
    or folds the number of that loss into its own previous value (`avg = update_mean(avg,
    loss.item(), n)`, `ema = 0.9 * ema + 0.1 * loss.item()`, `avg += loss.item()`; a list
    started empty and appended to, `seen.append(float(loss))`, read through `np.mean`), each
    after the code before it backpropagates that loss (see _statement_copies_backpropagated),
    and at least one folds. A running mean, sum or moving average of the training loss is
    the training loss, whatever it is named (divided by a count or not: `total / len(loader)`);
    a figure folded from a loss the code computed anew without backpropagating it (a
    validation pass reusing the name) is not."""
    while isinstance(watched, ast.BinOp) and isinstance(watched.op, (ast.Div, ast.Mult)):
        watched = watched.left
    if isinstance(watched, ast.Call) and len(watched.args) == 1 and not watched.keywords \
            and (dotted(watched.func) or "").rsplit(".", 1)[-1] in _AVERAGES:
        watched = watched.args[0]  # `np.mean(seen)`, `sum(seen) / len(seen)`
    if not isinstance(watched, ast.Name):
        return False
    tree = ctx.tree_of(watched_at.path)
    if tree is None or not isinstance(tree, ast.Module):
        return False
    name, folds = watched.id, 0
    scope = function_around(tree, watched_at.at)
    for node in ast.walk(scope):
        if isinstance(node, ast.NamedExpr) and node.target.id == name:
            return False
        if isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)) \
                and _binds(node, name) and not any(
                    _binds(s, name) for s in getattr(node, "body", [])):
            return False
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                and node is not scope and name in {a.arg for a in node.args.args}:
            return False  # another function's parameter of that name
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) \
                and isinstance(node.value.func.value, ast.Name) \
                and node.value.func.value.id == name and node.value.func.attr == "append":
            # `seen.append(float(loss))`: a list of the losses, one item a fold
            if len(node.value.args) != 1 or node.value.keywords \
                    or not _folds_backpropagated(tree, node, name):
                return False
            folds += 1
            continue
        if isinstance(node, ast.AugAssign):
            if not (isinstance(node.target, ast.Name) and node.target.id == name):
                continue
            if not isinstance(node.op, ast.Add) or not _folds_backpropagated(tree, node, name):
                return False
            folds += 1
            continue
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if not any(isinstance(n, ast.Name) and n.id == name
                   for target in targets for n in ast.walk(target)):
            continue
        if not all(isinstance(target, ast.Name) for target in targets) or node.value is None:
            return False
        if _literal_start(node.value) or isinstance(node.value, ast.List) and not node.value.elts:
            continue
        if not any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
                   for n in ast.walk(node.value)) \
                or not _folds_backpropagated(tree, node, name):
            return False
        folds += 1
    return folds > 0


def _literal_start(value: ast.expr) -> bool:
    """`None`, a number or a negated number: the value a running figure starts from."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and (
        value.value is None or isinstance(value.value, (int, float)))


# what reduces a list of losses to one number
_AVERAGES = frozenset({"mean", "nanmean", "average", "sum", "fsum", "median", "fmean"})


def _folds_backpropagated(tree: ast.Module,
                          stmt: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr,
                          name: str) -> bool:
    """``stmt``, rebinding ``name``, reads the number of a loss other than ``name`` itself
    (`loss.item()`, `float(loss)` anywhere in its value) that the code before it
    backpropagates (see _statement_copies_backpropagated)."""
    assert stmt.value is not None
    bases = {recorded_name(n) for n in ast.walk(stmt.value)
             if isinstance(n, (ast.Call, ast.BinOp))} - {None, name}
    return any(_statement_copies_backpropagated(tree, stmt, name, base)
               for base in sorted(b for b in bases if b is not None))


def _copies_backpropagated(tree: ast.Module, line: int, col: int, name: str) -> bool:
    """The statement binding ``name`` at (``line``, ``col``) copies the number of a value the
    code before it backpropagates (see _statement_copies_backpropagated)."""
    stmt = next((node for node in ast.walk(tree)
                 if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno == line
                 and node.value is not None
                 and any(isinstance(t, ast.Name) and t.id == name and t.col_offset == col
                         for t in (node.targets if isinstance(node, ast.Assign)
                                   else [node.target]))), None)
    return stmt is not None and _statement_copies_backpropagated(tree, stmt, name)


def _statement_copies_backpropagated(tree: ast.Module,
                                     stmt: ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Expr,
                                     name: str, base: str | None = None) -> bool:
    """``stmt``, binding ``name``, copies the number of a value the code before it
    backpropagates: `loss_val = loss.item()` (`float(loss)`,
    `loss.detach()`) where the statements before it in its block, or in the blocks around,
    reach `loss.backward()` (`scaler.scale(loss).backward()`, `accelerator.backward(loss)`)
    before any statement that binds `loss` anew, or the statements after it in its own block
    do (`loss_val = loss.item()` then `loss.backward()`). There `val` is short for value: the name
    holds the training loss of the update just made, not a validation metric."""
    if stmt.value is None:
        return False
    return _value_copies_backpropagated(tree, stmt, stmt.value, name, base)


def _value_copies_backpropagated(tree: ast.Module, stmt: ast.stmt, value: ast.expr,
                                 name: str, base: str | None = None) -> bool:
    """``value``, read by ``stmt`` (which binds or fills ``name``), is the number of a value
    (``base``, else the one ``value`` records) the code before ``stmt`` backpropagates, or the
    statements after it in its own block do (see _statement_copies_backpropagated)."""
    if base is None:
        base = recorded_name(value)
    if base is None or base == name:
        return False
    parents = constants.parent_map(tree)
    at: ast.AST = stmt
    while not isinstance(at, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)):
        holder = parents.get(id(at))
        if holder is None:
            return False
        block = block_of(holder, at) if isinstance(at, ast.stmt) else None
        if block is not None:
            here = next(i for i, s in enumerate(block) if s is at)
            if at is stmt and _flows_into_backward(block[here + 1:], base, 0):
                return True  # `loss_val = loss.item()` then `loss.backward()`
            for before in reversed(block[:here]):
                if backpropagates(before, base):
                    return True
                if _binds(before, base):
                    return False  # bound anew (a validation pass reusing the name)
        at = holder
    return False


def _feeds_training_loss(ctx: FileContext, name: str) -> bool:
    """``name`` (a name that says validation) is read in computing a loss the code
    backpropagates: a statement of the file that binds it (`loss = loss_fn(logits,
    y_train_dev)`) is followed in its block by `loss.backward()` (or
    `scaler.scale(loss).backward()`, `accelerator.backward(loss)`) before any statement
    binds `loss` anew. What the model is trained on is training data, whatever its name
    says (`dev` for a device); a validation pass that reuses the name `loss` does not
    backpropagate it."""
    for path in dict.fromkeys(s[1] for s in ctx.program.validation_sites if s[0] == name):
        tree = ctx.tree_of(path)
        if tree is None:
            continue
        parents = constants.parent_map(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and any(isinstance(n, ast.Name) and n.id == name
                            for n in ast.walk(node.value))):
                continue
            holder = parents.get(id(node))
            block = block_of(holder, node) if holder is not None else None
            if block is None:
                continue
            here = next(i for i, s in enumerate(block) if s is node)
            if _flows_into_backward(block[here + 1:], node.targets[0].id, 2):
                return True
    return False


def _flows_into_backward(after: list[ast.stmt], name: str, depth: int) -> bool:
    """Of the statements ``after`` (those that follow in a block), one backpropagates
    ``name``, or binds a plain name from it that the statements after that backpropagate
    (`logits = head(x_dev)`, then `loss = loss_fn(logits, y)` and `loss.backward()`; at most
    ``depth`` such links), before any binds ``name`` anew."""
    for i, stmt in enumerate(after):
        if backpropagates(stmt, name):
            return True
        if depth > 0 and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                and isinstance(stmt.targets[0], ast.Name) and stmt.targets[0].id != name \
                and any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt.value)) \
                and _flows_into_backward(after[i + 1:], stmt.targets[0].id, depth - 1):
            return True
        if _binds(stmt, name):
            return False
    return False


def _binds(stmt: ast.stmt, name: str) -> bool:
    """The statement (or one inside it) binds the plain name ``name``."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               for n in ast.walk(stmt))

    return False


def _bound_only_in_training(ctx: FileContext, name: str) -> bool:
    """Every place the program binds ``name`` lies inside a loop that steps an optimizer on
    each pass (a training batch loop)."""
    sites = [s for s in ctx.program.validation_sites if s[0] == name]
    if not sites:
        return False
    training = {id(ev.loop): ev.loop for ev in ctx.program.events
                if ev.kind in ("opt_step", "scaler_step") and ev.loop is not None}

    def inside(path: str, line: int) -> bool:
        return any(loop.path == path and loop.node.lineno <= line
                   <= (loop.node.end_lineno or loop.node.lineno)
                   for loop in training.values())
    return all(inside(s[1], s[2]) for s in sites)


def _cited_validation(ctx: FileContext, e: Event, evidence: list[str]) -> tuple[str, str]:
    """Which of ``evidence`` (the validation names that count for the run stepping ``e``,
    metric-worded ones first) a finding names, and where (", line N", or "" when not known).
    A value that says loss or accuracy comes first; then what a loop inside a pass of the run
    goes over (`for data in tqdm(validation_generator):`, the validation pass itself), cited
    at that loop; then the rest as they come. A count or a setting that merely says
    validation (`len_validation_generator`, `val_interval`) is no metric to point the user
    at while the pass itself is there. A name is cited where the run binds it, else where
    the run reads it (`evaluate(model, loader_for_val)`), else where it is bound."""
    # a name bound only inside a loop that steps an optimizer is computed from training
    # batches (`eval_losses = []` refilled per training batch), whatever it is called: cite
    # a validation value bound elsewhere first, one that says validation before one that
    # says test
    evidence = sorted(evidence, key=lambda n: (_bound_only_in_training(ctx, n),
                                               not _VAL_WORD.search(n.lower())))
    metric = [n for n in evidence if names.LOSS_WORDS.search(n) or names.ACC_WORDS.search(n)]
    run = _run_loop(e)
    if not metric and run is not None:
        for loop in ctx.program.loops:
            if loop is run or loop.over_node is None \
                    or not any(a is run for a in loop.ancestors()):
                continue
            over = {dotted(n) for n in ast.walk(loop.over_node)
                    if isinstance(n, (ast.Name, ast.Attribute))}
            gone_over = next((n for n in evidence if n in over), None)
            if gone_over is not None:
                return gone_over, _cited_line(e, loop.path, loop.line)
    cited = (metric or evidence)[0]
    sites = sorted((s[4] != e.root, s[1] != e.path, s[2], s[1])
                   for s in ctx.program.validation_sites if s[0] == cited)
    if run is not None:
        first, last = run.line, run.node.end_lineno or run.line
        inside = [s for s in sites if s[3] == run.path and first <= s[2] <= last]
        if inside:
            return cited, _cited_line(e, run.path, inside[0][2])
        read = sorted(node.lineno for node in ast.walk(run.node)
                      if isinstance(node, (ast.Name, ast.Attribute))
                      and isinstance(node.ctx, ast.Load) and dotted(node) == cited)
        if read:
            return cited, _cited_line(e, run.path, read[0])
    if not sites:
        return cited, ""
    return cited, _cited_line(e, sites[0][3], sites[0][2])


def _cited_line(e: Event, path: str, line: int) -> str:
    return f", {line_at(path, line, e.path)}"


def _run_loop(e: Event) -> Loop | None:
    """The loop whose passes are the run that steps ``e``: the innermost loop around the step
    that is not a batch loop (its epoch loop), else the outermost loop of updates."""
    run = next((loop for loop in e.loop.ancestors() if loop.granularity != "batch"),
               None) if e.loop is not None else None
    if run is None:
        run = e.loop
        while run is not None and run.parent is not None:
            run = run.parent  # a loop of updates alone: the outermost one
    return run


def _during_run(ctx: FileContext, e: Event, found: list[str]) -> list[str]:
    """Of ``found`` (names that say validation), those bound or called while the run that
    steps ``e`` trains: in a pass of the loop the plateau steps in (its epoch loop, where it
    steps in a batch loop), or in another trace (a hook a framework calls) outside any loop or
    in a pass over data. A name this same trace binds only outside that loop, before
    training (an `att_val` parsed from a data file's header, the `val_loader` built for
    later) or after it (a test metric computed once training is over), or another trace
    binds in loops over no data (a sampler's `val = randint(...)` index), is no metric the
    plateau could have watched instead. Nothing is left out of a trace cut short."""
    run = _run_loop(e)
    if run is None or ctx.program.truncated:
        return found
    where: dict[str, list[tuple[int, Loop | None]]] = {}
    for name, root, loop in ctx.program.validation_runs:
        where.setdefault(name, []).append((root, loop))
    # what the run's passes read (`evaluate(model, val_loader)` in the epoch loop), and go
    # over in the functions they call (`for data in test_generator:`): a validation pass
    # over a loader built before the run
    read = [run.node, *(loop.over_node for loop in ctx.program.loops
                        if loop.over_node is not None and loop is not run
                        and any(a is run for a in loop.ancestors()))]
    used = {text for tree in read for node in ast.walk(tree)
            if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load)
            for text in (dotted(node) or "", getattr(node, "attr", ""))}
    siblings = _sibling_roots(ctx, e.root)
    return [n for n in found if n not in where or n in used or any(
        (loop is None or any(a.batch or a.iterates_loader for a in loop.ancestors()))
        and root not in siblings
        if root != e.root else loop is not None and any(a is run for a in loop.ancestors())
        for root, loop in where[n])]


def _sibling_roots(ctx: FileContext, root: int) -> set[int]:
    """The roots tracing an instance of a sibling of the class ``root`` traces: another
    subclass of one of its project base classes, neither class a base of the other
    (`MainTrainer` and `GSTrainer` both filling in `BaseTrainer`'s template). A sibling's
    methods run on its own instances, never in this instance's run: what they bind is no
    hook of this run."""
    lineages = dict(ctx.program.root_classes)
    own = lineages.get(root)
    if not own:
        return set()
    return {other for other, lineage in lineages.items()
            if other != root and lineage and own[0] not in lineage
            and lineage[0] not in own and set(own[1:]) & set(lineage[1:])}


def _guarded_apart(e: Event, other: Event) -> bool:
    """Whether ``e`` runs under a test ``other`` is not under (the choice among schedulers
    aside)."""
    own = {(c.key, c.branch) for c in other.conds}
    return any(c.key[0] != "<choice>" and (c.key, c.branch) not in own for c in e.conds)


def _names_in_test(ctx: FileContext, path: str, at: ast.AST) -> set[str]:
    """The names a unit test's own function binds or calls (``val_loss``, ``self.val_acc``,
    ``evaluate``), where ``at`` (the plateau's step, or the call handing it its metric) is
    written."""
    tree = ctx.tree_of(path)
    if tree is None:
        return set()
    around = function_around(tree, at)
    found: set[str] = set()
    for node in ast.walk(around):
        if isinstance(node, (ast.Name, ast.Attribute)):
            text = dotted(node)
            if text is not None:
                found.add(text)
                found.add(text.rsplit(".", 1)[-1])
    return found


# Lightning hooks whose `self.log(...)` calls log a training value / a validation value
_TRAIN_HOOKS = frozenset({"training_step", "training_step_end", "training_epoch_end",
                          "on_train_epoch_end", "on_train_batch_end"})
_VALIDATION_HOOKS = frozenset({"validation_step", "validation_step_end", "validation_epoch_end",
                               "on_validation_epoch_end", "on_validation_batch_end"})


# a patience no run outlasts: `ReduceLROnPlateau(..., patience=int(1e12))` keeps the LR as it is
_ENDLESS_PATIENCE = 10 ** 6


def _never_reduces(call: ast.Call) -> bool:
    """A ReduceLROnPlateau built so that it never changes the LR: a patience of a million
    epochs or more (`int(1e12)`, `float("inf")`), or a factor of 1."""
    def argument(name: str, index: int) -> ast.expr | None:
        found = next((k.value for k in call.keywords if k.arg == name), None)
        if found is None and len(call.args) > index \
                and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
            found = call.args[index]
        return found

    patience, factor = _literal_number(argument("patience", 3)), _literal_number(
        argument("factor", 2))
    return patience is not None and patience >= _ENDLESS_PATIENCE or factor == 1


def _literal_number(node: ast.expr | None) -> float | None:
    """The value of a number written out: `1e12`, `int(1e12)`, `float("inf")`, `math.inf`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in ("int", "float") and len(node.args) == 1 and not node.keywords:
        inner = node.args[0]
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str) \
                and inner.value.strip().lower() in ("inf", "infinity", "+inf"):
            return float("inf")
        return _literal_number(inner)
    if isinstance(node, ast.Attribute) and node.attr == "inf" \
            and dotted(node) in ("math.inf", "np.inf", "numpy.inf", "torch.inf"):
        return float("inf")
    return None


@rule("LRD004")
def lightning_plateau_on_training_metric(ctx: FileContext) -> Iterator[Diagnostic]:
    """A LightningModule whose ReduceLROnPlateau monitors a value it logs in its training
    hooks (``"monitor": "train_loss"``) while its validation hooks log a validation loss or
    metric: the plateau reacts to the training loss, not to generalisation."""
    if "ReduceLROnPlateau" not in ctx.source and ctx.source.isascii():
        return
    for cls in (c.node for c in ctx.module.classes.values()):
        methods = {f.name: f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
        configure = methods.get("configure_optimizers")
        plateaus = [n for n in ast.walk(configure) if isinstance(n, ast.Call)
                    and (dotted(n.func) or "").rsplit(".", 1)[-1] == "ReduceLROnPlateau"
                    ] if configure is not None else []
        if configure is not None and not plateaus:
            # built through a name the syntax does not tell (`SCHEDULERS["plateau"](...)`):
            # the plateau the traced configure_optimizers returns
            traced = _returned_plateau(ctx, cls)
            if traced is not None and traced.call is not None:
                plateaus = [traced.call]
        if configure is None or not plateaus or all(_never_reduces(n) for n in plateaus):
            continue
        trained = {k for name, f in methods.items() if name in _TRAIN_HOOKS for k in _logged(f)}
        validated = {k for name, f in methods.items() if name in _VALIDATION_HOOKS
                     for k in _logged(f)}
        watched = sorted(k for k in validated if names.VALIDATION_WORDS.search(k.lower())
                         and (names.LOSS_WORDS.search(k.lower()) or names.ACC_WORDS.search(k.lower())))
        if not watched:
            continue
        for node in ast.walk(configure):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values):
                if not (isinstance(key, ast.Constant) and key.value == "monitor"
                        and isinstance(value, ast.Constant) and isinstance(value.value, str)):
                    continue
                monitor = value.value
                if monitor not in trained or monitor in validated \
                        or names.VALIDATION_WORDS.search(monitor.lower()):
                    continue
                yield Diagnostic.at(
                    "LRD004",
                    f"ReduceLROnPlateau monitors `{monitor}`, which {cls.name} logs in its "
                    f"training hooks, while its validation hooks log `{watched[0]}`: it reacts "
                    "to training noise, not to generalisation; monitor the validation metric",
                    ctx.path,
                    value,
                    own_file=True,
                )


@rule("LRD004")
def lightning_plateau_mode_against_monitor(ctx: FileContext) -> Iterator[Diagnostic]:
    """A ReduceLROnPlateau returned from ``configure_optimizers`` with the name of the value
    Lightning feeds it (``"monitor": "val_acc"``): a mode that cuts the LR when that value
    gets better. The monitored name says what the value is, as a variable's name does in a
    hand-written loop; when the module logs that name with a value whose words disagree, or
    negated (``self.log("val_auc", -auc)``), the name is not trusted."""
    if "ReduceLROnPlateau" not in ctx.source and ctx.source.isascii():
        return
    seen: set[tuple[int, str]] = set()
    for node, path, value in ctx.program.lightning:
        if path != ctx.path:
            continue
        for sched, monitor in _lightning_monitored(value):
            if sched.cls != "ReduceLROnPlateau" or sched.call is None \
                    or (sched.id, monitor) in seen or _never_reduces(sched.call):
                continue
            seen.add((sched.id, monitor))
            mode_expr = sched.arg("mode", 1)
            stated = constants.resolve(mode_expr, sched.scope) if mode_expr is not None else None
            mode = stated if isinstance(stated, str) else (
                "min" if mode_expr is None and not sched.has_kwargs_splat() else None)
            kind = _kind_of(ast.Constant(monitor))
            if not (mode == "min" and kind == "acc" or mode == "max" and kind == "loss"):
                continue
            if not _logged_as(ctx, node, monitor, kind):
                continue
            better = "improves" if kind == "acc" else "goes down"
            fix = "max" if mode == "min" else "min"
            what = "an accuracy-like metric" if kind == "acc" else "a loss"
            at = sched.call if sched.path in ("", path) else node
            yield Diagnostic.at(
                "LRD004",
                f"ReduceLROnPlateau ({line_at(sched.path, sched.line, path)}) is returned from "
                f"configure_optimizers to watch `{monitor}` with mode='{mode}', but the name "
                f"says it is {what}: Lightning cuts the LR whenever it {better}; use "
                f"mode='{fix}'",
                path,
                at,
                # another file's trace that reaches this configure_optimizers reports only
                # its own file's returns (above): the finding is this file's to make
                own_file=True,
            )


def _lightning_monitored(value: Any, depth: int = 0,
                         monitor: str | None = None) -> Iterator[tuple[Obj, str]]:
    """(scheduler, monitored name) pairs from a configure_optimizers return value: a scheduler
    config ``{"scheduler": s, "monitor": "val_acc"}``, or ``{"optimizer": o, "lr_scheduler":
    s, "monitor": "val_acc"}`` with the name beside it. Only a literal name counts."""
    if depth > 4:
        return
    if isinstance(value, DictVal):
        if value.splat:
            return
        name = value.items.get("monitor")
        here = name.value if isinstance(name, Const) and isinstance(name.value, str) \
            else monitor if name is None else None
        sched = value.items.get("scheduler", value.items.get("lr_scheduler"))
        if isinstance(sched, Obj) and sched.kind == "scheduler":
            if here is not None:
                yield sched, here
        elif isinstance(sched, DictVal):
            yield from _lightning_monitored(sched, depth + 1, here)
        elif isinstance(sched, (TupleVal, UnionVal)):
            yield from _lightning_monitored(sched, depth + 1, here)
    elif isinstance(value, (TupleVal, UnionVal)):
        for item in value.items if isinstance(value, TupleVal) else value.options:
            yield from _lightning_monitored(item, depth + 1, monitor)


def _logged_as(ctx: FileContext, at: ast.AST, monitor: str, kind: str) -> bool:
    """False when the class whose ``configure_optimizers`` returns at ``at`` logs ``monitor``
    with a value whose words say the other kind, or negated (``-auc``): then the name does not
    say which way the value is better."""
    line = getattr(at, "lineno", 0)
    for info in ctx.module.classes.values():
        cls = info.node
        end = getattr(cls, "end_lineno", None) or cls.lineno
        if not cls.lineno <= line <= end:
            continue
        for name, logged in _logged_values(cls):
            if name != monitor or logged is None:
                continue
            if isinstance(logged, ast.UnaryOp) and isinstance(logged.op, ast.USub):
                return False
            if _kind_of(logged) not in ("", kind):
                return False
    return True


@rule("LRD004")
def lightning_scheduler_step_without_metric(ctx: FileContext) -> Iterator[Diagnostic]:
    """A LightningModule that overrides ``lr_scheduler_step(self, scheduler, ..., metric)`` hands
    every scheduler its ``configure_optimizers`` returns to that hook. When one of them is a
    ReduceLROnPlateau and the override calls ``scheduler.step()`` without the metric on a path
    that a plateau can take (not under ``isinstance(scheduler, SomeOtherClass)``, nor in the
    branch that rules ReduceLROnPlateau out), the plateau is stepped without its metric: torch
    raises TypeError the first time that path runs."""
    if "lr_scheduler_step" not in ctx.source:
        return
    for info in ctx.module.classes.values():
        cls = info.node
        hook = next((f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and f.name == "lr_scheduler_step"), None)
        if hook is None or len(hook.args.args) < 2:
            continue
        param = hook.args.args[1].arg
        metric = hook.args.args[-1].arg if len(hook.args.args) > 2 else ""
        plateau = _returned_plateau(ctx, cls)
        if plateau is None:
            continue
        parents = {child: parent for parent in ast.walk(hook)
                   for child in ast.iter_child_nodes(parent)}
        for call in ast.walk(hook):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "step" and isinstance(call.func.value, ast.Name)
                    and call.func.value.id == param and not call.args and not call.keywords):
                continue
            if not _plateau_can_reach(call, parents, param, metric):
                continue
            yield Diagnostic.at(
                "LRD004",
                f"`{param}.step()` in {cls.name}.lr_scheduler_step is called without the metric, "
                f"but configure_optimizers can return a ReduceLROnPlateau (line {plateau.line}) "
                "and Lightning hands it to this hook: its step() needs the monitored value and "
                f"raises TypeError; pass the hook's metric to it (`{param}.step(metric)`)",
                ctx.path,
                call,
            )


def _returned_plateau(ctx: FileContext, cls: ast.ClassDef) -> Obj | None:
    """A ReduceLROnPlateau that the ``configure_optimizers`` of ``cls`` can return, or None:
    one among the schedulers of its traced return value, or one built (in any branch of a
    choice of scheduler) on an optimizer that it returns."""
    end = getattr(cls, "end_lineno", None) or cls.lineno
    returned: list[Obj] = []
    for node, path, value in ctx.program.lightning:
        line = getattr(node, "lineno", 0)
        if path != ctx.path or not cls.lineno <= line <= end:
            continue
        for sched, _ in _lightning_schedulers(value):
            if sched.cls == "ReduceLROnPlateau":
                return sched
            if sched.optimizer is not None:
                returned.append(sched.optimizer)
        returned.extend(_optimizers_in(value))
    return next((o for o in ctx.program.objects if o.kind == "scheduler"
                 and o.cls == "ReduceLROnPlateau"
                 and any(o.optimizer is opt for opt in returned)), None)


def _optimizers_in(value: Any, depth: int = 0) -> Iterator[Obj]:
    """The optimizers a configure_optimizers return value holds (`{"optimizer": opt, ...}`,
    `[opt], [sched]`, `opt`)."""
    if depth > 4:
        return
    if isinstance(value, Obj) and value.kind == "optimizer":
        yield value
    elif isinstance(value, DictVal):
        for item in value.items.values():
            yield from _optimizers_in(item, depth + 1)
    elif isinstance(value, (TupleVal, UnionVal)):
        for item in value.items if isinstance(value, TupleVal) else value.options:
            yield from _optimizers_in(item, depth + 1)


def _plateau_can_reach(call: ast.AST, parents: dict[ast.AST, ast.AST], param: str,
                       metric: str) -> bool:
    """False when an enclosing ``if`` rules a plateau out at ``call``: the call sits in the
    body of ``isinstance(param, X)`` with X not ReduceLROnPlateau, in the other branch of
    ``isinstance(param, ReduceLROnPlateau)``, or where the hook's metric is None (Lightning
    hands a plateau the monitored value, and None to the other schedulers)."""
    child: ast.AST = call
    parent = parents.get(child)
    while parent is not None:
        if isinstance(parent, ast.If):
            in_body = any(child is stmt for stmt in parent.body)
            kinds = _isinstance_of(parent.test, param)
            if kinds is not None:
                plateau_tested = "ReduceLROnPlateau" in kinds
                if in_body and not plateau_tested:
                    return False
                if not in_body and plateau_tested:
                    return False
            given = _metric_given(parent.test, metric)
            if given is not None and given != in_body:
                return False  # the branch where the metric is None: not a plateau
        child, parent = parent, parents.get(parent)
    return True


def _metric_given(test: ast.expr, metric: str) -> bool | None:
    """True when ``test`` holds exactly when the hook's metric is given (``metric is not
    None``, ``metric``), False when it holds exactly when it is not (``metric is None``, ``not
    metric``), None when it says nothing about it."""
    if not metric:
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _metric_given(test.operand, metric)
        return None if inner is None else not inner
    if isinstance(test, ast.Name):
        return True if test.id == metric else None
    if (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.left, ast.Name) and test.left.id == metric
            and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value is None):
        if isinstance(test.ops[0], (ast.Is, ast.Eq)):
            return False
        if isinstance(test.ops[0], (ast.IsNot, ast.NotEq)):
            return True
    return None


def _isinstance_of(test: ast.expr, param: str) -> set[str] | None:
    """The class names in ``isinstance(param, X)`` / ``isinstance(param, (X, Y))``, or None when
    ``test`` is not such a call."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
            and test.func.id == "isinstance" and len(test.args) == 2
            and isinstance(test.args[0], ast.Name) and test.args[0].id == param):
        return None
    kinds = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    return {(dotted(k) or "").rsplit(".", 1)[-1] for k in kinds}


def _logged(fn: ast.AST) -> Iterator[str]:
    """The names ``self.log("name", ...)`` / ``self.log_dict({"name": ...})`` log in ``fn``."""
    for name, _ in _logged_values(fn):
        yield name


def _logged_values(fn: ast.AST) -> Iterator[tuple[str, ast.expr | None]]:
    """(name, value logged under it) for each ``self.log`` / ``self.log_dict({...})`` in ``fn``;
    the value is None when the call does not pass one by position."""
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"):
            continue
        if node.func.attr == "log" and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            yield node.args[0].value, node.args[1] if len(node.args) > 1 else None
        elif node.func.attr == "log_dict" and node.args and isinstance(node.args[0], ast.Dict):
            for key, value in zip(node.args[0].keys, node.args[0].values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    yield key.value, value


def _metric_kind(e: Event) -> str:
    """"acc" / "loss" / "" for the metric a plateau step is given."""
    if not _metric_step(e):
        return ""
    return _kind_of(_watched(e).expr)


def _signed_literal(expr: ast.expr) -> float | None:
    """A number written as a literal, with its sign (``-1`` is ``-(1)`` to ``ast``)."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        inner = _number_literal(expr.operand)
        return None if inner is None else -inner if isinstance(expr.op, ast.USub) else inner
    return _number_literal(expr)


def _reverses(expr: ast.expr) -> bool:
    """The expression orders values the other way round from the value it is computed from:
    ``-loss``, ``1 - acc``, ``-1 * loss``, ``loss / -2`` (through ``float(...)``,
    ``.item()``, a positive scale or shift, and double negations: ``-(1 - acc)`` does not)."""
    node = expr
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "float" and len(node.args) == 1 and not node.keywords:
            node = node.args[0]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr == "item" and not node.args and not node.keywords:
            node = node.func.value
        else:
            break
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) \
            and _number_literal(node.operand) is None:
        return not _reverses(node.operand)
    if not isinstance(node, ast.BinOp):
        return False
    left, right = _signed_literal(node.left), _signed_literal(node.right)
    if (left is None) == (right is None):
        return False  # two values, or two numbers: no one value's order to speak of
    if isinstance(node.op, ast.Sub):
        return not _reverses(node.right) if left is not None else _reverses(node.left)
    if isinstance(node.op, ast.Add):
        return _reverses(node.right if left is not None else node.left)
    if isinstance(node.op, ast.Mult) or isinstance(node.op, ast.Div) and right is not None:
        factor, other = (left, node.right) if left is not None else (right, node.left)
        assert factor is not None
        if factor == 0:
            return False
        return _reverses(other) != (factor < 0)
    return False


def _kind_of(metric: ast.expr) -> str:
    """"acc" / "loss" / "" for what an expression's words say it is."""
    lower = ast.unparse(metric).lower()
    acc, loss = bool(names.ACC_WORDS.search(lower)), bool(names.LOSS_WORDS.search(lower))
    return "acc" if acc and not loss else "loss" if loss and not acc else ""


def _watched(e: Event) -> Passed:
    """The spelling of what a plateau step given a metric watches that says most about it
    (see _judged)."""
    return _judged(_metric_chain(e) or [Passed(_metric_of(e), e.path, e.node)])


def _metric_chain(e: Event) -> list[Passed] | None:
    """The metric a plateau step is given, as the step reads it and as its callers passed it
    on (see passed_chain); None when it is given none. A step that forwards its function's
    ``*args`` / ``**kwargs`` (a wrapper's ``step(self, *args, **kwargs)``) reads what the
    callers put there: ``metrics=`` in ``**kwargs`` when ``*args`` is empty."""
    node = e.node
    if not isinstance(node, ast.Call):
        return None
    first = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "metrics"), None)
    splat = next((k.value for k in node.keywords if k.arg is None), None)
    chain = passed_chain(e, first) if first is not None else None
    if chain is not None and not (isinstance(chain[-1].expr, ast.Starred) and splat is not None):
        return chain
    if splat is None:
        return None
    by_key = passed_chain(e, splat, "metrics")
    if chain is not None and by_key[-1].key is not None:
        return chain  # nothing known of either: `*args` as it is written
    return by_key


def _judged(chain: list[Passed]) -> Passed:
    """Of a metric as the step reads it and as its callers passed it on (``metric`` in the
    helper, ``val_loss`` where the helper is called), the outermost spelling whose words say
    what it is (a loss, an accuracy, a validation value); the step's own when none does."""
    for passed in reversed(chain):
        if passed.key is None and (_kind_of(passed.expr) or _mentions_validation(passed.expr)):
            return passed
    return chain[0]


def _metric_chosen_by_setting(ctx: FileContext, e: Event, mode: str) -> bool:
    """The step sits in one branch of a choice (`if scheduler_on == "valid_acc": ... elif
    ...`) whose other branch gives the metric that fits ``mode``: which one runs is a setting
    of the caller, not a bug of this code."""
    fits = "acc" if mode == "max" else "loss"
    return any(
        other is not e and exclusive(other, e) and _metric_kind(other) == fits
        for other in ctx.program.of("sched_step", e.obj)
    )


def _metric_of(e: Event) -> ast.expr:
    node = e.node
    assert isinstance(node, ast.Call)
    return node.args[0] if node.args else next(k.value for k in node.keywords if k.arg == "metrics")


def _metric_step(e: Event) -> bool:
    node = e.node
    return isinstance(node, ast.Call) and bool(
        node.args or any(k.arg == "metrics" for k in node.keywords)
    )


_TRAINING_LOSS_NAMES = frozenset(
    {"loss", "running_loss", "epoch_loss", "total_loss", "avg_loss", "mean_loss", "loss_sum",
     "tr_loss", "losses", "train_loss", "training_loss", "avg_train_loss", "loss_avg"}
)


def _mentions_validation(node: ast.AST) -> bool:
    """The expression reads something named as validation data (`x["val_loss"]`,
    `val_outputs`, `evaluate(...)`)."""
    for sub in ast.walk(node):
        text = sub.value if isinstance(sub, ast.Constant) and isinstance(sub.value, str) else (
            sub.id if isinstance(sub, ast.Name) else sub.attr if isinstance(sub, ast.Attribute)
            else None
        )
        if text is not None and any(
            names.VALIDATION_WORDS.search(w.lower()) for w in names.words(text)
        ):
            return True
    return False


def _validation_first(ctx: FileContext, passed: Passed) -> bool:
    """The metric is a name the function reading it binds to a validation value when the run
    has validation data and to the training value only otherwise: ``if len(meters["eval"]):
    loss = meters["eval"]["loss"][-1] else: loss = meters["train"]["loss"][-1]`` (or
    ``loss = val_loss if val_loader is not None else train_loss``). The test names the
    validation data, one side reads it: the training loss is a fallback for runs that have
    none, not what is watched while a validation metric exists."""
    if passed.key is not None or not isinstance(passed.expr, ast.Name):
        return False
    name = passed.expr.id
    around = ctx.function_of(passed.path, passed.at)
    if around is None:
        return False

    def bound(body: list[ast.stmt]) -> list[ast.expr]:
        return [stmt.value for stmt in body if isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)]

    for node in ast.walk(around):
        test: ast.expr
        if isinstance(node, ast.If) and node.orelse:
            test, sides = node.test, (bound(node.body), bound(node.orelse))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.IfExp) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            choice = node.value
            test, sides = choice.test, ([choice.body], [choice.orelse])
        else:
            continue
        if not (sides[0] and sides[1]) or not _mentions_validation(test) \
                or not _tests_presence(test):
            continue
        read = [any(_mentions_validation(v) for v in side) for side in sides]
        if read[0] != read[1]:
            return True
    return False


def _tests_presence(test: ast.expr) -> bool:
    """A test of whether something is there: truthiness (``if val_loader:``), ``is (not)
    None``, ``len(x) > 0`` / ``!= 0``, ``hasattr(...)``, and ``not`` / ``and`` / ``or`` of
    them; not a test of a period or a count (``epoch % eval_every == 0``)."""
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    if isinstance(test, ast.BoolOp):
        return all(_tests_presence(v) for v in test.values)
    if isinstance(test, (ast.Name, ast.Attribute, ast.Subscript)):
        return True
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name):
        return test.func.id in ("len", "bool", "hasattr", "any")
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        right = test.comparators[0]
        if isinstance(test.ops[0], (ast.Is, ast.IsNot)):
            return isinstance(right, ast.Constant) and right.value is None
        counted = isinstance(test.left, ast.Call) and isinstance(test.left.func, ast.Name) \
            and test.left.func.id == "len"
        return counted and isinstance(right, ast.Constant) and right.value in (0, 1) \
            and isinstance(test.ops[0], (ast.Gt, ast.GtE, ast.NotEq))
    return False


def _computed_from_validation(ctx: FileContext, path: str, at: ast.AST,
                              metric: ast.expr, depth: int = 0) -> bool:
    """A metric with a generic name (`avg_loss`) that the function reading it at ``at`` (the
    plateau's step, or the call that hands it to the step) computes from validation results
    only (`avg_loss = mean(x["val_loss"] for x in outputs)` in a validation-end hook) is the
    validation loss, whatever its name. A sum divided by a count (`avg_loss / n`) is judged by
    the sum. Where the function starts the name over (`avg_loss = 0`) in a statement every
    path to the read passes, only what is added after that start counts: a name summed over
    the training batches, reset, then summed over the validation batches holds the validation
    total when it is read."""
    if isinstance(metric, ast.BinOp) and isinstance(metric.op, ast.Div):
        metric = metric.left
    if not isinstance(metric, ast.Name):
        return False
    around: ast.AST | None = ctx.function_of(path, at)
    if around is None:
        # a plateau stepped at a module's top level (a script's epoch loop): the module's own
        # statements are where its metric is computed (`val_loss = valid(epoch)`); what the
        # functions it defines assign to the same name are other variables
        around = ctx.tree_of(path)
        if around is None:
            return False
        scope = list(own_nodes(around))
    else:
        scope = list(ast.walk(around))
    parents = {child: parent for parent in ast.walk(around)
               for child in ast.iter_child_nodes(parent)}
    start = _start_over_before(around, at, metric.id, parents)
    if start is not None:
        first, last = start.lineno, getattr(at, "lineno", 0)
        scope = [n for n in scope if first <= getattr(n, "lineno", 0) <= last]

    def over_validation(node: ast.AST) -> bool:
        """``node`` runs in a loop over something named as validation data, written in the
        loop's header or in the one assignment of the name it iterates (``bar =
        tqdm(enumerate(valid_loader))`` then ``for i, batch in bar:``)."""
        current = parents.get(node)
        while current is not None and current is not around:
            if isinstance(current, (ast.For, ast.AsyncFor)) and (
                    _mentions_validation(current.iter) or _bound_to_validation(current.iter)):
                return True
            current = parents.get(current)
        return False

    def _bound_to_validation(it: ast.expr) -> bool:
        if not isinstance(it, ast.Name):
            return False
        bound = [n.value for n in ast.walk(around) if isinstance(n, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == it.id for t in n.targets)]
        return len(bound) == 1 and _mentions_validation(bound[0])

    def from_validation(value: ast.AST) -> bool:
        """An assigned value read from validation data: one that names it, or a sum (divided
        by a count) or a summary (``sum(losses) / len(losses)``, ``np.mean(losses)``) of a
        name that this function adds up from validation results only (``epoch_loss =
        running_loss / seen``, ``running_loss`` summed over the validation batches)."""
        if _mentions_validation(value) or _evaluation_pass(ctx, path, value):
            return True
        if not isinstance(value, ast.expr):
            return False
        value = _aggregated(value)  # `sum(losses) / len(losses)` summarises `losses`
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
            value = value.left
        return isinstance(value, ast.Name) and value.id != getattr(metric, "id", None) \
            and depth < 2 and _computed_from_validation(ctx, path, at, value, depth + 1)

    values: list[ast.AST] = []
    added: list[bool] = []  # per value added into it (or unpacked into it): from validation data?
    for node in scope:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == metric.id for t in node.targets
        ):
            if not _empty(node.value):  # `losses = []`: where the values come from is below
                values.append(node.value)
        elif isinstance(node, ast.Assign) and any(
            _unpacks_into(t, metric.id) for t in node.targets
        ):
            item = _unpacked_item(node, metric.id)
            if item is None or not _empty(item):  # `total, n = 0.0, 0`: a start, not a value
                added.append(_unpacked_from_validation(node, metric.id))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
                and node.target.id == metric.id and node.value is not None:
            if isinstance(node, ast.AugAssign):
                added.append(_mentions_validation(node.value) or over_validation(node))
            elif not _empty(node.value):
                values.append(node.value)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Name) \
                and node.func.value.id == metric.id:
            added.append(any(_mentions_validation(a) for a in node.args) or over_validation(node))
        elif isinstance(node, (ast.For, ast.comprehension)) and any(
            isinstance(t, ast.Name) and t.id == metric.id for t in ast.walk(node.target)
        ):
            return False  # a loop variable: what it holds is not read here
    if isinstance(around, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        isinstance(a, ast.arg) and a.arg == metric.id for a in ast.walk(around.args)
    ):
        return False  # handed in by the caller
    if not values and not added:
        return False
    return all(from_validation(v) for v in values) and all(added)


def _evaluation_pass(ctx: FileContext, path: str, value: ast.AST) -> bool:
    """``value`` is what a function of the module returns (``loss = evaluate_epoch(model,
    data, criterion)``) where that function is an evaluation pass: it puts a model in eval
    mode (``model.eval()``) or computes under ``torch.no_grad()`` / ``torch.inference_mode()``,
    and takes no gradient (no ``backward()``) and makes no update (no ``step()``) anywhere in
    its body. What it returns was computed without training, so it is no training loss,
    whatever the name it is bound to or the data it is handed."""
    module = ctx.module_of(path)
    if module is None or not isinstance(value, ast.Call) or not isinstance(value.func, ast.Name):
        return False
    function = module.functions.get(value.func.id)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not any(
            isinstance(n, ast.Return) and n.value is not None for n in ast.walk(function)):
        return False
    evaluates = False
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("backward", "step"):
                return False
            if node.func.attr == "eval" and not node.args and not node.keywords:
                evaluates = True
        elif isinstance(node, (ast.With, ast.AsyncWith)) and any(
                isinstance(item.context_expr, ast.Call)
                and (dotted(item.context_expr.func) or "").rsplit(".", 1)[-1]
                in ("no_grad", "inference_mode")
                for item in node.items):
            evaluates = True
    return evaluates


def _start_over_before(around: ast.AST, at: ast.AST, name: str,
                       parents: dict[ast.AST, ast.AST]) -> ast.Assign | None:
    """The last plain ``name = <empty start>`` before ``at`` that every path to ``at`` runs:
    a statement of a body (a loop's, a branch's, the function's) that also holds, in a later
    statement, the statement ``at`` sits in; None where there is none. Each time the read is
    reached, the name holds only what was added since that start."""
    line = getattr(at, "lineno", 0)
    best: ast.Assign | None = None
    node: ast.AST | None = at
    while node is not None and node is not around:
        parent = parents.get(node)
        if parent is None:
            break
        for field in ("body", "orelse", "finalbody"):
            body = getattr(parent, field, None)
            if not isinstance(body, list) or node not in body:
                continue
            for statement in body[:body.index(node)]:
                if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                        and isinstance(statement.targets[0], ast.Name) \
                        and statement.targets[0].id == name and _empty(statement.value) \
                        and statement.lineno < line \
                        and (best is None or statement.lineno > best.lineno):
                    best = statement
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            break
        node = parent
    return best


def _unpacks_into(target: ast.expr, name: str) -> bool:
    """``target`` is a tuple or list of names that ``name`` is one of (`loss, cm = ...`)."""
    return isinstance(target, (ast.Tuple, ast.List)) and any(
        isinstance(t, ast.Name) and t.id == name for t in target.elts)


def _unpacked_item(node: ast.Assign, name: str) -> ast.expr | None:
    """The item of a literal tuple that ``node`` unpacks into ``name`` (`0.0` of `total, n =
    0.0, 0`); None when the value is not such a literal."""
    value = node.value
    for target in node.targets:
        if _unpacks_into(target, name) and isinstance(target, (ast.Tuple, ast.List)) \
                and isinstance(value, (ast.Tuple, ast.List)) \
                and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts)):
            return next(v for t, v in zip(target.elts, value.elts)
                        if isinstance(t, ast.Name) and t.id == name)
    return None


def _unpacked_from_validation(node: ast.Assign, name: str) -> bool:
    """Whether the part of ``node``'s value unpacked into ``name`` comes from validation data:
    the matching item of a literal tuple (`loss, n = val_loss, len(val_set)`), or a value
    unpacked whole (`loss, cm = evaluate(test_loader, model)`) that reads validation data and
    nothing named as training (`tr, va = run(train_loader, val_loader)` can be either)."""
    item = _unpacked_item(node, name)
    if item is not None:
        return _mentions_validation(item)
    return _mentions_validation(node.value) and not _mentions_training(node.value)


def _mentions_training(node: ast.AST) -> bool:
    """The expression reads something named as training (`train_loader`, `trainset`)."""
    return any(
        w.lower().startswith("train")
        for sub in ast.walk(node)
        if isinstance(sub, (ast.Name, ast.Attribute))
        for w in names.words(sub.id if isinstance(sub, ast.Name) else sub.attr)
    )


def _empty(node: ast.AST) -> bool:
    """An empty start (`[]`, `list()`, `0.0`) that values are added to later."""
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and not node.elts:
        return True
    if isinstance(node, ast.Dict) and not node.keys:
        return True
    if isinstance(node, ast.Constant) and node.value in (0, 0.0):
        return True
    return isinstance(node, ast.Call) and not node.args and not node.keywords and \
        isinstance(node.func, ast.Name) and node.func.id in ("list", "dict", "set")


# functions whose value is a summary of the values they are given (`np.mean(losses)`,
# `statistics.mean(losses)`, `sum(losses)`): what they watch is what they summarise
_AGGREGATES = frozenset({"mean", "average", "nanmean", "median", "nanmedian", "sum", "fsum"})


def _aggregated(metric: ast.expr) -> ast.expr:
    """The values a summary of values summarises: ``np.mean(epoch_loss)``, ``mean(losses)``
    and ``sum(losses) / len(losses)`` watch ``epoch_loss`` / ``losses``; anything else is
    returned as it is."""
    node = metric
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        node = node.left
    if (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], (ast.Name, ast.Attribute, ast.Subscript))):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else (
            func.id if isinstance(func, ast.Name) else "")
        if name in _AGGREGATES:
            return node.args[0]
    return metric


# the parts of an identifier that name the training split, and those that name a loss-like
# quantity other than "loss" itself (an error, a squared error, a likelihood, a perplexity)
_TRAINING_PARTS = frozenset({"train", "training", "tr"})
_ERROR_PARTS = frozenset({"err", "errs", "error", "errors", "mse", "rmse", "mae", "nll", "ppl",
                          "perplexity", "wer", "cer"})


def _names_training_error(word: str) -> bool:
    """An identifier that names a training error, not a loss by that word: `train_err`,
    `epoch_train_error`, `trainMSE`, `tr_nll` (its parts split at underscores and case
    changes; `strain_error` names no training split, `trainValErr` is a validation value)."""
    parts = {p.lower() for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", word)}
    return bool(parts & _TRAINING_PARTS) and bool(parts & _ERROR_PARTS) and not any(
        names.VALIDATION_WORDS.fullmatch(p) for p in parts)  # `trainValErr`: validation


def _names_training_score(word: str) -> bool:
    """An identifier that names a score of the training split: a part naming training and a
    part naming an accuracy-like metric (`train_acc`, `trainAcc`, `tr_f1`, `epoch_train_miou`;
    `strain_acc` names no training split, `train_val_acc` is a validation value)."""
    parts = {p.lower() for p in re.findall(r"[A-Z]+\d*(?![a-z])|[A-Z]?[a-z]+\d*|\d+", word)}
    return bool(parts & _TRAINING_PARTS) and any(  # (`train_accs[-1]`: a list of them)
        names.ACC_WORDS.fullmatch(p) or names.ACC_WORDS.fullmatch(p.removesuffix("s"))
        for p in parts) and not any(
        names.VALIDATION_WORDS.fullmatch(p) for p in parts)


def _is_training_score(metric: ast.expr) -> bool:
    """``metric`` is read from a name that says it scores the training split (see
    `_names_training_score`), or is the accuracy-like entry of a record of the training split
    (`train_metrics["acc"]`, see `_training_entry`), and nothing in it says validation."""
    written = names.words(ast.unparse(metric))
    if any(names.VALIDATION_WORDS.search(w.lower()) for w in written):
        return False
    return any(_names_training_score(w) for w in written) or _training_entry(metric) == "score"


def _parts(word: str) -> set[str]:
    """An identifier's parts, split at underscores and case changes (`trainResult` ->
    {"train", "result"})."""
    return {p.lower() for p in re.findall(r"[A-Z]+\d*(?![a-z])|[A-Z]?[a-z]+\d*|\d+", word)}


def _training_entry(metric: ast.expr) -> str:
    """"loss" / "score" when ``metric`` reads one entry of a record of the training split by a
    literal key or a field (`train_result["loss"]`, `train_stats.loss`, `train_log["acc"]`,
    `self.train_metrics["f1"]`): the record's name has a part naming training and none naming
    validation, and the key names a loss (or an error) or an accuracy-like score. "" else."""
    if isinstance(metric, ast.Subscript):
        key = metric.slice.value if isinstance(metric.slice, ast.Constant) else None
        record = metric.value
    elif isinstance(metric, ast.Attribute):
        key, record = metric.attr, metric.value
    else:
        return ""
    if not isinstance(key, str):
        return ""
    name = dotted(record) or ""
    last = name.rsplit(".", 1)[-1]
    parts = _parts(last)
    if not parts & _TRAINING_PARTS or any(names.VALIDATION_WORDS.fullmatch(p) for p in parts):
        return ""
    keyed = _parts(key)
    if any(names.VALIDATION_WORDS.fullmatch(p) for p in keyed):
        return ""
    if "loss" in keyed or keyed & _ERROR_PARTS:
        return "loss"
    if any(names.ACC_WORDS.fullmatch(p) for p in keyed):
        return "score"
    return ""


def _is_training_loss(metric: ast.expr) -> bool:
    written = names.words(ast.unparse(metric))
    words = [w.lower() for w in written]
    if any(names.VALIDATION_WORDS.search(w) for w in words):
        return False
    if any("train" in w and "loss" in w for w in words) or any(
            _names_training_error(w) for w in written):  # (its case marks its parts)
        return True
    if _training_entry(metric) == "loss":
        return True  # `train_result["loss"]`: the loss entry of the training pass's record
    base = metric
    while isinstance(base, (ast.Call, ast.Attribute, ast.BinOp, ast.Subscript)):
        if isinstance(base, ast.Call):
            base = base.func
        elif isinstance(base, ast.Attribute):
            if isinstance(base.value, ast.Name) and base.value.id == "self":
                # `self.total_loss`: the object's own field, named as a local would be
                return base.attr in _TRAINING_LOSS_NAMES
            base = base.value
        elif isinstance(base, ast.BinOp):
            base = base.left
        else:
            base = base.value
    return isinstance(base, ast.Name) and base.id in _TRAINING_LOSS_NAMES


# -- LRD005 ------------------------------------------------------------------------------------


@rule("LRD005")
def steps_on_skipped_update(ctx: FileContext) -> Iterator[Diagnostic]:
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        if sched.cls == "ReduceLROnPlateau" or sched.skip_aware or _in_skip_aware_wrapper(e) \
                or project_constant(sched):
            continue
        gran, loop = granularity(e)
        if loop is None:
            # no loop in view: a trainer's `step()` that the unseen training loop calls once
            # per update, stepping the scheduler right after its own `scaler.step(optimizer)`
            updates = _paired_scaler_steps(ctx, e)
            every = "after every update"
        elif gran == "batch":
            if _periodic_of_its_own(ctx, e, loop) or any(
                    _last_batch_test(c) for c in e.conds_inside(loop)):
                # `if (it + 1) % epoch_len == 0: scheduler.step()` in an iteration loop (the
                # epoch-end hooks of an iteration-based runner): once every N batches, at a
                # position counted in batches, not once per update
                continue
            if _steady_position(ctx, e, loop):
                continue
            updates = _updates_around(ctx, e, loop)
            every = "every batch"
        else:
            continue
        scaler_steps = [
            (s, flag) for s in updates
            if s.kind == "scaler_step" and not _exclusive(s, e)
            and (flag := _switch_where_stepped(s, e)) is not None
            and not never_skips(s.obj, (s.path,))
        ]
        if not scaler_steps:
            if loop is not None:
                yield from _accelerated_skip(ctx, e, sched, updates, every)
            continue
        # an always-on scaler first; otherwise the bug happens when the flag is on
        s, flag = min(scaler_steps, key=lambda pair: bool(pair[1]))
        guards = [c for c in e.conds
                  if _skip_guard(c, s) or _counts_real_updates(ctx, c, s, e)
                  or _returned_by_the_update(ctx, c, s)]
        off = [_off_by_default(ctx, c) for c in guards]
        if not all(off) or _leaves_on_skip(ctx, s, e):
            continue
        if loop is not None and gran == "batch":
            # both under the accumulation boundary (`if (i + 1) % accum == 0:`): once per update
            boundary = _shared_boundary(e, s, loop)
            if boundary is not None:
                every = f"after every update (`{boundary}`)"
        # (a guard switched off by default guards nothing in the run as written)
        parts = [when(flag)] if flag else []
        parts += [f"`{setting}` is off (its default)" for setting in dict.fromkeys(off)]
        if len(parts) > 1 or (parts and not flag):
            parts[0] = parts[0] if flag else f"when {parts[0]}"
        condition = " and ".join(parts)
        prefix = f"{condition[0].upper()}{condition[1:]}, " if condition else ""
        outer = _wrapper_step_call(ctx, e, s)
        if outer is not None:
            # the inner scheduler of a scheduler class's own `step()`: it steps when, and
            # because, the wrapper is stepped; the wrapper's call in the loop is the place
            path, call = outer
            inner = f" (which steps `{receiver(e)}`, {display_path(e.path)}:{e.line})"
            yield Diagnostic.at(
                "LRD005",
                f"{prefix}`{ast.unparse(call.func)}()`{inner} runs {every} even when "
                f"GradScaler skips the optimizer step (`{step_call(s)}`, {_line_of(s, path)}): "
                "float16 AMP skips the first steps, so the schedule runs ahead of the real "
                f"updates{_torch_warning(sched)}",
                path,
                call,
            )
            continue
        yield Diagnostic.at(
            "LRD005",
            f"{prefix}`{receiver(e)}.step()` runs {every} even when GradScaler skips the "
            f"optimizer step (`{step_call(s)}`, {_line_of(s, e.path)}): float16 AMP skips the "
            f"first steps, so the schedule runs ahead of the real updates{_torch_warning(sched)}",
            e.path,
            e.node,
            evidence=_skip_fix_evidence(sched, s, e),
        )


def _accelerated_skip(ctx: FileContext, e: Event, sched: Obj, updates: list[Event],
                      every: str) -> Iterator[Diagnostic]:
    """LRD005 under Accelerate's float16 mixed precision: the prepared optimizer's ``step()``
    goes through the Accelerator's GradScaler and does nothing on inf/NaN gradients. A
    prepared scheduler steps only after real updates, unless the Accelerator was built with
    ``step_scheduler_with_optimizer=False`` (it then steps on every call); a scheduler never
    handed to ``prepare()`` steps on every call too. Float16 is known from the Accelerator's
    call: a literal, or (for the unsynced prepared scheduler) a setting that picks it; a
    scheduler step under a test of its own that reads a skip (``if not accelerator.
    optimizer_step_was_skipped:``) is left alone."""
    for u in updates:
        if u.kind != "opt_step" or u.obj is None or not u.obj.prepared:
            continue
        runner = u.obj.prepared_by
        if not isinstance(runner, RunnerVal) or runner.half is None:
            continue
        fabric = runner.kind == "fabric"
        if fabric:
            # Fabric never takes the scheduler: whatever steps it steps it on every call
            if runner.half != ALWAYS:
                continue
            why = ("Fabric does not step the scheduler with the optimizer, so its step is not "
                   "tied to the real updates")
        elif sched.prepared:
            if sched.prepared_by is not runner or not runner.scheduler_unsynced:
                continue
            why = ("the Accelerator was built with `step_scheduler_with_optimizer=False`, so "
                   "the prepared scheduler steps on every call")
        elif runner.half == ALWAYS and not _prepare_may_take(ctx.tree, sched):
            why = ("the scheduler was never handed to `accelerator.prepare()`, so its step is "
                   "not tied to the optimizer's")
        else:
            continue
        shared = {(c.key, c.branch) for c in u.conds}
        if any((c.key, c.branch) not in shared and "skip" in c.text.lower() for c in e.conds):
            return
        prefix = f"When `{runner.half}` is fp16, " if runner.half else ""
        owner = "Fabric's `16-mixed`" if fabric else "the Accelerator's float16"
        yield Diagnostic.at(
            "LRD005",
            f"{prefix}`{receiver(e)}.step()` runs {every} even when {owner} "
            f"GradScaler skips the optimizer step (`{receiver(u)}.step()`, "
            f"{_line_of(u, e.path)}): {why}; the schedule runs ahead of the real "
            f"updates{_torch_warning(sched)}",
            e.path,
            e.node,
        )
        return


def _line_of(s: Event, path: str) -> str:
    """``line 12`` for a call in the reported file ``path``, ``trainer.py:12`` for one in
    another (with its directories where the two files share a name)."""
    if not s.path or s.path == path:
        return f"line {s.line}"
    name = os.path.basename(s.path)
    if name == os.path.basename(path):
        name = display_path(s.path)
    return f"{name}:{s.line}"


_SCHEDULER_BASES = frozenset({"_LRScheduler", "LRScheduler"})


def _wrapper_step_call(ctx: FileContext, e: Event, update: Event | None = None
                       ) -> tuple[str, ast.Call] | None:
    """Where ``e`` is a scheduler step made by the ``step()`` method of a scheduler class of
    the project (a subclass of torch's LRScheduler, or of one of torch's schedulers, that
    wraps another: `def step(self, epoch=None): super().step(epoch); self.inner.step()`), the
    call of that method that made it (`self.sched.step()` in the training loop), with its
    file; else None. The inner scheduler steps when, and because, the wrapper is stepped.
    A plain class of the project whose ``step()`` steps a scheduler it holds (``self.scheduler
    .step()``, a config-driven wrapper) is such a class too where the optimizer's update
    ``update`` is made outside that method: the method only forwards the schedule, and the
    call in the training loop is what runs after the update."""
    frame = e.frame
    if frame is None or frame.fn is None or frame.fn.name != "step" or frame.call is None \
            or not frame.call_path:
        return None
    tree = ctx.tree_of(frame.path)
    if tree is None:
        return None
    around = class_at(tree, frame.fn.lineno)
    if around is None or frame.fn not in around.body:
        return None
    func = frame.call.func
    if not isinstance(func, ast.Attribute) or func.attr != "step":
        return None
    for base in around.bases:
        name = (dotted(base) or "").rsplit(".", 1)[-1]
        if name in _SCHEDULER_BASES or name in SCHEDULERS:
            return frame.call_path, frame.call
    held = isinstance(e.node, ast.Call) and isinstance(e.node.func, ast.Attribute) \
        and isinstance(e.node.func.value, ast.Attribute) \
        and isinstance(e.node.func.value.value, ast.Name) and e.node.func.value.value.id == "self"
    if held and e.frame is frame and update is not None and not update.within(frame):
        return frame.call_path, frame.call
    return None


def _switch_where_stepped(s: Event, e: Event) -> str | None:
    """``scaler_switch`` of the scaler stepped at ``s``, and ``ALWAYS`` for one built ``if
    torch.cuda.is_available() else None`` whose ``step()`` runs under no test of its own (none
    asks whether it exists, and every test around it is also around the scheduler step ``e``,
    as ``if mode == "train":`` around both): where it is None, ``None.step(...)`` raises before
    the scheduler steps, so every run that steps the scheduler there holds the enabled
    GradScaler. Guarded by ``if scaler is not None:`` (a program meant to train on the CPU
    too), it stays unknown, as ``scaler_switch`` leaves it."""
    flag = scaler_switch(s.obj, s)
    if flag is not None or not built_with_the_gpu(s.obj):
        return flag
    around = {(c.key, c.branch) for c in e.conds}
    if all((c.key, c.branch) in around and not _tests_existence(c, s) for c in s.conds):
        return ALWAYS
    return None


def _shared_boundary(e: Event, s: Event, loop: Loop) -> str | None:
    """The periodic test of ``loop`` (``(i + 1) % accum == 0``, spelled alike) that both the
    scheduler step ``e`` and the scaler step ``s`` run under: the accumulation boundary, where
    the scheduler steps once per update rather than on every batch. None when there is none."""
    steps_under = {c.text for c in s.conds if c.branch == 0 and c.loop is loop}
    for c in e.conds_inside(loop):
        if c.branch == 0 and c.text in steps_under and c.periodic:
            return c.text
    return None


def _torch_warning(sched: Obj) -> str:
    """What PyTorch says about it: only torch's schedulers (the Hugging Face builders' LambdaLR
    and the project's subclasses that keep torch's step() among them) count their optimizer's
    steps and warn; a timm scheduler does not; one whose class is not in view may be either."""
    warning = "lr_scheduler.step() came before optimizer.step()"
    if sched.origin in ("torch", "hf") or sched.torch_step:
        return f" (and PyTorch warns that {warning})"
    if sched.origin or sched.project is not None:
        return ""
    return f" (if it is one of PyTorch's schedulers, PyTorch also warns that {warning})"


def _steady_position(ctx: FileContext, e: Event, loop: Loop) -> bool:
    """``scheduler.step(epoch)`` in the batch loop, where ``epoch`` is a position the loop's
    passes do not change (a parameter, an outer loop's counter): every pass sets the schedule
    to the same position, so a skipped update moves it no further than a real one. A position
    the loop advances (``step(epoch + i / iters)``, ``step(self.iteration)`` with the counter
    bumped in the loop or in the function that steps) is not steady."""
    node = e.node
    if _plain_step(e) or not isinstance(node, ast.Call) \
            or len(node.args) + len(node.keywords) != 1:
        return False
    if node.keywords and node.keywords[0].arg != "epoch":
        return False
    arg = node.args[0] if node.args else node.keywords[0].value
    words = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)} \
        | {n.attr for n in ast.walk(arg) if isinstance(n, ast.Attribute)}
    if not words:
        return False
    moving = set(loop.targets | loop.counters)
    tree = ctx.tree_of(e.path)
    fn = function_around(tree, node) if tree is not None else None
    for body in (loop.node, fn if fn is not tree else None):
        for target in _assigned_in(body, loops=True) if body is not None else ():
            # `data["epoch"] = epoch` stores into `data`; the key is no name of the position
            while isinstance(target, ast.Subscript):
                target = target.value
            moving |= _target_words(target)
    return not words & moving


def _paired_scaler_steps(ctx: FileContext, e: Event) -> list[Event]:
    """The scheduler step ``e`` runs in no loop lrdoctor sees (the method of a trainer class
    whose training loop is the caller's, out of view): the ``scaler.step(optimizer)`` calls
    made earlier in the same function call, outside any loop, on the scheduler's optimizer.
    Each call of that function makes one update and one scheduler step, so the scheduler
    steps once per update, skipped or not. A step that names its position (``step(epoch)``)
    is not paired with the update."""
    if e.frame is None or not _plain_step(e):
        return []
    sched_opt = e.obj.optimizer if e.obj is not None else None
    out = []
    for s in ctx.program.events:
        if s.kind != "scaler_step" or s.root != e.root or s.frame is not e.frame \
                or s.loop is not None or s.order > e.order:
            continue
        stepped = s.info.get("optimizer")
        if isinstance(stepped, Obj) and sched_opt is not None and stepped is not sched_opt:
            continue
        out.append(s)
    return out


def _updates_around(ctx: FileContext, e: Event, loop: Loop) -> list[Event]:
    """The updates of the scheduler's optimizer in its loop, or, when that loop holds none
    (``for _ in range(accum_steps): scheduler.step()`` after the update), in the nearest
    enclosing loop whose own body makes the update: the step still runs once (or more) per
    update there. An update in a sibling loop (the batch loop before a catch-up loop) is not
    one the step follows in the same pass."""
    for anc in loop.ancestors():
        found = ctx.updates_in(anc, e.root, e.obj.optimizer if e.obj is not None else None)
        if anc is loop:
            if found:
                return found
            continue
        mine = [u for u in found if u.loop is anc]
        if found:
            return mine
    return []


_FINITE_WORDS = frozenset(
    {"finite", "isfinite", "nonfinite", "nan", "nans", "isnan", "inf", "infs", "isinf",
     "overflow", "overflowed", "overflows"}
)


def _identifier_words(text: str) -> set[str]:
    """The words of the identifiers in ``text``: ``found_inf`` -> found, inf;
    ``hasOverflow`` -> has, overflow."""
    out: set[str] = set()
    for token in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        for part in token.split("_"):
            out.update(w.lower() for w in re.findall(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])", part))
    return out


def _skip_guard(c: Cond, s: Event) -> bool:
    """Whether the condition on a scheduler step can tell that GradScaler skipped the update
    ``s``. A test the update itself sits under was evaluated before the update was made, so
    it knows of a skip only when it reads the gradients' finiteness, the very thing the scaler
    checks (`if torch.isfinite(grad_norm): scaler.step(opt); scheduler.step()` after
    unscale_); a loop-control test of the caller that happens to name a data `skip` setting
    (`if total_iter >= change_skip_iter[0]: ... break` before the training call) cannot.
    A test only the step sits under is read after the update (`scale_before <= scale_after`,
    `if not skip_lr_sched:`)."""
    if not _reads_the_scale(c.meaning):
        return False
    if any(d.key == c.key and d.branch == c.branch for d in s.conds):
        return bool(_identifier_words(c.meaning) & _FINITE_WORDS)
    return True


def _counts_real_updates(ctx: FileContext, c: Cond, s: Event, e: Event) -> bool:
    """Whether the condition ``c`` on the scheduler step ``e`` compares the optimizer's own
    per-parameter state read after the update ``s`` (``scaler.step(opt)``) with the same state
    read before it, in the function that makes both: ``before = counts(opt)``,
    ``scaler.step(opt)``, ``stepped = moved(opt, before)``, ``if stepped: scheduler.step()``
    (``counts`` and ``moved`` read ``opt.state``, where each parameter's ``step`` counter
    lives, directly or through another function of the module). GradScaler skips an update by
    not calling ``opt.step()``, so that state does not change on a skipped update: the test
    tells a skip exactly, whatever its names say. What the test reads after the update is
    every assignment to its names that can run between the update and the step (one in the
    other branch of an ``if`` around the update, the fp32 path's ``stepped = True``, cannot);
    each must be such a comparison. A value read after the update only, or one read from the
    param groups (the LR, which the update does not change), is no such test."""
    node = s.node
    if not isinstance(node, ast.Call) or not node.args or c.test is None \
            or c.key[0] != s.path or e.path != s.path:
        return False
    tree = ctx.tree_of(s.path)
    if tree is None:
        return False
    around = function_around(tree, node)
    if function_around(tree, e.node) is not around or not s.line < e.line:
        return False
    optimizer = ast.unparse(node.args[0])
    names = {n.id for n in ast.walk(c.test) if isinstance(n, ast.Name)}
    after: list[ast.expr] = [c.test] if _reads_optimizer_state(
        ctx, s.path, c.test, optimizer) else []
    before: set[str] = set()
    for stmt in ast.walk(around):
        if not isinstance(stmt, ast.Assign) or function_around(tree, stmt) is not around:
            continue
        bound = {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        if stmt.lineno < s.line:
            if _reads_optimizer_state(ctx, s.path, stmt.value, optimizer):
                before |= bound
        elif stmt.lineno < e.line and bound & names and not _other_branch(around, stmt, node):
            after.append(stmt.value)
    return bool(after) and all(
        _reads_optimizer_state(ctx, s.path, value, optimizer)
        and any(isinstance(n, ast.Name) and n.id in before for n in ast.walk(value))
        for value in after)


def _returned_by_the_update(ctx: FileContext, c: Cond, s: Event) -> bool:
    """Whether the condition ``c`` on a scheduler step reads what a function of the project
    that makes the update ``s`` returns, and that function returns whether the update ran:
    ``stepped = amp_step(loss)`` (or ``if self.optimizer_step(loss):``) where ``amp_step``
    calls ``scaler.step(opt)`` and returns ``scaler.get_scale() >= scale_before`` (or a name
    bound to such a comparison, or a comparison of the optimizer's own step count). Every
    value it returns must say so, a literal ``True`` of a path without a scaler aside: a
    function that also returns the loss, or returns it alone, tells nothing of a skip."""
    if c.test is None or not isinstance(s.node, ast.Call) or not s.node.args:
        return False
    tree = ctx.tree_of(s.path)
    module = ctx.module_of(s.path)
    if tree is None or module is None or c.key[0] != s.path:
        return False
    optimizer = ast.unparse(s.node.args[0])
    for part in (c.test, *c.origins):
        for call in (n for n in ast.walk(part) if isinstance(n, ast.Call)):
            function = _called_function(tree, module, call)
            if function is None or not (function.lineno <= s.line
                                        <= (function.end_lineno or function.lineno)):
                continue
            returns = [n.value for n in own_nodes(function)
                       if isinstance(n, ast.Return) and n.value is not None]
            told = [value for value in returns
                    if not (isinstance(value, ast.Constant) and isinstance(value.value, bool))]
            if told and all(_tells_a_skip(ctx, s.path, function, value, optimizer)
                            for value in told):
                return True
    return False


def _called_function(tree: ast.Module, module: ModuleInfo, call: ast.Call
                     ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function ``call`` calls: a function of the module (``name(...)``) or one the module
    imports from a project module (``from engine import evaluate``), or the method of the
    class around the call (``self.name(...)``), its own or one it inherits from a project base
    class."""
    func = call.func
    if isinstance(func, ast.Name):
        found = module.functions.get(func.id)
        qualname = module.imports.get(func.id)
        if found is None and qualname is not None and module.loader is not None:
            located = module.loader.module_for(qualname, module)
            found = located[0].functions.get(located[1]) if located is not None else None
        return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
            and func.value.id == "self":
        owner = class_at(tree, call.lineno)
        info = module.classes.get(owner.name) if owner is not None else None
        method = info.find(func.attr) if info is not None and info.node is owner else None
        return method[0] if method is not None else None
    return None


def _tells_a_skip(ctx: FileContext, path: str, function: ast.AST, value: ast.expr,
                  optimizer: str) -> bool:
    """A value ``function`` returns asks whether its update was skipped: it reads the scale
    (``scaler.get_scale() >= before``, ``not found_inf``) or the optimizer's own state, itself
    or through what the function last bound the names it reads to."""
    read = {n.id for n in ast.walk(value) if isinstance(n, ast.Name)}
    bound = [stmt.value for stmt in own_nodes(function) if isinstance(stmt, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id in read for t in stmt.targets)]
    text = " ".join(ast.unparse(v) for v in (value, *bound))
    return _reads_the_scale(text) or any(
        _reads_optimizer_state(ctx, path, v, optimizer) for v in (value, *bound))


def _other_branch(around: ast.AST, a: ast.AST, b: ast.AST) -> bool:
    """``a`` and ``b`` sit in the two branches of one ``if`` in ``around``: they never run in
    the same pass."""
    line_a, line_b = getattr(a, "lineno", 0), getattr(b, "lineno", 0)

    def within(body: list[ast.stmt], line: int) -> bool:
        return bool(body) and body[0].lineno <= line <= (body[-1].end_lineno or body[-1].lineno)

    for node in ast.walk(around):
        if isinstance(node, ast.If) and node.orelse and (
                within(node.body, line_a) and within(node.orelse, line_b)
                or within(node.orelse, line_a) and within(node.body, line_b)):
            return True
    return False


def _reads_optimizer_state(ctx: FileContext, path: str, node: ast.AST, optimizer: str,
                           depth: int = 0) -> bool:
    """``node`` reads ``<optimizer>.state`` (the per-parameter state, ``step`` counters
    included), or calls a function of the module with the optimizer as an argument whose body
    does so through that parameter (two calls deep at most)."""
    module = ctx.module_of(path)
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in ("state", "_step_count") \
                and ast.unparse(sub.value) == optimizer:
            # `_step_count`: the count of calls of the optimizer's own step(), which torch's
            # schedulers keep on it; a skipped update never calls that step()
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) \
                and sub.func.id == "getattr" and len(sub.args) >= 2 \
                and ast.unparse(sub.args[0]) == optimizer \
                and isinstance(sub.args[1], ast.Constant) \
                and sub.args[1].value in ("state", "_step_count"):
            return True
        if depth >= 2 or module is None or not isinstance(sub, ast.Call) \
                or not isinstance(sub.func, ast.Name):
            continue
        function = module.functions.get(sub.func.id)
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        params = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
        handed = [params[i] for i, a in enumerate(sub.args)
                  if i < len(params) and ast.unparse(a) == optimizer]
        handed += [k.arg for k in sub.keywords
                   if k.arg is not None and ast.unparse(k.value) == optimizer]
        if any(_reads_optimizer_state(ctx, path, function, param, depth + 1)
               for param in handed):
            return True
    return False


def _off_by_default(ctx: FileContext, c: Cond) -> str:
    """The setting that switches off the skip guard ``c`` in the run as written, or "": the
    step sits past `if check and not finite(...): continue` (the branch where the test fails)
    and one of the test's `and` parts is a setting whose stated default is off (an argparse
    `store_true` flag, `default=False`, a config field set to 0 / None), however it was
    copied into the object the loop reads (`cfg.check_grads` for `--check-grads`). The test
    then never holds, and the guard never leaves."""
    test = c.test
    if c.branch != 1 or not isinstance(test, ast.BoolOp) or not isinstance(test.op, ast.And):
        return ""
    module = ctx.module_of(c.key[0])
    if module is None:
        return ""
    for part in test.values:
        if not isinstance(part, (ast.Attribute, ast.Subscript, ast.Call)) \
                or not constants.setting_name(part):
            continue
        if constants.known(part, None, module) and not constants.resolve(part, None, module):
            return ast.unparse(part)
    return ""


def _leaves_on_skip(ctx: FileContext, s: Event, e: Event) -> bool:
    """Whether, between the update ``s`` and the scheduler step ``e`` of one function, an
    ``if`` that asks whether the update was skipped leaves before the step (``return``, or
    ``continue`` / ``break`` of a loop that holds the step): the step is not reached after a
    skip. The guard may sit in the AMP branch only (``if amp: scaler.step(opt); ...; if
    scale_before != scaler.get_scale(): return`` ``else: opt.step()`` then the step): the
    path that skips it makes no scaled update. The trace carries such a nested exit to the
    statements after the outer ``if`` in neither branch, so it is read from the function (or
    the script's top level)."""
    if s.path != e.path or not isinstance(s.node, ast.expr) or not isinstance(e.node, ast.expr):
        return False
    tree = ctx.tree_of(e.path)
    if tree is None:
        return False
    fn = function_around(tree, e.node)  # a function, or the script's top level
    if function_around(tree, s.node) is not fn:
        return False
    after = s.node.end_lineno or s.node.lineno
    before = e.node.lineno
    if not after < before:
        return False
    for node, loops in _ifs_with_loops(fn):
        if not (after < node.lineno and (node.end_lineno or node.lineno) < before):
            continue
        exit_ = _exit_of(node)
        if exit_ is None or not _reads_the_scale(ast.unparse(node.test)):
            continue
        if isinstance(exit_, (ast.Continue, ast.Break)):
            # the loop it leaves (or goes round) must hold the step too
            if not loops or not (loops[-1].lineno <= before <= (loops[-1].end_lineno or 0)):
                continue
        return True
    return False


def _ifs_with_loops(fn: ast.AST) -> Iterator[tuple[ast.If, tuple[ast.stmt, ...]]]:
    """Every ``if`` in the body of ``fn`` (not in a function or class it defines), with the
    loops around it inside ``fn``, innermost last."""
    stack: list[tuple[ast.AST, tuple[ast.stmt, ...]]] = [(fn, ())]
    while stack:
        node, loops = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                  ast.Lambda)):
                continue
            inner = loops
            if isinstance(child, (ast.For, ast.AsyncFor, ast.While)):
                inner = (*loops, child)
            elif isinstance(child, ast.If):
                yield child, loops
            stack.append((child, inner))


def _exit_of(node: ast.If) -> ast.stmt | None:
    """The statement that leaves when the test of ``node`` holds: its body (with no
    ``else``) ends in ``return``, ``continue`` or ``break``; None otherwise."""
    if node.orelse or not node.body:
        return None
    last = node.body[-1]
    return last if isinstance(last, (ast.Return, ast.Continue, ast.Break)) else None


def _skip_fix_evidence(sched: Obj, s: Event, e: Event) -> dict[str, Any]:
    """What --unsafe-fixes needs: where the scheduler is built (to wrap it) and the optimizer
    GradScaler steps (to guard the step)."""
    out: dict[str, Any] = {"scaler_line": s.line}
    if isinstance(s.node, ast.Call) and s.node.args and s.path == e.path:
        out["optimizer"] = ast.unparse(s.node.args[0])
    if sched.call is not None and sched.path == e.path and not sched.in_composite:
        out["scheduler_built"] = [sched.call.lineno, sched.call.col_offset + 1]
    return out


def _in_skip_aware_wrapper(e: Event) -> bool:
    """The step lrdoctor.SkipAwareScheduler makes on its wrapped scheduler (seen when the
    checked project holds lrdoctor's own source): only ever after a real update."""
    return e.path.replace("\\", "/").endswith("lrdoctor/skipaware.py")


def _exclusive(a: Event, b: Event) -> bool:
    return exclusive(a, b)


# -- LRD006 ------------------------------------------------------------------------------------


@rule("LRD006")
def deprecated_epoch_argument(ctx: FileContext) -> Iterator[Diagnostic]:
    # per call: (its first event, the epoch argument, what each scheduler it runs with is)
    reached: dict[int, tuple[Event, ast.expr, list[str]]] = {}
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None and isinstance(e.node, ast.Call)
        if sched.guessed and not (sched.torch_step or sched.torch_module) \
                or sched.cls in ("ReduceLROnPlateau", "CosineAnnealingWarmRestarts"):
            continue
        if sched.origin not in ("torch", "hf") and not (sched.torch_step or sched.torch_module):
            continue
        if e.info.get("project_option"):
            continue  # one call for the project's own class too, which needs the epoch
        if e.info.get("forwarded"):
            continue  # a wrapper's `step(epoch=None)` passing on what its caller may give
        if (sched.cls or sched.torch_module) and _takes_more_than_an_epoch(e.node):
            continue  # `s.step(metrics, None)`: StepLR's step() would raise, not this class
        if any(not (named & {sched.cls}) for named in map(_names_the_class, e.conds) if named):
            continue  # `if cfg.lr_scheme == "ReduceLROnPlateau": s.step(val)`: not this class
        arg = e.node.args[0] if e.node.args else next(
            (k.value for k in e.node.keywords if k.arg == "epoch"), None
        )
        if arg is None or (isinstance(arg, ast.Constant) and arg.value is None):
            continue  # `step(None)` is `step()`
        if not sched.cls and _reads_a_metric(arg):
            # `if EXP: scheduler.step(val_loss)` on a scheduler of unknown class: a call
            # written for a plateau option (built on another branch), not an epoch
            continue
        if sched.torch_module and not sched.cls and not sched.torch_step \
                and not _reads_a_position(arg, e):
            # `getattr(lr_scheduler, cfg["type"])(opt, **args)` stepped with `step(current)`:
            # the class a config names may be ReduceLROnPlateau, whose one argument is the
            # monitored value; only a value that reads as a count (an epoch, the loop's
            # index) says the call hands a position
            continue
        if sched.torch_module and not sched.cls and (any(
                isinstance(n, ast.BinOp) and isinstance(n.op, ast.Div) for n in ast.walk(arg))
                or any(_isinstance_classes(c) <= _OWN_EPOCH_STEP for c in e.conds
                       if _isinstance_classes(c))):
            # `step(epoch + i / iters)` on whichever class a setting picks from torch's
            # module: a fractional epoch is CosineAnnealingWarmRestarts' documented use; and
            # under `isinstance(s, ReduceLROnPlateau)` the argument is the plateau's metric
            continue
        if _contradicts_build(list(e.conds), sched):
            continue  # built where `args.plateau` is False, stepped under `if args.plateau:`
        if _contradicts_copied_build(ctx, e):
            continue  # built under `if warmup > 0:`, stepped under `if not self.warmup > 0:`
        if _guard_turned_off_with_build(ctx, e):
            continue  # `if cfg.warm_up: sched = Warmup(...); cfg.per_batch = False`, then
            # `if cfg.per_batch: sched.step(epoch + i / n)`: never this scheduler
        if _guard_set_only_beside_other_builds(ctx, e):
            continue  # `self.use_metric = False` first, `= True` only on the plateau's arm of
            # the chain that builds this StepLR on another: `if self.use_metric:
            # self.scheduler.step(metric)` never runs with the StepLR
        if _expects_a_warning(ctx, e):
            continue  # a test that the deprecated call warns: it is made on purpose
        built = (dotted(sched.via.func) or "").rsplit(".", 1)[-1] \
            if sched.via is not None and sched.project is None else ""
        target = sched.cls or (
            f"{built} (warmup_scheduler), which hands it on to torch's step(epoch)"
            if built == "GradualWarmupScheduler"
            else f"{sched.warmup_wrapper} (a subclass of warmup_scheduler's "
                 "GradualWarmupScheduler that keeps its step()), which hands it on to torch's "
                 "step(epoch)" if sched.warmup_wrapper
            else "the class of torch.optim.lr_scheduler that the setting picks (any but "
                 "CosineAnnealingWarmRestarts)" if sched.torch_module and not sched.torch_step
            else "a subclass of torch.optim.lr_scheduler.LRScheduler that keeps its step()")
        # one call on a scheduler a setting picks (`StepLR` or `CosineAnnealingLR`): the
        # finding is the call's, so it names every option it holds for (and only those)
        found = reached.setdefault(id(e.node), (e, arg, []))
        if target not in found[2]:
            found[2].append(target)
    for e, arg, targets in reached.values():
        assert isinstance(e.node, ast.Call)
        given = ast.unparse(arg) if e.node.args else f"epoch={ast.unparse(arg)}"
        # several classes at one call: a setting picks one, unless the receiver is the
        # variable of a loop over the schedulers (`for s in schedulers: s.step(epoch)`)
        over = _iterated_receiver(ctx, e)
        target = targets[0] if len(targets) == 1 else \
            f"{' and '.join(sorted(targets))} (each scheduler of the loop over `{over}`)" \
            if over else f"{' or '.join(sorted(targets))} (whichever the setting picks)"
        # what the call hands over is whatever `arg` holds (a validation loss, sometimes):
        # the scheduler takes it as its epoch position, which is what the message says
        value = f"`{ast.unparse(arg)}`"
        if _reads_a_metric(arg):
            value += " (a loss or score, not an epoch count)"
        where = "where it is called now"
        if _before_the_updates_of_its_pass(ctx, e):
            # `sched.step(epoch=epoch)` at the top of the epoch hands position 0 to the first
            # pass; a bare step() there would move to position 1 before any update (LRD001)
            where = ("after the optimizer steps of each pass instead (a bare step() where it "
                     "is called now, before them, would skip the first LR value)")
        yield Diagnostic.at(
            "LRD006",
            f"`{receiver(e)}.step({given})` hands {value} to {target}, which takes it as its "
            "epoch position: the argument is deprecated and switches to the closed-form "
            "formula; drop it and "
            f"call `{receiver(e)}.step()` {where}",
            e.path,
            e.node,
        )


def _takes_more_than_an_epoch(call: ast.Call) -> bool:
    """The step call hands over what no chainable scheduler's ``step(epoch=None)`` accepts:
    two positional arguments (``s.step(metrics, None)``, ``s.step(val, epoch)``) or a keyword
    other than ``epoch`` (``s.step(metrics=val)``). On LambdaLR, StepLR or any other
    LRScheduler such a call raises TypeError at once, so where it runs the object is another
    class (ReduceLROnPlateau's ``step(metrics, epoch=None)``, or the project's own): a class
    lrdoctor believes the name may hold (one option of a factory) never reaches this call. A
    starred argument or ``**kwargs`` may hold anything and decides nothing."""
    if any(isinstance(a, ast.Starred) for a in call.args):
        return False
    if len(call.args) >= 2:
        return True
    return any(k.arg is not None and k.arg != "epoch" for k in call.keywords)


def _before_the_updates_of_its_pass(ctx: FileContext, e: Event) -> bool:
    """The step runs before every update of its scheduler's optimizer in each pass of its loop."""
    sched = e.obj
    if e.loop is None or sched is None:
        return False
    updates = [u for u in ctx.updates_in(e.loop, e.root, sched.optimizer) if not exclusive(e, u)]
    return bool(updates) and e.order < min(u.order for u in updates)


# context managers that fail unless their body warns: pytest's, unittest's
_WARNING_EXPECTED = frozenset({"warns", "deprecated_call", "assertWarns", "assertWarnsRegex"})


def _expects_a_warning(ctx: FileContext, e: Event) -> bool:
    """The call sits in a block that expects a warning from its body: `with pytest.warns(...)`,
    `pytest.deprecated_call()`, `self.assertWarns(...)`, or `warnings.catch_warnings(record=True)
    as w` whose record `w` the function then reads (`assert len(w) == 1`). Such code checks
    that the call warns (a test of the deprecation), it does not train with it; a
    `catch_warnings()` that only silences the warning still runs the deprecated path."""
    tree = ctx.tree_of(e.path)
    if tree is None:
        return False
    fn = function_around(tree, e.node)
    for block in ast.walk(fn):
        if not isinstance(block, (ast.With, ast.AsyncWith)) or not any(
                e.node in ast.walk(stmt) for stmt in block.body):
            continue
        for item in block.items:
            call = item.context_expr
            if not isinstance(call, ast.Call):
                continue
            name = (dotted(call.func) or "").rsplit(".", 1)[-1]
            if name in _WARNING_EXPECTED:
                return True
            record = next((k.value for k in call.keywords if k.arg == "record"), None)
            if name == "catch_warnings" and isinstance(record, ast.Constant) \
                    and record.value is True and isinstance(item.optional_vars, ast.Name):
                caught = item.optional_vars.id
                if any(isinstance(n, ast.Name) and n.id == caught and isinstance(n.ctx, ast.Load)
                       for n in ast.walk(fn)):
                    return True
    return False


def _handed_on_by_gradual_warmup(sched: Obj) -> Obj | None:
    """The one torch scheduler the pip package warmup_scheduler's ``GradualWarmupScheduler``
    hands its steps to after its warm-up (``after_scheduler=``, see the trace's
    ``_gradual_warmup``); None for anything else, or a follower chosen among several."""
    if not sched.torch_step or sched.project is not None or sched.via is None \
            or (dotted(sched.via.func) or "").rsplit(".", 1)[-1] != "GradualWarmupScheduler":
        return None
    if len(sched.members) != 1 or sched.members[0].guessed:
        return None
    return sched.members[0]


def _reads_a_metric(arg: ast.expr) -> bool:
    """``val_loss``, ``metrics["acc"]``, ``self.best_score``: a value named as a loss or a
    score, never an epoch."""
    # `global_step // accumulate_grad_batches` counts steps: "acc" of an accumulation
    # setting names no accuracy
    text = re.sub(r"accum\w*", "", ast.unparse(arg).lower())
    return bool(names.LOSS_WORDS.search(text) or names.ACC_WORDS.search(text)) \
        and "epoch" not in text


def _reads_a_position(arg: ast.expr, e: Event) -> bool:
    """``epoch``, ``self.current_epoch + 1``, ``it``, ``3``: a value that reads as a count of
    passes (its text says epoch, iteration or step, it holds the index of a loop around the
    call, or it is a whole number), which a scheduler takes as its position."""
    if isinstance(arg, ast.Constant) and type(arg.value) is int:
        return True
    if _POSITION_WORDS.search(ast.unparse(arg).lower()):
        return True
    used = {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}
    loop = e.loop
    while loop is not None:
        if used & (loop.targets | loop.counters):
            return True
        loop = loop.parent
    return False


_POSITION_WORDS = re.compile(r"epoch|iter|step|(?<![a-z])(ep|it|i|e)(?![a-z])")


def _contradicts_copied_build(ctx: FileContext, e: Event) -> bool:
    """The scheduler was built in a method under a test on one of its arguments (``if
    warmup_steps > 0:``) that the same method copies to the instance (``self.warmup_steps =
    warmup_steps``), and ``e``, a step of ``self.<scheduler>`` in a method of that instance,
    sits under the same test on the copy (``if not self.warmup_steps > 0:``) that the build's
    branch decides the other way: the call never runs with this scheduler."""
    sched = e.obj
    assert sched is not None
    built = sched.built_under or ()
    call = e.node
    if not built or sched.call is None or not isinstance(call, ast.Call) \
            or not isinstance(call.func, ast.Attribute) \
            or not isinstance(call.func.value, ast.Attribute) \
            or not isinstance(call.func.value.value, ast.Name) \
            or call.func.value.value.id != "self":
        return False
    tree, here = ctx.tree_of(sched.path), ctx.tree_of(e.path)
    if tree is None or here is None:
        return False
    copies = _instance_copies(function_around(tree, sched.call))
    if not copies:
        return False
    stepping = function_around(here, call)
    copies = {a: n for a, n in copies.items() if not _stores_attribute(stepping, a)}
    shared = {(c.key, c.branch) for c in built}
    for c in e.conds:
        if c.test is None or (c.key, c.branch) in shared:
            continue
        test = _with_copies_undone(c.test, copies)
        if test is c.test:
            continue
        if holds_first(Cond(c.key, c.branch, test, None), {}, None, built) is False:
            return True
    return False


def _guard_turned_off_with_build(ctx: FileContext, e: Event) -> bool:
    """The branch that builds the scheduler of ``e`` goes on to set a flag to a constant
    (``self.cfg.per_batch = False`` right after ``self.scheduler = Warmup(...)`` under ``if
    cfg.warm_up:``), and ``e`` runs only where that flag holds the other way (``if
    self.cfg.per_batch: self.scheduler.step(...)``): the step never runs with this scheduler.
    The flag must be spelled the same in both places, within one function, or as an
    attribute of ``self`` within the methods of one class, and nothing there may set it back
    (the only other store allowed is its first value, set before the build in the build's
    function, outside any loop)."""
    sched = e.obj
    assert sched is not None
    if not sched.built_under or not sched.line:
        return False
    tree, here = ctx.tree_of(sched.path), ctx.tree_of(e.path)
    if tree is None or here is None or sched.path != e.path:
        return False
    set_after = _constants_set_after(tree, sched.line)
    if not set_after:
        return False
    build_fn = function_at(tree, sched.line)
    step_fn = function_at(tree, e.line)
    if build_fn is None or step_fn is None:
        return False
    if build_fn is step_fn:
        scope: ast.AST = build_fn
    else:
        scope = next((c for c in definitions_in(tree)[1]
                      if c.lineno <= min(build_fn.lineno, step_fn.lineno)
                      and max(build_fn.end_lineno or 0, step_fn.end_lineno or 0)
                      <= (c.end_lineno or 0)
                      and build_fn in c.body and step_fn in c.body), tree)
        if scope is tree:
            return False  # two functions of no one class: `cfg` may be two objects
    for c in e.conds:
        test, truth = c.test, c.branch == 0
        if test is None or c.branch not in (0, 1):
            continue
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, truth = test.operand, not truth
        flag = dotted(test) if isinstance(test, (ast.Name, ast.Attribute)) else None
        if flag is None or flag not in set_after or bool(set_after[flag][1]) == truth:
            continue
        if scope is not build_fn and not flag.startswith("self."):
            continue
        # other stores: only the flag's first value, set before the build in the same
        # function, outside any loop that would come back to it
        before = [n for n in ast.walk(scope)
                  if isinstance(n, (ast.Name, ast.Attribute))
                  and isinstance(n.ctx, (ast.Store, ast.Del)) and dotted(n) == flag
                  and n is not set_after[flag][0]]
        if all(n.lineno < sched.line and function_at(tree, n.lineno) is build_fn
               for n in before) and not (before and any(
                   isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
                   and loop.lineno <= sched.line <= (loop.end_lineno or 0)
                   for loop in ast.walk(build_fn))):
            return True
    return False


def _guard_set_only_beside_other_builds(ctx: FileContext, e: Event) -> bool:
    """``e`` runs only where a flag holds one way (``if self.use_metric:
    self.scheduler.step(metric)``); the function that builds ``e``'s scheduler first sets
    the flag the other way (``self.use_metric = False``, before the build, at the function's
    own level, outside any loop), and every other store of the flag sets it the step's way on
    another arm of an ``if``/``elif`` of which the build is an arm (``elif kind ==
    "plateau": ...ReduceLROnPlateau(...); self.use_metric = True``). On the build's path the
    flag keeps its first value, so the step never runs with this scheduler. The flag is
    spelled the same in both places, within one function or as an attribute of ``self``
    within the methods of one class; a store of any other kind (not a literal), or outside
    the build's function, keeps the step as it is."""
    sched = e.obj
    assert sched is not None
    if not sched.line or sched.path != e.path:
        return False
    tree = ctx.tree_of(sched.path)
    if tree is None:
        return False
    build_fn = function_at(tree, sched.line)
    step_fn = function_at(tree, e.line)
    if build_fn is None or step_fn is None:
        return False
    if any(isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
           and loop.lineno <= sched.line <= (loop.end_lineno or 0)
           for loop in ast.walk(build_fn)):
        return False  # built again on a later pass, after another arm's store
    if build_fn is step_fn:
        scope: ast.AST = build_fn
    else:
        scope = next((c for c in definitions_in(tree)[1]
                      if build_fn in c.body and step_fn in c.body), tree)
        if scope is tree:
            return False
    for c in e.conds:
        test, truth = c.test, c.branch == 0
        if test is None or c.branch not in (0, 1):
            continue
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, truth = test.operand, not truth
        flag = dotted(test) if isinstance(test, (ast.Name, ast.Attribute)) else None
        if flag is None or (scope is not build_fn and not flag.startswith("self.")):
            continue
        stores = [n for n in ast.walk(scope) if isinstance(n, ast.Assign)
                  and any(isinstance(t, (ast.Name, ast.Attribute)) and dotted(t) == flag
                          for t in n.targets)]
        if not stores or any(len(n.targets) != 1 or not isinstance(n.value, ast.Constant)
                             or function_at(tree, n.lineno) is not build_fn for n in stores):
            continue
        if any(isinstance(n, (ast.Name, ast.Attribute)) and dotted(n) == flag
               and isinstance(n.ctx, ast.Del) or isinstance(n, ast.AugAssign)
               and isinstance(n.target, (ast.Name, ast.Attribute)) and dotted(n.target) == flag
               for n in ast.walk(scope)):
            continue
        first = [n for n in stores if n in build_fn.body and n.lineno < sched.line]
        if len(first) != 1 or bool(first[0].value.value) == truth:  # type: ignore[attr-defined]
            continue
        others = [n for n in stores if n is not first[0]]
        if others and all(bool(n.value.value) == truth  # type: ignore[attr-defined]
                          and _on_other_arms(build_fn, sched.line, n.lineno) for n in others):
            return True
    return False


def _on_other_arms(fn: ast.AST, one: int, other: int) -> bool:
    """Lines ``one`` and ``other`` lie on two arms of one ``if`` (its body and its ``else``,
    an ``elif`` chain included): one pass through ``fn`` runs at most one of them."""
    def within(stmts: list[ast.stmt], line: int) -> bool:
        return bool(stmts) and stmts[0].lineno <= line <= (stmts[-1].end_lineno or 0)
    return any(isinstance(n, ast.If) and (
        within(n.body, one) and within(n.orelse, other)
        or within(n.orelse, one) and within(n.body, other)) for n in ast.walk(fn))


def _constants_set_after(tree: ast.AST, line: int) -> dict[str, tuple[ast.expr, object]]:
    """The flags (a name or a dotted attribute) the block holding the simple statement at
    ``line`` sets to a literal (True, False, None, a number or a string) after that
    statement, at the block's own level: {flag: (the target, the value)}; a flag set twice
    there is left out."""
    stmt = next((n for n in ast.walk(tree) if isinstance(n, ast.stmt)
                 and not hasattr(n, "body") and n.lineno <= line <= (n.end_lineno or n.lineno)),
                None)
    block = block_of(tree, stmt) if stmt is not None else None
    if stmt is None or block is None:
        return {}
    out: dict[str, tuple[ast.expr, object]] = {}
    twice: set[str] = set()
    for later in block[block.index(stmt) + 1:]:
        if not (isinstance(later, ast.Assign) and len(later.targets) == 1
                and isinstance(later.value, ast.Constant)):
            continue
        target = later.targets[0]
        flag = dotted(target) if isinstance(target, (ast.Name, ast.Attribute)) else None
        if flag is None:
            continue
        if flag in out:
            twice.add(flag)
        out[flag] = (target, later.value.value)
    return {k: v for k, v in out.items() if k not in twice}


def _instance_copies(fn: ast.AST) -> dict[str, str]:
    """``self.<attr> = <name>`` made once in ``fn`` from a name ``fn`` never rebinds (an
    argument): {attr: name}."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    stores: dict[str, list[ast.expr | None]] = {}
    rebound: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            rebound.add(node.id)
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
            value = node.value if isinstance(node, ast.AnnAssign) else None
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) \
                    and t.value.id == "self":
                stores.setdefault(t.attr, []).append(value)
    return {attr: v[0].id for attr, v in stores.items()
            if len(v) == 1 and isinstance(v[0], ast.Name) and v[0].id not in rebound}


def _stores_attribute(fn: ast.AST, attr: str) -> bool:
    """``fn`` assigns ``self.<attr>``."""
    return any(isinstance(n, ast.Attribute) and isinstance(n.ctx, (ast.Store, ast.Del))
               and n.attr == attr and isinstance(n.value, ast.Name) and n.value.id == "self"
               for n in ast.walk(fn))


def _with_copies_undone(test: ast.expr, copies: dict[str, str]) -> ast.expr:
    """``test`` with each ``self.<attr>`` of ``copies`` read as the name it was copied from;
    ``test`` itself when it reads none."""
    if not any(isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
               and n.value.id == "self" and n.attr in copies for n in ast.walk(test)):
        return test

    class _Undo(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if isinstance(node.value, ast.Name) and node.value.id == "self" \
                    and node.attr in copies:
                return ast.copy_location(ast.Name(copies[node.attr], ast.Load()), node)
            return self.generic_visit(node)

    out = _Undo().visit(copy.deepcopy(test))
    assert isinstance(out, ast.expr)
    return out


# the torch schedulers whose step() takes an argument of its own, not a deprecated epoch
_OWN_EPOCH_STEP = frozenset({"ReduceLROnPlateau", "CosineAnnealingWarmRestarts"})


def _isinstance_classes(cond: Cond) -> set[str]:
    """The torch scheduler classes the branch taken is for, when its test is ``isinstance(s,
    C)`` (or a tuple of classes) on its body side; empty for any other test."""
    test = cond.test
    if cond.branch != 0 or not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name)
                                and test.func.id == "isinstance" and len(test.args) == 2):
        return set()
    kinds = test.args[1]
    spelled = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
    classes = {(dotted(k) or "").rsplit(".", 1)[-1] for k in spelled}
    return classes if classes <= set(SCHEDULERS) else set()


def _names_the_class(cond: Cond) -> set[str]:
    """The scheduler classes a branch runs for, where its test compares something with the
    name of a scheduler class (``if cfg.lr_scheme == "ReduceLROnPlateau":``, ``if
    sched.name in ["ReduceLROnPlateau"]:``, the ``else`` of ``!=``): the setting, or the tag,
    that names the class in use. Empty when the test says nothing of the kind."""
    test, branch = cond.test, cond.branch
    if test is None or branch not in (0, 1):
        return set()
    negate = branch == 1
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negate = test.operand, not negate
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return set()
    op = test.ops[0]
    if isinstance(op, (ast.NotEq, ast.NotIn)):
        negate = not negate
    elif not isinstance(op, (ast.Eq, ast.In)):
        return set()
    if negate:
        return set()  # "not this class": says nothing of which one it is
    sides = [test.left, test.comparators[0]]
    literals: list[ast.expr] = []
    for side in sides:
        if isinstance(side, (ast.List, ast.Tuple, ast.Set)) and isinstance(op, (ast.In, ast.NotIn)):
            literals.extend(side.elts)
        else:
            literals.append(side)
    found = {c.value for c in literals if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    named = found & set(SCHEDULERS)
    return named if named and named == found else set()


# -- LRD012 ------------------------------------------------------------------------------------


def _unconditional(e: Event) -> bool:
    return not any(c.loop is not None for c in e.conds)


def _steps_every_pass(ctx: FileContext, e: Event) -> bool:
    """``e`` steps its scheduler on every pass of its loops: no test inside a loop, or only
    tests asking whether that scheduler exists (``if warmup is not None: warmup.step()`` in a
    helper handed the scheduler), which come out the same on every pass of each loop around
    the step (nothing those loops run rebinds what they read), for a scheduler built before
    all of them (one a helper builds on some of its calls, `if epoch == 0: warmup = ...`,
    exists on those passes only)."""
    if e.loop is None:
        return _unconditional(e)
    loops = list(e.loop.ancestors())
    if any(c.loop is not None for c in e.conds):
        made = next((x for x in ctx.events_by_root.get(e.root, [])
                     if x.kind == "create" and x.obj is e.obj), None)
        if made is None or any(made.in_loop(loop) for loop in loops):
            return False
    return all(c.loop is None or _tests_existence(c, e)
               and all(_guard_test_steady(ctx, c, loop) and not _rebinds_what_it_hands(loop)
                       for loop in loops)
               for c in e.conds)


def _rebinds_what_it_hands(loop: Loop) -> bool:
    """The loop's body drops a name (``warmup = None``, ``del warmup``) that it also hands to
    a call (``train(..., warmup)``): a callee's ``if warmup is not None:`` may hold on the
    first passes and not on the later ones, a hand-over and not a step on every pass."""
    dropped = {t.id for n in ast.walk(loop.node) if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Constant) and n.value.value is None
               for t in n.targets if isinstance(t, ast.Name)}
    dropped |= {t.id for n in ast.walk(loop.node) if isinstance(n, ast.Delete)
                for t in n.targets if isinstance(t, ast.Name)}
    return any(isinstance(a, ast.Name) and a.id in dropped
               for n in ast.walk(loop.node) if isinstance(n, ast.Call)
               for a in [*n.args, *(k.value for k in n.keywords)])


@rule("LRD012")
def competing_schedulers(ctx: FileContext) -> Iterator[Diagnostic]:
    """Two schedulers stepped independently on one optimizer. Chainable ones (both multiply the
    LR in place) compose exactly as ChainedScheduler would, which PyTorch documents as correct;
    it is a bug when one of them recomputes the LR from its base values (LambdaLR, OneCycleLR,
    CyclicLR, ...) and so erases the other's changes, or when the decay was sized to start
    after the warm-up (``T_max=epochs - warmup_epochs``) but both step from the start."""
    reported: set[int] = set()
    for events in ctx.events_by_root.values():
        steps: dict[Obj, list[Event]] = {}
        for e in events:
            s = e.obj
            if (
                e.kind == "sched_step" and s is not None
                # the project's own subclass of torch's base is judged by what its get_lr reads;
                # one of torch's classes picked by a setting only beside a SWALR (below)
                and (not s.guessed or project_recomputes(s) is not None or s.torch_module)
                and s.optimizer is not None and s.origin != "timm" and not s.in_composite
                and not s.members
            ):
                steps.setdefault(s, []).append(e)
        scheds = list(steps)
        for i, a in enumerate(scheds):
            for b in scheds[i + 1:]:
                if a.optimizer is not b.optimizer or b.id in reported:
                    continue
                if (a.cls == "SWALR") != (b.cls == "SWALR"):
                    found = _swa_fought(ctx, a, b, steps)
                    if found is not None:
                        reported.add(b.id)
                        yield found
                    continue
                if _picked_by_setting(a) or _picked_by_setting(b):
                    continue  # a class a setting picks: it may well be chainable
                why = _why_competing(a, b)
                if why is None:
                    continue
                if "ReduceLROnPlateau" in (a.cls, b.cls) and not (
                        _recomputes(a) or _recomputes(b)):
                    continue  # a plateau only cuts the LR in place: it composes with the other
                # both on every pass; or the one that recomputes the LR on every pass and the
                # other only on some (`if epoch >= warmup_epochs: decay.step()` beside a
                # warm-up LambdaLR that is never stopped): each decay is erased at the
                # eraser's next step all the same
                ra, rb = _recomputes(a), _recomputes(b)
                pair = next(
                    ((x, y) for x in steps[a] for y in steps[b]
                     if x.loop is not None and y.loop is not None and _share_a_loop(x, y)
                     and (_steps_every_pass(ctx, x) and (_steps_every_pass(ctx, y) or bool(ra))
                          or _steps_every_pass(ctx, y) and bool(rb))
                     and not exclusive(x, y, parts=True)
                     and not _over_before(ctx, events, a, x, y)
                     and not _over_before(ctx, events, b, y, x)),
                    None,
                )
                if pair is None:
                    # a decay sized to start after the warm-up (`T_max=epochs - warmup`) stepped
                    # on every pass, the warm-up only while it lasts: the decay's steps during
                    # the warm-up are spent from its horizon, so it runs past it at the end
                    for decay, warmup in ((a, b), (b, a)):
                        after = _sized_after(decay, warmup)
                        if after is None:
                            continue
                        pair = next(
                            ((x, y) for x in steps[a] for y in steps[b]
                             if x.loop is not None and y.loop is not None and _share_a_loop(x, y)
                             and _unconditional(x if decay is a else y)
                             and not exclusive(x, y, parts=True)),
                            None,
                        )
                        if pair is not None:
                            why = (
                                f"{decay.cls} is sized to start after the warm-up ({after}) but "
                                "steps from the first epoch alongside it, so it runs past its "
                                "horizon before training ends; hand over with "
                                "SequentialLR(..., milestones=[warm-up length])")
                            break
                if pair is None:
                    continue
                x, y = pair
                reported.add(b.id)
                later = max(pair, key=lambda ev: ev.order)
                opt = a.optimizer.name if a.optimizer and a.optimizer.name else "the optimizer"
                yield Diagnostic.at(
                    "LRD012",
                    f"{_class_of(a)} `{receiver(x)}` ({line_at(a.path, a.line, later.path)}) "
                    f"and {_class_of(b)} `{receiver(y)}` "
                    f"({line_at(b.path, b.line, later.path)}) both step `{opt}` independently: "
                    f"{why}",
                    later.path,
                    later.node,
                )


def _over_before(ctx: FileContext, events: list[Event], sched: Obj, x: Event,
                 y: Event) -> bool:
    """True when ``sched`` (stepped at ``x``) steps only on the first pass of the loop that
    holds ``x`` and ``y``, and there before ``y``: a warm-up that hands over to the other
    scheduler and is gone when that one starts stepping. The torchvision detection reference
    builds a local warm-up in ``train_one_epoch`` under ``if epoch == 0:`` and steps it after
    every update, the driver steps its main schedule after the call: the warm-up is done before
    the main schedule's first step, and no later pass builds or steps it again, so nothing it
    does is erased (a warm-up rebuilt on every pass would restart each epoch: not this). Either
    every step of ``sched`` is under a test that holds only on that first pass, or ``sched`` is
    built under such a test in a function called inside the loop, held there only in a local
    name (not returned, not kept on an instance), and stepped only in that call."""
    assert x.loop is not None and y.loop is not None
    if x.order >= y.order:
        return False
    outer = set(map(id, y.loop.ancestors()))
    loop = next((lp for lp in x.loop.ancestors() if id(lp) in outer), None)
    if loop is None:
        return False
    steps = [e for e in events if e.kind == "sched_step" and e.obj is sched]
    if any(not e.in_loop(loop) or e.order >= y.order for e in steps):
        return False
    if all(any(_first_pass_only(ctx, c, e.frame, loop) for c in e.conds_inside(loop))
           for e in steps):
        return True
    built = next((e for e in events if e.kind == "create" and e.obj is sched), None)
    if built is None or not built.in_loop(loop) or not sched.name or "." in sched.name \
            or sched.held:
        return False
    # the call the loop's body made that built it (the warm-up may come from a builder that
    # call calls)
    loop_fn = ctx.function_of(loop.path, loop.node)
    owner = built.frame
    while owner is not None and (owner.parent.fn if owner.parent is not None else None) \
            is not loop_fn:
        owner = owner.parent
    if owner is None or owner.fn is None or owner.fn is loop_fn \
            or any(e.frame is not owner for e in steps):
        return False
    if any(isinstance(n, ast.Return) and n.value is not None
           and any(isinstance(v, ast.Name) and v.id == sched.name for v in ast.walk(n.value))
           for n in ast.walk(owner.fn)):
        return False  # handed back to the caller: it may live on
    return any(_first_pass_only(ctx, c, owner, loop) for c in built.conds_inside(loop))


# the tests whose branch, once false as the loop variable grows, stays false
_FALLING = {0: ((ast.Eq, ast.Lt, ast.LtE), (ast.Eq, ast.Gt, ast.GtE)),
            1: ((ast.NotEq, ast.Gt, ast.GtE), (ast.NotEq, ast.Lt, ast.LtE))}


def _first_pass_only(ctx: FileContext, cond: Cond, frame: Frame | None, loop: Loop) -> bool:
    """``cond``'s branch is taken on the first pass of ``loop`` (a counting loop: ``range``,
    ``enumerate``) and on no later one: ``if epoch == 0:``, ``if epoch < 1:``, ``if not
    epoch:``, the ``else`` of ``if epoch > 0:``, with ``epoch`` the loop's variable or the
    parameter in which a function called in the loop's body (``frame``) was handed it."""
    node = loop.node
    if cond.test is None or not isinstance(node, (ast.For, ast.AsyncFor)):
        return False
    it = node.iter
    called = (dotted(it.func) or "").rsplit(".", 1)[-1] if isinstance(it, ast.Call) else ""
    if called not in ("range", "trange", "enumerate") or (
            called != "enumerate" and isinstance(it, ast.Call) and len(it.args) > 2):
        return False  # not a count, or a range whose step may count down
    # the loop variable's first value; a start read from a setting (`range(start_epoch, n)`) is
    # an epoch index, 0 or more: a test false from 1 on holds at most on a first pass from 0
    env = {k: (0 if isinstance(v, Symbol) else v) for k, v in first_values([loop]).items()
           if isinstance(v, Symbol) or isinstance(v, int) and not isinstance(v, bool)}
    loop_fn = ctx.function_of(loop.path, loop.node)
    written_in = loop_fn if loop_fn is not None and _has_node(loop_fn, cond.test) else None
    if written_in is None and frame is not None and frame.fn is not None \
            and _has_node(frame.fn, cond.test) \
            and (frame.parent.fn if frame.parent is not None else None) is loop_fn:
        # the test is in the function the loop's body called: its parameter stands for what
        # the call passed, where that is the loop's variable
        mapped: dict[str, int] = {}
        for param in [a.arg for a in frame.fn.args.posonlyargs + frame.fn.args.args]:
            given = frame.argument(param)
            if isinstance(given, ast.Name) and given.id in env:
                mapped[param] = env[given.id]
        env = mapped
    elif written_in is None and loop_fn is not None:
        return False
    if not env:
        return False
    tests = [cond.test]
    if cond.branch == 0 and isinstance(cond.test, ast.BoolOp) \
            and isinstance(cond.test.op, ast.And):
        tests = list(cond.test.values)  # one part false on every later pass is enough
    return any(_falls_after_first(t, cond.branch, env) for t in tests)


def _falls_after_first(test: ast.expr, branch: int, env: dict[str, int]) -> bool:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) \
            and isinstance(test.operand, ast.Name) and env.get(test.operand.id) == 0:
        return branch == 0  # `if not epoch:` from 0: only the first pass
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    left, right, op = test.left, test.comparators[0], type(test.ops[0])
    if isinstance(left, ast.Name) and left.id in env and isinstance(right, ast.Constant):
        var, bound, side = left.id, right.value, 0
    elif isinstance(right, ast.Name) and right.id in env and isinstance(left, ast.Constant):
        var, bound, side = right.id, left.value, 1
    else:
        return False
    if not isinstance(bound, int) or isinstance(bound, bool) or op not in _FALLING[branch][side]:
        return False
    compare = COMPARE[op]

    def taken(value: int) -> bool:
        holds = compare(value, bound) if side == 0 else compare(bound, value)
        return holds if branch == 0 else not holds

    # false on the second pass, so on every later one (a branch never taken hands nothing over
    # either)
    return not taken(env[var] + 1)


def _share_a_loop(x: Event, y: Event) -> bool:
    """True when one run of some loop steps both: a loop that holds both calls. Two runs of
    one helper (`show_lr(opt, first)` then `show_lr(opt, second)`, each stepping its own
    scheduler in a loop of its own) or two loops one after the other hand the optimizer from
    one scheduler to the next; they never step it in turn."""
    assert x.loop is not None and y.loop is not None
    return not set(x.loop.ancestors()).isdisjoint(y.loop.ancestors())


def _swa_fought(ctx: FileContext, a: Obj, b: Obj,
                steps: dict[Obj, list[Event]]) -> Diagnostic | None:
    """SWALR takes the LR to ``swa_lr`` and holds it there once SWA starts; another scheduler
    of the same optimizer stepped on every pass of a loop in which SWALR also steps moves it
    away again, so the SWA epochs train with neither schedule. PyTorch's SWA recipe steps one
    or the other (``if epoch > swa_start: swa_scheduler.step() else: scheduler.step()``): a
    step of the other scheduler under any loop-dependent test is left alone; a test that reads
    the same on every pass (a setting, ``if sched is not None:`` on a scheduler handed over
    unchanged) or one the SWALR step is under too is no such test. The other scheduler may be
    one of torch's classes that a setting picks, where its step passes no metric (so it is no
    ReduceLROnPlateau: that step() requires one)."""
    swa, other = (a, b) if a.cls == "SWALR" else (b, a)
    picked = _picked_by_setting(other)
    pair = next(
        ((x, y) for x in steps[swa] for y in steps[other]
         if x.loop is not None and y.loop is not None
         and (not picked or _no_metric(y))
         and (_unconditional(y) or _same_every_pass(ctx, y, x))
         and not exclusive(x, y, parts=True)),
        None,
    )
    if pair is None:
        return None
    x, y = pair
    later = max(pair, key=lambda ev: ev.order)
    opt = swa.optimizer.name if swa.optimizer and swa.optimizer.name else "the optimizer"
    return Diagnostic.at(
        "LRD012",
        f"SWALR `{receiver(x)}` ({line_at(swa.path, swa.line, later.path)}) and "
        f"{'the scheduler a setting picks' if picked else other.cls} "
        f"`{receiver(y)}` ({line_at(other.path, other.line, later.path)}) both step "
        f"`{opt}`: once SWA starts, SWALR holds the LR at swa_lr, but "
        f"`{receiver(y)}.step()` still runs on every pass and moves it away, so the SWA epochs "
        "train with neither schedule; step one or the other (`if epoch > swa_start: "
        f"{receiver(x)}.step()` / `else: {receiver(y)}.step()`)",
        later.path,
        later.node,
    )


def _picked_by_setting(sched: Obj) -> bool:
    """One of torch's scheduler classes, which one a setting says (``getattr(lr_scheduler,
    cfg.name)(opt)``), not the project's own subclass."""
    return sched.guessed and sched.torch_module and project_recomputes(sched) is None


def _no_metric(e: Event) -> bool:
    """The step passes nothing (``sched.step()``)."""
    return isinstance(e.node, ast.Call) and not e.node.args and not e.node.keywords


def _same_every_pass(ctx: FileContext, y: Event, x: Event) -> bool:
    """Every test inside a loop that ``y`` runs under is one ``x`` runs under too, or reads the
    same on every pass of the loop that holds both: no call in it, and nothing it reads is
    bound inside that loop (a name of a function called from inside it counts as bound there,
    except a parameter, which is followed to what the caller passed)."""
    shared = next((loop for loop in (y.loop.ancestors() if y.loop is not None else [])
                   if x.loop is not None and loop in x.loop.ancestors()), None)
    if shared is None:
        return False
    x_branches = {(c.key, c.branch) for c in x.conds}
    for c in y.conds:
        if c.loop is None or (c.key, c.branch) in x_branches:
            continue
        if c.test is None or not _reads_same(ctx, c.test, c.loop, y.frame, shared, 0):
            return False
    return True


def _reads_same(ctx: FileContext, expr: ast.expr, at: Loop, frame: Frame | None,
                shared: Loop, depth: int) -> bool:
    """``expr``, read inside loop ``at`` in the code of ``frame`` (or of one of its callers),
    has the same value on every pass of ``shared``."""
    if depth > MAX_CONFINED_DEPTH or any(
            isinstance(n, (ast.Call, ast.Await, ast.NamedExpr, ast.Yield, ast.YieldFrom,
                           ast.Lambda)) for n in ast.walk(expr)):
        return False
    fn = ctx.function_of(at.path, at.node)
    # the frame of the function the loop ``at`` is written in
    while frame is not None and frame.fn is not fn:
        frame = frame.parent
    if fn is not None and frame is None:
        return False
    chains = _read_chains(expr)
    if chains is None:
        return False
    holds_shared = shared.path == at.path and ctx.function_of(shared.path, shared.node) is fn
    for chain in chains:
        root = chain.split(".")[0]
        if holds_shared:
            if _bound_within(shared.node, chain) or root in shared.targets \
                    or root in shared.counters:
                return False
            continue
        # a function called (directly or not) from inside the shared loop: its names are bound
        # afresh on every call; a parameter stands for what the caller passed
        assert fn is not None and frame is not None
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if root not in params or _bound_within(fn, root):
            return False
        given = _argument_for(frame, fn, root)
        if given is None:
            return False
        if isinstance(given, ast.Constant):
            continue
        outer = frame.parent
        call = frame.call
        if call is None:
            return False
        # the caller's loop that holds the call: the innermost loop of ``shared``'s chain, or
        # ``shared`` itself, written in the caller's function around the call
        caller_fn = outer.fn if outer is not None else None
        around = next((loop for loop in _loops_up_to(at, shared)
                       if loop.path == frame.call_path
                       and ctx.function_of(loop.path, loop.node) is caller_fn
                       and _has_node(loop.node, call)), None)
        if around is None:
            return False
        rest = chain[len(root):]
        spelled = ast.parse(ast.unparse(given) + rest, mode="eval").body \
            if rest else given
        if not _reads_same(ctx, spelled, around, outer, shared, depth + 1):
            return False
    return True


def _loops_up_to(inner: Loop, outer: Loop) -> list[Loop]:
    """``inner``'s enclosing loops from the inside out, ``outer`` included."""
    found: list[Loop] = []
    for loop in inner.ancestors():
        found.append(loop)
        if loop is outer:
            break
    return found


def _has_node(node: ast.AST, inner: ast.AST) -> bool:
    return any(n is inner for n in ast.walk(node))


def _argument_for(frame: Frame, fn: ast.FunctionDef | ast.AsyncFunctionDef,
                  param: str) -> ast.expr | None:
    """What the call that made ``frame`` passed for ``param`` (its receiver for ``self``, the
    default where it passed nothing); None where it cannot be told."""
    call = frame.call
    if call is None:
        return None
    positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    index = positional.index(param)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    if index < frame.skipped:
        if index == 0 and frame.skipped == 1 and isinstance(call.func, ast.Attribute):
            return call.func.value
        return None
    given = frame.argument(param)  # (``frame.fn`` is ``fn``)
    if given is not None:
        return given
    defaults = fn.args.defaults
    first_default = len(positional) - len(defaults)
    if index >= first_default:
        return defaults[index - first_default]
    return None


def _read_chains(expr: ast.expr) -> list[str] | None:
    """The names and attribute chains ``expr`` reads (``self.cfg["sched"]`` reads
    ``self.cfg``), longest first; None for a read lrdoctor cannot spell."""
    chains: list[str] = []
    covered: set[int] = set()
    for node in ast.walk(expr):
        if id(node) in covered:
            continue
        if isinstance(node, (ast.Attribute, ast.Name)):
            text = dotted(node)
            if not text:
                return None
            chains.append(text)
            covered.update(id(n) for n in ast.walk(node))
    return chains


def _bound_within(node: ast.AST, chain: str) -> bool:
    """Something inside ``node`` binds ``chain``, a part of it, or something under it
    (``self.cfg = ...`` and ``self.cfg["k"] = ...`` both bind ``self.cfg``)."""
    for n in ast.walk(node):
        targets: list[ast.AST] = []
        if isinstance(n, (ast.Assign,)):
            targets = list(n.targets)
        elif isinstance(n, (ast.AugAssign, ast.AnnAssign)):
            targets = [n.target]
        elif isinstance(n, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets = [n.target]
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            targets = [n.optional_vars]
        elif isinstance(n, ast.NamedExpr):
            targets = [n.target]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            if chain.split(".")[0] in n.names:
                return True
            continue
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                and n is not node and n.name == chain.split(".")[0]:
            return True
        for target in targets:
            for t in ast.walk(target):
                if isinstance(t, ast.Subscript):
                    t = t.value
                if not isinstance(t, (ast.Name, ast.Attribute)):
                    continue
                bound = dotted(t)
                if bound and (bound == chain or chain.startswith(bound + ".")
                              or bound.startswith(chain + ".")):
                    return True
    return False


def _why_competing(a: Obj, b: Obj) -> str | None:
    """What goes wrong when ``a`` and ``b`` step one optimizer back to back, or None."""
    ra, rb = _recomputes(a), _recomputes(b)
    if ra is None or rb is None:
        return None  # a class lrdoctor does not know: it may well be chainable
    if ra or rb:
        eraser = a if ra else b
        other = b if ra else a
        return (
            f"{_class_of(eraser)} recomputes the LR from its base value at every step, erasing "
            f"what {_class_of(other)} did; combine them with SequentialLR or ChainedScheduler"
        )
    for decay, warmup in ((a, b), (b, a)):
        after = _sized_after(decay, warmup)
        if after:
            return (
                f"{decay.cls} is sized to start after the warm-up ({after}) but steps from the "
                "first epoch alongside it, so it runs past its horizon before training ends; "
                "hand over with SequentialLR(..., milestones=[warm-up length])"
            )
    if _twin_construction(a, b):
        return (
            f"the two are the same {a.cls} built with the same arguments, so every step applies "
            "its change twice (a decay of gamma becomes gamma squared); a chain of one schedule "
            "with itself is no design: the second was most likely written for another "
            "optimizer, which is left without a schedule. Bind it to the optimizer it was "
            "meant for, or keep one"
        )
    return None  # chainable schedulers stepped together are a ChainedScheduler


def _twin_construction(a: Obj, b: Obj) -> bool:
    """``a`` and ``b`` come from two constructor calls of one torch class that pass the same
    arguments but for the optimizer (``StepLR(opt_g, 30, 0.5)`` twice, the second meant for
    ``opt_d``). Two different chainable schedules on one optimizer compose as PyTorch
    documents (an ExponentialLR beside a MultiStepLR); one schedule chained with a copy of
    itself only squares its own factors, which nobody writes on purpose."""
    if not a.cls or a.cls != b.cls or a.origin != "torch" or b.origin != "torch":
        return False
    if a.call is None or b.call is None:
        return False
    if a.call is b.call:
        # one builder called twice with the same optimizer (`make(opt_g)` for G and again
        # for D): two objects of the same construction
        return a.scope is not b.scope

    def rest(call: ast.Call) -> tuple[list[str], list[str]]:
        positional = call.args[1:] if call.args and not any(
            k.arg == "optimizer" for k in call.keywords) else call.args
        return ([ast.dump(x) for x in positional],
                sorted(f"{k.arg}={ast.dump(k.value)}" for k in call.keywords
                       if k.arg != "optimizer"))

    ra, rb = rest(a.call), rest(b.call)
    return ra == rb and bool(ra[0] or ra[1])


def _class_of(sched: Obj) -> str:
    """The scheduler's class for messages: the torch or library class, else the project's
    own class it was built from, else the name it is bound to."""
    if sched.cls:
        return sched.cls
    return sched.project[0].name if sched.project is not None else sched.label


def _recomputes(sched: Obj) -> bool | None:
    """recomputes_lr for the class, or for the project's own subclass of torch's scheduler
    base what its get_lr() reads (see project_recomputes)."""
    known = recomputes_lr(sched.cls)
    return known if known is not None else project_recomputes(sched)


def _sized_after(decay: Obj, warmup: Obj) -> str | None:
    """``T_max=epochs - warmup_epochs`` where the warm-up's horizon is ``warmup_epochs``: the
    same expression, or one the file states as the same whole number (``T_max=EPOCHS - WARM``
    with ``WARM = 5`` beside ``LinearLR(..., total_iters=5)``)."""
    decay_kind, warm_kind = SCHEDULERS.get(decay.cls), SCHEDULERS.get(warmup.cls)
    if decay_kind is None or warm_kind is None:
        return None
    warm_sizes = [warmup.arg(n, i) for n, i in warm_kind.horizon_params]
    if warmup.cls in ("LambdaLR", "MultiplicativeLR"):
        warm_sizes.append(warmup.arg("lr_lambda", 1))
    warm_dumps = {ast.dump(w) for w in warm_sizes if w is not None}
    for w in warm_sizes:
        if isinstance(w, ast.Lambda):
            # `LambdaLR(opt, lambda e: (e + 1) / warmup_epochs)`: the settings its ramp reads
            warm_dumps.update(ast.dump(n) for n in ast.walk(w.body)
                              if isinstance(n, (ast.Name, ast.Attribute, ast.Subscript))
                              and not (isinstance(n, ast.Name) and n.id in _lambda_args(w)))
    warm_lengths = {n for n in (_whole_number(w, warmup) for w in warm_sizes) if n}
    for name, index in decay_kind.horizon_params:
        size = decay.arg(name, index)
        if not (isinstance(size, ast.BinOp) and isinstance(size.op, ast.Sub)):
            continue
        if ast.dump(size.right) in warm_dumps \
                or _whole_number(size.right, decay) in warm_lengths:
            return f"{name}={ast.unparse(size)}"
    return None


def _whole_number(expr: ast.expr | None, sched: Obj) -> int | None:
    """The whole number above 1 ``expr``, an argument of ``sched``'s constructor (a lambda is
    none), stands for as the file states it where the scheduler is built, else None (a length
    of 1 matches too much by chance: `T_max=epochs - 1` is common on its own)."""
    if expr is None or isinstance(expr, ast.Lambda):
        return None
    value = constants.resolve(expr, sched.scope)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 1 \
        else None


def _lambda_args(fn: ast.Lambda) -> set[str]:
    return {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}


@rule("LRD012")
def stepped_at_two_levels(ctx: FileContext) -> Iterator[Diagnostic]:
    """One scheduler stepped once per epoch and again after every update: it advances
    len(loader) + 1 steps per epoch, whichever of the two it was sized for."""
    for events in ctx.events_by_root.values():
        steps: dict[Obj, list[Event]] = {}
        for e in events:
            s = e.obj
            # a scheduler of unknown class counts when it was built by a call given the
            # optimizer (`scheduler_classes[name](optim, **conf)`): stepping it twice per pass
            # is a double step whatever its horizon; one known by its name alone does not
            if (
                e.kind == "sched_step" and s is not None and (not s.guessed or s.via is not None)
                and s.origin != "timm" and s.cls != "ReduceLROnPlateau" and _plain_step(e)
            ):
                steps.setdefault(s, []).append(e)
        for sched, calls in steps.items():
            yield from _stepped_by_the_engine_too(calls, sched)
            pair = _two_levels(ctx, calls, sched)
            if pair is None:
                beside = _beside_the_updates(ctx, calls, sched)
                if beside is not None:
                    yield beside
                continue
            outer, inner = pair
            assert outer.loop is not None and inner.loop is not None
            yield Diagnostic.at(
                "LRD012",
                f"{sched.label} `{receiver(outer)}` is stepped at two levels: here in each "
                f"iteration of {_loop_where(outer.loop, outer.path)}, and again after every "
                f"update at {line_at(inner.path, inner.line, outer.path)} in "
                f"{_loop_where(inner.loop, outer.path)}: it advances one step per batch "
                "plus one per epoch, ahead of either design; step it at one level only",
                outer.path,
                outer.node,
            )


@rule("LRD012")
def stepped_twice_per_pass(ctx: FileContext) -> Iterator[Diagnostic]:
    """One scheduler stepped twice in the same pass of the same loop (two ``scheduler.step()``
    after the batch loop, or one there and one in a helper called once per pass), neither under
    a test inside the loop: it advances two steps per pass, so a horizon counted in epochs (or
    in updates) is spent in half of them. Silent when either step is under a test inside the
    loop (a hand-over on one epoch, a flag) or passes a position, when an update of its
    optimizer runs between the two (a pass that makes two updates, a generator step and a
    GAN step, each followed by a step of the schedule), for ReduceLROnPlateau, and for the two
    levels of ``stepped_at_two_levels``."""
    for events in ctx.events_by_root.values():
        by_pass: dict[tuple[int, int, int], list[Event]] = {}
        for e in events:
            s = e.obj
            if e.kind != "sched_step" or s is None or e.loop is None or s.guessed \
                    or s.origin == "timm" or s.cls == "ReduceLROnPlateau" or not _plain_step(e) \
                    or e.info.get("engine") or e.conds_inside(e.loop):
                continue
            # (two calls of the function that runs the loop are two runs of it, not one pass)
            by_pass.setdefault((s.id, e.loop.id, id(e.frame_of(e.loop))), []).append(e)
        for calls in by_pass.values():
            sites: dict[tuple[int, int], Event] = {}
            for e in sorted(calls, key=lambda x: x.order):
                call = e.frame.call if e.frame is not None else None
                sites.setdefault((id(e.node), id(call)), e)
            if len(sites) < 2:
                continue
            first, second = sorted(sites.values(), key=lambda x: x.order)[:2]
            if exclusive(first, second) or first.obj is None:
                continue
            sched = first.obj
            if any(first.order < u.order < second.order
                   for u in ctx.updates_in(second.loop, second.root, sched.optimizer)):
                continue  # an update between the two: one step per update (two updates a pass)
            assert second.loop is not None
            yield Diagnostic.at(
                "LRD012",
                f"{sched.label} `{receiver(second)}` is stepped twice in each pass of "
                f"{_loop_where(second.loop, second.path)}: at "
                f"{line_at(first.path, first.line, second.path)} and again here, so it "
                "advances two steps per pass and its horizon is spent in half the passes it "
                "was sized for; step it once per pass",
                second.path,
                second.node,
            )


def _stepped_by_the_engine_too(calls: list[Event], sched: Obj) -> Iterator[Diagnostic]:
    """A scheduler handed to ``deepspeed.initialize(lr_scheduler=...)`` is stepped by
    ``engine.step()``; the user's own ``scheduler.step()`` in the same loop, on the same
    passes, steps it a second time per update."""
    for engine in (c for c in calls if c.info.get("engine")):
        for own in calls:
            if own.info.get("engine") or own.loop is not engine.loop or exclusive(own, engine):
                continue
            if {(c.key, c.branch) for c in own.conds} != {(c.key, c.branch) for c in engine.conds}:
                continue  # under a guard of its own: how often is not clear
            yield Diagnostic.at(
                "LRD012",
                f"{sched.label} `{receiver(own)}` was handed to deepspeed.initialize, so "
                f"`{receiver(engine)}.step()` ({line_at(engine.path, engine.line, own.path)}) "
                "already steps it after every "
                "update; stepping it here too advances it two steps per update: drop this "
                "call or do not hand the scheduler to DeepSpeed",
                own.path,
                own.node,
            )
            return


@rule("LRD012")
def stepped_by_lightning_too(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler that ``configure_optimizers`` returns (automatic optimization) is stepped
    by Lightning itself, after every batch (``"interval": "step"``) or at the end of every
    epoch; the module's own ``scheduler.step()`` in ``training_step`` or one of its hooks,
    on every pass, steps it a second time there."""
    for events in ctx.events_by_root.values():
        driven = [e for e in events if e.kind == "lightning_sched_step" and e.obj is not None
                  and e.loop is not None]
        if not driven:
            continue
        reported: set[int] = set()
        for own in events:
            if own.kind != "sched_step" or own.obj is None or own.info.get("engine") \
                    or not _plain_step(own) or own.conds or own.loop is None \
                    or own.obj.cls == "ReduceLROnPlateau" or id(own.node) in reported:
                continue
            lightning = next((d for d in driven if d.obj is own.obj), None)
            if lightning is None or lightning.loop is None:
                continue
            mine, its = own.loop.granularity, lightning.loop.granularity
            if mine not in ("batch", "epoch"):
                continue
            reported.add(id(own.node))
            when_ = "after every batch (`\"interval\": \"step\"`)" if its == "batch" \
                else "at the end of every epoch (its default interval)"
            if mine == its:
                how = f"two steps per {its} instead of one"
            else:
                how = "one step per batch plus one per epoch, ahead of either design"
            if lightning.info.get("interval") == EVERY_FEW_STEPS:
                when_ = "after every `frequency`-th batch (`\"interval\": \"step\"` with a " \
                    "\"frequency\")"
                how = "one step per batch plus one more every `frequency` batches, ahead of " \
                    "either design" if mine == "batch" else \
                    "one step per epoch plus one every `frequency` batches, ahead of either design"
            yield Diagnostic.at(
                "LRD012",
                f"{own.obj.label} `{receiver(own)}` is returned from configure_optimizers "
                f"({line_at(lightning.path, lightning.line, own.path)}), so Lightning already "
                f"steps it {when_}; stepping it "
                f"here too ({'on every batch' if mine == 'batch' else 'once per epoch'}) "
                f"advances it {how}: "
                "drop this call, or set `self.automatic_optimization = False` to step it "
                "by hand only",
                own.path,
                own.node,
                # (the runner drops an LRD003 "stepped once per epoch" of this scheduler that
                # another file's trace, blind to this hand step, made at the return)
                evidence={"scheduler": f"{own.obj.path}:{own.obj.line}",
                          "by_hand": mine},
            )


@rule("LRD012")
def returned_side_by_side(ctx: FileContext) -> Iterator[Diagnostic]:
    """``configure_optimizers`` returns two schedulers of one optimizer (``return [opt],
    [warmup, cosine]``): Lightning steps every scheduler it is given at its interval, one
    after the other, so they compete as two ``step()`` calls on every pass of one loop do
    (see competing_schedulers): one that recomputes the LR from its base value erases the
    other's changes. Only schedulers of the same interval (both per epoch, or both per
    batch), none of them picked by a setting; a ``SequentialLR`` returned alone is one."""
    for node, path, value in ctx.program.lightning:
        pairs = [(s, interval) for s, interval in _lightning_schedulers(value)
                 if interval in (None, "epoch", "step") and not s.guessed
                 and s.optimizer is not None and not s.optimizer.guessed
                 and s.origin != "timm" and not s.in_composite and not s.members]
        for i, (a, at) in enumerate(pairs):
            partner = next((
                b for b, bt in pairs[i + 1:]
                if b is not a and b.optimizer is a.optimizer
                and (at or "epoch") == (bt or "epoch") and _competing_pair(a, b)
            ), None)
            if partner is None:
                continue
            assert a.optimizer is not None
            when_ = "after every batch" if at == "step" else "at the end of every epoch"
            yield Diagnostic.at(
                "LRD012",
                f"{_class_of(a)} ({line_at(a.path, a.line, path)}) and {_class_of(partner)} "
                f"({line_at(partner.path, partner.line, path)}) are both returned from "
                f"configure_optimizers for `{a.optimizer.name or a.optimizer.label}`, and "
                f"Lightning steps each of them {when_}: {_why_competing(a, partner)}",
                path,
                node,
            )
            break


def _competing_pair(a: Obj, b: Obj) -> bool:
    """``a`` and ``b``, stepped back to back on every pass, erase or overrun each other (see
    competing_schedulers): not two chainable classes, nor a plateau beside a chainable one."""
    if _picked_by_setting(a) or _picked_by_setting(b) or "SWALR" in (a.cls, b.cls):
        return False
    if _why_competing(a, b) is None:
        return False
    return not ("ReduceLROnPlateau" in (a.cls, b.cls)
                and not (_recomputes(a) or _recomputes(b)))


@rule("LRD012")
def member_stepped_beside_its_composite(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler handed to SequentialLR / ChainedScheduler is stepped by it; stepping it
    directly as well (both on every pass of a loop) advances it twice, and moves a SequentialLR
    member that is not yet in force."""
    for events in ctx.events_by_root.values():
        composite_steps = [e for e in events if e.kind == "sched_step" and e.obj is not None
                           and e.obj.members and e.loop is not None and _unconditional(e)]
        for c in composite_steps:
            composite = c.obj
            assert composite is not None
            own = next((e for e in events if e.kind == "sched_step" and e.obj is not None
                        and any(e.obj is m for m in composite.members) and e.loop is not None
                        and _unconditional(e) and not exclusive(e, c)), None)
            if own is None or own.obj is None:
                continue
            member = own.obj
            yield Diagnostic.at(
                "LRD012",
                f"{member.cls} `{receiver(own)}` ({line_at(member.path, member.line, own.path)}) "
                "is one of the schedulers "
                f"of {_class_of(composite)} `{receiver(c)}` "
                f"({line_at(composite.path, composite.line, own.path)}), whose step() "
                f"({line_at(c.path, c.line, own.path)}) already steps it; stepping it here as "
                "well advances it twice "
                f"(or moves it before its turn): step only the {_class_of(composite)}",
                own.path,
                own.node,
            )
            break


@rule("LRD012")
def held_scheduler_stepped_beside_its_wrapper(ctx: FileContext) -> Iterator[Diagnostic]:
    """The project's own warm-up wrapper (a scheduler class with a step() of its own, such as
    a copied ``GradualWarmupScheduler``) that holds another scheduler and, in its step(),
    steps it (``self.after_scheduler.step()`` once the warm-up is over): a loop pass that
    steps the wrapper and also steps the held scheduler directly advances that scheduler twice
    after the hand-over, and during the warm-up moves it beside the wrapper's own LR. The
    pip package's wrapper is a composite of its own (``member_stepped_beside_its_composite``);
    here the hand-over is read from the project's step() as traced: a step of the scheduler
    made inside the step() method of a scheduler class, on a call of that method in the same
    loop as a direct step of the same scheduler outside any such method, on the same pass."""
    for events in ctx.events_by_root.values():
        inner_steps: list[tuple[Event, Frame]] = []
        direct: list[Event] = []
        known: dict[int, bool] = {}
        for e in events:
            if e.kind != "sched_step" or e.obj is None or e.loop is None \
                    or e.info.get("engine"):
                continue
            wrapper = _wrapper_step_frame(ctx, e, known)
            if wrapper is None:
                direct.append(e)
            elif wrapper.call is not None:
                inner_steps.append((e, wrapper))
        reported: set[int] = set()
        for inner, frame in inner_steps:
            sched = inner.obj
            assert sched is not None and frame.call is not None
            own = next((d for d in direct if d.obj is sched and d.loop is inner.loop
                        and _unconditional(d) and id(d.node) not in reported
                        and not exclusive(d, inner)), None)
            if own is None:
                continue
            reported.add(id(own.node))
            call = frame.call
            holder = dotted(call.func.value) if isinstance(call.func, ast.Attribute) else None
            yield Diagnostic.at(
                "LRD012",
                f"{sched.cls} `{receiver(own)}` ({line_at(sched.path, sched.line, own.path)}) "
                f"is held by the scheduler `{holder or ast.unparse(call.func)}`, whose step() "
                f"({line_at(frame.call_path or own.path, call.lineno, own.path)}) already steps "
                f"it (`{ast.unparse(inner.node)}`, {line_at(inner.path, inner.line, own.path)}); "
                "stepping it here as well advances it twice after the hand-over (and moves it "
                "beside the wrapper's own LR before): step only the wrapper",
                own.path,
                own.node,
            )


def _wrapper_step_frame(ctx: FileContext, e: Event, known: dict[int, bool]) -> Frame | None:
    """The frame of the step() method of a project scheduler class that ``e`` (a scheduler
    step) was made in, directly or through the methods it calls; None for a step made
    outside any such method. Only a class written in a file that was read, deriving from a
    scheduler or computing its LRs through its own get_lr(), counts (``known``: the answer
    for each step() function already asked about)."""
    current = e.frame
    while current is not None:
        fn = current.fn
        if fn is not None and fn.name == "step" and current.path:
            if id(fn) not in known:
                known[id(fn)] = _step_of_a_scheduler_class(ctx, current.path, fn)
            if known[id(fn)]:
                return current
        current = current.parent
    return None


def _step_of_a_scheduler_class(ctx: FileContext, path: str,
                               fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``fn`` is a method of a scheduler class written in the file ``path`` (read)."""
    module = ctx.module_of(path)
    if module is None:
        return False
    cls = next((c for c in module.classes.values() if fn in c.node.body), None)
    owner = cls.node if cls is not None else _class_holding(module.tree, fn)
    return owner is not None and _scheduler_class_node(module, owner)


def _flushes_the_last_update(ctx: FileContext, e: Event, sched: Obj, loop: Loop,
                             calls: list[Event]) -> bool:
    """A step in the epoch loop that goes with an update of its own: after the batch loop,
    ``if n % accum != 0: optimizer.step(); scheduler.step()`` applies the gradients the last,
    incomplete accumulation left, and steps the schedule for that update, while the batch
    loop steps it after every other update. The schedule is stepped once per update, so a
    horizon counted in updates is right. Needs all of: a guard around the step; an update of
    the same optimizer before it, in the same function, at the same loop level, under the
    same guard; and a step of the same scheduler after the updates of a batch loop inside
    this epoch loop. A step with no update of its own beside it is still the rule's."""
    own = {(c.key, c.branch) for c in e.conds_inside(loop)}
    if not own or sched.optimizer is None:
        return False
    # (the update may be written twice under that guard, `if fp16: scaler.step(opt) else:
    # opt.step()`: an `if` and its `else` that each update make an update whichever runs)
    extras = [
        {(c.key, c.branch) for c in u.conds_inside(loop)} - own
        for u in ctx.updates_in(loop, e.root, sched.optimizer)
        if u.loop is e.loop and u.frame is e.frame and u.order < e.order
        and own <= {(c.key, c.branch) for c in u.conds_inside(loop)}
    ]
    branches: dict[tuple[str, int, int], set[int]] = {}
    for extra in extras:
        if len(extra) == 1:
            key, branch = next(iter(extra))
            branches.setdefault(key, set()).add(branch)
    if not any(not extra for extra in extras) \
            and not any({0, 1} <= taken for taken in branches.values()):
        return False
    # (the guard inside the epoch loop may test the very count the batch loop's own guard
    # tests, `n % accum != 0` after `n % accum == 0`: evaluated at another time, not
    # exclusive; settings tested outside the epoch loop are)
    outside = {c.key: c.branch for c in e.conds if c not in e.conds_inside(loop)}
    for inner in calls:
        at = inner.loop
        if inner is e or at is None or at is loop or at.granularity != "batch" \
                or loop not in at.ancestors() \
                or any(outside.get(c.key, c.branch) != c.branch for c in inner.conds):
            continue
        if any(u.order < inner.order for u in ctx.updates_in(at, inner.root, sched.optimizer)):
            return True
    return False


def _beside_the_updates(ctx: FileContext, calls: list[Event], sched: Obj) -> Diagnostic | None:
    """One scheduler stepped after every update in one loop and, in each pass of a loop
    around it, again in a sibling loop that makes no update (a reinforcement-learning agent
    that steps its schedule after every minibatch update and once per collected episode):
    every pass adds the sibling loop's steps to one step per update, so the schedule runs
    ahead of the updates it was sized in. The nested case (once per epoch around the batch
    loop) is ``_two_levels``'. Silent when the extra step is under a test inside the shared
    loop, when its own loop makes an update of the optimizer, or when the two cannot both run
    in one pass."""
    for extra in calls:
        loop = extra.loop
        if loop is None or ctx.updates_in(loop, extra.root, sched.optimizer):
            continue
        for after in calls:
            inner = after.loop
            if after is extra or inner is None or inner is loop or exclusive(extra, after):
                continue
            if loop in inner.ancestors() or inner in loop.ancestors():
                continue
            shared = next((a for a in loop.ancestors() if a in set(inner.ancestors())), None)
            if shared is None or extra.conds_inside(shared):
                continue
            updates = [u for u in ctx.updates_in(inner, after.root, sched.optimizer)
                       if u.order < after.order]
            if not updates:
                continue
            mine = {(c.key, c.branch) for c in updates[0].conds}
            if not all((c.key, c.branch) in mine or _tests_existence(c, after)
                       for c in after.conds_inside(shared)):
                continue
            return Diagnostic.at(
                "LRD012",
                f"{sched.label} `{receiver(extra)}` is stepped here in each pass of "
                f"{_loop_where(loop, extra.path)}, where no update is made, and again after "
                f"every update at {line_at(after.path, after.line, extra.path)} in "
                f"{_loop_where(inner, extra.path)}, both within each pass of "
                f"{_loop_where(shared, extra.path)}: it advances more steps than there are "
                "updates, ahead of the horizon it was sized in; step it at one place only",
                extra.path,
                extra.node,
            )
    return None


def _two_levels(ctx: FileContext, calls: list[Event], sched: Obj) -> tuple[Event, Event] | None:
    for outer in calls:
        if outer.loop is None or outer.loop.granularity != "epoch":
            continue
        if outer.conds_inside(outer.loop):
            continue  # `if not per_batch:` / `if epoch > 0:`: not on every pass
        if any(u.loop is outer.loop and u.frame is outer.frame and u.order < outer.order
               and not u.conds_inside(outer.loop)
               for u in ctx.updates_in(outer.loop, outer.root, sched.optimizer)):
            # `def step(self, s): self.opt.step(); s.step()` called in the outer loop and in
            # the inner one: each scheduler step follows an update of its own
            continue
        for inner in calls:
            loop = inner.loop
            if inner is outer or loop is None or loop is outer.loop or loop.granularity != "batch":
                continue
            if outer.loop not in loop.ancestors() or exclusive(outer, inner):
                continue
            updates = ctx.updates_in(loop, inner.root, sched.optimizer)
            if not updates:
                continue
            # every update, or every update that really happens (an accumulation guard
            # shared with the optimizer step); a guard of its own makes it a choice, unless it
            # only asks whether the stepped scheduler exists (`if scheduler is not None:` in
            # a helper handed the scheduler), which holds on every batch it is stepped at all
            shared = {(c.key, c.branch) for c in updates[0].conds}
            if all((c.key, c.branch) in shared or _tests_existence(c, inner)
                   for c in inner.conds_inside(outer.loop)):
                return outer, inner
    return None


# -- LRD014 ------------------------------------------------------------------------------------


@rule("LRD014")
def stale_optimizer(ctx: FileContext) -> Iterator[Diagnostic]:
    for r in ctx.program.events:
        if r.kind != "rebind":
            continue
        old: Obj = r.info["old"]
        new = r.obj
        root = ctx.events_by_root.get(r.root, [])
        # one optimizer per branch of a choice (`if args.optim == "sgd": ... elif ...`): the
        # second never replaces the first, whichever the setting picks is the one stepped
        if any(e.kind == "create" and e.obj is old and exclusive(e, r) for e in root):
            continue
        # the rebuild matters to what runs after it in the same function, or in its callers
        # (`fit()` calling `self.rebuild()` then `self.train_epoch()`, module-level code
        # calling `learn.unfreeze()` then `learn.fit(10)`); not to a sibling method traced
        # later by coincidence of source order
        scope = calling_scope(r.frame)
        stale = [
            e for e in root
            if e.kind == "sched_step" and e.obj is not None and e.obj.optimizer is old
            and e.order > r.order and e.within(scope)
            # a step in the same call as the replacement, on a branch it never takes with it
            # (`if args.swa: optimizer = SGD(...)`, then `if not args.swa: scheduler.step()`):
            # on the replacement's path the old scheduler does not step. Not where a loop
            # holds both (the next pass may take the other branch after the replacement),
            # nor across calls (a setting rebound between two functions' tests is judged as
            # the flags' versions say, see test_compound_flag_branches)
            and not (e.frame is r.frame and exclusive(e, r)
                     and not (r.loop is not None and e.in_loop(r.loop)))
            and not _exclusive_in_common_caller(e, r)
            and not _repointed(root, e, r, new)
        ]
        carried = False
        if not stale:
            # rebuilt at the end of a pass (`for stage in ...: train...; optimizer = SGD(
            # ...)`): the steps of this pass came before, the next pass's come after
            stale = _carried_to_the_next_pass(root, r, old, new, scope)
            carried = bool(stale)
        if not stale:
            continue
        if not carried and not any(e.order > r.order and _updates(e, new) for e in root):
            continue
        if new is not None and _handed_the_schedules_lr(r, new, stale):
            continue
        # the name (or a container's entry) is one path to the optimizer among others: where
        # the old one is still updated after the rebind (held under another name too), or
        # earlier in the same pass of the loop the rebind is in (`current = opt_g ... step ...
        # current = opt_d ... step` every iteration: the next pass updates it again), the
        # schedule still reaches training. A replacement built anew in the pass is not
        # such an alternation: those updates go through the name to the new one next time
        if any(_updates(e, old) and (
                e.order > r.order
                or not carried and r.loop is not None and e.order < r.order
                and e.in_loop(r.loop)
        ) for e in root):
            continue
        # a scheduler built for the new optimizer takes over, unless nothing ever steps it
        # while the old one keeps stepping (`optimizer, _ = make_optimizer_and_schedule(...)`
        # keeps only the optimizer): then the new optimizer still trains at a constant LR
        takers = [e for e in root if e.kind == "create" and e.obj is not None
                  and e.obj.kind == "scheduler" and e.obj.optimizer is new
                  # built in the same pass after the replacement, it is the one the next
                  # pass steps (the trace follows one pass: its steps are not in view)
                  and (not _dropped(ctx, e.obj, root)
                       or carried and r.loop is not None and e.in_loop(r.loop)
                       and e.order > r.order)]
        if takers:
            # ... on the paths it is built on: one built only when a setting says so (`if
            # kind == "cosine": scheduler = CosineAnnealingLR(new, ...)`) takes over from no
            # scheduler that the same setting, the other way, built (the StepLR of `else:`)
            stale = [x for x in stale if not any(_may_take_over(t, x) for t in takers)]
            if not stale:
                continue
        # one step per option of a scheduler choice: a constant option (`LambdaLR(opt,
        # lambda _: 1.0)`) loses nothing when left on the old optimizer, the others lose
        # their schedule; only those are named, and none left is no finding
        losing: list[Obj] = []
        for x in stale:
            if x.obj is not None and x.obj not in losing and not _constant_factor(x.obj):
                losing.append(x.obj)
        if not losing:
            continue
        e = next(x for x in stale if x.obj is losing[0])
        here = e.path
        drivers = f"{losing[0].label}, {line_at(losing[0].path, losing[0].line, here)}" \
            if len(losing) == 1 else " or ".join(
                f"{o.label} at {line_at(o.path, o.line, here)}" for o in losing
            ) + ", whichever the setting picks"
        yield Diagnostic.at(
            "LRD014",
            f"`{receiver(e)}` ({drivers}) still drives the optimizer built at "
            f"{line_at(old.path, old.line, here)}, but `{r.info['name']}` was replaced at "
            f"{line_at(r.path, r.line, here)} and the new optimizer is the one being stepped"
            f"{' from the next pass of the loop on' if carried else ''}: "
            "it trains at a constant LR",
            e.path,
            e.node,
        )
    # a scheduler named by one of the two below is not named again by the other
    reported: set[int] = set()
    yield from _second_instance(ctx, reported)
    yield from _never_updated(ctx, reported)
    yield from _earlier_stage(ctx, reported)
    yield from _later_call(ctx, reported)
    yield from _built_on_the_first_pass_only(ctx, reported)
    yield from _returned_beside_another_optimizer(ctx, reported)
    yield from _own_configure_optimizers(ctx)


def _carried_to_the_next_pass(root: list[Event], r: Event, old: Obj, new: Obj | None,
                              scope: Frame | None) -> list[Event]:
    """The steps of the old optimizer's schedulers that the next pass of the rebind's loop
    makes on it while the optimizer under the name is the new one: the replacement is built
    anew in that loop (a constructor call in the pass, not another object the name switches
    to), after the pass's own updates of the old optimizer, which go through the replaced
    name (``optimizer.step()``, or a call in the rebind's function handed the name), and the
    scheduler steps in the same loop. Empty when any of that is not so."""
    loop = r.loop
    if loop is None or new is None or r.info.get("entry") or _leaves_after(loop.node, r.node):
        return []
    if not any(e.kind == "create" and e.obj is new and e.in_loop(loop) for e in root):
        return []
    name = r.info.get("name")
    home = r.frame_of(loop)  # the call running the loop (the rebind may be in a helper)
    if not name or not any(_updates(e, old) and e.order < r.order and e.in_loop(loop)
                           and _through_name(e, name, home) for e in root):
        return []
    # a scheduler built in the loop itself is built again on the next pass, from the name
    rebuilt = {id(e.obj) for e in root if e.kind == "create" and e.in_loop(loop)}
    return [e for e in root
            if e.kind == "sched_step" and e.obj is not None and e.obj.optimizer is old
            and id(e.obj) not in rebuilt
            and e.order < r.order and e.in_loop(loop) and e.within(scope)]


def _leaves_after(loop: ast.For | ast.AsyncFor | ast.While, node: ast.AST) -> bool:
    """Whether the block of ``loop``'s body that holds ``node`` (a statement of the loop's own
    function) ends the loop after it: a later ``break``, ``return`` or ``raise`` in that block
    (``if epoch == last: optimizer = SGD(...); break``): no pass follows the replacement. A
    node in a function the loop calls is not in its body: False."""
    blocks: list[list[ast.stmt]] = [loop.body]
    while blocks:
        block = blocks.pop()
        for i, stmt in enumerate(block):
            if stmt is node or any(n is node for n in ast.walk(stmt)):
                if stmt is node or isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign,
                                                     ast.Expr)):
                    return any(isinstance(later, (ast.Break, ast.Return, ast.Raise))
                               for later in block[i + 1:])
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(stmt, field, None)
                    if isinstance(inner, list) and not isinstance(
                            stmt, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                                   ast.AsyncFunctionDef, ast.ClassDef)):
                        blocks.append(inner)
                for handler in getattr(stmt, "handlers", []):
                    blocks.append(handler.body)
                break
    return False


def _through_name(e: Event, name: str, frame: Frame | None) -> bool:
    """The update ``e`` reaches its optimizer through ``name`` as the function of ``frame``
    writes it: ``name.step()`` (``scaler.step(name)``) there, or in a function that a call
    there handed ``name`` as an argument."""
    current = e.frame
    call: ast.Call | None = None
    while current is not frame:
        if current is None:
            return False
        call = current.call
        current = current.parent
    if call is not None:
        return any(ast.unparse(a) == name for a in [*call.args, *(k.value for k in call.keywords)])
    node = e.node
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    target = node.args[0] if e.kind == "scaler_step" and node.args else node.func.value
    return ast.unparse(target) == name


def _handed_the_schedules_lr(r: Event, new: Obj, stale: list[Event]) -> bool:
    """The replacement, rebuilt on every pass of a loop that also holds each stale step, is
    given the LR the old schedule reached (``optimizer = SGD(..., lr=scheduler.get_last_lr()
    [0])`` each epoch, or ``lr=old.param_groups[0]["lr"]``): the schedule reaches every new
    optimizer through its LR, one pass late at most, so it is not lost."""
    if r.loop is None or new.call is None or r.conds_inside(r.loop) \
            or not all(e.in_loop(r.loop) for e in stale):
        return False  # (rebuilt once, under `if epoch == 10:`, it keeps that LR after)
    for node in ast.walk(new.call):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("get_last_lr", "get_lr"):
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and node.slice.value == "lr" and "param_groups" in ast.unparse(node.value):
            return True
    return False


def _may_take_over(built: Event, stale: Event) -> bool:
    """Whether the scheduler built at ``built`` (for the new optimizer) can be built in a run
    that steps the old optimizer's scheduler at ``stale``: nothing says the two need one
    setting both ways. A scheduler built under ``if args.sched == "cosine":`` never replaces
    the StepLR the same setting built in its ``else:`` branch, nor does one built under a
    test that contradicts the stale step's own branches."""
    sched = stale.obj
    built_under = sched.built_under if sched is not None and sched.built_under else ()
    if facts_contradict(built_under, built.conds) or facts_contradict(stale.conds, built.conds):
        return False
    return not settings_disagree(setting_tests(built_under), setting_tests(built.conds))


def _frame_chain(event: Event) -> list[Frame | None]:
    chain: list[Frame | None] = []
    frame = event.frame
    while frame is not None:
        chain.append(frame)
        frame = frame.parent
    chain.append(None)
    return chain


def _owner(key: tuple[Any, ...], chain: list[Frame | None]) -> Frame | None:
    """The innermost call of ``chain`` whose function holds the ``if`` at ``key`` (None:
    module-level code, or no call of the chain holds it)."""
    for frame in chain:
        fn = frame.fn if frame is not None else None
        if frame is not None and fn is not None and frame.path == key[0] \
                and fn.lineno <= key[1] <= (fn.end_lineno or fn.lineno):
            return frame
    return None


def _exclusive_in_common_caller(step: Event, rebind: Event) -> bool:
    """The two calls sit on different branches of one run of the same ``if``, in the call
    both descend from (``if args.test_only: runner.load(ckpt)`` / ``else: runner.train()`` in
    ``main``): the one never runs after the other. Not where that ``if`` is in a loop (the
    next pass may take the other branch), nor two calls of a function holding the ``if``."""
    chain_s, chain_r = _frame_chain(step), _frame_chain(rebind)
    common = next((f for f in chain_s if any(f is g for g in chain_r)), None)
    branches = {c.key: c for c in rebind.conds if c.loop is None and c.key[0] != "<choice>"}
    for c in step.conds:
        other = branches.get(c.key)
        if other is None or other.branch == c.branch or c.loop is not None:
            continue
        if _owner(c.key, chain_s) is common and _owner(c.key, chain_r) is common:
            return True
    return False


def _repointed(root: list[Event], step: Event, rebind: Event, new: Obj | None) -> bool:
    """Between the optimizer's replacement and the scheduler's ``step``, the program stores an
    optimizer into the scheduler (``scheduler.optimizer = optimizer``): the step writes the LR
    of what was stored, the new optimizer (or one the trace cannot name, given the benefit of
    the doubt), not the old one. A store before the replacement counts when it stored the new
    optimizer itself (``scheduler.optimizer = new_opt`` then ``optimizer = new_opt``). A store
    the replacement's path never takes does not count."""
    sched = step.obj
    for p in root:
        if p.kind != "repoint" or p.obj is not sched or not p.order < step.order:
            continue
        stored = p.info.get("new")
        if p.order < rebind.order and (new is None or stored is not new):
            # stored before the name was rebound: only a store of the very optimizer the
            # name then takes (`scheduler.optimizer = new_opt; optimizer = new_opt`) re-points
            # the scheduler to the one being stepped
            continue
        if exclusive(p, rebind) or exclusive(p, step):
            continue
        if stored is None or stored is new or stored is not rebind.info.get("old"):
            return True
    return False


def _constant_factor(sched: Obj) -> bool:
    """A LambdaLR or MultiplicativeLR built on a ``lambda`` whose body is a number
    (``LambdaLR(opt, lambda step: 1.0)``), or the project's constant scheduler: every position
    has the same LR, so the schedule has nothing to lose."""
    if project_constant(sched):
        return True
    call = sched.call
    if sched.cls not in ("LambdaLR", "MultiplicativeLR") or call is None:
        return False
    given = call.args[1] if len(call.args) > 1 else next(
        (k.value for k in call.keywords if k.arg == "lr_lambda"), None)
    if sched.cls == "MultiplicativeLR":
        return isinstance(given, ast.Lambda) and isinstance(given.body, ast.Constant) \
            and given.body.value == 1
    return isinstance(given, ast.Lambda) and isinstance(given.body, ast.Constant) \
        and type(given.body.value) in (int, float)



def _updated_by(x: Event) -> Obj | None:
    """The optimizer an update event steps: ``optimizer.step()``'s own, or the one handed to
    ``scaler.step(optimizer)``; None for any other event."""
    if x.kind not in ("opt_step", "scaler_step"):
        return None
    stepped = x.obj if x.kind == "opt_step" else x.info.get("optimizer")
    return stepped if isinstance(stepped, Obj) else None

def _second_instance(ctx: FileContext, reported: set[int]) -> Iterator[Diagnostic]:
    """A scheduler built on its own instance of an optimizer whose builder is called twice
    (``opt = self.make_optimizer()`` in ``fit()`` and again inside ``make_scheduler()``): the
    loop steps the first instance, the schedule moves the LR of the second, which nothing
    steps, so training runs at a constant LR.

    Only for two instances of one constructor call, in one trace, where the scheduler's
    instance was built while the scheduler was being built, is kept by no object, and nothing
    in the file ever updates it; and the other instance is updated in the loop that steps the
    scheduler. A schedule on an optimizer the trace merely lost sight of (stepped by a library,
    kept as ``self.opt_d``) stays silent."""
    steps = [e for e in ctx.program.events
             if e.kind == "sched_step" and e.obj is not None and e.loop is not None]
    if not steps:
        return
    # one pass over the events: where each object was built, which objects anything but
    # their construction touches, and the optimizer updates of each trace
    made_at: dict[int, Event] = {}
    touched: set[int] = set()
    updates: dict[int, list[tuple[Event, Obj]]] = {}
    # (scheduler construction, optimizer) of every scheduler built
    scheduled: set[tuple[int, int]] = set()
    for x in ctx.program.events:
        if x.obj is not None:
            if x.kind == "create":
                made_at.setdefault(x.obj.id, x)
                if x.obj.kind == "scheduler" and x.obj.optimizer is not None \
                        and x.obj.call is not None:
                    scheduled.add((id(x.obj.call), x.obj.optimizer.id))
            else:
                touched.add(x.obj.id)
        stepped_obj = _updated_by(x)
        if stepped_obj is not None:
            touched.add(stepped_obj.id)
            updates.setdefault(x.root, []).append((x, stepped_obj))
    for e in steps:
        sched = e.obj
        assert sched is not None and e.loop is not None
        old = sched.optimizer
        # kept by an object (`self.opt_d = ...`, held by a class): other methods may step it
        if (old is None or old.guessed or old.held or "." in old.name or "[" in old.name
                or sched.id in reported or old.id in touched):
            continue
        # a memoised factory (`@functools.cache`, `@lru_cache`, a project decorator) hands
        # back its first instance: the trace, which runs the body on every call, cannot tell
        if old.call is None or _decorated(ctx.function_of(old.path, old.call)):
            continue
        built, made = made_at.get(sched.id), made_at.get(old.id)
        if built is None or made is None or built.frame is None or built.root != e.root \
                or made.root != e.root or not made.within(built.frame):
            continue
        loops = list(e.loop.ancestors())
        # the other instance has a schedule of its own from the same line: the builder made
        # an optimizer and its scheduler each time (`train_a()` then `train_b()` in one loop
        # of the driver, each calling `make_optim_and_sched()`), two setups and not a second
        # instance made for the scheduler
        stepped = next((
            u for u, other in updates.get(e.root, [])
            if other is not old and other.call is old.call and not other.guessed
            and any(u.in_loop(loop) for loop in loops)
            and (sched.call is None or (id(sched.call), other.id) not in scheduled)
        ), None)
        if stepped is None:
            continue
        reported.add(sched.id)
        yield Diagnostic.at(
            "LRD014",
            f"`{receiver(e)}` ({sched.label}, {line_at(sched.path, sched.line, e.path)}) "
            f"drives its own {old.cls} ({line_at(old.path, old.line, e.path)}, built again "
            "when the scheduler was built), but the loop steps another instance from the same "
            f"line (step at {line_at(stepped.path, stepped.line, e.path)}): the LR being "
            "trained never changes; build the scheduler on the optimizer that is stepped",
            e.path,
            e.node,
        )


def _returned_beside_another_optimizer(ctx: FileContext, reported: set[int]
                                       ) -> Iterator[Diagnostic]:
    """``configure_optimizers`` returns an optimizer and a scheduler built on another one
    (``return [make_optimizer(self)], [CosineAnnealingLR(make_optimizer(self), ...)]``, or
    the scheduler's optimizer built inside its own call): Lightning steps the optimizers it
    is given and steps the scheduler, which moves the LR of an optimizer nothing steps; the
    one being trained keeps its initial LR.

    Only where the scheduler's optimizer is certainly a second one: a second instance from
    the constructor call that built a returned optimizer (a factory called twice, not a
    memoised one), or an optimizer built in the scheduler's own call that the module never
    reads back through ``.optimizer``; and nothing but its construction ever touches it."""
    touched = {x.obj.id for x in ctx.program.events
               if x.obj is not None and x.kind != "create"}
    for node, path, value in ctx.program.lightning:
        returned = _lightning_optimizers(value)
        if not returned or any(o.guessed for o in returned):
            continue
        for sched, _ in _lightning_schedulers(value):
            old = sched.optimizer
            if old is None or old.guessed or old.held or old.prepared or sched.guessed \
                    or sched.id in reported or old.id in touched or old.call is None \
                    or sched.call is None or any(old is o for o in returned):
                continue
            inline = any(a is old.call for a in sched.call.args) \
                or any(k.value is old.call for k in sched.call.keywords)
            twin = next((o for o in returned if o.call is old.call), None)
            if inline:
                held = sched.name.split(".")[-1] if sched.name else ""
                tree = ctx.tree_of(sched.path)
                if tree is None or held and any(
                        isinstance(n, ast.Attribute) and n.attr == "optimizer"
                        and ast.unparse(n.value).split(".")[-1] == held
                        for n in ast.walk(tree)):
                    continue
            elif twin is None or _decorated(ctx.function_of(old.path, old.call)):
                continue
            stepped = twin or returned[0]
            reported.add(sched.id)
            yield Diagnostic.at(
                "LRD014",
                f"{sched.label} ({line_at(sched.path, sched.line, path)}) is returned from "
                f"configure_optimizers on its own {old.cls} "
                f"({line_at(old.path, old.line, path)}"
                f"{', built again for it' if twin is not None else ''}), but the optimizer "
                f"returned beside it (`{stepped.name or stepped.label}`, "
                f"{line_at(stepped.path, stepped.line, path)}) is the one Lightning steps: the "
                "schedule never changes the LR being trained; build the scheduler on the "
                "optimizer you return",
                path,
                node,
            )


def _lightning_optimizers(value: Any, depth: int = 0) -> list[Obj]:
    """The optimizers a ``configure_optimizers`` return value names, in order: ``opt``,
    ``[opt]``, ``([opt], [sched])``, ``{"optimizer": opt, ...}`` and lists of those."""
    if depth > 4:
        return []
    if isinstance(value, Obj):
        return [value] if value.kind == "optimizer" else []
    if isinstance(value, DictVal):
        return _lightning_optimizers(value.items.get("optimizer"), depth + 1)
    if isinstance(value, TupleVal):
        return [o for item in value.items for o in _lightning_optimizers(item, depth + 1)]
    return []


def _traced_calls(events: list[Event]) -> dict[int, list[Frame]]:
    """The frames of every traced call of a function, by the call node's id."""
    frames: dict[int, list[Frame]] = {}
    seen: set[int] = set()
    for x in events:
        frame = x.frame
        while frame is not None and id(frame) not in seen:
            seen.add(id(frame))
            if frame.call is not None and frame.fn is not None:
                frames.setdefault(id(frame.call), []).append(frame)
            frame = frame.parent
    return frames


def _never_updated(ctx: FileContext, reported: set[int]) -> Iterator[Diagnostic]:
    """A scheduler stepped in a loop that updates another optimizer, on an optimizer that
    nothing in the program updates (``Fitter(model, optimizer, scheduler)`` whose
    ``__init__`` ignores ``optimizer`` and builds its own Adam, which its loop steps): the
    schedule moves the LR of an optimizer that trains nothing, and the one being trained
    keeps its initial LR.

    Only where the scheduler's optimizer never leaves the code the trace follows: every use
    of the name holding it is the scheduler's constructor or an argument of a traced call
    whose parameter is in turn used only so (or not at all). One handed to a library, kept
    in an attribute or a container, returned or rebound may be updated out of sight, and
    stays silent."""
    events = ctx.program.events
    steps = [e for e in events
             if e.kind == "sched_step" and e.obj is not None and e.loop is not None]
    if not steps:
        return
    touched: set[int] = set()
    updates: dict[int, list[tuple[Event, Obj]]] = {}
    for x in events:
        if x.obj is not None and x.kind != "create":
            touched.add(x.obj.id)
        stepped_obj = _updated_by(x)
        if stepped_obj is not None:
            touched.add(stepped_obj.id)
            updates.setdefault(x.root, []).append((x, stepped_obj))
    frames = _traced_calls(events)
    for e in steps:
        sched = e.obj
        assert sched is not None and e.loop is not None
        old = sched.optimizer
        # built in the scheduler's own call (`StepLR(SGD(model.parameters(), lr=0.1), 30)`):
        # no name holds it, so only the scheduler's `.optimizer` could ever step it
        inline = old is not None and old.call is not None and sched.call is not None and (
            any(a is old.call for a in sched.call.args)
            or any(k.value is old.call for k in sched.call.keywords))
        if (old is None or old.guessed or old.held or old.prepared or sched.guessed
                or not (inline or old.name.isidentifier()) or sched.id in reported
                or old.id in touched):
            continue
        loops = list(e.loop.ancestors())
        other = next((
            o for u, o in updates.get(e.root, [])
            if o is not old and not o.guessed and o.call is not old.call
            and any(u.in_loop(loop) for loop in loops)
        ), None)
        if other is None:
            continue
        assert old.call is not None and sched.call is not None
        if inline:
            if not _optimizer_read_through(ctx, e):
                reported.add(sched.id)
                yield _never_updated_finding(e, sched, old, other)
            continue
        scope = _bound_to_its_constructor(ctx, old)
        if scope is None or not _confined(scope, old.name, sched.call, frames, 0):
            if not _returned_confined(ctx, old, sched, frames):
                continue
        reported.add(sched.id)
        yield _never_updated_finding(e, sched, old, other)


def _returned_confined(ctx: FileContext, old: Obj, sched: Obj,
                       frames: dict[int, list[Frame]]) -> bool:
    """``optimizer = Adam(...)`` in a builder whose one ``return`` hands it back (alone, or
    at a place of a tuple: ``return optimizer, scheduler``), used there otherwise only by the
    scheduler's constructor, and every traced call of the builder binds that result to a name
    that is confined where it is bound (see _confined): the optimizer never leaves the code
    the trace follows, as when the caller had built it itself."""
    if old.call is None or not old.name.isidentifier():
        return False
    fn = ctx.function_of(old.path, old.call)
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or _decorated(fn):
        return False
    name = old.name
    own = list(own_nodes(fn))
    if sum(1 for n in own if isinstance(n, ast.Name) and n.id == name
           and not isinstance(n.ctx, ast.Load)) != 1 or not any(
            isinstance(a, ast.Assign) and a.value is old.call and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name) and a.targets[0].id == name for a in own):
        return False
    returns = [n for n in own if isinstance(n, ast.Return)]
    if len(returns) != 1 or returns[0].value is None:
        return False
    value = returns[0].value
    if isinstance(value, ast.Name) and value.id == name:
        place: int | None = None
    elif isinstance(value, ast.Tuple) and sum(
            1 for el in value.elts if isinstance(el, ast.Name) and el.id == name) == 1:
        place = next(i for i, el in enumerate(value.elts)
                     if isinstance(el, ast.Name) and el.id == name)
    else:
        return False
    allowed = {id(value)} | ({id(el) for el in value.elts} if isinstance(value, ast.Tuple)
                             else set())
    made_by = sched.call
    in_constructor = {id(a) for a in ([*made_by.args, *(k.value for k in made_by.keywords)]
                                      if made_by is not None else [])}
    for n in own:
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) \
                and id(n) not in allowed and id(n) not in in_constructor:
            return False  # used some other way in the builder
    callers = [f for fs in frames.values() for f in fs if f.fn is fn and f.call is not None]
    if not callers:
        return False
    for frame in callers:
        call, path = frame.call, frame.call_path or old.path
        if call is None:
            return False
        where = ctx.function_of(path, call) or ctx.tree_of(path)
        if where is None:
            return False
        bound = next((a for a in ast.walk(where) if isinstance(a, ast.Assign)
                      and a.value is call and len(a.targets) == 1), None)
        if bound is None:
            return False
        target = bound.targets[0]
        if place is not None:
            if not isinstance(target, ast.Tuple) or not isinstance(value, ast.Tuple) \
                    or len(target.elts) != len(value.elts):
                return False
            target = target.elts[place]
        if not isinstance(target, ast.Name) \
                or not _confined(where, target.id, made_by, frames, 0):
            return False
    return True


def _bound_to_its_constructor(ctx: FileContext, optimizer: Obj) -> ast.AST | None:
    """The function (or module) where ``optimizer``'s name is bound right there to its
    constructor's result (``optimizer = Adam(...)``), not a name inside a builder whose
    result the caller keeps under names of its own; None otherwise."""
    if optimizer.call is None:
        return None
    function = ctx.function_of(optimizer.path, optimizer.call)
    scope: ast.AST | None = function if function is not None else ctx.tree_of(optimizer.path)
    if scope is None or not any(
            isinstance(a, ast.Assign) and a.value is optimizer.call and len(a.targets) == 1
            and isinstance(a.targets[0], ast.Name) and a.targets[0].id == optimizer.name
            for a in ast.walk(scope)):
        return None
    return scope


def _never_updated_finding(e: Event, sched: Obj, old: Obj, other: Obj) -> Diagnostic:
    return Diagnostic.at(
        "LRD014",
        f"`{receiver(e)}` ({sched.label}, {line_at(sched.path, sched.line, e.path)}) "
        f"drives the {old.cls} built at {line_at(old.path, old.line, e.path)}, which "
        "nothing updates: the loop updates another optimizer "
        f"({other.label}, {line_at(other.path, other.line, e.path)}), so this schedule "
        "never changes the LR being trained; build the scheduler on the optimizer that "
        "is stepped, or step the one you built",
        e.path,
        e.node,
    )


def _optimizer_read_through(ctx: FileContext, e: Event) -> bool:
    """Whether the file reads the stepped scheduler's ``.optimizer`` (``scheduler.optimizer
    .step()``): the only way to reach an optimizer built inside the scheduler's call."""
    held = receiver(e).split(".")[-1]
    sched = e.obj
    for path in {e.path, sched.path if sched is not None else e.path}:
        tree = ctx.tree_of(path)
        if tree is None or any(
                isinstance(n, ast.Attribute) and n.attr == "optimizer"
                and ast.unparse(n.value).split(".")[-1] == held for n in ast.walk(tree)):
            return True
    return False


def _earlier_stage(ctx: FileContext, reported: set[int]) -> Iterator[Diagnostic]:
    """A scheduler stepped through a stage that updates other optimizers only, on an optimizer
    whose every update came in an earlier stage (a distillation's teacher trained first with
    ``t_opt``, then the student's epochs step ``s_opt`` and a scheduler built on ``t_opt``):
    ``t_opt`` never steps again, so the schedule moves an LR nothing uses and the student
    trains at a constant LR.

    Only where the scheduler's optimizer is a plain name bound once to its constructor, used
    only by that scheduler's constructor and by its own ``step()`` / ``zero_grad()`` calls,
    all traced, in one trace, and each before the scheduler's first step and outside every
    loop that holds a step of the scheduler (a loop over stages around both would train the
    first optimizer again); and where the optimizers those loops do update have no scheduler
    stepped in them (then the stale step is dead code, not a missing schedule)."""
    events = ctx.program.events
    steps = [e for e in events
             if e.kind == "sched_step" and e.obj is not None and e.loop is not None]
    if not steps:
        return
    touching: dict[int, list[Event]] = {}
    updates: dict[int, list[tuple[Event, Obj]]] = {}
    for x in events:
        if x.obj is not None and x.kind != "create":
            touching.setdefault(x.obj.id, []).append(x)
        stepped_obj = _updated_by(x)
        if stepped_obj is not None:
            if stepped_obj is not x.obj:
                touching.setdefault(stepped_obj.id, []).append(x)
            updates.setdefault(x.root, []).append((x, stepped_obj))
    for e in steps:
        sched = e.obj
        assert sched is not None and e.loop is not None
        old = sched.optimizer
        if (old is None or old.guessed or old.held or old.prepared or sched.guessed
                or sched.held or not old.name.isidentifier() or sched.id in reported):
            continue
        own = touching.get(old.id, [])
        if not any(_updated_by(x) is old for x in own):
            continue  # never updated: _never_updated's case
        first = min(x.order for x in steps if x.obj is sched)
        loops = list(e.loop.ancestors())
        if any(x.root != e.root or x.order > first or any(x.in_loop(loop) for loop in loops)
               or x.kind not in ("opt_step", "zero_grad") for x in own):
            continue
        others = [o for u, o in updates.get(e.root, [])
                  if o is not old and not o.guessed and any(u.in_loop(loop) for loop in loops)]
        if not others:
            continue
        if any(x.obj is not None and x.obj.optimizer in others
               and any(x.in_loop(loop) for loop in loops) for x in steps):
            continue
        assert old.call is not None
        function = ctx.function_of(old.path, old.call)
        scope: ast.AST | None = function if function is not None else ctx.tree_of(old.path)
        if scope is None or not _stage_uses_only(scope, old.name, old.call, sched.call):
            continue
        reported.add(sched.id)
        other = others[0]
        yield Diagnostic.at(
            "LRD014",
            f"`{receiver(e)}` ({sched.label}, {line_at(sched.path, sched.line, e.path)}) "
            f"drives the {old.cls} built at {line_at(old.path, old.line, e.path)}, whose "
            "updates all came in an earlier stage: the loop stepping it updates another "
            f"optimizer ({other.label}, {line_at(other.path, other.line, e.path)}), so this "
            "schedule never changes the LR being trained; build the scheduler on the "
            "optimizer of this stage",
            e.path,
            e.node,
        )


def _built_on_the_first_pass_only(ctx: FileContext, reported: set[int]
                                  ) -> Iterator[Diagnostic]:
    """A scheduler built in a loop only while its own name is unset (``if scheduler is None:
    scheduler = StepLR(optimizer, ...)``) or only on the loop's first pass (``if stage ==
    0:`` in ``for stage, lr in enumerate(stages)``), on an optimizer the same loop builds anew, under no
    condition, on every pass and updates there: from the second pass on the name keeps the
    first scheduler, which moves the LR of the first optimizer while each later pass steps
    its own new one at a constant LR. The trace follows one pass of a loop, where the two are
    built together; the test on the scheduler's own name says no later pass builds it again.

    Only where the scheduler is stepped in that loop, the optimizer's constructor is bound to
    a name (or an attribute) in the loop's own function, and the guard tests the very name the
    scheduler is bound to (``is None`` / ``not``), with no ``or`` / ``and`` beside it, or is
    false on every pass of a counting loop after its first (_first_pass_only)."""
    events = ctx.program.events
    for c in events:
        sched = c.obj
        if c.kind != "create" or sched is None or sched.kind != "scheduler" or c.loop is None \
                or sched.guessed or sched.in_composite or sched.id in reported:
            continue
        opt = sched.optimizer
        if opt is None or opt.guessed or opt.call is None:
            continue
        tree = ctx.tree_of(c.path)
        if tree is None:
            continue
        target = _bound_name(tree, sched.call)
        if target is None:
            continue
        guard = next((g for g in c.conds_inside(None) if g.loop is not None
                      and (_tests_unset(g, target) or _first_pass_only(ctx, g, c.frame, g.loop))),
                     None)
        if guard is None or guard.loop is None or guard.test is None:
            continue
        loop = guard.loop
        made = next((x for x in events if x.kind == "create" and x.obj is opt), None)
        if made is None or not made.in_loop(loop) or made.conds_inside(loop) \
                or made.order > c.order or made.path != c.path \
                or _bound_name(tree, opt.call) is None:
            continue
        if not any(_updated_by(x) is opt and x.in_loop(loop) and x.order > c.order
                   for x in events):
            continue
        if any(x.kind in ("create", "repoint") and x is not c and x.in_loop(loop)
               and x.obj is not None and (x.obj is sched or x.kind == "create"
                                          and x.obj.kind == "scheduler" and x.obj.call is not None
                                          and _bound_name(tree, x.obj.call) == target)
               for x in events):
            continue  # built again on the other passes (`else:`), or re-pointed each pass
        # a step that runs on the later passes too (not one only the first pass takes)
        step = next((x for x in events if x.kind == "sched_step" and x.obj is sched
                     and x.in_loop(loop) and x.order > c.order
                     and not any(g is guard or _first_pass_only(ctx, g, x.frame, loop)
                                 for g in x.conds_inside(loop))), None)
        if step is None:
            continue
        reported.add(sched.id)
        yield Diagnostic.at(
            "LRD014",
            f"`{receiver(step)}` ({sched.label}, {line_at(sched.path, sched.line, step.path)}) "
            f"is built only on the first pass of the loop at "
            f"{line_at(loop.path, loop.line, step.path)} (`{ast.unparse(guard.test)}`), on "
            f"the optimizer built at {line_at(opt.path, opt.line, step.path)}, which every "
            "pass builds anew: from the second pass on the scheduler drives a dropped "
            "optimizer and the one being stepped trains at a constant LR; build the "
            "scheduler with the optimizer on every pass",
            step.path,
            step.node,
        )


def _bound_name(tree: ast.AST, call: ast.Call | None) -> str | None:
    """The name (or dotted attribute) the constructor ``call`` is assigned to, alone, by the
    statement that holds it; None for any other use."""
    if call is None:
        return None
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and n.value is call and len(n.targets) == 1 \
                and isinstance(n.targets[0], (ast.Name, ast.Attribute)):
            return dotted(n.targets[0])
    return None


def _tests_unset(cond: Cond, name: str) -> bool:
    """The branch ``cond`` takes runs only while ``name`` holds nothing: ``if name is None:``,
    ``if not name:`` (their body), ``if name is not None: ... else:`` (its else)."""
    test, truth = cond.test, cond.branch == 0
    if test is None or cond.branch not in (0, 1):
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return truth and dotted(test.operand) == name
    if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None and dotted(test.left) == name:
        return truth if isinstance(test.ops[0], ast.Is) else (
            not truth if isinstance(test.ops[0], ast.IsNot) else False)
    return False


def _later_call(ctx: FileContext, reported: set[int]) -> Iterator[Diagnostic]:
    """A scheduler handed to a stage together with another optimizer after its own optimizer's
    last update (``train(model, opt, sched, 5)`` then ``train(model, opt2, sched, 20)``): in
    the second call the loop steps ``opt2`` while the schedule keeps moving the LR of ``opt``,
    which never steps again, so the second stage trains at a constant LR.

    Only where every update of the scheduler's optimizer comes, in the same trace, before the
    step and in no loop around it (a loop over stages would train it again); another
    optimizer, not built from it (a wrapper sharing its groups), is updated in the loops
    around the step, with no scheduler of its own stepped there; and the optimizer's name is
    bound once, to its constructor, and used only to build the scheduler, for its own
    ``.step()`` / ``.zero_grad()``, or handed to traced calls that use it only so: one kept
    anywhere else may be updated out of sight."""
    events = ctx.program.events
    steps = [e for e in events
             if e.kind == "sched_step" and e.obj is not None and e.loop is not None]
    if not steps:
        return
    updates: dict[int, list[tuple[Event, Obj]]] = {}
    for x in events:
        stepped_obj = _updated_by(x)
        if stepped_obj is not None:
            updates.setdefault(stepped_obj.id, []).append((x, stepped_obj))
    frames: dict[int, list[Frame]] | None = None
    for e in steps:
        sched = e.obj
        assert sched is not None and e.loop is not None
        old = sched.optimizer
        if (old is None or old.guessed or old.held or old.prepared or sched.guessed
                or sched.held or sched.in_composite or not old.name.isidentifier()
                or sched.id in reported or old.call is None):
            continue
        own = updates.get(old.id, [])
        loops = list(e.loop.ancestors())
        if not own or any(u.root != e.root or u.order > e.order
                          or any(u.in_loop(loop) for loop in loops) for u, _ in own):
            continue
        others = [o for us in updates.values() for u, o in us
                  if o is not old and not o.guessed and u.root == e.root
                  and any(u.in_loop(loop) for loop in loops)]
        if not others or any(o.call is None or o.call is old.call or any(
                isinstance(n, ast.Name) and n.id == old.name for n in ast.walk(o.call))
                for o in others):
            continue
        if any(x.obj is not None and x.obj.optimizer in others
               and any(x.in_loop(loop) for loop in loops) for x in steps):
            continue
        scope = _bound_to_its_constructor(ctx, old)
        if scope is None:
            continue
        if frames is None:
            frames = _traced_calls(events)
        if not _confined(scope, old.name, sched.call, frames, 0, updates=True):
            continue
        reported.add(sched.id)
        other = others[0]
        stage = e.frame.call if e.frame is not None else None
        called = f" (the call at {line_at(e.frame.call_path, stage.lineno, e.path)})" \
            if stage is not None and e.frame is not None else ""
        yield Diagnostic.at(
            "LRD014",
            f"`{receiver(e)}` ({sched.label}, {line_at(sched.path, sched.line, e.path)}) "
            f"drives the {old.cls} built at {line_at(old.path, old.line, e.path)}, which is "
            f"not updated after an earlier stage: in this stage{called} the loop stepping "
            "the scheduler updates "
            f"another optimizer ({other.label}, {line_at(other.path, other.line, e.path)}), so "
            "this stage trains at a constant LR; build a scheduler on that optimizer for this "
            "stage",
            e.path,
            e.node,
        )


def _stage_uses_only(scope: ast.AST, name: str, made_by: ast.Call,
                     sched_call: ast.Call | None) -> bool:
    """``name`` is bound once in ``scope``, to ``made_by``, and every read of it is an
    argument of ``sched_call`` or the receiver of a ``.step()`` / ``.zero_grad()`` call.
    Functions nested in ``scope`` are not looked into (a use there is not vouched for)."""
    parents: dict[int, ast.AST] = {}
    todo: list[ast.AST] = [scope]
    bound = 0
    uses: list[ast.Name] = []
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            if isinstance(child, (ast.Global, ast.Nonlocal)) and name in child.names:
                return False
            if isinstance(child, ast.Name) and child.id == name:
                if isinstance(child.ctx, ast.Load):
                    uses.append(child)
                else:
                    bound += 1
                    target_of = parents.get(id(child))
                    if not (isinstance(target_of, ast.Assign) and target_of.value is made_by):
                        return False
            todo.append(child)
    if bound != 1:
        return False
    for node in uses:
        parent = parents.get(id(node))
        if sched_call is not None and (
                parent is sched_call
                or isinstance(parent, ast.keyword) and parents.get(id(parent)) is sched_call):
            continue
        if isinstance(parent, ast.Attribute) and parent.attr in ("step", "zero_grad"):
            call = parents.get(id(parent))
            if isinstance(call, ast.Call) and call.func is parent:
                continue
        return False
    return True


def _confined(scope: ast.AST, name: str, made_by: ast.Call | None,
              frames: dict[int, list[Frame]], depth: int, updates: bool = False) -> bool:
    """Every use of ``name`` in ``scope`` (a function, or a module for a module-level name)
    hands it to ``made_by`` (the scheduler's constructor) or to a traced call whose parameter
    is, in its function, used only so; the name is never rebound there. With ``updates``, a
    use as the receiver of ``.step()`` / ``.zero_grad()`` is allowed too (the traced updates
    of the optimizer are then all it ever gets). False for anything else (an untraced call,
    an attribute, a container, a return, a second binding). Functions nested in ``scope``
    that bind a name of their own with that spelling are another variable and are left out."""
    if depth > MAX_CONFINED_DEPTH:
        return False
    parents: dict[int, ast.AST] = {}
    uses: list[ast.Name] = []
    bound = 0
    todo: list[ast.AST] = [scope]
    while todo:
        node = todo.pop()
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) \
                    and _binds_locally(child, name):
                continue
            if isinstance(child, (ast.Global, ast.Nonlocal)) and name in child.names:
                return False
            if isinstance(child, ast.Name) and child.id == name:
                if isinstance(child.ctx, ast.Load):
                    uses.append(child)
                else:
                    bound += 1
            todo.append(child)
    own_parameter = isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
        a.arg == name for a in parameters_of(scope))
    # a module-level name bound once; a parameter never bound in the function body
    if bound > (0 if own_parameter else 1):
        return False
    for node in uses:
        parent = parents.get(id(node))
        if updates and isinstance(parent, ast.Attribute) and parent.attr in ("step", "zero_grad"):
            receiver_of = parents.get(id(parent))
            if isinstance(receiver_of, ast.Call) and receiver_of.func is parent:
                continue
        if isinstance(parent, ast.keyword):
            call, keyword, index = parents.get(id(parent)), parent.arg, -1
        else:
            call, keyword = parent, None
            index = next((i for i, a in enumerate(parent.args) if a is node), -1) \
                if isinstance(parent, ast.Call) else -1
        if not isinstance(call, ast.Call) or (keyword is None and index < 0):
            return False
        if call is made_by:
            continue
        callees = frames.get(id(call))
        if not callees:
            return False
        for frame in callees:
            fn = frame.fn
            assert fn is not None
            positional = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            if keyword is not None:
                if keyword not in positional and keyword not in (
                        a.arg for a in fn.args.kwonlyargs):
                    return False
                param = keyword
            elif index + frame.skipped < len(positional):
                param = positional[index + frame.skipped]
            else:
                return False
            if not _confined(fn, param, None, frames, depth + 1, updates):
                return False
    return True


def _binds_locally(fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, name: str) -> bool:
    """``fn`` has a local variable ``name`` of its own (a parameter, or a binding in its body
    without a ``global``/``nonlocal`` for it)."""
    if any(a.arg == name for a in parameters_of(fn)):
        return True
    if isinstance(fn, ast.Lambda):
        return False
    declared = any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names
                   for n in ast.walk(fn))
    return not declared and any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load)
        for n in ast.walk(fn))


MAX_CONFINED_DEPTH = 6


def _decorated(function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> bool:
    """The function has a decorator other than staticmethod/classmethod."""
    return function is not None and any(
        dotted(d) not in ("staticmethod", "classmethod") for d in function.decorator_list)


def _dropped(ctx: FileContext, sched: Obj, root: list[Event]) -> bool:
    """A scheduler nothing can step: no step of it anywhere in the program (by the loop or by
    Lightning), not kept by an instance, not handed to an Accelerator, not in what a
    configure_optimizers returns, not one of a composite's members."""
    if sched.held or sched.prepared or sched.in_composite:
        return False
    if any(e.obj is sched and e.kind in ("sched_step", "lightning_sched_step", "load_state",
                                         "set_last_epoch", "save")
           for e in ctx.program.events):
        return False
    return not any(sched is s for _, _, value in ctx.program.lightning
                   for s, _ in _lightning_schedulers(value))


def _updates(e: Event, optimizer: Obj | None) -> bool:
    """``e`` steps ``optimizer`` (``optimizer.step()``, or ``scaler.step(optimizer)``)."""
    return e.kind in ("opt_step", "scaler_step") and (
        e.obj is optimizer or e.info.get("optimizer") is optimizer)


def _own_configure_optimizers(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler built on the optimizer of a module's own call to ``configure_optimizers()``
    that nothing in the project steps. Either the module is a LightningModule calling the hook
    itself (in ``__init__``, say): Lightning makes its own call and steps the optimizer of
    that one. Or the program calls the hook twice (``opt = model.configure_optimizers()[
    "optimizer"]``, then ``sched = model.configure_optimizers()["lr_scheduler"]["scheduler"]``):
    each call builds a new optimizer, the loop steps the first one, and the schedule moves the
    LR of the second. Either way the schedule never reaches training. A project scheduler with
    a ``step()`` of its own that writes the LR counts as stepping it."""
    seen: set[int] = set()
    configured = [r for r in ctx.program.events if r.kind == "own_configure" and r.obj is not None]
    for r in configured:
        if r.obj is None or r.obj.id in seen:
            continue
        seen.add(r.obj.id)
        optimizer = r.obj
        if any(_updates(e, optimizer) for e in ctx.program.events):
            continue
        # the optimizer of another call of the same hook that the project steps itself
        other = next((o.obj for o in configured
                      if o.obj is not None and o.obj is not optimizer
                      and o.obj.call is not None and o.obj.call is optimizer.call
                      and any(_updates(e, o.obj) for e in ctx.program.events)), None)
        steps = [e for e in ctx.program.events
                 if e.kind == "sched_step" and e.obj is not None and e.obj.optimizer is optimizer]
        if not steps:
            moved = next((found for w in ctx.program.events
                          if w.kind == "lr_write" and w.obj is optimizer and w.loop is not None
                          and (found := _own_step_call(w)) is not None), None)
            if moved is None or other is None:
                continue
            call, path = moved
            yield Diagnostic.at(
                "LRD014",
                f"`{dotted(call.func) or 'step'}()` moves the LR of the optimizer built by the "
                f"call to configure_optimizers() at {line_at(r.path, r.line, path)}, which "
                f"nothing steps; the loop steps the optimizer of another call of it "
                f"({line_at(other.path, other.line, path)}, a new one each call), so the LR "
                "being trained never changes: call configure_optimizers() once and take both "
                "from that result",
                path,
                call,
            )
            continue
        e = steps[0]
        sched = e.obj
        assert sched is not None
        here = sched.path if sched.call is not None and sched.path else e.path
        if other is not None:
            message = (
                f"`{receiver(e)}` ({sched.label}, {line_at(sched.path, sched.line, here)}) "
                "drives the optimizer built by the call to configure_optimizers() at "
                f"{line_at(r.path, r.line, here)}, which nothing steps; the loop steps the "
                f"optimizer of another call of it (a new one each call), so this schedule "
                "never changes the LR being trained: call configure_optimizers() once and "
                "take both from that result")
        else:
            message = (
                f"`{receiver(e)}` ({sched.label}, {line_at(sched.path, sched.line, here)}) "
                "drives the optimizer returned by this module's own call to "
                f"configure_optimizers() ({line_at(r.path, r.line, here)}); Lightning calls "
                "configure_optimizers() itself and steps the optimizer of its call, so this "
                "schedule never changes the LR being trained: return the scheduler from "
                "configure_optimizers() instead")
        yield Diagnostic.at(
            "LRD014",
            message,
            # at the scheduler's constructor, where the wrong optimizer is handed over
            here,
            sched.call if sched.call is not None and sched.path else e.node,
        )


def _own_step_call(write: Event) -> tuple[ast.Call, str] | None:
    """(the call, its file) of the ``x.step()`` of a project class's own ``step`` method that
    made the LR write ``write`` (directly, or in a helper it calls: ``self.set_lr(...)``); None
    when the write is made elsewhere."""
    frame = write.frame
    while frame is not None:
        call = frame.call
        if frame.fn is not None and frame.fn.name == "step" and call is not None \
                and isinstance(call.func, ast.Attribute) and call.func.attr == "step":
            return call, frame.call_path
        frame = frame.parent
    return None


# -- LRD015 ------------------------------------------------------------------------------------


# torch schedulers whose get_lr() is the chainable formula (the next value computed from
# param_group['lr']): outside step() it returns a wrong number. LambdaLR, OneCycleLR, CyclicLR
# and CosineAnnealingWarmRestarts compute get_lr() in closed form and return the value in force.
CHAINABLE_GET_LR = frozenset(
    {"StepLR", "MultiStepLR", "ConstantLR", "LinearLR", "ExponentialLR", "CosineAnnealingLR",
     "PolynomialLR", "MultiplicativeLR"}
)


@rule("LRD015")
def get_lr_outside_step(ctx: FileContext) -> Iterator[Diagnostic]:
    at_call: dict[int, list[Event]] = {}
    for e in ctx.program.events:
        if e.kind == "get_lr" and e.obj is not None:
            at_call.setdefault(id(e.node), []).append(e)
    reported: set[int] = set()
    for e in ctx.program.events:
        if e.kind != "get_lr" or e.obj is None or id(e.node) in reported:
            continue
        # custom and guessed schedulers often return the right value from get_lr(); so may
        # the one a setting picks among several (which one runs, the file does not say),
        # unless every option of the choice reaches this call and is a chainable torch
        # scheduler (a MultiStepLR built one way on resume and another way on a fresh start)
        default = ""
        if _chosen(e) and _chainable_get_lr(e.obj) \
                and not _every_option_chainable(e, at_call[id(e.node)]):
            # the option the settings' stated defaults build is the one that runs as written
            default = _picked_by_default(ctx, e.obj)
            if not default:
                continue
        elif not _chainable_get_lr(e.obj):
            continue
        if project_constant(e.obj):
            continue  # `LinearLR(opt, 1.0, 1.0)`: its formula gives the LR in force
        recv = receiver(e)
        if recv in ("self", "super") or recv.startswith("super("):
            continue
        if _inside_step_context(ctx, e):
            continue
        reported.add(id(e.node))
        yield Diagnostic.at(
            "LRD015",
            f"`{recv}.get_lr()` computes the next value of the chainable formula (and warns "
            f"outside step()); `{recv}.get_last_lr()` is the LR in force"
            + (f" (the {e.obj.cls} built when {default})" if default else ""),
            e.path,
            e.node,
        )


def _chainable_get_lr(sched: Obj | None) -> bool:
    return sched is not None and sched.origin == "torch" and not sched.guessed \
        and sched.cls in CHAINABLE_GET_LR


def _picked_by_default(ctx: FileContext, sched: Obj) -> str:
    """Whether ``sched``, one option of a choice, is the one the settings' stated defaults
    build: every branch it was built on is an ``if`` comparing a setting with a string
    (``opts.decay == "steps"``, ``!=``, ``in (...)``, ``not in``) whose stated default (an
    argparse ``default=``, a config literal; in the file or another module of the project,
    one value wherever it is stated) takes that branch, an ``elif``'s earlier tests included
    (each is a branch it was built on, taken the other way). What the run as written
    builds, described (``--decay defaults to "steps"``); "" when any branch is undecided."""
    conds = sched.built_under
    if not conds:
        return ""
    frame = next((e.frame for e in ctx.program.events if e.kind == "create" and e.obj is sched),
                 None)
    said: list[str] = []
    for c in conds:
        found = _default_takes(ctx, c, frame)
        if found is None:
            return ""
        taken, text = found
        if taken != (c.branch == 0):
            return ""
        if text and text not in said:
            said.append(text)
    return " and ".join(said)


def _default_takes(ctx: FileContext, c: Cond, frame: Frame | None = None
                   ) -> tuple[bool, str] | None:
    """(whether the test of ``c`` holds with its setting's stated default, the setting and
    default in words), or None when the test is no string comparison of a setting or the
    default is not stated (or stated differently in two places). ``frame``: the call the
    scheduler was built in, through which a tested parameter is read as what was passed."""
    test = c.test
    if not isinstance(test, ast.Compare) or len(test.ops) != 1:
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(left, ast.Constant) and isinstance(op, (ast.Eq, ast.NotEq)):
        left, right = right, left
    if main_guard(left, op, right):
        return True, ""  # the script's main guard: it holds when the script is run
    name = constants.setting_name(left)
    where = c.key[0]
    if not name and isinstance(left, ast.Name) and frame is not None:
        # a parameter of the builder the test is written in, holding what its caller passed
        # (``def build(kind, opt): if kind == "cosine": ...`` called as ``build(args.sched,
        # opt)``): the test reads the setting passed
        passed = _passed_for(frame, c.key[0], c.key[1], left.id)
        if passed is not None:
            left, where = passed
            name = constants.setting_name(left)
    if not name:
        return None
    if isinstance(right, ast.Constant) and isinstance(right.value, str) \
            and isinstance(op, (ast.Eq, ast.NotEq)):
        values = {right.value}
    elif isinstance(right, (ast.Tuple, ast.List, ast.Set)) and right.elts \
            and isinstance(op, (ast.In, ast.NotIn)) and all(
                isinstance(x, ast.Constant) and isinstance(x.value, str) for x in right.elts):
        values = {x.value for x in right.elts}  # type: ignore[attr-defined]
    else:
        return None
    value = _stated_default(ctx, where, left, name)
    if not isinstance(value, str):
        return None
    holds = value in values
    if isinstance(op, (ast.NotEq, ast.NotIn)):
        holds = not holds
    return holds, f"`{name}` defaults to {value!r}"


def _passed_for(frame: Frame, path: str, line: int, param: str
                ) -> tuple[ast.expr, str] | None:
    """What the call of the function holding line ``line`` of ``path`` that ``frame`` (or a
    call it was made from) runs passed for its parameter ``param``, and the file that call
    is written in; None where no such call is known, the parameter was not passed (its
    default is used) or the function rebinds it."""
    current: Frame | None = frame
    while current is not None:
        fn = current.fn
        if fn is not None and current.path == path \
                and fn.lineno <= line <= (fn.end_lineno or fn.lineno) and param in {
                a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}:
            if any(isinstance(t, ast.Name) and t.id == param and isinstance(t.ctx, ast.Store)
                   for t in ast.walk(fn)):
                return None  # rebound: the test may read another value than the one passed
            passed = current.argument(param)
            return (passed, current.call_path) if passed is not None else None
        current = current.parent
    return None


def _stated_default(ctx: FileContext, path: str, expr: ast.expr, name: str) -> Any:
    """The value the setting ``expr`` (named ``name``) has as the project states it: what
    the file resolves it to, else the one literal default the argparse options of the
    project's modules give ``name`` (``parser.add_argument("--decay", default="steps")`` in
    the options module the driver imports); None when none does, or two say different
    things."""
    module = ctx.module_of(path)
    if module is not None and constants.known(expr, None, module):
        return constants.resolve(expr, None, module)
    modules = [ctx.module] + ([m for _, m in ctx.loader.read_modules() if m is not ctx.module]
                              if ctx.loader is not None else [])
    found: set[Any] = set()
    for m in modules:
        if m is None:
            continue
        for node in ast.walk(m.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "add_argument"
                    and constants.option_dest(node) == name):
                continue
            default = next((k.value for k in node.keywords if k.arg == "default"), None)
            if not isinstance(default, ast.Constant):
                return None
            found.add(default.value)
    return next(iter(found)) if len(found) == 1 else None


def _every_option_chainable(e: Event, at_call: list[Event]) -> bool:
    """``get_lr()`` on a scheduler a setting picks (`ExponentialLR` or `MultiStepLR`): wrong
    whichever is picked when every option of each choice on the way reaches the call and is a
    built-in whose ``get_lr()`` is the chainable step formula (one option of unknown or custom
    class may return the LR in force). ``at_call``: the get_lr events of the same call."""
    if not all(_chainable_get_lr(o.obj) for o in at_call):
        return False
    for c in e.conds:
        if c.key[0] == "<choice>":
            reached = {x.branch for o in at_call for x in o.conds if x.key == c.key}
            if reached != set(range(c.key[2])):
                return False
    return True


def _inside_step_context(ctx: FileContext, e: Event) -> bool:
    """``sched._get_lr_called_within_step = True`` around the call: code that drives the
    scheduler itself (a wrapper keeping its own position) computes the next value on purpose,
    the way step() does."""
    function = ctx.function_of(e.path, e.node)
    if function is None:
        return False
    if function.name in ("get_lr", "_get_closed_form_lr") and function.args.args \
            and _method_of_a_scheduler(ctx, e.path, function):
        # a scheduler class computing its own LR from the one it wraps (a warm-up that hands
        # over to a cosine): its get_lr() runs inside its step(), as the wrapped one's would
        return True
    return any(
        isinstance(node, ast.Attribute) and node.attr == "_get_lr_called_within_step"
        and isinstance(node.ctx, ast.Store)
        for node in ast.walk(function)
    )


def _method_of_a_scheduler(ctx: FileContext, path: str,
                           function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether ``function`` is a method of a scheduler class: one that derives from a
    scheduler (torch's base, a torch scheduler, a library's scheduler class) or steps itself
    (a wrapper whose own step() computes its LRs through its get_lr(), in its class or a
    project base). A trainer's ``def get_lr(self): return self.lr_scheduler.get_lr()[0]``,
    read for its log, is no scheduler computing its next value; nor is an optimizer's class
    (EDSR's ``CustomOptimizer(torch.optim.Adam)`` with a ``get_lr()`` that reads the
    scheduler it holds, a class defined inside the function that builds the optimizer), nor
    a wrapper whose step() steps the optimizer it holds without asking its own get_lr(). A
    method outside any class (or in a file not read) counts as one, as before."""
    module = ctx.module_of(path)
    if module is None:
        return True
    cls = next((c for c in module.classes.values() if function in c.node.body), None)
    if cls is None:
        nested = _class_holding(module.tree, function)
        if nested is None:
            return True
        return _scheduler_class_node(module, nested)
    return any(_scheduler_class_node(current.module, current.node)
               for current in cls.lineage())


def _class_holding(tree: ast.AST, function: ast.AST) -> ast.ClassDef | None:
    """The class (also one defined inside a function) whose body holds ``function``."""
    return next((node for node in nodes_in(tree)
                 if isinstance(node, ast.ClassDef) and function in node.body), None)


def _scheduler_class_node(module: Any, node: ast.ClassDef) -> bool:
    """A class that derives from a scheduler, or has a step() of its own that computes its
    LRs through its own get_lr() (``self.get_lr()`` in step()). A class deriving from a torch
    optimizer is an optimizer, whatever methods it adds."""
    bases = [module.qualify(dotted(b) or "") for b in node.bases]
    if any(b.rsplit(".", 1)[-1] in SCHEDULERS or "Scheduler" in b.rsplit(".", 1)[-1]
           for b in bases):
        return True
    if any(b.startswith("torch.optim.") and ".lr_scheduler." not in b for b in bases):
        return False
    step = next((stmt for stmt in node.body
                 if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and stmt.name == "step"), None)
    if step is None:
        return False
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
               and n.func.attr in ("get_lr", "_get_closed_form_lr")
               and isinstance(n.func.value, ast.Name) and n.func.value.id == "self"
               for n in nodes_in(step))


# -- LRD017 ------------------------------------------------------------------------------------


_OPPOSITE = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
             ast.Gt: ast.LtE, ast.LtE: ast.Gt}


def _holds(cond: Cond) -> str:
    """What is true on the branch ``cond`` took: the test, or its negation for an ``else``
    (also the code after ``if ...: continue``)."""
    test = cond.test
    if cond.branch == 0 or test is None:
        return cond.text
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return ast.unparse(test.operand)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _OPPOSITE:
        return ast.unparse(ast.Compare(test.left, [_OPPOSITE[type(test.ops[0])]()],
                                       test.comparators))
    return f"not ({cond.text})"


def _remainder_form(test: ast.expr) -> str | None:
    """"eq" for a test that holds once in a period of passes (``(i + 1) % k == 0``, ``i % k ==
    k - 1``, ``not i % k``), "ne" for its negation, holding on all the other passes (``i % k
    != 0``, a bare ``i % k``, ``not ((i + 1) % k == 0)``); None for any other test."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _remainder_form(test.operand)
        if inner is not None:
            return "ne" if inner == "eq" else "eq"
        operand = test.operand
        return "eq" if isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Mod) \
            else None
    if isinstance(test, ast.BinOp) and isinstance(test.op, ast.Mod):
        return "ne"  # truthy when the remainder is not 0
    if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and isinstance(test.ops[0], (ast.Eq, ast.NotEq)) and any(
                isinstance(side, ast.BinOp) and isinstance(side.op, ast.Mod)
                for side in (test.left, test.comparators[0])):
        return "eq" if isinstance(test.ops[0], ast.Eq) else "ne"
    return None


def _all_but_periodic(cond: Cond) -> bool:
    """The branch taken holds on every pass but those of a period: the ``else`` of ``if
    ((step + 1) % k == 0) and ...:`` (also the code after ``if ...: continue``), or the
    ``if`` of ``i % k != 0``. An optimizer step there runs on all passes but at most one in
    every ``k`` (RigL replaces every k-th update with a mask update), which is no gradient
    accumulation: a scheduler stepped every pass follows the updates, not ``k`` times
    faster. A test spelled through names (``at_boundary = ...``) is not read."""
    test = cond.test
    if test is None:
        return False
    taken = cond.branch == 0
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) \
            and _remainder_form(test) is None:
        test, taken = test.operand, not taken  # `not (a and b)`: the other branch of `a and b`
    if isinstance(test, ast.BoolOp):
        # the `else` of an `and` holds whenever one part fails (all passes off the period);
        # the `if` of an `or` holds whenever one part does
        want = "eq" if isinstance(test.op, ast.And) else "ne"
        if taken != isinstance(test.op, ast.Or):
            return False
        return any(_remainder_form(v) == want for v in test.values)
    form = _remainder_form(test)
    return form == ("ne" if taken else "eq")


def _accumulation(text: str) -> bool:
    lower = text.lower()
    return any(w in lower for w in _ACCUM_WORDS)


def _periodic_of_its_own(ctx: FileContext, e: Event, loop: Loop) -> bool:
    """The step sits under a periodic test (``i % eval_every == 0``) that no optimizer step
    of the loop shares: it runs every N batches by design (an evaluation period), which is no
    gradient accumulation and not every batch. Unknown when the loop shows no update."""
    sched = e.obj
    updates = ctx.updates_in(loop, e.root, sched.optimizer if sched is not None else None)
    if not updates:
        return False
    shared = {(c.key, c.branch) for u in updates for c in u.conds}
    shared_text = {c.text for u in updates for c in u.conds}
    for c in e.conds_inside(loop):
        if (c.key, c.branch) in shared or c.text in shared_text or c.branch != 0:
            continue
        lower = c.text.lower()
        if "%" in lower and not any(w in lower for w in _ACCUM_WORDS if w != "%"):
            return True
        if c.test is not None and _multiple_of_accumulation(c.test):
            return True
    return False


def _multiple_of_accumulation(test: ast.expr) -> bool:
    """``i % (eval_interval * (accum_steps + 1)) == 0``: a period that is the accumulation
    count times a count of its own, so it holds once every N updates (an evaluation period
    counted in updates), not at every accumulation boundary."""
    for node in ast.walk(test):
        if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)):
            continue
        factors: list[ast.expr] = []
        todo = [node.right]
        while todo:
            part = todo.pop()
            if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Mult):
                todo += [part.left, part.right]
            else:
                factors.append(part)
        said = [any(w in ast.unparse(f).lower() for w in _ACCUM_WORDS if w != "%")
                for f in factors]
        if any(said) and any(not s and not isinstance(f, ast.Constant)
                             for f, s in zip(factors, said)):
            return True
    return False


def _only_accumulation(cond: Cond) -> bool:
    """An accumulation test and nothing more: ``is_last_batch and (epoch + 1) % k == 0``
    holds once per epoch at most, whatever its periodic half says."""
    test = cond.test
    if cond.branch == 0 and isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return all(_accumulation(ast.unparse(v)) for v in test.values)
    return _accumulation(cond.meaning)


_PER_UPDATE_WORDS = ("accum", "grad_acc", "update", "optimization", "optimizer_step")


def _guard_counts(guard: Cond) -> set[str]:
    """The accumulation count of a guard: the names its `%` divides by (`(i + 1) % accum`)."""
    if guard.test is None:
        return set()
    return {node.right.id for part in (guard.test, *guard.origins) for node in ast.walk(part)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)
            and isinstance(node.right, ast.Name)}



def _every_micro_batch(e: Event, loop: Loop, update: Event, count: ast.expr,
                       prepared: bool) -> str:
    """LRD017's words for a scheduler Accelerate steps on every micro-batch inside
    `accumulate()` while the optimizer updates once every ``count`` of them: not prepared, or
    prepared by an Accelerator built with `step_scheduler_with_optimizer=False`."""
    if not prepared:
        return (
            f"`{receiver(e)}.step()` runs every micro-batch in {_loop_where(loop, e.path)}, "
            f"but only the optimizer went through `prepare()`: inside `accumulate()` its "
            f"step() (line {update.line}) updates once every "
            f"`{short_source(count)}` micro-batches, while this scheduler, not prepared, "
            "advances on each of them; pass it to `prepare()` too (or step it under "
            "`if accelerator.sync_gradients:`)"
        )
    return (
        f"`{receiver(e)}.step()` runs every micro-batch in {_loop_where(loop, e.path)}: "
        "the Accelerator was built with `step_scheduler_with_optimizer=False`, so "
        "the prepared scheduler steps on each call, while inside `accumulate()` the "
        f"optimizer's step() (line {update.line}) updates once every "
        f"`{short_source(count)}` micro-batches; the schedule advances once per "
        "micro-batch, faster than the updates it is meant to follow (leave "
        "`step_scheduler_with_optimizer` at its default, or size the schedule in "
        "micro-batches)"
    )

# what a batch loop's header may wrap the `range(...)` it counts with: a progress bar, an index
_RANGE_WRAPPERS = frozenset({"tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "trange", "enumerate",
                             "iter", "tqdm_notebook", "notebook.tqdm"})


def _trip_counts(loop: Loop | None) -> list[tuple[str, Any]]:
    """The spellings of how many passes the batch loop ``loop`` makes, each with the scope it
    is read in: ``for step in pbar`` with ``pbar = tqdm(range(num_steps))`` and ``num_steps``
    a parameter its caller bound to ``args.steps_per_epoch`` gives ``num_steps`` and
    ``args.steps_per_epoch``. Every pass draws one (micro-)batch, so this count is the loop's
    batches per epoch, whatever the program computed it from."""
    if loop is None or not isinstance(loop.node, (ast.For, ast.AsyncFor)) or loop.scope is None:
        return []
    node: ast.expr = loop.node.iter
    scope: Any = loop.scope
    for _ in range(4):  # the header's name, bound to the wrapped range (`pbar = tqdm(...)`)
        if isinstance(node, ast.Name):
            found = scope.source_of(node.id)
            if found is None:
                return []
            node, scope = found
            continue
        if isinstance(node, ast.Call) and (dotted(node.func) or "") in _RANGE_WRAPPERS \
                and node.args:
            node = node.args[0]
            continue
        break
    if not (isinstance(node, ast.Call) and dotted(node.func) == "range" and not node.keywords
            and (len(node.args) == 1 or len(node.args) == 2 and isinstance(node.args[0],
                                                                          ast.Constant)
                 and node.args[0].value == 0)):
        return []
    count: ast.expr = node.args[-1]
    out: list[tuple[str, Any]] = []
    for _ in range(4):  # through the parameters it is handed in by (`num_steps` <- caller)
        if not isinstance(count, (ast.Name, ast.Attribute)):
            break
        out.append((ast.unparse(count), scope))
        if not isinstance(count, ast.Name):
            break
        found = scope.source_of(count.id)
        if found is None:
            value = scope.lookup(count.id)
            if not isinstance(value, ExprVal):
                break
            found = (value.node, value.scope)
        count, scope = found
    return out


def _is_trip_count(sub: ast.Name | ast.Attribute, scope: Any,
                   trips: list[tuple[str, Any]]) -> bool:
    """``sub`` (read where the horizon is computed, in ``scope``) spells the batch loop's trip
    count as the loop's header reads it: the same text, its first name bound to the same value
    on both sides (the same ``args``)."""
    text = ast.unparse(sub)
    root = sub
    while isinstance(root, ast.Attribute):
        root = root.value  # type: ignore[assignment]
    if not isinstance(root, ast.Name):
        return False
    for spelled, where in trips:
        if spelled != text:
            continue
        if where is scope:
            return True
        mine, theirs = scope.lookup(root.id), where.lookup(root.id)
        if mine is not None and mine is theirs:
            return True
        mine_src, their_src = scope.source_of(root.id), where.source_of(root.id)
        if mine_src is not None and their_src is not None and mine_src[0] is their_src[0]:
            return True
    return False


def _sized_in_micro_batches(sched: Obj, guard_names: set[str], strict: bool = False,
                            trips: list[tuple[str, Any]] | None = None) -> bool:
    """The schedule's length is counted in loader batches (`epochs * len(loader)`, through
    names and a builder's parameters) with no division by the accumulation count (spelled
    by ``guard_names`` or by a name that says so): stepped every micro-batch it runs its
    whole course over training, as sized. Stepping it per micro-batch is then a design, not
    a schedule running ahead of the updates.

    ``strict`` (for a finding rather than an exemption): only a ``len()`` the walk reaches
    counts; a name it cannot resolve that may hold a count of steps (``CFG.steps_per_epoch``,
    assigned elsewhere, perhaps already divided by the accumulation count) makes it False."""
    calls = [c for c in (sched.call, sched.via) if c is not None]
    # an instance of the project's own scheduler class is read where its constructor was
    # called (the class and that scope are kept apart from the scope of torch's classes);
    # only to exempt: which of its arguments is a horizon is not known, so no finding rests
    # on them
    home = sched.scope if sched.scope is not None else \
        sched.project[1] if sched.project is not None and not strict else None
    if not calls or home is None:
        return False
    seen_len = False
    def tracked(arg: ast.expr) -> bool:  # the optimizer (or a model) handed in, not a length
        return isinstance(arg, ast.Name) and home is not None \
            and isinstance(home.lookup(arg.id), Obj)

    pending: list[tuple[ast.AST, Any, int]] = [
        (a, home, 0) for c in calls
        for a in [*c.args, *(k.value for k in c.keywords if k.arg != "optimizer")]
        if not tracked(a)]
    total = sched.arg("num_training_steps", HF_STEPS_INDEX.get(sched.cls or "", 2)) \
        if strict and sched.origin == "hf" else None
    if total is not None:
        # a Hugging Face schedule's length is its `num_training_steps`; its warm-up's count
        # (`num_warmup_steps=epochs * len(loader)`, swapped with the total by mistake) sizes
        # no horizon of its own
        pending = [(total, sched.scope, 0)]
    visited = 0
    while pending and visited < 64:
        node, scope, hops = pending.pop()
        visited += 1
        # what `len()` is taken of is the loader or the dataset, no count of steps
        measured = {id(n) for c in ast.walk(node) if isinstance(c, ast.Call)
                    and (dotted(c.func) or "") == "len" for n in ast.walk(c)} if strict else set()
        counted_processes: set[int] = set()
        for sub in _outside_functions(node):
            if id(sub) in measured and not isinstance(sub, ast.Call) \
                    or id(sub) in counted_processes:
                continue
            if isinstance(sub, ast.Call) and (dotted(sub.func) or "") == "len":
                seen_len = True
            elif isinstance(sub, ast.BinOp) and isinstance(sub.op, ast.Mult) and any(
                    _accumulation_count(side, guard_names) for side in (sub.left, sub.right)):
                return True  # `total * accumulate`: scaled up to micro-batches by design
            elif isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Div, ast.FloorDiv)):
                divisor = ast.unparse(sub.right).lower()
                if strict and "batch" in divisor and _batch_size_with_updates(
                        sub.right, scope, guard_names):
                    return False  # `len(ds) // total_batch_size`: samples to updates
                if "batch" in divisor and not any(w in divisor for w in _PER_UPDATE_WORDS):
                    # `len(dataset) // batch_size`: samples to batches. When the count of
                    # samples is a name the walk cannot follow (a builder's parameter bound
                    # twice in its caller), the quotient is still a count of loader batches,
                    # unless the batch size may be a whole update's (`total_batch_size`)
                    if not strict and not _batch_size_with_updates(sub.right, scope,
                                                                   guard_names):
                        seen_len = True
                    continue
                if isinstance(sub.left, ast.Constant):
                    continue  # `1. / 1000`: a factor (a warm-up's start), no count divided
                if not strict and _process_count(sub.right, guard_names):
                    # `batches // world_size`: the batches one process of a distributed run
                    # takes (its sampler deals each one a share), still loader batches, not
                    # updates: the division says nothing of gradient accumulation. The
                    # divisor is not followed further (`accelerator.num_processes` reads no
                    # accumulation count the Accelerator was built with)
                    counted_processes.update(id(n) for n in ast.walk(sub.right))
                    continue
                divided = _number_literal(sub.right)
                if divided is not None and guard_names and all(
                        (bound := _number(ast.Name(id=n, ctx=ast.Load()), scope, 0)) is not None
                        and bound != divided for n in guard_names):
                    # `total // 10` (a warm-up a tenth of the horizon) while the accumulation
                    # count is a name bound to another number: nothing becomes updates
                    continue
                return False  # `len(loader) // accum`: counted in updates
            elif isinstance(sub, (ast.Name, ast.Attribute)):
                text = (sub.id if isinstance(sub, ast.Name) else sub.attr).lower()
                handed = _handed_count(sub, scope, guard_names) if hops < 4 else None
                if handed is not None:
                    # a builder's parameter (`def build(opt, total_updates)`): its name says
                    # what the builder expects, the caller's argument (`epochs *
                    # len(loader)`) what the schedule is sized by
                    pending.append((*handed, hops + 1))
                    continue
                if any(w in text for w in _PER_UPDATE_WORDS) or (
                        isinstance(sub, ast.Name) and sub.id in guard_names):
                    return False
                if isinstance(sub, ast.Name) and scope is not None and hops < 4:
                    found = scope.source_of(sub.id)
                    if found is not None:
                        pending.append((*found, hops + 1))
                        earlier = None if strict else \
                            _binding_before_rebinding(found[0], found[1], sub.id)
                        if earlier is not None:
                            # `n = n // world_size`: the `n` it reads is the earlier binding
                            pending.append((earlier, found[1], hops + 1))
                        if not strict:
                            # `total = cfg.total` then `if total == "auto": total = n`: the
                            # other value the name may hold where it is read
                            pending += [(other, scope, hops + 1)
                                        for other in _other_bindings(sub, scope, found[0])]
                        continue
                    value = scope.lookup(sub.id)
                    if isinstance(value, ExprVal):
                        pending.append((value.node, value.scope, hops + 1))
                        continue
                    if isinstance(value, FuncVal) and value.closure is not None:
                        # the multiplier a LambdaLR is handed, defined in the builder: the
                        # names it reads from there (see _outside_functions)
                        pending.append((value.fn, value.closure, hops + 1))
                        continue
                    if isinstance(value, FuncVal) and value.bound is None \
                            and value.preset is None \
                            and scope.module.functions.get(sub.id) is value.fn:
                        # the multiplier is a function of the module (`def lr_lambda(step):`
                        # at the top of the script): the names it reads are the module's
                        top = scope
                        while top.parent is not None:
                            top = top.parent
                        pending.append((value.fn, top, hops + 1))
                        continue
                if isinstance(sub, ast.Attribute) and scope is not None and hops < 4 \
                        and not strict:
                    stored = _attribute_stored_before(sub, scope)
                    if stored is not None:
                        # `cfg.total = num_steps` (under `if cfg.total == "auto":`) before the
                        # schedule reads `cfg.total`: what the program put there (to exempt
                        # only, as the other readings added with it: a finding's strict
                        # reading keeps to the values the trace bound)
                        pending.append((stored, scope, hops + 1))
                if trips and _is_trip_count(sub, scope, trips):
                    # the very count the batch loop makes its passes by (`range(num_steps)`
                    # handed `args.steps_per_epoch`): one micro-batch per pass, whatever
                    # the program set it from
                    seen_len = True
                    continue
                if strict and any(w in text for w in ("step", "iter", "batch", "len", "total")):
                    return False  # a count of steps read from somewhere the walk cannot see
                # a builder's `epoch_steps` / `steps_per_epoch` parameter: batches per epoch
                if not strict and ("per_epoch" in text or names.EPOCH_COUNT.search(text)):
                    seen_len = True
    return seen_len


def _handed_count(sub: ast.expr, scope: Any, guard_names: set[str]
                  ) -> tuple[ast.expr, Any] | None:
    """The caller's expression (and its scope) for ``sub`` when ``sub`` is a parameter of the
    function the schedule is built in, still holding what the call handed it: the count is
    what the caller computed, whatever the parameter is called. None for anything else,
    and for the accumulation count itself (a parameter named in the guard)."""
    if not isinstance(sub, ast.Name) or scope is None or sub.id in guard_names:
        return None
    handed = scope.argument_of(sub.id)
    if handed is None or not isinstance(handed[0], ast.expr):
        return None
    return handed  # type: ignore[no-any-return]


_WHOLE_BATCH_WORDS = ("total", "effective", "eff_", "global", "world", "actual", "real",
                      "update", "accum", "grad_acc")

# how the count of processes of a distributed run is spelled: `dist.get_world_size()`,
# `accelerator.num_processes`, `torch.cuda.device_count()`, `args.n_gpu`, `cfg.world_size`
_PROCESS_COUNT_WORDS = ("world_size", "num_processes", "num_process", "n_gpu", "num_gpu",
                        "ngpu", "nprocs", "num_replicas", "num_devices", "device_count")


def _process_count(divisor: ast.expr, guard_names: set[str]) -> bool:
    """A divisor that is the number of processes and nothing else (``cfg.world_size``,
    ``dist.get_world_size()``): no accumulation count, no batch size, no constant factor
    among its names. Dividing a count of batches by it shares them out among processes;
    the result still counts loader batches (of one process), not optimizer updates."""
    if isinstance(divisor, ast.Call):
        divisor = divisor.func
    if not isinstance(divisor, (ast.Name, ast.Attribute)):
        return False
    text = (divisor.id if isinstance(divisor, ast.Name) else divisor.attr).lower()
    if isinstance(divisor, ast.Name) and divisor.id in guard_names:
        return False
    if any(w in text for w in _PER_UPDATE_WORDS) or any(w in text for w in _ACCUM_WORDS):
        return False
    return any(w in text for w in _PROCESS_COUNT_WORDS)


def _batch_size_with_updates(divisor: ast.expr, scope: Any, guard_names: set[str]) -> bool:
    """A divisor that may be a batch of a whole update rather than of one loader batch
    (``total_batch_size``, ``effective_batch``, or a name assigned ``batch_size * accum``): a
    length divided by it counts updates. Read through the names the divisor is assigned from;
    a name the walk cannot resolve counts by its spelling only."""
    pending: list[tuple[ast.AST, Any]] = [(divisor, scope)]
    seen = 0
    while pending and seen < 16:
        node, where = pending.pop()
        seen += 1
        for sub in ast.walk(node):
            if not isinstance(sub, (ast.Name, ast.Attribute)):
                continue
            text = (sub.id if isinstance(sub, ast.Name) else sub.attr).lower()
            if any(w in text for w in _WHOLE_BATCH_WORDS) or (
                    isinstance(sub, ast.Name) and sub.id in guard_names):
                return True
            if isinstance(sub, ast.Name) and where is not None:
                found = where.source_of(sub.id)
                if found is not None:
                    pending.append(found)
                    continue
                value = where.lookup(sub.id)
                if isinstance(value, ExprVal):
                    pending.append((value.node, value.scope))
    return False


def _binding_before_rebinding(expr: ast.expr, scope: Any, name: str) -> ast.expr | None:
    """For ``name = <expr>`` where ``expr`` reads ``name`` itself (``num_steps = num_steps //
    world_size``): what the assignment before it in the same function bound ``name`` to, which
    is the value ``expr`` reads. None when ``expr`` does not read ``name`` or nothing earlier
    binds it there."""
    if not any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for n in ast.walk(expr)):
        return None
    tree = getattr(getattr(scope, "module", None), "tree", None)
    line = getattr(expr, "lineno", 0)
    if tree is None or not line:
        return None
    around = function_around(tree, expr)
    if not any(n is expr for n in ast.walk(around)):
        return None  # the expression is not written in this module
    return last_binding(around, name, line - 1)


def _other_bindings(read: ast.Name, scope: Any, known: ast.expr) -> list[ast.expr]:
    """The values the plain assignments to ``read``'s name above it, in the function where it
    is written, bind, other than ``known`` (the one the trace kept): a name bound on one
    branch of an ``if`` may hold either value where it is read."""
    tree = getattr(getattr(scope, "module", None), "tree", None)
    line = getattr(read, "lineno", 0)
    if tree is None or not line:
        return []
    around = function_around(tree, read)
    if around is tree or not any(n is read for n in ast.walk(around)):
        return []
    return [node.value for node in ast.walk(around)
            if isinstance(node, ast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name) and node.targets[0].id == read.id
            and node.lineno < line and node.value is not known][:4]


def _attribute_stored_before(read: ast.Attribute, scope: Any) -> ast.expr | None:
    """What the last plain assignment to the attribute ``read`` spells (``cfg.train.total =
    num_steps``) binds, in the function where ``read`` is written and above it; None when no
    such assignment is there (the attribute keeps what the configuration gave it)."""
    root: ast.expr = read
    while isinstance(root, ast.Attribute):
        root = root.value
    tree = getattr(getattr(scope, "module", None), "tree", None)
    line = getattr(read, "lineno", 0)
    if not isinstance(root, ast.Name) or tree is None or not line:
        return None
    around = function_around(tree, read)
    if around is tree or not any(n is read for n in ast.walk(around)):
        return None
    text = ast.unparse(read)
    found: ast.Assign | None = None
    for node in ast.walk(around):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Attribute) and node.lineno < line \
                and (found is None or node.lineno > found.lineno) \
                and ast.unparse(node.targets[0]) == text:
            found = node
    return found.value if found is not None else None


def _outside_functions(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` of ``node`` that does not enter a function or lambda, but yields the names
    it reads from around it: the multiplier a LambdaLR is handed (`def f(x): alpha = x /
    warmup_iters ...`) divides the step by the schedule's length to compute the factor, which
    says nothing of whether that length counts updates or micro-batches; the length itself
    (`warmup_iters`, bound outside) is what to follow."""
    todo = [node]
    while todo:
        sub = todo.pop()
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            own = {a.arg for a in ast.walk(sub.args) if isinstance(a, ast.arg)}
            body = sub.body if isinstance(sub.body, list) else [sub.body]
            reads: list[ast.Name] = []
            for part in body:
                for n in ast.walk(part):
                    if isinstance(n, ast.Name):
                        if isinstance(n.ctx, ast.Store):
                            own.add(n.id)
                        else:
                            reads.append(n)
            yield from (n for n in reads if n.id not in own)
            continue
        yield sub
        todo.extend(ast.iter_child_nodes(sub))


def _iterated_receiver(ctx: FileContext, e: Event) -> str:
    """What a ``for`` statement of the file iterates when the call ``e`` sits in its body and
    calls a method of its loop variable (``for s in schedulers: s.step(epoch)`` gives
    ``schedulers``); "" otherwise."""
    name = receiver(e)
    if e.path != ctx.path:
        return ""
    for node in ast.walk(ctx.tree):
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.target, ast.Name) \
                and node.target.id == name \
                and any(sub is e.node for part in node.body for sub in ast.walk(part)):
            return short_source(node.iter)
    return ""


def _accumulating_accelerator(updates: list[Event]) -> RunnerVal | None:
    """The accelerator when every update of the loop is a prepared optimizer's step() inside
    ``accumulate()`` of one accelerator built with gradient accumulation: Accelerate then
    skips the optimizer's step on the micro-batches that do not sync. A prepared scheduler
    steps with it (once per update); a bare one steps on every call."""
    found: RunnerVal | None = None
    for u in updates:
        acc = u.info.get("accumulating")
        if u.kind != "opt_step" or u.obj is None or not u.obj.prepared \
                or not isinstance(acc, RunnerVal) or (found is not None and acc is not found):
            return None
        found = acc
    return found


def _unprepared_under_accumulate(sched: Obj, updates: list[Event]) -> RunnerVal | None:
    """The accelerator of ``_accumulating_accelerator`` when ``sched`` was never handed to
    ``prepare()``: it steps on every micro-batch while the updates do not."""
    return None if sched.prepared else _accumulating_accelerator(updates)


def _prepared_under_accumulate(sched: Obj, updates: list[Event]) -> RunnerVal | None:
    """The accelerator of ``_accumulating_accelerator`` when ``sched`` went through
    ``prepare()``: it steps only with the real updates, once per update."""
    return _accumulating_accelerator(updates) if sched.prepared else None


def _prepare_may_take(tree: ast.Module, sched: Obj) -> bool:
    """Some ``prepare()`` call of the file may hand ``sched`` over where the trace could not
    follow it: an argument spelled as the scheduler is bound (``self.lr_scheduler``, or the
    same last name), or a starred argument (``accelerator.prepare(*parts)``)."""
    bound = sched.name.rsplit(".", 1)[-1]
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "prepare"):
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            if isinstance(arg, ast.Starred):
                return True
            text = ast.unparse(arg)
            if bound and (text == sched.name or text.rsplit(".", 1)[-1] == bound):
                return True
    return False


def _accumulation_count(node: ast.expr, guard_names: set[str]) -> bool:
    """``node`` is the gradient accumulation count: the name the accumulation guard's ``%``
    divides by, or a name / attribute that says so (``args.grad_accum_steps``)."""
    if isinstance(node, ast.Name) and node.id in guard_names:
        return True
    text = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return "accum" in text.lower() or "grad_acc" in text.lower()


def _stepped_twice(ctx: FileContext) -> Iterator[tuple[Event, Event, Event]]:
    """(first step, second step, the update) where one pass through a batch loop steps the
    same scheduler twice, at two call sites, while its optimizer steps once: the first step
    in one branch of an ``if`` (``if amp: ...; scheduler.step()``) and the second after the
    ``if`` for both branches. Each step runs unguarded on that path (no test of its own that
    the update does not share), and both are plain ``step()`` calls (no position argument)."""
    # a step an engine takes for the user (DeepSpeed's engine.step()) stepped again by hand
    # is LRD012's shape, reported there
    steps = [e for e in _sched_steps(ctx) if _plain_step(e) and not e.info.get("engine")
             and not (e.obj is not None and project_constant(e.obj))]
    for i, first in enumerate(steps):
        gran, loop = granularity(first)
        if gran != "batch" or loop is None:
            continue
        sched = first.obj
        assert sched is not None
        for second in steps[i + 1:]:
            if second.obj is not sched or second.root != first.root \
                    or second.loop is not first.loop or second.node is first.node \
                    or exclusive(first, second):
                continue
            updates = [u for u in ctx.updates_in(loop, first.root, sched.optimizer)
                       if not exclusive(u, first) and not exclusive(u, second)]
            # one update per pass: a single call, or alternatives of one `if` (the scaler's
            # step in the AMP branch, optimizer.step() in the other)
            if not updates or any(u.loop is not first.loop for u in updates) or any(
                    not exclusive(a, b) for j, a in enumerate(updates) for b in updates[j + 1:]):
                continue
            shared = {(c.key, c.branch) for u in updates for c in u.conds_inside(loop)}
            if any((c.key, c.branch) not in shared and not _tests_existence(c, e)
                   for e in (first, second) for c in e.conds_inside(loop)):
                continue  # a guard of its own: not every pass through the loop
            if any(_accumulation(c.meaning) for u in updates for c in u.conds_inside(loop)):
                continue  # accumulation: the rule below judges micro-batches
            yield first, second, updates[0]
            break


_ORDERINGS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


def _every_pass(cond: Cond) -> bool:
    """A period of one written out (``if step % 1 == 0:``, ``if not i % 1:``): the test holds
    on every pass of a counter, so the update under it is no accumulation."""
    test = cond.test
    if cond.branch != 0 or test is None:
        return False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        mod = test.operand
    elif isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0:
        mod = test.left
    else:
        return False
    return isinstance(mod, ast.BinOp) and isinstance(mod.op, ast.Mod) \
        and isinstance(mod.right, ast.Constant) and type(mod.right.value) is int \
        and mod.right.value == 1


def _phase_window(cond: Cond) -> bool:
    """A test that bounds a phase of training (``if warmup <= self.global_step < end:``,
    either branch): ordering comparisons only, joined by ``and``, with no ``%`` and no call.
    Whenever it holds, a step under it runs on every pass, not on a period of its own."""
    test = cond.test
    if test is None or any(isinstance(n, (ast.Call, ast.Await, ast.NamedExpr))
                           or isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)
                           for n in ast.walk(test)):
        return False
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) \
        else [test]
    return all(isinstance(p, ast.Compare) and all(isinstance(op, _ORDERINGS) for op in p.ops)
               for p in parts)


def _manual_optimization(ctx: FileContext, update: Event) -> bool:
    """Whether the LightningModule whose method makes ``update`` turns automatic optimization
    off (``self.automatic_optimization = False``, or the class attribute): Lightning then
    refuses a Trainer's ``accumulate_grad_batches`` other than 1 (it raises at ``fit``), so
    ``self.trainer.accumulate_grad_batches`` is 1 in every run that trains."""
    if update.path != ctx.path:
        return False
    cls = class_at(ctx.tree, update.line)
    if cls is None:
        return False
    for node in ast.walk(cls):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and node.value.value is False:
            for target in node.targets:
                if (isinstance(target, ast.Attribute) and target.attr == "automatic_optimization"
                        and isinstance(target.value, ast.Name) and target.value.id == "self") \
                        or (isinstance(target, ast.Name) and target.id == "automatic_optimization"):
                    return True
    return False


def _stepped_per_lightning_micro_batch(ctx: FileContext, e: Event, sched: Obj, loop: Loop,
                                       own: list[Cond], updates: list[Event]
                                       ) -> Diagnostic | None:
    """A LightningModule in automatic optimization steps a scheduler it keeps by hand in a
    batch hook (``on_train_batch_start``, ``training_step``, ...), which Lightning calls on
    every batch, while the project builds its ``Trainer`` with ``accumulate_grad_batches``:
    Lightning then steps the optimizer once every that many batches, and the scheduler runs
    ahead of the updates. Silent when the step has a test of its own other than a choice of
    option or a phase of training (``if (batch_idx + 1) % k == 0:``), when the schedule is
    counted in loader batches (sized per micro-batch by design), when Lightning steps the
    scheduler itself as well (returned from ``configure_optimizers``: reported as a second
    stepper), or when no such Trainer is found."""
    if not updates or not all(u.kind == "opt_step" and u.info.get("lightning_module")
                              for u in updates):
        return None
    if e.info.get("per_update"):
        return None  # stepped in an optimizer_step override: Lightning calls it per update
    if any(x.kind == "lightning_sched_step" and x.obj is sched for x in ctx.program.events):
        return None  # Lightning steps it too: stepped_by_lightning_too's shape (LRD012)
    if any(not (_tests_existence(c, e) or _picks_phase_or_option(c, loop, sched)
                or _phase_window(c)) for c in own):
        return None
    if _contradicts_build(list(e.conds), sched) or _sized_in_micro_batches(sched, set()):
        return None
    if _manual_optimization(ctx, updates[0]):
        return None  # Lightning refuses `accumulate_grad_batches` other than 1 there
    module_path, class_name = updates[0].info["lightning_module"]
    found = lightning_accumulation(module_path, class_name)
    if found is None:
        return None
    where, line, value = found
    return Diagnostic.at(
        "LRD017",
        f"`{receiver(e)}.step()` runs on every training batch Lightning hands `{class_name}`, "
        f"but its Trainer ({display_path(where)}:{line}) accumulates gradients "
        f"(`accumulate_grad_batches={short_source(value)}`), so the optimizer steps only once "
        "every that many batches: the schedule advances once per micro-batch, faster than "
        "the updates it is meant to follow; return it from `configure_optimizers` with "
        "`\"interval\": \"step\"` (Lightning steps it per update) or step it in "
        "`optimizer_step`",
        e.path,
        e.node,
    )


def _own_counter(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    """The attribute a method advances on every call (``self.n_steps += 1`` in its body, not
    under a test of its own): a hand-written scheduler's step count. "" when it has none."""
    if not fn.args.args:
        return ""
    me = fn.args.args[0].arg
    for stmt in fn.body:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) \
                and isinstance(stmt.target, ast.Attribute) \
                and isinstance(stmt.target.value, ast.Name) and stmt.target.value.id == me:
            return stmt.target.attr
    return ""


def _counting_lr_writers(ctx: FileContext
                         ) -> Iterator[tuple[ast.Call, Event, Loop, str, list[Cond]]]:
    """(the call, an LR write it made, the batch loop around the call, the counter, the
    conditions the call runs under inside that loop): a method of the project's own, called
    on an object, that advances a counter of its own on every call and writes the optimizer's
    LR (a hand-written scheduler: ``Noam.step()`` with ``self.n += 1`` and ``group['lr'] =
    f(self.n)``). Each call advances the schedule by one, whatever the class is called; a
    function handed the position (``adjust_lr(opt, epoch + i / n)``) advances nothing."""
    seen: set[tuple[int, int]] = set()
    stepped = {id(e.node) for e in ctx.program.events if e.kind == "sched_step"}
    for w in ctx.program.events:
        frame = w.frame
        if w.kind != "lr_write" or w.obj is None or frame is None or frame.fn is None \
                or frame.call is None or not isinstance(frame.call.func, ast.Attribute) \
                or id(frame.call) in stepped:
            continue
        counter = _own_counter(frame.fn)
        if not counter:
            continue
        loop = w.loop
        while loop is not None and loop.path == frame.path and holds_line(frame.fn, loop.node):
            loop = loop.parent  # a loop over the param groups inside the method
        if loop is None or loop.granularity != "batch":
            continue
        key = (id(frame.call), loop.id)
        if key in seen:
            continue
        seen.add(key)
        own = [c for c in w.conds_inside(loop)
               if not (c.key[0] == frame.path and c.test is not None
                        and holds_line(frame.fn, c.test))]
        yield frame.call, w, loop, counter, own


@rule("LRD017")
def scheduler_per_microbatch(ctx: FileContext) -> Iterator[Diagnostic]:
    for first, second, update in _stepped_twice(ctx):
        gran, loop = granularity(second)
        assert loop is not None
        yield Diagnostic.at(
            "LRD017",
            f"`{receiver(second)}.step()` runs here and again at "
            f"{line_at(first.path, first.line, second.path)} in one pass "
            f"through {_loop_where(loop, second.path)}, while its optimizer steps once "
            f"({line_at(update.path, update.line, second.path)}): "
            "the schedule advances twice per update (one sized in updates is spent halfway "
            "through training)",
            second.path,
            second.node,
        )
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        if not _plain_step(e) or project_constant(sched):
            continue
        gran, loop = granularity(e)
        if gran != "batch" or loop is None:
            continue
        # (`if scheduler is not None:` asks only whether it exists; its meaning spells out
        # the scheduler's construction, whose horizon may name the accumulation count)
        own = [c for c in e.conds_inside(loop) if not _tests_existence(c, e)]
        if any(_accumulation(c.meaning) for c in own):
            continue
        updates = ctx.updates_in(loop, e.root, sched.optimizer)
        if not updates:
            continue
        lightning = _stepped_per_lightning_micro_batch(ctx, e, sched, loop, own, updates)
        if lightning is not None:
            yield lightning
            continue
        with_updates = {(c.key, c.branch) for u in updates for c in u.conds}
        private = [c for c in own if (c.key, c.branch) not in with_updates]
        if any(not _guard_same_every_pass(ctx, c, loop)
               and not _holds_on_the_first_outer_pass(ctx, c, loop, e) for c in private):
            continue  # a guard of its own (`if is_last_batch:`): not every micro-batch
        # a guard that holds the same on every pass (`if CFG.batch_scheduler:`, a setting
        # nothing in the loop changes) steps it every micro-batch whenever it holds
        when = " and ".join(_holds(c) for c in private)
        when = f"When `{when}`, " if private and len(when) <= 80 else ""
        # inside `accumulate()` the prepared optimizer updates only on the micro-batches that
        # sync; the scheduler steps on every call when it was not prepared, or when the
        # Accelerator was built with `step_scheduler_with_optimizer=False`
        runner, prepared = _unprepared_under_accumulate(sched, updates), False
        if runner is None or _prepare_may_take(ctx.tree, sched):
            runner, prepared = _prepared_under_accumulate(sched, updates), True
            if runner is not None and not runner.scheduler_unsynced:
                runner = None
        if runner is not None:
            count = runner.accumulation
            assert count is not None
            counts = {count.id} if isinstance(count, ast.Name) else set()
            if not _sized_in_micro_batches(sched, counts):
                yield Diagnostic.at("LRD017", _every_micro_batch(e, loop, updates[0], count,
                                                                 prepared), e.path, e.node)
            continue
        guards = []
        for u in updates:
            guard = next((c for c in u.conds_inside(loop)
                          if _accumulation(c.meaning) and not _every_pass(c)
                          and not _all_but_periodic(c)
                          and not ("trainer.accumulate_grad_batches" in c.text
                                   and _manual_optimization(ctx, u))), None)
            if guard is None:
                break
            guards.append((u, guard))
        else:
            u, guard = guards[0]
            if _sized_in_micro_batches(sched, _guard_counts(guard)):
                continue
            if _accumulates_nothing(guard, loop, sched, e.path):
                continue
            lead = f"{when}`{receiver(e)}.step()`" if when else f"`{receiver(e)}.step()`"
            yield Diagnostic.at(
                "LRD017",
                f"{lead} runs every micro-batch in {_loop_where(loop, e.path)}, but "
                f"the optimizer steps only when `{_holds(guard)}` "
                f"({line_at(u.path, u.line, e.path)}): the schedule "
                "advances once per micro-batch, faster than the updates it is meant to follow",
                e.path,
                e.node,
            )
    yield from _stepped_per_inner_micro_batch(ctx)
    for call, w, loop, counter, own in _counting_lr_writers(ctx):
        if any(_accumulation(c.meaning) for c in own):
            continue
        updates = ctx.updates_in(loop, w.root, w.obj)
        if not updates:
            continue
        with_updates = {(c.key, c.branch) for u in updates for c in u.conds}
        if any((c.key, c.branch) not in with_updates for c in own):
            continue  # a guard of its own: not every micro-batch
        found = [next((c for c in u.conds_inside(loop) if _accumulation(c.meaning)
                       and not _all_but_periodic(c)), None)
                 for u in updates]
        if any(g is None for g in found):
            continue
        guard = found[0]
        assert guard is not None
        method = ast.unparse(call.func)
        yield Diagnostic.at(
            "LRD017",
            f"`{method}()` runs every micro-batch in {_loop_where(loop, loop.path)}, but the "
            "optimizer "
            f"steps only when `{_holds(guard)}` (line {updates[0].line}): each call advances "
            f"its own count (`{counter}`) and writes the LR from it, so the schedule advances "
            "once per micro-batch, faster than the updates it is meant to follow",
            loop.path,
            call,
        )



def _accumulates_nothing(guard: Cond, loop: Loop, sched: Obj, path: str) -> bool:
    """The accumulation count the guard divides by is 1 as the program states it: bound to
    the literal, or a setting whose stated value is 1 (an option's default, a config
    constant or a config class's field, also handed in to the function that loops), and no
    launch script or doc of the project runs it with more. Then every micro-batch is an
    update, and a scheduler stepped on each of them follows the updates (the same reading
    as horizon_in_micro_batches')."""
    count = _accumulation_divisor(guard)
    if count is None:
        return False
    bound = _number(count, sched.scope, 0)
    if bound is not None:
        return bound <= 1
    stated, word = _stated_count(count, loop.scope, sched.scope)
    return stated is not None and stated[1] is not None and stated[1] <= 1 \
        and launched_above(path, word) is None


def _stepped_per_inner_micro_batch(ctx: FileContext) -> Iterator[Diagnostic]:
    """Accumulation written as a loop of its own (``for micro in range(accum):`` drawing a
    batch, running the forward and ``backward()``), inside a loop whose every pass then makes
    one update (``scaler.step(optimizer)`` after the inner loop): a ``scheduler.step()``
    inside the inner loop runs once per micro-batch, ``accum`` times per update, where the
    batch rule, which looks for an update under an accumulation test in the step's own loop,
    sees no loop of updates at all. Only when the inner loop backpropagates (gradients summed
    over its passes for the one update after it), the optimizer's updates in the outer loop
    all run after it, every pass (no test of their own inside the outer loop), the step has
    no test of its own in the inner loop (``if micro == accum - 1:`` steps once per update),
    the inner loop is not known to make a single pass, and the schedule is not sized in
    micro-batches (``max_iters * accum``)."""
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        inner = e.loop
        if not _plain_step(e) or project_constant(sched) or inner is None \
                or inner.granularity == "batch" or inner.passes == 1:
            continue
        outer = inner.parent
        if outer is None or outer.granularity != "batch":
            continue
        own = [c for c in e.conds_inside(inner) if not _tests_existence(c, e)]
        if own:
            continue
        events = ctx.events_by_root.get(e.root, [])
        backward = next((b for b in events if b.kind in ("backward", "scale_backward")
                         and b.in_loop(inner) and b.loop is inner), None)
        if backward is None:
            continue
        updates = ctx.updates_in(outer, e.root, sched.optimizer)
        if not updates or any(u.in_loop(inner) for u in updates) \
                or any(u.order < e.order for u in updates):
            continue
        if any(not _every_pass(c) for u in updates for c in u.conds_inside(outer)
               if not _tests_existence(c, u)):
            continue
        counts = {n.id for n in ast.walk(inner.node.iter) if isinstance(n, ast.Name)} \
            if isinstance(inner.node, (ast.For, ast.AsyncFor)) else set()
        if _sized_in_micro_batches(sched, counts):
            continue
        u = updates[0]
        yield Diagnostic.at(
            "LRD017",
            f"`{receiver(e)}.step()` runs on every pass of the loop over `{inner.over}` "
            f"({line_at(inner.path, inner.line, e.path)}), which accumulates gradients "
            f"(`backward()` at {line_at(backward.path, backward.line, e.path)}) for the one "
            f"update after it ({line_at(u.path, u.line, e.path)}) on each pass of "
            f"{_loop_where(outer, e.path)}: the schedule advances once per micro-batch, "
            "several times per update, faster than the updates it is meant to follow",
            e.path,
            e.node,
        )

def _guard_same_every_pass(ctx: FileContext, c: Cond, loop: Loop) -> bool:
    """Whether the test of ``c`` comes out the same on every pass of ``loop``, and holds: it
    reads only names and attributes (no call, no remainder, no item picked by a variable),
    none of them the loop's own variables or a name bound in its body, no attribute it reads
    is stored anywhere but at the top of a module or class or in an ``__init__``, and the
    program states a value that makes it hold (`CFG.batch_scheduler = True` of a config
    class, a setting's default). A flag the loop itself flips (`is_last = i == n - 1`), a
    counter it advances, or a framework's per-batch attribute is not."""
    if not _guard_test_steady(ctx, c, loop):
        return False
    test = c.test
    assert test is not None
    # and the program states its value, which makes the branch run: a config class's
    # constant, a setting's default (an attribute of an object the file does not build, such
    # as a trainer's `is_last_batch`, may change under it)
    module = ctx.module_of(c.key[0])
    if module is None:
        return False
    for node in ast.walk(test):
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)) \
                and constants.resolve(node, None, module) is None \
                and not _inside_a_stated_read(node, test, module):
            return False  # a value the program does not state (a parameter, a framework's)
    return holds_first(c, {}, module) is True


def _guard_test_steady(ctx: FileContext, c: Cond, loop: Loop) -> bool:
    """The first half of `_guard_same_every_pass`: the test of ``c`` comes out the same on
    every pass of ``loop`` (no call, no remainder, nothing the loop binds or a method stores
    later), whether or not it holds."""
    test = c.test
    if test is None or c.periodic:
        return False
    bound = set(loop.targets) | set(loop.counters)
    for node in ast.walk(loop.node):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) \
                and isinstance(node.ctx, (ast.Store, ast.Del)):
            root = read_root(node)
            if root is not None:
                bound.add(root)  # `cfg["per_batch"] = ...` in the loop changes what `cfg` holds
    reads: set[str] = set()
    for node in ast.walk(test):
        if isinstance(node, (ast.Call, ast.Await, ast.NamedExpr, ast.Lambda, ast.BinOp)):
            return False
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        if isinstance(node, ast.Name) and node.id in bound:
            return False
        if isinstance(node, ast.Attribute):
            reads.add(node.attr)
    tree = ctx.tree_of(c.key[0])
    return not (tree is None or (reads and _stored_later(tree, reads)))


def _holds_on_the_first_outer_pass(ctx: FileContext, c: Cond, loop: Loop, e: Event) -> bool:
    """A guard of a step in the batch loop ``loop`` that comes out the same on every pass of
    it and holds on the first pass of the loops around it: ``if epoch < 3:`` (a warm-up
    window) with ``epoch`` the variable of an enclosing ``for epoch in range(n)``, or a
    parameter the call running the guard was handed that variable for (``run_epoch(...,
    epoch)`` inside the caller's epoch loop). On that first outer pass the step runs on every
    batch of ``loop``. Parts of an ``and`` that only ask whether the stepped object exists
    (``warmup is not None``) are read as holding. The test is read with what the enclosing
    loops start from and the file's own settings; a name it cannot tell leaves it unknown
    (silent)."""
    if c.branch != 0 or c.test is None or not _guard_test_steady(ctx, c, loop):
        return False
    outer = [lp for lp in loop.ancestors() if lp is not loop]
    if not outer:
        return False
    env = first_values(outer)
    frame = e.frame_at(c.key[0], c.key[1])
    if frame is not None and frame.fn is not None:
        # the callee's parameters hide the caller's names: a parameter stands for what the
        # call handed it, known only when that is an enclosing loop's variable
        for arg in parameters_of(frame.fn):
            env.pop(arg.arg, None)
        # and so do the names it binds itself, but for the enclosing loops' own variables
        headers = {id(n) for lp in outer if isinstance(lp.node, (ast.For, ast.AsyncFor))
                   for n in ast.walk(lp.node.target)}
        for node in ast.walk(frame.fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) \
                    and id(node) not in headers:
                env.pop(node.id, None)
        for param, (holder, name) in _fed_by_outer_loops(e, c, loop).items():
            value = first_values([holder]).get(name)
            if value is not None:
                env[param] = value
    parts = c.test.values if isinstance(c.test, ast.BoolOp) \
        and isinstance(c.test.op, ast.And) else [c.test]
    rest = [p for p in parts if not _tests_existence(Cond(c.key, 0, p, c.loop), e)]
    if not rest or not any(isinstance(n, ast.Name) and n.id in env
                           for p in rest for n in ast.walk(p)):
        return False  # nothing the enclosing loops tell: a setting, left to the rule above
    module = ctx.module_of(c.key[0])
    rest = [_instance_values(p, loop.scope, module) for p in rest]
    return all(holds_first(Cond(c.key, 0, p, c.loop), env, module) is True for p in rest)


def _instance_values(test: ast.expr, scope: Any, module: Any) -> ast.expr:
    """``test`` with each ``self.<attr>`` the instance holds as one stated number written as
    that number (``epoch < self.warm_epochs`` after ``self.warm_epochs = warm_epochs`` in
    ``__init__``, the parameter left at its default 3, reads ``epoch < 3``); ``test`` itself
    when it reads none."""
    if scope is None or module is None:
        return test
    known: dict[int, Any] = {}
    for node in ast.walk(test):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id == "self":
            value = constants.resolve(node, scope, module)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                known[id(node)] = value
    if not known:
        return test
    memo: dict[int, Any] = {}
    copied = copy.deepcopy(test, memo)  # memo: each node's id -> its copy
    put = {id(memo[k]): v for k, v in known.items()}

    class _Put(ast.NodeTransformer):
        def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
            if id(node) in put:
                return ast.copy_location(ast.Constant(put[id(node)]), node)
            return self.generic_visit(node)

    result = _Put().visit(copied)
    return result if isinstance(result, ast.expr) else test


def _fed_by_outer_loops(e: Event, c: Cond, loop: Loop) -> dict[str, tuple[Loop, str]]:
    """The parameters of the function whose body holds the test of ``c`` that the traced call
    running it (the one ``e`` happened in) was handed the variable of a loop around ``loop``
    for, with that loop and its variable: ``one_epoch(..., k)`` inside ``for k in range(n)``
    makes the parameter ``ep`` of ``def one_epoch(..., ep)`` that loop's index, whatever the
    two names are."""
    frame = e.frame_at(c.key[0], c.key[1])
    if frame is None or frame.fn is None or frame.call is None:
        return {}
    call = frame.call
    outer = [lp for lp in loop.ancestors() if lp is not loop]
    fed: dict[str, tuple[Loop, str]] = {}
    for param in (p.arg for p in parameters_of(frame.fn)
                  if p is not frame.fn.args.vararg and p is not frame.fn.args.kwarg):
        arg = frame.argument(param)
        if not isinstance(arg, ast.Name):
            continue
        holder = next((lp for lp in outer if arg.id in lp.targets
                       and lp.path == frame.call_path
                       and lp.node.lineno <= call.lineno
                       <= (lp.node.end_lineno or lp.node.lineno)), None)
        if holder is not None:
            fed[param] = (holder, arg.id)
    return fed




def _inside_a_stated_read(node: ast.AST, test: ast.expr, module: Any) -> bool:
    """``node`` is part of a longer read in ``test`` whose value the program states (`CFG`
    and `CFG.batch_scheduler`: the class alone is no value, its constant is)."""
    return any(isinstance(outer, (ast.Attribute, ast.Subscript)) and outer.value is node
               and (constants.resolve(outer, None, module) is not None
                    or _inside_a_stated_read(outer, test, module))
               for outer in ast.walk(test))


def _stored_later(tree: ast.AST, attrs: set[str]) -> bool:
    """An attribute of ``attrs`` is stored inside a function other than ``__init__``."""
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.name == "__init__":
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and node.attr in attrs:
                return True
            if isinstance(node, ast.Call) and dotted(node.func) == "setattr":
                return True
    return False


def _stated_count(count: ast.expr, where: Any, fallback: Any
                  ) -> tuple[tuple[str, float | None, str] | None, str]:
    """The value the program states for an accumulation count (``stated_setting``), read
    where the guard reads it (``where``, the loop's function) and followed through the
    parameters it was handed in by (``accum`` <- ``args.gradient_accumulation_steps`` at the
    call), with the name of the setting it comes from (``gradient_accumulation_steps``)."""
    chain: list[tuple[ast.expr, Any]] = [(count, where if where is not None else fallback)]
    for _ in range(4):
        node, scope = chain[-1]
        if not isinstance(node, ast.Name) or scope is None:
            break
        value = scope.lookup(node.id)
        if isinstance(value, ExprVal):
            chain.append((value.node, value.scope))
            continue
        found = scope.source_of(node.id)
        if found is None:
            break
        chain.append(found)
    stated = next((found for node, scope in chain
                   if (found := stated_setting(node, scope)) is not None), None)
    if stated is None:
        stated = stated_setting(count, fallback)
    word = ""
    for node, _ in reversed(chain):
        if isinstance(node, ast.Attribute):
            word = node.attr
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            word = node.slice.value
        elif isinstance(node, ast.Name):
            word = node.id
        if word:
            break
    return stated, word


def _accumulation_divisor(guard: Cond) -> ast.expr | None:
    """The count an accumulation guard divides by: ``accum`` in ``(i + 1) % accum == 0``, also
    read through the names the test is spelled with (``if update:`` after ``update = (i + 1) %
    accum == 0``) and in a counter's period (``k`` of ``if seen == k: ...; seen = 0``, see
    Cond.origins)."""
    if guard.test is None:
        return None
    return next((node.right for part in (guard.test, *guard.origins) for node in ast.walk(part)
                 if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod)), None)


@rule("LRD003")
def horizon_in_micro_batches(ctx: FileContext) -> Iterator[Diagnostic]:
    """The scheduler steps with its optimizer, once per update under the gradient-accumulation
    test, but its horizon counts loader batches (``epochs * len(loader)`` with no division by
    the accumulation count): each update is one step of a schedule sized for every
    micro-batch, so training ends after 1/accum of its course (a warm-up accum times longer,
    a decay that never finishes). LRD017's mirror: there the scheduler runs ahead of the
    updates, here it lags behind its own horizon."""
    for e in _sched_steps(ctx):
        sched = e.obj
        assert sched is not None
        if not _plain_step(e) or e.info.get("engine") or sched.guessed or sched.in_composite \
                or sched.project is not None or sched.cls == "ReduceLROnPlateau" \
                or project_constant(sched) or _never_ends(sched):
            continue
        gran, loop = granularity(e)
        if gran != "batch" or loop is None:
            continue
        updates = ctx.updates_in(loop, e.root, sched.optimizer)
        if not updates:
            continue
        own = e.conds_inside(loop)
        with_updates = {(c.key, c.branch) for u in updates for c in u.conds}
        if any((c.key, c.branch) not in with_updates and not _tests_existence(c, e) for c in own):
            continue  # a test of its own: not stepped with every update
        accelerator = _prepared_under_accumulate(sched, updates)
        if accelerator is not None:
            if accelerator.scheduler_unsynced:
                # `Accelerator(step_scheduler_with_optimizer=False)`: the prepared scheduler
                # steps on every micro-batch, so a horizon in micro-batches is the right one
                continue
            if pinned_before(e.path, "accelerate", (0, 16)):
                # Accelerate before 0.16 stepped a prepared scheduler on every micro-batch, the
                # optimizer's step or not (its issue 963): a horizon in micro-batches is right
                # for a project that pins it, as diffusers' examples of 2022 did
                continue
            # Accelerate steps a prepared scheduler only when the prepared optimizer steps
            count = accelerator.accumulation
            names_of_count = {count.id} if isinstance(count, ast.Name) else set()
            where = ("inside `accumulate()`, where Accelerate (0.16 and later) steps a prepared "
                     "scheduler only with the real updates, once per process")
        else:
            guard = next((c for c in own if _accumulation(c.meaning) and not _every_pass(c)
                          and _accumulation_divisor(c) is not None), None)
            # stepped with the updates: every update sits under the same branch of the test
            if guard is None or not all(
                    any((c.key, c.branch) == (guard.key, guard.branch) for c in u.conds_inside(loop))
                    for u in updates):
                continue
            count = _accumulation_divisor(guard)
            names_of_count = _guard_counts(guard)
            where = f"under `{_holds(guard)}`"
        if count is None:
            continue
        # a count bound to a literal (`ACCUM = 1` at the top of the script): no accumulation
        # when it is 1, whatever the test looks like
        bound = _number(count, sched.scope, 0)
        if bound is not None and bound <= 1:
            continue
        stated, word = _stated_count(count, loop.scope, sched.scope) if bound is None \
            else (None, "")
        launched = None
        if stated is not None and stated[1] is not None and stated[1] <= 1:
            # `--accum` / `cfg.grad_accum_steps` the program states as 1 (an option's
            # default, a config constant, also handed in to the function that loops): as the
            # program states its settings no batch is accumulated, and a horizon in loader
            # batches is one in updates; unless the project's own launch scripts or docs run
            # it with more (`--gradient-accumulation-steps 4`)
            launched = launched_above(e.path, word)
            if launched is None:
                continue
        whole = horizon_of(sched)
        if whole.unit != "batch" or not _sized_in_micro_batches(
                sched, names_of_count, strict=True, trips=_trip_counts(loop)):
            continue
        shown = short_source(count)
        times = f"{bound:g}" if bound is not None else f"`{shown}`"
        when_on = "" if bound is not None else f"when `{shown}` > 1, "
        if launched is not None:
            when_on = (f"when `{shown}` > 1 (its default is 1, but "
                       f"{display_path(launched[0])} runs it with `{launched[1]}`), ")
        # on N processes Accelerate steps it N times per update: N/accum of it
        on_one, on_n = (" on one process", f"N/{times} on N processes; ") \
            if accelerator is not None else ("", "")
        yield Diagnostic.at(
            "LRD003",
            f"{label(sched, whole)} is stepped once per update here ({where}), "
            f"but its horizon counts loader batches (`{whole.source}`, one per micro-batch): "
            f"{when_on}training{on_one} ends after 1/{times} of the schedule ({on_n}the warm-up "
            f"lasts {times} times longer, the decay never finishes); size it in updates "
            f"(`len(loader) // {shown}` per epoch)",
            e.path,
            e.node,
            evidence={"horizon": whole.source, "loop_line": loop.line},
        )


# timm's schedulers whose horizon is their first argument after the optimizer
_TIMM_HORIZON_PARAM = {
    "CosineLRScheduler": "t_initial", "TanhLRScheduler": "t_initial",
    "PolyLRScheduler": "t_initial", "StepLRScheduler": "decay_t",
}


def _timm_steps_without_update(ctx: FileContext, classes: Any
                               ) -> tuple[dict[int, list[Event]], set[int]] | None:
    """The timm schedulers of ``classes`` this file steps with ``step()`` (their step events
    here, by scheduler) and those the trace saw stepped with ``step_update`` too; None when
    the file steps none, or some module of the project (or one lrdoctor cannot see) may call
    ``step_update``: that call may be the one that drives them."""
    steps: dict[int, list[Event]] = {}
    updated: set[int] = set()
    for e in ctx.program.events:
        sched = e.obj
        if sched is None or sched.origin != "timm" or sched.cls not in classes:
            continue
        if e.kind == "sched_step_update":
            updated.add(sched.id)
        elif e.kind == "sched_step" and e.path == ctx.path:
            steps.setdefault(sched.id, []).append(e)
    if not steps or "step_update" in ctx.source:
        return None
    loader = ctx.loader
    calling = loader.calling_modules(ctx.path, "step_update") if loader is not None else None
    if calling is None or calling:
        return None
    return steps, updated


@rule("LRD003")
def timm_epochs_counted_in_batches(ctx: FileContext) -> Iterator[Diagnostic]:
    """A timm scheduler counted in epochs (``t_in_epochs`` left at its default True, or a
    literal True) whose horizon is computed from the loader's length (``t_initial=epochs *
    len(train_loader)``), stepped only with ``step(epoch)`` once per epoch: timm reads the
    epoch against a horizon of batches, so the schedule covers ``len(loader)`` times more
    epochs than the run has and the LR barely leaves its warm-up or start. Judged only where
    the horizon's unit rests on what it is computed from (a ``len(...)`` of the loader), every
    step of the scheduler in the file runs in an epoch loop, and no file of the project calls
    ``step_update`` (a call the trace did not follow may be the one)."""
    found = _timm_steps_without_update(ctx, _TIMM_HORIZON_PARAM)
    if found is None:
        return
    steps, updated = found
    for sched_id, events in steps.items():
        if sched_id in updated:
            continue
        sched = events[0].obj
        assert sched is not None
        flag = sched.arg("t_in_epochs", 99)
        if flag is not None and constants.resolve(flag, sched.scope) is not True:
            continue
        if any(granularity(e)[0] != "epoch" or not _plain_or_epoch_step(e) for e in events):
            continue
        param = _TIMM_HORIZON_PARAM[sched.cls]
        given = sched.arg(param, 1)
        if given is None:
            continue
        unit, _, evidence = unit_evidence(given, sched.scope)
        if unit != "batch" or evidence != "flow":
            continue
        e = min(events, key=lambda ev: (ev.line, ev.col))
        built = line_at(sched.path, sched.line, e.path)
        yield Diagnostic.at(
            "LRD003",
            f"timm's {sched.cls} ({built}) counts its horizon in epochs (t_in_epochs is True), "
            f"but `{param}={short_source(given)}` is a number of batches; "
            f"`{receiver(e)}.step(...)` runs once per epoch, so the schedule is sized for "
            "len(loader) times more epochs than the run has and the LR barely moves from its "
            "start (build it with t_in_epochs=False and call step_update(num_updates) every "
            "update, or size it in epochs)",
            e.path,
            e.node,
            evidence={"horizon": short_source(given)},
        )


def _plain_or_epoch_step(e: Event) -> bool:
    """``step()`` or ``step(<one argument>)`` (timm's step takes the epoch, and a metric)."""
    node = e.node
    return isinstance(node, ast.Call) and len(node.args) + len(node.keywords) <= 2


def _yaml_origin(sched: Obj, h: Horizon) -> str:
    """The YAML file that states the horizon's value when the argument reads a setting
    loaded from one (``step_size=cfg["step_size"]``, ``step_size: 30`` in a config file the
    program loads); "" otherwise."""
    if sched.call is None or sched.scope is None or not h.param:
        return ""
    given = next((k.value for k in sched.call.keywords if k.arg == h.param), None)
    if given is None:
        given = next((a for a in sched.call.args if ast.unparse(a) == h.source), None)
    return constants.yaml_origin(given, sched.scope.module)


# -- LRD003: a timm scheduler counted in updates that is only stepped per epoch ---------------

# timm's scheduler classes: `step(epoch)` moves the LR only when built with t_in_epochs=True
# (the default), `step_update(num_updates)` only when built with t_in_epochs=False
_TIMM_SCHEDULER_CLASSES = frozenset({
    "CosineLRScheduler", "StepLRScheduler", "MultiStepLRScheduler", "PolyLRScheduler",
    "TanhLRScheduler", "PlateauLRScheduler",
})


@rule("LRD003")
def timm_updates_never_stepped(ctx: FileContext) -> Iterator[Diagnostic]:
    """A timm scheduler built with ``t_in_epochs=False`` (its horizon counted in optimizer
    updates, as Swin-style ``build_scheduler`` sizes ``t_initial=epochs * n_iter_per_epoch``)
    that the program steps with ``step(epoch)`` and never with ``step_update(num_updates)``:
    timm's ``step()`` leaves the LR alone for such a scheduler, so the LR keeps the value it
    was built with (``warmup_lr_init`` where there is a warm-up) for the whole run. Judged only
    where ``t_in_epochs`` is a literal False (or a name the program fixes to it) and no file of
    the project calls ``step_update`` (a call the trace did not follow may be the one)."""
    found = _timm_steps_without_update(ctx, _TIMM_SCHEDULER_CLASSES)
    if found is None:
        return
    steps, updated = found
    for events in steps.values():
        sched = events[0].obj
        assert sched is not None
        if sched.id in updated:
            continue
        flag = sched.arg("t_in_epochs", 99)
        if flag is None or constants.resolve(flag, sched.scope) is not False:
            continue
        e = min(events, key=lambda ev: (ev.line, ev.col))
        built = line_at(sched.path, sched.line, e.path)
        yield Diagnostic.at(
            "LRD003",
            f"timm's {sched.cls} ({built}) is built with t_in_epochs=False, so its horizon "
            f"counts optimizer updates and only `step_update(num_updates)` moves the LR; "
            f"`{receiver(e)}.step(...)` is the only call it gets, and timm's step() leaves "
            "the LR of such a scheduler alone: the LR keeps the value it was built with "
            "(the warm-up's first value) for the whole run",
            e.path,
            e.node,
        )
