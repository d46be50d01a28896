"""Python 3.12 f-strings (PEP 701) on an older interpreter.

Python 3.12 made f-strings ordinary grammar: a replacement field may hold the f-string's own
quote (`f"{row["name"]}"`), a backslash, a comment or (single-quoted) a line break. lrdoctor
parses with the interpreter it runs on; on 3.11 such a file fails to parse and nothing of it
would be checked. `parse_newer` parses it still: each such f-string the parser stops at is
rewritten into one 3.11 accepts (a nested string's quotes swapped for the other kind, its
body blanked where it would clash; a comment or backslash in a field blanked; a single-quoted
f-string whose field breaks the line made triple-quoted), keeping every line where it was,
and the file is parsed again. What the fields compute (the names they read, the calls they
make) stays; only the text of strings nested in them may change.
"""

from __future__ import annotations

import ast
import re
import sys
import warnings

# the opening of an f-string literal (f"", rf'', FR""" ...), not a name ending in f
_FSTRING_OPEN = re.compile(r"(?<![\w'\"])(?:[rR][fF]|[fF][rR]?)('''|\"\"\"|['\"])")


def _uses_pep701(text: str, start: int, quote: str) -> bool:
    """Whether the f-string whose body starts at ``text[start]`` is complete by Python 3.12's
    rules (PEP 701) and puts inside a replacement field what only 3.12+ accepts there: its own
    quote, a backslash, a comment, or (single-quoted) a line break.

    >>> _uses_pep701('{"-".join(a)}" rest', 0, '"')
    True
    >>> _uses_pep701("{a:>{w}} {d['k']}" + '" rest', 0, '"')
    False
    >>> _uses_pep701('{a"', 0, '"')
    False
    >>> _uses_pep701('{a}' + chr(10), 0, '"')
    False
    """
    i, depth, n, newer = start, 0, len(text), False
    single = len(quote) == 1
    while i < n:
        c = text[i]
        if depth == 0:
            if text.startswith(quote, i):
                return newer  # the f-string ended
            if c == "\n" and single:
                return False  # a plain unterminated string
            if c == "\\" or text.startswith("{{", i) or text.startswith("}}", i):
                i += 2
                continue
            if c == "{":
                depth = 1
        elif c in "'\"":  # a string inside the field: 3.12 lets it reuse the quote
            inner = text[i:i + 3] if text.startswith(c * 3, i) else c
            close = text.find(inner, i + len(inner))
            body = text[i + len(inner):close]
            if close < 0 or (len(inner) == 1 and "\n" in body):
                return False
            newer = newer or inner[0] == quote[0] or "\\" in body
            i = close + len(inner)
            continue
        elif c == "#":
            newer = True
            eol = text.find("\n", i)
            i = n if eol < 0 else eol
            continue
        elif c == "\\" or (c == "\n" and single):
            newer = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    return False



def _downgraded(text: str, start: int, quote: str) -> str | None:
    """``text`` with the f-string whose body starts at ``text[start]`` (opened by ``quote``)
    rewritten so that Python 3.11 parses it, or None when its end cannot be found."""
    other = "'" if quote[0] == '"' else '"'
    single = len(quote) == 1
    out: list[str] = []
    i, depth, n, breaks = start, 0, len(text), False
    while i < n:
        c = text[i]
        if depth == 0:
            if text.startswith(quote, i):
                break
            if c == "\\" or text.startswith("{{", i) or text.startswith("}}", i):
                out.append(text[i:i + 2])
                i += 2
                continue
            if c == "{":
                depth = 1
            out.append(c)
            i += 1
            continue
        if c in "'\"":
            inner = text[i:i + 3] if text.startswith(c * 3, i) else c
            close = text.find(inner, i + len(inner))
            if close < 0:
                return None
            body = text[i + len(inner):close]
            if len(inner) == 1 and "\n" in body:
                return None
            if inner[0] == quote[0] or "\\" in body:
                # the other quote, the same length; a clashing character of its body blanked
                blank = "".join("x" if ch in "'\"\\" else ch for ch in body)
                out.append(other * len(inner) + blank + other * len(inner))
            else:
                out.append(text[i:close + len(inner)])
            i = close + len(inner)
            continue
        if c == "#":
            eol = text.find("\n", i)
            eol = n if eol < 0 else eol
            out.append(" " * (eol - i))
            i = eol
            continue
        if c == "\\":
            out.append(" ")
            i += 1
            continue
        if c == "\n" and single:
            breaks = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        out.append(c)
        i += 1
    else:
        return None
    end = i
    body = "".join(out)
    if breaks:  # a line break inside a field: 3.11 allows it in a triple-quoted f-string only
        return text[:start - 1] + quote * 3 + body + quote * 3 + text[end + 1:]
    return text[:start] + body + text[end:]


def newer_fstring_at(text: str, exc: SyntaxError) -> tuple[int, str] | None:
    """(where its body starts, its quote) of an f-string that only Python 3.12+ parses, on the
    lines the parser's error points to (or the dozen above them, where line continuations
    carry a replacement field down)."""
    if not exc.lineno:
        return None
    lines = text.splitlines(keepends=True)
    first, last = max(exc.lineno - 12, 0), min(exc.end_lineno or exc.lineno, len(lines))
    offset = sum(len(line) for line in lines[:first])
    for line in lines[first:last]:
        for match in _FSTRING_OPEN.finditer(line):
            if _uses_pep701(text, offset + match.end(), match.group(1)):
                return offset + match.end(), match.group(1)
        offset += len(line)
    return None


def parse_newer(text: str, filename: str = "<unknown>") -> ast.Module:
    """``ast.parse(text)``; on an interpreter older than 3.12, a file whose only fault is
    f-strings written for 3.12 (PEP 701) parses with those f-strings rewritten (see the
    module's docstring). Any other syntax error is raised as ``ast.parse`` raises it."""
    try:
        return ast.parse(text, filename=filename)
    except SyntaxError as exc:
        if sys.version_info >= (3, 12):
            raise
        first = error = exc
    current = text
    for _ in range(200):
        at = newer_fstring_at(current, error)
        if at is None:
            break
        rewritten = _downgraded(current, *at)
        if rewritten is None or rewritten == current:
            break
        current = rewritten
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.parse(current, filename=filename)
        except SyntaxError as exc:
            error = exc
    raise first
