"""Checkpoints saved and resumed through the project's own helpers (the packages under
projects/): `save_checkpoint(state, path)` and `load_checkpoint(path, model,
optimizer=...)` with optional scheduler/scaler parameters left at None."""

from __future__ import annotations

from pathlib import Path

from lrdoctor.check.engine import check_file

PROJECTS = Path(__file__).resolve().parent / "projects"


def _found(project: str, entry: str) -> list[tuple[str, str, int]]:
    result = check_file(str(PROJECTS / project / entry))
    assert result.errors == []
    return [(d.code, Path(d.path).name, d.line) for d in result.diagnostics]


def test_helpers_that_save_and_resume_without_the_scheduler_are_reported() -> None:
    found = _found("checkpoint_helpers_wrong", "train.py")
    assert ("LRD007", "checkpointing.py", 5) in found  # the save, through save_checkpoint
    assert ("LRD007", "checkpointing.py", 12) in found  # the resume restores the optimizer only
    assert {code for code, _, _ in found} == {"LRD007"}


def test_helpers_that_save_and_resume_the_scheduler_are_fine() -> None:
    assert _found("checkpoint_helpers_right", "train.py") == []
