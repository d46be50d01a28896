"""Fixes that change what training does, on purpose (``--unsafe-fixes``).

``--fix`` only makes rewrites that keep behaviour (LRD101). These change the LR schedule the
code trains with - which is the point, the code was wrong - so they are opt-in and shown as a
diff first:

- LRD001: move ``scheduler.step()`` after the optimizer's update (after the batch loop, or
  after ``optimizer.step()``), in the same block;
- LRD005: wrap the scheduler where it is built, ``lrdoctor.SkipAwareScheduler(...)``, or, when
  it is built elsewhere, guard its step with ``lrdoctor.step_was_skipped(optimizer)``;
- LRD006: drop the deprecated epoch argument, ``scheduler.step(epoch)`` -> ``scheduler.step()``;
- LRD015: ``get_lr()`` -> ``get_last_lr()``.

Each plan edits text spans of the original file (comments and formatting elsewhere are
untouched). Where the code does not have the shape a fix needs (the step inside an
expression, sharing a line with another statement, an update in another block...) the plan
says why and edits nothing; the caller then re-checks the fixed text and keeps a fix only if
the file still parses and the finding is gone without a new one.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from lrdoctor.check import STATIC_CODES
from lrdoctor.check.diagnostic import Diagnostic, Edit
from lrdoctor.check.engine import check_source
from lrdoctor.check.fix import apply_edits

UNSAFE_CODES = frozenset({"LRD001", "LRD005", "LRD006", "LRD015"})


@dataclass(frozen=True)
class Plan:
    """The edits that fix one finding, or why there are none (``reason``)."""

    edits: tuple[Edit, ...] = ()
    reason: str = ""


class _NotApplicable(Exception):
    pass


class _File:
    """One file's text and tree, with the lookups the fixes need (built once per file)."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.text = text
        self.tree = tree
        self.lines = text.splitlines(keepends=True)
        self.parents: dict[int, ast.AST] = {}
        self.calls: dict[tuple[int, int], ast.Call] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
            if isinstance(node, ast.Call):
                self.calls.setdefault((node.lineno, self.char_col(node.lineno, node.col_offset)),
                                      node)

    def line(self, n: int) -> str:
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ""

    def char_col(self, line: int, byte_col: int) -> int:
        """ast counts UTF-8 bytes; edits (and findings) count characters."""
        return len(self.line(line).encode("utf-8")[:byte_col].decode("utf-8", "ignore"))

    def call_at(self, line: int, col: int) -> ast.Call:
        call = self.calls.get((line, col - 1))
        if call is None:
            raise _NotApplicable("the call could not be found in the file as it is now")
        return call

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def span_text(self, line: int, col: int, end_line: int, end_col: int) -> str:
        """Text between two (line, byte column) positions."""
        if line == end_line:
            return self.line(line).encode()[col:end_col].decode("utf-8", "ignore")
        first = self.line(line).encode()[col:].decode("utf-8", "ignore")
        middle = "".join(self.lines[line:end_line - 1])
        last = self.line(end_line).encode()[:end_col].decode("utf-8", "ignore")
        return first + middle + last

    def whole_lines(self, stmt: ast.stmt) -> str:
        """The statement's own lines, when nothing else shares them (text before it is
        indentation; after it, at most a comment)."""
        first = self.line(stmt.lineno)
        before = first.encode()[: stmt.col_offset].decode("utf-8", "ignore")
        if before.strip():
            raise _NotApplicable("the statement shares its line with other code")
        end = stmt.end_lineno or stmt.lineno
        after = self.line(end).encode()[stmt.end_col_offset or 0:].decode("utf-8", "ignore")
        if after.strip() and not after.strip().startswith("#"):
            raise _NotApplicable("the statement shares its line with other code (`;`)")
        return "".join(self.lines[stmt.lineno - 1 : end])

    def newline(self) -> str:
        for line in self.lines:
            if line.endswith("\r\n"):
                return "\r\n"
            if line.endswith("\n"):
                return "\n"
        return "\n"

    def content_end(self, line: int) -> int:
        """The character column where ``line``'s text ends (before its line break)."""
        return len(self.line(line).rstrip("\r\n"))

    def insert_after(self, stmt: ast.stmt, text: str) -> Edit:
        """An edit inserting whole lines ``text`` after ``stmt``'s last line. It is made at the
        end of that line's text, the new lines led by a line break, so that it never ends in
        whitespace (which the edit machinery trims at the end of a line)."""
        end = stmt.end_lineno or stmt.lineno
        last = self.line(end)
        ending = last[len(last.rstrip("\r\n")):] or self.newline()
        column = self.content_end(end)
        return Edit(end, column, end, column, ending + text.rstrip("\r\n"))


def plan_fix(diag: Diagnostic, text: str, tree: ast.Module, file: _File | None = None) -> Plan:
    """The unsafe fix for ``diag`` (a finding in ``text``, whose tree is ``tree``)."""
    if diag.cell is not None:
        return Plan(reason="notebooks are reported, never rewritten")
    file = file or _File(text, tree)
    try:
        if diag.code == "LRD015":
            return Plan(_get_last_lr(file, diag))
        if diag.code == "LRD006":
            return Plan(_drop_epoch(file, diag))
        if diag.code == "LRD001":
            return Plan(_move_after_update(file, diag))
        if diag.code == "LRD005":
            return Plan(_skip_aware(file, diag))
    except _NotApplicable as exc:
        return Plan(reason=str(exc))
    return Plan(reason=f"{diag.code} has no automatic fix")


# -- LRD015 ------------------------------------------------------------------------------------


def _get_last_lr(file: _File, diag: Diagnostic) -> tuple[Edit, ...]:
    call = file.call_at(diag.line, diag.col)
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr != "get_lr" or func.end_lineno is None:
        raise _NotApplicable("the call is not written `x.get_lr()`")
    line, end = func.end_lineno, func.end_col_offset or 0
    start = end - len("get_lr")
    if file.span_text(line, start, line, end) != "get_lr":
        raise _NotApplicable("the method name is not where the call ends")
    return (Edit(line, file.char_col(line, start), line, file.char_col(line, end), "get_last_lr"),)


# -- LRD006 ------------------------------------------------------------------------------------


def _drop_epoch(file: _File, diag: Diagnostic) -> tuple[Edit, ...]:
    call = file.call_at(diag.line, diag.col)
    func = call.func
    if len(call.args) + len(call.keywords) != 1 or any(
        isinstance(a, ast.Starred) for a in call.args
    ) or any(k.arg is None for k in call.keywords):
        raise _NotApplicable("the call passes more than the epoch argument")
    if func.end_lineno is None or call.end_lineno is None:
        raise _NotApplicable("the call has no position")
    start = (func.end_lineno, func.end_col_offset or 0)
    end = (call.end_lineno, call.end_col_offset or 0)
    inside = file.span_text(*start, *end)
    if "#" in inside:
        raise _NotApplicable("a comment sits inside the call's parentheses")
    return (Edit(start[0], file.char_col(*start), end[0], file.char_col(*end), "()"),)


# -- LRD001 ------------------------------------------------------------------------------------


def _statement(file: _File, call: ast.Call) -> ast.Expr:
    stmt = file.parent(call)
    if not isinstance(stmt, ast.Expr) or stmt.value is not call:
        raise _NotApplicable("the step is part of a larger expression or statement")
    return stmt


def _block(file: _File, stmt: ast.stmt) -> tuple[ast.AST, list[ast.stmt]]:
    parent = file.parent(stmt)
    if parent is None:
        raise _NotApplicable("the statement's block could not be found")
    for name in ("body", "orelse", "finalbody"):
        body = getattr(parent, name, None)
        if isinstance(body, list) and any(s is stmt for s in body):
            return parent, body
    raise _NotApplicable("the step sits in a block the fix does not handle")


def _leaves_loop(stmts: list[ast.stmt]) -> bool:
    """Whether a `continue`/`break` of the enclosing loop is in ``stmts`` (nested loops and
    functions have their own)."""
    todo: list[ast.AST] = list(stmts)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Continue, ast.Break)):
            return True
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            todo.extend(node.orelse)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def _move_after_update(file: _File, diag: Diagnostic) -> tuple[Edit, ...]:
    if diag.evidence.get("before_loop"):
        raise _NotApplicable("the step runs once before the training loop: remove it unless "
                             "the shift is deliberate")
    call = file.call_at(diag.line, diag.col)
    stmt = _statement(file, call)
    parent, body = _block(file, stmt)
    index = next(i for i, s in enumerate(body) if s is stmt)
    moved = file.whole_lines(stmt)
    update_line = diag.evidence.get("update_line")
    later = body[index + 1 :]
    target: ast.stmt | None = None
    if isinstance(update_line, int) and diag.evidence.get("update_path", diag.path) == diag.path:
        target = next((s for s in later
                       if s.lineno <= update_line <= (s.end_lineno or s.lineno)), None)
    if target is None:
        # the update runs in a function called from this block (`train_one_epoch(...)`):
        # the step goes to the end of the loop body, after everything the pass does
        if not isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) or body is not parent.body:
            raise _NotApplicable(
                f"the optimizer step (line {update_line}) is not in the same block as the "
                "scheduler step"
            )
        if not later:
            raise _NotApplicable("nothing follows the scheduler step in its loop")
        if _leaves_loop(later):
            raise _NotApplicable("a `continue` or `break` after the scheduler step would skip it "
                                 "at the end of the loop body")
        target = later[-1]
        if isinstance(target, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
            raise _NotApplicable("the loop body ends with a jump")
    position = body.index(target)
    if position + 1 < len(body) and body[position + 1].lineno <= (target.end_lineno or 0):
        raise _NotApplicable("the statement after the update shares its line")
    start, end = stmt.lineno, stmt.end_lineno or stmt.lineno
    return (Edit(start, 0, end + 1, 0, ""), file.insert_after(target, moved))


# -- LRD005 ------------------------------------------------------------------------------------

_WRAPPER = "lrdoctor.SkipAwareScheduler"


def _skip_aware(file: _File, diag: Diagnostic) -> tuple[Edit, ...]:
    built = diag.evidence.get("scheduler_built")
    if isinstance(built, list) and len(built) == 2:
        try:
            return (*_wrap_construction(file, int(built[0]), int(built[1])), *_import(file))
        except _NotApplicable:
            pass  # built elsewhere: guard the step instead
    return (*_guard_step(file, diag), *_import(file))


def _wrap_construction(file: _File, line: int, col: int) -> tuple[Edit, ...]:
    call = file.call_at(line, col)
    stmt = file.parent(call)
    if not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or stmt.value is not call:
        raise _NotApplicable("the scheduler is not built in a plain assignment")
    if call.end_lineno is None:
        raise _NotApplicable("the call has no position")
    start_col = file.char_col(call.lineno, call.col_offset)
    end_col = file.char_col(call.end_lineno, call.end_col_offset or 0)
    return (
        Edit(call.lineno, start_col, call.lineno, start_col, f"{_WRAPPER}("),
        Edit(call.end_lineno, end_col, call.end_lineno, end_col, ")"),
    )


def _guard_step(file: _File, diag: Diagnostic) -> tuple[Edit, ...]:
    optimizer = diag.evidence.get("optimizer")
    if not isinstance(optimizer, str) or not optimizer:
        raise _NotApplicable("the optimizer GradScaler steps is not written out at the step")
    call = file.call_at(diag.line, diag.col)
    stmt = _statement(file, call)
    text = file.whole_lines(stmt)
    scaler_line = diag.evidence.get("scaler_line")
    if isinstance(scaler_line, int) and scaler_line > stmt.lineno:
        raise _NotApplicable("the scheduler steps before the GradScaler step")
    indent = re.match(r"[ \t]*", text).group(0)  # type: ignore[union-attr]
    unit = "\t" if indent.startswith("\t") else "    "
    nl = file.newline()
    body = "".join(unit + line if line.strip() else line
                   for line in text.splitlines(keepends=True))
    guarded = f"{indent}if not lrdoctor.step_was_skipped({optimizer}):{nl}{body}"
    end = stmt.end_lineno or stmt.lineno
    return (Edit(stmt.lineno, 0, end, file.content_end(end), guarded.rstrip("\r\n")),)


def _import(file: _File) -> tuple[Edit, ...]:
    """``import lrdoctor`` after the file's first block of imports (none if it is there)."""
    body = file.tree.body
    for stmt in body:
        if isinstance(stmt, ast.Import) and any(a.name == "lrdoctor" and a.asname is None
                                                for a in stmt.names):
            return ()
    first = next((i for i, s in enumerate(body) if isinstance(s, (ast.Import, ast.ImportFrom))
                  and not (isinstance(s, ast.ImportFrom) and s.module == "__future__")), None)
    nl = file.newline()
    if first is None:
        after = None
        for s in body:  # after a docstring and `from __future__` imports
            if (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                    and isinstance(s.value.value, str)) or (
                    isinstance(s, ast.ImportFrom) and s.module == "__future__"):
                after = s
                continue
            break
        if after is None:  # a line of its own at the top; it ends in a letter, not a space
            return (Edit(1, 0, 1, 0, f"import lrdoctor{nl}"),)
        return (file.insert_after(after, f"import lrdoctor{nl}"),)
    last = first
    while last + 1 < len(body) and isinstance(body[last + 1], (ast.Import, ast.ImportFrom)):
        last += 1
    return (file.insert_after(body[last], f"import lrdoctor{nl}"),)


# -- applying them -------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What ``--unsafe-fixes`` does to a set of files."""

    texts: dict[str, str]  # path -> new text (safe and unsafe fixes together)
    fixed: list[Diagnostic]  # the findings those texts fix
    unsafe: dict[str, str]  # path -> the text with the safe fixes only, for the diff shown
    refused: list[str]  # "path:line: LRD001 not fixed: why; ..."


def apply_unsafe(diags: list[Diagnostic], originals: dict[str, str]) -> Outcome:
    """The safe fixes plus every unsafe one that applies and survives a re-check of the fixed
    file: it parses, the finding is gone, and no finding appears that was not there."""
    outcome = Outcome({}, [], {}, [])
    paths = sorted({d.path for d in diags if d.code in UNSAFE_CODES})
    for d in diags:
        if d.code in UNSAFE_CODES and d.cell is not None:
            outcome.refused.append(_refusal(d, "notebooks are reported, never rewritten"))
    for path in {d.path for d in diags if d.edits and d.cell is None} | set(paths):
        text = originals.get(path)
        mine = [d for d in diags if d.path == path and d.cell is None]
        safe = [d for d in mine if d.edits]
        edits = [e for d in safe for e in d.edits]
        wanted = [d for d in mine if d.code in UNSAFE_CODES]
        if text is None:
            outcome.refused += [_refusal(d, "the file could not be read back as UTF-8")
                                for d in wanted]
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            outcome.refused += [_refusal(d, "the file changed since it was checked")
                                for d in wanted]
            continue
        file = _File(text, tree)
        # the re-check looks at every code, selected or not: a fix must not trade the finding
        # for another one (`step(epoch)` at the top of an epoch loop becoming LRD001)
        before = _counts(check_source(text, path, STATIC_CODES).diagnostics)
        fixed = list(safe)
        safe_text = apply_edits(text, edits) if edits else text
        for d in wanted:
            plan = plan_fix(d, text, tree, file)
            if plan.reason:
                outcome.refused.append(_refusal(d, plan.reason))
                continue
            trial = [*edits, *plan.edits]
            problem = _recheck(apply_edits(text, trial), path, before, [*fixed, d])
            if problem:
                outcome.refused.append(_refusal(d, problem))
                continue
            edits, fixed = trial, [*fixed, d]
        new = apply_edits(text, edits) if edits else text
        if new != text:
            outcome.texts[path] = new
            outcome.fixed += fixed
            if new != safe_text:
                outcome.unsafe[path] = safe_text
    return outcome


def _refusal(d: Diagnostic, reason: str) -> str:
    where = f"{d.path}:cell {d.cell}:line {d.line}" if d.cell is not None else f"{d.path}:{d.line}"
    return f"{where}: {d.code} not fixed: {reason}; left as it is"


def _counts(diags: list[Diagnostic]) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in diags:
        out[d.code] = out.get(d.code, 0) + 1
    return out


def _recheck(text: str, path: str, before: dict[str, int], fixed: list[Diagnostic]) -> str:
    """Why the fixed ``text`` is not acceptable ('' when it is)."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        return f"the fixed code would not parse ({exc})"
    result = check_source(text, path, STATIC_CODES)
    if result.problems:
        return "the fixed code could not be checked"
    after = _counts(result.diagnostics)
    expected = dict(before)
    for d in fixed:
        expected[d.code] = expected.get(d.code, 0) - 1
    for d in result.diagnostics:
        if after[d.code] > expected.get(d.code, 0):
            first = d.message if len(d.message) <= 120 else d.message[:117] + "..."
            still = " still" if d.code in {f.code for f in fixed} else ""
            return f"the fixed code would{still} be reported as {d.code} at line {d.line}: {first}"
    return ""
