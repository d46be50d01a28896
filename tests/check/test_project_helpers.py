"""The project's own helpers in other modules (the packages under projects/): checkpoints
saved and resumed through `save_checkpoint(state, path)` and `load_checkpoint(path, model,
optimizer=...)` with optional scheduler/scaler parameters left at None; a model builder that
returns the model cast to float16."""

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
    # the save, through save_checkpoint: at the dict the driver hands to it (rcnew109)
    assert ("LRD007", "train.py", 20) in found
    assert ("LRD007", "checkpointing.py", 12) in found  # the resume restores the optimizer only
    assert {code for code, _, _ in found} == {"LRD007"}


def test_helpers_that_save_and_resume_the_scheduler_are_fine() -> None:
    assert _found("checkpoint_helpers_right", "train.py") == []


def test_adam_on_a_model_cast_to_float16_by_a_project_builder_is_lrd102() -> None:
    assert _found("fp16_builder_wrong", "train.py") == [("LRD102", "train.py", 5)]


def test_adam_on_a_float32_model_from_a_project_builder_is_fine() -> None:
    assert _found("fp16_builder_right", "train.py") == []


def test_adam_on_a_model_returned_in_a_tuple_cast_under_a_flag_is_lrd102() -> None:
    assert _found("fp16_flag_builder_wrong", "train.py") == [("LRD102", "train.py", 10)]


def test_adam_with_a_float16_safe_eps_on_that_model_is_fine() -> None:
    assert _found("fp16_flag_builder_right", "train.py") == []
