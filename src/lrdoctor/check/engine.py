"""Checking one file: parse once, build the model once, run the enabled rules, apply noqa.

>>> diags = check_source("import torch\\ns = torch.cuda.amp.GradScaler()\\n", "t.py").diagnostics
>>> [d.code for d in diags]
['LRD101']
"""

from __future__ import annotations

import ast
import re
import sys
import warnings
from dataclasses import dataclass, field, replace

from lrdoctor.check.context import FLOW_TRIGGER, LOOP_TRIGGER, FileContext
from lrdoctor.check.diagnostic import Diagnostic, Problem
from lrdoctor.check.index import ModuleInfo
from lrdoctor.check.pep701 import newer_fstring_at, parse_newer
from lrdoctor.check.project import ProjectLoader, display_path
from lrdoctor.check.rules import RULES, rules_for
from lrdoctor.check.sources import (
    ExpandedScript,
    NotebookSource,
    SourceError,
    expand_cell_magics,
    exported_notebook_tree,
    read_notebook,
    read_python,
)
from lrdoctor.check.trace import Tracer

# a file none of these appear in cannot hold a finding: parse it (for syntax errors) and stop
TRIGGER = re.compile(
    r"step\(|schedul|GradScaler|autocast|cuda\.amp|get_lr|param_groups|configure_optimizers"
    r"|\.half\(|float16|BCELoss|binary_cross_entropy|load_state_dict|torch\.save\("
)
# a Hydra driver (`trainer = hydra.utils.instantiate(cfg.trainer); trainer.fit()`) whose loop
# lives in the class its config names, in a module it need not import
_HYDRA_BUILD = re.compile(r"\b(?:instantiate|call)\(")


def _hydra_builds(text: str) -> bool:
    return "hydra" in text and bool(_HYDRA_BUILD.search(text))


# a statement only Python 3.12+ parses (PEP 695): `type Alias = ...`, `def f[T](...)`,
# `class Box[T]:`
_PEP695 = re.compile(r"^\s*(?:type\s+[A-Za-z_]\w*\s*(?:\[[^\]\n]*\]\s*)?=|"
                     r"(?:async\s+)?def\s+[A-Za-z_]\w*\s*\[[^\]\n]*\]\s*\(|"
                     r"class\s+[A-Za-z_]\w*\s*\[[^\]\n]*\]\s*[(:])")


def _syntax_message(exc: SyntaxError, text: str) -> str:
    """The parser's message, and where the cause is the interpreter's age rather than the code.

    Python 3.12 (PEP 701) made f-strings ordinary grammar: the same quotes inside ``{}``, line
    breaks, backslashes and comments there; and (PEP 695) added type parameter lists
    (``def f[T](x: T)``, ``class Box[T]:``) and the ``type Alias = ...`` statement. lrdoctor
    parses with the interpreter it runs on, so on 3.11 and older such code fails to parse;
    when the failing lines use one of these, say so instead of only calling the code broken.
    """
    msg = f"syntax error: {exc.msg}"
    if sys.version_info >= (3, 12) or not exc.lineno:
        return msg
    lines = text.splitlines(keepends=True)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    if exc.lineno <= len(lines) and _PEP695.match(lines[exc.lineno - 1]):
        return (f"{msg} (a type parameter list or a `type` alias statement here, which Python"
                f" accepts from 3.12 on (PEP 695); lrdoctor runs on Python {version}: run it on"
                f" 3.12+ to check this)")
    # the error may be reported at the f-string's opening or inside its replacement field,
    # which line continuations can carry many lines below the opening (the scan parse_newer
    # rewrites by)
    if newer_fstring_at(text, exc) is not None:
        return (f"{msg} (an f-string here puts quotes, a line break, a backslash or a"
                f" comment inside {{}}, which Python accepts from 3.12 on (PEP 701);"
                f" lrdoctor runs on Python {version}: run it on 3.12+ to check this)")
    return msg


_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lines: int = 0
    problems: list[Problem] = field(default_factory=list)  # the errors, for the reports

    def skip(self, problem: Problem) -> None:
        """Record a file, or a notebook cell, that was not checked."""
        self.problems.append(problem)
        self.errors.append(str(problem))
    # said on stderr, not failures: a file whose model was cut short by the size limits
    notes: list[str] = field(default_factory=list)
    # Program.entered and Program.reached of the file's trace (runner.merge_results)
    entered: frozenset[tuple[str, int]] = frozenset()
    reached: tuple[tuple[str, int, int, frozenset[tuple[str, int] | None]], ...] = ()
    skipped: frozenset[tuple[str, int, int]] = frozenset()  # Program.skipped


def check_file(path: str, codes: frozenset[str] | None = None,
               loader: ProjectLoader | None = None) -> FileResult:
    """Check one ``.py`` or ``.ipynb`` file; never raises for bad input."""
    shown = display_path(path)
    result = FileResult(shown)
    notebook: NotebookSource | None = None
    try:
        if path.endswith(".ipynb"):
            notebook = read_notebook(path)
            text = notebook.text
            if notebook.written:
                from lrdoctor.check.written import check_notebook

                return check_notebook(path, notebook, codes, result)
        else:
            text = read_python(path)
    except SourceError as exc:
        result.skip(Problem("E902", shown, f"{exc} (file not checked)"))
        return result
    return check_source(text, shown, codes, loader, notebook, result)


def check_source(text: str, path: str, codes: frozenset[str] | None = None,
                 loader: ProjectLoader | None = None, notebook: NotebookSource | None = None,
                 result: FileResult | None = None, tree: ast.Module | None = None,
                 place: bool = True) -> FileResult:
    """Check Python source ``text`` as if it were the file ``path`` (``tree``: its AST, when
    the caller has parsed it already; ``place``: False to leave a notebook's findings at
    their lines of the joined source, for the caller to place)."""
    if notebook is None and ("run_cell_magic" in text or "run_line_magic" in text):
        tree = tree or _quiet_parse(text, path)
        expanded = expand_cell_magics(text, tree) if tree is not None else None
        if expanded is not None:
            result = _check_source(expanded.text, path, codes, loader, None, result, None,
                                   place)
            _restore_lines(expanded, result, text, path)
            return result
    return _check_source(text, path, codes, loader, notebook, result, tree, place)


def _quiet_parse(text: str, path: str) -> ast.Module | None:
    """The tree of a script (a notebook saved as one included), or None: the check proper
    parses it again and says why it cannot."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return parse_newer(text, filename=path)
    except SyntaxError:
        return exported_notebook_tree(text, path)
    except (ValueError, TypeError, RecursionError, MemoryError):
        return None


def _restore_lines(expanded: ExpandedScript, result: FileResult, text: str, path: str) -> None:
    """Findings, problems and traces of ``expanded.text`` at the lines of the file ``path``."""
    result.lines = text.count("\n") + 1
    for diag in result.diagnostics:
        if diag.path == path:
            expanded.place(diag)
        else:
            expanded.name_lines(diag, path)
    if any(problem.path == path for problem in result.problems):
        result.problems = [replace(p, line=expanded.file_line(p.line)) if p.path == path else p
                           for p in result.problems]
        result.errors = [str(p) for p in result.problems]

    def at(where: str, line: int) -> int:
        return expanded.file_line(line) if where == path else line

    result.entered = frozenset((p, at(p, line)) for p, line in result.entered)
    result.reached = tuple(
        (p, at(p, first), at(p, last),
         frozenset(None if key is None else (key[0], at(*key)) for key in by))
        for p, first, last, by in result.reached)
    result.skipped = frozenset((p, at(p, line), n) for p, line, n in result.skipped)


def _check_source(text: str, path: str, codes: frozenset[str] | None,
                  loader: ProjectLoader | None, notebook: NotebookSource | None,
                  result: FileResult | None, tree: ast.Module | None,
                  place: bool) -> FileResult:
    result = result or FileResult(path)
    result.lines = text.count("\n") + 1
    codes = frozenset(RULES) if codes is None else codes
    if tree is None:
        tree = _parse(text, path, notebook, result)
    if tree is None:
        return result
    loader = loader or ProjectLoader()
    loader.trim()
    loader.start_file()
    try:
        module = ModuleInfo.build(path, tree)
        module.loader = loader
        flow = bool(FLOW_TRIGGER.search(text))
        if not TRIGGER.search(text):
            # a driver with none of the words can still run a training loop written in the
            # project modules it imports (`from engine import train_one_epoch`) or its Hydra
            # config names; that loop steps something (a checkpoint helper alone, such as a
            # model file's pretrained-weight loader calling `load_state_dict`, is no loop)
            if not (module.imports and loader.imports_matching(module, LOOP_TRIGGER)) \
                    and not _hydra_builds(text):
                return result
            flow = True
        elif not flow and module.imports:
            flow = loader.imports_matching(module, FLOW_TRIGGER) \
                or _hydra_builds(text)
        ctx = FileContext(path, text, tree, module, lambda: Tracer(module, loader, text).run(),
                          codes, flow, loader)
        found: dict[tuple[str, str, int | None, int, int], Diagnostic] = {}
        for rule in rules_for(codes):
            for diag in rule(ctx):
                if diag.code in codes and (diag.key not in found
                                           or diag.weight > found[diag.key].weight):
                    found[diag.key] = diag
        if "full_program" in ctx.__dict__:
            result.entered, result.reached = ctx.full_program.entered, ctx.full_program.reached
            result.skipped = ctx.full_program.skipped
        if "full_program" in ctx.__dict__ and ctx.full_program.truncated:
            result.notes.append(
                f"{path}: only partly analysed (the training-loop model hit its size limit: "
                "calls nested too deeply or too many statements); findings may be missing"
            )
    except RecursionError:
        result.skip(Problem(None, path, "too deeply nested for lrdoctor to analyse "
                                        "(file not checked)"))
        return result
    except Exception as exc:  # noqa: BLE001 - a bug in lrdoctor must not stop the other files
        result.skip(Problem(
            None, path, f"internal error ({type(exc).__name__}: {exc}); please report it at "
            "lrdoctor's issue tracker (file not checked)"
        ))
        return result
    diags = sorted(found.values(), key=lambda d: (d.path, d.line, d.col, d.code))
    out = []
    lines_of: dict[str, list[str]] = {}  # split once per file: a file can have 100k findings
    for diag in diags:
        lines = lines_of.get(diag.path)
        if lines is None:
            lines = text.splitlines() if diag.path == path else \
                loader.sources.get(diag.path, "").splitlines()
            lines_of[diag.path] = lines
        source_line = lines[diag.line - 1] if 0 < diag.line <= len(lines) else ""
        if _suppressed(source_line, diag.code):
            continue
        if not source_line.isascii():
            _to_char_columns(diag, lines)
        if place and notebook is not None and diag.path == path:
            notebook.place(diag)
        elif place and notebook is not None:
            notebook.name_cells(diag, display_path(path))
        out.append(diag)
    result.diagnostics.extend(out)
    return result


def _parse(text: str, path: str, notebook: NotebookSource | None,
           result: FileResult) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences etc. are not our business
            return parse_newer(text, filename=path)
    except SyntaxError as exc:
        if notebook is not None:
            return _parse_cells(notebook, path, result)
        exported = exported_notebook_tree(text, path)
        if exported is not None:
            return exported
        result.skip(Problem("E999", path, f"{_syntax_message(exc, text)} (file not checked)",
                            exc.lineno or 1, max(exc.offset or 1, 1)))
    except (ValueError, TypeError) as exc:
        result.skip(Problem("E999", path, f"cannot parse: {exc} (file not checked)"))
    except (RecursionError, MemoryError):
        result.skip(Problem("E999", path, "too deeply nested or too large to parse "
                                          "(file not checked)"))
    return None


def _parse_cells(notebook: NotebookSource, path: str, result: FileResult) -> ast.Module | None:
    """A notebook with a broken cell: blank that cell out and check the rest."""
    lines = notebook.text.split("\n")
    starts = [first for _, first in notebook.cell_starts] + [len(lines) + 1]
    for index, (number, first) in enumerate(notebook.cell_starts):
        end = starts[index + 1]
        chunk = "\n".join(lines[first - 1 : end - 1])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(chunk)
        except (SyntaxError, ValueError) as exc:
            msg = _syntax_message(exc, chunk) if isinstance(exc, SyntaxError) \
                else f"syntax error: {exc}"
            line = exc.lineno if isinstance(exc, SyntaxError) and exc.lineno else 1
            col = exc.offset if isinstance(exc, SyntaxError) and exc.offset else 1
            result.skip(Problem("E999", path, f"{msg} (cell not checked)",
                                line, max(col, 1), number, whole_file=False))
            for i in range(first - 1, end - 1):
                lines[i] = ""
        except (RecursionError, MemoryError):
            for i in range(first - 1, end - 1):
                lines[i] = ""
    notebook.text = "\n".join(lines)
    try:
        return ast.parse(notebook.text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _char_col(line: str, byte_col: int) -> int:
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def _to_char_columns(diag: Diagnostic, lines: list[str]) -> None:
    """ast columns count UTF-8 bytes; users and editors count characters."""
    from lrdoctor.check.diagnostic import Edit

    def line(n: int) -> str:
        return lines[n - 1] if 0 < n <= len(lines) else ""

    diag.col = _char_col(line(diag.line), diag.col - 1) + 1
    if diag.end_line is not None and diag.end_col is not None:
        diag.end_col = _char_col(line(diag.end_line), diag.end_col - 1) + 1
    diag.edits = tuple(
        Edit(e.line, _char_col(line(e.line), e.col), e.end_line,
             _char_col(line(e.end_line), e.end_col), e.text)
        for e in diag.edits
    )


def _suppressed(line: str, code: str) -> bool:
    if "noqa" not in line.lower():
        return False
    for match in _NOQA.finditer(line):
        listed = match.group("codes")
        if listed is None:
            return True
        # a listed code is a prefix, as in flake8: noqa LRD0 silences LRD001..LRD099
        if any(code.upper().startswith(c.upper()) for c in re.split(r"[\s,]+", listed.strip())):
            return True
    return False


