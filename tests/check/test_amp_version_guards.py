"""LRD101 as real projects write AMP: the deprecated spelling reached through `from torch.cuda
import amp`, and fallbacks for older torch that must be left alone (never reported, never
rewritten by --fix)."""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source
from lrdoctor.check.fix import fixed_sources
from tests.check.helpers import codes, findings


def fix(src: str) -> str:
    src = textwrap.dedent(src)
    result = check_source(src, "train.py")
    return fixed_sources(result.diagnostics, {"train.py": src}).get("train.py", src)


def test_amp_module_imported_from_torch_cuda_is_reported() -> None:
    src = """
    import torch
    from torch.cuda import amp

    model = torch.nn.Linear(4, 1)
    scaler = amp.GradScaler()
    with amp.autocast():
        loss = model(torch.randn(2, 4)).sum()
    """
    assert findings(src) == [("LRD101", 6), ("LRD101", 7)]


def test_amp_module_imported_under_alias_is_reported() -> None:
    src = """
    import torch.cuda.amp as cuda_amp
    scaler = cuda_amp.GradScaler(enabled=True)
    """
    assert codes(src) == ["LRD101"]


def test_fallback_in_except_of_a_try_that_uses_torch_amp_is_not_reported() -> None:
    src = """
    import torch

    try:
        scaler = torch.amp.GradScaler("cuda")
    except (AttributeError, TypeError):
        scaler = torch.cuda.amp.GradScaler()
    """
    assert codes(src) == []
    assert fix(src) == textwrap.dedent(src)


def test_import_fallback_in_except_is_not_reported() -> None:
    src = """
    try:
        from torch.amp import GradScaler, autocast
    except ImportError:
        from torch.cuda.amp import GradScaler, autocast

    scaler = GradScaler("cuda")
    with autocast("cuda"):
        pass
    """
    assert codes(src) == []


def test_try_without_the_new_api_still_reports_the_old_spelling() -> None:
    src = """
    import torch

    try:
        import apex
    except ImportError:
        scaler = torch.cuda.amp.GradScaler()
    """
    assert codes(src) == ["LRD101"]


def test_version_switched_conditional_expression_is_not_reported_or_rewritten() -> None:
    src = """
    import torch
    TORCH_GE_2_4 = tuple(int(p) for p in torch.__version__.split(".")[:2]) >= (2, 4)
    scaler = torch.amp.GradScaler("cuda") if TORCH_GE_2_4 else torch.cuda.amp.GradScaler()
    """
    assert codes(src) == []
    assert fix(src) == textwrap.dedent(src)


def test_version_switched_if_statement_is_not_reported() -> None:
    src = """
    import torch
    from packaging import version

    if version.parse(torch.__version__) >= version.parse("2.3"):
        autocast = lambda: torch.autocast("cuda")
    else:
        autocast = lambda: torch.cuda.amp.autocast()
    """
    assert codes(src) == []


def test_early_return_under_a_capability_test_guards_the_fallback_below() -> None:
    src = """
    import torch

    def make_scaler():
        if hasattr(torch.amp, "GradScaler"):
            return torch.amp.GradScaler("cuda")
        return torch.cuda.amp.GradScaler()
    """
    assert codes(src) == []


def test_a_flag_test_is_not_a_version_test() -> None:
    src = """
    import torch
    use_amp = True
    scaler = torch.cuda.amp.GradScaler() if use_amp else None
    """
    assert codes(src) == ["LRD101"]
    assert 'torch.amp.GradScaler("cuda")' in fix(src)
