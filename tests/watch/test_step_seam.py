"""The optimizer step is seen in place of torch's own no-op ``Optimizer._optimizer_step_code``
(which every optimizer's wrapped ``step()`` calls right after the update) rather than through
a global step post-hook: one Python frame less a step. What it sees must be what the hook saw,
torch's profiler must still find its own code called, and an optimizer class with a
``_optimizer_step_code`` of its own must not step unseen."""

from __future__ import annotations

import gc
import sys

import pytest

import lrdoctor
from tests.watch.conftest import PRELUDE

torch = pytest.importorskip("torch")
import torch.optim.optimizer as optmod  # noqa: E402

ORIGINAL = torch.optim.Optimizer.__dict__["_optimizer_step_code"]

LOOP = PRELUDE + """
optimizer = OPT
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)
for epoch in range(5):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
"""


@pytest.fixture(autouse=True)
def _no_class_left_over():
    """An optimizer class a test script defined lives on in Optimizer.__subclasses__() until it
    is collected, and one with its own _optimizer_step_code turns the seam off for the next
    watch: each test starts without them."""
    gc.collect()
    yield
    gc.collect()


def _attempts(ran) -> int:
    return sum(o.attempts for o in ran.watch.engine.optimizers.values())


def test_the_step_is_seen_in_place_of_torchs_no_op_and_no_post_hook_is_added():
    hooks = dict(optmod._global_optimizer_post_hooks)
    with lrdoctor.watch(echo=lambda m: None):
        seam = torch.optim.Optimizer.__dict__["_optimizer_step_code"]
        assert seam is not ORIGINAL
        assert seam.__code__.co_varnames[0] == "self"  # torch's profiler reads `self`
        assert dict(optmod._global_optimizer_post_hooks) == hooks
    assert torch.optim.Optimizer.__dict__["_optimizer_step_code"] is ORIGINAL


def _records(ran) -> list:
    eng = ran.watch.engine
    return [(o.attempts, o.taken, o.lr_history, o.epoch_attempts) for o in eng.optimizers.values()] + [
        (s.user_steps, s.step_marks.runs, s.epoch_steps, s.last_lrs) for s in eng.schedulers.values()]


@pytest.mark.parametrize("opt", ["torch.optim.SGD(model.parameters(), lr=0.1)",
                                 "torch.optim.AdamW(model.parameters(), lr=0.01)"])
def test_the_seam_sees_what_the_post_hook_saw(run_script, opt, monkeypatch):
    source = LOOP.replace("OPT", opt)
    ran = run_script(source)
    assert _attempts(ran) == 5 * 16
    from lrdoctor.runtime import hooks

    monkeypatch.setattr(hooks, "_step_seam", lambda torch: None)  # the post-hook, as before
    hooked = run_script(source)
    assert ran.codes == hooked.codes == ["LRD002"]  # StepLR(step_size=7) stepped per batch
    assert [f.message for f in ran.findings] == [f.message for f in hooked.findings]
    assert _records(ran) == _records(hooked)
    assert _timeless(ran.watch.report()) == _timeless(hooked.watch.report())


def _timeless(report: str) -> str:
    import re

    return re.sub(r"in \d+(\.\d+)?s", "in Ts", report)


def test_a_class_with_its_own_step_code_defined_while_watching_is_still_seen(run_script):
    ran = run_script(LOOP.replace("OPT", "Mine(model.parameters(), lr=0.1)").replace(
        "optimizer = Mine", "class Mine(torch.optim.SGD):\n"
        "    def _optimizer_step_code(self):\n"
        "        self.own_calls = getattr(self, 'own_calls', 0) + 1\n"
        "optimizer = Mine"))
    assert _attempts(ran) == 5 * 16
    assert ran.ns["optimizer"].own_calls == 5 * 16  # its own method still runs, once a step


@pytest.mark.parametrize("scheduler", ["", "scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7)"])
def test_a_class_whose_step_code_calls_supers_has_each_step_counted_once(run_script, scheduler):
    ran = run_script(PRELUDE + f"""
class Mine(torch.optim.SGD):
    def _optimizer_step_code(self):
        self.own_calls = getattr(self, 'own_calls', 0) + 1
        super()._optimizer_step_code()
optimizer = Mine(model.parameters(), lr=0.1)
{scheduler}
for epoch in range(5):
    for x, y in loader:
        train_batch(x, y)
""")
    assert ran.ns["optimizer"].own_calls == 5 * 16
    assert _attempts(ran) == 5 * 16


def test_a_class_with_its_own_step_code_defined_before_watching_is_still_seen(run_script):
    class Own(torch.optim.SGD):
        def _optimizer_step_code(self):
            pass

    try:
        with lrdoctor.watch(echo=lambda m: None):
            # the seam is not used at all while such a class exists: the post-hook sees every step
            assert torch.optim.Optimizer.__dict__["_optimizer_step_code"] is ORIGINAL
        ran = run_script(LOOP.replace("OPT", "torch.optim.SGD(model.parameters(), lr=0.1)"))
        assert _attempts(ran) == 5 * 16
    finally:
        del Own  # (collected by the fixture)


def test_under_a_profiler_torchs_own_step_code_is_called_and_steps_are_counted(run_script):
    called = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is ORIGINAL.__code__:
            called.append(frame.f_locals.get("self"))

    source = LOOP.replace("OPT", "torch.optim.SGD(model.parameters(), lr=0.1)").replace(
        "for epoch in range(5):", "with torch.autograd.profiler.profile():\n  for epoch in range(5):").replace(
        "\n    for x, y", "\n      for x, y").replace("\n        train_batch", "\n          train_batch").replace(
        "\n        scheduler.step()", "\n          scheduler.step()")
    sys.setprofile(profile)
    try:
        ran = run_script(source)
    finally:
        sys.setprofile(None)
    assert _attempts(ran) == 5 * 16
    assert len(called) == 5 * 16 and all(o is ran.ns["optimizer"] for o in called)


def test_without_a_profiler_torchs_no_op_is_not_called(run_script):
    called = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is ORIGINAL.__code__:
            called.append(1)

    sys.setprofile(profile)
    try:
        ran = run_script(LOOP.replace("OPT", "torch.optim.SGD(model.parameters(), lr=0.1)"))
    finally:
        sys.setprofile(None)
    assert _attempts(ran) == 5 * 16
    assert called == []
