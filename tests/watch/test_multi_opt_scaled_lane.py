"""Several optimizers under GradScaler (a GAN or actor-critic under AMP: ``scaler.step()`` for
each optimizer, one ``scaler.update()``): no lane opens while a scaler is known, so every step
takes the general path, and the hooks' short paths on it must be invisible. The scaled
backward is decided in the backward wrapper itself with no lane open (general()'s routine scaled
backward, the same test), the ``unscale_`` that ``scaler.step()`` (or the user) makes tells the
AMP check directly when its ``on_unscale`` is the event's only handler, ``update()`` reads
several optimizers' found-inf flags with no exception raised, and a routine scheduler step asks
for no lane. Each script runs as ``lrdoctor run`` does and with nothing routine (a token in
Engine.every_step, a Backward handler and a ScalerUnscale handler for the whole run: every step
and every event reaches every check), same seed, and must keep every record, finding (message,
location, evidence), scaler record and scale history, the AMP check's own state, NaN detection's
state and the trained parameters (bit for bit) the same. 52 batches an epoch, three epochs."""

from __future__ import annotations

import sys

import pytest

from lrdoctor.runtime.checks.amp import AmpMisuse
from lrdoctor.runtime.engine import Engine
from lrdoctor.runtime.events import Backward, ScalerUnscale
from tests.watch.test_amp_lane_folded import _amp_state
from tests.watch.test_multi_opt_lane import _full_snapshot

torch = pytest.importorskip("torch")

EPOCHS = 3

# ``model`` trained by ``opt_a``, ``head`` by ``opt_b``, one loss, one scaler; SETUP builds the
# schedulers, BATCH is one iteration after zero_grad (``step`` counts from 1)
LOOP = """
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
loader = DataLoader(data, batch_size=5, shuffle=True)  # 52 batches, the last of one sample
model = torch.nn.Linear(8, 1)
head = torch.nn.Linear(8, 1)
opt_a = torch.optim.SGD(model.parameters(), lr=0.05)
opt_b = torch.optim.Adam(head.parameters(), lr=1e-3)
scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 8)

def forward(x, y):
    return torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(head(x), y)

SETUP
step = 0
for epoch in range(EPOCHS):
    for x, y in loader:
        step += 1
        opt_a.zero_grad(); opt_b.zero_grad()
BATCH
""".replace("EPOCHS", str(EPOCHS))

COSINES = ("sched_a = torch.optim.lr_scheduler.CosineAnnealingLR(opt_a, T_max=400)\n"
           "sched_b = torch.optim.lr_scheduler.CosineAnnealingLR(opt_b, T_max=400)")
BACKWARD = "scaler.scale(forward(x, y)).backward()"
STEPS = "scaler.step(opt_a); scaler.step(opt_b); scaler.update()"
SCHEDS = "sched_a.step(); sched_b.step()"
HEALTHY = "\n".join((BACKWARD, STEPS, SCHEDS))


def _indent(text: str) -> str:
    return "\n".join("        " + line for line in text.splitlines())


# name -> (setup, one iteration, codes that must be found)
SCRIPTS: dict[str, tuple[str, str, set[str]]] = {
    "healthy": (COSINES, HEALTHY, set()),
    "healthy, no schedulers": ("pass", "\n".join((BACKWARD, STEPS)), set()),
    "healthy, each optimizer's scheduler right after its step": (
        COSINES, BACKWARD + "\nscaler.step(opt_a); sched_a.step(); scaler.step(opt_b); scaler.update(); sched_b.step()",
        set()),
    "scale growth every 20 updates": (
        COSINES + "\nscaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 4, growth_interval=20)", HEALTHY, set()),
    "unscale_ of both and a clip of all parameters, every step": (
        COSINES, BACKWARD + "\nscaler.unscale_(opt_a); scaler.unscale_(opt_b)\n"
        "torch.nn.utils.clip_grad_norm_(list(model.parameters()) + list(head.parameters()), 1.0)\n"
        + STEPS + "\n" + SCHEDS, set()),
    "unscale_ of opt_a only, then a clip of all parameters at step 100 (LRD108)": (
        COSINES, BACKWARD + "\nscaler.unscale_(opt_a)\n"
        "if step == 100: torch.nn.utils.clip_grad_norm_(list(model.parameters()) + list(head.parameters()), 1.0)\n"
        "else: torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n" + STEPS + "\n" + SCHEDS, {"LRD108"}),
    "a clip before any unscale_ at step 100 (LRD108)": (
        COSINES, BACKWARD + "\nif step == 100: torch.nn.utils.clip_grad_norm_(head.parameters(), 1.0)\n"
        + STEPS + "\n" + SCHEDS, {"LRD108"}),
    "opt_b.step() directly after the scaled backward at step 100 (LRD109)": (
        COSINES, BACKWARD + "\nscaler.step(opt_a)\nif step == 100: opt_b.step()\nelse: scaler.step(opt_b)\n"
        "scaler.update()\n" + SCHEDS, {"LRD109"}),
    "scaler.step() and no more update() from step 120 (LRD110)": (
        COSINES, BACKWARD + "\nif step < 120: " + STEPS + "\nelif step == 120: scaler.step(opt_a); scaler.step(opt_b)\n"
        + SCHEDS, {"LRD110"}),
    "an inf gradient of head at step 100 (LRD005)": (
        COSINES, BACKWARD + "\nif step == 100: head.weight.grad[0, 0] = float('inf')\n" + STEPS + "\n" + SCHEDS,
        {"LRD005"}),
    "inf gradients from step 90 to 104 (LRD005, LRD106)": (
        COSINES, BACKWARD + "\nif 90 <= step <= 104: model.weight.grad[0, 0] = float('inf')\n"
        + STEPS + "\n" + SCHEDS, {"LRD005", "LRD106"}),
    "a NaN loss at step 90 (LRD104)": (
        COSINES, "loss = forward(x, y)\nif step == 90: loss = loss * float('nan')\n"
        "scaler.scale(loss).backward()\n" + STEPS + "\n" + SCHEDS, {"LRD104"}),
    "the scaled backward from another line every 7th step": (
        COSINES, "if step % 7: scaler.scale(forward(x, y)).backward()\n"
        "else: scaler.scale(forward(x, y)).backward()\nif step == 99: opt_b.step()\n"
        + STEPS + "\n" + SCHEDS, {"LRD109"}),
    "two scaled backwards in one iteration at step 100": (
        COSINES, BACKWARD + "\nif step == 100: scaler.scale(forward(x, y)).backward()\n" + STEPS + "\n" + SCHEDS,
        set()),
    "a second scaler from step 100": (
        COSINES + "\nscaler2 = torch.amp.GradScaler('cpu', init_scale=2.0 ** 10)",
        "s = scaler2 if step >= 100 else scaler\ns.scale(forward(x, y)).backward()\n"
        "s.step(opt_a); s.step(opt_b); s.update()\n" + SCHEDS, set()),
    "opt_b skipped at step 100 (LRD014)": (
        COSINES, BACKWARD + "\nscaler.step(opt_a)\nif step != 100: scaler.step(opt_b)\nscaler.update()\n" + SCHEDS,
        {"LRD014"}),
    "a third optimizer built at step 70 and stepped from then on": (
        COSINES, BACKWARD + "\nif step == 70: opt_c = torch.optim.SGD(head.parameters(), lr=0.0)\n"
        "scaler.step(opt_a); scaler.step(opt_b)\nif step >= 70: scaler.step(opt_c)\nscaler.update()\n" + SCHEDS,
        set()),
    "update(new_scale) at step 90": (
        COSINES, BACKWARD + "\nscaler.step(opt_a); scaler.step(opt_b)\nscaler.update(64.0 if step == 90 else None)\n"
        + SCHEDS, set()),
}


def _script(name: str) -> str:
    setup, batch, _ = SCRIPTS[name]
    return LOOP.replace("SETUP", setup).replace("BATCH", _indent(batch))


def _params(ran) -> list:
    return [p.detach().clone() for m in (ran.ns["model"], ran.ns["head"]) for p in m.parameters()]


def _nothing_routine(monkeypatch) -> None:
    init = Engine.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")  # no step is routine
        self.subscribe(Backward, lambda ev: None)  # no backward() is routine
        self.subscribe(ScalerUnscale, lambda ev: None, every_step=False)  # every unscale_ an event

    monkeypatch.setattr(Engine, "__init__", general)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_several_optimizers_under_gradscaler_keep_the_records_of_the_general_path(name, run_script,
                                                                                   monkeypatch):
    fast = run_script(_script(name))
    _nothing_routine(monkeypatch)
    slow = run_script(_script(name))
    assert _full_snapshot(fast.watch) == _full_snapshot(slow.watch)
    assert _amp_state(fast.watch) == _amp_state(slow.watch)
    for a, b in zip(_params(fast), _params(slow), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, equal_nan=True)  # the same training, bit for bit
    assert SCRIPTS[name][2] <= {f.code for f in fast.watch.findings}, fast.watch.report()


def _calls(run_script, source: str, names: set[str]) -> tuple[object, dict[tuple[str, str], list[int]]]:
    """Run ``source`` watched and note, for each call of one of lrdoctor's functions named in
    ``names`` ((file name, function name)), the training step it was made in."""
    calls: dict[tuple[str, str], list[int]] = {}
    state = {"step": 0}

    def profile(frame, event, arg):
        if event == "call":
            code = frame.f_code
            key = (code.co_filename.rsplit("/", 1)[-1], code.co_name)
            if key in names and "lrdoctor" in code.co_filename:
                calls.setdefault(key, []).append(state["step"])
            elif code.co_name == "forward" and code.co_filename.endswith("train.py"):
                state["step"] += 1

    sys.setprofile(profile)
    try:
        ran = run_script(source)
    finally:
        sys.setprofile(None)
    return ran, calls


def test_a_steady_step_under_gradscaler_takes_the_short_paths(run_script, monkeypatch):
    """With the lane for several optimizers under GradScaler off (the general path's short
    paths: tests/watch/test_multi_opt_amp_lane.py tests the lane), in the healthy loop, past its
    first steps: no backward() reaches the backward hook's
    general(), no unscale_ reaches its general() nor the AMP check's on_unscale (told
    unscaled_by() directly), no update() reaches _guard() (the DataLoader's __iter__ does, at
    each epoch's start), and no scheduler step asks for a lane
    (open_lane), which cannot open while a scaler is known. The base took each of them on every
    step (general() and on_unscale twice, open_lane twice)."""
    monkeypatch.setattr(Engine, "multi_under_scaler", False)
    names = {("amphooks.py", "general"), ("amp.py", "on_unscale"),
             ("engine.py", "open_lane"), ("hooks.py", "_guard"), ("amp.py", "unscaled_by")}
    ran, calls = _calls(run_script, _script("healthy"), names)
    steps = EPOCHS * 52
    late = {k: [s for s in v if s > 10] for k, v in calls.items()}
    assert not late.get(("amphooks.py", "general")), late
    assert not late.get(("amp.py", "on_unscale")), late
    assert not late.get(("engine.py", "open_lane")), late
    # (_guard: the DataLoader's __iter__ at each epoch's start, after the last step of the one before)
    assert all(s % 52 == 0 for s in late.get(("hooks.py", "_guard"), [])), late
    # ... and the AMP check is still told of each optimizer's unscale_, on every step
    assert len(calls.get(("amp.py", "unscaled_by"), [])) == 2 * steps, calls.get(("amp.py", "unscaled_by"))
    amp = ran.watch.engine.scaled_gate
    assert isinstance(amp, AmpMisuse) and sorted(amp.updates.values()) == [steps]
    # (LRD011: the 400-step cosines are not annealed in 156 steps; nothing else)
    assert {f.code for f in ran.watch.findings} == {"LRD011"}, ran.watch.report()


def test_another_unscale_handler_gets_its_events(run_script, monkeypatch):
    """A ScalerUnscale handler beside the AMP check's gets every unscale_ as an event (the
    short path is for the AMP check's handler alone), with its optimizer and whether
    scaler.step() made it."""
    seen: list[tuple[str, bool]] = []
    init = Engine.__init__

    def with_handler(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.subscribe(ScalerUnscale, lambda ev: seen.append((type(ev.optimizer).__name__, ev.by_step)),
                       every_step=False)

    monkeypatch.setattr(Engine, "__init__", with_handler)
    ran = run_script(_script("healthy"))
    steps = EPOCHS * 52
    assert seen == [("SGD", True), ("Adam", True)] * steps
    assert {f.code for f in ran.watch.findings} == {"LRD011"}, ran.watch.report()
