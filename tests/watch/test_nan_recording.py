"""NaN detection records module calls only once recording is armed (Design B, issue 8).

The module-call wrapper sits on torch.nn.Module for the first backward() calls (the models are
named from them), then torch's own ``__call__`` is put back: a routine step runs no lrdoctor
code per module call. A first non-finite loss is reported at once with its step and line (and
the op where walking the loss's graph names one); it arms the recording, so a NaN made inside a
module is localized, module and op, when it recurs. ``nan_record=True`` (``--nan-record``)
records from the first step, as before, and ``nan_trace=True`` checks every op.
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


def _line(source: str, marker: str) -> int:
    return next(i for i, t in enumerate(textwrap.dedent(source).splitlines(), 1) if marker in t)


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


def test_torch_call_is_back_after_the_learning_and_stop_restores_it(tmp_path):
    before = _patched()
    source = MLP.replace("MODULE_CALL", "torch.nn.Module._wrapped_call_impl").replace("STEPS", "300")
    w, ns = _run(tmp_path, source)
    by_step = dict(ns["seen"])
    # learning (the first two backward() calls): the wrapper is on torch.nn.Module
    assert by_step[1] == ["Module"]
    # then torch's own __call__ everywhere, for good on a healthy run (no class carries one)
    assert all(by_step[s] == [] for s in range(3, 301)), [s for s in range(3, 301) if by_step[s]]
    assert torch.nn.Module.__dict__["__call__"] is MODULE_CALL
    assert _patched() == before
    assert w.findings == []


@pytest.mark.parametrize("nan_record", [False, True])
def test_parameters_are_bit_identical_with_and_without_watching(tmp_path, nan_record):
    # dropout (its RNG), a second top-level module; the calls recorded (nan_record) or not
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
    _, seen = _run(tmp_path, source, nan_record=nan_record)
    for a, b in zip([*plain["model"].parameters(), *plain["extra"].parameters()],
                    [*seen["model"].parameters(), *seen["extra"].parameters()]):
        assert torch.equal(a, b)


# A NaN made inside a module (sqrt of a negative number) on the steps in BAD; a step whose loss is
# not finite is not taken (the parameters stay finite, as under GradScaler)
SCORER = """
import torch
torch.manual_seed(0)

class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(3, 3)
        self.register_buffer("shift", torch.zeros(()))

    def forward(self, h):
        return torch.sqrt(self.proj(h).abs() - self.shift)  # SQRT

model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
scorer = Scorer()
opt = torch.optim.SGD([*model.parameters(), *scorer.parameters()], lr=1e-3)
wrapped = []  # per iteration: whether torch.nn.Module.__call__ is not torch's
for step in range(1, 60):
    wrapped.append(torch.nn.Module.__dict__["__call__"] is not torch.nn.Module._wrapped_call_impl)
    scorer.shift.fill_(1e6 if step in BAD else 0.0)
    loss = scorer(model(torch.randn(16, 8))).pow(2).mean()
    opt.zero_grad()
    loss.backward()  # BACKWARD
    if torch.isfinite(loss):
        opt.step()
"""


def test_a_nan_made_in_a_module_is_reported_at_once_and_localized_at_its_recurrence(tmp_path):
    source = SCORER.replace("BAD", "(20, 30)")
    w, ns = _run(tmp_path, source)
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 20  # the first occurrence
    assert f.evidence["first_line"].endswith(f":{_line(source, '# BACKWARD')}")
    # the recurrence (iteration 30, the 29th optimizer attempt: iteration 20 took no step)
    assert f.evidence["localized_at_step"] == 29
    assert f.evidence["module"] == "scorer" and f.evidence["op"] == "sqrt"
    assert f.evidence["phase"] == "forward"
    assert f.location.line == _line(source, "# SQRT")
    assert "localized at its recurrence at step 29: `scorer` (Scorer) produced NaN in `sqrt`" in f.message
    assert "--nan-record" not in f.message
    # torch's own __call__ until the first NaN, recording from the next step on
    assert ns["wrapped"][3:20] == [False] * 17  # (the learning ends at step 3's first call)
    assert all(ns["wrapped"][20:])


def test_the_first_occurrence_is_reported_when_it_happens(tmp_path):
    # --strict raises at the first occurrence: its step and line are known then
    with pytest.raises(lrdoctor.ScheduleError, match="LRD104.*at step 20"):
        _run(tmp_path, SCORER.replace("BAD", "(20, 30)"), strict=True)


def test_a_one_off_nan_is_reported_without_a_module_and_with_the_hint(tmp_path):
    source = SCORER.replace("BAD", "(20,)")
    w, _ = _run(tmp_path, source)
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 20
    assert f.location.line == _line(source, "# BACKWARD")
    assert "module" not in f.evidence and f.evidence["module_recorded"] is False
    assert "the module that made it is not named: it did not recur" in f.message
    assert "--nan-record" in f.message and "nan_record=True" in f.message


@pytest.mark.parametrize("option", ["nan_record", "nan_trace"])
def test_recording_from_the_start_localizes_the_first_occurrence(tmp_path, option):
    source = SCORER.replace("BAD", "(20,)")
    w, ns = _run(tmp_path, source, **{option: True})
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 20
    assert f.evidence["module"] == "scorer" and f.evidence["op"] == "sqrt"
    assert f.location.line == _line(source, "# SQRT")
    assert "recurrence" not in f.message and "--nan-record" not in f.message
    assert all(ns["wrapped"])  # the wrapper never left torch.nn.Module


def test_a_nan_parameter_is_named_on_a_step_whose_calls_were_not_recorded(tmp_path):
    # the models are named during the learning: a NaN written into a parameter between steps
    # is found from them at the first occurrence
    source = SCORER.replace("BAD", "()").replace(
        "    scorer.shift.fill_(", "    if step == 25:\n        model[2].weight.data[0, 0] = float('nan')\n"
        "    scorer.shift.fill_(")
    w, _ = _run(tmp_path, source)
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 25
    assert f.evidence["parameter"] == "model.2.weight"
    assert "module_recorded" not in f.evidence and "--nan-record" not in f.message


LOSS_CODE = """
import torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=1e-3)
for step in range(1, 40):
    out = model(torch.randn(16, 8))
    p = torch.sigmoid(out) * (0.0 if step == 20 else 1.0)
    loss = -torch.log(p).mean()  # LOG
    opt.zero_grad()
    loss.backward()
    if torch.isfinite(loss):
        opt.step()
"""


def test_a_nan_in_the_loss_code_is_named_at_the_first_occurrence(tmp_path):
    # not recorded: the graph walk still names the op, spelled between the model call learned
    # during the first steps and backward()
    w, _ = _run(tmp_path, LOSS_CODE)
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 20
    assert f.evidence["op"] == "log" and f.evidence["phase"] == "loss"
    assert f.location.line == _line(LOSS_CODE, "# LOG")
    assert "module_recorded" not in f.evidence


def test_backwards_that_make_events_localize_the_recurrence_the_same_way(tmp_path):
    # a vector backward(gradient) makes a Backward event on every step (as a GPU loss does)
    source = (SCORER.replace("BAD", "(20, 30)")
              .replace(".pow(2).mean()", ".pow(2).mean(0)")
              .replace("loss.backward()", "loss.backward(torch.ones_like(loss))")
              .replace("torch.isfinite(loss)", "torch.isfinite(loss).all()"))
    assert "mean(0)" in source and "ones_like" in source
    w, ns = _run(tmp_path, source)
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 20
    assert f.evidence["module"] == "scorer" and f.evidence["op"] == "sqrt"
    assert "localized at its recurrence" in f.message
    assert ns["wrapped"][3:20] == [False] * 17  # (the learning ends at step 3's first call)


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
for step in range(1, 20):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    if torch.isfinite(loss):
        opt.step()
"""


def test_a_top_level_class_with_its_own_call_is_left_alone_and_localized(tmp_path):
    w, ns = _run(tmp_path, OWN_CALL.replace("SHIFT", "0.0"))
    assert len(ns["calls"]) == 19  # its own __call__ ran on each step
    assert "__call__" in ns["Net"].__dict__ and ns["Net"].__dict__["__call__"].__name__ == "__call__"
    assert torch.nn.Module.__dict__["__call__"] is MODULE_CALL
    assert not any(f.code == "LRD104" for f in w.findings)
    # a control: a NaN in it, from step 12 on, is localized to its module when it recurs
    w, _ = _run(tmp_path, OWN_CALL.replace("SHIFT", "(1e9 if step >= 12 else 0.0)"))
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
for step in range(1, 20):
    loss = model(torch.randn(16, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    if torch.isfinite(loss):
        opt.step()
"""


def test_a_class_with_a_metaclass_that_refuses_call_is_watched_as_any(tmp_path):
    w, _ = _run(tmp_path, REFUSING.replace("SHIFT", "0.0"))  # no internal error
    assert w.findings == []
    assert torch.nn.Module.__dict__["__call__"] is MODULE_CALL
    # a control: its NaN, from step 12 on, is localized to its module when it recurs
    w, _ = _run(tmp_path, REFUSING.replace("SHIFT", "(1e9 if step >= 12 else 0.0)"))
    [f] = [f for f in w.findings if f.code == "LRD104"]
    assert f.evidence["step"] == 12
    assert f.evidence["module"] == "model"


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
    if step == 0:
        first = torch.nn.Module.__dict__["__call__"]  # the wrapper, while learning


class Leaves(torch.fx.Tracer):
    # a Sequential kept as one call: what a user's tracer decides must still be asked
    def is_leaf_module(self, m, name):
        return isinstance(m, torch.nn.Sequential) or super().is_leaf_module(m, name)


code = torch.fx.symbolic_trace(model).code
leaf_code = torch.fx.GraphModule(model, Leaves().trace(model)).code
"""


@pytest.mark.parametrize("nan_record", [False, True])
def test_an_fx_trace_sees_every_module_call_as_without_lrdoctor(tmp_path, nan_record):
    """torch.fx's tracer puts its own __call__ on torch.nn.Module while it traces: with the
    wrapper there (recording) or not, the traced code is the same as without lrdoctor."""
    _, plain = _run(tmp_path, FX_TRACE, watched=False)
    w, ns = _run(tmp_path, FX_TRACE, nan_record=nan_record)
    assert ns["first"] is not MODULE_CALL
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
# another tool's wrapper put on torch.nn.Module, chaining to what it found there
found = torch.nn.Module.__call__
def profiler(self, *args, **kwargs):
    seen.append(type(self).__name__)
    return found(self, *args, **kwargs)
torch.nn.Module.__call__ = profiler
for _ in range(3):
    step()
torch.nn.Module.__call__ = found
params = torch.cat([p.detach().flatten() for p in model.parameters()])
"""


@pytest.mark.parametrize("nan_record", [False, True])
def test_another_tools_module_call_wrapper_is_honoured(tmp_path, nan_record):
    # chaining to torch's own __call__ (after the learning) or to lrdoctor's wrapper (recording)
    _, plain = _run(tmp_path, CHAINED, watched=False)
    w, ns = _run(tmp_path, CHAINED, nan_record=nan_record)
    assert torch.equal(ns["params"], plain["params"])
    # every module call of the three steps reached the other tool's wrapper, once
    assert ns["seen"] == ["Sequential", "Linear", "ReLU", "Linear"] * 3
    assert not w.findings
    assert torch.nn.Module.__dict__["__call__"] is MODULE_CALL


def test_an_error_inside_the_recording_is_swallowed(tmp_path, monkeypatch):
    from lrdoctor.runtime.checks import nonfinite

    def broken(self, *args, **kwargs):
        raise RuntimeError("broken record")

    monkeypatch.setattr(nonfinite.NonFinite, "record", broken)
    source = SCORER.replace("BAD", "(20, 30)")
    _, plain = _run(tmp_path, source, watched=False)
    messages: list[str] = []
    path = tmp_path / "train.py"
    with lrdoctor.watch(echo=messages.append) as w:
        seen = runpy.run_path(str(path), run_name="__main__")
    assert w.engine._internal_errors > 0
    for a, b in zip(plain["model"].parameters(), seen["model"].parameters()):
        assert torch.equal(a, b)
    [f] = [f for f in w.findings if f.code == "LRD104"]  # still reported, at the first occurrence
    assert f.evidence["step"] == 20
