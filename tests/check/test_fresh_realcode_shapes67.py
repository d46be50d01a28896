"""Shapes behind the dev miss of the fresh-2026-12yu batch (course-assignment notebooks that
drive project modules; the lead, session 42, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A OneCycleLR sized ``epochs * len(loader)`` stepped once per epoch as
  ``scheduler.step(val_loss)``: the loss is taken as the schedule's position, which is no
  positioning in batches (``step(epoch * len(loader))`` would be), so the step is a per-epoch
  step of a batch-sized schedule (LRD003), besides the deprecated argument (LRD006). The
  scheduler comes from a notebook, the epoch loop from a module the notebook imports.
- Silent twins: the same schedule stepped plainly after every update; a ReduceLROnPlateau
  stepped with the validation loss once per epoch; a OneCycleLR positioned once per epoch
  with a count of batches.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import check_project, codes, messages, notebook

FIT = '''
def run_epoch(model, loader, opt, loss_fn):
    model.train()
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        {batch_step}
        total += loss.item()
    return total / len(loader)


def fit(model, loader, val_loader, opt, sched, loss_fn, epochs):
    val_losses = []
    for epoch in range(epochs):
        run_epoch(model, loader, opt, loss_fn)
        val = sum(loss_fn(model(x), y).item() for x, y in val_loader)
        val_losses.append(val)
        {epoch_step}
    return val_losses
'''

CELLS = (
    """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR
    from training import loops
    """,
    """
    model = torch.nn.Linear(4, 2)
    loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=20, steps_per_epoch=len(loader))
    """,
    """
    loops.fit(model, loader, loader, opt, sched, torch.nn.functional.cross_entropy, 20)
    """,
)


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch_step: str, epoch_step: str,
             cells: tuple[str, ...] = CELLS) -> list[tuple[str, int, str]]:
    return check_project(tmp_path, monkeypatch, {
        "course/session.ipynb": notebook(*cells),
        "course/training/__init__.py": "",
        "course/training/loops.py": FIT.format(batch_step=batch_step, epoch_step=epoch_step),
    })


def test_onecycle_stepped_per_epoch_with_the_validation_loss(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    found = _project(tmp_path, monkeypatch, "pass", "sched.step(val_losses[-1])")
    assert ("course/training/loops.py", 21, "LRD003") in found
    assert ("course/training/loops.py", 21, "LRD006") in found


def test_message_says_the_loss_is_taken_as_the_position() -> None:
    source = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR

    model = torch.nn.Linear(4, 2)
    loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=20, steps_per_epoch=len(loader))
    for epoch in range(20):
        for x, y in loader:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.step()
        val_loss = evaluate(model)
        sched.step(val_loss)
    """
    assert codes(source) == ["LRD003", "LRD006"]
    [lrd003] = [m for m in messages(source) if "once per epoch" in m]
    assert "`val_loss` (a loss or score) as its position" in lrd003
    assert "never anneals" in lrd003


def test_onecycle_stepped_after_every_update_is_silent(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    assert _project(tmp_path, monkeypatch, "sched.step()", "pass") == []


def test_plateau_stepped_with_the_validation_loss_is_silent(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    cells = (CELLS[0], CELLS[1].replace(
        "OneCycleLR(opt, max_lr=0.1, epochs=20, steps_per_epoch=len(loader))",
        "torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2)"), CELLS[2])
    assert _project(tmp_path, monkeypatch, "pass", "sched.step(val_losses[-1])", cells) == []


def test_onecycle_positioned_in_batches_once_per_epoch_is_not_lrd003() -> None:
    source = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR

    model = torch.nn.Linear(4, 2)
    loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    sched = OneCycleLR(opt, max_lr=0.1, epochs=20, steps_per_epoch=len(loader))
    for epoch in range(20):
        for x, y in loader:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.step()
        sched.step(epoch * len(loader))
    """
    assert "LRD003" not in codes(source)
