"""The unit a class's own documentation states for one of its constructor parameters.

A horizon kept as a hyperparameter (``self.hparams.total_steps``) is otherwise judged by its
name alone, and names lie in both directions: ``total_steps`` documented as "the total
epochs of training" counts epochs. Where the author wrote the unit down next to the
parameter (reST ``:param total_steps: ...``, Google ``total_steps (int): ...``, numpy
``total_steps : int`` and an indented description), that statement outranks the name.

A description that speaks of both units ("optimizer steps over all epochs", "warm-up steps,
i.e. the number of epochs") states neither: the name decides, as before.
"""

from __future__ import annotations

import ast
import re
import weakref

from lrdoctor.check.constants import option_dest
from lrdoctor.check.index import ClassInfo, ModuleInfo

_EPOCH_WORDS = frozenset({"epoch", "epochs"})
_BATCH_WORDS = frozenset({"step", "steps", "iteration", "iterations", "iter", "iters",
                          "batch", "batches", "update", "updates"})
_TOKEN = re.compile(r"[a-z]+")


def constructor_parameter_unit(cls: ClassInfo, name: str, echo: bool = False) -> str:
    """``"epoch"`` / ``"batch"`` / ``""``: the unit the docstrings of ``cls`` (and of its
    project base classes) state for the ``__init__`` parameter ``name``. ``echo``: the value
    sizes a parameter whose own name is "step" (``step_size``, ``milestones``), so "step(s)"
    in the description ("steps to decay the learning rate") is the schedule's own word, as in
    an option's help (setting_help_unit).

    >>> # class M: def __init__(self, total_steps): ":param total_steps: total epochs"
    >>> # constructor_parameter_unit(M, "total_steps") == "epoch"
    """
    # not cached by node identity: a tree freed after one file's check can hand its id to
    # another's; the look-up is rare (a horizon read from `self`) and cheap
    for owner in cls.lineage():
        init = owner.methods.get("__init__")
        if init is None or name not in _parameters(init):
            continue
        for node in (init, owner.node):
            text = ast.get_docstring(node)
            if text:
                description = _description(text, name)
                if description is not None:
                    return _unit(description, echo)
        return ""  # the class that takes the parameter documents no unit for it
    return ""


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = fn.args
    return {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}


def _description(doc: str, name: str) -> str | None:
    """The text documenting ``name`` (its line and the more indented lines after it), or
    None when the docstring does not document it."""
    head = re.compile(
        rf"^(\s*)(?::param\s+(?:[\w\[\], .]+\s+)?)?\*{{0,2}}{re.escape(name)}\b\s*"
        rf"(?:\([^)]*\))?\s*:(?!:)(.*)$"
    )
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        match = head.match(line)
        if match is None:
            continue
        indent = len(match.group(1))
        parts = [match.group(2)]
        for following in lines[i + 1:]:
            stripped = following.strip()
            if not stripped or stripped.startswith(":"):
                break
            if len(following) - len(following.lstrip()) <= indent:
                break
            parts.append(stripped)
        return " ".join(parts)
    return None


def _unit(description: str, echo: bool = False) -> str:
    tokens = set()
    for word in _TOKEN.findall(description.lower().replace("_", " ")):
        tokens.add(word)
    epoch = bool(tokens & _EPOCH_WORDS)
    batch = bool(tokens & (_BATCH_WORDS - {"step", "steps"} if echo else _BATCH_WORDS))
    if epoch == batch:
        return ""
    return "epoch" if epoch else "batch"


_helps: weakref.WeakKeyDictionary[ModuleInfo, dict[str, str]] = weakref.WeakKeyDictionary()
_PARSER_CALLS = frozenset({"add_argument", "add_option", "DEFINE_integer", "DEFINE_float",
                           "DEFINE_string", "DEFINE_multi_integer"})
# what a help text counts in: stricter than a docstring's description, since option help is
# terse and "step" there is most often the schedule's own word ("lr decay step", "step size")
_HELP_EPOCH = frozenset({"epoch", "epochs"})
_HELP_BATCH = frozenset({"iteration", "iterations", "iters", "batches", "updates", "steps"})


def setting_help_unit(module: ModuleInfo, name: str, echo: bool = False) -> str:
    """``"epoch"`` / ``"batch"`` / ``""``: the unit the ``help=`` text of the command-line
    option ``name`` states, where ``module`` declares it (``add_argument("--total_steps",
    help="number of training epochs")``: epochs, whatever the option's name says). ``echo``:
    the option sizes a parameter whose own name is "step" (``step_size``, ``milestones``), so
    "steps" in its help says nothing of the unit.

    >>> # parser.add_argument("--max_iter", type=int, help="total training epochs")
    >>> # setting_help_unit(module, "max_iter") == "epoch"
    """
    helps = _helps.get(module)
    if helps is None:
        helps = _helps[module] = _read_helps(module.tree)
    text = helps.get(name)
    if not text:
        return ""
    tokens = set(_TOKEN.findall(text.lower().replace("_", " ")))
    epoch = bool(tokens & _HELP_EPOCH)
    batch = bool(tokens & (_HELP_BATCH - {"steps"} if echo else _HELP_BATCH))
    if epoch == batch:
        return ""
    if epoch and _default_outruns_the_epochs(module, name):
        # `--lr_decay_step default=1e5 help="decay per N epochs"` beside `--epochs default=100`:
        # a thousand runs' worth of epochs is a count of batches whose help was not updated;
        # a help its own default contradicts states nothing
        return ""
    return "epoch" if epoch else "batch"


# the options that hold the run's number of epochs
_EPOCH_COUNT_OPTIONS = frozenset({
    "epochs", "epoch", "num_epochs", "n_epochs", "nepochs", "nepoch", "num_epoch", "n_epoch",
    "max_epochs", "max_epoch", "total_epochs", "train_epochs", "nb_epochs", "epoch_num",
    "num_train_epochs", "epochs_num",
})
_defaults: weakref.WeakKeyDictionary[ModuleInfo, dict[str, float]] = weakref.WeakKeyDictionary()


def _default_outruns_the_epochs(module: ModuleInfo, name: str) -> bool:
    """The option ``name``'s own literal default is at least ten times the literal default of
    the run's epoch count declared in the same module: read as epochs it would outlast ten
    whole runs."""
    defaults = _defaults.get(module)
    if defaults is None:
        defaults = _defaults[module] = _read_defaults(module.tree)
    own = defaults.get(name)
    if own is None or name in _EPOCH_COUNT_OPTIONS:
        return False
    runs = {defaults[o] for o in _EPOCH_COUNT_OPTIONS if o in defaults}
    # two different epoch counts: which one the run uses is not known
    return len(runs) == 1 and 0 < (epochs := runs.pop()) and own >= 10 * epochs


def _read_defaults(tree: ast.Module) -> dict[str, float]:
    found: dict[str, set[float]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("add_argument", "add_option")):
            continue
        dest = option_dest(node)
        value = next((k.value for k in node.keywords if k.arg == "default"), None)
        if not dest or not isinstance(value, ast.Constant) \
                or isinstance(value.value, bool) or not isinstance(value.value, (int, float)):
            continue
        found.setdefault(dest, set()).add(float(value.value))
    return {dest: values.pop() for dest, values in found.items() if len(values) == 1}


def _read_helps(tree: ast.Module) -> dict[str, str]:
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in _PARSER_CALLS):
            continue
        dest = option_dest(node)
        text = next((k.value for k in node.keywords if k.arg == "help"), None)
        if text is None and node.func.attr.startswith("DEFINE_") and len(node.args) > 2:
            text = node.args[2]
        if not dest or text is None:
            continue
        found.setdefault(dest, set()).add(" ".join(
            part.value for part in ast.walk(text)
            if isinstance(part, ast.Constant) and isinstance(part.value, str)))
    # an option declared twice with different help (two parsers) is left out: which one
    # holds is not known
    return {dest: texts.pop() for dest, texts in found.items() if len(texts) == 1}
