"""Shapes met in the fresh-2026-12q batch of real code (issue 7), written in our own words.

An AMP import switched on the torch version, with a stand-in for a torch too old to have it:

    if torch.__version__ >= "1.6.0":
        from torch.cuda.amp import GradScaler, autocast
    else:
        from .amp_stub import GradScaler, autocast

On every torch in use the first arm runs: the names are torch.cuda.amp's GradScaler and
autocast. The stand-in only runs where torch lacks them, as a stand-in class defined in an
``except ImportError`` already did. The switch offers no newer spelling (torch.amp), so its
torch.cuda.amp arm is not a fallback for an older torch either: LRD101 applies.
"""

from __future__ import annotations

import textwrap

from lrdoctor.check.engine import check_source
from lrdoctor.check.fix import fixed_sources
from tests.check.helpers import codes, findings

_LOOP = """
def fit(model, loader, optimizer, scheduler, use_amp, epochs):
    scaler = GradScaler(enabled=use_amp)
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with autocast(enabled=use_amp):
                loss = model(x, y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()


def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=0.1, total_steps=epochs * len(loader))
    fit(model, loader, optimizer, scheduler, True, epochs)
"""


def _fix(src: str) -> str:
    src = textwrap.dedent(src)
    result = check_source(src, "train.py")
    return fixed_sources(result.diagnostics, {"train.py": src}).get("train.py", src)


def test_version_switch_to_a_stand_in_binds_the_torch_names() -> None:
    src = """
    import torch
    if torch.__version__ >= "1.6.0":
        from torch.cuda.amp import GradScaler, autocast
    else:
        from amp_stub import GradScaler, autocast
    """ + textwrap.indent(_LOOP, "    ")
    found = findings(src)
    assert ("LRD005", 18) in found  # the scheduler steps after every scaler.step
    assert sorted(c for c, _ in found if c == "LRD101") == ["LRD101", "LRD101"]


def test_version_switch_to_a_stand_in_is_not_rewritten_by_fix() -> None:
    src = """
    import torch
    if torch.__version__ >= "1.6.0":
        from torch.cuda.amp import GradScaler, autocast
    else:
        from amp_stub import GradScaler, autocast
    """ + textwrap.indent(_LOOP, "    ")
    # the calls are bare names imported inside the switch: no safe rewrite exists
    assert _fix(src) == textwrap.dedent(src)


def test_try_with_a_stand_in_in_the_except_binds_the_torch_names() -> None:
    src = """
    import torch
    try:
        from torch.cuda.amp import GradScaler, autocast
    except ImportError:
        from amp_stub import GradScaler, autocast
    """ + textwrap.indent(_LOOP, "    ")
    assert "LRD005" in codes(src)


def test_control_switch_between_torch_amp_and_torch_cuda_amp_is_not_lrd101() -> None:
    # the other arm offers torch.amp: the torch.cuda.amp arm is the fallback for an old torch
    src = """
    import torch
    if torch.__version__ >= "2.3":
        from torch.amp import GradScaler, autocast
    else:
        from torch.cuda.amp import GradScaler, autocast
    """ + textwrap.indent(_LOOP, "    ")
    found = codes(src)
    assert "LRD101" not in found
    assert "LRD005" in found


def test_control_guarded_scheduler_step_under_the_switch_is_only_lrd101() -> None:
    src = """
    import torch
    if torch.__version__ >= "1.6.0":
        from torch.cuda.amp import GradScaler, autocast
    else:
        from amp_stub import GradScaler, autocast


    def fit(model, loader, optimizer, scheduler, epochs):
        scaler = GradScaler()
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                with autocast():
                    loss = model(x, y)
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                before = scaler.get_scale()
                scaler.update()
                if scaler.get_scale() >= before:
                    scheduler.step()
    """
    assert codes(src) == ["LRD101", "LRD101"]


def test_control_two_stand_ins_without_torch_keep_the_last_binding() -> None:
    # neither arm imports from torch: nothing to prefer, nothing reported
    src = """
    import torch
    if torch.__version__ >= "1.6.0":
        from amp_compat import GradScaler
    else:
        from amp_stub import GradScaler

    def fit(model, loader, optimizer):
        scaler = GradScaler()
        for x, y in loader:
            loss = model(x, y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
    """
    assert "LRD101" not in codes(src)
