"""The checker never crashes: property tests over generated and mutated training scripts."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lrdoctor.check.engine import check_source
from lrdoctor.check.sources import RawNotebook

SEEDS = [
    resources.files("lrdoctor.examples").joinpath(p.name).read_text("utf-8")
    for p in resources.files("lrdoctor.examples").iterdir()
    if p.name.endswith(".py") and p.name.startswith("LRD")
] + [p.read_text() for p in sorted((Path(__file__).parents[1] / "corpus").rglob("*.py"))]

FRAGMENTS = [
    "optimizer.step()", "scheduler.step()", "scheduler.step(epoch)", "scaler.step(optimizer)",
    "scaler.update()", "scaler.scale(loss).backward()", "loss.backward()",
    "for x in loader:", "for epoch in range(10):", "while True:", "if i % 4 == 0:", "else:",
    "optimizer = torch.optim.Adam(model.parameters())",
    "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 3)",
    "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, 1.0, total_steps=len(loader))",
    "scaler = torch.cuda.amp.GradScaler()", "def train(model, loader, optimizer, scheduler):",
    "class Trainer:", "def fit(self):", "self.scheduler.step()", "return optimizer, scheduler",
    "opt, sched = train(model, loader, optimizer, scheduler)", "train(model, loader, opt, sched)",
    "for g in optimizer.param_groups:", "g['lr'] = 0.1", "torch.save({'opt': optimizer.state_dict()}, p)",
    "scheds = {'a': scheduler}", "for s in scheds.values():", "s.step()", "pass", "x = (",
    "with torch.autocast('cuda'):", "torch.nn.utils.clip_grad_norm_(model.parameters(), 1)",
    "self.fit()", "train(*args, **kwargs)", "lambda epoch: 0.9 ** epoch", "yield scheduler",
    "async def f():", "await scheduler.step()", "match x:", "case 1:", "global optimizer",
]


def assert_no_crash(source: str) -> None:
    result = check_source(source, "fuzz.py")
    assert not any("internal error" in e for e in result.errors), result.errors


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(st.integers(0, 4), st.sampled_from(FRAGMENTS)), max_size=40))
def test_generated_scripts_never_crash(lines: list[tuple[int, str]]) -> None:
    assert_no_crash("import torch\n" + "\n".join("    " * d + s for d, s in lines) + "\n")


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from(SEEDS),
    st.lists(st.tuples(st.sampled_from(["drop", "dup", "swap", "dedent", "indent", "insert",
                                        "insert", "insert", "drop"]),
                       st.integers(0, 200), st.sampled_from(FRAGMENTS)), max_size=8),
)
def test_mutated_examples_never_crash(seed: str, edits: list[tuple[str, int, str]]) -> None:
    lines = seed.splitlines()
    for op, at, fragment in edits:
        if not lines:
            break
        i = at % len(lines)
        if op == "drop":
            if not lines[i].rstrip().endswith(":"):  # keep most mutants parseable
                del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = (i + 1) % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "dedent":
            lines[i] = lines[i][4:]
        elif op == "indent":
            lines[i] = "    " + lines[i]
        elif not fragment.endswith(":"):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            lines.insert(i, indent + fragment)
    assert_no_crash("\n".join(lines) + "\n")


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(list("()[]{}:.=,+*\n 'abcxyz0123") + FRAGMENTS), max_size=120)
       .map("".join))
def test_arbitrary_text_never_crashes(text: str) -> None:
    assert_no_crash(text)


def test_recursive_functions_and_self_calls_terminate() -> None:
    assert_no_crash(
        "import torch\n"
        "def f(opt, sched):\n    g(opt, sched)\n    sched.step()\n"
        "def g(opt, sched):\n    f(opt, sched)\n    opt.step()\n"
        "class T:\n    def a(self):\n        self.b()\n    def b(self):\n        self.a()\n"
    )


def test_call_fan_out_is_bounded() -> None:
    # each level calls the next twice: 2**30 paths if followed naively
    levels = "\n".join(f"def f{i}(o):\n    f{i + 1}(o)\n    f{i + 1}(o)\n" for i in range(30))
    assert_no_crash("import torch\n" + levels + "\ndef f30(o):\n    o.step()\nf0(torch.optim.SGD([]))\n")


def test_self_referencing_containers_terminate() -> None:
    # shapes from torch/optim/lbfgs.py: lists that end up holding themselves
    assert_no_crash(
        "import torch\n"
        "def f(opt, n):\n"
        "    dirs = []\n    al = [None] * n\n"
        "    for i in range(n):\n"
        "        dirs.append(dirs)\n        al[i] = al\n        al[i].step()\n"
        "        dirs[i].step()\n    opt.step()\n"
    )


def _first_json_char(escaped: str) -> str:
    """The first character of a JSON string body, decoded (an escape sequence counts as one)."""
    if escaped.startswith("\\u"):
        size = 12 if 0xD800 <= int(escaped[2:6], 16) < 0xDC00 else 6
    elif escaped.startswith("\\"):
        size = 2
    else:
        size = 1
    return json.loads(f'"{escaped[:size]}"')


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.text(alphabet=list('ab "\\\t\r\n\x0c\u2028é€😀'), max_size=40),
                min_size=1, max_size=4), st.booleans(), st.sampled_from([None, 1, 2]))
def test_notebook_positions_land_on_the_same_character_in_the_raw_file(
    cells: list[str], ensure_ascii: bool, indent: int | None
) -> None:
    # SARIF and GitHub annotations point into the raw .ipynb: whatever JSON escaping the
    # notebook's writer used, the position must hold the character the cell has there
    raw = json.dumps({"cells": [{"cell_type": "code", "source": cell.splitlines(True)}
                                for cell in cells]}, ensure_ascii=ensure_ascii, indent=indent)
    notebook = RawNotebook(raw)
    raw_lines = raw.split("\n")
    for number, cell in enumerate(cells, 1):
        for line_number, line in enumerate(cell.splitlines(), 1):
            for col, char in enumerate(line, 1):
                position = notebook.position(number, line_number, col)
                assert position is not None
                raw_line = raw_lines[position[0] - 1]
                assert _first_json_char(raw_line[position[1] - 1 :]) == char
