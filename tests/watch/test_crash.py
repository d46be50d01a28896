"""Known scheduler/AMP crashes are explained in the catalog's terms."""

from __future__ import annotations

import runpy
import textwrap

import pytest

import lrdoctor
from lrdoctor.runtime.crash import explain_message

torch = pytest.importorskip("torch")


def _crash(tmp_path, source: str):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    messages: list[str] = []
    w = lrdoctor.watch(echo=messages.append)
    with pytest.raises(Exception) as info:
        with w:
            runpy.run_path(str(path), run_name="__main__")
    assert not any("internal error" in m for m in messages), messages
    return w, info.value


def _line(source: str, marker: str) -> int:
    return next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1) if marker in t)


STEP_THEN_UPDATE = """
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
for step in range(3):
    optimizer.zero_grad()
    scaler.scale(model(torch.randn(8, 4)).pow(2).mean()).backward()
    optimizer.step()
    scaler.update()  # UPDATE
"""


def test_no_inf_checks_recorded_is_lrd109_once(tmp_path):
    w, err = _crash(tmp_path, STEP_THEN_UPDATE)
    assert "No inf checks were recorded" in str(err)
    hits = [f for f in w.findings if f.code == "LRD109"]
    assert len(hits) == 1  # found live at optimizer.step(); the crash adds nothing
    assert hits[0].location.line == _line(STEP_THEN_UPDATE, "optimizer.step()")


def test_second_scaler_step_without_update_is_lrd110_at_the_users_line(tmp_path):
    source = """
        import torch
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.amp.GradScaler("cpu")
        for step in range(3):
            optimizer.zero_grad()
            scaler.scale(model(torch.randn(8, 4)).pow(2).mean()).backward()
            scaler.step(optimizer)  # STEP
    """
    w, err = _crash(tmp_path, source)
    f = next(f for f in w.findings if f.code == "LRD110")
    assert "step() has already been called" in f.message
    assert f.location.line == _line(source, "# STEP")


def test_bceloss_under_autocast_is_lrd103(tmp_path):
    # CUDA autocast raises this; CPU autocast does not, so the script raises CUDA's message
    source = """
        import torch

        def bce_under_cuda_autocast(p, y):
            raise RuntimeError(
                "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to "
                "autocast.\\nMany models use a sigmoid layer right before the binary cross entropy "
                "layer. In this case, combine the two layers using "
                "torch.nn.functional.binary_cross_entropy_with_logits")

        model = torch.nn.Sequential(torch.nn.Linear(4, 1), torch.nn.Sigmoid())
        loss = bce_under_cuda_autocast(model(torch.randn(8, 4)), torch.rand(8, 1))  # BCE
    """
    w, err = _crash(tmp_path, source)
    f = next(f for f in w.findings if f.code == "LRD103")
    assert "BCEWithLogitsLoss" in f.message
    assert f.location.line in (_line(source, "# BCE"), _line(source, "raise RuntimeError("))


def test_onecycle_overrun_is_not_reported_twice(tmp_path):
    source = """
        import torch
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=5)
        for step in range(8):
            optimizer.step()
            scheduler.step()
    """
    w, err = _crash(tmp_path, source)
    assert [f.code for f in w.findings].count("LRD010") == 1


def test_plateau_without_metric_is_lrd004(tmp_path):
    source = """
        import torch
        model = torch.nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
        optimizer.step()
        scheduler.step()  # PLATEAU
    """
    w, err = _crash(tmp_path, source)
    f = next(f for f in w.findings if f.code == "LRD004")
    assert f.location.line == _line(source, "# PLATEAU")


@pytest.mark.parametrize("message, code", [
    ("Tried to step 1001 times. The specified number of total steps is 1000", "LRD010"),
    ("unscale_() has already been called on this optimizer since the last update().", "LRD110"),
    ("step() has already been called since the last update().", "LRD110"),
    ("No inf checks were recorded prior to update.", "LRD109"),
    ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.", "LRD103"),
    ("ReduceLROnPlateau.step() missing 1 required positional argument: 'metrics'", "LRD004"),
    ("CUDA out of memory", None),
])
def test_messages_map_to_codes(message, code):
    found = explain_message(message)
    assert (found[0] if found else None) == code
