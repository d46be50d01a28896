"""A horizon that counts batches twice over: LRD010 (schedule-overrun), statically.

``len(loader)`` is already a number of batches: a DataLoader's length is its dataset's length
divided by its batch size. A horizon written ``len(loader) // batch_size * epochs`` (with the
loader's own batch size) divides by the batch size a second time, so a scheduler stepped after
every batch runs through its whole horizon in about 1/batch_size of the training and is then
stepped past it: OneCycleLR raises, a cosine climbs back up, a linear decay sits at zero for the
rest of the run. ``len(loader.dataset) // batch_size`` and ``len(dataset) // batch_size`` are
the correct spellings of the same count and are left alone: only the length of an object known
to be a DataLoader, divided by the very expression that loader was given as its batch size,
is reported.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any

from lrdoctor.check import constants
from lrdoctor.check.context import FileContext, granularity
from lrdoctor.check.diagnostic import Diagnostic
from lrdoctor.check.horizon import (
    HF_STEPS_INDEX,
    LITERAL_JUDGED,
    SMALL_LITERAL,
    literal_value,
    short_source,
    unit_of,
)
from lrdoctor.check.index import Scope, dotted, main_guard, origin
from lrdoctor.check.memo import per_node
from lrdoctor.check.model import Cond, Event, Loop, exclusive
from lrdoctor.check.project import line_at
from lrdoctor.check.rules import rule
from lrdoctor.check.values import Const, ExprVal, Obj, UnionVal
from lrdoctor.schedulers import SCHEDULERS, recomputes_lr

# torch schedulers whose horizon ends the schedule (stepping past it is an overrun), with the
# parameter that sizes it and its position
_ENDING = {
    "OneCycleLR": (("total_steps", 2), ("steps_per_epoch", 4)),
    "CosineAnnealingLR": (("T_max", 1),),
    "PolynomialLR": (("total_iters", 1),),
    "LinearWarmupCosineAnnealingLR": (("max_epochs", 2),),
}
# Hugging Face builders whose num_training_steps ends the schedule
_HF_ENDING = frozenset(
    {"get_scheduler", "get_linear_schedule_with_warmup", "get_cosine_schedule_with_warmup",
     "get_polynomial_decay_schedule_with_warmup", "get_cosine_with_hard_restarts_schedule_with_warmup",
     "get_wsd_schedule"}
)
_DEPTH = 8


def _horizon_args(sched: Obj) -> Iterator[tuple[str, ast.expr]]:
    if sched.origin == "hf":
        if sched.cls in _HF_ENDING:
            expr = sched.arg("num_training_steps", HF_STEPS_INDEX.get(sched.cls, 2))
            if expr is not None:
                yield "num_training_steps", expr
        return
    if sched.origin != "torch":
        return
    for param, index in _ENDING.get(sched.cls, ()):
        expr = sched.arg(param, index)
        if expr is not None:
            yield param, expr


def _resolved(expr: ast.expr, scope: Scope | None, passed: bool = False
              ) -> tuple[ast.expr, Scope | None]:
    """``expr`` with a bare name replaced by the expression it was bound to (a few levels);
    with ``passed``, a builder's parameter by the argument its caller gave it (read where a
    horizon is judged by its form: ``T - k``, ``N / E``)."""
    return origin(expr, scope, _DEPTH, passed=passed)


def _loader(expr: ast.expr, scope: Scope | None, built: bool = True) -> Obj | None:
    """The DataLoader that ``expr`` (the argument of ``len``) names, built with a visible call
    (with ``built`` False, any object the trace holds as a loader: one a project helper
    returns, from a module not in view)."""
    value = _held(expr, scope)
    options = value.options if isinstance(value, UnionVal) else [value]
    loaders = [o for o in options if isinstance(o, Obj) and o.kind == "loader"]
    if len(loaders) != 1 or len(options) != 1:
        return None
    loader = loaders[0]
    return loader if not built or _built_in_view(loader) else None


def _built_in_view(loader: Obj) -> bool:
    """Whether ``loader`` comes from a visible ``DataLoader(...)`` call."""
    return loader.call is not None and (dotted(loader.call.func) or "").endswith("DataLoader")


def _same_value(a: ast.expr, a_scope: Scope | None, b: ast.expr, b_scope: Scope | None,
                literals: bool = False) -> bool:
    """Whether two expressions are the same value as written (``args.batch_size`` twice, or a
    name bound to it); two equal literals only with ``literals``."""
    forms_a = {ast.dump(a), ast.dump(_resolved(a, a_scope)[0])}
    forms_b = {ast.dump(b), ast.dump(_resolved(b, b_scope)[0])}
    if forms_a & forms_b:
        # a literal divisor equal to a literal batch size is a coincidence too weak to report
        return literals or not all(isinstance(x, ast.Constant) for x in (a, b))
    return False


def _shares_only_a_literal(divisor: ast.expr, d_scope: Scope | None, size: ast.expr,
                           s_scope: Scope | None) -> bool:
    """Whether a divisor written as a name (or another expression, not a literal) meets the
    loader's batch size only in the literal both hold: ``accum = 4`` beside ``DataLoader(ds,
    batch_size=4)``, or two names bound to the same number. Such a divisor is another
    quantity (an accumulation factor) that happens to equal the batch size, not the batch
    size the loader was given; the same name in both places, or a literal divisor beside a
    named batch size, is still the batch size."""
    if isinstance(divisor, ast.Constant) or ast.dump(divisor) == ast.dump(size):
        return False
    return all(isinstance(_resolved(x, s)[0], ast.Constant)
               for x, s in ((divisor, d_scope), (size, s_scope)))


def _len_of_loader(expr: ast.expr, scope: Scope | None, built: bool = True
                   ) -> tuple[Obj, ast.Call] | None:
    expr, scope = _resolved(expr, scope)
    while isinstance(expr, ast.Call) and dotted(expr.func) in ("int", "math.floor", "math.ceil",
                                                                "float", "round") and expr.args:
        expr, scope = _resolved(expr.args[0], scope)
    if isinstance(expr, ast.Call) and dotted(expr.func) == "len" and len(expr.args) == 1:
        loader = _loader(expr.args[0], scope, built)
        if loader is not None:
            return loader, expr
    return None


# wrappers around a loader in a batch loop's header: `enumerate(tqdm(loader))`
_LOADER_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm_notebook", "iter"})


def _iterates_loader(loop: Loop, loader: Obj, length: ast.Call) -> bool:
    """Whether ``loop`` runs over the loader whose ``len()`` (``length``) sizes a horizon, so
    that the horizon counts the loop's passes: a DataLoader built in view, written the same
    way in both places (``for x in train_dl`` beside ``len(train_dl)``), or an expression
    that, where the loop runs, stands for that same object (a function's parameter bound to
    the caller's loader, through ``enumerate(...)``, a progress bar or a name bound to one):
    whatever it is, ``len()`` of what a loop iterates is that loop's count of passes."""
    over = loop.over_node
    if over is None:
        return False
    if _built_in_view(loader) and any(ast.dump(n) == ast.dump(length.args[0])
                                      for n in ast.walk(over)):
        return True
    return _iterated_loader(loop, held_first=False) is loader


def _double_division(expr: ast.expr, scope: Scope | None, depth: int = 0
                     ) -> tuple[ast.BinOp, Obj, ast.expr, Scope | None] | None:
    """A ``len(loader) / batch_size`` inside ``expr`` (following names), with the loader's own
    batch size as the divisor."""
    if depth > _DEPTH:
        return None
    expr, scope = _resolved(expr, scope)
    for node in ast.walk(expr):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv)):
            found = _len_of_loader(node.left, scope)
            if found is not None:
                loader, _ = found
                size = loader.arg("batch_size", 1)
                if size is not None and _same_value(node.right, scope, size, loader.scope) \
                        and not _shares_only_a_literal(node.right, scope, size, loader.scope):
                    return node, loader, node.right, scope
        if node is not expr and isinstance(node, ast.Name):
            inner = _double_division(node, scope, depth + 1)
            if inner is not None:
                return inner
    return None


def _consequence(sched: Obj) -> str:
    kind = SCHEDULERS.get(sched.cls) if sched.origin == "torch" else None
    if kind is not None and kind.overrun == "crash":
        return "OneCycleLR raises `Tried to step ... times` once stepped past total_steps"
    if kind is not None and kind.overrun == "rises":
        return f"past {kind.horizon_params[0][0]} the cosine climbs back up towards the initial LR"
    return "the LR reaches the end of its schedule early and stays there (or climbs back, for a cosine)"


def _ending_batch_steps(ctx: FileContext) -> Iterator[tuple[Event, Obj, str, ast.expr | None]]:
    """(step, scheduler, its horizon's parameter, that parameter's expression or None) for
    each per-batch step of a scheduler whose schedule ends (a torch one of ``_ENDING``, a
    OneCycleLR sized by ``total_steps``, or one not torch's)."""
    for e, sched in _batch_steps(ctx):
        if sched.origin == "torch" and (sched.cls not in _ENDING or (
                sched.cls == "OneCycleLR" and sched.arg("total_steps", 2) is None)):
            continue
        param, horizon = next(((p, x) for p, x in _horizon_args(sched)
                               if p != "steps_per_epoch"), ("", None))
        yield e, sched, param, horizon


def _batch_steps(ctx: FileContext) -> Iterator[tuple[Event, Obj]]:
    for e in ctx.program.events:
        if e.kind != "sched_step" or e.obj is None or e.obj.guessed or e.obj.in_composite:
            continue
        if e.info.get("nargs") or e.info.get("kwargs"):
            continue
        gran, loop = granularity(e)
        if gran == "batch" and loop is not None:
            yield e, e.obj


@rule("LRD010")
def horizon_divided_by_batch_size_twice(ctx: FileContext) -> Iterator[Diagnostic]:
    seen: set[int] = set()
    for e, sched in _batch_steps(ctx):
        if sched.id in seen:
            continue
        for param, expr in _horizon_args(sched):
            found = _double_division(expr, sched.scope)
            if found is None:
                continue
            division, loader, divisor, where = found
            seen.add(sched.id)
            cls = sched.cls or sched.name or "the scheduler"
            # reported where the count is written (the fix goes there), in the file that
            # holds it; the step's line when that file is not known
            path, node = (where.module.path, division) if where is not None else (e.path, e.node)
            yield Diagnostic.at(
                "LRD010",
                f"{cls}({param}=...) is stepped after every batch "
                f"({line_at(e.path, e.line, path)}), but its "
                f"horizon divides `{ast.unparse(division.left)}` - already a number of batches - "
                f"by the loader's batch size `{ast.unparse(divisor)}` again "
                f"(`{ast.unparse(division)}`): it is about batch_size times too short, so the "
                f"schedule ends early in training and is then stepped past its end: "
                f"{_consequence(sched)}. Count updates from the loader's length alone "
                f"(`len(loader) // accumulation_steps * epochs`)",
                path,
                node,
                evidence={"horizon": ast.unparse(expr), "loader_line": loader.line,
                          "step_line": e.line},
            )
            break


# an epoch of at most this many optimizer updates is a training set of at most this many
# batches: a handful of examples, not a training run; a run whose horizon is passed unless its
# epochs are that small is stepped past its horizon
FEW_UPDATES = 2


@rule("LRD010")
def trainer_steps_past_a_literal_horizon(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler handed to a Hugging Face Trainer (``optimizers=(optimizer, scheduler)``)
    with a literal horizon (``CosineAnnealingLR(T_max=100)``) while the Trainer's arguments
    state the epochs (``num_train_epochs=50``). The Trainer steps it after every optimizer
    update, and every epoch makes at least one update, so the run takes at least ``epochs x
    updates per epoch`` steps. How many updates an epoch makes depends on the data set, which
    is not in the code; but when the horizon is passed as soon as an epoch has more than
    FEW_UPDATES updates, only a training set of a few batches keeps it in bounds. A literal
    horizon at or below the epoch count that LRD002 already reports as sized in epochs is left
    to LRD002."""
    by_hand = {e.obj.id for e in ctx.program.events
               if e.kind == "sched_step" and e.obj is not None}
    seen: set[int] = set()
    for node, path, sched, epochs, _trainer in ctx.program.hf_stepped:
        # `epochs` is read from TrainingArguments: None for other trainers (detectron2's)
        if sched.id in seen or sched.id in by_hand or sched.guessed or sched.in_composite \
                or epochs is None or epochs < 1:
            continue
        seen.add(sched.id)
        horizon = _literal_horizon(sched)
        if horizon is None:
            continue
        param, source, total = horizon
        if total < 1 or total // epochs > FEW_UPDATES:
            continue
        if _reported_as_epochs(sched, total, epochs):
            continue
        most = int(total // epochs)
        cls = sched.cls or "the scheduler"
        past = f"so it is stepped past {param}={source} unless an epoch has at most {most} " \
            f"update{'s' if most != 1 else ''} (a training set of a few batches)" if most else \
            f"so it is stepped past {param}={source} within the first {total:g} epochs, " \
            "whatever the data set"
        target, at = (sched.path, sched.call) if sched.path and sched.call is not None \
            else (path, node)
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={source}) is the scheduler of a Hugging Face Trainer (line "
            f"{getattr(node, 'lineno', 0)}), which steps it after every optimizer update; the "
            f"run has {epochs:g} epochs of at least one update each, {past}: "
            f"{_consequence(sched)}. Size the horizon from the Trainer's real number of updates "
            f"(`num_update_steps_per_epoch * num_train_epochs`), or let the Trainer build the "
            f"schedule (`lr_scheduler_type=...`)",
            target,
            at,
            evidence={"horizon": source, "epochs": epochs, "trainer_line":
                      getattr(node, "lineno", 0)},
        )


def _literal_horizon(sched: Obj) -> tuple[str, str, float] | None:
    """``(parameter, as written, value)`` of the horizon that ends ``sched``'s schedule, when
    the file states it as a number (a literal, or a name or setting the file assigns one)."""
    if sched.cls == "OneCycleLR" and sched.arg("total_steps", 2) is None:
        return None  # epochs * steps_per_epoch: not a literal the Trainer's epochs can meet
    for param, expr in _horizon_args(sched):
        if param == "steps_per_epoch":
            continue
        unit, value = unit_of(expr, sched.scope)
        if unit == "literal" and value is not None:
            return param, short_source(expr), value
        return None
    return None


def _reported_as_epochs(sched: Obj, total: float, epochs: float) -> bool:
    """LRD002 reads a small literal horizon of the classes it judges that the run's epochs do
    not exceed as sized in epochs (see rules/schedule.py's ``_hf_trainer_stepped``)."""
    return sched.origin == "torch" and sched.cls in LITERAL_JUDGED \
        and 0 < total <= SMALL_LITERAL and total <= epochs


def _range_count(loop: Loop) -> ast.expr | None:
    """``n`` for an epoch loop written ``for epoch in range(n)`` or ``range(0, n)``: the
    number of passes it makes."""
    call = range_call(loop)
    if call is None:
        return None
    if len(call.args) == 2 and not (isinstance(call.args[0], ast.Constant)
                                    and call.args[0].value == 0):
        return None
    return call.args[-1]


def count_shown(loop: Loop) -> ast.expr:
    """What a message quotes for how many passes a loop makes: its ``range(...)`` call, the
    test of a counted ``while`` (``epoch < CFG.epochs``), else the loop's target."""
    call = range_call(loop)
    if call is not None:
        return call
    node = loop.node
    if isinstance(node, ast.While):
        return node.test
    return getattr(node, "iter", None) or getattr(node, "target", None) or ast.Name("the loop")


def _whole(value: Any) -> int | None:
    return value if type(value) is int else None


def range_call(loop: Loop) -> ast.Call | None:
    """The ``range(n)`` / ``range(start, n)`` call a ``for`` loop iterates, or None."""
    node = loop.node
    if not isinstance(node, (ast.For, ast.AsyncFor)) or not isinstance(node.iter, ast.Call):
        return None
    call = node.iter
    if dotted(call.func) != "range" or call.keywords or not 1 <= len(call.args) <= 2:
        return None
    return call


def _counter_test(loop: Loop) -> tuple[str, ast.expr, bool] | None:
    """(counter, bound, inclusive) of a ``while c < bound:`` / ``while c <= bound:`` loop whose
    counter the body adds 1 to once per pass (Loop.counters); None for any other loop."""
    test = loop.node.test if isinstance(loop.node, ast.While) else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (ast.Lt, ast.LtE))):
        return None
    counter = dotted(test.left)
    if counter is None or counter not in loop.counters:
        return None
    return counter, test.comparators[0], isinstance(test.ops[0], ast.LtE)


def while_bounds(loop: Loop) -> tuple[int, ast.expr, bool] | None:
    """(start, bound, inclusive) of a ``while epoch < n:`` / ``while epoch <= n:`` loop whose
    counter the body adds 1 to once per pass (Loop.counters) and which the statements just
    before it set to an integer literal (``epoch = 1``): it makes ``n - start`` passes (one
    more with ``<=``), as ``for epoch in range(start, n)`` would; None for any other loop or a
    start the code does not state (a resumed run's ``epoch = ckpt["epoch"]``)."""
    tested = _counter_test(loop)
    if tested is None or loop.scope is None:
        return None
    counter, bound, inclusive = tested
    node = loop.node
    module = getattr(loop.scope, "module", None)
    placed = _blocks(module.tree).get(id(node)) if module is not None else None
    if placed is None:
        return None
    body, at = placed
    for stmt in reversed(body[:at]):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
            if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) else []
        if any(dotted(t) == counter for t in targets):
            if isinstance(stmt, ast.Assign) and len(targets) == 1 \
                    and isinstance(stmt.value, ast.Constant) and type(stmt.value.value) is int:
                return stmt.value.value, bound, inclusive
            return None
        if any(isinstance(n, (ast.Name, ast.Attribute)) and dotted(n) == counter
               and not isinstance(n.ctx, ast.Load) for n in ast.walk(stmt)):
            return None  # set some other way (a tuple, a loop, a with)
    return None


@per_node
def _blocks(tree: ast.AST) -> dict[int, tuple[list[ast.stmt], int]]:
    """Each statement of ``tree`` (by id) with the statement list that holds it and its place
    there."""
    out: dict[int, tuple[list[ast.stmt], int]] = {}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                for i, stmt in enumerate(block):
                    if isinstance(stmt, ast.stmt):
                        out[id(stmt)] = (block, i)
        for handler in getattr(node, "handlers", []) or []:
            for i, stmt in enumerate(handler.body):
                out[id(stmt)] = (handler.body, i)
    return out


def while_count(loop: Loop, read: Callable[[ast.expr], Any]) -> int | None:
    """How many passes the counted ``while`` loop of while_bounds makes when ``read`` turns its
    bound into an integer; None otherwise."""
    bounds = while_bounds(loop)
    if bounds is None:
        return None
    start, bound, inclusive = bounds
    stop = read(bound)
    if type(stop) is not int:
        return None
    return max(0, stop - start + (1 if inclusive else 0))


def _passes_beyond(passes: tuple[ast.expr, int], horizon: ast.expr, loop: Loop,
                   loop_scope: Any, sched_scope: Any, same_file: bool,
                   held_settings: bool = False) -> int | None:
    """How many more passes the loop makes than the schedule's ``horizon`` counts: ``passes``
    is the loop's count as (base, literal added), compared with the horizon's literally (two
    integers), as one value (the same name or expression, where loop and scheduler are in
    one file: ``same_file``), as one setting held in both places (``held_settings``), or as
    the numbers both counts are where they run (the loop's bound read with its function's
    arguments, the horizon where the scheduler is built); None when they cannot be compared."""
    loop_base, loop_extra = passes
    horizon_base, horizon_extra = plus_literal(horizon)
    loop_count, horizon_count = _int_literal(loop_base), _int_literal(horizon_base)
    if loop_count is not None and horizon_count is not None:
        return loop_count + loop_extra - horizon_count - horizon_extra
    if same_file and (_same_value(loop_base, loop_scope, horizon_base, sched_scope)
                      or ast.dump(loop_base) == ast.dump(horizon_base)):
        return loop_extra - horizon_extra
    if held_settings and _same_setting_held(loop_base, loop_scope, horizon_base, sched_scope):
        return loop_extra - horizon_extra
    count = _pass_count(loop)
    if count is None:
        return None
    stated = constants.resolve(horizon, sched_scope)
    return count - stated if type(stated) is int and stated > 0 else None


def _call_site(e: Event) -> tuple[int, int]:
    """Which pass through the code made the call: the step's own node and the call that
    entered the function holding it (two calls of one helper are two sites)."""
    call = e.frame.call if e.frame is not None else None
    return (id(e.node), id(call))


@rule("LRD010")
def epoch_horizon_stepped_at_several_sites(ctx: FileContext) -> Iterator[Diagnostic]:
    """A CosineAnnealingLR / PolynomialLR sized to the epoch loop's own count
    (``T_max=args.epochs`` beside ``for epoch in range(args.epochs)``) and stepped in that
    loop from more than one place per pass: typically a ``train(epoch, loader, partition)``
    helper that steps the scheduler on entry and is called for the training, validation and
    test passes. One of the steps runs on every pass, so the loop alone spends the whole
    horizon; every other step that is not in an opposite branch of the same test adds to it,
    and the schedule is stepped past its end. Silent when no step runs unconditionally in the
    loop (``if partition == 'train': scheduler.step()`` is judged no further), when a step
    passes a position (``step(epoch)`` sets the value, not the count), and when the horizon
    is not written as the loop's count."""
    steps: dict[tuple[int, int, int], list[Event]] = {}
    for e in ctx.program.events:
        if e.kind != "sched_step" or e.obj is None or e.obj.guessed or e.obj.in_composite:
            continue
        sched = e.obj
        if sched.origin != "torch" or sched.cls not in ("CosineAnnealingLR", "PolynomialLR"):
            continue
        if e.info.get("nargs") or e.info.get("kwargs"):
            continue
        gran, loop = granularity(e)
        if gran != "epoch" or loop is None:
            continue
        steps.setdefault((sched.id, loop.id, e.root), []).append(e)
    for events in steps.values():
        sites = {_call_site(e): e for e in events}
        if len(sites) < 2:
            continue
        first = events[0]
        owner, loop = first.obj, first.loop
        if owner is None or loop is None:
            continue
        sched = owner
        count = _range_count(loop)
        if count is None:
            continue
        param, horizon = next(((param, expr) for param, expr in _horizon_args(sched)
                               if param in ("T_max", "total_iters")), ("", None))
        if horizon is None or not _same_value(horizon, sched.scope, count, sched.scope):
            continue
        every = [e for e in sites.values()
                 if all(_settled_by_itself(c, e) for c in e.conds_inside(loop))]
        if not every:
            continue
        anchor = every[0]
        extra = [e for e in sites.values() if e is not anchor and not exclusive(e, anchor)]
        if not extra:
            continue
        per_pass = 1 + len(extra)
        lines = sorted({_site_line(e, loop) for e in [anchor, *extra]})
        where = ", ".join(str(n) for n in lines)
        cls = sched.cls or "the scheduler"
        # one step statement reached through several calls of its function (a helper that
        # serves the training and the evaluation passes), or several step statements
        shared = len({id(e.node) for e in [anchor, *extra]}) < 1 + len(extra)
        reached = "evaluation passes included" if shared else "one step in each place"
        advice = "outside the function that also serves evaluation" if shared \
            else "in one place"
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={ast.unparse(horizon)}) is sized to the {ast.unparse(count)} passes of the "
            f"epoch loop ({line_at(loop.path, loop.line, first.path)}), but "
            f"`{ast.unparse(first.node)}` (line {first.line}) runs up to {per_pass} times a pass "
            f"(reached from lines {where}, "
            f"{reached}), so the schedule reaches its end early and is then "
            f"stepped past it: {_consequence(sched)}. Step it once per epoch, {advice}, "
            f"or size the horizon to the real count",
            first.path,
            first.node,
            evidence={"horizon": ast.unparse(horizon), "sites": lines},
        )


def _site_line(e: Event, loop: Loop) -> int:
    """The line a step is reached from in ``loop``: its own line when the loop's body holds
    it, else the line of the call that entered the function holding it."""
    end = getattr(loop.node, "end_lineno", None) or loop.line
    if e.path == loop.path and loop.line <= e.line <= end:
        return e.line
    if e.frame is not None and e.frame.call is not None:
        return e.frame.call.lineno
    return e.line


def _settled_by_itself(cond: Cond, e: Event) -> bool:
    """Whether the branch ``cond`` took is taken whenever the scheduler ``e`` steps is the
    object tested: its test reads nothing but that scheduler (``sched is not None``, ``if
    sched:``, ``isinstance(sched, ReduceLROnPlateau)``, joined by ``and`` / ``or`` / ``not``)
    and, for the class torch built it as, comes out the way the branch needs. Such a test
    reads the same on every pass, so the step under it runs on every pass. A class named by
    a base (``LRScheduler``) or not a torch scheduler is not judged."""
    sched = e.obj
    call = e.node
    if cond.test is None or cond.branch not in (0, 1) or sched is None \
            or sched.origin != "torch" or sched.cls not in SCHEDULERS \
            or not isinstance(call, ast.Call) or not isinstance(call.func, ast.Attribute):
        return False
    subject = dotted(call.func.value)
    if not subject:
        return False
    return _holds(cond.test, cond.branch == 0, subject, sched.cls)


def _holds(test: ast.expr, want: bool, subject: str, cls: str) -> bool:
    """Whether ``test`` is known to be ``want`` for a ``cls`` scheduler held by ``subject``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _holds(test.operand, not want, subject, cls)
    if isinstance(test, ast.BoolOp):
        # `a and b` is true when both are, false when one is; `a or b` the other way round
        parts = [_holds(v, want, subject, cls) for v in test.values]
        return all(parts) if isinstance(test.op, ast.And) == want else any(parts)
    if dotted(test) == subject:
        return want  # a scheduler object is always true
    if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None and dotted(test.left) == subject:
        exists = isinstance(test.ops[0], (ast.IsNot, ast.NotEq))
        if exists or isinstance(test.ops[0], (ast.Is, ast.Eq)):
            return exists == want
        return False
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) \
            and test.func.id == "isinstance" and len(test.args) == 2 \
            and dotted(test.args[0]) == subject:
        spelled = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        names = [(dotted(k) or "").rsplit(".", 1)[-1] for k in spelled]
        if not names or any(n not in SCHEDULERS for n in names):
            return False
        return (cls in names) == want
    return False


def plus_literal(expr: ast.expr) -> tuple[ast.expr, int]:
    """``(x, k)`` for ``x + k`` / ``k + x`` / ``x - k`` with an integer literal ``k``; ``(expr,
    0)`` otherwise."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        left, right = expr.left, expr.right
        if isinstance(right, ast.Constant) and type(right.value) is int:
            return left, right.value if isinstance(expr.op, ast.Add) else -right.value
        if isinstance(expr.op, ast.Add) and isinstance(left, ast.Constant) \
                and type(left.value) is int:
            return right, left.value
    return expr, 0


def _int_literal(expr: ast.expr) -> int | None:
    value = expr.value if isinstance(expr, ast.Constant) else None
    return value if type(value) is int else None


def _passes(loop: Loop) -> tuple[ast.expr, int] | None:
    """``(x, k)`` when an epoch loop makes ``x + k`` passes: ``for e in range(x + k)``,
    ``range(1, x + 1)`` (x passes), ``range(c, n)`` with an integer literal ``c``."""
    call = range_call(loop)
    if call is None:
        # `epoch = 0` / `while epoch < n:` / `epoch += 1` makes the passes of `range(n)`
        counted = while_bounds(loop)
        if counted is None:
            return None
        begin, bound, inclusive = counted
        base, k = plus_literal(bound)
        return base, k - begin + (1 if inclusive else 0)
    start = 0
    if len(call.args) == 2:
        first = call.args[0]
        if not (isinstance(first, ast.Constant) and type(first.value) is int):
            return None
        start = first.value
    base, k = plus_literal(call.args[-1])
    return base, k - start


def _pass_count(loop: Loop) -> int | None:
    """How many passes a ``for _ in range(...)`` loop makes, its bounds numbers where it runs:
    the trace's count, or the constants the bounds name (a module constant of the project,
    ``range(config.EPOCHS)``)."""
    if loop.passes is not None:
        return loop.passes
    return range_count(loop, lambda bound: constants.resolve(bound, loop.scope))


def range_count(loop: Loop, read: Callable[[ast.expr], Any]) -> int | None:
    """How many passes a ``for _ in range(...)`` loop makes when ``read`` turns each of its
    bounds into an integer; None otherwise."""
    call = range_call(loop)
    if call is None:
        return while_count(loop, read)
    bounds = [read(a) for a in call.args]
    if not all(type(b) is int for b in bounds):
        return None
    return max(0, bounds[-1] - (bounds[0] if len(bounds) == 2 else 0))


def _leaves_early(loop: Loop, but: frozenset[int] = frozenset()) -> bool:
    """A ``break`` or ``return`` in the loop's own body (not in a loop or function inside it):
    the loop may stop before its count (early stopping). ``but``: statements (by id) whose
    exits do not count."""
    todo: list[ast.AST] = list(loop.node.body)
    while todo:
        node = todo.pop()
        if id(node) in but:
            continue
        if isinstance(node, (ast.Break, ast.Return)):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(n for n in ast.walk(node) if isinstance(n, ast.Return))
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


# calls that read the wall clock: a test of the time elapsed against a budget
_CLOCKS = frozenset({
    "time.time", "time.time_ns", "time.perf_counter", "time.perf_counter_ns", "time.monotonic",
    "time.monotonic_ns", "timeit.default_timer", "datetime.now", "datetime.datetime.now",
})


def _reads_clock(node: ast.AST, clocked: set[str]) -> bool:
    """``node`` calls a clock (``time.time()``) or names a variable assigned from one."""
    for n in ast.walk(node):
        if isinstance(n, ast.Call) and dotted(n.func) in _CLOCKS:
            return True
        if isinstance(n, ast.Name) and n.id in clocked:
            return True
    return False


def _clocked_names(loop: Loop) -> set[str]:
    """Names the loop's body assigns from the wall clock (``elapsed = (time.time() - t0) /
    60``), also through one another (``now = time.time(); elapsed = now - t0``)."""
    values: list[tuple[str, ast.expr]] = []
    todo: list[ast.AST] = list(loop.node.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            values.append((node.targets[0].id, node.value))
        todo.extend(ast.iter_child_nodes(node))
    clocked: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, value in values:
            if name not in clocked and _reads_clock(value, clocked):
                clocked.add(name)
                changed = True
    return clocked


def _budget_stop(node: ast.If, clocked: set[str]) -> bool:
    """``if elapsed >= budget: break`` (a print or log call beside the ``break`` allowed):
    the loop stops when a wall-clock budget runs out, which has nothing to do with the
    schedule: whether it comes before the horizon is decided by the machine's speed, so the
    loop's count remains what the schedule has to be sized for."""
    test = node.test
    if not isinstance(test, ast.Compare) or not _reads_clock(test, clocked):
        return False
    if not any(isinstance(s, ast.Break) for s in node.body):
        return False
    return all(isinstance(s, (ast.Break, ast.Pass))
               or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call))
               for s in node.body)


def _budget_breaks(loop: Loop) -> list[ast.If]:
    """The loop's own wall-clock budget stops (see ``_budget_stop``)."""
    clocked = _clocked_names(loop)
    found: list[ast.If] = []
    todo: list[ast.AST] = list(loop.node.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                             ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If) and _budget_stop(node, clocked):
            found.append(node)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return found


def _stops_before_its_count(loop: Loop) -> bool:
    """``_leaves_early`` for the rules that compare a horizon with the passes a loop is
    written to make: a ``break`` that only ends a wall-clock budget does not count, since
    the loop makes all its passes whenever the budget allows them."""
    return _leaves_early(loop, but=frozenset(id(n) for n in _budget_breaks(loop)))


def _budget_note(loop: Loop, path: str) -> str:
    """The message's word on a wall-clock budget that may end the loop first."""
    stops = _budget_breaks(loop)
    if not stops:
        return ""
    return (f" (the wall-clock limit at {line_at(loop.path, stops[0].lineno, path)} ends the "
            "loop sooner only when the time runs out first)")


@rule("LRD010")
def onecycle_epochs_fewer_than_the_loop(ctx: FileContext) -> Iterator[Diagnostic]:
    """OneCycleLR(epochs=E, steps_per_epoch=len(loader)) stepped after every batch of that
    loader in an epoch loop that runs more passes than E (``for epoch in range(E + 1)``): its
    ``E * len(loader)`` steps are spent before the last pass, and OneCycleLR raises at the next
    step. Only counts written as the same expression plus integer literals are compared
    (``range(1, E + 1)`` is E passes); a loop that may leave early (a ``break``), a step under
    a test, or a scheduler built inside the epoch loop is left alone."""
    seen: set[int] = set()
    for e, sched in _batch_steps(ctx):
        if sched.id in seen or sched.origin != "torch" or sched.cls != "OneCycleLR" \
                or sched.arg("total_steps", 2) is not None:
            continue
        epochs, per_epoch = sched.arg("epochs", 3), sched.arg("steps_per_epoch", 4)
        batch_loop = e.loop
        if epochs is None or per_epoch is None or batch_loop is None:
            continue
        epoch_loop = batch_loop.parent
        if epoch_loop is None:
            continue
        found = _len_of_loader(per_epoch, sched.scope, built=False)
        per_update: ast.expr | None = None  # steps_per_epoch counts updates of k batches
        if found is None:
            updates = _updates_of_batches(per_epoch, sched.scope)
            if updates is not None and updates[1] is None:
                found, per_update = (updates[2], updates[3]), updates[4]
        # (a wall-clock budget's `if elapsed >= limit: break` puts the rest of the pass under
        # its negation: not a test of the step's own)
        budget = {id(n.test) for n in _budget_breaks(epoch_loop)}
        tests = [c for c in e.conds_inside(epoch_loop) if id(c.test) not in budget]
        if per_update is None and tests:
            continue
        if per_update is not None and (
                len(tests) != 1 or tests[0].loop is not batch_loop
                or not _under_accumulation(tests[0], per_update, sched.scope, batch_loop.scope)):
            continue  # not once per update of k batches
        if found is None or not _iterates_loader(batch_loop, *found):
            continue  # not stepped per batch of the loader its steps_per_epoch counts
        passes = _passes(epoch_loop)
        if passes is None:
            continue
        extra = _passes_beyond(passes, epochs, epoch_loop, sched.scope, sched.scope,
                               same_file=epoch_loop.path == batch_loop.path)
        if extra is None or extra < 0:
            continue
        node = epoch_loop.node
        assert isinstance(node, (ast.For, ast.AsyncFor))  # (_passes read its `range(...)`)
        if _written_inside(sched, epoch_loop):
            continue  # rebuilt every pass
        if _stops_before_its_count(epoch_loop) or _leaves_early(batch_loop) \
                or (extra == 0 and budget):
            continue
        if _reset_inside(ctx, sched, epoch_loop) or _another_built_inside(ctx, sched, epoch_loop):
            continue  # restarted by hand during the run
        if extra == 0:
            # the epoch loop spends exactly the schedule, but a loop around it (stages,
            # folds, rounds) runs it again with the same scheduler
            outer = _runs_again(ctx, e, sched, epoch_loop, len(tests))
            if outer is None:
                continue
            seen.add(sched.id)
            yield _spent_again(sched, f"epochs={ast.unparse(epochs)}", e, epoch_loop, outer)
            continue
        seen.add(sched.id)
        more = "one pass more" if extra == 1 else f"{extra} passes more"
        every = "batch" if per_update is None else \
            f"update (every `{ast.unparse(per_update)}` batches)"
        yield Diagnostic.at(
            "LRD010",
            f"OneCycleLR(epochs={ast.unparse(epochs)}) ({line_at(sched.path, sched.line, e.path)}) "
            f"is stepped after every {every} of `{ast.unparse(found[1].args[0])}` (line {e.line}), "
            f"but the epoch loop ({line_at(epoch_loop.path, epoch_loop.line, e.path)}) runs "
            f"over `{ast.unparse(node.iter)}`, {more} than "
            f"the epochs it was sized for{_budget_note(epoch_loop, e.path)}: its epochs * "
            f"steps_per_epoch steps are spent before "
            f"the last pass, and {_consequence(sched)}. Give OneCycleLR the loop's count of "
            f"epochs",
            e.path,
            e.node,
            evidence={"epochs": ast.unparse(epochs), "loop_line": epoch_loop.line,
                      "step_line": e.line},
        )


def _runs_again(ctx: FileContext, e: Event, sched: Obj, epoch_loop: Loop,
                n_tests: int) -> Loop | None:
    """The loop around ``epoch_loop`` (stages, folds, rounds: ``for stage in range(2): for
    epoch in range(E): <batches, sched.step()>``) that runs the epoch loop again with the same
    scheduler, where the epoch loop alone spends its whole horizon: a count of passes that is a
    number where it runs (2 or more), no test around the step between the two loops, no
    ``break`` / ``return`` that may end it early, and the scheduler (or its optimizer) neither
    built, restored, repositioned nor given a new LR during one of its passes. None otherwise."""
    outer = epoch_loop.parent
    if outer is None or outer.passes is None or outer.passes < 2:
        return None
    if len(e.conds_inside(outer)) != n_tests or _leaves_early(outer):
        return None
    if _written_inside(sched, outer):
        return None  # built in every pass
    if _reset_inside(ctx, sched, outer) or _another_built_inside(ctx, sched, outer):
        return None
    return outer


def _written_inside(sched: Obj, loop: Loop) -> bool:
    """The scheduler's construction is written inside ``loop``'s statement (built anew on
    every pass)."""
    node = loop.node
    return sched.path == loop.path and sched.call is not None \
        and node.lineno <= sched.call.lineno <= (node.end_lineno or node.lineno)


def _spent_again(sched: Obj, sized: str, e: Event, epoch_loop: Loop, outer: Loop) -> Diagnostic:
    cls = sched.cls or sched.name or "the scheduler"
    return Diagnostic.at(
        "LRD010",
        f"{cls}({sized}) ({line_at(sched.path, sched.line, e.path)}) is stepped after every "
        f"batch (line {e.line}) and the epoch loop "
        f"({line_at(epoch_loop.path, epoch_loop.line, e.path)}) spends its whole schedule, but "
        f"the loop over `{outer.over}` ({line_at(outer.path, outer.line, e.path)}) runs that "
        f"epoch loop {outer.passes} times with the same scheduler: from the second pass on it "
        f"is stepped past its horizon, so {_consequence(sched)}. Build the scheduler inside "
        f"the loop over `{outer.over}`, or size it to all {outer.passes} passes",
        e.path,
        e.node,
        evidence={"outer_passes": outer.passes, "outer_line": outer.line,
                  "loop_line": epoch_loop.line},
    )


def _reset_inside(ctx: FileContext, sched: Obj, loop: Loop, lr_write: bool = True) -> bool:
    """Whether ``sched`` is built, restored or repositioned during a pass of ``loop`` (a
    scheduler rebuilt per fold starts its schedule over), or its optimizer built there or (with
    ``lr_write``) its LR written there."""
    optimizer_kinds = ("create", "load_state", "lr_write", "rebind") if lr_write \
        else ("create", "load_state", "rebind")
    for e in ctx.program.events:
        if e.root != loop.root or not e.in_loop(loop):
            continue
        if e.obj is sched and e.kind in ("create", "load_state", "set_last_epoch", "rebind"):
            return True
        if sched.optimizer is not None and e.obj is sched.optimizer \
                and e.kind in optimizer_kinds:
            return True
    return False


@rule("LRD010")
def horizon_spent_again_by_an_outer_loop(ctx: FileContext) -> Iterator[Diagnostic]:
    """A CosineAnnealingLR / PolynomialLR / OneCycleLR(total_steps=...) built once, outside a
    loop that runs a counted loop again on every pass (folds, rounds of an alternating
    trainer, a ``trainer.fit()`` called in a loop), and stepped once per pass of the inner
    loop: the schedule is not started over, so it takes outer passes x inner passes steps.
    Reported when that product is larger than the horizon: both loops run over ``range``
    bounds that are numbers where they run, and the horizon is a number or the inner loop's
    own count (``T_max=epochs`` beside ``for epoch in range(epochs)``, with at least two outer
    passes). Silent when either loop may leave early (``break``, ``return``), the step is
    under a test inside the outer loop or passes a position, or the scheduler (or its
    optimizer) is rebuilt, restored or has its LR written during an outer pass."""
    seen: set[int] = set()
    for e in ctx.program.events:
        if e.kind != "sched_step" or e.obj is None or e.obj.guessed or e.obj.in_composite:
            continue
        sched = e.obj
        if sched.id in seen or sched.origin != "torch" or sched.cls not in _ENDING:
            continue
        if sched.cls == "OneCycleLR" and sched.arg("total_steps", 2) is None:
            continue
        if e.info.get("nargs") or e.info.get("kwargs"):
            continue
        inner = e.loop
        outer = inner.parent if inner is not None else None
        if inner is None or outer is None or outer.passes is None or outer.passes < 2:
            continue
        if e.conds_inside(outer) or _leaves_early(inner) or _leaves_early(outer):
            continue
        param, horizon = next(((p, x) for p, x in _horizon_args(sched)
                               if p != "steps_per_epoch"), ("", None))
        if horizon is None:
            continue
        total = literal_value(horizon, sched.scope)
        count = _range_count(inner)
        if total is not None and inner.passes is not None:
            steps = outer.passes * inner.passes
            if steps <= total:
                continue
            per_pass = f"{inner.passes}"
        elif count is not None and _same_value(horizon, sched.scope, count, sched.scope):
            steps, per_pass = 0, ast.unparse(count)
        else:
            continue
        if _reset_inside(ctx, sched, outer):
            continue
        seen.add(sched.id)
        cls = sched.cls or "the scheduler"
        spent = f"{outer.passes} x {per_pass} = {steps} steps" if steps else \
            f"{outer.passes} x {per_pass} steps"
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={short_source(horizon)}) is built once "
            f"({line_at(sched.path, sched.line, e.path)}) and stepped once per pass of the loop "
            f"over `{inner.over}` ({line_at(inner.path, inner.line, e.path)}), which runs again "
            f"on each of the {outer.passes} passes of the loop over `{outer.over}` "
            f"({line_at(outer.path, outer.line, e.path)}) without the schedule being started "
            "over: "
            f"{spent}, past its "
            f"horizon, so {_consequence(sched)}. Build the scheduler inside the outer loop, or "
            f"size {param} to the whole run",
            e.path,
            e.node,
            evidence={"horizon": short_source(horizon), "outer_passes": outer.passes,
                      "inner_line": inner.line, "outer_line": outer.line},
        )


def _range_passes(loop: Loop) -> int | None:
    """How many passes ``for _ in range(...)`` makes, from its bounds as numbers where the loop
    runs (``loop.passes``) or as numbers the file states (a literal, a constant, a setting's
    stated default: ``range(args.update_epochs)``, ``range(0, batch_size, minibatch_size)``).
    None for any other loop, or a bound that is no positive whole number."""
    if loop.passes is not None:
        return loop.passes
    call = range_call(loop)
    if call is None:
        return while_count(loop, lambda bound: _whole(constants.resolve(bound, loop.scope)))
    if not 1 <= len(call.args) <= 3 or call.keywords:
        return None
    bounds = []
    for arg in call.args:
        value = constants.resolve(arg, loop.scope)
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        bounds.append(value)
    if len(bounds) == 3 and bounds[2] <= 0:
        return None
    return len(range(*bounds))


def _decaying_linear(sched: Obj) -> bool:
    """A LinearLR that decays (``start_factor`` above ``end_factor``, both numbers as written,
    torch's defaults 1/3 and 1.0 otherwise): past ``total_iters`` it holds the LR at its end
    factor, the bottom of the decay. A warm-up LinearLR (the default) holds the full LR past its
    horizon, which is what it is for."""
    start = literal_value(sched.arg("start_factor", 1), sched.scope) \
        if sched.arg("start_factor", 1) is not None else 1.0 / 3
    end = literal_value(sched.arg("end_factor", 2), sched.scope) \
        if sched.arg("end_factor", 2) is not None else 1.0
    return start is not None and end is not None and end < start


@rule("LRD010")
def horizon_of_the_outer_loop_stepped_in_an_inner_one(ctx: FileContext) -> Iterator[Diagnostic]:
    """A CosineAnnealingLR / PolynomialLR / decaying LinearLR / OneCycleLR(total_steps=...)
    whose horizon is the count of a loop around it (``total_iters=num_updates`` beside ``for
    update in range(num_updates):``), stepped not once per pass of that loop but inside counted
    loops nested in it (a PPO update's ``for epoch in range(update_epochs): for mb in
    range(num_minibatches):``): every pass of the outer loop steps it inner passes times, so
    the horizon is spent after 1/(inner passes) of the run and the rest trains past it (a
    linear decay to 0 leaves the LR at 0, a cosine climbs back up, OneCycleLR raises). The
    loops between are ``range`` loops whose counts are numbers the file states (their product
    at least 2); silent when a test stands between the outer loop and the step, when any of
    these loops may leave early, when the step passes a position, or when the scheduler is
    rebuilt, restored or has its optimizer's LR written during an outer pass."""
    seen: set[int] = set()
    for e in ctx.program.events:
        if e.kind != "sched_step" or e.obj is None or e.obj.guessed or e.obj.in_composite:
            continue
        sched = e.obj
        if sched.id in seen or sched.origin != "torch" or e.info.get("nargs") \
                or e.info.get("kwargs"):
            continue
        if sched.cls == "LinearLR":
            if not _decaying_linear(sched):
                continue
            param, horizon = "total_iters", sched.arg("total_iters", 3)
            if horizon is None:
                continue  # torch's default of 5 steps is no loop's count
        elif sched.cls in _ENDING:
            if sched.cls == "OneCycleLR" and sched.arg("total_steps", 2) is None:
                continue
            param, horizon = next(((p, x) for p, x in _horizon_args(sched)
                                   if p != "steps_per_epoch"), ("", None))
            if horizon is None:
                continue
        else:
            continue
        inner = e.loop
        if inner is None:
            continue
        between: list[Loop] = []
        outer: Loop | None = inner
        while outer is not None:
            count = _range_count(outer)
            if between and count is not None \
                    and _same_value(horizon, sched.scope, count, outer.scope):
                break
            between.append(outer)
            outer = outer.parent
        if outer is None or not between:
            continue
        passes = [_range_passes(x) for x in between]
        if any(p is None for p in passes) or any(isinstance(x.node, ast.While) for x in between):
            continue
        product = 1
        for p in passes:
            assert p is not None
            product *= p
        if product < 2:
            continue
        if e.conds_inside(outer) or _leaves_early(outer) or any(_leaves_early(x) for x in between):
            continue
        if _reset_inside(ctx, sched, outer):
            continue
        seen.add(sched.id)
        cls = sched.cls or "the scheduler"
        count = _range_count(outer)
        assert count is not None
        if sched.cls == "LinearLR":
            end = sched.arg("end_factor", 2)
            held = short_source(end) if end is not None else "1.0"
            after = f"LinearLR then holds the LR at end_factor ({held}) times its initial value"
        else:
            after = _consequence(sched)
        loops = ", ".join(f"`{x.over}` ({line_at(x.path, x.line, e.path)})"
                          for x in reversed(between))
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={short_source(horizon)}) is sized to the passes of the loop over "
            f"`{outer.over}` ({line_at(outer.path, outer.line, e.path)}) but stepped inside "
            f"the loops over {loops} nested in it, {product} times per pass: the horizon is "
            f"spent after 1/{product} of the run ({short_source(count)} / {product} passes) and "
            f"the rest trains past it; {after}. Step it once per pass of the outer loop, or size "
            f"{param} to every step it takes",
            e.path,
            e.node,
            evidence={"horizon": short_source(horizon), "steps_per_pass": product,
                      "outer_line": outer.line},
        )


def _epochs_of_batches(expr: ast.expr, scope: Scope | None
                       ) -> tuple[float, ast.expr | None, Obj, ast.Call] | None:
    """``(E, E as written, loader, len call)`` for a horizon written ``E * len(loader)`` or
    ``len(loader) * E`` (through names bound to either side, and ``int(...)``), where ``E`` is
    a number the file states (a literal, a constant, a config attribute, a setting's default)
    and ``loader`` a DataLoader built where it is visible: a horizon of E epochs of batches.
    ``len(loader)`` alone is one epoch of its batches: ``(1, None, loader, len call)``."""
    alone = _len_of_loader(expr, scope)
    if alone is not None:
        return 1.0, None, alone[0], alone[1]
    expr, scope = _resolved(expr, scope)
    while isinstance(expr, ast.Call) and dotted(expr.func) in ("int", "math.floor", "math.ceil",
                                                                "round") and expr.args:
        expr, scope = _resolved(expr.args[0], scope)
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)):
        return None
    for count, other in ((expr.left, expr.right), (expr.right, expr.left)):
        found = _len_of_loader(other, scope)
        if found is None:
            continue
        value = constants.resolve(count, scope)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value), count, found[0], found[1]
    return None


def _updates_of_batches(expr: ast.expr, scope: Scope | None
                        ) -> tuple[float, ast.expr | None, Obj, ast.Call, ast.expr] | None:
    """``(E, E as written, loader, len call, k)`` for a horizon counted in optimizer updates
    under gradient accumulation: one epoch's updates, ``len(loader) // k`` (or ``int(len(loader)
    / k)``, ``math.ceil(len(loader) / k)``, ``(len(loader) + k - 1) // k``), alone (E = 1) or
    times a number the file states (``E * (len(loader) // k)``, ``len(loader) * E // k``); the
    loader a DataLoader built where it is visible, as ``_epochs_of_batches`` reads it."""
    expr, scope = _resolved(expr, scope)
    while isinstance(expr, ast.Call) and dotted(expr.func) in ("int", "math.floor", "math.ceil",
                                                                "round") and expr.args:
        expr, scope = _resolved(expr.args[0], scope)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult):
        for count, other in ((expr.left, expr.right), (expr.right, expr.left)):
            value = constants.resolve(count, scope)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                continue
            one = _updates_of_batches(other, scope)
            if one is not None and one[1] is None:
                return float(value) * one[0], count, one[2], one[3], one[4]
        return None
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.FloorDiv, ast.Div))):
        return None
    top, k = expr.left, expr.right
    if isinstance(top, ast.BinOp) and isinstance(top.op, ast.Add) \
            and isinstance(top.right, ast.BinOp) and isinstance(top.right.op, ast.Sub) \
            and ast.dump(top.right.left) == ast.dump(k) \
            and isinstance(top.right.right, ast.Constant) and top.right.right.value == 1:
        top = top.left  # (len(loader) + k - 1) // k
    found = _len_of_loader(top, scope)
    if found is not None:
        return 1.0, None, found[0], found[1], k
    top, top_scope = _resolved(top, scope)
    if isinstance(top, ast.BinOp) and isinstance(top.op, ast.Mult):
        # len(loader) * E // k
        for count, other in ((top.left, top.right), (top.right, top.left)):
            found = _len_of_loader(other, top_scope)
            value = constants.resolve(count, top_scope)
            if found is not None and isinstance(value, (int, float)) \
                    and not isinstance(value, bool) and value > 0:
                return float(value), count, found[0], found[1], k
    return None


def _divides_by(expr: ast.expr, k: ast.expr, k_scope: Scope | None, scope: Scope | None) -> bool:
    """``expr`` is ``x % k`` (``(i + 1) % accum``) with ``k`` the horizon's divisor: the same
    expression as written, or the same number the file states on both sides."""
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mod)):
        return False
    if ast.dump(expr.right) == ast.dump(k):
        return True
    here = constants.resolve(expr.right, scope)
    there = constants.resolve(k, k_scope)
    return isinstance(here, int) and not isinstance(here, bool) and here > 1 and here == there


def _accumulation_boundary(test: ast.expr, k: ast.expr, k_scope: Scope | None,
                           scope: Scope | None) -> bool:
    """``test`` holds once every ``k`` batches: ``(i + 1) % k == 0``, ``i % k == 0``, ``i % k
    == k - 1``, ``not (i + 1) % k``, with at most an ``or`` on the loader's last batch
    (``or i == len(loader) - 1``): an update every ``k`` batches, about ``len(loader) / k``
    of them per pass."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        periodic = [v for v in test.values if _accumulation_boundary(v, k, k_scope, scope)]
        last = [v for v in test.values if isinstance(v, ast.Compare) and any(
            isinstance(n, ast.Call) and dotted(n.func) == "len" for n in ast.walk(v))]
        return len(periodic) == 1 and len(periodic) + len(last) == len(test.values)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _divides_by(test.operand, k, k_scope, scope)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        for side, other in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
            if not isinstance(side, ast.BinOp) or not _divides_by(side, k, k_scope, scope):
                continue
            if isinstance(other, ast.Constant) and other.value == 0:
                return True
            if isinstance(other, ast.BinOp) and isinstance(other.op, ast.Sub) \
                    and ast.dump(other.left) == ast.dump(side.right) \
                    and isinstance(other.right, ast.Constant) and other.right.value == 1:
                return True
    return False


def _under_accumulation(cond: Cond, k: ast.expr, k_scope: Scope | None, scope: Scope | None
                        ) -> bool:
    """The branch taken of ``cond`` is an update every ``k`` batches (its test, or the
    expression the tested name was bound to)."""
    if cond.branch != 0 or cond.test is None:
        return False
    tests = [cond.test, *cond.origins] if isinstance(cond.test, ast.Name) else [cond.test]
    return any(_accumulation_boundary(t, k, k_scope, scope) for t in tests)


def _short_by(expr: ast.expr, scope: Scope | None
              ) -> tuple[ast.expr, Scope | None, float, ast.expr | None]:
    """``(T, where T is read, k, k as written)`` for a horizon written ``T - k`` (through a name bound to it),
    ``k`` a positive number the file states (a literal, a constant, a setting's default:
    ``T_max=total_steps - warmup_steps``): a schedule that ends ``k`` steps before ``T``.
    ``(expr, scope, 0, None)`` for any other horizon. A builder's parameter is read as its
    caller wrote it (``def build(opt, *, T_max): return CosineAnnealingLR(opt, T_max=T_max)``
    called with ``T_max=total_steps - warmup_steps``)."""
    resolved, where = _resolved(expr, scope, passed=True)
    if isinstance(resolved, ast.BinOp) and isinstance(resolved.op, ast.Sub):
        value = constants.resolve(resolved.right, where)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return resolved.left, where, float(value), resolved.right
    return expr, scope, 0.0, None


def _tests_it_exists(test: ast.expr | None, e: Event) -> bool:
    """``test`` holds whenever the scheduler that ``e`` steps is there at all: ``if
    self.lr_scheduler is not None:`` / ``if scheduler:`` around ``self.lr_scheduler.step()``.
    Such a guard leaves every step of a built scheduler in place."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 \
            and isinstance(test.ops[0], (ast.IsNot, ast.NotEq)) \
            and isinstance(test.comparators[0], ast.Constant) \
            and test.comparators[0].value is None:
        test = test.left
    call = e.node
    if test is None or not isinstance(call, ast.Call) \
            or not isinstance(call.func, ast.Attribute):
        return False
    name = dotted(test)
    return bool(name) and name == dotted(call.func.value)


def _setting_text(expr: ast.expr, scope: Scope | None) -> str:
    """The source a count is read from, through the names bound to it, with ``self.`` left
    out: ``num_epochs`` bound to ``self.config.get("epochs", 50)`` and ``config.get("epochs",
    50)`` read in ``__init__`` (where ``self.config = config``) are one setting. "" for a bare
    literal or name (numbers are compared as numbers)."""
    resolved, _ = _resolved(expr, scope)
    if not isinstance(resolved, (ast.Call, ast.Attribute, ast.Subscript)):
        return ""
    return ast.unparse(resolved).replace("self.", "")


def _same_setting(written: ast.expr, scope: Scope | None, loop: Loop) -> bool:
    """Whether ``loop`` is ``for _ in range(n)`` / ``range(start, n)`` with ``n`` read from
    the same setting as ``written`` (the epochs a horizon counts): the loop makes that many
    passes on a fresh run whatever value the setting holds (a resumed run starts later with
    the schedule restored to where it stopped)."""
    call = range_call(loop)
    if call is None:
        return False
    text = _setting_text(written, scope)
    return bool(text) and _setting_text(call.args[-1], loop.scope) == text


def _another_built_inside(ctx: FileContext, sched: Obj, loop: Loop) -> bool:
    """Whether a scheduler on ``sched``'s optimizer, or under ``sched``'s name, is built during
    a pass of ``loop``: ``sched = CosineAnnealingLR(...)`` again every few epochs restarts the
    schedule by hand."""
    for e in ctx.program.events:
        if e.kind != "create" or e.obj is None or e.obj is sched or e.root != loop.root \
                or not e.in_loop(loop):
            continue
        other = e.obj
        if (sched.optimizer is not None and other.optimizer is sched.optimizer) \
                or (sched.name and other.name == sched.name):
            return True
    return False


@rule("LRD010")
def batch_horizon_for_fewer_epochs_than_the_loop(ctx: FileContext) -> Iterator[Diagnostic]:
    """A CosineAnnealingLR / PolynomialLR / OneCycleLR(total_steps=...) or a Hugging Face
    decay to ``num_training_steps`` sized ``E * len(loader)`` - E epochs of that loader's
    batches, E a number the file states (``T_max=CFG.cycle * len(loader)`` with ``cycle = 5``),
    or ``len(loader)`` alone (one epoch) - and stepped after every batch of that same loader in an epoch loop that runs N > E
    passes (its ``range`` bounds numbers where it runs). The horizon is spent after E epochs,
    and the remaining N - E epochs step the schedule past its end: a cosine climbs back up, a
    linear decay sits at zero, OneCycleLR raises. Silent when either loop may leave early
    (``break``, ``return``: early stopping may end the run in time), when the step is under a
    test inside the epoch loop or passes a position, when the scheduler or its optimizer is
    rebuilt, restored or has its LR written during an epoch (a schedule restarted by hand),
    and when E is not stated or not smaller than the loop's count. OneCycleLR sized by
    ``epochs=`` is judged by ``onecycle_epochs_fewer_than_the_loop``."""
    seen: set[int] = set()
    for e, sched, param, horizon in _ending_batch_steps(ctx):
        if sched.id in seen:
            continue
        if horizon is None:
            continue
        whole, whole_scope, short, short_written = _short_by(horizon, sched.scope)
        sized = _epochs_of_batches(whole, whole_scope)
        per_update: ast.expr | None = None  # k: the horizon counts updates of k batches
        if sized is None:
            updates = _updates_of_batches(whole, whole_scope)
            if updates is not None:
                sized, per_update = updates[:4], updates[4]
        batch_loop = e.loop
        epoch_loop = batch_loop.parent if batch_loop is not None else None
        if sized is None or batch_loop is None or epoch_loop is None:
            continue
        epochs, written, loader_obj, length = sized
        passes = epoch_loop.passes
        runs = f"runs {passes} passes"
        if passes is None and short and written is not None \
                and _same_setting(written, whole_scope, epoch_loop):
            passes = int(epochs)  # the run's epochs and the horizon's are one setting
        if passes is None and written is not None and not short:
            # `T_max=len(loader) * (args.epochs - 5)` under `range(args.epochs)`: E is the
            # loop's own setting less a stated k, so the loop runs k epochs more than E
            base, base_scope, fewer, _ = _short_by(written, whole_scope)
            if fewer and base is not written and _same_setting(base, base_scope, epoch_loop):
                passes = int(epochs + fewer)
                count = _range_count(epoch_loop)
                if count is not None:
                    runs = f"runs `{short_source(count)}` passes (default {passes})"
        if passes is None and written is not None and not short:
            # `T_max=len(loader) * args.epochs` under `range(args.epochs + 1)`: the loop runs
            # k passes more than the horizon's own setting, whatever value it holds
            more = _passes(epoch_loop)
            run = _linear(more[0], epoch_loop.scope) if more is not None else None
            sized_as = _linear(written, whole_scope)
            if more is not None and run is not None and sized_as is not None and run[0] \
                    and {t: c for t, (c, _, _) in run[0].items()} \
                    == {t: c for t, (c, _, _) in sized_as[0].items()}:
                extra = run[1] + more[1] - sized_as[1]
                if extra >= 1 and extra == int(extra):
                    passes = int(epochs + extra)
                    shown = count_shown(epoch_loop)
                    runs = f"runs {'while ' if isinstance(epoch_loop.node, ast.While) else ''}" \
                        f"`{short_source(shown)}` " \
                        f"passes ({int(extra)} more than `{ast.unparse(written)}`)"
        if passes is None and written is None and not short:
            # a horizon of one epoch (`T_max=len(loader)`) under a loop over a setting's stated
            # default (`range(args.epochs)`, default 30): every run of more than one epoch
            # steps it past its end, so the default is evidence enough (one of E epochs, E a
            # setting too, is left alone: a run may set both to match)
            stated = _range_passes(epoch_loop)
            passes = stated if stated is not None and stated >= 2 else None
            count = _range_count(epoch_loop)
            if passes is not None and count is not None:
                runs = f"runs `{short_source(count)}` passes (default {passes})"
        if passes is None:
            continue
        if not _iterates_loader(batch_loop, loader_obj, length):
            continue  # not stepped per batch of the loader its horizon counts
        if passes < epochs:
            continue
        # the epoch loop spends exactly the horizon: overrun only where a loop around it runs
        # it again (judged below, once the step is known to run every batch)
        again = passes == epochs and not short
        tests = [c for c in e.conds_inside(epoch_loop) if not _tests_it_exists(c.test, e)]
        if per_update is not None:
            # stepped once per update: under exactly the accumulation test that divides by the
            # horizon's k, so it runs about len(loader) / k times a pass, as the horizon counts
            if len(tests) != 1 or tests[0].loop is not batch_loop \
                    or not _under_accumulation(tests[0], per_update, whole_scope, batch_loop.scope):
                continue
        elif tests:
            continue
        if _leaves_early(batch_loop) or _leaves_early(epoch_loop):
            continue
        if _reset_inside(ctx, sched, epoch_loop) or _another_built_inside(ctx, sched, epoch_loop):
            continue
        if again:
            outer = _runs_again(ctx, e, sched, epoch_loop, len(tests))
            if outer is None:
                continue
            seen.add(sched.id)
            yield _spent_again(sched, f"{param}={short_source(horizon)}", e, epoch_loop, outer)
            continue
        seen.add(sched.id)
        cls = sched.cls or sched.name or "the scheduler"
        spans = f"one epoch of `{ast.unparse(length)}` batches" if written is None else \
            f"`{ast.unparse(written)}` = {epochs:g} epochs of `{ast.unparse(length)}` batches"
        every = "every batch"
        if per_update is not None:
            k_text = ast.unparse(per_update)
            spans = f"one epoch of updates (`{ast.unparse(length)}` batches, one update every " \
                f"`{k_text}`)" if written is None else \
                f"`{ast.unparse(written)}` = {epochs:g} epochs of updates " \
                f"(`{ast.unparse(length)}` batches, one update every `{k_text}`)"
            every = f"every update (every `{k_text}` batches)"
        ends = "the first epoch" if written is None else f"{epochs:g} epochs"
        if short and passes == epochs:
            # `T_max = total_steps - warmup_steps`, total_steps the run's own batches, with no
            # warm-up that holds the schedule back: it ends k batches before the run does
            if epoch_loop.passes is None and written is not None:
                # one setting on both sides: its value may be the config's, not the default
                spans = f"`{ast.unparse(written)}` epochs of `{ast.unparse(length)}` batches"
            cut = ast.unparse(short_written) if short_written is not None else f"{short:g}"
            less = f"`{cut}`" if cut == f"{short:g}" else f"`{cut}` ({short:g})"
            yield Diagnostic.at(
                "LRD010",
                f"{cls}({param}={short_source(horizon)}) "
                f"({line_at(sched.path, sched.line, e.path)}) spans {spans} less "
                f"{less} and is stepped after every "
                f"batch (line {e.line}) of the epoch loop "
                f"({line_at(epoch_loop.path, epoch_loop.line, e.path)}), which runs "
                f"as many epochs: the last {short:g} steps go past its horizon, so "
                f"{_consequence(sched)}. Size {param} to the whole run, or step the schedule "
                f"only after the warm-up it leaves room for (SequentialLR)",
                e.path,
                e.node,
                evidence={"horizon": short_source(horizon), "horizon_epochs": epochs,
                          "short_by": short, "loop_passes": passes,
                          "loop_line": epoch_loop.line},
            )
            continue
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={short_source(horizon)}) "
            f"({line_at(sched.path, sched.line, e.path)}) spans {spans} and is stepped after "
            f"{every} (line {e.line}), but the epoch loop "
            f"({line_at(epoch_loop.path, epoch_loop.line, e.path)}) {runs}: "
            f"the schedule ends after {ends} and the other "
            f"{passes - epochs:g} step it past its horizon, so "
            f"{_consequence(sched)}. Size {param} to the whole run (the loop's epochs times "
            f"`{ast.unparse(length)}`), or restart the schedule on purpose "
            f"(CosineAnnealingWarmRestarts)",
            e.path,
            e.node,
            evidence={"horizon": short_source(horizon), "horizon_epochs": epochs,
                      "loop_passes": epoch_loop.passes, "loop_line": epoch_loop.line},
        )


def _linear(expr: ast.expr, scope: Scope | None, depth: int = 0
            ) -> tuple[dict[str, tuple[float, ast.expr, Scope | None]], float] | None:
    """``expr`` as a sum of settings with numeric coefficients plus a number: ``args.epochs -
    args.warmup_epochs`` is ``{args.epochs: 1, args.warmup_epochs: -1}`` and 0, through the
    names bound to its parts (``T = epochs - warmup`` with ``epochs = args.epochs``);
    ``args.epochs // 2`` (or ``/ 2``, ``* 0.5``, inside ``int()`` / ``round()``) is
    ``{args.epochs: 0.5}``, the rounding left out. Each setting keeps the expression and scope
    it is read in, to read its stated value. None for anything else (a product of two
    settings, a call other than a setting's read)."""
    if depth > _DEPTH:
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) \
            and not isinstance(expr.value, bool):
        return {}, float(expr.value)
    if isinstance(expr, ast.Call) and dotted(expr.func) in ("int", "round", "math.floor",
                                                             "math.ceil") \
            and len(expr.args) == 1 and not expr.keywords:
        return _linear(expr.args[0], scope, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Div, ast.FloorDiv)):
        # a sum scaled by a number written right there (`args.epochs // 2`, `0.8 * epochs`)
        pairs = [(expr.left, expr.right)]
        if isinstance(expr.op, ast.Mult):
            pairs.append((expr.right, expr.left))
        for part, factor in pairs:
            if not (isinstance(factor, ast.Constant) and isinstance(factor.value, (int, float))
                    and not isinstance(factor.value, bool) and factor.value > 0):
                continue
            inner = _linear(part, scope, depth + 1)
            if inner is None:
                return None
            k = float(factor.value) if isinstance(expr.op, ast.Mult) else 1.0 / factor.value
            return {t: (c * k, at, where) for t, (c, at, where) in inner[0].items()}, inner[1] * k
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        left = _linear(expr.left, scope, depth + 1)
        right = _linear(expr.right, scope, depth + 1)
        if left is None or right is None:
            return None
        sign = 1 if isinstance(expr.op, ast.Add) else -1
        terms = dict(left[0])
        for text, (coeff, at, where) in right[0].items():
            old = terms.get(text)
            total = (old[0] if old else 0) + sign * coeff
            terms[text] = (total, at, where)
        return {k: v for k, v in terms.items() if v[0]}, left[1] + sign * right[1]
    resolved, where = _resolved(expr, scope)
    if resolved is not expr and not isinstance(resolved, ast.Name):
        return _linear(resolved, where, depth + 1)
    if isinstance(resolved, (ast.Name, ast.Attribute, ast.Subscript)):
        # a number a project module states at its top level (`config.EPOCHS`, `T_max=
        # config.SCHED["T_max"]`): written in the program, as a literal is, not a setting
        number = constants.module_number(resolved, where)
        if number is not None:
            return {}, float(number)
    if isinstance(resolved, (ast.Name, ast.Attribute, ast.Subscript)) or (
            isinstance(resolved, ast.Call) and isinstance(resolved.func, ast.Attribute)
            and resolved.func.attr == "get"):
        text = ast.unparse(resolved).replace("self.", "")
        return {text: (1.0, resolved, where)}, 0.0
    return None


@rule("LRD010")
def epoch_horizon_for_fewer_epochs_than_the_loop(ctx: FileContext) -> Iterator[Diagnostic]:
    """A CosineAnnealingLR stepped once per pass of an epoch loop (no test of its own inside
    the loop) whose loop makes more passes than ``T_max``: ``T_max=args.epochs -
    args.warmup_epochs`` with ``for epoch in range(args.epochs)`` (a warm-up subtracted from
    the horizon that the loop never holds the cosine back for), or ``T_max=args.epochs`` with
    ``range(args.warmup_epochs + args.epochs)``. Past T_max the cosine climbs back up towards
    the initial LR. Judged only where the two counts share a setting that cancels out (or
    are both numbers the file states) and what is left is a positive number of epochs, or
    settings with positive stated defaults added to the loop's side: never two unrelated
    settings whose values a run may choose. Silent where the loop may leave early, where the
    scheduler (or its optimizer, or its LR) is rebuilt, restored or written during an epoch,
    and for a cosine held by a composite (SequentialLR) or stepped under a test. The counts
    are also read as the trace holds them where the loop runs (``range(CFG.epochs)`` and
    ``T_max=CFG.T_max`` of a config class whose body states both): numbers as written, not
    settings a run chooses. A cosine built under a test is judged where the test is decided
    as the program is written (a config class's constant picking its class) or also holds
    around the step (both under ``if fold in folds:``); one option of a setting's choice is
    left alone, whether the run builds it being the setting's."""
    seen: set[int] = set()
    for e in ctx.program.events:
        sched = e.obj
        if e.kind != "sched_step" or sched is None or sched.guessed or sched.in_composite \
                or sched.origin != "torch" or sched.id in seen \
                or e.info.get("nargs") or e.info.get("kwargs") \
                or any(not _built_as_written(c, e) for c in sched.built_under or ()):
            continue
        cosine = _epoch_cosine(sched)
        if cosine is None:
            continue
        horizon, horizon_scope, literal, named = cosine
        gran, loop = granularity(e)
        if gran != "epoch" or loop is None:
            continue
        passes = _passes(loop)
        if passes is None:
            continue
        run: tuple[dict[str, tuple[float, ast.expr, Scope | None]], float] | None
        sized: tuple[dict[str, tuple[float, ast.expr, Scope | None]], float] | None
        made = loop.passes
        if made is None and isinstance(loop.node, ast.While):
            # a counted `while` (the trace counts the passes of `range` loops only): its
            # bound as the file states it, as the trace reads a `range` bound
            made = _range_passes(loop)
        rebound = ""
        written = _module_bound_count(loop)
        if made is not None and written is not None and written > made:
            # the trace holds the count of a rebinding under a test (`if cfg.debug: EPOCHS =
            # 3` after `EPOCHS = 100`): the count the file binds on the path that skips it
            # is the loop's too
            made = written
            rebound = (f" (the {written} passes the file binds; a test elsewhere rebinds the "
                       "count to fewer)")
        if made is not None and literal is not None:
            # both counts are numbers where the loop runs
            run, sized = ({}, float(made - passes[1])), ({}, literal)
        else:
            run = _linear(passes[0], loop.scope)
            sized = _linear(horizon, horizon_scope)
        if run is None or sized is None:
            continue
        shared = run[0].keys() & sized[0].keys()
        # a setting on both sides, the horizon holding at most as much of it as the loop
        # (`T_max=args.epochs - 5`, `T_max=args.epochs // 2` under `range(args.epochs)`);
        # otherwise the counts are the run's choice
        if (run[0] or sized[0]) and not any(run[0][k][0] >= sized[0][k][0] > 0 for k in shared):
            continue
        left: dict[str, tuple[float, ast.expr, Scope | None]] = {}
        for text in run[0].keys() | sized[0].keys():
            coeff = (run[0][text][0] if text in run[0] else 0) \
                - (sized[0][text][0] if text in sized[0] else 0)
            if coeff:
                left[text] = (coeff, *(run[0].get(text) or sized[0][text])[1:])
        extra = run[1] + passes[1] - sized[1]
        values: list[tuple[str, float, float | None]] = []
        for text, (coeff, at, where) in left.items():
            value = constants.resolve(at, where)
            if coeff < 0:
                break
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                if text not in shared:
                    break
                # a share of the loop's own setting (`T_max=cfg.epochs // 2`): more epochs
                # than T_max whatever the value, though how many is the value's
                value = None
            values.append((text, coeff, value))
        else:
            known = all(v is not None for _, _, v in values)
            total = extra + sum(c * v for _, c, v in values if v is not None)
            if extra < 0 or (known and total <= 0):
                continue
            budget = {id(n.test) for n in _budget_breaks(loop)}
            if any(not _tests_it_exists(c.test, e) and id(c.test) not in budget
                   for c in e.conds_inside(loop)) \
                    or _stops_before_its_count(loop) or _reset_inside(ctx, sched, loop) \
                    or _another_built_inside(ctx, sched, loop) \
                    or _other_scheduler_steps(ctx, sched, e, loop) \
                    or not _trains_in(ctx, e, loop):
                continue
            seen.add(sched.id)
            more = " + ".join([f"`{t}`" if c == 1 else f"{c:g} x `{t}`" for t, c, _ in values]
                              + ([f"{extra:g}"] if extra else []))
            stated = f"{total:g} by default" if values and known else ""
            count = ast.unparse(count_shown(loop))
            runs_while = "while " if isinstance(loop.node, ast.While) else ""
            past = _COSINE_ENDS[sched.cls][0] if sched.cls in _COSINE_ENDS else "T_max"
            end = past if sched.cls in _COSINE_ENDS else "the cosine's end"
            advice = ("Size T_max to the loop's epochs, or step the cosine only after the "
                      "warm-up it leaves room for (SequentialLR, or `if epoch >= warmup:`)"
                      if sched.cls == "CosineAnnealingLR"
                      else f"Size {end} to the loop's epochs" if sched.cls in _COSINE_ENDS
                      else "Size the last milestone plus T_max to the loop's epochs")
            yield Diagnostic.at(
                "LRD010",
                f"{named} ({line_at(sched.path, sched.line, e.path)}) is stepped once per "
                f"epoch (line {e.line}), but the epoch loop "
                f"({line_at(loop.path, loop.line, e.path)}) runs {runs_while}`{count}`: {more} more "
                f"epoch{'s' if total != 1 else ''} than {end}"
                + (f" ({stated})" if stated else "")
                + rebound + _budget_note(loop, e.path)
                + f", so past {past} the cosine climbs back up towards the initial LR for the "
                f"last of them. {advice}",
                e.path,
                e.node,
                evidence={"horizon": short_source(horizon), "loop_line": loop.line,
                          "extra_epochs": total},
            )


def _module_bound_count(loop: Loop) -> int | None:
    """The passes of ``for _ in range(N)`` (or ``range(a, N)``) with each bound an integer
    literal or a module-level name the module binds once, at its top level, to an integer
    literal (``EPOCHS = 100``), read from that statement: what the loop makes on every path
    that skips a rebinding nested under a test (``if cfg.debug: EPOCHS = 3``). None when a
    bound is anything else, or a name the loop's own function binds."""
    call = range_call(loop)
    scope = loop.scope
    if call is None or scope is None:
        return None
    bounds: list[int] = []
    for arg in call.args:
        value = _int_literal(arg)
        if value is None and isinstance(arg, ast.Name):
            if scope.parent is not None and arg.id in scope.vars:
                return None  # the function's own name
            bound = constants.module_assignment(scope.module, arg.id)
            value = _int_literal(bound) if bound is not None else None
        if value is None:
            return None
        bounds.append(value)
    return max(0, bounds[-1] - (bounds[0] if len(bounds) == 2 else 0))


# the cosines whose end is one parameter, with its position
_COSINE_ENDS = {"CosineAnnealingLR": ("T_max", 1), "LinearWarmupCosineAnnealingLR": ("max_epochs", 2)}


def _epoch_cosine(sched: Obj) -> tuple[ast.expr, Scope | None, float | None, str] | None:
    """The cosine end a scheduler stepped once per epoch must not pass: ``(horizon, the scope
    to read it in, its value where the file states it as a number, how the message names
    it)``. A torch CosineAnnealingLR's T_max; a torch SequentialLR whose last scheduler is a
    CosineAnnealingLR, its last milestone plus that T_max (the warm-up hands over at the
    milestone and the cosine then runs T_max steps), when the milestones are written as a
    list of one per hand-over and the two parts can be read together (the milestone a number,
    or both built in one function). None for anything else."""
    if sched.cls in _COSINE_ENDS:
        # (Bolts' warm-up cosine counts its warm-up inside max_epochs: the cosine ends there)
        param, index = _COSINE_ENDS[sched.cls]
        horizon = sched.arg(param, index)
        if horizon is None:
            return None
        literal = _literal_horizon(sched)
        value = literal[2] if literal is not None and literal[0] == param else None
        return horizon, sched.scope, value, f"{sched.cls}({param}={short_source(horizon)})"
    if sched.cls != "SequentialLR" or len(sched.members) < 2:
        return None
    last = sched.members[-1]
    if last.origin != "torch" or last.cls != "CosineAnnealingLR" or last.guessed:
        return None
    milestones = sched.arg("milestones", 2)
    t_max = last.arg("T_max", 1)
    if not isinstance(milestones, (ast.List, ast.Tuple)) or t_max is None \
            or len(milestones.elts) != len(sched.members) - 1:
        return None
    handover = milestones.elts[-1]
    if _int_literal(handover) is not None:
        scope = last.scope
    elif sched.scope is not None and sched.scope is last.scope:
        scope = sched.scope
    else:
        return None
    horizon = ast.BinOp(left=handover, op=ast.Add(), right=t_max)
    first = constants.resolve(handover, sched.scope)
    second = constants.resolve(t_max, last.scope)
    value = float(first + second) if type(first) is int and type(second) is int else None
    named = (f"SequentialLR ending in CosineAnnealingLR(T_max={short_source(t_max)}) after the "
             f"milestone {short_source(handover)}")
    return horizon, scope, value, named


def _built_as_written(c: Cond, step: Event) -> bool:
    """Whether the test ``c`` a scheduler was built under leaves it built whenever ``step``
    steps it: the script's main guard, a test the trace decided as the program is written
    (``CFG.scheduler == "CosineAnnealingLR"`` of a config class), or one the step itself
    runs under, the same way (``if fold in trn_folds:`` around both)."""
    return _main_guard(c.test) or c.decided \
        or any(x.key == c.key and x.branch == c.branch for x in step.conds)


def _main_guard(test: ast.expr | None) -> bool:
    return isinstance(test, ast.Compare) and len(test.ops) == 1 \
        and main_guard(test.left, test.ops[0], test.comparators[0])


def _trains_in(ctx: FileContext, e: Event, loop: Loop) -> bool:
    """A backward pass runs during a pass of ``loop`` (in the trace that steps ``e``): a
    loop that steps an optimizer with no loss to learn from only draws the LR curve."""
    return any(other.kind == "backward" and other.root == e.root and other.in_loop(loop)
               for other in ctx.program.events)


def _other_scheduler_steps(ctx: FileContext, sched: Obj, e: Event, loop: Loop) -> bool:
    """Another scheduler on ``sched``'s optimizer is stepped during a pass of ``loop`` (a
    warm-up beside the cosine: reported, if at all, as competing schedulers)."""
    return any(other.kind == "sched_step" and other.obj is not None and other.obj is not sched
               and sched.optimizer is not None and other.obj.optimizer is sched.optimizer
               and other.root == e.root and other.in_loop(loop)
               for other in ctx.program.events)


@rule("LRD010")
def batch_horizon_divided_by_the_epochs(ctx: FileContext) -> Iterator[Diagnostic]:
    """A horizon stepped after every batch and written as a count of one epoch divided by the
    epochs the loop runs: ``num_training_steps = len(train_set) / batch_size / epochs`` (or
    ``len(loader) // epochs``) with ``for epoch in range(epochs)`` around the batch loop, the
    same setting on both sides. One epoch already makes ``len(loader)`` steps, more than the
    horizon whenever the setting is above one, and the run makes E epochs of them: E * E
    times the horizon, whatever E holds (at one epoch, dividing by it changes nothing). An
    early stop cannot save it (the first epoch runs past the end). Silent when the batch
    loop may leave early, when the step sits under a test inside the epoch loop, and when the
    scheduler or its optimizer is rebuilt or restored during an epoch."""
    seen: set[int] = set()
    for e, sched, param, horizon in _ending_batch_steps(ctx):
        if sched.id in seen:
            continue
        batch_loop = e.loop
        epoch_loop = batch_loop.parent if batch_loop is not None else None
        if horizon is None or batch_loop is None or epoch_loop is None:
            continue
        count = range_call(epoch_loop)
        if count is None:
            continue
        divided = _one_epoch_over(horizon, sched.scope, count.args[-1], epoch_loop.scope)
        if divided is None:
            continue
        if any(not _tests_it_exists(c.test, e) for c in e.conds_inside(epoch_loop)) \
                or _leaves_early(batch_loop):
            continue
        if _rebuilt_inside(ctx, sched, epoch_loop) \
                or _another_built_inside(ctx, sched, epoch_loop):
            continue
        seen.add(sched.id)
        cls = sched.cls or sched.name or "the scheduler"
        per_epoch, epochs = divided
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={short_source(horizon)}) "
            f"({line_at(sched.path, sched.line, e.path)}) spans `{ast.unparse(per_epoch)}` - "
            f"one epoch's count - divided by `{ast.unparse(epochs)}`, but it is stepped after "
            f"every batch (line {e.line}) of an epoch loop "
            f"({line_at(epoch_loop.path, epoch_loop.line, e.path)}) that runs "
            f"`{ast.unparse(count.args[-1])}` epochs: with more than one epoch the first "
            f"epoch alone steps it past its horizon and the run makes epochs x epochs times "
            f"its length, so {_consequence(sched)}. Multiply by the epochs instead of "
            f"dividing (`{ast.unparse(per_epoch)} * {ast.unparse(epochs)}`)",
            e.path,
            e.node,
            evidence={"horizon": short_source(horizon), "loop_line": epoch_loop.line},
        )


def _rebuilt_inside(ctx: FileContext, sched: Obj, loop: Loop) -> bool:
    """As ``_reset_inside``, except that an LR written into the optimizer does not start over
    a scheduler that sets the LR from its own base values at every step (a LambdaLR, a Hugging
    Face warm-up): its next step erases the write and the schedule goes on where it was."""
    return _reset_inside(ctx, sched, loop, lr_write=recomputes_lr(sched.cls or "") is not True)


def _one_epoch_over(horizon: ast.expr, scope: Scope | None, count: ast.expr,
                    count_scope: Scope | None) -> tuple[ast.expr, ast.expr] | None:
    """``(one epoch's count, the divisor)`` for a horizon written ``N / E`` or ``N // E``
    (through names bound to it and ``int(...)``), where ``N`` is one epoch's count of batches
    as a length (``len(loader)``, ``len(dataset) / batch_size``: a ``len`` divided by
    anything, nothing multiplied in) and ``E`` the same setting as the epoch loop's count
    ``count`` (the same source, not a literal)."""
    expr, where = _resolved(horizon, scope, passed=True)
    while isinstance(expr, ast.Call) and dotted(expr.func) in ("int", "math.floor", "math.ceil",
                                                                "round") and expr.args:
        expr, where = _resolved(expr.args[0], where)
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.FloorDiv))):
        return None
    if not _one_epoch_count(expr.left, where):
        return None
    divisor, _ = _resolved(expr.right, where)
    loops, _ = _resolved(count, count_scope)
    if isinstance(divisor, ast.Constant) or isinstance(loops, ast.Constant):
        return None
    text = ast.unparse(divisor).replace("self.", "")
    if text != ast.unparse(loops).replace("self.", ""):
        return None
    return expr.left, expr.right


def _one_epoch_count(expr: ast.expr, scope: Scope | None) -> bool:
    """``len(x)``, or ``len(x)`` divided (``/``, ``//``) by anything, through names bound to
    it and ``int(...)``/``math.ceil(...)``: the batches (or samples per batch) of one pass."""
    expr, scope = _resolved(expr, scope)
    while isinstance(expr, ast.Call) and dotted(expr.func) in ("int", "math.floor", "math.ceil",
                                                                "round", "float") and expr.args:
        expr, scope = _resolved(expr.args[0], scope)
    if isinstance(expr, ast.Call) and dotted(expr.func) == "len" and len(expr.args) == 1:
        return True
    return isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Div, ast.FloorDiv)) \
        and _one_epoch_count(expr.left, scope)


_RESTARTS = ("create", "load_state", "set_last_epoch", "rebind")


@rule("LRD010")
def horizon_of_one_stage_stepped_in_the_next(ctx: FileContext) -> Iterator[Diagnostic]:
    """A CosineAnnealingLR / PolynomialLR / OneCycleLR or a Hugging Face decay to
    ``num_training_steps`` sized for one stage of a staged run and stepped in the next stage
    too: the horizon is the count of one epoch loop (``T_max=warm_epochs`` beside ``for epoch
    in range(warm_epochs)``, stepped once per pass) or that count times the length of the
    loader its batch loop runs over (``total_steps=len(loader) * warm_epochs``, stepped after
    every batch), so that loop, run to its end, spends the whole horizon; the same scheduler
    is then stepped again after that loop (a fine-tuning loop, the next stage) without being
    rebuilt or restored: every one of those steps is past its horizon. Silent when the first
    loop may leave early (``break``, ``return``) or steps under a test of its own, when the
    later step is under a test (a stage that may skip it) or on a branch exclusive with the
    first, and when the scheduler is rebuilt, restored or repositioned (or its optimizer
    rebuilt) between the two."""
    seen: set[int] = set()
    events = ctx.program.events
    for e in events:
        if e.kind != "sched_step" or e.obj is None or e.obj.guessed or e.obj.in_composite:
            continue
        sched = e.obj
        if sched.id in seen or e.info.get("nargs") or e.info.get("kwargs"):
            continue
        spent = _stage_spends_horizon(e, sched)
        if spent is None:
            continue
        stage, param, horizon = spent
        later = _stepped_after_stage(ctx, e, sched, stage)
        if later is None:
            continue
        seen.add(sched.id)
        cls = sched.cls or sched.name or "the scheduler"
        per = "after every batch" if stage is not e.loop else "once per pass"
        again = "here"
        frame = later.frame
        if later.node is e.node and frame is not None and frame.call is not None:
            # one helper stepping it, called in both stages: name the later call
            again = f"by the call at {line_at(frame.call_path, frame.call.lineno, later.path)}"
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={short_source(horizon)}) "
            f"({line_at(sched.path, sched.line, later.path)}) is sized for the loop over "
            f"`{stage.over}` ({line_at(stage.path, stage.line, later.path)}), which steps it "
            f"{per} ({line_at(e.path, e.line, later.path)}) and so spends its whole horizon; "
            f"the same scheduler is stepped again {again}, after that loop has ended (the "
            f"next stage), so every step from then on is past its horizon and "
            f"{_consequence(sched)}. Size {param} to all the stages it is stepped in, or build "
            f"a new scheduler for the next stage",
            later.path,
            later.node,
            evidence={"horizon": short_source(horizon), "stage_loop_line": stage.line,
                      "stage_step_line": e.line},
        )


def _stage_spends_horizon(e: Event, sched: Obj) -> tuple[Loop, str, ast.expr] | None:
    """``(the epoch loop, the horizon's parameter, its expression)`` when the step ``e`` runs
    in an epoch loop ``for _ in range(n)`` (from 0) that, run to its end, takes exactly as
    many steps of ``sched`` as its horizon: once per pass with a horizon of ``n``, or after
    every batch of a loader with a horizon of ``n * len(loader)`` (OneCycleLR's ``epochs=n``
    with ``steps_per_epoch=len(loader)`` too)."""
    if sched.origin == "torch" and sched.cls not in _ENDING:
        return None
    if sched.origin not in ("torch", "hf"):
        return None
    gran, loop = granularity(e)
    if loop is None or gran not in ("batch", "epoch"):
        return None
    if gran == "batch":
        stage = loop.parent
        batch_loop: Loop | None = loop
    else:
        stage, batch_loop = loop, None
    if stage is None or batch_loop is not None and batch_loop.parent is not stage:
        return None
    count = _range_count(stage)
    if count is None or _leaves_early(stage) or (batch_loop and _leaves_early(batch_loop)):
        return None
    stage_scope = stage.scope
    frame = e.frame_of(stage)
    if isinstance(count, ast.Name) and frame is not None and frame.fn is not None \
            and frame.call is not None and count.id in {a.arg for a in (*frame.fn.args.posonlyargs, *frame.fn.args.args,
                                             *frame.fn.args.kwonlyargs)}:
        # `for epoch in range(epochs)` in a function called once per stage: this call's count
        # is what it passed (one loop object serves every call, with one scope)
        passed = frame.argument(count.id)
        if passed is None:
            return None
        count, stage_scope = passed, None
    if any(not _tests_it_exists(c.test, e) for c in e.conds_inside(stage)):
        return None
    params = [(p, x) for p, x in _horizon_args(sched) if p != "steps_per_epoch"]
    if sched.cls == "OneCycleLR" and sched.origin == "torch" and not params:
        epochs, per_epoch = sched.arg("epochs", 3), sched.arg("steps_per_epoch", 4)
        if batch_loop is None or epochs is None or per_epoch is None:
            return None
        if not _same_count(epochs, sched.scope, count, stage_scope):
            return None
        if not _len_of_what_loop_runs(per_epoch, sched.scope, batch_loop):
            return None
        return stage, "epochs", epochs
    if not params:
        return None
    param, horizon = params[0]
    if batch_loop is None:
        if _same_count(horizon, sched.scope, count, stage_scope):
            return stage, param, horizon
        return None
    expr, where = _resolved(horizon, sched.scope)
    while isinstance(expr, ast.Call) and dotted(expr.func) in ("int", "math.floor", "math.ceil",
                                                                "round") and expr.args:
        expr, where = _resolved(expr.args[0], where)
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)):
        return None
    for epochs, length in ((expr.left, expr.right), (expr.right, expr.left)):
        if _same_count(epochs, where, count, stage_scope) \
                and _len_of_what_loop_runs(length, where, batch_loop):
            return stage, param, horizon
    return None


def _len_of_what_loop_runs(expr: ast.expr, scope: Scope | None, loop: Loop) -> bool:
    """Whether ``expr`` is ``len(x)`` with ``x`` what ``loop`` iterates: the same object the
    trace holds as a loader, or the same expression as written (through ``enumerate(...)`` and
    a progress bar in the loop's header)."""
    expr, scope = _resolved(expr, scope)
    if not (isinstance(expr, ast.Call) and dotted(expr.func) == "len" and len(expr.args) == 1):
        return False
    found = _len_of_loader(expr, scope, built=False)
    if found is not None and _iterates_loader(loop, found[0], found[1]):
        return True
    over = loop.over_node
    for _ in range(_DEPTH):
        if isinstance(over, ast.Call) and over.args \
                and (dotted(over.func) or "").rsplit(".", 1)[-1] in _LOADER_WRAPPERS:
            over = over.args[0]
            continue
        break
    return over is not None and not isinstance(over, ast.Constant) \
        and _same_count(expr.args[0], scope, over, loop.scope)


def _same_count(a: ast.expr, a_scope: Scope | None, b: ast.expr, b_scope: Scope | None) -> bool:
    """Whether two expressions read the same value: the same as written (through names bound
    to them), the same setting read in two methods of one object (``cfg.warm_epochs`` in
    ``__init__``, ``self.cfg.warm_epochs`` in ``fit``), or one object as the trace holds it
    (a parameter in one place, the attribute it was stored in elsewhere)."""
    if _same_value(a, a_scope, b, b_scope):
        return True
    text = _setting_text(a, a_scope)
    if text and text == _setting_text(b, b_scope):
        return True
    value_a, value_b = _value_of(a, a_scope), _value_of(b, b_scope)
    return value_a is not None and value_a is value_b


def _value_of(expr: ast.expr, scope: Scope | None) -> Any:
    """The object the trace holds for a bare name or a ``self.x`` attribute (None when
    unknown or a plain constant)."""
    value = _held(expr, scope)
    if value is None or isinstance(value, (int, float, str, bool, ast.AST)):
        return None
    return value


def _held(expr: ast.expr, scope: Scope | None) -> Any:
    """What ``scope`` holds for ``expr``, a bare name or a ``self.x`` attribute (None for
    any other expression, or when nothing is held)."""
    name = dotted(expr)
    if name is None or scope is None:
        return None
    if "." not in name:
        return scope.lookup(name)
    if name.count(".") == 1 and name.startswith("self.") and scope.self_val is not None:
        return scope.self_val.attrs.get(name[len("self."):])
    return None


def _stepped_after_stage(ctx: FileContext, first: Event, sched: Obj, stage: Loop
                         ) -> Event | None:
    """The first step of ``sched`` that runs after the loop ``stage`` has ended (outside it,
    later in the same trace, not on a branch exclusive with ``first``, under no test other
    than the scheduler's existence), with nothing between that rebuilds, restores or
    repositions the scheduler or rebuilds its optimizer; None when there is none."""
    events = [x for x in ctx.program.events if x.root == first.root]
    run = first.frame_of(stage)

    def in_this_run(x: Event) -> bool:
        # (a later call of the function that runs the stage loop is another run of it)
        return x.in_loop(stage) and x.frame_of(stage) is run

    inside = [x for x in events if in_this_run(x)]
    if not inside:
        return None
    end = max(x.order for x in inside)
    for x in sorted(events, key=lambda x: x.order):
        if x.order <= end or in_this_run(x):
            continue
        if x.obj is sched and x.kind in _RESTARTS:
            return None
        if sched.optimizer is not None and x.obj is sched.optimizer \
                and x.kind in ("create", "load_state", "rebind"):
            return None
        if x.kind == "create" and x.obj is not None and x.obj is not sched and (
                sched.optimizer is not None and x.obj.optimizer is sched.optimizer):
            return None
        if x.kind != "sched_step" or x.obj is not sched:
            continue
        if x.info.get("nargs") or x.info.get("kwargs") or exclusive(first, x):
            return None
        outer = [c for c in x.conds if not any(c is d for d in first.conds)]
        if any(not _tests_it_exists(c.test, x) for c in outer):
            return None
        return x
    return None


@rule("LRD010")
def onecycle_counts_whole_batches_only(ctx: FileContext) -> Iterator[Diagnostic]:
    """OneCycleLR sized with whole batches only (``steps_per_epoch=len(dataset) //
    batch_size``, or ``total_steps=epochs * (len(dataset) // batch_size)``) and stepped after
    every batch of a DataLoader over that same dataset with that same batch size, which keeps
    the last partial batch (no ``drop_last=True``, no sampler of its own): each epoch yields
    ``ceil(N / B)`` batches where the schedule counts ``floor(N / B)``, one step more per epoch
    whenever N is not a multiple of B, so OneCycleLR raises before the last epoch ends. Silent
    when both numbers are known and B divides N, when the step is under a test, when a loop
    may leave early, or when the schedule is restarted during the run."""
    seen: set[int] = set()
    for e, sched in _batch_steps(ctx):
        if sched.id in seen or sched.origin != "torch" or sched.cls != "OneCycleLR":
            continue
        batch_loop = e.loop
        epoch_loop = batch_loop.parent if batch_loop is not None else None
        if batch_loop is None or epoch_loop is None or e.conds_inside(epoch_loop):
            continue
        loader = _iterated_loader(batch_loop)
        if loader is None or not _built_in_view(loader) or loader.call is None:
            continue
        if any(k.arg in ("sampler", "batch_sampler") for k in loader.call.keywords) \
                or len(loader.call.args) > 2:
            continue
        drop = loader.arg("drop_last", 6)
        if drop is not None and not (isinstance(drop, ast.Constant) and drop.value is False):
            continue
        dataset, size = loader.arg("dataset", 0), loader.arg("batch_size", 1)
        if dataset is None or size is None:
            continue
        horizon, param = _onecycle_horizon(sched)
        if horizon is None:
            continue
        division = _whole_batches(horizon, sched.scope, dataset, loader.scope, size)
        if division is None:
            continue
        n = constants.resolve(division.left.args[0], sched.scope) \
            if isinstance(division.left, ast.Call) else None
        n = len(n) if isinstance(n, (list, tuple)) else None
        b = constants.resolve(size, loader.scope)
        if isinstance(n, int) and type(b) is int and b > 0 and n % b == 0:
            continue
        if _extra_step_absorbed(ctx, sched, param, epoch_loop, batch_loop):
            continue
        seen.add(sched.id)
        written = ast.unparse(division)
        yield Diagnostic.at(
            "LRD010",
            f"OneCycleLR({param}={short_source(horizon)}) "
            f"({line_at(sched.path, sched.line, e.path)}) counts whole batches only "
            f"(`{written}` rounds down), but it is stepped after every batch (line {e.line}) "
            f"of the DataLoader over `{ast.unparse(dataset)}` "
            f"({line_at(loader.path, loader.line, e.path)}), which also yields the last "
            "partial batch (drop_last is False): whenever the dataset's length is not a "
            "multiple of the batch size each epoch steps the schedule once more than it "
            "counts, and OneCycleLR raises `Tried to step ... times` before the last epoch "
            "ends. Size it with "
            "`len(loader)` (or build the loader with drop_last=True)",
            e.path,
            e.node,
            evidence={"horizon": short_source(horizon), "division": written,
                      "loader_line": loader.line},
        )


def _onecycle_horizon(sched: Obj) -> tuple[ast.expr | None, str]:
    """OneCycleLR's horizon as written: ``total_steps``, else ``steps_per_epoch``."""
    horizon = sched.arg("total_steps", 2)
    if horizon is not None:
        return horizon, "total_steps"
    return sched.arg("steps_per_epoch", 4), "steps_per_epoch"


def _extra_step_absorbed(ctx: FileContext, sched: Obj, param: str, epoch_loop: Loop,
                         batch_loop: Loop) -> bool:
    """One step more per epoch than OneCycleLR counts need not raise: the epoch loop stops
    before the schedule's last epochs (room to spare), a loop may leave early, or the
    schedule is restarted during the run."""
    epochs = constants.resolve(sched.arg("epochs", 3), sched.scope) \
        if param == "steps_per_epoch" else None
    count = _pass_count(epoch_loop)
    if type(epochs) is int and count is not None and count < epochs:
        return True
    return _leaves_early(epoch_loop) or _leaves_early(batch_loop) \
        or _reset_inside(ctx, sched, epoch_loop) or _another_built_inside(ctx, sched, epoch_loop)


@rule("LRD010")
def onecycle_floor_updates_with_a_tail_update(ctx: FileContext) -> Iterator[Diagnostic]:
    """OneCycleLR sized with whole accumulation windows only (``total_steps=len(loader) //
    accum * epochs``, ``steps_per_epoch=len(loader) // accum``) and stepped with the updates of
    an accumulation test that also flushes the last partial window (``if (i + 1) % accum == 0
    or i + 1 == len(loader):``): each epoch makes ``ceil(len(loader) / accum)`` updates where
    the schedule counts ``floor(len(loader) / accum)``, one step more per epoch whenever the
    loader's length is not a multiple of ``accum``, so OneCycleLR raises `Tried to step ...
    times` before the last epoch ends. The divisor and the modulo must be the same expression
    and the loader the one the batch loop runs over; silent when both numbers are known and
    divide, when a loop may leave early, or when the schedule is restarted during the run."""
    seen: set[int] = set()
    for e, sched in _steps_under_a_test(ctx):
        if sched.id in seen or sched.origin != "torch" or sched.cls != "OneCycleLR":
            continue
        batch_loop = e.loop
        epoch_loop = batch_loop.parent if batch_loop is not None else None
        if batch_loop is None or epoch_loop is None or e.conds_inside(epoch_loop) != \
                e.conds_inside(batch_loop):
            continue
        own = e.conds_inside(batch_loop)
        if len(own) != 1 or own[0].branch != 0 or not isinstance(own[0].test, ast.BoolOp) \
                or not isinstance(own[0].test.op, ast.Or):
            continue
        loader = _iterated_loader(batch_loop)
        if loader is None:
            continue
        parts = own[0].test.values
        moduli = [m for m in map(_window_modulus, parts) if m is not None]
        if len(moduli) != 1 or not any(_ends_the_loader(p, batch_loop, loader) for p in parts) \
                or len(parts) != 2:
            continue
        horizon, param = _onecycle_horizon(sched)
        if horizon is None:
            continue
        division = _whole_windows(horizon, sched.scope, loader, moduli[0], batch_loop.scope)
        if division is None or _padded(horizon, sched.scope):
            continue
        batches, window = _loader_batches(loader), constants.resolve(moduli[0], batch_loop.scope)
        if isinstance(batches, int) and type(window) is int and window > 0 \
                and batches % window == 0:
            continue
        if _extra_step_absorbed(ctx, sched, param, epoch_loop, batch_loop):
            continue
        seen.add(sched.id)
        written = ast.unparse(division)
        yield Diagnostic.at(
            "LRD010",
            f"OneCycleLR({param}={short_source(horizon)}) "
            f"({line_at(sched.path, sched.line, e.path)}) counts whole accumulation windows "
            f"only (`{written}` rounds down), but it is stepped with every update under "
            f"`{own[0].text}`, which also makes an update for the last partial window of "
            f"each epoch: whenever the loader's length is not a multiple of "
            f"`{ast.unparse(moduli[0])}` each epoch steps the schedule once more than it "
            "counts, and OneCycleLR raises `Tried to step ... times` before the last epoch "
            f"ends. Count the updates with a ceiling (`math.ceil(len(loader) / "
            f"{ast.unparse(moduli[0])})` per epoch)",
            e.path,
            e.node,
            evidence={"horizon": short_source(horizon), "division": written,
                      "guard": own[0].text},
        )


def _steps_under_a_test(ctx: FileContext) -> Iterator[tuple[Event, Obj]]:
    """Plain ``step()`` calls of a known scheduler inside a batch loop (under a test or not)."""
    for e in ctx.program.events:
        if e.kind != "sched_step" or e.obj is None or e.obj.guessed or e.obj.in_composite:
            continue
        if e.info.get("nargs") or e.info.get("kwargs"):
            continue
        gran, loop = granularity(e)
        if loop is not None and e.loop is loop and loop.parent is not None:
            yield e, e.obj


def _window_modulus(test: ast.expr) -> ast.expr | None:
    """The divisor of a window test: ``k`` in ``(i + 1) % k == 0`` or ``not (i + 1) % k``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) \
            and isinstance(test.operand, ast.BinOp) and isinstance(test.operand.op, ast.Mod):
        return test.operand.right
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        sides = [test.left, test.comparators[0]]
        if any(isinstance(x, ast.Constant) and x.value == 0 for x in sides):
            mod = next((x for x in sides if isinstance(x, ast.BinOp)
                        and isinstance(x.op, ast.Mod)), None)
            if mod is not None:
                return mod.right
    return None


def _ends_the_loader(test: ast.expr, loop: Loop, loader: Obj) -> bool:
    """A test that holds on the last batch of ``loop`` only: an equality between an
    expression of the loop's index and ``len()`` of the loader it runs over (``i + 1 ==
    len(loader)``, ``step == len(loader) - 1``)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 \
            or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    lengths = [n for side in sides for n in ast.walk(side)
               if isinstance(n, ast.Call) and dotted(n.func) == "len" and len(n.args) == 1]
    if not any(_loader(n.args[0], loop.scope, built=False) is loader for n in lengths):
        return False
    return any(isinstance(n, ast.Name) and n.id in loop.targets
               for side in sides for n in ast.walk(side))


def _rounded_down(node: ast.AST) -> ast.BinOp | None:
    """The division ``node`` rounds down: ``a // b`` itself, the ``a / b`` of ``int(a / b)``
    or ``math.floor(a / b)``; None for any other node."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.FloorDiv):
        return node
    if isinstance(node, ast.Call) and dotted(node.func) in ("int", "math.floor") \
            and len(node.args) == 1 and isinstance(node.args[0], ast.BinOp) \
            and isinstance(node.args[0].op, ast.Div):
        return node.args[0]
    return None


def _whole_windows(expr: ast.expr, scope: Scope | None, loader: Obj, window: ast.expr,
                   w_scope: Scope | None, depth: int = 0) -> ast.BinOp | None:
    """The ``len(loader) // window`` (or ``int(len(loader) / window)``) in ``expr``,
    following names, with the batch loop's own loader and the window test's divisor."""
    if depth > _DEPTH:
        return None
    resolved, where = _resolved(expr, scope)
    for node in ast.walk(resolved):
        division = _rounded_down(node)
        if division is not None:
            found = _len_of_loader(division.left, where, built=False)
            if found is not None and found[0] is loader \
                    and _same_value(division.right, where, window, w_scope):
                return division
            continue
        if isinstance(node, ast.Name) and node is not resolved:
            inner = _whole_windows(node, where, loader, window, w_scope, depth + 1)
            if inner is not None:
                return inner
    return None


def _padded(expr: ast.expr, scope: Scope | None, depth: int = 0) -> bool:
    """Whether a horizon adds to (or takes the larger of) its count anywhere, following names
    (``len(loader) // accum * epochs + epochs``, ``max(total, 1)``): room the count leaves for
    the extra steps, or a count this rule cannot read."""
    if depth > _DEPTH:
        return True
    resolved, where = _resolved(expr, scope)
    for node in ast.walk(resolved):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            return True
        if isinstance(node, ast.Call) and dotted(node.func) in ("max", "math.ceil", "round"):
            return True
        if isinstance(node, ast.Name) and node is not resolved \
                and _padded(node, where, depth + 1):
            return True
    return False


def _loader_batches(loader: Obj) -> int | None:
    """How many batches a DataLoader built in view yields, when its dataset's length and its
    batch size are numbers here (``ceil(n / b)``, ``floor`` with ``drop_last=True``)."""
    if not _built_in_view(loader):
        return None
    dataset, size = loader.arg("dataset", 0), loader.arg("batch_size", 1)
    if dataset is None or size is None:
        return None
    items = constants.resolve(dataset, loader.scope)
    n = len(items) if isinstance(items, (list, tuple)) else None
    b = constants.resolve(size, loader.scope)
    if n is None or type(b) is not int or b <= 0:
        return None
    drop = loader.arg("drop_last", 6)
    if isinstance(drop, ast.Constant) and drop.value is True:
        return n // b
    return -(-n // b)


def _iterated_loader(loop: Loop, held_first: bool = True) -> Obj | None:
    """The DataLoader that ``loop`` runs over (through ``enumerate``, a progress bar or names
    bound to them), or None. ``held_first``: a name is asked for the loader it holds before
    it is followed to the expression bound to it (``for x in loader`` with the loader built
    in view); otherwise only the expression the walk ends on is."""
    expr, scope = loop.over_node, loop.scope
    if expr is None:
        return None
    for _ in range(_DEPTH):
        held = _loader(expr, scope, built=False) if held_first else None
        if held is not None:
            return held
        expr, scope = _resolved(expr, scope)
        if isinstance(expr, ast.Call) and expr.args \
                and (dotted(expr.func) or "").rsplit(".", 1)[-1] in _LOADER_WRAPPERS:
            expr = expr.args[0]
            continue
        break
    return _loader(expr, scope, built=False)


def _whole_batches(expr: ast.expr, scope: Scope | None, dataset: ast.expr,
                   d_scope: Scope | None, size: ast.expr, depth: int = 0) -> ast.BinOp | None:
    """The ``len(dataset) // batch_size`` (or ``int(len(dataset) / batch_size)``) in
    ``expr``, following names (a few levels: ``steps = steps // accum`` binds a name to an
    expression that reads it), with the loader's own dataset and batch size; None if none."""
    if depth > _DEPTH:
        return None
    resolved, where = _resolved(expr, scope)
    for node in ast.walk(resolved):
        division = _rounded_down(node)
        if division is not None:
            left = division.left
            if isinstance(left, ast.Call) and dotted(left.func) == "len" \
                    and len(left.args) == 1 \
                    and _same_value(left.args[0], where, dataset, d_scope, literals=True) \
                    and _same_value(division.right, where, size, d_scope, literals=True):
                return division
            continue
        if isinstance(node, ast.Name) and node is not resolved:
            inner = _whole_batches(node, where, dataset, d_scope, size, depth + 1)
            if inner is not None:
                return inner
    return None



# calls that end the program (or the training function) from inside a loop
_EXIT_CALLS = frozenset({"exit", "quit", "_exit", "abort"})
_LOOPS = (ast.While, ast.For, ast.AsyncFor)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _endless(node: ast.AST) -> bool:
    """A ``while True:`` / ``while 1:`` loop (its test a constant that is always true), or a
    ``for`` over ``itertools.count()``: a loop with no end of its own."""
    if isinstance(node, ast.While):
        return isinstance(node.test, ast.Constant) and node.test.value is not None \
            and bool(node.test.value)
    return isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call) \
        and (dotted(node.iter.func) or "") in ("itertools.count", "count")


def _exits(node: ast.AST) -> bool:
    """``node`` leaves the function or the program: ``return``, ``raise``, a ``yield`` (a
    generator's consumer can stop it) or a call of ``sys.exit`` / ``exit`` / ``quit`` /
    ``os._exit`` / ``os.abort``."""
    if isinstance(node, (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom)):
        return True
    if isinstance(node, ast.Call):
        name = dotted(node.func) or ""
        return name.rsplit(".", 1)[-1] in _EXIT_CALLS
    return False


def _never_left(stmt: ast.While | ast.For | ast.AsyncFor) -> bool:
    """Whether nothing in an endless loop's body leaves it: no ``break`` of its own (one in a
    loop inside it leaves that loop only; one in that loop's ``else`` leaves this one), no
    ``return``, ``raise``, ``yield`` or exit call anywhere in it (functions and classes
    defined inside are not its code)."""
    todo: list[ast.AST] = list(stmt.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Break) or _exits(node):
            return False
        if isinstance(node, _DEFS):
            continue
        if isinstance(node, _LOOPS):
            inner: list[ast.AST] = [node.test if isinstance(node, ast.While) else node.iter,
                                    *node.body]
            while inner:
                sub = inner.pop()
                if _exits(sub):
                    return False
                if not isinstance(sub, _DEFS):
                    inner.extend(ast.iter_child_nodes(sub))
            todo.extend(node.orelse)
            continue
        todo.extend(ast.iter_child_nodes(node))
    return True


def _statement(ctx: FileContext, loop: Loop, cache: dict[str, dict[int, list[ast.AST]]]
               ) -> ast.While | ast.For | ast.AsyncFor | None:
    """The loop statement of the file that ``loop`` stands for: its own node, or, for a loop
    the tracer rebuilt (a ``while`` whose ``try`` restarts an iterator on StopIteration is read
    as a loop over passes around a loop over batches), the statement written at its line with
    the same header. None for a loop no statement spells (the batches of such a rebuilt loop,
    Lightning's and Ignite's loops). ``cache`` holds each file's loop statements by line."""
    if loop.path not in cache:
        tree = ctx.tree_of(loop.path)
        by_line: dict[int, list[ast.AST]] = {}
        for n in ast.walk(tree) if tree is not None else ():
            if isinstance(n, _LOOPS):
                by_line.setdefault(n.lineno, []).append(n)
        cache[loop.path] = by_line
    node = loop.node
    for stmt in cache[loop.path].get(loop.line, []):
        if stmt is node:
            return stmt
        if type(stmt) is type(node) and isinstance(stmt, ast.While) \
                and isinstance(node, ast.While) and ast.dump(stmt.test) == ast.dump(node.test):
            return stmt
    return None


def _header(stmt: ast.While | ast.For | ast.AsyncFor) -> str:
    """The loop's header as written: ``while True:``, ``for step in itertools.count():``."""
    if isinstance(stmt, ast.While):
        return f"while {ast.unparse(stmt.test)}:"
    return f"for {ast.unparse(stmt.target)} in {ast.unparse(stmt.iter)}:"


def _in_body(node: ast.AST, stmt: ast.While | ast.For | ast.AsyncFor) -> bool:
    """Whether ``node`` is written in the loop's body itself (not in a function or class
    defined there)."""
    todo: list[ast.AST] = list(stmt.body)
    while todo:
        item = todo.pop()
        if item is node:
            return True
        if not isinstance(item, _DEFS):
            todo.extend(ast.iter_child_nodes(item))
    return False


def _interrupt_handled(tree: ast.Module | None, stmt: ast.AST) -> bool:
    """Whether the loop runs inside a ``try`` whose handler catches KeyboardInterrupt (a loop
    meant to run until stopped by hand)."""
    if tree is None:
        return False
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not any(
                h.type is not None and "KeyboardInterrupt" in ast.unparse(h.type)
                for h in node.handlers):
            continue
        if any(sub is stmt for part in node.body for sub in ast.walk(part)):
            return True
    return False


def _ending_horizon(sched: Obj) -> str | None:
    """The horizon, as written, after which ``sched``'s schedule is over (OneCycleLR's
    ``total_steps`` or ``epochs * steps_per_epoch``, a cosine's ``T_max``, a polynomial's
    ``total_iters``, a Hugging Face builder's ``num_training_steps``); None for the others."""
    if sched.origin == "torch" and sched.cls == "OneCycleLR":
        total = sched.arg("total_steps", 2)
        if total is not None:
            return short_source(total)
        epochs, per_epoch = sched.arg("epochs", 3), sched.arg("steps_per_epoch", 4)
        if epochs is not None and per_epoch is not None:
            return f"{short_source(epochs)} * {short_source(per_epoch)}"
        return None
    if not (sched.origin == "hf" or (sched.origin == "torch" and sched.cls in _ENDING)):
        return None
    return next((short_source(x) for _, x in _horizon_args(sched)), None)


@rule("LRD010")
def horizon_stepped_in_an_endless_loop(ctx: FileContext) -> Iterator[Diagnostic]:
    """A scheduler whose schedule ends after a fixed number of steps (OneCycleLR, a cosine, a
    polynomial decay, a Hugging Face warm-up schedule) stepped on every pass of a ``while
    True:`` loop (or a ``for`` over ``itertools.count()``) that nothing leaves: no ``break`` of
    its own, ``return``, ``raise`` or exit call. The step count has no bound, so the scheduler
    is stepped past its horizon: OneCycleLR raises at ``total_steps + 1`` (the loop's only way
    out is that crash), a cosine climbs back up, a decay sits at its end. A step under a
    condition inside the loop, a step in a function the loop calls, a scheduler rebuilt or
    repositioned in the loop and a loop inside a ``try`` that catches KeyboardInterrupt (run
    until stopped by hand) are left alone. Only loops written in the file count: the loops
    the tracer stands in for the code (Lightning's, a restarted iterator's batches) are read
    through the statement they come from."""
    seen: set[int] = set()
    statements: dict[str, dict[int, list[ast.AST]]] = {}
    for e in ctx.program.events:
        sched = e.obj
        if e.kind != "sched_step" or sched is None or sched.guessed or sched.in_composite \
                or sched.id in seen or e.loop is None:
            continue
        if e.info.get("nargs") or e.info.get("kwargs"):
            continue
        horizon = _ending_horizon(sched)
        if horizon is None:
            continue
        found = next(((lp, st) for lp in e.loop.ancestors() if lp.path == e.path
                      and _endless(lp.node) and (st := _statement(ctx, lp, statements))
                      is not None), None)
        if found is None:
            continue
        endless, stmt = found
        if e.conds_inside(endless) or not _in_body(e.node, stmt) or not _never_left(stmt):
            continue
        if _reset_inside(ctx, sched, endless, lr_write=False) \
                or _interrupt_handled(ctx.tree_of(e.path), stmt):
            continue
        seen.add(sched.id)
        cls = sched.cls or sched.name or "the scheduler"
        yield Diagnostic.at(
            "LRD010",
            f"{cls} ({line_at(sched.path, sched.line, e.path)}) ends its schedule after "
            f"`{horizon}` steps, but it is stepped (line {e.line}) on every pass of "
            f"`{_header(stmt)}` (line {stmt.lineno}), which nothing "
            f"leaves (no break, return or exit): the steps have no bound, so it is stepped past "
            f"its horizon: {_consequence(sched)}. Stop the loop when the step count reaches "
            f"the horizon (`if step >= {horizon}: break`)",
            e.path,
            e.node,
            evidence={"horizon": horizon, "loop_line": stmt.lineno, "step_line": e.line},
        )


def _offset_passes(loop: Loop) -> tuple[ast.expr, ast.expr] | None:
    """``(start, n)`` for an epoch loop ``for e in range(start, start + n)`` (or ``n + start``)
    whose start is not a literal: ``n`` passes counted from wherever the run resumed."""
    call = range_call(loop)
    if call is None or len(call.args) != 2:
        return None
    start, stop = call.args
    if isinstance(start, ast.Constant) or not (
            isinstance(stop, ast.BinOp) and isinstance(stop.op, ast.Add)):
        return None
    for same, count in ((stop.left, stop.right), (stop.right, stop.left)):
        if ast.dump(same) == ast.dump(start):
            return start, count
    return None


def _restored_before(ctx: FileContext, sched: Obj, e: Event, loop: Loop) -> Event | None:
    """The event, before ``loop`` is entered, that restores ``sched``'s state from a
    checkpoint (``load_state_dict``) or sets its position (``last_epoch``); None if none."""
    for r in ctx.events_by_root.get(e.root, []):
        if r.obj is sched and r.kind in ("load_state", "set_last_epoch") \
                and r.order < e.order and not r.in_loop(loop):
            return r
    return None


@rule("LRD010")
def restored_onecycle_runs_its_epochs_again(ctx: FileContext) -> Iterator[Diagnostic]:
    """A OneCycleLR sized for E epochs (``epochs=E``, or ``total_steps=E * len(loader)``) whose
    state is restored from a checkpoint before the epoch loop, stepped after every batch of
    ``for epoch in range(start, start + E)``: the resumed run makes E more passes although the
    restored scheduler has already spent ``start`` epochs of its horizon, so it is stepped past
    its total and raises. The usual resume, ``range(start, E)``, and a scheduler built fresh
    for the resumed run are left alone, as are a loop that may leave early, a step under a test
    and a scheduler rebuilt in the loop."""
    seen: set[int] = set()
    for e, sched in _batch_steps(ctx):
        if sched.id in seen or sched.origin != "torch" or sched.cls != "OneCycleLR":
            continue
        batch_loop = e.loop
        epoch_loop = batch_loop.parent if batch_loop is not None else None
        if batch_loop is None or epoch_loop is None or e.conds_inside(epoch_loop):
            continue
        total = sched.arg("total_steps", 2)
        if total is not None:
            sized = _epochs_of_batches(total, sched.scope)
            if sized is None or sized[1] is None:
                continue
            epochs: ast.expr = sized[1]
        else:
            stated = sched.arg("epochs", 3)
            if stated is None or sched.arg("steps_per_epoch", 4) is None:
                continue
            epochs = stated
        found = _offset_passes(epoch_loop)
        if found is None:
            continue
        start, count = found
        if not (_same_value(count, epoch_loop.scope, epochs, sched.scope)
                or ast.dump(count) == ast.dump(epochs)):
            continue
        restore = _restored_before(ctx, sched, e, epoch_loop)
        if restore is None or _written_inside(sched, epoch_loop) \
                or _leaves_early(epoch_loop) or _leaves_early(batch_loop) \
                or _reset_inside(ctx, sched, epoch_loop):
            continue
        seen.add(sched.id)
        node = epoch_loop.node
        assert isinstance(node, (ast.For, ast.AsyncFor))  # (_offset_passes read its range)
        yield Diagnostic.at(
            "LRD010",
            f"OneCycleLR ({line_at(sched.path, sched.line, e.path)}) is sized for "
            f"`{ast.unparse(epochs)}` epochs and its state is restored "
            f"({line_at(restore.path, restore.line, e.path)}) before the epoch loop "
            f"`for ... in {ast.unparse(node.iter)}` "
            f"({line_at(epoch_loop.path, epoch_loop.line, e.path)}), which runs "
            f"`{ast.unparse(count)}` more epochs from `{ast.unparse(start)}`: the restored "
            f"schedule has already spent `{ast.unparse(start)}` epochs of its steps, so it is "
            f"stepped past its total before the resumed run ends and {_consequence(sched)}. "
            f"Run the loop to the schedule's end (`range({ast.unparse(start)}, "
            f"{ast.unparse(epochs)})`) or size a fresh scheduler for the added epochs",
            e.path,
            e.node,
            evidence={"epochs": ast.unparse(epochs), "loop_line": epoch_loop.line,
                      "restore_line": restore.line, "step_line": e.line},
        )


@rule("LRD010")
def batch_horizon_a_share_of_the_run(ctx: FileContext) -> Iterator[Diagnostic]:
    """A per-batch schedule sized ``E * len(loader) // k`` (``len(loader) * E / k``, k a number
    above 1 written right there), E the epoch loop's own count (the same setting, or the
    number it runs), stepped after every batch of that loader where every optimizer update
    of the batch loop runs unconditionally (no gradient accumulation the ``k`` could stand
    for): the horizon is spent after 1/k of the run, and the rest steps the schedule past its
    end (OneCycleLR raises, a cosine climbs back up, a linear decay sits at zero). Silent
    where a loop may leave early, where the step is under a test, and where the scheduler,
    its optimizer or its LR is rebuilt or written during an epoch."""
    seen: set[int] = set()
    for e, sched, param, horizon in _ending_batch_steps(ctx):
        if horizon is None or sched.id in seen:
            continue
        whole, whole_scope, short, _ = _short_by(horizon, sched.scope)
        if short:
            continue
        updates = _updates_of_batches(whole, whole_scope)
        if updates is None or updates[1] is None:
            continue
        epochs, written, loader_obj, length, k = updates
        assert written is not None
        if not (isinstance(k, ast.Constant) and isinstance(k.value, (int, float))
                and not isinstance(k.value, bool) and k.value > 1):
            continue
        batch_loop = e.loop
        epoch_loop = batch_loop.parent if batch_loop is not None else None
        if batch_loop is None or epoch_loop is None:
            continue
        if not (epoch_loop.passes is not None and epoch_loop.passes == epochs
                or _same_setting(written, whole_scope, epoch_loop)):
            continue
        if not _iterates_loader(batch_loop, loader_obj, length):
            continue
        if any(not _tests_it_exists(c.test, e) for c in e.conds_inside(epoch_loop)):
            continue
        steps = [x for x in ctx.program.events if x.root == e.root
                 and x.kind in ("opt_step", "scaler_step") and x.in_loop(batch_loop)]
        if not steps or any(x.conds_inside(batch_loop) for x in steps):
            continue  # updates under a test: `k` may be the accumulation they wait for
        if any(x.info.get("accumulating") is not None for x in steps):
            continue  # inside `accelerator.accumulate()`: the same, kept by Accelerate
        if _leaves_early(batch_loop) or _leaves_early(epoch_loop) \
                or _reset_inside(ctx, sched, epoch_loop) \
                or _another_built_inside(ctx, sched, epoch_loop):
            continue
        seen.add(sched.id)
        cls = sched.cls or sched.name or "the scheduler"
        yield Diagnostic.at(
            "LRD010",
            f"{cls}({param}={short_source(horizon)}) "
            f"({line_at(sched.path, sched.line, e.path)}) spans 1/{k.value:g} of the run's "
            f"batches (`{ast.unparse(written)}` epochs of `{ast.unparse(length)}`, divided by "
            f"{k.value:g}) but is stepped after every batch (line {e.line}) of the epoch loop "
            f"({line_at(epoch_loop.path, epoch_loop.line, e.path)}), and every batch updates "
            f"the optimizer: the schedule ends {k.value:g} times too early and the rest of the "
            f"run steps it past its horizon, so {_consequence(sched)}. Size {param} to the "
            f"batches it is stepped for (drop the `/ {k.value:g}`), or step it every "
            f"{k.value:g} batches",
            e.path,
            e.node,
            evidence={"horizon": short_source(horizon), "divided_by": k.value,
                      "loop_line": epoch_loop.line},
        )


def _epochs_times_loader(sched: Obj) -> tuple[ast.expr, Obj, ast.Call] | None:
    """``(E as written, loader, len call)`` for a OneCycleLR sized as E epochs of a loader's
    batches: ``epochs=E, steps_per_epoch=len(loader)`` or ``total_steps=E * len(loader)``
    (either order, through names bound to either side); E may be any expression."""
    epochs, per_epoch = sched.arg("epochs", 3), sched.arg("steps_per_epoch", 4)
    if epochs is not None and per_epoch is not None:
        found = _len_of_loader(per_epoch, sched.scope, built=False)
        return (epochs, *found) if found is not None else None
    total = sched.arg("total_steps", 2)
    if total is None:
        return None
    expr, scope = _resolved(total, sched.scope)
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)):
        return None
    for count, other in ((expr.left, expr.right), (expr.right, expr.left)):
        found = _len_of_loader(other, scope, built=False)
        if found is not None:
            return (count, *found)
    return None


def _count_from_zero(loop: Loop) -> ast.expr | None:
    """``n`` for ``for epoch in range(n)``, ``range(0, n)`` or ``range(start, n)`` where
    ``start`` holds 0 wherever the loop runs (a name never rebound to a checkpoint's epoch)."""
    count = _range_count(loop)
    if count is not None:
        return count
    call = range_call(loop)
    if call is None or len(call.args) != 2 or not isinstance(call.args[0], ast.Name) \
            or loop.scope is None:
        return None
    held = loop.scope.vars.get(call.args[0].id)
    if isinstance(held, Const) and type(held.value) is int and held.value == 0:
        return call.args[1]
    return None


@rule("LRD010")
def restored_schedule_spent_again_from_epoch_zero(ctx: FileContext) -> Iterator[Diagnostic]:
    """A OneCycleLR sized for E epochs of a loader's batches, stepped after every batch of that
    loader in an epoch loop ``for epoch in range(E)`` (or ``range(0, E)``), whose state the
    program restores from a checkpoint (``scheduler.load_state_dict(...)``) while the epoch
    loop starts at 0 whatever the checkpoint says: a resumed run steps it E * len(loader)
    times on top of the count it restored, and OneCycleLR raises once past total_steps. The
    loop's count and E must be the same expression as written; a loop that may leave early,
    a step under a test, or a scheduler built or restored inside the epoch loop is left
    alone."""
    seen: set[int] = set()
    order: dict[int, int] = {}
    for e, sched in _batch_steps(ctx):
        if sched.id in seen or sched.origin != "torch" or sched.cls != "OneCycleLR":
            continue
        # restored in the run that then trains (the same trace, before the step): a trainer
        # class's `load()` traced apart from its `train(epochs)` says nothing of the count
        # the caller hands the loop
        if not order:
            order = {id(x): i for i, x in enumerate(ctx.program.events)}
        restores = [r for r in ctx.program.events
                    if r.kind == "load_state" and r.obj is sched and r.root == e.root
                    and order[id(r)] < order[id(e)]]
        if not restores:
            continue
        sized = _epochs_times_loader(sched)
        batch_loop = e.loop
        if sized is None or batch_loop is None or batch_loop.parent is None:
            continue
        epochs, loader, length = sized
        epoch_loop = batch_loop.parent
        if sched.scope is None or epoch_loop.scope is not sched.scope:
            continue  # sized in one function, looped in another: the counts are not compared
        count = _count_from_zero(epoch_loop)
        if count is None or e.conds_inside(epoch_loop):
            continue
        if not _same_value(count, epoch_loop.scope, epochs, sched.scope):
            continue
        if not _iterates_loader(batch_loop, loader, length):
            continue
        if _written_inside(sched, epoch_loop) or _leaves_early(epoch_loop) \
                or _leaves_early(batch_loop) or _reset_inside(ctx, sched, epoch_loop):
            continue
        seen.add(sched.id)
        node = epoch_loop.node
        assert isinstance(node, (ast.For, ast.AsyncFor))  # (_range_count read its `range(...)`)
        restore = restores[0]
        yield Diagnostic.at(
            "LRD010",
            f"OneCycleLR ({line_at(sched.path, sched.line, e.path)}) is sized for "
            f"`{ast.unparse(epochs)}` epochs of `{ast.unparse(length)}` batches and its state "
            f"is restored from a checkpoint ({line_at(restore.path, restore.line, e.path)}), "
            f"but the epoch loop ({line_at(epoch_loop.path, epoch_loop.line, e.path)}) runs "
            f"over `{ast.unparse(node.iter)}` from 0 again: a resumed run steps it "
            f"(line {e.line}) that many times on top of the steps it restored, and "
            f"{_consequence(sched)}. Start the epoch loop at the epoch the checkpoint saved",
            e.path,
            e.node,
            evidence={"loop_line": epoch_loop.line, "restore_line": restore.line,
                      "step_line": e.line},
        )


def _skips_passes(loop: Loop) -> bool:
    """A ``continue`` in the loop's own body (not in a loop or function inside it): some
    passes may end before the statements after it."""
    todo: list[ast.AST] = list(loop.node.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Continue):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef,
                             ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def _counted_passes(loop: Loop) -> tuple[ast.expr, int] | None:
    """``(x, k)`` when a loop makes ``x + k`` passes: a ``for`` over ``range(...)`` (as
    ``_passes`` reads it), or ``while c < x + k`` / ``while c <= x + k - 1`` whose counter
    ``c`` (``c += 1`` once per pass, see ``Loop.counters``) holds 0 where the loop is
    entered."""
    if isinstance(loop.node, (ast.For, ast.AsyncFor)):
        return _passes(loop)
    tested = _counter_test(loop)  # (a loop the trace models with another node: None)
    if tested is None or loop.scope is None or "." in tested[0]:
        return None
    counter, bound, inclusive = tested
    start = loop.scope.vars.get(counter)
    if not (isinstance(start, Const) and type(start.value) is int and start.value == 0):
        return None
    base, k = plus_literal(bound)
    return base, k + (1 if inclusive else 0)


def _same_setting_held(a: ast.expr, a_scope: Scope | None, b: ast.expr,
                       b_scope: Scope | None) -> bool:
    """``cfg.iters`` read in two functions (a builder in another module handed the caller's
    ``cfg``) where both names hold the same object: the same attribute path of one settings
    value (an argparse namespace, a loaded config)."""
    name_a, name_b = dotted(a), dotted(b)
    if name_a is None or name_b is None or "." not in name_a or "." not in name_b \
            or a_scope is None or b_scope is None:
        return False
    head_a, _, tail_a = name_a.partition(".")
    head_b, _, tail_b = name_b.partition(".")
    if tail_a != tail_b or head_a == "self" or head_b == "self":
        return False
    held_a, held_b = a_scope.lookup(head_a), b_scope.lookup(head_b)
    if held_a is None or held_b is None:
        return False
    if held_a is held_b:
        return not isinstance(held_a, (int, float, str, bool))
    return isinstance(held_a, ExprVal) and isinstance(held_b, ExprVal) \
        and held_a.node is held_b.node


@rule("LRD010")
def onecycle_total_steps_fewer_than_the_loop(ctx: FileContext) -> Iterator[Diagnostic]:
    """OneCycleLR(total_steps=N) stepped on every pass of a loop that makes more than N passes
    (``for it in range(N + 1)``, ``range(1, N + 2)``, ``while it <= N`` counted from 0): the
    step after the N-th raises ``Tried to step N+1 times``. The loop's count and the horizon
    must be the same expression plus integer literals, or both numbers where they run; a step
    under a test inside the loop, a loop that may leave early or skip the rest of a pass
    (``break``, ``return``, ``continue``), a scheduler built, restored or repositioned inside
    the loop, or a ``step(n)`` with an argument is left alone. Only OneCycleLR: a step or two
    past a cosine's or a linear decay's end moves the LR by a hair, past OneCycleLR's it
    stops the run."""
    seen: set[int] = set()
    for e in ctx.program.events:
        sched = e.obj
        if e.kind != "sched_step" or sched is None or sched.guessed or sched.in_composite \
                or sched.id in seen or sched.origin != "torch" or sched.cls != "OneCycleLR":
            continue
        if e.info.get("nargs") or e.info.get("kwargs"):
            continue
        total = sched.arg("total_steps", 2)
        loop = e.loop
        if total is None or loop is None or e.conds_inside(loop):
            continue
        passes = _counted_passes(loop)
        if passes is None:
            continue
        extra = _passes_beyond(passes, total, loop, loop.scope, sched.scope,
                               same_file=loop.path == sched.path, held_settings=True)
        if extra is None or extra <= 0:
            continue
        if _written_inside(sched, loop) or _leaves_early(loop) or _skips_passes(loop) \
                or _stops_before_its_count(loop):
            continue
        if _reset_inside(ctx, sched, loop) or _another_built_inside(ctx, sched, loop):
            continue
        seen.add(sched.id)
        more = "one pass more" if extra == 1 else f"{extra} passes more"
        yield Diagnostic.at(
            "LRD010",
            f"OneCycleLR(total_steps={ast.unparse(total)}) "
            f"({line_at(sched.path, sched.line, e.path)}) is stepped on every pass (line "
            f"{e.line}) of the loop at {line_at(loop.path, loop.line, e.path)}, which makes "
            f"{more} than total_steps: {_consequence(sched)}. Size total_steps to the loop's "
            f"count, or step it only while it has steps left",
            e.path,
            e.node,
            evidence={"total_steps": ast.unparse(total), "loop_line": loop.line,
                      "step_line": e.line},
        )
