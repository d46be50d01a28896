"""LRD101 through the modules that define torch.cuda.amp's classes, and its fix when the old
names come from more than one import line.

`torch.cuda.amp.grad_scaler.GradScaler` and `torch.cuda.amp.autocast_mode.autocast` are the
deprecated classes themselves (they warn the same way), so they are reported. The fix inserts
`"cuda"` as the first argument of a call, which is right only once the name is torch.amp's:
a call of a name that an import the fix does not rewrite still binds to the old class, whose
first positional parameter is `init_scale` (GradScaler) or `enabled` (autocast), and is left
as it is.
"""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source
from lrdoctor.check.fix import fixed_sources
from tests.check.helpers import findings


def fix(source: str) -> str:
    source = textwrap.dedent(source)
    diags = check_source(source, "train.py").diagnostics
    return fixed_sources(diags, {"train.py": source}).get("train.py", source)


def test_grad_scaler_imported_from_its_defining_module_is_reported_not_rewritten() -> None:
    src = """
    from torch.cuda.amp.grad_scaler import GradScaler
    scaler = GradScaler(enabled=True)
    """
    assert findings(src) == [("LRD101", 3)]
    assert fix(src) == textwrap.dedent(src)


def test_the_defining_modules_imported_as_modules_are_reported() -> None:
    src = """
    from torch.cuda.amp import grad_scaler, autocast_mode
    scaler = grad_scaler.GradScaler()
    with autocast_mode.autocast():
        pass
    """
    assert findings(src) == [("LRD101", 3), ("LRD101", 4)]


def test_other_names_of_the_defining_modules_are_not_reported() -> None:
    src = """
    import torch.cuda.amp.grad_scaler as gs
    from torch.cuda.amp.grad_scaler import _refresh_per_optimizer_state
    state = _refresh_per_optimizer_state()
    stage = gs.OptState.READY
    """
    assert findings(src) == []


def test_two_import_lines_are_both_rewritten_with_their_calls() -> None:
    src = """
    from torch.cuda.amp import autocast
    from torch.cuda.amp import GradScaler
    scaler = GradScaler()
    with autocast():
        pass
    """
    assert fix(src) == textwrap.dedent("""
    from torch.amp import autocast
    from torch.amp import GradScaler
    scaler = GradScaler("cuda")
    with autocast("cuda"):
        pass
    """)


def test_a_call_of_a_name_from_an_import_the_fix_leaves_is_not_rewritten() -> None:
    # the autocast line is rewritten with its call; GradScaler still comes from
    # torch.cuda.amp.grad_scaler, where GradScaler("cuda") would set init_scale="cuda"
    src = """
    from torch.cuda.amp import autocast as ac
    from torch.cuda.amp.grad_scaler import GradScaler
    scaler = GradScaler()
    with ac(enabled=True):
        pass
    """
    assert fix(src) == textwrap.dedent("""
    from torch.amp import autocast as ac
    from torch.cuda.amp.grad_scaler import GradScaler
    scaler = GradScaler()
    with ac("cuda", enabled=True):
        pass
    """)


def test_a_name_imported_again_inside_a_function_is_not_rewritten() -> None:
    src = """
    from torch.cuda.amp import GradScaler

    def make():
        from torch.cuda.amp import GradScaler
        return GradScaler()

    scaler = GradScaler()
    """
    assert [code for code, _ in findings(src)] == ["LRD101", "LRD101"]
    assert fix(src) == textwrap.dedent(src)
