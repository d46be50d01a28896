"""Find the user's ``param_group['lr'] = ...`` line behind an LR change seen at run time.

The runtime sees that an optimizer's LR changed outside any scheduler only at the next
optimizer step, when the write is over. The line that wrote it is found in the source of the
user code on the stack at that step (read once per file, never executed): a write in the
function that is running (a Lightning ``optimizer_step`` override, the training loop itself)
wins; otherwise a single write in those files (an ``adjust_learning_rate`` helper called
earlier). Where that does not name one line, nothing is claimed.
"""

from __future__ import annotations

import ast
import linecache
from types import FrameType

from lrdoctor.runtime.callsite import _verdict

# filename -> [(line of the write, first line, last line of the innermost def around it)]
_writes: dict[str, list[tuple[int, int, int]]] = {}


def _is_lr_target(node: ast.AST) -> bool:
    return (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
            and node.slice.value == "lr")


def lr_writes(filename: str) -> list[tuple[int, int, int]]:
    """Every ``x['lr'] = / += ...`` in ``filename`` with the span of the def enclosing it."""
    cached = _writes.get(filename)
    if cached is not None:
        return cached
    found: list[tuple[int, int, int]] = []
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        tree = None

    def visit(node: ast.AST, span: tuple[int, int]) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            span = (node.lineno, node.end_lineno or node.lineno)
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for t in targets:
            if _is_lr_target(t):
                found.append((getattr(node, "lineno", 0), *span))
        for child in ast.iter_child_nodes(node):
            visit(child, span)

    if tree is not None:
        visit(tree, (1, 1 << 30))
    _writes[filename] = found
    return found


def find_lr_write(frame: FrameType | None) -> tuple[str, int] | None:
    """``(filename, line)`` of the write that most likely set the LR now in force."""
    user_frames = []
    while frame is not None:
        if _verdict(frame.f_code) == 2:
            user_frames.append(frame)
        frame = frame.f_back
    everywhere: set[tuple[str, int]] = set()
    for f in user_frames:  # innermost first
        filename, line = f.f_code.co_filename, f.f_lineno
        writes = lr_writes(filename)
        everywhere.update((filename, w) for w, _, _ in writes)
        # writes in the def that is running: the innermost span around this frame's line that
        # starts inside its code (the module's own span only for module-level code)
        first = f.f_code.co_firstlineno
        spans = [(a, b) for _, a, b in writes if a <= line <= b and a >= first]
        if spans:
            inner = max(spans, key=lambda s: s[0])
            here = [w for w, a, b in writes if (a, b) == inner]
            before = [w for w in here if w <= line]
            return filename, max(before) if before else min(here)
    if len(everywhere) == 1:
        return everywhere.pop()
    return None
