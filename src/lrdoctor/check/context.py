"""What a rule gets: the parsed file, its traced model, and helpers shared by rules."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar

from lrdoctor.check.index import ModuleInfo, dotted
from lrdoctor.check.memo import per_node
from lrdoctor.check.model import Event, Loop, Program
from lrdoctor.check.values import Obj

if TYPE_CHECKING:
    from lrdoctor.check.project import ProjectLoader

# the training-loop model is only built for files that call what it tracks; the syntactic
# rules (deprecated AMP spellings, log of probabilities) run on any file that mentions them
# a training loop's stepping; with a checkpoint's save or load, what makes a file's flow
# worth tracing (FLOW_TRIGGER), and what imported code must show to make a file with none of
# the checker's words a driver (LOOP_TRIGGER: a weight loader alone is no loop)
_LOOP_WORDS = (r"\.step\(|\.step_update\(|get_lr\(|param_groups|configure_optimizers"
               r"|lr_scheduler|_schedule_with_warmup|get_scheduler\(|create_scheduler")
LOOP_TRIGGER = re.compile(_LOOP_WORDS)
FLOW_TRIGGER = re.compile(_LOOP_WORDS + r"|load_state_dict|torch\.save\(")


@dataclass
class FileContext:
    path: str
    source: str
    tree: ast.Module
    module: ModuleInfo
    build: Callable[[], Program]
    codes: frozenset[str] = field(default_factory=frozenset)
    # whether the file (or a project module it imports) steps, saves or loads anything
    flow: bool | None = None
    # the project modules read so far (shared by the files of one check)
    loader: ProjectLoader | None = None

    @cached_property
    def full_program(self) -> Program:
        return self.build()

    @cached_property
    def program(self) -> Program:
        """The traced model; empty for files that step, save or load nothing."""
        flow = self.flow if self.flow is not None else bool(FLOW_TRIGGER.search(self.source))
        if not flow:
            return Program(self.path, [], [], [], [], set(), set())
        return self.full_program

    @cached_property
    def events_by_root(self) -> dict[int, list[Event]]:
        out: dict[int, list[Event]] = {}
        for e in self.program.events:
            out.setdefault(e.root, []).append(e)
        return out

    def same_root(self, event: Event, kind: str) -> list[Event]:
        return [e for e in self.events_by_root.get(event.root, []) if e.kind == kind]

    def tree_of(self, path: str) -> ast.Module | None:
        """The parsed file ``path``: this one, or a project module read while tracing it."""
        if path == self.path:
            return self.tree
        module = self.module_of(path)
        return module.tree if module is not None else None

    def module_of(self, path: str) -> ModuleInfo | None:
        """The module index of the file ``path``: this one, or a project module read while
        tracing it; None for a file not read."""
        if path == self.path:
            return self.module
        return self.loader.modules.get(path) if self.loader is not None else None

    def body_around(self, at: ast.AST) -> ast.AST:
        """The innermost function whose lines hold ``at``, or the module."""
        return function_around(self.tree, at)

    def function_of(self, path: str, at: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        """The innermost function of the file ``path`` (this one or a project module read
        while tracing it) whose lines hold ``at``; None at a module's top level or for a file
        not read."""
        tree = self.tree_of(path)
        found = function_around(tree, at) if tree is not None else None
        return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None

    def updates_in(self, loop: Loop | None, root: int, optimizer: Obj | None) -> list[Event]:
        """optimizer.step() and scaler.step(optimizer) calls inside ``loop`` in one trace."""
        out = []
        for e in self.events_by_root.get(root, []):
            if e.kind == "opt_step":
                opt = e.obj
            elif e.kind == "scaler_step":
                opt = e.info.get("optimizer")
            else:
                continue
            # an optimizer known only by its name may be the scheduler's under another binding
            if (optimizer is not None and opt is not None and opt is not optimizer
                    and not (opt.guessed and not opt.cls)):
                continue
            if e.in_loop(loop):
                out.append(e)
        return out


@per_node
def definitions_in(tree: ast.AST) -> tuple[list[ast.FunctionDef | ast.AsyncFunctionDef],
                                           list[ast.ClassDef]]:
    """The functions and the classes of ``tree``, each in ``ast.walk`` order: walked once
    per tree, not once per question asked of it (the rules ask for the function around a
    line at every event)."""
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    classes: list[ast.ClassDef] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.append(node)
        elif isinstance(node, ast.ClassDef):
            classes.append(node)
    return functions, classes


_Def = TypeVar("_Def", ast.FunctionDef | ast.AsyncFunctionDef, ast.ClassDef)


def _innermost(nodes: list[_Def], line: int) -> _Def | None:
    """The innermost of ``nodes`` (definitions) whose lines hold ``line``: the one that starts
    last, since definitions that both hold a line nest."""
    found = None
    for node in nodes:
        if node.lineno <= line <= (node.end_lineno or node.lineno) \
                and (found is None or node.lineno >= found.lineno):
            found = node
    return found


def function_at(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function of ``tree`` whose lines hold ``line``, or None."""
    return _innermost(definitions_in(tree)[0], line)


def class_at(tree: ast.AST, line: int) -> ast.ClassDef | None:
    """The innermost class of ``tree`` whose lines hold ``line`` (a class nested in another,
    or in one of its methods, before the class around it), or None."""
    return _innermost(definitions_in(tree)[1], line)


def function_around(tree: ast.AST, at: ast.AST) -> ast.AST:
    """The innermost function of ``tree`` whose lines hold ``at``, or ``tree`` itself."""
    return function_at(tree, getattr(at, "lineno", 0)) or tree


def last_binding(around: ast.AST, name: str, line: int) -> ast.expr | None:
    """What the last plain assignment to ``name`` before ``line`` in ``around`` binds."""
    found: ast.Assign | None = None
    for node in ast.walk(around):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name \
                and node.lineno <= line and (found is None or node.lineno > found.lineno):
            found = node
    return found.value if found is not None else None


def granularity(event: Event) -> tuple[str, Loop | None]:
    """("batch" | "epoch" | "", loop): how often the call runs, judged from its innermost loop."""
    loop = event.loop
    if loop is None:
        return ("", None)
    return (loop.granularity, loop)


def step_call(event: Event) -> str:
    """How the code spells a GradScaler's step: ``scaler.step(...)``, or the call of a scaler
    object that steps inside (timm's NativeScaler: ``loss_scaler(...)``)."""
    node = event.node
    if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Attribute) and node.func.attr == "step"):
        return f"{dotted(node.func) or ast.unparse(node.func)}(...)"
    return f"{receiver(event)}.step(...)"


def receiver(event: Event) -> str:
    """``scheduler`` for the call ``scheduler.step()``."""
    node = event.node
    if event.kind == "scale_backward" and event.obj is not None and event.obj.name:
        return event.obj.name
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        value = node.func.value
        text = dotted(value) or ast.unparse(value)
        if isinstance(value, (ast.IfExp, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare,
                              ast.Lambda, ast.NamedExpr, ast.Await)):
            # `(a if test else b).step()`: the receiver as Python reads it before `.step()`
            text = f"({text})"
        return text
    return event.obj.name if event.obj is not None and event.obj.name else "scheduler"


def scaler_disabled(scaler: Obj | None) -> bool:
    if scaler is None:
        return False
    enabled = scaler.arg("enabled", 5 if scaler.cls == "GradScaler" else 99)
    return isinstance(enabled, ast.Constant) and enabled.value is False


def scaler_always_on(scaler: Obj | None) -> bool:
    """A GradScaler enabled unconditionally (no ``enabled=`` or ``enabled=True``): only then
    is it certain that float16 skips happen; ``enabled=args.amp`` leaves it open."""
    if scaler is None or scaler.call is None or scaler.conditional:
        return False  # a name only, or `... if args.amp else None`: it may be None at run time
    enabled = scaler.arg("enabled", 99)
    return enabled is None or (isinstance(enabled, ast.Constant) and enabled.value is True)
