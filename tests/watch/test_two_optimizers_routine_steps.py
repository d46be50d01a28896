"""With several optimizers a scheduler step can be routine too: the only scheduler of its
optimizer, stepped with no argument after that optimizer moved since the scheduler's last
step, inside its horizon, with no check asking for every step. Its every_step=False handlers
(StepOrder, the horizon checks, ManualLR) then have nothing to do and are not called. LRD014
(a scheduler left on an optimizer that stopped while another trains) compares each
optimizer's attempt count with the counts at the scheduler's last step, which the engine now
keeps on every step (SchedulerInfo.attempts_seen), routine or not: a run where no scheduler
step is routine finds the same things with the same messages."""

from __future__ import annotations

import pytest

from lrdoctor.runtime.checks.schedule import StepOrder
from lrdoctor.runtime.engine import Engine
from tests.watch.conftest import PRELUDE

pytest.importorskip("torch")

# two optimizers (a body and a head), each with its own per-batch schedule; ``{a}`` and
# ``{b}`` are the lines that step them, ``{extra}`` runs after the scheduler steps; 48 batches
# in all, the first schedule's horizon
LOOP = PRELUDE + """
head = torch.nn.Linear(8, 1)
opt_b = torch.optim.Adam(head.parameters(), lr=1e-3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sched_a = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps={ha})
sched_b = torch.optim.lr_scheduler.OneCycleLR(opt_b, max_lr=1e-3, total_steps={hb})
i = 0
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad(); opt_b.zero_grad()
        (torch.nn.functional.mse_loss(model(x), y) + torch.nn.functional.mse_loss(head(x), y)).backward()
        {a}
        {b}
        sched_a.step(); sched_b.step()
        {extra}
        i += 1
"""


def _loop(a: str = "optimizer.step()", b: str = "opt_b.step()", extra: str = "pass", ha: int = 48,
          hb: int = 48) -> str:
    return LOOP.format(a=a, b=b, extra=extra, ha=ha, hb=hb)


def _count_on_sched(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = StepOrder.on_sched

    def counted(self, ev):
        calls.append(1)
        return real(self, ev)

    monkeypatch.setattr(StepOrder, "on_sched", counted)
    return calls


def _no_routine_scheduler_step(monkeypatch) -> None:
    # no step is routine (a token in every_step for the whole run): every step reaches every
    # handler
    init = Engine.__init__

    def asking(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.every_step.add("every step, for the test")

    monkeypatch.setattr(Engine, "__init__", asking)


def _seen(ran) -> list[tuple[str, str]]:
    return sorted((f.code, f.message) for f in ran.findings)


def test_each_optimizer_with_its_own_scheduler_takes_routine_scheduler_steps(run_script, monkeypatch):
    calls = _count_on_sched(monkeypatch)
    ran = run_script(_loop())
    assert ran.codes == [], ran.watch.report()
    # 48 batches, two scheduler steps each (96 in all): only the first steps of each are
    # handed to StepOrder (before them its optimizer had no attempts_seen to be compared with)
    assert len(calls) <= 4, len(calls)


def test_every_scheduler_step_reaches_step_order_when_nothing_is_routine(run_script, monkeypatch):
    calls = _count_on_sched(monkeypatch)
    _no_routine_scheduler_step(monkeypatch)
    ran = run_script(_loop())
    assert ran.codes == [], ran.watch.report()
    assert len(calls) == 96


@pytest.mark.parametrize("a", [
    # stops after the first epoch: LRD014 at the first scheduler step after the last update
    "(optimizer.step() if epoch == 0 else None)",
    # stops for the very last batch only: one stale scheduler step, the run's last
    "(optimizer.step() if i < 47 else None)",
    # skipped once in the middle, after 30 routine steps
    "(optimizer.step() if i != 30 else None)",
])
def test_lrd014_after_routine_steps_is_found_as_with_every_step_general(run_script, monkeypatch, a):
    ran = run_script(_loop(a=a))
    assert "LRD014" in ran.codes, ran.watch.report()
    assert "Adam took 1 steps" in ran.only("LRD014").message
    found = _seen(ran)
    _no_routine_scheduler_step(monkeypatch)
    assert _seen(run_script(_loop(a=a))) == found


def test_the_other_optimizer_stepped_twice_is_counted_from_the_last_routine_step(run_script, monkeypatch):
    # at batch 30 the head is stepped twice and the body not at all: "took 2 steps", counted
    # from the scheduler's last (routine) step, not from an older one
    a = "(optimizer.step() if i != 30 else None)"
    b = "opt_b.step(); (opt_b.step() if i == 30 else None)"
    ran = run_script(_loop(a=a, b=b))
    assert "Adam took 2 steps" in ran.only("LRD014").message, ran.watch.report()
    found = _seen(ran)
    _no_routine_scheduler_step(monkeypatch)
    assert _seen(run_script(_loop(a=a, b=b))) == found


def test_two_scheduler_steps_per_update_beside_another_optimizer_is_lrd017(run_script, monkeypatch):
    source = _loop(extra="(sched_a.step() if i >= 10 else None)", ha=100)
    ran = run_script(source)
    assert "LRD017" in ran.codes, ran.watch.report()
    found = _seen(ran)
    _no_routine_scheduler_step(monkeypatch)
    assert _seen(run_script(source)) == found


def test_alternating_optimizers_each_stepping_its_scheduler_stay_silent(run_script, monkeypatch):
    # GAN-like: the head trains every other batch and its scheduler steps only then; correct
    source = _loop(b="(opt_b.step() if i % 2 == 0 else None)", hb=24).replace(
        "sched_a.step(); sched_b.step()", "sched_a.step(); (sched_b.step() if i % 2 == 0 else None)")
    ran = run_script(source)
    assert ran.codes == [], ran.watch.report()
    _no_routine_scheduler_step(monkeypatch)
    assert run_script(source).codes == []
