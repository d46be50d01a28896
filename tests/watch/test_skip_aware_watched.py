"""lrdoctor's watcher and SkipAwareScheduler: the wrapper is the fix for LRD005, so a watched
run that uses it is silent, and its scheduler steps are counted once, at the user's line."""

from __future__ import annotations

AMP_LOOP = """
import torch
import lrdoctor
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
optimizer = torch.optim.{opt}
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, total_iters=100)
{wrap}
scaler = torch.amp.GradScaler("cpu", init_scale=2.0**20)
x, y = torch.randn(64, 8), torch.randn(64, 1) * 3
for step in range(30):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        loss = torch.nn.functional.mse_loss(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()  # the user's line
"""
WRAP = "scheduler = lrdoctor.SkipAwareScheduler(scheduler)"


def _scheduler_reports(ran):
    return list(ran.watch.engine.schedulers.values())


def test_wrapped_scheduler_is_not_reported_for_skipped_steps(run_script):
    for opt in ("SGD(model.parameters(), lr=0.01)", "Adam(model.parameters(), lr=0.01, fused=True)"):
        bare = run_script(AMP_LOOP.format(opt=opt, wrap=""))
        assert "LRD005" in bare.codes, opt  # the same loop without the wrapper is reported
        source = AMP_LOOP.format(opt=opt, wrap=WRAP)
        ran = run_script(source)
        assert ran.codes == [], ran.watch.report()
        line = next(i for i, text in enumerate(source.splitlines(), 1) if "user's line" in text)
        info = next(iter(ran.watch.engine.optimizers.values()))
        assert info.skipped >= 3, opt
        # one scheduler (the wrapped one, not the wrapper too), stepped once per real update,
        # at the user's line
        (sched,) = _scheduler_reports(ran)
        assert sched.cls == "LinearLR"
        assert sched.user_steps == info.attempts - info.skipped
        assert sched.last_site is not None and sched.last_site[1] == line, sched.last_site


def test_wrapper_defined_while_watching_is_recognised(run_script):
    # lrdoctor.skipaware imported for the first time inside the watch: the class is then
    # created while watching and wrapped by the subclass hook
    import sys

    saved = sys.modules.pop("lrdoctor.skipaware", None)
    try:
        ran = run_script(AMP_LOOP.format(opt="SGD(model.parameters(), lr=0.01)", wrap=WRAP))
    finally:
        if saved is not None:
            sys.modules["lrdoctor.skipaware"] = saved
    assert ran.codes == [], ran.watch.report()
    assert len(_scheduler_reports(ran)) == 1
