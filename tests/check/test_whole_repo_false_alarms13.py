"""Shapes met while checking Hugging Face Accelerate's own repository (fwex2).

Inside that repository `from accelerate import Accelerator` names the project's own class
(src/accelerate/accelerator.py), not an installed library. The checker traced that class as
project code and saw half of it: `backward()` scales the loss through the accelerator's
GradScaler, while the optimizer `prepare()` hands back (an AcceleratedOptimizer whose step()
goes through that scaler) was lost. Every example's `optimizer.step()` then read as a step
that bypasses the scaler (LRD109): 52 false alarms. The project's own definition of the class
Accelerate's public name stands for is now that library class (as a vendored copy of a torch
scheduler is torch's), a project subclass of it inherits its methods (a user's
`class MyAccelerator(Accelerator)` too), and a class merely named Accelerator elsewhere is
still traced as the project's code.

Also here: LRD014's "scheduler on a second instance of the optimizer" paired two separate
setups (a baseline run and an accelerated run, each calling one builder of an optimizer and
its scheduler, from one loop of the driver); one setup's scheduler was said to drive a
second instance of the optimizer the other setup steps.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.helpers import check_project, findings

# -- a repository that is the library itself -----------------------------------------------------

# The package's own Accelerator, cut to what matters: a GradScaler under fp16, a backward()
# that scales through it, a prepare() that hands its arguments back, an accumulate() block.
_OWN_PACKAGE = {
    "src/accelerate/__init__.py": """
        from .accelerator import Accelerator
    """,
    "src/accelerate/accelerator.py": """
        import contextlib

        import torch


        def make_scaler(**kwargs):
            return torch.amp.GradScaler("cuda", **kwargs)


        class Accelerator:
            def __init__(self, mixed_precision="no", gradient_accumulation_steps=1, **kwargs):
                self.scaler = None
                self.accumulation = gradient_accumulation_steps
                if mixed_precision == "fp16":
                    self.scaler = make_scaler(**kwargs)

            def prepare(self, *objects):
                prepared = tuple(self._wrap(o) for o in objects)
                return prepared if len(prepared) > 1 else prepared[0]

            def _wrap(self, obj):
                return obj

            @contextlib.contextmanager
            def accumulate(self, model):
                yield

            def backward(self, loss):
                if self.scaler is not None:
                    self.scaler.scale(loss).backward()
                else:
                    loss.backward()
    """,
}

_EXAMPLE = """
    import torch
    from accelerate import Accelerator


    def train(model, batches, epochs):
        accelerator = Accelerator(mixed_precision="fp16")
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
        model, optimizer, batches = accelerator.prepare(model, optimizer, batches)
        for epoch in range(epochs):
            for x, y in batches:
                loss = torch.nn.functional.cross_entropy(model(x), y)
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
"""


def _repository(extra: dict[str, str]) -> dict[str, str]:
    return {**_OWN_PACKAGE, **extra}


def test_an_example_of_the_library_repository_stepping_its_prepared_optimizer_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = check_project(tmp_path, monkeypatch, _repository({"examples/train.py": _EXAMPLE}))
    assert found == []


def test_a_test_subclassing_the_library_repository_accelerator_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the repository's own tests count backward calls in a subclass that defers to the base
    counting = """
        import torch
        from accelerate import Accelerator


        class CountingAccelerator(Accelerator):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                self.backwards = 0

            def backward(self, loss):
                self.backwards += 1
                super().backward(loss)


        def test_three_updates():
            accelerator = CountingAccelerator(mixed_precision="fp16")
            model = torch.nn.Linear(4, 2)
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            model, optimizer = accelerator.prepare(model, optimizer)
            for _ in range(3):
                accelerator.backward(model(torch.randn(2, 4)).sum())
                optimizer.step()
                optimizer.zero_grad()
    """
    found = check_project(tmp_path, monkeypatch, _repository({"tests/test_counting.py": counting}))
    assert found == []


def test_a_baseline_scaling_by_hand_in_the_library_repository_is_lrd109(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a benchmark's baseline beside the accelerated run: its own GradScaler scales the loss,
    # and the optimizer steps directly, never unscaled
    baseline = """
        import torch
        from accelerate import Accelerator


        def baseline(model, batches):
            accelerator = Accelerator()
            scaler = torch.amp.GradScaler("cuda")
            optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
            model = model.to(accelerator.device)
            for x, y in batches:
                loss = torch.nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                optimizer.step()
                optimizer.zero_grad()
    """
    found = check_project(tmp_path, monkeypatch,
                          _repository({"benchmarks/baseline.py": baseline}))
    assert found == [("benchmarks/baseline.py", 14, "LRD109")]


_ACCUMULATING = """
    import torch
    from accelerate import Accelerator
    from transformers import get_cosine_schedule_with_warmup


    def train(model, batches, epochs, accum=4):
        accelerator = Accelerator(gradient_accumulation_steps=accum)
        optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
        schedule = get_cosine_schedule_with_warmup(optimizer, 100, epochs * len(batches) // accum)
        {prepare}
        for epoch in range(epochs):
            for x, y in batches:
                with accelerator.accumulate(model):
                    accelerator.backward(torch.nn.functional.cross_entropy(model(x), y))
                    optimizer.step()
                    schedule.step()
                    optimizer.zero_grad()
"""
_WITHOUT_SCHEDULE = "model, optimizer, batches = accelerator.prepare(model, optimizer, batches)"
_WITH_SCHEDULE = ("model, optimizer, batches, schedule = "
                  "accelerator.prepare(model, optimizer, batches, schedule)")


def test_an_unprepared_schedule_under_accumulate_in_the_library_repository_is_lrd017(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _ACCUMULATING.format(prepare=_WITHOUT_SCHEDULE)
    found = check_project(tmp_path, monkeypatch, _repository({"examples/accum.py": program}))
    assert found == [("examples/accum.py", 17, "LRD017")]


def test_a_prepared_schedule_under_accumulate_in_the_library_repository_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _ACCUMULATING.format(prepare=_WITH_SCHEDULE)
    found = check_project(tmp_path, monkeypatch, _repository({"examples/accum.py": program}))
    assert found == []


# -- a user project subclassing the installed Accelerator --------------------------------------

_SUBCLASS = """
    from accelerate import Accelerator


    class LoggingAccelerator(Accelerator):
        def __init__(self, run_name, accum):
            super().__init__(gradient_accumulation_steps=accum, log_with="tensorboard")
            self.run_name = run_name

        def report(self, values, step):
            self.log(values, step=step)
"""


def test_an_unprepared_schedule_under_a_subclass_accumulate_is_lrd017(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _ACCUMULATING.format(prepare=_WITHOUT_SCHEDULE).replace(
        "from accelerate import Accelerator", "from tools.acc import LoggingAccelerator").replace(
        "Accelerator(gradient_accumulation_steps=accum)", 'LoggingAccelerator("run", accum)')
    found = check_project(tmp_path, monkeypatch, {"tools/__init__.py": "",
                                                  "tools/acc.py": _SUBCLASS,
                                                  "train.py": program})
    assert found == [("train.py", 17, "LRD017")]


def test_a_prepared_schedule_under_a_subclass_accumulate_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _ACCUMULATING.format(prepare=_WITH_SCHEDULE).replace(
        "from accelerate import Accelerator", "from tools.acc import LoggingAccelerator").replace(
        "Accelerator(gradient_accumulation_steps=accum)", 'LoggingAccelerator("run", accum)')
    found = check_project(tmp_path, monkeypatch, {"tools/__init__.py": "",
                                                  "tools/acc.py": _SUBCLASS,
                                                  "train.py": program})
    assert found == []


def test_a_subclass_that_accumulates_over_nothing_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # its __init__ hands the base no accumulation: the optimizer steps on every batch
    plain = _SUBCLASS.replace("gradient_accumulation_steps=accum, ", "")
    program = _ACCUMULATING.format(prepare=_WITHOUT_SCHEDULE).replace(
        "from accelerate import Accelerator", "from tools.acc import LoggingAccelerator").replace(
        "Accelerator(gradient_accumulation_steps=accum)", 'LoggingAccelerator("run", accum)')
    found = check_project(tmp_path, monkeypatch, {"tools/__init__.py": "",
                                                  "tools/acc.py": plain,
                                                  "train.py": program})
    assert found == []


def test_a_wrapper_holding_the_accelerator_is_quiet(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapper = """
        from accelerate import Accelerator


        class Runtime:
            def __init__(self, precision):
                self.accelerator = Accelerator(mixed_precision=precision)

            def prepare(self, *parts):
                return self.accelerator.prepare(*parts)

            def backward(self, loss):
                self.accelerator.backward(loss)
    """
    program = _EXAMPLE.replace("from accelerate import Accelerator",
                               "from runtime import Runtime").replace(
        'Accelerator(mixed_precision="fp16")', 'Runtime("fp16")')
    found = check_project(tmp_path, monkeypatch, {"runtime.py": wrapper, "train.py": program})
    assert found == []


# -- a class only named Accelerator -------------------------------------------------------------

def test_a_project_class_only_named_accelerator_is_still_traced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # not Accelerate's: a helper of the project's own whose backward() scales the loss and
    # which offers nothing to step through the scaler; the direct step is the bug
    helper = """
        import torch


        class Accelerator:
            def __init__(self):
                self.scaler = torch.amp.GradScaler("cuda")

            def prepare(self, *objects):
                return objects

            def backward(self, loss):
                self.scaler.scale(loss).backward()
    """
    program = _EXAMPLE.replace("from accelerate import Accelerator",
                               "from speed.helpers import Accelerator").replace(
        'Accelerator(mixed_precision="fp16")', "Accelerator()")
    found = check_project(tmp_path, monkeypatch, {"speed/__init__.py": "",
                                                  "speed/helpers.py": helper,
                                                  "train.py": program})
    assert [code for _, _, code in found] == ["LRD109"]


# -- LRD014: two setups made by one builder ---------------------------------------------------

_TWO_SETUPS = """
import torch
from transformers import get_linear_schedule_with_warmup
import fp8lib


def setup(model, steps):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    schedule = get_linear_schedule_with_warmup(optimizer, 100, steps)
    return optimizer, schedule


def baseline(model, batches):
    optimizer, schedule = setup(model, len(batches))
    for x, y in batches:
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
        schedule.step()


def converted(model, batches):
    optimizer, schedule = setup(model, len(batches))
    model, optimizer = fp8lib.convert(model, optimizer)
    for x, y in batches:
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        optimizer.zero_grad()
        schedule.step()


def compare(model, batches):
    for level in ("O1", "O2"):
        baseline(model, batches)
        converted(model, batches)
"""


def test_two_setups_from_one_builder_are_not_a_second_instance() -> None:
    # `converted`'s optimizer is lost to an unknown conversion; the step of `baseline`'s is
    # not a step of another instance of `converted`'s optimizer
    assert [code for code, _ in findings(_TWO_SETUPS)] == []


def test_a_scheduler_built_on_a_fresh_optimizer_from_the_builder_is_lrd014() -> None:
    # the builder's optimizer is made again for the schedule alone: that one is never stepped
    program = """
        import torch
        from torch.optim.lr_scheduler import CosineAnnealingLR


        def make_optimizer(model):
            return torch.optim.AdamW(model.parameters(), lr=1e-4)


        def make_schedule(model, epochs):
            return CosineAnnealingLR(make_optimizer(model), T_max=epochs)


        def fit(model, batches, epochs):
            optimizer = make_optimizer(model)
            schedule = make_schedule(model, epochs)
            for epoch in range(epochs):
                for x, y in batches:
                    torch.nn.functional.cross_entropy(model(x), y).backward()
                    optimizer.step()
                    optimizer.zero_grad()
                schedule.step()
    """
    assert [code for code, _ in findings(program)] == ["LRD014"]
