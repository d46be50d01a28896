"""Calls to closures are summarised too (speed16): a function defined inside another one and
called many times with the same arguments, while the names it reads from the enclosing
function still hold the same values, is traced once and replayed after that. Pinned by
counting traced calls, not by timing; a closure whose enclosing names were rebound, or that
rebinds them itself (``nonlocal``), is traced again at each call."""

from __future__ import annotations

import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lrdoctor.check import trace
from lrdoctor.check.engine import check_source
from tests.check.helpers import check_project, codes


def _count_traces(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """How often each function's body is traced (a replayed summary is not counted)."""
    counts: Counter[str] = Counter()
    original = trace.Tracer.trace_call

    def counting(self: trace.Tracer, fv: Any, *args: Any, **kwargs: Any) -> Any:
        counts[fv.fn.name] += 1
        return original(self, fv, *args, **kwargs)

    monkeypatch.setattr(trace.Tracer, "trace_call", counting)
    return counts


def _closure_logger(calls: int, step_in_batch: bool = False) -> str:
    busy = "\n".join(f"        total_{i} = value * {i} + len(name) + scale" for i in range(40))
    lines = [
        "import torch",
        "from torch.optim.lr_scheduler import StepLR",
        "",
        "def train(model, loader, epochs, scale):",
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)",
        "    scheduler = StepLR(optimizer, step_size=30)",
        "",
        "    def log_metric(name, value):",
        busy,
        "        return value",
        "",
        "    for epoch in range(epochs):",
        "        for x in loader:",
        "            loss = model(x).sum()",
        "            loss.backward()",
        "            optimizer.step()",
        *(f"            log_metric('metric_{i}', loss)" for i in range(calls)),
        *(["            scheduler.step()"] if step_in_batch else []),
        *([] if step_in_batch else ["        scheduler.step()"]),
    ]
    return "\n".join(lines) + "\n"


def test_a_closure_called_many_times_with_the_same_arguments_is_traced_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _count_traces(monkeypatch)
    result = check_source(_closure_logger(60), "train.py")
    assert result.errors == [] and result.notes == []
    assert result.diagnostics == []
    assert counts["log_metric"] == 1  # without the closure summaries: 60


def test_the_step_after_two_thousand_closure_calls_is_still_seen() -> None:
    # the replayed calls keep their place in the batch loop: the step after them is seen
    wrong = check_source(_closure_logger(2000, step_in_batch=True), "train.py")
    assert [d.code for d in wrong.diagnostics] == ["LRD002"]
    assert wrong.notes == []
    right = check_source(_closure_logger(2000), "train.py")
    assert right.diagnostics == [] and right.notes == []


_REBOUND = """
import torch
from torch.optim.lr_scheduler import StepLR

def main(model, loader, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scheduler = StepLR(optimizer, step_size=30)

    def update(x):
        model(x).sum().backward()
        optimizer.step()

    for x in loader:
        update(x)
    {rebind}
    for epoch in range(epochs):
        for x in loader:
            update(x)
        scheduler.step()
"""


def test_a_closure_whose_enclosing_name_was_rebound_is_traced_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _count_traces(monkeypatch)
    src = _REBOUND.format(rebind="optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)")
    result = check_source(textwrap.dedent(src), "train.py")
    assert result.errors == []
    assert counts["update"] == 2  # one trace per optimizer it steps
    # the scheduler still drives the first optimizer, which no longer steps in the epoch loop
    assert "LRD014" in [d.code for d in result.diagnostics]


def test_a_closure_whose_enclosing_names_hold_the_same_objects_is_replayed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _count_traces(monkeypatch)
    result = check_source(textwrap.dedent(_REBOUND.format(rebind="pass")), "train.py")
    assert result.errors == [] and result.diagnostics == []
    assert counts["update"] == 1


def test_a_closure_that_rebinds_an_enclosing_name_is_traced_at_each_call(
        monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _count_traces(monkeypatch)
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    def main(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=30)
        updates = 0

        def update(x):
            nonlocal updates
            model(x).sum().backward()
            optimizer.step()
            updates += 1

        for epoch in range(epochs):
            for x in loader:
                update(x)
                update(x)
                update(x)
            scheduler.step()
    """
    assert codes(src) == []
    counts.clear()
    check_source(textwrap.dedent(src), "train.py")
    assert counts["update"] == 3


def test_a_closure_reading_an_enclosing_constant_keys_on_its_value(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # `per_batch` is True at the first call and False at the second: two traces, and the
    # scheduler stepped in the batch loop is seen in the first one only
    counts = _count_traces(monkeypatch)
    src = """
    import torch
    from torch.optim.lr_scheduler import StepLR

    def main(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = StepLR(optimizer, step_size=30)
        per_batch = False

        def update(x):
            model(x).sum().backward()
            optimizer.step()
            if per_batch:
                scheduler.step()

        for epoch in range(epochs):
            for x in loader:
                update(x)
            scheduler.step()
    """
    assert codes(src) == []
    counts.clear()
    check_source(textwrap.dedent(src), "train.py")
    assert counts["update"] == 1
    assert "LRD002" in codes(src.replace("per_batch = False", "per_batch = True")
                                .replace("            scheduler.step()\n    ", "    "))


def test_closure_calls_in_a_helper_module_are_summarised_per_enclosing_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _count_traces(monkeypatch)
    busy = "\n".join(f"                    n_{i} = len(key) + {i}" for i in range(30))
    calls = "\n".join(f"            compare('key_{i}')" for i in range(20))
    files = {
        "utils.py": f"""
        def compare_all(args, saved):
            def compare(key):
                if getattr(args, "strict", False):
{busy}
                return saved

{calls}
            return saved
        """,
        "train.py": """
        import torch
        from torch.optim.lr_scheduler import StepLR
        from utils import compare_all

        def main(model, loader, epochs, args):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = StepLR(optimizer, step_size=30)
            compare_all(args, {})
            for epoch in range(epochs):
                for x in loader:
                    model(x).sum().backward()
                    optimizer.step()
                scheduler.step()

        if __name__ == "__main__":
            main(None, [], 3, None)
        """,
    }
    assert check_project(tmp_path, monkeypatch, files) == []
    assert 1 <= counts["compare"] <= 2  # at most once per trace of compare_all
