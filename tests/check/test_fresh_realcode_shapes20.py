"""A shape met in the fresh-2026-12za batch of real code (issue 7), written in our own words.

An audio classifier's resume restores the optimizer from the checkpoint, then guards the
scheduler's and the scaler's restores with an identity test against the checkpoint's keys
(``if sched is state.keys(): sched.load_state_dict(state["sched"])``, a typo for ``in``).
``state.keys()`` builds a new view object at each call, which no name can already hold, so the
test is never true: the schedule restarts from its first value on every resume. The checker
read the guarded ``load_state_dict`` as a restore and stayed silent (a missed LRD007). An
identity test (``is`` / ``is not``) against an object the test itself builds (a mapping's
``keys()`` / ``values()`` / ``items()``, a list, dict or set display, a comprehension) now has
a known outcome, like ``if False:``: ``is`` never holds, ``is not`` always does.

The controls: the same restore under ``in`` (the intended test) or ``is not None`` stays
silent, ``is not`` against a fresh view restores, a tuple display (which may be a shared
constant) decides nothing, and a restore left out altogether is still reported.
"""

from __future__ import annotations

from tests.check.helpers import codes, findings

_RESUME = """
import torch
from torch import nn


def run(args, loader):
    net = nn.Linear(4, 2)
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=len(loader) * 10)
    if args.resume:
        state = torch.load(args.resume)
        net.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        if {GUARD}:
            sched.load_state_dict(state["sched"])
    for epoch in range(10):
        for x, y in loader:
            loss = nn.functional.mse_loss(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(),
                    "sched": sched.state_dict()}, "ckpt.pt")
"""


def _resume(guard: str) -> str:
    return _RESUME.replace("{GUARD}", guard)


def test_identity_with_a_fresh_keys_view_never_restores() -> None:
    assert findings(_resume("sched is state.keys()")) == [("LRD007", 13)]


def test_fresh_object_on_the_left_side() -> None:
    assert findings(_resume("state.items() is sched")) == [("LRD007", 13)]


def test_identity_with_a_list_display_or_comprehension() -> None:
    assert findings(_resume('sched is ["sched"]')) == [("LRD007", 13)]
    assert findings(_resume("sched is {k for k in state}")) == [("LRD007", 13)]


def test_is_not_a_fresh_view_always_restores() -> None:
    assert "LRD007" not in codes(_resume("sched is not state.values()"))


def test_membership_test_restores() -> None:
    # control: the intended test
    assert "LRD007" not in codes(_resume('"sched" in state'))


def test_identity_with_none_restores() -> None:
    # control: an identity test on a name decides nothing statically
    assert "LRD007" not in codes(_resume('state.get("sched") is not None'))


def test_tuple_display_decides_nothing() -> None:
    # control: the empty tuple and constant tuples may be one shared object
    assert "LRD007" not in codes(_resume("sched is not ()"))


def test_a_restore_left_out_is_still_reported() -> None:
    # control: no guarded restore at all
    source = _resume("False").replace(
        '            sched.load_state_dict(state["sched"])\n', "            pass\n")
    assert findings(source) == [("LRD007", 13)]
