"""What a running-average meter holds, judged by what the code puts into it.

Training scripts keep the epoch's loss in a meter object (`AverageMeter`, a running-mean
helper) stored on a settings or state object, fill it in the function that runs the
optimisation (`opt.losses.update(loss.item())` right after `loss.backward()`) and read its
summary somewhere else (`scheduler.step(opt.losses.avg)`). The name of the attribute says
nothing reliable (`losses`, `meter`, `tracker`); what it is filled with does: a meter fed only
with the values that were backpropagated holds the training loss.

    >>> tree = ast.parse('''
    ... def train_step(opt, batch):
    ...     loss = model(batch).mean()
    ...     loss.backward()
    ...     opt.tracker.update(loss.item())
    ... ''')
    >>> holds_backpropagated_loss(tree, ast.parse("opt.tracker.avg", mode="eval").body)
    True
"""

from __future__ import annotations

import ast
from collections.abc import Sequence

from lrdoctor.check.context import class_at, function_at
from lrdoctor.check.index import dotted

# attributes (or methods called without arguments) that read a meter's summary
SUMMARIES = frozenset({"avg", "average", "mean", "global_avg", "median"})
# methods that add one value to a meter or a list of values
_FILLERS = frozenset({"update", "append", "add", "push"})
# conversions of a loss tensor to the number that is recorded (`loss.item()`, `float(loss)`)
_TO_NUMBER = frozenset({"item", "detach", "cpu", "float", "tolist", "clone"})


def meter_read(metric: ast.expr) -> str | None:
    """The meter a summary read reads (`opt.losses` for `opt.losses.avg` or
    `state.meter.mean()`, `meter` for a local `meter.avg`), as dotted text; None for anything
    else."""
    node = metric
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        node = node.func
    if isinstance(node, ast.Attribute) and node.attr in SUMMARIES and \
            isinstance(node.value, (ast.Attribute, ast.Name)):
        return dotted(node.value)
    return None


def holds_backpropagated_loss(tree: ast.AST, metric: ast.expr, at: ast.AST | None = None,
                              imported: Sequence[ast.AST] = ()) -> bool:
    """Whether the meter ``metric`` reads is filled, everywhere in ``tree`` (where it is read)
    and in the ``imported`` modules that fills it, with a value that the same function
    backpropagates (`loss.backward()`, `scaler.scale(loss).backward()`,
    `accelerator.backward(loss)`). A meter on `self` is only looked for in the class around
    ``at`` (where it is read)."""
    meter = meter_read(metric)
    if meter is None:
        return False
    scopes: list[ast.AST] = [tree, *imported]
    if "." not in meter:
        # a meter bound to a local name (`meter = AverageMeter()`): only the function that
        # reads it fills it (another function's `meter` is another object)
        reader = function_at(tree, getattr(at, "lineno", 0)) if at is not None else None
        if reader is None:
            return False
        scopes = [reader]
    elif meter.startswith("self.") and at is not None:
        around = class_at(tree, getattr(at, "lineno", 0))
        if around is None:
            return False
        scopes = [around]
    fills = 0
    for func in (f for scope in scopes for f in ast.walk(scope)):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for value in _values_put_into(func, meter):
            fills += 1
            name = recorded_name(value)
            if name is None or not backpropagates(func, name):
                return False
    return fills > 0


def _values_put_into(func: ast.AST, meter: str) -> list[ast.expr]:
    """The values the function's own statements add to ``meter`` (`meter.update(v)`,
    `meter.append(v)`, `meter += v`); a nested function is looked at on its own."""
    out: list[ast.expr] = []
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _FILLERS and dotted(node.func.value) == meter:
            if node.args:
                out.append(node.args[0])
            elif node.keywords:
                out.append(node.keywords[0].value)
        elif isinstance(node, ast.AugAssign) and dotted(node.target) == meter:
            out.append(node.value)
    return out


def recorded_name(value: ast.expr) -> str | None:
    """The variable whose number is recorded: `loss` for `loss.item()`, `float(loss)`,
    `loss.detach().cpu()` or `loss.item() * x.size(0)`."""
    node = value
    while True:
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            node = node.left
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _TO_NUMBER and not node.args:
            node = node.func.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "float" and len(node.args) == 1:
            node = node.args[0]
        else:
            break
    return node.id if isinstance(node, ast.Name) else None


def backpropagates(func: ast.AST, name: str) -> bool:
    """The function calls backward on ``name``: `name.backward()`, `scaler.scale(name)
    .backward()` or `accelerator.backward(name)`."""
    for node in ast.walk(func):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "backward"):
            continue
        target = node.func.value
        if isinstance(target, ast.Name) and target.id == name:
            return True
        if isinstance(target, ast.Call) and any(
                isinstance(a, ast.Name) and a.id == name for a in target.args):
            return True
        if node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == name:
            return True
    return False
