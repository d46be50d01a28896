"""Routine steps (the engine does not hand them to the checks, see Engine.on_attempt) must not
hide anything: each finding below starts long after the first steps, in the middle of a run of
routine steps, and must still be reported at the step where it happens."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.engine import ROUTINE_AFTER, ROUTINE_PERIOD
from tests.watch.conftest import PRELUDE

torch = pytest.importorskip("torch")

# 3 epochs of 16 batches under a per-batch cosine whose horizon is the whole run: after the
# first ROUTINE_AFTER steps every optimizer and scheduler step is routine
PER_BATCH_COSINE = PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=3 * len(loader))
step = 0
for epoch in range(3):
    for x, y in loader:
        step += 1
        EXTRA
        train_batch(x, y)
        scheduler.step()
"""


def test_the_cosine_loop_is_routine_and_silent(run_script):
    ran = run_script(PER_BATCH_COSINE.replace("EXTRA", "pass"))
    assert ran.codes == [], ran.watch.report()
    (opt,) = ran.watch.engine.optimizers.values()
    assert opt.attempts == 48 > ROUTINE_AFTER


def test_lr_written_by_hand_late_in_training_is_reported(run_script):
    ran = run_script(PER_BATCH_COSINE.replace(
        "EXTRA", "if step == 30: optimizer.param_groups[0]['lr'] = 0.5  # WRITE"))
    f = ran.only("LRD008")
    assert f.evidence["step"] == 30
    assert "changed from" in f.message and "to 0.5" in f.message


def test_scheduler_stepped_twice_per_update_from_step_20_is_reported(run_script):
    ran = run_script(PER_BATCH_COSINE.replace(
        "T_max=3 * len(loader)", "T_max=1000").replace("EXTRA", "if step > 20: scheduler.step()"))
    f = ran.only("LRD017")
    assert f.evidence["scheduler_steps"] > f.evidence["optimizer_steps"]


def test_lr_collapse_in_the_middle_of_routine_steps_is_reported(run_script):
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0 if s < 10 else 1e-9)
for epoch in range(4):
    for x, y in loader:
        train_batch(x, y)
        scheduler.step()
""")
    f = ran.only("LRD009")
    assert f.evidence["step"] == 11 > ROUTINE_AFTER
    assert "fell from 0.1 to 1e-10" in f.message


def test_nan_written_into_an_unused_parameter_between_checks_is_found_at_the_periodic_check(run_script):
    # the forward never reads `unused`: no loss turns non-finite, only the parameter check
    # every ROUTINE_PERIOD steps can see it
    ran = run_script(f"""
import torch
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
unused = torch.nn.Parameter(torch.zeros(3))
opt = torch.optim.SGD([*model.parameters(), unused], lr=0.1)
for step in range(1, {ROUTINE_PERIOD + 10}):
    if step == 20:
        with torch.no_grad():
            unused[1] = float("nan")
    loss = model(torch.randn(8, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
""")
    f = ran.only("LRD105")
    assert f.evidence["step"] == ROUTINE_PERIOD


def test_late_nan_loss_is_found_at_its_step(run_script):
    ran = run_script(PER_BATCH_COSINE.replace(
        "EXTRA", "if step == 37: x = x * float('inf')"))
    f = ran.only("LRD104")
    assert f.evidence["step"] == 37


def test_strict_mode_raises_at_a_late_finding(run_script):
    # LRD017 is an error: strict mode raises at the scheduler step that makes the second run
    # of double steps, in the user's loop
    import lrdoctor

    with pytest.raises(lrdoctor.ScheduleError) as err:
        run_script(PER_BATCH_COSINE.replace("T_max=3 * len(loader)", "T_max=1000").replace(
            "EXTRA", "if step > 20: scheduler.step()"), strict=True)
    assert err.value.finding.code == "LRD017"
    user = [e for e in err.traceback if str(e.path).endswith("train.py")]
    assert user and user[0].frame.f_globals.get("step") == 22  # the second update after two steps


def test_a_healthy_per_batch_loop_hands_only_its_first_steps_to_the_checks(run_script, monkeypatch):
    # what makes watching cheap: after the first steps, a healthy step reaches no check
    from lrdoctor.runtime.checks.nonfinite import NonFinite
    from lrdoctor.runtime.checks.schedule import ScheduleOverrun, StepOrder

    seen: dict[str, list[int]] = {"opt": [], "nan": [], "sched": []}
    for cls, name, key in ((StepOrder, "on_opt", "opt"), (NonFinite, "on_optimizer_step", "nan"),
                           (ScheduleOverrun, "on_step", "sched")):
        original = getattr(cls, name)

        def spy(self, ev, original=original, key=key):
            seen[key].append(ev.attempt.index if key != "sched" else ev.scheduler.user_steps)
            return original(self, ev)

        monkeypatch.setattr(cls, name, spy)
    ran = run_script(PER_BATCH_COSINE.replace("EXTRA", "pass"))
    assert ran.codes == []
    assert seen["opt"] == seen["nan"] == list(range(1, ROUTINE_AFTER + 1))
    assert seen["sched"] == [48]  # the step that reaches the horizon is judged


def test_a_step_input_does_not_outlive_the_next_step(run_script):
    # NaN detection keeps each step's module-call arguments for a replay; the batch of step k
    # (on a GPU, the biggest tensor a user holds) must be let go by the end of step k + 1, as
    # it is without lrdoctor (where rebinding the loop variable frees it)
    ran = run_script(PRELUDE + """
import gc, weakref
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=1000)
refs, alive = [], []
for epoch in range(5):  # 80 steps: past the periodic check at step 64
    for x, y in loader:
        refs.append(weakref.ref(x))
        train_batch(x, y)
        scheduler.step()
        alive.append(len(refs) >= 2 and refs[-2]() is not None)
        del x, y
""")
    assert not any(ran.ns["alive"]), ran.ns["alive"]


def test_under_gradscaler_module_outputs_get_no_gradient_hooks(run_script):
    # GradScaler checks the gradients itself, so NaN detection keeps no gradient per module
    # output (an autograd hook on every output of every step, for a replay nothing runs) once
    # it has seen the optimizer stepped under the scaler (its first steps are skipped for
    # overflow while the scale comes down)
    ran = run_script(PRELUDE + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
updates = []
optimizer.register_step_post_hook(lambda *args: updates.append(1))
scaler = torch.amp.GradScaler("cpu")
hooked_after_an_update = []
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            out = model(x)
            loss = torch.nn.functional.mse_loss(out.float(), y)
        if updates:
            hooked_after_an_update.append(bool(getattr(out, "_backward_hooks", None)))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
""")
    hooked = ran.ns["hooked_after_an_update"]
    assert len(hooked) >= 16 and not any(hooked), hooked
