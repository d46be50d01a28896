"""Routine steps under GradScaler must be invisible: a run keeps exactly the same tallies,
findings and report when the steps that ``scaler.step()`` makes may be routine (the checks
subscribed with every_step=False not called: see Engine.on_attempt), a scaled ``backward()``
and a scaler ``update()`` may be routine (no events: see amphooks, Engine.on_scaler_update),
and the lane may take them (Engine.Lane), as when every step and backward is handed to every
check. Each script below runs twice in this process, same seed, under CPU float16 autocast
with ``torch.amp.GradScaler("cpu")``: once as `lrdoctor run` does, once with a token in
Engine.every_step and a Backward handler for every backward from the start (nothing is
routine), and every record the engine keeps (the scalers' and the findings' evidence too) is
compared field by field."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.checks.nonfinite import NonFinite
from lrdoctor.runtime.engine import ROUTINE_PERIOD, Engine
from lrdoctor.runtime.events import Backward
from tests.watch.test_lane import _plain, _snapshot

torch = pytest.importorskip("torch")

EPOCHS = 9  # 9 x 16 batches: past two periodic steps
assert EPOCHS * 16 > 2 * ROUTINE_PERIOD

SGD = "optimizer = torch.optim.SGD(model.parameters(), lr=0.05)"
PRELUDE = """
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.randn(256, 8), torch.randn(256, 1))
loader = DataLoader(data, batch_size=16, shuffle=True)  # 16 batches per epoch
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
SGD
SCALER = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)

def forward(x, y):
    with torch.autocast("cpu", dtype=torch.float16):
        return torch.nn.functional.mse_loss(model(x).float(), y)

def train_batch(x, y, opt=None):
    opt = opt or optimizer
    opt.zero_grad()
    scaler.scale(forward(x, y)).backward()
    scaler.step(opt)
    scaler.update()
"""

LOOP = PRELUDE + f"""
scaler = SCALER
SETUP
step = 0
for epoch in range({EPOCHS}):
    for x, y in loader:
        step += 1
        BATCH
    EPOCH
"""

COSINE = "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=400)"


def _inf_grad_at(*steps: int) -> str:
    """A batch whose gradient is made inf after the scaled backward: scaler.step skips it."""
    return ("optimizer.zero_grad()\n"
            "        scaler.scale(forward(x, y)).backward()\n"
            f"        if step in {steps}: model[0].weight.grad[0, 0] = float('inf')\n"
            "        scaler.step(optimizer); scaler.update(); scheduler.step()")


# name -> (setup, batch, epoch, codes that must be reported)
SCRIPTS: dict[str, tuple[str, str, str, set[str]]] = {
    # the end of the horizon inside a lane under GradScaler (its updates stop there too)
    "cosine horizon ends inside a lane (T_max=90), trained past it": (
        "scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=90)",
        "train_batch(x, y); scheduler.step()", "pass", set()),
    "healthy, per-batch cosine": (COSINE, "train_batch(x, y); scheduler.step()", "pass", set()),
    "no scheduler": ("pass", "train_batch(x, y)", "pass", set()),
    "skipped steps at the start (huge init_scale), scheduler stepped on them": (
        "scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 60)\n" + COSINE,
        "train_batch(x, y); scheduler.step()", "pass", {"LRD005"}),
    "inf gradient at step 30": (COSINE, _inf_grad_at(30), "pass", {"LRD005"}),
    "inf gradients at steps 40 and 64 (the parameter check moves off the periodic step)": (
        COSINE, _inf_grad_at(40, 64), "pass", {"LRD005"}),
    "inf gradients at steps 20, 60, 64, 65, 100, 128": (
        COSINE, _inf_grad_at(20, 60, 64, 65, 100, 128), "pass", {"LRD005"}),
    "scale growth (growth_interval=3)": (
        "scaler = torch.amp.GradScaler('cpu', init_scale=2.0 ** 8, growth_interval=3)\n" + COSINE,
        "train_batch(x, y); scheduler.step()", "pass", set()),
    "scheduler per epoch": ("scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)",
                            "train_batch(x, y)", "scheduler.step()", set()),
    "two optimizers, one scaler": (
        "other = torch.nn.Linear(8, 1)\nopt2 = torch.optim.Adam(other.parameters(), lr=1e-3)\n" + COSINE,
        "optimizer.zero_grad(); opt2.zero_grad()\n"
        "        with torch.autocast('cpu', dtype=torch.float16):\n"
        "            loss = torch.nn.functional.mse_loss(model(x).float(), y)"
        " + torch.nn.functional.mse_loss(other(x).float(), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.step(optimizer); scaler.step(opt2); scaler.update(); scheduler.step()",
        "pass", set()),
    "NaN loss at step 37": (
        COSINE, "x = x * float('nan') if step == 37 else x\n        train_batch(x, y); scheduler.step()",
        "pass", {"LRD104"}),
    "unscale_ and clip_grad_norm_": (
        COSINE,
        "optimizer.zero_grad()\n"
        "        scaler.scale(forward(x, y)).backward()\n"
        "        scaler.unscale_(optimizer)\n"
        "        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        scaler.step(optimizer); scaler.update(); scheduler.step()", "pass", set()),
    "clip_grad_norm_ before unscale_ from step 70": (
        COSINE,
        "optimizer.zero_grad()\n"
        "        scaler.scale(forward(x, y)).backward()\n"
        "        if step >= 70: torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n"
        "        scaler.step(optimizer); scaler.update(); scheduler.step()", "pass", {"LRD108"}),
    "optimizer.step() after a scaled backward at step 90": (
        COSINE,
        "optimizer.zero_grad()\n"
        "        scaler.scale(forward(x, y)).backward()\n"
        "        if step == 90: optimizer.step()\n"
        "        else: scaler.step(optimizer); scaler.update()\n"
        "        scheduler.step()", "pass", {"LRD109"}),
    "scheduler stepped from two lines": (
        COSINE,
        "train_batch(x, y)\n"
        "        if step % 2: scheduler.step()\n"
        "        else: scheduler.step()", "pass", set()),
    "a plain update (no scaler) every tenth step": (
        COSINE,
        "if step % 10 == 5:\n"
        "            optimizer.zero_grad(); torch.nn.functional.mse_loss(model(x), y).backward()\n"
        "            optimizer.step()\n"
        "        else: train_batch(x, y)\n"
        "        scheduler.step()", "pass", set()),
    "AdamW with eps 1e-8, per-batch OneCycleLR": (
        "optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)\n"
        "scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=400)",
        "train_batch(x, y); scheduler.step()", "pass", set()),
    "scaler.step() without scaler.update() from step 100": (
        COSINE,
        "optimizer.zero_grad()\n"
        "        scaler.scale(forward(x, y)).backward()\n"
        "        if step < 100: scaler.step(optimizer); scaler.update()\n"
        "        elif step == 100: scaler.step(optimizer)\n"
        "        scheduler.step()", "pass", {"LRD110"}),
}


def _unscaled_clip(clip: str, when: str = "True", before: str = "") -> str:
    """A batch whose gradients are unscaled then clipped by ``clip`` when ``when``."""
    return ("optimizer.zero_grad()\n"
            "        scaler.scale(forward(x, y)).backward()\n"
            f"        {before or 'pass'}\n"
            f"        if {when}: scaler.unscale_(optimizer); {clip}\n"
            "        scaler.step(optimizer); scaler.update(); scheduler.step()")


NORM = "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)"
# gradient clipping after unscale_ on every step: routine (no GradClip event), in the lane
CLIPPED_EVERY_STEP = {"unscale_ and clip_grad_norm_", "unscale_ and clip_grad_value_"}
SCRIPTS.update({
    "unscale_ and clip_grad_value_": (
        COSINE, _unscaled_clip("torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)"), "pass", set()),
    "unscale_ and clip_grad_norm_ on every third step": (
        COSINE, _unscaled_clip(NORM, "step % 3 == 0"), "pass", set()),
    "NaN gradient at step 50, unscaled and clipped (error_if_nonfinite=False)": (
        COSINE, _unscaled_clip("torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=False)",
                               before="if step == 50: model[0].weight.grad[0, 0] = float('nan')"),
        "pass", {"LRD005"}),
    "clip_grad_norm_ after unscale_, then before it from step 80": (
        COSINE,
        "optimizer.zero_grad()\n"
        "        scaler.scale(forward(x, y)).backward()\n"
        "        if step < 80: scaler.unscale_(optimizer)\n"
        f"        {NORM}\n"
        "        scaler.step(optimizer); scaler.update(); scheduler.step()", "pass", {"LRD108"}),
    "two optimizers, one scaler, one unscaled and its parameters clipped": (
        "other = torch.nn.Linear(8, 1)\nopt2 = torch.optim.Adam(other.parameters(), lr=1e-3)\n" + COSINE,
        "optimizer.zero_grad(); opt2.zero_grad()\n"
        "        with torch.autocast('cpu', dtype=torch.float16):\n"
        "            loss = torch.nn.functional.mse_loss(model(x).float(), y)"
        " + torch.nn.functional.mse_loss(other(x).float(), y)\n"
        "        scaler.scale(loss).backward()\n"
        f"        scaler.unscale_(optimizer); {NORM}\n"
        "        scaler.step(optimizer); scaler.step(opt2); scaler.update(); scheduler.step()",
        "pass", set()),
    "two optimizers, one scaler, one unscaled, the other's parameters clipped": (
        "other = torch.nn.Linear(8, 1)\nopt2 = torch.optim.Adam(other.parameters(), lr=1e-3)\n" + COSINE,
        "optimizer.zero_grad(); opt2.zero_grad()\n"
        "        with torch.autocast('cpu', dtype=torch.float16):\n"
        "            loss = torch.nn.functional.mse_loss(model(x).float(), y)"
        " + torch.nn.functional.mse_loss(other(x).float(), y)\n"
        "        scaler.scale(loss).backward()\n"
        "        scaler.unscale_(optimizer); torch.nn.utils.clip_grad_norm_(other.parameters(), 1.0)\n"
        "        scaler.step(optimizer); scaler.step(opt2); scaler.update(); scheduler.step()",
        "pass", {"LRD108"}),
})
SCRIPTS["unscale_ and clip_grad_norm_"] = (COSINE, _unscaled_clip(NORM), "pass", set())


def _fused_supported() -> bool:
    try:
        p = torch.nn.Parameter(torch.zeros(2))
        p.grad = torch.ones(2)
        torch.optim.Adam([p], lr=1e-3, fused=True).step()
        return True
    except Exception:
        return False


FUSED = "fused Adam (found_inf read by the kernel), inf gradient at step 30"
SCRIPTS[FUSED] = (
    "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)\n" + COSINE,
    _inf_grad_at(30), "pass", {"LRD005"})


def _script(name: str) -> str:
    setup, batch, epoch, _ = SCRIPTS[name]
    # SGD unless the script builds its own optimizer (then the only one)
    loop = LOOP.replace("\nSGD\n", "\n\n" if setup.startswith("optimizer = ") else f"\n{SGD}\n")
    return loop.replace("SETUP", setup).replace("BATCH", batch).replace("EPOCH", epoch)


def _amp_snapshot(watch) -> dict:
    snap = _snapshot(watch)
    snap["evidence"] = [(f.code, repr(sorted(f.evidence.items()))) for f in watch.findings]
    snap["scalers"] = [
        {**_plain(s), "scale_history": list(s.scale_history.points)} for s in watch.engine.scalers.values()
    ]
    return snap


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_routine_scaler_steps_keep_the_same_records_as_the_general_path(name, run_script, monkeypatch):
    if name == FUSED and not _fused_supported():
        pytest.skip("this PyTorch has no fused Adam on the CPU")
    handed: list[int] = []
    on_optimizer_step = NonFinite.on_optimizer_step

    def counting(self, ev):
        handed.append(ev.attempt.index)
        return on_optimizer_step(self, ev)

    monkeypatch.setattr(NonFinite, "on_optimizer_step", counting)
    general_calls: list[int] = []
    on_attempt = Engine.on_attempt

    def counting_attempts(self, *args, **kwargs):
        general_calls.append(1)
        return on_attempt(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "on_attempt", counting_attempts)
    fast = run_script(_script(name))
    fast_handed = list(handed)
    lane_general = len(general_calls)
    init = Engine.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")  # no step is routine
        self.subscribe(Backward, lambda ev: None)  # no backward() is routine

    monkeypatch.setattr(Engine, "__init__", general)
    handed.clear()
    slow = run_script(_script(name))
    assert _amp_snapshot(fast.watch) == _amp_snapshot(slow.watch)
    attempts = sum(o.attempts for o in slow.watch.engine.optimizers.values())
    assert len(handed) == attempts  # the reference run hands every step to every check
    assert slow.watch.engine.scalers  # the scaler's path was taken
    assert SCRIPTS[name][3] <= {f.code for f in fast.watch.findings}, fast.watch.report()
    if name == "healthy, per-batch cosine":
        # most steps were routine: the first ROUTINE_AFTER only; the periodic ones are kept
        # by the lane (Engine.scaled_lane_period), which makes their parameter check itself
        assert fast_handed == [1, 2, 3, 4], fast_handed
        assert list(fast.watch.engine.loss_gate.last_checked.values()) == [2 * ROUTINE_PERIOD]
        # the lane took most of them (only the steps around its opening and the periodic
        # ones took the general path)
        assert lane_general < attempts // 4, lane_general
        # and every scaled backward was routine (no event)
        assert fast.watch.engine.routine_backwards_done == EPOCHS * 16
        assert slow.watch.engine.routine_backwards_done == 0
    if name in CLIPPED_EVERY_STEP:
        # the lane took most steps, clip and unscale_ included, and no clip made an event
        assert lane_general < attempts // 4, lane_general
        assert fast.watch.engine.routine_clips == EPOCHS * 16
        assert slow.watch.engine.routine_clips == 0
    if "LRD108" in SCRIPTS[name][3]:  # found at its step, as on the general path
        (lrd108,) = [f for f in fast.watch.findings if f.code == "LRD108"]
        assert lrd108.evidence["step"] == (80 if "from step 80" in name else 70 if "from step 70" in name else 1)
    if "skipped" in name or "inf gradient" in name:
        assert any(o.skipped for o in slow.watch.engine.optimizers.values())


@pytest.mark.parametrize("options", [{"checks": ()}, {"nan_check": False}], ids=["no checks", "no NaN check"])
@pytest.mark.parametrize("name", ["healthy, per-batch cosine", "inf gradient at step 30",
                                  "scale growth (growth_interval=3)",
                                  "optimizer.step() after a scaled backward at step 90",
                                  "a plain update (no scaler) every tenth step",
                                  "unscale_ and clip_grad_norm_",
                                  "clip_grad_norm_ after unscale_, then before it from step 80"])
def test_the_lane_under_gradscaler_with_fewer_checks(name, options, run_script, monkeypatch):
    """Without the AMP and NaN checks (no backward hook) and without NaN detection alone: the
    lane under GradScaler still keeps the records of the general path, and is used."""
    general_calls: list[int] = []
    on_attempt = Engine.on_attempt

    def counting_attempts(self, *args, **kwargs):
        general_calls.append(1)
        return on_attempt(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "on_attempt", counting_attempts)
    fast = run_script(_script(name), **options)
    lane_general = len(general_calls)
    init = Engine.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")
        self.subscribe(Backward, lambda ev: None)

    monkeypatch.setattr(Engine, "__init__", general)
    slow = run_script(_script(name), **options)
    assert _amp_snapshot(fast.watch) == _amp_snapshot(slow.watch)
    attempts = sum(o.attempts for o in slow.watch.engine.optimizers.values())
    if name == "healthy, per-batch cosine":
        assert lane_general < attempts // 4, lane_general


def test_a_scaled_backward_after_a_routine_plain_step_keeps_the_lane_closed(run_script, monkeypatch):
    """A plain (unscaled) routine step, then a scaled backward before the scheduler step: no
    lane opens for the plain steps, so the next optimizer.step() made outside scaler.step()
    is LRD109's at once (strict mode stops the run there), as when every step takes the
    general path."""
    source = PRELUDE.replace("\nSGD\n", f"\n{SGD}\n") + f"""
import lrdoctor
scaler = SCALER
{COSINE}
step = stopped_at = 0
try:
    for epoch in range({EPOCHS}):
        for x, y in loader:
            step += 1
            optimizer.zero_grad(); torch.nn.functional.mse_loss(model(x), y).backward()
            if step == 50:  # the clip's event closes the lane: this step takes the general path
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            optimizer.step()
            if step == 50:
                scaler.scale(forward(x, y)).backward()
            scheduler.step()
except lrdoctor.ScheduleError:
    stopped_at = step
"""
    fast = run_script(source, strict=True)
    init = Engine.__init__

    def general(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step")
        self.subscribe(Backward, lambda ev: None)

    monkeypatch.setattr(Engine, "__init__", general)
    slow = run_script(source, strict=True)
    assert slow.ns["stopped_at"] == 51
    assert fast.ns["stopped_at"] == 51
    assert _amp_snapshot(fast.watch) == _amp_snapshot(slow.watch)
