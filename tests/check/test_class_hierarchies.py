"""Training loops spread over modules and class hierarchies (the packages under projects/):
a driver with none of the trigger words, re-exports through a package ``__init__``, a base
class's template method traced with the subclass instance, ``super().__init__(...)`` and
``Base.__init__(self, ...)`` arguments bound."""

from __future__ import annotations

from pathlib import Path

from lrdoctor.check.engine import check_file
from lrdoctor.check.runner import check_files

PROJECTS = Path(__file__).resolve().parent / "projects"


def _found(project: str, entry: str) -> list[tuple[str, str, int]]:
    result = check_file(str(PROJECTS / project / entry))
    assert result.errors == []
    return [(d.code, Path(d.path).name, d.line) for d in result.diagnostics]


def test_template_method_of_the_base_steps_a_onecycle_once_per_epoch_is_lrd003() -> None:
    # train.py only builds the trainer and calls fit(): the epoch loop lives in the base
    # class (trainers/base.py), the per-epoch work and the scheduler in the subclass
    assert _found("template_trainer_wrong", "train.py") == [("LRD003", "classifier.py", 19)]


def test_subclass_module_checked_alone_traces_the_inherited_fit() -> None:
    found = _found("template_trainer_wrong", "trainers/classifier.py")
    assert found == [("LRD003", "classifier.py", 19)]


def test_template_method_with_the_onecycle_stepped_per_batch_is_correct() -> None:
    assert _found("template_trainer_right", "train.py") == []
    assert _found("template_trainer_right", "trainers/classifier.py") == []


def test_scheduler_bound_through_base_init_and_stepped_per_batch_by_the_base_is_lrd002() -> None:
    assert _found("base_init_args_wrong", "run.py") == [("LRD002", "base.py", 13)]


def test_scheduler_bound_through_base_init_with_a_batch_horizon_is_correct() -> None:
    assert _found("base_init_args_right", "run.py") == []


def test_whole_project_reports_each_finding_once() -> None:
    paths = [str(p) for p in sorted((PROJECTS / "template_trainer_wrong").rglob("*.py"))]
    report = check_files(paths, frozenset({"LRD003"}), jobs=1)
    assert [(d.code, Path(d.path).name) for d in report.diagnostics] == [
        ("LRD003", "classifier.py")
    ]


def test_base_template_saves_and_resumes_without_the_subclass_scheduler_is_lrd007() -> None:
    # the base (re-exported with `from .loop import *`) owns the epoch loop, the checkpoint
    # and the resume; the subclass steps a scheduler the driver built with a config factory
    # (`settings.build("lr_scheduler", torch.optim.lr_scheduler, optimizer)`), and calls
    # `self.net.train()`, which must not hide the trainer's own inherited `train()`
    expected = [("LRD007", "loop.py", 25), ("LRD007", "loop.py", 31)]
    assert _found("resumable_template_wrong", "run.py") == expected
    assert _found("resumable_template_wrong", "runners/classify.py") == expected


def test_base_template_that_saves_and_resumes_the_scheduler_is_correct() -> None:
    for entry in ("run.py", "runners/classify.py", "core/loop.py"):
        assert _found("resumable_template_right", entry) == []
