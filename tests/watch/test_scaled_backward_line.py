"""The user's line of a scaled backward that the lane under GradScaler keeps (Lane.bsite) and
hands to the AMP check when it closes: LRD108 and LRD109 name it. Since perf61 the lane reuses
its last one when the next scaled backward comes from the same torch caller (Tensor.backward)
on the same user's instruction (Lane.bcall/bcode/blasti), and finds it anew otherwise. Each
script below makes its scaled backwards from more than one line, so a line kept from another
backward would show in the finding: the run is compared with one that hands every step and
backward to every check (nothing routine, no lane: each line found anew), and the finding must
name the line marked ``# THE LINE``."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import Backward
from tests.watch.test_amp_lane import COSINE, LOOP, SGD, _amp_snapshot

torch = pytest.importorskip("torch")

NORM = "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"
TAIL = "        scaler.step(optimizer); scaler.update(); scheduler.step()"

# name -> (batch, the code expected, at the step of the marked line)
SCRIPTS: dict[str, tuple[str, str]] = {
    # two lines alternate on every step (the same torch caller, another user's instruction)
    "two lines alternating, a clip before unscale_ on an odd step": (
        "optimizer.zero_grad(); loss = forward(x, y)\n"
        "        if step % 2: scaler.scale(loss).backward()  # THE LINE\n"
        "        else: scaler.scale(loss).backward()\n"
        f"        if step == 71: {NORM}\n" + TAIL, "LRD108"),
    "two lines alternating, a clip before unscale_ on an even step": (
        "optimizer.zero_grad(); loss = forward(x, y)\n"
        "        if step % 2: scaler.scale(loss).backward()\n"
        "        else: scaler.scale(loss).backward()  # THE LINE\n"
        f"        if step == 72: {NORM}\n" + TAIL, "LRD108"),
    # one line for 89 steps, then another (inside the lane: it opens on the second step of
    # each epoch of 16 batches, at 82 here): the lane's kept line must not outlive the switch
    "the line changes at step 90, a clip before unscale_ at step 93": (
        "optimizer.zero_grad(); loss = forward(x, y)\n"
        "        if step < 90: scaler.scale(loss).backward()\n"
        "        else: scaler.scale(loss).backward()  # THE LINE\n"
        f"        if step == 93: {NORM}\n" + TAIL, "LRD108"),
    # torch.autograd.backward called from the user's code (no torch caller) every third step
    "torch.autograd.backward every third step, a clip before unscale_ on one": (
        "optimizer.zero_grad(); loss = forward(x, y)\n"
        "        if step % 3 == 0: torch.autograd.backward(scaler.scale(loss))  # THE LINE\n"
        "        else: scaler.scale(loss).backward()\n"
        f"        if step == 90: {NORM}\n" + TAIL, "LRD108"),
    "torch.autograd.backward every third step, a clip before unscale_ after Tensor.backward": (
        "optimizer.zero_grad(); loss = forward(x, y)\n"
        "        if step % 3 == 0: torch.autograd.backward(scaler.scale(loss))\n"
        "        else: scaler.scale(loss).backward()  # THE LINE\n"
        f"        if step == 91: {NORM}\n" + TAIL, "LRD108"),
    # a helper's frame is new on every call (same code, same instruction): one line
    "from a helper called from two lines, optimizer.step() after it at step 90": (
        "optimizer.zero_grad(); loss = forward(x, y)\n"
        "        if step % 2: back(loss)\n"
        "        else: back(loss)\n"
        "        if step == 90: optimizer.step()\n"
        "        else: scaler.step(optimizer); scaler.update()\n"
        "        scheduler.step()", "LRD109"),
}
HELPER = """
def back(loss):
    scaler.scale(loss).backward()  # THE LINE
"""


def _script(name: str) -> str:
    batch, _ = SCRIPTS[name]
    setup = COSINE + "\n" + HELPER.strip() if "back(loss)" in batch else COSINE
    loop = LOOP.replace("\nSGD\n", f"\n{SGD}\n").replace("SETUP", setup)
    return loop.replace("BATCH", batch).replace("EPOCH", "pass")


def _marked_line(source: str) -> int:
    import textwrap

    (line,) = [n for n, text in enumerate(textwrap.dedent(source).splitlines(), 1) if "# THE LINE" in text]
    return line


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_lane_names_the_line_of_the_scaled_backward_it_closed_on(name, run_script, monkeypatch):
    source = _script(name)
    fast = run_script(source)
    init = Engine.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")  # no step is routine
        self.subscribe(Backward, lambda ev: None)  # no backward() is routine

    monkeypatch.setattr(Engine, "__init__", general)
    slow = run_script(source)
    assert _amp_snapshot(fast.watch) == _amp_snapshot(slow.watch)
    code = SCRIPTS[name][1]
    (finding,) = [f for f in fast.watch.findings if f.code == code]
    line = _marked_line(source)
    assert f"train.py:{line})" in finding.message or f"train.py:{line}," in finding.message, finding.message


def test_the_lane_keeps_its_line_on_a_routine_run(run_script, monkeypatch):
    """On a healthy loop the lane under GradScaler stays open and finds the line of its scaled
    backward once (then reuses it), and a clip before unscale_ much later still names it."""
    import lrdoctor.runtime.amphooks as amphooks

    looked_up: list[int] = []
    user_site_from = amphooks.user_site_from

    def counting(frame):
        looked_up.append(1)
        return user_site_from(frame)

    monkeypatch.setattr(amphooks, "user_site_from", counting)
    source = LOOP.replace("\nSGD\n", f"\n{SGD}\n").replace("SETUP", COSINE).replace(
        "BATCH", "optimizer.zero_grad(); loss = forward(x, y)\n"
                 "        scaler.scale(loss).backward()  # THE LINE\n"
                 f"        if step == 130: {NORM}\n" + TAIL).replace("EPOCH", "pass")
    ran = run_script(source)
    assert len(looked_up) <= 2, looked_up  # found once (and at most once more on the general path)
    (finding,) = [f for f in ran.watch.findings if f.code == "LRD108"]
    assert f"train.py:{_marked_line(source)}" in finding.message, finding.message
    assert finding.evidence["step"] == 130
