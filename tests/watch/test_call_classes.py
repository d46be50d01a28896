"""NaN detection's module-call wrapper sits on the classes called at top level only.

It learns them during the first backward() calls with the wrapper on torch.nn.Module, then puts
torch's own ``__call__`` back there (a nested call of another class runs no lrdoctor code), and
learns again now and then (every 64 backward() calls, or after two backward() calls that saw no
recorded module call). These tests check that what NaN localization sees does not change.
"""

from __future__ import annotations

import runpy
import textwrap

import pytest

import lrdoctor

torch = pytest.importorskip("torch")

MODULE_CALL = torch.nn.Module.__dict__["__call__"]


def _patched() -> list[str]:
    """The torch.nn classes (and the test's own) whose ``__call__`` is not torch's."""
    seen, todo, out = set(), [torch.nn.Module], []
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
                if "__call__" in sub.__dict__ and sub.__module__ != "torch._dynamo.eval_frame":
                    out.append(sub.__name__)
    return sorted(out)


def _run(tmp_path, source: str, watched: bool = True, **options):
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(source))
    if not watched:
        return None, runpy.run_path(str(path), run_name="__main__")
    messages: list[str] = []
    with lrdoctor.watch(echo=messages.append, **options) as w:
        ns = runpy.run_path(str(path), run_name="__main__")
    assert not any("internal error" in m for m in messages), messages
    return w, ns


MLP = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Dropout(0.2),
                            torch.nn.Linear(16, 3))
criterion = torch.nn.CrossEntropyLoss()
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
seen = []  # (step, the classes whose __call__ is not torch's) while training
for step in range(1, STEPS + 1):
    x, y = torch.randn(16, 8), torch.randint(0, 3, (16,))
    loss = criterion(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    seen.append((step, sorted(c.__name__ for c in (torch.nn.Module, torch.nn.Sequential,
                                                     torch.nn.CrossEntropyLoss, torch.nn.Linear,
                                                     torch.nn.ReLU, torch.nn.Dropout)
                              if "__call__" in c.__dict__
                              and c.__dict__["__call__"] is not MODULE_CALL)))
"""


def test_the_wrapper_moves_to_the_top_level_classes_and_stop_restores_them(tmp_path):
    before = _patched()
    path_source = MLP.replace("MODULE_CALL", "torch.nn.Module._wrapped_call_impl").replace(
        "STEPS", "500")
    w, ns = _run(tmp_path, path_source)
    by_step = dict(ns["seen"])
    # learning (the first two backward() calls): the wrapper is on torch.nn.Module
    assert by_step[1] == ["Module"]
    # then on the two classes called at top level only; the nested-only ones never
    assert by_step[3] == ["CrossEntropyLoss", "Sequential"]
    assert by_step[40] == ["CrossEntropyLoss", "Sequential"]
    assert by_step[150] == ["CrossEntropyLoss", "Sequential"]
    # learned again (one step on torch.nn.Module) after 64 backward() calls, then after twice
    # as many each time nothing new was learned (the periodic optimizer step put it back; the
    # next backward() ended the learning)
    relearned = [s for s, classes in by_step.items() if "Module" in classes and s > 2]
    assert relearned == [64, 65, 192, 193, 448, 449]
    # stop() restored everything it patched
    assert torch.nn.Module.__dict__["__call__"] is MODULE_CALL
    assert _patched() == before
    assert w.findings == []


def test_parameters_are_bit_identical_with_and_without_watching(tmp_path):
    # dropout (its RNG), a top-level class learned late and the relearning steps included
    source = MLP.replace("MODULE_CALL", "torch.nn.Module._wrapped_call_impl").replace(
        "STEPS", "140") + """
extra = torch.nn.Linear(3, 3)
opt2 = torch.optim.SGD(extra.parameters(), lr=1e-2)
for step in range(40):
    loss = criterion(extra(model(torch.randn(16, 8))), torch.randint(0, 3, (16,)))
    opt.zero_grad()
    opt2.zero_grad()
    loss.backward()
    opt.step()
    opt2.step()
"""
    _, plain = _run(tmp_path, source, watched=False)
    _, seen = _run(tmp_path, source)
    for a, b in zip([*plain["model"].parameters(), *plain["extra"].parameters()],
                    [*seen["model"].parameters(), *seen["extra"].parameters()]):
        assert torch.equal(a, b)


NEW_TOP_LEVEL = """
import torch
torch.manual_seed(0)

class Scorer(torch.nn.Module):  # first called at top level at step FIRST
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)
        self.register_buffer("shift", torch.zeros(()))

    def forward(self, h):
        return torch.sqrt(self.proj(h).abs() - self.shift)  # SQRT

model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
scorer = Scorer()
params = [*model.parameters(), *scorer.parameters()]
opt = torch.optim.SGD(params, lr=1e-3)
for step in range(1, 120):
    x = torch.randn(16, 8)
    if step == BAD:
        scorer.shift.fill_(1e6)  # sqrt of a negative number: NaN
    h = model(x)
    if step >= FIRST:
        h = scorer(h)
    loss = h.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == BAD:
        scorer.shift.fill_(0.0)
"""


def _line(source: str, marker: str) -> int:
    return next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1) if marker in t)


@pytest.mark.parametrize("first,bad", [(10, 80), (10, 10)])
def test_a_class_first_called_at_top_level_after_the_learning_is_still_localized(
        tmp_path, first, bad):
    source = NEW_TOP_LEVEL.replace("FIRST", str(first)).replace("BAD", str(bad))
    w, _ = _run(tmp_path, source)
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == bad
    assert f.evidence["op"] == "sqrt"
    if bad > 64:  # learned again since (step 64): the call was recorded and replayed
        assert f.evidence["module"] == "scorer"
        assert f.location.line == _line(source, "# SQRT")
    else:
        # a NaN while a class first called at top level is not learned yet (up to 64 steps):
        # its call was not recorded, so the op is found by walking the loss's graph (the step
        # and the op are right; the module is not named)
        assert "module" not in f.evidence


SWAPPED = """
import torch
torch.manual_seed(0)

class Student(torch.nn.Module):  # replaces the first model at step 30
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 3)
        self.head = torch.nn.Linear(3, 1)
        self.register_buffer("shift", torch.zeros(()))

    def forward(self, x):
        return self.head(torch.log(self.body(x).abs() + 1 - self.shift))  # LOG

first = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))
student = Student()
opt = torch.optim.SGD([*first.parameters(), *student.parameters()], lr=1e-3)
patched = []
for step in range(1, 60):
    model = first if step < 30 else student
    if step == BAD:
        student.shift.fill_(1e6)  # log of a negative number: NaN
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    patched.append("__call__" in Student.__dict__)
"""


def test_a_model_swapped_in_after_the_learning_is_learned_and_its_nan_localized(tmp_path):
    # two backward() calls with no recorded module call: learned again
    w, ns = _run(tmp_path, SWAPPED.replace("BAD", "0"))
    assert w.findings == []
    # steps 30 and 31 saw no recorded call, step 32 learned it, from step 33 it is patched
    assert ns["patched"].index(True) + 1 == 33
    assert "__call__" not in ns["Student"].__dict__  # restored
    # a control: the same swap with a log of a negative number at step 40
    bad = SWAPPED.replace("BAD", "40")
    w, _ = _run(tmp_path, bad)
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 40
    assert f.evidence["op"] == "log"
    assert f.evidence["module"] == "student"
    assert f.location.line == _line(bad, "# LOG")


OWN_CALL = """
import torch
torch.manual_seed(0)
calls = []

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 1)

    def __call__(self, x):  # a class with a __call__ of its own
        calls.append(1)
        return super().__call__(x * 1.0)

    def forward(self, x):
        return self.head(torch.log(torch.relu(self.body(x)) + 1 - SHIFT))  # LOG

model = Net()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
during = []
for step in range(1, 20):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    during.append(torch.nn.Module.__dict__["__call__"])
"""


def test_a_top_level_class_with_its_own_call_keeps_the_wrapper_on_module(tmp_path):
    w, ns = _run(tmp_path, OWN_CALL.replace("SHIFT", "0.0"))
    assert len(ns["calls"]) == 19  # its own __call__ ran on each step
    assert all(c is not MODULE_CALL for c in ns["during"])  # never replaced
    assert "__call__" in ns["Net"].__dict__ and ns["Net"].__dict__["__call__"].__name__ == "__call__"
    assert torch.nn.Module.__dict__["__call__"] is MODULE_CALL
    assert not any(f.code == "LRD104" for f in w.findings)
    # a control: a NaN in it is localized to its module
    w, _ = _run(tmp_path, OWN_CALL.replace("SHIFT", "(1e9 if step == 12 else 0.0)"))
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 12
    assert f.evidence["op"] == "log"
    assert f.evidence["module"] == "model"


REFUSING = """
import torch
torch.manual_seed(0)

class Refusing(type):  # a metaclass that takes no __call__ from outside
    def __setattr__(cls, name, value):
        if name == "__call__":
            raise TypeError("read-only")
        super().__setattr__(name, value)

class Net(torch.nn.Module, metaclass=Refusing):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.log(torch.relu(self.body(x)) + 1 - SHIFT)  # LOG

model = Net()
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
during = []
for step in range(1, 20):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    during.append(torch.nn.Module.__dict__["__call__"])
"""


def test_a_top_level_class_that_refuses_the_wrapper_keeps_it_on_module(tmp_path):
    w, ns = _run(tmp_path, REFUSING.replace("SHIFT", "0.0"))  # no internal error
    assert all(c is not MODULE_CALL for c in ns["during"])
    assert w.findings == []
    assert torch.nn.Module.__dict__["__call__"] is MODULE_CALL
    # a control: its NaN is localized to its module
    w, _ = _run(tmp_path, REFUSING.replace("SHIFT", "(1e9 if step == 12 else 0.0)"))
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 12
    assert f.evidence["module"] == "model"


def test_backwards_that_make_events_learn_and_swap_the_same_way(tmp_path):
    # a vector backward(gradient) makes a Backward event on every step (as a GPU loss does):
    # the learning and the swap are counted there
    source = (SWAPPED.replace("BAD", "40")
              .replace("loss = model(torch.randn(16, 8)).pow(2).mean()",
                       "loss = model(torch.randn(16, 8)).pow(2).mean(0)")
              .replace("loss.backward()", "loss.backward(torch.ones_like(loss))"))
    assert "mean(0)" in source and "ones_like" in source
    w, ns = _run(tmp_path, source)
    assert ns["patched"].index(True) + 1 == 32  # learned at step 32's backward()
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 40
    assert f.evidence["module"] == "student"
    assert f.location.line == _line(source, "# LOG")


FX_TRACE = """
import torch
torch.manual_seed(0)
inner = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU())
model = torch.nn.Sequential(inner, torch.nn.Linear(8, 2), torch.nn.Softmax(dim=-1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(10):
    opt.zero_grad()
    model(torch.randn(3, 4)).pow(2).mean().backward()
    opt.step()
patched = "__call__" in torch.nn.Sequential.__dict__


class Leaves(torch.fx.Tracer):
    # a Sequential kept as one call: what a user's tracer decides must still be asked
    def is_leaf_module(self, m, name):
        return isinstance(m, torch.nn.Sequential) or super().is_leaf_module(m, name)


code = torch.fx.symbolic_trace(model).code
leaf_code = torch.fx.GraphModule(model, Leaves().trace(model)).code
"""


def test_an_fx_trace_after_the_learning_sees_every_module_call_as_without_lrdoctor(tmp_path):
    """torch.fx's tracer puts its own __call__ on torch.nn.Module while it traces; a class that
    carries the wrapper must hand its calls to that one (not run the wrapper on proxies, which
    put a node of lrdoctor's into the user's graph and raised inside the wrapper)."""
    _, plain = _run(tmp_path, FX_TRACE, watched=False)
    w, ns = _run(tmp_path, FX_TRACE)
    assert ns["patched"]  # the wrapper sat on Sequential when the trace ran
    assert ns["code"] == plain["code"]
    assert ns["leaf_code"] == plain["leaf_code"]
    # the user's tracer was asked about the inner Sequential, which it keeps as one call
    assert 'getattr(self, "0")(input' in ns["leaf_code"]
    assert not w.findings


CHAINED = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
seen = []


def step():
    opt.zero_grad()
    model(torch.randn(3, 4)).pow(2).mean().backward()
    opt.step()


for _ in range(5):
    step()
# another tool's wrapper, put on torch.nn.Module while lrdoctor sits on Sequential, chaining to
# what it found there; then one that chains to the wrapper lrdoctor had put on Module
found = torch.nn.Module.__call__
def profiler(self, *args, **kwargs):
    seen.append(type(self).__name__)
    return found(self, *args, **kwargs)
torch.nn.Module.__call__ = profiler
for _ in range(3):
    step()
torch.nn.Module.__call__ = found
chained_to = vars(torch.nn.Sequential).get("__call__", found)  # lrdoctor's, when watched
def profiler2(self, *args, **kwargs):
    seen.append("2:" + type(self).__name__)
    return chained_to(self, *args, **kwargs)
torch.nn.Module.__call__ = profiler2
for _ in range(3):
    step()
torch.nn.Module.__call__ = found
params = torch.cat([p.detach().flatten() for p in model.parameters()])
"""


def test_another_tools_module_call_wrapper_is_honoured_and_a_chain_back_does_not_recurse(tmp_path):
    _, plain = _run(tmp_path, CHAINED, watched=False)
    w, ns = _run(tmp_path, CHAINED)
    assert torch.equal(ns["params"], plain["params"])
    # every module call of the three steps reached the other tool's wrapper, Sequential's too
    assert ns["seen"][:4] == ["Sequential", "Linear", "ReLU", "Linear"]
    assert ns["seen"].count("Sequential") == 3
    # a wrapper chaining back to lrdoctor's for the same module: no recursion, each call once
    assert ns["seen"].count("2:Sequential") == 3
    assert not w.findings
