"""Shapes seen in the fresh-2026-12zza100 batch (rcnew100, bench/realcode/README.md).

Programs written for these tests; no third-party code.

- A class of ``torch.optim`` (or ``torch.optim.lr_scheduler``) picked by a setting,
  ``getattr(torch.optim, opt["name"])``, handed on as a keyword argument or stored in a
  mapping's entry (``state["optim_method"]``) and called there to build the optimizer:
  ``state["optimizer"] = state["optim_method"](model.parameters(), **config)``. lrdoctor read
  ``getattr(torch.optim, name)(...)`` only where the class was bound to a plain name in the
  same function; handed on, the call built nothing it knew, and a scheduler stepped before
  that optimizer's updates went unreported. In Python the entry holds the very class
  ``getattr`` returned, and calling it builds the optimizer.
- A package imported by a script in a nested directory (``from engine.loop import Engine`` in
  ``scripts/train/run.py``, the package at the top of the checkout) of a checkout without
  ``.git``, ``setup.py`` or ``pyproject.toml`` (a downloaded archive, files copied out of a
  repository), checked from its top directory. lrdoctor looked for the package only beside
  the script. Python finds it from the top directory (``python -m``, an installed package,
  ``PYTHONPATH=.``), and so now does lrdoctor: without a marker, the working directory it
  runs in (a few levels above the file at most) stands in for the project root.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from lrdoctor.catalog import CATALOG
from lrdoctor.check import project
from lrdoctor.check.runner import check_files

from .helpers import codes

# -- getattr(torch.optim, name) handed on ------------------------------------------------------

HOOKED_ENGINE = '''
import torch
from torch import optim


class Loop:
    def __init__(self):
        self.hooks = {}
        for name in ("begin", "begin_epoch", "end_epoch"):
            self.hooks[name] = lambda state: None

    def fit(self, **kwargs):
        state = {"net": kwargs["net"], "data": kwargs["data"], "make_opt": kwargs["make_opt"],
                 "opt_args": kwargs["opt_args"], "epochs": kwargs["epochs"], "epoch": 0}
        state["optimizer"] = state["make_opt"](state["net"].parameters(), **state["opt_args"])
        self.hooks["begin"](state)
        while state["epoch"] < state["epochs"]:
            self.hooks["begin_epoch"](state)
            for x, y in state["data"]:
                state["optimizer"].zero_grad()
                torch.nn.functional.mse_loss(state["net"](x), y).backward()
                state["optimizer"].step()
            state["epoch"] += 1
            self.hooks["end_epoch"](state)


def run(opt):
    net = torch.nn.Linear(4, 1)
    data = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
    loop = Loop()

    def begin(state):
        state["lr_sched"] = optim.lr_scheduler.StepLR(state["optimizer"], opt["decay_every"],
                                                      gamma=0.5)
    loop.hooks["begin"] = begin

    def begin_epoch(state):
        STEP_AT_BEGIN
    loop.hooks["begin_epoch"] = begin_epoch

    def end_epoch(state):
        STEP_AT_END
    loop.hooks["end_epoch"] = end_epoch

    loop.fit(net=net, data=data, make_opt=getattr(optim, opt["optimizer"]),
             opt_args={"lr": opt["lr"]}, epochs=opt["epochs"])
'''


def _hooked(at_begin: bool) -> str:
    step = 'state["lr_sched"].step()'
    return HOOKED_ENGINE.replace("STEP_AT_BEGIN", step if at_begin else "pass") \
        .replace("STEP_AT_END", "pass" if at_begin else step)


def test_optimizer_class_picked_by_getattr_and_handed_through_kwargs_into_a_state_dict() -> None:
    # the begin-of-epoch hook steps the StepLR before the epoch's updates (and before the
    # optimizer ever stepped): every decay comes one epoch early
    assert codes(_hooked(at_begin=True)) == ["LRD001"]


def test_optimizer_class_picked_by_getattr_with_the_step_after_the_epoch_is_fine() -> None:
    assert codes(_hooked(at_begin=False)) == []


PARAMETER_OPT_CLASS = '''
import torch
from torch import optim


def fit(net, data, optim_method, epochs):
    optimizer = optim_method(net.parameters(), lr=0.1)
    scheduler = optim.lr_scheduler.MultiStepLR(optimizer, milestones=[30, 60])
    for epoch in range(epochs):
        BEFORE
        for x, y in data:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            optimizer.step()
        AFTER


def main(name):
    net = torch.nn.Linear(4, 1)
    data = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
    fit(net, data, optim_method=getattr(optim, name), epochs=90)
'''


@pytest.mark.parametrize("before", [True, False])
def test_getattr_optimizer_class_in_a_parameter(before: bool) -> None:
    # `optim_method` reads like an optimizer, so lrdoctor once took the parameter itself for
    # one; it is the class, and the call builds the optimizer the scheduler drives
    source = PARAMETER_OPT_CLASS.replace("BEFORE", "scheduler.step()" if before else "pass") \
        .replace("AFTER", "pass" if before else "scheduler.step()")
    assert codes(source) == (["LRD001"] if before else [])


MODULE_MAPPING = '''
import torch
from torch import optim

ctx = {"name": "Adam"}
PICK
net = torch.nn.Linear(4, 1)
data = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
ctx["opt"] = ctx["opt_cls"](net.parameters(), lr=1e-3)
ctx["sched"] = optim.lr_scheduler.StepLR(ctx["opt"], step_size=20, gamma=0.5)
for epoch in range(60):
    BEFORE
    for x, y in data:
        ctx["opt"].zero_grad()
        torch.nn.functional.mse_loss(net(x), y).backward()
        ctx["opt"].step()
    AFTER
'''

PICKS = [
    'ctx["opt_cls"] = getattr(optim, ctx["name"])',
    'ctx["opt_cls"] = getattr(torch.optim, ctx["name"])',
    'cls = getattr(optim, ctx["name"])\nctx["opt_cls"] = cls',
    'import functools\nctx["opt_cls"] = functools.partial(getattr(optim, ctx["name"]), eps=1e-6)',
]


@pytest.mark.parametrize("pick", PICKS)
@pytest.mark.parametrize("before", [True, False])
def test_getattr_optimizer_class_in_a_mapping_entry(pick: str, before: bool) -> None:
    source = MODULE_MAPPING.replace("PICK", pick) \
        .replace("BEFORE", 'ctx["sched"].step()' if before else "pass") \
        .replace("AFTER", "pass" if before else 'ctx["sched"].step()')
    assert codes(source) == (["LRD001"] if before else [])


SCHEDULER_CLASS_IN_ENTRY = '''
import torch
from torch.optim import lr_scheduler


def build(run, params):
    run["optimizer"] = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    run["lr_policy"] = run["policy_cls"](run["optimizer"], step_size=20, gamma=0.5)


def main(policy):
    net = torch.nn.Linear(4, 1)
    data = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
    run = {"policy_cls": getattr(lr_scheduler, policy)}
    build(run, net.parameters())
    for epoch in range(60):
        BEFORE
        for x, y in data:
            run["optimizer"].zero_grad()
            torch.nn.functional.mse_loss(net(x), y).backward()
            run["optimizer"].step()
        AFTER
'''


@pytest.mark.parametrize("before", [True, False])
def test_getattr_scheduler_class_in_a_mapping_entry(before: bool) -> None:
    # `lr_policy` does not say it is a scheduler; the class getattr took from torch's
    # scheduler module does
    source = SCHEDULER_CLASS_IN_ENTRY \
        .replace("BEFORE", 'run["lr_policy"].step()' if before else "pass") \
        .replace("AFTER", "pass" if before else 'run["lr_policy"].step()')
    assert codes(source) == (["LRD001"] if before else [])


def test_getattr_of_another_module_builds_nothing() -> None:
    # `getattr(models, name)(...)` is a model class, not an optimizer: nothing is reported
    source = '''
    import torch
    import torchvision.models as models
    from torch import optim

    state = {"arch": getattr(models, "resnet18")}
    net = state["arch"](num_classes=10)
    optimizer = optim.SGD(net.parameters(), lr=0.1)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=30)
    for epoch in range(90):
        for x, y in []:
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(net(x), y).backward()
            optimizer.step()
        scheduler.step()
    '''
    assert codes(source) == []


# -- a package at the top of a checkout without a root marker ----------------------------------

ENGINE_MODULE = '''
import torch


class Engine:
    def __init__(self):
        self.hooks = {"epoch_start": lambda state: None, "epoch_end": lambda state: None}

    def train(self, state, epochs):
        for epoch in range(epochs):
            self.hooks["epoch_start"](state)
            for x, y in state["data"]:
                state["optimizer"].zero_grad()
                torch.nn.functional.mse_loss(state["net"](x), y).backward()
                state["optimizer"].step()
            self.hooks["epoch_end"](state)
'''

SCRIPT = '''
import torch
from trainlib.engine import Engine


def main(epochs):
    net = torch.nn.Linear(4, 1)
    data = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.randn(64, 4), torch.randn(64, 1)), batch_size=8)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    state = {"net": net, "data": data, "optimizer": optimizer}
    engine = Engine()

    def decay(state):
        state["lr_sched"].step()

    state["lr_sched"] = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.5)
    engine.hooks["HOOK"] = decay
    engine.train(state, epochs)
'''


def _unmarked_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: bool,
                       marker: bool = False, targets: list[str] | None = None
                       ) -> list[tuple[str, str]]:
    script = SCRIPT.replace("HOOK", "epoch_start" if before else "epoch_end")
    files = {"trainlib/__init__.py": "", "trainlib/engine.py": ENGINE_MODULE,
             "scripts/train/few/run.py": script}
    top = tmp_path / "checkout"
    for name, text in files.items():
        target = top / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    if marker:
        (top / "setup.py").write_text("")
    monkeypatch.chdir(top)
    monkeypatch.setattr(project, "_CHECKED_ROOTS", ())
    checked = ["scripts/train/few/run.py", "trainlib/engine.py"]
    project.set_checked_roots(targets if targets is not None else checked)
    report = check_files(checked, frozenset(CATALOG), jobs=1)
    assert report.errors == []
    return [(d.path, d.code) for d in report.diagnostics]


@pytest.mark.parametrize("marker", [False, True])
def test_package_at_the_top_of_an_unmarked_checkout_is_followed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, marker: bool) -> None:
    # the engine runs the script's hook, which steps the scheduler, before the epoch's
    # updates; with or without a setup.py, run from the top of the checkout
    found = _unmarked_checkout(tmp_path, monkeypatch, before=True, marker=marker)
    assert [c for _, c in found] == ["LRD001"]


def test_package_at_the_top_of_an_unmarked_checkout_correct_twin(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the hook runs after the epoch's updates
    assert _unmarked_checkout(tmp_path, monkeypatch, before=False) == []


def test_package_at_the_top_of_an_unmarked_checkout_named_as_a_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `lrdoctor check .` at the top of the checkout
    found = _unmarked_checkout(tmp_path, monkeypatch, before=True, targets=["."])
    assert [c for _, c in found] == ["LRD001"]


def test_the_script_alone_in_an_unmarked_checkout_is_checked_as_before(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # only the script named: its own directory stays its root, the package is not looked for
    # above it (and the script alone steps nothing before an update it can see)
    found = _unmarked_checkout(tmp_path, monkeypatch, before=True,
                               targets=["scripts/train/few/run.py"])
    assert [c for path, c in found if path.endswith("run.py")] == []


def test_unmarked_roots_are_the_checked_targets_and_never_span_two_of_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # two checkouts checked in one run (`lrdoctor check one two`) stay two projects
    for name in ("one/pkg", "two/pkg", "one/a/b/c/d/e"):
        (tmp_path / name).mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(project, "_CHECKED_ROOTS", ())
    project.set_checked_roots(["one", "two"])
    assert project.project_root(str(tmp_path / "one" / "pkg")) == str(tmp_path / "one")
    assert project.project_root(str(tmp_path / "one/a/b/c/d/e")) == str(tmp_path / "one")
    assert project.project_root(str(tmp_path / "two" / "pkg")) == str(tmp_path / "two")
    assert project.project_root(str(tmp_path)) == str(tmp_path)
    (tmp_path / "two" / "pkg" / "setup.py").write_text("")
    project._project_root.cache_clear()
    assert project.project_root(str(tmp_path / "two" / "pkg")) == str(tmp_path / "two" / "pkg")
