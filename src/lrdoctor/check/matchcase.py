"""A ``match`` statement read as the ``if``/``elif`` chain it is equivalent to, so that a
subject holding a known literal picks its case as ``if name == "step":`` picks its branch:

    match name:                          if name == "step":
        case "step":                         sched = StepLR(...)
            sched = StepLR(...)          elif name == "onecycle" or name == "1cycle":
        case "onecycle" | "1cycle":  ->      sched = OneCycleLR(...)
            sched = OneCycleLR(...)      else:
        case _:                              raise ValueError(name)
            raise ValueError(name)

Only value, singleton, ``|``, capture and bare class (``case str():``) patterns, with or
without a guard, are read so; a sequence or mapping pattern, or a class pattern with
sub-patterns, leaves the whole statement to be read case by case."""

from __future__ import annotations

import ast

from lrdoctor.check.memo import per_node


@per_node
def match_as_if(stmt: ast.Match) -> list[ast.stmt] | None:
    """The statements equivalent to ``stmt``; None when a pattern is not one of the kinds
    above or the subject is not a plain name or attribute (comparing it again for each case
    must not evaluate anything twice)."""
    subject = stmt.subject
    if not _plain(subject):
        return None
    rest: list[ast.stmt] = []
    for case in reversed(stmt.cases):
        read = _pattern(case.pattern, subject)
        if read is None:
            return None
        test, captured = read
        body = [*_captures(captured, subject, case.pattern), *case.body]
        if case.guard is not None:
            test = case.guard if test is None else ast.BoolOp(op=ast.And(), values=[test, case.guard])
        if test is None:
            rest = body  # irrefutable: the cases after it are never reached
            continue
        branch = ast.If(test=test, body=body, orelse=rest)
        ast.copy_location(branch, case.pattern)
        ast.fix_missing_locations(branch)
        rest = [branch]
    return rest


def _plain(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _pattern(pattern: ast.pattern, subject: ast.expr
             ) -> tuple[ast.expr | None, list[str]] | None:
    """(the test that ``pattern`` matches ``subject``, None when it always does; the names it
    binds to the subject), or None for a pattern not read here."""
    if isinstance(pattern, ast.MatchValue):
        return _compared(subject, ast.Eq(), pattern.value, pattern), []
    if isinstance(pattern, ast.MatchSingleton):
        return _compared(subject, ast.Is(), ast.Constant(value=pattern.value), pattern), []
    if isinstance(pattern, ast.MatchAs):
        names = [pattern.name] if pattern.name else []
        if pattern.pattern is None:
            return None, names
        inner = _pattern(pattern.pattern, subject)
        if inner is None:
            return None
        return inner[0], [*inner[1], *names]
    if isinstance(pattern, ast.MatchClass) and not pattern.patterns \
            and not pattern.kwd_patterns:
        # `case str():` is `isinstance(name, str)`
        test = ast.Call(func=ast.Name(id="isinstance", ctx=ast.Load()),
                        args=[subject, pattern.cls], keywords=[])
        return ast.copy_location(test, pattern), []
    if isinstance(pattern, ast.MatchOr):
        tests: list[ast.expr] = []
        for option in pattern.patterns:
            inner = _pattern(option, subject)
            if inner is None or inner[1]:
                return None  # an alternative that binds a name: not read
            if inner[0] is None:
                return None, []
            tests.append(inner[0])
        return ast.copy_location(ast.BoolOp(op=ast.Or(), values=tests), pattern), []
    return None


def _compared(subject: ast.expr, op: ast.cmpop, value: ast.expr, where: ast.pattern
              ) -> ast.expr:
    test = ast.Compare(left=subject, ops=[op], comparators=[value])
    return ast.copy_location(test, where)


def _captures(names: list[str], subject: ast.expr, where: ast.pattern) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for name in names:
        bind = ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=subject)
        ast.copy_location(bind, where)
        ast.fix_missing_locations(bind)
        out.append(bind)
    return out
