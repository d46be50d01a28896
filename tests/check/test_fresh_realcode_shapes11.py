"""Shapes met in the untargeted batch fresh-2026-12n: a notebook kept as one file per cell,
where the cell that trains uses `amp.GradScaler()` and `amp.autocast()` while the cell that
imported `amp` lives in another file."""

from __future__ import annotations

from tests.check.helpers import codes, findings

# the cell that trains; `amp`, `criterion` and `settings` were bound by earlier cells
CELL = """
def one_epoch(net, optimizer, scheduler, loader, settings):
    grad_scaler = amp.GradScaler()
    for i, (x, y) in enumerate(loader):
        with amp.autocast(enabled=True):
            loss = criterion(net(x), y) / settings.accum
        grad_scaler.scale(loss).backward()
        if (i + 1) % settings.accum == 0:
            grad_scaler.step(optimizer)
            grad_scaler.update()
            optimizer.zero_grad()
{sched_step}
"""

UNGUARDED = "            scheduler.step()"
GUARDED = """            if grad_scaler.get_scale() >= scale_before:
                scheduler.step()"""


def test_scheduler_stepped_after_a_scaler_from_an_unseen_amp_module_is_reported() -> None:
    # `amp` is bound in no file here: torch.amp and torch.cuda.amp both hold the GradScaler,
    # so the scaler is tracked; which of the two it is stays unknown, so no LRD101
    assert findings(CELL.format(sched_step=UNGUARDED)) == [("LRD005", 12)]


def test_scheduler_stepped_only_after_applied_updates_of_that_scaler_is_fine() -> None:
    src = CELL.format(sched_step=GUARDED).replace(
        "            grad_scaler.step(optimizer)",
        "            scale_before = grad_scaler.get_scale()\n            grad_scaler.step(optimizer)",
    )
    assert codes(src) == []


def test_the_same_cell_with_amp_imported_from_torch_cuda_still_reports_both() -> None:
    src = "from torch.cuda import amp\n" + CELL.format(sched_step=UNGUARDED)
    assert sorted(codes(src)) == ["LRD005", "LRD101", "LRD101"]


def test_an_amp_module_bound_to_another_library_is_not_read_as_torch() -> None:
    # apex's amp has no GradScaler of torch's; a class of that name there is not tracked
    src = "from apex import amp\n" + CELL.format(sched_step=UNGUARDED)
    assert codes(src) == []
