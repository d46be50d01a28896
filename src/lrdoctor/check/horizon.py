"""Is a scheduler's horizon counted in batches or in epochs? Judged from its constructor.

``StepLR(opt, step_size=2 * len(loader))`` counts batches, ``CosineAnnealingLR(opt,
T_max=args.epochs)`` counts epochs, ``StepLR(opt, 7)`` is a small literal (epochs, when the
script has epochs at all), ``OneCycleLR`` counts batches by design unless told otherwise.
When the arguments say nothing, the answer is "unknown" and the rules stay silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from lrdoctor.check import constants, documented, memo, names
from lrdoctor.check.index import (
    ClassInfo,
    ModuleInfo,
    Scope,
    dotted,
    origin,
    own_nodes,
    super_call,
)
from lrdoctor.check.values import Const, ExprVal, FuncVal, InstanceVal, Obj
from lrdoctor.schedulers import SCHEDULERS

# horizons up to this many steps, written as literals, are read as epochs
SMALL_LITERAL = 100
# classes whose small literal horizons would do real damage per batch (a decay to ~0, a cosine
# that oscillates); a 5-step LinearLR warm-up run per batch is merely short
LITERAL_JUDGED = frozenset(
    {"StepLR", "MultiStepLR", "CosineAnnealingLR", "PolynomialLR", "ReduceLROnPlateau"}
)
DEFAULTS = {("ReduceLROnPlateau", "patience"): 10, ("CyclicLR", "step_size_up"): 2000,
            ("LinearLR", "total_iters"): 5, ("ConstantLR", "total_iters"): 5}
HF_STEPS_INDEX = {"get_scheduler": 3, "get_inverse_sqrt_schedule": 1,
                  "get_constant_schedule_with_warmup": 1}


@dataclass(frozen=True)
class Horizon:
    unit: str  # "batch" | "epoch" | "literal" | ""
    param: str = ""
    source: str = ""  # the argument as written
    value: float | None = None  # the literal value when there is one
    # what the unit rests on, most trustworthy first: "flow" (what the value is computed
    # from: `len(loader) * epochs`), "doc" (the author's own statement: a docstring, an
    # argparse `help=`), "name" (a word in a name: `total_steps`, `num_epochs`), "literal",
    # "design" (the class counts batches by design); "" when the unit is unknown
    evidence: str = ""

    @property
    def described(self) -> str:
        if not self.param:
            return ""
        return f"{self.param}={self.source}"


def horizon_of(sched: Obj) -> Horizon:
    """The unit of ``sched``'s horizon, read from its constructor call."""
    if sched.call is None or sched.origin == "timm":
        return Horizon("")
    if sched.origin == "hf":
        return _hf_horizon(sched)
    kind = SCHEDULERS.get(sched.cls)
    if kind is not None and kind.composite:
        return _composite_horizon(sched)
    if kind is None:
        return Horizon("")
    if sched.cls == "LambdaLR" or sched.cls == "MultiplicativeLR":
        return _lambda_horizon(sched)
    if sched.cls == "ExponentialLR":
        return Horizon("")
    if sched.cls == "OneCycleLR":
        return _onecycle_horizon(sched)
    best = Horizon("")
    for param, index in kind.horizon_params:
        expr = sched.arg(param, index)
        if expr is None:
            default = DEFAULTS.get((sched.cls, param))
            if default is None or sched.has_kwargs_splat():
                continue
            found = Horizon("literal", param, str(default), float(default), "literal")
        else:
            unit, value, evidence = unit_evidence(expr, sched.scope, echo=param in ECHOED)
            if evidence == "name" and not kind.unit_in_names:
                unit, evidence = "", ""
            found = Horizon(unit, param, short_source(expr), value, evidence)
        if found.unit == "batch":
            return found
        if found.unit == "epoch" or not best.unit and (found.unit or not best.param):
            # (among parameters whose unit is unknown, the first named is the horizon: a
            # warm-up's length is only part of it)
            best = found
    if kind.design == "batch" and best.unit != "epoch":
        return Horizon("batch", best.param, best.source, best.value, "design")
    return best


def _composite_horizon(sched: Obj, depth: int = 0) -> Horizon:
    """SequentialLR / ChainedScheduler count what their members count (and SequentialLR's
    milestones, the steps at which it hands over): a warm-up in epochs followed by a cosine
    in epochs is in epochs. Members that disagree (or say nothing) leave it unknown."""
    if depth > 3 or not sched.members:
        return Horizon("")
    found: list[Horizon] = []
    milestones = sched.arg("milestones", 2) if sched.cls == "SequentialLR" else None
    if milestones is not None:  # named first: the message quotes the first that decides
        unit, value, evidence = unit_evidence(milestones, sched.scope)
        found.append(Horizon(unit, "milestones", short_source(milestones), value, evidence))
    for member in sched.members:
        kind = SCHEDULERS.get(member.cls)
        h = _composite_horizon(member, depth + 1) if kind is not None and kind.composite \
            else horizon_of(member)
        if not h.unit and (kind is None or kind.composite or kind.horizon_params):
            # a member whose length cannot be read (`CosineAnnealingWarmRestarts(T_0=T_0)`):
            # the warm-up's name alone does not say what the whole schedule counts
            return Horizon("")
        found.append(Horizon(h.unit, f"{member.cls}'s {h.param}", h.source, h.value,
                             h.evidence) if h.param else h)
    units = {h.unit for h in found if h.unit in ("batch", "epoch")}
    if len(units) != 1:
        return Horizon("")
    unit = units.pop()
    return next(h for h in found if h.unit == unit)


def _onecycle_horizon(sched: Obj) -> Horizon:
    total = sched.arg("total_steps", 2)
    if total is not None and constants.known(total, sched.scope) \
            and constants.resolve(total, sched.scope) is None:
        total = None  # `total_steps=total_steps`, a helper's parameter left at its None default
    if total is not None and not (isinstance(total, ast.Constant) and total.value is None):
        if _unit_picked_by_setting(total, sched.scope, 0):
            # `total_steps = epochs * len(loader) if per_step else epochs`: the setting that
            # picks the length picks the unit, and with it where the program steps it
            return Horizon("")
        unit, value, evidence = unit_evidence(total, sched.scope)
        if unit == "epoch":
            return Horizon("epoch", "total_steps", short_source(total), value, evidence)
        return Horizon("batch", "total_steps", short_source(total), value,
                       evidence if unit == "batch" else "design")
    per_epoch = sched.arg("steps_per_epoch", 4)
    if per_epoch is not None:
        unit, value = unit_of(per_epoch, sched.scope)
        # `steps_per_epoch=1`, also through a helper's parameter the caller fills with 1
        # (`make_onecycle(opt, epochs=EPOCHS, steps_per_epoch=1)`): one step an epoch by design
        stated = constants.resolve(per_epoch, sched.scope)
        if (unit == "literal" and value == 1) or (type(stated) is int and stated == 1):
            return Horizon("epoch", "steps_per_epoch", "1", 1.0, "literal")
        if _one_step_an_epoch_by_setting(per_epoch, sched.scope):
            # `steps_per_epoch = len(loader) if per_step else 1`: one step an epoch on the
            # setting's other branch, so the setting picks the unit (and the stepping site)
            return Horizon("")
        return Horizon("batch", "steps_per_epoch", short_source(per_epoch), value, "design")
    return Horizon("batch", evidence="design")


def _hf_horizon(sched: Obj) -> Horizon:
    index = HF_STEPS_INDEX.get(sched.cls, 2)
    param = "num_training_steps"
    if sched.cls in ("get_inverse_sqrt_schedule", "get_constant_schedule_with_warmup"):
        param = "num_warmup_steps"
    expr = sched.arg(param, index)
    if expr is None:
        return Horizon("batch", param, evidence="design")
    if _unit_picked_by_setting(expr, sched.scope, 0):
        return Horizon("")  # `num_training_steps = total_batches if per_step else epochs`
    unit, value, evidence = unit_evidence(expr, sched.scope)
    if unit == "epoch":
        return Horizon("epoch", param, short_source(expr), value, evidence)
    return Horizon("batch", param, short_source(expr), value, evidence if unit == "batch" else "design")


def ignores_first_argument(expr: ast.expr | None, scope: Scope | None) -> bool:
    """Whether the LR function ``expr`` (a lambda, or a function of the module or of the
    scope) never reads the step count a LambdaLR hands it: ``lambda _: lr_at(state["step"])``,
    or a body that starts with ``del epoch`` and reads a counter of the program's own. Such a
    factor does not depend on how often the scheduler is stepped."""
    fn: ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | None = None
    if isinstance(expr, ast.Lambda):
        fn = expr
    elif isinstance(expr, ast.Name) and scope is not None:
        found = scope.lookup(expr.id)
        if isinstance(found, FuncVal) and found.preset is None and found.bound is None:
            fn = found.fn
        elif found is None:
            fn = scope.module.functions.get(expr.id)
    elif isinstance(expr, ast.Attribute):
        # held by the instance first (`self.lr_fn = lambda _: ...`, then
        # `LambdaLR(self.optimizer, self.lr_fn)`)
        fn = _held_factor(expr, scope)
    if fn is None:
        return False
    args = fn.args
    if args.vararg is not None or args.kwarg is not None or not args.args:
        return False
    first = args.args[0].arg
    body: list[ast.AST] = [fn.body] if isinstance(fn, ast.Lambda) else list(fn.body)
    # `del epoch  # unused` names the argument only to say it is not read
    return not any(isinstance(node, ast.Name) and node.id == first
                   and not isinstance(node.ctx, ast.Del)
                   for part in body for node in ast.walk(part))


def lr_factor(sched: Obj) -> tuple[ast.AST, set[str]] | None:
    """The code of a LambdaLR / MultiplicativeLR factor and the names of its own parameters:
    a lambda's body, a function's definition (of the module, or defined next to the
    scheduler), or the object a bound method is bound to; None when it cannot be found."""
    expr = sched.arg("lr_lambda", 1)
    if expr is None:
        return None
    if isinstance(expr, ast.Attribute):
        held = _held_factor(expr, sched.scope)
        if held is not None:
            # `self.lf = one_cycle(1, lrf, self.steps)` then `LambdaLR(opt, lr_lambda=self.lf)`:
            # the function the instance keeps, read as when it is held in a local name
            return held, {a.arg for a in held.args.args}
        # a bound method (`DecayAfter(n_epochs, offset, decay_epoch).step`): its name says how
        # it is called, not what its horizon counts; the object it is bound to does
        return expr.value, set()
    if isinstance(expr, ast.Lambda):
        return expr.body, {a.arg for a in expr.args.args}
    if isinstance(expr, ast.Name) and sched.scope is not None:
        # a function of the module, or one defined next to the scheduler (a closure over
        # `warmup_steps` / `max_steps` inside configure_optimizers)
        found = sched.scope.lookup(expr.id)
        fn = found.fn if isinstance(found, FuncVal) else sched.scope.module.functions.get(expr.id)
        if fn is None:
            return None
        return fn, {a.arg for a in fn.args.args}
    return expr, set()


def _held_factor(expr: ast.Attribute, scope: Scope | None
                 ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function (a lambda or a closure a factory returned, not a bound method) that
    ``self.<name>`` holds where ``expr`` reads it, or None."""
    if scope is None or scope.self_val is None or not (
            isinstance(expr.value, ast.Name) and expr.value.id == "self"):
        return None
    held = scope.self_val.attrs.get(expr.attr)
    if isinstance(held, FuncVal) and held.bound is None and held.preset is None:
        return held.fn
    return None


def _lambda_horizon(sched: Obj) -> Horizon:
    expr = sched.arg("lr_lambda", 1)
    if expr is None:
        return Horizon("")
    if ignores_first_argument(expr, sched.scope):
        # the factor follows a counter of the program's own (a trainer's timestamp read in
        # the function), not the number of steps: how often it is stepped sizes nothing
        return Horizon("")
    factor = lr_factor(sched)
    if factor is None:
        return Horizon("")
    body, params = factor
    where = sched.scope
    if isinstance(expr, ast.Name) and where is not None \
            and where.module.functions.get(expr.id) is body:
        while where.parent is not None:  # a function of the module reads the module's names
            where = where.parent
    closure = _factor_closure(expr, sched.scope)
    made = sched.scope.source_of(expr.id) \
        if isinstance(expr, ast.Name) and sched.scope is not None else None
    made_by = made[0] if made is not None else None
    units: dict[str, str] = {}  # unit -> the most trustworthy evidence for it
    # lists the factor indexes (`i < steps[0]`, `steps[1]`): milestones, whose name says where
    # the LR steps down (per epoch as often as not), not what the counter counts
    listed = {n.value.id for n in ast.walk(body)
              if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)}
    rates = _decay_rates(body, params) | _uncounted_calls(body) \
        | _scaled_epochs(body, params, where)
    for node in ast.walk(body):
        if id(node) in rates:
            continue
        # a name, an attribute, or the key a setting is read by (`config["warmup_steps"]`,
        # `cfg.get("warmup_steps", 10)`): the word that names what the value counts
        word = node.id if isinstance(node, ast.Name) else (
            constants.setting_name(node)
            if isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)) else ""
        )
        if word and word not in params:
            unit, evidence = _closure_word_unit(node, closure, made_by, sched.scope) \
                or _factor_word_unit(node, word, where)
            if evidence == "name" and _echo(word) and (
                    isinstance(node, ast.Name) and node.id in listed
                    or isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and node.value.id in listed):
                continue  # `steps[0]`: a milestone list named after the decays
            if unit and _RANK[evidence] < _RANK[units.get(unit, "")]:
                units[unit] = evidence
    if "batch" in units and "epoch" in units \
            and {names.unit_of_word(p) for p in params} == {"epoch"}:
        # `def poly2(epoch): ... epoch < args.poly_step ... 1 - epoch / args.max_epoch`: the
        # factor's own counter is named an epoch and the body reads settings of both units;
        # which one it counts is not known
        return Horizon("")
    if "batch" in units:
        return Horizon("batch", "lr_lambda", short_source(expr), evidence=units["batch"])
    if "epoch" in units:
        return Horizon("epoch", "lr_lambda", short_source(expr), evidence=units["epoch"])
    return Horizon("")


def _scaled_epochs(body: ast.AST, params: set[str], where: Scope | None) -> set[int]:
    """The nodes of a product the LR factor hands its helper as a length that is not known to
    count epochs though a factor of it is named so (``lambda it: cosine(it, 0, epochs *
    cfg.stretch, ...)``, ``epochs * 1000``): ``unit_evidence`` reads such a product as no
    unit (a count of updates per epoch written as a number or a setting as likely as a
    multiple of epochs), as it does for ``CosineAnnealingLR(T_max=epochs * 1000)``, so the
    word "epochs" inside it does not say what the factor's counter counts. A product whose
    unit is known (``epochs * len(loader)``: batches; ``epochs * 2``: epochs) is left to the
    walk, as is one that reads the factor's own counter."""
    out: set[int] = set()
    for node in ast.walk(body):
        if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.Mult) \
                or id(node) in out:
            continue
        inner = list(ast.walk(node))
        if any(isinstance(n, ast.Name) and n.id in params for n in inner):
            continue
        if unit_evidence(node, where)[0] == "":
            out.update(id(n) for n in inner)
    return out


def _uncounted_calls(body: ast.AST) -> set[int]:
    """``len`` of a collection an LR factor writes out itself (``0.1 ** len([m for m in [15,
    25] if m <= epoch])``, the number of milestones passed): it counts milestones, not
    batches, though ``len`` alone reads as "batches" (``len(loader)``, which still does)."""
    return {id(node.func) for node in ast.walk(body)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "len" and len(node.args) == 1
            and _written_out(node.args[0])}


def _written_out(expr: ast.expr) -> bool:
    """A collection written in place: a display, a comprehension, or ``list`` / ``tuple`` /
    ``set`` / ``sorted`` of one (``tuple(m for m in (15, 25) if m <= epoch)``)."""
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.SetComp,
                         ast.DictComp, ast.GeneratorExp)):
        return True
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) \
        and expr.func.id in ("list", "tuple", "set", "sorted") and len(expr.args) == 1 \
        and _written_out(expr.args[0])


def _decay_rates(body: ast.AST, params: set[str]) -> set[int]:
    """The nodes of an LR factor that make up the base of a power whose exponent reads the
    factor's own counter (``gamma ** step``, ``cfg.decay_per_step ** (epoch // 2)``): that
    base is the factor applied per step of the counter, a rate, not a length of the schedule,
    so whatever its name says ("step", "iter") is not the unit the counter counts. The
    exponent's own names (``0.1 ** (epoch // decay_epochs)``) still say it."""
    out: set[int] = set()
    for node in ast.walk(body):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and any(
                isinstance(n, ast.Name) and n.id in params for n in ast.walk(node.right)):
            out.update(id(n) for n in ast.walk(node.left))
    return out


def _factor_closure(expr: ast.expr, scope: Scope | None) -> Scope | None:
    """The scope of the factory call that made the LR factor ``expr`` names (``lf =
    cosine(epochs)``, ``self.lf = one_cycle(1, lrf, self.steps)``): where the factory's
    parameters are bound to what the caller handed it; None for anything else."""
    held: Any = None
    if isinstance(expr, ast.Name) and scope is not None:
        held = scope.lookup(expr.id)
    elif isinstance(expr, ast.Attribute) and _held_factor(expr, scope) is not None:
        held = scope.self_val.attrs.get(expr.attr)  # type: ignore[union-attr]
    return held.closure if isinstance(held, FuncVal) and held.bound is None else None


def _closure_word_unit(node: ast.AST, closure: Scope | None, made_by: ast.expr | None,
                       where: Scope | None) -> tuple[str, str] | None:
    """The unit of a factory parameter the factor reads (``def cosine(horizon): return
    lambda x: ... x / horizon``), from the argument the factory was called with
    (``cosine(args.epochs)`` counts epochs): the value the call bound it to, or the argument
    written in the call ``made_by`` (read in ``where``) when that value is not known. When
    the parameter's own name says one unit (``steps``) and the argument another, neither is
    trusted (``("", "")``: a generic name, or an argument whose help text was copied from
    another option). None when the argument says nothing: the name is read as before."""
    if closure is None or not isinstance(node, ast.Name) or node.id not in closure.vars:
        return None
    bound = closure.vars[node.id]
    found = _NONE
    if isinstance(bound, ExprVal):
        found = unit_evidence(bound.node, bound.scope, 1)
    elif isinstance(made_by, ast.Call):
        argument = _argument_for(made_by, node.id, where)
        if argument is not None:
            found = unit_evidence(argument, where, 1)
    if found[0] not in ("batch", "epoch"):
        return None
    own = names.unit_of_word(node.id)
    if own in ("batch", "epoch") and own != found[0]:
        return ("", "")
    return found[0], found[2]


def _argument_for(call: ast.Call, param: str, scope: Scope | None) -> ast.expr | None:
    """What ``call`` (of a function of the module) passes for its parameter ``param``."""
    if scope is None or not isinstance(call.func, ast.Name):
        return None
    fn = scope.module.functions.get(call.func.id)
    if fn is None:
        return None
    for keyword in call.keywords:
        if keyword.arg == param:
            return keyword.value
    positional = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]]
    if param in positional and positional.index(param) < len(call.args):
        argument = call.args[positional.index(param)]
        return None if isinstance(argument, ast.Starred) else argument
    return None


def _factor_word_unit(node: ast.AST, word: str, scope: Scope | None) -> tuple[str, str]:
    """The unit a name read by an LR factor counts, and what says so: what the name is
    computed from (``total_steps = args.epochs``, a value kept on ``self``) or the author's
    statement (an argparse ``help=``) outranks the word (``total_steps``)."""
    if scope is not None and isinstance(node, ast.expr) and not isinstance(node, ast.Call):
        if isinstance(node, ast.Name):
            # what it is assigned from, whatever says its unit there (`cycle = args.epochs`)
            found = scope.source_of(node.id)
            defined = unit_evidence(found[0], found[1], 1) if found is not None else _NONE
            if defined[0] in ("batch", "epoch"):
                return defined[0], defined[2]
        else:
            defined = unit_evidence(node, scope, 1)
            if defined[0] in ("batch", "epoch") and defined[2] in ("flow", "doc"):
                return defined[0], defined[2]
    unit = names.unit_of_word(word)
    return unit, "name" if unit else ""


# parameters whose own name says "step": an argument named after them (`args.lr_step`,
# `step_size=step`, `milestones=args.lr_steps`) only echoes the parameter, it does not say the
# horizon counts batches; nor does one named after the class (`cfg.multi_lr_decay_step` for a
# MultiStepLR's milestones, `milestone_steps`: StepLR's "steps" are its decays, per epoch as
# often as not)
ECHOED = frozenset({"step_size", "milestones"})
_ECHO_TOKENS = frozenset({"lr", "step", "steps", "size", "stepsize", "decay", "sched",
                          "scheduler", "schedule", "multi", "multistep", "milestone",
                          "milestones"})
_DECAY_TOKENS = frozenset({"multi", "multistep", "milestone", "milestones", "decay"})


def _echo_tokens(word: str) -> list[str]:
    """The words of ``word``, with "learning rate" spelled out read as "lr"
    (`learning_rate_scheduler_step` says what `lr_scheduler_step` says)."""
    tokens = [t for t in word.lower().split("_") if t]
    out: list[str] = []
    for t in tokens:
        if t == "rate" and out and out[-1] == "learning":
            out[-1] = "lr"
        elif t == "learningrate":
            out.append("lr")
        else:
            out.append(t)
    return out


def _echo(word: str) -> bool:
    tokens = _echo_tokens(word)
    if not tokens or not any(t.startswith("step") for t in tokens):
        return False
    if all(t in _ECHO_TOKENS for t in tokens):
        return True
    # named after the decays and qualified by what it belongs to (`multi_lr_decay_step_gen`,
    # `lr_decay_step_disc` for a GAN's two schedulers), no qualifier naming a unit
    extra = [t for t in tokens if t not in _ECHO_TOKENS]
    if len(extra) == 1 and any(t in _DECAY_TOKENS for t in tokens) \
            and not names.unit_of_word(extra[0]):
        return True
    # the parameter's whole name qualified by what it belongs to (`cfg["g_optimizer_step_size"]`,
    # `args.decoder_stepsize`): still an echo, unless the qualifier names a unit itself
    # (`iter_step_size`); `warmup_steps` is not `step_size` and keeps its meaning
    for name in (["step", "size"], ["stepsize"]):
        if tokens[-len(name):] == name:
            return not any(names.unit_of_word(t) for t in tokens[: -len(name)])
    return False


def _word_unit(word: str, echo: bool) -> str:
    return "" if echo and _echo(word) else names.unit_of_word(word)


# evidence kinds, most trustworthy first (see Horizon.evidence)
_RANK = {"flow": 0, "doc": 1, "name": 2, "literal": 3, "design": 4, "": 5}
_NONE: tuple[str, float | None, str] = ("", None, "")


def _says_step_only(word: str) -> bool:
    """``word`` says "step" and no other of its words names a unit (``lr_dc_step``,
    ``test_step``; not ``iter_step`` nor ``warmup_epoch_steps``)."""
    tokens = [t for t in word.lower().split("_") if t]
    return any(t.startswith("step") for t in tokens) and not any(
        names.unit_of_word(t) for t in tokens if not t.startswith("step"))


def _small_stated(found: tuple[str, float | None, str]) -> bool:
    """``found`` is a small literal the file states (at most ``SMALL_LITERAL``)."""
    return found[0] == "literal" and found[1] is not None and 0 < found[1] <= SMALL_LITERAL


def _filled_small_by_every_call(expr: ast.Name, scope: Scope) -> tuple[str, float | None, str]:
    """``("literal", n, "literal")`` when the parameter ``expr`` names is, in every call of
    its function (or of its class, for ``__init__``) in its module and in the project modules
    whose text calls it, filled with (or left to) a small literal the files state: an
    argument written as a number, or a setting stated as one (``args.test_every`` with
    ``default=1``). ``_NONE`` when one call fills it with anything else, or when the calls
    cannot all be found."""
    line = getattr(expr, "lineno", None)
    if line is None:
        return _NONE
    owner: tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, int] | None = None
    methods = {id(f): c.name for c in ast.walk(scope.module.tree) if isinstance(c, ast.ClassDef)
               for f in c.body if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in ast.walk(scope.module.tree):
        bodies = [(node, methods.get(id(node), ""))] \
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else []
        for fn, cls_name in bodies:
            if not fn.lineno <= line <= (fn.end_lineno or fn.lineno):
                continue
            if cls_name and fn.name != "__init__":
                continue  # a method: called on instances, by names not followed here
            name = cls_name or fn.name
            if owner is None or fn.lineno >= owner[0].lineno:
                owner = (fn, name, 1 if cls_name else 0)
    if owner is None:
        return _NONE
    fn, name, skip = owner
    positional = [a.arg for a in [*fn.args.posonlyargs, *fn.args.args]][skip:]
    defaults = dict(_defaulted_parameters(fn))
    if expr.id not in positional and expr.id not in [a.arg for a in fn.args.kwonlyargs]:
        return _NONE
    index = positional.index(expr.id) if expr.id in positional else None
    modules = [scope.module]
    calling = getattr(scope.module.loader, "calling_modules", None)
    if calling is not None:
        others = calling(scope.module.path, name)
        if others is None:
            return _NONE
        modules += others
    values: list[float] = []
    for module in modules:
        for call in ast.walk(module.tree):
            if not (isinstance(call, ast.Call) and (
                    isinstance(call.func, ast.Name) and call.func.id == name
                    or isinstance(call.func, ast.Attribute) and call.func.attr == name)):
                continue
            arg = next((k.value for k in call.keywords if k.arg == expr.id), None)
            if arg is None and index is not None and index < len(call.args) \
                    and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                arg = call.args[index]
            if arg is None and (any(k.arg is None for k in call.keywords)
                                or any(isinstance(a, ast.Starred) for a in call.args)):
                return _NONE  # `Trainer(**cfg)`: filled with what is not known here
            value = _stated_number(arg if arg is not None else defaults.get(expr.id), module)
            if value is None:
                return _NONE
            values.append(value)
    if not values:
        value = _stated_number(defaults.get(expr.id), scope.module)
        if value is None:
            return _NONE
        values.append(value)
    found = ("literal", max(values), "literal")
    return found if min(values) > 0 and _small_stated(found) else _NONE


def _defaulted_parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef
                          ) -> list[tuple[str, ast.expr]]:
    positional = [*fn.args.posonlyargs, *fn.args.args]
    pairs = [(p.arg, d) for p, d in zip(positional[len(positional) - len(fn.args.defaults):],
                                        fn.args.defaults)]
    pairs += [(p.arg, d) for p, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults) if d is not None]
    return pairs


def _stated_number(expr: ast.expr | None, module: ModuleInfo) -> float | None:
    """The number ``expr`` stands for as ``module`` states it: a literal, or a setting read
    by its name (``args.test_every`` with an argparse ``default=1``); None otherwise."""
    if expr is None:
        return None
    value = constants.resolve(expr, None, module)
    if value is None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        default = constants.settings(module).get(expr.attr)
        value = constants.resolve(default, None, module) if default is not None else None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


def _small_stated_echo(expr: ast.expr, word: str, scope: Scope | None
                       ) -> tuple[str, float | None, str] | None:
    """``StepLR(step_size=opt.lr_dc_step)`` with ``--lr_dc_step`` stated as 3: the name says
    "step" only as the scheduler does (one ``scheduler.step()``), no other word of it names
    a unit, and the value the file states is a small literal (decaying every 3 batches would
    be no schedule at all): read it as that literal, not as batches."""
    if not _says_step_only(word):
        return None
    stated = stated_setting(expr, scope)
    if stated is None or stated[1] is None or not 0 < stated[1] <= SMALL_LITERAL:
        return None
    return stated


def stated_setting(expr: ast.expr, scope: Scope | None, depth: int = 0
                   ) -> tuple[str, float | None, str] | None:
    """``("literal", n, "literal")`` for the number the program states for ``expr`` (a
    literal, a config constant, an argparse default; the largest of a list of them), also
    for ``opt.x`` read where ``opt`` was handed in by the driver whose parser states ``x``'s
    default, and for a parameter given such a setting by its caller (``StepLR(opt,
    step_size=step_size)`` in a builder called with ``step_size=opt.lr_decay_iters``); None
    when it states none."""
    stated = _stated(expr, scope)
    if stated is None and isinstance(expr, ast.Name) and scope is not None and depth < 4:
        held = scope.lookup(expr.id)
        if isinstance(held, ExprVal) and held.node is not expr:
            return stated_setting(held.node, held.scope, depth + 1)
    if stated is None and isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
        # `opt.lr_dc_step` in a model class handed the driver's parsed `opt`: the default is
        # stated in the driver's parser
        node, where = origin(expr.value, scope, 6, passed=True)
        if where is not None and node is not expr.value:
            default, module = constants.settings(where.module).get(expr.attr), where.module
            if default is None and isinstance(node, (ast.Name, ast.Call)):
                # the driver's `opt = TrainOptions().parse()`, the options class in another
                # module of the project, or that class's `parse` method's `parse_args()`
                parsed = constants.parsed_setting(expr.attr, node, where, where.module) \
                    or constants.parser_method_setting(expr.attr, where)
                default, module = parsed if parsed is not None else (None, module)
            value = constants.resolve(default, None, module) if default is not None \
                else None
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                stated = ("literal", float(value), "literal")
    return stated


def _stated(expr: ast.expr, scope: Scope | None) -> tuple[str, float | None, str] | None:
    """The unit of the value the file states for a setting (an argparse default, a config
    constant), or None when it states none."""
    value = constants.resolve(expr, scope)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("literal", float(value), "literal")
    if isinstance(value, (list, tuple)) and value and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
    ):
        return ("literal", float(max(value)), "literal")
    return None


def unit_of(expr: ast.expr, scope: Scope | None, depth: int = 0,
            echo: bool = False) -> tuple[str, float | None]:
    """``("batch"|"epoch"|"literal"|"", literal value)`` for a horizon expression; ``echo``:
    a name that merely repeats the parameter's own word ("step") says nothing."""
    unit, value, _ = unit_evidence(expr, scope, depth, echo)
    return (unit, value)


_NUMBER_WRAPPERS = frozenset({"int", "float", "round", "math.ceil", "math.floor"})
# calls that return the same numbers in another container (`list(self.lr_decay_steps)`), or
# parse them from the text a setting holds (`ast.literal_eval(args.lr_decay_steps)`)
_SEQUENCE_COPIES = frozenset({"list", "tuple", "sorted", "ast.literal_eval", "literal_eval",
                              "json.loads"})


def _repeated_sequence(expr: ast.BinOp) -> ast.expr | None:
    """The list or tuple display of ``[a, b] * n`` (or ``n * [a, b]``): Python repeats the
    sequence, it does not scale its values. None for any other operation."""
    if not isinstance(expr.op, ast.Mult):
        return None
    for seq, count in ((expr.left, expr.right), (expr.right, expr.left)):
        if isinstance(seq, (ast.List, ast.Tuple)) and seq.elts \
                and not isinstance(count, (ast.List, ast.Tuple)):
            return seq
    return None


def unit_evidence(expr: ast.expr, scope: Scope | None, depth: int = 0,
                  echo: bool = False) -> tuple[str, float | None, str]:
    """``unit_of`` with what the unit rests on (see ``Horizon.evidence``). The evidence is
    ranked: what a value is computed from (``n = args.epochs * len(loader)``) outranks what
    the author wrote about it (a docstring, an argparse ``help=``), which outranks the word in
    its name (``total_steps``, ``num_epochs``)."""
    if depth > 12:
        return _NONE
    if isinstance(expr, ast.Constant):
        if isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool):
            return ("literal", float(expr.value), "literal")
        return _NONE
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        # `milestones=[args.lr_step]`: each element echoes the parameter as the list does
        results = [unit_evidence(e, scope, depth + 1, echo) for e in expr.elts]
        return _combine(results, max)
    if isinstance(expr, ast.Name):
        if _unit_picked_by_setting(expr, scope, depth):
            # `warmup_steps = warmup_epochs * len(loader) if per_batch else warmup_epochs`:
            # the name says steps, the setting decides
            return _NONE
        unit = _word_unit(expr.id, echo)
        if scope is not None:
            found = scope.source_of(expr.id)
            if found is not None:
                # what the value is computed from outranks the name it is kept under:
                # `cycle_step = args.epochs // args.snapshots` counts epochs, "step" or not
                defined = unit_evidence(found[0], found[1], depth + 1, echo)
                if defined[0] in ("batch", "epoch") or not unit:
                    return defined
            elif unit:
                # `def make(opt, num_training_steps)` called `make(opt, args.epochs)`: what
                # the caller fills the parameter with outranks its name, as an assignment's
                # value does
                filled = _filled_with(expr, scope, depth, echo)
                if filled[0] in ("batch", "epoch"):
                    return filled
                if unit == "batch" and echo and _says_step_only(expr.id) and _small_stated(
                        filled if filled[0] else _filled_small_by_every_call(expr, scope)):
                    # `StepLR(opt, step_size=test_step)` in a trainer whose caller fills
                    # `test_step` with `args.test_every` (default 1): the word says "step" only
                    # as the scheduler's own `step()` does, and the value stated for it is a
                    # small literal (a decay every batch or two would be no schedule at all),
                    # as `StepLR(step_size=opt.lr_dc_step)` with `--lr_dc_step 3`
                    return filled if filled[0] else _filled_small_by_every_call(expr, scope)
        if unit:
            return (unit, None, "name")
        if scope is not None:
            value = scope.lookup(expr.id)
            if isinstance(value, ExprVal):
                return unit_evidence(value.node, value.scope, depth + 1, echo)
            if isinstance(value, Const) and isinstance(value.value, (int, float)):
                return ("literal", float(value.value), "literal")
            # (no assignment binds it here: one that does decided above)
            given = scope.argument_of(expr.id)
            if given is not None and given[0] is not expr:
                # `MultiStepLR(opt, milestones=milestones)` in a builder called with the
                # caller's list of fractions of `len(loader) * epochs`
                return unit_evidence(given[0], given[1], depth + 1, echo)
        return _stated(expr, scope) or _NONE
    if isinstance(expr, ast.Attribute):
        counted = _lightning_trainer_count(expr)
        if counted:
            return (counted, None, "flow")
        built = _built_with(expr, scope, depth, echo)
        if built[0] in ("batch", "epoch") and (
                built[2] != "name" or built[0] != _word_unit(expr.attr, echo)):
            # `self.restart_steps` stored from the constructor's parameter, which every
            # construction of the class in its module fills with epochs (`epochs // periods`):
            # what the value is computed from outranks the attribute's name, as for a name
            return built
        declared = _declared_unit(expr, scope, echo)
        if declared:
            return (declared, None, "doc")
        helped = _help_unit(expr, expr.attr, scope, echo) if _setting_holder(expr) else ""
        if helped:
            return (helped, None, "doc")
        unit = _word_unit(expr.attr, echo)
        if unit == "batch" and echo:
            unit = "" if _small_stated_echo(expr, expr.attr, scope) else unit
        if unit:
            return (unit, None, "name")
        return _stated(expr, scope) or _NONE
    if isinstance(expr, ast.Call) and constants.setting_name(expr):
        # `cfg.get("T_max", 10)`, `getattr(args, "T_max", 10)`: a setting read by its key, as
        # `cfg.T_max` is (its word, else the value the file states for it)
        setting = constants.setting_name(expr)
        helped = _help_unit(expr, setting, scope, echo)
        if helped:
            return (helped, None, "doc")
        unit = _word_unit(setting, echo)
        if unit:
            return (unit, None, "name")
        # the default it falls back to names its unit too (`params.get("milestones",
        # DECAY_ITERS)`)
        fallback = expr.args[2 if dotted(expr.func) == "getattr" else 1:]
        default = unit_evidence(fallback[0], scope, depth + 1, echo) if fallback else _NONE
        if default[0] in ("batch", "epoch"):
            return default
        return _stated(expr, scope) or _NONE
    if isinstance(expr, ast.Call):
        func = dotted(expr.func) or ""
        if func == "len" or func.endswith(".__len__"):
            return ("batch", None, "flow")
        if func in _NUMBER_WRAPPERS and len(expr.args) == 1 and not expr.keywords:
            # `int(cfg.get("scheduler_step_size", 10))`: the number the argument is, converted;
            # read as the argument is (a name that echoes the parameter's word says nothing)
            return unit_evidence(expr.args[0], scope, depth + 1, echo)
        if func in _SEQUENCE_COPIES and len(expr.args) == 1 and all(
                k.arg == "reverse" for k in expr.keywords):
            # `milestones=list(self.lr_decay_steps)`: the same numbers in a list (or parsed from
            # the setting's text), read as the argument is, the parameter's echo included
            return unit_evidence(expr.args[0], scope, depth + 1, echo)
        unit = ""
        for word in names.words(func):
            unit = unit or names.unit_of_word(word)
        if unit == "batch":
            return ("batch", None, "name")
        results = [unit_evidence(a, scope, depth + 1) for a in expr.args]
        results += [unit_evidence(k.value, scope, depth + 1) for k in expr.keywords]
        if func in _RANGES and len(expr.args) == 3 and results[2][2] == "name":
            # `range(args.decay_start, 1000, args.lr_step)`: "step" is the word for a range's
            # stride, whatever it counts; its name says nothing of the unit
            results[2] = _NONE
        combined = _combine(results, None)
        if combined[0] == "literal" and func not in ("int", "round", "math.ceil", "math.floor",
                                                     "float", "max", "min"):
            return _NONE
        if unit == "epoch" and combined[0] != "batch":
            return ("epoch", None, "name")
        return combined
    if isinstance(expr, ast.BinOp):
        repeated = _repeated_sequence(expr)
        if repeated is not None:
            # `[30, 60] * (1 + iters_per_epoch)`: a list times a count repeats the list; its
            # values stay 30 and 60 (MultiStepLR counts each repeat as one more decay at the
            # same step), whatever the count counts
            return unit_evidence(repeated, scope, depth + 1, echo)
        left = unit_evidence(expr.left, scope, depth + 1)
        right = unit_evidence(expr.right, scope, depth + 1)
        if isinstance(expr.op, (ast.Div, ast.FloorDiv)) and left[0] == "epoch" \
                and right[0] == "batch" and right[2] == "name":
            # `args["epochs"] // n_steps` (`n_steps = 10`): epochs split into a number of
            # parts is a number of epochs; a divisor is a count of parts whatever its name
            # says ("steps"), and epochs per batch would be no count of batches
            return ("epoch", None, _best([left], "epoch"))
        if isinstance(expr.op, (ast.Add, ast.Sub)) and {left[0], right[0]} == {"batch", "epoch"} \
                and {left[2], right[2]} <= {"name", "doc"}:
            # `args.epochs - args.warmup_iters`: a sum or difference is taken in one unit, so
            # one of the two words is a misnomer, and words alone do not say which
            return _NONE
        if "batch" in (left[0], right[0]):
            return ("batch", None, _best([left, right], "batch"))
        if "epoch" in (left[0], right[0]):
            # epochs * 100 is still epochs; epochs // 3 too. Epochs times a count of unknown
            # unit (`cfg.num_epochs * n`, `n` a parameter its caller gives len(loader)) is
            # not known to be epochs: most often it is the run's number of batches
            other = right if left[0] == "epoch" else left
            if isinstance(expr.op, ast.Mult) and other[0] == "":
                return _NONE
            if isinstance(expr.op, ast.Mult) and other[0] == "literal" \
                    and other[1] is not None and other[1] >= 10:
                # `args.epochs * 100`: the updates per epoch written as a number (a fixed
                # loader length) as likely as a multiple of epochs; whether one epoch holds
                # the whole schedule depends on a length nobody stated (`epochs * 2`, a few
                # cycles of epochs, stays epochs)
                return _NONE
            return ("epoch", None, _best([left, right], "epoch"))
        if left[0] == right[0] == "literal" and left[1] is not None and right[1] is not None:
            try:
                value = _fold(expr.op, left[1], right[1])
            except (ArithmeticError, ValueError):
                return _NONE
            return ("literal", value, "literal") if value is not None else _NONE
        return _NONE
    if isinstance(expr, ast.UnaryOp):
        return unit_evidence(expr.operand, scope, depth + 1, echo)
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) \
                and isinstance(expr.value, ast.Attribute):
            # `self.hparams["total_steps"]`, read as `self.hparams.total_steps` is
            declared = _declared_unit(ast.Attribute(expr.value, key.value, ast.Load()), scope, echo)
            if declared:
                return (declared, None, "doc")
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and scope is not None:
            helped = _help_unit(expr, key.value, scope, echo)
            if helped:
                return (helped, None, "doc")
        for node in ast.walk(expr):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                unit = _word_unit(node.value, echo)
                if unit:
                    return (unit, None, "name")
        stated = _stated(expr, scope)
        if stated is not None:
            return stated
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            # `presets.SHUFFLENET["lr_step_size"]`: a mapping of settings read by the key
            # that names this one; the mapping's own name (a model's, a preset's) is no
            # unit of its items, as `args` is none of `args.lr_step_size`
            return _NONE
        return unit_evidence(expr.value, scope, depth + 1, echo) \
            if isinstance(expr.value, ast.Attribute) else _NONE
    if isinstance(expr, ast.IfExp):
        if _unit_picked_by_setting(expr, scope, depth):
            return _NONE
        return _combine([unit_evidence(expr.body, scope, depth + 1, echo),
                         unit_evidence(expr.orelse, scope, depth + 1, echo)], max)
    return _NONE


_RANGES = frozenset({"range", "np.arange", "numpy.arange", "torch.arange"})


def _best(results: list[tuple[str, float | None, str]], unit: str) -> str:
    """The most trustworthy evidence among ``results`` that give ``unit``."""
    return min((r[2] for r in results if r[0] == unit), key=lambda e: _RANK.get(e, 5),
               default="")


# what a Lightning Trainer's own attributes count: its epoch budget, and its budgets and
# estimates in optimizer steps (`estimated_stepping_batches` is max_epochs times the batches
# of an epoch divided by the accumulation, or max_steps)
_TRAINER_COUNTS = {"max_epochs": "epoch", "current_epoch": "epoch", "max_steps": "batch",
                   "estimated_stepping_batches": "batch", "num_training_batches": "batch"}


def _lightning_trainer_count(expr: ast.Attribute) -> str:
    """The unit of ``self.trainer.max_epochs`` / ``trainer.estimated_stepping_batches``: what
    the framework's Trainer counts there, whatever the words of the scheduler's parameter
    say; "" for anything else."""
    holder = expr.value
    held = holder.attr if isinstance(holder, ast.Attribute) else \
        holder.id if isinstance(holder, ast.Name) else ""
    return _TRAINER_COUNTS.get(expr.attr, "") if held == "trainer" else ""


def _help_unit(expr: ast.expr, setting: str, scope: Scope | None, echo: bool) -> str:
    """The unit the ``help=`` of the command-line option ``setting`` states, declared in the
    file that reads it or in the project module its options come from (``from opts import
    parse_args`` ... ``args = parse_args()``, ``from config import args``)."""
    if scope is None:
        return ""
    unit = documented.setting_help_unit(scope.module, setting, echo)
    if unit:
        return unit
    parser = _parser_module(expr, scope)
    return documented.setting_help_unit(parser, setting, echo) if parser is not None else ""


def _parser_module(expr: ast.expr, scope: Scope) -> ModuleInfo | None:
    """The project module that built the options object ``expr`` reads a setting of: the one
    its holder is imported from, or the one that defines the function whose result it is
    (``args = opts.parse()``, ``args = get_args()``); None when not known."""
    holder: ast.expr = expr
    for _ in range(8):  # `args.x`, `cfg.train["x"]`, `cfg.get("x")`, `getattr(args, "x")`
        if isinstance(holder, (ast.Attribute, ast.Subscript)):
            holder = holder.value
        elif isinstance(holder, ast.Call) and isinstance(holder.func, ast.Attribute):
            holder = holder.func.value
        elif isinstance(holder, ast.Call) and dotted(holder.func) == "getattr" and holder.args:
            holder = holder.args[0]
        else:
            break
    if not isinstance(holder, ast.Name):
        return None
    module = scope.module
    name = holder.id
    found = scope.source_of(name)
    if found is not None:
        source, where = found
        if not isinstance(source, ast.Call):
            return None
        called = dotted(source.func) or ""
        module = where.module
        first, _, rest = called.partition(".")
        qual = module.imports.get(first)
        if qual is None:
            return None
        qual = f"{qual}.{rest}" if rest else qual
    else:
        qual = module.imports.get(name)
        if qual is None:
            return None
    if module.loader is None:
        return None
    other = module.loader.module_for(qual, module)
    return other[0] if other is not None else None


def _setting_holder(expr: ast.Attribute) -> bool:
    """``args.total_steps``, ``self.args.total_steps``, ``cfg.train.epochs``: an attribute of
    something other than ``self`` itself (whose attributes are the instance's own, not
    settings a parser documents)."""
    return not (isinstance(expr.value, ast.Name) and expr.value.id == "self")


def _declared_unit(expr: ast.Attribute, scope: Scope | None, echo: bool = False) -> str:
    """``self.total_steps`` / ``self.hparams.total_steps`` where the class documents its
    constructor parameter ``total_steps`` in a unit ("the total epochs of training"): the
    author's statement outranks the word in the name. ``echo``: the value sizes a parameter
    whose own name is "step" (a MultiStepLR's milestones): "steps to decay the learning rate"
    then describes the schedule's own steps, not a unit."""
    if scope is None:
        return ""
    base = expr.value
    root = base if isinstance(base, ast.Name) else base.value if (
        isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name)) else None
    if root is None:
        return ""
    # the instance read is `self` in its own method, or the project's instance handed to a
    # helper under any name (`def build_optim(module): ... module.hparams.total_steps`)
    owner = scope.owner if root.id == "self" else None
    if owner is None:
        held = scope.lookup(root.id)
        owner = held.info if isinstance(held, InstanceVal) else None
    if owner is None:
        return ""
    if base is root:
        # `self.total = total` keeps the argument as given; `self.total = total * len(loader)`
        # does not, and the parameter's documentation no longer describes the attribute
        kept = next((c.self_assigns[expr.attr] for c in owner.lineage()
                     if expr.attr in c.self_assigns), None)
        if kept is not None and not (isinstance(kept, ast.Name) and kept.id == expr.attr):
            return ""
    return documented.constructor_parameter_unit(owner, expr.attr, echo)


def _unit_picked_by_setting(expr: ast.expr, scope: Scope | None, depth: int) -> bool:
    """``epochs * len(loader) if per_batch else epochs``: one branch counts batches, the other
    epochs, so a setting picks the unit (and, with it, where the program steps the scheduler);
    the horizon alone does not tell which."""
    # through the names it is passed along as (a builder's parameter)
    expr, scope = origin(expr, scope, 6, passed=True)
    if not isinstance(expr, ast.IfExp):
        return False
    units = {unit_of(expr.body, scope, depth + 1)[0], unit_of(expr.orelse, scope, depth + 1)[0]}
    return units == {"batch", "epoch"}


def _one_step_an_epoch_by_setting(expr: ast.expr, scope: Scope | None) -> bool:
    """``len(loader) if per_step else 1`` (through the names it is passed along as): a
    OneCycleLR's ``steps_per_epoch`` that is 1, one step an epoch, on one branch of a test."""
    expr, scope = origin(expr, scope, 6, passed=True)
    if not isinstance(expr, ast.IfExp):
        return False
    arms = [constants.resolve(a, scope) for a in (expr.body, expr.orelse)]
    return sum(type(a) is int and a == 1 for a in arms) == 1


def _combine(results: list[tuple[str, float | None, str]],
             fold: object) -> tuple[str, float | None, str]:
    units = {u for u, _, _ in results}
    if "batch" in units:
        return ("batch", None, _best(results, "batch"))
    if "epoch" in units:
        return ("epoch", None, _best(results, "epoch"))
    if results and units == {"literal"}:
        values = [v for _, v, _ in results if v is not None]
        if fold is max and values:
            return ("literal", max(values), "literal")
        if len(values) == 1:
            return ("literal", values[0], "literal")
        return ("literal", max(values), "literal") if values else _NONE
    return _NONE


def _fold(op: ast.operator, a: float, b: float) -> float | None:
    if isinstance(op, ast.Add):
        return a + b
    if isinstance(op, ast.Sub):
        return a - b
    if isinstance(op, ast.Mult):
        return a * b
    if isinstance(op, (ast.Div, ast.FloorDiv)) and b:
        return a / b if isinstance(op, ast.Div) else a // b
    return None


def literal_value(expr: ast.expr | None, scope: Scope | None, depth: int = 0) -> float | None:
    """The number ``expr`` stands for when it is a literal or a name assigned one."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, (int, float)) \
            and not isinstance(expr.value, bool):
        return float(expr.value)
    if isinstance(expr, ast.Name) and scope is not None and depth < 4:
        found = scope.source_of(expr.id)
        if found is not None:
            return literal_value(found[0], found[1], depth + 1)
    return None


# what a scheduler's get_lr() counts its position with
_COUNTERS = frozenset({"last_epoch", "_step_count"})


def project_horizons(sched: Obj) -> list[Horizon]:
    """The horizons of a scheduler built from the project's own subclass of torch's base (one
    that keeps torch's step()): the constructor parameters that ``__init__`` stores on the
    instance as they are and that ``get_lr()`` sets against the step count (``self.last_epoch
    < self.warmup``, ``(self.last_epoch - self.warmup) / self.total``), each with the unit of
    the argument the call passes. Empty when the class is not read that way."""
    if sched.project is None or sched.via is None:
        return []
    cls, scope = sched.project
    if not advances_torch_count(cls):
        return []  # a step() of its own that keeps its own position: get_lr() may not read it
    return class_horizons(cls, scope, sched.via)


def advances_torch_count(cls: Any) -> bool:
    """The project's scheduler class keeps torch's ``step()``, or its own hands on to it
    (``super().step()``, ``super(Warmup, self).step(epoch)``), which counts the position its
    ``get_lr()`` reads."""
    found = cls.find("step")
    if found is None:
        return True
    return any(super_call(n, "step") for n in ast.walk(found[0]))


def class_horizons(cls: Any, scope: Scope | None, call: ast.Call) -> list[Horizon]:
    """The horizons ``call`` gives the project's scheduler class ``cls`` (see
    ``project_horizons``), read with the names of ``scope``, where the call is written."""
    init, get_lr = cls.find("__init__"), cls.find("get_lr")
    if init is None or get_lr is None:
        return []
    params = [a.arg for a in init[0].args.args[1:]]
    stored: dict[str, str] = {}
    for node in ast.walk(init[0]):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) \
                and node.value.id in params:
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id == "self":
                    stored[target.attr] = node.value.id
    aliases = _counter_aliases(get_lr[0])
    held = _attributes_held(get_lr[0])
    counted: list[str] = []
    for node in ast.walk(get_lr[0]):
        if not isinstance(node, (ast.Compare, ast.BinOp)):
            continue
        attrs = [n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)
                 and isinstance(n.value, ast.Name) and n.value.id == "self"]
        if _COUNTERS & set(attrs) or any(isinstance(n, ast.Name) and n.id in aliases
                                         for n in ast.walk(node)):
            # a local name set against the count holds what it was computed from
            # (`decay_total = self.total_epochs - self.warmup_epochs`)
            attrs += [a for n in ast.walk(node) if isinstance(n, ast.Name)
                      and n.id not in aliases for a in held.get(n.id, ())]
            counted += [a for a in attrs if a in stored and a not in counted]
    out = []
    for attr in counted:
        param = stored[attr]
        index = params.index(param)
        expr = next((kw.value for kw in call.keywords if kw.arg == param), None)
        if expr is None and index < len(call.args) \
                and not any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
            expr = call.args[index]
        if expr is None:
            continue
        unit, value, evidence = unit_evidence(expr, scope)
        own = names.unit_of_word(param)
        if unit == "literal" and value is not None and value > SMALL_LITERAL \
                and own == "batch" and not _echo(param):
            # `WarmupInvSqrt(opt, warmup_steps=25000)`: a count too large to be epochs, passed
            # for a parameter whose name says steps, counts batches
            unit, evidence = "batch", "name"
        out.append(Horizon(unit, param, short_source(expr), value, evidence))
    return out


def _attributes_held(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, set[str]]:
    """The attributes of ``self`` each local name of ``fn`` is computed from, in any of its
    assignments (``decay_total = self.total_epochs - self.warmup_epochs``)."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            attrs = {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)
                     and isinstance(n.value, ast.Name) and n.value.id == "self"}
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, set()).update(attrs)
    return out


def _counter_aliases(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The local names of ``get_lr()`` that hold torch's step count: assigned (only) from an
    expression that reads it (``step = self.last_epoch + 1``, ``n = max(1, self._step_count)``,
    or from such a name, ``s = step``). A name also assigned anything else is not one."""
    sources: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    sources.setdefault(target.id, []).append(node.value)
                else:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            sources.setdefault(n.id, []).append(ast.Constant(None))
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor,
                               ast.NamedExpr)) and isinstance(node.target, ast.Name):
            value = getattr(node, "value", None)
            sources.setdefault(node.target.id, []).append(
                value if isinstance(node, ast.AnnAssign) and value is not None
                else ast.Constant(None))
    aliases: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, values in sources.items():
            if name in aliases:
                continue
            if all(any(isinstance(n, ast.Attribute) and n.attr in _COUNTERS
                       and isinstance(n.value, ast.Name) and n.value.id == "self"
                       or isinstance(n, ast.Name) and n.id in aliases
                       for n in ast.walk(v)) for v in values):
                aliases.add(name)
                changed = True
    return aliases


def project_constant(sched: Obj) -> bool:
    """A schedule every position of which has the same value, so where it stands changes
    nothing (a first value skipped, a step on a skipped update, its state left out of a
    checkpoint): built from the project's own subclass of torch's scheduler base that keeps
    torch's ``step()`` and whose ``get_lr()`` returns the base LRs as they are (the ConstantLR
    of the pytorch-semseg lineage: ``return [base_lr for base_lr in self.base_lrs]``), or a
    torch scheduler whose arguments leave the LR where it is (``LinearLR(opt,
    start_factor=1.0, end_factor=1.0)``, ``StepLR(opt, step_size, gamma=1)``; see
    _torch_constant). Such a scheduler still writes the LR on every step, so it still fights a
    manual write or another scheduler."""
    if sched.origin == "torch" and sched.project is None:
        return _torch_constant(sched)
    found = _inherited_step_get_lr(sched)
    if found is None or not _returns_base_lrs(found[1]):
        return False
    closed = found[0].find("_get_closed_form_lr")
    return closed is None or _returns_base_lrs(closed[0])


# per class, the two sides that must be equal for the LR to stay where it is: a parameter
# (name, position, torch's default; None: no default) or a number
_CONSTANT_WHEN: dict[str, tuple[tuple[str, int, float | None] | float, ...]] = {
    "LinearLR": (("start_factor", 1, 1 / 3), ("end_factor", 2, 1.0)),
    "ConstantLR": (("factor", 1, 1 / 3), 1.0),
    "StepLR": (("gamma", 2, 0.1), 1.0),
    "MultiStepLR": (("gamma", 2, 0.1), 1.0),
    "ExponentialLR": (("gamma", 1, None), 1.0),
}


def _torch_constant(sched: Obj) -> bool:
    """A torch scheduler whose own arguments, numbers the file states, keep the LR constant: a
    LinearLR whose start and end factors are equal (the LR is base times that factor at every
    position), a ConstantLR of factor 1, a StepLR / MultiStepLR / ExponentialLR of gamma 1."""
    spec = _CONSTANT_WHEN.get(sched.cls or "")
    if spec is None or sched.has_kwargs_splat():
        return False
    values = []
    for side in spec:
        if isinstance(side, float):
            values.append(side)
            continue
        name, index, default = side
        expr = sched.arg(name, index)
        value = default if expr is None else constants.resolve(expr, sched.scope)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return False
        values.append(float(value))
    return values[0] == values[1]


def reads_no_position(sched: Obj) -> bool:
    """Built from the project's own subclass of torch's scheduler base that keeps torch's
    ``step()`` and whose ``get_lr()`` reads neither the step count (``self.last_epoch``,
    ``self._step_count``) nor the LR in the param groups: each step writes the value the
    object was built for (``base_lr * (1 - self.cur_iter / self.max_iter) ** 0.9`` with
    ``cur_iter`` handed to the constructor), whatever position it stands at."""
    texts = _get_lr_reads(sched)
    if texts is None:
        return False
    return not any(t is not None and (t.endswith(("last_epoch", "_step_count", "param_groups"))
                                      or t == "self.optimizer") for t in texts)


def project_recomputes(sched: Obj) -> bool | None:
    """For a scheduler built from the project's own subclass of torch's scheduler base that
    keeps torch's ``step()``: True when its ``get_lr()`` computes every LR from
    ``self.base_lrs`` and never reads the LR already in the param groups (the WarmUpLR of the
    pytorch-cifar100 lineage: ``base_lr * self.last_epoch / self.total_iters``), so each step
    overwrites whatever another scheduler of the optimizer did since (as LambdaLR does); False
    when it reads the param groups (PyTorch's chainable form); None when it is not such a
    class or its ``get_lr()`` reads neither."""
    texts = _get_lr_reads(sched)
    if texts is None:
        return None
    if any(t is not None and t.endswith("param_groups") for t in texts):
        return False
    return True if "self.base_lrs" in texts else None


def _get_lr_reads(sched: Obj) -> set[str | None] | None:
    """The attributes (dotted) the ``get_lr()`` of a scheduler built from the project's own
    subclass of torch's scheduler base that keeps torch's ``step()`` reads; None for other
    schedulers (see ``_inherited_step_get_lr``)."""
    found = _inherited_step_get_lr(sched)
    if found is None:
        return None
    return {dotted(n) for n in ast.walk(found[1]) if isinstance(n, ast.Attribute)}


def _inherited_step_get_lr(sched: Obj) -> tuple[Any, ast.FunctionDef | ast.AsyncFunctionDef] \
        | None:
    """(class, its ``get_lr``) of a scheduler built from the project's own subclass of torch's
    scheduler base that keeps torch's ``step()`` (which writes what ``get_lr()`` returns);
    None for other schedulers, or a class with a ``step()`` of its own."""
    if sched.project is None:
        return None
    cls = sched.project[0]
    if cls.find("step") is not None:
        return None  # a step() of the project's own: what it writes is not get_lr()'s
    found = cls.find("get_lr")
    return None if found is None else (cls, found[0])


def _returns_base_lrs(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """The method's body (past a docstring) is one ``return`` of ``self.base_lrs``, a copy of
    it (``list(self.base_lrs)``) or a comprehension that yields each base LR unchanged."""
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    value = body[0].value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) \
            and value.func.id in ("list", "tuple") and len(value.args) == 1 \
            and not value.keywords:
        value = value.args[0]
    if isinstance(value, ast.ListComp) and len(value.generators) == 1:
        gen = value.generators[0]
        if gen.ifs or gen.is_async or not isinstance(gen.target, ast.Name) \
                or not isinstance(value.elt, ast.Name) or value.elt.id != gen.target.id:
            return False
        value = gen.iter
    return dotted(value) == "self.base_lrs"


def short_source(expr: ast.AST) -> str:
    """``expr`` as written, cut to 40 characters, for messages."""
    text = ast.unparse(expr)
    return text if len(text) <= 40 else text[:37] + "..."


def label(sched: Obj, horizon: Horizon | None = None) -> str:
    """``StepLR(step_size=7)`` for messages."""
    horizon = horizon if horizon is not None else horizon_of(sched)
    cls = sched.cls or sched.name or "the scheduler"
    if horizon.param and horizon.source:
        return f"{cls}({horizon.described})"
    return cls


def _built_with(expr: ast.Attribute, scope: Scope | None, depth: int,
                echo: bool) -> tuple[str, float | None, str]:
    """The unit of ``self.<attr>`` read from what the class's constructions fill it with:
    ``__init__`` stores a parameter of its own in the attribute (the module's only store of
    that attribute name), and every call of the class, in its module and in the project
    modules whose text calls it, hands that parameter an argument whose unit is known and the
    same (``Module(restart_steps=epochs // periods)``, or a name the calling function assigns
    so on some branch). Read from the text, not from one trace's values, so a class traced on
    its own (its parameters unknown) and the trace that builds it (which keeps only one
    branch's value of a name assigned on two) agree. Failing that, the value this trace stored
    in the attribute (``_NONE`` when neither says)."""
    if scope is None or scope.self_val is None or not (
            isinstance(expr.value, ast.Name) and expr.value.id == "self"):
        return _NONE
    info = scope.self_val.info
    built = _constructed_unit(info, expr.attr, echo)
    if built[0] in ("batch", "epoch"):
        return built
    held = scope.self_val.attrs.get(expr.attr)
    if isinstance(held, ExprVal) and depth < 12:
        # the value this trace stored there (the class built in another file)
        return unit_evidence(held.node, held.scope, depth + 1, echo)
    return _NONE


def _constructed_unit(info: ClassInfo, attr: str, echo: bool) -> tuple[str, float | None, str]:
    """``_built_with`` for the class ``info``: its constructions in its own module and in
    the project modules that call its name."""
    param = _stored_parameter(info.node, info.module.tree, attr)
    if param is None:
        return _NONE
    found = [_constructions(info.module.tree, info.name, param, echo)]
    loader = info.module.loader
    calling = getattr(loader, "calling_modules", None)
    if calling is not None:
        others = calling(info.module.path, info.name)
        if others is None:
            return _NONE
        found += [_constructions(m.tree, info.name, param, echo) for m in others]
    if any(f is None for f in found):
        return _NONE
    units = [u for f in found for u in f or ()]
    if len({u[0] for u in units}) != 1:
        return _NONE
    best = min(units, key=lambda u: _RANK[u[2]])
    return (best[0], None, best[2])


@memo.per_node
def _stored_parameter(cls_node: ast.ClassDef, tree: ast.Module, attr: str
                      ) -> tuple[str, int | None] | None:
    """The parameter of the class's ``__init__`` stored in ``self.<attr>`` (by name and
    position), when that is the module's only store of the attribute name; else None."""
    if constants.attribute_stores(tree).get(attr, 0) != 1:
        return None
    init = next((f for f in cls_node.body
                 if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)
    if init is None:
        return None
    param = next((n.value.id for n in ast.walk(init)
                  if isinstance(n, ast.Assign) and len(n.targets) == 1
                  and isinstance(n.targets[0], ast.Attribute) and n.targets[0].attr == attr
                  and isinstance(n.targets[0].value, ast.Name)
                  and n.targets[0].value.id == "self" and isinstance(n.value, ast.Name)), None)
    positional = [a.arg for a in init.args.posonlyargs + init.args.args][1:]
    if param is None or param not in positional + [a.arg for a in init.args.kwonlyargs]:
        return None
    return param, positional.index(param) if param in positional else None


@memo.per_node
def _constructions(tree: ast.Module, cls_name: str, param: tuple[str, int | None], echo: bool
                   ) -> list[tuple[str, float | None, str]] | None:
    """The units of what the calls of ``cls_name`` in ``tree`` fill ``param`` with (a call
    leaving it to its default adds none); None when one of them is not known."""
    name, index = param
    units: list[tuple[str, float | None, str]] = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            continue
        for call in own_nodes(fn):
            if not (isinstance(call, ast.Call) and (
                    isinstance(call.func, ast.Name) and call.func.id == cls_name
                    or isinstance(call.func, ast.Attribute) and call.func.attr == cls_name)):
                continue
            arg = next((k.value for k in call.keywords if k.arg == name), None)
            if arg is None and index is not None and index < len(call.args) \
                    and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
                arg = call.args[index]
            if arg is None:
                if any(k.arg is None for k in call.keywords) or any(
                        isinstance(a, ast.Starred) for a in call.args):
                    return None  # `Module(**cfg)`: filled with what is not known here
                continue  # the default
            filled = _argument_units(arg, fn, echo)
            if not filled:
                return None
            units += filled
    return units


def _argument_units(arg: ast.expr, fn: ast.FunctionDef | ast.AsyncFunctionDef | ast.Module,
                    echo: bool
                    ) -> list[tuple[str, float | None, str]]:
    """The units (batch or epoch) the argument ``arg`` of a call in ``fn`` has, read from the
    text: a name's non-literal assignments in ``fn`` (a literal on another branch, `= 0` for
    "off", says nothing), else the argument itself. Empty when none is known."""
    values: list[ast.expr] = [arg]
    if isinstance(arg, ast.Name):
        assigned = [n.value for n in own_nodes(fn)
                    if isinstance(n, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == arg.id for t in n.targets)]
        assigned = [v for v in assigned if not isinstance(v, ast.Constant)]
        if assigned:
            values = assigned
    units = [unit_evidence(v, None, 1, echo) for v in values]
    if any(u[0] not in ("batch", "epoch") for u in units):
        return []
    return units


def _filled_with(expr: ast.Name, scope: Scope, depth: int,
                 echo: bool) -> tuple[str, float | None, str]:
    """The unit of what the caller fills the parameter ``expr`` with, where the scope binds
    it to the caller's argument (not to an assignment of its own): ``num_training_steps``
    filled with ``args.epochs`` counts epochs."""
    value = scope.lookup(expr.id)
    if not isinstance(value, ExprVal) or value.node is expr:
        return _NONE
    return unit_evidence(value.node, value.scope, depth + 1, echo)
