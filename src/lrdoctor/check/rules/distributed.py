"""LRD013 before the job runs: code that makes the ranks of a distributed job train with
different LRs.

- a scheduler stepped only on the main process (``if rank == 0:``, ``if
  accelerator.is_main_process:``, ``if trainer.is_global_zero:``) while its optimizer steps on
  every rank: only the main process's LR follows the schedule;
- a ``ReduceLROnPlateau`` given a metric each rank computed on its own shard of the data (a
  loader with a ``DistributedSampler``, or prepared by Accelerate) in a script that sets up a
  process group, with nothing reducing that metric across ranks (``dist.all_reduce``,
  ``all_gather``, ``broadcast``, ``accelerator.gather``/``reduce``): each rank cuts its LR on
  its own;
- a ``ReduceLROnPlateau`` stepped on every rank with a name that only the main process gives a
  computed value (``if rank == 0: score = evaluate(...)``) and that nothing broadcasts: the
  other ranks step it with the name's starting value (``score = -inf``), every epoch the same,
  so they cut their LR on the patience clock alone.

Where the code does not say enough it stays silent: a script that never sets up a process
group, a metric whose value comes from a function defined elsewhere (it may reduce it), a
metric computed on data every rank sees whole (the same value everywhere), logging under a
rank guard.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator

from lrdoctor.check.context import FileContext
from lrdoctor.check.diagnostic import Diagnostic
from lrdoctor.check.index import last_name
from lrdoctor.check.memo import own_statements
from lrdoctor.check.model import Event
from lrdoctor.check.rules import rule

# attributes and names that are true on the main process only
MAIN_PROCESS_FLAGS = frozenset({
    "is_main_process", "is_local_main_process", "is_global_zero", "is_master", "master_process",
    "main_process", "is_rank_zero", "is_world_process_zero", "is_local_process_zero", "is_main",
    "is_master_ordinal", "is_rank0", "is_rank_0", "rank_zero", "is_master_process",
})
RANK_CALLS = frozenset({"get_rank", "get_local_rank", "get_global_rank", "get_ordinal",
                        "get_local_ordinal", "get_process_index"})
RANK_ENV = frozenset({"RANK", "LOCAL_RANK", "SLURM_PROCID", "GLOBAL_RANK", "NODE_RANK"})
# calls that make a value the same on every rank
REDUCTIONS = frozenset({
    "all_reduce", "reduce", "all_gather", "all_gather_object", "all_gather_into_tensor",
    "gather", "gather_object", "broadcast", "broadcast_object_list", "reduce_scatter",
    "gather_for_metrics", "mesh_reduce", "all_reduce_multigpu", "reduce_tensor", "reduce_mean",
    "reduce_value", "reduce_dict", "reduce_loss", "reduce_loss_dict", "all_reduce_mean",
    "average_across_processes", "sync_across_processes", "all_reduce_tensor",
})
PROCESS_GROUP_SETUP = frozenset({"init_process_group", "DistributedDataParallel", "Accelerator",
                                 "FullyShardedDataParallel", "init_distributed_mode",
                                 "initialize_model_parallel", "init_distributed"})
SHARDING_SAMPLERS = frozenset({"DistributedSampler", "DistributedEvalSampler",
                               "ElasticDistributedSampler"})
# calls on a value that keep it a per-rank value (and reduce nothing across ranks)
VALUE_METHODS = frozenset({"item", "mean", "sum", "float", "detach", "cpu", "tolist", "numpy",
                           "avg", "compute", "clone", "to", "get", "__truediv__"})
PLAIN_FUNCTIONS = frozenset({"float", "int", "len", "sum", "min", "max", "abs", "round", "mean",
                             "tensor", "as_tensor", "array", "stack", "cat", "sqrt", "exp", "log"})


def _is_rank(node: ast.AST) -> bool:
    """An expression whose value is this process's rank."""
    if isinstance(node, (ast.Name, ast.Attribute)):
        word = last_name(node).lower()
        return ("rank" in word and "ranks" not in word and "size" not in word
                and "world" not in word) or word in ("process_index", "local_process_index")
    if isinstance(node, ast.Call):
        name = last_name(node.func)
        if name in RANK_CALLS:
            return True
        if name in ("int", "str") and node.args:
            return _is_rank(node.args[0])
        if name in ("get", "getenv") and node.args and isinstance(node.args[0], ast.Constant):
            return node.args[0].value in RANK_ENV
        return False
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value in RANK_ENV
    return False


def _zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in (0, "0") and node.value is not False


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def main_only(test: ast.expr | None) -> bool | None:
    """True: ``test`` holds on the main process only; False: on the other ranks only; None:
    not a test on the rank."""
    if test is None:
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = main_only(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        outcomes = {main_only(v) for v in test.values} - {None}
        if len(outcomes) != 1:
            return None
        outcome = outcomes.pop()
        if isinstance(test.op, ast.And):
            return outcome
        return outcome if all(main_only(v) is not None for v in test.values) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        left, op, right = test.left, test.ops[0], test.comparators[0]
        if _is_rank(right) and not _is_rank(left):
            left, right = right, left
            op = {ast.Lt: ast.Gt(), ast.Gt: ast.Lt(), ast.LtE: ast.GtE(), ast.GtE: ast.LtE()}.get(
                type(op), op)
        if not _is_rank(left):
            return None
        if isinstance(op, (ast.Eq, ast.Is)) and _zero(right):
            return True
        if isinstance(op, (ast.NotEq, ast.IsNot)) and _zero(right):
            return False
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
            values = [_literal(e) for e in right.elts]
            if len(values) == len(right.elts) and 0 in values and set(values) <= {0, -1, "0", "-1"}:
                return isinstance(op, ast.In)
            return None
        if isinstance(right, ast.Constant) and isinstance(right.value, int):
            bound = right.value
            if isinstance(op, ast.Gt) and bound == 0 or isinstance(op, ast.GtE) and bound == 1:
                return False
            if isinstance(op, ast.Lt) and bound == 1 or isinstance(op, ast.LtE) and bound == 0:
                return True
        return None
    if isinstance(test, (ast.Name, ast.Attribute, ast.Call)):
        name = last_name(test)
        if name in MAIN_PROCESS_FLAGS:
            return True
        if isinstance(test, (ast.Name, ast.Attribute)) and _is_rank(test):
            return False  # `if rank:` holds on every rank but 0
    return None


def rank_guard(e: Event) -> tuple[ast.expr, bool] | None:
    """The test that makes ``e`` run on the main process only (with True), or on the other
    ranks only (with False); None when it runs on every rank."""
    for cond in e.conds:
        outcome = main_only(cond.test)
        if outcome is None or cond.branch not in (0, 1) or cond.test is None:
            continue
        return cond.test, outcome if cond.branch == 0 else not outcome
    return None


@rule("LRD013")
def rank_divergent_lr(ctx: FileContext) -> Iterator[Diagnostic]:
    yield from _scheduler_on_main_process_only(ctx)
    yield from _plateau_fed_per_rank_metric(ctx)
    yield from _plateau_fed_main_process_value(ctx)
    yield from _lightning_plateau_on_unsynced_metric(ctx)


def _scheduler_on_main_process_only(ctx: FileContext) -> Iterator[Diagnostic]:
    seen: set[int] = set()
    for e in ctx.program.events:
        if e.kind != "sched_step" or e.obj is None or e.obj.id in seen:
            continue
        sched = e.obj
        seen.add(sched.id)
        steps = ctx.program.of("sched_step", sched)
        guards = [rank_guard(s) for s in steps]
        if not steps or any(g is None or not g[1] for g in guards):
            continue  # stepped on every rank somewhere (or only off the main process: odd)
        updates = [u for s in steps for u in ctx.updates_in(None, s.root, sched.optimizer)]
        everywhere = [u for u in updates if rank_guard(u) is None]
        if not everywhere:
            continue  # the whole loop runs on one rank (or the optimizer is stepped elsewhere)
        guard = guards[0]
        assert guard is not None
        first = steps[0]
        what = ("only the main process ever cuts its LR" if sched.cls == "ReduceLROnPlateau"
                else "only the main process's LR follows the schedule; the other ranks keep "
                "their initial LR")
        yield Diagnostic.at(
            "LRD013",
            f"`{ast.unparse(first.node.func) if isinstance(first.node, ast.Call) else 'step'}()` "
            f"runs only on the main process (`if {ast.unparse(guard[0])}:`) while the optimizer "
            f"steps on every rank (line {everywhere[0].line}): {what}, and DDP averages gradients "
            "that the ranks then apply with different LRs",
            first.path,
            first.node,
        )


# -- ReduceLROnPlateau fed a per-rank metric -------------------------------------------------------


def _plateau_fed_per_rank_metric(ctx: FileContext) -> Iterator[Diagnostic]:
    plateau_steps = [e for e in ctx.program.events
                     if e.kind == "sched_step" and e.obj is not None
                     and e.obj.cls == "ReduceLROnPlateau" and e.path == ctx.path
                     and isinstance(e.node, ast.Call) and rank_guard(e) is None]
    if not plateau_steps or not _sets_up_process_group(ctx.tree):
        return
    flow = _Flow(ctx.tree)
    for e in plateau_steps:
        node = e.node
        assert isinstance(node, ast.Call)
        metric = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "metrics"), None)
        if metric is None:
            continue
        verdict = flow.per_rank(metric, node)
        if verdict is None:
            continue
        reduced = "never reduced across ranks"
        if flow.thrown_away is not None:
            reduced = (f"the value reduced across ranks at line {flow.thrown_away.lineno} "  # type: ignore[attr-defined]
                       "is set back to a fresh count before this step reads it (this rank's "
                       "own sum since then is what the step sees)")
        elif flow.now_and_then is not None:
            guard = flow.now_and_then
            reduced = (f"reduced across ranks only under `if {ast.unparse(guard.test)}:` "
                       f"(line {guard.lineno}), for logging, not before this step")
        yield Diagnostic.at(
            "LRD013",
            f"ReduceLROnPlateau is stepped with `{ast.unparse(metric)}`, computed by each rank "
            f"{'from its own order of the data' if _SHUFFLED_APART in verdict else 'on its own shard'}"
            f" ({verdict}) and {reduced}: each rank cuts its "
            "LR at its own time, and DDP averages gradients the ranks apply with different LRs",
            e.path,
            node,
        )


def _plateau_fed_main_process_value(ctx: FileContext) -> Iterator[Diagnostic]:
    """A ReduceLROnPlateau stepped on every rank (no rank guard around the step) with a name
    whose computed values are all bound under a main-process guard (``if rank == 0: score =
    validate(...)``), the name otherwise holding only a starting value (``score = -inf``),
    and nothing in the function handing it to a broadcast or reduction. The other ranks feed
    their plateau the starting value every epoch: it never improves there, so they cut their
    LR every ``patience + 1`` epochs while the main process cuts it when its metric stalls.
    Silent when the name is also computed outside the guard, is a parameter or loop variable,
    is handed to any call outside the guard (a helper may share it), or the script never sets
    up a process group."""
    steps = [e for e in ctx.program.events
             if e.kind == "sched_step" and e.obj is not None
             and e.obj.cls == "ReduceLROnPlateau" and e.path == ctx.path
             and isinstance(e.node, ast.Call) and rank_guard(e) is None]
    if not steps or not _sets_up_process_group(ctx.tree):
        return
    parents: dict[ast.AST, ast.AST] = {}
    for parent in ast.walk(ctx.tree):
        for child in ast.iter_child_nodes(parent):
            parents[child] = parent
    for e in steps:
        node = e.node
        assert isinstance(node, ast.Call)
        metric = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg == "metrics"), None)
        name = _value_name(metric) if metric is not None else None
        if name is None:
            continue
        scope = parents.get(node)
        while scope is not None and not isinstance(
                scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            scope = parents.get(scope)
        if scope is None:
            continue
        guard = _main_process_binding(scope, name, node, parents)
        if guard is None:
            continue
        yield Diagnostic.at(
            "LRD013",
            f"ReduceLROnPlateau is stepped on every rank with `{ast.unparse(metric)}`, but only "  # type: ignore[arg-type]
            f"the main process computes `{name}` (under `if {ast.unparse(guard.test)}:`, line "
            f"{guard.lineno}) and nothing broadcasts it: the other ranks step their plateau with "
            f"`{name}`'s starting value every epoch, so they cut their LR on the patience clock "
            "while the main process follows its metric, and DDP averages gradients the ranks "
            "apply with different LRs",
            e.path,
            node,
        )


def _value_name(metric: ast.expr) -> str | None:
    """The name a metric expression reads its value from: ``score``, ``score.item()``,
    ``float(score)``, ``score.mean().item()``; None for anything else."""
    node = metric
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Call) and not node.keywords:
            if isinstance(node.func, ast.Attribute) and not node.args \
                    and node.func.attr in ("item", "mean", "float", "detach", "cpu", "tolist"):
                node = node.func.value
                continue
            if isinstance(node.func, ast.Name) and node.func.id in ("float", "int") \
                    and len(node.args) == 1:
                node = node.args[0]
                continue
        return None


def _main_process_binding(scope: ast.AST, name: str, use: ast.Call,
                          parents: dict[ast.AST, ast.AST]) -> ast.If | None:
    """The main-process guard under which ``scope`` gives ``name`` its computed values, when
    every binding of ``name`` outside such a guard is a starting value and nothing outside it
    hands ``name`` to a call (the step ``use`` aside); None otherwise."""
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in {
            a.arg for a in [*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs]}:
        return None
    guard: ast.If | None = None
    starts = 0
    for node in own_statements(scope):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)) and name in _names([node.target]):
            return None
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                item.optional_vars is not None and name in _names([item.optional_vars])
                for item in node.items):
            return None
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.NamedExpr)) and (
                name in getattr(node, "names", ()) or isinstance(node, ast.NamedExpr)
                and isinstance(node.target, ast.Name) and node.target.id == name):
            return None
        under = _main_process_guard(node, scope, parents)
        if isinstance(node, ast.Call) and node is not use and any(
                isinstance(n, ast.Name) and n.id == name
                for arg in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(arg)):
            if last_name(node.func) in REDUCTIONS or under is None:
                return None  # shared with the other ranks, or handed to code that may share it
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name \
                and node.func.attr.endswith("_") and under is None:
            return None  # `score.copy_(...)` on every rank: a value of their own
        value = _assigned(node, name)
        if value is None or isinstance(value, ast.Constant) and value.value is None:
            continue  # (`score = None` on the other ranks: their step raises, no LR of theirs)
        if under is not None:
            guard = guard or under
        elif _starting_value(value) and not isinstance(node, ast.AugAssign):
            starts += 1
        else:
            return None  # computed on every rank too
    return guard if starts else None


def _main_process_guard(node: ast.AST, scope: ast.AST,
                        parents: dict[ast.AST, ast.AST]) -> ast.If | None:
    """The ``if`` within ``scope`` that runs ``node`` on the main process only."""
    child, current = node, parents.get(node)
    while current is not None and current is not scope:
        if isinstance(current, ast.If):
            outcome = main_only(current.test)
            if outcome is not None:
                in_body = any(child is s for s in current.body)
                if outcome == in_body:
                    return current
        child, current = current, parents.get(current)
    return None


def _starting_value(value: ast.expr) -> bool:
    """A value a metric starts from before anything is measured: a number, an
    infinity (``float('inf')``, ``np.inf``, ``math.inf``), negated or not, or a tensor made of
    one (``torch.tensor(-1e9)``)."""
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return _starting_value(value.operand)
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    if isinstance(value, ast.Attribute):
        return value.attr in ("inf", "nan")
    if isinstance(value, ast.Call) and value.args and not isinstance(value.args[0], ast.Starred):
        if last_name(value.func) == "float" and isinstance(value.args[0], ast.Constant):
            return str(value.args[0].value).lower().lstrip("+-") in ("inf", "infinity", "nan")
        if last_name(value.func) in ("tensor", "as_tensor", "full_like", "array"):
            return _starting_value(value.args[0])
    return False


def _sets_up_process_group(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.Call) and last_name(n.func) in PROCESS_GROUP_SETUP
               for n in ast.walk(tree))


class _Flow:
    """Where a value comes from, by name, within the function that uses it (and the
    functions of this file it calls): enough to see whether a metric is computed from a
    sharded loader and whether something reduces it across ranks."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        self.functions = {n.name: n for n in ast.walk(tree)
                          if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.imported = {alias.asname or alias.name.split(".")[0]
                         for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
                         for alias in n.names}
        self.sharded = self._sharded_loaders()
        # loaders that every rank shuffles whole, each in its own order: only where the
        # processes' torch RNG is not seeded alike (see _ranks_shuffle_apart)
        self.shuffled = self._shuffled_loaders() if self._ranks_shuffle_apart() else set()
        self.use: ast.AST | None = None
        self.now_and_then: ast.If | None = None  # a periodic reduction that did not count
        self.thrown_away: ast.AST | None = None  # a reduction whose value is reset unread

    def scope_of(self, node: ast.AST) -> ast.AST:
        current = self.parents.get(node)
        while current is not None and not isinstance(
                current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            current = self.parents.get(current)
        return current or self.tree

    def _sharded_loaders(self) -> set[str]:
        """Names bound to a loader whose batches differ per rank: built with a
        DistributedSampler (directly or through a name), or returned by accelerator.prepare."""
        samplers = {t for n in ast.walk(self.tree) if isinstance(n, ast.Assign)
                    and isinstance(n.value, ast.Call) and last_name(n.value.func) in SHARDING_SAMPLERS
                    for t in _names(n.targets)}
        loaders: set[str] = set()
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                    and n.func.attr == "set_epoch":
                # `loader.sampler.set_epoch(epoch)`: the reshuffle a DistributedSampler needs
                # each epoch; a loader built elsewhere (`make_loaders(..., distributed=True)`)
                # whose sampler takes it shards the data by rank
                held = n.func.value
                if isinstance(held, ast.Attribute) and held.attr in ("sampler", "batch_sampler") \
                        and isinstance(held.value, ast.Name):
                    loaders.add(held.value.id)
            if not isinstance(n, ast.Assign) or not isinstance(n.value, ast.Call):
                continue
            call = n.value
            if last_name(call.func) == "prepare":
                loaders.update(_names(n.targets))  # accelerator.prepare shards loaders
            elif "loader" in last_name(call.func).lower():
                for kw in call.keywords:
                    if kw.arg in ("sampler", "batch_sampler") and (
                            isinstance(kw.value, ast.Call) and last_name(kw.value.func) in SHARDING_SAMPLERS
                            or isinstance(kw.value, ast.Name) and kw.value.id in samplers):
                        loaders.update(_names(n.targets))
        return loaders

    def per_rank(self, metric: ast.expr, use: ast.AST) -> str | None:
        """How the metric is sharded ("the loop over `loader`..."), or None when it is
        reduced, not sharded, or comes from code this file does not show."""
        scope = self.scope_of(use)
        self.use, self.now_and_then, self.thrown_away = use, None, None
        state = _Search()
        self._follow(metric, scope, state, depth=0)
        if state.reduced or state.unknown or not state.sharded_by:
            return None
        return state.sharded_by

    def _follow(self, expr: ast.AST, scope: ast.AST, state: _Search, depth: int) -> None:
        if depth > 6 or state.reduced or state.unknown:
            return
        for node in ast.walk(expr):
            if isinstance(node, ast.Call):
                self._call(node, scope, state, depth)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                region = self._loop_binding(node, scope) or scope
                key = (id(region), node.id)
                if key in state.visited:
                    continue
                state.visited.add(key)
                self._name(node.id, scope, state, depth, region)

    def _loop_binding(self, use: ast.Name, scope: ast.AST) -> ast.AST | None:
        """The innermost loop or comprehension around ``use`` (within ``scope``) whose target
        binds the name ``use`` reads: only bindings inside it reach ``use``, so a same-named
        variable of another loop (``for x, y in train_loader: x = x.cuda()`` before ``for x,
        y in val_loader:``) is not where its value comes from."""
        child: ast.AST = use
        current = self.parents.get(use)
        while current is not None and current is not scope:
            if isinstance(current, (ast.For, ast.AsyncFor)) and child is not current.iter \
                    and use.id in _names([current.target]):
                return current
            if isinstance(current, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)) \
                    and any(use.id in _names([g.target]) for g in current.generators) \
                    and not any(child is g for g in current.generators):
                return current
            child, current = current, self.parents.get(current)
        return None

    def _call(self, call: ast.Call, scope: ast.AST, state: _Search, depth: int) -> None:
        name = last_name(call.func)
        if name in REDUCTIONS:
            state.reduced = True
            return
        if isinstance(call.func, ast.Attribute):
            if name in VALUE_METHODS or _root(call.func) not in self.imported:
                return  # a method of a value (loss.item()) or of a local object (criterion)
            if _root(call.func) in ("torch", "nn", "np", "numpy", "math", "F") or name[:1].isupper():
                return  # (a class of an imported module, `optim.SGD(...)`: a constructor)
            state.unknown = True  # a function of an imported module: it may reduce
            return
        if not isinstance(call.func, ast.Name):
            return
        if name in PLAIN_FUNCTIONS:
            return
        function = self.functions.get(name)
        if function is None:
            if name in self.imported and not name[:1].isupper():
                state.unknown = True  # an imported function (not a class): it may reduce
            return  # a constructor, or a local callable object (model, criterion)
        # a function of this file: what it returns, from what it loops over
        if any(isinstance(n, ast.Call) and last_name(n.func) in REDUCTIONS for n in ast.walk(function)):
            state.reduced = True
            return
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(arg, ast.Name) and arg.id in self.sharded:
                state.sharded_by = state.sharded_by or f"`{name}()` evaluates the sharded `{arg.id}`"
        for ret in (n for n in ast.walk(function) if isinstance(n, ast.Return) and n.value):
            self._follow(ret.value, function, state, depth + 1)  # type: ignore[arg-type]

    def _name(self, name: str, scope: ast.AST, state: _Search, depth: int,
              region: ast.AST | None = None) -> None:
        """Follow the bindings of ``name`` in ``scope`` (or, for a loop variable, in the loop
        ``region`` that binds it where it is read)."""
        if name in self.imported:
            return  # a module or a class (`torch`, `dist`): no value of a rank's own
        for node in ast.walk(region if region is not None else scope):
            if scope is not self.tree and node is not scope and isinstance(
                    node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if isinstance(node, ast.Call) and last_name(node.func) in REDUCTIONS and any(
                    isinstance(a, ast.Name) and a.id == name
                    for arg in node.args for a in ast.walk(arg)):
                if self._only_now_and_then(node):
                    continue
                if self._discarded(node, name):
                    self.thrown_away = self.thrown_away or node
                    continue
                state.reduced = True  # dist.all_reduce(total) reduces it in place
                return
            value = _assigned(node, name)
            if value is None:
                value = _appended(node, name)
            if value is None:
                continue
            if self._reduces(value) and self._discarded(node, name):
                self.thrown_away = self.thrown_away or node
                continue  # `total = reduce(total); print(total); total = 0`
            if self._only_now_and_then(node) and any(
                    isinstance(n, ast.Call) and last_name(n.func) in REDUCTIONS
                    for n in ast.walk(value)):
                continue  # `total = reduce(total)` to print it every N batches
            loop = self._loop_over_sharded(node)
            if loop:
                state.sharded_by = state.sharded_by or loop
            self._follow(value, scope, state, depth + 1)
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and name in {
                a.arg for a in scope.args.args + scope.args.kwonlyargs}:
            return  # a parameter: the caller's value (not followed)

    def _only_now_and_then(self, node: ast.AST) -> bool:
        """``node`` runs under a periodic test (``if i % log_every == 0:``, logging) that the
        scheduler step is not under: at the step the value holds what each rank added since."""
        use_parents: set[int] = set()
        current = self.parents.get(self.use) if self.use is not None else None
        while current is not None:
            use_parents.add(id(current))
            if isinstance(current, ast.If) and _periodic(current.test):
                return False  # the step is periodic too: which periods meet, unknown
            current = self.parents.get(current)
        current = self.parents.get(node)
        while current is not None and not isinstance(
                current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            if isinstance(current, ast.If) and id(current) not in use_parents \
                    and _periodic(current.test):
                self.now_and_then = current
                return True
            current = self.parents.get(current)
        return False

    def _reduces(self, value: ast.expr) -> bool:
        """``value`` calls a reduction, directly or through a function of this file."""
        for n in ast.walk(value):
            if not isinstance(n, ast.Call):
                continue
            if last_name(n.func) in REDUCTIONS:
                return True
            function = self.functions.get(n.func.id) if isinstance(n.func, ast.Name) else None
            if function is not None and any(isinstance(c, ast.Call) and last_name(c.func) in REDUCTIONS
                                            for c in ast.walk(function)):
                return True
        return False

    def _discarded(self, node: ast.AST, name: str) -> bool:
        """The value ``node`` reduces into ``name`` is thrown away before the step can read
        it: a later statement of the same block (or of a block around it, within one pass of
        the loop, the step not inside) sets ``name`` back to a fresh value (``total = 0``):
        logging that reports the average across ranks, then starts counting again. What the
        step reads is what this rank added since."""
        statement = node
        while not isinstance(statement, ast.stmt):
            parent = self.parents.get(statement)
            if parent is None:
                return False
            statement = parent
        while True:
            block = self.parents.get(statement)
            if block is None or isinstance(block, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                   ast.Module, ast.For, ast.AsyncFor, ast.While)):
                return False
            if self.use is not None and any(n is self.use for n in ast.walk(block)):
                return False  # the step runs in the same block: it may read the reduced value
            for field in ("body", "orelse", "finalbody"):
                stmts = getattr(block, field, None)
                if not isinstance(stmts, list) or statement not in stmts:
                    continue
                later = stmts[stmts.index(statement) + 1:]
                if any(_fresh(_assigned(s, name)) for s in later):
                    return True
            statement = block

    def _loop_over_sharded(self, node: ast.AST) -> str:
        current = self.parents.get(node)
        while current is not None and not isinstance(current, (ast.FunctionDef, ast.Module)):
            if isinstance(current, (ast.For, ast.AsyncFor)):
                # a name read through an attribute (`model.named_parameters()`,
                # `loader.dataset`) is not what the loop draws its items from: the parameters
                # of a prepared model, or a loader's whole dataset, are the same on every rank
                owners = {id(a.value) for a in ast.walk(current.iter)
                          if isinstance(a, ast.Attribute)}
                for n in ast.walk(current.iter):
                    if id(n) in owners:
                        continue
                    if isinstance(n, ast.Name) and n.id in self.sharded:
                        return f"the loop over `{n.id}` at line {current.lineno}"
                    if isinstance(n, ast.Name) and n.id in self.shuffled and self._trains(current):
                        # (a model that learns as the loop goes makes each batch's loss depend
                        # on the order; an evaluation pass over the whole set does not)
                        return (f"the loop over `{n.id}` at line {current.lineno}, a loader with "
                                f"no DistributedSampler {_SHUFFLED_APART} (shuffle=True, torch's "
                                "RNG not seeded in the spawned workers)")
            current = self.parents.get(current)
        return ""

    def _trains(self, loop: ast.AST) -> bool:
        """The loop updates the model: a ``backward()`` or ``step()`` in it, or in a function
        of this file it calls."""
        for n in ast.walk(loop):
            if not isinstance(n, ast.Call):
                continue
            if last_name(n.func) in ("backward", "step"):
                return True
            function = self.functions.get(n.func.id) if isinstance(n.func, ast.Name) else None
            if function is not None and any(
                    isinstance(c, ast.Call) and last_name(c.func) in ("backward", "step")
                    for c in ast.walk(function)):
                return True
        return False

    def _shuffled_loaders(self) -> set[str]:
        """Names bound to ``DataLoader(..., shuffle=True)`` with no sampler of its own."""
        out: set[str] = set()
        for n in ast.walk(self.tree):
            if not (isinstance(n, ast.Assign) and isinstance(n.value, ast.Call)
                    and "loader" in last_name(n.value.func).lower()):
                continue
            kws = {kw.arg: kw.value for kw in n.value.keywords}
            if None in kws or "sampler" in kws or "batch_sampler" in kws:
                continue
            shuffle = kws.get("shuffle")
            if isinstance(shuffle, ast.Constant) and shuffle.value is True:
                out.update(_names(n.targets))
        return out

    def _ranks_shuffle_apart(self) -> bool:
        """The worker processes start from torch RNG states of their own: ``mp.spawn`` runs
        the worker in a fresh interpreter, and no call that seeds (``torch.manual_seed``,
        ``seed_everything``, a project's ``set_seed``) runs there; a seed set in the function
        that spawns them stays in the parent. Processes launched apart (torchrun) each run the
        whole script, seeds included, so a seed anywhere counts; an unseeded torchrun script is
        not judged (whether the launcher's processes share a seed is not in the file)."""
        spawns = [n for n in ast.walk(self.tree) if isinstance(n, ast.Call)
                  and last_name(n.func) in ("spawn", "start_processes") and n.args]
        if not spawns:
            return False
        parents = {id(self.scope_of(n)) for n in spawns}
        for n in ast.walk(self.tree):
            if isinstance(n, ast.Call) and "seed" in last_name(n.func).lower() \
                    and last_name(n.func) != "initial_seed" and id(self.scope_of(n)) not in parents:
                # (module-level code runs again in each spawned interpreter, unless under
                # `if __name__ == "__main__":`)
                if self.scope_of(n) is not self.tree or not _under_main_guard(n, self.parents):
                    return False
        return True


_SHUFFLED_APART = "that each process shuffles in its own order"


class _Search:
    def __init__(self) -> None:
        self.reduced = False
        self.unknown = False
        self.sharded_by = ""
        self.visited: set[tuple[int, str]] = set()


def _appended(node: ast.AST, name: str) -> ast.expr | None:
    """What ``node`` adds to the list ``name`` (``losses.append(loss.item())``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in ("append", "extend") and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == name and len(node.args) == 1:
        return node.args[0]
    return None


def _under_main_guard(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    """``node`` sits under ``if __name__ == "__main__":``."""
    current = parents.get(node)
    while current is not None:
        if isinstance(current, ast.If) and "__main__" in ast.unparse(current.test):
            return True
        current = parents.get(current)
    return False


def _fresh(value: ast.expr | None) -> bool:
    """A value that starts a count afresh: a number, or an empty list or dict."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    if isinstance(value, (ast.List, ast.Dict, ast.Tuple)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return False


def _periodic(test: ast.expr) -> bool:
    return any(isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod) for n in ast.walk(test))


def _names(targets: Iterable[ast.AST]) -> set[str]:
    out = set()
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name):
                out.add(n.id)
    return out


def _root(node: ast.AST) -> str:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _assigned(node: ast.AST, name: str) -> ast.expr | None:
    """The value ``node`` binds to ``name`` (``x = v``, ``x += v``, ``x: T = v``)."""
    if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets):
        return node.value
    if isinstance(node, ast.Assign) and any(name in _names([t]) for t in node.targets
                                            if isinstance(t, ast.Tuple)):
        return node.value
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) \
            and node.target.id == name and node.value is not None:
        return node.value
    return None


# -- Lightning: ReduceLROnPlateau monitoring a metric logged without sync_dist ---------------------

DISTRIBUTED_STRATEGIES = ("ddp", "fsdp", "deepspeed")


def _lightning_plateau_on_unsynced_metric(ctx: FileContext) -> Iterator[Diagnostic]:
    """A LightningModule whose ReduceLROnPlateau monitors a metric it logs with ``self.log``
    without ``sync_dist=True``, trained by a Trainer of this file that runs several processes:
    Lightning steps each rank's plateau with that rank's own value."""
    # no Trainer named in the source, none built: the walk over a large file is skipped (an
    # identifier spelled with non-ASCII letters can still normalise to it)
    if "Trainer" not in ctx.source and ctx.source.isascii():
        return
    trainer = _multi_process_trainer(ctx.tree)
    if trainer is None:
        return
    enclosing = _enclosing_functions(ctx.tree)
    for cls in (n for n in ast.walk(ctx.tree) if isinstance(n, ast.ClassDef)):
        home = enclosing.get(cls)
        # a class defined in a function's body exists only in that call: a Trainer elsewhere
        # in the file cannot fit it, unless the function hands the class (or an instance) out
        trains = trainer if home is None or _hands_out(home) \
            else _multi_process_trainer(home)
        if trains is None:
            continue
        methods = [f for f in cls.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))]
        configure = next((f for f in methods if f.name == "configure_optimizers"), None)
        if configure is None or not any(isinstance(n, ast.Call) and last_name(n.func) == "ReduceLROnPlateau"
                                        for n in ast.walk(configure)):
            continue
        calls = [n for f in methods for n in ast.walk(f) if isinstance(n, ast.Call)]
        if any(last_name(c.func) in REDUCTIONS or last_name(c.func) == "log_dict" for c in calls):
            continue  # it gathers or logs a dict itself: the file does not say enough
        for monitor, line in _monitors(configure):
            logs = [c for c in calls if last_name(c.func) == "log" and isinstance(c.func, ast.Attribute)
                    and c.args and isinstance(c.args[0], ast.Constant) and c.args[0].value == monitor]
            if not logs or not all(_unsynced_value(c) for c in logs):
                continue
            yield Diagnostic.at(
                "LRD013",
                f"`{monitor}` is logged without sync_dist=True and monitored by the "
                f"ReduceLROnPlateau of configure_optimizers (line {line}) while the Trainer runs "
                f"several processes ({trains}): each rank's plateau sees its own shard's value "
                "and cuts its LR on its own; log it with sync_dist=True",
                ctx.path,
                logs[0],
            )


def _enclosing_functions(tree: ast.Module) -> dict[ast.ClassDef, ast.AST]:
    """The innermost function whose body defines each class defined in a function."""
    out: dict[ast.ClassDef, ast.AST] = {}

    def visit(node: ast.AST, function: ast.AST | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef) and function is not None:
                out[child] = function
            visit(child, child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                     ast.Lambda)) else function)

    visit(tree, None)
    return out


def _hands_out(function: ast.AST) -> bool:
    """``function`` may hand a class it defines (or something built from it) to code outside
    its body: a ``return`` / ``yield`` of a name, or a ``global`` / ``nonlocal`` store."""
    pending = list(ast.iter_child_nodes(function))
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)) and node.value is not None \
                and any(isinstance(n, ast.Name) for n in ast.walk(node.value)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                 ast.ClassDef)):
            pending.extend(ast.iter_child_nodes(node))  # (their own returns are not its)
    return False


def _multi_process_trainer(tree: ast.AST) -> str | None:
    """``strategy='ddp'`` (or the setting that makes a Trainer of this file run several
    processes), None when no Trainer here says so."""
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call) and last_name(n.func) == "Trainer"):
        for kw in call.keywords:
            value = _literal(kw.value)
            if kw.arg == "strategy" and isinstance(value, str) and any(
                    s in value.lower() for s in DISTRIBUTED_STRATEGIES):
                return f"strategy={value!r}, line {call.lineno}"
            if kw.arg in ("devices", "gpus", "num_nodes") and (
                    isinstance(value, int) and not isinstance(value, bool) and (value > 1 or value == -1)
                    or isinstance(value, (list, tuple)) and len(value) > 1):
                return f"{kw.arg}={value!r}, line {call.lineno}"
    return None


def _monitors(configure: ast.AST) -> Iterator[tuple[str, int]]:
    for node in ast.walk(configure):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if (isinstance(key, ast.Constant) and key.value == "monitor"
                        and isinstance(value, ast.Constant) and isinstance(value.value, str)):
                    yield value.value, node.lineno


def _unsynced_value(log: ast.Call) -> bool:
    """``self.log(name, value)`` whose value is this rank's own: no ``sync_dist`` (or
    ``sync_dist=False``), and not a torchmetrics object (``self.val_loss``), which syncs itself."""
    for kw in log.keywords:
        if kw.arg == "sync_dist":
            return isinstance(kw.value, ast.Constant) and kw.value.value is False
        if kw.arg is None:
            return False  # **kwargs: may hold sync_dist
    if len(log.args) < 2:
        return False
    value = log.args[1]
    return not (isinstance(value, ast.Attribute) or isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Attribute))
